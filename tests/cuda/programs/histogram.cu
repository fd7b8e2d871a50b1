// 64-bin histogram in the style of NVIDIA's histogram64 sample: every thread
// keeps its own byte-sized sub-histogram in shared memory (no atomics), then
// the block merges them and writes one partial histogram per block, which a
// second kernel sums.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define HISTOGRAM64_BIN_COUNT 64
#define THREADS 64
#define PARTIAL_COUNT 32

__global__ void histogram64Kernel(unsigned int* d_PartialHistograms, const unsigned char* d_Data,
                                  unsigned int dataCount) {
  // s_Hist[bin * THREADS + thread]: each thread's counters in its own column.
  __shared__ unsigned char s_Hist[HISTOGRAM64_BIN_COUNT * THREADS];
  for (int bin = 0; bin < HISTOGRAM64_BIN_COUNT; ++bin) s_Hist[bin * THREADS + threadIdx.x] = 0;
  __syncthreads();
  // At most 255 items per thread so that a byte counter cannot overflow.
  for (unsigned int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount;
       pos += blockDim.x * gridDim.x) {
    const unsigned int bin = d_Data[pos] >> 2;
    s_Hist[bin * THREADS + threadIdx.x]++;
  }
  __syncthreads();
  for (unsigned int bin = threadIdx.x; bin < HISTOGRAM64_BIN_COUNT; bin += blockDim.x) {
    unsigned int sum = 0;
    for (int t = 0; t < THREADS; ++t) sum += s_Hist[bin * THREADS + t];
    d_PartialHistograms[blockIdx.x * HISTOGRAM64_BIN_COUNT + bin] = sum;
  }
}

__global__ void mergeHistogram64Kernel(unsigned int* d_Histogram, const unsigned int* d_PartialHistograms,
                                       unsigned int histogramCount) {
  const unsigned int bin = blockIdx.x * blockDim.x + threadIdx.x;
  if (bin >= HISTOGRAM64_BIN_COUNT) return;
  unsigned int sum = 0;
  for (unsigned int i = 0; i < histogramCount; ++i)
    sum += d_PartialHistograms[i * HISTOGRAM64_BIN_COUNT + bin];
  d_Histogram[bin] = sum;
}

int main() {
  const unsigned int byteCount = THREADS * PARTIAL_COUNT * 50;
  std::vector<unsigned char> h_Data(byteCount);
  for (unsigned int i = 0; i < byteCount; i++)
    h_Data[i] = static_cast<unsigned char>((i * 2654435761u) >> 24);
  unsigned int h_HistogramCPU[HISTOGRAM64_BIN_COUNT];
  std::memset(h_HistogramCPU, 0, sizeof h_HistogramCPU);
  for (unsigned int i = 0; i < byteCount; i++) h_HistogramCPU[h_Data[i] >> 2]++;

  unsigned char* d_Data;
  unsigned int *d_Partial, *d_Histogram;
  cudaMalloc(&d_Data, byteCount);
  cudaMalloc(&d_Partial, PARTIAL_COUNT * HISTOGRAM64_BIN_COUNT * sizeof(unsigned int));
  cudaMalloc(&d_Histogram, HISTOGRAM64_BIN_COUNT * sizeof(unsigned int));
  cudaMemcpy(d_Data, h_Data.data(), byteCount, cudaMemcpyHostToDevice);
  histogram64Kernel<<<PARTIAL_COUNT, THREADS>>>(d_Partial, d_Data, byteCount);
  mergeHistogram64Kernel<<<1, HISTOGRAM64_BIN_COUNT>>>(d_Histogram, d_Partial, PARTIAL_COUNT);
  unsigned int h_HistogramGPU[HISTOGRAM64_BIN_COUNT];
  if (cudaMemcpy(h_HistogramGPU, d_Histogram, sizeof h_HistogramGPU, cudaMemcpyDeviceToHost) != cudaSuccess) {
    fprintf(stderr, "histogram failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return EXIT_FAILURE;
  }
  for (int bin = 0; bin < HISTOGRAM64_BIN_COUNT; ++bin) {
    if (h_HistogramGPU[bin] != h_HistogramCPU[bin]) {
      fprintf(stderr, "bin %d: GPU %u, CPU %u\n", bin, h_HistogramGPU[bin], h_HistogramCPU[bin]);
      return EXIT_FAILURE;
    }
  }
  cudaFree(d_Data);
  cudaFree(d_Partial);
  cudaFree(d_Histogram);
  printf("histogram64: PASSED\n");
  return EXIT_SUCCESS;
}
