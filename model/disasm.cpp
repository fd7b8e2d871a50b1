// Disassembly (kestrel/model/disasm.hpp) on the model's own decoder, so the
// text names exactly the operation the model executes.
#include "kestrel/model/disasm.hpp"

#include <cstdio>

#include "decode.hpp"
#include "kestrel/abi.h"

namespace kestrel::model {
namespace {

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

const char* name_of(Op op) {
  switch (op) {
    case Op::kLui:
      return "lui";
    case Op::kAuipc:
      return "auipc";
    case Op::kJal:
      return "jal";
    case Op::kJalr:
      return "jalr";
    case Op::kBeq:
      return "beq";
    case Op::kBne:
      return "bne";
    case Op::kBlt:
      return "blt";
    case Op::kBge:
      return "bge";
    case Op::kBltu:
      return "bltu";
    case Op::kBgeu:
      return "bgeu";
    case Op::kLb:
      return "lb";
    case Op::kLh:
      return "lh";
    case Op::kLw:
      return "lw";
    case Op::kLd:
      return "ld";
    case Op::kLbu:
      return "lbu";
    case Op::kLhu:
      return "lhu";
    case Op::kLwu:
      return "lwu";
    case Op::kSb:
      return "sb";
    case Op::kSh:
      return "sh";
    case Op::kSw:
      return "sw";
    case Op::kSd:
      return "sd";
    case Op::kAddi:
      return "addi";
    case Op::kSlti:
      return "slti";
    case Op::kSltiu:
      return "sltiu";
    case Op::kXori:
      return "xori";
    case Op::kOri:
      return "ori";
    case Op::kAndi:
      return "andi";
    case Op::kSlli:
      return "slli";
    case Op::kSrli:
      return "srli";
    case Op::kSrai:
      return "srai";
    case Op::kAdd:
      return "add";
    case Op::kSub:
      return "sub";
    case Op::kSll:
      return "sll";
    case Op::kSlt:
      return "slt";
    case Op::kSltu:
      return "sltu";
    case Op::kXor:
      return "xor";
    case Op::kSrl:
      return "srl";
    case Op::kSra:
      return "sra";
    case Op::kOr:
      return "or";
    case Op::kAnd:
      return "and";
    case Op::kAddiw:
      return "addiw";
    case Op::kSlliw:
      return "slliw";
    case Op::kSrliw:
      return "srliw";
    case Op::kSraiw:
      return "sraiw";
    case Op::kAddw:
      return "addw";
    case Op::kSubw:
      return "subw";
    case Op::kSllw:
      return "sllw";
    case Op::kSrlw:
      return "srlw";
    case Op::kSraw:
      return "sraw";
    case Op::kFence:
      return "fence";
    case Op::kMul:
      return "mul";
    case Op::kMulh:
      return "mulh";
    case Op::kMulhsu:
      return "mulhsu";
    case Op::kMulhu:
      return "mulhu";
    case Op::kDiv:
      return "div";
    case Op::kDivu:
      return "divu";
    case Op::kRem:
      return "rem";
    case Op::kRemu:
      return "remu";
    case Op::kMulw:
      return "mulw";
    case Op::kDivw:
      return "divw";
    case Op::kDivuw:
      return "divuw";
    case Op::kRemw:
      return "remw";
    case Op::kRemuw:
      return "remuw";
    case Op::kFlw:
      return "flw";
    case Op::kFsw:
      return "fsw";
    case Op::kFmadd:
      return "fmadd.s";
    case Op::kFmsub:
      return "fmsub.s";
    case Op::kFnmsub:
      return "fnmsub.s";
    case Op::kFnmadd:
      return "fnmadd.s";
    case Op::kFadd:
      return "fadd.s";
    case Op::kFsub:
      return "fsub.s";
    case Op::kFmul:
      return "fmul.s";
    case Op::kFdiv:
      return "fdiv.s";
    case Op::kFsqrt:
      return "fsqrt.s";
    case Op::kFsgnj:
      return "fsgnj.s";
    case Op::kFsgnjn:
      return "fsgnjn.s";
    case Op::kFsgnjx:
      return "fsgnjx.s";
    case Op::kFmin:
      return "fmin.s";
    case Op::kFmax:
      return "fmax.s";
    case Op::kFcvtWS:
      return "fcvt.w.s";
    case Op::kFcvtWuS:
      return "fcvt.wu.s";
    case Op::kFcvtLS:
      return "fcvt.l.s";
    case Op::kFcvtLuS:
      return "fcvt.lu.s";
    case Op::kFcvtSW:
      return "fcvt.s.w";
    case Op::kFcvtSWu:
      return "fcvt.s.wu";
    case Op::kFcvtSL:
      return "fcvt.s.l";
    case Op::kFcvtSLu:
      return "fcvt.s.lu";
    case Op::kFmvXW:
      return "fmv.x.w";
    case Op::kFmvWX:
      return "fmv.w.x";
    case Op::kFeq:
      return "feq.s";
    case Op::kFlt:
      return "flt.s";
    case Op::kFle:
      return "fle.s";
    case Op::kFclass:
      return "fclass.s";
    case Op::kCsrrw:
      return "csrrw";
    case Op::kCsrrs:
      return "csrrs";
    case Op::kCsrrc:
      return "csrrc";
    case Op::kCsrrwi:
      return "csrrwi";
    case Op::kCsrrsi:
      return "csrrsi";
    case Op::kCsrrci:
      return "csrrci";
    default:
      return nullptr;
  }
}

const char* amo_name(unsigned funct5) {
  switch (funct5) {
    case kAmoAdd:
      return "amoadd";
    case kAmoSwap:
      return "amoswap";
    case kAmoXor:
      return "amoxor";
    case kAmoOr:
      return "amoor";
    case kAmoAnd:
      return "amoand";
    case kAmoMin:
      return "amomin";
    case kAmoMax:
      return "amomax";
    case kAmoMinu:
      return "amominu";
    case kAmoMaxu:
      return "amomaxu";
    default:
      return "amo?";
  }
}

const char* csr_name(uint32_t csr) {
  switch (csr) {
    case 0x001:
      return "fflags";
    case 0x002:
      return "frm";
    case 0x003:
      return "fcsr";
    case 0xC00:
      return "cycle";
    case 0xC01:
      return "time";
    case 0xC02:
      return "instret";
    case 0xC80:
      return "cycleh";
    case 0xC81:
      return "timeh";
    case 0xC82:
      return "instreth";
    case KESTREL_CSR_TID_X:
      return "tid.x";
    case KESTREL_CSR_TID_Y:
      return "tid.y";
    case KESTREL_CSR_TID_Z:
      return "tid.z";
    case KESTREL_CSR_NTID_X:
      return "ntid.x";
    case KESTREL_CSR_NTID_Y:
      return "ntid.y";
    case KESTREL_CSR_NTID_Z:
      return "ntid.z";
    case KESTREL_CSR_CTAID_X:
      return "ctaid.x";
    case KESTREL_CSR_CTAID_Y:
      return "ctaid.y";
    case KESTREL_CSR_CTAID_Z:
      return "ctaid.z";
    case KESTREL_CSR_NCTAID_X:
      return "nctaid.x";
    case KESTREL_CSR_NCTAID_Y:
      return "nctaid.y";
    case KESTREL_CSR_NCTAID_Z:
      return "nctaid.z";
    case KESTREL_CSR_LANEID:
      return "laneid";
    case KESTREL_CSR_WARPID:
      return "warpid";
    default:
      return nullptr;
  }
}

std::string csr_text(int32_t imm) {
  const uint32_t csr = static_cast<uint32_t>(imm) & 0xFFF;
  const char* name = csr_name(csr);
  return name != nullptr ? std::string(name) : hex(csr);
}

std::string x(unsigned r) { return x_register_name(r == kSinkReg ? 0 : r); }
std::string f(unsigned r) { return f_register_name(r); }
std::string mem(int32_t imm, unsigned base) { return std::to_string(imm) + "(" + x(base) + ")"; }

std::string simt(const Inst& in) {
  const unsigned funct7 = in.raw >> 25;
  switch (in.op) {
    case Op::kExit:
      return "kx.exit";
    case Op::kBarrier: {
      static const char* const kinds[] = {"", "sync", "count", "and", "or"};
      const std::string name = std::string("kx.bar.") + (in.aux <= kBarOr ? kinds[in.aux] : "?");
      return in.aux == kBarSync ? name + " " + x(in.rs1) : name + " " + x(in.rd) + ", " + x(in.rs1);
    }
    case Op::kTrap:
      return "kx.trap " + x(in.rs1);
    case Op::kNanosleep:
      return "kx.nanosleep " + x(in.rs1);
    case Op::kSimtFence:
      return funct7 == KESTREL_F7_FENCE_BLOCK    ? "kx.fence.block"
             : funct7 == KESTREL_F7_FENCE_DEVICE ? "kx.fence.device"
                                                 : "kx.fence.system";
    case Op::kSyncwarp:
      return "kx.syncwarp " + x(in.rs2);
    case Op::kVote: {
      static const char* const kinds[] = {"all", "any", "uni", "ballot"};
      return std::string("kx.vote.") + (funct7 < 4 ? kinds[funct7] : "?") + " " + x(in.rd) + ", " +
             x(in.rs1) + ", " + x(in.rs2);
    }
    case Op::kShuffle: {
      static const char* const modes[] = {"idx", "up", "down", "xor"};
      return std::string("kx.shfl.") + modes[in.aux & 3] + " " + x(in.rd) + ", " + x(in.rs1) + ", " +
             x(in.rs2) + ", " + x(in.rs3);
    }
    case Op::kMatch: {
      static const char* const kinds[] = {"match.any.w", "match.all.w", "match.any", "match.all"};
      return std::string("kx.") + (funct7 < 4 ? kinds[funct7] : "?") + " " + x(in.rd) + ", " + x(in.rs1) +
             ", " + x(in.rs2);
    }
    case Op::kReduce: {
      static const char* const kinds[] = {"add", "min", "max", "minu", "maxu", "and", "or", "xor"};
      return std::string("kx.red.") + kinds[funct7 & 7] + " " + x(in.rd) + ", " + x(in.rs1) + ", " +
             x(in.rs2);
    }
    case Op::kSfu: {
      static const char* const kinds[] = {"rcp", "rsqrt", "ex2", "lg2", "sin", "cos"};
      return std::string("kx.sfu.") + (funct7 < 6 ? kinds[funct7] : "?") + " " + f(in.rd) + ", " + f(in.rs1);
    }
    case Op::kTex: {
      static const char* const forms[] = {"1d", "2d", "3d", "1dl", "2dl", "1dfetch"};
      return std::string("kx.tex.") + (in.aux <= KESTREL_TEX_FORM_1D_FETCH ? forms[in.aux] : "?") + " " +
             f(in.rd) + ", " + x(in.rs1) + ", " + x(in.rs2) + ", " + f(in.rs3);
    }
    case Op::kKxAmoW: {
      const char* name = in.aux == 0x05 ? "kx.amocas.w" : in.aux == 0x06 ? "kx.amoinc.w" : "kx.amodec.w";
      return std::string(name) + " " + x(in.rd) + ", " + x(in.rs2) + ", (" + x(in.rs1) + ")";
    }
    case Op::kKxAmoFadd:
      return "kx.amofadd.s " + f(in.rd) + ", " + f(in.rs2) + ", (" + x(in.rs1) + ")";
    case Op::kKxCasD:
      return "kx.amocas.d " + x(in.rd) + ", " + x(in.rs2) + ", (" + x(in.rs1) + ")";
    case Op::kKxAmoPair:
      return std::string("kx.") + amo_name(in.aux) + ".d " + x(in.rd) + ", " + x(in.rs2) + ", (" + x(in.rs1) +
             ")";
    default:
      return {};
  }
}

}  // namespace

const char* x_register_name(unsigned reg) {
  static const char* const names[32] = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
                                        "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
                                        "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
  return reg < 32 ? names[reg] : "?";
}

const char* f_register_name(unsigned reg) {
  static const char* const names[32] = {"ft0", "ft1", "ft2",  "ft3",  "ft4", "ft5", "ft6",  "ft7",
                                        "fs0", "fs1", "fa0",  "fa1",  "fa2", "fa3", "fa4",  "fa5",
                                        "fa6", "fa7", "fs2",  "fs3",  "fs4", "fs5", "fs6",  "fs7",
                                        "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
  return reg < 32 ? names[reg] : "?";
}

std::string disassemble(uint32_t word, unsigned xlen, uint64_t pc) {
  const Inst in = decode(word, xlen);
  if (in.op == Op::kIllegal) return ".word " + hex(word);
  if (std::string text = simt(in); !text.empty()) return text;
  const std::string target = hex(pc + static_cast<uint64_t>(static_cast<int64_t>(in.imm)));
  switch (in.op) {
    case Op::kLui:
    case Op::kAuipc:
      return std::string(name_of(in.op)) + " " + x(in.rd) + ", " +
             hex((static_cast<uint32_t>(in.imm) >> 12) & 0xFFFFF);
    case Op::kJal:
      return "jal " + x(in.rd) + ", " + target;
    case Op::kJalr:
      return "jalr " + x(in.rd) + ", " + mem(in.imm, in.rs1);
    case Op::kBeq:
    case Op::kBne:
    case Op::kBlt:
    case Op::kBge:
    case Op::kBltu:
    case Op::kBgeu:
      return std::string(name_of(in.op)) + " " + x(in.rs1) + ", " + x(in.rs2) + ", " + target;
    case Op::kLb:
    case Op::kLh:
    case Op::kLw:
    case Op::kLd:
    case Op::kLbu:
    case Op::kLhu:
    case Op::kLwu:
      return std::string(name_of(in.op)) + " " + x(in.rd) + ", " + mem(in.imm, in.rs1);
    case Op::kSb:
    case Op::kSh:
    case Op::kSw:
    case Op::kSd:
      return std::string(name_of(in.op)) + " " + x(in.rs2) + ", " + mem(in.imm, in.rs1);
    case Op::kFlw:
      return "flw " + f(in.rd) + ", " + mem(in.imm, in.rs1);
    case Op::kFsw:
      return "fsw " + f(in.rs2) + ", " + mem(in.imm, in.rs1);
    case Op::kAddi:
    case Op::kSlti:
    case Op::kSltiu:
    case Op::kXori:
    case Op::kOri:
    case Op::kAndi:
    case Op::kSlli:
    case Op::kSrli:
    case Op::kSrai:
    case Op::kAddiw:
    case Op::kSlliw:
    case Op::kSrliw:
    case Op::kSraiw:
      return std::string(name_of(in.op)) + " " + x(in.rd) + ", " + x(in.rs1) + ", " + std::to_string(in.imm);
    case Op::kFence:
      return "fence";
    case Op::kLrW:
    case Op::kLrD:
      return std::string(in.op == Op::kLrW ? "lr.w " : "lr.d ") + x(in.rd) + ", (" + x(in.rs1) + ")";
    case Op::kScW:
    case Op::kScD:
      return std::string(in.op == Op::kScW ? "sc.w " : "sc.d ") + x(in.rd) + ", " + x(in.rs2) + ", (" +
             x(in.rs1) + ")";
    case Op::kAmoW:
    case Op::kAmoD:
      return std::string(amo_name(in.aux)) + (in.op == Op::kAmoW ? ".w " : ".d ") + x(in.rd) + ", " +
             x(in.rs2) + ", (" + x(in.rs1) + ")";
    case Op::kFmadd:
    case Op::kFmsub:
    case Op::kFnmsub:
    case Op::kFnmadd:
      return std::string(name_of(in.op)) + " " + f(in.rd) + ", " + f(in.rs1) + ", " + f(in.rs2) + ", " +
             f(in.rs3);
    case Op::kFadd:
    case Op::kFsub:
    case Op::kFmul:
    case Op::kFdiv:
    case Op::kFsgnj:
    case Op::kFsgnjn:
    case Op::kFsgnjx:
    case Op::kFmin:
    case Op::kFmax:
      return std::string(name_of(in.op)) + " " + f(in.rd) + ", " + f(in.rs1) + ", " + f(in.rs2);
    case Op::kFsqrt:
      return "fsqrt.s " + f(in.rd) + ", " + f(in.rs1);
    case Op::kFcvtWS:
    case Op::kFcvtWuS:
    case Op::kFcvtLS:
    case Op::kFcvtLuS:
    case Op::kFmvXW:
    case Op::kFclass:
      return std::string(name_of(in.op)) + " " + x(in.rd) + ", " + f(in.rs1);
    case Op::kFcvtSW:
    case Op::kFcvtSWu:
    case Op::kFcvtSL:
    case Op::kFcvtSLu:
    case Op::kFmvWX:
      return std::string(name_of(in.op)) + " " + f(in.rd) + ", " + x(in.rs1);
    case Op::kFeq:
    case Op::kFlt:
    case Op::kFle:
      return std::string(name_of(in.op)) + " " + x(in.rd) + ", " + f(in.rs1) + ", " + f(in.rs2);
    case Op::kCsrrs:
      if (in.rs1 == 0) return "csrr " + x(in.rd) + ", " + csr_text(in.imm);
      return std::string(name_of(in.op)) + " " + x(in.rd) + ", " + csr_text(in.imm) + ", " + x(in.rs1);
    case Op::kCsrrw:
    case Op::kCsrrc:
      return std::string(name_of(in.op)) + " " + x(in.rd) + ", " + csr_text(in.imm) + ", " + x(in.rs1);
    case Op::kCsrrwi:
    case Op::kCsrrsi:
    case Op::kCsrrci:
      return std::string(name_of(in.op)) + " " + x(in.rd) + ", " + csr_text(in.imm) + ", " +
             std::to_string(in.rs1);
    default:
      if (const char* name = name_of(in.op); name != nullptr)
        return std::string(name) + " " + x(in.rd) + ", " + x(in.rs1) + ", " + x(in.rs2);
      return ".word " + hex(word);
  }
}

}  // namespace kestrel::model
