// The kestrel-cc pipeline (docs/programming-guide.md, "How kestrel-cc builds a
// module"):
//   a. each .cu to LLVM IR with clang in CUDA device mode, to find its kernels
//      (llvm.global.annotations entries tagged "kestrel.kernel");
//   b. a wrapper .cu per source: the source, then an entry trampoline and a
//      .kestrel.kernels descriptor per kernel (kernel_entry.hpp);
//   c. the wrapper to optimized IR; __shared__ variables moved to
//      .kestrel.shared and __constant__ ones to .kestrel.const (ir_text.hpp);
//   d. IR to a RISC-V object;
//   e. crt + objects + picolibc + libgcc linked by ld.lld into a PIE at base 0
//      with sw_kernels/crt/kestrel.ld, unsized extern __shared__ arrays bound to
//      __kestrel_shared_end (the dynamic shared memory start);
//   f. the kernels' stack need read from the linked code (stack_need.hpp)
//      and the module linked again with it in section .kestrel.stack;
//   g. the module checked (module_check.hpp).
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "module_check.hpp"
#include "options.hpp"
#include "stack_need.hpp"

namespace kestrel::cc {

class Compiler {
 public:
  // `log` receives clang's diagnostics and, with -v, the commands.
  Compiler(Options options, ToolchainPaths paths, std::ostream& log);
  ~Compiler();
  Compiler(const Compiler&) = delete;
  Compiler& operator=(const Compiler&) = delete;

  // Builds options.output.  Throws CompileError on any failure; the output
  // file is then left untouched.
  ModuleSummary run();

  // clang -cc1 arguments shared by steps a and c (target, CUDA device mode,
  // SDK include paths, user -I/-D/-U).
  std::vector<std::string> frontend_arguments() const;
  // Triple, ISA, ABI and code model: shared by the front end and code generation.
  std::vector<std::string> target_arguments() const;

 private:
  struct Unit;
  std::filesystem::path temp(const std::string& name) const;
  void run_tool(const std::vector<std::string>& argv, const std::string& failure);
  void scan_kernels(Unit& unit);
  void build_entries(Unit& unit);
  void compile_object(Unit& unit);
  std::filesystem::path assemble_crt();
  std::filesystem::path assemble_stack_table(const std::vector<StackNeed>& needs);
  // Links the support objects (crt, stack table), the units' objects and the
  // C libraries.
  void link(const std::vector<std::string>& extern_shared, const std::vector<std::filesystem::path>& support,
            const std::filesystem::path& output);
  void write_depfile(const std::vector<std::filesystem::path>& unit_depfiles) const;

  Options options_;
  ToolchainPaths paths_;
  std::ostream& log_;
  std::filesystem::path work_dir_;
  std::vector<Unit> units_;
  unsigned next_entry_index_ = 0;  // __kestrel_entry_<n>, unique across the module
};

// Helpers shared with the whole-program builder (program.cpp).
std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& text);
// The prerequisites listed in a Make-style dependency file written by clang.
std::vector<std::string> read_dependencies(const std::filesystem::path& depfile);
// A path as a Make rule must spell it.
std::string escape_make(const std::string& path);

// Entry point shared by main() and the tests: returns the process exit status.
int run_kestrel_cc(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kestrel::cc
