// KESTREL_STATS (docs/runtime.md, "Statistics"): every launch of every device
// of the process is one JSON line with the launch, the device, every counter
// and the derived figures; the first device of the process starts the file
// afresh, later ones append; a file that cannot be written refuses the device.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kestrel/kestrel.hpp"
#include "test_support.hpp"

namespace {

std::vector<nlohmann::json> read_lines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream file(path);
  for (std::string line; std::getline(file, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

void run_fill(kestrel::Device& device, int n) {
  kestrel::Module module = kestrel::Module::from_bytes(device, kestrel::testing::fixture_module(64));
  kestrel::DeviceBuffer<int> out(device, 256);
  module.kernel("fill_index").launch(kestrel::Dim3(2), kestrel::Dim3(128), 0, out, 0, n);
  device.synchronize();
}

TEST(StatsFile, EveryLaunchIsAJsonLine) {
  const std::string path = ::testing::TempDir() + "kestrel_stats_test.jsonl";
  { std::ofstream(path) << "{\"stale\": true}\n"; }  // from an earlier run: replaced
  ASSERT_EQ(setenv("KESTREL_STATS", path.c_str(), 1), 0);
  {
    kestrel::Device first = kestrel::Device::open("model");
    run_fill(first, 200);
    kestrel::Device second = kestrel::Device::open("model");  // the same file, appended
    run_fill(second, 10);
    run_fill(first, 256);
  }
  unsetenv("KESTREL_STATS");
  const std::vector<nlohmann::json> lines = read_lines(path);
  ASSERT_EQ(lines.size(), 3u);
  const nlohmann::json& launch = lines[0];
  EXPECT_EQ(launch["launch"], 1);
  EXPECT_EQ(launch["kernel"].get<std::string>().rfind("fill_index(", 0), 0u) << launch.dump();
  EXPECT_EQ(launch["grid"], nlohmann::json({2, 1, 1}));
  EXPECT_EQ(launch["block"], nlohmann::json({128, 1, 1}));
  EXPECT_TRUE(launch["fault"].is_null());
  EXPECT_TRUE(launch["profiler_window"].is_null()) << "no CUDA profiler window in the C++ API";
  EXPECT_EQ(launch["device"]["backend"], "model");
  EXPECT_EQ(launch["device"]["scheduler"], "lrr");
  EXPECT_EQ(launch["counters"]["blocks"], 2);
  EXPECT_TRUE(launch["dram"].is_null()) << "the model has no DRAM model: no figures invented";
  EXPECT_TRUE(launch["memory"].is_null()) << "nor memory-side counters";
  EXPECT_EQ(launch["device"]["l2_bytes"], 0);
  const double cycles = launch["counters"]["cycles"].get<double>();
  ASSERT_GT(cycles, 0.0);
  EXPECT_DOUBLE_EQ(launch["derived"]["ipc"].get<double>(),
                   launch["counters"]["warp_instrs"].get<double>() / cycles);
  for (const char* reason : {"scoreboard", "memory", "barrier", "idle"})
    EXPECT_TRUE(launch["derived"]["stall_shares"][reason].is_number()) << reason;
  // Each SM's part, summing to the counters, and how even it was.
  const nlohmann::json& per_sm = launch["per_sm"];
  ASSERT_TRUE(per_sm.is_array()) << launch.dump();
  ASSERT_EQ(per_sm.size(), 2u);
  for (const char* name : {"warp_instrs", "thread_instrs", "stall_scoreboard", "stall_memory",
                           "stall_barrier", "stall_idle", "blocks"}) {
    EXPECT_EQ(per_sm[0][name].get<uint64_t>() + per_sm[1][name].get<uint64_t>(),
              launch["counters"][name].get<uint64_t>())
        << name;
  }
  EXPECT_EQ(per_sm[1]["sm"], 1);
  EXPECT_LE(per_sm[0]["active_cycles"].get<double>(), cycles);
  EXPECT_DOUBLE_EQ(per_sm[0]["ipc"].get<double>(), per_sm[0]["warp_instrs"].get<double>() / cycles);
  EXPECT_TRUE(per_sm[0]["stall_shares"]["memory"].is_number());
  EXPECT_GE(launch["derived"]["sm_imbalance"].get<double>(), 1.0);
  EXPECT_EQ(lines[1]["launch"], 1) << "the second device counts its own launches";
  EXPECT_EQ(lines[2]["launch"], 2);
  EXPECT_GT(lines[2]["counters"]["thread_instrs"].get<double>(),
            lines[1]["counters"]["thread_instrs"].get<double>());
  std::remove(path.c_str());
}

TEST(StatsFile, AnUnwritableFileRefusesTheDevice) {
  ASSERT_EQ(setenv("KESTREL_STATS", "/nonexistent/dir/stats.jsonl", 1), 0);
  kestrel_device_t* device = nullptr;
  EXPECT_EQ(kestrel_device_open("model", nullptr, &device), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_NE(
      std::string(kestrel_device_last_error(nullptr)).find("cannot write '/nonexistent/dir/stats.jsonl'"),
      std::string::npos)
      << kestrel_device_last_error(nullptr);
  unsetenv("KESTREL_STATS");
}

}  // namespace
