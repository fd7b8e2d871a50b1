// Performance counter bench (2 SMs): random per-SM events summed into the
// sixteen counters against a C++ reference, START clearing them, freezing
// when the launch is not running, and the watchdog budget check.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>

#include "Vperf_counters2.h"
#include "kestrel/host_regs.h"
#include "rtl_bench.hpp"
#include "wide_bits.hpp"

namespace {

using Bench = kestrel::rtlbench::Bench<Vperf_counters2>;

// sm_events_t, MSB first: issued, threads[6:0], load, store, barrier_release,
// diverged, stall_scoreboard, stall_memory, stall_barrier, stall_idle,
// block_done, mem_request, shared_access, shared_passes[6:0], atomics[6:0]
// (33 bits).
constexpr unsigned kEventsW = 33;
struct Events {
  bool issued;
  unsigned threads;
  std::array<bool, 11> flags;  // load .. shared_access in MSB-to-LSB order
  unsigned shared_passes;
  unsigned atomics;
};

uint64_t pack(const Events& e) {
  uint64_t v = (uint64_t{e.issued} << 32) | (uint64_t{e.threads & 0x7F} << 25);
  for (unsigned i = 0; i < 11; ++i) v |= uint64_t{e.flags[i]} << (24 - i);
  return v | (uint64_t{e.shared_passes & 0x7F} << 7) | (e.atomics & 0x7F);
}

void drive(Bench& b, const std::array<uint64_t, 2>& per_sm) {
  for (unsigned s = 0; s < 2; ++s)
    kestrel::rtlbench::put_bits(b->events_i.data(), kEventsW * s, kEventsW, per_sm[s]);
}

uint64_t counter(Bench& b, unsigned i) {
  return kestrel::rtlbench::get_bits(b->counters_o.data(), 64 * i, 64);
}

TEST(PerfCounters, SumsEventsOfAllSms) {
  Bench b;
  b.reset();
  std::mt19937 rng(21);
  std::array<uint64_t, 16> ref{};
  b->budget_i = 0;
  for (int round = 0; round < 3; ++round) {
    b->clear_i = 1;
    b->enable_i = 0;
    b.tick();
    b->clear_i = 0;
    ref.fill(0);
    for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(counter(b, i), 0u);
    for (int cycle = 0; cycle < 3000; ++cycle) {
      const bool enable = rng() % 8 != 0;
      b->enable_i = enable;
      std::array<uint64_t, 2> packed{};
      for (unsigned s = 0; s < 2; ++s) {
        Events e;
        e.issued = rng() % 2;
        e.threads = e.issued ? rng() % 33 : 0;
        for (auto& f : e.flags) f = rng() % 3 == 0;
        e.shared_passes = e.flags[10] ? 1 + rng() % 32 : 0;
        e.atomics = rng() % 4 == 0 ? rng() % 33 : 0;
        packed[s] = pack(e);
        if (enable) {
          ref[KESTREL_CNT_WARP_INSTRS] += e.issued;
          ref[KESTREL_CNT_THREAD_INSTRS] += e.threads;
          for (unsigned i = 0; i < 11; ++i) ref[3 + i] += e.flags[i];
          ref[KESTREL_CNT_SHARED_PASSES] += e.shared_passes;
          ref[KESTREL_CNT_ATOMICS] += e.atomics;
        }
      }
      if (enable) ++ref[KESTREL_CNT_CYCLES];
      drive(b, packed);
      b.tick();
    }
    for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(counter(b, i), ref[i]) << "counter " << i;
    // Frozen while not running.
    b->enable_i = 0;
    for (int i = 0; i < 10; ++i) b.tick();
    EXPECT_EQ(counter(b, KESTREL_CNT_CYCLES), ref[KESTREL_CNT_CYCLES]);
  }
}

TEST(PerfCounters, WatchdogBudget) {
  Bench b;
  b.reset();
  b->budget_i = 1;  // 2^20 warp-instructions
  b->clear_i = 1;
  b.tick();
  b->clear_i = 0;
  b->enable_i = 1;
  const std::array<uint64_t, 2> issue_both = {uint64_t{1} << 32, uint64_t{1} << 32}, none = {0, 0};
  drive(b, issue_both);
  uint64_t issued = 0;
  while (issued < (1u << 20)) {
    b.eval();
    ASSERT_FALSE(b->over_budget_o) << "at " << issued;
    b.tick();
    issued += 2;
  }
  b.eval();
  EXPECT_TRUE(b->over_budget_o) << "the next issue is over the budget";
  drive(b, none);
  b.eval();
  EXPECT_FALSE(b->over_budget_o) << "no issue, no timeout";
  drive(b, issue_both);
  b->budget_i = 0;
  b.eval();
  EXPECT_FALSE(b->over_budget_o) << "0 = no budget";
}

}  // namespace
