#include "page_allocator.hpp"

#include <iterator>
#include <stdexcept>

namespace kestrel::runtime {

PageAllocator::PageAllocator(uint64_t base, uint64_t bytes, uint64_t page_bytes)
    : base_(base), limit_(base), origin_(base), page_bytes_(page_bytes) {
  if (page_bytes == 0 || base % page_bytes != 0)
    throw std::invalid_argument("page allocator: unaligned base");
  free_pages_ = bytes / page_bytes;
  limit_ = base + free_pages_ * page_bytes;
  if (free_pages_ > 0) free_runs_.emplace(base, free_pages_);
}

void PageAllocator::set_origin(uint64_t addr) {
  addr = addr < base_ ? base_ : addr;
  addr = addr >= limit_ ? base_ : addr;
  origin_ = base_ + (addr - base_) / page_bytes_ * page_bytes_;
}

uint64_t PageAllocator::take(std::map<uint64_t, uint64_t>::iterator run, uint64_t at, uint64_t pages) {
  const uint64_t start = run->first, length = run->second;
  const uint64_t before = (at - start) / page_bytes_;
  const uint64_t after = length - before - pages;
  free_runs_.erase(run);
  if (before > 0) free_runs_.emplace(start, before);
  if (after > 0) free_runs_.emplace(at + pages * page_bytes_, after);
  free_pages_ -= pages;
  return at;
}

std::optional<uint64_t> PageAllocator::allocate(uint64_t pages) {
  if (pages == 0) return std::nullopt;
  if (origin_ != base_) {
    // First fit at or above the origin: the run holding the origin (from
    // the origin on), then the runs above it.
    auto run = free_runs_.upper_bound(origin_);
    if (run != free_runs_.begin()) {
      const auto holding = std::prev(run);
      const uint64_t end = holding->first + holding->second * page_bytes_;
      if (end > origin_ && (end - origin_) / page_bytes_ >= pages) return take(holding, origin_, pages);
    }
    for (; run != free_runs_.end(); ++run)
      if (run->second >= pages) return take(run, run->first, pages);
  }
  for (auto run = free_runs_.begin(); run != free_runs_.end(); ++run)
    if (run->second >= pages) return take(run, run->first, pages);
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
