/* The Kestrel device SDK: what a CUDA kernel expects to find without including
 * anything (kestrel-cc force-includes this header, as nvcc does with
 * cuda_runtime.h).  Sections of NVIDIA's CUDA C Programming Guide v8.0 are
 * cited as "guide X.Y"; docs/isa.md defines the instructions and CSRs used
 * here; docs/programming-guide.md is the user's page.
 *
 * The header serves three compilations of a .cu file:
 *   * a device module (`kestrel-cc -o k.kmod`): RISC-V, picolibc's headers;
 *   * the device pass of a whole program (`kestrel-cc -o app`): RISC-V, but
 *     with the host's C and C++ library headers, so that the host code in the
 *     file parses as it does for the host (kestrel-cc defines
 *     __KESTREL_WHOLE_PROGRAM__; this is how clang compiles CUDA for NVIDIA);
 *   * the host pass of a whole program: x86-64, no __CUDA_ARCH__.
 * Device and host passes see the same declarations, so kernels have the same
 * signatures on both sides. */
#ifndef KESTREL_CUDA_H
#define KESTREL_CUDA_H

#if !defined(__CUDA__)
#error "kestrel_cuda.h is for CUDA sources compiled by kestrel-cc"
#endif
#if defined(__riscv)
#define KESTREL_DEVICE_PASS 1
#else
#define KESTREL_DEVICE_PASS 0
#endif
#if !KESTREL_DEVICE_PASS || defined(__KESTREL_WHOLE_PROGRAM__)
#define KESTREL_HOST_HEADERS 1
#else
#define KESTREL_HOST_HEADERS 0
#endif

#include "kestrel/abi.h"

#define __KESTREL__ 1
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
/* Kestrel schedules threads independently with a forward-progress guarantee,
 * as compute capability 7.0 does (docs/isa.md section 6), so code that selects
 * a path by __CUDA_ARCH__ takes the 7.0 one.  Only the device pass defines it:
 * host code tells the two passes apart by it (guide B.1.5 / 3.1.4). */
#if KESTREL_DEVICE_PASS && !defined(__CUDA_ARCH__)
#define __CUDA_ARCH__ 700
#endif

/* ---- Function and variable qualifiers (guide B.1, B.2) ----------------------
 * The "kestrel.kernel" annotation lists every kernel in the IR's
 * llvm.global.annotations, which is how kestrel-cc finds the kernels to make
 * entry trampolines for; "kestrel.const" and "kestrel.managed" tell it which
 * variables to place in sections .kestrel.const and .kestrel.managed (a
 * section attribute here would clash between const and non-const variables of
 * one file, and would place the host pass's shadows too). */
#define __global__ __attribute__((global)) __attribute__((annotate("kestrel.kernel")))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant)) __attribute__((annotate("kestrel.const")))
/* A __managed__ variable (guide J.2.2.3) is a __device__ variable that
 * kestrel-cc places in section .kestrel.managed; the runtime finds it there
 * and makes its host shadow the variable's host copy, handed to the device
 * for each launch and back when the launch ends (docs/cuda-runtime.md,
 * "Managed memory").  clang ignores CUDA's own managed attribute outside HIP. */
#define __managed__ __attribute__((device)) __attribute__((annotate("kestrel.managed")))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
/* Occupancy hints only: Kestrel has no register file to partition. */
#define __launch_bounds__(...)
#define __restrict__ __restrict
/* A const kernel parameter whose address may be taken (CUDA 11.7, compute
 * capability 7.0).  A Kestrel kernel's parameters are read-only copies in its
 * launch's parameter buffer, so every const parameter already is one. */
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
#define __device_builtin__

/* ---- C library (picolibc) ---------------------------------------------------
 * Declarations of the C library are callable from device code (it is the only
 * code there is), so they are compiled as __host__ __device__.
 * picolibc's <machine/math.h> adds GNU-inline RISC-V versions of fminf,
 * sqrtf, ... whose signalling-NaN test goes through 128-bit long double, which
 * CUDA device code rejects; without them clang turns those calls into the
 * same single instructions (fmin.s, fsqrt.s) by itself. */
