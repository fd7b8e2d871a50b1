// Barrier unit bench: thread counting across warps of a block, exits that
// release a barrier, the __syncthreads_count/and/or reductions, independent
// slots, and the deadlock watchdog (2^4 issues in this configuration), also
// over warp-synchronous waits (held_i) and restarted by progress_i.
#include <gtest/gtest.h>

#include <cstdint>

#include "Vbarrier4.h"
#include "rtl_test.hpp"

namespace {

using kestrel::rtlbench::Bench;

class RtlBarrier : public ::testing::Test {
 protected:
  void SetUp() override {
    bench.reset();
    idle();
  }
  void idle() {
    bench->start_i = 0;
    bench->arrive_i = 0;
    bench->exit_i = 0;
    bench->issue_i = 0;
    bench->flush_i = 0;
    bench->progress_i = 0;
  }
  void start(unsigned slot, unsigned threads) {
    bench->start_i = 1;
    bench->start_slot_i = slot;
    bench->start_threads_i = threads;
    bench.tick();
    idle();
  }
  // Returns the release vector seen during the arrival cycle.
  unsigned arrive(unsigned slot, unsigned count, unsigned nonzero) {
    bench->arrive_i = 1;
    bench->arrive_slot_i = slot;
    bench->arrive_count_i = count;
    bench->arrive_nonzero_i = nonzero;
    bench.eval();
    const unsigned released = bench->release_o;
    bench.tick();
    idle();
    return released;
  }
  unsigned exit_threads(unsigned slot, unsigned count) {
    bench->exit_i = 1;
    bench->exit_slot_i = slot;
    bench->exit_count_i = count;
    bench.eval();
    const unsigned released = bench->release_o;
    bench.tick();
    idle();
    return released;
  }
  unsigned result_nonzero(unsigned slot) { return (bench->result_nonzero_o >> (11 * slot)) & 0x7FF; }
  unsigned result_arrived(unsigned slot) { return (bench->result_arrived_o >> (11 * slot)) & 0x7FF; }

  Bench<Vbarrier4> bench;
};

TEST_F(RtlBarrier, ReleasesWhenEveryThreadArrived) {
  start(1, 70);  // three warps of 32: 32 + 32 + 6 threads
  EXPECT_EQ(arrive(1, 32, 10), 0u);
  EXPECT_TRUE(bench->waiting_o & 2);
  EXPECT_EQ(arrive(1, 6, 6), 0u);
  EXPECT_EQ(arrive(1, 32, 0), 2u);
  EXPECT_EQ(result_nonzero(1), 16u);
  EXPECT_EQ(result_arrived(1), 70u);
  EXPECT_FALSE(bench->waiting_o & 2);
  // The next barrier counts from zero again.
  EXPECT_EQ(arrive(1, 70, 70), 2u);
  EXPECT_EQ(result_nonzero(1), 70u);
}

TEST_F(RtlBarrier, ExitedThreadsCountAsArrived) {
  start(0, 64);
  EXPECT_EQ(arrive(0, 32, 1), 0u);
  // The other warp exits instead of arriving: that completes the barrier.
  EXPECT_EQ(exit_threads(0, 32), 1u);
  EXPECT_EQ(result_arrived(0), 32u);
  // Exits before any arrival release nothing.
  EXPECT_EQ(exit_threads(0, 16), 0u);
  EXPECT_EQ(arrive(0, 16, 0), 1u);
}

TEST_F(RtlBarrier, SlotsAreIndependent) {
  start(2, 8);
  start(3, 8);
  EXPECT_EQ(arrive(2, 4, 0), 0u);
  EXPECT_EQ(arrive(3, 8, 8), 8u);
  EXPECT_EQ(arrive(2, 4, 4), 4u);
  EXPECT_EQ(result_nonzero(2), 4u);
  EXPECT_EQ(result_nonzero(3), 8u);
}

TEST_F(RtlBarrier, SimultaneousArrivalAndExitRelease) {
  start(0, 64);
  bench->arrive_i = 1;
  bench->arrive_slot_i = 0;
  bench->arrive_count_i = 32;
  bench->arrive_nonzero_i = 3;
  bench->exit_i = 1;
  bench->exit_slot_i = 0;
  bench->exit_count_i = 32;
  bench.eval();
  EXPECT_EQ(bench->release_o, 1u);
  bench.tick();
  EXPECT_EQ(result_nonzero(0), 3u);
}

TEST_F(RtlBarrier, WatchdogReportsDeadlock) {
  start(1, 64);
  arrive(1, 32, 0);
  for (int i = 0; i < (1 << 4) - 1; ++i) {
    bench->issue_i = 1;
    bench->issue_slot_i = 1;
    bench.tick();
    ASSERT_EQ(bench->deadlock_o, 0u) << "after " << i + 1 << " issues";
  }
  // Issues by another slot do not count.
  bench->issue_slot_i = 0;
  bench.tick();
  EXPECT_EQ(bench->deadlock_o, 0u);
  bench->issue_slot_i = 1;
  bench.tick();
  EXPECT_EQ(bench->deadlock_o, 2u);
  idle();
}

TEST_F(RtlBarrier, WatchdogCountsWarpSyncWaitsAndRestartsOnProgress) {
  // No barrier arrivals: threads of slot 2 wait inside a warp (held_i).
  start(2, 64);
  bench->held_i = 1u << 2;
  for (int i = 0; i < 10; ++i) {
    bench->issue_i = 1;
    bench->issue_slot_i = 2;
    bench.tick();
  }
  EXPECT_EQ(bench->deadlock_o, 0u);
  bench->issue_i = 0;
  bench->progress_i = 1u << 2;  // a wait ended: the count restarts
  bench.tick();
  bench->progress_i = 0;
  for (int i = 0; i < (1 << 4) - 1; ++i) {
    bench->issue_i = 1;
    bench.tick();
    ASSERT_EQ(bench->deadlock_o, 0u) << "after " << i + 1 << " issues";
  }
  bench.tick();
  EXPECT_EQ(bench->deadlock_o, 1u << 2);
  idle();
  bench->held_i = 0;
}

TEST_F(RtlBarrier, WatchdogIdleWithoutWaiters) {
  start(1, 64);
  for (int i = 0; i < 64; ++i) {
    bench->issue_i = 1;
    bench->issue_slot_i = 1;
    bench.tick();
  }
  EXPECT_EQ(bench->deadlock_o, 0u);
}

}  // namespace
