// CSRs (standard and Kestrel), the custom SIMT instructions, barriers with
// divergent warps and exited threads, divergence and reconvergence, and
// several lanes/XLEN configurations running one kernel.
#include "harness.hpp"

namespace kestrel::model::test {
namespace {

TEST(Csr, KestrelIdentityCsrs) {
  // Every thread writes its CSRs to out[global thread][0..15] (8 bytes each).
  const uint32_t csrs[] = {
      KESTREL_CSR_TID_X,    KESTREL_CSR_TID_Y,       KESTREL_CSR_TID_Z,       KESTREL_CSR_CTAID_X,
      KESTREL_CSR_CTAID_Y,  KESTREL_CSR_NTID_X,      KESTREL_CSR_NTID_Y,      KESTREL_CSR_NCTAID_X,
      KESTREL_CSR_NCTAID_Y, KESTREL_CSR_LANEID,      KESTREL_CSR_WARPID,      KESTREL_CSR_WARPSIZE,
      KESTREL_CSR_SMID,     KESTREL_CSR_SHARED_BASE, KESTREL_CSR_SHARED_SIZE, KESTREL_CSR_DYN_SHARED};
  Assembler a(64);
  // global index = (ctaid.y * nctaid.x + ctaid.x) * threads + tid.y * ntid.x + tid.x
  a.csrr(t0, KESTREL_CSR_CTAID_Y);
  a.csrr(t1, KESTREL_CSR_NCTAID_X);
  a.mul(t0, t0, t1);
  a.csrr(t1, KESTREL_CSR_CTAID_X);
  a.add(t0, t0, t1);
  a.li(t1, 6);
  a.mul(t0, t0, t1);
  a.csrr(t1, KESTREL_CSR_TID_Y);
  a.slli(t1, t1, 1);
  a.add(t0, t0, t1);
  a.csrr(t1, KESTREL_CSR_TID_X);
  a.add(t0, t0, t1);
  a.slli(t0, t0, 7);  // 16 values * 8 bytes
  a.add(t0, t0, a0);
  for (size_t i = 0; i < std::size(csrs); ++i) {
    a.csrr(t1, csrs[i]);
    a.sd(t1, t0, static_cast<int32_t>(8 * i));
  }
  a.kx_exit();
  TestGpu g(64, 4, 2, 4);
  g.load(a);
  LaunchDesc d = g.desc({2, 3, 1}, {2, 3, 1});
  d.shared_static = 48;
  d.shared_dyn = 16;
  ASSERT_EQ(g.run(d), LaunchState::kDone);
  for (uint32_t by = 0; by < 3; ++by) {
    for (uint32_t bx = 0; bx < 2; ++bx) {
      for (uint32_t ty = 0; ty < 3; ++ty) {
        for (uint32_t tx = 0; tx < 2; ++tx) {
          const uint32_t linear = ty * 2 + tx;
          const uint64_t base = ((by * 2 + bx) * 6 + linear) * 128;
          auto v = [&](int i) { return g.data<uint64_t>(base + 8 * i); };
          EXPECT_EQ(v(0), tx);
          EXPECT_EQ(v(1), ty);
          EXPECT_EQ(v(2), 0u);
          EXPECT_EQ(v(3), bx);
          EXPECT_EQ(v(4), by);
          EXPECT_EQ(v(5), 2u);
          EXPECT_EQ(v(6), 3u);
          EXPECT_EQ(v(7), 2u);
          EXPECT_EQ(v(8), 3u);
          EXPECT_EQ(v(9), linear % 4);
          EXPECT_EQ(v(10), linear / 4);
          EXPECT_EQ(v(11), 4u);
          EXPECT_EQ(v(12), (by * 2 + bx) % 2) << "blocks alternate between the two SMs";
          EXPECT_EQ(v(13), kShared);
          EXPECT_EQ(v(14), 64u);
          EXPECT_EQ(v(15), kShared + 48u);
        }
      }
    }
  }
}

TEST(Csr, ActivemaskCycleAndInstret) {
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.andi(t0, t0, 1);
  a.beq(t0, zero, "even");
  a.csrr(s2, KESTREL_CSR_ACTIVEMASK);  // odd lanes
  a.j("join");
  a.bind("even");
  a.csrr(s2, KESTREL_CSR_ACTIVEMASK);
  a.bind("join");
  a.csrr(s3, KESTREL_CSR_ACTIVEMASK);
  a.csrr(s4, 0xC02);  // instret: instructions before this one
  a.csrr(s5, 0xC00);  // cycle: warp-instructions the SM issued before this one
  a.kx_exit();
  TestGpu g(64, 8);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {8, 1, 1}), LaunchState::kDone);
  for (uint32_t lane = 0; lane < 8; ++lane) {
    EXPECT_EQ(g.x(s2, lane), lane % 2 ? 0xAAu : 0x55u);
    EXPECT_EQ(g.x(s3, lane), 0xFFu);
    EXPECT_EQ(g.x(s4, lane), lane % 2 ? 6u : 5u);  // odd lanes ran the extra jump
  }
  // issues: csrr, andi, beq, [even: csrr] [odd: csrr, j], csrr, csrr = 8 before the cycle read
  EXPECT_EQ(g.x(s5, 0), 8u);
}

