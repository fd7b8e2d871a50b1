// The stack each kernel of a linked module needs by itself: the deepest path
// of its call graph, summed over the frames on it, as far as the machine
// code shows it.  On CUDA the compiler computes a kernel's frame and the
// driver reserves it, while cudaLimitStackSize covers what no compiler can
// see (guide B.21 and 5.3.2); kestrel-cc records the figure in section
// .kestrel.stack (docs/isa.md section 8) and the runtime reserves at least
// that much per thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kestrel::cc {

struct StackNeed {
  uint32_t bytes = 0;  // struct kestrel_kernel_stack::stack_bytes
  uint32_t flags = 0;  // KESTREL_STACK_* (include/kestrel/module_format.h)
};

// Reads the module at `path`, linked from objects compiled with
// -fstack-size-section, and gives the need of the kernel whose trampoline
// starts at each address of `entries` (link-time addresses), in that order.
// Frames come from .stack_sizes; a function without an entry there (the C
// library, libgcc, the crt) counts the bytes its `addi sp, sp, -N`
// instructions take, with those of the __riscv_save_N routine it calls
// through t0 (gcc's -msave-restore prologues).  Calls are the direct ones the code makes (jal, and
// auipc followed by jalr, tail calls included); a call back into a function
// already on the path adds nothing (KESTREL_STACK_RECURSION), an indirect call
// adds nothing (KESTREL_STACK_INDIRECT), and a frame the code sizes at run time
// adds what its immediates say (KESTREL_STACK_DYNAMIC).  Throws CompileError on
// a malformed file.
std::vector<StackNeed> kernel_stack_needs(const std::string& path, const std::vector<uint64_t>& entries);

// The same on an in-memory file (for tests).
std::vector<StackNeed> kernel_stack_needs_image(const std::vector<uint8_t>& file,
                                                const std::vector<uint64_t>& entries);

}  // namespace kestrel::cc
