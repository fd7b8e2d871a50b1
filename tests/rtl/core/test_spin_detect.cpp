// Spin detector bench (kestrel_spin_detect, docs/isa.md section 6 "Spinning"):
// random backward-branch traffic over few PCs, masks and operand values (so
// repeats, i.e. spins, are common), warp starts and flushes, against a C++
// reference of the records and the back-off counters; plus a directed run of
// the back-off's doubling and its return to the minimum.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>

#include "Vspin_detect4.h"
#include "rtl_test.hpp"

namespace {

using kestrel::rtlbench::Bench;
constexpr unsigned kWarps = 4;
constexpr unsigned kMinLog2 = 2;  // the bench model's BackoffMinLog2 / MaxLog2
constexpr unsigned kMaxLog2 = 4;

struct Branch {
  unsigned warp = 0;
  uint32_t pc = 0;
  uint32_t mask = 0;
  uint64_t ops = 0;
  bool whole = false;
};

struct Reference {
  struct Record {
    bool valid = false;
    uint32_t pc = 0, mask = 0;
    uint64_t ops = 0;
  };
  std::array<Record, kWarps> rec{};
  std::array<unsigned, kWarps> step{}, left{};
  Reference() { step.fill(kMinLog2); }

  bool spins(const Branch& b) const {
    const Record& r = rec[b.warp];
    return r.valid && r.pc == b.pc && r.mask == b.mask && r.ops == b.ops;
  }
  // One clock edge with an optional branch and warp start.
  void tick(const Branch* b, const unsigned* start, bool flush) {
    if (flush) {
      *this = Reference();
      return;
    }
    for (unsigned& l : left)
      if (l) --l;
    if (b) {
      const bool spin = spins(*b);
      if (!spin) rec[b->warp] = Record{true, b->pc, b->mask, b->ops};
      if (spin && b->whole) {
        left[b->warp] = 1u << step[b->warp];
        if (step[b->warp] != kMaxLog2) ++step[b->warp];
      } else {
        step[b->warp] = kMinLog2;
      }
    }
    if (start) {
      rec[*start].valid = false;
      step[*start] = kMinLog2;
      left[*start] = 0;
    }
  }
  unsigned backoff() const {
    unsigned v = 0;
    for (unsigned w = 0; w < kWarps; ++w) v |= unsigned(left[w] != 0) << w;
    return v;
  }
};

void drive(Bench<Vspin_detect4>& bench, const Branch* b, const unsigned* start, bool flush) {
  bench->flush_i = flush;
  bench->start_i = start != nullptr;
  bench->start_warp_i = start ? *start : 0;
  bench->branch_i = b != nullptr;
  bench->warp_i = b ? b->warp : 0;
  bench->pc_i = b ? b->pc : 0;
  bench->mask_i = b ? b->mask : 0;
  bench->ops_i = b ? b->ops : 0;
  bench->whole_i = b ? b->whole : 0;
  bench.eval();
}

TEST(RtlSpinDetect, MatchesReferenceOnRandomTraffic) {
  Bench<Vspin_detect4> bench;
  bench.reset();
  Reference ref;
  std::mt19937 rng(5);
  const uint32_t pcs[] = {0x100, 0x104, 0x2000};
  const uint32_t masks[] = {0xFF, 0xFE, 0x01};
  const uint64_t ops[] = {0, 1, 0x100000000ull, 0xFFFFFFFFFFFFFFFFull};
  unsigned spins = 0, backoffs = 0;
  for (int cycle = 0; cycle < 40000; ++cycle) {
    Branch b{static_cast<unsigned>(rng() % kWarps), pcs[rng() % 3], masks[rng() % 3], ops[rng() % 4],
             rng() % 2 == 0};
    const bool has_branch = rng() % 3 != 0;
    const unsigned start_warp = rng() % kWarps;
    const bool has_start = rng() % 50 == 0;
    const bool flush = rng() % 500 == 0;
    drive(bench, has_branch ? &b : nullptr, has_start ? &start_warp : nullptr, flush);
    const bool want_spin = has_branch && ref.spins(b);
    ASSERT_EQ(bench->spin_o, want_spin) << "cycle " << cycle;
    spins += want_spin;
    bench.tick();
    ref.tick(has_branch ? &b : nullptr, has_start ? &start_warp : nullptr, flush);
    ASSERT_EQ(bench->backoff_o, ref.backoff()) << "cycle " << cycle;
    backoffs += ref.backoff() != 0;
  }
  EXPECT_GT(spins, 500u);
  EXPECT_GT(backoffs, 1000u);
}

TEST(RtlSpinDetect, BackoffDoublesUpToItsMaximumAndResets) {
  Bench<Vspin_detect4> bench;
  bench.reset();
  const Branch spin{2, 0x40, 0xFF, 1, true};
  auto branch_and_count_backoff = [&](const Branch& b) {
    drive(bench, &b, nullptr, false);
    const bool spun = bench->spin_o;
    bench.tick();
    drive(bench, nullptr, nullptr, false);
    unsigned cycles = 0;
    while (bench->backoff_o & (1u << b.warp)) {
      ++cycles;
      bench.tick();
    }
    return spun ? cycles : ~0u;
  };
  EXPECT_EQ(branch_and_count_backoff(spin), ~0u) << "the first time is only recorded";
  for (unsigned log2 = kMinLog2; log2 <= kMaxLog2 + 1; ++log2)
    EXPECT_EQ(branch_and_count_backoff(spin), 1u << std::min(log2, kMaxLog2));
  // A spin that left a lane behind: no back-off, and the next starts small.
  Branch partial = spin;
  partial.whole = false;
  EXPECT_EQ(branch_and_count_backoff(partial), 0u);
  EXPECT_EQ(branch_and_count_backoff(spin), 1u << kMinLog2);
  // Another value (the lock changed hands): recorded, not a spin.
  Branch changed = spin;
  changed.ops = 2;
  EXPECT_EQ(branch_and_count_backoff(changed), ~0u);
}

}  // namespace
