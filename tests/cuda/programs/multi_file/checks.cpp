// The program's third file: plain host C++ (no CUDA syntax) that uses the
// runtime API, compiled by kestrel-cc as nvcc compiles .cpp files.
#include "checks.h"

#include <cuda_runtime.h>

#include <cstdio>

#include "../sample_helpers.h"

bool device_is_usable() {
  int count = 0;
  cudaDeviceProp prop;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) return false;
  // Plain C++ sees CUDA's include guards too (helper_cuda.h in a .cpp file).
  if (sample_find_device() != 0) return false;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return false;
  std::printf("running on %s\n", prop.name);
  return prop.warpSize > 0;
}

int expected_three_point(int first, int i, int n) {
  int sum = 0;
  for (int j = i - 1; j <= i + 1; ++j)
    if (j >= 0 && j < n) sum += first + j;
  return sum;
}
