// Block-wide sum reductions in shared memory with __syncthreads (guide B.2.3,
// B.6): a static __shared__ array, a dynamic `extern __shared__` one sized at
// launch, and the predicate barriers __syncthreads_count/and/or.

#define STATIC_BLOCK 256

// Tree reduction: after step s, sums[t] for t < s holds the sum of 2s values.
// Requires blockDim.x == STATIC_BLOCK.
__global__ void reduce_static(const int* in, int* block_sums) {
  __shared__ int sums[STATIC_BLOCK];
  unsigned int t = threadIdx.x;
  sums[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) sums[t] += sums[t + s];
    __syncthreads();  // every thread reaches it, also those with nothing to add
  }
  if (t == 0) block_sums[blockIdx.x] = sums[0];
}

// The same with shared memory sized by the launch (blockDim.x ints, a power
// of two), plus a float array placed after it in the same dynamic region.
__global__ void reduce_dynamic(const int* in, int* block_sums, float* block_means) {
  extern __shared__ int dynamic_sums[];
  float* means = reinterpret_cast<float*>(dynamic_sums + blockDim.x);
  unsigned int t = threadIdx.x;
  dynamic_sums[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) dynamic_sums[t] += dynamic_sums[t + s];
    __syncthreads();
  }
  if (t == 0) means[0] = static_cast<float>(dynamic_sums[0]) / blockDim.x;
  __syncthreads();
  if (t == 0) {
    block_sums[blockIdx.x] = dynamic_sums[0];
    block_means[blockIdx.x] = means[0];
  }
}

// results[3 * block + {0,1,2}] = count / and / or of (in[i] > threshold) over the block.
__global__ void predicate_barriers(const int* in, int threshold, int* results) {
  int above = in[blockIdx.x * blockDim.x + threadIdx.x] > threshold;
  int count = __syncthreads_count(above);
  int all = __syncthreads_and(above);
  int any = __syncthreads_or(above);
  if (threadIdx.x == 0) {
    results[3 * blockIdx.x + 0] = count;
    results[3 * blockIdx.x + 1] = all;
    results[3 * blockIdx.x + 2] = any;
  }
}
