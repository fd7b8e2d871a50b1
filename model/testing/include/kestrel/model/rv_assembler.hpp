// A small RISC-V assembler for hand-written test and benchmark programs: one
// method per mnemonic, string labels for branches and jumps, and `li` for any
// constant.  It encodes the R/I/S/B/U/J/R4 formats from fields, so the model
// can be tested before the device toolchain exists, and the lock-step benches
// can reuse it.  Only RV64IMAF/RV32IMAF, Zicsr and the Kestrel SIMT
// instructions of docs/isa.md are covered.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kestrel::model::rvasm {

// ABI names of the x registers.
enum Reg : uint8_t {
  zero,
  ra,
  sp,
  gp,
  tp,
  t0,
  t1,
  t2,
  s0,
  s1,
  a0,
  a1,
  a2,
  a3,
  a4,
  a5,
  a6,
  a7,
  s2,
  s3,
  s4,
  s5,
  s6,
  s7,
  s8,
  s9,
  s10,
  s11,
  t3,
  t4,
  t5,
  t6
};

// f registers by number.
struct FReg {
  uint8_t n;
};
constexpr FReg f(unsigned n) { return FReg{static_cast<uint8_t>(n)}; }

// Rounding-mode field values.
enum Rm : uint8_t { kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4, kDyn = 7 };

class Assembler {
 public:
  explicit Assembler(unsigned xlen = 64);

  // Byte offset of the next instruction.
  uint32_t here() const { return static_cast<uint32_t>(words_.size() * 4); }
  void bind(const std::string& label);
  // The words with every label resolved; throws std::invalid_argument for an
  // unbound label or an offset out of range.
  std::vector<uint32_t> finish() const;

  // ---- formats ----
  void word(uint32_t w) { words_.push_back(w); }
  void r_type(uint32_t opcode, uint32_t funct3, uint32_t funct7, unsigned rd, unsigned rs1, unsigned rs2);
  void i_type(uint32_t opcode, uint32_t funct3, unsigned rd, unsigned rs1, int32_t imm);
  void s_type(uint32_t opcode, uint32_t funct3, unsigned rs1, unsigned rs2, int32_t imm);
  void u_type(uint32_t opcode, unsigned rd, uint32_t imm20);
  void r4_type(uint32_t opcode, uint32_t rm, unsigned rd, unsigned rs1, unsigned rs2, unsigned rs3);
  // R4 with a free funct2 field (bits 26:25) instead of the F format.
  void r4_type_funct2(uint32_t opcode, uint32_t funct3, uint32_t funct2, unsigned rd, unsigned rs1,
                      unsigned rs2, unsigned rs3);
  void b_type(uint32_t funct3, Reg rs1, Reg rs2, const std::string& label);

