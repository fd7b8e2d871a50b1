// Warp primitives under divergence and partial masks: each half of a warp
// with its own mask in its own branch, lanes arriving late at a full-mask
// shuffle, a block whose last warp is partial, threads that exited before a
// full-mask vote, __syncwarp on both sides of a branch.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void halves(int* out) {
  const int lane = threadIdx.x % 32;
  const int value = 10 * lane;
  int a, b;
  if (lane < 16) {
    a = __shfl_down_sync(0x0000ffff, value, 1, 16);
    b = (int)__ballot_sync(0x0000ffff, lane % 3 == 0);
  } else {
    a = __shfl_xor_sync(0xffff0000, value, 2);
    b = (int)__ballot_sync(0xffff0000, lane % 5 == 0);
  }
  out[2 * threadIdx.x] = a;
  out[2 * threadIdx.x + 1] = b;
}

__global__ void late_arrivals(int* out) {
  const int lane = threadIdx.x % 32;
  int work = lane;
  for (int k = 0; k < (lane % 4) * 5; ++k) work += k;  // lanes leave the loop at different times
  out[threadIdx.x] = __shfl_sync(0xffffffff, work, (lane + 1) % 32);
}

// 48 threads: the second warp has lanes 0..15 only.
__global__ void partial_warp(int* out) {
  const int lane = threadIdx.x % 32;
  out[4 * threadIdx.x] = (int)__ballot_sync(0xffffffff, lane & 1);
  out[4 * threadIdx.x + 1] = __all_sync(0xffffffff, lane < 40);
  out[4 * threadIdx.x + 2] = __shfl_down_sync(0xffffffff, lane, 4);
  out[4 * threadIdx.x + 3] = __shfl_sync(0xffffffff, lane, 15);
}

__global__ void after_exit(int* out) {
  const int lane = threadIdx.x % 32;
  if (lane >= 20) return;
  int predicate = 0;
  out[8 * lane] = (int)__ballot_sync(0xffffffff, 1);
  out[8 * lane + 1] = __all_sync(0xffffffff, 1);
  out[8 * lane + 2] = __any_sync(0xffffffff, lane == 19);
  out[8 * lane + 3] = __uni_sync(0xffffffff, 1);
  out[8 * lane + 4] = (int)__match_all_sync(0xffffffff, 5, &predicate);
  out[8 * lane + 5] = predicate;
  out[8 * lane + 6] = (int)__match_any_sync(0xffffffff, lane / 4);
  out[8 * lane + 7] = (int)__reduce_add_sync(0xffffffff, (unsigned)lane);
}

__global__ void syncwarp_both_sides(int* out) {
  __shared__ int scratch[32];
  const int lane = threadIdx.x;
  scratch[lane] = 1000 + lane;
  if (lane & 1) {
    __syncwarp();
  } else {
    __syncwarp();
  }
  out[lane] = scratch[(lane + 7) % 32];
}

static void print_row(const char* name, const int* values, int count) {
  printf("%s:", name);
  for (int i = 0; i < count; ++i) printf(" %d", values[i]);
  printf("\n");
}

int main() {
  int* out = nullptr;
  cudaMalloc(&out, 512 * sizeof(int));
  int host[512];

  halves<<<1, 32>>>(out);
  cudaMemcpy(host, out, 64 * sizeof(int), cudaMemcpyDeviceToHost);
  print_row("halves", host, 64);

  late_arrivals<<<1, 64>>>(out);
  cudaMemcpy(host, out, 64 * sizeof(int), cudaMemcpyDeviceToHost);
  print_row("late arrivals", host, 64);

  partial_warp<<<1, 48>>>(out);
  cudaMemcpy(host, out, 4 * 48 * sizeof(int), cudaMemcpyDeviceToHost);
  print_row("partial warp", host, 4 * 48);

  after_exit<<<1, 32>>>(out);
  cudaMemcpy(host, out, 8 * 20 * sizeof(int), cudaMemcpyDeviceToHost);
  print_row("after exit", host, 8 * 20);

  syncwarp_both_sides<<<1, 32>>>(out);
  cudaMemcpy(host, out, 32 * sizeof(int), cudaMemcpyDeviceToHost);
  print_row("syncwarp", host, 32);

  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
