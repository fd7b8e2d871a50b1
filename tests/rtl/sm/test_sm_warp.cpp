// SM bench, warp-synchronous instructions (docs/isa.md sections 2.1 and 6.1):
// kestrel_sm runs programs with votes, ballots, shuffles of every mode and
// width, match and every reduction, kx.syncwarp and kx.nanosleep in
// lock-step with the functional model (every retire's pc, lane mask and
// register writes compared, memory compared at the end).  The programs
// cover full and partial (per-lane different) membermasks, lanes parked at
// a collective until their mask arrives from a higher PC, exited lanes in a
// mask (early exits and a partly filled last warp), the illegal-instruction
// fault of a lane outside its own mask and the immediate BARRIER_DEADLOCK
// of a mask that can never complete.  Guide B.13/B.14 for the CUDA forms.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kestrel/model/rv_assembler.hpp"
#include "sm_configs.hpp"
#include "sm_harness.hpp"

namespace kestrel::rtlbench {
namespace {

using namespace kestrel::model::rvasm;
using model::Dim3;

template <class C>
class SmWarpLockstep : public ::testing::Test {
 public:
  SmWarpLockstep() : sm_(std::make_unique<SmHarness<typename C::Model>>(C::config())) {}
  SmHarness<typename C::Model>& sm() { return *sm_; }
  unsigned xlen() const { return C::config().xlen; }
  unsigned lanes() const { return C::config().lanes; }
  Assembler assembler() const { return Assembler(C::config().xlen); }

  RunResult run(const Assembler& a, Dim3 grid, Dim3 block, bool expect_fault = false) {
    sm_->load(a);
    RunResult r = sm_->run(sm_->desc(grid, block), expect_fault);
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_GT(r.retired, 0u);
    return r;
  }

  // Stores `reg` at a0 + XLEN/8 * (global thread id + 64 * slot): memory is
  // compared with the model's at the end, so every stored value is checked.
  void store(Assembler& a, Reg reg, unsigned slot) const {
    a.csrr(t5, KESTREL_CSR_CTAID_X);
    a.csrr(t6, KESTREL_CSR_NTID_X);
    a.mul(t5, t5, t6);
    a.csrr(t6, KESTREL_CSR_TID_X);
    a.add(t5, t5, t6);
    a.li(t6, static_cast<int32_t>(64 * slot));
    a.add(t5, t5, t6);
    a.slli(t5, t5, xlen() == 64 ? 3 : 2);
    a.add(t5, t5, a0);
    if (xlen() == 64) {
      a.sd(reg, t5, 0);
    } else {
      a.sw(reg, t5, 0);
    }
  }
  uint64_t result(unsigned gtid, unsigned slot) {
    const uint64_t addr = kData + uint64_t{gtid + 64 * slot} * (xlen() / 8);
    uint64_t v = sm_->bench_mem32(addr);
    if (xlen() == 64) v |= uint64_t{sm_->bench_mem32(addr + 4)} << 32;
    return v;
  }

