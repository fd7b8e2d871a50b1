// Tiled matrix multiplication in the style of NVIDIA's matrixMul sample
// (guide 3.2.3, "Shared Memory"): each block computes one BLOCK_SIZE x
// BLOCK_SIZE tile of C, staging tiles of A and B in __shared__ arrays, with a
// template kernel and a run timed with events (guide 3.2.5.6).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define checkCudaErrors(call)                                                                            \
  do {                                                                                                   \
    cudaError_t status_ = (call);                                                                        \
    if (status_ != cudaSuccess) {                                                                        \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(status_)); \
      exit(EXIT_FAILURE);                                                                                \
    }                                                                                                    \
  } while (0)

template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float* C, float* A, float* B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by;
  int aEnd = aBegin + wA - 1;
  int aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx;
  int bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

int main() {
  const int block_size = 16;
  const dim3 dimsA(3 * block_size, 4 * block_size, 1);  // 48 x 64
  const dim3 dimsB(2 * block_size, 3 * block_size, 1);  // 32 x 48
  const unsigned size_A = dimsA.x * dimsA.y, size_B = dimsB.x * dimsB.y;
  std::vector<float> h_A(size_A), h_B(size_B);
  for (unsigned i = 0; i < size_A; ++i) h_A[i] = static_cast<float>((i * 7) % 13) / 13.0f;
  for (unsigned i = 0; i < size_B; ++i) h_B[i] = static_cast<float>((i * 5) % 11) / 11.0f - 0.5f;
  const dim3 dimsC(dimsB.x, dimsA.y, 1);
  const unsigned size_C = dimsC.x * dimsC.y;
  std::vector<float> h_C(size_C);

  float *d_A, *d_B, *d_C;
  checkCudaErrors(cudaMalloc(reinterpret_cast<void**>(&d_A), size_A * sizeof(float)));
  checkCudaErrors(cudaMalloc(reinterpret_cast<void**>(&d_B), size_B * sizeof(float)));
  checkCudaErrors(cudaMalloc(reinterpret_cast<void**>(&d_C), size_C * sizeof(float)));
  cudaStream_t stream;
  checkCudaErrors(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  checkCudaErrors(cudaMemcpyAsync(d_A, h_A.data(), size_A * sizeof(float), cudaMemcpyHostToDevice, stream));
  checkCudaErrors(cudaMemcpyAsync(d_B, h_B.data(), size_B * sizeof(float), cudaMemcpyHostToDevice, stream));

  dim3 threads(block_size, block_size);
  dim3 grid(dimsB.x / threads.x, dimsA.y / threads.y);
  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  checkCudaErrors(cudaEventRecord(start, stream));
  const int nIter = 2;
  for (int j = 0; j < nIter; j++)
    MatrixMulCUDA<block_size><<<grid, threads, 0, stream>>>(d_C, d_A, d_B, dimsA.x, dimsB.x);
  checkCudaErrors(cudaGetLastError());
  checkCudaErrors(cudaEventRecord(stop, stream));
  checkCudaErrors(cudaEventSynchronize(stop));
  float msecTotal = 0.0f;
  checkCudaErrors(cudaEventElapsedTime(&msecTotal, start, stop));
  printf("Time= %.3f msec per multiplication (device clock)\n", msecTotal / nIter);
  if (!(msecTotal > 0.0f)) {
    fprintf(stderr, "elapsed device time should be positive\n");
    return EXIT_FAILURE;
  }
  checkCudaErrors(cudaMemcpyAsync(h_C.data(), d_C, size_C * sizeof(float), cudaMemcpyDeviceToHost, stream));
  checkCudaErrors(cudaStreamSynchronize(stream));

  for (unsigned row = 0; row < dimsC.y; ++row) {
    for (unsigned col = 0; col < dimsC.x; ++col) {
      double expected = 0;
      for (unsigned k = 0; k < dimsA.x; ++k)
        expected += double(h_A[row * dimsA.x + k]) * h_B[k * dimsB.x + col];
      const double got = h_C[row * dimsC.x + col];
      if (got - expected > 1e-4 || expected - got > 1e-4) {
        fprintf(stderr, "Error! C[%u][%u]=%f, expected %f\n", row, col, got, expected);
        return EXIT_FAILURE;
      }
    }
  }
  checkCudaErrors(cudaEventDestroy(start));
  checkCudaErrors(cudaEventDestroy(stop));
  checkCudaErrors(cudaStreamDestroy(stream));
  cudaFree(d_A);
  cudaFree(d_B);
  cudaFree(d_C);
  printf("Result = PASS\n");
  return EXIT_SUCCESS;
}
