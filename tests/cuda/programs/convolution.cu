// 1D convolution with the filter in constant memory, in the style of NVIDIA's
// convolutionSeparable sample (guide B.2.2): the host writes the filter
// with cudaMemcpyToSymbol, a __device__ counter is read back with
// cudaMemcpyFromSymbol, and cudaGetSymbolAddress/Size describe the symbols.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define KERNEL_RADIUS 4
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)

__constant__ float c_Kernel[KERNEL_LENGTH];
__device__ unsigned int d_blocksDone;

__global__ void convolutionRows(float* d_Dst, const float* d_Src, int n) {
  extern __shared__ float s_Data[];  // blockDim.x + 2 * KERNEL_RADIUS
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s_Data[threadIdx.x + KERNEL_RADIUS] = i < n ? d_Src[i] : 0.0f;
  if (threadIdx.x < KERNEL_RADIUS) {
    const int left = i - KERNEL_RADIUS, right = i + blockDim.x;
    s_Data[threadIdx.x] = left >= 0 ? d_Src[left] : 0.0f;
    s_Data[threadIdx.x + blockDim.x + KERNEL_RADIUS] = right < n ? d_Src[right] : 0.0f;
  }
  __syncthreads();
  if (i < n) {
    float sum = 0;
    for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++)
      sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[threadIdx.x + KERNEL_RADIUS + j];
    d_Dst[i] = sum;
  }
  if (threadIdx.x == 0) __atomic_fetch_add(&d_blocksDone, 1u, __ATOMIC_RELAXED);
}

int main() {
  const int n = 3000, threads = 128, blocks = (n + threads - 1) / threads;
  float h_Kernel[KERNEL_LENGTH];
  for (int i = 0; i < KERNEL_LENGTH; ++i) h_Kernel[i] = static_cast<float>(i + 1) / 10.0f;
  std::vector<float> h_Src(n), h_Dst(n);
  for (int i = 0; i < n; ++i) h_Src[i] = static_cast<float>(i % 17) - 8.0f;
  if (cudaMemcpyToSymbol(c_Kernel, h_Kernel, sizeof h_Kernel) != cudaSuccess) return EXIT_FAILURE;
  const unsigned int zero = 0;
  cudaMemcpyToSymbol(d_blocksDone, &zero, sizeof zero);
  size_t symbolSize = 0;
  void* symbolAddress = nullptr;
  if (cudaGetSymbolSize(&symbolSize, c_Kernel) != cudaSuccess || symbolSize != sizeof h_Kernel)
    return EXIT_FAILURE;
  if (cudaGetSymbolAddress(&symbolAddress, c_Kernel) != cudaSuccess || symbolAddress == nullptr)
    return EXIT_FAILURE;
  // The address works with the ordinary copies too.
  float readBack[KERNEL_LENGTH];
  if (cudaMemcpy(readBack, symbolAddress, sizeof readBack, cudaMemcpyDeviceToHost) != cudaSuccess ||
      readBack[3] != h_Kernel[3])
    return EXIT_FAILURE;

  float *d_Src, *d_Dst;
  cudaMalloc(&d_Src, n * sizeof(float));
  cudaMalloc(&d_Dst, n * sizeof(float));
  cudaMemcpy(d_Src, h_Src.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  convolutionRows<<<blocks, threads, (threads + 2 * KERNEL_RADIUS) * sizeof(float)>>>(d_Dst, d_Src, n);
  cudaMemcpy(h_Dst.data(), d_Dst, n * sizeof(float), cudaMemcpyDeviceToHost);
  unsigned int blocksDone = 0;
  cudaMemcpyFromSymbol(&blocksDone, d_blocksDone, sizeof blocksDone);
  if (cudaGetLastError() != cudaSuccess) return EXIT_FAILURE;
  for (int i = 0; i < n; ++i) {
    float sum = 0;
    for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++) {
      const int k = i + j;
      sum += h_Kernel[KERNEL_RADIUS - j] * (k >= 0 && k < n ? h_Src[k] : 0.0f);
    }
    if (sum - h_Dst[i] > 1e-4f || h_Dst[i] - sum > 1e-4f) {
      fprintf(stderr, "element %d: %f, expected %f\n", i, h_Dst[i], sum);
      return EXIT_FAILURE;
    }
  }
  if (blocksDone != static_cast<unsigned>(blocks)) {
    fprintf(stderr, "d_blocksDone %u, expected %d\n", blocksDone, blocks);
    return EXIT_FAILURE;
  }
  // Writing past the end of a symbol is refused.
  if (cudaMemcpyToSymbol(c_Kernel, h_Kernel, sizeof h_Kernel, sizeof(float)) != cudaErrorInvalidValue)
    return EXIT_FAILURE;
  cudaGetLastError();
  cudaFree(d_Src);
  cudaFree(d_Dst);
  printf("convolution with constant memory: PASSED\n");
  return EXIT_SUCCESS;
}
