// Integer vector addition, the demo's kernel on backends without floating
// point (the RTL until its FPU is wired into the SM, issue 4): the guide's
// first kernel (section 2.1, Kernels) on ints, one element per thread.
__global__ void vector_add_int(const int* a, const int* b, int* c, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];  // the last block may have threads past the end
}
