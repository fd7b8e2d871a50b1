// First-fit allocator of whole pages over the device DRAM range.  It only does
// address bookkeeping; mapping pages is the caller's business.  The search
// starts at an origin (the base unless set_origin moves it) and wraps to the
// base: devices of one process that start at different origins hand out
// different addresses until one of them fills past another's origin.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace kestrel::runtime {

class PageAllocator {
 public:
  PageAllocator(uint64_t base, uint64_t bytes, uint64_t page_bytes);

  // Base address of `pages` free pages, or nullopt when no run is that long.
  std::optional<uint64_t> allocate(uint64_t pages);
  // Returns a run handed out by allocate(); the caller passes its exact size.
  void release(uint64_t addr, uint64_t pages);
  // Later allocations take the first fit at or above `addr` (rounded down to
  // a page, clamped to the range), else the first fit above the base.
  void set_origin(uint64_t addr);

  uint64_t free_pages() const { return free_pages_; }
  uint64_t largest_free_run() const;

 private:
  // Hands out `pages` pages at `at` of the free run `run` (which holds them).
  uint64_t take(std::map<uint64_t, uint64_t>::iterator run, uint64_t at, uint64_t pages);

  uint64_t base_;
  uint64_t limit_;  // first byte past the range
  uint64_t origin_;
  uint64_t page_bytes_;
  uint64_t free_pages_ = 0;
  std::map<uint64_t, uint64_t> free_runs_;  // start address -> pages, never adjacent
};

}  // namespace kestrel::runtime
