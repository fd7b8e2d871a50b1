// Kernels and device variables for the API misuse tests, compiled by
// `kestrel-cc -c` (misuse_kernels.cu) and linked into a GoogleTest program
// built by CMake: the kernels are reached through these host functions.
#pragma once

#include <cuda_runtime.h>

const void* add_one_kernel();      // __global__ void add_one(int* data, int n)
const void* counter_symbol();      // __device__ int g_counter
const void* table_symbol();        // __constant__ float g_table[8]
const void* null_writer_kernel();  // __global__ void write_null(int value): faults
// __global__ void read_words(...): out[i] = the 32-bit word at device address
// `address` + 4 i, for i < n <= 32.
cudaError_t launch_read_words(unsigned long long address, unsigned* out, int n);
cudaError_t launch_add_one(int* data, int n, dim3 grid, dim3 block, size_t shared, cudaStream_t stream);
