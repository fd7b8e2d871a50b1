// Vector addition in the style of NVIDIA's vectorAdd sample (guide 2.1, 3.2.2):
// allocate, copy in, launch with <<<>>>, check errors, copy out, verify.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

__global__ void vectorAdd(const float* A, const float* B, float* C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) C[i] = A[i] + B[i] + 0.0f;
}

int main() {
  const int numElements = 5000;
  const size_t size = numElements * sizeof(float);
  std::vector<float> h_A(numElements), h_B(numElements), h_C(numElements);
  for (int i = 0; i < numElements; ++i) {
    h_A[i] = rand() / (float)RAND_MAX;
    h_B[i] = rand() / (float)RAND_MAX;
  }
  float *d_A = nullptr, *d_B = nullptr, *d_C = nullptr;
  if (cudaMalloc((void**)&d_A, size) != cudaSuccess || cudaMalloc(&d_B, size) != cudaSuccess ||
      cudaMalloc(&d_C, size) != cudaSuccess) {
    fprintf(stderr, "cudaMalloc failed\n");
    return EXIT_FAILURE;
  }
  cudaMemcpy(d_A, h_A.data(), size, cudaMemcpyHostToDevice);
  cudaMemcpy(d_B, h_B.data(), size, cudaMemcpyHostToDevice);
  int threadsPerBlock = 256;
  int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
  printf("CUDA kernel launch with %d blocks of %d threads\n", blocksPerGrid, threadsPerBlock);
  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    fprintf(stderr, "Failed to launch vectorAdd kernel (error code %s)!\n", cudaGetErrorString(err));
    return EXIT_FAILURE;
  }
  err = cudaMemcpy(h_C.data(), d_C, size, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    fprintf(stderr, "Failed to copy C (error %s)\n", cudaGetErrorName(err));
    return EXIT_FAILURE;
  }
  for (int i = 0; i < numElements; ++i) {
    if (std::fabs(h_A[i] + h_B[i] - h_C[i]) > 1e-5f) {
      fprintf(stderr, "Result verification failed at element %d!\n", i);
      return EXIT_FAILURE;
    }
  }
  cudaFree(d_A);
  cudaFree(d_B);
  cudaFree(d_C);
  printf("Test PASSED\n");
  return 0;
}
