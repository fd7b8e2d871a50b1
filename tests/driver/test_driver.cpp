// kestrel::driver::Device against the fake transport: identification,
// page mapping, the launch register sequence, fault decoding, backend choice.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <vector>

#include "fake_transport.hpp"
#include "kestrel/driver/device.hpp"

namespace kestrel::driver {
namespace {

using testing::FakeConfig;
using testing::FakeDeviceState;
using testing::FakeTransport;

kestrel_status open_status(const std::function<void(FakeDeviceState&)>& corrupt,
                           std::string* message = nullptr) {
  auto transport = std::make_unique<FakeTransport>();
  corrupt(*transport->state());
  try {
    Device device(std::move(transport));
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.status();
  }
  return KESTREL_SUCCESS;
}

TEST(DriverDevice, ReadsIdentificationAndConfig) {
  FakeConfig config;
  config.xlen = 32;
  config.lanes = 8;
  config.warps_per_sm = 4;
  config.num_sms = 3;
  Device device(std::make_unique<FakeTransport>(config));
  const DeviceInfo& info = device.info();
  EXPECT_EQ(info.xlen, 32u);
  EXPECT_EQ(info.lanes_per_warp, 8u);
  EXPECT_EQ(info.warps_per_sm, 4u);
  EXPECT_EQ(info.num_sms, 3u);
  EXPECT_EQ(info.shared_bytes_per_sm, 48u * 1024);
  EXPECT_EQ(info.max_threads_per_block, 1024u);
  EXPECT_EQ(info.mem_base, KESTREL_GLOBAL_BASE);
  EXPECT_EQ(info.mem_bytes, 16u << 20);
  EXPECT_EQ(device.backend_name(), "fake");
}

TEST(DriverDevice, RejectsWhatIsNotAUsableKestrel) {
  std::string message;
  EXPECT_EQ(open_status([](FakeDeviceState& s) { s.regs[KESTREL_REG_ID] = 0x12345678; }, &message),
            KESTREL_ERROR_NO_DEVICE);
  EXPECT_NE(message.find("not a Kestrel device"), std::string::npos);
  EXPECT_EQ(open_status([](FakeDeviceState& s) {
              s.regs[KESTREL_REG_CONFIG0] = (s.regs[KESTREL_REG_CONFIG0] & ~0xFFu) | 48;
            }),
            KESTREL_ERROR_NO_DEVICE);
  EXPECT_EQ(open_status([](FakeDeviceState& s) { s.regs[KESTREL_REG_CONFIG0] &= ~0xFF00u; }),
            KESTREL_ERROR_NO_DEVICE);
  EXPECT_EQ(open_status([](FakeDeviceState& s) { s.regs[KESTREL_REG_MEM_BASE] = 0x20000000; }),
            KESTREL_ERROR_NO_DEVICE);
  EXPECT_EQ(open_status([](FakeDeviceState& s) { s.regs[KESTREL_REG_MEM_SIZE_KB] = 0; }),
            KESTREL_ERROR_NO_DEVICE);
  EXPECT_EQ(open_status([](FakeDeviceState& s) { s.regs[KESTREL_REG_MEM_SIZE_KB] = 0xF0000000u / 1024; }),
            KESTREL_ERROR_NO_DEVICE);
  EXPECT_THROW(Device(nullptr), Error);
}

TEST(DriverDevice, MapsPagesThroughTheMapRegisters) {
  auto transport = std::make_unique<FakeTransport>();
  auto state = transport->state();
  Device device(std::move(transport));
  device.map_pages(KESTREL_GLOBAL_BASE + 0x2000, 3, KESTREL_PAGE_READ | KESTREL_PAGE_EXEC);
  EXPECT_EQ(state->perms_at(KESTREL_GLOBAL_BASE + 0x2000), uint32_t{KESTREL_PAGE_READ | KESTREL_PAGE_EXEC});
  EXPECT_EQ(state->perms_at(KESTREL_GLOBAL_BASE + 0x4FFF), uint32_t{KESTREL_PAGE_READ | KESTREL_PAGE_EXEC});
  EXPECT_EQ(state->perms_at(KESTREL_GLOBAL_BASE + 0x5000), 0u);
  device.unmap_pages(KESTREL_GLOBAL_BASE + 0x3000, 1);
  EXPECT_EQ(state->perms_at(KESTREL_GLOBAL_BASE + 0x3000), 0u);

  EXPECT_THROW(device.map_pages(KESTREL_GLOBAL_BASE + 12, 1, KESTREL_PAGE_READ), Error);
  EXPECT_THROW(device.map_pages(KESTREL_GLOBAL_BASE, 1, 0x8), Error);
  EXPECT_THROW(device.map_pages(KESTREL_GLOBAL_BASE - KESTREL_PAGE_SIZE, 1, KESTREL_PAGE_READ), Error);
  EXPECT_THROW(device.map_pages(KESTREL_GLOBAL_BASE + (16u << 20), 1, KESTREL_PAGE_READ), Error);
  uint32_t word = 0;
  EXPECT_THROW(device.read_mem(KESTREL_GLOBAL_BASE + (16u << 20) - 2, &word, 4), Error);
}

// CONFIG3: the L2's geometry and the memory counter window, read where the
// device sets its bit; absent (not zeros) on a device whose CONFIG3 reads 0.
TEST(DriverDevice, ReadsMemoryCountersWhereTheDeviceHasThem) {
  auto plain = std::make_unique<FakeTransport>();
  Device without(std::move(plain));
  EXPECT_EQ(without.info().l2_bytes, 0u);
  EXPECT_FALSE(without.info().mem_counters);
  EXPECT_FALSE(without.read_mem_counters().has_value());

  auto transport = std::make_unique<FakeTransport>();
  auto state = transport->state();
  state->regs[KESTREL_REG_CONFIG3] = (1u << KESTREL_CONFIG3_MEM_WINDOW_BIT) | (8u << 16) | 128u;
  const uint32_t lo = KESTREL_REG_MEM_COUNTERS + 8 * KESTREL_MEM_CNT_L2_HITS;
  state->regs[lo] = 9;
  state->regs[lo + 4] = 2;
  // The window's last counter, at its top (0x398, docs/host-interface.md): a
  // window of KESTREL_MEM_CNT_COUNT.
  const uint32_t last = KESTREL_REG_MEM_COUNTERS + 8 * KESTREL_MEM_CNT_TEX_DESC_MISSES;
  EXPECT_EQ(last, 0x398u);
  EXPECT_EQ(KESTREL_MEM_CNT_TEX_DESC_MISSES + 1, KESTREL_MEM_CNT_COUNT);
  state->regs[last] = 7;
  state->regs[last + 4] = 1;
  Device device(std::move(transport));
  EXPECT_EQ(device.info().l2_bytes, 128u * 1024);
  EXPECT_EQ(device.info().l2_ways, 8u);
  const std::optional<MemCounterValues> values = device.read_mem_counters();
  ASSERT_TRUE(values.has_value());
  EXPECT_EQ((*values)[KESTREL_MEM_CNT_L2_HITS], (2ull << 32) + 9);
  EXPECT_EQ((*values)[KESTREL_MEM_CNT_TEX_DESC_MISSES], (1ull << 32) + 7);
  EXPECT_EQ((*values)[KESTREL_MEM_CNT_READS], 0u);
}

// The per-SM window: read for every SM of a device whose VERSION has it (up
// to KESTREL_SM_COUNTERS_MAX_SMS), absent, not zeros, on an older one.
TEST(DriverDevice, ReadsPerSmCountersWhereTheDeviceHasThem) {
  FakeConfig config;
  config.num_sms = 3;
  config.mem_bytes = 1u << 20;
  auto transport = std::make_unique<FakeTransport>(config);
  auto state = transport->state();
  Device device(std::move(transport));
  const uint32_t lo = KESTREL_REG_SM_COUNTERS + 2 * KESTREL_SM_COUNTERS_STRIDE + 8 * KESTREL_SM_CNT_BLOCKS;
  state->regs[lo] = 7;
  state->regs[lo + 4] = 1;
  EXPECT_EQ(device.sm_counter_sms(), 3u);
  const std::vector<SmCounterValues> sms = device.read_sm_counters();
  ASSERT_EQ(sms.size(), 3u);
  EXPECT_EQ(sms[2][KESTREL_SM_CNT_BLOCKS], (1ull << 32) + 7);

  config.num_sms = 200;  // more than the window holds: the first 48
  EXPECT_EQ(Device(std::make_unique<FakeTransport>(config)).sm_counter_sms(), KESTREL_SM_COUNTERS_MAX_SMS);

  auto old = std::make_unique<FakeTransport>(config);
  old->state()->regs[KESTREL_REG_VERSION] = 1;  // 0.1: before the window
  Device old_device(std::move(old));
  EXPECT_EQ(old_device.sm_counter_sms(), 0u);
  EXPECT_TRUE(old_device.read_sm_counters().empty());
}

TEST(DriverDevice, ProgramsLaunchRegistersThenStarts) {
  auto transport = std::make_unique<FakeTransport>();
  auto state = transport->state();
  Device device(std::move(transport));
  LaunchRegs regs;
  regs.entry_pc = 0x1'1000'0040ull;  // HI word must arrive too
  regs.exit_pc = 0x10000000;
  regs.gp = 0x10003800;
  regs.param_addr = 0x10100000;
  regs.grid = {4, 2, 1};
  regs.block = {64, 1, 1};
  regs.shared_base = 0x10005000;
  regs.shared_static = 256;
  regs.shared_dyn = 1024;
  regs.stack_bytes = 2048;
  regs.local_backing = 0x10200000;
  regs.watchdog = 5;
  device.launch(regs);
  ASSERT_EQ(state->launches.size(), 1u);
  const auto& at_start = state->launches[0];
  auto reg = [&](uint32_t offset) { return at_start.count(offset) ? at_start.at(offset) : 0u; };
  EXPECT_EQ(reg(KESTREL_REG_ENTRY_LO), 0x10000040u);
  EXPECT_EQ(reg(KESTREL_REG_ENTRY_HI), 1u);
  EXPECT_EQ(reg(KESTREL_REG_GRID_X), 4u);
  EXPECT_EQ(reg(KESTREL_REG_GRID_Y), 2u);
  EXPECT_EQ(reg(KESTREL_REG_BLOCK_X), 64u);
  EXPECT_EQ(reg(KESTREL_REG_SHARED_DYN), 1024u);
  EXPECT_EQ(reg(KESTREL_REG_STACK_BYTES), 2048u);
  EXPECT_EQ(reg(KESTREL_REG_WATCHDOG), 5u);
  EXPECT_EQ(device.state(), RunState::running);
  EXPECT_THROW(device.launch(regs), Error);  // still running
  EXPECT_EQ(device.wait(), RunState::done);
  EXPECT_EQ(device.read_counters()[KESTREL_CNT_THREAD_INSTRS], (1ull << 32) + 12000);
}

// A backend that cannot stop mid-launch (Transport's default advance) runs
// the launch to its end in advance() and says copies cannot overlap.
TEST(DriverDevice, AdvanceWithoutSlicesRunsTheLaunchToItsEnd) {
  auto transport = std::make_unique<FakeTransport>();
  auto state = transport->state();
  Device device(std::move(transport));
  EXPECT_FALSE(device.overlaps_copies());
  EXPECT_FALSE(device.advance(100));  // nothing runs
  device.launch(LaunchRegs{});
  EXPECT_EQ(device.state(), RunState::running);
  EXPECT_FALSE(device.advance(1));
  EXPECT_EQ(device.state(), RunState::done);
  EXPECT_EQ(device.read_counters()[KESTREL_CNT_CYCLES], 1000u);
}

TEST(DriverDevice, DecodesTheFaultRecord) {
  auto transport = std::make_unique<FakeTransport>();
  auto state = transport->state();
  Device device(std::move(transport));
  state->fail_with(KESTREL_FAULT_ILLEGAL_ADDRESS, 0x1234, 0x10002000, 1, 33);
  device.launch(LaunchRegs{});
  ASSERT_EQ(device.wait(), RunState::fault);
  const FaultRecord fault = device.read_fault();
  EXPECT_EQ(fault.kind, KESTREL_FAULT_ILLEGAL_ADDRESS);
  EXPECT_EQ(fault.warp, 1u);
  EXPECT_EQ(describe_fault(fault),
            "illegal address 0x10002000 at pc 0x1234 in block (1,0,0) thread (33,0,0) (sm 0, warp 1)");
}

TEST(DriverDevice, DescribesEveryFaultKind) {
  for (int kind = KESTREL_FAULT_ILLEGAL_INSTRUCTION; kind <= KESTREL_FAULT_TEXTURE; ++kind) {
    ASSERT_NE(fault_kind_text(kind), nullptr) << kind;
    FaultRecord fault;
    fault.kind = kind;
    EXPECT_EQ(describe_fault(fault).rfind(fault_kind_text(kind), 0), 0u);
  }
  EXPECT_EQ(fault_kind_text(99), nullptr);
  FaultRecord odd;
  odd.kind = 99;
  EXPECT_NE(describe_fault(odd).find("unknown fault kind 99"), std::string::npos);
  FaultRecord assertion;
  assertion.kind = KESTREL_FAULT_ASSERT;
  assertion.info = 42;
  EXPECT_NE(describe_fault(assertion).find("assertion failed (line 42)"), std::string::npos);
  // A texture fault names the object (docs/isa.md section 2.5).
  FaultRecord texture;
  texture.kind = KESTREL_FAULT_TEXTURE;
  texture.address = 0x10003040;
  EXPECT_EQ(describe_fault(texture).rfind("texture fault 0x10003040 (kx.tex: an object", 0), 0u)
      << describe_fault(texture);
}

TEST(OpenTransport, FpgaAndUnknownBackendsAreClearErrors) {
  try {
    open_transport("fpga", BackendConfig{});
    FAIL() << "fpga opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_NO_DEVICE);
    // No board is attached to a test machine: the USB backend says so.
#ifdef KESTREL_HAVE_LIBUSB
    EXPECT_NE(std::string(e.what()).find("no Kestrel board found"), std::string::npos) << e.what();
#else
    EXPECT_NE(std::string(e.what()).find("backend 'fpga' was not built"), std::string::npos) << e.what();
#endif
  }
  try {
    open_transport("quantum", BackendConfig{});
    FAIL() << "unknown backend opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_NO_DEVICE);
    EXPECT_NE(std::string(e.what()).find("unknown backend 'quantum'"), std::string::npos);
  }
}

TEST(OpenTransport, DefaultBackendFollowsTheEnvironment) {
  ::setenv("KESTREL_BACKEND", "fpga", 1);
  EXPECT_EQ(default_backend(), "fpga");
  ::unsetenv("KESTREL_BACKEND");
  const std::string fallback = default_backend();
  EXPECT_TRUE(fallback == "model" || fallback == "rtlsim") << fallback;
}

}  // namespace
}  // namespace kestrel::driver