#if KESTREL_HOST_HEADERS
/* The host's C library (glibc), its C headers alone: libstdc++'s <math.h>
 * wrapper would pull in the whole C++ library, whose templates must stay
 * host functions.  The device pass links picolibc, whose functions have the
 * same C names and, on LP64, the same types.  libstdc++'s own float
 * overloads (std::sin(float), std::fmin(float, float), ...) are constexpr,
 * which clang already treats as __host__ __device__. */
#pragma push_macro("_GLIBCXX_INCLUDE_NEXT_C_HEADERS")
#define _GLIBCXX_INCLUDE_NEXT_C_HEADERS 1
#pragma clang force_cuda_host_device begin
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#pragma clang force_cuda_host_device end
#pragma pop_macro("_GLIBCXX_INCLUDE_NEXT_C_HEADERS")
#include <cmath>
#include <cstdlib>
#else
#pragma push_macro("__GNUC_STDC_INLINE__")
#pragma push_macro("__GNUC_GNU_INLINE__")
#undef __GNUC_STDC_INLINE__
#undef __GNUC_GNU_INLINE__
#pragma clang force_cuda_host_device begin
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#pragma clang force_cuda_host_device end
#pragma pop_macro("__GNUC_GNU_INLINE__")
#pragma pop_macro("__GNUC_STDC_INLINE__")
#endif
#include <sys/types.h> /* clock_t */

#include "kestrel/cuda/kestrel_vector_types.h"

/* ---- CSR access --------------------------------------------------------------
 * KESTREL_READ_CSR(TID_X) reads KESTREL_CSR_TID_X; the number goes into the
 * instruction text from kestrel/abi.h's assembler form. */
#define KESTREL_READ_CSR(name)                                                  \
  __extension__({                                                               \
    unsigned long kestrel_csr_value_;                                           \
    __asm__("csrr %0, " KESTREL_STR(KESTREL_CSR_##name##_INSN) : "=r"(kestrel_csr_value_)); \
    kestrel_csr_value_;                                                         \
  })

/* ---- Built-in variables (guide B.4) -------------------------------------------
 * threadIdx.x and friends are properties: reading one executes `csrr`, and
 * the expression has type unsigned int, so it works in templates, varargs and
 * `auto` exactly as on CUDA.  The objects convert to uint3/dim3 as a whole.
 * Every accessor is static and always inlined, so the objects themselves are
 * never referenced by the generated code. */
#define KESTREL_BUILTIN_VARIABLE(type_name, var_name, csr_x, csr_y, csr_z)                  \
  struct type_name {                                                                                  \
    static __device__ __forceinline__ unsigned int kestrel_x() { return (unsigned)KESTREL_READ_CSR(csr_x); } \
    static __device__ __forceinline__ unsigned int kestrel_y() { return (unsigned)KESTREL_READ_CSR(csr_y); } \
    static __device__ __forceinline__ unsigned int kestrel_z() { return (unsigned)KESTREL_READ_CSR(csr_z); } \
    __declspec(property(get = kestrel_x)) unsigned int x;                                             \
    __declspec(property(get = kestrel_y)) unsigned int y;                                             \
    __declspec(property(get = kestrel_z)) unsigned int z;                                             \
    __device__ __forceinline__ operator uint3() const { return uint3{kestrel_x(), kestrel_y(), kestrel_z()}; } \
    __device__ __forceinline__ operator dim3() const { return dim3(kestrel_x(), kestrel_y(), kestrel_z()); } \
    type_name* operator&() const = delete;                                                           \
    void operator=(const type_name&) const = delete;                                                 \
  };                                                                                                  \
  static const __device__ type_name var_name = {};

KESTREL_BUILTIN_VARIABLE(kestrel_builtin_threadIdx_t, threadIdx, TID_X, TID_Y, TID_Z)
KESTREL_BUILTIN_VARIABLE(kestrel_builtin_blockIdx_t, blockIdx, CTAID_X, CTAID_Y, CTAID_Z)
KESTREL_BUILTIN_VARIABLE(kestrel_builtin_blockDim_t, blockDim, NTID_X, NTID_Y, NTID_Z)
KESTREL_BUILTIN_VARIABLE(kestrel_builtin_gridDim_t, gridDim, NCTAID_X, NCTAID_Y, NCTAID_Z)
#undef KESTREL_BUILTIN_VARIABLE

/* warpSize is an int (guide B.4.5); Kestrel's is 32 unless the device was
 * configured with 4 or 8 lanes, so it is read from the warpsize CSR. */
struct kestrel_builtin_warpSize_t {
  __device__ __forceinline__ operator int() const { return (int)KESTREL_READ_CSR(WARPSIZE); }
};
static const __device__ kestrel_builtin_warpSize_t warpSize = {};

/* Kestrel-specific thread facts (docs/isa.md section 3). */
static __device__ __forceinline__ unsigned int __kestrel_lane_id() { return (unsigned)KESTREL_READ_CSR(LANEID); }
static __device__ __forceinline__ unsigned int __kestrel_warp_id() { return (unsigned)KESTREL_READ_CSR(WARPID); }
static __device__ __forceinline__ unsigned int __kestrel_sm_id() { return (unsigned)KESTREL_READ_CSR(SMID); }

/* ---- Synchronization (guide B.6) and fences (B.5) ------------------------------
 * custom-0 instructions of docs/isa.md section 2.  The "memory" clobber keeps
 * the compiler from moving loads and stores across them, which is what makes
 * writes before __syncthreads() visible after it. */
static __device__ __forceinline__ void __syncthreads() {
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, BAR_SYNC) ", x0, x0, x0" ::: "memory");
}
static __device__ __forceinline__ int __syncthreads_count(int predicate) {
  int result;
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, BAR_COUNT) ", %0, %1, x0" : "=r"(result) : "r"(predicate) : "memory");
  return result;
}
static __device__ __forceinline__ int __syncthreads_and(int predicate) {
  int result;
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, BAR_AND) ", %0, %1, x0" : "=r"(result) : "r"(predicate) : "memory");
  return result;
}
static __device__ __forceinline__ int __syncthreads_or(int predicate) {
  int result;
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, BAR_OR) ", %0, %1, x0" : "=r"(result) : "r"(predicate) : "memory");
  return result;
}
static __device__ __forceinline__ void __threadfence_block() {
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, FENCE_BLOCK) ", x0, x0, x0" ::: "memory");
}
static __device__ __forceinline__ void __threadfence() {
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, FENCE_DEVICE) ", x0, x0, x0" ::: "memory");
}
static __device__ __forceinline__ void __threadfence_system() {
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, FENCE_SYSTEM) ", x0, x0, x0" ::: "memory");
}

