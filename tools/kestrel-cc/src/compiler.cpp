#include "compiler.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "compile_error.hpp"
#include "ir_text.hpp"
#include "kernel_entry.hpp"
#include "kestrel/module_format.h"
#include "process.hpp"
#include "program.hpp"
#include "stack_need.hpp"

namespace kestrel::cc {

namespace fs = std::filesystem;

namespace {
constexpr uint64_t kMaxParamBytes = 4096;
}  // namespace

struct Compiler::Unit {
  std::string source;  // as the user wrote it, so diagnostics show that path
  fs::path absolute_source;
  unsigned index = 0;
  std::vector<std::string> kernels;  // symbols this unit generates entries for
  fs::path object;
  fs::path depfile;
  std::set<std::string> defined_symbols;
  std::vector<std::string> extern_shared;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw CompileError("cannot write " + path.string());
}

std::vector<std::string> read_dependencies(const fs::path& depfile) {
  const std::string text = read_file(depfile);
  std::vector<std::string> deps;
  std::string current;
  bool after_target = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == ' ')) {
      if (text[i + 1] == ' ') current += ' ';
      ++i;
      continue;
    }
    if (!after_target) {
      if (c == ':' && i + 1 < text.size() && std::isspace(static_cast<unsigned char>(text[i + 1])))
        after_target = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!current.empty()) deps.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) deps.push_back(current);
  return deps;
}

