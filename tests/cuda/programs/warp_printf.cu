// Warp primitives and device printf through the CUDA runtime: a warp-level
// sum with __shfl_down_sync, a ballot count, cudaLimitPrintfFifoSize, and
// device output that appears at cudaDeviceSynchronize (guide B.17.2), after
// what the host printed before it.  CTest checks the order of the lines.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

__global__ void warp_sums(const int* in, int* sums, unsigned* positives) {
  int value = in[blockIdx.x * blockDim.x + threadIdx.x];
  const unsigned positive = __ballot_sync(0xffffffff, value > 0);
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffff, value, offset);
  if (threadIdx.x % 32 == 0) {
    sums[blockIdx.x] = value;
    positives[blockIdx.x] = __popc(positive);
    printf("device: block %d sum %d positives %u\n", blockIdx.x, value, __popc(positive));
  }
}

static void check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "warp_printf: %s\n", what);
    exit(EXIT_FAILURE);
  }
}

int main() {
  size_t fifo = 0;
  check(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize) == cudaSuccess && fifo == (1u << 20),
        "default printf FIFO is 1 MiB");
  check(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1u << 16) == cudaSuccess, "set the printf FIFO size");
  check(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize) == cudaSuccess && fifo == (1u << 16),
        "printf FIFO size reads back");

  int host_in[64];
  for (int i = 0; i < 64; ++i) host_in[i] = i % 3 == 0 ? -i : i;
  int *in = nullptr, *sums = nullptr;
  unsigned* positives = nullptr;
  cudaMalloc(&in, sizeof host_in);
  cudaMalloc(&sums, 2 * sizeof(int));
  cudaMalloc(&positives, 2 * sizeof(unsigned));
  cudaMemcpy(in, host_in, sizeof host_in, cudaMemcpyHostToDevice);
  warp_sums<<<2, 32>>>(in, sums, positives);
  printf("host: before synchronize\n");
  fflush(stdout);
  check(cudaDeviceSynchronize() == cudaSuccess, "kernel ran");
  int host_sums[2];
  unsigned host_positives[2];
  cudaMemcpy(host_sums, sums, sizeof host_sums, cudaMemcpyDeviceToHost);
  cudaMemcpy(host_positives, positives, sizeof host_positives, cudaMemcpyDeviceToHost);
  for (int b = 0; b < 2; ++b) {
    int sum = 0;
    unsigned count = 0;
    for (int i = 32 * b; i < 32 * b + 32; ++i) {
      sum += host_in[i];
      count += host_in[i] > 0;
    }
    check(host_sums[b] == sum && host_positives[b] == count, "warp sums and ballot counts");
  }
  printf("warp_printf: PASSED\n");
  return EXIT_SUCCESS;
}
