// kestrel-cc's command line (an nvcc-like subset) and where the toolchain's
// pieces live.
#pragma once

#include <string>
#include <vector>

namespace kestrel::cc {

struct Options {
  unsigned xlen = 64;                       // -rv64 (default) or -rv32
  std::string optimization = "2";           // -O0..-O3, -Os, -Oz: the level after "-O"
  bool debug_info = false;                  // -g
  std::string language_standard = "c++17";  // -std=
  std::vector<std::string> include_dirs;    // -I
  std::vector<std::string> macro_flags;     // -DX / -UX in command-line order, as "-DX"
  std::vector<std::string> warning_flags;   // -W..., -w, passed to clang
  std::vector<std::string> sources;
  std::string output;              // -o; defaults to <first source stem>.kmod
  std::string depfile;             // -MF: Make-style dependencies of the output
  bool verbose = false;            // -v: print every command
  bool keep_temps = false;         // --keep-temps: keep (and print) the work directory
  bool color_diagnostics = false;  // set when stderr is a terminal
  bool help = false;
  bool version = false;
};

// Throws CompileError for an unknown option, a missing argument or no source.
Options parse_options(const std::vector<std::string>& args);

std::string usage_text();

// Absolute paths of the tools and files kestrel-cc drives.  The defaults are
// compiled in by CMake (found at configure time); each can be overridden by an
// environment variable of the same name, e.g. KESTREL_CLANG=/usr/bin/clang-15.
struct ToolchainPaths {
  std::string clang;            // KESTREL_CLANG
  std::string lld;              // KESTREL_LLD (ld.lld)
  std::string resource_dir;     // KESTREL_CLANG_RESOURCE_DIR (clang's own headers)
  std::string sdk_dir;          // KESTREL_SDK_DIR: sw_kernels/sdk (include/, kestrel_entry.h)
  std::string crt_dir;          // KESTREL_CRT_DIR: sw_kernels/crt (crt.S, kestrel.ld)
  std::string project_include;  // KESTREL_INCLUDE_DIR: include/ (kestrel/abi.h, module_format.h)
  std::string picolibc_dir;     // KESTREL_PICOLIBC_DIR: .../picolibc/riscv64-unknown-elf
  std::string libgcc_dir;       // KESTREL_LIBGCC_DIR: .../gcc/riscv64-unknown-elf/<version>

  static ToolchainPaths from_build_and_environment();
  // The multilib folder for xlen: "rv64imf/lp64f" or "rv32imf/ilp32f".
  static std::string multilib(unsigned xlen);
};

}  // namespace kestrel::cc
