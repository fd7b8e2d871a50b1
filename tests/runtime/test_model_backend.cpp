// The runtime on every kernel-running backend (the functional model, the
// Verilated RTL): the fixture kernels really run, faults come back from the
// device's fault record, and the device keeps working.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <tuple>

#include "backend_features.hpp"
#include "kestrel/kestrel.hpp"
#include "test_support.hpp"

namespace {

// (backend, XLEN)
using Target = std::tuple<std::string, unsigned>;

class RuntimeBackend : public ::testing::TestWithParam<Target> {
 protected:
  RuntimeBackend() : device_(open()), module_(kestrel::Module::from_bytes(device_, fixture())) {}

  const std::string& backend() const { return std::get<0>(GetParam()); }
  unsigned xlen() const { return std::get<1>(GetParam()); }
  kestrel::Device open() const {
    kestrel::DeviceConfig config{};
    config.xlen = xlen();
    config.mem_bytes = 64u << 20;
    return kestrel::Device::open(backend(), &config);
  }
  std::vector<uint8_t> fixture() const { return kestrel::testing::fixture_module(xlen()); }

  void fill(kestrel::DeviceBuffer<int>& out, int base, int n, uint32_t block) {
    const uint32_t grid = (static_cast<uint32_t>(n) + block - 1) / block;
    module_.kernel("fill_index").launch(kestrel::Dim3(grid), kestrel::Dim3(block), 0, out, base, n);
    device_.synchronize();
  }

  kestrel::Device device_;
  kestrel::Module module_;
};

TEST_P(RuntimeBackend, PropsComeFromTheBackend) {
  const kestrel_device_props props = device_.props();
  EXPECT_EQ(props.backend, backend());
  EXPECT_EQ(props.xlen, xlen());
  EXPECT_EQ(props.global_mem_bytes, 64u << 20);
  EXPECT_GT(props.warp_size, 0u);
  EXPECT_GT(props.shared_mem_per_block, 0u);
}

TEST_P(RuntimeBackend, KernelWritesEveryElementAndNoMore) {
  const int n = 1000;
  kestrel::DeviceBuffer<int> out(device_, 1024);
  out.fill_bytes(0xFF);
  fill(out, 100, n, 128);
  const std::vector<int> result = out.download();
  for (int i = 0; i < n; ++i) ASSERT_EQ(result[static_cast<size_t>(i)], 100 + i) << "element " << i;
  for (size_t i = n; i < result.size(); ++i) ASSERT_EQ(result[i], -1) << "element " << i << " was written";

  const kestrel_counters counters = device_.counters();
  EXPECT_EQ(counters.value[KESTREL_CNT_BLOCKS], 8u);
  EXPECT_GT(counters.value[KESTREL_CNT_WARP_INSTRS], 0u);
  EXPECT_GE(counters.value[KESTREL_CNT_THREAD_INSTRS], counters.value[KESTREL_CNT_WARP_INSTRS]);
  EXPECT_GT(counters.value[KESTREL_CNT_STORES], 0u);
}

TEST_P(RuntimeBackend, IllegalAddressIsReportedAndTheDeviceStillWorks) {
  kestrel_devptr_t freed = 0;
  {
    kestrel::DeviceBuffer<int> gone(device_, 16);
    freed = gone.ptr();
  }
  module_.kernel("_Z4pokePi").launch(kestrel::Dim3(2), kestrel::Dim3(64), 0, freed + 8);
  try {
    device_.synchronize();
    FAIL() << "store to a freed page did not fault";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_LAUNCH_FAULT);
    EXPECT_NE(std::string(e.what()).find("illegal address"), std::string::npos) << e.what();
  }
  const kestrel_fault_info fault = device_.fault();
  EXPECT_EQ(fault.kind, KESTREL_FAULT_ILLEGAL_ADDRESS);
  EXPECT_EQ(fault.address, freed + 8);
  EXPECT_EQ(fault.thread.x % 32, 0u);  // the lowest lane of its warp reports

