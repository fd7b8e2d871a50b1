// Thread-group selector bench: the min-PC + yield + fairness rule of
// docs/isa.md section 6 against a direct C++ transcription of the
// pseudo-code, on random warps whose lanes share few distinct PCs (so groups
// and divergence are common), plus directed spin-lock scenarios: one that
// needs the fairness step, one where a spinning group yields.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>

#include "Vgroup_sel8.h"
#include "kestrel/abi.h"
#include "rtl_test.hpp"

namespace {

constexpr unsigned kLanes = 8;
constexpr unsigned kFairnessPeriod = KESTREL_FAIRNESS_PERIOD;
constexpr unsigned kSpinYieldIssues = KESTREL_SPIN_YIELD_ISSUES;

struct Choice {
  bool valid = false;
  uint32_t pc = 0;
  uint32_t mask = 0;
  bool diverged = false;
  uint32_t fair_count = 0;
  uint32_t rr_pc = 0;
  uint32_t yield_left = 0;
};

struct Yield {
  uint32_t left = 0;
  uint32_t pc = 0;
};

// docs/isa.md section 6, written as the spec states it.
Choice reference_choice(const std::array<uint32_t, kLanes>& pcs, uint32_t eligible, uint32_t fair_count,
                        uint32_t rr_pc, Yield yield = {}) {
  Choice c;
  uint32_t m = UINT32_MAX;
  for (unsigned i = 0; i < kLanes; ++i)
    if (eligible >> i & 1) {
      c.valid = true;
      m = std::min(m, pcs[i]);
    }
  if (!c.valid) return c;
  for (unsigned i = 0; i < kLanes; ++i)
    if ((eligible >> i & 1) && pcs[i] != m) c.diverged = true;
  uint32_t above_yield = UINT32_MAX;
  for (unsigned i = 0; i < kLanes; ++i)
    if ((eligible >> i & 1) && pcs[i] > yield.pc) above_yield = std::min(above_yield, pcs[i]);
  if (c.diverged && yield.left > 0 && above_yield != UINT32_MAX) {
    c.pc = above_yield;
    c.fair_count = fair_count;
    c.rr_pc = rr_pc;
    c.yield_left = yield.left - 1;
  } else if (c.diverged && fair_count == kFairnessPeriod - 1) {
    uint32_t after = UINT32_MAX;
    bool any_after = false;
    for (unsigned i = 0; i < kLanes; ++i)
      if ((eligible >> i & 1) && pcs[i] > rr_pc) {
        any_after = true;
        after = std::min(after, pcs[i]);
      }
    c.pc = any_after ? after : m;
    c.rr_pc = c.pc;
    c.fair_count = 0;
  } else {
    c.pc = m;
    c.rr_pc = rr_pc;
    c.fair_count = c.diverged ? fair_count + 1 : 0;
  }
  for (unsigned i = 0; i < kLanes; ++i)
    if ((eligible >> i & 1) && pcs[i] == c.pc) c.mask |= 1u << i;
  return c;
}

Choice rtl_choice(kestrel::rtlbench::Bench<Vgroup_sel8>& bench, const std::array<uint32_t, kLanes>& pcs,
                  uint32_t eligible, uint32_t fair_count, uint32_t rr_pc, Yield yield = {}) {
  for (unsigned i = 0; i < kLanes; ++i) bench->pcs_i[i] = pcs[i];
  bench->eligible_i = eligible;
  bench->fair_count_i = fair_count;
  bench->rr_pc_i = rr_pc;
  bench->yield_left_i = yield.left;
  bench->yield_pc_i = yield.pc;
  bench.eval();
  Choice c;
  c.valid = bench->valid_o;
  c.pc = bench->pc_o;
  c.mask = bench->mask_o;
  c.diverged = bench->diverged_o;
  c.fair_count = bench->fair_count_o;
  c.rr_pc = bench->rr_pc_o;
  c.yield_left = bench->yield_left_o;
  return c;
}

TEST(RtlGroupSel, MatchesSpecOnRandomWarps) {
  kestrel::rtlbench::Bench<Vgroup_sel8> bench;
  std::mt19937 rng(11);
  const uint32_t pc_pool[] = {0x1000, 0x1004, 0x1010, 0x2000, 0xFFFFFFFC, 0};
  for (int iter = 0; iter < 50000; ++iter) {
    std::array<uint32_t, kLanes> pcs{};
    for (auto& pc : pcs) pc = (rng() % 5 == 0) ? (rng() & ~3u) : pc_pool[rng() % 6];
    const uint32_t eligible = rng() % 4 == 0 ? 0xFF : rng() & 0xFF;
    const uint32_t fair_count = rng() % 3 == 0 ? kFairnessPeriod - 1 : rng() % kFairnessPeriod;
    const uint32_t rr_pc = rng() % 2 ? pc_pool[rng() % 6] : rng();
    Yield yield;
    if (rng() % 2) yield = Yield{static_cast<uint32_t>(rng() % (kSpinYieldIssues + 1)), pc_pool[rng() % 6]};
    const Choice want = reference_choice(pcs, eligible, fair_count, rr_pc, yield);
    const Choice got = rtl_choice(bench, pcs, eligible, fair_count, rr_pc, yield);
    ASSERT_EQ(got.valid, want.valid) << "iteration " << iter;
    if (!want.valid) continue;
    ASSERT_EQ(got.pc, want.pc) << "iteration " << iter;
    ASSERT_EQ(got.mask, want.mask) << "iteration " << iter;
    ASSERT_EQ(got.diverged, want.diverged) << "iteration " << iter;
    ASSERT_EQ(got.fair_count, want.fair_count) << "iteration " << iter;
    ASSERT_EQ(got.rr_pc, want.rr_pc) << "iteration " << iter;
    ASSERT_EQ(got.yield_left, want.yield_left) << "iteration " << iter;
  }
}

// Lane 0 holds a lock at a high PC; lanes 1-7 spin in a two-instruction
// loop at lower PCs.  Min-PC alone would run the spinners forever; the
// fairness step visits the groups above rr_pc in turn, so the holder runs
// within a few fairness periods (here the third: rr_pc steps 0 -> 0x100 ->
// 0x200 while the spinners alternate between 0x100 and 0x104).
TEST(RtlGroupSel, FairnessStepRunsTheHighGroup) {
  kestrel::rtlbench::Bench<Vgroup_sel8> bench;
  std::array<uint32_t, kLanes> pcs{};
  pcs.fill(0x100);
  pcs[0] = 0x200;
  uint32_t fair = 0, rr = 0;
  int holder_issue = -1;
  for (int issue = 0; issue < 4 * int(kFairnessPeriod); ++issue) {
    const Choice want = reference_choice(pcs, 0xFF, fair, rr);
    const Choice c = rtl_choice(bench, pcs, 0xFF, fair, rr);
    ASSERT_TRUE(c.valid);
    ASSERT_EQ(c.pc, want.pc) << "issue " << issue;
    fair = c.fair_count;
    rr = c.rr_pc;
    if (c.mask & 1u) {
      holder_issue = issue;
      break;
    }
    for (unsigned i = 1; i < kLanes; ++i) pcs[i] = pcs[i] == 0x100 ? 0x104 : 0x100;
  }
  EXPECT_GE(holder_issue, int(kFairnessPeriod) - 1);
  EXPECT_EQ((holder_issue + 1) % int(kFairnessPeriod), 0) << "the holder runs only at a fairness step";
}

// The same lock once the spinners' branch has been seen spinning (yield_pc
// at the branch, 0x104): the holder runs at once, for the yield's issues
// while it stays above the branch; it leaves the region by jumping back to
// the loop (0x0F0) and the warp returns to the minimum PC with no yield left.
TEST(RtlGroupSel, SpinYieldRunsTheGroupsAbove) {
  kestrel::rtlbench::Bench<Vgroup_sel8> bench;
  std::array<uint32_t, kLanes> pcs{};
  pcs.fill(0x100);
  pcs[0] = 0x200;
  Yield yield{kSpinYieldIssues, 0x104};
  uint32_t fair = 5, rr = 0;
  for (unsigned issue = 0; issue < 3; ++issue) {
    const Choice c = rtl_choice(bench, pcs, 0xFF, fair, rr, yield);
    ASSERT_EQ(c.pc, 0x200u + 4 * issue);
    ASSERT_EQ(c.mask, 0x1u);
    EXPECT_EQ(c.fair_count, 5u) << "the fairness state waits while the warp yields";
    EXPECT_EQ(c.yield_left, kSpinYieldIssues - 1 - issue);
    yield.left = c.yield_left;
    pcs[0] += 4;
  }
  pcs[0] = 0x0F0;  // the holder released the lock and went back below the branch
  const Choice c = rtl_choice(bench, pcs, 0xFF, fair, rr, yield);
  EXPECT_EQ(c.pc, 0x0F0u);
  EXPECT_EQ(c.yield_left, 0u);
  EXPECT_EQ(c.fair_count, 6u);
  // Converged, a yield left over ends at the first issue.
  pcs.fill(0x300);
  EXPECT_EQ(rtl_choice(bench, pcs, 0xFF, 0, 0, Yield{7, 0x104}).yield_left, 0u);
}

TEST(RtlGroupSel, NoEligibleLaneIsNoGroup) {
  kestrel::rtlbench::Bench<Vgroup_sel8> bench;
  std::array<uint32_t, kLanes> pcs{};
  EXPECT_FALSE(rtl_choice(bench, pcs, 0, 0, 0).valid);
}

}  // namespace
