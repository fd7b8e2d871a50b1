// Instruction decoding: one 32-bit word to a pre-decoded Inst the interpreter
// switches on.  Every static instruction is decoded once (memory.hpp keeps the
// decoded pages), so nothing here is on the per-lane hot path.
#pragma once

#include <cstdint>

namespace kestrel::model {

enum class Op : uint8_t {
  kIllegal,
  // RV32I / RV64I
  kLui,
  kAuipc,
  kJal,
  kJalr,
  kBeq,
  kBne,
  kBlt,
  kBge,
  kBltu,
  kBgeu,
  kLb,
  kLh,
  kLw,
  kLd,
  kLbu,
  kLhu,
  kLwu,
  kSb,
  kSh,
  kSw,
  kSd,
  kAddi,
  kSlti,
  kSltiu,
  kXori,
  kOri,
  kAndi,
  kSlli,
  kSrli,
  kSrai,
  kAdd,
  kSub,
  kSll,
  kSlt,
  kSltu,
  kXor,
  kSrl,
  kSra,
  kOr,
  kAnd,
  kAddiw,
  kSlliw,
  kSrliw,
  kSraiw,
  kAddw,
  kSubw,
  kSllw,
  kSrlw,
  kSraw,
  kFence,
  // M
  kMul,
  kMulh,
  kMulhsu,
  kMulhu,
  kDiv,
  kDivu,
  kRem,
  kRemu,
  kMulw,
  kDivw,
  kDivuw,
  kRemw,
  kRemuw,
  // A (funct5 kept in Inst::aux)
  kLrW,
  kScW,
  kAmoW,
  kLrD,
  kScD,
  kAmoD,
  // F
  kFlw,
  kFsw,
  kFmadd,
  kFmsub,
  kFnmsub,
  kFnmadd,
  kFadd,
  kFsub,
  kFmul,
  kFdiv,
  kFsqrt,
  kFsgnj,
  kFsgnjn,
  kFsgnjx,
  kFmin,
  kFmax,
  kFcvtWS,
  kFcvtWuS,
  kFcvtLS,
  kFcvtLuS,
  kFcvtSW,
  kFcvtSWu,
  kFcvtSL,
  kFcvtSLu,
  kFmvXW,
  kFmvWX,
  kFeq,
  kFlt,
  kFle,
  kFclass,
  // Zicsr (CSR number in imm)
  kCsrrw,
  kCsrrs,
  kCsrrc,
  kCsrrwi,
  kCsrrsi,
  kCsrrci,
  // Kestrel SIMT (custom-0)
  kExit,
  kBarrier,
  kTrap,
  kNanosleep,
  kSimtFence,
  // Warp-synchronous (docs/isa.md section 6.1); Inst::aux holds funct7 or the shuffle mode
  kVote,
  kSyncwarp,
  kShuffle,
  kMatch,
  kReduce,
  // Texture fetch (kx.tex, custom-2, docs/isa.md section 2.5): f rd..rd+3 from the object in rs1 at the
  // coordinates f rs3..rs3+2 and the layer in rs2; Inst::aux holds the form (KESTREL_TEX_FORM_*)
  kTex,
  // CUDA atomics (custom-1, docs/isa.md section 2.2); Inst::aux holds funct5
  kKxAmoW,     // CAS, inc, dec on a 32-bit word; CAS reads rd as the compare value
  kKxAmoFadd,  // float add on a 32-bit word: f-register rd and rs2
  kKxCasD,     // 64-bit CAS: one register on RV64, an even/odd pair on RV32
  kKxAmoPair,  // RV32: 64-bit A-extension AMO on even/odd register pairs
  // Special functions (kx.sfu, custom-0 funct3 5); Inst::aux holds funct7 (sfu::Function)
  kSfu,
  kCount
};

// Barrier flavours (Inst::aux of kBarrier).
enum BarrierKind : uint8_t { kBarSync = 1, kBarCount = 2, kBarAnd = 3, kBarOr = 4 };

// AMO operations (Inst::aux of kAmoW/kAmoD): the instruction's funct5.
enum AmoOp : uint8_t {
  kAmoAdd = 0x00,
  kAmoSwap = 0x01,
  kAmoXor = 0x04,
  kAmoOr = 0x08,
  kAmoAnd = 0x0C,
  kAmoMin = 0x10,
  kAmoMax = 0x14,
  kAmoMinu = 0x18,
  kAmoMaxu = 0x1C
};

// Warp-synchronous instructions: those that wait for their membermask to
// converge before executing (docs/isa.md section 6.1).
inline bool is_warp_collective(Op op) {
  return op == Op::kVote || op == Op::kShuffle || op == Op::kMatch || op == Op::kReduce;
}

// x register the interpreter writes when rd is x0: a sink row, so the hot path
// needs no rd == 0 test and x0 always reads zero.
constexpr uint8_t kSinkReg = 32;
constexpr uint8_t kDynamicRm = 7;

struct Inst {
  Op op = Op::kIllegal;
  uint8_t rd = 0;  // kSinkReg when an x-register destination is x0
  uint8_t rs1 = 0;
  uint8_t rs2 = 0;
  uint8_t rs3 = 0;
  uint8_t rm = 0;   // F rounding mode field
  uint8_t aux = 0;  // AMO funct5, barrier kind, warp-synchronous funct7 or shuffle mode
  int32_t imm = 0;  // immediate, CSR number, or branch/jump offset
  uint32_t raw = 0;
};

// Decodes one word for the given XLEN; unknown or reserved encodings (and
// RV64-only ones on RV32) decode to Op::kIllegal.
Inst decode(uint32_t word, unsigned xlen);

// True for instructions whose destination is an f register (for lock-step
// retire records); false for x-register destinations and no destination.
// kx.tex writes four: f rd..rd+3 (kTexResults).
bool writes_freg(Op op);
constexpr unsigned kTexResults = 4;
bool writes_xreg(Op op);

}  // namespace kestrel::model
