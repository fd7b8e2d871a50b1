// Module-scope device variables the host reads and writes by name (guide
// B.2.1, B.2.2; kestrel_module_get_global): a __constant__ table, which the
// loader maps read-only for kernels, and a __device__ counter.

__constant__ float coefficients[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__device__ int launches = 0;

// y[i] = c0 + c1 x + c2 x^2 + c3 x^3 for x = x[i]; counts launches in thread 0.
__global__ void polynomial(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) ++launches;
  if (i >= n) return;
  float v = x[i];
  y[i] = coefficients[0] + v * (coefficients[1] + v * (coefficients[2] + v * coefficients[3]));
}