  kestrel::DeviceBuffer<int> out(device_, 64);
  fill(out, 0, 64, 64);
  EXPECT_EQ(out.download()[63], 63);
}

TEST_P(RuntimeBackend, ConstantDataIsWriteProtected) {
  const kestrel::Global table = module_.global("test::table");
  module_.kernel("_Z4pokePi").launch(kestrel::Dim3(1), kestrel::Dim3(32), 0, table.ptr);
  EXPECT_THROW(device_.synchronize(), kestrel::Error);
  EXPECT_EQ(device_.fault().kind, KESTREL_FAULT_WRITE_PROTECT);
  EXPECT_EQ(module_.read_global<int>("test::table"), 10);
}

TEST_P(RuntimeBackend, NullPointerFaults) {
  module_.kernel("test::poke").launch(kestrel::Dim3(1), kestrel::Dim3(1), 0, kestrel_devptr_t{0});
  EXPECT_THROW(device_.synchronize(), kestrel::Error);
  EXPECT_EQ(device_.fault().kind, KESTREL_FAULT_ILLEGAL_ADDRESS);
  EXPECT_EQ(device_.fault().address, 0u);
}

TEST_P(RuntimeBackend, KernelWritesReachGlobals) {
  const kestrel::Global counter = module_.global("counter");
  module_.kernel("test::poke").launch(kestrel::Dim3(1), kestrel::Dim3(32), 0, counter.ptr);
  device_.synchronize();
  EXPECT_EQ(module_.read_global<int>("counter"), 2);
}

// kestrel_get_launch_stats (docs/runtime.md, "Statistics"): the latest
// launch's configuration, counters, fault and derived figures.
TEST_P(RuntimeBackend, LaunchStatsDescribeTheLatestLaunch) {
  try {
    device_.launch_stats();
    FAIL() << "statistics before the first launch";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_NOT_FOUND);
  }
  kestrel::DeviceBuffer<int> out(device_, 128);
  fill(out, 0, 100, 64);
  kestrel_launch_stats stats = device_.launch_stats();
  EXPECT_EQ(stats.sequence, 1u);
  EXPECT_EQ(std::string(stats.kernel).rfind("fill_index(", 0), 0u) << stats.kernel;
  EXPECT_EQ(stats.grid.x, 2u);
  EXPECT_EQ(stats.block.x, 64u);
  EXPECT_EQ(stats.fault_kind, KESTREL_FAULT_NONE);
  const kestrel_counters counters = device_.counters();
  for (int i = 0; i < KESTREL_CNT_COUNT; ++i) EXPECT_EQ(stats.counters.value[i], counters.value[i]) << i;
  const double cycles = static_cast<double>(counters.value[KESTREL_CNT_CYCLES]);
  const double warp_instrs = static_cast<double>(counters.value[KESTREL_CNT_WARP_INSTRS]);
  ASSERT_GT(cycles, 0.0);
  EXPECT_DOUBLE_EQ(stats.ipc, warp_instrs / cycles);
  EXPECT_DOUBLE_EQ(stats.ipc_per_sm, warp_instrs / cycles / device_.props().num_sms);
  EXPECT_DOUBLE_EQ(stats.lane_utilization, static_cast<double>(counters.value[KESTREL_CNT_THREAD_INSTRS]) /
                                               (warp_instrs * device_.props().warp_size));
  EXPECT_GT(stats.lane_utilization, 0.0);
  EXPECT_LE(stats.lane_utilization, 1.0);
  EXPECT_GT(stats.host_seconds, 0.0);

  module_.kernel("test::poke").launch(kestrel::Dim3(1), kestrel::Dim3(1), 0, kestrel_devptr_t{0});
  EXPECT_THROW(device_.synchronize(), kestrel::Error);
  stats = device_.launch_stats();
  EXPECT_EQ(stats.sequence, 2u);
  EXPECT_EQ(stats.fault_kind, KESTREL_FAULT_ILLEGAL_ADDRESS);
  EXPECT_EQ(stats.grid.x, 1u);
}

