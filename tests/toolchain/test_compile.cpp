// Whole kestrel-cc runs: CUDA sources written to a temporary folder,
// compiled, and the resulting module inspected with check_module().
#include <gtest/gtest.h>

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "compile_error.hpp"
#include "compiler.hpp"
#include "kestrel/module_format.h"
#include "module_check.hpp"

namespace kestrel::cc {
namespace {

namespace fs = std::filesystem;

class CompileTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) /
           ("kestrel_cc_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  // Runs kestrel-cc; returns its exit status, its diagnostics in log_.
  int compile(std::vector<std::string> args) {
    std::ostringstream out, err;
    const int status = run_kestrel_cc(args, out, err);
    log_ = err.str();
    return status;
  }
  std::string module_path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
  std::string log_;
};

std::vector<uint8_t> read_module(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const ModuleKernel& find_kernel(const ModuleSummary& summary, const std::string& name) {
  for (const ModuleKernel& kernel : summary.kernels)
    if (kernel.name == name) return kernel;
  throw CompileError("no kernel " + name);
}

const char* const kLayoutSource = R"CU(
struct Record { double weight; int values[6]; char flag; float scale; };  // 40 bytes, align 8
__global__ void layout(char c, double d, int i, float4 v, Record r, char* p, short s) {}
__global__ void many(int a, float b, double c, char d, int* e, Record f, short g, double* h, unsigned char i,
                     float j, long long k, float* l) {}
__global__ void none() {}
)CU";

void expect_params(const ModuleKernel& kernel, const std::vector<ModuleParam>& expected, uint32_t bytes,
                   uint32_t align) {
  ASSERT_EQ(kernel.params.size(), expected.size()) << kernel.name;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(kernel.params[i].offset, expected[i].offset) << kernel.name << " parameter " << i;
    EXPECT_EQ(kernel.params[i].size, expected[i].size) << kernel.name << " parameter " << i;
    EXPECT_EQ(kernel.params[i].align, expected[i].align) << kernel.name << " parameter " << i;
    EXPECT_EQ(kernel.params[i].kind, expected[i].kind) << kernel.name << " parameter " << i;
  }
  EXPECT_EQ(kernel.param_bytes, bytes) << kernel.name;
  EXPECT_EQ(kernel.param_align, align) << kernel.name;
}

constexpr uint32_t V = KESTREL_PARAM_VALUE, P = KESTREL_PARAM_POINTER;

TEST_F(CompileTest, ParameterLayoutRv64) {
  const std::string source = write("layout.cu", kLayoutSource);
  ASSERT_EQ(compile({"-rv64", "-o", module_path("m.kmod"), source}), 0) << log_;
  const ModuleSummary summary = check_module(module_path("m.kmod"), 64);
  ASSERT_EQ(summary.kernels.size(), 3u);
  // Each parameter at the next multiple of its alignment (guide B.1.4).
  expect_params(find_kernel(summary, "_Z6layoutcdi6float46RecordPcs"),
                {{0, 1, 1, V},
                 {8, 8, 8, V},
                 {16, 4, 4, V},
                 {32, 16, 16, V},
                 {48, 40, 8, V},
                 {88, 8, 8, P},
                 {96, 2, 2, V}},
                98, 16);
  expect_params(find_kernel(summary, "_Z4manyifdcPi6RecordsPdhfxPf"),
                {{0, 4, 4, V},
                 {4, 4, 4, V},
                 {8, 8, 8, V},
                 {16, 1, 1, V},
                 {24, 8, 8, P},
                 {32, 40, 8, V},
                 {72, 2, 2, V},
                 {80, 8, 8, P},
                 {88, 1, 1, V},
                 {92, 4, 4, V},
                 {96, 8, 8, V},
                 {104, 8, 8, P}},
                112, 8);
  expect_params(find_kernel(summary, "_Z4nonev"), {}, 0, 1);
}

