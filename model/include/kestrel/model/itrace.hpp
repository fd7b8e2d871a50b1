// The instruction trace (KESTREL_ITRACE=file, docs/runtime.md "Instruction
// trace"): one line per warp-instruction the device issues, written by the
// functional model and by rtlsim alike:
//
//   # launch 1: entry 0x10000000, grid 4x1x1, block 256x1x1
//   cycle sm warp pc         mask      instruction           writes
//      12  0    3 0x10000040 ffffffff  addi a0, a0, 1        a0=[0x5 0x6 ...]
//
// cycle: on rtlsim the clock cycle since START; on the model the SM's issue
// count (the model has no pipeline).  warp: the SM's warp slot.  writes: the
// registers the instruction wrote, one value when every lane wrote the same
// and otherwise one per lane of the mask in lane order; a write to another
// warp (a barrier releasing it) is prefixed with its slot ("w3.a0").
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kestrel/model/gpu.hpp"

namespace kestrel::model {

class InstructionTrace {
 public:
  // Throws kestrel::Error(KESTREL_ERROR_IO) when `path` cannot be written.
  InstructionTrace(const std::string& path, unsigned xlen);
  ~InstructionTrace();
  InstructionTrace(const InstructionTrace&) = delete;
  InstructionTrace& operator=(const InstructionTrace&) = delete;

  void launch(const LaunchDesc& desc);
  void retire(uint64_t cycle, uint32_t sm, uint32_t warp_slot, uint64_t pc, uint32_t mask, uint32_t word,
              const std::vector<RegWrite>& writes);

 private:
  std::FILE* file_;
  unsigned xlen_;
  uint64_t launches_ = 0;
};

}  // namespace kestrel::model
