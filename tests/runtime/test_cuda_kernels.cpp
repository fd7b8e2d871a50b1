// CUDA kernels compiled by kestrel-cc (kernels/runtime_kernels.cu) through the
// runtime on every kernel-running backend, for RV64 and RV32.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <numeric>
#include <string>
#include <tuple>

#include "backend_features.hpp"
#include "kestrel/kestrel.hpp"

namespace {

struct Record {
  int id;
  double weight;
  char tag;
};

// (backend, XLEN)
using Target = std::tuple<std::string, unsigned>;

class CudaKernels : public ::testing::TestWithParam<Target> {
 protected:
  CudaKernels() : device_(open()), module_(kestrel::Module::load(device_, module_path())) {}

  const std::string& backend() const { return std::get<0>(GetParam()); }
  unsigned xlen() const { return std::get<1>(GetParam()); }
  kestrel::Device open() const {
    kestrel::DeviceConfig config{};
    config.xlen = xlen();
    return kestrel::Device::open(backend(), &config);
  }
  std::string module_path() const {
    return xlen() == 64 ? KESTREL_TEST_CUDA_MODULE64 : KESTREL_TEST_CUDA_MODULE32;
  }

  kestrel::Device device_;
  kestrel::Module module_;
};

TEST_P(CudaKernels, ConstantMemoryWrittenByTheHost) {
  const int table[4] = {1, -2, 3, 10};
  const kestrel::Global global = module_.global("scale_table");
  ASSERT_EQ(global.bytes, sizeof table);
  ASSERT_EQ(kestrel_memcpy_htod(device_.handle(), global.ptr, table, sizeof table), KESTREL_SUCCESS);
  const int n = 300;
  std::vector<int> input(n);
  std::iota(input.begin(), input.end(), 1);
  kestrel::DeviceBuffer<int> in(device_, n), out(device_, n);
  in.upload(input);
  module_.kernel("scale_by_table").launch(kestrel::Dim3(3), kestrel::Dim3(128), 0, in, out, n);
  device_.synchronize();
  const std::vector<int> result = out.download();
  for (int i = 0; i < n; ++i) ASSERT_EQ(result[i], input[i] * table[i % 4]) << i;
}

TEST_P(CudaKernels, StaticAndDynamicSharedMemory) {
  const uint32_t block = 256, blocks = 3;
  std::vector<int> input(block * blocks);
  std::iota(input.begin(), input.end(), 0);
  kestrel::DeviceBuffer<int> in(device_, input.size()), out(device_, input.size());
  in.upload(input);
  const kestrel::Kernel kernel = module_.kernel("reverse_in_block");
  kernel.launch(kestrel::Dim3(blocks), kestrel::Dim3(block), block * sizeof(int), in, out);
  device_.synchronize();
  const std::vector<int> result = out.download();
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t t = 0; t < block; ++t) {
      const uint32_t mirror = block - 1 - t;
      ASSERT_EQ(result[b * block + t], input[b * block + mirror] + 1000 * static_cast<int>(mirror));
    }
  // Too little dynamic shared memory for the ramp runs past the block's window.
  kernel.launch(kestrel::Dim3(1), kestrel::Dim3(block), 16, in, out);
  EXPECT_THROW(device_.synchronize(), kestrel::Error);
  EXPECT_EQ(device_.fault().kind, KESTREL_FAULT_SHARED_BOUNDS);
  // More than the device has is refused before launching.
  const uint32_t too_much = device_.props().shared_mem_per_block;
  EXPECT_THROW(kernel.launch(kestrel::Dim3(1), kestrel::Dim3(block), too_much, in, out), kestrel::Error);
}

TEST_P(CudaKernels, ParametersByValueKeepCudaLayout) {
  // libgcc's soft double reads the rounding mode (frrm), an F-extension CSR.
  KESTREL_SKIP_WITHOUT(backend(), kestrel::features::Feature::kFloat);
  kestrel::DeviceBuffer<int> out_int(device_, 1);
  kestrel::DeviceBuffer<double> out_double(device_, 1);
  const Record record{40, 1.5, 2};
  module_.kernel("record_params")
      .launch(kestrel::Dim3(1), kestrel::Dim3(1), 0, record, 4.0, 1000000000000LL, short{-5}, out_int,
              out_double);
  device_.synchronize();
  EXPECT_EQ(out_int.download()[0], 37);
  EXPECT_EQ(out_double.download()[0], 1000000000006.0);
  EXPECT_EQ(module_.read_global<int>("launches_seen"), 1);
}

