// Lab 03, step 5: bank passes per stride.  One warp reads shared memory with
// lane l at word (l * stride) for stride = 1 .. 32, one launch per stride;
// `make strides` draws the bank passes per access of each launch (strides.svg).
#include <cuda_runtime.h>
#include <cstdio>

constexpr int WORDS = 32 * 32;

__global__ void stride_read(int stride, int* out) {
  __shared__ int words[WORDS];
  for (int i = threadIdx.x; i < WORDS; i += blockDim.x) words[i] = i;
  __syncthreads();
  // One shared load per lane at word lane * stride (the loop above also
  // accesses shared memory: 32 conflict-free stores per lane).
  out[threadIdx.x] = words[(threadIdx.x * stride) % WORDS];
}

int main() {
  int* out = nullptr;
  cudaMalloc(&out, 32 * sizeof(int));
  for (int stride = 1; stride <= 32; ++stride) stride_read<<<1, 32>>>(stride, out);
  int wrong = cudaDeviceSynchronize() != cudaSuccess;
  int host[32];
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  for (int lane = 0; lane < 32; ++lane) wrong += host[lane] != (lane * 32) % WORDS;
  printf("strides: %s\n", wrong ? "WRONG" : "ran 32 strides");
  cudaFree(out);
  return wrong ? 1 : 0;
}
