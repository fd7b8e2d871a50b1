// __syncthreads() where the block does not arrive together (docs/isa.md
// section 6): threads that have exited count as arrived, and threads of one
// warp may reach the barrier on different paths.

// One thread in three returns at once; the rest write a value, wait at one
// of two __syncthreads() depending on parity, then read a neighbour's value.
// out[t] = neighbour's value, or -1 where the neighbour exited.
__global__ void barrier_with_exits(int* out) {
  __shared__ int stage[1024];
  unsigned int t = threadIdx.x;
  if (t % 3 == 0) {
    out[t] = -2;
    return;
  }
  if (t & 1) {
    stage[t] = static_cast<int>(3 * t);
    __syncthreads();
  } else {
    stage[t] = static_cast<int>(3 * t);
    __syncthreads();
  }
  unsigned int neighbour = (t + 1) % blockDim.x;
  out[t] = neighbour % 3 == 0 ? -1 : stage[neighbour];
}

// Two phases separated by a barrier, with whole warps exiting early: warps
// whose index is odd leave before the first barrier.
__global__ void barrier_warp_exits(int* out) {
  __shared__ int stage[1024];
  unsigned int t = threadIdx.x;
  unsigned int warp = t / warpSize;
  if (warp % 2 == 1) __kestrel_thread_exit();
  stage[t] = static_cast<int>(t);
  __syncthreads();
  unsigned int mirror = blockDim.x - 1 - t;
  bool mirror_alive = (mirror / warpSize) % 2 == 0;
  out[t] = mirror_alive ? stage[mirror] : -1;
}
