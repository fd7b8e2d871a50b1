/* <cuda_fp16.h> for Kestrel: IEEE 754 binary16 (`__half`, `half`) and pairs
 * of them (`__half2`, `half2`), with CUDA's conversion, arithmetic,
 * comparison and shuffle functions (CUDA Math API, "Half Precision
 * Intrinsics"; CUDA C Programming Guide v8.0 B.14 for the shuffles).
 *
 * Kestrel has no half-precision hardware: a __half is 16 bits of storage,
 * and arithmetic converts to float, computes and rounds back.  That is exact
 * CUDA behaviour, not an approximation: float's 24-bit significand is at
 * least 2 * 11 + 2 bits, so one float operation followed by a rounding to
 * half gives the correctly rounded half result of +, -, *, / and sqrt
 * (double rounding is innocuous at that width); __hfma rounds the exact
 * a * b + c once (see __kestrel_half_fma).  Conversions to half are done on
 * the bits, in integer arithmetic, with each of the four IEEE rounding
 * modes; they give the same bits in host and device code.
 *
 * Usable from any C++ file: in a .cu file (either pass of kestrel-cc) the
 * functions are __host__ __device__ and the shuffles exist; in a host .cpp
 * file they are plain inline functions.  docs/programming-guide.md,
 * "Half precision". */
#ifndef KESTREL_CUDA_FP16_H
#define KESTREL_CUDA_FP16_H
/* NVIDIA's include guards, which some programs test. */
#define __CUDA_FP16_H__
#define __CUDA_FP16_HPP__

#ifndef __cplusplus
#error "cuda_fp16.h needs C++"
#endif

#if defined(__CUDA__)
#define KESTREL_FP16_FN __attribute__((host, device)) inline __attribute__((always_inline))
#define KESTREL_FP16_CTOR __attribute__((host, device))
#else
#define KESTREL_FP16_FN inline
#define KESTREL_FP16_CTOR
#endif

#include "vector_types.h"

/* ---- Types ------------------------------------------------------------------ */
typedef struct __half_raw {
  unsigned short x;
} __half_raw;
typedef struct __half2_raw {
  unsigned short x;
  unsigned short y;
} __half2_raw;

struct __half;
KESTREL_FP16_FN __half __float2half(float a);
KESTREL_FP16_FN __half __double2half(double a);
KESTREL_FP16_FN float __half2float(__half a);
KESTREL_FP16_FN __half __int2half_rn(int i);
KESTREL_FP16_FN __half __uint2half_rn(unsigned int i);
KESTREL_FP16_FN __half __ll2half_rn(long long i);
KESTREL_FP16_FN __half __ull2half_rn(unsigned long long i);

struct alignas(2) __half {
  /* The bits; CUDA keeps them private (as __x), and so should callers:
   * __half_as_ushort / __ushort_as_half are the portable way in. */
  unsigned short __x;

  __half() = default;
  KESTREL_FP16_CTOR constexpr __half(const __half_raw& raw) : __x(raw.x) {}
  /* Conversions from and to the arithmetic types, unless the program opts
   * out with CUDA's __CUDA_NO_HALF_CONVERSIONS__ (as PyTorch does). */
#if !defined(__CUDA_NO_HALF_CONVERSIONS__)
  KESTREL_FP16_CTOR __half(float f) : __x(__float2half(f).__x) {}
  KESTREL_FP16_CTOR __half(double d) : __x(__double2half(d).__x) {}
  KESTREL_FP16_CTOR __half(short i) : __x(__int2half_rn(i).__x) {}
  KESTREL_FP16_CTOR __half(unsigned short i) : __x(__uint2half_rn(i).__x) {}
  KESTREL_FP16_CTOR __half(int i) : __x(__int2half_rn(i).__x) {}
  KESTREL_FP16_CTOR __half(unsigned int i) : __x(__uint2half_rn(i).__x) {}
  KESTREL_FP16_CTOR __half(long long i) : __x(__ll2half_rn(i).__x) {}
  KESTREL_FP16_CTOR __half(unsigned long long i) : __x(__ull2half_rn(i).__x) {}
  KESTREL_FP16_CTOR __half& operator=(const __half_raw& raw) {
    __x = raw.x;
    return *this;
  }
  KESTREL_FP16_CTOR __half& operator=(float f) { return *this = __half(f); }
  KESTREL_FP16_CTOR __half& operator=(double d) { return *this = __half(d); }
  KESTREL_FP16_CTOR operator float() const { return __half2float(*this); }
#endif
  KESTREL_FP16_CTOR constexpr operator __half_raw() const { return __half_raw{__x}; }
};

struct alignas(4) __half2 {
  __half x;
  __half y;

