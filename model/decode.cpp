#include "decode.hpp"

#include "kestrel/abi.h"

namespace kestrel::model {
namespace {

// Sign-extends the low `bits` bits of value.
int32_t sign_extend(uint32_t value, unsigned bits) {
  const uint32_t sign = 1u << (bits - 1);
  return static_cast<int32_t>(((value & ((sign << 1) - 1)) ^ sign) - sign);
}

int32_t imm_i(uint32_t w) { return sign_extend(w >> 20, 12); }
int32_t imm_s(uint32_t w) { return sign_extend(((w >> 25) << 5) | ((w >> 7) & 0x1F), 12); }
int32_t imm_b(uint32_t w) {
  return sign_extend(
      ((w >> 31) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 0x3F) << 5) | (((w >> 8) & 0xF) << 1), 13);
}
int32_t imm_u(uint32_t w) { return static_cast<int32_t>(w & 0xFFFFF000u); }
int32_t imm_j(uint32_t w) {
  return sign_extend(((w >> 31) << 20) | (w & 0xFF000) | (((w >> 20) & 1) << 11) | (((w >> 21) & 0x3FF) << 1),
                     21);
}

// Rounding-mode fields 5 and 6 are reserved; 7 (dynamic) is checked against
// frm when the instruction executes.
bool valid_static_rm(uint32_t rm) { return rm != 5 && rm != 6; }

Inst decode_op_fp(Inst in, uint32_t w, bool rv64) {
  const uint32_t funct7 = w >> 25;
  const uint32_t funct3 = (w >> 12) & 7;
  const uint32_t rs2 = (w >> 20) & 0x1F;
  const bool rm_ok = valid_static_rm(funct3);
  auto with_rm = [&](Op op) {
    in.op = rm_ok ? op : Op::kIllegal;
    return in;
  };
  switch (funct7) {
    case 0x00:
      return with_rm(Op::kFadd);
    case 0x04:
      return with_rm(Op::kFsub);
    case 0x08:
      return with_rm(Op::kFmul);
    case 0x0C:
      return with_rm(Op::kFdiv);
    case 0x2C:
      if (rs2 == 0) return with_rm(Op::kFsqrt);
      break;
    case 0x10:
      if (funct3 == 0) in.op = Op::kFsgnj;
      if (funct3 == 1) in.op = Op::kFsgnjn;
      if (funct3 == 2) in.op = Op::kFsgnjx;
      return in;
    case 0x14:
      if (funct3 == 0) in.op = Op::kFmin;
      if (funct3 == 1) in.op = Op::kFmax;
      return in;
    case 0x60:
      if (rs2 == 0) return with_rm(Op::kFcvtWS);
      if (rs2 == 1) return with_rm(Op::kFcvtWuS);
      if (rs2 == 2 && rv64) return with_rm(Op::kFcvtLS);
      if (rs2 == 3 && rv64) return with_rm(Op::kFcvtLuS);
      break;
    case 0x68:
      if (rs2 == 0) return with_rm(Op::kFcvtSW);
      if (rs2 == 1) return with_rm(Op::kFcvtSWu);
      if (rs2 == 2 && rv64) return with_rm(Op::kFcvtSL);
      if (rs2 == 3 && rv64) return with_rm(Op::kFcvtSLu);
      break;
    case 0x70:
      if (rs2 == 0 && funct3 == 0) in.op = Op::kFmvXW;
      if (rs2 == 0 && funct3 == 1) in.op = Op::kFclass;
      return in;
    case 0x50:
      if (funct3 == 2) in.op = Op::kFeq;
      if (funct3 == 1) in.op = Op::kFlt;
      if (funct3 == 0) in.op = Op::kFle;
      return in;
    case 0x78:
      if (rs2 == 0 && funct3 == 0) in.op = Op::kFmvWX;
      return in;
    default:
      break;
  }
  return in;
}

Inst decode_amo(Inst in, uint32_t w, bool rv64) {
  const uint32_t funct3 = (w >> 12) & 7;
  const uint32_t funct5 = w >> 27;
  const uint32_t rs2 = (w >> 20) & 0x1F;
  const bool word = funct3 == 2;
  if (!word && !(funct3 == 3 && rv64)) return in;
  switch (funct5) {
    case 0x02:
      if (rs2 == 0) in.op = word ? Op::kLrW : Op::kLrD;
      return in;
    case 0x03:
      in.op = word ? Op::kScW : Op::kScD;
      return in;
    case kAmoAdd:
    case kAmoSwap:
    case kAmoXor:
    case kAmoOr:
    case kAmoAnd:
    case kAmoMin:
    case kAmoMax:
    case kAmoMinu:
    case kAmoMaxu:
      in.op = word ? Op::kAmoW : Op::kAmoD;
      in.aux = static_cast<uint8_t>(funct5);
      return in;
    default:
      return in;
  }
}

// custom-0 funct3 1: votes and __syncwarp (R-type, rs2 = membermask).
Inst decode_vote(Inst in, uint32_t funct7) {
  switch (funct7) {
    case KESTREL_F7_VOTE_ALL:
    case KESTREL_F7_VOTE_ANY:
    case KESTREL_F7_VOTE_UNI:
    case KESTREL_F7_VOTE_BALLOT:
      in.op = Op::kVote;
      in.aux = static_cast<uint8_t>(funct7);
      break;
    case KESTREL_F7_SYNCWARP:
      in.op = Op::kSyncwarp;
      break;
    default:
      break;
  }
  return in;
}

// custom-0 funct3 3: match and reduce (R-type, rs2 = membermask).
Inst decode_match(Inst in, uint32_t funct7) {
  if (funct7 <= KESTREL_F7_MATCH_ALL) {
    in.op = Op::kMatch;
    in.aux = static_cast<uint8_t>(funct7);
  } else if (funct7 >= KESTREL_F7_REDUCE_ADD && funct7 <= KESTREL_F7_REDUCE_XOR) {
    in.op = Op::kReduce;
    in.aux = static_cast<uint8_t>(funct7);
  }
  return in;
}

Inst decode_simt(Inst in, uint32_t w) {
  const uint32_t funct3 = (w >> 12) & 7;
  const uint32_t funct7 = w >> 25;
  if (funct3 == KESTREL_F3_VOTE) return decode_vote(in, funct7);
  if (funct3 == KESTREL_F3_MATCH) return decode_match(in, funct7);
  if (funct3 == KESTREL_F3_SFU) {  // f rd = function(f rs1); rs2 must be 0
    if (((w >> 20) & 0x1F) == 0 && funct7 <= KESTREL_F7_SFU_COS) {
      in.op = Op::kSfu;
      in.aux = static_cast<uint8_t>(funct7);
    }
    return in;
  }
  if (funct3 == KESTREL_F3_SHUFFLE) {  // R4-type: funct2 (bits 26:25) is the mode, rs3 the membermask
    in.op = Op::kShuffle;
    in.aux = static_cast<uint8_t>((w >> 25) & 3);
    return in;
  }
  if (funct3 != KESTREL_F3_CONTROL) return in;  // texture: reserved
  switch (funct7) {
    case KESTREL_F7_EXIT:
      in.op = Op::kExit;
      break;
    case KESTREL_F7_BAR_SYNC:
      in.op = Op::kBarrier;
      in.aux = kBarSync;
      break;
    case KESTREL_F7_BAR_COUNT:
      in.op = Op::kBarrier;
      in.aux = kBarCount;
      break;
    case KESTREL_F7_BAR_AND:
      in.op = Op::kBarrier;
      in.aux = kBarAnd;
      break;
    case KESTREL_F7_BAR_OR:
      in.op = Op::kBarrier;
      in.aux = kBarOr;
      break;
    case KESTREL_F7_TRAP:
      in.op = Op::kTrap;
      break;
    case KESTREL_F7_NANOSLEEP:
      in.op = Op::kNanosleep;
      break;
    case KESTREL_F7_FENCE_BLOCK:
    case KESTREL_F7_FENCE_DEVICE:
    case KESTREL_F7_FENCE_SYSTEM:
      in.op = Op::kSimtFence;
      break;
    default:
      break;
  }
  return in;
}

// custom-1: CUDA atomics, laid out as the A extension's AMOs (funct5, aq, rl,
// funct3 = width).  aq/rl are accepted and need no action: every memory
// operation of a thread completes in order.  On RV32 a 64-bit operand lives
// in an even/odd register pair (x0 as a pair reads zero and discards), so
// odd register numbers there are illegal.
Inst decode_cuda_atomic(Inst in, uint32_t w, bool rv64) {
  const uint32_t funct3 = (w >> 12) & 7;
  const uint32_t funct5 = w >> 27;
  const bool pairs_ok = rv64 || ((in.rd | in.rs2) & 1) == 0;
  in.aux = static_cast<uint8_t>(funct5);
  if (funct3 == KESTREL_F3_ATOMIC_W) {
    if (funct5 == KESTREL_F5_AMO_CAS || funct5 == KESTREL_F5_AMO_INC || funct5 == KESTREL_F5_AMO_DEC) {
      in.op = Op::kKxAmoW;
    } else if (funct5 == KESTREL_F5_AMO_FADD) {
      in.op = Op::kKxAmoFadd;
    }
  } else if (funct3 == KESTREL_F3_ATOMIC_D && pairs_ok) {
    switch (funct5) {
      case KESTREL_F5_AMO_CAS:
        in.op = Op::kKxCasD;
        break;
      case kAmoAdd:
      case kAmoSwap:
      case kAmoXor:
      case kAmoOr:
      case kAmoAnd:
      case kAmoMin:
      case kAmoMax:
      case kAmoMinu:
      case kAmoMaxu:
        if (!rv64) in.op = Op::kKxAmoPair;
        break;
      default:
        break;
    }
  }
  if (in.op == Op::kIllegal) in.aux = 0;
  return in;
}

// custom-2: kx.tex (R4-type: funct3 the form, funct2 the operation, rd and
// rs3 the first of four and three f registers).
Inst decode_tex(Inst in, uint32_t w) {
  const uint32_t form = (w >> 12) & 7;
  const uint32_t op = (w >> 25) & 3;
  if (form <= KESTREL_TEX_FORM_1D_FETCH && op == KESTREL_TEX_OP_FETCH && in.rd <= 32 - kTexResults &&
      in.rs3 <= 29) {
    in.op = Op::kTex;
    in.aux = static_cast<uint8_t>(form);
  }
  return in;
}

}  // namespace

