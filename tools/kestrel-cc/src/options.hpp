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
  bool line_info = false;                   // -lineinfo: the device's line tables only
  std::string language_standard = "c++17";  // -std=
  std::vector<std::string> include_dirs;    // -I
  std::vector<std::string> macro_flags;     // -DX / -UX in command-line order, as "-DX"
  std::vector<std::string> warning_flags;   // -W..., -w, passed to clang
  std::vector<std::string> sources;         // .cu files
  std::string output;                       // -o; defaults to <first source stem>.kmod (.o with -c)
  // Whole-program mode (docs/cuda-runtime.md): chosen by -c, by an output
  // that is not a .kmod, or by host inputs.  Each .cu becomes a host object
  // with its device module embedded; the objects link into an executable.
  bool whole_program = false;
  bool compile_only = false;              // -c: stop at host objects
  std::vector<std::string> host_sources;  // .cpp/.cc/.cxx/.c: host-only C++
  std::vector<std::string> link_inputs;   // .o/.a/.so, -l, -L, in command-line order
  std::vector<std::string> host_flags;    // -Xcompiler/-Xlinker passthrough
  std::vector<std::string> notes;         // ignored nvcc flags, reported once
  // Set by kestrel-cc itself for the device pass of a whole program: the
  // host's C/C++ library headers instead of picolibc's (cc1 -internal-*isystem
  // pairs, as clang's host driver uses them), and no error for a .cu without
  // kernels.
  std::vector<std::string> host_header_args;
  bool allow_no_kernels = false;
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
  std::string clangxx;          // KESTREL_CLANGXX: the host C++ compiler driver (clang++)
  std::string cxxfilt;          // KESTREL_CXXFILT: llvm-cxxfilt, for names libstdc++ cannot demangle
  std::string cudart_dir;       // KESTREL_CUDART_DIR: folder of libkestrel_cudart.so
  // include/kestrel/cuda: CUDA's host API headers (cuda_runtime.h, ...),
  // shared by the host and device compilations of a CUDA program.
  std::string cuda_include() const { return project_include + "/kestrel/cuda"; }

  // Built-in paths, or the installed layout when kestrel-cc runs from an
  // install prefix (<prefix>/bin/kestrel-cc beside <prefix>/share/kestrel),
  // then the environment.
  static ToolchainPaths from_build_and_environment();
  // The multilib folder for xlen: "rv64imf/lp64f" or "rv32imf/ilp32f".
  static std::string multilib(unsigned xlen);
};

}  // namespace kestrel::cc
