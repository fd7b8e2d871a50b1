/* CUDA's atomic functions (guide B.12) for Kestrel device code, on shared and
 * global memory alike.  Included by kestrel_cuda.h, which defines __device__
 * and KESTREL_DEVICE_PASS.
 *
 * Each function is one instruction (docs/isa.md sections 1 and 2.2):
 *   * the A extension's AMOs where they fit: amoadd/amoswap/amoand/amoor/
 *     amoxor/amomin[u]/amomax[u], .w for 32-bit and, on RV64, .d for 64-bit;
 *   * Kestrel's custom-1 atomics for the rest: CAS (.w, .d), atomicInc and
 *     atomicDec with CUDA's wrap rule, float add, and on RV32 every 64-bit
 *     operation on an even/odd register pair.
 * Two are loops, as on CUDA devices without the instruction: atomicAdd on
 * double (CAS on the 64-bit pattern, guide B.12) and atomicCAS on unsigned
 * short (CAS on the aligned 32-bit word holding it).
 *
 * Ordering: like CUDA's, these atomics are relaxed (guide B.12: "atomic
 * functions do not act as memory fences"), so the aq/rl bits are 0; order
 * other accesses with __threadfence*() (guide B.5, kestrel_cuda.h).  To the
 * compiler the atomic word is an in/out memory operand of the asm, so no
 * value of it is cached across the call and the call is never dropped.
 * Scope: every atomic is performed where the word lives (shared memory at
 * its bank, global memory at the memory side), so it is atomic towards every
 * thread of the device; the _block and _system forms (guide B.12, compute
 * capability 6.x) are the same instructions.
 *
 * The custom-1 encodings come from kestrel/abi.h (KESTREL_INSN_ATOMIC: the
 * generated contract values as assembler text). */
#ifndef KESTREL_ATOMICS_H
#define KESTREL_ATOMICS_H

/* RV32 device code keeps a 64-bit operand in an even/odd register pair; the
 * host pass (which checks but never emits device code) and RV64 use one
 * register. */
#if KESTREL_DEVICE_PASS && __riscv_xlen == 32
#define KESTREL_ATOMIC_PAIRS 1
#else
#define KESTREL_ATOMIC_PAIRS 0
#endif

/* ---- 32-bit A-extension AMOs: old value out, memory = op(old, value) ----- */
#define KESTREL_AMO_W(name, mnemonic)                                                      \
  static __device__ __forceinline__ unsigned int name(unsigned int* address, unsigned int value) { \
    unsigned int old;                                                                      \
    __asm__ volatile(mnemonic " %0, %3, (%2)" : "=r"(old), "+m"(*address) : "r"(address), "r"(value)); \
    return old;                                                                            \
  }
KESTREL_AMO_W(__kestrel_amoadd_w, "amoadd.w")
KESTREL_AMO_W(__kestrel_amoswap_w, "amoswap.w")
KESTREL_AMO_W(__kestrel_amoand_w, "amoand.w")
KESTREL_AMO_W(__kestrel_amoor_w, "amoor.w")
KESTREL_AMO_W(__kestrel_amoxor_w, "amoxor.w")
KESTREL_AMO_W(__kestrel_amomin_w, "amomin.w")
KESTREL_AMO_W(__kestrel_amomax_w, "amomax.w")
KESTREL_AMO_W(__kestrel_amominu_w, "amominu.w")
KESTREL_AMO_W(__kestrel_amomaxu_w, "amomaxu.w")
#undef KESTREL_AMO_W

/* ---- 32-bit custom-1 atomics -------------------------------------------------- */
/* rd carries the compare value in and the old value out (as Zacas amocas.w). */
static __device__ __forceinline__ unsigned int __kestrel_amocas_w(unsigned int* address, unsigned int compare,
                                                                  unsigned int value) {
  __asm__ volatile(".insn r " KESTREL_INSN_ATOMIC(W, AMO_CAS) ", %0, %2, %3" : "+r"(compare), "+m"(*address) : "r"(address), "r"(value));
  return compare;
}
/* memory = (old >= limit) ? 0 : old + 1 */
static __device__ __forceinline__ unsigned int __kestrel_amoinc_w(unsigned int* address, unsigned int limit) {
  unsigned int old;
  __asm__ volatile(".insn r " KESTREL_INSN_ATOMIC(W, AMO_INC) ", %0, %2, %3" : "=r"(old), "+m"(*address) : "r"(address), "r"(limit));
  return old;
}
/* memory = (old == 0 || old > limit) ? limit : old - 1 */
static __device__ __forceinline__ unsigned int __kestrel_amodec_w(unsigned int* address, unsigned int limit) {
  unsigned int old;
  __asm__ volatile(".insn r " KESTREL_INSN_ATOMIC(W, AMO_DEC) ", %0, %2, %3" : "=r"(old), "+m"(*address) : "r"(address), "r"(limit));
  return old;
}
/* memory = old + value rounded to nearest even, NaN results canonical (F
 * extension); fflags are not touched.  f-register operands: the x86 host
 * pass has no such constraint, and never emits this code anyway. */
