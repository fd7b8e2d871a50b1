// Lab 02: divergence (README.md).
// Every element i of `in` gets one of two treatments, chosen by i's parity.
// `branchy` gives element i to thread i, so the two halves of every warp take
// different sides of the branch.  Your `uniform` must compute the same `out`
// while every warp takes one side only.
#include <cuda_runtime.h>
#include <cstdio>

// The two treatments: long enough that the compiler keeps a real branch.
__device__ int treat_even(int v) {
  for (int k = 0; k < 6; ++k) v = v * 7 + (v >> 3) + k;
  return v;
}
__device__ int treat_odd(int v) {
  for (int k = 0; k < 3; ++k) v = (v ^ (v << 5)) - k;
  return v;
}

__global__ void branchy(const int* in, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i % 2 == 0)
    out[i] = treat_even(in[i]);
  else
    out[i] = treat_odd(in[i]);
}

__global__ void uniform(const int* in, int* out) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Warps 2p and 2p+1 share 64 elements: 2p the even ones, 2p+1 the odd ones.
  int i = blockIdx.x * blockDim.x + 64 * (warp / 2) + 2 * lane + warp % 2;
  if (warp % 2 == 0)  // the same for the whole warp: no divergence
    out[i] = treat_even(in[i]);
  else
    out[i] = treat_odd(in[i]);
}

static int expected(int i, int v) {
  if (i % 2 == 0) {
    for (int k = 0; k < 6; ++k) v = v * 7 + (v >> 3) + k;
  } else {
    for (int k = 0; k < 3; ++k) v = (v ^ (v << 5)) - k;
  }
  return v;
}

static int compare(const char* name, const int* in, const int* out, int n) {
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    if (out[i] != expected(i, in[i])) {
      if (wrong < 3) printf("%s: out[%d] = %d, expected %d\n", name, i, out[i], expected(i, in[i]));
      ++wrong;
    }
  printf("%s: %d of %d elements wrong\n", name, wrong, n);
  return wrong;
}

int main() {
  const int n = 4096, block = 256;  // whole warps only
  static int hin[n], hout[n];
  for (int i = 0; i < n; ++i) hin[i] = (i * 2654435761u) >> 8;
  int *in = nullptr, *out = nullptr;
  cudaMalloc(&in, sizeof hin);
  cudaMalloc(&out, sizeof hout);
  cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice);
  int wrong = 0;

  cudaMemset(out, 0, sizeof hout);
  branchy<<<n / block, block>>>(in, out);
  cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost);
  wrong += compare("branchy", hin, hout, n);

  cudaMemset(out, 0, sizeof hout);
  uniform<<<n / block, block>>>(in, out);
  if (cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("uniform: CUDA error %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  wrong += compare("uniform", hin, hout, n);
  cudaFree(in);
  cudaFree(out);
  return wrong ? 1 : 0;
}
