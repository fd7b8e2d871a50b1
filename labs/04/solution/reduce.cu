// Lab 04: reductions three ways (README.md).
// Each kernel adds the n integers of `in` into *sum (which starts at 0).
#include <cuda_runtime.h>
#include <cstdio>

constexpr int N = 4096, BLOCK = 256;

// 1. Every thread adds its element to the one global sum.
__global__ void reduce_atomic(const int* in, int* sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(sum, in[i]);
}

// 2. A tree in shared memory: the block halves its partial sums until one is
//    left, then one thread adds it to the global sum.
__global__ void reduce_shared(const int* in, int* sum) {
  __shared__ int partial[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = in[i];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

// 3. Warp shuffles: each warp adds its 32 values in registers, then one lane
//    per warp adds the warp's total to the global sum.
__global__ void reduce_shuffle(const int* in, int* sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, v);
}

int main() {
  static int hin[N];
  long long expected = 0;
  for (int i = 0; i < N; ++i) {
    hin[i] = (i * 37) % 101 - 50;
    expected += hin[i];
  }
  int *in = nullptr, *sum = nullptr;
  cudaMalloc(&in, sizeof hin);
  cudaMalloc(&sum, sizeof(int));
  cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice);
  void (*kernels[])(const int*, int*) = {reduce_atomic, reduce_shared, reduce_shuffle};
  const char* names[] = {"reduce_atomic", "reduce_shared", "reduce_shuffle"};
  int wrong = 0;
  for (int k = 0; k < 3; ++k) {
    cudaMemset(sum, 0, sizeof(int));
    kernels[k]<<<N / BLOCK, BLOCK>>>(in, sum);
    int result = 0;
    if (cudaMemcpy(&result, sum, sizeof result, cudaMemcpyDeviceToHost) != cudaSuccess) {
      printf("%s: CUDA error %s\n", names[k], cudaGetErrorString(cudaGetLastError()));
      return 1;
    }
    printf("%s: sum %d, expected %lld: %s\n", names[k], result, expected,
           result == expected ? "right" : "WRONG");
    wrong += result != expected;
  }
  cudaFree(in);
  cudaFree(sum);
  return wrong ? 1 : 0;
}
