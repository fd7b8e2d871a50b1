// Lab 03: shared memory and bank conflicts (README.md).
// Transposes a W x W matrix through 32 x 32 tiles of shared memory.  A block
// of 32 x 8 threads moves one tile: each thread copies four elements in, the
// block synchronizes, and each thread copies four elements out, transposed.
#include <cuda_runtime.h>
#include <cstdio>

constexpr int TILE = 32, ROWS = 8, W = 128;

__global__ void transpose_unpadded(const float* in, float* out) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * W + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;  // the transposed tile's origin
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * W + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_padded(const float* in, float* out) {
  // TODO (step 3): the same transpose without bank conflicts.  Give the tile
  // one more column than it needs, so that a column's 32 words fall in 32
  // different banks (guide G.5.3; docs/isa.md section 2.3).
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * W + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * W + x] = tile[threadIdx.x][threadIdx.y + j];
}

static int compare(const char* name, const float* in, const float* out) {
  int wrong = 0;
  for (int r = 0; r < W; ++r)
    for (int c = 0; c < W; ++c)
      if (out[c * W + r] != in[r * W + c]) {
        if (wrong < 3)
          printf("%s: out[%d][%d] = %g, expected %g\n", name, c, r, out[c * W + r], in[r * W + c]);
        ++wrong;
      }
  printf("%s: %d of %d elements wrong\n", name, wrong, W * W);
  return wrong;
}

int main() {
  static float hin[W * W], hout[W * W];
  for (int i = 0; i < W * W; ++i) hin[i] = float(i);
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, sizeof hin);
  cudaMalloc(&out, sizeof hout);
  cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice);
  dim3 grid(W / TILE, W / TILE), block(TILE, ROWS);
  int wrong = 0;

  cudaMemset(out, 0, sizeof hout);
  transpose_unpadded<<<grid, block>>>(in, out);
  cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost);
  wrong += compare("transpose_unpadded", hin, hout);

  cudaMemset(out, 0, sizeof hout);
  transpose_padded<<<grid, block>>>(in, out);
  if (cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("transpose_padded: CUDA error %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  wrong += compare("transpose_padded", hin, hout);
  cudaFree(in);
  cudaFree(out);
  return wrong ? 1 : 0;
}
