// SGEMM kernels for the memory-system benchmark (issue 15; docs/memory-system.md):
// C = A x B for N x N floats, N a multiple of 64, with
//   shared    - each 16 x 16 block computes one tile of C from 16 x 16 tiles of A
//               and B staged in __shared__ memory (guide 3.2.3): one FMA per
//               two shared loads;
//   register  - each 256-thread block computes a 64 x 64 tile of C, every
//               thread a 4 x 4 register tile, from 64 x 8 and 8 x 64 shared
//               tiles: 16 FMAs per 8 shared loads.
// Usage: sgemm <shared|register> <N>.  Checks C against the host's product and
// prints the kernel's simulated time from events; run_sgemm.py reads the
// launch statistics (KESTREL_STATS) for IPC and the FMA share of issue slots.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define check(call)                                                                                      \
  do {                                                                                                   \
    cudaError_t status_ = (call);                                                                        \
    if (status_ != cudaSuccess) {                                                                        \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(status_)); \
      exit(EXIT_FAILURE);                                                                                \
    }                                                                                                    \
  } while (0)

constexpr int kTile = 16;

__global__ void sgemm_shared(const float* A, const float* B, float* C, int n) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    As[ty][tx] = A[row * n + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) sum = fmaf(As[ty][k], Bs[k][tx], sum);
    __syncthreads();
  }
  C[row * n + col] = sum;
}

constexpr int kBlockTile = 64, kStep = 8, kThreadTile = 4;

// 256 threads as 16 x 16; thread (tx, ty) owns rows ty*4.. and columns tx*4..
// of the block's tile.  Each step stages A[64][8] and B[8][64] (512 floats
// each, two per thread).
__global__ void sgemm_register(const float* A, const float* B, float* C, int n) {
  __shared__ float As[kStep][kBlockTile];  // transposed: As[k][row]
  __shared__ float Bs[kStep][kBlockTile];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kBlockTile, col0 = blockIdx.x * kBlockTile;
  float acc[kThreadTile][kThreadTile] = {};
  for (int k0 = 0; k0 < n; k0 += kStep) {
    for (int i = threadIdx.x; i < kBlockTile * kStep; i += blockDim.x) {
      const int r = i / kStep, k = i % kStep;  // A: 64 rows x 8 columns
      As[k][r] = A[(row0 + r) * n + k0 + k];
      const int kb = i / kBlockTile, c = i % kBlockTile;  // B: 8 rows x 64 columns
      Bs[kb][c] = B[(k0 + kb) * n + col0 + c];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kStep; ++k) {
      float a[kThreadTile], b[kThreadTile];
#pragma unroll
      for (int i = 0; i < kThreadTile; ++i) {
        a[i] = As[k][ty * kThreadTile + i];
        b[i] = Bs[k][tx * kThreadTile + i];
      }
#pragma unroll
      for (int i = 0; i < kThreadTile; ++i)
#pragma unroll
        for (int j = 0; j < kThreadTile; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < kThreadTile; ++i)
    for (int j = 0; j < kThreadTile; ++j)
      C[(row0 + ty * kThreadTile + i) * n + col0 + tx * kThreadTile + j] = acc[i][j];
}

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "shared") != 0 && std::strcmp(argv[1], "register") != 0)) {
    fprintf(stderr, "usage: %s <shared|register> <N, a multiple of 64>\n", argv[0]);
    return 2;
  }
  const bool shared = std::strcmp(argv[1], "shared") == 0;
  const int n = std::atoi(argv[2]);
  if (n <= 0 || n % kBlockTile != 0) {
    fprintf(stderr, "sgemm: N must be a positive multiple of 64\n");
    return 2;
  }
  const size_t elements = size_t(n) * n;
  std::vector<float> a(elements), b(elements), c(elements);
  for (size_t i = 0; i < elements; ++i) {
    a[i] = float((i * 7) % 13) / 13.0f;
    b[i] = float((i * 5) % 11) / 11.0f - 0.5f;
  }
  float *da, *db, *dc;
  check(cudaMalloc(&da, elements * sizeof(float)));
  check(cudaMalloc(&db, elements * sizeof(float)));
  check(cudaMalloc(&dc, elements * sizeof(float)));
  check(cudaMemcpy(da, a.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
  check(cudaMemcpy(db, b.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start));
  check(cudaEventCreate(&stop));
  check(cudaEventRecord(start));
  if (shared) {
    sgemm_shared<<<dim3(n / kTile, n / kTile), dim3(kTile, kTile)>>>(da, db, dc, n);
  } else {
    sgemm_register<<<dim3(n / kBlockTile, n / kBlockTile), 256>>>(da, db, dc, n);
  }
  check(cudaGetLastError());
  check(cudaEventRecord(stop));
  check(cudaEventSynchronize(stop));
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop));
  check(cudaMemcpy(c.data(), dc, elements * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n && wrong < 5; ++i) {
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int k = 0; k < n; ++k) want += double(a[size_t(i) * n + k]) * double(b[size_t(k) * n + j]);
      if (std::fabs(c[size_t(i) * n + j] - want) > 1e-3 * n) {
        if (++wrong <= 5) fprintf(stderr, "sgemm: C[%d][%d] = %g, want %g\n", i, j, c[size_t(i) * n + j], want);
      }
    }
  }
  printf("sgemm %s N=%d: %s, %.3f ms of device time\n", argv[1], n, wrong ? "WRONG" : "correct", ms);
  check(cudaFree(da));
  check(cudaFree(db));
  check(cudaFree(dc));
  return wrong ? 1 : 0;
}
