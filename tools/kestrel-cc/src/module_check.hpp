// Checks a linked device module against docs/isa.md section 8 before
// kestrel-cc hands it to the user, so that a toolchain mistake shows up at
// build time with a clear message rather than as a loader error.
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
  std::vector<ModuleParam> params;
};

struct ModuleSummary {
  unsigned xlen = 0;
  std::vector<ModuleKernel> kernels;
  uint64_t relocations = 0;  // words the loader adds the load base to
  uint64_t image_bytes = 0;  // end of the highest PT_LOAD segment
  uint64_t static_shared_bytes = 0;
};

// Reads the module at `path` and checks: ELF class matches `xlen`, EM_RISCV,
// ET_DYN with only R_RISCV_RELATIVE relocations (RV64) or ET_EXEC with kept
// relocations the loader can apply and no GOT, PLT or dynamic section (RV32),
// single-float ABI, no RVC flag, no 16-bit instruction in executable
// sections, no TLS, no interpreter, PT_LOAD segments page aligned and inside
// the file, the shared window outside every PT_LOAD, and a well-formed
// .kestrel.kernels section whose pointers land in the image and are
// relocated.  Throws CompileError naming the first problem.
ModuleSummary check_module(const std::string& path, unsigned xlen);

// The same checks on an in-memory image (for tests).
ModuleSummary check_module_image(const std::vector<uint8_t>& image, unsigned xlen);

}  // namespace kestrel::cc
