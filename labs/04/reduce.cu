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
  // TODO (step 3): load in[i] into partial[threadIdx.x], synchronize; then, for
  // s = blockDim.x / 2 down to 1, threads below s add partial[threadIdx.x + s]
  // to partial[threadIdx.x], synchronizing after each step; thread 0 adds
  // partial[0] to *sum with one atomicAdd.  (guide 5.4.3, B.12)
  (void)partial;
}

// 3. Warp shuffles: each warp adds its 32 values in registers, then one lane
//    per warp adds the warp's total to the global sum.
__global__ void reduce_shuffle(const int* in, int* sum) {
  // TODO (step 4): v = in[i]; for offset = 16, 8, 4, 2, 1:
  // v += __shfl_down_sync(0xffffffff, v, offset); lane 0 (threadIdx.x % 32 == 0)
  // adds v to *sum with one atomicAdd.  No shared memory.  (guide B.14.5.3)
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
