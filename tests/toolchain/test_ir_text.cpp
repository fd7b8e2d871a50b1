// The .ll reader and the section placement, on IR as clang 14 writes it for
// CUDA device code (lines taken from real kestrel-cc runs).
#include <gtest/gtest.h>

#include "compile_error.hpp"
#include "ir_text.hpp"

namespace kestrel::cc {
namespace {

const char* const kModule = R"IR(; ModuleID = 'user.cu'
target triple = "riscv64-unknown-unknown-elf"

$_Z2tkIfEvPT_ = comdat any
$_ZZ2tkIfEvPT_E1s = comdat any

@coef = dso_local externally_initialized global [4 x float] [float 1.000000e+00, float 2.000000e+00, float 3.000000e+00, float 4.000000e+00], align 4
@counter = dso_local externally_initialized global i32 0, align 4
@.str = private unnamed_addr constant [15 x i8] c"kestrel.kernel\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [8 x i8] c"user.cu\00", section "llvm.metadata"
@.str.2 = private unnamed_addr constant [14 x i8] c"kestrel.const\00", section "llvm.metadata"
@_ZZ2tkIfEvPT_E1s = linkonce_odr dso_local global [32 x float] undef, comdat, align 4
@_ZZ1kPiE3loc = internal global %struct.Pair undef, align 4, !dbg !0
@dyn = external global [0 x float], align 4
@ext = external global i32, align 4
@"quoted name" = internal global { i32, [2 x i8] } undef, align 4
@fnptr = dso_local global void (i32)* null, align 8
@llvm.global.annotations = appending global [4 x { i8*, i8*, i8*, i32, i8* }] [{ i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (float*)* @_Z2tkIfEvPT_ to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([8 x i8], [8 x i8]* @.str.1, i32 0, i32 0), i32 9, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (float*)* @_Z2tkIfEvPT_ to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([8 x i8], [8 x i8]* @.str.1, i32 0, i32 0), i32 9, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (i32*)* @_Z1kPi to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([8 x i8], [8 x i8]* @.str.1, i32 0, i32 0), i32 12, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast ([4 x float]* @coef to i8*), i8* getelementptr inbounds ([14 x i8], [14 x i8]* @.str.2, i32 0, i32 0), i8* getelementptr inbounds ([8 x i8], [8 x i8]* @.str.1, i32 0, i32 0), i32 3, i8* null }], section "llvm.metadata"

define dso_local void @_Z2tkIfEvPT_(float* %p) comdat {
  ret void
}
define dso_local void @_Z1kPi(i32* %a) {
  ret void
}
declare float @sinf(float)
)IR";

TEST(IrText, FindsKernelsInAnnotationOrderWithoutDuplicates) {
  const IrModule module = parse_ir(kModule);
  // The explicit instantiation annotates tk<float> twice.
  EXPECT_EQ(module.annotated("kestrel.kernel"), (std::vector<std::string>{"_Z2tkIfEvPT_", "_Z1kPi"}));
  EXPECT_EQ(module.annotated("kestrel.const"), (std::vector<std::string>{"coef"}));
  EXPECT_TRUE(module.annotated("something.else").empty());
}

TEST(IrText, ReadsGlobalsFunctionsAndDeclarations) {
  const IrModule module = parse_ir(kModule);
  const IrGlobal* dyn = module.find_global("dyn");
  ASSERT_NE(dyn, nullptr);
  EXPECT_TRUE(dyn->is_declaration);
  EXPECT_EQ(dyn->type, "[0 x float]");
  const IrGlobal* quoted = module.find_global("quoted name");
  ASSERT_NE(quoted, nullptr);
  EXPECT_EQ(quoted->type, "{ i32, [2 x i8] }");
  EXPECT_EQ(quoted->initializer, "undef");
  const IrGlobal* fnptr = module.find_global("fnptr");
  ASSERT_NE(fnptr, nullptr);
  EXPECT_EQ(fnptr->type, "void (i32)*");
  EXPECT_EQ(fnptr->initializer, "null");
  EXPECT_EQ(module.find_global(".str.1")->section, "llvm.metadata");
  EXPECT_TRUE(module.defined_functions.count("_Z1kPi"));
  EXPECT_TRUE(module.declared_functions.count("sinf"));
  const std::set<std::string> defined = module.defined_symbols();
  EXPECT_TRUE(defined.count("coef"));
  EXPECT_TRUE(defined.count("_Z2tkIfEvPT_"));
  EXPECT_FALSE(defined.count("dyn"));
  EXPECT_FALSE(defined.count("ext"));
}

TEST(IrText, ExternSharedCandidatesAreUnsizedArrayDeclarations) {
  // `extern __device__ int ext;` is a declaration too, but not an unsized array.
  EXPECT_EQ(extern_shared_candidates(parse_ir(kModule)), (std::vector<std::string>{"dyn"}));
}

TEST(IrText, PlacesSharedAndConstantVariables) {
  IrModule module = parse_ir(kModule);
  const SectionPlacement placement = place_device_sections(module);
  EXPECT_EQ(placement.shared_variables, 3u);
  EXPECT_EQ(placement.constant_variables, 1u);
  const std::string text = module.text();
  // The section goes right after the initializer, before comdat/align/metadata.
  EXPECT_NE(text.find("@_ZZ2tkIfEvPT_E1s = linkonce_odr dso_local global [32 x float] undef, section "
                      "\".kestrel.shared\", comdat, align 4"),
            std::string::npos);
  EXPECT_NE(
      text.find("@_ZZ1kPiE3loc = internal global %struct.Pair undef, section \".kestrel.shared\", align 4, "
                "!dbg !0"),
      std::string::npos);
  EXPECT_NE(
      text.find("@\"quoted name\" = internal global { i32, [2 x i8] } undef, section \".kestrel.shared\""),
      std::string::npos);
  EXPECT_NE(text.find("float 4.000000e+00], section \".kestrel.const\", align 4"), std::string::npos);
  // Untouched: declarations, zero-initialized __device__ data, metadata strings.
  EXPECT_NE(text.find("@dyn = external global [0 x float], align 4\n"), std::string::npos);
  EXPECT_NE(text.find("@counter = dso_local externally_initialized global i32 0, align 4\n"),
            std::string::npos);
  // Placing again changes nothing.
  IrModule again = parse_ir(text);
  place_device_sections(again);
  EXPECT_EQ(again.text(), text);
}

TEST(IrText, TextureReferencesStartZeroOutsideSharedMemory) {
  // `texture<float, cudaTextureType2D> texRef;` as clang 14 writes its device
  // copy, beside a __shared__ array.
  IrModule module = parse_ir(
      "@texRef = dso_local externally_initialized global %struct.texture undef, align 4\n"
      "@tile = internal global [4 x i32] undef, align 4\n");
  const SectionPlacement placement = place_device_sections(module);
  EXPECT_EQ(placement.texture_references, 1u);
  EXPECT_EQ(placement.shared_variables, 1u);
  const std::string text = module.text();
  EXPECT_NE(text.find("@texRef = dso_local externally_initialized global %struct.texture zeroinitializer, "
                      "align 4\n"),
            std::string::npos);
  EXPECT_NE(text.find("@tile = internal global [4 x i32] undef, section \".kestrel.shared\", align 4\n"),
            std::string::npos);
}

TEST(IrText, RejectsASharedVariableWithItsOwnSection) {
  IrModule module = parse_ir("@s = internal global [4 x i32] undef, section \".mine\", align 4\n");
  EXPECT_THROW(place_device_sections(module), CompileError);
}

TEST(IrText, PlacesManagedVariables) {
  // `__device__ __managed__ int hits = 3;` and `__managed__ float sum;` as
  // clang 14 writes them (opaque-pointer annotations, as in the test below).
  IrModule module = parse_ir(
      "@hits = dso_local global i32 3, align 4\n"
      "@sum = dso_local global float 0.000000e+00, align 4\n"
      "@plain = dso_local global i32 7, align 4\n"
      "@.str = private unnamed_addr constant [16 x i8] c\"kestrel.managed\\00\", section \"llvm.metadata\"\n"
      "@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, "
      "ptr } { ptr @hits, ptr @.str, ptr @.str, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @sum, "
      "ptr @.str, ptr @.str, i32 2, ptr null }], section \"llvm.metadata\"\n");
  EXPECT_EQ(module.annotated("kestrel.managed"), (std::vector<std::string>{"hits", "sum"}));
  const SectionPlacement placement = place_device_sections(module);
  EXPECT_EQ(placement.managed_variables, 2u);
  EXPECT_EQ(placement.constant_variables, 0u);
  const std::string text = module.text();
  EXPECT_NE(text.find("@hits = dso_local global i32 3, section \".kestrel.managed\", align 4\n"),
            std::string::npos);
  EXPECT_NE(text.find("@sum = dso_local global float 0.000000e+00, section \".kestrel.managed\", align 4\n"),
            std::string::npos);
  EXPECT_NE(text.find("@plain = dso_local global i32 7, align 4\n"), std::string::npos);
}

TEST(IrText, OpaquePointerAnnotations) {
  const IrModule module = parse_ir(
      "@.str = private unnamed_addr constant [15 x i8] c\"kestrel.kernel\\00\", section \"llvm.metadata\"\n"
      "@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, "
      "ptr } "
      "{ ptr @_Z1kv, ptr @.str, ptr @.str, i32 1, ptr null }], section \"llvm.metadata\"\n");
  EXPECT_EQ(module.annotated("kestrel.kernel"), (std::vector<std::string>{"_Z1kv"}));
}

TEST(IrText, DecodesEscapes) {
  EXPECT_EQ(decode_ir_string("a\\22b\\5Cc\\\\d\\00"), std::string("a\"b\\c\\d\0", 8));
}

TEST(IrText, MalformedInputIsAnErrorNotACrash) {
  EXPECT_THROW(parse_ir("@x = global [4 x i32 undef\n"), CompileError);
  EXPECT_THROW(parse_ir("@x = global i8* c\"unterminated\n"), CompileError);
  EXPECT_THROW(parse_ir("@llvm.global.annotations = appending global [1 x { i8* }] [{ i8* } { i8* null }]\n"),
               CompileError);
  EXPECT_NO_THROW(parse_ir(""));
}

}  // namespace
}  // namespace kestrel::cc
