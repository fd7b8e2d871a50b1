// The kernel of docs/tour.md: one block of 32 threads (one warp) per 32
// elements; a branch that splits the warp, a shared-memory store with a 2-way
// bank conflict, a barrier and an atomic.  tour.cu is the program around it;
// kestrel-cc also builds this file alone into a module (tour.md, step 1).
__global__ void tour(const int* in, int* out, int* total) {
  __shared__ int tile[64];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int v = in[i];
  if (v % 2 != 0)  // odd and even lanes take different sides
    v = 3 * v + 1;
  else
    v = v / 2;
  tile[(2 * t) % 64] = v;  // lanes t and t+16 share a bank: 2 passes
  __syncthreads();
  out[i] = tile[(2 * ((t + 1) % 32)) % 64];  // the next lane's value
  atomicAdd(total, v);
}