  __half2() = default;
  KESTREL_FP16_CTOR constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
  KESTREL_FP16_CTOR constexpr __half2(const __half2_raw& raw) : x(__half_raw{raw.x}), y(__half_raw{raw.y}) {}
  KESTREL_FP16_CTOR __half2& operator=(const __half2_raw& raw) { return *this = __half2(raw); }
  KESTREL_FP16_CTOR constexpr operator __half2_raw() const { return __half2_raw{x.__x, y.__x}; }
};

typedef __half half;
typedef __half2 half2;

/* ---- Bit reinterpretation ---------------------------------------------------- */
KESTREL_FP16_FN unsigned short __half_as_ushort(__half h) { return h.__x; }
KESTREL_FP16_FN short __half_as_short(__half h) { return (short)h.__x; }
KESTREL_FP16_FN __half __ushort_as_half(unsigned short i) { return __half(__half_raw{i}); }
KESTREL_FP16_FN __half __short_as_half(short i) { return __half(__half_raw{(unsigned short)i}); }

#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000U)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)

/* ---- Rounding to half (the one place that rounds) -------------------------------
 * Rounds (-1)^sign * m * 2^e, exactly, to binary16 in `mode`; m < 2^63.
 * Binary16: 1 sign bit, 5 exponent bits (bias 15), 10 fraction bits;
 * subnormals are multiples of 2^-24.  A NaN never comes here. */
enum __kestrel_half_rounding { __kestrel_rn, __kestrel_rz, __kestrel_rd, __kestrel_ru };

KESTREL_FP16_FN unsigned short __kestrel_round_half(unsigned int sign, unsigned long long m, int e,
                                                    int mode) {
  const unsigned short sign_bit = (unsigned short)(sign ? 0x8000u : 0u);
  if (m == 0) return sign_bit;
  const int msb = 63 - __builtin_clzll(m);
  const int exponent = msb + e;  // the value is in [2^exponent, 2^(exponent+1))
  // Keep 11 significant bits for a normal result, bits down to 2^-24 for a subnormal one.
  const int shift = exponent >= -14 ? msb - 10 : -24 - e;
  unsigned long long q;
  bool above_half = false, at_half = false, inexact = false;
  if (shift <= 0) {
    q = m << -shift;
  } else if (shift >= 64) {
    q = 0;  // below half of the smallest subnormal (m < 2^63)
    inexact = true;
  } else {
    q = m >> shift;
    const unsigned long long rest = m & ((1ull << shift) - 1), midpoint = 1ull << (shift - 1);
    above_half = rest > midpoint;
    at_half = rest == midpoint;
    inexact = rest != 0;
  }
  bool up = false;
  switch (mode) {
    case __kestrel_rn:
      up = above_half || (at_half && (q & 1));
      break;
    case __kestrel_rz:
      break;
    case __kestrel_rd:
      up = inexact && sign;
      break;
    default:
      up = inexact && !sign;
      break;
  }
  q += up;
  // A normal q holds the implicit bit (0x400), which adds one to the biased
  // exponent field; a carry out of the fraction moves to the next binade.
  unsigned long long bits = exponent >= -14 ? ((unsigned long long)(exponent + 14) << 10) + q : q;
  if (bits >= 0x7C00u) {
    // Overflow: infinity, unless the mode rounds toward the largest finite value.
    const bool to_infinity =
        mode == __kestrel_rn || (mode == __kestrel_ru && !sign) || (mode == __kestrel_rd && sign);
    bits = to_infinity ? 0x7C00u : 0x7BFFu;
  }
  return (unsigned short)(sign_bit | bits);
}

KESTREL_FP16_FN unsigned short __kestrel_float_to_half_bits(float f, int mode) {
  const unsigned int u = __builtin_bit_cast(unsigned int, f);
  const unsigned int sign = u >> 31, biased = (u >> 23) & 0xFFu, fraction = u & 0x7FFFFFu;
  if (biased == 0xFFu)
    return fraction != 0 ? (unsigned short)0x7FFFu : (unsigned short)((sign << 15) | 0x7C00u);
  if (biased == 0) return __kestrel_round_half(sign, fraction, -149, mode);
  return __kestrel_round_half(sign, fraction | 0x800000u, (int)biased - 150, mode);
}

KESTREL_FP16_FN unsigned short __kestrel_double_to_half_bits(double d, int mode) {
  const unsigned long long u = __builtin_bit_cast(unsigned long long, d);
  const unsigned int sign = (unsigned int)(u >> 63), biased = (unsigned int)(u >> 52) & 0x7FFu;
  const unsigned long long fraction = u & 0xFFFFFFFFFFFFFull;
  if (biased == 0x7FFu)
    return fraction != 0 ? (unsigned short)0x7FFFu : (unsigned short)((sign << 15) | 0x7C00u);
  if (biased == 0) return __kestrel_round_half(sign, fraction, -1074, mode);
  return __kestrel_round_half(sign, fraction | 0x10000000000000ull, (int)biased - 1075, mode);
}

