// Plain C++ on the CUDA runtime API: no kernels, linked with Kestrel::cudart or pkg-config's flags.
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  int count = 0;
  cudaDeviceProp prop;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) return 1;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return 1;
  std::printf("%d device(s), first: %s, %d SMs\n", count, prop.name, prop.multiProcessorCount);
  return prop.multiProcessorCount > 0 ? 0 : 1;
}
