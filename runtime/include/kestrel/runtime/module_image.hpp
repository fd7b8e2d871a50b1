// Parsing and validation of a Kestrel device module (docs/isa.md section 8)
// into a relocatable image, independent of any device.  Nothing in the file is
// trusted: every offset, size, count and pointer is checked before use, and
// any problem is a kestrel::Error(KESTREL_ERROR_INVALID_MODULE) naming it.
// Library kestrel::module_image: the loader (runtime/device_context.cpp), the
// CUDA runtime's registry and kestrel-cc's check of its own output
// (tools/kestrel-cc/src/module_check.cpp) all read modules with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kestrel/module_format.h"

namespace kestrel::runtime {

struct KernelInfo {
  std::string name;    // mangled, as the descriptor gives it
  uint64_t entry = 0;  // link-time address of the trampoline
  uint32_t param_bytes = 0;
  uint32_t param_align = 1;
  // Section .kestrel.stack (0 for a module without it): the stack a thread of
  // the kernel needs by itself as kestrel-cc measured it, and what the figure
  // leaves out (KESTREL_STACK_*).
  uint32_t stack_bytes = 0;
  uint32_t stack_flags = 0;
  std::vector<kestrel_param_desc> params;
};

struct GlobalSymbol {
  std::string name;
  uint64_t address = 0;  // link-time
  uint64_t bytes = 0;
  // In section .kestrel.managed: a __managed__ variable, whose host copy the
  // CUDA runtime keeps (docs/cuda-runtime.md, "Managed memory").
  bool managed = false;
};

// A run of pages of the image with one permission set (KESTREL_PAGE_*).
struct PageRun {
  uint64_t first_page = 0;  // page index from the image start
  uint64_t pages = 0;
  uint32_t perms = 0;
};

struct ModuleImage {
  unsigned xlen = 64;
  // The loadable image as linked at base 0, with every relocation already
  // applied for base 0.  Loading at a page-aligned base B adds B to the
  // little-endian XLEN-wide word at each offset in relocations (sorted, each
  // once).  Those are the targets of R_RISCV_RELATIVE in a position-
  // independent module; in an RV32 static one (ET_EXEC with kept relocations)
  // the address words of R_RISCV_32 and the lui instructions of R_RISCV_HI20,
  // whose U-immediate (bits 31..12) thereby gains B >> 12.
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> relocations;
  std::vector<PageRun> page_runs;  // pages to map; gaps between segments stay unmapped
  std::vector<KernelInfo> kernels;
  std::vector<GlobalSymbol> globals;
  uint64_t exit_pc = 0;       // __kestrel_exit
  uint64_t gp = 0;            // __global_pointer$, 0 when the module has none
  uint64_t shared_start = 0;  // __kestrel_shared_start (page aligned image end when absent)
  uint64_t shared_end = 0;    // __kestrel_shared_end
  // The whole module file when it carries DWARF (kestrel-cc -g: .debug_info
  // and .debug_line), for naming the source line of a faulting PC
  // (runtime/source_lines.hpp); null otherwise.  Shared by the copies of the
  // image that loading makes.
  std::shared_ptr<const std::vector<uint8_t>> debug_elf;

  uint64_t static_shared_bytes() const { return shared_end - shared_start; }
};

// Parses and validates `size` bytes at `data` for a device of `device_xlen`.
ModuleImage parse_module(const uint8_t* data, size_t size, unsigned device_xlen);

}  // namespace kestrel::runtime
