// Device management and occupancy in the style of NVIDIA's deviceQuery
// sample (guide 3.2.6, B.20): properties and attributes agree with each
// other and with the device, every device runs its own kernels with its own
// memory, and the occupancy calculator follows warps and shared memory.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#include "sample_helpers.h"

#define EXPECT(condition)                                                      \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #condition); \
      exit(EXIT_FAILURE);                                                      \
    }                                                                          \
  } while (0)

__global__ void small_kernel(int* out) { out[threadIdx.x] = threadIdx.x * 10 + gridDim.x; }

__global__ void shared_hungry(float* out) {
  __shared__ float buffer[4096];  // 16 KiB of static shared memory
  buffer[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = buffer[(threadIdx.x + 1) % blockDim.x];
}

int main() {
  int count = 0;
  EXPECT(cudaGetDeviceCount(&count) == cudaSuccess && count >= 1);
  // The helpers NVIDIA's samples rely on find Kestrel's runtime through CUDA's include guards.
  EXPECT(sample_find_device() == 0);
  int mode = -1;
  SAMPLE_CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0));
  EXPECT(mode == cudaComputeModeDefault);
  for (int dev = 0; dev < count; ++dev) {
    cudaDeviceProp prop;
    EXPECT(cudaGetDeviceProperties(&prop, dev) == cudaSuccess);
    printf(
        "Device %d: \"%s\" %d SMs, warp %d, %d threads/block, %zu bytes shared/block, %zu MiB, %d kHz, cc "
        "%d.%d\n",
        dev, prop.name, prop.multiProcessorCount, prop.warpSize, prop.maxThreadsPerBlock,
        prop.sharedMemPerBlock, prop.totalGlobalMem >> 20, prop.clockRate, prop.major, prop.minor);
    int value = 0;
    EXPECT(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, dev) == cudaSuccess && value == prop.warpSize);
    EXPECT(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
           value == prop.multiProcessorCount);
    EXPECT(cudaDeviceGetAttribute(&value, cudaDevAttrMaxThreadsPerBlock, dev) == cudaSuccess &&
           value == prop.maxThreadsPerBlock);
    EXPECT(cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, dev) == cudaSuccess &&
           value == prop.clockRate);
    EXPECT(prop.warpSize == 32 && prop.maxThreadsPerBlock == prop.maxThreadsPerMultiProcessor);
    EXPECT(prop.clockRate > 0 && prop.totalGlobalMem > 0 && prop.major == 7);
    // CUDA 12's fields, as NVIDIA's deviceQuery prints them: no peer access,
    // CUDA arrays up to guide G.1's limits (no texture unit yet), host memory
    // can be registered but not mapped.
    int peer = -1;
    EXPECT(cudaDeviceCanAccessPeer(&peer, dev, count - 1 - dev) == cudaSuccess && peer == 0);
    EXPECT(prop.hostRegisterSupported == 1 && prop.canMapHostMemory == 0 && prop.maxTexture1D == 65536);
    EXPECT(prop.computeMode == cudaComputeModeDefault && prop.multiGpuBoardGroupID == dev);
    size_t free_bytes = 0, total_bytes = 0;
    EXPECT(cudaSetDevice(dev) == cudaSuccess);
    EXPECT(cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess);
    EXPECT(total_bytes == prop.totalGlobalMem && free_bytes < total_bytes);
    void* block = nullptr;
    EXPECT(cudaMalloc(&block, 1 << 20) == cudaSuccess);
    size_t free_after = 0;
    EXPECT(cudaMemGetInfo(&free_after, &total_bytes) == cudaSuccess && free_after + (1 << 20) <= free_bytes);
    EXPECT(cudaFree(block) == cudaSuccess);
  }

  // Each device holds its own allocations and runs its own launches.
  int* results[2] = {nullptr, nullptr};
  for (int dev = 0; dev < count && dev < 2; ++dev) {
    EXPECT(cudaSetDevice(dev) == cudaSuccess);
    EXPECT(cudaMalloc(&results[dev], 64 * sizeof(int)) == cudaSuccess);
    small_kernel<<<dev + 1, 64>>>(results[dev]);
  }
  for (int dev = 0; dev < count && dev < 2; ++dev) {
    EXPECT(cudaSetDevice(dev) == cudaSuccess);
    int host[64];
    EXPECT(cudaMemcpy(host, results[dev], sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < 64; ++i) EXPECT(host[i] == i * 10 + dev + 1);
    EXPECT(cudaFree(results[dev]) == cudaSuccess);
  }
  EXPECT(cudaSetDevice(count) == cudaErrorInvalidDevice);
  cudaGetLastError();
  EXPECT(cudaSetDevice(0) == cudaSuccess);

  // Occupancy: an SM holds as many blocks as its warps and shared memory
  // allow.  Static shared memory belongs to the whole .cu file on Kestrel
  // (docs/cuda-runtime.md), so both kernels here use shared_hungry's 16 KiB.
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  const int warps_per_sm = prop.maxThreadsPerMultiProcessor / prop.warpSize;
  cudaFuncAttributes attributes;
  EXPECT(cudaFuncGetAttributes(&attributes, shared_hungry) == cudaSuccess);
  EXPECT(attributes.sharedSizeBytes == 4096 * sizeof(float));
  EXPECT(cudaFuncGetAttributes(&attributes, small_kernel) == cudaSuccess);
  EXPECT(attributes.sharedSizeBytes == 4096 * sizeof(float));
  const int by_shared = static_cast<int>(prop.sharedMemPerMultiprocessor / attributes.sharedSizeBytes);  // 4
  int blocks = 0;
  EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, small_kernel, prop.warpSize, 0) ==
         cudaSuccess);
  EXPECT(blocks == (warps_per_sm < by_shared ? warps_per_sm : by_shared));
  EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, small_kernel, 4 * prop.warpSize, 0) ==
         cudaSuccess);
  EXPECT(blocks == warps_per_sm / 4);
  EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, small_kernel, prop.warpSize,
                                                       prop.sharedMemPerBlock - attributes.sharedSizeBytes) ==
         cudaSuccess);
  EXPECT(blocks == 1);
  EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, small_kernel, prop.maxThreadsPerBlock + 1,
                                                       0) == cudaSuccess);
  EXPECT(blocks == 0);
  int minGrid = 0, blockSize = 0;
  EXPECT(cudaOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, small_kernel) == cudaSuccess);
  // Every warp of the SM busy: a full-size block, or smaller ones that fit beside each other.
  EXPECT(blockSize * (minGrid / prop.multiProcessorCount) == prop.maxThreadsPerMultiProcessor);
  EXPECT(blockSize == prop.maxThreadsPerBlock);
  EXPECT(cudaOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, small_kernel, 0, 100) == cudaSuccess);
  EXPECT(blockSize == 64 && minGrid == by_shared * prop.multiProcessorCount);
  printf("deviceQuery: PASSED\n");
  return EXIT_SUCCESS;
}