/* An integer's magnitude; 2^63 (of LLONG_MIN) is past every half anyway. */
KESTREL_FP16_FN unsigned short __kestrel_integer_to_half_bits(bool negative, unsigned long long magnitude,
                                                              int mode) {
  if (magnitude >> 62) magnitude = 1ull << 62;  // far above 65504: same rounding
  return __kestrel_round_half(negative, magnitude, 0, mode);
}

/* Exact: every half is a float. */
KESTREL_FP16_FN float __kestrel_half_bits_to_float(unsigned short h) {
  const unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
  unsigned int biased = (h >> 10) & 0x1Fu, fraction = h & 0x3FFu;
  unsigned int bits;
  if (biased == 0x1Fu) {
    bits = sign | 0x7F800000u | (fraction << 13);  // infinity, or NaN with its payload
  } else if (biased == 0) {
    if (fraction == 0) {
      bits = sign;
    } else {
      // Subnormal: normalize; 2^-14 * 0.fraction.
      int exponent = -14;
      while ((fraction & 0x400u) == 0) {
        fraction <<= 1;
        --exponent;
      }
      bits = sign | ((unsigned int)(exponent + 127) << 23) | ((fraction & 0x3FFu) << 13);
    }
  } else {
    bits = sign | ((biased - 15 + 127) << 23) | (fraction << 13);
  }
  return __builtin_bit_cast(float, bits);
}

/* ---- Conversions ------------------------------------------------------------------ */
KESTREL_FP16_FN __half __float2half(float a) {
  return __ushort_as_half(__kestrel_float_to_half_bits(a, __kestrel_rn));
}
KESTREL_FP16_FN __half __float2half_rn(float a) { return __float2half(a); }
KESTREL_FP16_FN __half __float2half_rz(float a) {
  return __ushort_as_half(__kestrel_float_to_half_bits(a, __kestrel_rz));
}
KESTREL_FP16_FN __half __float2half_rd(float a) {
  return __ushort_as_half(__kestrel_float_to_half_bits(a, __kestrel_rd));
}
KESTREL_FP16_FN __half __float2half_ru(float a) {
  return __ushort_as_half(__kestrel_float_to_half_bits(a, __kestrel_ru));
}
/* Rounds the double itself (no detour through float, which could round twice). */
KESTREL_FP16_FN __half __double2half(double a) {
  return __ushort_as_half(__kestrel_double_to_half_bits(a, __kestrel_rn));
}
KESTREL_FP16_FN float __half2float(__half a) { return __kestrel_half_bits_to_float(a.__x); }
KESTREL_FP16_FN float __low2float(__half2 a) { return __half2float(a.x); }
KESTREL_FP16_FN float __high2float(__half2 a) { return __half2float(a.y); }
KESTREL_FP16_FN __half2 __float2half2_rn(float a) { return __half2(__float2half(a), __float2half(a)); }
KESTREL_FP16_FN __half2 __floats2half2_rn(float a, float b) {
  return __half2(__float2half(a), __float2half(b));
}
KESTREL_FP16_FN __half2 __float22half2_rn(float2 a) { return __floats2half2_rn(a.x, a.y); }
KESTREL_FP16_FN float2 __half22float2(__half2 a) { return make_float2(__half2float(a.x), __half2float(a.y)); }

/* Integers to half: one rounding of the exact value. */
#define KESTREL_INT_TO_HALF(name, type, negative, magnitude, mode)                      \
  KESTREL_FP16_FN __half name(type i) {                                                 \
    return __ushort_as_half(__kestrel_integer_to_half_bits(negative, magnitude, mode)); \
  }
#define KESTREL_SIGNED_TO_HALF(name, type, mode) \
  KESTREL_INT_TO_HALF(name, type, i < 0, i < 0 ? 0ull - (unsigned long long)i : (unsigned long long)i, mode)
#define KESTREL_UNSIGNED_TO_HALF(name, type, mode) KESTREL_INT_TO_HALF(name, type, false, i, mode)
#define KESTREL_INT_TO_HALF_MODES(kind, prefix, type)                    \
  KESTREL_##kind##_TO_HALF(prefix##2half_rn, type, __kestrel_rn)         \
      KESTREL_##kind##_TO_HALF(prefix##2half_rz, type, __kestrel_rz)     \
          KESTREL_##kind##_TO_HALF(prefix##2half_rd, type, __kestrel_rd) \
              KESTREL_##kind##_TO_HALF(prefix##2half_ru, type, __kestrel_ru)
KESTREL_INT_TO_HALF_MODES(SIGNED, __int, int)
KESTREL_INT_TO_HALF_MODES(UNSIGNED, __uint, unsigned int)
KESTREL_INT_TO_HALF_MODES(SIGNED, __short, short)
KESTREL_INT_TO_HALF_MODES(UNSIGNED, __ushort, unsigned short)
KESTREL_INT_TO_HALF_MODES(SIGNED, __ll, long long)
KESTREL_INT_TO_HALF_MODES(UNSIGNED, __ull, unsigned long long)
#undef KESTREL_INT_TO_HALF_MODES
#undef KESTREL_UNSIGNED_TO_HALF
#undef KESTREL_SIGNED_TO_HALF
#undef KESTREL_INT_TO_HALF