/* ---- Ending threads and launches ------------------------------------------------ */
/* The calling thread exits now, as if its kernel had returned (kx.exit). */
static __device__ __forceinline__ __attribute__((noreturn)) void __kestrel_thread_exit() {
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, EXIT) ", x0, x0, x0" ::: "memory");
  __builtin_unreachable();
}
/* Stops the launch with a TRAP fault (kx.trap, code KESTREL_TRAP_USER). */
static __device__ __forceinline__ __attribute__((noreturn)) void __trap() {
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, TRAP) ", x0, x0, x0" ::: "memory");
  __builtin_unreachable();
}
#include "kestrel_warp.h"
/* Both passes: the host pass checks kernel bodies too, so it must see the
 * device printf; only the device pass emits it. */
#include "kestrel_printf.h"
#include <assert.h> /* the SDK's assert.h: assert() stops the launch with ASSERT */
#if KESTREL_HOST_HEADERS
/* In both passes of a whole program assert() is the host C library's, which
 * calls its host function __assert_fail (sw_kernels/sdk/include/assert.h).
 * This __device__ overload is what device code (and the device side of a
 * __host__ __device__ function) calls instead: CUDA overloads by target
 * (clang's __clang_cuda_runtime_wrapper.h does the same), so host functions,
 * among them host-only inline functions of the headers a .cu file includes,
 * keep the host's assert in the device pass too, where they are parsed but
 * never emitted.  The host pass never emits device code. */
static __device__ __forceinline__ __attribute__((noreturn)) void __assert_fail(const char* expression,
                                                                              const char* file,
                                                                              unsigned int line,
                                                                              const char* function) {
#if KESTREL_DEVICE_PASS
  __kestrel_assert_fail(expression, file, line, function);
#else
  (void)expression, (void)file, (void)line, (void)function;
  __builtin_trap();
#endif
}
#endif

/* ---- Time (guide B.11) ------------------------------------------------------------
 * The cycle CSR counts SM clocks (docs/isa.md section 3). */
