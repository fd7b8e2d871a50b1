#include "program.hpp"

#include <stdlib.h>

#include <cstring>
#include <set>

#include "compile_error.hpp"
#include "compiler.hpp"
#include "kestrel/cuda/fatbin.h"
#include "process.hpp"

namespace kestrel::cc {

namespace fs = std::filesystem;

namespace {

// The arguments of one command line as `clang -###` prints it: each one in
// double quotes, with \" and \\ escaped.
std::vector<std::string> split_quoted(const std::string& line) {
  std::vector<std::string> args;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '"') continue;
    std::string arg;
    for (++i; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) ++i;
      arg += line[i];
    }
    args.push_back(arg);
  }
  return args;
}

}  // namespace

HostHeaders parse_host_headers(const std::string& driver_output) {
  std::size_t start = 0;
  while (start < driver_output.size()) {
    std::size_t end = driver_output.find('\n', start);
    if (end == std::string::npos) end = driver_output.size();
    const std::vector<std::string> args = split_quoted(driver_output.substr(start, end - start));
    start = end + 1;
    if (args.size() < 2 || args[1] != "-cc1") continue;
    HostHeaders host;
    std::set<std::string> seen;
    for (std::size_t i = 2; i + 1 < args.size(); ++i) {
      if (args[i] == "-triple") host.triple = args[i + 1];
      const bool include = args[i] == "-internal-isystem" || args[i] == "-internal-externc-isystem";
      // clang's CUDA wrapper headers expect NVIDIA's CUDA headers behind them.
      if (!include || args[i + 1].find("cuda_wrappers") != std::string::npos) continue;
      if (seen.insert(args[i] + args[i + 1]).second)
        host.include_args.insert(host.include_args.end(), {args[i], args[i + 1]});
    }
    if (host.triple.empty()) break;
    return host;
  }
  throw CompileError("cannot tell the host compiler's target and header folders from its -### output:\n" +
                     driver_output);
}

ProgramBuilder::ProgramBuilder(Options options, ToolchainPaths paths, std::ostream& log)
    : options_(std::move(options)), paths_(std::move(paths)), log_(log) {}

ProgramBuilder::~ProgramBuilder() {
  if (work_dir_.empty()) return;
  if (options_.keep_temps) {
    log_ << "kestrel-cc: kept work directory " << work_dir_.string() << "\n";
    return;
  }
  std::error_code ignored;
  fs::remove_all(work_dir_, ignored);
}

void ProgramBuilder::run_tool(const std::vector<std::string>& argv, const std::string& failure) {
  if (options_.verbose) log_ << format_command(argv) << "\n";
  const ProcessResult result = run_process(argv);
  log_ << result.output;
  if (result.exit_code != 0) throw CompileError(failure);
}

HostHeaders ProgramBuilder::query_host_headers() {
  const fs::path probe = temp("probe.cpp");
  write_file(probe, "");
  const std::vector<std::string> argv = {paths_.clangxx, "-###",         "-x", "c++",
                                         "-c",           probe.string(), "-o", temp("probe.o").string()};
  if (options_.verbose) log_ << format_command(argv) << "\n";
  const ProcessResult result = run_process(argv);
  if (result.exit_code != 0) {
    log_ << result.output;
    throw CompileError("the host compiler " + paths_.clangxx + " does not run (set KESTREL_CLANGXX)");
  }
  return parse_host_headers(result.output);
}

fs::path ProgramBuilder::build_device_image(const std::string& source, unsigned index,
                                            const HostHeaders& host) {
  Options device = options_;
  device.whole_program = false;
  device.compile_only = false;
  device.sources = {source};
  device.host_sources.clear();
  device.link_inputs.clear();
  device.host_flags.clear();
  device.notes.clear();
  device.output = temp(std::to_string(index) + ".kmod").string();
  device.depfile.clear();
  if (!options_.depfile.empty()) {
    device.depfile = temp(std::to_string(index) + ".device.d").string();
    depfiles_.push_back(device.depfile);
  }
  device.host_header_args = {"-aux-triple", host.triple};
  device.host_header_args.insert(device.host_header_args.end(), host.include_args.begin(),
                                 host.include_args.end());
  device.allow_no_kernels = true;
  const ModuleSummary summary = Compiler(device, paths_, log_).run();
  if (summary.kernels.empty()) {
    if (!device.depfile.empty()) depfiles_.pop_back();
    return {};
  }
  const std::string module = read_file(device.output);
  kestrel_fatbin_header header{};
  header.magic = KESTREL_FATBIN_MAGIC;
  header.version = KESTREL_FATBIN_VERSION;
  header.header_bytes = sizeof header;
  header.xlen = options_.xlen;
  header.module_bytes = module.size();
  std::string image(sizeof header, '\0');
  std::memcpy(image.data(), &header, sizeof header);
  image += module;
  const fs::path wrapped = temp(std::to_string(index) + ".kfat");
  write_file(wrapped, image);
  return wrapped;
}

