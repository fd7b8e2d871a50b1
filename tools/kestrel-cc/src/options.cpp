#include "options.hpp"

#include <cstdlib>
#include <filesystem>

#include "compile_error.hpp"

namespace kestrel::cc {

std::string usage_text() {
  return "usage: kestrel-cc [-rv64|-rv32] [-O0|-O1|-O2|-O3|-Os|-Oz] [-g] [-std=c++17] [-x cu]\n"
         "                  [-I dir] [-D name[=value]] [-U name] [-W...] [-w]\n"
         "                  [-o out] [-c] [-L dir] [-l lib] [-MF deps.d] [-v] [--keep-temps]\n"
         "                  file.cu [file2.cu ...] [host.cpp ...] [obj.o lib.a ...]\n"
         "Compiles CUDA C++ into a Kestrel device module (-o file.kmod, the default) or,\n"
         "given host code, into a host program (docs/programming-guide.md, docs/cuda-runtime.md).\n"
         "  -rv64, -rv32   device configuration: RV64IMAF/LP64F (default) or RV32IMAF/ILP32F\n"
         "  -O<level>      optimization level (default -O2), host and device\n"
         "  -g             keep debug information (DWARF in the module)\n"
         "  -lineinfo      keep only the device code's line tables (a fault names file:line)\n"
         "  -o file        output: a module if it ends in .kmod, else a program (or object with -c)\n"
         "  -c             compile each source to a host object with its device module embedded\n"
         "  -L dir, -l lib extra libraries for the program\n"
         "  -Xcompiler a,b / -Xlinker a,b   pass options to the host compiler / linker\n"
         "  -x cu|c++|none the language of the inputs that follow (default: by extension)\n"
         "  -arch, -gencode, -code, --gpu-architecture, -rdc=false, -m64, -ccbin,\n"
         "  -Xptxas, -maxrregcount, -cudart, --extended-lambda, --expt-relaxed-constexpr:\n"
         "                 accepted for nvcc Makefiles, ignored with a note\n"
         "  -MF file       write Make-style dependencies of the output (sources and headers)\n"
         "  -v             print the clang and ld.lld commands\n"
         "  --keep-temps   keep the work directory (generated entry code, IR, objects)\n";
}

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_host_source(const std::string& path) {
  return ends_with(path, ".cpp") || ends_with(path, ".cc") || ends_with(path, ".cxx") ||
         ends_with(path, ".c") || ends_with(path, ".C");
}

bool is_link_input(const std::string& path) {
  return ends_with(path, ".o") || ends_with(path, ".a") || ends_with(path, ".so") ||
         path.find(".so.") != std::string::npos;
}

// Splits "a,b,c" as nvcc's -Xcompiler does.
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  for (const char c : text) {
    if (c == ',') {
      if (!current.empty()) parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) parts.push_back(current);
  return parts;
}

}  // namespace

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  enum class InputLanguage { kByExtension, kCuda, kHost };
  InputLanguage input_language = InputLanguage::kByExtension;  // -x
  // Value of an option given either as "-Xvalue" or as "-X value".
  auto value_of = [&](std::size_t& i, const std::string& flag) {
    const std::string& arg = args[i];
    if (arg.size() > flag.size()) return arg.substr(flag.size());
    if (i + 1 >= args.size()) throw CompileError("option " + flag + " needs an argument");
    return args[++i];
  };
  // nvcc's flags that choose NVIDIA targets: Kestrel has one device, so they
  // are accepted (with a note) and change nothing.
  auto ignore_with_value = [&](std::size_t& i, const std::string& flag,
                               const char* why = "Kestrel compiles for its own RISC-V device") {
    const std::string& arg = args[i];
    std::string value;
    if (arg.size() > flag.size()) {
      value = arg.substr(arg[flag.size()] == '=' ? flag.size() + 1 : flag.size());
    } else {
      if (i + 1 >= args.size()) throw CompileError("option " + flag + " needs an argument");
      value = args[++i];
    }
    options.notes.push_back(flag + " " + value + " is ignored: " + why);
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else if (arg == "--version") {
      options.version = true;
    } else if (arg == "-rv64" || arg == "-rv32") {
      options.xlen = arg == "-rv64" ? 64 : 32;
    } else if (arg.rfind("-O", 0) == 0) {
      const std::string level = arg.substr(2);
      if (level != "0" && level != "1" && level != "2" && level != "3" && level != "s" && level != "z")
        throw CompileError("unknown optimization level '" + arg + "' (use -O0, -O1, -O2, -O3, -Os or -Oz)");
      options.optimization = level;
    } else if (arg == "-g" || arg == "-G") {
      options.debug_info = true;
    } else if (arg.rfind("-std=", 0) == 0 || arg == "-std" || arg == "--std" || arg.rfind("--std=", 0) == 0) {
      std::string standard =
          arg.find('=') != std::string::npos ? arg.substr(arg.find('=') + 1) : value_of(i, arg);
      if (standard == "c++11" || standard == "gnu++11") {
        // C++11 code is C++14 code; the device SDK's headers need C++14.
        options.notes.push_back("-std=" + standard + " compiles as " +
                                standard.substr(0, standard.size() - 2) +
                                "14 (the device headers need C++14)");
        standard = standard.substr(0, standard.size() - 2) + "14";
      }
      if (standard != "c++14" && standard != "c++17" && standard != "c++20" && standard != "gnu++14" &&
          standard != "gnu++17" && standard != "gnu++20")
        throw CompileError("unsupported language standard '" + standard +
                           "' (use c++11, c++14, c++17 or c++20)");
      options.language_standard = standard;
    } else if (arg == "-m64" || arg == "--machine=64") {
      // The host is 64-bit already (nvcc's default too).
    } else if (arg == "-m32" || arg == "--machine=32") {
      throw CompileError("a 32-bit host program is not supported (" + arg + ")");
    } else if (arg == "-x" || arg == "--x" || arg.rfind("--x=", 0) == 0) {
      // nvcc's -x cu: the inputs that follow are CUDA, whatever their
      // extension; -x c++ / -x c: host code; -x none: by extension again.
      const std::string language = arg.rfind("--x=", 0) == 0 ? arg.substr(4) : value_of(i, arg);
      if (language == "cu" || language == "cuda")
        input_language = InputLanguage::kCuda;
      else if (language == "c++" || language == "c")
        input_language = InputLanguage::kHost;
      else if (language == "none")
        input_language = InputLanguage::kByExtension;
      else
        throw CompileError("unsupported input language '-x " + language + "' (use cu, c++, c or none)");
    } else if (arg == "-ccbin" || arg.rfind("--compiler-bindir", 0) == 0) {
      ignore_with_value(i, arg == "-ccbin" ? "-ccbin" : "--compiler-bindir",
                        "the host compiler is clang (KESTREL_CLANGXX)");
    } else if (arg == "-Xptxas" || arg == "--ptxas-options" || arg == "-Xnvlink" ||
               arg == "--nvlink-options" || arg == "-Xcudafe" || arg == "-maxrregcount" ||
               arg == "--maxrregcount" || arg == "-cudart" || arg == "--cudart" || arg == "-t" ||
               arg == "--threads") {
      ignore_with_value(i, arg,
                        "it sets up NVIDIA's assembler, linker or runtime, which Kestrel does not use");
    } else if (arg == "--extended-lambda" || arg == "-extended-lambda" || arg == "--expt-extended-lambda" ||
               arg == "-expt-extended-lambda" || arg == "--expt-relaxed-constexpr" ||
               arg == "-expt-relaxed-constexpr") {
      options.notes.push_back(arg + " is ignored: clang accepts these lambdas and constexpr calls always");
    } else if (arg.rfind("-I", 0) == 0) {
      options.include_dirs.push_back(value_of(i, "-I"));
    } else if (arg.rfind("-D", 0) == 0) {
      options.macro_flags.push_back("-D" + value_of(i, "-D"));
    } else if (arg.rfind("-U", 0) == 0) {
      options.macro_flags.push_back("-U" + value_of(i, "-U"));
    } else if (arg == "-o") {
      options.output = value_of(i, "-o");
    } else if (arg == "-c") {
      options.compile_only = true;
    } else if (arg.rfind("-L", 0) == 0) {
      options.link_inputs.push_back("-L" + value_of(i, "-L"));
    } else if (arg.rfind("-l", 0) == 0 && arg != "-lineinfo") {
      options.link_inputs.push_back("-l" + value_of(i, "-l"));
    } else if (arg == "-Xcompiler" || arg == "--compiler-options") {
      for (const std::string& flag : split_commas(value_of(i, arg))) options.host_flags.push_back(flag);
    } else if (arg == "-Xlinker" || arg == "--linker-options") {
      for (const std::string& flag : split_commas(value_of(i, arg)))
        options.link_inputs.push_back("-Wl," + flag);
    } else if (arg.rfind("-arch", 0) == 0) {
      ignore_with_value(i, "-arch");
    } else if (arg.rfind("--gpu-architecture", 0) == 0) {
      ignore_with_value(i, "--gpu-architecture");
    } else if (arg.rfind("-gencode", 0) == 0) {
      ignore_with_value(i, "-gencode");
    } else if (arg.rfind("-code", 0) == 0) {
      ignore_with_value(i, "-code");
    } else if (arg == "-lineinfo" || arg == "--generate-line-info") {
      // As nvcc: line tables (and function names) for the device code only,
      // from which the runtime names a fault's source line.
      options.line_info = true;
      options.notes.push_back(arg + " keeps the device code's line tables (a fault names its source line)");
    } else if (arg == "-rdc=false" || arg == "--relocatable-device-code=false" || arg == "--use_fast_math" ||
               arg == "-use_fast_math") {
      options.notes.push_back(arg + " is ignored");
    } else if (arg == "-MF") {
      options.depfile = value_of(i, "-MF");
    } else if (arg == "-MD") {
      // Accepted for nvcc/gcc habit; dependencies are written when -MF is given.
    } else if ((arg.rfind("-W", 0) == 0 && arg.size() > 2) || arg == "-w") {
      options.warning_flags.push_back(arg);
    } else if (arg == "-v") {
      options.verbose = true;
    } else if (arg == "--keep-temps") {
      options.keep_temps = true;
    } else if (!arg.empty() && arg[0] == '-') {
      throw CompileError("unknown option '" + arg + "'\n" + usage_text());
    } else if (is_link_input(arg)) {
      options.link_inputs.push_back(arg);
    } else if (input_language == InputLanguage::kCuda) {
      options.sources.push_back(arg);
    } else if (input_language == InputLanguage::kHost || is_host_source(arg)) {
      options.host_sources.push_back(arg);
    } else {
      options.sources.push_back(arg);
    }
  }
  if (options.help || options.version) return options;
  if (options.sources.empty() && options.host_sources.empty() && options.link_inputs.empty())
    throw CompileError("no input files\n" + usage_text());
  options.whole_program = options.compile_only || !options.host_sources.empty() ||
                          !options.link_inputs.empty() ||
                          (!options.output.empty() && !ends_with(options.output, ".kmod"));
  if (!options.whole_program && options.sources.empty())
    throw CompileError("no input files\n" + usage_text());
  if (options.whole_program && options.xlen != 64)
    throw CompileError(
        "a whole program needs the RV64 device (-rv64): host and device share data structures as "
        "they are only when both are LP64 (docs/isa.md section 1)");
  if (options.compile_only && !options.output.empty() &&
      options.sources.size() + options.host_sources.size() > 1)
    throw CompileError("-c with -o takes one source file");
  if (options.output.empty()) {
    const std::string first = options.sources.empty() ? "" : options.sources.front();
    if (!options.whole_program)
      options.output = std::filesystem::path(first).stem().string() + ".kmod";
    else if (!options.compile_only)
      options.output = "a.out";
  }
  return options;
}

