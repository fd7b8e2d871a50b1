// Every CUDA runtime API function given bad input: each returns CUDA's error
// code (guide 3.2.9) and never crashes; the good path of each is checked
// alongside so that a test cannot pass by failing everything.  Kernels and
// variables come from misuse_kernels.cu, compiled by kestrel-cc -c.  Each
// test runs in its own process (gtest_discover_tests), so runtime state
// never leaks between them.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuda_profiler_api.h"
#include "cuda_runtime.h"
#include "misuse_kernels.h"

namespace {

// NVIDIA's numbers, which programs and tools compare against.
static_assert(cudaSuccess == 0 && cudaErrorInvalidValue == 1 && cudaErrorMemoryAllocation == 2 &&
                  cudaErrorInitializationError == 3 && cudaErrorInvalidConfiguration == 9 &&
                  cudaErrorInvalidPitchValue == 12 && cudaErrorInvalidSymbol == 13 &&
                  cudaErrorInvalidMemcpyDirection == 21 && cudaErrorMissingConfiguration == 52 &&
                  cudaErrorInvalidDeviceFunction == 98 && cudaErrorNoDevice == 100 &&
                  cudaErrorInvalidDevice == 101 && cudaErrorInvalidKernelImage == 200 &&
                  cudaErrorUnsupportedLimit == 215 && cudaErrorInvalidResourceHandle == 400 &&
                  cudaErrorNotReady == 600 && cudaErrorIllegalAddress == 700 &&
                  cudaErrorLaunchTimeout == 702 && cudaErrorAssert == 710 &&
                  cudaErrorIllegalInstruction == 715 && cudaErrorMisalignedAddress == 716 &&
                  cudaErrorInvalidPc == 718 && cudaErrorLaunchFailure == 719 &&
                  cudaErrorNotSupported == 801 && cudaErrorUnknown == 999,
              "cudaError_t values must be NVIDIA's");
static_assert(cudaMemcpyHostToHost == 0 && cudaMemcpyHostToDevice == 1 && cudaMemcpyDeviceToHost == 2 &&
                  cudaMemcpyDeviceToDevice == 3 && cudaMemcpyDefault == 4,
              "cudaMemcpyKind values must be NVIDIA's");

int* device_ints(size_t count) {
  int* pointer = nullptr;
  EXPECT_EQ(cudaMalloc(&pointer, count * sizeof(int)), cudaSuccess);
  return pointer;
}

TEST(Errors, NamesAndStrings) {
  EXPECT_STREQ(cudaGetErrorName(cudaSuccess), "cudaSuccess");
  EXPECT_STREQ(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorAssert), "device-side assert triggered");
  EXPECT_STREQ(cudaGetErrorName(static_cast<cudaError_t>(12345)), "cudaErrorUnknown");
  EXPECT_STREQ(cudaGetErrorString(static_cast<cudaError_t>(-3)), "unrecognized error code");
}

TEST(Errors, LastErrorIsKeptUntilGot) {
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaMalloc(nullptr, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(Devices, CountSetGet) {
  EXPECT_EQ(cudaGetDeviceCount(nullptr), cudaErrorInvalidValue);
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_GE(count, 1);
  EXPECT_EQ(cudaSetDevice(-1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaSetDevice(count), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetDevice(nullptr), cudaErrorInvalidValue);
  int device = -1;
  EXPECT_EQ(cudaSetDevice(count - 1), cudaSuccess);
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(device, count - 1);
  EXPECT_EQ(kestrelSetBackend("model"), cudaErrorIllegalState);  // devices exist already
  EXPECT_EQ(kestrelSetDeviceCount(0), cudaErrorInvalidValue);
  EXPECT_EQ(kestrelSetBackend(nullptr), cudaErrorInvalidValue);
}

TEST(Devices, PropertiesAndAttributes) {
  cudaDeviceProp prop;
  EXPECT_EQ(cudaGetDeviceProperties(nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetDeviceProperties(&prop, 99), cudaErrorInvalidDevice);
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int value = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(nullptr, cudaDevAttrWarpSize, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(9999), 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 99), cudaErrorInvalidDevice);
  ASSERT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlock, 0), cudaSuccess);
  EXPECT_EQ(static_cast<size_t>(value), prop.sharedMemPerBlock);
  int version = 0;
  EXPECT_EQ(cudaRuntimeGetVersion(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDriverGetVersion(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaRuntimeGetVersion(&version), cudaSuccess);
  EXPECT_EQ(version, CUDART_VERSION);
}

// CUDA 12's fields agree with their attributes and say truthfully what a
// Kestrel device lacks; device flags and cache preferences are recorded.
TEST(Devices, Cuda12PropertiesFlagsAndCacheConfig) {
  cudaDeviceProp prop;
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  const struct {
    cudaDeviceAttr attr;
    int expected;
  } agree[] = {
      {cudaDevAttrComputeMode, prop.computeMode},
      {cudaDevAttrHostRegisterSupported, prop.hostRegisterSupported},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin, static_cast<int>(prop.sharedMemPerBlockOptin)},
      {cudaDevAttrCooperativeLaunch, prop.cooperativeLaunch},
      {cudaDevAttrPciDomainId, prop.pciDomainID},
      {cudaDevAttrStreamPrioritiesSupported, prop.streamPrioritiesSupported},
      {cudaDevAttrComputePreemptionSupported, prop.computePreemptionSupported},
      {cudaDevAttrMultiGpuBoardGroupID, prop.multiGpuBoardGroupID},
      {cudaDevAttrClusterLaunch, prop.clusterLaunch},
      {cudaDevAttrMemoryPoolsSupported, prop.memoryPoolsSupported},
  };
  for (const auto& a : agree) {
    int value = -1;
    ASSERT_EQ(cudaDeviceGetAttribute(&value, a.attr, 0), cudaSuccess) << a.attr;
    EXPECT_EQ(value, a.expected) << a.attr;
  }
  EXPECT_EQ(prop.computeMode, cudaComputeModeDefault);
  EXPECT_EQ(prop.hostRegisterSupported, 1);
  EXPECT_EQ(prop.canMapHostMemory, 0);
  EXPECT_EQ(prop.maxTexture1D, 65536);  // the CUDA array limit (guide G.1), though no texture unit yet
  EXPECT_EQ(prop.clusterLaunch, 0);
  EXPECT_EQ(prop.reservedSharedMemPerBlock, 0u);
  EXPECT_GE(CUDART_VERSION, 12000);

  unsigned flags = 99;
  EXPECT_EQ(cudaGetDeviceFlags(nullptr), cudaErrorInvalidValue);
  ASSERT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(cudaSetDeviceFlags(0x20), cudaErrorInvalidValue);  // no such flag
  EXPECT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield), cudaErrorInvalidValue);
  ASSERT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);
  EXPECT_EQ(flags, unsigned{cudaDeviceScheduleBlockingSync | cudaDeviceMapHost});

  cudaFuncCache cache = cudaFuncCachePreferEqual;
  ASSERT_EQ(cudaDeviceGetCacheConfig(&cache), cudaSuccess);
  EXPECT_EQ(cache, cudaFuncCachePreferNone);
  EXPECT_EQ(cudaDeviceSetCacheConfig(static_cast<cudaFuncCache>(7)), cudaErrorInvalidValue);
  ASSERT_EQ(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetCacheConfig(&cache), cudaSuccess);
  EXPECT_EQ(cache, cudaFuncCachePreferShared);
  EXPECT_EQ(cudaDeviceGetCacheConfig(nullptr), cudaErrorInvalidValue);

  // No peer access: reported, and enabling it is refused.
  int can = -1;
  EXPECT_EQ(cudaDeviceCanAccessPeer(nullptr, 0, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceCanAccessPeer(&can, 0, 99), cudaErrorInvalidDevice);
  ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 0, 0), cudaSuccess);
  EXPECT_EQ(can, 0);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(99, 0), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(0, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorPeerAccessUnsupported), "cudaErrorPeerAccessUnsupported");
}