TEST_F(CompileTest, ParameterLayoutRv32PointersAreFourBytes) {
  const std::string source = write("layout.cu", kLayoutSource);
  ASSERT_EQ(compile({"-rv32", "-o", module_path("m.kmod"), source}), 0) << log_;
  const ModuleSummary summary = check_module(module_path("m.kmod"), 32);
  // ILP32F keeps double and long long 8-byte aligned; only pointers shrink.
  expect_params(find_kernel(summary, "_Z6layoutcdi6float46RecordPcs"),
                {{0, 1, 1, V},
                 {8, 8, 8, V},
                 {16, 4, 4, V},
                 {32, 16, 16, V},
                 {48, 40, 8, V},
                 {88, 4, 4, P},
                 {92, 2, 2, V}},
                94, 16);
  const ModuleKernel& many = find_kernel(summary, "_Z4manyifdcPi6RecordsPdhfxPf");
  EXPECT_EQ(many.params[4].size, 4u);
  EXPECT_EQ(many.params[5].offset, 24u);
}

TEST_F(CompileTest, SharedMemoryAndConstantPlacement) {
  const std::string source = write("shared.cu", R"CU(
__constant__ float table[3] = {1, 2, 3};
__constant__ const int limit = 7;  // const and non-const __constant__ in one file
extern __shared__ double dynamic_area[];
__global__ void k(float* out) {
  __shared__ float tile[10];
  tile[threadIdx.x] = table[threadIdx.x % 3] * limit;
  __syncthreads();
  out[threadIdx.x] = tile[9 - threadIdx.x] + dynamic_area[0];
}
)CU");
  ASSERT_EQ(compile({"-o", module_path("m.kmod"), source}), 0) << log_;
  const ModuleSummary summary = check_module(module_path("m.kmod"), 64);
  // 40 bytes of tile, rounded up to 16 so dynamic shared memory is aligned.
  EXPECT_EQ(summary.static_shared_bytes, 48u);
  EXPECT_GT(summary.relocations, 0u);
}