// kestrel_get_launch_sm_stats (docs/runtime.md, "Statistics"): each SM's
// part of the latest launch sums to the device's counters, and a grid that
// leaves one SM more blocks than the other shows it (3 blocks of a whole SM
// each on 2 SMs: one SM runs 2, the other 1).
TEST_P(RuntimeBackend, PerSmStatsSumToTheCountersAndShowImbalance) {
  const kestrel_device_props props = device_.props();
  ASSERT_EQ(props.num_sms, 2u);
  const uint32_t block = props.warp_size * props.warps_per_sm;  // one block fills an SM
  kestrel::DeviceBuffer<int> out(device_, 3 * block);
  module_.kernel("fill_index")
      .launch(kestrel::Dim3(3), kestrel::Dim3(block), 0, out, 0, static_cast<int>(3 * block));
  device_.synchronize();
  EXPECT_EQ(out.download()[3 * block - 1], static_cast<int>(3 * block - 1));
  const std::vector<kestrel_sm_stats> sms = device_.launch_sm_stats();
  ASSERT_EQ(sms.size(), 2u) << "both backends have the per-SM window";
  const kestrel_counters counters = device_.counters();
  const uint64_t cycles = counters.value[KESTREL_CNT_CYCLES];
  const std::pair<int, int> parts[] = {{KESTREL_SM_CNT_WARP_INSTRS, KESTREL_CNT_WARP_INSTRS},
                                       {KESTREL_SM_CNT_THREAD_INSTRS, KESTREL_CNT_THREAD_INSTRS},
                                       {KESTREL_SM_CNT_STALL_SCOREBOARD, KESTREL_CNT_STALL_SCOREBOARD},
                                       {KESTREL_SM_CNT_STALL_MEMORY, KESTREL_CNT_STALL_MEMORY},
                                       {KESTREL_SM_CNT_STALL_BARRIER, KESTREL_CNT_STALL_BARRIER},
                                       {KESTREL_SM_CNT_STALL_IDLE, KESTREL_CNT_STALL_IDLE},
                                       {KESTREL_SM_CNT_BLOCKS, KESTREL_CNT_BLOCKS}};
  for (const auto& [sm_counter, counter] : parts) {
    EXPECT_EQ(sms[0].value[sm_counter] + sms[1].value[sm_counter], counters.value[counter])
        << kestrel_sm_counter_name(sm_counter);
  }
  for (uint32_t s = 0; s < 2; ++s) {
    EXPECT_EQ(sms[s].sm, s);
    EXPECT_GT(sms[s].value[KESTREL_SM_CNT_ACTIVE_CYCLES], 0u);
    EXPECT_LE(sms[s].value[KESTREL_SM_CNT_ACTIVE_CYCLES], cycles);
    EXPECT_DOUBLE_EQ(sms[s].ipc, static_cast<double>(sms[s].value[KESTREL_SM_CNT_WARP_INSTRS]) /
                                     static_cast<double>(cycles));
  }
  const kestrel_sm_stats& busy = sms[0].value[KESTREL_SM_CNT_BLOCKS] == 2 ? sms[0] : sms[1];
  const kestrel_sm_stats& light = &busy == &sms[0] ? sms[1] : sms[0];
  EXPECT_EQ(busy.value[KESTREL_SM_CNT_BLOCKS], 2u);
  EXPECT_EQ(light.value[KESTREL_SM_CNT_BLOCKS], 1u);
  EXPECT_EQ(busy.value[KESTREL_SM_CNT_WARP_INSTRS], 2 * light.value[KESTREL_SM_CNT_WARP_INSTRS])
      << "the same block, twice";
  EXPECT_GT(busy.value[KESTREL_SM_CNT_ACTIVE_CYCLES], light.value[KESTREL_SM_CNT_ACTIVE_CYCLES]);

  // The count alone, and a buffer smaller than the SMs.
  uint32_t count = 0;
  ASSERT_EQ(kestrel_get_launch_sm_stats(device_.handle(), nullptr, 0, &count), KESTREL_SUCCESS);
  EXPECT_EQ(count, 2u);
  kestrel_sm_stats one{};
  ASSERT_EQ(kestrel_get_launch_sm_stats(device_.handle(), &one, 1, &count), KESTREL_SUCCESS);
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(one.value[KESTREL_SM_CNT_WARP_INSTRS], sms[0].value[KESTREL_SM_CNT_WARP_INSTRS]);
  EXPECT_EQ(kestrel_get_launch_sm_stats(device_.handle(), nullptr, 1, &count), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_sm_counter_name(KESTREL_SM_CNT_COUNT), nullptr);
}

