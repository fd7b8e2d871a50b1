// A failed assert() (guide B.16): what was printed before it appears, then
// CUDA's message naming file, line, function, block and thread, and the
// launch ends with cudaErrorAssert.
#include <cassert>
#include <cstdio>

#include <cuda_runtime.h>

__global__ void check_positive(const int* values) {
  if (threadIdx.x == 0 && blockIdx.x == 0) printf("checking %d values\n", blockDim.x * gridDim.x);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(values[i] > 0);
}

int main() {
  int values[64];
  for (int i = 0; i < 64; ++i) values[i] = i == 37 ? -5 : i + 1;
  int* device_values = nullptr;
  cudaMalloc(&device_values, sizeof values);
  cudaMemcpy(device_values, values, sizeof values, cudaMemcpyHostToDevice);
  check_positive<<<2, 32>>>(device_values);
  const cudaError_t error = cudaDeviceSynchronize();
  printf("synchronize: %s\n", cudaGetErrorName(error));
  return 0;
}
