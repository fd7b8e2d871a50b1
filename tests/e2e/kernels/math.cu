// The C math library on the device (guide B.7, appendix D): float functions
// from picolibc's libm and a double computation, which the F-only ABI does in
// software (libgcc).  On RV32 the library code addresses its constant tables
// absolutely (lui/addi), which the loader relocates (docs/isa.md section 5).

// out[5i..5i+4] = sinf, expf, sqrtf, logf, powf of x[i].
__global__ void math_float(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  out[5 * i + 0] = sinf(v);
  out[5 * i + 1] = expf(v);
  out[5 * i + 2] = sqrtf(fabsf(v));
  out[5 * i + 3] = logf(1.0f + fabsf(v));
  out[5 * i + 4] = powf(fabsf(v), 1.5f);
}

__global__ void math_double(const double* x, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  out[i] = sin(v) * exp(v / 4.0) + sqrt(fabs(v)) + pow(fabs(v), 0.75);
}

// out[4i..4i+3] = fmodf(x, 3), ldexpf(x, 5), frexpf's fraction and exponent
// (as a float), exact operations the host reproduces bit for bit.
__global__ void math_float_exact(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  int exponent = 0;
  out[4 * i + 0] = fmodf(v, 3.0f);
  out[4 * i + 1] = ldexpf(v, 5);
  out[4 * i + 2] = frexpf(v, &exponent);
  out[4 * i + 3] = static_cast<float>(exponent);
}
