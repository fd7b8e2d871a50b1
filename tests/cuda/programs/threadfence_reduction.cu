// A single-pass sum in the style of NVIDIA's threadFenceReduction sample, as
// guide B.5 describes it: every block writes its partial sum, fences, and
// takes a ticket with atomicInc on a __device__ counter; the block with the
// last ticket adds the partial sums.  Run twice, since the last block resets
// the counter for the next launch.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define THREADS 128

__device__ unsigned int retirementCount = 0;

__device__ float blockSum(float value) {
  __shared__ float sdata[THREADS];
  sdata[threadIdx.x] = value;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  const float sum = sdata[0];
  __syncthreads();  // sdata is reused by the next call
  return sum;
}

__global__ void reduceSinglePass(const float* g_idata, volatile float* g_partial, float* g_total,
                                 unsigned int n) {
  __shared__ bool amLast;
  float mine = 0.0f;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    mine += g_idata[i];
  const float partial = blockSum(mine);
  if (threadIdx.x == 0) {
    g_partial[blockIdx.x] = partial;
    __threadfence();  // the partial sum is visible before the ticket is
    const unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
    amLast = (ticket == gridDim.x - 1);
  }
  __syncthreads();
  if (amLast) {
    float total = 0.0f;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += g_partial[b];
    total = blockSum(total);
    if (threadIdx.x == 0) {
      *g_total = total;
      retirementCount = 0;
    }
  }
}

int main() {
  const unsigned int n = 1 << 16, blocks = 64;
  std::vector<float> h_data(n);
  double expected = 0.0;
  for (unsigned int i = 0; i < n; ++i) {
    h_data[i] = static_cast<float>(static_cast<int>(i % 13) - 6);  // integers: every order sums exactly
    expected += h_data[i];
  }
  float *d_data, *d_partial, *d_total;
  cudaMalloc(&d_data, n * sizeof(float));
  cudaMalloc(&d_partial, blocks * sizeof(float));
  cudaMalloc(&d_total, sizeof(float));
  cudaMemcpy(d_data, h_data.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  int failures = 0;
  for (int run = 0; run < 2; ++run) {
    reduceSinglePass<<<blocks, THREADS>>>(d_data, d_partial, d_total, n);
    float total = 0.0f;
    unsigned int count = 1;
    cudaMemcpy(&total, d_total, sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpyFromSymbol(&count, retirementCount, sizeof count);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess || total != static_cast<float>(expected) || count != 0) {
      std::printf("threadfence_reduction: run %d: total %g (expected %g), count %u, %s\n", run, total,
                  expected, count, cudaGetErrorString(err));
      ++failures;
    }
  }
  cudaFree(d_data);
  cudaFree(d_partial);
  cudaFree(d_total);
  std::printf("threadfence_reduction: %s\n", failures == 0 ? "PASSED" : "FAILED");
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
