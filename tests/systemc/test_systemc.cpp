// The SystemC platform: one Platform per process (SystemC elaborates once),
// built by the environment below with a probe initiator on its bus, and
// handed to the "systemc" backend.
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kestrel/abi.h"
#include "kestrel/host_regs.h"
#include "kestrel/kestrel.hpp"
#include "kestrel/systemc/platform.hpp"

namespace {

using kestrel::systemc::kRegisterBase;

// An initiator the tests drive by hand, beside the host port.
struct Probe : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Probe> socket;
  explicit Probe(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {}
};

struct World {
  std::unique_ptr<kestrel::systemc::Platform> platform;
  std::unique_ptr<Probe> probe;
};

World& world() {
  static World w;
  return w;
}

// KESTREL_TEST_SYSTEMC_GPU=model: the platform has the fast GPU, and the
// backend to match is the model instead of rtlsim.
bool fast() {
  const char* gpu = std::getenv("KESTREL_TEST_SYSTEMC_GPU");
  return gpu != nullptr && std::string(gpu) == "model";
}

// KESTREL_TEST_SYSTEMC_DRAM=<preset>: the platform's memory is timed by
// rtlsim's DRAM model with that preset (docs/memory-system.md), and rtlsim
// is opened with the same one.
std::string dram_preset() {
  const char* dram = std::getenv("KESTREL_TEST_SYSTEMC_DRAM");
  return dram == nullptr ? std::string() : std::string(dram);
}

class PlatformEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    setenv("SYSC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    kestrel::BackendConfig config;
    config.mem_bytes = 16u << 20;
    kestrel::systemc::PlatformTiming timing;  // 100 MHz, memory latency 20 cycles: rtlsim's default
    if (!dram_preset().empty()) timing.dram = kestrel::rtlsim::dram_preset(dram_preset());
    World& w = world();
    w.platform = std::make_unique<kestrel::systemc::Platform>(
        "platform", config, timing,
        fast() ? kestrel::systemc::GpuKind::kFast : kestrel::systemc::GpuKind::kCycleAccurate);
    w.probe = std::make_unique<Probe>("probe");
    w.probe->socket.bind(w.platform->bus.initiators);
    kestrel::systemc::use_platform(*w.platform);
    w.platform->host.call([] {});  // elaboration ends
  }
};
const auto* const environment = ::testing::AddGlobalTestEnvironment(new PlatformEnvironment);

struct Answer {
  tlm::tlm_response_status status;
  uint32_t value;
  sc_core::sc_time delay;
};

Answer probe(tlm::tlm_command command, uint64_t addr, unsigned length, const unsigned char* enables = nullptr,
             unsigned enable_length = 0, uint32_t value = 0) {
  unsigned char data[8] = {};
  std::memcpy(data, &value, 4);
  tlm::tlm_generic_payload trans;
  trans.set_command(command);
  trans.set_address(addr);
  trans.set_data_ptr(data);
  trans.set_data_length(length);
  trans.set_streaming_width(length);
  trans.set_byte_enable_ptr(const_cast<unsigned char*>(enables));
  trans.set_byte_enable_length(enable_length);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  world().probe->socket->b_transport(trans, delay);
  uint32_t read = 0;
  std::memcpy(&read, data, 4);
  return {trans.get_response_status(), read, delay};
}

