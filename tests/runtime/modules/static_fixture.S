/* The runtime test fixture in the form kestrel-cc gives RV32 modules: a
 * static executable at base 0 whose relocations are kept (ld.lld
 * --emit-relocs; docs/isa.md section 8).  On top of fixture.S's kernels it
 * holds one of each kind of address the loader must or must not move:
 *   - lui/addi/sw of a module symbol (R_RISCV_HI20 moves, LO12 does not),
 *   - lui/addi of an undefined weak symbol and of an absolute one (stay),
 *   - a call (PC-relative: stays),
 *   - words holding a module address (moves), an absolute address and the
 *     undefined weak symbol (stay), and a label difference (ADD32/SUB32,
 *     stays).
 * The build links it with --defsym=fixed_address=0x12345000. */
#include "fixture.S"

  .text
  .globl absolute_addresses
  .type absolute_addresses, @function
absolute_addresses:
  lui a0, %hi(counter)
  addi a0, a0, %lo(counter)
  sw zero, %lo(counter)(a0)
  lui a1, %hi(optional_hook)
  addi a1, a1, %lo(optional_hook)
  lui a2, %hi(fixed_address)
  addi a2, a2, %lo(fixed_address)
  call fill_index_entry
1:
  ret
2:
  .size absolute_addresses, . - absolute_addresses

  .weak optional_hook

  .data
  .globl address_words
  .type address_words, @object
  .balign 4
address_words:
  .word counter
  .word fixed_address
  .word optional_hook
  .word 2b - 1b
  .size address_words, . - address_words