std::string escape_make(const std::string& path) {
  std::string out;
  for (const char c : path) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

Compiler::Compiler(Options options, ToolchainPaths paths, std::ostream& log)
    : options_(std::move(options)), paths_(std::move(paths)), log_(log) {}

Compiler::~Compiler() {
  if (work_dir_.empty()) return;
  if (options_.keep_temps) {
    log_ << "kestrel-cc: kept work directory " << work_dir_.string() << "\n";
    return;
  }
  std::error_code ignored;
  fs::remove_all(work_dir_, ignored);
}

fs::path Compiler::temp(const std::string& name) const { return work_dir_ / name; }

void Compiler::run_tool(const std::vector<std::string>& argv, const std::string& failure) {
  if (options_.verbose) log_ << format_command(argv) << "\n";
  const ProcessResult result = run_process(argv);
  log_ << result.output;
  if (result.exit_code != 0) throw CompileError(failure);
}

std::vector<std::string> Compiler::target_arguments() const {
  const bool rv64 = options_.xlen == 64;
  std::vector<std::string> args = {"-triple", rv64 ? "riscv64-unknown-elf" : "riscv32-unknown-elf",
                                   // The CPU LLVM assumes when none is named (the same code); named,
                                   // clang's diagnostics end "generated when compiling for
                                   // generic-rv64." instead of "... for .".
                                   "-target-cpu", rv64 ? "generic-rv64" : "generic-rv32",
                                   // RV64IMAF / RV32IMAF without C (docs/isa.md section 1); lld 14 cannot
                                   // relax, so relaxable code must not be emitted.
                                   "-target-feature", "+m", "-target-feature", "+a", "-target-feature", "+f",
                                   "-target-feature", "-c", "-target-feature", "-relax", "-target-feature",
                                   "-save-restore"};
  if (rv64) args.insert(args.end(), {"-target-feature", "+64bit"});
  // Code model medany: every access to the module's own code and data is
  // PC-relative, so it needs no fix-up wherever the module loads.
  args.insert(args.end(), {"-target-abi", rv64 ? "lp64f" : "ilp32f", "-mcmodel=medium"});
  if (rv64) {
    // RV64 modules are PIEs whose only fix-ups are R_RISCV_RELATIVE (non-PIC
    // objects would make lld give function addresses in data canonical PLT
    // entries).
    args.insert(args.end(), {"-mrelocation-model", "pic", "-pic-level", "2", "-pic-is-pie"});
  } else {
    // RV32 modules are static executables whose kept relocations the loader
    // applies (link()).  PIC code would reach symbols of other files through
    // a GOT, whose link-time addresses no relocation describes.
    args.insert(args.end(), {"-mrelocation-model", "static"});
  }
  args.insert(args.end(), {"-msmall-data-limit", "0", "-mframe-pointer=none"});
  return args;
}

std::vector<std::string> Compiler::frontend_arguments() const {
  std::vector<std::string> args = {paths_.clang, "-cc1"};
  const std::vector<std::string> target = target_arguments();
  args.insert(args.end(), target.begin(), target.end());
  args.insert(args.end(),
              {"-fcuda-is-device", "-x", "cuda", "-std=" + options_.language_standard,
               // __declspec(property) makes threadIdx.x a real unsigned int expression.
               "-fdeclspec", "-fgnuc-version=4.2.1", "-fno-rtti", "-fno-threadsafe-statics",
               // CUDA's default: a*b+c may become one fused multiply-add.
               "-ffp-contract=fast", "-nostdsysteminc", "-resource-dir", paths_.resource_dir,
               // The SDK's headers (assert.h among them) shadow the C library's;
               // CUDA's host API headers (cuda_runtime.h, ...) are the project's.
               "-internal-isystem", paths_.sdk_dir + "/include", "-internal-isystem", paths_.cuda_include()});
  if (options_.host_header_args.empty()) {
    args.insert(args.end(), {"-internal-isystem", paths_.resource_dir + "/include", "-internal-isystem",
                             paths_.picolibc_dir + "/include", "-internal-isystem", paths_.project_include,
                             "-include", "kestrel_cuda.h"});
  } else {
    // The device pass of a whole program parses the host code too, so it
    // sees the host's headers, as clang's own CUDA compilation does; the
    // launch syntax needs CUDA's current (9.2+) configuration calls.
    args.insert(args.end(), {"-internal-isystem", paths_.project_include});
    args.insert(args.end(), options_.host_header_args.begin(), options_.host_header_args.end());
    args.insert(args.end(), {"-target-sdk-version=11.5", "-fcxx-exceptions", "-fexceptions",
                             "-D__KESTREL_WHOLE_PROGRAM__=1", "-include", "cuda_runtime.h"});
  }
  if (options_.color_diagnostics) args.push_back("-fcolor-diagnostics");
  if (options_.debug_info) {
    args.insert(args.end(), {"-debug-info-kind=constructor", "-dwarf-version=5", "-debugger-tuning=gdb"});
  } else if (options_.line_info) {
    args.insert(args.end(), {"-debug-info-kind=line-tables-only", "-dwarf-version=5"});
  }
  for (const std::string& dir : options_.include_dirs) args.insert(args.end(), {"-I", dir});
  for (const std::string& flag : options_.macro_flags) args.push_back(flag);
  return args;
}

void Compiler::scan_kernels(Unit& unit) {
  const fs::path ir = temp(std::to_string(unit.index) + ".scan.ll");
  std::vector<std::string> args = frontend_arguments();
  args.insert(args.end(), options_.warning_flags.begin(), options_.warning_flags.end());
  args.insert(args.end(), {"-emit-llvm", "-O0", "-disable-llvm-passes", "-o", ir.string()});
  if (!options_.depfile.empty()) {
    unit.depfile = temp(std::to_string(unit.index) + ".d");
    // -sys-header-deps: the SDK and C library are system headers to clang,
    // and an SDK edit must rebuild the module too.
    args.insert(args.end(),
                {"-dependency-file", unit.depfile.string(), "-MT", options_.output, "-sys-header-deps"});
  }
  args.push_back(unit.source);
  run_tool(args, "compilation of " + unit.source + " failed");
  unit.kernels = parse_ir(read_file(ir)).annotated("kestrel.kernel");
}

// The parameter count and buffer size the wrapper's descriptor for kernel
// `index` holds (kestrel_kernel_desc::num_params and param_bytes, its second
// and third fields), as clang computed them from the kernel's real types.
struct DescriptorSize {
  uint64_t num_params = 0;
  uint64_t param_bytes = 0;
};
DescriptorSize descriptor_size(const IrModule& module, unsigned index) {
  const std::string name = "__kestrel_desc_" + std::to_string(index);
  const IrGlobal* desc = module.find_global("_ZL" + std::to_string(name.size()) + name);
  const std::size_t open = desc ? desc->initializer.find('{') : std::string::npos;
  if (open == std::string::npos) throw CompileError("kestrel-cc found no descriptor " + name + " in its IR");
  std::istringstream fields(desc->initializer.substr(open + 1));
  uint64_t values[3] = {};
  for (uint64_t& value : values) {
    std::string field;
    std::getline(fields, field, ',');
    try {
      value = std::stoull(field.substr(field.find_last_of(' ') + 1));
    } catch (const std::exception&) {
      throw CompileError("kestrel-cc cannot read descriptor " + name + " field '" + field + "'");
    }
  }
  return DescriptorSize{values[1], values[2]};
}

void Compiler::build_entries(Unit& unit) {
  const Demangler llvm_demangler = [this](const std::string& symbol) -> std::string {
    if (paths_.cxxfilt.empty()) return "";
    const ProcessResult result = run_process({paths_.cxxfilt, symbol});
    std::string text = result.output;
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    // llvm-cxxfilt echoes a name it cannot demangle.
    return result.exit_code == 0 && text != symbol ? text : "";
  };
  std::vector<EntryKernel> kernels;
  for (const std::string& symbol : unit.kernels) {
    EntryKernel kernel;
    kernel.signature = describe_kernel(symbol, llvm_demangler);
    kernel.index = next_entry_index_++;
    kernels.push_back(kernel);
  }
  const fs::path wrapper = temp(std::to_string(unit.index) + ".entry.cu");
  write_file(wrapper, generate_entry_source(unit.absolute_source.string(),
                                            paths_.sdk_dir + "/kestrel_entry.h", kernels));
  const fs::path ir = temp(std::to_string(unit.index) + ".ll");
  std::vector<std::string> args = frontend_arguments();
  // The user's warnings were reported by step a; the wrapper adds none of its own.
  args.insert(args.end(),
              {"-w", "-emit-llvm", "-O" + options_.optimization, "-o", ir.string(), wrapper.string()});
  run_tool(args, "cannot generate the kernel entries of " + unit.source +
                     " (see the diagnostics above; kestrel-cc spells each kernel's parameter types from its "
                     "mangled name, so they must be nameable at file scope)");
  IrModule module = parse_ir(read_file(ir));
  // CUDA's limit (guide E.2.9.3, "__global__ function parameters ... are
  // limited to 4 KB"); the runtime's buffer is one 4 KiB page.
  for (const EntryKernel& kernel : kernels) {
    const DescriptorSize size = descriptor_size(module, kernel.index);
    if (size.param_bytes > kMaxParamBytes) {
      throw CompileError(unit.source + ": kernel '" + function_name(kernel.signature.demangled) +
                         "': parameter list too large: " + std::to_string(size.num_params) +
                         " parameters of " + std::to_string(size.param_bytes) +
                         " bytes; CUDA allows at most " + std::to_string(kMaxParamBytes) +
                         " bytes of __global__ function parameters (programming guide E.2.9.3). "
                         "Pass large data through a pointer to global or __constant__ memory instead");
    }
  }
  if (module.find_global("llvm.global_ctors"))
    throw CompileError(unit.source +
                       " needs dynamic initialization of a global object, which Kestrel device "
                       "code does not support");
  place_device_sections(module);
  write_file(temp(std::to_string(unit.index) + ".placed.ll"), module.text());
  unit.defined_symbols = module.defined_symbols();
  unit.extern_shared = extern_shared_candidates(module);
}

void Compiler::compile_object(Unit& unit) {
  unit.object = temp(std::to_string(unit.index) + ".o");
  std::vector<std::string> args = {paths_.clang, "-cc1"};
  const std::vector<std::string> target = target_arguments();
  args.insert(args.end(), target.begin(), target.end());
  args.insert(args.end(), {"-emit-obj", "-x", "ir",
                           // Step c already optimized; only code generation remains.
                           "-O" + options_.optimization, "-disable-llvm-passes",
                           // Every function's frame size, for the kernels' stack need (stack_need.hpp).
                           "-fstack-size-section", "-o", unit.object.string(),
                           temp(std::to_string(unit.index) + ".placed.ll").string()});
  if (options_.debug_info || options_.line_info) args.insert(args.end(), {"-dwarf-version=5"});
  run_tool(args, "code generation for " + unit.source + " failed");
}

fs::path Compiler::assemble_crt() {
  const fs::path object = temp("crt.o");
  const bool rv64 = options_.xlen == 64;
  run_tool(
      {paths_.clang, rv64 ? "--target=riscv64-unknown-elf" : "--target=riscv32-unknown-elf",
       rv64 ? "-march=rv64imaf" : "-march=rv32imaf", rv64 ? "-mabi=lp64f" : "-mabi=ilp32f", "-mno-relax",
       "-nostdinc", "-I", paths_.project_include, "-c", paths_.crt_dir + "/crt.S", "-o", object.string()},
      "assembling " + paths_.crt_dir + "/crt.S failed");
  return object;
}

fs::path Compiler::assemble_stack_table(const std::vector<StackNeed>& needs) {
  std::ostringstream source;
  source << "\t.section " << KESTREL_STACK_SECTION << ",\"\",@progbits\n\t.p2align 2\n";
  for (const StackNeed& need : needs) source << "\t.4byte " << need.bytes << ", " << need.flags << "\n";
  const fs::path assembly = temp("stack.s");
  write_file(assembly, source.str());
  const fs::path object = temp("stack.o");
  const bool rv64 = options_.xlen == 64;
  run_tool({paths_.clang, rv64 ? "--target=riscv64-unknown-elf" : "--target=riscv32-unknown-elf",
            rv64 ? "-march=rv64imaf" : "-march=rv32imaf", rv64 ? "-mabi=lp64f" : "-mabi=ilp32f", "-mno-relax",
            "-c", assembly.string(), "-o", object.string()},
           "assembling the kernels' stack table failed");
  return object;
}

void Compiler::link(const std::vector<std::string>& extern_shared, const std::vector<fs::path>& support,
                    const fs::path& output) {
  const std::string multilib = ToolchainPaths::multilib(options_.xlen);
  std::vector<std::string> args = {paths_.lld};
  if (options_.xlen == 64) {
    // A position-independent executable whose only relocations are
    // R_RISCV_RELATIVE (docs/isa.md section 5).
    args.insert(args.end(), {"-pie", "--no-dynamic-linker", "-z", "norelro", "--apply-dynamic-relocs",
                             "--hash-style=sysv"});
  } else {
    // Debian's RV32 picolibc is built with absolute (lui/addi) addressing,
    // which no PIE can hold: link a static executable at base 0 and keep the
    // link-time relocations, from which the loader moves it (R_RISCV_HI20
    // and R_RISCV_32 against the module's own symbols gain the base).
    args.push_back("--emit-relocs");
  }
  args.insert(args.end(),
              {"-z", "max-page-size=4096", "-z", "common-page-size=4096", "--build-id=none", "--no-undefined",
               "--error-limit=0", "-T", paths_.crt_dir + "/kestrel.ld", "-o", output.string()});
  if (!options_.debug_info && !options_.line_info) args.push_back("--strip-debug");
  // CUDA gives every extern __shared__ array the address of the first
  // dynamic shared byte (guide B.2.3), which the linker script names.
  for (const std::string& name : extern_shared) args.push_back("--defsym=" + name + "=__kestrel_shared_end");
  for (const fs::path& object : support) args.push_back(object.string());
  for (const Unit& unit : units_) args.push_back(unit.object.string());
  args.insert(args.end(), {"--start-group", paths_.picolibc_dir + "/lib/" + multilib + "/libc.a",
                           paths_.libgcc_dir + "/" + multilib + "/libgcc.a", "--end-group"});
  if (options_.verbose) log_ << format_command(args) << "\n";
  const ProcessResult result = run_process(args);
  if (result.exit_code == 0) {
    log_ << result.output;
    return;
  }
  if (result.output.find("STT_TLS") != std::string::npos ||
      result.output.find("TLS section") != std::string::npos) {
    if (options_.verbose) log_ << result.output;
    throw CompileError(
        "the module needs thread-local storage (the C library's errno, set by functions such as "
        "strtol), which Kestrel device code does not have (docs/programming-guide.md, Limitations)");
  }
  if (result.output.find("undefined symbol: __heap_start") != std::string::npos) {
    if (options_.verbose) log_ << result.output;
    throw CompileError(
        "the module calls a C library allocation function other than malloc, free, calloc and realloc, "
        "which the device heap provides (guide B.18, docs/programming-guide.md); the C library's own "
        "allocator has no heap on Kestrel");
  }
  log_ << result.output;
  throw CompileError("linking " + options_.output + " failed");
}

void Compiler::write_depfile(const std::vector<fs::path>& unit_depfiles) const {
  std::set<std::string> deps;
  for (const fs::path& depfile : unit_depfiles)
    for (const std::string& dep : read_dependencies(depfile)) deps.insert(dep);
  deps.insert(paths_.sdk_dir + "/kestrel_entry.h");
  deps.insert(paths_.project_include + "/kestrel/module_format.h");
  deps.insert(paths_.crt_dir + "/crt.S");
  deps.insert(paths_.crt_dir + "/kestrel.ld");
  std::string text = escape_make(options_.output) + ":";
  for (const std::string& dep : deps) text += " \\\n  " + escape_make(dep);
  write_file(options_.depfile, text + "\n");
}

ModuleSummary Compiler::run() {
  for (const std::string& source : options_.sources) {
    std::error_code error;
    if (!fs::is_regular_file(source, error)) throw CompileError("no such source file: " + source);
  }
  std::string pattern = (fs::temp_directory_path() / "kestrel-cc.XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw CompileError("cannot create a work directory in " + pattern);
  work_dir_ = pattern;

  std::set<std::string> kernel_symbols;
  for (std::size_t i = 0; i < options_.sources.size(); ++i) {
    Unit unit;
    unit.source = options_.sources[i];
    unit.absolute_source = fs::absolute(unit.source);
    unit.index = static_cast<unsigned>(i);
    scan_kernels(unit);
    // A template kernel instantiated in two sources gets one entry.
    std::vector<std::string> own;
    for (const std::string& symbol : unit.kernels)
      if (kernel_symbols.insert(symbol).second) own.push_back(symbol);
    unit.kernels = own;
    units_.push_back(std::move(unit));
  }
  if (kernel_symbols.empty() && options_.allow_no_kernels) return ModuleSummary{};
  if (kernel_symbols.empty()) {
    std::string names;
    for (const std::string& source : options_.sources) names += (names.empty() ? "" : ", ") + source;
    throw CompileError("no kernels found in " + names + ": a module needs at least one __global__ function");
  }
  std::set<std::string> defined;
  std::set<std::string> extern_shared;
  for (Unit& unit : units_) {
    build_entries(unit);
    compile_object(unit);
    defined.insert(unit.defined_symbols.begin(), unit.defined_symbols.end());
    extern_shared.insert(unit.extern_shared.begin(), unit.extern_shared.end());
  }
  std::vector<std::string> unresolved_shared;
  for (const std::string& name : extern_shared)
    if (!defined.count(name)) unresolved_shared.push_back(name);

  // The frames are known once the code is linked; the second link adds their
  // figures in a section of their own, which moves no loaded byte.
  const fs::path crt = assemble_crt();
  const fs::path measured = temp("measured.kmod");
  link(unresolved_shared, {crt}, measured);
  std::vector<uint64_t> entries;
  for (const ModuleKernel& kernel : check_module(measured.string(), options_.xlen).kernels)
    entries.push_back(kernel.entry);
  const std::vector<StackNeed> needs = kernel_stack_needs(measured.string(), entries);
  const fs::path linked = temp("module.kmod");
  link(unresolved_shared, {crt, assemble_stack_table(needs)}, linked);
  ModuleSummary summary = check_module(linked.string(), options_.xlen);
  for (std::size_t i = 0; i < std::max(summary.kernels.size(), entries.size()); ++i) {
    if (i >= entries.size() || i >= summary.kernels.size() || summary.kernels[i].entry != entries[i] ||
        summary.kernels[i].stack_bytes != needs[i].bytes)
      throw CompileError("the second link of " + options_.output + " moved its kernels");
  }
  std::error_code error;
  fs::copy_file(linked, options_.output, fs::copy_options::overwrite_existing, error);
  if (error) throw CompileError("cannot write " + options_.output + ": " + error.message());
  if (!options_.depfile.empty()) {
    std::vector<fs::path> depfiles;
    for (const Unit& unit : units_) depfiles.push_back(unit.depfile);
    write_depfile(depfiles);
  }
  return summary;
}

int run_kestrel_cc(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    Options options = parse_options(args);
    for (const std::string& note : options.notes) err << "kestrel-cc: note: " << note << "\n";
    if (options.help) {
      out << usage_text();
      return 0;
    }
    if (options.version) {
      out << "kestrel-cc " KESTREL_CC_VERSION " (clang " << KESTREL_CC_CLANG << ")\n";
      return 0;
    }
    options.color_diagnostics = &err == &std::cerr && isatty(STDERR_FILENO);
    if (options.whole_program) {
      ProgramBuilder program(std::move(options), ToolchainPaths::from_build_and_environment(), err);
      program.run();
      return 0;
    }
    const bool verbose = options.verbose;
    Compiler compiler(std::move(options), ToolchainPaths::from_build_and_environment(), err);
    const ModuleSummary summary = compiler.run();
    if (verbose) {
      for (const ModuleKernel& kernel : summary.kernels)
        err << "kestrel-cc: kernel " << kernel.name << ": " << kernel.num_params << " parameters, "
            << kernel.param_bytes << " bytes, " << kernel.stack_bytes << " stack bytes"
            << (kernel.stack_flags & KESTREL_STACK_RECURSION ? " (recursion counted once)" : "")
            << (kernel.stack_flags & KESTREL_STACK_INDIRECT ? " (indirect calls not counted)" : "")
            << (kernel.stack_flags & KESTREL_STACK_DYNAMIC ? " (run-time sized frames not counted)" : "")
            << "\n";
    }
    return 0;
  } catch (const CompileError& error) {
    err << "kestrel-cc: error: " << error.what() << "\n";
    return 1;
  } catch (const std::exception& error) {
    err << "kestrel-cc: internal error: " << error.what() << "\n";
    return 2;
  }
}

}  // namespace kestrel::cc