TEST(Csr, Rv32HighHalvesAndRv64Rejects) {
  Assembler a(32);
  a.csrr(s2, 0xC80);
  a.csrr(s3, 0xC82);
  a.kx_exit();
  TestGpu g32(32);
  g32.load(a);
  ASSERT_EQ(g32.run(), LaunchState::kDone);
  EXPECT_EQ(g32.x(s2), 0u);
  EXPECT_EQ(g32.x(s3), 0u);

  Assembler b(64);
  b.csrr(s2, 0xC80);
  TestGpu g64(64);
  g64.load(b);
  ASSERT_EQ(g64.run(), LaunchState::kFault);
  EXPECT_EQ(g64.gpu().fault().kind, KESTREL_FAULT_ILLEGAL_INSTRUCTION);
}

TEST(Csr, WritesToReadOnlyAndUnknownCsrsAreIllegal) {
  struct Case {
    const char* what;
    void (*emit)(Assembler&);
  };
  const Case cases[] = {
      {"csrrw tid.x", [](Assembler& a) { a.csrrw(zero, KESTREL_CSR_TID_X, t0); }},
      {"csrrsi cycle", [](Assembler& a) { a.csrrsi(zero, 0xC00, 1); }},
      {"csrrc laneid",
       [](Assembler& a) {
         a.li(t0, 1);
         a.csrrc(t1, KESTREL_CSR_LANEID, t0);
       }},
      {"unknown csr", [](Assembler& a) { a.csrr(t1, 0x7C0); }},
      {"mstatus", [](Assembler& a) { a.csrr(t1, 0x300); }},
      {"ecall", [](Assembler& a) { a.word(0x00000073); }},
      {"fence.i", [](Assembler& a) { a.word(0x0000100F); }},
      {"vote (reserved)", [](Assembler& a) { a.r_type(0x0B, 1, 0, 5, 6, 0); }},
      {"custom-1 (reserved)", [](Assembler& a) { a.r_type(0x2B, 0, 0, 5, 6, 7); }},
      {"custom-0 unknown funct7", [](Assembler& a) { a.r_type(0x0B, 0, 0x40, 0, 0, 0); }},
  };
  for (const Case& c : cases) {
    Assembler a(64);
    a.nop();
    c.emit(a);
    a.kx_exit();
    TestGpu g(64);
    g.load(a);
    ASSERT_EQ(g.run(), LaunchState::kFault) << c.what;
    EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_ILLEGAL_INSTRUCTION) << c.what;
    EXPECT_EQ(g.gpu().fault().pc, kCode + a.here() - 8) << c.what;
  }
}

TEST(Simt, FencesAndNanosleepRetire) {
  Assembler a(64);
  a.fence();
  a.kx_fence_block();
  a.kx_fence_device();
  a.kx_fence_system();
  a.li(t0, 100);
  a.kx_nanosleep(t0);
  a.li(s2, 1);
  a.kx_exit();
  TestGpu g(64);
  g.load(a);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.x(s2), 1u);
  EXPECT_EQ(g.gpu().counters()[KESTREL_CNT_WARP_INSTRS], 8u);
}

