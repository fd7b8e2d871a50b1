/* __frsqrt_rn(x): 1/sqrt(x) rounded to nearest even, IEEE-compliant as the
 * CUDA C Programming Guide v8.0 appendix D.2 (Table 9) requires.
 *
 * Method: a candidate y = 1 / sqrt(x) from two correctly rounded F
 * instructions (fsqrt.s, fdiv.s; at most about 1.5 ulp off), then an exact
 * correction.  y is the correctly rounded result exactly when the midpoints
 * between y and its two neighbours bracket 1/sqrt(x).  For a midpoint
 * m = (2Y + 1) * 2^(ey - 1) (y = Y * 2^ey, Y the 24-bit significand) and
 * x = X * 2^ex (X normalized to 24 bits, subnormals included),
 *     1/sqrt(x) > m  <=>  m^2 * x < 1  <=>  (2Y + 1)^2 * X < 2^(2 - 2ey - ex),
 * an integer comparison (the left side is below 2^74) done exactly in 64-bit
 * pieces; a midpoint is never equal to 1/sqrt(x) ((2Y+1)^2 is odd and > 1).
 * The candidate steps one ulp at a time until both tests pass.
 *
 * Special values: NaN gives the canonical NaN, x < 0 (including -inf) the
 * canonical NaN, +-0 gives +-inf, +inf gives +0.  The result is always normal
 * (1/sqrt of the largest float is about 5.4e-20, of the smallest subnormal
 * 2^74.5).  Plain C: the host tests (tests/toolchain/test_frsqrt.cpp)
 * include this header too and check it against an independent 128-bit test. */
#ifndef KESTREL_FRSQRT_H
#define KESTREL_FRSQRT_H

#ifdef __CUDACC__
#define KESTREL_FRSQRT_FN static __device__ __forceinline__
#else
#define KESTREL_FRSQRT_FN static inline
#endif

KESTREL_FRSQRT_FN unsigned __kestrel_float_bits(float f) {
  union {
    float f;
    unsigned u;
  } v;
  v.f = f;
  return v.u;
}
KESTREL_FRSQRT_FN float __kestrel_bits_float(unsigned u) {
  union {
    float f;
    unsigned u;
  } v;
  v.u = u;
  return v.f;
}

/* 1/sqrt(x) > the midpoint above y, for x = X * 2^ex (X in [2^23, 2^24))
 * and y a positive normal float. */
KESTREL_FRSQRT_FN int __kestrel_rsqrt_above_mid(unsigned long long X, int ex, unsigned ybits) {
  const unsigned long long Y = (ybits & 0x7FFFFFu) | 0x800000u;
  const int ey = (int)((ybits >> 23) & 0xFFu) - 150;
  const int k = 2 - 2 * ey - ex;
  const unsigned long long s = (2 * Y + 1) * (2 * Y + 1); /* [2^48, 2^50) */
  unsigned long long t;
  /* (2Y+1)^2 * X lies in [2^71, 2^74). */
  if (k >= 75) return 1;
  if (k <= 71) return 0;
  /* P = s * X = t * 2^32 + (low 32 bits); P < 2^k  <=>  t < 2^(k-32). */
  t = (s >> 32) * X + (((s & 0xFFFFFFFFull) * X) >> 32);
  return t < (1ull << (k - 32));
}

KESTREL_FRSQRT_FN float __frsqrt_rn(float x) {
  const unsigned bits = __kestrel_float_bits(x);
  const unsigned mag = bits & 0x7FFFFFFFu;
  unsigned long long X;
  int ex;
  unsigned y;
  if (mag > 0x7F800000u || (bits >> 31 && mag != 0)) return __kestrel_bits_float(0x7FC00000u); /* NaN, x < 0 */
  if (mag == 0) return __kestrel_bits_float((bits & 0x80000000u) | 0x7F800000u);                  /* +-0: +-inf */
  if (mag == 0x7F800000u) return 0.0f;                                                             /* +inf: +0 */
  if ((mag >> 23) == 0) {
    X = mag;
    ex = -149;
    while (X < 0x800000u) {
      X <<= 1;
      --ex;
    }
  } else {
    X = (mag & 0x7FFFFFu) | 0x800000u;
    ex = (int)(mag >> 23) - 150;
  }
  y = __kestrel_float_bits(1.0f / __builtin_sqrtf(x));
  while (__kestrel_rsqrt_above_mid(X, ex, y)) ++y;        /* below 1/sqrt(x) by more than half an ulp */
  while (!__kestrel_rsqrt_above_mid(X, ex, y - 1)) --y;   /* above it by more than half an ulp */
  return __kestrel_bits_float(y);
}

#undef KESTREL_FRSQRT_FN
#endif /* KESTREL_FRSQRT_H */
