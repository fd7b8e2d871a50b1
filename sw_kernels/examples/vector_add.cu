// Vector addition, the guide's first kernel (section 2.1, Kernels): each
// thread adds one pair of elements.  `make demo` runs it (runtime/demo).
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];  // the last block may have threads past the end
}
