// Scoreboard and warp scheduler benches against C++ references: random
// set/clear/check traffic for the scoreboard; random ready vectors for both
// scheduling policies (loose round-robin and greedy-then-oldest).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>

#include "Vsched_gto4.h"
#include "Vsched_rr4.h"
#include "Vscoreboard4.h"
#include "Vscoreboard4f.h"
#include "rtl_test.hpp"

namespace {

using kestrel::rtlbench::Bench;
constexpr unsigned kWarps = 4;

struct RegUse {
  bool rd_we;
  unsigned rd;
  bool rs1_re;
  unsigned rs1;
  bool rs2_re;
  unsigned rs2;
  uint32_t packed() const {
    return (rs2 & 31) | uint32_t(rs2_re) << 5 | (rs1 & 31) << 6 | uint32_t(rs1_re) << 11 | (rd & 31) << 12 |
           uint32_t(rd_we) << 17;
  }
};

// check_i is 4 x 18 = 72 bits wide: a three-word VlWide, filled bit by bit.
void set_check(Bench<Vscoreboard4>& bench, const std::array<RegUse, kWarps>& use) {
  for (unsigned word = 0; word < 3; ++word) bench->check_i[word] = 0;
  for (unsigned w = 0; w < kWarps; ++w) {
    const uint32_t bits = use[w].packed();
    for (unsigned b = 0; b < 18; ++b)
      if (bits >> b & 1) {
        const unsigned pos = 18 * w + b;
        bench->check_i[pos / 32] |= 1u << (pos % 32);
      }
  }
}

TEST(RtlScoreboard, MatchesReference) {
  Bench<Vscoreboard4> bench;
  bench.reset();
  std::mt19937 rng(21);
  std::array<uint32_t, kWarps> pending{};
  for (int cycle = 0; cycle < 20000; ++cycle) {
    // Few registers so hazards are frequent.
    std::array<RegUse, kWarps> use{};
    for (unsigned w = 0; w < kWarps; ++w) {
      use[w] = {rng() % 2 == 0,      unsigned(rng() % 6), rng() % 2 == 0,
                unsigned(rng() % 6), rng() % 2 == 0,      unsigned(rng() % 6)};
    }
    set_check(bench, use);
    const bool set = rng() % 2;
    const unsigned set_warp = rng() % kWarps, set_rd = rng() % 6;
    bench->set_i = set;
    bench->set_warp_i = set_warp;
    bench->set_rd_i = set_rd;
    unsigned clear = 0, clear_warp = 0, clear_rd = 0;
    for (unsigned p = 0; p < 2; ++p) {
      if (rng() % 2) {
        clear |= 1u << p;
        const unsigned w = rng() % kWarps, r = rng() % 6;
        clear_warp |= w << (2 * p);
        clear_rd |= r << (5 * p);
      }
    }
    bench->clear_i = clear;
    bench->clear_warp_i = clear_warp;
    bench->clear_rd_i = clear_rd;
    bench->flush_i = 0;
    bench.eval();
    for (unsigned w = 0; w < kWarps; ++w) {
      const RegUse& u = use[w];
      const bool want = (u.rd_we && (pending[w] >> u.rd & 1)) || (u.rs1_re && (pending[w] >> u.rs1 & 1)) ||
                        (u.rs2_re && (pending[w] >> u.rs2 & 1));
      ASSERT_EQ(bool(bench->hazard_o >> w & 1), want) << "cycle " << cycle << " warp " << w;
      ASSERT_EQ(bool(bench->busy_o >> w & 1), pending[w] != 0);
      ASSERT_EQ(bench->pending_o[w], pending[w]) << "cycle " << cycle << " warp " << w;
    }
    bench.tick();
    for (unsigned p = 0; p < 2; ++p)
      if (clear >> p & 1) pending[(clear_warp >> (2 * p)) & 3] &= ~(1u << ((clear_rd >> (5 * p)) & 31));
    if (set && set_rd != 0) pending[set_warp] |= 1u << set_rd;
  }
}

TEST(RtlScoreboard, X0IsNeverPending) {
  Bench<Vscoreboard4> bench;
  bench.reset();
  bench->set_i = 1;
  bench->set_warp_i = 1;
  bench->set_rd_i = 0;
  bench.tick();
  bench->set_i = 0;
  std::array<RegUse, kWarps> use{};
  use[1] = RegUse{true, 0, true, 0, true, 0};
  set_check(bench, use);
  bench.eval();
  EXPECT_EQ(bench->hazard_o, 0u);
}

// HardZero = 0 (the f-load scoreboard): register 0 is an ordinary register.
TEST(RtlScoreboard, RegisterZeroIsTrackedWithoutHardZero) {
  Bench<Vscoreboard4f> bench;
  bench.reset();
  bench->set_i = 1;
  bench->set_warp_i = 1;
  bench->set_rd_i = 0;
  bench.tick();
  bench->set_i = 0;
  bench->check_i[0] = 0;
  bench->check_i[1] = 0;
  bench->check_i[2] = 0;
  // warp 1's rs1 = register 0, read: bits 18 + 11 (rs1_re) and 18 + 6.. (rs1 = 0)
  bench->check_i[0] = 1u << (18 + 11);
  bench.eval();
  EXPECT_EQ(bench->pending_o[1], 1u);
  EXPECT_EQ(bench->hazard_o, 2u);
  EXPECT_EQ(bench->busy_o, 2u);
  bench->clear_i = 1;
  bench->clear_warp_i = 1;
  bench->clear_rd_i = 0;
  bench.tick();
  bench->clear_i = 0;
  bench.eval();
  EXPECT_EQ(bench->pending_o[1], 0u);
  EXPECT_EQ(bench->hazard_o, 0u);
}

// Reference scheduler: the warp each policy must choose from `ready`.
struct SchedReference {
  bool greedy = false;
  unsigned ptr = 0;                    // round-robin: first warp considered next
  int last = -1;                       // greedy: last issued warp
  std::array<unsigned, kWarps> age{};  // launch stamp: smaller is older
  unsigned stamp = 0;