std::vector<std::string> ProgramBuilder::host_compile_arguments(bool cuda_source) const {
  std::vector<std::string> args = {"-std=" + options_.language_standard, "-O" + options_.optimization,
                                   // threadIdx.x is a property (kestrel_cuda.h).
                                   "-fdeclspec", "-isystem", paths_.sdk_dir + "/include", "-isystem",
                                   paths_.cuda_include(), "-isystem", paths_.project_include};
  if (cuda_source) args.insert(args.end(), {"-include", "cuda_runtime.h"});
  if (options_.debug_info) args.push_back("-g");
  if (options_.color_diagnostics) args.push_back("-fcolor-diagnostics");
  for (const std::string& dir : options_.include_dirs) args.insert(args.end(), {"-I", dir});
  args.insert(args.end(), options_.macro_flags.begin(), options_.macro_flags.end());
  args.insert(args.end(), options_.warning_flags.begin(), options_.warning_flags.end());
  args.insert(args.end(), options_.host_flags.begin(), options_.host_flags.end());
  return args;
}

void ProgramBuilder::compile_cuda_host(const std::string& source, const fs::path& image,
                                       const fs::path& object, const fs::path& depfile) {
  std::vector<std::string> args = {paths_.clangxx, "-x", "cuda", "--cuda-host-only", "-nocudainc",
                                   "-nocudalib", "-Wno-unknown-cuda-version",
                                   // The default auxiliary target is NVPTX, whose builtins
                                   // (__syncthreads, ...) would clash with the SDK's.
                                   "-Xclang", "-aux-triple", "-Xclang", "x86_64-pc-linux-gnu"};
  const std::vector<std::string> common = host_compile_arguments(true);
  args.insert(args.end(), common.begin(), common.end());
  if (!image.empty())
    args.insert(args.end(), {"-Xclang", "-fcuda-include-gpubinary", "-Xclang", image.string()});
  if (!depfile.empty()) args.insert(args.end(), {"-MD", "-MF", depfile.string()});
  args.insert(args.end(), {"-c", source, "-o", object.string()});
  run_tool(args, "compilation of " + source + " failed");
}

void ProgramBuilder::compile_cxx_host(const std::string& source, const fs::path& object,
                                      const fs::path& depfile) {
  std::vector<std::string> args = {paths_.clangxx};
  const std::vector<std::string> common = host_compile_arguments(false);
  args.insert(args.end(), common.begin(), common.end());
  if (!depfile.empty()) args.insert(args.end(), {"-MD", "-MF", depfile.string()});
  args.insert(args.end(), {"-c", source, "-o", object.string()});
  run_tool(args, "compilation of " + source + " failed");
}

void ProgramBuilder::link(const std::vector<fs::path>& objects) {
  const fs::path library = fs::path(paths_.cudart_dir) / "libkestrel_cudart.so";
  std::error_code error;
  if (!fs::exists(library, error))
    throw CompileError("the CUDA runtime library " + library.string() +
                       " is missing (build target kestrel_cudart, or set KESTREL_CUDART_DIR)");
  std::vector<std::string> args = {paths_.clangxx};
  for (const fs::path& object : objects) args.push_back(object.string());
  args.insert(args.end(), options_.link_inputs.begin(), options_.link_inputs.end());
  args.insert(args.end(), {"-L", paths_.cudart_dir, "-Wl,-rpath," + paths_.cudart_dir, "-lkestrel_cudart",
                           "-pthread", "-o", options_.output});
  if (options_.debug_info) args.push_back("-g");
  run_tool(args, "linking " + options_.output + " failed");
}

fs::path ProgramBuilder::object_path(const std::string& source, unsigned index) const {
  if (!options_.compile_only) return temp(std::to_string(index) + ".o");
  if (!options_.output.empty()) return options_.output;
  return fs::path(source).stem().string() + ".o";
}

void ProgramBuilder::run() {
  for (const std::string& source : options_.sources) {
    std::error_code error;
    if (!fs::is_regular_file(source, error)) throw CompileError("no such source file: " + source);
  }
  for (const std::string& source : options_.host_sources) {
    std::error_code error;
    if (!fs::is_regular_file(source, error)) throw CompileError("no such source file: " + source);
  }
  std::string pattern = (fs::temp_directory_path() / "kestrel-cc.XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw CompileError("cannot create a work directory in " + pattern);
  work_dir_ = pattern;

  const HostHeaders host = query_host_headers();
  std::vector<fs::path> objects;
  unsigned index = 0;
  for (const std::string& source : options_.sources) {
    const fs::path image = build_device_image(source, index, host);
    const fs::path object = object_path(source, index);
    fs::path depfile;
    if (!options_.depfile.empty()) depfiles_.push_back(depfile = temp(std::to_string(index) + ".host.d"));
    compile_cuda_host(source, image, object, depfile);
    objects.push_back(object);
    ++index;
  }
  for (const std::string& source : options_.host_sources) {
    const fs::path object = object_path(source, index);
    fs::path depfile;
    if (!options_.depfile.empty()) depfiles_.push_back(depfile = temp(std::to_string(index) + ".host.d"));
    compile_cxx_host(source, object, depfile);
    objects.push_back(object);
    ++index;
  }
  if (!options_.compile_only) link(objects);
  if (!options_.depfile.empty()) {
    std::set<std::string> deps;
    for (const fs::path& depfile : depfiles_)
      for (const std::string& dep : read_dependencies(depfile)) deps.insert(dep);
    const std::string target = options_.output.empty() ? objects.front().string() : options_.output;
    std::string text = escape_make(target) + ":";
    for (const std::string& dep : deps) text += " \\\n  " + escape_make(dep);
    write_file(options_.depfile, text + "\n");
  }
}

}  // namespace kestrel::cc
