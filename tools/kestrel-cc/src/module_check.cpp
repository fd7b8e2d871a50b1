#include "module_check.hpp"

#include <elf.h>

#include <fstream>
#include <iterator>

#include "compile_error.hpp"
#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "kestrel/runtime/module_image.hpp"

namespace kestrel::cc {

ModuleSummary check_module_image(const std::vector<uint8_t>& image, unsigned xlen) {
  // The loader's own parser: the ELF rules, the kept relocations of a static
  // RV32 module and the kernel descriptors are checked by the one reader the
  // runtime loads modules with, so a module kestrel-cc accepts is one the
  // runtime accepts.
  runtime::ModuleImage parsed;
  try {
    parsed = runtime::parse_module(image.data(), image.size(), xlen);
  } catch (const Error& error) {
    throw CompileError(std::string("the linked module fails the loader's check: ") + error.what());
  }
  // What kestrel-cc itself promises beyond what the loader accepts.  RV64:
  // a PIE (the loader insists).  RV32: a static executable with its
  // relocations kept, because Debian's RV32 C library is position-dependent
  // code; the loader would also take an RV32 PIE, kestrel-cc never makes one.
  const uint16_t e_type = static_cast<uint16_t>(image[16] | image[17] << 8);
  if (xlen == 32 && e_type != ET_EXEC)
    throw CompileError("RV32 module is not a static executable (ELF type is not ET_EXEC)");
  for (const runtime::PageRun& run : parsed.page_runs)
    if ((run.perms & KESTREL_PAGE_WRITE) && (run.perms & KESTREL_PAGE_EXEC))
      throw CompileError("module has a writable and executable segment");

  ModuleSummary summary;
  summary.xlen = parsed.xlen;
  summary.relocations = parsed.relocations.size();
  summary.image_bytes = parsed.bytes.size();
  summary.static_shared_bytes = parsed.static_shared_bytes();
  for (const runtime::KernelInfo& info : parsed.kernels) {
    ModuleKernel kernel;
    kernel.name = info.name;
    kernel.entry = info.entry;
    kernel.num_params = static_cast<uint32_t>(info.params.size());
    kernel.param_bytes = info.param_bytes;
    kernel.param_align = info.param_align;
    kernel.stack_bytes = info.stack_bytes;
    kernel.stack_flags = info.stack_flags;
    for (const kestrel_param_desc& param : info.params)
      kernel.params.push_back(ModuleParam{param.offset, param.size, param.align, param.kind});
    summary.kernels.push_back(kernel);
  }
  return summary;
}

ModuleSummary check_module(const std::string& path, unsigned xlen) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw CompileError("cannot read module " + path);
  const std::vector<uint8_t> image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return check_module_image(image, xlen);
}

}  // namespace kestrel::cc
