// Recursion in __device__ functions (guide E.2.9.6 rules it out only for
// __global__ functions): each thread keeps its own call stack in its local
// memory window (docs/isa.md section 4).

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// Sum of the subtree rooted at `node` of a complete binary tree stored in an
// array (children of i at 2i+1 and 2i+2).
__device__ __noinline__ int tree_sum(const int* values, int node, int count) {
  if (node >= count) return 0;
  return values[node] + tree_sum(values, 2 * node + 1, count) + tree_sum(values, 2 * node + 2, count);
}

__global__ void recursion(const int* values, int count, int* fib_out, int* sum_out) {
  unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  fib_out[t] = fib(static_cast<int>(t % 16));
  sum_out[t] = tree_sum(values, static_cast<int>(t), count);
}

// Recurses `depth` times with a 64-byte frame: deep enough overflows the
// thread's stack window, which faults with LOCAL_BOUNDS.
__device__ __noinline__ int deep(volatile int* frame_seed, int depth) {
  volatile int frame[16];
  for (int i = 0; i < 16; ++i) frame[i] = *frame_seed + i;
  return depth == 0 ? frame[3] : deep(frame_seed, depth - 1) + frame[5];
}

__global__ void stack_depth(int depth, int* out) {
  volatile int seed = 1;
  out[threadIdx.x] = deep(&seed, depth);
}
