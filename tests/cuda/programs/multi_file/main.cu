// A program of two .cu files and a .cpp file (guide 3.1): this one launches
// its own kernel and calls a host function of stencil.cu that launches the
// other file's kernels; checks.cpp is plain host C++.  Each .cu file carries
// and registers its own device module.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#include "checks.h"
#include "stencil.h"

__global__ void fill(int* data, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = value + i;
}

int main() {
  if (!device_is_usable()) return EXIT_FAILURE;
  const int n = 1000;
  int* d_in;
  int* d_out;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  fill<<<(n + 255) / 256, 256>>>(d_in, 5, n);
  if (three_point_sum(d_out, d_in, n) != cudaSuccess) return EXIT_FAILURE;
  int h_out[n];
  cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    const int expected = expected_three_point(5, i, n);
    if (h_out[i] != expected * stencil_scale()) {
      fprintf(stderr, "element %d: %d, expected %d\n", i, h_out[i], expected * stencil_scale());
      return EXIT_FAILURE;
    }
  }
  cudaFree(d_in);
  cudaFree(d_out);
  printf("multi-file program: PASSED\n");
  return EXIT_SUCCESS;
}
