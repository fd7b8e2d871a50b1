#include <gtest/gtest.h>

#include <stdexcept>

#include "page_allocator.hpp"

namespace kestrel::runtime {
namespace {

constexpr uint64_t kBase = 0x10000000;
constexpr uint64_t kPage = 4096;

TEST(PageAllocator, FirstFitAndExhaustion) {
  PageAllocator pages(kBase, 8 * kPage, kPage);
  EXPECT_EQ(pages.allocate(3), kBase);
  EXPECT_EQ(pages.allocate(4), kBase + 3 * kPage);
  EXPECT_EQ(pages.free_pages(), 1u);
  EXPECT_FALSE(pages.allocate(2).has_value());
  EXPECT_EQ(pages.allocate(1), kBase + 7 * kPage);
  EXPECT_FALSE(pages.allocate(1).has_value());
  EXPECT_FALSE(pages.allocate(0).has_value());
}

TEST(PageAllocator, ReleasedRunsCoalesce) {
  PageAllocator pages(kBase, 8 * kPage, kPage);
  const uint64_t a = *pages.allocate(2), b = *pages.allocate(2), c = *pages.allocate(2);
  pages.release(a, 2);
  pages.release(c, 2);
  EXPECT_EQ(pages.largest_free_run(), 4u);  // c joined the tail
  EXPECT_FALSE(pages.allocate(5).has_value());
  pages.release(b, 2);  // joins both neighbours
  EXPECT_EQ(pages.largest_free_run(), 8u);
  EXPECT_EQ(pages.allocate(8), kBase);
}

TEST(PageAllocator, DoubleReleaseIsCaught) {
  PageAllocator pages(kBase, 8 * kPage, kPage);
  const uint64_t a = *pages.allocate(2);
  pages.release(a, 2);
  EXPECT_THROW(pages.release(a, 2), std::logic_error);
  EXPECT_THROW(pages.release(a + kPage, 1), std::logic_error);
  EXPECT_EQ(pages.free_pages(), 8u);
}

// Devices of one CUDA program start at different origins, so that their
// addresses differ (docs/cuda-runtime.md, "Device pointers and devices").
TEST(PageAllocator, OriginFirstThenWrapsToTheBase) {
  PageAllocator pages(kBase, 8 * kPage, kPage);
  pages.set_origin(kBase + 5 * kPage + 100);  // rounded down to its page
  EXPECT_EQ(pages.allocate(2), kBase + 5 * kPage);
  EXPECT_EQ(pages.allocate(2), kBase);  // only one page left above the origin
  EXPECT_EQ(pages.allocate(1), kBase + 7 * kPage);
  EXPECT_EQ(pages.allocate(3), kBase + 2 * kPage);
  EXPECT_EQ(pages.free_pages(), 0u);
  EXPECT_FALSE(pages.allocate(1).has_value());
  pages.release(kBase + 5 * kPage, 2);
  pages.release(kBase, 2);
  EXPECT_EQ(pages.allocate(1), kBase + 5 * kPage);
  // An origin outside the range is the base.
  pages.set_origin(kBase + 8 * kPage);
  EXPECT_EQ(pages.allocate(1), kBase);
  pages.set_origin(0);
  EXPECT_EQ(pages.allocate(1), kBase + kPage);
  EXPECT_EQ(pages.free_pages(), 1u);
}

}  // namespace
}  // namespace kestrel::runtime