static __device__ __forceinline__ float __kestrel_amofadd_s(float* address, float value) {
  float old;
#if KESTREL_DEVICE_PASS
  __asm__ volatile(".insn r " KESTREL_INSN_ATOMIC(W, AMO_FADD) ", %0, %2, %3" : "=f"(old), "+m"(*address) : "r"(address), "f"(value));
#else
  old = value;
  (void)address;
#endif
  return old;
}

/* ---- 64-bit atomics ------------------------------------------------------------
 * RV64: amo*.d and custom-1 CAS .d on single registers.  RV32: custom-1
 * funct3 3 with the A extension's funct5 on even/odd pairs (low word in the
 * even register); the pairs are pinned: value a2:a3, old value a4:a5.  funct7
 * is the A extension's funct5 << 2 (the RISC-V encoding, aq = rl = 0). */
#if KESTREL_ATOMIC_PAIRS
#define KESTREL_AMO_D(name, mnemonic, funct7)                                                                \
  static __device__ __forceinline__ unsigned long long name(unsigned long long* address,                     \
                                                            unsigned long long value) {                      \
    register unsigned int value_lo __asm__("a2") = (unsigned int)value;                                     \
    register unsigned int value_hi __asm__("a3") = (unsigned int)(value >> 32);                             \
    register unsigned int old_lo __asm__("a4");                                                             \
    register unsigned int old_hi __asm__("a5");                                                             \
    __asm__ volatile(".insn r " KESTREL_STR(KESTREL_OPC_ATOMIC_INSN) ", " KESTREL_STR(KESTREL_F3_ATOMIC_D_INSN) \
                     ", " #funct7 ", %0, %3, %4"                                                             \
                     : "=r"(old_lo), "=r"(old_hi), "+m"(*address)                                            \
                     : "r"(address), "r"(value_lo), "r"(value_hi));                                          \
    return ((unsigned long long)old_hi << 32) | old_lo;                                                      \
  }
#else
#define KESTREL_AMO_D(name, mnemonic, funct7)                                                                     \
  static __device__ __forceinline__ unsigned long long name(unsigned long long* address,                          \
                                                            unsigned long long value) {                           \
    unsigned long long old;                                                                                       \
    __asm__ volatile(mnemonic " %0, %3, (%2)" : "=r"(old), "+m"(*address) : "r"(address), "r"(value));          \
    return old;                                                                                                   \
  }
#endif
KESTREL_AMO_D(__kestrel_amoadd_d, "amoadd.d", 0x00)
KESTREL_AMO_D(__kestrel_amoswap_d, "amoswap.d", 0x04)
KESTREL_AMO_D(__kestrel_amoxor_d, "amoxor.d", 0x10)
KESTREL_AMO_D(__kestrel_amoor_d, "amoor.d", 0x20)
KESTREL_AMO_D(__kestrel_amoand_d, "amoand.d", 0x30)
KESTREL_AMO_D(__kestrel_amomin_d, "amomin.d", 0x40)
KESTREL_AMO_D(__kestrel_amomax_d, "amomax.d", 0x50)
KESTREL_AMO_D(__kestrel_amominu_d, "amominu.d", 0x60)
KESTREL_AMO_D(__kestrel_amomaxu_d, "amomaxu.d", 0x70)
#undef KESTREL_AMO_D

static __device__ __forceinline__ unsigned long long __kestrel_amocas_d(unsigned long long* address,
                                                                        unsigned long long compare,
                                                                        unsigned long long value) {
#if KESTREL_ATOMIC_PAIRS
  register unsigned int value_lo __asm__("a2") = (unsigned int)value;
  register unsigned int value_hi __asm__("a3") = (unsigned int)(value >> 32);
  register unsigned int old_lo __asm__("a4") = (unsigned int)compare;
  register unsigned int old_hi __asm__("a5") = (unsigned int)(compare >> 32);
  __asm__ volatile(".insn r " KESTREL_INSN_ATOMIC(D, AMO_CAS) ", %0, %3, %4"
                   : "+r"(old_lo), "+r"(old_hi), "+m"(*address)
                   : "r"(address), "r"(value_lo), "r"(value_hi));
  return ((unsigned long long)old_hi << 32) | old_lo;
#else
  __asm__ volatile(".insn r " KESTREL_INSN_ATOMIC(D, AMO_CAS) ", %0, %2, %3" : "+r"(compare), "+m"(*address) : "r"(address), "r"(value));
  return compare;
#endif
}