  // ---- RV32I/RV64I ----
  void lui(Reg rd, uint32_t imm20) { u_type(0x37, rd, imm20); }
  void auipc(Reg rd, uint32_t imm20) { u_type(0x17, rd, imm20); }
  void jal(Reg rd, const std::string& label);
  void jalr(Reg rd, Reg rs1, int32_t imm) { i_type(0x67, 0, rd, rs1, imm); }
  void beq(Reg a, Reg b, const std::string& l) { b_type(0, a, b, l); }
  void bne(Reg a, Reg b, const std::string& l) { b_type(1, a, b, l); }
  void blt(Reg a, Reg b, const std::string& l) { b_type(4, a, b, l); }
  void bge(Reg a, Reg b, const std::string& l) { b_type(5, a, b, l); }
  void bltu(Reg a, Reg b, const std::string& l) { b_type(6, a, b, l); }
  void bgeu(Reg a, Reg b, const std::string& l) { b_type(7, a, b, l); }
  void lb(Reg rd, Reg base, int32_t off) { i_type(0x03, 0, rd, base, off); }
  void lh(Reg rd, Reg base, int32_t off) { i_type(0x03, 1, rd, base, off); }
  void lw(Reg rd, Reg base, int32_t off) { i_type(0x03, 2, rd, base, off); }
  void ld(Reg rd, Reg base, int32_t off) { i_type(0x03, 3, rd, base, off); }
  void lbu(Reg rd, Reg base, int32_t off) { i_type(0x03, 4, rd, base, off); }
  void lhu(Reg rd, Reg base, int32_t off) { i_type(0x03, 5, rd, base, off); }
  void lwu(Reg rd, Reg base, int32_t off) { i_type(0x03, 6, rd, base, off); }
  void sb(Reg src, Reg base, int32_t off) { s_type(0x23, 0, base, src, off); }
  void sh(Reg src, Reg base, int32_t off) { s_type(0x23, 1, base, src, off); }
  void sw(Reg src, Reg base, int32_t off) { s_type(0x23, 2, base, src, off); }
  void sd(Reg src, Reg base, int32_t off) { s_type(0x23, 3, base, src, off); }
  void addi(Reg rd, Reg rs1, int32_t imm) { i_type(0x13, 0, rd, rs1, imm); }
  void slti(Reg rd, Reg rs1, int32_t imm) { i_type(0x13, 2, rd, rs1, imm); }
  void sltiu(Reg rd, Reg rs1, int32_t imm) { i_type(0x13, 3, rd, rs1, imm); }
  void xori(Reg rd, Reg rs1, int32_t imm) { i_type(0x13, 4, rd, rs1, imm); }
  void ori(Reg rd, Reg rs1, int32_t imm) { i_type(0x13, 6, rd, rs1, imm); }
  void andi(Reg rd, Reg rs1, int32_t imm) { i_type(0x13, 7, rd, rs1, imm); }
  void slli(Reg rd, Reg rs1, unsigned shamt) { i_type(0x13, 1, rd, rs1, static_cast<int32_t>(shamt)); }
  void srli(Reg rd, Reg rs1, unsigned shamt) { i_type(0x13, 5, rd, rs1, static_cast<int32_t>(shamt)); }
  void srai(Reg rd, Reg rs1, unsigned shamt) {
    i_type(0x13, 5, rd, rs1, static_cast<int32_t>(0x400 | shamt));
  }
  void add(Reg rd, Reg a, Reg b) { r_type(0x33, 0, 0x00, rd, a, b); }
  void sub(Reg rd, Reg a, Reg b) { r_type(0x33, 0, 0x20, rd, a, b); }
  void sll(Reg rd, Reg a, Reg b) { r_type(0x33, 1, 0x00, rd, a, b); }
  void slt(Reg rd, Reg a, Reg b) { r_type(0x33, 2, 0x00, rd, a, b); }
  void sltu(Reg rd, Reg a, Reg b) { r_type(0x33, 3, 0x00, rd, a, b); }
  void xor_(Reg rd, Reg a, Reg b) { r_type(0x33, 4, 0x00, rd, a, b); }
  void srl(Reg rd, Reg a, Reg b) { r_type(0x33, 5, 0x00, rd, a, b); }
  void sra(Reg rd, Reg a, Reg b) { r_type(0x33, 5, 0x20, rd, a, b); }
  void or_(Reg rd, Reg a, Reg b) { r_type(0x33, 6, 0x00, rd, a, b); }
  void and_(Reg rd, Reg a, Reg b) { r_type(0x33, 7, 0x00, rd, a, b); }
  void addiw(Reg rd, Reg rs1, int32_t imm) { i_type(0x1B, 0, rd, rs1, imm); }
  void slliw(Reg rd, Reg rs1, unsigned sh) { i_type(0x1B, 1, rd, rs1, static_cast<int32_t>(sh)); }
  void srliw(Reg rd, Reg rs1, unsigned sh) { i_type(0x1B, 5, rd, rs1, static_cast<int32_t>(sh)); }
  void sraiw(Reg rd, Reg rs1, unsigned sh) { i_type(0x1B, 5, rd, rs1, static_cast<int32_t>(0x400 | sh)); }
  void addw(Reg rd, Reg a, Reg b) { r_type(0x3B, 0, 0x00, rd, a, b); }
  void subw(Reg rd, Reg a, Reg b) { r_type(0x3B, 0, 0x20, rd, a, b); }
  void sllw(Reg rd, Reg a, Reg b) { r_type(0x3B, 1, 0x00, rd, a, b); }
  void srlw(Reg rd, Reg a, Reg b) { r_type(0x3B, 5, 0x00, rd, a, b); }
  void sraw(Reg rd, Reg a, Reg b) { r_type(0x3B, 5, 0x20, rd, a, b); }
  void fence() { word(0x0FF0000F); }

