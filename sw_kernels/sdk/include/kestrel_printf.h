/* Device printf (guide B.17) and the message of a failed assert() (B.16).
 *
 * printf() packs its arguments where it is called (a variadic template, so
 * each argument's type is known at compile time, as nvcc knows it) and
 * appends one record to the launch's printf FIFO in device memory: it
 * reserves the space with one atomic add on the FIFO head, fills the record,
 * and writes the commit word last.  The runtime formats the records on the
 * host at the next synchronization point.  Layout: docs/isa.md section 9,
 * constants KESTREL_PRINTF_* in kestrel/abi.h.
 *
 * Arguments follow C's variadic promotions: integers widen to 64 bits (sign
 * or zero extended by their type), float becomes double, and the text of a
 * char pointer is copied into the record (at most KESTREL_PRINTF_MAX_STRING
 * bytes), so strings in local or shared memory print too.  At most 32
 * arguments are recorded; the rest are ignored, as in CUDA.  Returns the
 * number of arguments, -1 for a NULL format and -2 when the record did not
 * fit the FIFO (it is dropped) or the launch has no FIFO. */
#ifndef KESTREL_PRINTF_H
#define KESTREL_PRINTF_H

/* The FIFO's address, written by the runtime before each launch of a module
 * that has this variable (only modules whose code calls printf do, because
 * an inline variable is emitted only where it is used). */
extern "C" inline __device__ unsigned char* __kestrel_printf_fifo = nullptr;

struct __kestrel_printf_arg {
  unsigned char kind; /* KESTREL_PRINTF_ARG_* */
  unsigned long long value;
};

#define KESTREL_PRINTF_PACK_INTEGER(T)                                                    \
  static __device__ __forceinline__ __kestrel_printf_arg __kestrel_printf_pack(T value) { \
    return __kestrel_printf_arg{KESTREL_PRINTF_ARG_INTEGER, (unsigned long long)value};   \
  }
/* (unsigned long long)value sign-extends signed types and zero-extends unsigned ones. */
KESTREL_PRINTF_PACK_INTEGER(bool)
KESTREL_PRINTF_PACK_INTEGER(char)
KESTREL_PRINTF_PACK_INTEGER(signed char)
KESTREL_PRINTF_PACK_INTEGER(unsigned char)
KESTREL_PRINTF_PACK_INTEGER(short)
KESTREL_PRINTF_PACK_INTEGER(unsigned short)
KESTREL_PRINTF_PACK_INTEGER(int)
KESTREL_PRINTF_PACK_INTEGER(unsigned int)
KESTREL_PRINTF_PACK_INTEGER(long)
KESTREL_PRINTF_PACK_INTEGER(unsigned long)
KESTREL_PRINTF_PACK_INTEGER(long long)
KESTREL_PRINTF_PACK_INTEGER(unsigned long long)
#undef KESTREL_PRINTF_PACK_INTEGER

static __device__ __forceinline__ __kestrel_printf_arg __kestrel_printf_pack(double value) {
  return __kestrel_printf_arg{KESTREL_PRINTF_ARG_DOUBLE, __builtin_bit_cast(unsigned long long, value)};
}
static __device__ __forceinline__ __kestrel_printf_arg __kestrel_printf_pack(float value) {
  return __kestrel_printf_pack((double)value);
}

#define KESTREL_PRINTF_PACK_STRING(T)                                                    \
  static __device__ __forceinline__ __kestrel_printf_arg __kestrel_printf_pack(T text) { \
    return __kestrel_printf_arg{KESTREL_PRINTF_ARG_STRING,                               \
                                (unsigned long long)(unsigned long)(const void*)text};   \
  }
KESTREL_PRINTF_PACK_STRING(const char*)
KESTREL_PRINTF_PACK_STRING(char*)
KESTREL_PRINTF_PACK_STRING(const signed char*)
KESTREL_PRINTF_PACK_STRING(signed char*)
KESTREL_PRINTF_PACK_STRING(const unsigned char*)
KESTREL_PRINTF_PACK_STRING(unsigned char*)
#undef KESTREL_PRINTF_PACK_STRING

template <typename T>
static __device__ __forceinline__ __kestrel_printf_arg __kestrel_printf_pack(T* pointer) {
  return __kestrel_printf_arg{KESTREL_PRINTF_ARG_POINTER,
                              (unsigned long long)(unsigned long)(const void*)pointer};
}
static __device__ __forceinline__ __kestrel_printf_arg __kestrel_printf_pack(decltype(nullptr)) {
  return __kestrel_printf_arg{KESTREL_PRINTF_ARG_POINTER, 0};
}
/* Enumerations print as their values; anything else is not a printf argument. */
template <typename T>
static __device__ __forceinline__ __kestrel_printf_arg __kestrel_printf_pack(T value) {
  static_assert(__is_enum(T),
                "printf arguments must be integers, floating-point values, pointers or enumerations");
  return __kestrel_printf_arg{KESTREL_PRINTF_ARG_INTEGER, (unsigned long long)(__underlying_type(T))value};
}

static __device__ __forceinline__ unsigned int __kestrel_printf_text_bytes(const char* text) {
  unsigned int length = 0;
  while (length < KESTREL_PRINTF_MAX_STRING && text[length] != '\0') ++length;
  return length + 1;
}