TEST_F(CompileTest, SeveralSourcesAnonymousNamespaceAndExternCKernels) {
  const std::string header =
      write("twice.h", "template <typename T> __global__ void twice(T* p) { *p *= 2; }\n");
  const std::string a = write("a.cu", R"CU(
#include "twice.h"
__device__ int helper(int x);  // defined in b.cu
template __global__ void twice<int>(int*);
namespace { struct Secret { int v; }; __global__ void hidden(Secret s, int* out) { *out = s.v; } }
extern "C" __global__ void plain_c(int* out) { *out = helper(3); }
)CU");
  const std::string b = write("b.cu", R"CU(
#include "twice.h"
template __global__ void twice<int>(int*);  // the same instantiation again: one entry
__device__ int helper(int x) { return x + 1; }
)CU");
  ASSERT_EQ(compile({"-o", module_path("m.kmod"), "-MF", module_path("m.d"), a, b}), 0) << log_;
  const ModuleSummary summary = check_module(module_path("m.kmod"), 64);
  ASSERT_EQ(summary.kernels.size(), 3u);
  find_kernel(summary, "_Z5twiceIiEvPT_");
  find_kernel(summary, "plain_c");
  EXPECT_EQ(find_kernel(summary, "_ZN12_GLOBAL__N_16hiddenENS_6SecretEPi").param_bytes, 16u);
  std::ifstream deps(module_path("m.d"));
  const std::string text((std::istreambuf_iterator<char>(deps)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("twice.h"), std::string::npos) << text;
  EXPECT_NE(text.find("kestrel_cuda.h"), std::string::npos) << text;
  EXPECT_NE(text.find("kestrel.ld"), std::string::npos) << text;
}

TEST_F(CompileTest, OptimizationLevelsAndDebugInfo) {
  const std::string source = write("k.cu", "__global__ void k(int* p) { p[threadIdx.x] = blockIdx.x; }\n");
  for (const char* level : {"-O0", "-O1", "-O3", "-Os"}) {
    EXPECT_EQ(compile({level, "-g", "-o", module_path("m.kmod"), source}), 0) << level << "\n" << log_;
    EXPECT_EQ(check_module(module_path("m.kmod"), 64).kernels.size(), 1u);
    // RV32 keeps the relocations of its debug sections too; they are never loaded.
    EXPECT_EQ(compile({"-rv32", level, "-g", "-o", module_path("m.kmod"), source}), 0) << level << "\n"
                                                                                       << log_;
    EXPECT_EQ(check_module(module_path("m.kmod"), 32).kernels.size(), 1u);
  }
}

// nvcc Makefiles often say -std=c++11; it compiles as C++14, and a module in
// C++14 describes its parameters exactly as in C++17 (the entry table is a
// static constexpr member, which C++14 must define outside its class).
TEST_F(CompileTest, OlderLanguageStandardsBuildTheSameModule) {
  const std::string source = write("layout.cu", kLayoutSource);
  ASSERT_EQ(compile({"-std=c++17", "-o", module_path("17.kmod"), source}), 0) << log_;
  for (const char* standard : {"-std=c++14", "-std=c++11"}) {
    ASSERT_EQ(compile({standard, "-o", module_path("old.kmod"), source}), 0) << standard << "\n" << log_;
    EXPECT_EQ(read_module(module_path("old.kmod")), read_module(module_path("17.kmod"))) << standard;
  }
  EXPECT_NE(log_.find("-std=c++11 compiles as c++14"), std::string::npos) << log_;
}

TEST_F(CompileTest, CompileErrorShowsTheUsersFileAndLine) {
  const std::string source =
      write("bad.cu", "__global__ void k(int* p) {\n  p[0] = 1;\n  undeclared_thing(p);\n}\n");
  EXPECT_EQ(compile({"-o", module_path("m.kmod"), source}), 1);
  EXPECT_NE(log_.find("bad.cu:3:3: error"), std::string::npos) << log_;
  EXPECT_NE(log_.find("kestrel-cc: error: compilation of"), std::string::npos) << log_;
  EXPECT_FALSE(fs::exists(module_path("m.kmod")));
  // clang's count names the device target (it said "compiling for ." with none).
  EXPECT_NE(log_.find("1 error generated when compiling for generic-rv64.\n"), std::string::npos) << log_;
  EXPECT_EQ(compile({"-rv32", "-o", module_path("m.kmod"), source}), 1);
  EXPECT_NE(log_.find("1 error generated when compiling for generic-rv32.\n"), std::string::npos) << log_;
}

TEST_F(CompileTest, BadInputGivesClearErrors) {
  EXPECT_EQ(compile({module_path("missing.cu")}), 1);
  EXPECT_NE(log_.find("no such source file"), std::string::npos) << log_;

  const std::string no_kernels = write("helpers.cu", "__device__ int twice(int x) { return 2 * x; }\n");
  EXPECT_EQ(compile({"-o", module_path("m.kmod"), no_kernels}), 1);
  EXPECT_NE(log_.find("no kernels found"), std::string::npos) << log_;

  EXPECT_EQ(compile({"--no-such-flag", no_kernels}), 1);
  EXPECT_NE(log_.find("unknown option"), std::string::npos) << log_;

  const std::string host_init = write("init.cu", R"CU(
struct Counter { int v; __device__ Counter() : v(5) {} };
__device__ Counter counter;
__global__ void k(int* p) { *p = counter.v; }
)CU");
  EXPECT_EQ(compile({"-o", module_path("m.kmod"), host_init}), 1);
  EXPECT_NE(log_.find("dynamic initialization"), std::string::npos) << log_;

  // The device heap gives malloc, free, calloc and realloc; the C library's
  // own allocator, which others pull in, has no heap on Kestrel.
  const std::string aligned =
      write("aligned.cu", "__global__ void k(void** out) { *out = aligned_alloc(64, 256); }\n");
  EXPECT_EQ(compile({"-o", module_path("m.kmod"), aligned}), 1);
  EXPECT_NE(log_.find("allocation function other than malloc, free, calloc and realloc"), std::string::npos)
      << log_;

  const std::string uses_errno =
      write("errno.cu", "__global__ void k(const char* s, long* out) { *out = strtol(s, nullptr, 10); }\n");
  for (const char* xlen : {"-rv64", "-rv32"}) {
    EXPECT_EQ(compile({xlen, "-o", module_path("m.kmod"), uses_errno}), 1) << xlen;
    EXPECT_NE(log_.find("thread-local storage"), std::string::npos) << xlen << "\n" << log_;
  }
}

// CUDA's limit is 4096 parameter bytes (guide E.2.9.3).  Over it kestrel-cc
// says so, where it once said "cannot demangle kernel symbol" (1,100 ints)
// or tripped clang's constexpr step limit (1,000 ints).
// (Exactly 4096 bytes build and run: e2e KernelTest.LargestParameterList...)
TEST_F(CompileTest, ParameterListOverCudasLimitIsAClearError) {
  const std::string over =
      write("over.cu", "struct Big { char b[4089]; };\n__global__ void k(double d, Big b) { b.b[0] = d; }\n");
  EXPECT_EQ(compile({"-rv32", "-o", module_path("over.kmod"), over}), 1);
  EXPECT_NE(log_.find("kestrel-cc: error: " + over +
                      ": kernel 'k': parameter list too large: 2 parameters of "
                      "4097 bytes; CUDA allows at most 4096 bytes"),
            std::string::npos)
      << log_;
  EXPECT_FALSE(fs::exists(module_path("over.kmod")));
}

TEST_F(CompileTest, ElevenHundredIntParametersAreAClearError) {
  std::string ints = "__global__ void k(int* out";
  for (int i = 0; i < 1100; ++i) ints += ", int a" + std::to_string(i);
  const std::string many = write("many.cu", ints + ") { out[0] = a0 + a1099; }\n");
  EXPECT_EQ(compile({"-o", module_path("many.kmod"), many}), 1);
  EXPECT_NE(log_.find("kernel 'k': parameter list too large: 1101 parameters of 4408 bytes"),
            std::string::npos)
      << log_;
  EXPECT_EQ(log_.find("demangle"), std::string::npos) << log_;
  EXPECT_EQ(log_.find("constexpr"), std::string::npos) << log_;
}

// libstdc++'s demangler gives up past about 1,020 parameters; a kernel of
// 1,100 chars is well within CUDA's limit and builds with LLVM's.
TEST_F(CompileTest, MoreParametersThanTheCxxLibraryDemangles) {
  std::string chars = "__global__ void k(int* out";
  for (int i = 0; i < 1100; ++i) chars += ", char a" + std::to_string(i);
  const std::string source = write("chars.cu", chars + ") { out[threadIdx.x] = a0 + a1099; }\n");
  ASSERT_EQ(compile({"-o", module_path("m.kmod"), source}), 0) << log_;
  const ModuleSummary summary = check_module(module_path("m.kmod"), 64);
  ASSERT_EQ(summary.kernels.size(), 1u);
  EXPECT_EQ(summary.kernels[0].num_params, 1101u);
  EXPECT_EQ(summary.kernels[0].param_bytes, 1108u);
}

TEST_F(CompileTest, BothXlensLinkTheCMathLibrary) {
  const std::string source = write("libm.cu", R"CU(
__global__ void k(float* p, double* d, int* e) {
  p[0] = sinf(p[1]) + expf(p[2]) + logf(p[3]) + powf(p[4], p[5]) + fmodf(p[6], 3.0f) + ldexpf(p[7], 3);
  p[8] = frexpf(p[9], e);
  d[0] = sin(d[1]) * exp(d[2]) + pow(d[3], 0.5) + log(d[4]);
}
)CU");
  ASSERT_EQ(compile({"-rv64", "-o", module_path("m64.kmod"), source}), 0) << log_;
  ASSERT_EQ(compile({"-rv32", "-o", module_path("m32.kmod"), source}), 0) << log_;
  // RV64: a PIE.  RV32: a static executable whose kept relocations include
  // the C library's absolute (lui) addressing (docs/isa.md section 5).
  const ModuleSummary rv64 = check_module(module_path("m64.kmod"), 64);
  const ModuleSummary rv32 = check_module(module_path("m32.kmod"), 32);
  EXPECT_EQ(read_module(module_path("m64.kmod")).at(16), ET_DYN);
  EXPECT_EQ(read_module(module_path("m32.kmod")).at(16), ET_EXEC);
  // The descriptor's three pointers, plus on RV32 the library's luis.
  EXPECT_EQ(rv64.relocations, 3u);
  EXPECT_GT(rv32.relocations, 20u);
}

TEST_F(CompileTest, Rv32UserCodeNeedsNoGot) {
  // An extern variable of another file, a dynamic shared array and function
  // pointers in data: PIC code would reach the first two through a GOT,
  // whose entries no kept relocation describes.
  const std::string a = write("a.cu", R"CU(
extern __device__ int shared_counter;
extern __shared__ int dynamic_area[];
__device__ int twice(int x) { return 2 * x; }
__device__ int thrice(int x) { return 3 * x; }
__device__ int (*const table[2])(int) = {twice, thrice};
__global__ void k(int* out) {
  dynamic_area[threadIdx.x] = shared_counter;
  out[threadIdx.x] = table[threadIdx.x % 2](dynamic_area[0]);
}
)CU");
  const std::string b = write("b.cu", "__device__ int shared_counter = 4;\n");
  ASSERT_EQ(compile({"-rv32", "-o", module_path("m.kmod"), a, b}), 0) << log_;
  EXPECT_EQ(check_module(module_path("m.kmod"), 32).kernels.size(), 1u);
}

// check_module on corrupted copies of a good module.
class ModuleCheckTest : public CompileTest {
 protected:
  std::vector<uint8_t> good_module(const char* xlen_flag = "-rv64") {
    const std::string source = write("k.cu", "__global__ void k(float* p) { *p = sinf(p[1]); }\n");
    EXPECT_EQ(compile({xlen_flag, "-o", module_path("m.kmod"), source}), 0) << log_;
    return read_module(module_path("m.kmod"));
  }
};

TEST_F(ModuleCheckTest, AcceptsTheGoodModuleOnlyForItsXlen) {
  const std::vector<uint8_t> image = good_module();
  EXPECT_EQ(check_module_image(image, 64).kernels.size(), 1u);
  EXPECT_THROW(check_module_image(image, 32), CompileError);
  const std::vector<uint8_t> image32 = good_module("-rv32");
  EXPECT_EQ(check_module_image(image32, 32).kernels.size(), 1u);
  EXPECT_THROW(check_module_image(image32, 64), CompileError);
}

// The entries of an ELF32 module's relocation section `name`, as file offsets.
std::vector<uint64_t> relocation_entries(const std::vector<uint8_t>& elf, const std::string& name) {
  auto u32 = [&](uint64_t at) {
    uint32_t v = 0;
    std::memcpy(&v, elf.data() + at, 4);
    return v;
  };
  const uint32_t shoff = u32(32);
  const uint32_t shnum = u32(48) & 0xFFFF, shstrndx = u32(50) & 0xFFFF;
  const uint32_t names = u32(shoff + shstrndx * 40 + 16);
  for (uint32_t i = 0; i < shnum; ++i) {
    const uint64_t at = shoff + i * 40;
    if (name != reinterpret_cast<const char*>(elf.data() + names + u32(at))) continue;
    std::vector<uint64_t> entries;
    for (uint64_t e = u32(at + 16); e < u32(at + 16) + u32(at + 20); e += 12) entries.push_back(e);
    return entries;
  }
  return {};
}

TEST_F(ModuleCheckTest, RejectsRv32RelocationsTheLoaderCannotApply) {
  const std::vector<uint8_t> good = good_module("-rv32");
  const std::vector<uint64_t> text = relocation_entries(good, ".rela.text");
  const std::vector<uint64_t> kernels = relocation_entries(good, ".rela.kestrel.kernels");
  ASSERT_FALSE(text.empty());
  ASSERT_EQ(kernels.size(), 3u);
  auto with_type = [&](uint64_t entry, uint8_t type) {
    std::vector<uint8_t> image = good;
    image[entry + 4] = type;  // r_info's low byte is the type
    return image;
  };
  for (const uint8_t type : {R_RISCV_GOT_HI20, R_RISCV_TPREL_HI20, R_RISCV_64, R_RISCV_RELATIVE})
    EXPECT_THROW(check_module_image(with_type(text.front(), type), 32), CompileError) << int{type};
  // A descriptor pointer without its relocation would keep its link-time value.
  EXPECT_THROW(check_module_image(with_type(kernels.front(), R_RISCV_NONE), 32), CompileError);
  // An RV32 module must be the static form.
  std::vector<uint8_t> image = good;
  image[16] = ET_DYN;
  EXPECT_THROW(check_module_image(image, 32), CompileError);
}

TEST_F(ModuleCheckTest, RejectsCorruptions) {
  const std::vector<uint8_t> good = good_module();
  std::vector<uint8_t> image = good;
  image[0] = 'X';  // not ELF
  EXPECT_THROW(check_module_image(image, 64), CompileError);
  image = good;
  image[48] |= 1;  // e_flags: EF_RISCV_RVC
  EXPECT_THROW(check_module_image(image, 64), CompileError);
  image = good;
  image.resize(image.size() / 2);  // truncated: section headers are at the end
  EXPECT_THROW(check_module_image(image, 64), CompileError);
  image = good;
  const uint8_t magic[4] = {'K', 'K', 'R', 'N'};
  auto at = std::search(image.begin(), image.end(), std::begin(magic), std::end(magic));
  ASSERT_NE(at, image.end());
  *at = 'X';
  EXPECT_THROW(check_module_image(image, 64), CompileError);
}

// Where section `name` of an ELF64 module lies in the file, {0, 0} if absent.
struct FileRange {
  uint64_t offset = 0, size = 0;
};
FileRange section_range(const std::vector<uint8_t>& elf, const std::string& name, uint32_t* link = nullptr) {
  Elf64_Ehdr header;
  std::memcpy(&header, elf.data(), sizeof header);
  auto section = [&](unsigned index) {
    Elf64_Shdr shdr;
    std::memcpy(&shdr, elf.data() + header.e_shoff + index * sizeof shdr, sizeof shdr);
    return shdr;
  };
  const uint64_t names = section(header.e_shstrndx).sh_offset;
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr shdr = section(i);
    if (name != reinterpret_cast<const char*>(elf.data() + names + shdr.sh_name)) continue;
    if (link) *link = shdr.sh_link;
    return FileRange{shdr.sh_offset, shdr.sh_size};
  }
  return FileRange{};
}

