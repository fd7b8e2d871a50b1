// kestrel_sm_dispatch bench (4 lanes, 4 warp slots, 1 KiB shared): a
// directed walk of a 3x2x1 block (thread indices x fastest, lanes past the
// thread count exited, a warp start per Lanes cycles), and random block
// traffic (shapes, shared sizes, completions, flushes) against a C++
// reference of the allocation rules (lowest free warp slots, lowest free
// shared region of the rounded size) and the walker, compared every cycle.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "Vsm_dispatch4.h"
#include "rtl_test.hpp"

namespace {

using kestrel::rtlbench::Bench;

constexpr unsigned kLanes = 4;
constexpr unsigned kWarps = 4;
constexpr uint32_t kShared = 1024;

// The reference: the unit's state, stepped once per cycle.
struct Ref {
  unsigned bx = 1, by = 1, bz = 1;
  uint32_t shared_size = 0;
  unsigned used = 0, bres = 0, region_used = 0;
  unsigned bwarps[kWarps] = {}, bregion[kWarps] = {};
  bool bhas[kWarps] = {};
  uint64_t bidx[kWarps] = {};
  uint32_t bphys[kWarps] = {};
  bool busy = false;
  unsigned left = 0, slot = 0, k = 0, lane = 0, x = 0, y = 0, z = 0, t = 0;

  uint32_t threads() const { return bx * by * bz; }
  uint32_t nwarps() const { return (threads() + kLanes - 1) / kLanes; }
  uint32_t rsize() const { return (shared_size + 7) & ~7u; }
  unsigned free_count() const { return kWarps - __builtin_popcount(used); }
  unsigned alloc() const {
    unsigned mask = 0, taken = 0;
    for (unsigned w = 0; w < kWarps; ++w)
      if (!(used >> w & 1) && taken < nwarps()) {
        mask |= 1u << w;
        ++taken;
      }
    return mask;
  }
  int region_pick() const {
    for (unsigned r = 0; r < kWarps; ++r)
      if (uint64_t(r + 1) * rsize() <= kShared && !(region_used >> r & 1)) return int(r);
    return -1;
  }
  bool ready(bool stall) const {
    return !busy && !stall && nwarps() != 0 && free_count() >= nwarps() &&
           (rsize() == 0 || region_pick() >= 0);
  }
  unsigned walk_warp() const { return left ? unsigned(__builtin_ctz(left)) : 0; }
  bool start() const { return busy && lane == kLanes - 1; }

  void step(bool take, uint64_t idx, bool done, unsigned done_slot, bool flush) {
    const unsigned a = alloc();
    const unsigned first = a ? unsigned(__builtin_ctz(a)) : 0;
    const int pick = region_pick();
    const unsigned wwarp = walk_warp();
    const bool last = lane == kLanes - 1;
    // walker registers (not flushed)
    if (take) {
      slot = first;
      k = lane = x = y = z = t = 0;
    } else if (busy) {
      lane = last ? 0 : lane + 1;
      if (last) ++k;
      ++t;
      if (x + 1 == bx) {
        x = 0;
        if (y + 1 == by) {
          y = 0;
          ++z;
        } else {
          ++y;
        }
      } else {
        ++x;
      }
    }
    if (flush) {
      used = region_used = bres = 0;
      busy = false;
      left = 0;
      return;
    }
    if (take) {
      used |= a;
      bres |= 1u << first;
      bwarps[first] = a;
      bidx[first] = idx;
      bhas[first] = rsize() != 0;
      bregion[first] = unsigned(pick < 0 ? 0 : pick);
      bphys[first] = uint32_t(pick < 0 ? 0 : pick) * rsize();
      if (rsize() != 0) region_used |= 1u << pick;
    }
    if (done) {
      bres &= ~(1u << done_slot);
      used &= ~bwarps[done_slot];
      if (bhas[done_slot]) region_used &= ~(1u << bregion[done_slot]);
    }
    if (take) {
      busy = true;
      left = a;
    } else if (busy && last) {
      left &= ~(1u << wwarp);
      if (left == 0) busy = false;
    }
  }
};

class RtlSmDispatch : public ::testing::Test {
 protected:
  void SetUp() override {
    idle();
    bench.reset();
  }
  void idle() {
    bench->blk_valid_i = 0;
    bench->done_i = 0;
    bench->flush_i = 0;
    bench->stall_i = 0;
  }
  void launch(unsigned x, unsigned y, unsigned z, uint32_t shared) {
    bench->block_x_i = x;
    bench->block_y_i = y;
    bench->block_z_i = z;
    bench->shared_size_i = shared;
    ref.bx = x;
    ref.by = y;
    ref.bz = z;
    ref.shared_size = shared;
  }
  uint64_t bidx(unsigned slot) {
    return uint64_t(bench->bidx_o[2 * slot]) | uint64_t(bench->bidx_o[2 * slot + 1]) << 32;
  }
  // Compares every output with the reference (before the clock edge).
  void check(bool stall) {
    bench.eval();
    ASSERT_EQ(bench->blk_ready_o, ref.ready(stall));
    ASSERT_EQ(bench->blk_slots_o, ref.alloc());
    ASSERT_EQ(bench->threads_o, ref.threads());
    ASSERT_EQ(bench->used_o, ref.used);
    ASSERT_EQ(bench->resident_o, ref.bres);
    ASSERT_EQ(bench->busy_o, ref.busy);
    if (ref.busy) {
      ASSERT_EQ(bench->lane_warp_o, ref.walk_warp());
      ASSERT_EQ(bench->lane_o, ref.lane);
      ASSERT_EQ(bench->lane_tid_o, (ref.x << 20) | (ref.y << 10) | ref.z);
      ASSERT_EQ(bench->lane_exited_o, ref.t >= ref.threads());
      ASSERT_EQ(bench->start_o, ref.start());
      if (ref.start()) {
        ASSERT_EQ(bench->start_slot_o, ref.slot);
        ASSERT_EQ(bench->start_widx_o, ref.k);
      }
    } else {
      ASSERT_FALSE(bench->start_o);
    }
    for (unsigned s = 0; s < kWarps; ++s) {
      if (!(ref.bres >> s & 1)) continue;
      ASSERT_EQ(bidx(s), ref.bidx[s]) << "slot " << s;
      ASSERT_EQ(bench->bphys_o[s], ref.bphys[s]) << "slot " << s;
    }
  }

