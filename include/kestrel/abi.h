/* Kestrel ISA and ABI constants shared by the device SDK, the functional model,
 * the runtime and the RTL test benches.  docs/isa.md is the prose version of this
 * file; the two must agree.  Plain C so that device code can include it too.
 * The constants the hardware shares are generated (abi_contract.h, below). */
#ifndef KESTREL_ABI_H
#define KESTREL_ABI_H

/* ---- What the hardware shares -----------------------------------------------
 * The device virtual address map (KESTREL_NULL_GUARD_END, KESTREL_GLOBAL_BASE,
 * KESTREL_GLOBAL_LIMIT, KESTREL_LOCAL_BASE, KESTREL_LOCAL_LIMIT; identical for
 * XLEN=32 and XLEN=64, every device address fits in 32 bits), the page size
 * KESTREL_PAGE_SHIFT, the page permissions KESTREL_PAGE_READ/WRITE/EXEC,
 * enum kestrel_fault_kind and the ISA constants (custom opcodes, SIMT funct3/
 * funct7 values, CSR numbers; described below) come from
 * tools/contract/contract.toml, the one description the RTL package is
 * generated from too (docs/contract.md). */
#include "abi_contract.h"

/* ---- Custom instructions as the assembler writes them -------------------------
 * The generated NAME_INSN forms carry no C suffix, so they go into .insn
 * operands: bare in assembly sources (KESTREL_OPC_SIMT_INSN, ...), as text in
 * inline assembly through these macros, which give an instruction's opcode,
 * funct3 and funct7 (funct2 for r4) operands:
 *   ".insn r " KESTREL_INSN_SIMT(CONTROL, BAR_SYNC) ", x0, x0, x0"
 *   ".insn r4 " KESTREL_INSN_SHFL(DOWN) ", %0, %1, %2, %3"
 *   ".insn r " KESTREL_INSN_ATOMIC(W, AMO_CAS) ", %0, %2, %3"
 *   "csrr %0, " KESTREL_STR(KESTREL_CSR_LANEID_INSN) */
