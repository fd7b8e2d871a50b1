// SAXPY as a user writes it; built by an outside project through find_package(Kestrel).
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 12;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  float *d_x, *d_y;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, d_x, d_y);
  cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
  int errors = 0;
  for (float v : y) errors += v != 4.0f;
  printf("saxpy: %d errors\n", errors);
  return errors == 0 && cudaGetLastError() == cudaSuccess ? 0 : 1;
}
