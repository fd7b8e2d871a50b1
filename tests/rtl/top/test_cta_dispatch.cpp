// CTA dispatcher bench (3 SMs): simulated SMs with a random number of block
// slots and random block run times.  Checks: blocks go out in linear order
// (x fastest), each to the SM that was the lowest-numbered ready one when it
// was picked (the cycle before the offer); the dispatch trace names them; the
// launch ends exactly once, only after every block is done, every SM is idle
// and the memory side is idle (it stays busy for a random while after each
// block, like the atomic unit's write-back); a fault or a host abort stops
// dispatching, aborts the SMs and ends the launch once they have drained; an
// empty grid ends at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "Vcta_dispatch3.h"
#include "rtl_test.hpp"

namespace {

constexpr unsigned kSms = 3;
using Bench = kestrel::rtlbench::Bench<Vcta_dispatch3>;

struct Grid {
  uint32_t x, y, z;
};

// A stand-in SM: `slots` resident blocks at most, each running for a random
// time; busy lingers a few cycles after the last block (outstanding stores).
struct FakeSm {
  unsigned slots = 1;
  std::vector<unsigned> remaining;  // cycles left per resident block
  unsigned linger = 0;
  bool ready() const { return remaining.size() < slots; }
  bool busy() const { return !remaining.empty() || linger > 0; }
};

void set_grid(Bench& b, const Grid& g) {
  // dim3_t = {x[31:0], y[15:0], z[15:0]}: z in the low bits.
  b->grid_i = (uint64_t{g.x} << 32) | (uint64_t{g.y} << 16) | g.z;
}

struct Outcome {
  std::vector<std::array<uint32_t, 3>> order;
  std::vector<unsigned> sms;
  unsigned ends = 0;
  uint64_t end_cycle = 0;
  bool aborted_sms = false;
  bool waited_for_memory = false;  // the SMs were idle while the memory side was busy
};

// Runs one launch.  stop_at: cycle at which a fault (or an abort) arrives, or 0.
Outcome run(Bench& b, const Grid& g, std::mt19937& rng, uint64_t stop_at, bool stop_is_abort) {
  std::array<FakeSm, kSms> sms;
  for (auto& s : sms) s.slots = 1 + rng() % 3;
  set_grid(b, g);
  b->start_i = 1;
  b->fault_i = 0;
  b->abort_i = 0;
  b->blk_ready_i = 0;
  b->blk_done_i = 0;
  b->sm_busy_i = 0;
  b->mem_busy_i = 0;
  b.tick();
  b->start_i = 0;
  Outcome out;
  unsigned mem_linger = 0;  // cycles the memory side stays busy
  bool waited_for_memory = false;
  bool fault = false;
  uint32_t prev_ready = 0;
  for (uint64_t cycle = 1; cycle < 200000; ++cycle) {
    uint32_t ready = 0, busy = 0, done = 0;
    for (unsigned s = 0; s < kSms; ++s) {
      FakeSm& sm = sms[s];
      // A block finishing this cycle pulses blk_done.
      for (size_t i = 0; i < sm.remaining.size(); ++i) {
        if (sm.remaining[i] == 0) {
          done |= 1u << s;
          sm.remaining.erase(sm.remaining.begin() + static_cast<long>(i));
          sm.linger = rng() % 4;
          mem_linger = std::max(mem_linger, 1u + static_cast<unsigned>(rng() % 30));
          break;
        }
      }
      if (sm.ready()) ready |= 1u << s;
      if (sm.busy() || ((done >> s) & 1u)) busy |= 1u << s;
    }
    b->blk_ready_i = ready;
    b->blk_done_i = done;
    b->sm_busy_i = busy;
    b->mem_busy_i = mem_linger > 0;
    if (busy == 0 && mem_linger > 0) waited_for_memory = true;
    if (stop_at != 0 && cycle == stop_at) {
      if (stop_is_abort) b->abort_i = 1;
      fault = !stop_is_abort;
    } else {
      b->abort_i = 0;
    }
    b->fault_i = fault;
    b.eval();
    const uint32_t valid = b->blk_valid_o;
    EXPECT_LE(__builtin_popcount(valid), 1);
    if (valid != 0) {
      const unsigned s = static_cast<unsigned>(__builtin_ctz(valid));
      EXPECT_TRUE((ready >> s) & 1u);
      // The SM was chosen in the previous cycle, as the lowest one ready then.
      EXPECT_EQ(s, static_cast<unsigned>(__builtin_ctz(prev_ready))) << "lowest ready SM";
      EXPECT_TRUE(b->disp_valid_o);
      EXPECT_EQ(b->disp_sm_o, s);
      EXPECT_EQ(b->disp_linear_o, out.order.size());
      const uint64_t idx = b->blk_idx_o;
      out.order.push_back({static_cast<uint32_t>(idx >> 32), static_cast<uint32_t>((idx >> 16) & 0xFFFF),
                           static_cast<uint32_t>(idx & 0xFFFF)});
      out.sms.push_back(s);
      sms[s].remaining.push_back(1 + rng() % 20);
    } else {
      EXPECT_FALSE(b->disp_valid_o);
    }
    if (b->sm_abort_o) {
      out.aborted_sms = true;
      for (auto& sm : sms) sm.remaining.clear();  // dropped; busy lingers a little
    }
    if (b->end_o) {
      ++out.ends;
      out.end_cycle = cycle;
      EXPECT_EQ(busy, 0u) << "ended while an SM was busy";
      EXPECT_EQ(mem_linger, 0u) << "ended while the memory side was busy";
    }
    const bool was_running = b->running_o;
    prev_ready = ready;
    b.tick();
    for (auto& sm : sms) {
      for (auto& r : sm.remaining)
        if (r > 0) --r;
      if (sm.remaining.empty() && sm.linger > 0) --sm.linger;
    }
    if (mem_linger > 0) --mem_linger;
    if (was_running && !b->running_o) break;
  }
  b->abort_i = 0;
  b->fault_i = 0;
  out.waited_for_memory = waited_for_memory;
  return out;
}

std::vector<std::array<uint32_t, 3>> linear_order(const Grid& g) {
  std::vector<std::array<uint32_t, 3>> v;
  for (uint32_t z = 0; z < g.z; ++z)
    for (uint32_t y = 0; y < g.y; ++y)
      for (uint32_t x = 0; x < g.x; ++x) v.push_back({x, y, z});
  return v;
}

TEST(CtaDispatch, WholeGridsInLinearOrder) {
  Bench b;
  b.reset();
  std::mt19937 rng(3);
  bool waited_for_memory = false;
  for (const Grid g :
       {Grid{1, 1, 1}, Grid{7, 1, 1}, Grid{5, 3, 1}, Grid{3, 4, 2}, Grid{40, 1, 1}, Grid{2, 2, 9}}) {
    const Outcome out = run(b, g, rng, 0, false);
    EXPECT_EQ(out.order, linear_order(g)) << g.x << "x" << g.y << "x" << g.z;
    EXPECT_EQ(out.ends, 1u);
    EXPECT_FALSE(out.aborted_sms);
    EXPECT_FALSE(b->running_o);
    waited_for_memory = waited_for_memory || out.waited_for_memory;
  }
  EXPECT_TRUE(waited_for_memory) << "an end waited for the memory side";
}

TEST(CtaDispatch, EveryBlockOnceAcrossSms) {
  Bench b;
  b.reset();
  std::mt19937 rng(9);
  const Grid g{100, 1, 1};
  const Outcome out = run(b, g, rng, 0, false);
  ASSERT_EQ(out.order.size(), 100u);
  std::array<unsigned, kSms> per_sm{};
  for (unsigned s : out.sms) ++per_sm[s];
  EXPECT_GT(per_sm[1] + per_sm[2], 0u) << "work spread past SM 0";
}

TEST(CtaDispatch, FaultStopsDispatchAndDrains) {
  Bench b;
  b.reset();
  std::mt19937 rng(4);
  const Grid g{200, 1, 1};
  const Outcome out = run(b, g, rng, 30, false);
  EXPECT_TRUE(out.aborted_sms);
  EXPECT_TRUE(out.waited_for_memory) << "the drain waited for the memory side";
  EXPECT_LT(out.order.size(), 200u) << "dispatch went on after the fault";
  EXPECT_EQ(out.ends, 1u);
  // The launch went on to be usable: a new grid runs completely.
  const Outcome again = run(b, Grid{4, 1, 1}, rng, 0, false);
  EXPECT_EQ(again.order, linear_order(Grid{4, 1, 1}));
}

TEST(CtaDispatch, HostAbortStops) {
  Bench b;
  b.reset();
  std::mt19937 rng(8);
  const Outcome out = run(b, Grid{300, 1, 1}, rng, 12, true);
  EXPECT_TRUE(out.aborted_sms);
  EXPECT_LT(out.order.size(), 300u);
  EXPECT_EQ(out.ends, 1u);
}

TEST(CtaDispatch, EmptyGridEndsAtOnce) {
  Bench b;
  b.reset();
  std::mt19937 rng(1);
  const Outcome out = run(b, Grid{0, 1, 1}, rng, 0, false);
  EXPECT_TRUE(out.order.empty());
  EXPECT_EQ(out.ends, 1u);
  EXPECT_EQ(out.end_cycle, 1u);
}

TEST(CtaDispatch, ValidHeldUntilTaken) {
  Bench b;
  b.reset();
  set_grid(b, Grid{2, 1, 1});
  b->start_i = 1;
  b.tick();
  b->start_i = 0;
  b->blk_ready_i = 0b100;  // only SM 2 has room
  b.tick();                // picks SM 2
  b->blk_ready_i = 0;      // SM 2 is not ready yet (for example, still freeing shared memory)
  for (int i = 0; i < 5; ++i) {
    b.eval();
    EXPECT_EQ(b->blk_valid_o, 0b100u) << "the offer stays while the SM is not ready";
    EXPECT_FALSE(b->disp_valid_o);
    b.tick();
  }
  b->blk_ready_i = 0b100;
  b.eval();
  EXPECT_TRUE(b->disp_valid_o);
  EXPECT_EQ(b->blk_idx_o, uint64_t{0});
}

}  // namespace