/* Half to integers: rounded in the named mode; NaN gives 0 and values out of
 * the type's range saturate, as CUDA's conversions do.  Every half's
 * integral part is exact in float. */
KESTREL_FP16_FN float __kestrel_round_integral(float f, int mode) {
  // |f| < 65536 here: the integral part is exact, the fraction below 1.
  const float truncated = (float)(int)f;
  const float fraction = f - truncated;
  switch (mode) {
    case __kestrel_rz:
      return truncated;
    case __kestrel_rd:
      return fraction < 0.0f ? truncated - 1.0f : truncated;
    case __kestrel_ru:
      return fraction > 0.0f ? truncated + 1.0f : truncated;
    default: {
      const float magnitude = fraction < 0.0f ? -fraction : fraction;
      const float away = fraction < 0.0f ? truncated - 1.0f : truncated + 1.0f;
      if (magnitude > 0.5f) return away;
      if (magnitude < 0.5f) return truncated;
      return ((int)truncated & 1) ? away : truncated;  // a tie: to even
    }
  }
}
#define KESTREL_HALF_TO_INT(name, type, lowest, highest, mode)                   \
  KESTREL_FP16_FN type name(__half h) {                                          \
    const float f = __half2float(h);                                             \
    if (f != f) return 0;                                                        \
    if (f >= 65536.0f || f <= -65536.0f) return f > 0.0f ? (highest) : (lowest); \
    const float r = __kestrel_round_integral(f, mode);                           \
    if (r <= (float)(lowest)) return (lowest);                                   \
    if (r >= (float)(highest)) return (highest);                                 \
    return (type)r;                                                              \
  }