// Registering host memory is bookkeeping, checked as CUDA checks it; mapping
// it for the device is refused with a clear error.
TEST(Memory, HostRegisterAndMapping) {
  std::vector<char> buffer(8192);
  EXPECT_EQ(cudaHostRegister(nullptr, 16, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostRegister(buffer.data(), 0, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostRegister(buffer.data(), buffer.size(), 0x100), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostRegister(buffer.data(), buffer.size(), cudaHostRegisterMapped), cudaErrorNotSupported);
  ASSERT_EQ(cudaHostRegister(buffer.data(), buffer.size(), cudaHostRegisterPortable), cudaSuccess);
  EXPECT_EQ(cudaHostRegister(buffer.data() + 4096, 16, 0), cudaErrorHostMemoryAlreadyRegistered);
  // Registered memory takes part in copies like any host memory.
  int* device = device_ints(4);
  const int values[4] = {1, 2, 3, 4};
  std::memcpy(buffer.data(), values, sizeof values);
  ASSERT_EQ(cudaMemcpy(device, buffer.data(), sizeof values, cudaMemcpyHostToDevice), cudaSuccess);
  int back[4] = {};
  ASSERT_EQ(cudaMemcpy(back, device, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[3], 4);
  EXPECT_EQ(cudaFree(device), cudaSuccess);
  EXPECT_EQ(cudaHostUnregister(buffer.data() + 1), cudaErrorHostMemoryNotRegistered);
  EXPECT_EQ(cudaHostUnregister(buffer.data()), cudaSuccess);
  EXPECT_EQ(cudaHostUnregister(buffer.data()), cudaErrorHostMemoryNotRegistered);
  void* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, 64), cudaSuccess);
  EXPECT_EQ(cudaHostRegister(pinned, 64, 0), cudaErrorHostMemoryAlreadyRegistered);
  int anything = 0;
  void* mapped = &anything;
  EXPECT_EQ(cudaHostGetDevicePointer(nullptr, pinned, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostGetDevicePointer(&mapped, pinned, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostGetDevicePointer(&mapped, pinned, 0), cudaErrorNotSupported);
  EXPECT_EQ(mapped, nullptr);
  int* typed = nullptr;  // CUDA's template takes any T**
  EXPECT_EQ(cudaHostGetDevicePointer(&typed, pinned, 0), cudaErrorNotSupported);
  EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

// Stream-ordered allocation: memory from cudaMallocAsync works in its
// stream's order, cudaFreeAsync returns it there, and the default pool
// reports what is allocated from it.
// A gate the worker waits at (a host function), so that everything after it
// is queued before any of it runs: the tests below need that order.
struct Gate {
  std::mutex mutex;
  std::condition_variable opened;
  bool open = false;
  static void wait(void* self) {
    Gate& gate = *static_cast<Gate*>(self);
    std::unique_lock<std::mutex> lock(gate.mutex);
    gate.opened.wait(lock, [&] { return gate.open; });
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      open = true;
    }
    opened.notify_all();
  }
};

TEST(Memory, StreamOrderedAllocation) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  EXPECT_EQ(cudaMallocAsync(nullptr, 16, stream), cudaErrorInvalidValue);
  int* bad = nullptr;
  EXPECT_EQ(cudaMallocAsync(&bad, 16, reinterpret_cast<cudaStream_t>(&bad)), cudaErrorInvalidResourceHandle);
  cudaMemPool_t pool = nullptr;
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(&pool, 99), cudaErrorInvalidDevice);
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
  uint64_t threshold = UINT64_MAX, used = 1;
  ASSERT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold), cudaSuccess);
  threshold = 0;
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold), cudaSuccess);
  EXPECT_EQ(threshold, UINT64_MAX);
  EXPECT_EQ(
      cudaMemPoolGetAttribute(reinterpret_cast<cudaMemPool_t>(&used), cudaMemPoolAttrUsedMemCurrent, &used),
      cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used), cudaErrorInvalidValue);
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used), cudaSuccess);
  EXPECT_EQ(used, 0u);
  cudaGetLastError();  // launch_add_one reports the last error

  int* data = nullptr;
  ASSERT_EQ(cudaMallocAsync(&data, 64 * sizeof(int), stream), cudaSuccess);
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used), cudaSuccess);
  EXPECT_EQ(used, 64 * sizeof(int));
  std::vector<int> host(64, 41);
  ASSERT_EQ(cudaMemcpyAsync(data, host.data(), 64 * sizeof(int), cudaMemcpyHostToDevice, stream),
            cudaSuccess);
  ASSERT_EQ(launch_add_one(data, 64, dim3(1), dim3(64), 0, stream), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(host.data(), data, 64 * sizeof(int), cudaMemcpyDeviceToHost, stream),
            cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(data, stream), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(data, stream), cudaErrorInvalidValue);  // freed already
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(host[0], 42);
  EXPECT_EQ(host[63], 42);
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used), cudaSuccess);
  EXPECT_EQ(used, 0u);
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &used), cudaSuccess);
  EXPECT_EQ(used, 64 * sizeof(int));
  // The range went back to the device: a copy into it is refused.
  EXPECT_EQ(cudaMemcpy(data, host.data(), sizeof(int), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  // cudaFree takes stream-ordered memory too.
  ASSERT_EQ(cudaMallocAsync(&data, 16, stream), cudaSuccess);
  EXPECT_EQ(cudaFree(data), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// The runtime API's synchronization rules for cudaMemcpyAsync: a pageable
// source is staged before the call returns (the caller may reuse it at
// once), a copy into pageable memory returns only once it has completed,
// and page-locked memory is touched when the stream gets there.
TEST(Memory, AsyncCopiesOfPageableMemoryFollowCudaRules) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  int* data = device_ints(64);
  int* data_pinned = device_ints(64);
  int* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, 64 * sizeof(int)), cudaSuccess);
  Gate gate;
  ASSERT_EQ(cudaLaunchHostFunc(stream, &Gate::wait, &gate), cudaSuccess);

  std::vector<int> source(64, 7);
  ASSERT_EQ(cudaMemcpyAsync(data, source.data(), 64 * sizeof(int), cudaMemcpyHostToDevice, stream),
            cudaSuccess);
  std::fill(source.begin(), source.end(), -1);  // the copy has not run yet, but its source was staged
  std::fill(pinned, pinned + 64, 5);
  ASSERT_EQ(cudaMemcpyAsync(data_pinned, pinned, 64 * sizeof(int), cudaMemcpyHostToDevice, stream),
            cudaSuccess);
  std::fill(pinned, pinned + 64, 9);  // read when the stream gets there: 9 arrives
  ASSERT_EQ(cudaStreamQuery(stream), cudaErrorNotReady);

  std::vector<int> back(64, 0);
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gate.release();
  });
  ASSERT_EQ(cudaMemcpyAsync(back.data(), data, 64 * sizeof(int), cudaMemcpyDeviceToHost, stream),
            cudaSuccess);
  // Returned only once done, with no synchronization by the caller.
  EXPECT_EQ(back[0], 7);
  EXPECT_EQ(back[63], 7);
  opener.join();
  ASSERT_EQ(cudaMemcpyAsync(pinned, data_pinned, 64 * sizeof(int), cudaMemcpyDeviceToHost, stream),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(pinned[0], 9);
  EXPECT_EQ(pinned[63], 9);
  EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
  EXPECT_EQ(cudaFree(data), cudaSuccess);
  EXPECT_EQ(cudaFree(data_pinned), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(Devices, Limits) {
  size_t value = 0;
  EXPECT_EQ(cudaDeviceGetLimit(nullptr, cudaLimitStackSize), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitStackSize, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4), cudaErrorUnsupportedLimit);
  EXPECT_EQ(cudaDeviceGetLimit(&value, cudaLimitDevRuntimeSyncDepth), cudaErrorUnsupportedLimit);
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitStackSize, 100), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetLimit(&value, cudaLimitStackSize), cudaSuccess);
  EXPECT_EQ(value, 112u);  // rounded up to the 16-byte stack alignment
  ASSERT_EQ(cudaDeviceGetLimit(&value, cudaLimitPrintfFifoSize), cudaSuccess);
  EXPECT_EQ(value, 1u << 20);
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4096), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetLimit(&value, cudaLimitPrintfFifoSize), cudaSuccess);
  EXPECT_EQ(value, 4096u);
}