// KESTREL_ITRACE (docs/runtime.md, "Instruction trace"): one line per
// warp-instruction the device issued, as many as its warp_instrs counter,
// disassembled, with the launch's header and the writes; with lock-step on
// rtlsim and without (rtlsim's tracer then follows the host's page maps
// alone: it crashed there once).
TEST_P(RuntimeBackend, InstructionTraceHasALinePerWarpInstruction) {
  const char* lockstep_env = std::getenv("KESTREL_LOCKSTEP");
  const std::string lockstep_given = lockstep_env != nullptr ? lockstep_env : "";
  for (const char* lockstep : {"0", "1"}) {
    SCOPED_TRACE(std::string("KESTREL_LOCKSTEP=") + lockstep);
    const std::string path =
        ::testing::TempDir() + "kestrel_itrace_" + backend() + std::to_string(xlen()) + lockstep + ".txt";
    ASSERT_EQ(setenv("KESTREL_ITRACE", path.c_str(), 1), 0);
    ASSERT_EQ(setenv("KESTREL_LOCKSTEP", lockstep, 1), 0);
    uint64_t warp_instrs = 0;
    {
      kestrel::Device device = open();
      unsetenv("KESTREL_ITRACE");
      kestrel::Module module = kestrel::Module::from_bytes(device, fixture());
      kestrel::DeviceBuffer<int> out(device, 64);
      module.kernel("fill_index").launch(kestrel::Dim3(1), kestrel::Dim3(40), 0, out, 7, 40);
      device.synchronize();
      warp_instrs = device.counters().value[KESTREL_CNT_WARP_INSTRS];
      EXPECT_EQ(out.download()[39], 46);
    }
    std::ifstream trace(path);
    std::string line;
    uint64_t instructions = 0;
    bool header = false, exit_seen = false, write_seen = false;
    while (std::getline(trace, line)) {
      if (line.rfind("# launch 1: entry 0x", 0) == 0) header = true;
      if (line.empty() || line[0] == '#') continue;
      ++instructions;
      exit_seen = exit_seen || line.find(" kx.exit") != std::string::npos;
      // The first warp reads tid.x: 0, 1, 2, ... in lane order.
      write_seen = write_seen || (line.find("csrr t4, tid.x") != std::string::npos &&
                                  line.find("t4=[0x0 0x1 0x2 ") != std::string::npos);
    }
    EXPECT_TRUE(header);
    EXPECT_TRUE(exit_seen);
    EXPECT_TRUE(write_seen);
    EXPECT_EQ(instructions, warp_instrs);
    std::remove(path.c_str());
  }
  if (lockstep_env != nullptr)
    setenv("KESTREL_LOCKSTEP", lockstep_given.c_str(), 1);
  else
    unsetenv("KESTREL_LOCKSTEP");
}

INSTANTIATE_TEST_SUITE_P(Backends, RuntimeBackend,
                         ::testing::Combine(::testing::ValuesIn(kestrel::features::test_backends()),
                                            ::testing::Values(64u, 32u)),
                         [](const ::testing::TestParamInfo<Target>& param) {
                           return std::get<0>(param.param) + "_RV" + std::to_string(std::get<1>(param.param));
                         });

}  // namespace
