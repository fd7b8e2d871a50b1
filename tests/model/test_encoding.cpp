// Cross-checks the test assembler against LLVM's: every mnemonic the tests
// use is encoded by both and the words must match, so the model's decoder is
// tested against real RISC-V encodings, not against its own assembler.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "kestrel/model/rv_assembler.hpp"

namespace kestrel::model::test {
namespace {

using namespace kestrel::model::rvasm;

struct Sample {
  std::string text;  // LLVM syntax
  std::function<void(Assembler&)> emit;
};

std::vector<uint32_t> llvm_encode(const std::vector<Sample>& samples, const char* march) {
  std::string input;
  for (const Sample& s : samples) input += s.text + "\n";
  // One file per test and process: CTest runs the tests in parallel.
  const std::string path = testing::TempDir() + "kestrel_rvasm_" +
                           testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                           std::to_string(getpid()) + ".s";
  FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return {};
  std::fputs(input.c_str(), file);
  std::fclose(file);
  const std::string command = std::string(KESTREL_LLVM_MC) + " -triple=" + march +
                              " -mattr=+m,+a,+f -show-encoding " + path + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::vector<uint32_t> words;
  std::array<char, 512> line;
  const std::regex encoding(R"(encoding: \[0x([0-9a-f]+),0x([0-9a-f]+),0x([0-9a-f]+),0x([0-9a-f]+)\])");
  while (std::fgets(line.data(), line.size(), pipe) != nullptr) {
    std::cmatch m;
    if (std::regex_search(line.data(), m, encoding)) {
      uint32_t w = 0;
      for (int i = 4; i >= 1; --i) w = (w << 8) | static_cast<uint32_t>(std::stoul(m[i].str(), nullptr, 16));
      words.push_back(w);
    }
  }
  pclose(pipe);
  std::remove(path.c_str());
  return words;
}

void check(const std::vector<Sample>& samples, unsigned xlen) {
  const std::vector<uint32_t> expected = llvm_encode(samples, xlen == 64 ? "riscv64" : "riscv32");
  ASSERT_EQ(expected.size(), samples.size()) << "llvm-mc did not encode every sample";
  for (size_t i = 0; i < samples.size(); ++i) {
    Assembler a(xlen);
    samples[i].emit(a);
    const std::vector<uint32_t> words = a.finish();
    ASSERT_EQ(words.size(), 1u) << samples[i].text;
    EXPECT_EQ(words[0], expected[i]) << samples[i].text << std::hex << " ours 0x" << words[0] << " llvm 0x"
                                     << expected[i];
  }
}

TEST(Encoding, BaseAndM) {
  check(
      {{"lui t6, 0xfffff", [](Assembler& a) { a.lui(t6, 0xFFFFF); }},
       {"auipc a1, 1", [](Assembler& a) { a.auipc(a1, 1); }},
       {"jalr zero, 1(ra)", [](Assembler& a) { a.jalr(zero, ra, 1); }},
       {"lb s2, -1(a0)", [](Assembler& a) { a.lb(s2, a0, -1); }},
       {"lhu s5, 2(a0)", [](Assembler& a) { a.lhu(s5, a0, 2); }},
       {"lwu s7, 4(a0)", [](Assembler& a) { a.lwu(s7, a0, 4); }},
       {"ld s8, 2040(a0)", [](Assembler& a) { a.ld(s8, a0, 2040); }},
       {"sb t0, 16(a0)", [](Assembler& a) { a.sb(t0, a0, 16); }},
       {"sh t0, -18(a0)", [](Assembler& a) { a.sh(t0, a0, -18); }},
       {"sd s8, 24(a0)", [](Assembler& a) { a.sd(s8, a0, 24); }},
       {"addi s9, t0, -2048", [](Assembler& a) { a.addi(s9, t0, -2048); }},
       {"sltiu s11, t0, -1", [](Assembler& a) { a.sltiu(s11, t0, -1); }},
       {"andi t5, t1, 240", [](Assembler& a) { a.andi(t5, t1, 0xF0); }},
       {"slli s9, t0, 63", [](Assembler& a) { a.slli(s9, t0, 63); }},
       {"srai s4, t0, 2", [](Assembler& a) { a.srai(s4, t0, 2); }},
       {"sub s3, t1, t0", [](Assembler& a) { a.sub(s3, t1, t0); }},
       {"sra s7, t0, t1", [](Assembler& a) { a.sra(s7, t0, t1); }},
       {"sltu s5, t1, t0", [](Assembler& a) { a.sltu(s5, t1, t0); }},
       {"addiw s2, t0, 1", [](Assembler& a) { a.addiw(s2, t0, 1); }},
       {"sraiw s7, t1, 4", [](Assembler& a) { a.sraiw(s7, t1, 4); }},
       {"subw s4, t1, t0", [](Assembler& a) { a.subw(s4, t1, t0); }},
       {"sraw s10, t1, t2", [](Assembler& a) { a.sraw(s10, t1, t2); }},
       {"mulhsu s5, t3, t1", [](Assembler& a) { a.mulhsu(s5, t3, t1); }},
       {"remu s9, t0, t1", [](Assembler& a) { a.remu(s9, t0, t1); }},
       {"divuw s5, t1, t0", [](Assembler& a) { a.divuw(s5, t1, t0); }},
       {"remw s4, t0, t1", [](Assembler& a) { a.remw(s4, t0, t1); }},
       {"fence", [](Assembler& a) { a.fence(); }},
       {"csrrw zero, 0xcc0, t0", [](Assembler& a) { a.csrrw(zero, 0xCC0, t0); }},
       {"csrrs t1, 0xc00, zero", [](Assembler& a) { a.csrr(t1, 0xC00); }},
       {"csrrci s3, 1, 31", [](Assembler& a) { a.csrrci(s3, 1, 31); }},
       {".insn r 0x0b, 0, 0x02, s2, t1, zero", [](Assembler& a) { a.kx_bar_count(s2, t1); }},
       {".insn r 0x0b, 0, 0x08, zero, t2, zero", [](Assembler& a) { a.kx_trap(t2); }},
       {".insn r 0x0b, 1, 0x03, s2, t1, t2", [](Assembler& a) { a.kx_vote_ballot(s2, t1, t2); }},
       {".insn r 0x0b, 1, 0x04, zero, zero, a5", [](Assembler& a) { a.kx_syncwarp(a5); }},
       {".insn r4 0x0b, 2, 3, s3, t0, t1, a7", [](Assembler& a) { a.kx_shfl(3, s3, t0, t1, a7); }},
       {".insn r4 0x0b, 2, 1, a0, s11, t6, t5", [](Assembler& a) { a.kx_shfl(1, a0, s11, t6, t5); }},
       {".insn r4 0x5b, 1, 0, ft0, a0, zero, ft8", [](Assembler& a) { a.kx_tex(1, f(0), a0, zero, f(28)); }},
       {".insn r4 0x5b, 4, 0, fs10, t6, a3, ft11", [](Assembler& a) { a.kx_tex(4, f(26), t6, a3, f(31)); }},
       {".insn r 0x0b, 3, 0x0f, s4, t0, t1", [](Assembler& a) { a.kx_reduce(0x0F, s4, t0, t1); }}},
      64);
}

TEST(Encoding, AtomicsAndFloat) {
  check({{"amoadd.w s2, t1, (a0)", [](Assembler& a) { a.amo(0x00, 4, s2, a0, t1); }},
         {"amomaxu.d s3, t1, (t2)", [](Assembler& a) { a.amo(0x1C, 8, s3, t2, t1); }},
         {"amomin.w t3, t1, (t2)", [](Assembler& a) { a.amo(0x10, 4, t3, t2, t1); }},
         {"lr.w s2, (a0)", [](Assembler& a) { a.lr(4, s2, a0); }},
         {"sc.d s8, t1, (t2)", [](Assembler& a) { a.sc(8, s8, t2, t1); }},
         {"flw ft1, 0(a0)", [](Assembler& a) { a.flw(f(1), a0, 0); }},
         {"fsw ft4, 8(a0)", [](Assembler& a) { a.fsw(f(4), a0, 8); }},
         {"fadd.s ft3, ft1, ft2, rup", [](Assembler& a) { a.fadd(f(3), f(1), f(2), kRup); }},
         {"fdiv.s ft6, ft1, ft0, rne", [](Assembler& a) { a.fdiv(f(6), f(1), f(0), kRne); }},
         {"fsqrt.s fs1, ft3, rmm", [](Assembler& a) { a.fsqrt(f(9), f(3), kRmm); }},
         {"fmsub.s fa0, ft3, ft3, ft1, dyn", [](Assembler& a) { a.fmsub(f(10), f(3), f(3), f(1)); }},
         {"fnmadd.s fa1, ft3, ft3, ft1, rtz", [](Assembler& a) { a.fnmadd(f(11), f(3), f(3), f(1), kRtz); }},
         {"fsgnjx.s ft5, ft4, ft1", [](Assembler& a) { a.fsgnjx(f(5), f(4), f(1)); }},
         {"fmax.s fs0, ft1, ft3", [](Assembler& a) { a.fmax(f(8), f(1), f(3)); }},
         {"fcvt.w.s s2, ft1, rtz", [](Assembler& a) { a.fcvt_w_s(s2, f(1), kRtz); }},
         {"fcvt.lu.s s3, ft2, rne", [](Assembler& a) { a.fcvt_lu_s(s3, f(2), kRne); }},
         {"fcvt.s.wu ft2, t0, dyn", [](Assembler& a) { a.fcvt_s_wu(f(2), t0); }},
         {"fcvt.s.l ft1, t0, rdn", [](Assembler& a) { a.fcvt_s_l(f(1), t0, kRdn); }},
         {"fmv.x.w s3, ft1", [](Assembler& a) { a.fmv_x_w(s3, f(1)); }},
         {"fmv.w.x ft3, t1", [](Assembler& a) { a.fmv_w_x(f(3), t1); }},
         {"flt.s s4, ft1, ft3", [](Assembler& a) { a.flt(s4, f(1), f(3)); }},
         {"fclass.s s7, ft4", [](Assembler& a) { a.fclass(s7, f(4)); }}},
        64);
}

TEST(Encoding, CudaAtomics) {
  check({{".insn r 0x2b, 2, 0x14, s2, a0, t1", [](Assembler& a) { a.kx_amocas(4, s2, a0, t1); }},
         {".insn r 0x2b, 3, 0x14, s4, t2, s6", [](Assembler& a) { a.kx_amocas(8, s4, t2, s6); }},
         {".insn r 0x2b, 2, 0x18, a1, a0, t1", [](Assembler& a) { a.kx_amoinc_w(a1, a0, t1); }},
         {".insn r 0x2b, 2, 0x1c, t3, s0, t4", [](Assembler& a) { a.kx_amodec_w(t3, s0, t4); }},
         {".insn r 0x2b, 2, 0x24, ft3, a0, ft1", [](Assembler& a) { a.kx_amofadd_s(f(3), a0, f(1)); }},
         {".insn r 0x2b, 3, 0x70, a2, a0, a4", [](Assembler& a) { a.kx_amo(0x1C, 8, a2, a0, a4); }}},
        32);
}

TEST(Encoding, Rv32Shifts) {
  check({{"slli s9, t0, 31", [](Assembler& a) { a.slli(s9, t0, 31); }},
         {"srai s4, t0, 2", [](Assembler& a) { a.srai(s4, t0, 2); }}},
        32);
}

}  // namespace
}  // namespace kestrel::model::test
