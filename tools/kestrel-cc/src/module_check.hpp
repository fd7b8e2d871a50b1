// Checks a linked device module against docs/isa.md section 8 before
// kestrel-cc hands it to the user, so that a toolchain mistake shows up at
// build time with a clear message rather than as a loader error.  The check
// is the loader's: one reader of modules for the toolchain and the runtime.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kestrel::cc {

struct ModuleParam {
  uint32_t offset = 0, size = 0, align = 0, kind = 0;  // struct kestrel_param_desc
};

struct ModuleKernel {
  std::string name;  // mangled
  uint64_t entry = 0;
  uint32_t num_params = 0;
  uint32_t param_bytes = 0;
  uint32_t param_align = 0;
  uint32_t stack_bytes = 0;  // struct kestrel_kernel_stack
  uint32_t stack_flags = 0;
  std::vector<ModuleParam> params;
};

struct ModuleSummary {
  unsigned xlen = 0;
  std::vector<ModuleKernel> kernels;
  uint64_t relocations = 0;  // words the loader adds the load base to
  uint64_t image_bytes = 0;  // end of the highest PT_LOAD segment
  uint64_t static_shared_bytes = 0;
};

// Reads the module at `path` and checks it with the runtime's module reader
// (kestrel::module_image: ELF class matches `xlen`, EM_RISCV, single-float
// ABI, no RVC flag or 16-bit instruction, no TLS or interpreter, only
// R_RISCV_RELATIVE in an RV64 PIE, only kept relocations the loader can
// apply and no GOT, PLT or dynamic section in an RV32 static module, the
// shared window outside the image, well-formed kernel descriptors whose
// pointers are relocated), then what kestrel-cc promises beyond the loader:
// an RV32 module is the static form (ET_EXEC) and no page is both writable
// and executable.  Throws CompileError naming the first problem.
ModuleSummary check_module(const std::string& path, unsigned xlen);

// The same checks on an in-memory image (for tests).
ModuleSummary check_module_image(const std::vector<uint8_t>& image, unsigned xlen);

}  // namespace kestrel::cc