/* ---- atomicAdd, atomicSub (guide B.12.1.1-2) ------------------------------------ */
static __device__ __forceinline__ int atomicAdd(int* address, int val) {
  return (int)__kestrel_amoadd_w((unsigned int*)address, (unsigned int)val);
}
static __device__ __forceinline__ unsigned int atomicAdd(unsigned int* address, unsigned int val) {
  return __kestrel_amoadd_w(address, val);
}
static __device__ __forceinline__ unsigned long long int atomicAdd(unsigned long long int* address,
                                                                   unsigned long long int val) {
  return __kestrel_amoadd_d(address, val);
}
static __device__ __forceinline__ float atomicAdd(float* address, float val) {
  return __kestrel_amofadd_s(address, val);
}
/* Kestrel has no double-precision unit: a CAS loop on the bit pattern (the
 * guide's own B.12 code), each try adding in software.  Comparing patterns,
 * not values, keeps a NaN from looping forever. */
static __device__ __forceinline__ double atomicAdd(double* address, double val) {
  unsigned long long* word = (unsigned long long*)address;
  unsigned long long old = *(volatile unsigned long long*)word, assumed;
  do {
    assumed = old;
    old = __kestrel_amocas_d(word, assumed, __double_as_longlong(val + __longlong_as_double((long long)assumed)));
  } while (assumed != old);
  return __longlong_as_double((long long)old);
}
static __device__ __forceinline__ int atomicSub(int* address, int val) {
  return (int)__kestrel_amoadd_w((unsigned int*)address, 0u - (unsigned int)val);
}
static __device__ __forceinline__ unsigned int atomicSub(unsigned int* address, unsigned int val) {
  return __kestrel_amoadd_w(address, 0u - val);
}

/* ---- atomicExch (B.12.1.3) ----------------------------------------------------- */
static __device__ __forceinline__ int atomicExch(int* address, int val) {
  return (int)__kestrel_amoswap_w((unsigned int*)address, (unsigned int)val);
}
static __device__ __forceinline__ unsigned int atomicExch(unsigned int* address, unsigned int val) {
  return __kestrel_amoswap_w(address, val);
}
static __device__ __forceinline__ unsigned long long int atomicExch(unsigned long long int* address,
                                                                    unsigned long long int val) {
  return __kestrel_amoswap_d(address, val);
}
static __device__ __forceinline__ float atomicExch(float* address, float val) {
  return __uint_as_float(__kestrel_amoswap_w((unsigned int*)address, __float_as_uint(val)));
}

/* ---- atomicMin, atomicMax (B.12.1.4-5) ----------------------------------------- */
static __device__ __forceinline__ int atomicMin(int* address, int val) {
  return (int)__kestrel_amomin_w((unsigned int*)address, (unsigned int)val);
}
static __device__ __forceinline__ unsigned int atomicMin(unsigned int* address, unsigned int val) {
  return __kestrel_amominu_w(address, val);
}
static __device__ __forceinline__ long long int atomicMin(long long int* address, long long int val) {
  return (long long int)__kestrel_amomin_d((unsigned long long*)address, (unsigned long long)val);
}
static __device__ __forceinline__ unsigned long long int atomicMin(unsigned long long int* address,
                                                                   unsigned long long int val) {
  return __kestrel_amominu_d(address, val);
}
static __device__ __forceinline__ int atomicMax(int* address, int val) {
  return (int)__kestrel_amomax_w((unsigned int*)address, (unsigned int)val);
}
static __device__ __forceinline__ unsigned int atomicMax(unsigned int* address, unsigned int val) {
  return __kestrel_amomaxu_w(address, val);
}
static __device__ __forceinline__ long long int atomicMax(long long int* address, long long int val) {
  return (long long int)__kestrel_amomax_d((unsigned long long*)address, (unsigned long long)val);
}
static __device__ __forceinline__ unsigned long long int atomicMax(unsigned long long int* address,
                                                                   unsigned long long int val) {
  return __kestrel_amomaxu_d(address, val);
}

