// Whole-program mode of kestrel-cc (docs/cuda-runtime.md, "Compiling a
// program"): for every .cu file
//   1. the device module, built as in module mode but with the host's C and
//      C++ headers (the device pass parses the host code of the file too),
//      wrapped in a kestrel_fatbin_header (include/kestrel/cuda/fatbin.h);
//   2. the host object: clang in CUDA host mode, which turns <<<>>> into
//      __cudaPushCallConfiguration + a stub calling cudaLaunchKernel and
//      embeds the wrapped module (-fcuda-include-gpubinary) with a
//      constructor that registers it, its kernels and its variables;
// host-only sources (.cpp) compile as plain C++ with the same headers, and
// everything links with libkestrel_cudart.  Each .cu registers its own
// module, so a __device__ symbol is visible only in its own file (no -rdc).
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "options.hpp"

namespace kestrel::cc {

// What the host C++ driver uses: its target triple and its system header
// folders as cc1 arguments (-internal-isystem DIR ...), read from `clang++ -###`.
struct HostHeaders {
  std::string triple;
  std::vector<std::string> include_args;
};

// Parses the cc1 command line that `clang++ -### -x c++ -c file` prints.
// Throws CompileError when the output holds no cc1 command.
HostHeaders parse_host_headers(const std::string& driver_output);

class ProgramBuilder {
 public:
  ProgramBuilder(Options options, ToolchainPaths paths, std::ostream& log);
  ~ProgramBuilder();
  ProgramBuilder(const ProgramBuilder&) = delete;
  ProgramBuilder& operator=(const ProgramBuilder&) = delete;

  // Builds options.output (or the objects with -c).  Throws CompileError.
  void run();

 private:
  std::filesystem::path temp(const std::string& name) const { return work_dir_ / name; }
  void run_tool(const std::vector<std::string>& argv, const std::string& failure);
  HostHeaders query_host_headers();
  // The wrapped device module of `source`, or an empty path when the file has no kernels.
  std::filesystem::path build_device_image(const std::string& source, unsigned index,
                                           const HostHeaders& host);
  // Flags of both host compiles; `cuda_source` adds the force-included
  // cuda_runtime.h that nvcc gives .cu files (not .cpp ones).
  std::vector<std::string> host_compile_arguments(bool cuda_source) const;
  void compile_cuda_host(const std::string& source, const std::filesystem::path& image,
                         const std::filesystem::path& object, const std::filesystem::path& depfile);
  void compile_cxx_host(const std::string& source, const std::filesystem::path& object,
                        const std::filesystem::path& depfile);
  void link(const std::vector<std::filesystem::path>& objects);
  std::filesystem::path object_path(const std::string& source, unsigned index) const;

  Options options_;
  ToolchainPaths paths_;
  std::ostream& log_;
  std::filesystem::path work_dir_;
  std::vector<std::filesystem::path> depfiles_;
};

}  // namespace kestrel::cc
