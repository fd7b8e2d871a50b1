/* CUDA's fast math intrinsics (guide appendix D.2) on Kestrel's special-
 * function unit: the kx.sfu instructions (docs/isa.md section 2, abi.h
 * KESTREL_F3_SFU) approximate 1/x, 1/sqrt(x), 2^x, log2(x), sin(x) and
 * cos(x); the intrinsics below combine them with ordinary F instructions.
 * docs/fpu.md gives the error of each, measured against D.2's bounds by
 * tests/rtl/fpu/test_sfu.cpp (which evaluates these same compositions).
 * kestrel_cuda.h includes this header last: CUDA's names, some of which it
 * first maps to picolibc, are redefined here to the fast forms. */
#ifndef KESTREL_FAST_MATH_H
#define KESTREL_FAST_MATH_H

/* kx.sfu: .insn r KESTREL_INSN_SIMT(SFU, SFU_<function>), frd, frs1, x0; the
 * function is abi.h's KESTREL_F7_SFU_<function>. */
#if KESTREL_DEVICE_PASS
#define KESTREL_SFU_DEFINE(name, funct7, host_form)                              \
  static __device__ __forceinline__ float name(float x) {                        \
    float result;                                                                \
    __asm__(".insn r " KESTREL_INSN_SIMT(SFU, funct7) ", %0, %1, x0" : "=f"(result) : "f"(x)); \
    return result;                                                               \
  }
#else
/* The host pass never runs device code; it only has to parse it. */
#define KESTREL_SFU_DEFINE(name, funct7, host_form) \
  static __device__ __forceinline__ float name(float x) { return host_form; }
#endif
KESTREL_SFU_DEFINE(__kestrel_sfu_rcp, SFU_RCP, 1.0f / x)
KESTREL_SFU_DEFINE(__kestrel_sfu_rsqrt, SFU_RSQRT, 1.0f / sqrtf(x))
KESTREL_SFU_DEFINE(__kestrel_sfu_ex2, SFU_EX2, exp2f(x))
KESTREL_SFU_DEFINE(__kestrel_sfu_lg2, SFU_LG2, log2f(x))
KESTREL_SFU_DEFINE(__kestrel_sfu_sin, SFU_SIN, sinf(x))
KESTREL_SFU_DEFINE(__kestrel_sfu_cos, SFU_COS, cosf(x))
#undef KESTREL_SFU_DEFINE

/* 2^(x * c) with c = c_hi + c_lo: the rounding error of x * c_hi, recovered
 * exactly by an fma, corrects the ex2 result to first order.  Without it
 * __expf would exceed D.2's 2 + floor(|1.16 x|) ulp by up to 0.12 ulp. */
static __device__ __forceinline__ float __kestrel_fast_exp_scaled(float x, float c_hi, float c_lo) {
  const float hi = x * c_hi;
  const float lo = __builtin_fmaf(x, c_lo, __builtin_fmaf(x, c_hi, -hi));
  const float e = __kestrel_sfu_ex2(hi);
  return __builtin_fmaf(e, lo * 0.693147181f, e);
}

static __device__ __forceinline__ float __kestrel_fast_expf(float x) {
  return __kestrel_fast_exp_scaled(x, 1.44269502f, 1.92596303e-08f); /* log2(e) */
}
static __device__ __forceinline__ float __kestrel_fast_exp10f(float x) {
  return __kestrel_fast_exp_scaled(x, 3.32192802f, 7.05953696e-08f); /* log2(10) */
}
static __device__ __forceinline__ float __kestrel_fast_exp2f(float x) { return __kestrel_sfu_ex2(x); }
static __device__ __forceinline__ float __kestrel_fast_log2f(float x) { return __kestrel_sfu_lg2(x); }
static __device__ __forceinline__ float __kestrel_fast_logf(float x) { return __kestrel_sfu_lg2(x) * 0.693147181f; }
static __device__ __forceinline__ float __kestrel_fast_log10f(float x) { return __kestrel_sfu_lg2(x) * 0.301030010f; }
static __device__ __forceinline__ float __kestrel_fast_sinf(float x) { return __kestrel_sfu_sin(x); }
static __device__ __forceinline__ float __kestrel_fast_cosf(float x) { return __kestrel_sfu_cos(x); }
static __device__ __forceinline__ void __kestrel_fast_sincosf(float x, float* s, float* c) {
  *s = __kestrel_sfu_sin(x);
  *c = __kestrel_sfu_cos(x);
}
/* D.2: derived from sin(x) * (1 / cos(x)). */
static __device__ __forceinline__ float __kestrel_fast_tanf(float x) {
  return __kestrel_sfu_sin(x) * __kestrel_sfu_rcp(__kestrel_sfu_cos(x));
}
/* D.2: derived from exp2(y * log2(x)). */
static __device__ __forceinline__ float __kestrel_fast_powf(float x, float y) {
  return __kestrel_sfu_ex2(y * __kestrel_sfu_lg2(x));
}
/* x * (1/y): 2 ulp for y in [2^-126, 2^126]; 1/y is 0 for larger |y| only
 * where it is below the smallest subnormal. */
static __device__ __forceinline__ float __kestrel_fast_fdividef(float x, float y) {
  return x * __kestrel_sfu_rcp(y);
}
static __device__ __forceinline__ float __kestrel_fast_rsqrtf(float x) { return __kestrel_sfu_rsqrt(x); }

/* CUDA's names.  Macros, because glibc declares several of them itself and
 * kestrel_cuda.h defined some earlier (through picolibc). */
#undef __expf
#undef __logf
#undef __sinf
#undef __cosf
#undef __powf
#define __expf __kestrel_fast_expf
#define __exp10f __kestrel_fast_exp10f
#define __logf __kestrel_fast_logf
#define __log2f __kestrel_fast_log2f
#define __log10f __kestrel_fast_log10f
#define __sinf __kestrel_fast_sinf
#define __cosf __kestrel_fast_cosf
#define __sincosf __kestrel_fast_sincosf
#define __tanf __kestrel_fast_tanf
#define __powf __kestrel_fast_powf
#define __fdividef(x, y) __kestrel_fast_fdividef((x), (y))
#define rsqrtf(x) __kestrel_fast_rsqrtf(x)

#endif /* KESTREL_FAST_MATH_H */
