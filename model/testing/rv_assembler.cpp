#include "kestrel/model/rv_assembler.hpp"

#include <stdexcept>

#include "kestrel/abi.h"

namespace kestrel::model::rvasm {
namespace {

uint32_t field(unsigned value, unsigned bits, const char* what) {
  if (value >= (1u << bits)) throw std::invalid_argument(std::string("rvasm: ") + what + " out of range");
  return value;
}

void check_simm(int64_t value, unsigned bits, const char* what) {
  const int64_t limit = int64_t{1} << (bits - 1);
  if (value < -limit || value >= limit)
    throw std::invalid_argument(std::string("rvasm: ") + what + " out of range");
}

uint32_t encode_b(uint32_t word, int64_t offset) {
  check_simm(offset, 13, "branch offset");
  if (offset & 1) throw std::invalid_argument("rvasm: odd branch offset");
  const uint32_t imm = static_cast<uint32_t>(offset);
  return word | (((imm >> 12) & 1) << 31) | (((imm >> 5) & 0x3F) << 25) | (((imm >> 1) & 0xF) << 8) |
         (((imm >> 11) & 1) << 7);
}

uint32_t encode_j(uint32_t word, int64_t offset) {
  check_simm(offset, 21, "jump offset");
  if (offset & 1) throw std::invalid_argument("rvasm: odd jump offset");
  const uint32_t imm = static_cast<uint32_t>(offset);
  return word | (((imm >> 20) & 1) << 31) | (((imm >> 1) & 0x3FF) << 21) | (((imm >> 11) & 1) << 20) |
         (((imm >> 12) & 0xFF) << 12);
}

}  // namespace

Assembler::Assembler(unsigned xlen) : xlen_(xlen) {
  if (xlen != 32 && xlen != 64) throw std::invalid_argument("rvasm: xlen must be 32 or 64");
}

void Assembler::bind(const std::string& label) {
  if (!labels_.emplace(label, here()).second)
    throw std::invalid_argument("rvasm: label bound twice: " + label);
}

std::vector<uint32_t> Assembler::finish() const {
  std::vector<uint32_t> out = words_;
  for (const Fixup& fix : fixups_) {
    auto it = labels_.find(fix.label);
    if (it == labels_.end()) throw std::invalid_argument("rvasm: unbound label " + fix.label);
    const int64_t offset = int64_t{it->second} - int64_t{static_cast<uint32_t>(fix.index * 4)};
    out[fix.index] = fix.jump ? encode_j(out[fix.index], offset) : encode_b(out[fix.index], offset);
  }
  return out;
}

void Assembler::r_type(uint32_t opcode, uint32_t funct3, uint32_t funct7, unsigned rd, unsigned rs1,
                       unsigned rs2) {
  word(field(opcode, 7, "opcode") | (field(rd, 5, "rd") << 7) | (field(funct3, 3, "funct3") << 12) |
       (field(rs1, 5, "rs1") << 15) | (field(rs2, 5, "rs2") << 20) | (field(funct7, 7, "funct7") << 25));
}

void Assembler::i_type(uint32_t opcode, uint32_t funct3, unsigned rd, unsigned rs1, int32_t imm) {
  // CSR numbers and shift encodings are 12-bit unsigned fields; accept both views.
  if (imm < -2048 || imm > 4095) throw std::invalid_argument("rvasm: I-type immediate out of range");
  word(field(opcode, 7, "opcode") | (field(rd, 5, "rd") << 7) | (field(funct3, 3, "funct3") << 12) |
       (field(rs1, 5, "rs1") << 15) | ((static_cast<uint32_t>(imm) & 0xFFF) << 20));
}

void Assembler::s_type(uint32_t opcode, uint32_t funct3, unsigned rs1, unsigned rs2, int32_t imm) {
  check_simm(imm, 12, "S-type immediate");
  const uint32_t u = static_cast<uint32_t>(imm);
  word(field(opcode, 7, "opcode") | ((u & 0x1F) << 7) | (field(funct3, 3, "funct3") << 12) |
       (field(rs1, 5, "rs1") << 15) | (field(rs2, 5, "rs2") << 20) | (((u >> 5) & 0x7F) << 25));
}

void Assembler::u_type(uint32_t opcode, unsigned rd, uint32_t imm20) {
  word(field(opcode, 7, "opcode") | (field(rd, 5, "rd") << 7) | (field(imm20, 20, "U-type immediate") << 12));
}

void Assembler::r4_type(uint32_t opcode, uint32_t rm, unsigned rd, unsigned rs1, unsigned rs2, unsigned rs3) {
  // fmt (bits 26:25) = 0: single precision
  word(field(opcode, 7, "opcode") | (field(rd, 5, "rd") << 7) | (field(rm, 3, "rm") << 12) |
       (field(rs1, 5, "rs1") << 15) | (field(rs2, 5, "rs2") << 20) | (field(rs3, 5, "rs3") << 27));
}

void Assembler::r4_type_funct2(uint32_t opcode, uint32_t funct3, uint32_t funct2, unsigned rd, unsigned rs1,
                               unsigned rs2, unsigned rs3) {
  word(field(opcode, 7, "opcode") | (field(rd, 5, "rd") << 7) | (field(funct3, 3, "funct3") << 12) |
       (field(rs1, 5, "rs1") << 15) | (field(rs2, 5, "rs2") << 20) | (field(funct2, 2, "funct2") << 25) |
       (field(rs3, 5, "rs3") << 27));
}

void Assembler::b_type(uint32_t funct3, Reg rs1, Reg rs2, const std::string& label) {
  fixups_.push_back(Fixup{words_.size(), false, label});
  word(0x63 | (funct3 << 12) | (uint32_t{rs1} << 15) | (uint32_t{rs2} << 20));
}

void Assembler::jal(Reg rd, const std::string& label) {
  fixups_.push_back(Fixup{words_.size(), true, label});
  word(0x6F | (uint32_t{rd} << 7));
}

void Assembler::li(Reg rd, int64_t value) {
  if (xlen_ == 32) value = static_cast<int32_t>(value);
  if (value >= INT32_MIN && value <= INT32_MAX) {
    const int64_t high = (value + 0x800) >> 12;
    const int32_t low = static_cast<int32_t>(value - high * 4096);
    if (high != 0) {
      lui(rd, static_cast<uint32_t>(high) & 0xFFFFF);
      if (low != 0) {
        if (xlen_ == 64) {
          addiw(rd, rd, low);  // wraps at 32 bits like the lui/addi pair on RV32
        } else {
          addi(rd, rd, low);
        }
      }
    } else {
      addi(rd, zero, low);
    }
    return;
  }
  const int32_t low = static_cast<int32_t>(static_cast<int64_t>(static_cast<uint64_t>(value) << 52) >> 52);
  // Modulo 2^64, as the register computes it (INT64_MAX - -1 wraps).
  li(rd, static_cast<int64_t>(static_cast<uint64_t>(value) - static_cast<uint64_t>(int64_t{low})) >> 12);
  slli(rd, rd, 12);
  if (low != 0) addi(rd, rd, low);
}

void Assembler::global_index_x(Reg index, Reg scratch) {
  csrr(index, KESTREL_CSR_CTAID_X);
  csrr(scratch, KESTREL_CSR_NTID_X);
  mul(index, index, scratch);
  csrr(scratch, KESTREL_CSR_TID_X);
  add(index, index, scratch);
}

void Assembler::global_index_x(Reg index, Reg stride, Reg scratch) {
  csrr(index, KESTREL_CSR_CTAID_X);
  csrr(stride, KESTREL_CSR_NTID_X);
  mul(index, index, stride);
  csrr(scratch, KESTREL_CSR_TID_X);
  add(index, index, scratch);
  csrr(scratch, KESTREL_CSR_NCTAID_X);
  mul(stride, stride, scratch);
}

}  // namespace kestrel::model::rvasm