TEST(Memory, MallocAndFree) {
  EXPECT_EQ(cudaMalloc(nullptr, 16), cudaErrorInvalidValue);
  void* pointer = reinterpret_cast<void*>(1);
  EXPECT_EQ(cudaMalloc(&pointer, 0), cudaSuccess);
  EXPECT_EQ(pointer, nullptr);
  EXPECT_EQ(cudaMalloc(&pointer, size_t{1} << 40), cudaErrorMemoryAllocation);
  EXPECT_EQ(pointer, nullptr);
  int on_stack = 0;
  EXPECT_EQ(cudaFree(&on_stack), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&pointer, 100), cudaSuccess);
  EXPECT_EQ(cudaFree(static_cast<char*>(pointer) + 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(pointer), cudaSuccess);
  EXPECT_EQ(cudaFree(pointer), cudaErrorInvalidValue);  // double free
}

TEST(Memory, PitchHostAndInfo) {
  void* pointer = nullptr;
  size_t pitch = 0;
  EXPECT_EQ(cudaMallocPitch(nullptr, &pitch, 10, 10), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocPitch(&pointer, nullptr, 10, 10), cudaErrorInvalidValue);
  ASSERT_EQ(cudaMallocPitch(&pointer, &pitch, 300, 3), cudaSuccess);
  EXPECT_EQ(pitch, 512u);
  EXPECT_EQ(cudaFree(pointer), cudaSuccess);

  EXPECT_EQ(cudaMallocHost(nullptr, 16), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostAlloc(&pointer, 16, 0x80), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostAlloc(&pointer, 16, cudaHostAllocMapped), cudaErrorNotSupported);
  int on_stack = 0;
  EXPECT_EQ(cudaFreeHost(&on_stack), cudaErrorInvalidValue);
  ASSERT_EQ(cudaHostAlloc(&pointer, 5000, cudaHostAllocPortable), cudaSuccess);
  static_cast<char*>(pointer)[4999] = 1;  // usable to its last byte
  EXPECT_EQ(cudaFreeHost(pointer), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(pointer), cudaErrorInvalidValue);

  size_t free_bytes = 0, total_bytes = 0;
  EXPECT_EQ(cudaMemGetInfo(nullptr, &total_bytes), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, nullptr), cudaErrorInvalidValue);
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  EXPECT_GT(free_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
}

