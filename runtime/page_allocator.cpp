#include "page_allocator.hpp"

#include <iterator>
#include <stdexcept>

namespace kestrel::runtime {

PageAllocator::PageAllocator(uint64_t base, uint64_t bytes, uint64_t page_bytes) : page_bytes_(page_bytes) {
  if (page_bytes == 0 || base % page_bytes != 0)
    throw std::invalid_argument("page allocator: unaligned base");
  free_pages_ = bytes / page_bytes;
  if (free_pages_ > 0) free_runs_.emplace(base, free_pages_);
}

std::optional<uint64_t> PageAllocator::allocate(uint64_t pages) {
  if (pages == 0) return std::nullopt;
  for (auto run = free_runs_.begin(); run != free_runs_.end(); ++run) {
    if (run->second < pages) continue;
    const uint64_t addr = run->first;
    const uint64_t left = run->second - pages;
    free_runs_.erase(run);
    if (left > 0) free_runs_.emplace(addr + pages * page_bytes_, left);
    free_pages_ -= pages;
    return addr;
  }
  return std::nullopt;
}

void PageAllocator::release(uint64_t addr, uint64_t pages) {
  if (pages == 0) return;
  auto next = free_runs_.lower_bound(addr);
  // Guard the bookkeeping itself: releasing a run that is (partly) free would
  // corrupt every later allocation.
  if (next != free_runs_.end() && next->first < addr + pages * page_bytes_)
    throw std::logic_error("page allocator: released run overlaps a free run");
  if (next != free_runs_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second * page_bytes_ > addr)
      throw std::logic_error("page allocator: released run overlaps a free run");
  }
  uint64_t start = addr;
  uint64_t length = pages;
  if (next != free_runs_.end() && next->first == addr + pages * page_bytes_) {
    length += next->second;
    next = free_runs_.erase(next);
  }
  if (next != free_runs_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second * page_bytes_ == addr) {
      start = previous->first;
      length += previous->second;
      free_runs_.erase(previous);
    }
  }
  free_runs_.emplace(start, length);
  free_pages_ += pages;
}

uint64_t PageAllocator::largest_free_run() const {
  uint64_t largest = 0;
  for (const auto& run : free_runs_) largest = run.second > largest ? run.second : largest;
  return largest;
}

}  // namespace kestrel::runtime
