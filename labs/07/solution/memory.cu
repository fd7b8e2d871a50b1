// Lab 07: memory latency, bandwidth and the DRAM model (README.md).
// Runs on rtlsim with its DRAM model (docs/memory-system.md).  Two parts, each
// launched with ONE block, so that one SM's load/store unit makes every
// memory request of a launch:
//   ./memory copy   part 1: STREAM's copy, c = a, over N floats
//   ./memory rows   part 2: scale a ROWS x COLS tile of an image in place, two ways
//   ./memory        both
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

constexpr int N = 1024;  // floats per array of the copy: 4 KiB each
// Part 2's tile: 8 rows of 1024 floats (4 KiB) of a row-major image whose rows
// are PITCH = 4096 floats (16 KiB) apart (guide 5.3.2, "Two-Dimensional Arrays").
constexpr int ROWS = 8, COLS = 1024, PITCH = 4096;
constexpr float SCALE = 3.0f;

// Part 1 (given).  Each warp copies 32 consecutive floats per iteration: one
// 128-byte load and one 128-byte store (guide 5.3.2, "Global Memory").
__global__ void copy(const float* a, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = a[i];
}

// Part 2 (given).  A block of 32 x 8 threads: the warp of threadIdx.y walks
// tile row threadIdx.y, 32 consecutive floats (128 bytes) at a time.
__global__ void scale_tall(float* m) {
  for (int row = threadIdx.y; row < ROWS; row += blockDim.y)
    for (int col = threadIdx.x; col < COLS; col += blockDim.x) m[row * PITCH + col] *= SCALE;
}

__global__ void scale_wide(float* m) {
  // The block's 8 warps side by side on 256 consecutive floats (1 KiB) of one
  // tile row, so that consecutive memory instructions stay in one 2 KiB DRAM row:
  // warp y takes floats 32y..32y+31 of each 256, still one coalesced 128 bytes.
  const int thread = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
  for (int row = 0; row < ROWS; ++row)
    for (int col = thread; col < COLS; col += threads) m[row * PITCH + col] *= SCALE;
}

// The element values: small multiples of 0.25, exact in float, and times 3 too.
static float initial(int i) { return float(i % 17) * 0.25f; }

static int report_copy(const float* got) {
  int wrong = 0;
  for (int i = 0; i < N; ++i)
    if (got[i] != initial(i)) {
      if (wrong < 3) printf("copy: c[%d] = %g, expected %g\n", i, got[i], initial(i));
      ++wrong;
    }
  printf("copy: %d of %d elements wrong\n", wrong, N);
  return wrong;
}

static int check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return 0;
  printf("%s: CUDA error %s\n", what, cudaGetErrorString(status));
  return 1;
}

static int part_copy() {
  static float host[N];
  for (int i = 0; i < N; ++i) host[i] = initial(i);
  float *a = nullptr, *c = nullptr;
  if (check(cudaMalloc(&a, sizeof host), "cudaMalloc") || check(cudaMalloc(&c, sizeof host), "cudaMalloc"))
    return 1;
  cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(c, 0, sizeof host);
  copy<<<1, 256>>>(a, c, N);
  if (check(cudaMemcpy(host, c, sizeof host, cudaMemcpyDeviceToHost), "copy")) return 1;
  int wrong = report_copy(host);
  cudaFree(a);
  cudaFree(c);
  return wrong;
}

// The tile scaled, the rest of the image untouched.
static int report_tile(const char* name, const float* got) {
  int wrong = 0;
  for (int i = 0; i < ROWS * PITCH; ++i) {
    const float expected = initial(i) * (i % PITCH < COLS ? SCALE : 1.0f);
    if (got[i] != expected) {
      if (wrong < 3)
        printf("%s: m[%d][%d] = %g, expected %g\n", name, i / PITCH, i % PITCH, got[i], expected);
      ++wrong;
    }
  }
  printf("%s: %d of %d elements wrong\n", name, wrong, ROWS * PITCH);
  return wrong;
}

static int part_rows() {
  static float host[ROWS * PITCH];
  float* m = nullptr;
  if (check(cudaMalloc(&m, sizeof host), "cudaMalloc")) return 1;
  int wrong = 0;
  const dim3 block(32, 8);
  for (int wide = 0; wide < 2; ++wide) {
    for (int i = 0; i < ROWS * PITCH; ++i) host[i] = initial(i);
    cudaMemcpy(m, host, sizeof host, cudaMemcpyHostToDevice);
    const char* name = wide ? "scale_wide" : "scale_tall";
    if (wide)
      scale_wide<<<1, block>>>(m);
    else
      scale_tall<<<1, block>>>(m);
    if (check(cudaMemcpy(host, m, sizeof host, cudaMemcpyDeviceToHost), name)) return 1;
    wrong += report_tile(name, host);
  }
  cudaFree(m);
  return wrong;
}

int main(int argc, char** argv) {
  const char* part = argc > 1 ? argv[1] : "";
  if (argc > 2 || (*part && strcmp(part, "copy") != 0 && strcmp(part, "rows") != 0)) {
    fprintf(stderr, "usage: %s [copy|rows]\n", argv[0]);
    return 2;
  }
  int wrong = 0;
  if (!*part || !strcmp(part, "copy")) wrong += part_copy();
  if (!*part || !strcmp(part, "rows")) wrong += part_rows();
  return wrong ? 1 : 0;
}