namespace {
std::string from_environment(const char* name, const char* built_in) {
  const char* value = std::getenv(name);
  return value && *value ? value : built_in;
}
}  // namespace

ToolchainPaths ToolchainPaths::from_build_and_environment() {
  // An installed kestrel-cc finds the SDK, start-up code, headers and
  // runtime library beside itself, so an install prefix can be moved.
  std::string sdk = KESTREL_CC_SDK_DIR, crt = KESTREL_CC_CRT_DIR, include = KESTREL_CC_INCLUDE_DIR;
  std::string cudart = KESTREL_CC_CUDART_DIR;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path prefix = self.parent_path().parent_path();
    if (std::filesystem::exists(prefix / "share/kestrel/sdk/kestrel_entry.h", error)) {
      sdk = (prefix / "share/kestrel/sdk").string();
      crt = (prefix / "share/kestrel/crt").string();
      include = (prefix / "include").string();
      cudart = (prefix / KESTREL_CC_INSTALL_LIBDIR).string();
    }
  }
  ToolchainPaths paths;
  paths.clang = from_environment("KESTREL_CLANG", KESTREL_CC_CLANG);
  paths.lld = from_environment("KESTREL_LLD", KESTREL_CC_LLD);
  paths.resource_dir = from_environment("KESTREL_CLANG_RESOURCE_DIR", KESTREL_CC_CLANG_RESOURCE_DIR);
  paths.sdk_dir = from_environment("KESTREL_SDK_DIR", sdk.c_str());
  paths.crt_dir = from_environment("KESTREL_CRT_DIR", crt.c_str());
  paths.project_include = from_environment("KESTREL_INCLUDE_DIR", include.c_str());
  paths.picolibc_dir = from_environment("KESTREL_PICOLIBC_DIR", KESTREL_CC_PICOLIBC_DIR);
  paths.libgcc_dir = from_environment("KESTREL_LIBGCC_DIR", KESTREL_CC_LIBGCC_DIR);
  paths.clangxx = from_environment("KESTREL_CLANGXX", KESTREL_CC_CLANGXX);
  paths.cxxfilt = from_environment("KESTREL_CXXFILT", KESTREL_CC_CXXFILT);
  paths.cudart_dir = from_environment("KESTREL_CUDART_DIR", cudart.c_str());
  return paths;
}

std::string ToolchainPaths::multilib(unsigned xlen) {
  return xlen == 64 ? "rv64imf/lp64f" : "rv32imf/ilp32f";
}

}  // namespace kestrel::cc
