// The scheduling rule of docs/isa.md section 6 through the lock-step API:
// min-PC selection, the fairness step every FairnessPeriod issues, an
// intra-warp spin lock finishing, block placement, retire records.
#include "harness.hpp"

namespace kestrel::model::test {
namespace {

TEST(LockStep, PlaceBlockAndStepRecordsRetires) {
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);  // 0
  a.addi(s2, t0, 5);               // 4
  a.fcvt_s_w(f(1), s2, kRne);      // 8
  a.kx_exit();                     // 12
  TestGpu g(64, 4, 2, 4);
  g.load(a);
  g.gpu().start(g.desc({2, 1, 1}, {6, 1, 1}), Dispatch::kManual);
  g.gpu().place_block(1, 1, {3, 0});  // block 1 on SM 1, its warps in slots 3 and 0
  EXPECT_TRUE(g.gpu().warp_resident(1, 3));
  EXPECT_TRUE(g.gpu().warp_resident(1, 0));
  EXPECT_FALSE(g.gpu().warp_resident(0, 0));

  Retire r = g.gpu().step(1, 0);  // warp 1 of block 1: threads 4, 5 -> lanes 0, 1
  ASSERT_TRUE(r.issued);
  EXPECT_EQ(r.sm, 1u);
  EXPECT_EQ(r.warp_slot, 0u);
  EXPECT_EQ(r.pc, kCode);
  EXPECT_EQ(r.mask, 0x3u);
  ASSERT_EQ(r.writes.size(), 2u);
  EXPECT_EQ(r.writes[1].lane, 1u);
  EXPECT_FALSE(r.writes[1].fp);
  EXPECT_EQ(r.writes[1].reg, t0);
  EXPECT_EQ(r.writes[1].value, 1u);

  r = g.gpu().step(1, 0);
  ASSERT_EQ(r.writes.size(), 2u);
  EXPECT_EQ(r.writes[0].value, 5u);
  r = g.gpu().step(1, 0);
  ASSERT_EQ(r.writes.size(), 2u);
  EXPECT_TRUE(r.writes[0].fp);
  EXPECT_EQ(r.writes[0].reg, 1u);
  EXPECT_EQ(r.writes[0].value, bits(5.0f));
  r = g.gpu().step(1, 0);  // exit
  EXPECT_TRUE(r.writes.empty());
  r = g.gpu().step(1, 0);
  EXPECT_FALSE(r.issued) << "every thread of the warp exited";