static __device__ __forceinline__ void __kestrel_printf_copy_text(unsigned char* to, const char* text,
                                                                  unsigned int bytes) {
  for (unsigned int i = 0; i + 1 < bytes; ++i) to[i] = (unsigned char)text[i];
  to[bytes - 1] = '\0';
}

/* Appends one record; `flags` is KESTREL_PRINTF_FLAG_*.  Not inlined: one
 * copy per module serves every call site. */
static __device__ __noinline__ int __kestrel_printf_emit(const char* format, unsigned int count,
                                                         const __kestrel_printf_arg* args,
                                                         unsigned int flags) {
  if (format == nullptr) return -1;
  unsigned char* const fifo = __kestrel_printf_fifo;
  if (fifo == nullptr) return -2;
  const unsigned int stored = count < KESTREL_PRINTF_MAX_ARGS ? count : KESTREL_PRINTF_MAX_ARGS;
  const unsigned int kinds_bytes = (stored + 7u) & ~7u;
  const unsigned int format_bytes = __kestrel_printf_text_bytes(format);
  unsigned int size = KESTREL_PRINTF_RECORD_HEADER_BYTES + kinds_bytes + 8u * stored + format_bytes;
  for (unsigned int i = 0; i < stored; ++i)
    if (args[i].kind == KESTREL_PRINTF_ARG_STRING && args[i].value != 0)
      size += __kestrel_printf_text_bytes((const char*)(unsigned long)args[i].value);
  size = (size + 7u) & ~7u;

  unsigned int* const header = (unsigned int*)fifo;
  const unsigned int offset = __atomic_fetch_add(&header[KESTREL_PRINTF_HEAD_WORD], size, __ATOMIC_RELAXED);
  const unsigned int capacity = header[KESTREL_PRINTF_CAPACITY_WORD];
  if (size > capacity || offset > capacity - size) {
    __atomic_fetch_add(&header[KESTREL_PRINTF_DROPPED_WORD], 1u, __ATOMIC_RELAXED);
    return -2;
  }
  unsigned char* const record = fifo + KESTREL_PRINTF_HEADER_BYTES + offset;
  unsigned int* const record_words = (unsigned int*)record;
  record_words[0] = size;
  record_words[2] = stored | (flags << 16);
  record_words[3] = format_bytes;
  unsigned char* const kinds = record + KESTREL_PRINTF_RECORD_HEADER_BYTES;
  unsigned long long* const values = (unsigned long long*)(kinds + kinds_bytes);
  for (unsigned int i = 0; i < stored; ++i) {
    kinds[i] = args[i].kind;
    values[i] = args[i].value;
  }
  unsigned char* text = (unsigned char*)(values + stored);
  __kestrel_printf_copy_text(text, format, format_bytes);
  text += format_bytes;
  for (unsigned int i = 0; i < stored; ++i) {
    if (args[i].kind != KESTREL_PRINTF_ARG_STRING || args[i].value == 0) continue;
    const char* const string = (const char*)(unsigned long)args[i].value;
    const unsigned int bytes = __kestrel_printf_text_bytes(string);
    __kestrel_printf_copy_text(text, string, bytes);
    text += bytes;
  }
  /* The commit word goes last: a record whose writer was stopped by a fault
   * half-way is skipped by the host. */
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, FENCE_DEVICE) ", x0, x0, x0" ::: "memory"); /* __threadfence() */
  __atomic_store_n(&record_words[1], KESTREL_PRINTF_COMMIT, __ATOMIC_RELAXED);
  return (int)count;
}

template <typename... Args>
static __device__ __forceinline__ int printf(const char* format, Args... args) {
  const __kestrel_printf_arg packed[sizeof...(Args) + 1] = {__kestrel_printf_pack(args)..., {0, 0}};
  return __kestrel_printf_emit(format, sizeof...(Args), packed, 0);
}

/* CUDA's assert message, printed from the device like printf's records (so it
 * appears after the output printed before it), then the ASSERT fault. */
static __device__ __noinline__ void __kestrel_assert_message(const char* expression, const char* file,
                                                             unsigned int line, const char* function) {
  const __kestrel_printf_arg args[] = {
      __kestrel_printf_pack(file),
      __kestrel_printf_pack(line),
      __kestrel_printf_pack(function),
      __kestrel_printf_pack((unsigned int)KESTREL_READ_CSR(CTAID_X)),
      __kestrel_printf_pack((unsigned int)KESTREL_READ_CSR(CTAID_Y)),
      __kestrel_printf_pack((unsigned int)KESTREL_READ_CSR(CTAID_Z)),
      __kestrel_printf_pack((unsigned int)KESTREL_READ_CSR(TID_X)),
      __kestrel_printf_pack((unsigned int)KESTREL_READ_CSR(TID_Y)),
      __kestrel_printf_pack((unsigned int)KESTREL_READ_CSR(TID_Z)),
      __kestrel_printf_pack(expression),
  };
  __kestrel_printf_emit("%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
                        sizeof args / sizeof args[0], args, KESTREL_PRINTF_FLAG_ASSERT);
}

#endif /* KESTREL_PRINTF_H */