Inst decode(uint32_t w, unsigned xlen) {
  const bool rv64 = xlen == 64;
  Inst in;
  in.raw = w;
  in.rd = static_cast<uint8_t>((w >> 7) & 0x1F);
  in.rs1 = static_cast<uint8_t>((w >> 15) & 0x1F);
  in.rs2 = static_cast<uint8_t>((w >> 20) & 0x1F);
  in.rs3 = static_cast<uint8_t>(w >> 27);
  in.rm = static_cast<uint8_t>((w >> 12) & 7);
  const uint32_t opcode = w & 0x7F;
  const uint32_t funct3 = (w >> 12) & 7;
  const uint32_t funct7 = w >> 25;
  const uint32_t shamt_hi_mask = rv64 ? 0x3Fu : 0x1Fu;  // shift-amount bits the funct field may not use

  switch (opcode) {
    case 0x37:
      in.op = Op::kLui;
      in.imm = imm_u(w);
      break;
    case 0x17:
      in.op = Op::kAuipc;
      in.imm = imm_u(w);
      break;
    case 0x6F:
      in.op = Op::kJal;
      in.imm = imm_j(w);
      break;
    case 0x67:
      if (funct3 == 0) {
        in.op = Op::kJalr;
        in.imm = imm_i(w);
      }
      break;
    case 0x63: {
      static constexpr Op kBranches[8] = {Op::kBeq, Op::kBne, Op::kIllegal, Op::kIllegal,
                                          Op::kBlt, Op::kBge, Op::kBltu,    Op::kBgeu};
      in.op = kBranches[funct3];
      in.imm = imm_b(w);
      break;
    }
    case 0x03: {
      static constexpr Op kLoads[8] = {Op::kLb,  Op::kLh,  Op::kLw,  Op::kLd,
                                       Op::kLbu, Op::kLhu, Op::kLwu, Op::kIllegal};
      in.op = kLoads[funct3];
      if (!rv64 && (in.op == Op::kLd || in.op == Op::kLwu)) in.op = Op::kIllegal;
      in.imm = imm_i(w);
      break;
    }
    case 0x23: {
      static constexpr Op kStores[8] = {Op::kSb,      Op::kSh,      Op::kSw,      Op::kSd,
                                        Op::kIllegal, Op::kIllegal, Op::kIllegal, Op::kIllegal};
      in.op = kStores[funct3];
      if (!rv64 && in.op == Op::kSd) in.op = Op::kIllegal;
      in.imm = imm_s(w);
      break;
    }
    case 0x13: {
      in.imm = imm_i(w);
      const uint32_t shamt = (w >> 20) & shamt_hi_mask;
      const uint32_t shift_funct = (w >> 20) & ~shamt_hi_mask & 0xFFF;  // bits above the shamt
      switch (funct3) {
        case 0:
          in.op = Op::kAddi;
          break;
        case 2:
          in.op = Op::kSlti;
          break;
        case 3:
          in.op = Op::kSltiu;
          break;
        case 4:
          in.op = Op::kXori;
          break;
        case 6:
          in.op = Op::kOri;
          break;
        case 7:
          in.op = Op::kAndi;
          break;
        case 1:
          if (shift_funct == 0) {
            in.op = Op::kSlli;
            in.imm = static_cast<int32_t>(shamt);
          }
          break;
        case 5:
          if (shift_funct == 0) {
            in.op = Op::kSrli;
            in.imm = static_cast<int32_t>(shamt);
          }
          if (shift_funct == 0x400) {
            in.op = Op::kSrai;
            in.imm = static_cast<int32_t>(shamt);
          }
          break;
        default:
          break;
      }
      break;
    }
    case 0x1B:
      if (!rv64) break;
      in.imm = imm_i(w);
      if (funct3 == 0) in.op = Op::kAddiw;
      if (funct3 == 1 && funct7 == 0x00) {
        in.op = Op::kSlliw;
        in.imm = in.rs2;
      }
      if (funct3 == 5 && funct7 == 0x00) {
        in.op = Op::kSrliw;
        in.imm = in.rs2;
      }
      if (funct3 == 5 && funct7 == 0x20) {
        in.op = Op::kSraiw;
        in.imm = in.rs2;
      }
      break;
    case 0x33:
      if (funct7 == 0x00) {
        static constexpr Op kAlu[8] = {Op::kAdd, Op::kSll, Op::kSlt, Op::kSltu,
                                       Op::kXor, Op::kSrl, Op::kOr,  Op::kAnd};
        in.op = kAlu[funct3];
      } else if (funct7 == 0x20) {
        if (funct3 == 0) in.op = Op::kSub;
        if (funct3 == 5) in.op = Op::kSra;
      } else if (funct7 == 0x01) {
        static constexpr Op kMul[8] = {Op::kMul, Op::kMulh, Op::kMulhsu, Op::kMulhu,
                                       Op::kDiv, Op::kDivu, Op::kRem,    Op::kRemu};
        in.op = kMul[funct3];
      }
      break;
    case 0x3B:
      if (!rv64) break;
      if (funct7 == 0x00) {
        if (funct3 == 0) in.op = Op::kAddw;
        if (funct3 == 1) in.op = Op::kSllw;
        if (funct3 == 5) in.op = Op::kSrlw;
      } else if (funct7 == 0x20) {
        if (funct3 == 0) in.op = Op::kSubw;
        if (funct3 == 5) in.op = Op::kSraw;
      } else if (funct7 == 0x01) {
        if (funct3 == 0) in.op = Op::kMulw;
        if (funct3 == 4) in.op = Op::kDivw;
        if (funct3 == 5) in.op = Op::kDivuw;
        if (funct3 == 6) in.op = Op::kRemw;
        if (funct3 == 7) in.op = Op::kRemuw;
      }
      break;
    case 0x0F:
      if (funct3 == 0) in.op = Op::kFence;  // fence.i (funct3 1) is not implemented: no Zifencei
      break;
    case 0x73: {
      in.imm = static_cast<int32_t>(w >> 20);
      static constexpr Op kCsr[8] = {Op::kIllegal, Op::kCsrrw,  Op::kCsrrs,  Op::kCsrrc,
                                     Op::kIllegal, Op::kCsrrwi, Op::kCsrrsi, Op::kCsrrci};
      in.op = kCsr[funct3];  // ecall/ebreak (funct3 0) are illegal on Kestrel
      break;
    }
    case 0x2F:
      in = decode_amo(in, w, rv64);
      break;
    case 0x07:
      if (funct3 == 2) {
        in.op = Op::kFlw;
        in.imm = imm_i(w);
      }
      break;
    case 0x27:
      if (funct3 == 2) {
        in.op = Op::kFsw;
        in.imm = imm_s(w);
      }
      break;
    case 0x43:
    case 0x47:
    case 0x4B:
    case 0x4F: {
      if (((w >> 25) & 3) != 0 || !valid_static_rm(funct3)) break;  // fmt must be S
      static constexpr Op kFused[4] = {Op::kFmadd, Op::kFmsub, Op::kFnmsub, Op::kFnmadd};
      in.op = kFused[(opcode >> 2) & 3];
      break;
    }
    case 0x53:
      in = decode_op_fp(in, w, rv64);
      break;
    case KESTREL_OPC_SIMT:
      in = decode_simt(in, w);
      break;
    case KESTREL_OPC_ATOMIC:
      in = decode_cuda_atomic(in, w, rv64);
      break;
    case KESTREL_OPC_TEX:
      in = decode_tex(in, w);
      break;
    default:
      break;
  }
  if (writes_xreg(in.op) && in.rd == 0) in.rd = kSinkReg;
  return in;
}

