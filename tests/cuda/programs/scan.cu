// Exclusive prefix sum of a large array in the style of NVIDIA's scan
// sample: a work-efficient (Blelloch) scan of each block's slice in shared
// memory, a scan of the block totals, and a uniform add.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

constexpr int kThreads = 128;
constexpr int kElementsPerBlock = 2 * kThreads;

__global__ void scanBlocks(unsigned int* out, const unsigned int* in, unsigned int* blockSums, int n) {
  __shared__ unsigned int temp[kElementsPerBlock];
  const int tid = threadIdx.x;
  const int base = blockIdx.x * kElementsPerBlock;
  temp[2 * tid] = base + 2 * tid < n ? in[base + 2 * tid] : 0;
  temp[2 * tid + 1] = base + 2 * tid + 1 < n ? in[base + 2 * tid + 1] : 0;
  int offset = 1;
  for (int d = kElementsPerBlock >> 1; d > 0; d >>= 1) {  // up-sweep
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (tid == 0) {
    if (blockSums != nullptr) blockSums[blockIdx.x] = temp[kElementsPerBlock - 1];
    temp[kElementsPerBlock - 1] = 0;
  }
  for (int d = 1; d < kElementsPerBlock; d *= 2) {  // down-sweep
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      const unsigned int t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  if (base + 2 * tid < n) out[base + 2 * tid] = temp[2 * tid];
  if (base + 2 * tid + 1 < n) out[base + 2 * tid + 1] = temp[2 * tid + 1];
}

__global__ void uniformAdd(unsigned int* data, const unsigned int* blockOffsets, int n) {
  const int i = blockIdx.x * kElementsPerBlock + threadIdx.x;
  const unsigned int add = blockOffsets[blockIdx.x];
  if (i < n) data[i] += add;
  if (i + kThreads < n) data[i + kThreads] += add;
}

int main() {
  const int n = 12345;
  const int blocks = (n + kElementsPerBlock - 1) / kElementsPerBlock;  // 49: one block scans their sums
  if (blocks > kElementsPerBlock) return EXIT_FAILURE;
  std::vector<unsigned int> h_in(n), h_out(n);
  for (int i = 0; i < n; ++i) h_in[i] = static_cast<unsigned int>(i % 7 + 1);
  unsigned int *d_in, *d_out, *d_sums, *d_sumsScanned;
  cudaMalloc(&d_in, n * sizeof(unsigned int));
  cudaMalloc(&d_out, n * sizeof(unsigned int));
  cudaMalloc(&d_sums, blocks * sizeof(unsigned int));
  cudaMalloc(&d_sumsScanned, blocks * sizeof(unsigned int));
  cudaMemcpy(d_in, h_in.data(), n * sizeof(unsigned int), cudaMemcpyHostToDevice);
  scanBlocks<<<blocks, kThreads>>>(d_out, d_in, d_sums, n);
  scanBlocks<<<1, kThreads>>>(d_sumsScanned, d_sums, nullptr, blocks);
  uniformAdd<<<blocks, kThreads>>>(d_out, d_sumsScanned, n);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    fprintf(stderr, "scan failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return EXIT_FAILURE;
  }
  cudaMemcpy(h_out.data(), d_out, n * sizeof(unsigned int), cudaMemcpyDeviceToHost);
  unsigned int running = 0;
  for (int i = 0; i < n; ++i) {
    if (h_out[i] != running) {
      fprintf(stderr, "scan[%d] = %u, expected %u\n", i, h_out[i], running);
      return EXIT_FAILURE;
    }
    running += h_in[i];
  }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_sums);
  cudaFree(d_sumsScanned);
  printf("scan: PASSED (%d elements)\n", n);
  return EXIT_SUCCESS;
}
