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
 * KESTREL_PAGE_SHIFT, the page permissions KESTREL_PAGE_READ/WRITE/EXEC and
 * enum kestrel_fault_kind come from tools/contract/contract.toml, the one
 * description the RTL package is generated from too (docs/contract.md). */
#include "abi_contract.h"

#define KESTREL_PAGE_SIZE        (1u << KESTREL_PAGE_SHIFT)

/* ---- Kernel entry state ------------------------------------------------------
 * Every thread starts at LaunchDesc.entry_pc with all integer and FP registers
 * zero except: ra = LaunchDesc.exit_pc, sp = KESTREL_LOCAL_BASE + stack_bytes,
 * gp = LaunchDesc.gp, a0 = LaunchDesc.param_addr.  The entry is a compiler-made
 * trampoline that unpacks the CUDA-layout parameter buffer at a0 and calls the
 * kernel; returning lands on exit_pc, which executes KX_EXIT. */

/* ---- Custom SIMT extension: opcode custom-0 (0x0B), R-type ------------------
 * .insn r 0x0b, funct3, funct7, rd, rs1, rs2 */
#define KESTREL_OPC_SIMT        0x0Bu
#define KESTREL_F3_CONTROL      0u   /* funct7 below                                  */
#define KESTREL_F7_EXIT         0x00u /* thread exits                                 */
#define KESTREL_F7_BAR_SYNC     0x01u /* block barrier (__syncthreads); rs1 = id, x0 */
#define KESTREL_F7_BAR_COUNT    0x02u /* rd = #threads with rs1 != 0, after barrier  */
#define KESTREL_F7_BAR_AND      0x03u /* rd = all arrived threads had rs1 != 0       */
#define KESTREL_F7_BAR_OR       0x04u /* rd = any arrived thread had rs1 != 0        */
#define KESTREL_F7_TRAP         0x08u /* fault KESTREL_FAULT_TRAP, rs1 = code        */
#define KESTREL_F7_NANOSLEEP    0x09u /* threads sleep at least rs1 ns (max 1 ms)     */
#define KESTREL_F7_FENCE_BLOCK  0x10u /* __threadfence_block                          */
#define KESTREL_F7_FENCE_DEVICE 0x11u /* __threadfence                                */
#define KESTREL_F7_FENCE_SYSTEM 0x12u /* __threadfence_system                         */
/* Warp-synchronous instructions (docs/isa.md sections 2 and 6.1).  The
 * membermask is rs2 (funct3 1 and 3) or rs3 (shuffle); 32-bit results are
 * sign-extended to XLEN, as RV64's W instructions do. */
#define KESTREL_F3_VOTE         1u   /* R-type, funct7 below, rs1 = predicate         */
#define KESTREL_F7_VOTE_ALL     0x00u /* rd = every participant's rs1 != 0           */
#define KESTREL_F7_VOTE_ANY     0x01u /* rd = some participant's rs1 != 0            */
#define KESTREL_F7_VOTE_UNI     0x02u /* rd = all participants' (rs1 != 0) are equal  */
#define KESTREL_F7_VOTE_BALLOT  0x03u /* rd = lanes of participants with rs1 != 0     */
#define KESTREL_F7_SYNCWARP     0x04u /* warp barrier over the membermask             */
#define KESTREL_F3_SHUFFLE      2u   /* R4-type: rs1 value, rs2 control, rs3 mask     */
#define KESTREL_SHFL_IDX        0u   /* funct2: source lane = control lane field      */
#define KESTREL_SHFL_UP         1u   /* funct2: lane - delta                          */
#define KESTREL_SHFL_DOWN       2u   /* funct2: lane + delta                          */
#define KESTREL_SHFL_XOR        3u   /* funct2: lane ^ mask (butterfly)               */
#define KESTREL_SHFL_LANE_MASK  0x1Fu /* control bits 4..0: lane, delta or xor mask   */
#define KESTREL_SHFL_SEG_SHIFT  8u   /* control bits 12..8: segment mask = 32 - width */
#define KESTREL_F3_MATCH        3u   /* R-type, funct7 below, rs1 = value             */
#define KESTREL_F7_MATCH_ANY_W  0x00u /* rd = participants whose rs1[31:0] equals mine */
#define KESTREL_F7_MATCH_ALL_W  0x01u /* rd = participants if all rs1[31:0] equal, else 0 */
#define KESTREL_F7_MATCH_ANY    0x02u /* as MATCH_ANY_W over all XLEN bits           */
#define KESTREL_F7_MATCH_ALL    0x03u /* as MATCH_ALL_W over all XLEN bits           */
#define KESTREL_F7_REDUCE_ADD   0x08u /* rd = sum of participants' rs1[31:0] mod 2^32 */
#define KESTREL_F7_REDUCE_MIN   0x09u /* signed 32-bit minimum                        */
#define KESTREL_F7_REDUCE_MAX   0x0Au /* signed 32-bit maximum                        */
#define KESTREL_F7_REDUCE_MINU  0x0Bu /* unsigned 32-bit minimum                      */
#define KESTREL_F7_REDUCE_MAXU  0x0Cu /* unsigned 32-bit maximum                      */
#define KESTREL_F7_REDUCE_AND   0x0Du /* bitwise and of rs1[31:0]                     */
#define KESTREL_F7_REDUCE_OR    0x0Eu /* bitwise or                                   */
#define KESTREL_F7_REDUCE_XOR   0x0Fu /* bitwise xor                                  */
#define KESTREL_NANOSLEEP_MAX_NS 1000000u /* longer requests sleep this long (guide: ~1 ms) */
#define KESTREL_F3_TEX          4u   /* reserved: texture/surface                     */
/* Special-function unit (docs/isa.md section 2, docs/fpu.md): CUDA's fast
 * intrinsics.  R-type, f registers: rd = function(rs1), rs2 must be 0; round
 * to nearest even, subnormal results kept, no fflags; .insn r 0x0b, 5, funct7,
 * frd, frs1, x0 */
