/* assert() for Kestrel device code (guide B.16 "Assertion"): a failed
 * assertion stops the launch with an ASSERT fault that carries the file,
 * line and expression (kx.trap code 1, docs/isa.md section 2).  Shadows the C
 * library's <assert.h>; like it, may be included again after changing NDEBUG.
 * The host pass of a whole-program compile gets the C library's own assert(). */
#if !defined(__riscv)
#include_next <assert.h>
#else
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

#undef assert
#ifdef NDEBUG
#define assert(expression) ((void)0)
#else
#define assert(expression) \
  ((expression) ? (void)0 : __kestrel_assert_fail(#expression, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#endif
#endif /* __riscv */
