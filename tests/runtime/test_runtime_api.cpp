// The C API of kestrel/kestrel.h over the fake transport: memory, copies and
// their bounds, the module loader's placement in DRAM, kernel and global
// lookup, launch validation, parameter marshalling and fault reporting.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "device_context.hpp"
#include "fake_transport.hpp"
#include "kestrel/kestrel.h"
#include "kestrel/runtime/open_device.hpp"
#include "test_support.hpp"

namespace {

using kestrel::testing::FakeConfig;
using kestrel::testing::FakeDeviceState;
using kestrel::testing::FakeTransport;

constexpr uint64_t kPage = KESTREL_PAGE_SIZE;

class RuntimeApi : public ::testing::Test {
 protected:
  void open(const FakeConfig& config = {}) {
    auto transport = std::make_unique<FakeTransport>(config);
    state_ = transport->state();
    ASSERT_EQ(kestrel::runtime::open_device(std::move(transport), &device_), KESTREL_SUCCESS)
        << kestrel_device_last_error(nullptr);
  }
  void SetUp() override { open(); }
  void TearDown() override {
    if (device_ != nullptr) {
      EXPECT_EQ(kestrel_device_close(device_), KESTREL_SUCCESS);
    }
  }
  std::string last_error() const { return kestrel_device_last_error(device_); }

  kestrel_module_t* load_fixture(unsigned xlen) {
    const std::vector<uint8_t> bytes = kestrel::testing::fixture_module(xlen);
    kestrel_module_t* module = nullptr;
    EXPECT_EQ(kestrel_module_load_data(device_, bytes.data(), bytes.size(), &module), KESTREL_SUCCESS)
        << last_error();
    return module;
  }