/* ---- atomicInc, atomicDec (B.12.1.6-7) ----------------------------------------- */
static __device__ __forceinline__ unsigned int atomicInc(unsigned int* address, unsigned int val) {
  return __kestrel_amoinc_w(address, val);
}
static __device__ __forceinline__ unsigned int atomicDec(unsigned int* address, unsigned int val) {
  return __kestrel_amodec_w(address, val);
}

/* ---- atomicCAS (B.12.1.8) ------------------------------------------------------- */
static __device__ __forceinline__ int atomicCAS(int* address, int compare, int val) {
  return (int)__kestrel_amocas_w((unsigned int*)address, (unsigned int)compare, (unsigned int)val);
}
static __device__ __forceinline__ unsigned int atomicCAS(unsigned int* address, unsigned int compare,
                                                         unsigned int val) {
  return __kestrel_amocas_w(address, compare, val);
}
static __device__ __forceinline__ unsigned long long int atomicCAS(unsigned long long int* address,
                                                                   unsigned long long int compare,
                                                                   unsigned long long int val) {
  return __kestrel_amocas_d(address, compare, val);
}
/* No 16-bit CAS instruction: a CAS on the aligned word holding the halfword,
 * retried while only the other halfword changed under it.  The first access
 * is the halfword itself, so a misaligned address faults as MISALIGNED. */
static __device__ __forceinline__ unsigned short int atomicCAS(unsigned short int* address,
                                                               unsigned short int compare,
                                                               unsigned short int val) {
  (void)*(volatile unsigned short int*)address;
  unsigned int* word = (unsigned int*)((unsigned long)address & ~3ul);
  const unsigned int shift = ((unsigned int)(unsigned long)address & 2u) * 8u;
  const unsigned int mask = 0xFFFFu << shift;
  unsigned int old = *(volatile unsigned int*)word;
  for (;;) {
    const unsigned short int old_half = (unsigned short int)((old & mask) >> shift);
    if (old_half != compare) return old_half;
    const unsigned int seen = __kestrel_amocas_w(word, old, (old & ~mask) | ((unsigned int)val << shift));
    if (seen == old) return old_half;
    old = seen;
  }
}

/* ---- atomicAnd, atomicOr, atomicXor (B.12.2) ------------------------------------ */
#define KESTREL_ATOMIC_BITWISE(name, op)                                                                 \
  static __device__ __forceinline__ int name(int* address, int val) {                                  \
    return (int)__kestrel_amo##op##_w((unsigned int*)address, (unsigned int)val);                      \
  }                                                                                                    \
  static __device__ __forceinline__ unsigned int name(unsigned int* address, unsigned int val) {       \
    return __kestrel_amo##op##_w(address, val);                                                        \
  }                                                                                                    \
  static __device__ __forceinline__ unsigned long long int name(unsigned long long int* address,       \
                                                                unsigned long long int val) {          \
    return __kestrel_amo##op##_d(address, val);                                                        \
  }
KESTREL_ATOMIC_BITWISE(atomicAnd, and)
KESTREL_ATOMIC_BITWISE(atomicOr, or)
KESTREL_ATOMIC_BITWISE(atomicXor, xor)
#undef KESTREL_ATOMIC_BITWISE

/* ---- Scoped forms (guide B.12, compute capability 6.x) --------------------------
 * Every Kestrel atomic is already atomic towards the whole device, and the
 * host touches device memory only between launches, so both scopes are the
 * plain function. */
#define KESTREL_ATOMIC_SCOPES(name)                                                        \
  template <typename T, typename... Args>                                                  \
  static __device__ __forceinline__ T name##_block(T* address, Args... args) {             \
    return name(address, args...);                                                         \
  }                                                                                        \
  template <typename T, typename... Args>                                                  \
  static __device__ __forceinline__ T name##_system(T* address, Args... args) {            \
    return name(address, args...);                                                         \
  }
KESTREL_ATOMIC_SCOPES(atomicAdd)
KESTREL_ATOMIC_SCOPES(atomicSub)
KESTREL_ATOMIC_SCOPES(atomicExch)
KESTREL_ATOMIC_SCOPES(atomicMin)
KESTREL_ATOMIC_SCOPES(atomicMax)
KESTREL_ATOMIC_SCOPES(atomicInc)
KESTREL_ATOMIC_SCOPES(atomicDec)
KESTREL_ATOMIC_SCOPES(atomicCAS)
KESTREL_ATOMIC_SCOPES(atomicAnd)
KESTREL_ATOMIC_SCOPES(atomicOr)
KESTREL_ATOMIC_SCOPES(atomicXor)
#undef KESTREL_ATOMIC_SCOPES
#undef KESTREL_ATOMIC_PAIRS

#endif /* KESTREL_ATOMICS_H */
