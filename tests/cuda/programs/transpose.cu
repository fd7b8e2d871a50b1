// Matrix transpose in the style of NVIDIA's transpose sample: a shared tile
// padded by one column to avoid bank conflicts, pitched allocations
// (cudaMallocPitch) and 2D copies (cudaMemcpy2D, guide 3.2.2).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeCoalesced(float* odata, size_t opitch, const float* idata, size_t ipitch, int width,
                                   int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = *((const float*)((const char*)idata + (y + j) * ipitch) + x);
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width)
      *((float*)((char*)odata + (y + j) * opitch) + x) = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int width = 100, height = 70;  // deliberately not multiples of the tile
  std::vector<float> h_in(width * height), h_out(width * height);
  for (int i = 0; i < width * height; ++i) h_in[i] = static_cast<float>(i);
  float *d_in, *d_out;
  size_t in_pitch = 0, out_pitch = 0;
  if (cudaMallocPitch(&d_in, &in_pitch, width * sizeof(float), height) != cudaSuccess ||
      cudaMallocPitch(&d_out, &out_pitch, height * sizeof(float), width) != cudaSuccess) {
    fprintf(stderr, "cudaMallocPitch failed\n");
    return EXIT_FAILURE;
  }
  if (in_pitch < width * sizeof(float) || in_pitch % 256 != 0) {
    fprintf(stderr, "bad pitch %zu\n", in_pitch);
    return EXIT_FAILURE;
  }
  cudaMemcpy2D(d_in, in_pitch, h_in.data(), width * sizeof(float), width * sizeof(float), height,
               cudaMemcpyHostToDevice);
  dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM),
      threads(TILE_DIM, BLOCK_ROWS);
  transposeCoalesced<<<grid, threads>>>(d_out, out_pitch, d_in, in_pitch, width, height);
  cudaError_t err = cudaMemcpy2D(h_out.data(), height * sizeof(float), d_out, out_pitch,
                                 height * sizeof(float), width, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    fprintf(stderr, "transpose failed: %s\n", cudaGetErrorString(err));
    return EXIT_FAILURE;
  }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      if (h_out[x * height + y] != h_in[y * width + x]) {
        fprintf(stderr, "mismatch at (%d,%d)\n", x, y);
        return EXIT_FAILURE;
      }
  // A pitch narrower than the row is refused.
  if (cudaMemcpy2D(d_in, 4, h_in.data(), 4, 8, 2, cudaMemcpyHostToDevice) != cudaErrorInvalidPitchValue) {
    fprintf(stderr, "narrow pitch not refused\n");
    return EXIT_FAILURE;
  }
  cudaGetLastError();
  cudaFree(d_in);
  cudaFree(d_out);
  printf("Test passed\n");
  return EXIT_SUCCESS;
}