// The frame size clang recorded for each function of an RV64 module
// (.stack_sizes: an 8-byte address and a ULEB128 size per function), by
// function name through the symbol table.
std::map<std::string, uint64_t> recorded_frames(const std::vector<uint8_t>& elf) {
  std::map<uint64_t, uint64_t> by_address;
  const FileRange sizes = section_range(elf, ".stack_sizes");
  for (uint64_t at = sizes.offset; at < sizes.offset + sizes.size;) {
    uint64_t address = 0, size = 0;
    std::memcpy(&address, elf.data() + at, 8);
    at += 8;
    for (unsigned shift = 0;; shift += 7) {
      const uint8_t byte = elf[at++];
      size |= uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) break;
    }
    by_address[address] = size;
  }
  const FileRange symbols = section_range(elf, ".symtab");
  const FileRange names = section_range(elf, ".strtab");
  std::map<std::string, uint64_t> frames;
  for (uint64_t at = symbols.offset; at < symbols.offset + symbols.size; at += sizeof(Elf64_Sym)) {
    Elf64_Sym symbol;
    std::memcpy(&symbol, elf.data() + at, sizeof symbol);
    auto found = by_address.find(symbol.st_value);
    if (ELF64_ST_TYPE(symbol.st_info) == STT_FUNC && found != by_address.end())
      frames[reinterpret_cast<const char*>(elf.data() + names.offset + symbol.st_name)] = found->second;
  }
  return frames;
}

