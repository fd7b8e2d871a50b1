/* Kestrel device start-up code (docs/isa.md section 5).  There is no _start:
 * every thread begins at its kernel's entry trampoline with ra pointing at
 * __kestrel_exit, so returning from the kernel ends the thread.  This file
 * also gives the C library the two ways out it may call. */

#include "kestrel/abi.h"

/* kx.exit / kx.trap as .insn (custom-0, R-type; encodings from kestrel/abi.h). */
#define KX_EXIT .insn r KESTREL_OPC_SIMT_INSN, KESTREL_F3_CONTROL_INSN, KESTREL_F7_EXIT_INSN, x0, x0, x0
#define KX_TRAP(reg) .insn r KESTREL_OPC_SIMT_INSN, KESTREL_F3_CONTROL_INSN, KESTREL_F7_TRAP_INSN, x0, reg, x0

    .text
    .p2align 2

/* void __kestrel_exit(void): the thread exits.  kx.exit does not return; the
 * trap after it would report a device that let a thread run on. */
    .globl __kestrel_exit
    .type __kestrel_exit, @function
__kestrel_exit:
    KX_EXIT
    KX_TRAP(x0)
    .size __kestrel_exit, . - __kestrel_exit

/* void _exit(int): the C library's abort() and exit() end here; on a GPU that
 * can only mean stopping the launch, which __trap() does. */
    .globl _exit
    .type _exit, @function
_exit:
    KX_TRAP(x0)
    j _exit
    .size _exit, . - _exit

/* void __assert_func(const char* file, int line, const char* func,
 *                    const char* expr): the C library's assert(), raised
 * as the SDK's assert() is: code 1 with a1 = file, a2 = line, a3 = expr. */
    .globl __assert_func
    .type __assert_func, @function
__assert_func:
    mv a2, a1
    mv a1, a0
    li t0, 1                  /* KESTREL_TRAP_ASSERT (abi.h is C, not assembler) */
    KX_TRAP(t0)
    j __assert_func
    .size __assert_func, . - __assert_func