#define KESTREL_HALF_TO_INT_MODES(suffix, type, lowest, highest)                 \
  KESTREL_HALF_TO_INT(__half2##suffix##_rn, type, lowest, highest, __kestrel_rn) \
  KESTREL_HALF_TO_INT(__half2##suffix##_rz, type, lowest, highest, __kestrel_rz) \
  KESTREL_HALF_TO_INT(__half2##suffix##_rd, type, lowest, highest, __kestrel_rd) \
  KESTREL_HALF_TO_INT(__half2##suffix##_ru, type, lowest, highest, __kestrel_ru)
KESTREL_HALF_TO_INT_MODES(int, int, (-2147483647 - 1), 2147483647)
KESTREL_HALF_TO_INT_MODES(uint, unsigned int, 0u, 4294967295u)
KESTREL_HALF_TO_INT_MODES(short, short, (short)-32768, (short)32767)
KESTREL_HALF_TO_INT_MODES(ushort, unsigned short, (unsigned short)0, (unsigned short)65535)
KESTREL_HALF_TO_INT_MODES(ll, long long, (-9223372036854775807ll - 1), 9223372036854775807ll)
KESTREL_HALF_TO_INT_MODES(ull, unsigned long long, 0ull, 18446744073709551615ull)
#undef KESTREL_HALF_TO_INT_MODES
#undef KESTREL_HALF_TO_INT

/* ---- Building and taking apart __half2 ---------------------------------------- */
KESTREL_FP16_FN __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
KESTREL_FP16_FN __half2 make_half2(__half x, __half y) { return __half2(x, y); }
KESTREL_FP16_FN __half2 __half2half2(__half a) { return __half2(a, a); }
KESTREL_FP16_FN __half __low2half(__half2 a) { return a.x; }
KESTREL_FP16_FN __half __high2half(__half2 a) { return a.y; }
KESTREL_FP16_FN __half2 __low2half2(__half2 a) { return __half2(a.x, a.x); }
KESTREL_FP16_FN __half2 __high2half2(__half2 a) { return __half2(a.y, a.y); }
KESTREL_FP16_FN __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
KESTREL_FP16_FN __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
KESTREL_FP16_FN __half2 __lowhigh2highlow(__half2 a) { return __half2(a.y, a.x); }

/* ---- Arithmetic (one float operation, one rounding) ------------------------------ */
KESTREL_FP16_FN bool __hisnan(__half a) { return (a.__x & 0x7FFFu) > 0x7C00u; }
KESTREL_FP16_FN int __hisinf(__half a) { return a.__x == 0x7C00u ? 1 : a.__x == 0xFC00u ? -1 : 0; }
KESTREL_FP16_FN __half __kestrel_half_saturate(__half a) {
  // [0, 1]; NaN becomes +0 (CUDA's _sat functions).
  if (__hisnan(a) || (a.__x & 0x8000u)) return __ushort_as_half(0);
  return a.__x > 0x3C00u ? __ushort_as_half(0x3C00u) : a;
}
KESTREL_FP16_FN __half __hadd(__half a, __half b) { return __float2half(__half2float(a) + __half2float(b)); }
KESTREL_FP16_FN __half __hsub(__half a, __half b) { return __float2half(__half2float(a) - __half2float(b)); }
KESTREL_FP16_FN __half __hmul(__half a, __half b) { return __float2half(__half2float(a) * __half2float(b)); }
KESTREL_FP16_FN __half __hdiv(__half a, __half b) { return __float2half(__half2float(a) / __half2float(b)); }
KESTREL_FP16_FN __half __hadd_rn(__half a, __half b) { return __hadd(a, b); }
KESTREL_FP16_FN __half __hsub_rn(__half a, __half b) { return __hsub(a, b); }
KESTREL_FP16_FN __half __hmul_rn(__half a, __half b) { return __hmul(a, b); }
KESTREL_FP16_FN __half __hadd_sat(__half a, __half b) { return __kestrel_half_saturate(__hadd(a, b)); }
KESTREL_FP16_FN __half __hsub_sat(__half a, __half b) { return __kestrel_half_saturate(__hsub(a, b)); }
KESTREL_FP16_FN __half __hmul_sat(__half a, __half b) { return __kestrel_half_saturate(__hmul(a, b)); }
KESTREL_FP16_FN __half __hneg(__half a) { return __ushort_as_half((unsigned short)(a.__x ^ 0x8000u)); }
KESTREL_FP16_FN __half __habs(__half a) { return __ushort_as_half((unsigned short)(a.__x & 0x7FFFu)); }

/* a * b + c rounded once.  The product of two halves (11-bit significands,
 * exponents from -24) is exact in float; the sum's rounding error is
 * recovered exactly (Knuth's TwoSum) and folded into the float sum as a
 * sticky bit (round to odd), after which rounding to half is correct. */
KESTREL_FP16_FN __half __kestrel_half_fma(__half a, __half b, __half c, int mode) {
  const float product = __half2float(a) * __half2float(b), addend = __half2float(c);
  const float sum = product + addend;
  if (sum - sum != 0.0f) return __ushort_as_half(__kestrel_float_to_half_bits(sum, mode));  // inf, NaN
  const float product_part = sum - addend, addend_part = sum - product_part;
  const float error = (product - product_part) + (addend - addend_part);
  unsigned int bits = __builtin_bit_cast(unsigned int, sum);
  if (error != 0.0f && (bits & 1u) == 0) {
    // Exact value lies strictly between sum and its neighbour toward error: take the odd one.
    const bool away_from_zero = (error > 0.0f) == (sum > 0.0f) || sum == 0.0f;
    bits = away_from_zero ? bits + 1 : bits - 1;
    if (sum == 0.0f) bits = (error < 0.0f ? 0x80000000u : 0u) | 1u;
  }
  return __ushort_as_half(__kestrel_float_to_half_bits(__builtin_bit_cast(float, bits), mode));
}
KESTREL_FP16_FN __half __hfma(__half a, __half b, __half c) {
  return __kestrel_half_fma(a, b, c, __kestrel_rn);
}
KESTREL_FP16_FN __half __hfma_sat(__half a, __half b, __half c) {
  return __kestrel_half_saturate(__hfma(a, b, c));
}

/* ---- Comparisons --------------------------------------------------------------------
 * Ordered (__heq, ...) are false when either operand is NaN; the unordered
 * forms (__hequ, ...) are true then. */
#define KESTREL_HALF_COMPARE(name, op)                                                         \
  KESTREL_FP16_FN bool name(__half a, __half b) { return __half2float(a) op __half2float(b); } \
  KESTREL_FP16_FN bool name##u(__half a, __half b) {                                           \
    return __hisnan(a) || __hisnan(b) || (__half2float(a) op __half2float(b));                 \
  }
KESTREL_HALF_COMPARE(__heq, ==)
KESTREL_HALF_COMPARE(__hlt, <)
KESTREL_HALF_COMPARE(__hle, <=)
KESTREL_HALF_COMPARE(__hgt, >)
KESTREL_HALF_COMPARE(__hge, >=)
#undef KESTREL_HALF_COMPARE
KESTREL_FP16_FN bool __hne(__half a, __half b) { return !__hisnan(a) && !__hisnan(b) && !__heq(a, b); }
KESTREL_FP16_FN bool __hneu(__half a, __half b) { return !__heq(a, b); }
/* NaN only if both are NaN (then the canonical NaN); -0 is below +0. */
KESTREL_FP16_FN __half __hmax(__half a, __half b) {
  if (__hisnan(a)) return __hisnan(b) ? CUDART_NAN_FP16 : b;
  if (__hisnan(b)) return a;
  const float fa = __half2float(a), fb = __half2float(b);
  if (fa == fb) return (a.__x & 0x8000u) ? b : a;
  return fa > fb ? a : b;
}
KESTREL_FP16_FN __half __hmin(__half a, __half b) {
  if (__hisnan(a)) return __hisnan(b) ? CUDART_NAN_FP16 : b;
  if (__hisnan(b)) return a;
  const float fa = __half2float(a), fb = __half2float(b);
  if (fa == fb) return (a.__x & 0x8000u) ? a : b;
  return fa < fb ? a : b;
}
/* NaN if either is NaN. */
KESTREL_FP16_FN __half __hmax_nan(__half a, __half b) {
  return __hisnan(a) || __hisnan(b) ? CUDART_NAN_FP16 : __hmax(a, b);
}
KESTREL_FP16_FN __half __hmin_nan(__half a, __half b) {
  return __hisnan(a) || __hisnan(b) ? CUDART_NAN_FP16 : __hmin(a, b);
}

/* ---- Functions (through float; hsqrt, hrcp are correctly rounded) -------------------- */
#define KESTREL_HALF_FUNCTION(name, expression) \
  KESTREL_FP16_FN __half name(__half a) {       \
    const float x = __half2float(a);            \
    return __float2half(expression);            \
  }
KESTREL_HALF_FUNCTION(hsqrt, __builtin_sqrtf(x))
KESTREL_HALF_FUNCTION(hrsqrt, 1.0f / __builtin_sqrtf(x))
KESTREL_HALF_FUNCTION(hrcp, 1.0f / x)
KESTREL_HALF_FUNCTION(hexp, __builtin_expf(x))
KESTREL_HALF_FUNCTION(hexp2, __builtin_exp2f(x))
KESTREL_HALF_FUNCTION(hexp10, __builtin_powf(10.0f, x))
KESTREL_HALF_FUNCTION(hlog, __builtin_logf(x))
KESTREL_HALF_FUNCTION(hlog2, __builtin_log2f(x))
KESTREL_HALF_FUNCTION(hlog10, __builtin_log10f(x))
KESTREL_HALF_FUNCTION(hsin, __builtin_sinf(x))
KESTREL_HALF_FUNCTION(hcos, __builtin_cosf(x))
KESTREL_HALF_FUNCTION(htrunc, __builtin_truncf(x))
KESTREL_HALF_FUNCTION(hfloor, __builtin_floorf(x))
KESTREL_HALF_FUNCTION(hceil, __builtin_ceilf(x))
KESTREL_HALF_FUNCTION(hrint, __builtin_rintf(x))
#undef KESTREL_HALF_FUNCTION

/* ---- __half2: the same, lane by lane ------------------------------------------------- */
#define KESTREL_HALF2_UNARY(name, scalar) \
  KESTREL_FP16_FN __half2 name(__half2 a) { return __half2(scalar(a.x), scalar(a.y)); }
#define KESTREL_HALF2_BINARY(name, scalar) \
  KESTREL_FP16_FN __half2 name(__half2 a, __half2 b) { return __half2(scalar(a.x, b.x), scalar(a.y, b.y)); }
KESTREL_HALF2_BINARY(__hadd2, __hadd)
KESTREL_HALF2_BINARY(__hsub2, __hsub)
KESTREL_HALF2_BINARY(__hmul2, __hmul)
KESTREL_HALF2_BINARY(__h2div, __hdiv)
KESTREL_HALF2_BINARY(__hadd2_rn, __hadd)
KESTREL_HALF2_BINARY(__hsub2_rn, __hsub)
KESTREL_HALF2_BINARY(__hmul2_rn, __hmul)
KESTREL_HALF2_BINARY(__hadd2_sat, __hadd_sat)
KESTREL_HALF2_BINARY(__hsub2_sat, __hsub_sat)
KESTREL_HALF2_BINARY(__hmul2_sat, __hmul_sat)
KESTREL_HALF2_BINARY(__hmax2, __hmax)
KESTREL_HALF2_BINARY(__hmin2, __hmin)
KESTREL_HALF2_BINARY(__hmax2_nan, __hmax_nan)
KESTREL_HALF2_BINARY(__hmin2_nan, __hmin_nan)
KESTREL_HALF2_UNARY(__hneg2, __hneg)
KESTREL_HALF2_UNARY(__habs2, __habs)
KESTREL_HALF2_UNARY(h2sqrt, hsqrt)
KESTREL_HALF2_UNARY(h2rsqrt, hrsqrt)
KESTREL_HALF2_UNARY(h2rcp, hrcp)
KESTREL_HALF2_UNARY(h2exp, hexp)
KESTREL_HALF2_UNARY(h2exp2, hexp2)
KESTREL_HALF2_UNARY(h2exp10, hexp10)
KESTREL_HALF2_UNARY(h2log, hlog)
KESTREL_HALF2_UNARY(h2log2, hlog2)
KESTREL_HALF2_UNARY(h2log10, hlog10)
KESTREL_HALF2_UNARY(h2sin, hsin)
KESTREL_HALF2_UNARY(h2cos, hcos)
KESTREL_HALF2_UNARY(h2trunc, htrunc)
KESTREL_HALF2_UNARY(h2floor, hfloor)
KESTREL_HALF2_UNARY(h2ceil, hceil)
KESTREL_HALF2_UNARY(h2rint, hrint)
#undef KESTREL_HALF2_UNARY
#undef KESTREL_HALF2_BINARY
KESTREL_FP16_FN __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
KESTREL_FP16_FN __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
/* Each lane 1.0 where the comparison holds, else 0.0 (__h*2); true when it
 * holds in both lanes (__hb*2); all ones per lane where it holds (__h*2_mask). */
#define KESTREL_HALF2_COMPARE(name, scalar)                                                                 \
  KESTREL_FP16_FN __half2 __h##name##2(__half2 a, __half2 b) {                                              \
    return __half2(__ushort_as_half(scalar(a.x, b.x) ? 0x3C00u : 0u),                                       \
                   __ushort_as_half(scalar(a.y, b.y) ? 0x3C00u : 0u));                                      \
  }                                                                                                         \
  KESTREL_FP16_FN bool __hb##name##2(__half2 a, __half2 b) { return scalar(a.x, b.x) && scalar(a.y, b.y); } \
  KESTREL_FP16_FN unsigned int __h##name##2_mask(__half2 a, __half2 b) {                                    \
    return (scalar(a.x, b.x) ? 0xFFFFu : 0u) | (scalar(a.y, b.y) ? 0xFFFF0000u : 0u);                       \
  }
KESTREL_HALF2_COMPARE(eq, __heq)
KESTREL_HALF2_COMPARE(ne, __hne)
KESTREL_HALF2_COMPARE(lt, __hlt)
KESTREL_HALF2_COMPARE(le, __hle)
KESTREL_HALF2_COMPARE(gt, __hgt)
KESTREL_HALF2_COMPARE(ge, __hge)
KESTREL_HALF2_COMPARE(equ, __hequ)
KESTREL_HALF2_COMPARE(neu, __hneu)
KESTREL_HALF2_COMPARE(ltu, __hltu)
KESTREL_HALF2_COMPARE(leu, __hleu)
KESTREL_HALF2_COMPARE(gtu, __hgtu)
KESTREL_HALF2_COMPARE(geu, __hgeu)
#undef KESTREL_HALF2_COMPARE
KESTREL_FP16_FN __half2 __hisnan2(__half2 a) {
  return __half2(__ushort_as_half(__hisnan(a.x) ? 0x3C00u : 0u),
                 __ushort_as_half(__hisnan(a.y) ? 0x3C00u : 0u));
}

/* ---- C++ operators ----------------------------------------------------------------------
 * As in CUDA, `h + 1.0f` is ambiguous (the half converts to float and the
 * float to half); write __float2half(1.0f) or convert the half.  CUDA's
 * __CUDA_NO_HALF_OPERATORS__ and __CUDA_NO_HALF2_OPERATORS__ leave them out. */
#if !defined(__CUDA_NO_HALF_OPERATORS__)
KESTREL_FP16_FN __half operator+(const __half& a, const __half& b) { return __hadd(a, b); }
KESTREL_FP16_FN __half operator-(const __half& a, const __half& b) { return __hsub(a, b); }
KESTREL_FP16_FN __half operator*(const __half& a, const __half& b) { return __hmul(a, b); }
KESTREL_FP16_FN __half operator/(const __half& a, const __half& b) { return __hdiv(a, b); }
KESTREL_FP16_FN __half& operator+=(__half& a, const __half& b) { return a = __hadd(a, b); }
KESTREL_FP16_FN __half& operator-=(__half& a, const __half& b) { return a = __hsub(a, b); }
KESTREL_FP16_FN __half& operator*=(__half& a, const __half& b) { return a = __hmul(a, b); }
KESTREL_FP16_FN __half& operator/=(__half& a, const __half& b) { return a = __hdiv(a, b); }
KESTREL_FP16_FN __half operator+(const __half& a) { return a; }
KESTREL_FP16_FN __half operator-(const __half& a) { return __hneg(a); }
KESTREL_FP16_FN __half& operator++(__half& a) { return a = __hadd(a, CUDART_ONE_FP16); }
KESTREL_FP16_FN __half& operator--(__half& a) { return a = __hsub(a, CUDART_ONE_FP16); }
KESTREL_FP16_FN __half operator++(__half& a, int) {
  const __half old = a;
  ++a;
  return old;
}
KESTREL_FP16_FN __half operator--(__half& a, int) {
  const __half old = a;
  --a;
  return old;
}
KESTREL_FP16_FN bool operator==(const __half& a, const __half& b) { return __heq(a, b); }
KESTREL_FP16_FN bool operator!=(const __half& a, const __half& b) { return __hneu(a, b); }
KESTREL_FP16_FN bool operator<(const __half& a, const __half& b) { return __hlt(a, b); }
KESTREL_FP16_FN bool operator<=(const __half& a, const __half& b) { return __hle(a, b); }
KESTREL_FP16_FN bool operator>(const __half& a, const __half& b) { return __hgt(a, b); }
KESTREL_FP16_FN bool operator>=(const __half& a, const __half& b) { return __hge(a, b); }

#endif /* __CUDA_NO_HALF_OPERATORS__ */

#if !defined(__CUDA_NO_HALF2_OPERATORS__)
KESTREL_FP16_FN __half2 operator+(const __half2& a, const __half2& b) { return __hadd2(a, b); }
KESTREL_FP16_FN __half2 operator-(const __half2& a, const __half2& b) { return __hsub2(a, b); }
KESTREL_FP16_FN __half2 operator*(const __half2& a, const __half2& b) { return __hmul2(a, b); }
KESTREL_FP16_FN __half2 operator/(const __half2& a, const __half2& b) { return __h2div(a, b); }
KESTREL_FP16_FN __half2& operator+=(__half2& a, const __half2& b) { return a = __hadd2(a, b); }
KESTREL_FP16_FN __half2& operator-=(__half2& a, const __half2& b) { return a = __hsub2(a, b); }
KESTREL_FP16_FN __half2& operator*=(__half2& a, const __half2& b) { return a = __hmul2(a, b); }
KESTREL_FP16_FN __half2& operator/=(__half2& a, const __half2& b) { return a = __h2div(a, b); }
KESTREL_FP16_FN __half2 operator+(const __half2& a) { return a; }
KESTREL_FP16_FN __half2 operator-(const __half2& a) { return __hneg2(a); }
KESTREL_FP16_FN bool operator==(const __half2& a, const __half2& b) { return __hbeq2(a, b); }
KESTREL_FP16_FN bool operator!=(const __half2& a, const __half2& b) { return __hbneu2(a, b); }
KESTREL_FP16_FN bool operator<(const __half2& a, const __half2& b) { return __hblt2(a, b); }
KESTREL_FP16_FN bool operator<=(const __half2& a, const __half2& b) { return __hble2(a, b); }
KESTREL_FP16_FN bool operator>(const __half2& a, const __half2& b) { return __hbgt2(a, b); }
KESTREL_FP16_FN bool operator>=(const __half2& a, const __half2& b) { return __hbge2(a, b); }

#endif /* __CUDA_NO_HALF2_OPERATORS__ */

/* ---- Warp shuffles (guide B.14) on __half and __half2 ---------------------------------
 * Device code only: the bits travel as a 32-bit word through the SDK's
 * shuffles (kestrel_warp.h). */
#if defined(__CUDA__)
#define KESTREL_HALF_SHUFFLE(name, operand_type)                                                           \
  static __device__ __forceinline__ __half name(unsigned int mask, __half var, operand_type operand,       \
                                                int width = warpSize) {                                    \
    return __ushort_as_half((unsigned short)name(mask, (unsigned int)var.__x, operand, width));            \
  }                                                                                                        \
  static __device__ __forceinline__ __half2 name(unsigned int mask, __half2 var, operand_type operand,     \
                                                 int width = warpSize) {                                   \
    return __builtin_bit_cast(__half2, name(mask, __builtin_bit_cast(unsigned int, var), operand, width)); \
  }
KESTREL_HALF_SHUFFLE(__shfl_sync, int)
KESTREL_HALF_SHUFFLE(__shfl_up_sync, unsigned int)
KESTREL_HALF_SHUFFLE(__shfl_down_sync, unsigned int)
KESTREL_HALF_SHUFFLE(__shfl_xor_sync, int)
#undef KESTREL_HALF_SHUFFLE

/* ---- atomicAdd on __half and __half2 (guide B.12.1.1; compute capability
 * 7.0 and 6.0 in CUDA) ----------------------------------------------------------
 * A compare-and-swap loop on the half's 16 bits or the pair's 32 bits: each
 * half is rounded once, as a sequence of __hadd in some order would be. */
static __device__ __forceinline__ __half atomicAdd(__half* address, __half val) {
  unsigned short* const word = reinterpret_cast<unsigned short*>(address);
  unsigned short old = *(volatile unsigned short*)word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, __half_as_ushort(__hadd(__ushort_as_half(assumed), val)));
  } while (old != assumed);
  return __ushort_as_half(old);
}
static __device__ __forceinline__ __half2 atomicAdd(__half2* address, __half2 val) {
  unsigned int* const word = reinterpret_cast<unsigned int*>(address);
  unsigned int old = *(volatile unsigned int*)word, assumed;
  do {
    assumed = old;
    const __half2 sum = __hadd2(__builtin_bit_cast(__half2, assumed), val);
    old = atomicCAS(word, assumed, __builtin_bit_cast(unsigned int, sum));
  } while (old != assumed);
  return __builtin_bit_cast(__half2, old);
}
#endif

#endif /* KESTREL_CUDA_FP16_H */
