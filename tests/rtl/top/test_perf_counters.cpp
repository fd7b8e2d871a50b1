// Performance counter bench (2 SMs): random per-SM events summed into the
// sixteen counters against a C++ reference, each SM's own counts (the
// per-SM window, enum kestrel_sm_counter, with its busy cycles) against the
// same reference per SM and summing to the global counters, START clearing them, freezing
// when the launch is not running, and the watchdog budget check.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>

#include "Vperf_counters2.h"
#include "kestrel/host_regs.h"
#include "rtl_test.hpp"
#include "wide_bits.hpp"

namespace {

using Bench = kestrel::rtlbench::Bench<Vperf_counters2>;

// sm_events_t through its generated layout (tools/contract/contract.toml).
constexpr unsigned kEventsW = kestrel::contract::sm_events::kBits;
struct Events {
  bool issued;
  unsigned threads;
  std::array<bool, 11> flags;  // load .. shared_access, in the order of their counters
  unsigned shared_passes;
  unsigned atomics;
};

uint64_t pack(const Events& e) {
  kestrel::contract::SmEvents s;
  s.issued = e.issued;
  s.threads = static_cast<uint8_t>(e.threads & 0x7F);
  s.load = e.flags[0];
  s.store = e.flags[1];
  s.barrier_release = e.flags[2];
  s.diverged = e.flags[3];
  s.stall_scoreboard = e.flags[4];
  s.stall_memory = e.flags[5];
  s.stall_barrier = e.flags[6];
  s.stall_idle = e.flags[7];
  s.block_done = e.flags[8];
  s.mem_request = e.flags[9];
  s.shared_access = e.flags[10];
  s.shared_passes = static_cast<uint8_t>(e.shared_passes & 0x7F);
  s.atomics = static_cast<uint8_t>(e.atomics & 0x7F);
  return s.to_bits();
}

void drive(Bench& b, const std::array<uint64_t, 2>& per_sm) {
  for (unsigned s = 0; s < 2; ++s)
    kestrel::rtlbench::put_bits(b->events_i.data(), kEventsW * s, kEventsW, per_sm[s]);
}

uint64_t counter(Bench& b, unsigned i) {
  return kestrel::rtlbench::get_bits(b->counters_o.data(), 64 * i, 64);
}

uint64_t sm_counter(Bench& b, unsigned sm, unsigned j) {
  return kestrel::rtlbench::get_bits(b->sm_counters_o.data(), 64 * (sm * KESTREL_SM_CNT_COUNT + j), 64);
}

// The global counter each per-SM counter is a part of (none for the active
// cycles, which the SMs count each for itself).
constexpr std::array<int, KESTREL_SM_CNT_COUNT> kGlobalOf = {-1,
                                                             KESTREL_CNT_WARP_INSTRS,
                                                             KESTREL_CNT_THREAD_INSTRS,
                                                             KESTREL_CNT_STALL_SCOREBOARD,
                                                             KESTREL_CNT_STALL_MEMORY,
                                                             KESTREL_CNT_STALL_BARRIER,
                                                             KESTREL_CNT_STALL_IDLE,
                                                             KESTREL_CNT_BLOCKS};

TEST(PerfCounters, SumsEventsOfAllSms) {
  Bench b;
  b.reset();
  std::mt19937 rng(21);
  std::array<uint64_t, 16> ref{};
  std::array<std::array<uint64_t, KESTREL_SM_CNT_COUNT>, 2> sm_ref{};
  b->budget_i = 0;
  for (int round = 0; round < 3; ++round) {
    b->clear_i = 1;
    b->enable_i = 0;
    b.tick();
    b->clear_i = 0;
    ref.fill(0);
    for (auto& r : sm_ref) r.fill(0);
    for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(counter(b, i), 0u);
    for (unsigned s = 0; s < 2; ++s) {
      for (unsigned j = 0; j < KESTREL_SM_CNT_COUNT; ++j) EXPECT_EQ(sm_counter(b, s, j), 0u);
    }
    for (int cycle = 0; cycle < 3000; ++cycle) {
      const bool enable = rng() % 8 != 0;
      b->enable_i = enable;
      std::array<uint64_t, 2> packed{};
      unsigned busy = 0;
      for (unsigned s = 0; s < 2; ++s) {
        const bool sm_busy = rng() % 4 != 0;
        busy |= static_cast<unsigned>(sm_busy) << s;
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
          auto& r = sm_ref[s];
          r[KESTREL_SM_CNT_ACTIVE_CYCLES] += sm_busy;
          r[KESTREL_SM_CNT_WARP_INSTRS] += e.issued;
          r[KESTREL_SM_CNT_THREAD_INSTRS] += e.threads;
          r[KESTREL_SM_CNT_STALL_SCOREBOARD] += e.flags[4];
          r[KESTREL_SM_CNT_STALL_MEMORY] += e.flags[5];
          r[KESTREL_SM_CNT_STALL_BARRIER] += e.flags[6];
          r[KESTREL_SM_CNT_STALL_IDLE] += e.flags[7];
          r[KESTREL_SM_CNT_BLOCKS] += e.flags[8];
        }
      }
      b->sm_busy_i = busy;
      if (enable) ++ref[KESTREL_CNT_CYCLES];
      drive(b, packed);
      b.tick();
    }
    for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(counter(b, i), ref[i]) << "counter " << i;
    for (unsigned j = 0; j < KESTREL_SM_CNT_COUNT; ++j) {
      for (unsigned s = 0; s < 2; ++s)
        EXPECT_EQ(sm_counter(b, s, j), sm_ref[s][j]) << "SM " << s << " counter " << j;
      if (kGlobalOf[j] >= 0) {
        EXPECT_EQ(sm_counter(b, 0, j) + sm_counter(b, 1, j), counter(b, static_cast<unsigned>(kGlobalOf[j])))
            << "per-SM counter " << j << " sums to its global counter";
      }
    }
    // Frozen while not running.
    b->enable_i = 0;
    b->sm_busy_i = 3;
    for (int i = 0; i < 10; ++i) b.tick();
    EXPECT_EQ(counter(b, KESTREL_CNT_CYCLES), ref[KESTREL_CNT_CYCLES]);
    EXPECT_EQ(sm_counter(b, 1, KESTREL_SM_CNT_ACTIVE_CYCLES), sm_ref[1][KESTREL_SM_CNT_ACTIVE_CYCLES]);
  }
}