  // ---- M ----
  void mul(Reg rd, Reg a, Reg b) { r_type(0x33, 0, 1, rd, a, b); }
  void mulh(Reg rd, Reg a, Reg b) { r_type(0x33, 1, 1, rd, a, b); }
  void mulhsu(Reg rd, Reg a, Reg b) { r_type(0x33, 2, 1, rd, a, b); }
  void mulhu(Reg rd, Reg a, Reg b) { r_type(0x33, 3, 1, rd, a, b); }
  void div(Reg rd, Reg a, Reg b) { r_type(0x33, 4, 1, rd, a, b); }
  void divu(Reg rd, Reg a, Reg b) { r_type(0x33, 5, 1, rd, a, b); }
  void rem(Reg rd, Reg a, Reg b) { r_type(0x33, 6, 1, rd, a, b); }
  void remu(Reg rd, Reg a, Reg b) { r_type(0x33, 7, 1, rd, a, b); }
  void mulw(Reg rd, Reg a, Reg b) { r_type(0x3B, 0, 1, rd, a, b); }
  void divw(Reg rd, Reg a, Reg b) { r_type(0x3B, 4, 1, rd, a, b); }
  void divuw(Reg rd, Reg a, Reg b) { r_type(0x3B, 5, 1, rd, a, b); }
  void remw(Reg rd, Reg a, Reg b) { r_type(0x3B, 6, 1, rd, a, b); }
  void remuw(Reg rd, Reg a, Reg b) { r_type(0x3B, 7, 1, rd, a, b); }

  // ---- A (width 4 or 8; funct5 names the AMO) ----
  void lr(unsigned width, Reg rd, Reg addr) { r_type(0x2F, width == 8 ? 3 : 2, 0x02 << 2, rd, addr, zero); }
  void sc(unsigned width, Reg rd, Reg addr, Reg src) {
    r_type(0x2F, width == 8 ? 3 : 2, 0x03 << 2, rd, addr, src);
  }
  void amo(unsigned funct5, unsigned width, Reg rd, Reg addr, Reg src) {
    r_type(0x2F, width == 8 ? 3 : 2, funct5 << 2, rd, addr, src);
  }

  // ---- Kestrel CUDA atomics (custom-1, docs/isa.md section 2.2) ----
  // Laid out as the A extension's AMOs.  funct5: 0x05 CAS (rd is the compare
  // value and receives the old one), 0x06 inc, 0x07 dec, 0x09 float add, or on
  // RV32 with width 8 an A-extension funct5 on even/odd register pairs.
  void kx_amo(unsigned funct5, unsigned width, Reg rd, Reg addr, Reg src) {
    r_type(0x2B, width == 8 ? 3 : 2, funct5 << 2, rd, addr, src);
  }
  void kx_amocas(unsigned width, Reg rd_compare, Reg addr, Reg new_value) {
    kx_amo(0x05, width, rd_compare, addr, new_value);
  }
  void kx_amoinc_w(Reg rd, Reg addr, Reg limit) { kx_amo(0x06, 4, rd, addr, limit); }
  void kx_amodec_w(Reg rd, Reg addr, Reg limit) { kx_amo(0x07, 4, rd, addr, limit); }
  void kx_amofadd_s(FReg rd, Reg addr, FReg addend) { r_type(0x2B, 2, 0x09 << 2, rd.n, addr, addend.n); }

