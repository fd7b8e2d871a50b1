// The disassembler of the instruction trace (kestrel/model/disasm.hpp): the
// base ISA in LLVM's syntax with ABI register names, CSRs by name, targets as
// addresses, and every group of Kestrel's custom instructions by its
// docs/isa.md mnemonic; words that are no instruction are ".word".
#include <gtest/gtest.h>

#include <string>

#include "kestrel/abi.h"
#include "kestrel/model/disasm.hpp"
#include "kestrel/model/rv_assembler.hpp"

namespace kestrel::model::test {
namespace {

using namespace kestrel::model::rvasm;

std::string one(unsigned xlen, const std::function<void(Assembler&)>& emit, uint64_t pc = 0x1000) {
  Assembler a(xlen);
  emit(a);
  return disassemble(a.finish().at(0), xlen, pc);
}

// R-type custom-0 word: .insn r 0x0b, funct3, funct7, rd, rs1, rs2
uint32_t simt(unsigned funct3, unsigned funct7, unsigned rd, unsigned rs1, unsigned rs2) {
  return (funct7 << 25) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | 0x0B;
}

TEST(Disassembler, BaseIsaInLlvmSyntax) {
  EXPECT_EQ(one(64, [](Assembler& a) { a.addi(a0, a1, -5); }), "addi a0, a1, -5");
  EXPECT_EQ(one(64, [](Assembler& a) { a.lw(t0, sp, 16); }), "lw t0, 16(sp)");
  EXPECT_EQ(one(64, [](Assembler& a) { a.sw(s2, a0, -4); }), "sw s2, -4(a0)");
  EXPECT_EQ(one(64, [](Assembler& a) { a.lui(a5, 0x12345); }), "lui a5, 0x12345");
  EXPECT_EQ(one(64, [](Assembler& a) { a.mul(t3, t4, t5); }), "mul t3, t4, t5");
  EXPECT_EQ(one(64, [](Assembler& a) { a.addiw(a0, a0, 1); }), "addiw a0, a0, 1");
  EXPECT_EQ(one(
                64,
                [](Assembler& a) {
                  a.bind("top");
                  a.bne(a0, zero, "top");
                },
                0x10000040),
            "bne a0, zero, 0x10000040");
  EXPECT_EQ(one(64, [](Assembler& a) { a.csrr(t0, KESTREL_CSR_TID_X); }), "csrr t0, tid.x");
  EXPECT_EQ(one(64, [](Assembler& a) { a.csrrw(zero, 0x003, a0); }), "csrrw zero, fcsr, a0");
  EXPECT_EQ(one(64, [](Assembler& a) { a.amo(0x00, 4, t2, a0, t1); }), "amoadd.w t2, t1, (a0)");
  EXPECT_EQ(one(64, [](Assembler& a) { a.amo(0x1C, 8, t2, a0, t1); }), "amomaxu.d t2, t1, (a0)");
  EXPECT_EQ(one(64, [](Assembler& a) { a.flw(f(1), a0, 8); }), "flw ft1, 8(a0)");
  EXPECT_EQ(one(64, [](Assembler& a) { a.fadd(f(10), f(11), f(12)); }), "fadd.s fa0, fa1, fa2");
  EXPECT_EQ(disassemble(0xFFFFFFFF, 64, 0), ".word 0xffffffff");
  // RV64-only on RV32 is no instruction.
  EXPECT_EQ(one(32, [](Assembler& a) { a.addiw(a0, a0, 1); }).rfind(".word ", 0), 0u);
}

TEST(Disassembler, KestrelExtensions) {
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_exit(); }), "kx.exit");
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_bar_sync(); }), "kx.bar.sync zero");
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_bar_count(a0, a1); }), "kx.bar.count a0, a1");
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_amoinc_w(a0, a1, a2); }), "kx.amoinc.w a0, a2, (a1)");
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_amofadd_s(f(10), a1, f(11)); }), "kx.amofadd.s fa0, fa1, (a1)");
  EXPECT_EQ(disassemble(simt(KESTREL_F3_VOTE, KESTREL_F7_VOTE_BALLOT, 10, 11, 12), 64, 0),
            "kx.vote.ballot a0, a1, a2");
  EXPECT_EQ(disassemble(simt(KESTREL_F3_VOTE, KESTREL_F7_SYNCWARP, 0, 0, 12), 64, 0), "kx.syncwarp a2");
  EXPECT_EQ(disassemble(simt(KESTREL_F3_MATCH, KESTREL_F7_REDUCE_MAXU, 10, 11, 12), 64, 0),
            "kx.red.maxu a0, a1, a2");
  EXPECT_EQ(disassemble(simt(KESTREL_F3_MATCH, KESTREL_F7_MATCH_ALL_W, 10, 11, 12), 64, 0),
            "kx.match.all.w a0, a1, a2");
  EXPECT_EQ(disassemble(simt(KESTREL_F3_SFU, KESTREL_F7_SFU_RSQRT, 10, 11, 0), 64, 0),
            "kx.sfu.rsqrt fa0, fa1");
  EXPECT_EQ(disassemble(simt(KESTREL_F3_CONTROL, KESTREL_F7_FENCE_DEVICE, 0, 0, 0), 64, 0),
            "kx.fence.device");
  // Shuffle, R4: rs3 (the membermask) in bits 31:27, the mode in 26:25.
  const uint32_t shfl_down = (13u << 27) | (uint32_t{KESTREL_SHFL_DOWN} << 25) | (12u << 20) | (11u << 15) |
                             (uint32_t{KESTREL_F3_SHUFFLE} << 12) | (10u << 7) | 0x0B;
  EXPECT_EQ(disassemble(shfl_down, 64, 0), "kx.shfl.down a0, a1, a2, a3");
  // Texture fetches, R4: the form in funct3.
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_tex(KESTREL_TEX_FORM_1D, f(0), a0, zero, f(28)); }),
            "kx.tex.1d ft0, a0, zero, ft8");
  EXPECT_EQ(one(32, [](Assembler& a) { a.kx_tex(KESTREL_TEX_FORM_2D, f(4), a1, zero, f(8)); }),
            "kx.tex.2d ft4, a1, zero, fs0");
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_tex(KESTREL_TEX_FORM_3D, f(28), t0, t1, f(29)); }),
            "kx.tex.3d ft8, t0, t1, ft9");
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_tex(KESTREL_TEX_FORM_1D_LAYERED, f(10), a0, a2, f(12)); }),
            "kx.tex.1dl fa0, a0, a2, fa2");
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_tex(KESTREL_TEX_FORM_2D_LAYERED, f(0), a0, a2, f(28)); }),
            "kx.tex.2dl ft0, a0, a2, ft8");
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_tex(KESTREL_TEX_FORM_1D_FETCH, f(4), a0, a3, f(28)); }),
            "kx.tex.1dfetch ft4, a0, a3, ft8");
  // Reserved forms and operations, and register groups past f31, are no instruction.
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_tex(6, f(0), a0, zero, f(28)); }).rfind(".word ", 0), 0u);
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_tex(0, f(0), a0, zero, f(28), 1); }).rfind(".word ", 0), 0u);
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_tex(0, f(29), a0, zero, f(28)); }).rfind(".word ", 0), 0u);
  EXPECT_EQ(one(64, [](Assembler& a) { a.kx_tex(0, f(0), a0, zero, f(30)); }).rfind(".word ", 0), 0u);
}

}  // namespace
}  // namespace kestrel::model::test
