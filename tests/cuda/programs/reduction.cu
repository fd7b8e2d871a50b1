// Parallel sum in the style of NVIDIA's reduction sample: a template kernel
// on the block size, dynamic shared memory (extern __shared__, guide B.2.3),
// a first pass per block and a second pass over the partial sums.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

template <unsigned int blockSize>
__global__ void reduce(const int* g_idata, int* g_odata, unsigned int n) {
  extern __shared__ int sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  unsigned int gridSize = blockSize * 2 * gridDim.x;
  int mySum = 0;
  while (i < n) {
    mySum += g_idata[i];
    if (i + blockSize < n) mySum += g_idata[i + blockSize];
    i += gridSize;
  }
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

int main() {
  const unsigned int n = 1u << 16;
  const unsigned int threads = 128, blocks = 64;
  std::vector<int> h_idata(n);
  long long expected = 0;
  for (unsigned int i = 0; i < n; ++i) {
    h_idata[i] = static_cast<int>(rand() & 0xFF) - 100;
    expected += h_idata[i];
  }
  int *d_idata = nullptr, *d_odata = nullptr, *d_total = nullptr;
  cudaMalloc(&d_idata, n * sizeof(int));
  cudaMalloc(&d_odata, blocks * sizeof(int));
  cudaMalloc(&d_total, sizeof(int));
  cudaMemcpy(d_idata, h_idata.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  reduce<threads><<<blocks, threads, threads * sizeof(int)>>>(d_idata, d_odata, n);
  reduce<blocks><<<1, blocks, blocks * sizeof(int)>>>(d_odata, d_total, blocks);
  int total = 0;
  cudaError_t err = cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    fprintf(stderr, "reduction failed: %s\n", cudaGetErrorString(err));
    return EXIT_FAILURE;
  }
  printf("GPU sum %d, CPU sum %lld\n", total, expected);
  cudaFree(d_idata);
  cudaFree(d_odata);
  cudaFree(d_total);
  if (total != expected) return EXIT_FAILURE;
  printf("Test passed\n");
  return EXIT_SUCCESS;
}
