// Shared-memory bank microbenchmarks (guide G.3.3 / G.5.3, Figures 17 and
// 18).  Each thread repeats one shared-memory access `reps` times at the word
// index the host gives it; tests/e2e/test_atomics.cpp runs every pattern with
// reps = 0 and reps = R and divides the difference of the SHARED_PASSES
// counter by that of SHARED_ACCESSES: the passes one warp access takes.

constexpr int kWords = 1024;

// Fills the block's words so every read has a defined value.
__device__ void fill(volatile unsigned int* words) {
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) words[i] = (unsigned int)i;
  __syncthreads();
}

// 32-bit reads: word index[threadIdx.x], `reps` times.  The volatile pointer
// keeps every repetition an access of its own.
__global__ void shared_reads(const unsigned int* index, int reps, unsigned int* out) {
  __shared__ unsigned int words[kWords];
  volatile unsigned int* w = words;
  fill(w);
  const unsigned int at = index[threadIdx.x] % kWords;
  unsigned int acc = 0;
  for (int r = 0; r < reps; ++r) acc += w[at];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Byte reads: byte index[threadIdx.x] of the same array (four threads of a
// word share it: guide G.3.3's char example has no conflict).
__global__ void shared_byte_reads(const unsigned int* index, int reps, unsigned int* out) {
  __shared__ unsigned int words[kWords];
  volatile unsigned int* w = words;
  fill(w);
  volatile unsigned char* bytes = (volatile unsigned char*)words;
  const unsigned int at = index[threadIdx.x] % (4 * kWords);
  unsigned int acc = 0;
  for (int r = 0; r < reps; ++r) acc += bytes[at];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Atomic adds on word index[threadIdx.x]: each lane's read-modify-write is a
// pass of its bank, so threads on one word serialize.
__global__ void shared_atomics(const unsigned int* index, int reps, unsigned int* out) {
  __shared__ unsigned int words[kWords];
  fill(words);
  const unsigned int at = index[threadIdx.x] % kWords;
  for (int r = 0; r < reps; ++r) atomicAdd(&words[at], 1u);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = words[at];
}

// The same on global memory: contended (every thread on word 0) or not.
__global__ void global_atomics(unsigned int* words, const unsigned int* index, int reps) {
  const unsigned int at = index[threadIdx.x];
  for (int r = 0; r < reps; ++r) atomicAdd(&words[at], 1u);
}
