// Shuffles with every width and with source lanes and deltas inside, at the
// edge of and outside the width (guide B.14.2), for 32- and 64-bit values.
// Each line lists, for lanes 0..31, the lane whose value arrived.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void shuffles(int* out, int width, int arg) {
  const int lane = threadIdx.x;
  const int value = 100 + lane;
  out[lane] = __shfl_sync(0xffffffff, value, arg, width);
  out[32 + lane] = __shfl_up_sync(0xffffffff, value, (unsigned)arg, width);
  out[64 + lane] = __shfl_down_sync(0xffffffff, value, (unsigned)arg, width);
  out[96 + lane] = __shfl_xor_sync(0xffffffff, value, arg, width);
}

__global__ void wide_shuffles(long long* wide, double* reals, int width, int arg) {
  const int lane = threadIdx.x;
  wide[lane] = __shfl_down_sync(0xffffffff, 0x100000000LL * lane + 7, (unsigned)arg, width);
  reals[lane] = __shfl_xor_sync(0xffffffff, 0.5 * lane, arg, width);
}

int main() {
  int* out = nullptr;
  long long* wide = nullptr;
  double* reals = nullptr;
  cudaMalloc(&out, 128 * sizeof(int));
  cudaMalloc(&wide, 32 * sizeof(long long));
  cudaMalloc(&reals, 32 * sizeof(double));
  const int widths[] = {32, 16, 8, 4, 2, 1};
  const int args[] = {0, 1, 3, 7, 15, 16, 31, 32, 33, 37, -1};
  const char* const names[] = {"idx", "up", "down", "xor"};
  for (int width : widths) {
    for (int arg : args) {
      shuffles<<<1, 32>>>(out, width, arg);
      int host[128];
      cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
      for (int mode = 0; mode < 4; ++mode) {
        printf("width %2d arg %2d %-4s:", width, arg, names[mode]);
        for (int lane = 0; lane < 32; ++lane) printf(" %d", host[32 * mode + lane] - 100);
        printf("\n");
      }
    }
  }
  const int wide_args[] = {1, 5, 9};
  for (int arg : wide_args) {
    wide_shuffles<<<1, 32>>>(wide, reals, 16, arg);
    long long host_wide[32];
    double host_reals[32];
    cudaMemcpy(host_wide, wide, sizeof host_wide, cudaMemcpyDeviceToHost);
    cudaMemcpy(host_reals, reals, sizeof host_reals, cudaMemcpyDeviceToHost);
    printf("64-bit down %d:", arg);
    for (long long v : host_wide) printf(" %llx", v);
    printf("\ndouble xor %d:", arg);
    for (double v : host_reals) printf(" %g", v);
    printf("\n");
  }
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