  // ---- F ----
  void flw(FReg rd, Reg base, int32_t off) { i_type(0x07, 2, rd.n, base, off); }
  void fsw(FReg src, Reg base, int32_t off) { s_type(0x27, 2, base, src.n, off); }
  void fop(uint32_t funct7, uint32_t rm, unsigned rd, unsigned rs1, unsigned rs2) {
    r_type(0x53, rm, funct7, rd, rs1, rs2);
  }
  void fadd(FReg d, FReg a, FReg b, Rm rm = kDyn) { fop(0x00, rm, d.n, a.n, b.n); }
  void fsub(FReg d, FReg a, FReg b, Rm rm = kDyn) { fop(0x04, rm, d.n, a.n, b.n); }
  void fmul(FReg d, FReg a, FReg b, Rm rm = kDyn) { fop(0x08, rm, d.n, a.n, b.n); }
  void fdiv(FReg d, FReg a, FReg b, Rm rm = kDyn) { fop(0x0C, rm, d.n, a.n, b.n); }
  void fsqrt(FReg d, FReg a, Rm rm = kDyn) { fop(0x2C, rm, d.n, a.n, 0); }
  void fmadd(FReg d, FReg a, FReg b, FReg c, Rm rm = kDyn) { r4_type(0x43, rm, d.n, a.n, b.n, c.n); }
  void fmsub(FReg d, FReg a, FReg b, FReg c, Rm rm = kDyn) { r4_type(0x47, rm, d.n, a.n, b.n, c.n); }
  void fnmsub(FReg d, FReg a, FReg b, FReg c, Rm rm = kDyn) { r4_type(0x4B, rm, d.n, a.n, b.n, c.n); }
  void fnmadd(FReg d, FReg a, FReg b, FReg c, Rm rm = kDyn) { r4_type(0x4F, rm, d.n, a.n, b.n, c.n); }
  void fsgnj(FReg d, FReg a, FReg b) { fop(0x10, 0, d.n, a.n, b.n); }
  void fsgnjn(FReg d, FReg a, FReg b) { fop(0x10, 1, d.n, a.n, b.n); }
  void fsgnjx(FReg d, FReg a, FReg b) { fop(0x10, 2, d.n, a.n, b.n); }
  void fmin(FReg d, FReg a, FReg b) { fop(0x14, 0, d.n, a.n, b.n); }
  void fmax(FReg d, FReg a, FReg b) { fop(0x14, 1, d.n, a.n, b.n); }
  void fcvt_w_s(Reg d, FReg a, Rm rm = kDyn) { fop(0x60, rm, d, a.n, 0); }
  void fcvt_wu_s(Reg d, FReg a, Rm rm = kDyn) { fop(0x60, rm, d, a.n, 1); }
  void fcvt_l_s(Reg d, FReg a, Rm rm = kDyn) { fop(0x60, rm, d, a.n, 2); }
  void fcvt_lu_s(Reg d, FReg a, Rm rm = kDyn) { fop(0x60, rm, d, a.n, 3); }
  void fcvt_s_w(FReg d, Reg a, Rm rm = kDyn) { fop(0x68, rm, d.n, a, 0); }
  void fcvt_s_wu(FReg d, Reg a, Rm rm = kDyn) { fop(0x68, rm, d.n, a, 1); }
  void fcvt_s_l(FReg d, Reg a, Rm rm = kDyn) { fop(0x68, rm, d.n, a, 2); }
  void fcvt_s_lu(FReg d, Reg a, Rm rm = kDyn) { fop(0x68, rm, d.n, a, 3); }
  void fmv_x_w(Reg d, FReg a) { fop(0x70, 0, d, a.n, 0); }
  void fclass(Reg d, FReg a) { fop(0x70, 1, d, a.n, 0); }
  void fmv_w_x(FReg d, Reg a) { fop(0x78, 0, d.n, a, 0); }
  void feq(Reg d, FReg a, FReg b) { fop(0x50, 2, d, a.n, b.n); }
  void flt(Reg d, FReg a, FReg b) { fop(0x50, 1, d, a.n, b.n); }
  void fle(Reg d, FReg a, FReg b) { fop(0x50, 0, d, a.n, b.n); }

  // ---- Zicsr ----
  void csrrw(Reg rd, uint32_t csr, Reg rs1) { i_type(0x73, 1, rd, rs1, static_cast<int32_t>(csr)); }
  void csrrs(Reg rd, uint32_t csr, Reg rs1) { i_type(0x73, 2, rd, rs1, static_cast<int32_t>(csr)); }
  void csrrc(Reg rd, uint32_t csr, Reg rs1) { i_type(0x73, 3, rd, rs1, static_cast<int32_t>(csr)); }
  void csrrwi(Reg rd, uint32_t csr, unsigned uimm) { i_type(0x73, 5, rd, uimm, static_cast<int32_t>(csr)); }
  void csrrsi(Reg rd, uint32_t csr, unsigned uimm) { i_type(0x73, 6, rd, uimm, static_cast<int32_t>(csr)); }
  void csrrci(Reg rd, uint32_t csr, unsigned uimm) { i_type(0x73, 7, rd, uimm, static_cast<int32_t>(csr)); }
  void csrr(Reg rd, uint32_t csr) { csrrs(rd, csr, zero); }