  // Block 0 is not placed yet: the launch is not done.
  for (int i = 0; i < 4; ++i) g.gpu().step(1, 3);
  EXPECT_EQ(g.gpu().state(), LaunchState::kRunning);
  EXPECT_FALSE(g.gpu().warp_resident(1, 3)) << "block 1 completed and left its slots";
  g.gpu().place_block(0, 0, {0, 1});
  for (int i = 0; i < 4; ++i) {
    g.gpu().step(0, 0);
    g.gpu().step(0, 1);
  }
  EXPECT_EQ(g.gpu().state(), LaunchState::kDone);
  EXPECT_EQ(g.gpu().counters()[KESTREL_CNT_BLOCKS], 2u);
}

TEST(LockStep, BarrierReleaseWritesAppearInTheCompletingRetire) {
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.andi(t0, t0, 1);
  a.kx_bar_count(s2, t0);
  a.kx_exit();
  TestGpu g(64, 4, 1, 4);
  g.load(a);
  g.gpu().start(g.desc({1, 1, 1}, {7, 1, 1}), Dispatch::kManual);
  g.gpu().place_block(0, 0, {2, 1});
  for (int i = 0; i < 2; ++i) g.gpu().step(0, 2);
  Retire r = g.gpu().step(0, 2);  // warp 0 arrives: nothing written yet
  EXPECT_EQ(r.pc, kCode + 8);
  EXPECT_TRUE(r.writes.empty());
  EXPECT_FALSE(g.gpu().step(0, 2).issued) << "all of warp 0 waits";
  for (int i = 0; i < 2; ++i) g.gpu().step(0, 1);
  r = g.gpu().step(0, 1);  // warp 1 (threads 4..6) completes the barrier
  ASSERT_EQ(r.writes.size(), 7u);
  for (const RegWrite& w : r.writes) {
    EXPECT_EQ(w.reg, s2);
    EXPECT_EQ(w.value, 3u);  // threads 1, 3, 5 are odd
  }
  EXPECT_EQ(r.writes[0].warp_slot, 2u);
  EXPECT_EQ(r.writes[6].warp_slot, 1u);
  EXPECT_TRUE(g.gpu().step(0, 2).issued);
}

TEST(LockStep, RejectsBadPlacements) {
  TestGpu g(64, 4, 1, 4);
  Assembler a(64);
  a.kx_exit();
  g.load(a);
  g.gpu().start(g.desc({2, 1, 1}, {8, 1, 1}), Dispatch::kManual);
  EXPECT_THROW(g.gpu().place_block(2, 0, {0, 1}), Error);  // outside the grid
  EXPECT_THROW(g.gpu().place_block(0, 1, {0, 1}), Error);  // no such SM
  EXPECT_THROW(g.gpu().place_block(0, 0, {0}), Error);     // one slot per warp
  EXPECT_THROW(g.gpu().place_block(0, 0, {1, 1}), Error);  // slot twice
  EXPECT_THROW(g.gpu().place_block(0, 0, {0, 4}), Error);  // slot out of range
  g.gpu().place_block(0, 0, {0, 1});
  EXPECT_THROW(g.gpu().place_block(0, 0, {2, 3}), Error);  // placed twice
  EXPECT_THROW(g.gpu().place_block(1, 0, {1, 2}), Error);  // slot busy
  EXPECT_THROW(g.gpu().step(0, 2), Error);                 // nothing resident
  EXPECT_THROW(g.gpu().run(), Error);                      // manual launches step
}

TEST(Scheduling, MinPcFirstThenFairnessVisitsHigherGroups) {
  // Lanes 1..3 spin at a low PC while lane 0 sits at a higher one.  The rule
  // runs the min PC; every 32nd diverged issue is the fairness step, which
  // takes the lowest group above rr_pc (rr_pc starts at 0, so the first
  // fairness step still finds the spinning group, the second finds lane 0).
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);  // 0x00
  a.beq(t0, zero, "high");         // 0x04
  a.bind("spin");
  a.j("spin");  // 0x08: lanes 1..3 forever
  a.nop();      // 0x0C
  a.bind("high");
  a.li(s2, 1);  // 0x10: lane 0
  a.li(s3, 2);  // 0x14
  a.j("high");  // 0x18
  TestGpu g(64, 4, 1, 1);
  g.load(a);
  g.gpu().start(g.desc({1, 1, 1}, {4, 1, 1}), Dispatch::kManual);
  g.gpu().place_block(0, 0, {0});
  EXPECT_EQ(g.gpu().step(0, 0).mask, 0xFu);
  EXPECT_EQ(g.gpu().step(0, 0).mask, 0xFu);  // beq splits the warp
  std::vector<uint64_t> pcs;
  std::vector<uint32_t> masks;
  for (int i = 0; i < 100; ++i) {
    const Retire r = g.gpu().step(0, 0);
    pcs.push_back(r.pc - kCode);
    masks.push_back(r.mask);
  }
  for (int i = 0; i < 100; ++i) {
    if (i == 63) {
      EXPECT_EQ(pcs[i], 0x10u);  // second fairness step: rr_pc was 0x08
      EXPECT_EQ(masks[i], 0x1u);
    } else if (i == 95) {
      EXPECT_EQ(pcs[i], 0x14u);  // third: above rr_pc = 0x10
    } else {
      EXPECT_EQ(pcs[i], 0x08u) << i;
      EXPECT_EQ(masks[i], 0xEu) << i;
    }
  }
  EXPECT_EQ(g.gpu().xreg(0, 0, 0, s2), 1u);
  EXPECT_EQ(g.gpu().xreg(0, 0, 0, s3), 2u);
  EXPECT_EQ(g.gpu().state(), LaunchState::kRunning);
  g.gpu().abort();
  EXPECT_EQ(g.gpu().state(), LaunchState::kDone);
}

