// Whole-program mode: the command line that selects it, the host compiler's
// header folders read from its -### output, and real compiles of programs
// (objects with the device module embedded, errors for bad programs).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "compile_error.hpp"
#include "compiler.hpp"
#include "kestrel/cuda/fatbin.h"
#include "options.hpp"
#include "program.hpp"

namespace kestrel::cc {
namespace {

namespace fs = std::filesystem;

TEST(ProgramOptions, OutputKindChoosesTheMode) {
  EXPECT_FALSE(parse_options({"k.cu"}).whole_program);
  EXPECT_FALSE(parse_options({"k.cu", "-o", "k.kmod"}).whole_program);
  const Options program = parse_options({"app.cu", "-o", "app"});
  EXPECT_TRUE(program.whole_program);
  EXPECT_FALSE(program.compile_only);
  EXPECT_EQ(program.output, "app");
  const Options object = parse_options({"-c", "app.cu"});
  EXPECT_TRUE(object.whole_program && object.compile_only);
  EXPECT_TRUE(object.output.empty());  // each source gives <stem>.o
  const Options mixed = parse_options({"main.cu", "host.cpp", "extra.o", "-L", "lib", "-lm", "-lfoo"});
  EXPECT_TRUE(mixed.whole_program);
  EXPECT_EQ(mixed.output, "a.out");
  EXPECT_EQ(mixed.sources, (std::vector<std::string>{"main.cu"}));
  EXPECT_EQ(mixed.host_sources, (std::vector<std::string>{"host.cpp"}));
  EXPECT_EQ(mixed.link_inputs, (std::vector<std::string>{"extra.o", "-Llib", "-lm", "-lfoo"}));
}

TEST(ProgramOptions, NvccFlags) {
  const Options options =
      parse_options({"-arch=sm_70", "-gencode", "arch=compute_70,code=sm_70", "-arch", "sm_80", "-lineinfo",
                     "-Xcompiler", "-fopenmp,-Wall", "-Xlinker", "--as-needed", "-G", "a.cu", "-o", "a"});
  EXPECT_EQ(options.notes.size(), 4u);
  EXPECT_NE(options.notes.front().find("ignored"), std::string::npos);
  EXPECT_EQ(options.host_flags, (std::vector<std::string>{"-fopenmp", "-Wall"}));
  EXPECT_EQ(options.link_inputs, (std::vector<std::string>{"-Wl,--as-needed"}));
  EXPECT_TRUE(options.debug_info);
}

// nvcc's -lineinfo keeps line tables for the device code only (no -g).
TEST(ProgramOptions, LineInfoIsLineTablesOnly) {
  for (const char* flag : {"-lineinfo", "--generate-line-info"}) {
    const Options options = parse_options({flag, "a.cu", "-o", "a"});
    EXPECT_TRUE(options.line_info) << flag;
    EXPECT_FALSE(options.debug_info) << flag;
    ASSERT_EQ(options.notes.size(), 1u);
    EXPECT_NE(options.notes.front().find("line tables"), std::string::npos);
  }
}

TEST(ProgramOptions, BadProgramsAreErrors) {
  EXPECT_THROW(parse_options({"-rv32", "app.cu", "-o", "app"}), CompileError);  // layouts would differ
  EXPECT_THROW(parse_options({"-c", "-o", "x.o", "a.cu", "b.cu"}), CompileError);
  EXPECT_THROW(parse_options({"-arch"}), CompileError);
  EXPECT_THROW(parse_options({"-Xcompiler"}), CompileError);
}

TEST(HostHeaders, ParsedFromTheDriverCommand) {
  const std::string output =
      "clang version 14.0.6\nTarget: x86_64-pc-linux-gnu\n"
      " \"/usr/lib/llvm-14/bin/clang\" \"-cc1\" \"-triple\" \"x86_64-pc-linux-gnu\" \"-emit-obj\" "
      "\"-internal-isystem\" \"/usr/lib/llvm-14/lib/clang/14.0.6/include/cuda_wrappers\" "
      "\"-internal-isystem\" \"/usr/include/c++/12\" \"-internal-isystem\" \"/usr/include/c++/12\" "
      "\"-internal-externc-isystem\" \"/usr/include\" \"-D\" \"with \\\"quotes\\\"\" \"-x\" \"c++\" "
      "\"p.cpp\"\n";
  const HostHeaders host = parse_host_headers(output);
  EXPECT_EQ(host.triple, "x86_64-pc-linux-gnu");
  EXPECT_EQ(host.include_args, (std::vector<std::string>{"-internal-isystem", "/usr/include/c++/12",
                                                         "-internal-externc-isystem", "/usr/include"}));
  EXPECT_THROW(parse_host_headers("clang: error: no such file\n"), CompileError);
  EXPECT_THROW(parse_host_headers(""), CompileError);
}

class ProgramTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::path(testing::TempDir()) /
        ("kestrel_cc_program_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  int compile(std::vector<std::string> args) {
    std::ostringstream out, err;
    const int status = run_kestrel_cc(args, out, err);
    log_ = err.str();
    return status;
  }
  fs::path dir_;
  std::string log_;
};

TEST_F(ProgramTest, ObjectEmbedsTheWrappedModule) {
  const std::string source = write("app.cu", R"CU(
#include <vector>
#include <cstdio>
__constant__ float table[4];
__global__ void scale(float* p, float f) { p[threadIdx.x] *= f * table[threadIdx.x % 4]; }
int main() {
  std::vector<float> h(32, 1.0f);
  float* d;
  cudaMalloc(&d, 128);
  scale<<<1, 32>>>(d, 2.0f);
  std::printf("%d\n", (int)h.size());
}
)CU");
  const std::string object = (dir_ / "app.o").string();
  ASSERT_EQ(compile({"-c", source, "-o", object}), 0) << log_;
  std::ifstream in(object, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The KFAT header, then the module's ELF magic right after it.
  const std::string magic("KFAT", 4);
  const size_t at = bytes.find(magic);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(bytes.substr(at + sizeof(kestrel_fatbin_header), 4),
            "\x7f"
            "ELF");
  EXPECT_NE(bytes.find("__cudaRegisterFatBinary"), std::string::npos);
  EXPECT_NE(bytes.find("_Z5scalePff"), std::string::npos);  // the kernel's registered device name
}

TEST_F(ProgramTest, HostOnlySourceNeedsNoKernels) {
  const std::string source = write("host.cu", "int answer() { return 42; }\n");
  ASSERT_EQ(compile({"-c", source, "-o", (dir_ / "host.o").string()}), 0) << log_;
  EXPECT_TRUE(fs::exists(dir_ / "host.o"));
}

// Host code in a .cu file and in the headers it includes compiles as on the
// host: assert() in a host-only inline function of a header (as NVIDIA's
// helper_image.h has) is the host's in the device pass too, while a kernel and
// the device side of a __host__ __device__ function get the device assert.
TEST_F(ProgramTest, HostAssertCompilesInTheDevicePass) {
  write("helper.h", R"H(
#pragma once
#include <assert.h>
inline int checked_width(int width) { assert(width > 0); return width; }
template <typename T> inline T checked_get(const T* p) { assert(p != nullptr); return *p; }
)H");
  const std::string source = write("app.cu", R"CU(
#include <cassert>
#include "helper.h"
__host__ __device__ int halve(int n) { assert(n % 2 == 0); return n / 2; }
__global__ void k(int* p) { assert(p != nullptr); p[threadIdx.x] = halve(p[threadIdx.x]); }
#define NDEBUG
#include <assert.h>
__global__ void unchecked(int* p) { assert(p == nullptr); p[0] = 1; }
int main() {
  int four = 4;
  assert(checked_get(&four) == halve(checked_width(four) * 2) && "host assert in host code");
  k<<<1, 1>>>(nullptr);
  unchecked<<<1, 1>>>(nullptr);
}
)CU");
  ASSERT_EQ(compile({"-c", "-I", dir_.string(), source, "-o", (dir_ / "app.o").string()}), 0) << log_;
}

TEST_F(ProgramTest, ErrorsNameTheProblem) {
  const std::string bad =
      write("bad.cu", "__global__ void k(int* p) { p[0] = undefined_name; }\nint main() {}\n");
  EXPECT_EQ(compile({bad, "-o", (dir_ / "bad").string()}), 1);
  EXPECT_NE(log_.find("undefined_name"), std::string::npos);
  EXPECT_NE(log_.find("kestrel-cc: error: compilation of"), std::string::npos);
  EXPECT_EQ(compile({(dir_ / "missing.cu").string(), "-o", (dir_ / "x").string()}), 1);
  EXPECT_NE(log_.find("no such source file"), std::string::npos);
  // Device code calling a host-only function is rejected by the device pass.
  const std::string wrong_side =
      write("side.cu", "int host_only() { return 1; }\n__global__ void k(int* p) { p[0] = host_only(); }\n");
  EXPECT_EQ(compile({"-c", wrong_side, "-o", (dir_ / "side.o").string()}), 1);
  EXPECT_NE(log_.find("host_only"), std::string::npos);
}

}  // namespace
}  // namespace kestrel::cc
