// Lab 05: add an instruction (README.md).  out[i] = popcount(x[i]) + y[i]
// over n 32-bit words, one thread per element, with the new instruction
// kx.popc.add through its SDK intrinsic __kx_popc_add (step 4).
#include <cuda_runtime.h>
#include <cstdio>

__global__ void popc_add(int n, const unsigned* x, const unsigned* y, unsigned* out) {
  // TODO (step 4): compute this thread's element index i and, when i < n,
  // set out[i] = __kx_popc_add(x[i], y[i]) (the intrinsic of step 3).
}

int main() {
  const int n = 1000;
  static unsigned hx[n], hy[n], hout[n];
  // Edge cases first (all bits, the sign bit, a sum that wraps), then a
  // fixed pseudo-random sequence.
  const unsigned edges[] = {0u,          1u,          0xffffffffu, 0x80000000u,
                            0x7fffffffu, 0xaaaaaaaau, 0x00010001u, 0xfffffffeu};
  unsigned state = 2026u;
  for (int i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    hx[i] = i < 64 ? edges[i % 8] : state;
    state = state * 1664525u + 1013904223u;
    hy[i] = i < 64 ? edges[i / 8] : state >> (i % 32);
  }
  unsigned *x = nullptr, *y = nullptr, *out = nullptr;
  cudaMalloc(&x, sizeof hx);
  cudaMalloc(&y, sizeof hy);
  cudaMalloc(&out, sizeof hout);
  cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
  cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof hout);
  const int block = 128;
  popc_add<<<(n + block - 1) / block, block>>>(n, x, y, out);
  cudaError_t error = cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost);
  if (error != cudaSuccess) {
    printf("popc_add: CUDA error %s\n", cudaGetErrorString(error));
    return 1;
  }
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned expected = static_cast<unsigned>(__builtin_popcount(hx[i])) + hy[i];
    if (hout[i] != expected) {
      if (wrong < 3)
        printf("popc_add: out[%d] = 0x%x for x = 0x%x, y = 0x%x, expected 0x%x\n", i, hout[i], hx[i], hy[i],
               expected);
      ++wrong;
    }
  }
  printf("popc_add: %d of %d elements wrong\n", wrong, n);
  cudaFree(x);
  cudaFree(y);
  cudaFree(out);
  return wrong ? 1 : 0;
}