#define KESTREL_F3_SFU          5u
#define KESTREL_F7_SFU_RCP      0x00u /* ~1/x           (__fdividef, __frcp approx)   */
#define KESTREL_F7_SFU_RSQRT    0x01u /* ~1/sqrt(x)     (rsqrtf)                      */
#define KESTREL_F7_SFU_EX2      0x02u /* ~2^x           (__expf, __exp10f, __powf)    */
#define KESTREL_F7_SFU_LG2      0x03u /* ~log2(x)       (__log2f, __logf, __log10f)   */
#define KESTREL_F7_SFU_SIN      0x04u /* ~sin(x), radians (__sinf)                    */
#define KESTREL_F7_SFU_COS      0x05u /* ~cos(x), radians (__cosf)                    */
/* CUDA atomics the A extension lacks (docs/isa.md section 2.2): custom-1,
 * laid out as the A extension's AMOs: funct5 [31:27], aq [26], rl [25], rs2,
 * rs1 = address, funct3 = width, rd.  Written with clang's assembler as
 * .insn r 0x2b, funct3, funct5 << 2 | aq << 1 | rl, rd, rs1, rs2 */
#define KESTREL_OPC_ATOMIC      0x2Bu
#define KESTREL_F3_ATOMIC_W     2u   /* 32-bit word                                    */
#define KESTREL_F3_ATOMIC_D     3u   /* 64-bit: one register on RV64, an even/odd pair on RV32 */
#define KESTREL_F5_AMO_CAS      0x05u /* .w/.d: rd in = compare, rd out = old; rs2 = new (Zacas amocas) */
#define KESTREL_F5_AMO_INC      0x06u /* .w: old >= rs2 ? 0 : old + 1 (atomicInc)       */
#define KESTREL_F5_AMO_DEC      0x07u /* .w: old == 0 || old > rs2 ? rs2 : old - 1 (atomicDec) */
#define KESTREL_F5_AMO_FADD     0x09u /* .w: f registers, fd = old, memory = old + fs2 (RNE) */
/* funct3 KESTREL_F3_ATOMIC_D with the A extension's funct5 (add 0x00, swap 0x01,
 * xor 0x04, or 0x08, and 0x0C, min 0x10, max 0x14, minu 0x18, maxu 0x1C) is the
 * 64-bit AMO on register pairs, RV32 only (RV64 has amo*.d). */

/* Trap codes (rs1 of KX_TRAP). */
#define KESTREL_TRAP_USER    0u /* __trap()                               */
#define KESTREL_TRAP_ASSERT  1u /* assert(); a1 = file, a2 = line, a3 = expr */

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

/* ---- Read-only CSRs (custom user read-only range 0xCC0-0xCFF) --------------- */
#define KESTREL_CSR_TID_X     0xCC0u
#define KESTREL_CSR_TID_Y     0xCC1u
#define KESTREL_CSR_TID_Z     0xCC2u
#define KESTREL_CSR_CTAID_X   0xCC3u
#define KESTREL_CSR_CTAID_Y   0xCC4u
#define KESTREL_CSR_CTAID_Z   0xCC5u
#define KESTREL_CSR_NTID_X    0xCC6u
#define KESTREL_CSR_NTID_Y    0xCC7u
#define KESTREL_CSR_NTID_Z    0xCC8u
#define KESTREL_CSR_NCTAID_X  0xCC9u
#define KESTREL_CSR_NCTAID_Y  0xCCAu
#define KESTREL_CSR_NCTAID_Z  0xCCBu
#define KESTREL_CSR_LANEID    0xCCCu
#define KESTREL_CSR_WARPID    0xCCDu /* warp index within the block            */
#define KESTREL_CSR_SMID      0xCCEu
#define KESTREL_CSR_WARPSIZE  0xCCFu
#define KESTREL_CSR_ACTIVEMASK 0xCD0u /* lanes executing this instruction      */
#define KESTREL_CSR_SHARED_BASE 0xCD1u /* this block's shared window base       */
#define KESTREL_CSR_SHARED_SIZE 0xCD2u /* static + dynamic shared bytes         */
#define KESTREL_CSR_DYN_SHARED  0xCD3u /* first byte of dynamic shared memory   */
/* Standard Zicntr: cycle 0xC00, time 0xC01, instret 0xC02 (+0xC80.. on RV32). */

#endif /* KESTREL_ABI_H */
