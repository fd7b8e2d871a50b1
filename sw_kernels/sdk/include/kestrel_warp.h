/* Warp-level primitives for Kestrel device code: __syncwarp, __activemask,
 * votes (guide B.13), shuffles (guide B.14), match and reduce (the CUDA 9+
 * *_sync forms), and __nanosleep.  Each is one custom-0 instruction of
 * docs/isa.md section 2; section 6.1 says how a membermask converges.
 * Included by kestrel_cuda.h, which defines __device__ and KESTREL_READ_CSR.
 *
 * The encodings come from kestrel/abi.h (KESTREL_INSN_SIMT and friends: the
 * generated contract values as assembler text).  The asm statements
 * are volatile: a collective must run exactly where the program calls it,
 * for the lanes that reach it (clang also marks device inline asm
 * convergent, so it is never duplicated into both sides of a branch). */
#ifndef KESTREL_WARP_H
#define KESTREL_WARP_H

/* ---- Synchronization ---------------------------------------------------------- */
/* The lanes of the warp executing this call with the caller (guide B.13). */
static __device__ __forceinline__ unsigned int __activemask() {
  return (unsigned int)KESTREL_READ_CSR(ACTIVEMASK);
}

/* Waits until every non-exited lane of `mask` reaches a __syncwarp with the
 * same mask; orders memory among them.  The "memory" clobber keeps the
 * compiler from moving loads and stores across it. */
static __device__ __forceinline__ void __syncwarp(unsigned int mask = 0xFFFFFFFFu) {
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(VOTE, SYNCWARP) ", x0, x0, %0" ::"r"(mask) : "memory");
}

/* ---- Votes (guide B.13) ----------------------------------------------------------- */
#define KESTREL_VOTE(result_type, name, funct7)                                                              \
  static __device__ __forceinline__ result_type name(unsigned int mask, int predicate) {                     \
    result_type result;                                                                                      \
    __asm__ volatile(".insn r " KESTREL_INSN_SIMT(VOTE, funct7) ", %0, %1, %2" : "=r"(result) : "r"(predicate), "r"(mask)); \
    return result;                                                                                           \
  }
KESTREL_VOTE(int, __all_sync, VOTE_ALL)
KESTREL_VOTE(int, __any_sync, VOTE_ANY)
KESTREL_VOTE(int, __uni_sync, VOTE_UNI)
KESTREL_VOTE(unsigned int, __ballot_sync, VOTE_BALLOT)
#undef KESTREL_VOTE

/* The pre-CUDA-9 forms vote among the threads active with the caller. */
static __device__ __forceinline__ int __all(int predicate) { return __all_sync(__activemask(), predicate); }
static __device__ __forceinline__ int __any(int predicate) { return __any_sync(__activemask(), predicate); }
static __device__ __forceinline__ unsigned int __ballot(int predicate) {
  return __ballot_sync(__activemask(), predicate);
}

/* ---- Shuffles (guide B.14) ---------------------------------------------------------
 * One instruction moves an XLEN-wide register; on RV32 a 64-bit value takes
 * two.  `width` defaults to warpSize and must be a power of two no larger
 * than it (as in CUDA). */
#define KESTREL_SHUFFLE_WORD(name, mode)                                                       \
  static __device__ __forceinline__ unsigned long name(unsigned int mask, unsigned long value, \
                                                       unsigned int control) {                 \
    unsigned long result;                                                                      \
    __asm__ volatile(".insn r4 " KESTREL_INSN_SHFL(mode) ", %0, %1, %2, %3"                             \
                     : "=r"(result)                                                            \
                     : "r"(value), "r"(control), "r"(mask));                                   \
    return result;                                                                             \
  }
KESTREL_SHUFFLE_WORD(__kestrel_shfl_idx_word, IDX)
KESTREL_SHUFFLE_WORD(__kestrel_shfl_up_word, UP)
KESTREL_SHUFFLE_WORD(__kestrel_shfl_down_word, DOWN)
KESTREL_SHUFFLE_WORD(__kestrel_shfl_xor_word, XOR)
#undef KESTREL_SHUFFLE_WORD

/* Control word: lane, delta or xor mask in bits 4..0, segment mask 32 - width in 12..8. */
static __device__ __forceinline__ unsigned int __kestrel_shfl_control(unsigned int lane_or_delta, int width) {
  return (lane_or_delta & 0x1Fu) | (((32u - (unsigned int)width) & 0x1Fu) << 8);
}

