/* Layout of the metadata a Kestrel device module (an RISC-V ELF executable
 * linked at base 0: position independent on RV64, static with its relocations
 * kept on RV32) carries for the runtime.
 * Written by the device SDK (sw_kernels/sdk/kestrel_entry.h), read by
 * runtime/module.cpp.  docs/isa.md section "Device modules" describes it. */
#ifndef KESTREL_MODULE_FORMAT_H
#define KESTREL_MODULE_FORMAT_H
#include <stdint.h>

#define KESTREL_KERNEL_DESC_MAGIC 0x4E524B4Bu /* "KKRN" little-endian */
#define KESTREL_KERNELS_SECTION ".kestrel.kernels"
#define KESTREL_SHARED_SECTION ".kestrel.shared"
#define KESTREL_STACK_SECTION ".kestrel.stack"

/* One parameter of a kernel, in CUDA's parameter-buffer layout: each parameter
 * starts at the next multiple of its alignment, as NVCC lays out .param space. */
enum kestrel_param_kind {
  KESTREL_PARAM_VALUE = 0,   /* bytes copied as they are                        */
  KESTREL_PARAM_POINTER = 1  /* a pointer: 8 bytes on the host, XLEN/8 on device */
};

struct kestrel_param_desc {
  uint32_t offset; /* byte offset in the device parameter buffer */
  uint32_t size;   /* device size in bytes                        */
  uint32_t align;  /* device alignment in bytes                   */
  uint32_t kind;   /* enum kestrel_param_kind                     */
};

/* One record per kernel in section .kestrel.kernels.  The pointer fields are
 * XLEN wide (ELF32 or ELF64 as the module's class says) and hold link-time
 * addresses (module base 0); the loader adds the load base. */
struct kestrel_kernel_desc {
  uint32_t magic;       /* KESTREL_KERNEL_DESC_MAGIC                      */
  uint32_t num_params;
  uint32_t param_bytes; /* size of the whole parameter buffer             */
  uint32_t param_align; /* alignment of the whole parameter buffer        */
  uintptr_t entry;      /* trampoline: void entry(const char* params)     */
  uintptr_t name;       /* NUL-terminated mangled kernel name             */
  uintptr_t params;     /* const struct kestrel_param_desc[num_params]    */
};

/* Optional section .kestrel.stack, a compatible addition beside the
 * descriptors, which keep their layout and magic (modules from a kestrel-cc
 * without it declare no need and load as before): one record per descriptor of
 * .kestrel.kernels, in the same order, with the stack a thread of that kernel
 * needs by itself, the deepest path of its call graph as kestrel-cc reads it
 * from the linked code.  Not loaded (no SHF_ALLOC).  The runtime gives each
 * thread at least stack_bytes beyond its parameter reserve; the flags say
 * which part of the call graph the figure leaves to cudaLimitStackSize. */
enum kestrel_stack_flag {
  KESTREL_STACK_RECURSION = 1, /* a call back into a function on the path: counted once */
  KESTREL_STACK_INDIRECT = 2,  /* a call through a pointer: its callee not counted       */
  KESTREL_STACK_DYNAMIC = 4    /* a frame sized at run time: only its fixed part counted */
};

struct kestrel_kernel_stack {
  uint32_t stack_bytes; /* bytes below the entry's stack pointer, a multiple of 16 */
  uint32_t flags;       /* enum kestrel_stack_flag                               */
};

/* Symbols every module defines (linker script sw_kernels/crt/kestrel.ld):
 *   __kestrel_exit            the exit stub kernels return to
 *   __global_pointer$         value for gp
 *   __kestrel_shared_start    start of static __shared__ data (shared window base)
 *   __kestrel_shared_end      end of static __shared__ data = dynamic shared start
 *   __kestrel_image_end       end of the loadable image                         */

#endif /* KESTREL_MODULE_FORMAT_H */
