// Single-precision linear algebra and __frsqrt_rn, sized for the RTL
// simulator (a few seconds each there):
// * dot: x . y, one partial sum per block, reduced in shared memory by a
//   tree (guide 5.4.3's reduction shape); the host adds the block sums.
// * sgemm_tiled: C = A * B (row-major, M x K times K x N) in Tile x Tile
//   thread blocks that stage tiles of A and B in shared memory between two
//   __syncthreads() (guide 3.2.3's shared-memory matrix multiplication).
// * frsqrt: __frsqrt_rn of each element (guide D.2, IEEE-compliant).
#define DOT_THREADS 128
#define TILE 8

__global__ void dot(const float* x, const float* y, float* block_sums, int n) {
  __shared__ float partial[DOT_THREADS];
  int t = threadIdx.x;
  int i = blockIdx.x * DOT_THREADS + t;
  partial[t] = i < n ? x[i] * y[i] : 0.0f;
  __syncthreads();
  for (int stride = DOT_THREADS / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) block_sums[blockIdx.x] = partial[0];
}

// M, N, K multiples of TILE; grid (N / TILE, M / TILE), block (TILE, TILE).
__global__ void sgemm_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int base = 0; base < k; base += TILE) {
    as[ty][tx] = a[row * k + base + tx];
    bs[ty][tx] = b[(base + ty) * n + col];
    __syncthreads();
    for (int j = 0; j < TILE; ++j) sum += as[ty][j] * bs[j][tx];
    __syncthreads();
  }
  if (row < m) c[row * n + col] = sum;
}

__global__ void frsqrt(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __frsqrt_rn(x[i]);
}

// FMA throughput: eight independent fmaf chains per thread, unrolled twice,
// `iterations` times; one block per SM filling every warp slot.
__global__ void fma_chains(float* out, float a, float b, int iterations) {
  float c0 = threadIdx.x, c1 = c0 + 1.0f, c2 = c0 + 2.0f, c3 = c0 + 3.0f;
  float c4 = c0 + 4.0f, c5 = c0 + 5.0f, c6 = c0 + 6.0f, c7 = c0 + 7.0f;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      c0 = fmaf(c0, a, b);
      c1 = fmaf(c1, a, b);
      c2 = fmaf(c2, a, b);
      c3 = fmaf(c3, a, b);
      c4 = fmaf(c4, a, b);
      c5 = fmaf(c5, a, b);
      c6 = fmaf(c6, a, b);
      c7 = fmaf(c7, a, b);
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7));
}