typedef unsigned long (*__kestrel_shfl_word_fn)(unsigned int, unsigned long, unsigned int);

/* Shuffles any value of 4 or 8 bytes: as it is when it fits a register, else
 * (8 bytes on RV32) as two halves. */
template <typename T>
static __device__ __forceinline__ T __kestrel_shfl(__kestrel_shfl_word_fn shuffle, unsigned int mask, T value,
                                                   unsigned int control) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shuffles move 4- or 8-byte values");
  if constexpr (sizeof(T) == 4) {
    const unsigned int bits = __builtin_bit_cast(unsigned int, value);
    return __builtin_bit_cast(T, (unsigned int)shuffle(mask, bits, control));
  } else if constexpr (sizeof(unsigned long) == 8) {
    return __builtin_bit_cast(T, shuffle(mask, __builtin_bit_cast(unsigned long, value), control));
  } else {
    const unsigned long long bits = __builtin_bit_cast(unsigned long long, value);
    const unsigned long low = shuffle(mask, (unsigned long)bits, control);
    const unsigned long high = shuffle(mask, (unsigned long)(bits >> 32), control);
    return __builtin_bit_cast(T, ((unsigned long long)high << 32) | low);
  }
}

#define KESTREL_SHUFFLES(T)                                                                           \
  static __device__ __forceinline__ T __shfl_sync(unsigned int mask, T var, int srcLane,              \
                                                  int width = warpSize) {                             \
    return __kestrel_shfl(__kestrel_shfl_idx_word, mask, var,                                         \
                          __kestrel_shfl_control((unsigned int)srcLane, width));                      \
  }                                                                                                   \
  static __device__ __forceinline__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta,    \
                                                     int width = warpSize) {                          \
    return __kestrel_shfl(__kestrel_shfl_up_word, mask, var, __kestrel_shfl_control(delta, width));   \
  }                                                                                                   \
  static __device__ __forceinline__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta,  \
                                                       int width = warpSize) {                        \
    return __kestrel_shfl(__kestrel_shfl_down_word, mask, var, __kestrel_shfl_control(delta, width)); \
  }                                                                                                   \
  static __device__ __forceinline__ T __shfl_xor_sync(unsigned int mask, T var, int laneMask,         \
                                                      int width = warpSize) {                         \
    return __kestrel_shfl(__kestrel_shfl_xor_word, mask, var,                                         \
                          __kestrel_shfl_control((unsigned int)laneMask, width));                     \
  }
KESTREL_SHUFFLES(int)
KESTREL_SHUFFLES(unsigned int)
KESTREL_SHUFFLES(long)
KESTREL_SHUFFLES(unsigned long)
KESTREL_SHUFFLES(long long)
KESTREL_SHUFFLES(unsigned long long)
KESTREL_SHUFFLES(float)
KESTREL_SHUFFLES(double)
#undef KESTREL_SHUFFLES

/* ---- Match (CUDA 9+, compute capability 7.0) ------------------------------------------
 * 32-bit values compare their low words (kx.match.*.w); 64-bit values
 * compare whole registers on RV64 and both halves on RV32: the lanes equal
 * in both halves are those equal in each. */
static __device__ __forceinline__ unsigned int __kestrel_match_any_word(unsigned int mask,
                                                                        unsigned int value) {
  unsigned int result;
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(MATCH, MATCH_ANY_W) ", %0, %1, %2" : "=r"(result) : "r"(value), "r"(mask));
  return result;
}
static __device__ __forceinline__ unsigned int __kestrel_match_all_word(unsigned int mask,
                                                                        unsigned int value) {
  unsigned int result;
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(MATCH, MATCH_ALL_W) ", %0, %1, %2" : "=r"(result) : "r"(value), "r"(mask));
  return result;
}
static __device__ __forceinline__ unsigned int __kestrel_match_any_long(unsigned int mask,
                                                                        unsigned long long value) {
#if __riscv_xlen == 64
  unsigned int result;
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(MATCH, MATCH_ANY) ", %0, %1, %2" : "=r"(result) : "r"(value), "r"(mask));
  return result;
