// See misuse_kernels.h.
#include "misuse_kernels.h"

__device__ int g_counter;
__constant__ float g_table[8];

__global__ void add_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1 + g_counter;
}

__global__ void write_null(int value) { *static_cast<volatile int*>(nullptr) = value; }

// Reads device memory that no pointer of the program names (a texture
// descriptor, a CUDA array's texels) the way the texture unit will.
__global__ void read_words(unsigned long long address, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = reinterpret_cast<const volatile unsigned*>(static_cast<size_t>(address))[i];
}

cudaError_t launch_read_words(unsigned long long address, unsigned* out, int n) {
  read_words<<<1, 32>>>(address, out, n);
  return cudaGetLastError();
}

const void* add_one_kernel() { return reinterpret_cast<const void*>(&add_one); }
const void* counter_symbol() { return &g_counter; }
const void* table_symbol() { return &g_table; }
const void* null_writer_kernel() { return reinterpret_cast<const void*>(&write_null); }

cudaError_t launch_add_one(int* data, int n, dim3 grid, dim3 block, size_t shared, cudaStream_t stream) {
  add_one<<<grid, block, shared, stream>>>(data, n);
  return cudaGetLastError();
}