TEST(Simt, TrapAndAssertRecordTheirInfo) {
  Assembler a(64);
  a.li(a1, static_cast<int64_t>(kData + 64));  // file name pointer
  a.li(a2, 123);                               // line
  a.li(t0, KESTREL_TRAP_ASSERT);
  a.kx_trap(t0);
  TestGpu g(64);
  g.load(a);
  ASSERT_EQ(g.run(), LaunchState::kFault);
  EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_ASSERT);
  EXPECT_EQ(g.gpu().fault().info, 123u);
  EXPECT_EQ(g.gpu().fault().addr, kData + 64);

  Assembler b(64);
  b.kx_trap(zero);
  TestGpu h(64);
  h.load(b);
  ASSERT_EQ(h.run(), LaunchState::kFault);
  EXPECT_EQ(h.gpu().fault().kind, KESTREL_FAULT_TRAP);
  EXPECT_EQ(h.gpu().fault().pc, kCode);
}

TEST(Barrier, CountAndOrAcrossWarpsWithDivergentArrival) {
  // 40 threads in 5 warps of 8.  Threads with tid % 3 == 0 reach the barrier
  // through a different instruction (a divergent path): the hardware counts
  // threads, not PCs.  pred = (tid % 2 == 0).
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.andi(t1, t0, 1);
  a.xori(t1, t1, 1);  // pred
  a.li(t2, 3);
  a.remu(t3, t0, t2);
  a.beq(t3, zero, "other_path");
  a.kx_bar_count(s2, t1);
  a.j("after");
  a.bind("other_path");
  a.kx_bar_count(s2, t1);
  a.bind("after");
  a.kx_bar_and(s3, t1);
  a.li(t4, 1);
  a.kx_bar_and(s4, t4);
  a.kx_bar_or(s5, t1);
  a.kx_bar_or(s6, zero);
  a.kx_bar_sync();
  a.kx_exit();
  TestGpu g(64, 8, 1, 8);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {40, 1, 1}), LaunchState::kDone);
  for (uint32_t slot = 0; slot < 5; ++slot) {
    for (uint32_t lane = 0; lane < 8; ++lane) {
      EXPECT_EQ(g.x(s2, lane, slot), 20u);
      EXPECT_EQ(g.x(s3, lane, slot), 0u);
      EXPECT_EQ(g.x(s4, lane, slot), 1u);
      EXPECT_EQ(g.x(s5, lane, slot), 1u);
      EXPECT_EQ(g.x(s6, lane, slot), 0u);
    }
  }
  EXPECT_EQ(g.gpu().counters()[KESTREL_CNT_BARRIERS], 6u);
}

TEST(Barrier, ExitedThreadsCountAsArrived) {
  // Odd threads exit early; the even ones synchronise and see only themselves.
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.andi(t1, t0, 1);
  a.beq(t1, zero, "stay");
  a.kx_exit();
  a.bind("stay");
  a.li(t2, 1);
  a.kx_bar_count(s2, t2);
  a.kx_exit();
  TestGpu g(64, 4, 1, 8);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {13, 1, 1}), LaunchState::kDone);  // 7 even threads; last warp partial
  for (uint32_t t = 0; t < 13; t += 2) EXPECT_EQ(g.x(s2, t % 4, t / 4), 7u) << t;
}

TEST(Barrier, WaitingThreadsLetTheirWarpMatesRun) {
  // Lane 0 waits at the barrier first; lanes 1..7 must still run (they are
  // at a lower PC loop) and then arrive: a per-thread barrier.
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.beq(t0, zero, "to_barrier");
  a.li(t1, 50);
  a.bind("spin");
  a.addi(t1, t1, -1);
  a.bne(t1, zero, "spin");
  a.bind("to_barrier");
  a.kx_bar_sync();
  a.li(s2, 9);
  a.kx_exit();
  TestGpu g(64, 8);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {8, 1, 1}), LaunchState::kDone);
  for (uint32_t lane = 0; lane < 8; ++lane) EXPECT_EQ(g.x(s2, lane), 9u);
}

TEST(Barrier, NonZeroBarrierIdIsIllegal) {
  Assembler a(64);
  a.li(t0, 1);
  a.kx_bar_sync(t0);
  TestGpu g(64);
  g.load(a);
  ASSERT_EQ(g.run(), LaunchState::kFault);
  EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_ILLEGAL_INSTRUCTION);
}