TEST(Scheduling, SpinningGroupYieldsToTheGroupsAbove) {
  // Lanes 1..3 spin on a branch whose operands never change; lane 0 runs a
  // loop above them.  The second time their lowest lane takes the branch
  // back with the same lanes and values, the warp runs the groups above the
  // branch for SpinYieldIssues issues (docs/isa.md section 6); each spin
  // after that yields again.
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);  // 0x00
  a.li(t1, 1);                     // 0x04
  a.beq(t0, zero, "high");         // 0x08
  a.bind("spin");
  a.bne(t1, zero, "spin");  // 0x0C: lanes 1..3, back to itself
  a.nop();                  // 0x10
  a.bind("high");
  a.addi(s2, s2, 1);  // 0x14: lane 0
  a.j("high");        // 0x18
  TestGpu g(64, 4, 1, 1);
  g.load(a);
  g.gpu().start(g.desc({1, 1, 1}, {4, 1, 1}), Dispatch::kManual);
  g.gpu().place_block(0, 0, {0});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(g.gpu().step(0, 0).mask, 0xFu);  // up to the split
  std::vector<uint64_t> pcs;
  for (int i = 0; i < 2 + 32 + 1 + 32 + 1; ++i) pcs.push_back(g.gpu().step(0, 0).pc - kCode);
  EXPECT_EQ(pcs[0], 0x0Cu);  // recorded
  EXPECT_EQ(pcs[1], 0x0Cu);  // the same again: spinning
  for (int i = 2; i < 34; ++i) EXPECT_EQ(pcs[i], i % 2 == 0 ? 0x14u : 0x18u) << i;
  EXPECT_EQ(pcs[34], 0x0Cu);  // the yield is used up; the spin yields at once again
  for (int i = 35; i < 67; ++i) EXPECT_EQ(pcs[i], i % 2 == 1 ? 0x14u : 0x18u) << i;
  EXPECT_EQ(pcs[67], 0x0Cu);
  EXPECT_EQ(g.gpu().xreg(0, 0, 0, s2), 32u);
  g.gpu().abort();
}

TEST(Scheduling, LoopsThatProgressDoNotYield) {
  // A divergent counted loop: each lane's count changes every iteration, so
  // no branch is taken twice with the same values and the warp keeps running
  // the minimum PC, reconverging at the loop's end before lane 0 moves on.
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);  // 0x00
  a.addi(t1, t0, 3);               // 0x04: lane l loops l + 3 times
  a.beq(t0, zero, "after");        // 0x08: lane 0 skips the loop
  a.bind("loop");
  a.addi(t1, t1, -1);       // 0x0C
  a.bne(t1, zero, "loop");  // 0x10
  a.bind("after");
  a.addi(s2, s2, 1);  // 0x14
  a.kx_exit();        // 0x18
  TestGpu g(64, 4, 1, 1);
  g.load(a);
  g.gpu().start(g.desc({1, 1, 1}, {4, 1, 1}), Dispatch::kManual);
  g.gpu().place_block(0, 0, {0});
  for (int i = 0; i < 3; ++i) g.gpu().step(0, 0);
  uint32_t loop_issues = 0;
  Retire r = g.gpu().step(0, 0);
  while (r.pc - kCode < 0x14) {
    ++loop_issues;
    r = g.gpu().step(0, 0);
  }
  EXPECT_EQ(loop_issues, 2u * 6);  // lane 3's six iterations; lanes 1 and 2 drop out on the way
  EXPECT_EQ(r.mask, 0xFu);         // all four lanes meet at 0x14
  g.gpu().abort();
}

TEST(Scheduling, IntraWarpSpinLockFinishes) {
  // Every lane takes a lock with amoswap, increments a counter and releases.
  // Without the fairness step the lock holder (at a higher PC than the
  // spinning lanes) would never run again.
  Assembler a(64);
  a.addi(s0, a0, 64);  // lock word
  a.li(t1, 1);
  a.bind("acquire");
  a.amo(0x01, 4, t2, s0, t1);  // amoswap.w t2, t1, (s0)
  a.bne(t2, zero, "acquire");
  a.lw(t3, a0, 0);  // critical section
  a.addi(t3, t3, 1);
  a.sw(t3, a0, 0);
  a.fence();
  a.sw(zero, s0, 0);  // release
  a.kx_exit();
  for (unsigned lanes : {4u, 8u, 32u}) {
    TestGpu g(64, lanes, 1, 2);
    g.load(a);
    g.set_data<uint32_t>(0, 0);
    g.set_data<uint32_t>(64, 0);
    ASSERT_EQ(g.run({1, 1, 1}, {2 * lanes, 1, 1}), LaunchState::kDone);
    EXPECT_EQ(g.data<uint32_t>(0), 2 * lanes);
  }
}