  Bench<Vsm_dispatch4> bench;
  Ref ref;
};

TEST_F(RtlSmDispatch, WalksABlockXFastest) {
  launch(3, 2, 1, 0);  // 6 threads: 2 warps, lanes 6 and 7 exited
  check(false);
  ASSERT_TRUE(bench->blk_ready_o);
  EXPECT_EQ(bench->blk_slots_o, 0x3u);
  bench->blk_valid_i = 1;
  bench->blk_idx_i = 0x0000000500060007ull;
  bench.eval();
  EXPECT_TRUE(bench->take_o);
  EXPECT_EQ(bench->take_slot_o, 0u);
  bench.tick();
  ref.step(true, 0x0000000500060007ull, false, 0, false);
  idle();
  const unsigned expect_tid[8] = {
      0, 1u << 20, 2u << 20, 1u << 10, (1u << 20) | (1u << 10), (2u << 20) | (1u << 10), 0, 0};
  unsigned starts = 0;
  for (unsigned t = 0; t < 8; ++t) {
    check(false);
    ASSERT_TRUE(bench->busy_o);
    EXPECT_FALSE(bench->blk_ready_o);  // one block at a time
    EXPECT_EQ(bench->lane_warp_o, t / kLanes);
    EXPECT_EQ(bench->lane_o, t % kLanes);
    if (t < 6) {
      EXPECT_EQ(bench->lane_tid_o, expect_tid[t]);
    }
    EXPECT_EQ(bench->lane_exited_o, t >= 6);
    if (bench->start_o) {
      EXPECT_EQ(bench->start_widx_o, starts);
      EXPECT_EQ(bench->start_slot_o, 0u);
      ++starts;
    }
    bench.tick();
    ref.step(false, 0, false, 0, false);
  }
  EXPECT_EQ(starts, 2u);
  check(false);
  EXPECT_FALSE(bench->busy_o);
  EXPECT_EQ(bidx(0), 0x0000000500060007ull);
  // The block completes: its slots are free again.
  bench->done_i = 1;
  bench->done_slot_i = 0;
  bench.tick();
  ref.step(false, 0, true, 0, false);
  idle();
  check(false);
  EXPECT_EQ(bench->used_o, 0u);
}

TEST_F(RtlSmDispatch, RandomTrafficMatchesTheReference) {
  std::mt19937_64 rng(20261125);
  for (unsigned launch_no = 0; launch_no < 60; ++launch_no) {
    // A new launch: flush, then a shape and a shared size.
    bench->flush_i = 1;
    bench.tick();
    ref.step(false, 0, false, 0, true);
    idle();
    const unsigned x = 1 + unsigned(rng() % 8), y = 1 + unsigned(rng() % 2), z = 1;
    const uint32_t shared = (rng() % 3 == 0) ? 0 : uint32_t(rng() % 600);
    launch(x, y, z, shared);
    for (unsigned cycle = 0; cycle < 300; ++cycle) {
      const bool stall = rng() % 16 == 0;
      const bool valid = rng() % 3 == 0;
      const uint64_t idx = rng();
      bench->stall_i = stall;
      bench->blk_valid_i = valid;
      bench->blk_idx_i = idx;
      // Complete a resident block that is not being walked, now and then.
      bool done = false;
      unsigned done_slot = 0;
      if (rng() % 8 == 0) {
        for (unsigned s = 0; s < kWarps; ++s) {
          if ((ref.bres >> s & 1) && !(ref.busy && ref.slot == s)) {
            done = true;
            done_slot = s;
            break;
          }
        }
      }
      bench->done_i = done;
      bench->done_slot_i = done_slot;
      check(stall);
      if (HasFatalFailure()) return;
      const bool take = valid && ref.ready(stall);
      ASSERT_EQ(bench->take_o, take);
      bench.tick();
      ref.step(take, idx, done, done_slot, false);
    }
    idle();
  }
}

}  // namespace