TEST(Divergence, BothSidesRunAndReconverge) {
  // if (lane < 3) x = 10 else x = 20; then everyone adds lane at the join.
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.li(t1, 3);
  a.bge(t0, t1, "else");
  a.li(s2, 10);
  a.j("join");
  a.bind("else");
  a.li(s2, 20);
  a.bind("join");
  a.csrr(s3, KESTREL_CSR_ACTIVEMASK);
  a.add(s2, s2, t0);
  a.kx_exit();
  for (unsigned lanes : {4u, 8u, 32u}) {
    TestGpu g(64, lanes);
    g.load(a);
    ASSERT_EQ(g.run({1, 1, 1}, {lanes, 1, 1}), LaunchState::kDone);
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      EXPECT_EQ(g.x(s2, lane), (lane < 3 ? 10u : 20u) + lane);
      EXPECT_EQ(g.x(s3, lane), lanes == 32 ? 0xFFFFFFFFull : (1ull << lanes) - 1)
          << "reconverged at the join";
    }
    EXPECT_EQ(g.gpu().counters()[KESTREL_CNT_DIVERGED_ISSUES], 3u);  // li, j | li
  }
}

TEST(Divergence, IndirectJumpsToDifferentTargets) {
  // Each lane jumps through a table entry of its own; all meet again.
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.andi(t0, t0, 3);
  a.auipc(t1, 0);     // t1 = address of this instruction
  a.slli(t2, t0, 3);  // each target block is 2 instructions
  a.add(t1, t1, t2);
  a.jalr(zero, t1, 16);  // auipc + 16 = first block
  for (int i = 0; i < 4; ++i) {
    a.li(s2, 100 + i);
    a.j("join");
  }
  a.bind("join");
  a.csrr(s3, KESTREL_CSR_ACTIVEMASK);
  a.kx_exit();
  TestGpu g(64, 8);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {8, 1, 1}), LaunchState::kDone);
  for (uint32_t lane = 0; lane < 8; ++lane) {
    EXPECT_EQ(g.x(s2, lane), 100u + lane % 4);
    EXPECT_EQ(g.x(s3, lane), 0xFFu);
  }
}

// One kernel on every configuration: out[i] = i * i + blockIdx for a grid
// larger than the resident capacity.
class Configurations : public ::testing::TestWithParam<std::tuple<unsigned, unsigned>> {};

TEST_P(Configurations, SquaresOverManyBlocks) {
  const auto [xlen, lanes] = GetParam();
  Assembler a(xlen);
  a.csrr(t0, KESTREL_CSR_CTAID_X);
  a.csrr(t1, KESTREL_CSR_NTID_X);
  a.mul(t2, t0, t1);
  a.csrr(t3, KESTREL_CSR_TID_X);
  a.add(t2, t2, t3);  // global index
  a.mul(t4, t2, t2);
  a.add(t4, t4, t0);
  a.slli(t5, t2, 2);
  a.add(t5, t5, a0);
  a.sw(t4, t5, 0);
  a.kx_exit();
  TestGpu g(xlen, lanes, 3, 4);
  g.load(a);
  const uint32_t blocks = 17, threads = 3 * lanes - 1;  // last warp of each block partial
  ASSERT_EQ(g.run({blocks, 1, 1}, {threads, 1, 1}), LaunchState::kDone);
  for (uint32_t i = 0; i < blocks * threads; ++i)
    EXPECT_EQ(g.data<uint32_t>(4 * i), i * i + i / threads) << i;
  const Counters& c = g.gpu().counters();
  EXPECT_EQ(c[KESTREL_CNT_BLOCKS], blocks);
  EXPECT_EQ(c[KESTREL_CNT_WARP_INSTRS], 11u * 3 * blocks);
  EXPECT_EQ(c[KESTREL_CNT_THREAD_INSTRS], 11u * threads * blocks);
  EXPECT_EQ(c[KESTREL_CNT_STORES], 3u * blocks);
  EXPECT_GT(c[KESTREL_CNT_CYCLES], 0u);
  EXPECT_LT(c[KESTREL_CNT_CYCLES], c[KESTREL_CNT_WARP_INSTRS]) << "three SMs issue in parallel";
}

INSTANTIATE_TEST_SUITE_P(XlenLanes, Configurations,
                         ::testing::Combine(::testing::Values(32u, 64u), ::testing::Values(4u, 8u, 32u)),
                         [](const auto& param_info) {
                           return "Rv" + std::to_string(std::get<0>(param_info.param)) + "Lanes" +
                                  std::to_string(std::get<1>(param_info.param));
                         });

}  // namespace
}  // namespace kestrel::model::test
