// libFuzzer target: the parts of kestrel-cc that read input kestrel-cc does
// not write itself (tools/kestrel-cc/src).  The first byte picks the reader:
//
//   0x01  the command line (options.cpp): the rest split at NUL bytes into
//         arguments, as main() passes argv
//   0x02  the check of a linked module (module_check.cpp), RV64
//   0x03  the same, RV32
//   else  the whole input as the LLVM IR text clang wrote (ir_text.cpp),
//         then what compiler.cpp does with it: the kernels it annotates,
//         their signatures from the mangled names (kernel_entry.cpp), the
//         section placement, the edited text and the extern __shared__
//         candidates
//
// Readers answer bad input with kestrel::cc::CompileError; any other
// exception, a crash, a sanitizer report or a hang is a finding.
#include <cstdint>
#include <string>
#include <vector>

#include "compile_error.hpp"
#include "ir_text.hpp"
#include "kernel_entry.hpp"
#include "module_check.hpp"
#include "options.hpp"

namespace {

void read_command_line(const uint8_t* data, size_t size) {
  std::vector<std::string> args;
  std::string arg;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(arg);
      arg.clear();
    } else {
      arg.push_back(static_cast<char>(data[i]));
    }
  }
  args.push_back(arg);
  (void)kestrel::cc::parse_options(args);
}

void read_ir(const uint8_t* data, size_t size) {
  using namespace kestrel::cc;
  IrModule module = parse_ir(std::string(reinterpret_cast<const char*>(data), size));
  for (const std::string& symbol : module.annotated("kestrel.kernel")) (void)describe_kernel(symbol);
  (void)module.find_global("llvm.global_ctors");
  (void)place_device_sections(module);
  (void)module.text();
  (void)module.defined_symbols();
  (void)extern_shared_candidates(module);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    if (size > 0 && data[0] == 0x01) {
      read_command_line(data + 1, size - 1);
    } else if (size > 0 && (data[0] == 0x02 || data[0] == 0x03)) {
      (void)kestrel::cc::check_module_image(std::vector<uint8_t>(data + 1, data + size),
                                            data[0] == 0x02 ? 64 : 32);
    } else {
      read_ir(data, size);
    }
  } catch (const kestrel::cc::CompileError&) {
    // refused with a message for the user
  }
  return 0;
}
