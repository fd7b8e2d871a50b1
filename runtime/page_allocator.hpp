// First-fit allocator of whole pages over the device DRAM range.  It only does
// address bookkeeping; mapping pages is the caller's business.
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

  uint64_t free_pages() const { return free_pages_; }
  uint64_t largest_free_run() const;

 private:
  uint64_t page_bytes_;
  uint64_t free_pages_ = 0;
  std::map<uint64_t, uint64_t> free_runs_;  // start address -> pages, never adjacent
};

}  // namespace kestrel::runtime