#else
  return __kestrel_match_any_word(mask, (unsigned int)value) &
         __kestrel_match_any_word(mask, (unsigned int)(value >> 32));
#endif
}
static __device__ __forceinline__ unsigned int __kestrel_match_all_long(unsigned int mask,
                                                                        unsigned long long value) {
#if __riscv_xlen == 64
  unsigned int result;
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(MATCH, MATCH_ALL) ", %0, %1, %2" : "=r"(result) : "r"(value), "r"(mask));
  return result;
#else
  const unsigned int low = __kestrel_match_all_word(mask, (unsigned int)value);
  const unsigned int high = __kestrel_match_all_word(mask, (unsigned int)(value >> 32));
  return low != 0 && high != 0 ? low : 0u;
#endif
}

template <typename T>
static __device__ __forceinline__ unsigned int __kestrel_match_any(unsigned int mask, T value) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "match compares 4- or 8-byte values");
  if constexpr (sizeof(T) == 4) {
    return __kestrel_match_any_word(mask, __builtin_bit_cast(unsigned int, value));
  } else {
    return __kestrel_match_any_long(mask, __builtin_bit_cast(unsigned long long, value));
  }
}
template <typename T>
static __device__ __forceinline__ unsigned int __kestrel_match_all(unsigned int mask, T value, int* pred) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "match compares 4- or 8-byte values");
  unsigned int result;
  if constexpr (sizeof(T) == 4) {
    result = __kestrel_match_all_word(mask, __builtin_bit_cast(unsigned int, value));
  } else {
    result = __kestrel_match_all_long(mask, __builtin_bit_cast(unsigned long long, value));
  }
  *pred = result != 0;
  return result;
}

#define KESTREL_MATCHES(T)                                                                                 \
  static __device__ __forceinline__ unsigned int __match_any_sync(unsigned int mask, T value) {            \
    return __kestrel_match_any(mask, value);                                                               \
  }                                                                                                        \
  static __device__ __forceinline__ unsigned int __match_all_sync(unsigned int mask, T value, int* pred) { \
    return __kestrel_match_all(mask, value, pred);                                                         \
  }
KESTREL_MATCHES(int)
KESTREL_MATCHES(unsigned int)
KESTREL_MATCHES(long)
KESTREL_MATCHES(unsigned long)
KESTREL_MATCHES(long long)
KESTREL_MATCHES(unsigned long long)
KESTREL_MATCHES(float)
KESTREL_MATCHES(double)
#undef KESTREL_MATCHES

/* ---- Reduce (CUDA 11+, compute capability 8.0) ----------------------------------------- */
#define KESTREL_REDUCE(result_type, name, funct7)                                                        \
  static __device__ __forceinline__ result_type name(unsigned int mask, result_type value) {             \
    result_type result;                                                                                  \
    __asm__ volatile(".insn r " KESTREL_INSN_SIMT(MATCH, funct7) ", %0, %1, %2" : "=r"(result) : "r"(value), "r"(mask)); \
    return result;                                                                                       \
  }
KESTREL_REDUCE(unsigned int, __reduce_add_sync, REDUCE_ADD)
KESTREL_REDUCE(int, __reduce_add_sync, REDUCE_ADD)
KESTREL_REDUCE(int, __reduce_min_sync, REDUCE_MIN)
KESTREL_REDUCE(int, __reduce_max_sync, REDUCE_MAX)
KESTREL_REDUCE(unsigned int, __reduce_min_sync, REDUCE_MINU)
KESTREL_REDUCE(unsigned int, __reduce_max_sync, REDUCE_MAXU)
KESTREL_REDUCE(unsigned int, __reduce_and_sync, REDUCE_AND)
KESTREL_REDUCE(unsigned int, __reduce_or_sync, REDUCE_OR)
KESTREL_REDUCE(unsigned int, __reduce_xor_sync, REDUCE_XOR)
#undef KESTREL_REDUCE

/* ---- Sleep ---------------------------------------------------------------------------------
 * The calling thread stops issuing for about `ns` nanoseconds (at most 1 ms);
 * other threads and warps run meanwhile (docs/isa.md kx.nanosleep). */
static __device__ __forceinline__ void __nanosleep(unsigned int ns) {
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, NANOSLEEP) ", x0, %0, x0" ::"r"(ns) : "memory");
}

#endif /* KESTREL_WARP_H */