static __device__ __forceinline__ long long int clock64() {
#if __riscv_xlen == 64
  unsigned long cycles;
  __asm__ volatile("csrr %0, cycle" : "=r"(cycles));
  return (long long int)cycles;
#else
  /* Re-read until the high half is stable so a carry between the two reads
   * cannot produce a value 2^32 off. */
  unsigned int high, low, high_again;
  do {
    __asm__ volatile("csrr %0, cycleh" : "=r"(high));
    __asm__ volatile("csrr %0, cycle" : "=r"(low));
    __asm__ volatile("csrr %0, cycleh" : "=r"(high_again));
  } while (high != high_again);
  return (long long int)(((unsigned long long)high << 32) | low);
#endif
}
static __device__ __forceinline__ clock_t clock() { return (clock_t)clock64(); }

/* ---- min/max (CUDA's overload set, usual arithmetic conversions) ------------------ */
#define KESTREL_MIN_MAX(T)                                                            \
  __host__ __device__ __forceinline__ T min(T a, T b) { return b < a ? b : a; }      \
  __host__ __device__ __forceinline__ T max(T a, T b) { return a < b ? b : a; }
KESTREL_MIN_MAX(int)
KESTREL_MIN_MAX(unsigned int)
KESTREL_MIN_MAX(long)
KESTREL_MIN_MAX(unsigned long)
KESTREL_MIN_MAX(long long)
KESTREL_MIN_MAX(unsigned long long)
#undef KESTREL_MIN_MAX
/* Mixed signedness compares as unsigned, as CUDA's overloads do. */
#define KESTREL_MIN_MAX_MIXED(S, U)                                                                     \
  __host__ __device__ __forceinline__ U min(S a, U b) { return min((U)a, b); }                          \
  __host__ __device__ __forceinline__ U min(U a, S b) { return min(a, (U)b); }                          \
  __host__ __device__ __forceinline__ U max(S a, U b) { return max((U)a, b); }                          \
  __host__ __device__ __forceinline__ U max(U a, S b) { return max(a, (U)b); }
KESTREL_MIN_MAX_MIXED(int, unsigned int)
KESTREL_MIN_MAX_MIXED(long, unsigned long)
KESTREL_MIN_MAX_MIXED(long long, unsigned long long)
#undef KESTREL_MIN_MAX_MIXED
__host__ __device__ __forceinline__ float min(float a, float b) { return fminf(a, b); }
__host__ __device__ __forceinline__ float max(float a, float b) { return fmaxf(a, b); }
__host__ __device__ __forceinline__ double min(double a, double b) { return fmin(a, b); }
__host__ __device__ __forceinline__ double max(double a, double b) { return fmax(a, b); }
__host__ __device__ __forceinline__ double min(float a, double b) { return fmin(a, b); }
__host__ __device__ __forceinline__ double min(double a, float b) { return fmin(a, b); }
__host__ __device__ __forceinline__ double max(float a, double b) { return fmax(a, b); }
__host__ __device__ __forceinline__ double max(double a, float b) { return fmax(a, b); }

/* ---- C++ float overloads of <math.h> (sqrt(1.0f) is a float, as in <cmath>) -----
 * With the host's headers they are libstdc++'s, brought into the global
 * namespace as libstdc++'s own <math.h> does (so the two never clash). */
