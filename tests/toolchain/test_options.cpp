// kestrel-cc's command line.
#include <gtest/gtest.h>

#include "compile_error.hpp"
#include "options.hpp"

namespace kestrel::cc {
namespace {

TEST(Options, DefaultsAndOutputName) {
  const Options options = parse_options({"dir/vector_add.cu"});
  EXPECT_EQ(options.xlen, 64u);
  EXPECT_EQ(options.optimization, "2");
  EXPECT_FALSE(options.debug_info);
  EXPECT_EQ(options.output, "vector_add.kmod");
  EXPECT_EQ(options.sources, (std::vector<std::string>{"dir/vector_add.cu"}));
}

TEST(Options, ParsesEveryFlagInBothSpellings) {
  const Options options =
      parse_options({"-rv32",    "-O0",    "-g",     "-I",    "inc",          "-Iinc2",     "-D",
                     "N=4",      "-DFAST", "-UOLD",  "-Wall", "-w",           "-std=c++20", "-o",
                     "out.kmod", "-MF",    "deps.d", "-v",    "--keep-temps", "a.cu",       "b.cu"});
  EXPECT_EQ(options.xlen, 32u);
  EXPECT_EQ(options.optimization, "0");
  EXPECT_TRUE(options.debug_info);
  EXPECT_EQ(options.include_dirs, (std::vector<std::string>{"inc", "inc2"}));
  EXPECT_EQ(options.macro_flags, (std::vector<std::string>{"-DN=4", "-DFAST", "-UOLD"}));
  EXPECT_EQ(options.warning_flags, (std::vector<std::string>{"-Wall", "-w"}));
  EXPECT_EQ(options.language_standard, "c++20");
  EXPECT_EQ(options.output, "out.kmod");
  EXPECT_EQ(options.depfile, "deps.d");
  EXPECT_TRUE(options.verbose);
  EXPECT_TRUE(options.keep_temps);
  EXPECT_EQ(options.sources.size(), 2u);
}

TEST(Options, BadCommandLinesAreErrors) {
  EXPECT_THROW(parse_options({}), CompileError);
  EXPECT_THROW(parse_options({"-O7", "a.cu"}), CompileError);
  EXPECT_THROW(parse_options({"--frobnicate", "a.cu"}), CompileError);
  EXPECT_THROW(parse_options({"a.cu", "-o"}), CompileError);
  EXPECT_THROW(parse_options({"-std=c++98", "a.cu"}), CompileError);
  EXPECT_TRUE(parse_options({"--help"}).help);
}

// The nvcc flags that Makefiles of CUDA projects (cuda-samples among them)
// pass: accepted, mapped where they mean something here, noted where not.
TEST(Options, AcceptsTheNvccFlagsOfCommonMakefiles) {
  const Options options = parse_options({"-std=c++11",
                                         "-m64",
                                         "-ccbin",
                                         "g++",
                                         "--extended-lambda",
                                         "--expt-relaxed-constexpr",
                                         "-Xptxas",
                                         "-v",
                                         "-maxrregcount",
                                         "32",
                                         "-cudart",
                                         "static",
                                         "-t",
                                         "4",
                                         "--generate-line-info",
                                         "-o",
                                         "app",
                                         "-x",
                                         "cu",
                                         "kernels.cpp",
                                         "-x",
                                         "none",
                                         "main.cpp",
                                         "helpers.cu"});
  EXPECT_EQ(options.language_standard, "c++14");
  EXPECT_EQ(options.sources, (std::vector<std::string>{"kernels.cpp", "helpers.cu"}));
  EXPECT_EQ(options.host_sources, (std::vector<std::string>{"main.cpp"}));
  EXPECT_TRUE(options.whole_program);
  EXPECT_FALSE(options.verbose);  // -v after -Xptxas is ptxas's, not ours
  EXPECT_EQ(options.notes.size(), 9u);
  EXPECT_EQ(parse_options({"--std", "c++17", "a.cu"}).language_standard, "c++17");
  EXPECT_EQ(parse_options({"-x", "c++", "a.cu", "-o", "app"}).host_sources,
            (std::vector<std::string>{"a.cu"}));
  EXPECT_THROW(parse_options({"-m32", "a.cu"}), CompileError);
  EXPECT_THROW(parse_options({"-x", "fortran", "a.cu"}), CompileError);
  EXPECT_THROW(parse_options({"-ccbin"}), CompileError);
}

TEST(Options, MultilibFolders) {
  EXPECT_EQ(ToolchainPaths::multilib(64), "rv64imf/lp64f");
  EXPECT_EQ(ToolchainPaths::multilib(32), "rv32imf/ilp32f");
}

}  // namespace
}  // namespace kestrel::cc