const char* const kStackSource = R"CU(
#include <math.h>
// Three levels of 1 KiB each that stay calls (__noinline__).
__device__ __noinline__ int level3(int seed) {
  volatile char buffer[1024];
  for (int i = 0; i < 1024; ++i) buffer[i] = static_cast<char>(seed + i);
  return buffer[seed & 1023];
}
__device__ __noinline__ int level2(int seed) {
  volatile char buffer[1024];
  for (int i = 0; i < 1024; ++i) buffer[i] = static_cast<char>(seed * 3 + i);
  return level3(seed + 1) + buffer[seed & 1023];
}
__device__ __noinline__ int level1(int seed) {
  volatile char buffer[1024];
  for (int i = 0; i < 1024; ++i) buffer[i] = static_cast<char>(seed * 5 + i);
  return level2(seed + 1) + buffer[seed & 1023];
}
__global__ void deep_chain(int* out) { out[threadIdx.x] = level1(threadIdx.x); }
__device__ int nested(int n) { volatile int frame[6]; frame[0] = n; return n == 0 ? 0 : frame[0] + nested(n - 1); }
__global__ void recurse(int depth, int* out) { out[threadIdx.x] = nested(depth); }
__device__ int (*callback)(int);
__global__ void indirect(int* out) { out[0] = callback(3); }
__global__ void uses_libm(float* out, float x) { out[0] = powf(x, 1.7f); }
)CU";

