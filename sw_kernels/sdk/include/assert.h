/* assert() for Kestrel device code (guide B.16 "Assertion"): a failed
 * assertion stops the launch with an ASSERT fault that carries the file,
 * line and expression (kx.trap code 1, docs/isa.md section 2).  Shadows the C
 * library's <assert.h>; like it, may be included again after changing NDEBUG.
 *
 * Which assert() a compilation gets:
 *   * a device module (`kestrel-cc -o k.kmod`, picolibc): the macro below,
 *     which calls the device-only __kestrel_assert_fail;
 *   * both passes of a whole program (`kestrel-cc -o app`): the host C
 *     library's own assert(), which calls __assert_fail.  Host code in a .cu
 *     file and in the headers it includes therefore compiles in the device
 *     pass exactly as on the host (clang parses it there too); device code
 *     calling __assert_fail resolves to the __device__ overload that
 *     kestrel_cuda.h adds, which calls __kestrel_assert_fail.  This is how
 *     clang's own CUDA headers give assert() to both sides. */
#if !defined(__riscv) || defined(__KESTREL_WHOLE_PROGRAM__)
#include_next <assert.h>
#endif
#if defined(__riscv)
#ifndef KESTREL_ASSERT_H
#define KESTREL_ASSERT_H
/* CUDA's message ("file:line: function: block: [x,y,z], thread: [x,y,z]
 * Assertion `expression` failed.") goes out through the printf FIFO
 * (kestrel_printf.h, which kestrel_cuda.h includes first); then kx.trap
 * reads the code from rs1 and the details from a1 (file name), a2 (line) and
 * a3 (expression text). */
static __attribute__((device)) void __kestrel_assert_message(const char* expression, const char* file,
                                                           unsigned int line, const char* function);
static __attribute__((device)) __inline__ __attribute__((always_inline, noreturn)) void __kestrel_assert_fail(
    const char* expression, const char* file, unsigned int line, const char* function) {
  __kestrel_assert_message(expression, file, line, function);
  register const char* file_reg __asm__("a1") = file;
  register unsigned long line_reg __asm__("a2") = line;
  register const char* expression_reg __asm__("a3") = expression;
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, TRAP) ", x0, %0, x0"
                   :
                   : "r"(1), "r"(file_reg), "r"(line_reg), "r"(expression_reg)
                   : "memory");
  __builtin_unreachable();
}
#endif /* KESTREL_ASSERT_H */

#if !defined(__KESTREL_WHOLE_PROGRAM__)
#undef assert
#ifdef NDEBUG
#define assert(expression) ((void)0)
#else
#define assert(expression) \
  ((expression) ? (void)0 : __kestrel_assert_fail(#expression, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#endif
#endif /* !__KESTREL_WHOLE_PROGRAM__ */
#endif /* __riscv */
