/* A small Kestrel device module written by hand, so the runtime tests do not
 * depend on the CUDA toolchain.  It follows docs/isa.md section 5: entry
 * trampolines take the parameter buffer in a0 and return to __kestrel_exit;
 * .kestrel.kernels holds one struct kestrel_kernel_desc per kernel.
 * Built for RV64 (lp64f) and RV32 (ilp32f) from the same source. */
#if __riscv_xlen == 64
#define PTR .dword
#define PTR_BYTES 8
#define LOAD_PTR ld
#else
#define PTR .word
#define PTR_BYTES 4
#define LOAD_PTR lw
#endif

#define KIND_VALUE 0
#define KIND_POINTER 1

  .text
  .globl __kestrel_exit
  .type __kestrel_exit, @function
__kestrel_exit:
  .insn r 0x0b, 0, 0x00, x0, x0, x0   /* kx.exit */

/* fill_index(int* out, int base, int n): out[i] = base + i for the global
 * thread index i = blockIdx.x * blockDim.x + threadIdx.x below n. */
fill_index_entry:
  LOAD_PTR t0, 0(a0)
  lw t1, PTR_BYTES(a0)
  lw t2, PTR_BYTES+4(a0)
  csrr t3, 0xCC3            /* ctaid.x */
  csrr t4, 0xCC6            /* ntid.x  */
  mul t3, t3, t4
  csrr t4, 0xCC0            /* tid.x   */
  add t3, t3, t4
  bge t3, t2, 1f
  add t5, t1, t3
  slli t6, t3, 2
  add t6, t0, t6
  sw t5, 0(t6)
1:
  ret

/* poke(int* p): *p = 1 from every thread, for fault tests. */
poke_entry:
  LOAD_PTR t0, 0(a0)
  li t1, 1
  sw t1, 0(t0)
  ret

/* test::poke(int* p): same code, a second kernel whose base name is "poke". */
ns_poke_entry:
  LOAD_PTR t0, 0(a0)
  li t1, 2
  sw t1, 0(t0)
  ret

/* mixed(char, double, int*, short): only its parameter layout matters. */
mixed_entry:
  ret

  .section .rodata
name_fill_index: .asciz "_Z10fill_indexPiii"
name_poke:       .asciz "_Z4pokePi"
name_ns_poke:    .asciz "_ZN4test4pokeEPi"
name_mixed:      .asciz "_Z5mixedcdPis"
  .balign 4
/* struct kestrel_param_desc: offset, size, align, kind */
params_fill_index:
  .word 0, PTR_BYTES, PTR_BYTES, KIND_POINTER
  .word PTR_BYTES, 4, 4, KIND_VALUE
  .word PTR_BYTES+4, 4, 4, KIND_VALUE
params_poke:
  .word 0, PTR_BYTES, PTR_BYTES, KIND_POINTER
params_mixed:
  .word 0, 1, 1, KIND_VALUE
  .word 8, 8, 8, KIND_VALUE
  .word 16, PTR_BYTES, PTR_BYTES, KIND_POINTER
  .word 16+PTR_BYTES, 2, 2, KIND_VALUE

  .globl _ZN4test5tableE
  .type _ZN4test5tableE, @object
  .size _ZN4test5tableE, 16
  .balign 4
_ZN4test5tableE:            /* __constant__ int test::table[4] */
  .word 10, 20, 30, 40

  .data
  .globl counter
  .type counter, @object
  .size counter, 4
  .balign 4
counter:                    /* __device__ int counter = 7 */
  .word 7

/* The descriptors hold link-time pointers, relocated by the loader, so the
 * section is writable data (the linker would refuse text relocations). */
  .section .kestrel.kernels, "aw"
  .balign PTR_BYTES
  .word 0x4E524B4B, 3, PTR_BYTES+8, PTR_BYTES
  PTR fill_index_entry, name_fill_index, params_fill_index
  .word 0x4E524B4B, 1, PTR_BYTES, PTR_BYTES
  PTR poke_entry, name_poke, params_poke
  .word 0x4E524B4B, 1, PTR_BYTES, PTR_BYTES
  PTR ns_poke_entry, name_ns_poke, params_poke
  .word 0x4E524B4B, 4, 16+PTR_BYTES+PTR_BYTES, 8
  PTR mixed_entry, name_mixed, params_mixed

/* 256 bytes of static __shared__ memory. */
  .section .kestrel.shared, "aw", @nobits
  .globl tile
  .type tile, @object
  .size tile, 256
tile:
  .zero 256