TEST(PerfCounters, WatchdogBudget) {
  Bench b;
  b.reset();
  b->budget_i = 1;  // 2^20 cycles
  b->clear_i = 1;
  b.tick();
  b->clear_i = 0;
  b->enable_i = 1;
  // The budget counts cycles, issuing or not: a kernel that waits forever
  // times out like one that spins.
  const std::array<uint64_t, 2> issue_both = {uint64_t{1} << 32, uint64_t{1} << 32}, none = {0, 0};
  for (uint64_t cycle = 0; cycle < (1u << 20); ++cycle) {
    drive(b, cycle % 3 == 0 ? issue_both : none);
    b.eval();
    ASSERT_FALSE(b->over_budget_o) << "at cycle " << cycle;
    b.tick();
  }
  drive(b, none);
  b.eval();
  EXPECT_TRUE(b->over_budget_o) << "the budget is used up";
  EXPECT_EQ(counter(b, KESTREL_CNT_CYCLES), uint64_t{1} << 20);
  b->enable_i = 0;
  b.eval();
  EXPECT_FALSE(b->over_budget_o) << "not running, no timeout";
  b->enable_i = 1;
  b->budget_i = 0;
  b.eval();
  EXPECT_FALSE(b->over_budget_o) << "0 = no budget";
}

}  // namespace