 private:
  std::unique_ptr<SmHarness<typename C::Model>> sm_;
};

TYPED_TEST_SUITE(SmWarpLockstep, SmConfigs, SmConfigNames);

// s5 = 0x55555555 for even lanes, 0xAAAAAAAA for odd ones (by lane id, so
// that every lane is in its own class at one lane per warp too; t1 = lane & 1).
void parity_mask(Assembler& a) {
  a.li(s5, 0x55555555);
  a.csrr(t1, KESTREL_CSR_LANEID);
  a.andi(t1, t1, 1);
  a.sll(s5, s5, t1);
}

TYPED_TEST(SmWarpLockstep, VotesMatchAndReductionsWithFullAndParityMasks) {
  Assembler a = this->assembler();
  unsigned slot = 0;
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(s0, -1);       // every lane
  a.andi(t1, t0, 1);  // odd lanes vote true
  a.kx_vote_all(s1, t1, s0);
  this->store(a, s1, slot++);
  a.kx_vote_any(s1, t1, s0);
  this->store(a, s1, slot++);
  a.kx_vote_uni(s1, t1, s0);
  this->store(a, s1, slot++);
  a.kx_vote_ballot(s1, t1, s0);
  this->store(a, s1, slot++);
  a.andi(t2, t0, 2);
  parity_mask(a);
  a.kx_vote_ballot(s1, t2, s5);
  this->store(a, s1, slot++);
  a.kx_vote_all(s1, t2, s5);
  this->store(a, s1, slot++);
  a.kx_vote_uni(s1, t1, s5);  // uniform inside each parity class
  this->store(a, s1, slot++);
  // v = (tid * 7 - 10) ^ (tid << 29): negative, positive and large values
  a.li(t3, 7);
  a.mul(s2, t0, t3);
  a.addi(s2, s2, -10);
  a.slli(t3, t0, 29);
  a.xor_(s2, s2, t3);
  for (unsigned op = KESTREL_F7_REDUCE_ADD; op <= KESTREL_F7_REDUCE_XOR; ++op) {
    a.kx_reduce(op, s1, s2, s0);
    this->store(a, s1, slot++);
    a.kx_reduce(op, s1, s2, s5);
    this->store(a, s1, slot++);
  }
  // match keys: tid % 3 in the low word, tid % 2 above bit 32 on RV64
  a.li(t3, 3);
  a.remu(s3, t0, t3);
  if (this->xlen() == 64) {
    a.andi(t4, t0, 1);
    a.slli(t4, t4, 40);
    a.or_(s3, s3, t4);
  }
  a.andi(s4, t0, 0);  // zero for everyone: match.all succeeds
  for (unsigned op = KESTREL_F7_MATCH_ANY_W; op <= KESTREL_F7_MATCH_ALL; ++op) {
    a.kx_match(op, s1, s3, s0);
    this->store(a, s1, slot++);
    a.kx_match(op, s1, s3, s5);
    this->store(a, s1, slot++);
    a.kx_match(op, s1, s4, s5);
    this->store(a, s1, slot++);
  }
  a.ret();
  this->run(a, Dim3{2, 1, 1}, Dim3{2 * this->lanes(), 1, 1});
  // A few results against CUDA's definitions directly (the model checks all).
  // Thread 1's warp: lanes 0..n-1 of warp 1 / n, its odd threads voting 1
  // (warp 0's odd lanes, or thread 1 alone at one lane).
  const unsigned n = this->lanes();
  const unsigned warp_of_1 = 1 / n;
  uint64_t odd = 0;
  for (unsigned l = 0; l < n; ++l) odd |= uint64_t{(warp_of_1 * n + l) & 1u} << l;
  const uint64_t sext_odd = this->xlen() == 64 && (odd >> 31) ? (odd | 0xFFFFFFFF00000000ull) : odd;
  EXPECT_EQ(this->result(0, 0), 0u);               // __all_sync: even lanes vote 0
  EXPECT_EQ(this->result(0, 1), n > 1 ? 1u : 0u);  // __any_sync: thread 0's warp has an odd one
  EXPECT_EQ(this->result(0, 2), n > 1 ? 0u : 1u);  // __uni_sync: one lane is uniform
  EXPECT_EQ(this->result(1, 3), sext_odd);         // __ballot_sync
  EXPECT_EQ(this->result(1, 6), 1u);               // uni inside the odd class
}

TYPED_TEST(SmWarpLockstep, ShufflesOfEveryModeWidthAndDelta) {
  Assembler a = this->assembler();
  unsigned slot = 0;
  const unsigned n = this->lanes();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(s0, -1);
  // v = tid * 0x01010101 (+ tid << 40 on RV64: the upper half moves too)
  a.li(t1, 0x01010101);
  a.mul(s2, t0, t1);
  if (this->xlen() == 64) {
    a.slli(t1, t0, 40);
    a.or_(s2, s2, t1);
  }
  const unsigned widths[] = {32, n, 4, 2};
  const unsigned deltas[] = {0, 1, 3, n - 1, 5};
  for (unsigned mode = 0; mode < 4; ++mode) {
    for (unsigned width : widths) {
      for (unsigned b : deltas) {
        // the bits above 12 and 7..5 are ignored
        a.li(s3, static_cast<int32_t>((b & 31) | (((32 - width) & 31) << 8) | 0xFFFF00E0u));
        a.kx_shfl(mode, s1, s2, s3, s0);
        this->store(a, s1, slot++);
      }
    }
  }
  // A source lane outside the reader's mask (the other parity class): the
  // reader gets that lane's register as it is (defined on Kestrel).
  parity_mask(a);
  a.li(s3, 1);
  a.kx_shfl(KESTREL_SHFL_XOR, s1, s2, s3, s5);
  this->store(a, s1, slot++);
  a.ret();
  this->run(a, Dim3{1, 1, 1}, Dim3{n + 1, 1, 1});  // the second warp has one live lane
  // __shfl_xor_sync(.., 1): lane 1 reads lane 0's value, lane 0 lane 1's; at
  // one lane the source is outside the warp and each thread keeps its own.
  EXPECT_EQ(static_cast<uint32_t>(this->result(1, slot - 1)), n > 1 ? 0u : 0x01010101u);
  EXPECT_EQ(static_cast<uint32_t>(this->result(0, slot - 1)), n > 1 ? 0x01010101u : 0u);
}

TYPED_TEST(SmWarpLockstep, LanesParkUntilTheirMaskArrivesFromAHigherPc) {
  // Odd lanes branch past the collective and come back to it; the even lanes
  // reach it first (lower PC), park, and complete with the odd ones.  Each
  // lane also runs a parity-class collective at the same PC: the even class
  // completes at once, the odd one when its lanes arrive.
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(s0, -1);
  parity_mask(a);
  a.addi(s2, t0, 1);
  a.andi(t1, t0, 1);
  a.bne(t1, zero, "later");
  a.bind("meet");
  a.kx_reduce(KESTREL_F7_REDUCE_ADD, s1, s2, s0);
  a.kx_vote_ballot(s3, t1, s0);
  a.kx_reduce(KESTREL_F7_REDUCE_MAX, s4, s2, s5);
  a.add(s1, s1, s3);
  a.add(s1, s1, s4);
  a.csrr(s6, 0xC02);
  this->store(a, s1, 0);
  this->store(a, s6, 1);
  a.ret();
  a.bind("later");
  a.addi(s2, s2, 100);
  a.j("meet");
  this->run(a, Dim3{2, 1, 1}, Dim3{this->lanes() + 2, 1, 1});
}

TYPED_TEST(SmWarpLockstep, ExitedLanesLeaveTheMaskAndWakeParkedLanes) {
  // Lanes with tid % 3 == 0 exit at once; the rest loop tid/2 times over a
  // full-mask reduction and ballot.  Lanes that leave the loop early run on
  // to their exit while the loopers park: each exit makes the parked lanes
  // try again, and exited lanes no longer count.
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(t1, 3);
  a.remu(t2, t0, t1);
  a.bne(t2, zero, "stay");
  a.kx_exit();
  a.bind("stay");
  a.li(s0, -1);
  a.li(s1, 0);
  a.srli(s2, t0, 1);
  a.addi(s2, s2, 1);
  a.bind("loop");
  a.kx_reduce(KESTREL_F7_REDUCE_ADD, t3, t0, s0);
  a.kx_vote_ballot(t4, s2, s0);
  a.add(s1, s1, t3);
  a.xor_(s1, s1, t4);
  a.addi(s2, s2, -1);
  a.bne(s2, zero, "loop");
  this->store(a, s1, 0);
  a.ret();
  this->run(a, Dim3{2, 1, 1}, Dim3{2 * this->lanes() - 1, 1, 1});
}

TYPED_TEST(SmWarpLockstep, SyncwarpOnBothSidesOfABranch) {
  // Each lane writes a word, the two sides of an if call __syncwarp(full
  // mask) at different PCs, then each lane reads its neighbour's word; then
  // the same with per-parity masks.
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(s0, -1);
  a.slli(t1, t0, 2);
  a.li(t2, 8192);
  a.add(t2, t2, a0);
  a.add(t1, t1, t2);  // &word[tid]
  a.li(t3, 1000);
  a.add(t3, t3, t0);
  a.sw(t3, t1, 0);
  a.andi(t4, t0, 1);
  a.beq(t4, zero, "even");
  a.kx_syncwarp(s0);
  a.j("joined");
  a.bind("even");
  a.addi(t3, t3, 1);
  a.kx_syncwarp(s0);
  a.bind("joined");
  a.lw(s1, t1, 4);  // neighbour (the last lane reads past its warp: 0 or another warp's word)
  a.andi(t4, t0, static_cast<int32_t>(this->lanes() - 1));
  a.li(t6, static_cast<int32_t>(this->lanes() - 1));
  a.bne(t4, t6, "not_last");
  a.li(s1, 7);
  a.bind("not_last");
  parity_mask(a);
  a.kx_syncwarp(s5);
  a.kx_vote_ballot(s2, t3, s5);
  a.add(s1, s1, s2);
  this->store(a, s1, 0);
  a.ret();
  this->run(a, Dim3{1, 1, 1}, Dim3{this->lanes(), 1, 1});
  // Thread 0 read its neighbour's 1001, or, as the last lane of a one-lane
  // warp, took 7; plus the even class's ballot.
  const unsigned n = this->lanes();
  EXPECT_EQ(this->result(0, 0) & 0xFFFF, (n > 1 ? 1001u : 7u) + (0x55555555u & ((1u << n) - 1)));
}

TYPED_TEST(SmWarpLockstep, NanosleepLetsOtherWarpsIssue) {
  // Warp 0 sleeps 5 us (500 cycles at the SM's 100 MHz) while the other
  // warps of the block compute; everyone meets at a barrier.
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(s1, 0);
  a.li(t1, static_cast<int32_t>(this->lanes()));
  a.bgeu(t0, t1, "work");
  a.li(t2, 5000);
  a.kx_nanosleep(t2);
  a.j("done");
  a.bind("work");
  a.li(t2, 20);
  a.bind("loop");
  a.add(s1, s1, t2);
  a.addi(t2, t2, -1);
  a.bne(t2, zero, "loop");
  a.bind("done");
  a.kx_bar_sync();
  this->store(a, s1, 0);
  a.ret();
  const RunResult r = this->run(a, Dim3{1, 1, 1}, Dim3{3 * this->lanes(), 1, 1});
  EXPECT_GE(r.cycles, 500u);
}

template <class T>
void expect_fault(T* test, const Assembler& a, kestrel_fault_kind kind, Dim3 block) {
  test->sm().load(a);
  RunResult r = test->sm().run(test->sm().desc(Dim3{1, 1, 1}, block), true);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.faulted);
  EXPECT_EQ(r.fault.kind, kind);
}

TYPED_TEST(SmWarpLockstep, FaultLaneOutsideItsOwnMask) {
  // Lane 2 names only lane 0; at one lane, lane 0 names only lane 1.
  const bool one_lane = this->lanes() == 1;
  for (int which = 0; which < 3; ++which) {
    Assembler a = this->assembler();
    a.csrr(t0, KESTREL_CSR_TID_X);
    a.li(s0, -1);
    a.li(t1, one_lane ? 0 : 2);
    a.bne(t0, t1, "keep");
    a.li(s0, one_lane ? 2 : 1);
    a.bind("keep");
    if (which == 0) a.kx_vote_any(s1, t0, s0);
    if (which == 1) a.kx_shfl(KESTREL_SHFL_IDX, s1, t0, zero, s0);
    if (which == 2) a.kx_syncwarp(s0);
    a.ret();
    expect_fault(this, a, KESTREL_FAULT_ILLEGAL_INSTRUCTION, Dim3{this->lanes(), 1, 1});
  }
}

TYPED_TEST(SmWarpLockstep, FaultMaskThatCanNeverComplete) {
  // Lane 0 waits at a block barrier while the others vote over a mask that
  // names it: nothing can run, BARRIER_DEADLOCK at once (lane 0, at the barrier).
  if (this->lanes() == 1) GTEST_SKIP() << "needs a second lane in lane 0's warp";
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(s0, -1);
  a.bne(t0, zero, "vote");
  a.kx_bar_sync();
  a.ret();
  a.bind("vote");
  a.kx_vote_any(s1, t0, s0);
  a.ret();
  expect_fault(this, a, KESTREL_FAULT_BARRIER_DEADLOCK, Dim3{this->lanes(), 1, 1});
}

}  // namespace
}  // namespace kestrel::rtlbench