TEST_P(CudaKernels, StackLimitBoundsRecursion) {
  kestrel::DeviceBuffer<int> out(device_, 32);
  const kestrel::Kernel kernel = module_.kernel("recurse");
  kernel.launch(kestrel::Dim3(1), kestrel::Dim3(32), 0, 200, out);
  EXPECT_THROW(device_.synchronize(), kestrel::Error);
  // The stack grows down from the window top, so an overflow touches the
  // addresses just below KESTREL_LOCAL_BASE, the local window's guard: a
  // LOCAL_BOUNDS fault that the message names as a stack overflow (docs/isa.md
  // sections 4 and 5).
  const kestrel_fault_info fault = device_.fault();
  EXPECT_EQ(fault.kind, KESTREL_FAULT_LOCAL_BOUNDS) << fault.message;
  EXPECT_LT(fault.address, uint64_t{KESTREL_LOCAL_BASE});
  EXPECT_GE(fault.address, uint64_t{KESTREL_LOCAL_BASE} - 256);
  EXPECT_NE(std::string(fault.message).find("stack overflow"), std::string::npos) << fault.message;
  // Recursion is what the limit is for: the message says so.
  EXPECT_NE(std::string(fault.message).find("max(limit 1024, kernel's own frames"), std::string::npos)
      << fault.message;
  EXPECT_NE(std::string(fault.message).find("cudaLimitStackSize"), std::string::npos) << fault.message;

  device_.set_limit(KESTREL_LIMIT_STACK_BYTES, 32 * 1024);
  kernel.launch(kestrel::Dim3(1), kestrel::Dim3(32), 0, 200, out);
  device_.synchronize();
  EXPECT_EQ(out.download()[31], 200 * 201 / 2);
}

// A kernel's own frames (3 KiB and more here, without recursion) are reserved
// whatever the stack limit, as CUDA's compiler and driver do (guide 5.3.2);
// the limit keeps the value the user set.
TEST_P(CudaKernels, OwnFramesNeedNoRaisedStackLimit) {
  ASSERT_EQ(device_.limit(KESTREL_LIMIT_STACK_BYTES), 1024u);
  const uint32_t threads = 32;
  kestrel::DeviceBuffer<int> out(device_, threads);
  module_.kernel("deep_call_chain").launch(kestrel::Dim3(1), kestrel::Dim3(threads), 0, out);
  device_.synchronize();
  const std::vector<int> result = out.download();
  for (int t = 0; t < static_cast<int>(threads); ++t) {
    const int level3 = (t + 2) + ((t + 2) & 255);
    const int level2 = level3 + 3 * (t + 1) + ((t + 1 + 7) & 255);
    ASSERT_EQ(result[t], level2 + 5 * t + ((t + 13) & 255)) << t;
  }
  EXPECT_EQ(device_.limit(KESTREL_LIMIT_STACK_BYTES), 1024u);
}