#define KESTREL_STR_(x) #x
#define KESTREL_STR(x) KESTREL_STR_(x)
#define KESTREL_INSN_SIMT(f3, f7)                                                          \
  KESTREL_STR(KESTREL_OPC_SIMT_INSN) ", " KESTREL_STR(KESTREL_F3_##f3##_INSN) ", " \
  KESTREL_STR(KESTREL_F7_##f7##_INSN)
#define KESTREL_INSN_SHFL(mode)                                                                \
  KESTREL_STR(KESTREL_OPC_SIMT_INSN) ", " KESTREL_STR(KESTREL_F3_SHUFFLE_INSN) ", " \
  KESTREL_STR(KESTREL_SHFL_##mode##_INSN)
#define KESTREL_INSN_ATOMIC(width, f7)                                                            \
  KESTREL_STR(KESTREL_OPC_ATOMIC_INSN) ", " KESTREL_STR(KESTREL_F3_ATOMIC_##width##_INSN) ", " \
  KESTREL_STR(KESTREL_F7_##f7##_INSN)

#define KESTREL_PAGE_SIZE        (1u << KESTREL_PAGE_SHIFT)

/* ---- Kernel entry state ------------------------------------------------------
 * Every thread starts at LaunchDesc.entry_pc with all integer and FP registers
 * zero except: ra = LaunchDesc.exit_pc, sp = KESTREL_LOCAL_BASE + stack_bytes,
 * gp = LaunchDesc.gp, a0 = LaunchDesc.param_addr.  The entry is a compiler-made
 * trampoline that unpacks the CUDA-layout parameter buffer at a0 and calls the
 * kernel; returning lands on exit_pc, which executes KX_EXIT. */

/* ---- Custom SIMT extension: opcode custom-0 (KESTREL_OPC_SIMT), R-type ------
 * .insn r 0x0b, funct3, funct7, rd, rs1, rs2
 * funct3 KESTREL_F3_CONTROL: KESTREL_F7_EXIT, _BAR_SYNC/_COUNT/_AND/_OR, _TRAP,
 * _NANOSLEEP (at most KESTREL_NANOSLEEP_MAX_NS), _FENCE_BLOCK/_DEVICE/_SYSTEM.
 * Warp-synchronous instructions (docs/isa.md sections 2 and 6.1): the
 * membermask is rs2 (funct3 KESTREL_F3_VOTE and KESTREL_F3_MATCH) or rs3
 * (KESTREL_F3_SHUFFLE, funct2 KESTREL_SHFL_*); 32-bit results are
 * sign-extended to XLEN, as RV64's W instructions do.  funct3 KESTREL_F3_TEX
 * is reserved for texture/surface.
 * Special-function unit (docs/isa.md section 2, docs/fpu.md): CUDA's fast
 * intrinsics, funct3 KESTREL_F3_SFU, KESTREL_F7_SFU_*.  R-type, f registers:
 * rd = function(rs1), rs2 must be 0; round to nearest even, subnormal results
 * kept, no fflags; .insn r 0x0b, 5, funct7, frd, frs1, x0
 * CUDA atomics the A extension lacks (docs/isa.md section 2.2): custom-1
 * (KESTREL_OPC_ATOMIC), laid out as the A extension's AMOs: funct5 [31:27],
 * aq [26], rl [25], rs2, rs1 = address, funct3 = width (KESTREL_F3_ATOMIC_W/D),
 * rd; funct5 KESTREL_F5_AMO_CAS/INC/DEC/FADD.  Written with clang's assembler
 * as .insn r 0x2b, funct3, funct5 << 2 | aq << 1 | rl, rd, rs1, rs2
 * funct3 KESTREL_F3_ATOMIC_D with the A extension's funct5 (add 0x00, swap 0x01,
 * xor 0x04, or 0x08, and 0x0C, min 0x10, max 0x14, minu 0x18, maxu 0x1C) is the
 * 64-bit AMO on register pairs, RV32 only (RV64 has amo*.d).
 * The values, with one comment each, are in abi_contract.h (generated from
 * tools/contract/contract.toml with the RTL's kestrel_pkg). */

/* Trap codes (rs1 of KX_TRAP). */
#define KESTREL_TRAP_USER    0u /* __trap()                               */
#define KESTREL_TRAP_ASSERT  1u /* assert(); a1 = file, a2 = line, a3 = expr */
#define KESTREL_TRAP_HEAP    2u /* device free() of a pointer malloc did not return, or freed twice */

/* ---- Device printf FIFO (docs/isa.md section 9) ----------------------------
 * A module whose code calls printf has the XLEN-wide variable below; before
 * each launch of it the runtime stores there the address of the FIFO: a
 * 16-byte header of 32-bit words (head: bytes reserved, advanced by an AMO;
 * capacity: bytes of record space; dropped: records that did not fit), then
 * the records.  A record: u32 size (multiple of 8), u32 commit word (written
 * last), u32 argument count | flags << 16, u32 format bytes; one kind byte per
 * argument padded to 8; one u64 per argument; the format text and then the
 * text of each non-null string argument, each NUL-terminated; padding. */
#define KESTREL_PRINTF_SYMBOL              "__kestrel_printf_fifo"
#define KESTREL_PRINTF_HEADER_BYTES        16u
#define KESTREL_PRINTF_HEAD_WORD           0u
#define KESTREL_PRINTF_CAPACITY_WORD       1u
#define KESTREL_PRINTF_DROPPED_WORD        2u
#define KESTREL_PRINTF_RECORD_HEADER_BYTES 16u
#define KESTREL_PRINTF_COMMIT              0x4652504Bu /* "KPRF" */
#define KESTREL_PRINTF_MAX_ARGS            32u  /* guide B.17.2 */
#define KESTREL_PRINTF_MAX_STRING          4095u /* longer texts are cut */
#define KESTREL_PRINTF_ARG_INTEGER         0u   /* value sign/zero-extended to 64 bits */
#define KESTREL_PRINTF_ARG_DOUBLE          1u   /* IEEE double bits (float promoted) */
#define KESTREL_PRINTF_ARG_STRING          2u   /* char pointer; its text follows if non-null */
#define KESTREL_PRINTF_ARG_POINTER         3u   /* any other pointer */
#define KESTREL_PRINTF_FLAG_ASSERT         1u   /* the message of a failed assert() */
#define KESTREL_PRINTF_DEFAULT_BYTES       (1u << 20) /* cudaLimitPrintfFifoSize default */

/* ---- Device heap (guide B.18; sw_kernels/sdk/include/kestrel_heap.h) -----------
 * One region of global memory per device: a header of 64-bit words (top: offset
 * from the heap's base of the first byte no block has used yet; end: the
 * region's size; one free-list head per size class: change count << 32 | offset
 * of the first free block, 0 for none), then blocks.  A block of class c is
 * KESTREL_HEAP_MIN_BLOCK << c bytes; its header's first u32 is
 * KESTREL_HEAP_BLOCK_MAGIC | c << 1 | in-use bit, its second u32 (while free)
 * the offset of the next free block; malloc returns the block + 16.  Modules
 * that use the heap have the pointer KESTREL_HEAP_SYMBOL, which the runtime
 * sets to the heap's base before each launch. */
#define KESTREL_HEAP_SYMBOL          "__kestrel_heap"
#define KESTREL_HEAP_HEADER_BYTES    256u
#define KESTREL_HEAP_TOP_WORD        0u
#define KESTREL_HEAP_END_WORD        1u
#define KESTREL_HEAP_LISTS_WORD      2u
#define KESTREL_HEAP_CLASSES         27u /* 32 bytes to 2 GiB */
#define KESTREL_HEAP_MIN_BLOCK       32u
#define KESTREL_HEAP_BLOCK_HEADER    16u
#define KESTREL_HEAP_BLOCK_MAGIC     0x4B485000u /* "\0PHK" */
#define KESTREL_HEAP_DEFAULT_BYTES   (8u << 20) /* cudaLimitMallocHeapSize default (guide B.18.1) */
#define KESTREL_HEAP_MAX_BYTES       (1u << 31) /* block offsets are 32-bit */

/* ---- Grid synchronization (cooperative_groups.h grid_group::sync) -------------
 * Modules whose code calls grid_group::sync() have the array of 32-bit words
 * KESTREL_GRID_SYNC_SYMBOL.  Before every launch of such a module the CUDA
 * runtime writes it: flag = 1 for a cudaLaunchCooperativeKernel launch (whose
 * blocks are all resident at once), else 0; count = generation = 0.  A
 * block's thread 0 reads the generation, adds 1 to the count with an AMO;
 * the last block resets the count and adds 1 to the generation, the others
 * wait for it to change (docs/isa.md section 11). */
#define KESTREL_GRID_SYNC_SYMBOL          "__kestrel_grid_sync"
#define KESTREL_GRID_SYNC_WORDS           4u
#define KESTREL_GRID_SYNC_FLAG_WORD       0u
#define KESTREL_GRID_SYNC_COUNT_WORD      1u
#define KESTREL_GRID_SYNC_GENERATION_WORD 2u

/* ---- CSRs --------------------------------------------------------------------
 * Kestrel's read-only CSRs (custom user read-only range 0xCC0-0xCFF,
 * KESTREL_CSR_TID_X ... KESTREL_CSR_DYN_SHARED) and the standard Zicntr
 * counters (KESTREL_CSR_CYCLE/TIME/INSTRET, +0x80 for the high halves on
 * RV32) are in abi_contract.h. */

#endif /* KESTREL_ABI_H */
