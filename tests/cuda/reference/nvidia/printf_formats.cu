// Device printf (guide B.17): the guide's example, then one thread printing
// every group of format specifiers of B.17.1, its return values and the
// 32-argument limit.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void helloCUDA(float f) { printf("Hello thread %d, f=%f\n", threadIdx.x, f); }

__device__ const char kDeviceText[] = "device";

__global__ void formats(int i, long long big, double d) {
  char local[8] = {'l', 'o', 'c', 'a', 'l', '\0', 0, 0};
  printf("int %d %i %5d|%-5d|%05d %+d % d\n", i, -i, i, i, i, i, i);
  printf("unsigned %u %x %X %o %#x %#o\n", (unsigned)i, 0xBEEFu, 0xBEEFu, 8u, 255u, 8u);
  printf("long %lld %llu %llx %hd\n", big, (unsigned long long)big, (unsigned long long)big, (short)-7);
  printf("char %c%c%c\n", 'K', 'e', 's');
  printf("float %f %.3f %e %E %g %G %10.2f|\n", 3.14159f, 2.5f, 12345.678, 0.000123, d, 1e-10, -1.5f);
  printf("special %f %f %e\n", 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0 > 0 ? 1.0 : -0.0);
  printf("string [%s] [%10s] [%-6s] [%.3s] [%s]\n", "literal", kDeviceText, "ab", "truncated", local);
  printf("star [%*d] [%-*d] [%.*f]\n", 6, 42, 4, 7, 2, 2.71828);
  printf("percent 100%% done\n");
  printf("no arguments\n");
  printf("null pointer %p\n", (void*)0);
  int two = printf("two %d %d\n", 1, 2);
  int none = printf("none\n");
  printf("returned %d %d\n", two, none);
  printf("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n",
         1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
         28, 29, 30, 31, 32);
}

int main() {
  helloCUDA<<<1, 5>>>(1.2345f);
  cudaDeviceSynchronize();
  formats<<<1, 1>>>(4711, -1234567890123LL, 6.02214076e23);
  cudaDeviceSynchronize();
  printf("host after kernels\n");
  return 0;
}
