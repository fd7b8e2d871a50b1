// Kernel faults as CUDA reports them (guide 3.2.9): a launch error is
// asynchronous, surfaces at the next synchronizing call with CUDA's code for
// the fault, stays sticky for every later call until cudaDeviceReset, and the
// device works again after the reset.  assert() works on both sides: in host
// code (a host-only inline function, as in NVIDIA's helper headers), in
// kernels, and in a __host__ __device__ function called from both.
#include <cassert>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define EXPECT_EQ(actual, expected)                                                                        \
  do {                                                                                                     \
    cudaError_t a_ = (actual);                                                                             \
    if (a_ != (expected)) {                                                                                \
      fprintf(stderr, "%s:%d: %s is %s, expected %s\n", __FILE__, __LINE__, #actual, cudaGetErrorName(a_), \
              cudaGetErrorName(expected));                                                                 \
      exit(EXIT_FAILURE);                                                                                  \
    }                                                                                                      \
  } while (0)

__global__ void write_through(int* pointer, int value) { *pointer = value; }
__global__ void misaligned(char* base) { *reinterpret_cast<int*>(base + 1) = 1; }
__global__ void asserting(int n) { assert(n > 100); }
__global__ void trapping() { __trap(); }
static inline int host_checked(int n) {
  assert(n > 0);
  return n;
}
__host__ __device__ int halve(int n) {
  assert(n % 2 == 0);
  return n / 2;
}
__global__ void halving(int* out, int n) { out[threadIdx.x] = halve(n); }
__global__ void fine(int* out) { out[threadIdx.x] = 7; }

static void expect_sticky(cudaError_t fault) {
  EXPECT_EQ(cudaDeviceSynchronize(), fault);
  void* memory = nullptr;
  EXPECT_EQ(cudaMalloc(&memory, 16), fault);
  EXPECT_EQ(cudaGetLastError(), fault);
  EXPECT_EQ(cudaPeekAtLastError(), fault);  // sticky: getting it did not clear it
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  int* out = nullptr;
  EXPECT_EQ(cudaMalloc(&out, 32 * sizeof(int)), cudaSuccess);
  fine<<<1, 32>>>(out);
  int host[32];
  EXPECT_EQ(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost), cudaSuccess);
  if (host[31] != 7) exit(EXIT_FAILURE);
  EXPECT_EQ(cudaFree(out), cudaSuccess);
}

int main() {
  write_through<<<1, 1>>>(nullptr, 1);
  expect_sticky(cudaErrorIllegalAddress);

  char* buffer = nullptr;
  EXPECT_EQ(cudaMalloc(&buffer, 64), cudaSuccess);
  misaligned<<<1, 1>>>(buffer);
  expect_sticky(cudaErrorMisalignedAddress);

  asserting<<<2, 32>>>(5);
  expect_sticky(cudaErrorAssert);

  trapping<<<1, 1>>>();
  expect_sticky(cudaErrorLaunchFailure);

  // The host side of assert passes on the host, its device side in a kernel.
  if (halve(host_checked(8)) != 4) exit(EXIT_FAILURE);
  int* halves = nullptr;
  EXPECT_EQ(cudaMalloc(&halves, 32 * sizeof(int)), cudaSuccess);
  halving<<<1, 32>>>(halves, 6);
  int three[32];
  EXPECT_EQ(cudaMemcpy(three, halves, sizeof three, cudaMemcpyDeviceToHost), cudaSuccess);
  if (three[0] != 3 || three[31] != 3) exit(EXIT_FAILURE);
  halving<<<1, 32>>>(halves, 5);  // the assert of the __host__ __device__ function, on the device
  expect_sticky(cudaErrorAssert);

  // A bad configuration is reported at the launch and is not sticky.
  int* out = nullptr;
  EXPECT_EQ(cudaMalloc(&out, 4), cudaSuccess);
  fine<<<1, 100000>>>(out);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  fine<<<0, 1>>>(out);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  printf("faults: PASSED\n");
  return EXIT_SUCCESS;
}
