// Device printf (guide B.17) and assert (B.16): tests/e2e/test_printf.cpp
// checks the text the runtime prints at the next synchronization point.
#include <assert.h>
#include <stdio.h>

// Guide B.17.4: every thread prints.
__global__ void hello(float f) { printf("Hello thread %d, f=%f\n", threadIdx.x, f); }

// One thread prints one line per group of conversions of B.17.1.
__global__ void formats(const char* device_text, int i, long long big, double d) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  char local[8] = {'l', 'o', 'c', 'a', 'l', '\0', 0, 0};
  printf("int %d %i %5d|%-5d|%05d %+d\n", i, -i, i, i, i, i);
  printf("unsigned %u %x %X %o %#x %#o\n", (unsigned)i, 0xBEEFu, 0xBEEFu, 8u, 255u, 8u);
  printf("long %ld %lld %llu %lx %hd %hhu\n", (long)big, big, (unsigned long long)big, (long)big, 70000, 300);
  printf("char %c%c%c\n", 'K', 'e', 's');
  printf("float %f %.3f %e %E %g %G %10.2f|\n", 3.14159f, 2.5f, 12345.678, 0.000123, d, 1e-10, -1.5f);
  printf("hex float %a %A\n", 1.0, -0.5f);
  printf("string [%s] [%10s] [%-6s] [%.3s] [%s]\n", "literal", device_text, "ab", "truncated", local);
  printf("star [%*d] [%-*d] [%.*f]\n", 6, 42, 4, 7, 2, 2.71828);
  printf("percent 100%% done, null string %s\n", (const char*)nullptr);
  printf("no arguments\n");
  printf("missing %d %d\n", 1);
  printf("pointer %p\n", (void*)0);
}

// 33 arguments: the 33rd is not recorded and its specifier prints as written.
__global__ void too_many_arguments() {
  printf(
      "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n",
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
      29, 30, 31, 32, 33);
}

// The return value: number of arguments, -1 for a NULL format.
__global__ void return_values(int* out) {
  out[0] = printf("two %d %d\n", 1, 2);
  out[1] = printf("none\n");
  const char* no_format = nullptr;
  out[2] = printf(no_format);
}

// Many records: more than a small FIFO holds.
__global__ void flood(int lines) {
  for (int k = 0; k < lines; ++k) printf("block %d thread %d line %d\n", blockIdx.x, threadIdx.x, k);
}

// Output printed before a failed assertion still appears, then CUDA's message.
__global__ void print_then_assert(int limit) {
  printf("before assert %d\n", threadIdx.x);
  assert(threadIdx.x < limit);
}
