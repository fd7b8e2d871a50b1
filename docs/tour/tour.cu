// The program of docs/tour.md: runs the kernel of kernel.cu over 64 elements
// (two blocks of one warp) and checks its results on the host.
#include <cuda_runtime.h>
#include <cstdio>

#include "kernel.cu"

int main() {
  const int n = 64;
  int hin[n], hout[n], htotal = 0, expected = 0;
  for (int i = 0; i < n; ++i) hin[i] = i;
  int *in, *out, *total;
  cudaMalloc(&in, sizeof hin);
  cudaMalloc(&out, sizeof hout);
  cudaMalloc(&total, sizeof(int));
  cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice);
  cudaMemset(total, 0, sizeof(int));
  tour<<<n / 32, 32>>>(in, out, total);
  cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost);
  cudaMemcpy(&htotal, total, sizeof(int), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    int next = (i / 32) * 32 + (i % 32 + 1) % 32;
    int v = hin[next] % 2 ? 3 * hin[next] + 1 : hin[next] / 2;
    wrong += hout[i] != v;
    expected += hin[i] % 2 ? 3 * hin[i] + 1 : hin[i] / 2;
  }
  printf("tour: %d of %d elements wrong, total %d (expected %d)\n", wrong, n, htotal, expected);
  return wrong || htotal != expected;
}