TEST(Scheduling, LrScSpinLockFinishes) {
  Assembler a(32);
  a.addi(s0, a0, 64);
  a.li(t1, 1);
  a.bind("acquire");
  a.lr(4, t2, s0);
  a.bne(t2, zero, "acquire");
  a.sc(4, t2, s0, t1);
  a.bne(t2, zero, "acquire");
  a.lw(t3, a0, 0);
  a.addi(t3, t3, 3);
  a.sw(t3, a0, 0);
  a.sw(zero, s0, 0);
  a.kx_exit();
  TestGpu g(32, 8, 1, 1);
  g.load(a);
  ASSERT_EQ(g.run({3, 1, 1}, {8, 1, 1}), LaunchState::kDone);
  EXPECT_EQ(g.data<uint32_t>(0), 3u * 24);
}

TEST(Scheduling, AutomaticRunIsDeterministic) {
  // Blocks race on an atomic ticket: the order they take tickets depends on the
  // model's warp order only, so two runs agree exactly.
  Assembler a(64);
  a.li(t1, 1);
  a.amo(0x00, 4, t2, a0, t1);
  a.csrr(t3, KESTREL_CSR_CTAID_X);
  a.csrr(t4, KESTREL_CSR_TID_X);
  a.slli(t3, t3, 5);
  a.add(t3, t3, t4);
  a.slli(t3, t3, 2);
  a.add(t3, t3, a0);
  a.sw(t2, t3, 4);
  a.kx_exit();
  std::vector<uint32_t> first, second;
  for (auto* out : {&first, &second}) {
    TestGpu g(64, 8, 2, 4);
    g.load(a);
    ASSERT_EQ(g.run({8, 1, 1}, {20, 1, 1}), LaunchState::kDone);
    for (uint32_t i = 0; i < 8 * 32; ++i) out->push_back(g.data<uint32_t>(4 + 4 * i));
  }
  EXPECT_EQ(first, second);
}

// The SM's warp policy (Config::sched_policy, CONFIG2): four warps each take
// eight rounds of atomic tickets and log their warp number under each
// ticket.  Greedy-then-oldest runs the oldest warp while it can issue, so
// the log is warp 0's 32 tickets, then warp 1's, ...; loose round-robin
// turns to the next warp after every slice, so the warps' tickets interleave.
TEST(Scheduling, PolicyOrdersTheWarpsSlices) {
  Assembler a(64);
  a.li(t1, 1);
  a.li(t5, 8);                     // rounds
  a.csrr(t4, KESTREL_CSR_WARPID);  // the warp's number in its block
  a.bind("round");
  a.amo(0x00, 4, t2, a0, t1);  // t2 = ticket (amoadd.w)
  a.slli(t3, t2, 2);
  a.add(t3, t3, a0);
  a.sw(t4, t3, 4);
  a.addi(t5, t5, -1);
  a.bne(t5, zero, "round");
  a.kx_exit();
  for (const unsigned policy : {KESTREL_SCHED_GTO, KESTREL_SCHED_LRR}) {
    TestGpu g(64, 4, 1, 4, policy);
    g.load(a);
    ASSERT_EQ(g.run({1, 1, 1}, {16, 1, 1}), LaunchState::kDone);
    ASSERT_EQ(g.data<uint32_t>(0), 4u * 4 * 8);
    bool in_turns = true;
    for (uint32_t i = 0; i < 4 * 4 * 8; ++i) in_turns = in_turns && g.data<uint32_t>(4 + 4 * i) == i / 32;
    EXPECT_EQ(in_turns, policy == KESTREL_SCHED_GTO) << "policy " << policy;
  }
}

}  // namespace
}  // namespace kestrel::model::test