TEST(SystemcSockets, RegistersAnswerWordAccessesAndRefuseTheRest) {
  const Answer id = probe(tlm::TLM_READ_COMMAND, kRegisterBase + KESTREL_REG_ID, 4);
  EXPECT_EQ(id.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(id.value, KESTREL_ID_VALUE);
  if (!fast()) {
    EXPECT_GT(id.delay, sc_core::SC_ZERO_TIME) << "a register access takes the GPU's cycles";
  }
  EXPECT_EQ(probe(tlm::TLM_READ_COMMAND, kRegisterBase + 2, 4).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(probe(tlm::TLM_READ_COMMAND, kRegisterBase + 0x2000, 4).status, tlm::TLM_ADDRESS_ERROR_RESPONSE)
      << "past the register window: no target";
  EXPECT_EQ(probe(tlm::TLM_READ_COMMAND, kRegisterBase, 2).status, tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(probe(tlm::TLM_READ_COMMAND, kRegisterBase, 8).status, tlm::TLM_BURST_ERROR_RESPONSE);
  const unsigned char partial[4] = {TLM_BYTE_ENABLED, TLM_BYTE_DISABLED, TLM_BYTE_ENABLED, TLM_BYTE_ENABLED};
  EXPECT_EQ(probe(tlm::TLM_WRITE_COMMAND, kRegisterBase + KESTREL_REG_GRID_X, 4, partial, 4).status,
            tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  EXPECT_EQ(probe(tlm::TLM_IGNORE_COMMAND, kRegisterBase, 4).status, tlm::TLM_COMMAND_ERROR_RESPONSE);
}

TEST(SystemcSockets, MemoryChecksRangeAndHonoursByteEnables) {
  const uint64_t base = KESTREL_GLOBAL_BASE;
  EXPECT_EQ(probe(tlm::TLM_WRITE_COMMAND, base + 64, 4, nullptr, 0, 0x11223344u).status,
            tlm::TLM_OK_RESPONSE);
  const unsigned char middle[4] = {TLM_BYTE_DISABLED, TLM_BYTE_ENABLED, TLM_BYTE_ENABLED, TLM_BYTE_DISABLED};
  EXPECT_EQ(probe(tlm::TLM_WRITE_COMMAND, base + 64, 4, middle, 4, 0xAABBCCDDu).status, tlm::TLM_OK_RESPONSE);
  const Answer read = probe(tlm::TLM_READ_COMMAND, base + 64, 4);
  EXPECT_EQ(read.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(read.value, 0x11BBCC44u);
  EXPECT_EQ(read.delay, sc_core::sc_time(200, sc_core::SC_NS)) << "20 cycles at 100 MHz";
  const uint64_t end = base + world().platform->memory.size();
  EXPECT_EQ(probe(tlm::TLM_READ_COMMAND, end - 2, 4).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(probe(tlm::TLM_READ_COMMAND, base - 4, 4).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  const unsigned char none[1] = {TLM_BYTE_ENABLED};
  EXPECT_EQ(probe(tlm::TLM_READ_COMMAND, base, 4, none, 0).status, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  // DMI: memory grants it with its latency; registers never do.
  tlm::tlm_generic_payload trans;
  tlm::tlm_dmi dmi;
  trans.set_address(base);
  EXPECT_TRUE(world().probe->socket->get_direct_mem_ptr(trans, dmi));
  EXPECT_EQ(dmi.get_start_address(), base);
  EXPECT_EQ(dmi.get_end_address(), end - 1);
  EXPECT_EQ(dmi.get_read_latency(), sc_core::sc_time(200, sc_core::SC_NS));
  trans.set_address(kRegisterBase);
  EXPECT_FALSE(world().probe->socket->get_direct_mem_ptr(trans, dmi));
}

struct SaxpyRun {
  std::vector<int> y;
  uint64_t cycles;
};

// y = 3x + y over n elements on `backend`.
SaxpyRun saxpy(const std::string& backend, int n) {
  kestrel::DeviceConfig config{};
  config.mem_bytes = 16u << 20;
  const std::string settings = "rtlsim.dram=" + dram_preset();
  if (backend == "rtlsim" && !dram_preset().empty()) config.settings = settings.c_str();
  kestrel::Device device = kestrel::Device::open(backend, &config);
  kestrel::Module module = kestrel::Module::load(device, KESTREL_SYSTEMC_MODULE);
  const kestrel::Kernel kernel = module.kernel("saxpy_int");
  std::vector<int> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 7 * i - 300;
    y[i] = 1000 - i;
  }
  kestrel::DeviceBuffer<int> dx(device, n), dy(device, n);
  dx.upload(x);
  dy.upload(y);
  kernel.launch(kestrel::Dim3((n + 127) / 128), kestrel::Dim3(128), 0, dx, dy, 3, n);
  device.synchronize();
  return {dy.download(), device.launch_stats().counters.value[KESTREL_CNT_CYCLES]};
}

// The cycle-accurate GPU gives rtlsim's result and cycle count; the fast one
// the model backend's.
TEST(SystemcPlatform, KernelMatchesItsBackendsResultAndCycles) {
  const int n = 1500;
  const sc_core::sc_time started = sc_core::sc_time_stamp();
  const SaxpyRun tlm = saxpy("systemc", n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(tlm.y[i], 3 * (7 * i - 300) + 1000 - i) << "element " << i;
  EXPECT_TRUE(world().platform->gpu().irq.read())
      << "the completion interrupt stays high until the next START";
  EXPECT_GE(sc_core::sc_time_stamp() - started,
            sc_core::sc_time(10, sc_core::SC_NS) * static_cast<double>(tlm.cycles))
      << "the launch's cycles took their time at 100 MHz";
  if (!fast() && dram_preset().empty()) {
    EXPECT_GT(world().platform->gpu_rtl()->dmi_lines(), 0u)
        << "the GPU took the DMI pointer the memory granted";
  }
  const SaxpyRun reference = saxpy(fast() ? "model" : "rtlsim", n);
  EXPECT_EQ(tlm.y, reference.y);
  EXPECT_EQ(tlm.cycles, reference.cycles) << "the same memory timing gives the backend's cycle count";
}

// The DRAM model's counters reach the runtime's statistics from the
// platform's memory: every line request the GPU sent to its DRAM port (the
// memory counter window's dram_requests: the L2's misses and
// write-throughs) and nothing invented on a fixed-latency memory.
TEST(SystemcPlatform, DramCountersReachTheStatistics) {
  kestrel::DeviceConfig config{};
  config.mem_bytes = 16u << 20;
  kestrel::Device device = kestrel::Device::open("systemc", &config);
  kestrel::Module module = kestrel::Module::load(device, KESTREL_SYSTEMC_MODULE);
  kestrel::DeviceBuffer<int> x(device, 256), y(device, 256);
  x.upload(std::vector<int>(256, 2));
  y.upload(std::vector<int>(256, 1));
  module.kernel("saxpy_int").launch(kestrel::Dim3(2), kestrel::Dim3(128), 0, x, y, 5, 256);
  device.synchronize();
  EXPECT_EQ(y.download(), std::vector<int>(256, 11));
  const kestrel_dram_stats dram = device.launch_dram_stats();
  if (dram_preset().empty()) {
    EXPECT_EQ(dram.modelled, 0u) << "a fixed-latency memory has no DRAM figures";
    return;
  }
  ASSERT_EQ(dram.modelled, 1u);
  const kestrel_memory_stats memory = device.launch_memory_stats();
  ASSERT_EQ(memory.counted, 1u);
  EXPECT_EQ(dram.reads + dram.writes, memory.value[KESTREL_MEM_CNT_DRAM_REQUESTS]);
  EXPECT_LE(dram.reads + dram.writes, device.launch_stats().counters.value[KESTREL_CNT_MEM_REQUESTS]);
  EXPECT_GT(dram.writes, 0u);
  EXPECT_EQ(dram.row_hits + dram.row_misses + dram.row_conflicts, dram.reads + dram.writes);
  EXPECT_GE(dram.average_read_latency,
            static_cast<double>(kestrel::rtlsim::dram_preset(dram_preset()).latency));
}

TEST(SystemcPlatform, TransportedLinesGiveTheSameCyclesAsDmi) {
  kestrel::systemc::GpuRtl* gpu = world().platform->gpu_rtl();
  if (gpu == nullptr) GTEST_SKIP() << "the fast GPU always works through DMI";
  if (!dram_preset().empty()) GTEST_SKIP() << "a DRAM-timed memory grants no DMI pointer";
  const SaxpyRun with_dmi = saxpy("systemc", 700);
  gpu->set_dmi(false);
  const uint64_t before = gpu->transported_lines();
  const SaxpyRun without = saxpy("systemc", 700);
  gpu->set_dmi(true);
  EXPECT_GT(gpu->transported_lines(), before);
  EXPECT_EQ(with_dmi.y, without.y);
  EXPECT_EQ(with_dmi.cycles, without.cycles);
}

TEST(SystemcPlatform, FaultIsReportedAndTheDeviceKeepsWorking) {
  kestrel::DeviceConfig config{};
  config.mem_bytes = 16u << 20;
  kestrel::Device device = kestrel::Device::open("systemc", &config);
  kestrel::Module module = kestrel::Module::load(device, KESTREL_SYSTEMC_MODULE);
  kestrel::DeviceBuffer<int> out(device, 256);
  try {
    module.kernel("store_to_bad").launch(kestrel::Dim3(2), kestrel::Dim3(64), 0, out, 0x40ull);
    device.synchronize();
    FAIL() << "the store to an unmapped address was not reported";
  } catch (const kestrel::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("illegal address"), std::string::npos) << what;
    EXPECT_NE(what.find("thread (5,0,0)"), std::string::npos) << what;
    EXPECT_NE(what.find("block (1,0,0)"), std::string::npos) << what;
  }
  kestrel::DeviceBuffer<int> x(device, 64), y(device, 64);
  x.upload(std::vector<int>(64, 2));
  y.upload(std::vector<int>(64, 1));
  module.kernel("saxpy_int").launch(kestrel::Dim3(1), kestrel::Dim3(64), 0, x, y, 5, 64);
  device.synchronize();
  EXPECT_EQ(y.download(), std::vector<int>(64, 11));
}

// A write another initiator makes while a kernel runs reaches the kernel:
// the kernel keeps reading its flag's line from the L2 until the bus tells
// the GPU of the host port's write (GpuComponent::memory_written, which
// empties the L2 as rtlsim's concurrent copies do; docs/systemc.md).
TEST(SystemcPlatform, HostWriteDuringALaunchReachesThePollingKernel) {
  kestrel::DeviceConfig config{};
  config.mem_bytes = 16u << 20;
  kestrel::Device device = kestrel::Device::open("systemc", &config);
  kestrel::Module module = kestrel::Module::load(device, KESTREL_SYSTEMC_MODULE);
  kestrel::DeviceBuffer<int> state(device, 4);
  state.upload(std::vector<int>(4, 0));
  module.kernel("wait_for_host").launch(kestrel::Dim3(1), kestrel::Dim3(1), 0, state, 256ll);
  kestrel_device_t* d = device.handle();
  int running = 0, mark = 0, slices = 0;
  while (mark == 0) {
    ASSERT_EQ(kestrel_launch_advance(d, 256, &running), KESTREL_SUCCESS);
    ASSERT_EQ(running, 1) << "the kernel ended before the host set its flag";
    ASSERT_EQ(kestrel_memcpy_dtoh_concurrent(d, &mark, state.ptr(), sizeof mark), KESTREL_SUCCESS);
    ASSERT_LT(++slices, 1000);
  }
  // Let the kernel poll the flag's line into the L2 first.
  ASSERT_EQ(kestrel_launch_advance(d, 512, &running), KESTREL_SUCCESS);
  const int flag = 9;
  ASSERT_EQ(kestrel_memcpy_htod_concurrent(d, state.ptr() + sizeof(int), &flag, sizeof flag),
            KESTREL_SUCCESS);
  device.synchronize();
  const std::vector<int> result = state.download();
  EXPECT_EQ(result[2], flag) << "the kernel never saw the host's write";
  EXPECT_EQ(result[3], 0);
}

TEST(SystemcPlatform, OneDeviceAtATime) {
  kestrel::Device first = kestrel::Device::open("systemc", nullptr);
  try {
    kestrel::Device second = kestrel::Device::open("systemc", nullptr);
    FAIL() << "a second device opened on the one platform";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(e.what()).find("one systemc device"), std::string::npos) << e.what();
  }
}

TEST(SystemcPlatform, BadOptionsAreRefused) {
  kestrel::DeviceConfig config{};
  config.settings = "systemc.quantum=0";
  EXPECT_THROW(kestrel::Device::open("systemc", &config), kestrel::Error);
  config.settings = "systemc.bogus=1";
  try {
    kestrel::Device::open("systemc", &config);
    FAIL() << "an unknown option was accepted";
  } catch (const kestrel::Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown backend option 'bogus'"), std::string::npos) << e.what();
  }
}

}  // namespace
