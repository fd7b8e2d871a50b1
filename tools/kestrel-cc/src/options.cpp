#include "options.hpp"

#include <cstdlib>
#include <filesystem>

#include "compile_error.hpp"

namespace kestrel::cc {

std::string usage_text() {
  return "usage: kestrel-cc [-rv64|-rv32] [-O0|-O1|-O2|-O3|-Os|-Oz] [-g] [-std=c++17]\n"
         "                  [-I dir] [-D name[=value]] [-U name] [-W...] [-w]\n"
         "                  [-o out.kmod] [-MF deps.d] [-v] [--keep-temps] file.cu [file2.cu ...]\n"
         "Compiles CUDA C++ device code into a Kestrel device module (docs/programming-guide.md).\n"
         "  -rv64, -rv32   device configuration: RV64IMAF/LP64F (default) or RV32IMAF/ILP32F\n"
         "  -O<level>      optimization level (default -O2)\n"
         "  -g             keep DWARF debug information in the module\n"
         "  -o file        output module (default: <first source name>.kmod)\n"
         "  -MF file       write Make-style dependencies of the output (sources and headers)\n"
         "  -v             print the clang and ld.lld commands\n"
         "  --keep-temps   keep the work directory (generated entry code, IR, objects)\n";
}

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  // Value of an option given either as "-Xvalue" or as "-X value".
  auto value_of = [&](std::size_t& i, const std::string& flag) {
    const std::string& arg = args[i];
    if (arg.size() > flag.size()) return arg.substr(flag.size());
    if (i + 1 >= args.size()) throw CompileError("option " + flag + " needs an argument");
    return args[++i];
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
    } else if (arg == "-g") {
      options.debug_info = true;
    } else if (arg.rfind("-std=", 0) == 0) {
      const std::string standard = arg.substr(5);
      if (standard != "c++14" && standard != "c++17" && standard != "c++20" && standard != "gnu++14" &&
          standard != "gnu++17" && standard != "gnu++20")
        throw CompileError("unsupported language standard '" + standard + "' (use c++14, c++17 or c++20)");
      options.language_standard = standard;
    } else if (arg.rfind("-I", 0) == 0) {
      options.include_dirs.push_back(value_of(i, "-I"));
    } else if (arg.rfind("-D", 0) == 0) {
      options.macro_flags.push_back("-D" + value_of(i, "-D"));
    } else if (arg.rfind("-U", 0) == 0) {
      options.macro_flags.push_back("-U" + value_of(i, "-U"));
    } else if (arg == "-o") {
      options.output = value_of(i, "-o");
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
    } else {
      options.sources.push_back(arg);
    }
  }
  if (options.help || options.version) return options;
  if (options.sources.empty()) throw CompileError("no input files\n" + usage_text());
  if (options.output.empty())
    options.output = std::filesystem::path(options.sources.front()).stem().string() + ".kmod";
  return options;
}

namespace {
std::string from_environment(const char* name, const char* built_in) {
  const char* value = std::getenv(name);
  return value && *value ? value : built_in;
}
}  // namespace

ToolchainPaths ToolchainPaths::from_build_and_environment() {
  ToolchainPaths paths;
  paths.clang = from_environment("KESTREL_CLANG", KESTREL_CC_CLANG);
  paths.lld = from_environment("KESTREL_LLD", KESTREL_CC_LLD);
  paths.resource_dir = from_environment("KESTREL_CLANG_RESOURCE_DIR", KESTREL_CC_CLANG_RESOURCE_DIR);
  paths.sdk_dir = from_environment("KESTREL_SDK_DIR", KESTREL_CC_SDK_DIR);
  paths.crt_dir = from_environment("KESTREL_CRT_DIR", KESTREL_CC_CRT_DIR);
  paths.project_include = from_environment("KESTREL_INCLUDE_DIR", KESTREL_CC_INCLUDE_DIR);
  paths.picolibc_dir = from_environment("KESTREL_PICOLIBC_DIR", KESTREL_CC_PICOLIBC_DIR);
  paths.libgcc_dir = from_environment("KESTREL_LIBGCC_DIR", KESTREL_CC_LIBGCC_DIR);
  return paths;
}

std::string ToolchainPaths::multilib(unsigned xlen) {
  return xlen == 64 ? "rv64imf/lp64f" : "rv32imf/ilp32f";
}

}  // namespace kestrel::cc
