// Built-in variables in 2D and 3D grids of 2D and 3D blocks (guide 2.2 and
// B.4): every thread records its global linear id and its own threadIdx and
// blockIdx, so the host can check that each thread ran exactly once with the
// right coordinates.  Also exercises uint3/dim3 conversions of the built-ins.

// Linear id of the thread in the whole grid: block-major, then thread-major.
__device__ unsigned int global_linear_id() {
  dim3 block = blockDim;  // dim3 from the built-in, as in CUDA
  uint3 thread = threadIdx;
  unsigned int block_id = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned int threads_per_block = block.x * block.y * block.z;
  unsigned int thread_id = thread.x + block.x * (thread.y + block.y * thread.z);
  return block_id * threads_per_block + thread_id;
}

// ids[g] = g; coords[4g..4g+3] = (threadIdx.x, threadIdx.y, blockIdx.x, blockIdx.y).
__global__ void index_2d(unsigned int* ids, unsigned int* coords) {
  unsigned int g = global_linear_id();
  ids[g] = g;
  coords[4 * g + 0] = threadIdx.x;
  coords[4 * g + 1] = threadIdx.y;
  coords[4 * g + 2] = blockIdx.x;
  coords[4 * g + 3] = blockIdx.y;
}

// ids[g] = g; coords[6g..6g+5] = threadIdx.xyz, blockIdx.xyz.
__global__ void index_3d(unsigned int* ids, unsigned int* coords) {
  unsigned int g = global_linear_id();
  ids[g] = g;
  unsigned int* c = coords + 6 * g;
  c[0] = threadIdx.x;
  c[1] = threadIdx.y;
  c[2] = threadIdx.z;
  c[3] = blockIdx.x;
  c[4] = blockIdx.y;
  c[5] = blockIdx.z;
}

// Every warp but a block's last exits at once; the last one writes.  On the
// RTL a block's warps start one after another as the dispatcher walks its
// threads, so early warps exit before later ones have started: the block
// must not count as done until its last warp has started and exited.
__global__ void last_warp_writes(unsigned int* out) {
  if (threadIdx.x < blockDim.x - 32) return;
  out[blockIdx.x * 32 + threadIdx.x % 32] = blockIdx.x * 1000 + threadIdx.x;
}
