// Atomic intrinsics in the style of NVIDIA's simpleAtomicIntrinsics sample:
// every thread of a grid applies eleven atomic functions (guide B.12) to one
// array in global memory, and the host checks the results, which do not
// depend on the order the threads took.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

__global__ void testKernel(int* g_odata) {
  const unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
  atomicAdd(&g_odata[0], 10);
  atomicSub(&g_odata[1], 10);
  atomicExch(&g_odata[2], (int)tid);
  atomicMax(&g_odata[3], (int)tid);
  atomicMin(&g_odata[4], (int)tid);
  atomicInc((unsigned int*)&g_odata[5], 17);
  atomicDec((unsigned int*)&g_odata[6], 137);
  atomicCAS(&g_odata[7], (int)tid - 1, (int)tid);
  atomicAnd(&g_odata[8], 2 * (int)tid + 7);
  atomicOr(&g_odata[9], 1 << tid % 31);
  atomicXor(&g_odata[10], (int)tid);
}

// Returns the number of mismatches.
static int check(const std::vector<int>& data, int threads) {
  int errors = 0;
  auto expect = [&](int index, bool ok) {
    if (!ok) {
      std::printf("atomic_intrinsics: element %d wrong (%d)\n", index, data[index]);
      ++errors;
    }
  };
  expect(0, data[0] == 10 * threads);
  expect(1, data[1] == -10 * threads);
  expect(2, data[2] >= 0 && data[2] < threads);  // some thread's value
  expect(3, data[3] == threads - 1);
  expect(4, data[4] == 0);
  // atomicInc counts modulo 18, atomicDec from 137 downwards modulo 138.
  expect(5, data[5] == threads % 18);
  expect(6, data[6] == ((137 - threads) % 138 + 138) % 138);
  // atomicCAS: thread t swaps only when thread t-1's id is there, so some id remains.
  expect(7, data[7] >= 0 && data[7] < threads);
  int and_value = 0xFF;
  int or_value = 0;
  int xor_value = 0xFF;
  for (int t = 0; t < threads; ++t) {
    and_value &= 2 * t + 7;
    or_value |= 1 << t % 31;
    xor_value ^= t;
  }
  expect(8, data[8] == and_value);
  expect(9, data[9] == or_value);
  expect(10, data[10] == xor_value);
  return errors;
}

int main() {
  const int numThreads = 256, numBlocks = 64, numData = 11;
  std::vector<int> h_data(numData, 0);
  h_data[4] = h_data[8] = h_data[10] = 0xFF;  // min, and, xor start values
  h_data[6] = 137;
  int* d_data;
  cudaMalloc(&d_data, numData * sizeof(int));
  cudaMemcpy(d_data, h_data.data(), numData * sizeof(int), cudaMemcpyHostToDevice);
  testKernel<<<numBlocks, numThreads>>>(d_data);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess)
    err = cudaMemcpy(h_data.data(), d_data, numData * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_data);
  if (err != cudaSuccess) {
    std::printf("atomic_intrinsics: %s\n", cudaGetErrorString(err));
    return EXIT_FAILURE;
  }
  const int errors = check(h_data, numThreads * numBlocks);
  std::printf("atomic_intrinsics: %s\n", errors == 0 ? "PASSED" : "FAILED");
  return errors == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
