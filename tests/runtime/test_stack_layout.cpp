// spread_stack_bytes (runtime/stack_layout.hpp): the per-thread stack a
// launch gives the hardware, padded so that the warps' frames fall into
// different L2 sets.
#include <gtest/gtest.h>

#include <cstdint>

#include "stack_layout.hpp"

namespace {

using kestrel::runtime::spread_stack_bytes;

constexpr uint64_t kPeriod = 32 * 1024;  // the default L2: 128 KiB, 4 ways
constexpr uint64_t kWindow = 16 * 1024 * 1024;

// Distance of a warp window's start from a multiple of the set period.
uint64_t set_shift(uint32_t stack, uint32_t lanes) {
  const uint64_t shift = uint64_t{lanes} * stack % kPeriod;
  return shift < kPeriod - shift ? shift : kPeriod - shift;
}

// The default stack (1 KiB) at 32 lanes makes 32 KiB windows: every warp's
// frames in the same sets.  SGEMM's register-tiled kernel (176 bytes of
// frames) gets 1200 bytes: each warp's frames 88 lines after the previous
// warp's.
TEST(StackLayout, AliasingWindowsAreSpreadByTheirFrames) {
  EXPECT_EQ(set_shift(1024, 32), 0u);
  const uint32_t spread = spread_stack_bytes(1024, 176, 32, kPeriod, kWindow);
  EXPECT_EQ(spread, 1200u);
  EXPECT_GE(set_shift(spread, 32), 32u * 176);
  EXPECT_EQ(spread % 16, 0u);
}

// A stack whose windows are already apart, a kernel without frames, or a
// device without an L2 keeps its size.
TEST(StackLayout, UnchangedWhenNothingAliases) {
  EXPECT_EQ(spread_stack_bytes(1200, 176, 32, kPeriod, kWindow), 1200u);
  EXPECT_EQ(spread_stack_bytes(1024, 0, 32, kPeriod, kWindow), 1024u);
  EXPECT_EQ(spread_stack_bytes(1024, 176, 32, 0, kWindow), 1024u);
}

// Frames of more than half the period: the windows are put half a period
// apart, the most two neighbours can be.
TEST(StackLayout, LargeFramesGoHalfAPeriodApart) {
  const uint32_t spread = spread_stack_bytes(4096, 2048, 32, kPeriod, kWindow);
  EXPECT_EQ(set_shift(spread, 32), kPeriod / 2);
  EXPECT_EQ(spread, 4096u + 512);
}

// Every lane count and stack size: the result is the smallest multiple-of-16
// step that reaches the wanted shift, never smaller than asked, and never
// beyond the window.
TEST(StackLayout, SmallestStepForEveryGeometry) {
  for (uint32_t lanes : {1u, 4u, 8u, 16u, 32u}) {
    for (uint32_t stack = 16; stack <= 4096; stack += 48) {
      for (uint32_t frames : {16u, 176u, 1024u}) {
        const uint32_t spread = spread_stack_bytes(stack, frames, lanes, kPeriod, kWindow);
        const uint64_t wanted =
            uint64_t{lanes} * frames < kPeriod / 2 ? uint64_t{lanes} * frames : kPeriod / 2;
        ASSERT_GE(spread, stack);
        ASSERT_EQ((spread - stack) % 16, 0u);
        ASSERT_GE(set_shift(spread, lanes), wanted)
            << lanes << " lanes, stack " << stack << ", frames " << frames;
        for (uint32_t smaller = stack; smaller < spread; smaller += 16)
          ASSERT_LT(set_shift(smaller, lanes), wanted) << lanes << " lanes, stack " << smaller;
      }
    }
  }
  // Capped by the local window.
  EXPECT_EQ(spread_stack_bytes(1024, 176, 32, kPeriod, 1024), 1024u);
}

}  // namespace
