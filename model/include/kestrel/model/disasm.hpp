// RISC-V assembly text of one instruction word, Kestrel's SIMT and atomic
// extensions included (docs/isa.md section 2: kx.bar.sync, kx.vote.ballot,
// kx.shfl.down, kx.amocas.w, kx.sfu.rsqrt, kx.tex.2d, ...), for the instruction trace
// (KESTREL_ITRACE) and the lock-step reports.  ABI register names;
// branch and jump targets as absolute addresses from `pc`.  A word that
// is not an instruction of the XLEN is ".word 0x...".
#pragma once

#include <cstdint>
#include <string>

namespace kestrel::model {

std::string disassemble(uint32_t word, unsigned xlen, uint64_t pc);

// "zero", "ra", ..., "t6" for x0..x31; "ft0", ..., "ft11" for f0..f31.
const char* x_register_name(unsigned reg);
const char* f_register_name(unsigned reg);

}  // namespace kestrel::model