#if KESTREL_HOST_HEADERS
using std::abs;
using std::acos;
using std::asin;
using std::atan;
using std::atan2;
using std::cbrt;
using std::ceil;
using std::copysign;
using std::cos;
using std::cosh;
using std::exp;
using std::exp2;
using std::expm1;
using std::fabs;
using std::floor;
using std::fmax;
using std::fmin;
using std::fmod;
using std::hypot;
using std::log;
using std::log10;
using std::log1p;
using std::log2;
using std::pow;
using std::round;
using std::sin;
using std::sinh;
using std::sqrt;
using std::tan;
using std::tanh;
using std::trunc;
#else
#define KESTREL_FLOAT_OVERLOAD_1(name) \
  __host__ __device__ __forceinline__ float name(float x) { return name##f(x); }
#define KESTREL_FLOAT_OVERLOAD_2(name) \
  __host__ __device__ __forceinline__ float name(float x, float y) { return name##f(x, y); }
KESTREL_FLOAT_OVERLOAD_1(sin)
KESTREL_FLOAT_OVERLOAD_1(cos)
KESTREL_FLOAT_OVERLOAD_1(tan)
KESTREL_FLOAT_OVERLOAD_1(asin)
KESTREL_FLOAT_OVERLOAD_1(acos)
KESTREL_FLOAT_OVERLOAD_1(atan)
KESTREL_FLOAT_OVERLOAD_1(sinh)
KESTREL_FLOAT_OVERLOAD_1(cosh)
KESTREL_FLOAT_OVERLOAD_1(tanh)
KESTREL_FLOAT_OVERLOAD_1(exp)
KESTREL_FLOAT_OVERLOAD_1(exp2)
KESTREL_FLOAT_OVERLOAD_1(expm1)
KESTREL_FLOAT_OVERLOAD_1(log)
KESTREL_FLOAT_OVERLOAD_1(log2)
KESTREL_FLOAT_OVERLOAD_1(log10)
KESTREL_FLOAT_OVERLOAD_1(log1p)
KESTREL_FLOAT_OVERLOAD_1(sqrt)
KESTREL_FLOAT_OVERLOAD_1(cbrt)
KESTREL_FLOAT_OVERLOAD_1(fabs)
KESTREL_FLOAT_OVERLOAD_1(floor)
KESTREL_FLOAT_OVERLOAD_1(ceil)
KESTREL_FLOAT_OVERLOAD_1(trunc)
KESTREL_FLOAT_OVERLOAD_1(round)
KESTREL_FLOAT_OVERLOAD_2(pow)
KESTREL_FLOAT_OVERLOAD_2(atan2)
KESTREL_FLOAT_OVERLOAD_2(fmod)
KESTREL_FLOAT_OVERLOAD_2(fmin)
KESTREL_FLOAT_OVERLOAD_2(fmax)
KESTREL_FLOAT_OVERLOAD_2(hypot)
KESTREL_FLOAT_OVERLOAD_2(copysign)
#undef KESTREL_FLOAT_OVERLOAD_2
#undef KESTREL_FLOAT_OVERLOAD_1
__host__ __device__ __forceinline__ float abs(float x) { return fabsf(x); }
__host__ __device__ __forceinline__ double abs(double x) { return fabs(x); }
__host__ __device__ __forceinline__ long abs(long x) { return labs(x); }
__host__ __device__ __forceinline__ long long abs(long long x) { return llabs(x); }
#endif /* KESTREL_HOST_HEADERS */

/* ---- CUDA intrinsics with a direct RISC-V/libm equivalent ---------------------- */
static __device__ __forceinline__ float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static __device__ __forceinline__ float __fdividef(float x, float y) { return x / y; }
/* glibc declares __expf, __logf, ... as its own internal names, so CUDA's fast
 * intrinsics of those names are macros for Kestrel functions. */
static __device__ __forceinline__ float __kestrel_expf(float x) { return expf(x); }
static __device__ __forceinline__ float __kestrel_logf(float x) { return logf(x); }
static __device__ __forceinline__ float __kestrel_sinf(float x) { return sinf(x); }
static __device__ __forceinline__ float __kestrel_cosf(float x) { return cosf(x); }
static __device__ __forceinline__ float __kestrel_powf(float x, float y) { return powf(x, y); }
#define __expf __kestrel_expf
#define __logf __kestrel_logf
#define __sinf __kestrel_sinf
#define __cosf __kestrel_cosf
#define __powf __kestrel_powf
static __device__ __forceinline__ float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static __device__ __forceinline__ int __popc(unsigned int x) { return __builtin_popcount(x); }
static __device__ __forceinline__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static __device__ __forceinline__ int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static __device__ __forceinline__ int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
static __device__ __forceinline__ int __ffs(int x) { return __builtin_ffs(x); }
static __device__ __forceinline__ int __ffsll(long long x) { return __builtin_ffsll(x); }
static __device__ __forceinline__ unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
static __device__ __forceinline__ unsigned long long __brevll(unsigned long long x) {
  return __builtin_bitreverse64(x);
}
/* The low 24 bits of each operand, sign-extended, multiplied; the low 32
 * bits of the product (computed unsigned: the wrap is CUDA's, not UB). */
static __device__ __forceinline__ int __mul24(int x, int y) {
  const int x24 = (int)((unsigned int)x << 8) >> 8, y24 = (int)((unsigned int)y << 8) >> 8;
  return (int)((unsigned int)x24 * (unsigned int)y24);
}
static __device__ __forceinline__ unsigned int __umul24(unsigned int x, unsigned int y) {
  return (x & 0xFFFFFFu) * (y & 0xFFFFFFu);
}
static __device__ __forceinline__ int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
static __device__ __forceinline__ unsigned int __umulhi(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x * y) >> 32);
}
/* High 64 bits of a 128-bit product from 32-bit halves (RV32 has no 128-bit type). */
static __device__ __forceinline__ unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  const unsigned long long x_lo = (unsigned int)x, x_hi = x >> 32, y_lo = (unsigned int)y, y_hi = y >> 32;
  const unsigned long long low = x_lo * y_lo, mid1 = x_hi * y_lo, mid2 = x_lo * y_hi;
  const unsigned long long carry = ((low >> 32) + (unsigned int)mid1 + (unsigned int)mid2) >> 32;
  return x_hi * y_hi + (mid1 >> 32) + (mid2 >> 32) + carry;
}
static __device__ __forceinline__ long long __mul64hi(long long x, long long y) {
  unsigned long long high = __umul64hi((unsigned long long)x, (unsigned long long)y);
  if (x < 0) high -= (unsigned long long)y;
  if (y < 0) high -= (unsigned long long)x;
  return (long long)high;
}
/* Byte i of the result is byte (s >> 4i) & 7 of the 8-byte value y:x. */
static __device__ __forceinline__ unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long bytes = ((unsigned long long)y << 32) | x;
  unsigned int result = 0;
  for (int i = 0; i < 4; ++i) result |= (unsigned int)((bytes >> (8 * ((s >> (4 * i)) & 7u))) & 0xFFu) << (8 * i);
  return result;
}
/* hi:lo shifted by `shift` mod 32 (..._l/_r) or min(shift, 32) (..._lc/_rc). */
static __device__ __forceinline__ unsigned int __kestrel_funnel_left(unsigned int lo, unsigned int hi,
                                                                     unsigned int shift) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) << shift >> 32);
}
static __device__ __forceinline__ unsigned int __kestrel_funnel_right(unsigned int lo, unsigned int hi,
                                                                      unsigned int shift) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) >> shift);
}
static __device__ __forceinline__ unsigned int __funnelshift_l(unsigned int lo, unsigned int hi,
                                                               unsigned int shift) {
  return __kestrel_funnel_left(lo, hi, shift & 31u);
}
static __device__ __forceinline__ unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi,
                                                                unsigned int shift) {
  return __kestrel_funnel_left(lo, hi, shift < 32u ? shift : 32u);
}
static __device__ __forceinline__ unsigned int __funnelshift_r(unsigned int lo, unsigned int hi,
                                                               unsigned int shift) {
  return __kestrel_funnel_right(lo, hi, shift & 31u);
}
static __device__ __forceinline__ unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi,
                                                                unsigned int shift) {
  return __kestrel_funnel_right(lo, hi, shift < 32u ? shift : 32u);
}
/* |x - y| + z */
static __device__ __forceinline__ unsigned int __sad(int x, int y, unsigned int z) {
  return (x > y ? (unsigned int)x - (unsigned int)y : (unsigned int)y - (unsigned int)x) + z;
}
static __device__ __forceinline__ unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
  return (x > y ? x - y : y - x) + z;
}
static __device__ __forceinline__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
static __device__ __forceinline__ unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
static __device__ __forceinline__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
static __device__ __forceinline__ float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
static __device__ __forceinline__ long long __double_as_longlong(double x) {
  return __builtin_bit_cast(long long, x);
}
static __device__ __forceinline__ double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
/* Kestrel has no separate read-only data cache: __ldg is a plain load (guide B.10). */
template <typename T>
static __device__ __forceinline__ T __ldg(const T* address) {
  return *address;
}

/* ---- Atomic functions (guide B.12) ------------------------------------------------ */
#include "kestrel_atomics.h"
#include "kestrel_heap.h"       /* device malloc and free (guide B.18) */
#include "kestrel_frsqrt.h"    /* __frsqrt_rn: correctly rounded 1/sqrt(x) */
#include "kestrel_texture.h"   /* texture and surface object functions (guide B.8, B.9) */
#include "kestrel_fast_math.h" /* last: redefines __expf, __sinf, ... to the SFU forms */

#endif /* KESTREL_CUDA_H */
