// Lab 01: your first kernel and its counters (README.md).
// y = a*x + y over n floats, one thread per element.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1000;  // not a multiple of 32: one warp is partial
  static float hx[n], hy[n];
  for (int i = 0; i < n; ++i) {
    hx[i] = float(i);
    hy[i] = float(2 * i);
  }
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
  cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice);
  const int block = 128;
  saxpy<<<(n + block - 1) / block, block>>>(n, 3.0f, x, y);
  cudaError_t error = cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);
  if (error != cudaSuccess) {
    printf("saxpy: CUDA error %s\n", cudaGetErrorString(error));
    return 1;
  }
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    if (hy[i] != 5.0f * float(i)) {
      if (wrong < 3) printf("saxpy: y[%d] = %g, expected %g\n", i, hy[i], 5.0f * float(i));
      ++wrong;
    }
  printf("saxpy: %d of %d elements wrong\n", wrong, n);
  cudaFree(x);
  cudaFree(y);
  return wrong ? 1 : 0;
}