TEST(Memory, Copies) {
  int* device = device_ints(16);
  std::vector<int> host(16, 3), back(16, 0);
  EXPECT_EQ(cudaMemcpy(device, host.data(), 64, static_cast<cudaMemcpyKind>(7)),
            cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemcpy(nullptr, host.data(), 64, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(device, nullptr, 64, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(device, host.data(), 65, cudaMemcpyHostToDevice), cudaErrorInvalidValue);  // overrun
  EXPECT_EQ(cudaMemcpy(host.data(), back.data(), 64, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(device, host.data(), 0, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device, host.data(), 64, cudaMemcpyDefault), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device + 8, device, 32, cudaMemcpyDeviceToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), device, 64, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(back, host);
  std::vector<int> copy(16, 0);
  ASSERT_EQ(cudaMemcpy(copy.data(), back.data(), 64, cudaMemcpyHostToHost), cudaSuccess);
  EXPECT_EQ(copy, host);

  EXPECT_EQ(
      cudaMemcpyAsync(device, host.data(), 64, cudaMemcpyHostToDevice, reinterpret_cast<cudaStream_t>(0x40)),
      cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaMemcpy2D(device, 8, host.data(), 16, 12, 2, cudaMemcpyHostToDevice),
            cudaErrorInvalidPitchValue);
  EXPECT_EQ(cudaMemcpy2D(device, 32, host.data(), 32, 32, 3, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  ASSERT_EQ(cudaMemcpy2DAsync(device, 32, host.data(), 16, 16, 2, cudaMemcpyHostToDevice, 0), cudaSuccess);

  EXPECT_EQ(cudaMemset(device, 0, 65), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(host.data(), 0, 4), cudaErrorInvalidValue);
  ASSERT_EQ(cudaMemsetAsync(device, 0xFF, 64, 0), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), device, 64, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[15], -1);
  EXPECT_EQ(cudaFree(device), cudaSuccess);
}

// The direction of a copy is checked against the device ranges the runtime
// knows: a device pointer where the direction says host memory is refused
// with a message (the copy dereferenced it on the host and crashed), and so
// is a host pointer where it says device memory.
TEST(Memory, CopyDirectionsAreCheckedAgainstDevicePointers) {
  int* device = device_ints(16);
  int* other = device_ints(16);
  std::vector<int> host(16, 7), back(16, 0);
  ASSERT_EQ(cudaMemcpy(device, host.data(), 64, cudaMemcpyHostToDevice), cudaSuccess);
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaMemcpy(other, device, 64, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  const std::string message = testing::internal::GetCapturedStderr();
  EXPECT_NE(message.find("cudaMemcpy: the source 0x"), std::string::npos) << message;
  EXPECT_NE(message.find("is device memory (of device 0), but cudaMemcpyHostToDevice says it is host memory"),
            std::string::npos)
      << message;
  EXPECT_EQ(cudaMemcpy(device, other, 64, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(host.data(), device, 64, cudaMemcpyHostToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(device, host.data(), 64, cudaMemcpyHostToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyAsync(other, device + 4, 16, cudaMemcpyHostToDevice, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2D(device, 16, other, 16, 16, 2, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2DAsync(other, 16, device, 16, 16, 2, cudaMemcpyHostToDevice, 0),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyToSymbol(counter_symbol(), device, sizeof(int), 0, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyFromSymbol(device, counter_symbol(), sizeof(int), 0, cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);
  // A host pointer where the direction says device memory.
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaMemcpy(back.data(), host.data(), 64, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  const std::string host_message = testing::internal::GetCapturedStderr();
  EXPECT_NE(host_message.find("is not device memory of device 0"), std::string::npos) << host_message;
  EXPECT_EQ(cudaMemcpy(host.data(), back.data(), 64, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyToSymbol(counter_symbol(), host.data(), sizeof(int), 0, cudaMemcpyDeviceToDevice),
            cudaErrorInvalidValue);
  // cudaMemcpyDefault still tells every pair apart.
  ASSERT_EQ(cudaMemcpy(other, device, 64, cudaMemcpyDefault), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), other, 64, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(back, host);
  std::vector<int> copy(16, 0);
  ASSERT_EQ(cudaMemcpy(copy.data(), back.data(), 64, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(copy, host);
  ASSERT_EQ(cudaMemcpy(device + 15, copy.data(), 4, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(back.data(), device + 8, 64, cudaMemcpyDefault), cudaErrorInvalidValue);  // overrun
  // None of the refusals touched the memory or left an error behind.
  ASSERT_EQ(cudaMemcpy(back.data(), device, 64, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, host);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaFree(device), cudaSuccess);
  EXPECT_EQ(cudaFree(other), cudaSuccess);
}

// Two devices: their allocations start at different origins, so a pointer of
// one device is not also one of the other's, and every call that takes a
// device pointer refuses the other device's (it touched the wrong device's
// memory, or crashed as a host pointer under cudaMemcpyDefault).  Device
// address ranges still overlap, so unifiedAddressing stays 0.
// cudaProfilerStart/Stop open and close the current device's profiling
// window (the stats window); each is idempotent, and a reset closes it.
TEST(Devices, ProfilerWindowPerDevice) {
  if (kestrelSetDeviceCount(2) != cudaSuccess)
    GTEST_SKIP() << "the devices exist already (run alone, as ctest does)";
  int active = -1;
  EXPECT_EQ(kestrelProfilerActive(nullptr), cudaErrorInvalidValue);
  ASSERT_EQ(kestrelProfilerActive(&active), cudaSuccess);
  EXPECT_EQ(active, 0);
  EXPECT_EQ(cudaProfilerStop(), cudaSuccess);  // stopping a closed window does nothing
  EXPECT_EQ(cudaProfilerStart(), cudaSuccess);
  EXPECT_EQ(cudaProfilerStart(), cudaSuccess);
  ASSERT_EQ(kestrelProfilerActive(&active), cudaSuccess);
  EXPECT_EQ(active, 1);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);  // the other device's window is its own
  ASSERT_EQ(kestrelProfilerActive(&active), cudaSuccess);
  EXPECT_EQ(active, 0);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaProfilerStop(), cudaSuccess);
  ASSERT_EQ(kestrelProfilerActive(&active), cudaSuccess);
  EXPECT_EQ(active, 0);
  EXPECT_EQ(cudaProfilerStart(), cudaSuccess);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  ASSERT_EQ(kestrelProfilerActive(&active), cudaSuccess);
  EXPECT_EQ(active, 0);
}

TEST(Devices, PointersOfAnotherDeviceAreRefused) {
  if (kestrelSetDeviceCount(2) != cudaSuccess)
    GTEST_SKIP() << "the devices exist already (run alone, as ctest does)";
  cudaGetLastError();
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  ASSERT_EQ(count, 2);
  for (int ordinal = 0; ordinal < 2; ++ordinal) {
    cudaDeviceProp prop;
    ASSERT_EQ(cudaGetDeviceProperties(&prop, ordinal), cudaSuccess);
    EXPECT_EQ(prop.unifiedAddressing, 0);
    int value = -1;
    ASSERT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrUnifiedAddressing, ordinal), cudaSuccess);
    EXPECT_EQ(value, 0);
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  int* zero = device_ints(16);
  cudaStream_t zero_stream;
  ASSERT_EQ(cudaStreamCreate(&zero_stream), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  int* one = device_ints(16);
  EXPECT_NE(zero, one);
  std::vector<int> host(16, 5), back(16, 0);
  ASSERT_EQ(cudaMemcpy(one, host.data(), 64, cudaMemcpyHostToDevice), cudaSuccess);

  // Device 1 is current: device 0's pointer is refused everywhere.
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaMemcpy(back.data(), zero, 64, cudaMemcpyDefault), cudaErrorInvalidValue);
  const std::string message = testing::internal::GetCapturedStderr();
  EXPECT_NE(message.find("is memory of device 0, but the call runs on device 1"), std::string::npos)
      << message;
  EXPECT_EQ(cudaMemcpy(zero, host.data(), 64, cudaMemcpyDefault), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(back.data(), zero, 64, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(zero, host.data(), 64, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(one, zero, 64, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(one, zero, 64, cudaMemcpyDefault), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(zero, one, 64, cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);  // a device pointer as host
  EXPECT_EQ(cudaMemcpyAsync(back.data(), zero, 64, cudaMemcpyDeviceToHost, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(zero, 0, 64), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemsetAsync(zero, 0, 64, 0), cudaErrorInvalidValue);
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaFree(zero), cudaErrorInvalidValue);
  const std::string free_message = testing::internal::GetCapturedStderr();
  EXPECT_NE(free_message.find("is memory of device 0, but the current device is 1"), std::string::npos)
      << free_message;
  // A stream of device 0 takes device 0's pointers whatever the current device.
  ASSERT_EQ(cudaMemcpyAsync(zero, host.data(), 64, cudaMemcpyDefault, zero_stream), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(one, host.data(), 64, cudaMemcpyHostToDevice, zero_stream),
            cudaErrorInvalidValue);
  ASSERT_EQ(cudaStreamSynchronize(zero_stream), cudaSuccess);

  // Nothing was touched: device 1 still holds its data, device 0 what its stream copied.
  ASSERT_EQ(cudaMemcpy(back.data(), one, 64, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(back, host);
  EXPECT_EQ(cudaFree(one), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), zero, 64, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, host);
  EXPECT_EQ(cudaStreamDestroy(zero_stream), cudaSuccess);
  EXPECT_EQ(cudaFree(zero), cudaSuccess);
}

TEST(Symbols, CopiesAddressesAndSizes) {
  int not_a_symbol = 0;
  int value = 41;
  void* address = nullptr;
  size_t size = 0;
  EXPECT_EQ(cudaMemcpyToSymbol(&not_a_symbol, &value, sizeof value, 0, cudaMemcpyHostToDevice),
            cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaMemcpyFromSymbol(&value, &not_a_symbol, sizeof value, 0, cudaMemcpyDeviceToHost),
            cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaGetSymbolAddress(&address, &not_a_symbol), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaGetSymbolSize(&size, &not_a_symbol), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaGetSymbolAddress(nullptr, counter_symbol()), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetSymbolSize(nullptr, counter_symbol()), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyToSymbol(counter_symbol(), &value, sizeof value, 1, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);  // runs past the variable
  EXPECT_EQ(cudaMemcpyToSymbol(counter_symbol(), &value, sizeof value, 0, cudaMemcpyHostToHost),
            cudaErrorInvalidMemcpyDirection);
  ASSERT_EQ(cudaGetSymbolSize(&size, table_symbol()), cudaSuccess);
  EXPECT_EQ(size, 8 * sizeof(float));
  ASSERT_EQ(cudaMemcpyToSymbol(counter_symbol(), &value, sizeof value, 0, cudaMemcpyHostToDevice),
            cudaSuccess);
  int back = 0;
  ASSERT_EQ(cudaMemcpyFromSymbolAsync(&back, counter_symbol(), sizeof back, 0, cudaMemcpyDeviceToHost, 0),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(back, 41);
  const float table[2] = {1.5f, 2.5f};
  ASSERT_EQ(cudaMemcpyToSymbolAsync(table_symbol(), table, sizeof table, 6 * sizeof(float),
                                    cudaMemcpyHostToDevice, 0),
            cudaSuccess);
  ASSERT_EQ(cudaGetSymbolAddress(&address, table_symbol()), cudaSuccess);
  float last = 0;
  ASSERT_EQ(cudaMemcpy(&last, static_cast<float*>(address) + 7, sizeof last, cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(last, 2.5f);
  // The kernel sees what the host wrote to g_counter.
  int* data = device_ints(4);
  ASSERT_EQ(cudaMemset(data, 0, 16), cudaSuccess);
  cudaGetLastError();  // launch_add_one reports the last error, which the misuse above left
  ASSERT_EQ(launch_add_one(data, 4, dim3(1), dim3(4), 0, 0), cudaSuccess);
  int result[4];
  ASSERT_EQ(cudaMemcpy(result, data, sizeof result, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(result[3], 42);
  EXPECT_EQ(cudaFree(data), cudaSuccess);
}

TEST(Streams, Lifetimes) {
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreate(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamCreateWithFlags(&stream, 0x10), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamDestroy(nullptr), cudaErrorInvalidResourceHandle);
  ASSERT_EQ(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, -3), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamAddCallback(stream, nullptr, nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaLaunchHostFunc(stream, nullptr, nullptr), cudaErrorInvalidValue);
  cudaEvent_t event;
  ASSERT_EQ(cudaEventCreate(&event), cudaSuccess);
  EXPECT_EQ(cudaStreamWaitEvent(stream, event, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamWaitEvent(stream, reinterpret_cast<cudaEvent_t>(&event), 0),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamWaitEvent(stream, event, 0), cudaSuccess);
  int calls = 0;
  ASSERT_EQ(cudaLaunchHostFunc(
                stream, [](void* data) { ++*static_cast<int*>(data); }, &calls),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamQuery(stream), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventRecord(event, stream), cudaErrorInvalidResourceHandle);
  int least = 1, greatest = 1;
  EXPECT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
  EXPECT_EQ(least, 0);
  EXPECT_EQ(greatest, 0);
  EXPECT_EQ(cudaEventDestroy(event), cudaSuccess);
}

// A callback must not call the runtime (guide 3.2.5.5.6): a call that waits
// for the device would wait for the worker thread running the callback.
// Each call answers cudaErrorNotPermitted instead (they hung forever before)
// and the runtime keeps working.  CUDART_CB is CUDA's calling convention.
struct CallsFromCallbacks {
  int* device = nullptr;
  int host = 0;
  cudaError_t synchronize = cudaSuccess, stream_synchronize = cudaSuccess, copy = cudaSuccess,
              malloc = cudaSuccess, launch = cudaSuccess, get_device = cudaSuccess,
              host_fn_copy = cudaSuccess;
  cudaError_t status = cudaErrorUnknown;
};

void CUDART_CB callback_calling_the_runtime(cudaStream_t stream, cudaError_t status, void* data) {
  auto& calls = *static_cast<CallsFromCallbacks*>(data);
  calls.status = status;
  calls.synchronize = cudaDeviceSynchronize();
  calls.stream_synchronize = cudaStreamSynchronize(stream);
  calls.copy = cudaMemcpy(&calls.host, calls.device, sizeof calls.host, cudaMemcpyDeviceToHost);
  void* memory = nullptr;
  calls.malloc = cudaMalloc(&memory, 16);
  calls.launch = launch_add_one(calls.device, 4, dim3(1), dim3(4), 0, 0);
  int ordinal = -1;
  calls.get_device = cudaGetDevice(&ordinal);
}

void CUDART_CB host_function_calling_the_runtime(void* data) {
  auto& calls = *static_cast<CallsFromCallbacks*>(data);
  calls.host_fn_copy = cudaMemcpy(calls.device, &calls.host, sizeof calls.host, cudaMemcpyHostToDevice);
}

TEST(Streams, CallbacksThatCallTheRuntimeAreRefused) {
  CallsFromCallbacks calls;
  calls.device = device_ints(4);
  ASSERT_EQ(cudaMemset(calls.device, 0, 4 * sizeof(int)), cudaSuccess);
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaStreamAddCallback(stream, callback_calling_the_runtime, &calls, 0), cudaSuccess);
  ASSERT_EQ(cudaLaunchHostFunc(nullptr, host_function_calling_the_runtime, &calls), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(calls.status, cudaSuccess);
  EXPECT_EQ(calls.synchronize, cudaErrorNotPermitted);
  EXPECT_EQ(calls.stream_synchronize, cudaErrorNotPermitted);
  EXPECT_EQ(calls.copy, cudaErrorNotPermitted);
  EXPECT_EQ(calls.malloc, cudaErrorNotPermitted);
  EXPECT_EQ(calls.launch, cudaErrorNotPermitted);
  EXPECT_EQ(calls.get_device, cudaErrorNotPermitted);
  EXPECT_EQ(calls.host_fn_copy, cudaErrorNotPermitted);
  // The refusals are the callbacks' own: this thread's last error is clean,
  // and the device still copies and launches.
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(launch_add_one(calls.device, 4, dim3(1), dim3(4), 0, stream), cudaSuccess);
  int result[4] = {};
  ASSERT_EQ(cudaMemcpy(result, calls.device, sizeof result, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(result[3], 1);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(cudaFree(calls.device), cudaSuccess);
}

TEST(Events, Lifetimes) {
  cudaEvent_t start = nullptr, stop = nullptr;
  float ms = 0;
  EXPECT_EQ(cudaEventCreate(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaEventCreateWithFlags(&start, 0x100), cudaErrorInvalidValue);
  EXPECT_EQ(cudaEventCreateWithFlags(&start, cudaEventInterprocess), cudaErrorInvalidValue);
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop, cudaEventBlockingSync), cudaSuccess);
  EXPECT_EQ(cudaEventElapsedTime(nullptr, start, stop), cudaErrorInvalidValue);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorInvalidResourceHandle);  // never recorded
  EXPECT_EQ(cudaEventQuery(start), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(start), cudaSuccess);
  int* data = device_ints(256);
  cudaGetLastError();  // launch_add_one reports the last error, which the misuse above left
  ASSERT_EQ(launch_add_one(data, 256, dim3(2), dim3(128), 0, 0), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(stop), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_GT(ms, 0.0f);
  EXPECT_EQ(cudaEventDestroy(start), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(start), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventQuery(start), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventSynchronize(start), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventRecord(start, 0), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventDestroy(stop), cudaSuccess);
  EXPECT_EQ(cudaFree(data), cudaSuccess);
}

TEST(Launches, BadKernelsConfigurationsAndArguments) {
  int* data = device_ints(64);
  int n = 64;
  void* args[] = {&data, &n};
  int not_a_kernel = 0;
  EXPECT_EQ(cudaLaunchKernel(static_cast<const void*>(nullptr), dim3(1), dim3(1), args, 0, nullptr),
            cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaLaunchKernel(static_cast<const void*>(&not_a_kernel), dim3(1), dim3(1), args, 0, nullptr),
            cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaLaunchKernel(add_one_kernel(), dim3(1), dim3(64), nullptr, 0, nullptr),
            cudaErrorInvalidValue);
  cudaDeviceProp prop;
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_EQ(launch_add_one(data, n, dim3(0), dim3(64), 0, 0), cudaErrorInvalidConfiguration);
  EXPECT_EQ(launch_add_one(data, n, dim3(1), dim3(prop.maxThreadsPerBlock + 1), 0, 0),
            cudaErrorInvalidConfiguration);
  EXPECT_EQ(launch_add_one(data, n, dim3(1, 70000), dim3(1), 0, 0), cudaErrorInvalidConfiguration);
  EXPECT_EQ(launch_add_one(data, n, dim3(1), dim3(1), prop.sharedMemPerBlock + 1, 0),
            cudaErrorInvalidConfiguration);
  EXPECT_EQ(launch_add_one(data, n, dim3(1), dim3(64), 0, reinterpret_cast<cudaStream_t>(&n)),
            cudaErrorInvalidResourceHandle);
  dim3 grid, block;
  size_t shared = 0;
  cudaStream_t stream = nullptr;
  EXPECT_EQ(__cudaPopCallConfiguration(&grid, &block, &shared, &stream), cudaErrorMissingConfiguration);
  // None of the refusals touched the device: a good launch still works.
  const int zero = 0;
  ASSERT_EQ(cudaMemcpyToSymbol(counter_symbol(), &zero, sizeof zero, 0, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(data, 0, 64 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaLaunchKernel(add_one_kernel(), dim3(1), dim3(64), args, 0, nullptr), cudaSuccess);
  int result[64];
  ASSERT_EQ(cudaMemcpy(result, data, sizeof result, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(result[63], 1);
  EXPECT_EQ(cudaFree(data), cudaSuccess);
}

// cudaLaunchCooperativeKernel checks what cudaLaunchKernel checks, then that
// every block can be resident at once (cudaErrorCooperativeLaunchTooLarge).
TEST(Launches, CooperativeLaunchesAreCheckedForResidency) {
  int* data = device_ints(64);
  int n = 64;
  void* args[] = {&data, &n};
  EXPECT_EQ(
      cudaLaunchCooperativeKernel(static_cast<const void*>(nullptr), dim3(1), dim3(1), args, 0, nullptr),
      cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaLaunchCooperativeKernel(add_one_kernel(), dim3(0), dim3(64), args, 0, nullptr),
            cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaLaunchCooperativeKernel(add_one_kernel(), dim3(1), dim3(64), args, 0,
                                        reinterpret_cast<cudaStream_t>(&n)),
            cudaErrorInvalidResourceHandle);
  cudaDeviceProp prop;
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int per_sm = 0;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, add_one_kernel(), 64, 0), cudaSuccess);
  const unsigned int resident = static_cast<unsigned int>(per_sm * prop.multiProcessorCount);
  EXPECT_EQ(cudaLaunchCooperativeKernel(add_one_kernel(), dim3(resident + 1), dim3(64), args, 0, nullptr),
            cudaErrorCooperativeLaunchTooLarge);
  EXPECT_EQ(cudaGetLastError(), cudaErrorCooperativeLaunchTooLarge);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorCooperativeLaunchTooLarge), "cudaErrorCooperativeLaunchTooLarge");
  // The largest grid that fits runs, as an ordinary kernel would.
  ASSERT_EQ(cudaMemset(data, 0, 64 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaLaunchCooperativeKernel(add_one_kernel(), dim3(resident), dim3(64), args, 0, nullptr),
            cudaSuccess);
  int result[64];
  ASSERT_EQ(cudaMemcpy(result, data, sizeof result, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_GE(result[63], 1);
  EXPECT_EQ(cudaFree(data), cudaSuccess);
}

TEST(Launches, FaultIsStickyUntilReset) {
  int value = 5;
  void* args[] = {&value};
  ASSERT_EQ(cudaLaunchKernel(null_writer_kernel(), dim3(1), dim3(1), args, 0, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  int* data = nullptr;
  EXPECT_EQ(cudaMalloc(&data, 4), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaStreamQuery(0), cudaErrorIllegalAddress);
  cudaStream_t stream;
  EXPECT_EQ(cudaStreamCreate(&stream), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&data, 4), cudaSuccess);
  EXPECT_EQ(cudaFree(data), cudaSuccess);
}

// Work queued behind a faulting kernel is skipped, but event records still
// complete: cudaEventSynchronize, cudaEventQuery, cudaStreamWaitEvent and
// cudaEventDestroy return instead of waiting forever (they hung before).
TEST(Launches, EventsQueuedBehindAFaultComplete) {
  cudaStream_t other;
  cudaEvent_t event;
  ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&event), cudaSuccess);
  Gate gate;
  ASSERT_EQ(cudaLaunchHostFunc(nullptr, &Gate::wait, &gate), cudaSuccess);
  int value = 5;
  void* args[] = {&value};
  ASSERT_EQ(cudaLaunchKernel(null_writer_kernel(), dim3(1), dim3(1), args, 0, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(event, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(other, event, 0), cudaSuccess);
  gate.release();
  EXPECT_EQ(cudaEventSynchronize(event), cudaErrorIllegalAddress);
  EXPECT_NE(cudaEventQuery(event), cudaErrorNotReady);
  EXPECT_EQ(cudaStreamSynchronize(other), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaEventDestroy(event), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(Launches, ResetInvalidatesStreamsEventsAndAllocations) {
  cudaStream_t stream;
  cudaEvent_t event;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&event), cudaSuccess);
  int* data = device_ints(4);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(stream), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventQuery(event), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaFree(data), cudaErrorInvalidValue);
}

// A refused configuration also says why on stderr: programs seldom check
// a launch's error, and a block a CUDA GPU takes may not fit this device.
TEST(Launches, RefusedConfigurationSaysWhy) {
  cudaDeviceProp prop;
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int* data = device_ints(64);
  testing::internal::CaptureStderr();
  const cudaError_t refused = launch_add_one(data, 64, dim3(1), dim3(prop.maxThreadsPerBlock + 32), 0, 0);
  const std::string message = testing::internal::GetCapturedStderr();
  EXPECT_EQ(refused, cudaErrorInvalidConfiguration);
  EXPECT_NE(message.find("kestrel: cudaLaunchKernel: launch of 'add_one(int*, int)'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("an SM holds"), std::string::npos) << message;
  EXPECT_NE(message.find(prop.name), std::string::npos) << message;
  EXPECT_EQ(cudaFree(data), cudaSuccess);
}

// cudaFuncSetAttribute bounds the dynamic shared memory of a kernel's
// launches and records the carve-out; clusters are refused.
TEST(Launches, FunctionAttributes) {
  cudaFuncAttributes attributes;
  ASSERT_EQ(cudaFuncGetAttributes(&attributes, add_one_kernel()), cudaSuccess);
  EXPECT_EQ(attributes.preferredShmemCarveout, cudaSharedmemCarveoutDefault);
  const int room = attributes.maxDynamicSharedSizeBytes;
  ASSERT_GT(room, 2048);
  EXPECT_EQ(
      cudaFuncSetAttribute(static_cast<const void*>(nullptr), cudaFuncAttributeMaxDynamicSharedMemorySize, 1),
      cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaFuncSetAttribute(add_one_kernel(), cudaFuncAttributeMaxDynamicSharedMemorySize, room + 1),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncSetAttribute(add_one_kernel(), cudaFuncAttributeMaxDynamicSharedMemorySize, -1),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncSetAttribute(add_one_kernel(), cudaFuncAttributePreferredSharedMemoryCarveout, 101),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncSetAttribute(add_one_kernel(), cudaFuncAttributeRequiredClusterWidth, 2),
            cudaErrorNotSupported);
  EXPECT_EQ(cudaFuncSetAttribute(add_one_kernel(), static_cast<cudaFuncAttribute>(3), 0),
            cudaErrorInvalidValue);
  ASSERT_EQ(cudaFuncSetAttribute(add_one_kernel(), cudaFuncAttributeMaxDynamicSharedMemorySize, 1024),
            cudaSuccess);
  ASSERT_EQ(cudaFuncSetAttribute(add_one_kernel(), cudaFuncAttributePreferredSharedMemoryCarveout, 50),
            cudaSuccess);
  ASSERT_EQ(cudaFuncGetAttributes(&attributes, add_one_kernel()), cudaSuccess);
  EXPECT_EQ(attributes.maxDynamicSharedSizeBytes, 1024);
  EXPECT_EQ(attributes.preferredShmemCarveout, 50);
  int* data = device_ints(64);
  EXPECT_EQ(launch_add_one(data, 64, dim3(1), dim3(64), 2048, 0),
            cudaErrorInvalidValue);  // more than allowed
  EXPECT_EQ(launch_add_one(data, 64, dim3(1), dim3(64), 1024, 0), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaFuncSetCacheConfig(add_one_kernel(), cudaFuncCachePreferL1), cudaSuccess);
  EXPECT_EQ(cudaFuncSetCacheConfig(add_one_kernel(), static_cast<cudaFuncCache>(9)), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(data), cudaSuccess);
}

TEST(Occupancy, BadArguments) {
  int blocks = 0, min_grid = 0, block_size = 0;
  int not_a_kernel = 0;
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, add_one_kernel(), 32, 0),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add_one_kernel(), 0, 0),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, &not_a_kernel, 32, 0),
            cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaOccupancyMaxPotentialBlockSize(nullptr, &block_size, add_one_kernel(), 0, 0),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, &not_a_kernel, 0, 0),
            cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, add_one_kernel(), 0, -1),
            cudaErrorInvalidValue);
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add_one_kernel(), 32, 0), cudaSuccess);
  EXPECT_GT(blocks, 0);
  cudaFuncAttributes attributes;
  EXPECT_EQ(cudaFuncGetAttributes(nullptr, add_one_kernel()), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncGetAttributes(&attributes, &not_a_kernel), cudaErrorInvalidDeviceFunction);
  ASSERT_EQ(cudaFuncGetAttributes(&attributes, add_one_kernel()), cudaSuccess);
  EXPECT_EQ(attributes.sharedSizeBytes, 0u);
  EXPECT_EQ(attributes.numRegs, 64);
}

}  // namespace