TEST_P(CudaKernels, FailedAssertNamesTheThread) {
  KESTREL_SKIP_WITHOUT(backend(),
                       kestrel::features::Feature::kAmo);  // assert's message goes through printf
  std::vector<int> values(64, 1);
  values[37] = 0;
  kestrel::DeviceBuffer<int> buffer(device_, values.size());
  buffer.upload(values);
  module_.kernel("check_positive").launch(kestrel::Dim3(1), kestrel::Dim3(64), 0, buffer);
  try {
    device_.synchronize();
    FAIL() << "assert did not fire";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_LAUNCH_FAULT);
    EXPECT_NE(std::string(e.what()).find("assertion failed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("thread (37,0,0)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("check_positive(int const*)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(device_.fault().kind, KESTREL_FAULT_ASSERT);
  EXPECT_GT(device_.fault().info, 0u);  // the source line
}

// The copy engine: copies that do not wait for the launch in flight land
// between slices of the simulation, so the kernel sees the flag the host
// writes while it runs, and the host sees the kernel's start mark.  Without
// overlap the kernel would spin out its bound and report that it gave up.
TEST_P(CudaKernels, ConcurrentCopiesOverlapTheRunningKernel) {
  kestrel_device_props props{};
  ASSERT_EQ(kestrel_device_get_props(device_.handle(), &props), KESTREL_SUCCESS);
  ASSERT_EQ(props.copy_engines, 1u);
  kestrel::DeviceBuffer<int> state(device_, 4);
  state.upload(std::vector<int>(4, 0));
  const long long max_spins = 1ll << 24;
  module_.kernel("wait_for_host").launch(kestrel::Dim3(1), kestrel::Dim3(1), 0, state, max_spins);
  kestrel_device_t* d = device_.handle();
  int running = 0, mark = 0, slices = 0;
  while (mark == 0) {
    ASSERT_EQ(kestrel_launch_advance(d, 256, &running), KESTREL_SUCCESS);
    ASSERT_EQ(running, 1) << "the kernel ended before the host set its flag";
    ASSERT_EQ(kestrel_memcpy_dtoh_concurrent(d, &mark, state.ptr(), sizeof mark), KESTREL_SUCCESS);
    ASSERT_LT(++slices, 10000);
  }
  const int flag = 9;
  ASSERT_EQ(kestrel_memcpy_htod_concurrent(d, state.ptr() + sizeof(int), &flag, sizeof flag),
            KESTREL_SUCCESS);
  while (device_.advance()) {
  }
  EXPECT_EQ(kestrel_launch_advance(d, 0, &running), KESTREL_SUCCESS);
  EXPECT_EQ(running, 0);
  device_.synchronize();
  const std::vector<int> result = state.download();
  EXPECT_EQ(result[2], flag);
  EXPECT_EQ(result[3], 0);
  // Bad arguments are refused as for the plain copies.
  EXPECT_EQ(kestrel_launch_advance(d, 0, nullptr), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_memcpy_htod_concurrent(d, state.ptr(), nullptr, 4), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_memcpy_dtoh_concurrent(d, &mark, state.ptr() + 16, 4), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_memset_concurrent(d, state.ptr(), 0, 17), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_EQ(kestrel_memcpy_dtod_concurrent(d, state.ptr(), state.ptr() + 8, 16), KESTREL_ERROR_INVALID_VALUE);
}

INSTANTIATE_TEST_SUITE_P(Backends, CudaKernels,
                         ::testing::Combine(::testing::ValuesIn(kestrel::features::test_backends()),
                                            ::testing::Values(64u, 32u)),
                         [](const ::testing::TestParamInfo<Target>& param) {
                           return std::get<0>(param.param) + "_RV" + std::to_string(std::get<1>(param.param));
                         });

}  // namespace

namespace {

// KESTREL_PROGRESS (docs/runtime.md, "Statistics"): while a launch runs,
// a heartbeat line on stderr every period, naming the device and kernel with
// the cycles, blocks done and IPC so far; none with KESTREL_PROGRESS=0.  On
// the functional model (a spinning kernel of a fraction of a second).
TEST(Progress, HeartbeatLinesWhileALaunchRuns) {
  struct Restore {
    ~Restore() { unsetenv("KESTREL_PROGRESS"); }
  } restore;
  const auto run_spinner = [](const char* period, double* seconds) {
    setenv("KESTREL_PROGRESS", period, 1);
    kestrel::Device device = kestrel::Device::open("model");
    kestrel::Module module = kestrel::Module::load(device, KESTREL_TEST_CUDA_MODULE64);
    kestrel::DeviceBuffer<int> state(device, 4);
    state.upload(std::vector<int>(4, 0));
    ::testing::internal::CaptureStderr();
    module.kernel("wait_for_host").launch(kestrel::Dim3(1), kestrel::Dim3(1), 0, state, 1ll << 21);
    device.synchronize();
    *seconds = device.launch_stats().host_seconds;
    return ::testing::internal::GetCapturedStderr();
  };
  double seconds = 0;
  const std::string lines = run_spinner("0.01", &seconds);
  if (seconds > 0.05) {
    EXPECT_NE(
        lines.find("kestrel: kestrel-model rv64 2x8x32 'wait_for_host(int volatile*, long long)' after "),
        std::string::npos)
        << lines;
    EXPECT_NE(lines.find(" cycles, blocks 0/1, IPC "), std::string::npos) << lines;
  }
  EXPECT_EQ(run_spinner("0", &seconds), "");
  setenv("KESTREL_PROGRESS", "soon", 1);
  kestrel_device_t* device = nullptr;
  EXPECT_EQ(kestrel_device_open("model", nullptr, &device), KESTREL_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(kestrel_device_last_error(nullptr)).find("KESTREL_PROGRESS: 'progress=soon'"),
            std::string::npos)
      << kestrel_device_last_error(nullptr);
}

}  // namespace