  kestrel_device_t* device_ = nullptr;
  std::shared_ptr<FakeDeviceState> state_;
};

TEST_F(RuntimeApi, PropsDescribeTheDevice) {
  kestrel_device_props props{};
  ASSERT_EQ(kestrel_device_get_props(device_, &props), KESTREL_SUCCESS);
  EXPECT_STREQ(props.backend, "fake");
  EXPECT_STREQ(props.name, "kestrel-fake rv64 2x8x32");
  EXPECT_EQ(props.warp_size, 32u);
  // 8 warps of 32 lanes bound the block below CONFIG1's 1024.
  EXPECT_EQ(props.max_threads_per_block, 256u);
  EXPECT_EQ(props.max_block_dim[0], 1024u);
  EXPECT_EQ(props.max_block_dim[2], 64u);
  EXPECT_EQ(props.shared_mem_per_block, 48u * 1024);
  EXPECT_EQ(props.max_param_bytes, 4096u);
  EXPECT_EQ(props.global_mem_bytes, 16u << 20);
  EXPECT_EQ(kestrel_device_get_props(device_, nullptr), KESTREL_ERROR_INVALID_VALUE);
}

TEST_F(RuntimeApi, AllocationsGetPagesOfTheirOwnMappedReadWrite) {
  kestrel_devptr_t a = 0, b = 0;
  ASSERT_EQ(kestrel_malloc(device_, 100, &a), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_malloc(device_, 5000, &b), KESTREL_SUCCESS);
  EXPECT_EQ(a % kPage, 0u);
  EXPECT_EQ(b % kPage, 0u);
  EXPECT_GE(b > a ? b - a : a - b, kPage);
  EXPECT_EQ(state_->perms_at(a), uint32_t{KESTREL_PAGE_READ | KESTREL_PAGE_WRITE});
  EXPECT_EQ(state_->perms_at(b + kPage), uint32_t{KESTREL_PAGE_READ | KESTREL_PAGE_WRITE});
  EXPECT_EQ(state_->perms_at(b + 2 * kPage), 0u);  // 5000 bytes are two pages, no more
  ASSERT_EQ(kestrel_free(device_, b), KESTREL_SUCCESS);
  EXPECT_EQ(state_->perms_at(b), 0u);
  EXPECT_EQ(state_->perms_at(b + kPage), 0u);
  EXPECT_EQ(kestrel_free(device_, a), KESTREL_SUCCESS);
}

TEST_F(RuntimeApi, BadAllocationsAndFreesAreErrors) {
  kestrel_devptr_t p = 0;
  EXPECT_EQ(kestrel_malloc(device_, 0, &p), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_malloc(device_, 64, nullptr), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_malloc(device_, 1ull << 40, &p), KESTREL_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(kestrel_malloc(device_, 15u << 20, &p), KESTREL_SUCCESS);
  kestrel_devptr_t q = 0;
  EXPECT_EQ(kestrel_malloc(device_, 2u << 20, &q), KESTREL_ERROR_OUT_OF_MEMORY);
  EXPECT_NE(last_error().find("out of device memory"), std::string::npos);
  EXPECT_EQ(kestrel_free(device_, p), KESTREL_SUCCESS);
  EXPECT_EQ(kestrel_free(device_, p), KESTREL_ERROR_INVALID_HANDLE);
  EXPECT_NE(last_error().find("double free"), std::string::npos);
  EXPECT_EQ(kestrel_free(device_, 0x12345678), KESTREL_ERROR_INVALID_HANDLE);
  EXPECT_EQ(kestrel_free(device_, 0), KESTREL_SUCCESS);  // as cudaFree(NULL)
  // After all that, the whole memory is free again.
  EXPECT_EQ(kestrel_malloc(device_, 15u << 20, &p), KESTREL_SUCCESS);
  EXPECT_EQ(kestrel_free(device_, p + 8), KESTREL_ERROR_INVALID_HANDLE);
}

TEST_F(RuntimeApi, CopiesRoundTripAndStayInBounds) {
  kestrel_devptr_t p = 0;
  ASSERT_EQ(kestrel_malloc(device_, 1000, &p), KESTREL_SUCCESS);
  std::vector<uint8_t> data(1000), back(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  ASSERT_EQ(kestrel_memcpy_htod(device_, p, data.data(), data.size()), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_memcpy_dtoh(device_, back.data(), p, back.size()), KESTREL_SUCCESS);
  EXPECT_EQ(data, back);

  // Bounds are the requested 1000 bytes, not the page.
  EXPECT_EQ(kestrel_memcpy_htod(device_, p + 1, data.data(), 1000), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_NE(last_error().find("runs past the end of its 1000-byte allocation"), std::string::npos);
  EXPECT_EQ(kestrel_memcpy_dtoh(device_, back.data(), p + 1000, 1), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_memcpy_dtoh(device_, back.data(), p + 999, 1), KESTREL_SUCCESS);
  EXPECT_EQ(kestrel_memcpy_htod(device_, 0x0BAD0000, data.data(), 4), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_NE(last_error().find("not in any allocation"), std::string::npos);
  EXPECT_EQ(kestrel_memcpy_htod(device_, p, nullptr, 4), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_memcpy_dtoh(device_, nullptr, p, 4), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_memcpy_htod(device_, p, data.data(), SIZE_MAX), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_memcpy_htod(device_, p, data.data(), 0), KESTREL_SUCCESS);

  // A device address given where the call wants host memory is refused, not
  // dereferenced on the host (the copy crashed).
  void* device_as_host = reinterpret_cast<void*>(static_cast<uintptr_t>(p + 500));
  EXPECT_EQ(kestrel_memcpy_dtoh(device_, device_as_host, p, 4), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_NE(last_error().find("host destination 0x"), std::string::npos) << last_error();
  EXPECT_NE(last_error().find("is a device address"), std::string::npos) << last_error();
  EXPECT_EQ(kestrel_memcpy_htod(device_, p, device_as_host, 4), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_NE(last_error().find("host source 0x"), std::string::npos) << last_error();
  EXPECT_EQ(kestrel_memcpy_dtoh_concurrent(device_, device_as_host, p, 4), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_memcpy_htod_concurrent(device_, p, device_as_host, 4), KESTREL_ERROR_INVALID_VALUE);
  ASSERT_EQ(kestrel_memcpy_dtoh(device_, back.data(), p, back.size()), KESTREL_SUCCESS);
  EXPECT_EQ(data, back);

  // A freed allocation is no longer a copy target.
  ASSERT_EQ(kestrel_free(device_, p), KESTREL_SUCCESS);
  EXPECT_EQ(kestrel_memcpy_htod(device_, p, data.data(), 4), KESTREL_ERROR_INVALID_VALUE);
}

TEST_F(RuntimeApi, MemsetAndDeviceToDeviceCopies) {
  kestrel_devptr_t a = 0, b = 0;
  ASSERT_EQ(kestrel_malloc(device_, 64, &a), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_malloc(device_, 64, &b), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_memset(device_, a, 0x1C3, 64), KESTREL_SUCCESS);  // only the low byte counts
  std::vector<uint8_t> back(64);
  ASSERT_EQ(kestrel_memcpy_dtoh(device_, back.data(), a, 64), KESTREL_SUCCESS);
  EXPECT_EQ(back, std::vector<uint8_t>(64, 0xC3));
  EXPECT_EQ(kestrel_memset(device_, a + 60, 0, 5), KESTREL_ERROR_INVALID_VALUE);

  std::vector<uint8_t> ramp(64);
  for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<uint8_t>(i);
  ASSERT_EQ(kestrel_memcpy_htod(device_, a, ramp.data(), 64), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_memcpy_dtod(device_, b, a, 64), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_memcpy_dtoh(device_, back.data(), b, 64), KESTREL_SUCCESS);
  EXPECT_EQ(back, ramp);
  // Overlapping, as memmove.
  ASSERT_EQ(kestrel_memcpy_dtod(device_, a + 8, a, 32), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_memcpy_dtoh(device_, back.data(), a, 64), KESTREL_SUCCESS);
  for (size_t i = 0; i < 32; ++i) EXPECT_EQ(back[8 + i], i);
  EXPECT_EQ(kestrel_memcpy_dtod(device_, b + 32, a, 64), KESTREL_ERROR_INVALID_VALUE);
}

TEST_F(RuntimeApi, ModuleIsPlacedRelocatedAndMapped) {
  kestrel_module_t* module = load_fixture(64);
  ASSERT_NE(module, nullptr);
  kestrel_kernel_t* kernel = nullptr;
  ASSERT_EQ(kestrel_module_get_kernel(module, "fill_index", &kernel), KESTREL_SUCCESS) << last_error();

  kestrel_devptr_t counter = 0, table = 0;
  size_t bytes = 0;
  ASSERT_EQ(kestrel_module_get_global(module, "counter", &counter, &bytes), KESTREL_SUCCESS) << last_error();
  EXPECT_EQ(bytes, 4u);
  EXPECT_EQ(state_->load<int32_t>(counter), 7);
  const uint64_t base = counter - 0x20D0;  // the fixture links counter at 0x20d0
  EXPECT_EQ(base % kPage, 0u);
  EXPECT_EQ(state_->perms_at(base), uint32_t{KESTREL_PAGE_READ | KESTREL_PAGE_EXEC});
  ASSERT_EQ(kestrel_module_get_global(module, "test::table", &table, nullptr), KESTREL_SUCCESS)
      << last_error();
  EXPECT_EQ(state_->perms_at(table), uint32_t{KESTREL_PAGE_READ});
  EXPECT_EQ(state_->load<int32_t>(table + 8), 30);
  EXPECT_EQ(state_->perms_at(counter), uint32_t{KESTREL_PAGE_READ | KESTREL_PAGE_WRITE});
  // The shared window after the image is reserved but never mapped.
  EXPECT_EQ(state_->perms_at(base + 0x3000), 0u);

  // The descriptor's entry pointer was relocated to base + 4.
  EXPECT_EQ(state_->load<uint64_t>(base + 0x20D8 + 16), base + 4);

  // Globals are copy targets; cudaMemcpyToSymbol-style.
  const int32_t value = 99;
  ASSERT_EQ(kestrel_memcpy_htod(device_, counter, &value, 4), KESTREL_SUCCESS);
  EXPECT_EQ(kestrel_memcpy_htod(device_, counter, &value, 0x10000), KESTREL_ERROR_INVALID_VALUE);

  ASSERT_EQ(kestrel_module_unload(module), KESTREL_SUCCESS);
  EXPECT_EQ(state_->perms_at(base), 0u);
  EXPECT_EQ(state_->perms_at(counter), 0u);
  EXPECT_EQ(kestrel_module_unload(module), KESTREL_ERROR_INVALID_HANDLE);
  uint32_t count = 0;
  EXPECT_EQ(kestrel_kernel_num_params(kernel, &count), KESTREL_ERROR_INVALID_HANDLE);
}

TEST_F(RuntimeApi, KernelAndGlobalLookup) {
  kestrel_module_t* module = load_fixture(64);
  kestrel_kernel_t* kernel = nullptr;
  const char* name = nullptr;
  ASSERT_EQ(kestrel_module_get_kernel(module, "_Z10fill_indexPiii", &kernel), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_kernel_get_name(kernel, &name), KESTREL_SUCCESS);
  EXPECT_STREQ(name, "_Z10fill_indexPiii");
  ASSERT_EQ(kestrel_module_get_kernel(module, "fill_index(int*, int, int)", &kernel), KESTREL_SUCCESS);
  uint32_t count = 0;
  ASSERT_EQ(kestrel_kernel_num_params(kernel, &count), KESTREL_SUCCESS);
  EXPECT_EQ(count, 3u);
  kestrel_param_desc param{};
  ASSERT_EQ(kestrel_kernel_get_param(kernel, 2, &param), KESTREL_SUCCESS);
  EXPECT_EQ(param.offset, 12u);
  EXPECT_EQ(kestrel_kernel_get_param(kernel, 3, &param), KESTREL_ERROR_INVALID_VALUE);

  // "poke" names both poke(int*) and test::poke(int*).
  EXPECT_EQ(kestrel_module_get_kernel(module, "poke", &kernel), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_NE(last_error().find("ambiguous"), std::string::npos);
  ASSERT_EQ(kestrel_module_get_kernel(module, "test::poke", &kernel), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_kernel_get_name(kernel, &name), KESTREL_SUCCESS);
  EXPECT_STREQ(name, "_ZN4test4pokeEPi");
  ASSERT_EQ(kestrel_module_get_kernel(module, "_Z4pokePi", &kernel), KESTREL_SUCCESS);

  EXPECT_EQ(kestrel_module_get_kernel(module, "vector_add", &kernel), KESTREL_ERROR_NOT_FOUND);
  EXPECT_NE(last_error().find("no kernel named 'vector_add'"), std::string::npos);
  EXPECT_NE(last_error().find("fill_index(int*, int, int)"), std::string::npos);
  EXPECT_EQ(kestrel_module_get_kernel(module, nullptr, &kernel), KESTREL_ERROR_INVALID_VALUE);

  kestrel_devptr_t ptr = 0;
  EXPECT_EQ(kestrel_module_get_global(module, "table", &ptr, nullptr), KESTREL_SUCCESS);
  EXPECT_EQ(kestrel_module_get_global(module, "tile", &ptr, nullptr), KESTREL_ERROR_NOT_FOUND);
  EXPECT_EQ(kestrel_module_get_global(module, "nothing", &ptr, nullptr), KESTREL_ERROR_NOT_FOUND);
}

TEST_F(RuntimeApi, LoadingBadModulesFailsCleanly) {
  kestrel_module_t* module = nullptr;
  const char junk[] =
      "\x7f"
      "ELF but not really";
  EXPECT_EQ(kestrel_module_load_data(device_, junk, sizeof junk, &module), KESTREL_ERROR_INVALID_MODULE);
  EXPECT_EQ(module, nullptr);
  EXPECT_EQ(kestrel_module_load_data(device_, nullptr, 10, &module), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_module_load(device_, "/nonexistent/module.kmod", &module), KESTREL_ERROR_IO);
  EXPECT_NE(last_error().find("/nonexistent/module.kmod"), std::string::npos);
  EXPECT_EQ(kestrel_module_load(device_, "/", &module), KESTREL_ERROR_IO);
  EXPECT_NE(last_error().find("is a directory"), std::string::npos);
  EXPECT_EQ(kestrel_module_load(device_, "/dev/null", &module), KESTREL_ERROR_INVALID_MODULE);
  EXPECT_EQ(kestrel_module_load(device_, KESTREL_TEST_FIXTURE32, &module), KESTREL_ERROR_INVALID_MODULE);
  EXPECT_NE(last_error().find("ELF class"), std::string::npos);
  ASSERT_EQ(kestrel_module_load(device_, KESTREL_TEST_FIXTURE64, &module), KESTREL_SUCCESS) << last_error();
  EXPECT_EQ(kestrel_module_unload(module), KESTREL_SUCCESS);
  // Nothing leaked: the whole DRAM but the parameter page is free.
  kestrel_devptr_t all = 0;
  EXPECT_EQ(kestrel_malloc(device_, (16u << 20) - kPage, &all), KESTREL_SUCCESS) << last_error();
}

using MemCounts = std::vector<std::pair<unsigned, uint64_t>>;

class LaunchTest : public RuntimeApi {
 protected:
  void SetUp() override {
    RuntimeApi::SetUp();
    module_ = load_fixture(64);
    ASSERT_EQ(kestrel_module_get_kernel(module_, "fill_index", &fill_), KESTREL_SUCCESS);
    ASSERT_EQ(kestrel_malloc(device_, 4096, &out_), KESTREL_SUCCESS);
  }
  kestrel_status launch(kestrel_dim3 grid, kestrel_dim3 block, uint32_t shared = 0) {
    void* args[] = {&out_, &base_, &n_};
    return kestrel_launch(fill_, grid, block, shared, args);
  }
  // A device with the memory counter window and a 64 KiB 4-way L2 (CONFIG3,
  // read when the device is opened), in place of the fixture's plain one, and
  // a fake GPU that counts what `counts` puts into the window each launch.
  void reopen_with_window(const MemCounts& counts) {
    ASSERT_EQ(kestrel_device_close(device_), KESTREL_SUCCESS);
    device_ = nullptr;
    FakeConfig config;
    config.config3 = (1u << KESTREL_CONFIG3_MEM_WINDOW_BIT) | (4u << 16) | 64u;
    open(config);
    module_ = load_fixture(64);
    ASSERT_EQ(kestrel_module_get_kernel(module_, "fill_index", &fill_), KESTREL_SUCCESS);
    ASSERT_EQ(kestrel_malloc(device_, 4096, &out_), KESTREL_SUCCESS);
    state_->run = [counts](FakeDeviceState& s) {
      for (const auto& [counter, value] : counts) {
        s.regs[KESTREL_REG_MEM_COUNTERS + 8 * counter] = static_cast<uint32_t>(value);
        s.regs[KESTREL_REG_MEM_COUNTERS + 8 * counter + 4] = static_cast<uint32_t>(value >> 32);
      }
      s.regs[KESTREL_REG_COUNTERS + 8 * KESTREL_CNT_LOADS] = 40;
      s.regs[KESTREL_REG_STATUS] = KESTREL_STATUS_DONE;
    };
  }
  // 80 line reads, 10 of them constant-cache misses and 20 L1 misses; 30
  // line reads the constant caches answered and 50 the L1s answered (neither
  // in reads), for 40 warp-level loads; and the texture units' 24 taps
  // their caches answered and 6 texel lines plus 2 descriptor lines they
  // read (among the reads and hits above: not the loads').
  const MemCounts counts_ = {{KESTREL_MEM_CNT_READS, 80},        {KESTREL_MEM_CNT_WRITES, 15},
                             {KESTREL_MEM_CNT_FETCHES, 5},       {KESTREL_MEM_CNT_INFLIGHT_CYCLES, 4000},
                             {KESTREL_MEM_CNT_L2_HITS, 60},      {KESTREL_MEM_CNT_L2_MISSES, 20},
                             {KESTREL_MEM_CNT_L2_MERGES, 5},     {KESTREL_MEM_CNT_CONST_HITS, 30},
                             {KESTREL_MEM_CNT_CONST_MISSES, 10}, {KESTREL_MEM_CNT_CONST_EVICTIONS, 2},
                             {KESTREL_MEM_CNT_L1_HITS, 50},      {KESTREL_MEM_CNT_L1_MISSES, 20},
                             {KESTREL_MEM_CNT_L1_EVICTIONS, 3},  {KESTREL_MEM_CNT_TEX_HITS, 24},
                             {KESTREL_MEM_CNT_TEX_MISSES, 6},    {KESTREL_MEM_CNT_TEX_DESC_MISSES, 2}};
  kestrel_module_t* module_ = nullptr;
  kestrel_kernel_t* fill_ = nullptr;
  kestrel_devptr_t out_ = 0;
  int32_t base_ = 100, n_ = 1000;
};

TEST_F(LaunchTest, ProgramsTheDescriptorAndParameterBuffer) {
  kestrel_devptr_t counter = 0;
  ASSERT_EQ(kestrel_module_get_global(module_, "counter", &counter, nullptr), KESTREL_SUCCESS);
  const uint64_t base = counter - 0x20D0;
  ASSERT_EQ(launch({4, 1, 1}, {256, 1, 1}, 512), KESTREL_SUCCESS) << last_error();
  ASSERT_EQ(kestrel_synchronize(device_), KESTREL_SUCCESS) << last_error();
  ASSERT_EQ(state_->launches.size(), 1u);
  const auto& regs = state_->launches[0];
  EXPECT_EQ(regs.at(KESTREL_REG_ENTRY_LO), base + 4);
  EXPECT_EQ(regs.at(KESTREL_REG_EXIT_LO), base);
  EXPECT_EQ(regs.at(KESTREL_REG_GRID_X), 4u);
  EXPECT_EQ(regs.at(KESTREL_REG_BLOCK_X), 256u);
  EXPECT_EQ(regs.at(KESTREL_REG_SHARED_BASE), base + 0x3000 + KESTREL_SHARED_GUARD);
  EXPECT_EQ(regs.at(KESTREL_REG_SHARED_STATIC), 256u);
  EXPECT_EQ(regs.at(KESTREL_REG_SHARED_DYN), 512u);
  EXPECT_EQ(regs.at(KESTREL_REG_STACK_BYTES), 1024u);
  EXPECT_EQ(regs.at(KESTREL_REG_WATCHDOG), 16u);  // 16 x 2^20 cycles
  EXPECT_NE(regs.at(KESTREL_REG_GP_LO), 0u);
  const uint64_t params = regs.at(KESTREL_REG_PARAM_LO);
  EXPECT_EQ(state_->perms_at(params), uint32_t{KESTREL_PAGE_READ});
  EXPECT_EQ(state_->load<uint64_t>(params), out_);
  EXPECT_EQ(state_->load<int32_t>(params + 8), 100);
  EXPECT_EQ(state_->load<int32_t>(params + 12), 1000);
  // Local backing: 2 SMs x 8 warps x 32 lanes x 1024 bytes, not mapped.
  const uint64_t backing = regs.at(KESTREL_REG_LOCAL_BACKING);
  EXPECT_GE(backing, KESTREL_GLOBAL_BASE);
  EXPECT_EQ(state_->perms_at(backing), 0u);

  kestrel_counters counters{};
  ASSERT_EQ(kestrel_get_counters(device_, &counters), KESTREL_SUCCESS);
  EXPECT_EQ(counters.value[KESTREL_CNT_CYCLES], 1000u);
  EXPECT_EQ(counters.value[KESTREL_CNT_THREAD_INSTRS], (1ull << 32) + 12000);
  kestrel_fault_info fault{};
  ASSERT_EQ(kestrel_get_fault(device_, &fault), KESTREL_SUCCESS);
  EXPECT_EQ(fault.kind, KESTREL_FAULT_NONE);
}

// A device whose VERSION predates the per-SM window (an older bitstream)
// gives no per-SM figures, rather than zeros; one that has it gives every SM's.
TEST_F(LaunchTest, PerSmFiguresOnlyFromADeviceWithTheWindow) {
  const uint32_t lo = KESTREL_REG_SM_COUNTERS + KESTREL_SM_COUNTERS_STRIDE + 8 * KESTREL_SM_CNT_BLOCKS;
  state_->regs[lo] = 3;
  ASSERT_EQ(launch({4, 1, 1}, {256, 1, 1}), KESTREL_SUCCESS) << last_error();
  uint32_t count = 0;
  kestrel_sm_stats sms[2]{};
  ASSERT_EQ(kestrel_get_launch_sm_stats(device_, sms, 2, &count), KESTREL_SUCCESS) << last_error();
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(sms[1].sm, 1u);
  EXPECT_EQ(sms[1].value[KESTREL_SM_CNT_BLOCKS], 3u);
  EXPECT_EQ(kestrel_get_launch_sm_stats(device_, sms, 2, nullptr), KESTREL_ERROR_INVALID_VALUE);

  ASSERT_EQ(kestrel_device_close(device_), KESTREL_SUCCESS);
  device_ = nullptr;
  auto transport = std::make_unique<FakeTransport>();
  transport->state()->regs[KESTREL_REG_VERSION] = 1;  // 0.1
  state_ = transport->state();
  ASSERT_EQ(kestrel::runtime::open_device(std::move(transport), &device_), KESTREL_SUCCESS);
  count = 7;
  EXPECT_EQ(kestrel_get_launch_sm_stats(device_, nullptr, 0, &count), KESTREL_ERROR_NOT_FOUND)
      << "no launch yet";
  module_ = load_fixture(64);
  ASSERT_EQ(kestrel_module_get_kernel(module_, "fill_index", &fill_), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_malloc(device_, 4096, &out_), KESTREL_SUCCESS);
  ASSERT_EQ(launch({4, 1, 1}, {256, 1, 1}), KESTREL_SUCCESS) << last_error();
  ASSERT_EQ(kestrel_get_launch_sm_stats(device_, nullptr, 0, &count), KESTREL_SUCCESS) << last_error();
  EXPECT_EQ(count, 0u);
}

// The DRAM figures of a launch are the difference of the backend's
// cumulative counters over it, with the derived rates; a backend without a
// DRAM model gives modelled = 0 and zeros, never invented figures
// (docs/runtime.md, "Statistics").
TEST_F(LaunchTest, DramFiguresAreTheLaunchsShareOfTheModelsCounters) {
  kestrel_dram_stats dram{};
  EXPECT_EQ(kestrel_get_launch_dram_stats(device_, &dram), KESTREL_ERROR_NOT_FOUND) << "no launch yet";
  ASSERT_EQ(launch({4, 1, 1}, {256, 1, 1}), KESTREL_SUCCESS) << last_error();
  ASSERT_EQ(kestrel_get_launch_dram_stats(device_, &dram), KESTREL_SUCCESS) << last_error();
  EXPECT_EQ(dram.modelled, 0u);
  EXPECT_EQ(dram.reads, 0u);

  kestrel::DramCounters start;
  start.reads = 1000;  // an earlier launch's traffic, not this one's
  start.writes = 7;
  start.bus_bytes = 64 * 1007;
  start.read_latency_cycles = 99999;
  start.peak_bytes_per_cycle = 16;
  state_->dram_counters = start;
  state_->run = [](kestrel::testing::FakeDeviceState& s) {
    kestrel::DramCounters& c = *s.dram_counters;
    c.reads += 100;
    c.writes += 25;
    c.bytes_read += 100 * 64;
    c.bytes_written += 25 * 60;
    c.bus_bytes += 125 * 64;
    c.row_hits += 100;
    c.row_misses += 5;
    c.row_conflicts += 20;
    c.read_latency_cycles += 100 * 30;
    s.regs[KESTREL_REG_STATUS] = KESTREL_STATUS_DONE;
  };
  ASSERT_EQ(launch({4, 1, 1}, {256, 1, 1}), KESTREL_SUCCESS) << last_error();
  ASSERT_EQ(kestrel_get_launch_dram_stats(device_, &dram), KESTREL_SUCCESS) << last_error();
  EXPECT_EQ(dram.modelled, 1u);
  EXPECT_EQ(dram.reads, 100u);
  EXPECT_EQ(dram.writes, 25u);
  EXPECT_EQ(dram.bytes_read, 6400u);
  EXPECT_EQ(dram.bytes_written, 1500u);
  EXPECT_EQ(dram.row_conflicts, 20u);
  EXPECT_DOUBLE_EQ(dram.row_hit_rate, 100.0 / 125);
  EXPECT_DOUBLE_EQ(dram.average_read_latency, 30.0);
  EXPECT_DOUBLE_EQ(dram.bytes_per_cycle, 125.0 * 64 / 1000);  // the fake's launches take 1000 cycles
  EXPECT_DOUBLE_EQ(dram.peak_bytes_per_cycle, 16.0);
  EXPECT_DOUBLE_EQ(dram.bandwidth_utilization, 8.0 / 16);
  EXPECT_EQ(kestrel_get_launch_dram_stats(device_, nullptr), KESTREL_ERROR_INVALID_VALUE);
}

// The memory-side figures: the window's counters as the device counted
// them, with the derived latency and hit rates; none (counted = 0) from a
// device whose CONFIG3 has no window.
TEST_F(LaunchTest, MemoryFiguresComeFromTheCounterWindow) {
  kestrel_memory_stats memory{};
  EXPECT_EQ(kestrel_get_launch_memory_stats(device_, &memory), KESTREL_ERROR_NOT_FOUND) << "no launch yet";
  ASSERT_EQ(launch({4, 1, 1}, {256, 1, 1}), KESTREL_SUCCESS) << last_error();
  ASSERT_EQ(kestrel_get_launch_memory_stats(device_, &memory), KESTREL_SUCCESS) << last_error();
  EXPECT_EQ(memory.counted, 0u);
  EXPECT_EQ(memory.value[KESTREL_MEM_CNT_READS], 0u);
  EXPECT_EQ(memory.const_hit_rate, 0.0);
  EXPECT_EQ(memory.l1_hit_rate, 0.0);

  reopen_with_window(counts_);
  kestrel_device_props props{};
  ASSERT_EQ(kestrel_device_get_props(device_, &props), KESTREL_SUCCESS);
  EXPECT_EQ(props.l2_bytes, 64u * 1024);
  EXPECT_EQ(props.l2_ways, 4u);
  ASSERT_EQ(launch({4, 1, 1}, {256, 1, 1}), KESTREL_SUCCESS) << last_error();
  ASSERT_EQ(kestrel_get_launch_memory_stats(device_, &memory), KESTREL_SUCCESS) << last_error();
  EXPECT_EQ(memory.counted, 1u);
  EXPECT_EQ(memory.value[KESTREL_MEM_CNT_WRITES], 15u);
  EXPECT_EQ(memory.value[KESTREL_MEM_CNT_CONST_HITS], 30u);
  EXPECT_EQ(memory.value[KESTREL_MEM_CNT_CONST_MISSES], 10u);
  EXPECT_EQ(memory.value[KESTREL_MEM_CNT_CONST_EVICTIONS], 2u);
  EXPECT_EQ(memory.value[KESTREL_MEM_CNT_L1_HITS], 50u);
  EXPECT_EQ(memory.value[KESTREL_MEM_CNT_L1_MISSES], 20u);
  EXPECT_EQ(memory.value[KESTREL_MEM_CNT_L1_EVICTIONS], 3u);
  EXPECT_EQ(memory.value[KESTREL_MEM_CNT_TEX_DESC_MISSES], 2u) << "the window's last counter";
  // Constant-cache and L1 hits never reach the crossbar: not in the
  // latency's or the bytes' requests, but line reads the loads asked for all
  // the same.
  EXPECT_DOUBLE_EQ(memory.average_latency, 4000.0 / 100);
  EXPECT_DOUBLE_EQ(memory.l2_hit_rate, 60.0 / 85);
  EXPECT_DOUBLE_EQ(memory.const_hit_rate, 30.0 / 40);
  EXPECT_DOUBLE_EQ(memory.l1_hit_rate, 50.0 / 70);
  EXPECT_DOUBLE_EQ(memory.lines_per_warp_load, (80.0 + 30 + 50 - 6 - 2) / 40);
  EXPECT_DOUBLE_EQ(memory.tex_hit_rate, 24.0 / 30);
  EXPECT_DOUBLE_EQ(memory.bytes_per_cycle, 100.0 * 64 / 1000);  // the fake's launches take 1000 cycles
  EXPECT_EQ(kestrel_get_launch_memory_stats(device_, nullptr), KESTREL_ERROR_INVALID_VALUE);
}

// Without a read of a read-only page or of a cached writable one (a device
// without L1s) the constant caches' and the L1s' hit rates are 0, not a
// division by zero, and the line reads are the memory side's alone.
TEST_F(LaunchTest, CacheHitRatesAreZeroWithoutTheirReads) {
  reopen_with_window({{KESTREL_MEM_CNT_READS, 80}, {KESTREL_MEM_CNT_L2_HITS, 80}});
  ASSERT_EQ(launch({4, 1, 1}, {256, 1, 1}), KESTREL_SUCCESS) << last_error();
  kestrel_memory_stats memory{};
  ASSERT_EQ(kestrel_get_launch_memory_stats(device_, &memory), KESTREL_SUCCESS) << last_error();
  EXPECT_EQ(memory.counted, 1u);
  EXPECT_EQ(memory.const_hit_rate, 0.0);
  EXPECT_EQ(memory.l1_hit_rate, 0.0);
  EXPECT_DOUBLE_EQ(memory.l2_hit_rate, 1.0);
  EXPECT_DOUBLE_EQ(memory.lines_per_warp_load, 80.0 / 40);
}

// KESTREL_STATS on a device with the window: the record's "memory" object
// has every counter by its name and the figures of kestrel_memory_stats.
TEST_F(LaunchTest, MemoryFiguresReachTheStatisticsFile) {
  const std::string path = ::testing::TempDir() + "kestrel_memory_window_stats.jsonl";
  ASSERT_EQ(setenv("KESTREL_STATS", path.c_str(), 1), 0);
  reopen_with_window(counts_);
  unsetenv("KESTREL_STATS");  // read when the device opens
  ASSERT_EQ(launch({4, 1, 1}, {256, 1, 1}), KESTREL_SUCCESS) << last_error();
  ASSERT_EQ(kestrel_synchronize(device_), KESTREL_SUCCESS) << last_error();
  std::ifstream file(path);
  std::string line;
  ASSERT_TRUE(std::getline(file, line)) << "no record in " << path;
  const nlohmann::json memory = nlohmann::json::parse(line)["memory"];
  ASSERT_TRUE(memory.is_object()) << line;
  for (const auto& [counter, value] : counts_)
    EXPECT_EQ(memory[kestrel_mem_counter_name(static_cast<int>(counter))], value) << counter;
  EXPECT_EQ(memory["const_hits"], 30);
  EXPECT_EQ(memory["const_misses"], 10);
  EXPECT_EQ(memory["const_evictions"], 2);
  EXPECT_EQ(memory["l1_hits"], 50);
  EXPECT_EQ(memory["l1_misses"], 20);
  EXPECT_EQ(memory["l1_evictions"], 3);
  EXPECT_DOUBLE_EQ(memory["const_hit_rate"].get<double>(), 30.0 / 40);
  EXPECT_DOUBLE_EQ(memory["l1_hit_rate"].get<double>(), 50.0 / 70);
  EXPECT_DOUBLE_EQ(memory["l2_hit_rate"].get<double>(), 60.0 / 85);
  EXPECT_DOUBLE_EQ(memory["lines_per_warp_load"].get<double>(), (80.0 + 30 + 50 - 6 - 2) / 40);
  EXPECT_DOUBLE_EQ(memory["tex_hit_rate"].get<double>(), 24.0 / 30);
  EXPECT_EQ(memory["tex_desc_misses"], 2);
  EXPECT_DOUBLE_EQ(memory["bytes_per_cycle"].get<double>(), 100.0 * 64 / 1000);
  file.close();
  std::remove(path.c_str());
}

TEST_F(LaunchTest, RejectsConfigurationsBeyondTheDevice) {
  EXPECT_EQ(launch({1, 1, 1}, {257, 1, 1}), KESTREL_ERROR_INVALID_CONFIG);  // 9 warps, an SM has 8
  EXPECT_NE(last_error().find("needs 9 warps"), std::string::npos) << last_error();
  EXPECT_EQ(launch({1, 1, 1}, {16, 16, 2}), KESTREL_ERROR_INVALID_CONFIG);
  EXPECT_EQ(launch({1, 1, 1}, {1, 1, 65}), KESTREL_ERROR_INVALID_CONFIG);
  EXPECT_EQ(launch({1, 1, 1}, {2048, 1, 1}), KESTREL_ERROR_INVALID_CONFIG);
  EXPECT_NE(last_error().find("exceeds the maximum block dimensions"), std::string::npos) << last_error();
  EXPECT_EQ(launch({0, 1, 1}, {32, 1, 1}), KESTREL_ERROR_INVALID_CONFIG);
  EXPECT_EQ(launch({1, 1, 1}, {32, 0, 1}), KESTREL_ERROR_INVALID_CONFIG);
  EXPECT_EQ(launch({1, 70000, 1}, {32, 1, 1}), KESTREL_ERROR_INVALID_CONFIG);
  // 256 static bytes + dynamic must fit the 48 KiB per block.
  EXPECT_EQ(launch({1, 1, 1}, {32, 1, 1}, 48 * 1024 - 256), KESTREL_SUCCESS) << last_error();
  EXPECT_EQ(launch({1, 1, 1}, {32, 1, 1}, 48 * 1024 - 255), KESTREL_ERROR_INVALID_CONFIG);
  EXPECT_NE(last_error().find("256 static + 48897 dynamic shared bytes"), std::string::npos) << last_error();
  EXPECT_EQ(launch({1, 1, 1}, {256, 1, 1}), KESTREL_SUCCESS);
  EXPECT_EQ(kestrel_synchronize(device_), KESTREL_SUCCESS);
  EXPECT_EQ(state_->starts, 2);
}

TEST_F(LaunchTest, RejectsMissingArguments) {
  EXPECT_EQ(kestrel_launch(fill_, {1, 1, 1}, {32, 1, 1}, 0, nullptr), KESTREL_ERROR_INVALID_VALUE);
  void* args[] = {&out_, nullptr, &n_};
  EXPECT_EQ(kestrel_launch(fill_, {1, 1, 1}, {32, 1, 1}, 0, args), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_NE(last_error().find("args[1]"), std::string::npos);
  EXPECT_EQ(kestrel_launch(nullptr, {1, 1, 1}, {32, 1, 1}, 0, args), KESTREL_ERROR_INVALID_HANDLE);
  EXPECT_EQ(state_->starts, 0);
}

TEST_F(LaunchTest, FaultsAreReportedAndTheDeviceStaysUsable) {
  kestrel_devptr_t counter = 0;
  ASSERT_EQ(kestrel_module_get_global(module_, "counter", &counter, nullptr), KESTREL_SUCCESS);
  const uint64_t base = counter - 0x20D0;
  state_->fail_with(KESTREL_FAULT_ILLEGAL_ADDRESS, base + 0x30, 0x10002000, 1, 33);
  ASSERT_EQ(launch({2, 1, 1}, {64, 1, 1}), KESTREL_SUCCESS);
  // A second launch while the first one's fault is unreported is refused.
  EXPECT_EQ(launch({2, 1, 1}, {64, 1, 1}), KESTREL_ERROR_LAUNCH_FAULT);
  EXPECT_EQ(state_->starts, 1);
  ASSERT_EQ(kestrel_synchronize(device_), KESTREL_ERROR_LAUNCH_FAULT);
  const std::string message = last_error();
  EXPECT_NE(message.find("illegal address 0x10002000 at pc"), std::string::npos) << message;
  EXPECT_NE(message.find("in block (1,0,0) thread (33,0,0)"), std::string::npos) << message;
  EXPECT_NE(message.find("fill_index(int*, int, int)"), std::string::npos) << message;
  EXPECT_NE(message.find("module offset 0x30"), std::string::npos) << message;
  kestrel_fault_info fault{};
  ASSERT_EQ(kestrel_get_fault(device_, &fault), KESTREL_SUCCESS);
  EXPECT_EQ(fault.kind, KESTREL_FAULT_ILLEGAL_ADDRESS);
  EXPECT_EQ(fault.address, 0x10002000u);
  EXPECT_EQ(fault.block.x, 1u);
  EXPECT_EQ(fault.thread.x, 33u);
  EXPECT_EQ(fault.warp, 1u);
  EXPECT_STREQ(fault.message, message.c_str());

  // Reported once; the device works afterwards.
  EXPECT_EQ(kestrel_synchronize(device_), KESTREL_SUCCESS);
  state_->run = [](FakeDeviceState& s) { s.regs[KESTREL_REG_STATUS] = KESTREL_STATUS_DONE; };
  ASSERT_EQ(launch({2, 1, 1}, {64, 1, 1}), KESTREL_SUCCESS) << last_error();
  EXPECT_EQ(kestrel_synchronize(device_), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_get_fault(device_, &fault), KESTREL_SUCCESS);
  EXPECT_EQ(fault.kind, KESTREL_FAULT_NONE);
}

TEST_F(LaunchTest, WatchdogExpiryIsATimeout) {
  state_->fail_with(KESTREL_FAULT_TIMEOUT, 0x10000010, 0, 0, 0);
  ASSERT_EQ(kestrel_device_set_limit(device_, KESTREL_LIMIT_WATCHDOG_MCYCLES, 3), KESTREL_SUCCESS);
  ASSERT_EQ(launch({1, 1, 1}, {32, 1, 1}), KESTREL_SUCCESS);
  EXPECT_EQ(kestrel_synchronize(device_), KESTREL_ERROR_TIMEOUT);
  EXPECT_NE(last_error().find("launch timed out after 3145728 cycles, kernel '"), std::string::npos)
      << last_error();
  EXPECT_EQ(state_->launches[0].at(KESTREL_REG_WATCHDOG), 3u);
}

// KESTREL_WATCHDOG_MCYCLES sets the watchdog of every device the process
// opens (CUDA programs included); a bad value refuses the device clearly.
TEST(Watchdog, EnvironmentSetsTheDefault) {
  struct Restore {
    ~Restore() { unsetenv("KESTREL_WATCHDOG_MCYCLES"); }
  } restore;
  const auto opened_with = [](const char* value, uint64_t* units) {
    setenv("KESTREL_WATCHDOG_MCYCLES", value, 1);
    kestrel_device_t* device = nullptr;
    const kestrel_status status = kestrel::runtime::open_device(std::make_unique<FakeTransport>(), &device);
    if (status == KESTREL_SUCCESS) {
      EXPECT_EQ(kestrel_device_get_limit(device, KESTREL_LIMIT_WATCHDOG_MCYCLES, units), KESTREL_SUCCESS);
      EXPECT_EQ(kestrel_device_close(device), KESTREL_SUCCESS);
    }
    return status;
  };
  uint64_t units = 99;
  EXPECT_EQ(opened_with("", &units), KESTREL_SUCCESS);
  EXPECT_EQ(units, 16u);
  EXPECT_EQ(opened_with("0", &units), KESTREL_SUCCESS);
  EXPECT_EQ(units, 0u);
  EXPECT_EQ(opened_with("4096", &units), KESTREL_SUCCESS);
  EXPECT_EQ(units, 4096u);
  for (const char* bad : {"ten", "12x", "-1", "4294967296"}) {
    EXPECT_EQ(opened_with(bad, &units), KESTREL_ERROR_INVALID_VALUE) << bad;
    EXPECT_NE(std::string(kestrel_device_last_error(nullptr)).find("KESTREL_WATCHDOG_MCYCLES"),
              std::string::npos)
        << kestrel_device_last_error(nullptr);
  }
}

// KESTREL_CONFIG configures every device opened with the defaults (a NULL
// config, as the CUDA layer opens them): geometry, policy, watchdog, stack;
// a config's settings and fields win over it; a bad setting refuses the
// device with the setting named (docs/configuration.md).
TEST(Configuration, EnvironmentAndSettingsConfigureTheDevice) {
  struct Restore {
    ~Restore() { unsetenv("KESTREL_CONFIG"); }
  } restore;
  setenv("KESTREL_CONFIG", "sms=3,warps=4,lanes=8,scheduler=gto,watchdog_mcycles=5,stack_bytes=512", 1);
  kestrel_device_t* device = nullptr;
  ASSERT_EQ(kestrel_device_open("model", nullptr, &device), KESTREL_SUCCESS)
      << kestrel_device_last_error(nullptr);
  kestrel_device_props props{};
  ASSERT_EQ(kestrel_device_get_props(device, &props), KESTREL_SUCCESS);
  EXPECT_STREQ(props.name, "kestrel-model rv64 3x4x8");
  EXPECT_EQ(props.sched_policy, unsigned{KESTREL_SCHED_GTO});
  EXPECT_EQ(props.fpu_stages, 3u);
  EXPECT_EQ(props.icache_lines, 16u);
  uint64_t value = 0;
  EXPECT_EQ(kestrel_device_get_limit(device, KESTREL_LIMIT_WATCHDOG_MCYCLES, &value), KESTREL_SUCCESS);
  EXPECT_EQ(value, 5u);
  EXPECT_EQ(kestrel_device_get_limit(device, KESTREL_LIMIT_STACK_BYTES, &value), KESTREL_SUCCESS);
  EXPECT_EQ(value, 512u);
  EXPECT_EQ(kestrel_device_close(device), KESTREL_SUCCESS);

  kestrel_device_config config{};
  config.num_sms = 1;
  config.settings = "warps=2,scheduler=lrr";
  ASSERT_EQ(kestrel_device_open("model", &config, &device), KESTREL_SUCCESS)
      << kestrel_device_last_error(nullptr);
  ASSERT_EQ(kestrel_device_get_props(device, &props), KESTREL_SUCCESS);
  EXPECT_STREQ(props.name, "kestrel-model rv64 1x2x8") << "fields, then settings, then the environment";
  EXPECT_EQ(props.sched_policy, unsigned{KESTREL_SCHED_LRR});
  EXPECT_EQ(kestrel_device_close(device), KESTREL_SUCCESS);

  config = kestrel_device_config{};
  config.settings = "rtlsim.mem_latency=7";  // another backend's option: not the model's business
  ASSERT_EQ(kestrel_device_open("model", &config, &device), KESTREL_SUCCESS)
      << kestrel_device_last_error(nullptr);
  EXPECT_EQ(kestrel_device_close(device), KESTREL_SUCCESS);
  config.settings = "model.mem_latency=7";
  EXPECT_EQ(kestrel_device_open("model", &config, &device), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(kestrel_device_last_error(nullptr)).find("'mem_latency'"), std::string::npos)
      << kestrel_device_last_error(nullptr);

  setenv("KESTREL_CONFIG", "sms=4,warpz=2", 1);
  EXPECT_EQ(kestrel_device_open("model", nullptr, &device), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(kestrel_device_last_error(nullptr)).find("KESTREL_CONFIG: 'warpz=2': unknown key"),
            std::string::npos)
      << kestrel_device_last_error(nullptr);
}

TEST_F(LaunchTest, StackLimitSizesTheLocalBacking) {
  uint64_t value = 0;
  ASSERT_EQ(kestrel_device_get_limit(device_, KESTREL_LIMIT_STACK_BYTES, &value), KESTREL_SUCCESS);
  EXPECT_EQ(value, 1024u);
  EXPECT_EQ(kestrel_device_set_limit(device_, KESTREL_LIMIT_STACK_BYTES, 100), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_device_set_limit(device_, KESTREL_LIMIT_STACK_BYTES, 0), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_device_set_limit(device_, static_cast<kestrel_limit>(9), 0), KESTREL_ERROR_INVALID_VALUE);
  ASSERT_EQ(kestrel_device_set_limit(device_, KESTREL_LIMIT_STACK_BYTES, 2048), KESTREL_SUCCESS);
  ASSERT_EQ(launch({1, 1, 1}, {32, 1, 1}), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_synchronize(device_), KESTREL_SUCCESS);
  EXPECT_EQ(state_->launches[0].at(KESTREL_REG_STACK_BYTES), 2048u);
  // 2 x 8 x 32 slots x 2 KiB = 1 MiB of backing is too much for what is left.
  EXPECT_EQ(kestrel_device_set_limit(device_, KESTREL_LIMIT_STACK_BYTES, 16 * 1024), KESTREL_SUCCESS);
  kestrel_devptr_t big = 0;
  ASSERT_EQ(kestrel_malloc(device_, 10u << 20, &big), KESTREL_SUCCESS);
  EXPECT_EQ(launch({1, 1, 1}, {32, 1, 1}), KESTREL_ERROR_OUT_OF_MEMORY);
}

TEST_F(RuntimeApi, Rv32NarrowsPointerParameters) {
  ASSERT_EQ(kestrel_device_close(device_), KESTREL_SUCCESS);
  device_ = nullptr;
  FakeConfig config;
  config.xlen = 32;
  open(config);
  const std::vector<uint8_t> rv64 = kestrel::testing::fixture_module(64);
  kestrel_module_t* wrong = nullptr;
  EXPECT_EQ(kestrel_module_load_data(device_, rv64.data(), rv64.size(), &wrong),
            KESTREL_ERROR_INVALID_MODULE);
  kestrel_module_t* module = load_fixture(32);
  ASSERT_NE(module, nullptr);
  kestrel_kernel_t* mixed = nullptr;
  ASSERT_EQ(kestrel_module_get_kernel(module, "mixed", &mixed), KESTREL_SUCCESS) << last_error();
  char c = 'k';
  double d = 2.5;
  kestrel_devptr_t p = 0x10345678;
  int16_t s = -3;
  void* args[] = {&c, &d, &p, &s};
  ASSERT_EQ(kestrel_launch(mixed, {1, 1, 1}, {32, 1, 1}, 0, args), KESTREL_SUCCESS) << last_error();
  ASSERT_EQ(kestrel_synchronize(device_), KESTREL_SUCCESS);
  const uint64_t params = state_->launches[0].at(KESTREL_REG_PARAM_LO);
  EXPECT_EQ(state_->load<char>(params), 'k');
  EXPECT_EQ(state_->load<double>(params + 8), 2.5);
  EXPECT_EQ(state_->load<uint32_t>(params + 16), 0x10345678u);
  EXPECT_EQ(state_->load<int16_t>(params + 20), -3);

  p = 0x1'0000'0000ull;  // does not fit 32 bits
  EXPECT_EQ(kestrel_launch(mixed, {1, 1, 1}, {32, 1, 1}, 0, args), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_NE(last_error().find("does not fit an RV32 device pointer"), std::string::npos);
}

TEST(MarshalParams, FollowsTheDescriptorsOnRv64) {
  kestrel::runtime::KernelInfo kernel;
  kernel.name = "k";
  kernel.param_bytes = 32;
  kernel.params = {
      {0, 1, 1, KESTREL_PARAM_VALUE}, {8, 8, 8, KESTREL_PARAM_POINTER}, {16, 12, 4, KESTREL_PARAM_VALUE}};
  uint8_t byte = 0xAB;
  uint64_t pointer = 0x10002000;
  struct Triple {
    int32_t a, b, c;
  } triple{1, 2, 3};
  void* args[] = {&byte, &pointer, &triple};
  const std::vector<uint8_t> buffer = kestrel::runtime::marshal_params(kernel, 64, args);
  ASSERT_EQ(buffer.size(), 32u);
  EXPECT_EQ(buffer[0], 0xAB);
  EXPECT_EQ(buffer[1], 0);  // padding is zero, not stale host bytes
  uint64_t p = 0;
  std::memcpy(&p, buffer.data() + 8, 8);
  EXPECT_EQ(p, 0x10002000u);
  Triple t{};
  std::memcpy(&t, buffer.data() + 16, 12);
  EXPECT_EQ(t.c, 3);
}

TEST(HandleChecks, ClosedAndBogusHandlesAreErrors) {
  kestrel_device_t* device = nullptr;
  ASSERT_EQ(kestrel::runtime::open_device(std::make_unique<FakeTransport>(), &device), KESTREL_SUCCESS);
  ASSERT_EQ(kestrel_device_close(device), KESTREL_SUCCESS);
  kestrel_devptr_t p = 0;
  EXPECT_EQ(kestrel_malloc(device, 64, &p), KESTREL_ERROR_INVALID_HANDLE);
  EXPECT_EQ(kestrel_device_close(device), KESTREL_ERROR_INVALID_HANDLE);
  EXPECT_NE(std::string(kestrel_device_last_error(nullptr)).find("not open"), std::string::npos);
  EXPECT_EQ(kestrel_synchronize(nullptr), KESTREL_ERROR_INVALID_HANDLE);
  EXPECT_EQ(kestrel_module_unload(nullptr), KESTREL_ERROR_INVALID_HANDLE);
  EXPECT_EQ(kestrel::runtime::open_device(nullptr, &device), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_device_open("model", nullptr, nullptr), KESTREL_ERROR_INVALID_VALUE);
  kestrel_device_config config{};
  config.xlen = 48;
  EXPECT_EQ(kestrel_device_open("model", &config, &device), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(device, nullptr);
  EXPECT_EQ(kestrel_device_open("fpga", nullptr, &device), KESTREL_ERROR_NO_DEVICE);
  EXPECT_NE(std::string(kestrel_device_last_error(nullptr)).find("fpga"), std::string::npos);
}

TEST(Names, StatusCountersAndFaultKinds) {
  EXPECT_STREQ(kestrel_strerror(KESTREL_ERROR_LAUNCH_FAULT), "launch fault");
  EXPECT_STREQ(kestrel_strerror(static_cast<kestrel_status>(-12)), "unknown status");
  EXPECT_STREQ(kestrel_counter_name(KESTREL_CNT_CYCLES), "cycles");
  EXPECT_STREQ(kestrel_counter_name(KESTREL_CNT_MEM_REQUESTS), "mem_requests");
  EXPECT_STREQ(kestrel_counter_name(KESTREL_CNT_SHARED_ACCESSES), "shared_accesses");
  EXPECT_STREQ(kestrel_counter_name(KESTREL_CNT_SHARED_PASSES), "shared_passes");
  EXPECT_STREQ(kestrel_counter_name(KESTREL_CNT_ATOMICS), "atomics");
  EXPECT_EQ(kestrel_counter_name(KESTREL_CNT_COUNT), nullptr);
  EXPECT_EQ(kestrel_counter_name(-1), nullptr);
  EXPECT_STREQ(kestrel_fault_kind_name(KESTREL_FAULT_BARRIER_DEADLOCK), "barrier deadlock");
  EXPECT_STREQ(kestrel_fault_kind_name(KESTREL_FAULT_TEXTURE), "texture fault");
  EXPECT_EQ(kestrel_fault_kind_name(1234), nullptr);
}

// The window's counters by name, as the statistics file and kestrel-stats
// know them; none beyond the window.
TEST(Names, MemoryCounters) {
  const char* const names[KESTREL_MEM_CNT_COUNT] = {
      "reads",         "writes",       "fetches",      "atomics",         "inflight_cycles",
      "l2_hits",       "l2_misses",    "l2_merges",    "l2_evictions",    "l2_writes",
      "dram_requests", "const_hits",   "const_misses", "const_evictions", "l1_hits",
      "l1_misses",     "l1_evictions", "tex_hits",     "tex_misses",      "tex_desc_misses"};
  for (int i = 0; i < KESTREL_MEM_CNT_COUNT; ++i) EXPECT_STREQ(kestrel_mem_counter_name(i), names[i]) << i;
  EXPECT_EQ(kestrel_mem_counter_name(KESTREL_MEM_CNT_COUNT), nullptr);
  EXPECT_EQ(kestrel_mem_counter_name(-1), nullptr);
}

}  // namespace