// kestrel-cc records each kernel's own stack need (section .kestrel.stack,
// docs/isa.md section 8): the frames of its deepest direct call path.
TEST_F(CompileTest, KernelStackNeedIsItsDeepestCallPath) {
  const std::string source = write("stack.cu", kStackSource);
  ASSERT_EQ(compile({"-rv64", "-O2", "-o", module_path("m.kmod"), source}), 0) << log_;
  const std::vector<uint8_t> elf = read_module(module_path("m.kmod"));
  const ModuleSummary summary = check_module_image(elf, 64);
  std::map<std::string, uint64_t> frames = recorded_frames(elf);
  // The trampoline of kernel i (the kernel inlined into it) is __kestrel_entry_i.
  auto entry_frame = [&](const std::string& kernel) {
    for (size_t i = 0; i < summary.kernels.size(); ++i)
      if (summary.kernels[i].name == kernel) return frames.at("__kestrel_entry_" + std::to_string(i));
    ADD_FAILURE() << "no kernel " << kernel;
    return uint64_t{0};
  };

  const ModuleKernel& chain = find_kernel(summary, "_Z10deep_chainPi");
  ASSERT_GE(frames.at("_Z6level1i"), 1024u);
  EXPECT_EQ(chain.stack_bytes, entry_frame(chain.name) + frames.at("_Z6level1i") + frames.at("_Z6level2i") +
                                   frames.at("_Z6level3i"));
  EXPECT_EQ(chain.stack_flags, 0u);
  EXPECT_EQ(chain.stack_bytes % 16, 0u);

  // Recursion: the cycle counted once, the rest left to the limit.
  const ModuleKernel& recurse = find_kernel(summary, "_Z7recurseiPi");
  EXPECT_EQ(recurse.stack_bytes, entry_frame(recurse.name) + frames.at("_Z6nestedi"));
  EXPECT_EQ(recurse.stack_flags, uint32_t{KESTREL_STACK_RECURSION});
  const ModuleKernel& indirect = find_kernel(summary, "_Z8indirectPi");
  EXPECT_EQ(indirect.stack_bytes, entry_frame(indirect.name));
  EXPECT_EQ(indirect.stack_flags, uint32_t{KESTREL_STACK_INDIRECT});
  // The C library's frames (no .stack_sizes entry, gcc's save-restore
  // prologues) count too.
  const ModuleKernel& libm = find_kernel(summary, "_Z9uses_libmPff");
  EXPECT_GT(libm.stack_bytes, entry_frame(libm.name));
  EXPECT_EQ(frames.count("powf") + frames.count("_powf"), 0u);

  // RV32 finds the same path.
  ASSERT_EQ(compile({"-rv32", "-O2", "-o", module_path("m32.kmod"), source}), 0) << log_;
  const ModuleSummary summary32 = check_module(module_path("m32.kmod"), 32);
  const ModuleKernel& chain32 = find_kernel(summary32, "_Z10deep_chainPi");
  EXPECT_GE(chain32.stack_bytes, 3 * 1024u);
  EXPECT_EQ(chain32.stack_flags, 0u);
}

TEST_F(ModuleCheckTest, StackSectionIsOptionalAndChecked) {
  const std::vector<uint8_t> good = good_module();
  const FileRange stack = section_range(good, KESTREL_STACK_SECTION);
  ASSERT_EQ(stack.size, sizeof(kestrel_kernel_stack));
  EXPECT_GT(check_module_image(good, 64).kernels[0].stack_bytes, 0u);
  // A module from before the section declares no need.
  std::vector<uint8_t> image = good;
  const std::string name = KESTREL_STACK_SECTION;
  auto at = std::search(image.begin(), image.end(), name.begin(), name.end() + 1);
  ASSERT_NE(at, image.end());
  at[name.size() - 1] = 'X';
  EXPECT_EQ(check_module_image(image, 64).kernels[0].stack_bytes, 0u);
  // A need that is no multiple of 16, an unknown flag.
  image = good;
  image[stack.offset] |= 8;
  EXPECT_THROW(check_module_image(image, 64), CompileError);
  image = good;
  image[stack.offset + 4] = 0x80;
  EXPECT_THROW(check_module_image(image, 64), CompileError);
}

}  // namespace
}  // namespace kestrel::cc
