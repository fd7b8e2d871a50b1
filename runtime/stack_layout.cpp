#include "stack_layout.hpp"

#include <algorithm>

namespace kestrel::runtime {

uint32_t spread_stack_bytes(uint32_t stack_bytes, uint32_t frame_bytes, uint32_t lanes,
                            uint64_t set_period_bytes, uint64_t window) {
  if (set_period_bytes == 0 || frame_bytes == 0 || lanes == 0) return stack_bytes;
  const uint64_t wanted = std::min<uint64_t>(uint64_t{lanes} * frame_bytes, set_period_bytes / 2);
  // The shifts lanes * 16 * k repeat with the period, so one period's worth
  // of steps finds the first one far enough from a multiple of it.
  const uint64_t steps = set_period_bytes / 16 + 1;
  for (uint64_t k = 0; k <= steps; ++k) {
    const uint64_t candidate = uint64_t{stack_bytes} + 16 * k;
    if (candidate > window) break;
    const uint64_t shift = uint64_t{lanes} * candidate % set_period_bytes;
    if (std::min(shift, set_period_bytes - shift) >= wanted) return static_cast<uint32_t>(candidate);
  }
  return stack_bytes;
}

}  // namespace kestrel::runtime
