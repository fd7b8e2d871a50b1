// Votes, match (32- and 64-bit keys, integers and floating point) and
// reduce over a full warp and over the even lanes only.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void kernel(const int* data, unsigned* out) {
  const int lane = threadIdx.x;
  const int v = data[lane];
  unsigned* mine = out + 20 * lane;
  int predicate = 0;
  mine[0] = __ballot_sync(0xffffffff, v > 0);
  mine[1] = (unsigned)__all_sync(0xffffffff, v > -1000);
  mine[2] = (unsigned)__any_sync(0xffffffff, v == 7);
  mine[3] = (unsigned)__uni_sync(0xffffffff, v & 1);
  mine[4] = __match_any_sync(0xffffffff, v % 5);
  mine[5] = __match_any_sync(0xffffffff, (unsigned long long)(v % 3) << 40 | (unsigned)(lane % 2));
  mine[6] = __match_any_sync(0xffffffff, (float)(v % 4) * 0.5f);
  mine[7] = __match_any_sync(0xffffffff, (double)(v % 2));
  mine[8] = __match_all_sync(0xffffffff, v % 5, &predicate);
  mine[9] = (unsigned)predicate;
  mine[10] = __match_all_sync(0xffffffff, 42LL, &predicate);
  mine[11] = (unsigned)predicate;
  mine[12] = __reduce_add_sync(0xffffffff, (unsigned)v);
  mine[13] = (unsigned)__reduce_min_sync(0xffffffff, v);
  mine[14] = (unsigned)__reduce_max_sync(0xffffffff, v);
  mine[15] = __reduce_min_sync(0xffffffff, (unsigned)v);
  mine[16] = __reduce_max_sync(0xffffffff, (unsigned)v);
  mine[17] = __reduce_and_sync(0xffffffff, (unsigned)v) ^ __reduce_or_sync(0xffffffff, (unsigned)v);
  mine[18] = __reduce_xor_sync(0xffffffff, (unsigned)v);
  mine[19] =
      (lane & 1) == 0 ? __reduce_add_sync(0x55555555, (unsigned)v) + __match_any_sync(0x55555555, v % 3) : 0u;
}

int main() {
  int data[32];
  for (int i = 0; i < 32; ++i) data[i] = (i * 37 + 11) % 61 - 30;
  data[5] = 7;
  int* device_data = nullptr;
  unsigned* out = nullptr;
  cudaMalloc(&device_data, sizeof data);
  cudaMalloc(&out, 20 * 32 * sizeof(unsigned));
  cudaMemcpy(device_data, data, sizeof data, cudaMemcpyHostToDevice);
  kernel<<<1, 32>>>(device_data, out);
  unsigned host[20 * 32];
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  for (int k = 0; k < 20; ++k) {
    printf("result %2d:", k);
    for (int lane = 0; lane < 32; ++lane) printf(" %x", host[20 * lane + k]);
    printf("\n");
  }
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