  unsigned choose(unsigned ready) const {
    if (!greedy) {
      for (unsigned k = 0; k < kWarps; ++k)
        if (ready >> ((ptr + k) % kWarps) & 1) return (ptr + k) % kWarps;
      return 0;
    }
    if (last >= 0 && (ready >> last & 1)) return unsigned(last);
    unsigned best = 0, best_age = ~0u;
    for (unsigned w = 0; w < kWarps; ++w)
      if ((ready >> w & 1) && age[w] < best_age) {
        best_age = age[w];
        best = w;
      }
    return best;
  }
  void issued(unsigned warp) {
    ptr = (warp + 1) % kWarps;
    last = int(warp);
  }
  void launched(unsigned mask) {
    for (unsigned w = 0; w < kWarps; ++w)
      if (mask >> w & 1) age[w] = stamp++;
  }
};

template <typename Model>
void check_sched(bool greedy, unsigned seed) {
  Bench<Model> bench;
  bench.reset();
  std::mt19937 rng(seed);
  SchedReference ref;
  ref.greedy = greedy;
  std::array<unsigned, kWarps> served{};
  bench->launch_i = 0xF;  // launched together: lower index is older
  bench.tick();
  ref.launched(0xF);
  for (int cycle = 0; cycle < 20000; ++cycle) {
    const unsigned ready = rng() % 3 ? rng() % 16 : 0xF;
    const unsigned launch = rng() % 50 == 0 ? 1u << (rng() % kWarps) : 0;
    const bool issue = ready != 0 && rng() % 4 != 0;
    bench->ready_i = ready;
    bench->launch_i = launch;
    bench->issue_i = issue;
    bench.eval();
    ASSERT_EQ(bool(bench->valid_o), ready != 0);
    if (ready != 0) {
      const unsigned want = ref.choose(ready);
      ASSERT_EQ(unsigned(bench->warp_o), want) << "cycle " << cycle << " ready " << ready;
      ++served[want];
      if (issue) ref.issued(want);
    }
    bench.tick();
    ref.launched(launch);
  }
  for (unsigned w = 0; w < kWarps; ++w) EXPECT_GT(served[w], 0u) << "warp " << w << " never chosen";
}

TEST(RtlWarpSched, LooseRoundRobinMatchesReference) { check_sched<Vsched_rr4>(false, 31); }
TEST(RtlWarpSched, GreedyThenOldestMatchesReference) { check_sched<Vsched_gto4>(true, 32); }

}  // namespace
