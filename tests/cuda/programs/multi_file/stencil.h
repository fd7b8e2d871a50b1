// Host functions of stencil.cu, which holds its own kernels and __constant__ data.
#pragma once
#include <cuda_runtime.h>

cudaError_t three_point_sum(int* d_out, const int* d_in, int n);
int stencil_scale();
