// The per-thread stack size a launch gives the hardware (LaunchRegs::
// stack_bytes), padded so that the warps' local-memory windows do not all
// start in the same sets of the L2 (docs/memory-system.md, "Local memory and
// the L2").
#pragma once

#include <cstdint>

namespace kestrel::runtime {

// Warp slot w's local backing starts at local_backing + w * lanes *
// stack_bytes (docs/isa.md section 4), and each thread's frames sit at the
// top of its window.  When lanes * stack_bytes is a multiple of the L2's set
// period (its bytes over its ways: 32 KiB for the default 128 KiB x 4), every
// warp's frames fall into the same sets, and a spill evicts another warp's
// spills at once.  Returns the smallest stack_bytes + 16 k (k >= 0, at most
// `window`) that shifts consecutive warps' windows by at least their frames'
// footprint (lanes * frame_bytes, or half the period when the frames are
// larger) in set space; `stack_bytes` unchanged without an L2
// (set_period_bytes 0) or without frames.
uint32_t spread_stack_bytes(uint32_t stack_bytes, uint32_t frame_bytes, uint32_t lanes,
                            uint64_t set_period_bytes, uint64_t window);

}  // namespace kestrel::runtime
