// Kernel signatures from mangled names and the generated wrapper source.
#include <gtest/gtest.h>

#include "compile_error.hpp"
#include "kernel_entry.hpp"

namespace kestrel::cc {
namespace {

TEST(KernelEntry, ParameterListOfDemangledNames) {
  EXPECT_EQ(parameter_list("k(int*, S, double)"), "int*, S, double");
  EXPECT_EQ(parameter_list("void tk<float>(float*)"), "float*");
  EXPECT_EQ(parameter_list("none()"), "");
  EXPECT_EQ(parameter_list("f(void (*)(int), int (&) [3])"), "void (*)(int), int (&) [3]");
  EXPECT_EQ(parameter_list("void t<(char)97>(A<(short)3>)"), "A<(short)3>");
  EXPECT_THROW(parameter_list("not_a_function"), CompileError);
  EXPECT_THROW(parameter_list("broken)"), CompileError);
}

TEST(KernelEntry, StripsAnonymousNamespaces) {
  EXPECT_EQ(strip_anonymous_namespace("(anonymous namespace)::A, ns::(anonymous namespace)::B*"),
            "A, ns::B*");
}

TEST(KernelEntry, DescribesKernels) {
  const KernelSignature plain = describe_kernel("_Z1kPi1Sd");
  EXPECT_EQ(plain.demangled, "k(int*, S, double)");
  EXPECT_EQ(plain.function_type, "void(int*, S, double)");
  const KernelSignature templated = describe_kernel("_Z11scale_arrayIiEvPT_S0_i");
  EXPECT_EQ(templated.function_type, "void(int*, int, int)");
  const KernelSignature anonymous = describe_kernel("_ZN12_GLOBAL__N_14anonENS_1AEPi");
  EXPECT_EQ(anonymous.demangled, "(anonymous namespace)::anon((anonymous namespace)::A, int*)");
  EXPECT_EQ(anonymous.function_type, "void(A, int*)");
  const KernelSignature extern_c = describe_kernel("vector_add");
  EXPECT_EQ(extern_c.function_type, "decltype(vector_add)");
  EXPECT_THROW(describe_kernel("_Zgarbage"), CompileError);
}

TEST(KernelEntry, FallsBackForNamesTheCxxLibraryCannotDemangle) {
  // libstdc++ stops at about 1,020 parameters; the fallback (llvm-cxxfilt in
  // kestrel-cc) is asked only then.
  const std::string symbol = "_Z1kPc" + std::string(1100, 'c');
  std::string list = "char*";
  for (int i = 0; i < 1100; ++i) list += ", char";
  int calls = 0;
  const Demangler fallback = [&](const std::string& name) {
    ++calls;
    return name == symbol ? "k(" + list + ")" : std::string();
  };
  const KernelSignature long_list = describe_kernel(symbol, fallback);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(long_list.function_type, "void(" + list + ")");
  EXPECT_EQ(function_name(long_list.demangled), "k");
  EXPECT_EQ(describe_kernel("_Z1kPi1Sd", fallback).demangled, "k(int*, S, double)");
  EXPECT_EQ(calls, 1);
  try {
    describe_kernel(symbol);
    ADD_FAILURE() << "demangled without a fallback";
  } catch (const CompileError& error) {
    EXPECT_NE(std::string(error.what()).find("KESTREL_CXXFILT"), std::string::npos) << error.what();
    EXPECT_LT(std::string(error.what()).size(), 600u);
  }
  EXPECT_THROW(describe_kernel("_Zgarbage", fallback), CompileError);
  EXPECT_EQ(function_name("void scale_array<int>(int*, int, int)"), "void scale_array<int>");
}

TEST(KernelEntry, GeneratesAliasTrampolineAndDescriptor) {
  std::vector<EntryKernel> kernels(1);
  kernels[0].signature = describe_kernel("_Z1kPi1Sd");
  kernels[0].index = 7;
  const std::string source = generate_entry_source("/src/my \"file\".cu", "/sdk/kestrel_entry.h", kernels);
  EXPECT_NE(source.find("#include \"/src/my \\\"file\\\".cu\"\n#include \"/sdk/kestrel_entry.h\"\n"),
            std::string::npos);
  EXPECT_NE(source.find("#line 1 \"<kestrel-cc entry for kernel 'k(int*, S, double)'>\""), std::string::npos);
  EXPECT_NE(source.find("using __kestrel_kernel_type_7 = void(int*, S, double);"), std::string::npos);
  EXPECT_NE(source.find("static __device__ __kestrel_kernel_type_7 __kestrel_kernel_7 "
                        "__attribute__((alias(\"_Z1kPi1Sd\")));"),
            std::string::npos);
  EXPECT_NE(source.find("extern \"C\" __device__ void __kestrel_entry_7(const char* params)"),
            std::string::npos);
  EXPECT_NE(source.find("section(\".kestrel.kernels\")"), std::string::npos);
  EXPECT_NE(source.find("(uintptr_t)\"_Z1kPi1Sd\""), std::string::npos);
}

}  // namespace
}  // namespace kestrel::cc
