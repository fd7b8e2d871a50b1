// KESTREL_CONFIG / KESTREL_CONFIG_FILE (kestrel/driver/run_config.hpp,
// docs/configuration.md): every key, the file form with comments and line
// numbers in errors, the inline form winning over the file, backend options
// kept per backend, and a clear error for each kind of bad setting.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "kestrel/driver/device.hpp"
#include "kestrel/driver/run_config.hpp"
#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"

namespace kestrel::driver {
namespace {

std::string error_of(const std::string& text) {
  RunConfig config;
  try {
    parse_run_config(text, "KESTREL_CONFIG", config);
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE);
    return e.what();
  }
  return "(accepted)";
}

TEST(RunConfig, ParsesEveryKey) {
  RunConfig c;
  parse_run_config(
      "backend=model, xlen=32, sms=4, warps=16, lanes=8, mem_mib=64, scheduler=gto, watchdog_mcycles=3,"
      "stack_bytes=2048, stats=run.json, rtlsim.mem_latency=100, model.x=1",
      "KESTREL_CONFIG", c);
  EXPECT_EQ(c.backend, "model");
  EXPECT_EQ(c.device.xlen, 32u);
  EXPECT_EQ(c.device.num_sms, 4u);
  EXPECT_EQ(c.device.warps_per_sm, 16u);
  EXPECT_EQ(c.device.lanes_per_warp, 8u);
  EXPECT_EQ(c.device.mem_bytes, 64ull << 20);
  EXPECT_EQ(c.device.sched_policy, unsigned{KESTREL_SCHED_GTO});
  EXPECT_EQ(c.watchdog_mcycles, 3u);
  EXPECT_EQ(c.stack_bytes, 2048u);
  EXPECT_EQ(c.stats_path, "run.json");
  EXPECT_EQ(c.backend_options["rtlsim"]["mem_latency"], "100");
  EXPECT_EQ(c.backend_options["model"]["x"], "1");
  EXPECT_TRUE(c.device.options.empty()) << "backend options wait for the backend that is opened";
  RunConfig numbered;
  parse_run_config("scheduler=5", "KESTREL_CONFIG", numbered);
  EXPECT_EQ(numbered.device.sched_policy, 5u) << "room for a new policy";
}

TEST(RunConfig, RefusesBadSettingsNamingThem) {
  EXPECT_NE(error_of("smz=4").find("KESTREL_CONFIG: 'smz=4': unknown key (known: backend, xlen"),
            std::string::npos);
  EXPECT_NE(error_of("sms").find("'sms' is not key=value"), std::string::npos);
  EXPECT_NE(error_of("sms=0").find("not a number from 1 to 255"), std::string::npos);
  EXPECT_NE(error_of("sms=-1").find("not a number"), std::string::npos);
  EXPECT_NE(error_of("warps=many").find("'warps=many'"), std::string::npos);
  EXPECT_NE(error_of("xlen=48").find("xlen is 32 or 64"), std::string::npos);
  EXPECT_NE(error_of("lanes=12").find("power of two"), std::string::npos);
  EXPECT_NE(error_of("scheduler=fifo").find("lrr, gto or a policy number"), std::string::npos);
  EXPECT_NE(error_of("scheduler=16").find("0 to 15"), std::string::npos);
  EXPECT_NE(error_of("stack_bytes=100").find("multiple of 16"), std::string::npos);
  EXPECT_NE(error_of("backend=").find("empty backend name"), std::string::npos);
  EXPECT_NE(error_of(".x=1").find("unknown key"), std::string::npos);
}

class RunConfigEnvironment : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv("KESTREL_CONFIG");
    unsetenv("KESTREL_CONFIG_FILE");
    std::remove(path_.c_str());
  }
  std::string write_file(const std::string& text) {
    std::ofstream(path_) << text;
    return path_;
  }
  // One file per test and process: CTest runs these tests in parallel.
  std::string path_ = ::testing::TempDir() + "kestrel_run_config_" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                      std::to_string(getpid()) + ".cfg";
};

TEST_F(RunConfigEnvironment, TheInlineSettingsWinOverTheFile) {
  const std::string path =
      write_file("# a machine for the lab\nsms = 4\nwarps=16  # more warps\n\nscheduler=gto\n");
  setenv("KESTREL_CONFIG_FILE", path.c_str(), 1);
  setenv("KESTREL_CONFIG", "warps=4", 1);
  const RunConfig c = run_config_from_environment();
  EXPECT_EQ(c.device.num_sms, 4u);
  EXPECT_EQ(c.device.warps_per_sm, 4u);
  EXPECT_EQ(c.device.sched_policy, unsigned{KESTREL_SCHED_GTO});
  EXPECT_EQ(c.device.lanes_per_warp, 32u) << "the default where nothing sets it";
}

TEST_F(RunConfigEnvironment, FileErrorsNameTheFileAndLine) {
  const std::string path = write_file("sms=4\n\nlanes=3\n");
  setenv("KESTREL_CONFIG_FILE", path.c_str(), 1);
  try {
    run_config_from_environment();
    FAIL() << "lanes=3 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3: 'lanes=3'"), std::string::npos) << e.what();
  }
  setenv("KESTREL_CONFIG_FILE", "/nonexistent/kestrel.cfg", 1);
  try {
    run_config_from_environment();
    FAIL() << "a missing file accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read '/nonexistent/kestrel.cfg'"), std::string::npos);
  }
}

TEST_F(RunConfigEnvironment, ChoosesTheDefaultBackend) {
  setenv("KESTREL_CONFIG", "backend=model", 1);
  EXPECT_EQ(kestrel::default_backend(), "model");
  setenv("KESTREL_BACKEND", "fpga", 1);
  EXPECT_EQ(kestrel::default_backend(), "fpga") << "KESTREL_BACKEND wins";
  unsetenv("KESTREL_BACKEND");
}

}  // namespace
}  // namespace kestrel::driver
