// SHARED_BOUNDS from the classic stencil bug (docs/isa.md section 4), in a
// module of its own so that `tile` is the module's only __shared__ variable
// and starts the block's shared memory: tile[threadIdx.x - 1] at thread 0
// reads below the window.  The culprit (the thread whose global index is
// `who`) reads tile[index]: -1 is that bug, a large index reads far past the
// block's shared memory; the others read their own element.  The guards
// around the shared window catch both; without them the access reaches the
// module's globals (below_the_tile lies just below the window) or the next
// allocation, and the launch succeeds.
constexpr int kTileInts = 32;

__device__ int below_the_tile[kTileInts];

__global__ void fault_shared_neighbour(int index, int* out, unsigned int who) {
  __shared__ int tile[kTileInts];
  tile[threadIdx.x] = static_cast<int>(threadIdx.x) + below_the_tile[threadIdx.x];
  __syncthreads();
  const bool culprit = blockIdx.x * blockDim.x + threadIdx.x == who;
  const int element = culprit ? index : static_cast<int>(threadIdx.x);
  out[blockIdx.x * blockDim.x + threadIdx.x] = reinterpret_cast<volatile int*>(tile)[element];
}