  // ---- Kestrel SIMT (custom-0) ----
  void kx_exit() { r_type(0x0B, 0, 0x00, 0, 0, 0); }
  void kx_bar_sync(Reg id = zero) { r_type(0x0B, 0, 0x01, 0, id, 0); }
  void kx_bar_count(Reg rd, Reg pred) { r_type(0x0B, 0, 0x02, rd, pred, 0); }
  void kx_bar_and(Reg rd, Reg pred) { r_type(0x0B, 0, 0x03, rd, pred, 0); }
  void kx_bar_or(Reg rd, Reg pred) { r_type(0x0B, 0, 0x04, rd, pred, 0); }
  void kx_trap(Reg code) { r_type(0x0B, 0, 0x08, 0, code, 0); }
  void kx_nanosleep(Reg ns) { r_type(0x0B, 0, 0x09, 0, ns, 0); }
  void kx_fence_block() { r_type(0x0B, 0, 0x10, 0, 0, 0); }
  void kx_fence_device() { r_type(0x0B, 0, 0x11, 0, 0, 0); }
  void kx_fence_system() { r_type(0x0B, 0, 0x12, 0, 0, 0); }
  // Warp-synchronous (docs/isa.md section 2): rs2 (rs3 for shuffles) is the membermask.
  void kx_vote_all(Reg rd, Reg pred, Reg mask) { r_type(0x0B, 1, 0x00, rd, pred, mask); }
  void kx_vote_any(Reg rd, Reg pred, Reg mask) { r_type(0x0B, 1, 0x01, rd, pred, mask); }
  void kx_vote_uni(Reg rd, Reg pred, Reg mask) { r_type(0x0B, 1, 0x02, rd, pred, mask); }
  void kx_vote_ballot(Reg rd, Reg pred, Reg mask) { r_type(0x0B, 1, 0x03, rd, pred, mask); }
  void kx_syncwarp(Reg mask) { r_type(0x0B, 1, 0x04, 0, 0, mask); }
  // mode: KESTREL_SHFL_IDX/UP/DOWN/XOR; control = lane | (32 - width) << 8.
  void kx_shfl(unsigned mode, Reg rd, Reg value, Reg control, Reg mask) {
    r4_type_funct2(0x0B, 2, mode, rd, value, control, mask);
  }
  void kx_match(unsigned funct7, Reg rd, Reg value, Reg mask) { r_type(0x0B, 3, funct7, rd, value, mask); }
  // kx.tex.<form> frd, rs1, rs2, frs3 (custom-2, docs/isa.md section 2.5): f rd..rd+3 from the object in
  // rs1 at the coordinates f rs3..rs3+2, layer rs2; funct2 the operation (0: fetch).
  void kx_tex(unsigned form, FReg rd, Reg object, Reg layer, FReg coords, unsigned op = 0) {
    r4_type_funct2(0x5B, form, op, rd.n, object, layer, coords.n);
  }
  void kx_reduce(unsigned funct7, Reg rd, Reg value, Reg mask) { r_type(0x0B, 3, funct7, rd, value, mask); }

  // ---- pseudo-instructions ----
  void li(Reg rd, int64_t value);
  void mv(Reg rd, Reg rs) { addi(rd, rs, 0); }
  void nop() { addi(zero, zero, 0); }
  void j(const std::string& label) { jal(zero, label); }
  void ret() { jalr(zero, ra, 0); }

  // ---- the prologue hand-written kernels share ----
  // index = blockIdx.x * blockDim.x + threadIdx.x (scratch clobbered); with
  // a stride register also stride = blockDim.x * gridDim.x, a grid-stride
  // loop's step.
  void global_index_x(Reg index, Reg scratch);
  void global_index_x(Reg index, Reg stride, Reg scratch);

 private:
  struct Fixup {
    size_t index;
    bool jump;  // J-type, else B-type
    std::string label;
  };
  unsigned xlen_;
  std::vector<uint32_t> words_;
  std::map<std::string, uint32_t> labels_;
  std::vector<Fixup> fixups_;
};

}  // namespace kestrel::model::rvasm
