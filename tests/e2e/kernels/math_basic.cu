// Math that needs no library code, so it builds for RV32 too: F-extension
// instructions (sqrtf, fabsf, fminf, fmaxf, fma) and rounding, the SDK's
// min/max overloads, and double arithmetic in software (libgcc).

// out[6i..6i+5] for x = a[i], y = b[i].
__global__ void math_basic(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  out[6 * i + 0] = sqrtf(fabsf(x));
  out[6 * i + 1] = fminf(x, y);
  out[6 * i + 2] = fmaxf(x, y);
  out[6 * i + 3] = floorf(x) + ceilf(y);
  out[6 * i + 4] = min(x, y) * max(x, y);
  out[6 * i + 5] = static_cast<float>(min(i, 7) + max(3u, static_cast<unsigned int>(i)));
}

// out[i] = (x * 1.5 + x / 3) - 0.25 * x * x in double precision.
__global__ void double_arithmetic(const double* x, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (x[i] * 1.5 + x[i] / 3.0) - 0.25 * x[i] * x[i];
}

// cuda_fp16.h in device code of either XLEN (on RV32 its 64-bit integer
// steps are libgcc calls): for each bit pattern, the four roundings to half,
// the widening of its low 16 bits, and a fused multiply-add of halves.
#include <cuda_fp16.h>

__global__ void half_conversions(const unsigned int* bits, unsigned int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float f = __uint_as_float(bits[i]);
  out[6 * i + 0] = __half_as_ushort(__float2half_rn(f));
  out[6 * i + 1] = __half_as_ushort(__float2half_rz(f));
  out[6 * i + 2] = __half_as_ushort(__float2half_rd(f));
  out[6 * i + 3] = __half_as_ushort(__float2half_ru(f));
  out[6 * i + 4] = __float_as_uint(__half2float(__ushort_as_half((unsigned short)bits[i])));
  const __half a = __ushort_as_half((unsigned short)bits[i]),
               b = __ushort_as_half((unsigned short)(bits[i] >> 16));
  out[6 * i + 5] = __half_as_ushort(__hfma(a, b, __float2half(f)));
}
