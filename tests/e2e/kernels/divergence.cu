// Control flow that splits warps (guide 4.1, SIMT architecture): an early
// return, loops whose trip counts depend on each thread's data, nested
// branches inside them, break and continue.  Threads of one warp take
// different paths and must meet again with the right values.
// tests/e2e/reference.hpp has the same function for the host.

__device__ int collatz_steps(unsigned int x) {
  int steps = 0;
  while (x != 1) {  // trip count differs wildly between neighbouring threads
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}

__global__ void divergent_loops(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;  // early return of the tail threads
  int v = in[i];
  int acc = 0;
  for (int k = 0; k < v; ++k) {
    if (k % 3 == 0) continue;
    if (k > 40) break;
    if (v & 1) {
      acc += collatz_steps(static_cast<unsigned int>(k + 1));
    } else {
      for (int j = 0; j < k % 5; ++j) acc -= j;
    }
  }
  out[i] = acc;
}