bool writes_freg(Op op) {
  switch (op) {
    case Op::kFlw:
    case Op::kFmadd:
    case Op::kFmsub:
    case Op::kFnmsub:
    case Op::kFnmadd:
    case Op::kFadd:
    case Op::kFsub:
    case Op::kFmul:
    case Op::kFdiv:
    case Op::kFsqrt:
    case Op::kFsgnj:
    case Op::kFsgnjn:
    case Op::kFsgnjx:
    case Op::kFmin:
    case Op::kFmax:
    case Op::kFcvtSW:
    case Op::kFcvtSWu:
    case Op::kFcvtSL:
    case Op::kFcvtSLu:
    case Op::kFmvWX:
    case Op::kKxAmoFadd:
    case Op::kSfu:
    case Op::kTex:
      return true;
    default:
      return false;
  }
}

bool writes_xreg(Op op) {
  switch (op) {
    case Op::kIllegal:
    case Op::kBeq:
    case Op::kBne:
    case Op::kBlt:
    case Op::kBge:
    case Op::kBltu:
    case Op::kBgeu:
    case Op::kSb:
    case Op::kSh:
    case Op::kSw:
    case Op::kSd:
    case Op::kFence:
    case Op::kFsw:
    case Op::kExit:
    case Op::kTrap:
    case Op::kNanosleep:
    case Op::kSimtFence:
    case Op::kSyncwarp:
    case Op::kCount:
      return false;
    case Op::kBarrier:
      return true;  // bar.sync writes nothing; its rd field must then be treated as a sink anyway
    default:
      return !writes_freg(op);
  }
}

}  // namespace kestrel::model
