// CUDA kernels that exercise what the runtime sets up for a launch: the
// shared window (static and dynamic, guide B.2.3), __constant__ data written
// by the host (guide B.2.2), parameters by value in CUDA's layout (guide
// B.1.4), the per-thread stack size (cudaLimitStackSize) and fault records.
#include <assert.h>

__constant__ int scale_table[4];
__device__ int launches_seen;

struct Record {
  int id;
  double weight;
  char tag;
};

__global__ void scale_by_table(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * scale_table[i % 4];
}

// Reverses each block's slice through static shared memory and adds a ramp
// kept in dynamic shared memory, so both windows must be placed right.
__global__ void reverse_in_block(const int* in, int* out) {
  __shared__ int tile[256];
  extern __shared__ int ramp[];
  const int t = threadIdx.x;
  const int base = blockIdx.x * blockDim.x;
  tile[t] = in[base + t];
  ramp[t] = 1000 * t;
  __syncthreads();
  const int mirror = blockDim.x - 1 - t;
  out[base + t] = tile[mirror] + ramp[mirror];
}

__global__ void record_params(Record record, double x, long long y, short z, int* out_int, double* out_double) {
  out_int[0] = record.id + record.tag + z;
  out_double[0] = record.weight * x + static_cast<double>(y);
  launches_seen += 1;
}

// Each level keeps a few words on the stack, so deep recursion needs more
// than the default 1 KiB per thread.
__device__ int nested_sum(int n) {
  volatile int frame[6];
  frame[0] = n;
  return n == 0 ? 0 : frame[0] + nested_sum(n - 1);
}

__global__ void recurse(int depth, int* out) { out[threadIdx.x] = nested_sum(depth); }

// Three calls deep, 1 KiB of locals at each level: 3 KiB and more of the
// kernel's own frames, no recursion.  kestrel-cc records the need and the
// runtime reserves it whatever cudaLimitStackSize says (docs/cuda-runtime.md).
__device__ __noinline__ int chain_level3(int seed) {
  volatile int buffer[256];
  for (int i = 0; i < 256; ++i) buffer[i] = seed + i;
  return buffer[seed & 255];
}
__device__ __noinline__ int chain_level2(int seed) {
  volatile int buffer[256];
  for (int i = 0; i < 256; ++i) buffer[i] = 3 * seed + i;
  return chain_level3(seed + 1) + buffer[(seed + 7) & 255];
}
__device__ __noinline__ int chain_level1(int seed) {
  volatile int buffer[256];
  for (int i = 0; i < 256; ++i) buffer[i] = 5 * seed + i;
  return chain_level2(seed + 1) + buffer[(seed + 13) & 255];
}
__global__ void deep_call_chain(int* out) { out[threadIdx.x] = chain_level1(threadIdx.x); }

__global__ void check_positive(const int* values) {
  assert(values[threadIdx.x] > 0);
}

// state[0] = 1 once running, then spins until the host sets state[1] (or
// max_spins pass); state[2] = the flag seen, state[3] = 1 when it gave up.
__global__ void wait_for_host(volatile int* state, long long max_spins) {
  state[0] = 1;
  long long spins = 0;
  while (state[1] == 0 && spins < max_spins) ++spins;
  state[2] = state[1];
  state[3] = spins >= max_spins ? 1 : 0;
}
