// Integer instruction classes: ALU and immediates, shifts (with the RV64
// W-forms), branches and jumps, loads and stores of every width, M.
#include <cstdint>
#include <limits>

#include "harness.hpp"

namespace kestrel::model::test {
namespace {

class IntIsa : public ::testing::TestWithParam<unsigned> {
 protected:
  unsigned xlen() const { return GetParam(); }
  // A value as an XLEN-wide register holds it.
  uint64_t reg(int64_t v) const { return xlen() == 32 ? static_cast<uint32_t>(v) : static_cast<uint64_t>(v); }
  TestGpu run(const Assembler& a) {
    TestGpu g(xlen());
    g.load(a);
    EXPECT_EQ(g.run(), LaunchState::kDone) << "fault kind " << g.gpu().fault().kind;
    return g;
  }
};

TEST_P(IntIsa, AluRegisterAndImmediate) {
  Assembler a(xlen());
  a.li(t0, 100);
  a.li(t1, -7);
  a.add(s2, t0, t1);   // 93
  a.sub(s3, t1, t0);   // -107
  a.slt(s4, t1, t0);   // 1
  a.sltu(s5, t1, t0);  // 0: -7 is huge unsigned
  a.xor_(s6, t0, t1);
  a.or_(s7, t0, t1);
  a.and_(s8, t0, t1);
  a.addi(s9, t0, -2048);
  a.slti(s10, t0, 101);
  a.sltiu(s11, t0, -1);  // compares with all ones: 1
  a.xori(t3, t0, -1);    // not
  a.ori(t4, t0, 0x7FF);
  a.andi(t5, t1, 0xF0);
  a.lui(t6, 0xFFFFF);  // sign-extends on RV64
  a.auipc(a1, 1);
  a.addi(zero, t0, 5);  // x0 stays zero
  a.kx_exit();
  TestGpu g = run(a);
  EXPECT_EQ(g.x(s2), reg(93));
  EXPECT_EQ(g.x(s3), reg(-107));
  EXPECT_EQ(g.x(s4), 1u);
  EXPECT_EQ(g.x(s5), 0u);
  EXPECT_EQ(g.x(s6), reg(100 ^ -7));
  EXPECT_EQ(g.x(s7), reg(100 | -7));
  EXPECT_EQ(g.x(s8), reg(100 & -7));
  EXPECT_EQ(g.x(s9), reg(100 - 2048));
  EXPECT_EQ(g.x(s10), 1u);
  EXPECT_EQ(g.x(s11), 1u);
  EXPECT_EQ(g.x(t3), reg(~int64_t{100}));
  EXPECT_EQ(g.x(t4), reg(100 | 0x7FF));
  EXPECT_EQ(g.x(t5), reg(-7 & 0xF0));
  EXPECT_EQ(g.x(t6), reg(int64_t{-4096}));
  EXPECT_EQ(g.x(a1), kCode + 16 * 4 + 4096);
  EXPECT_EQ(g.x(zero), 0u);
}

TEST_P(IntIsa, LiBuildsEveryConstant) {
  const int64_t values[] = {0,          1,         -1,           2047,       -2048,
                            0x7FFFFFFF, INT32_MIN, 0x12345678,   0x7FFFF800, 0x123456789ABCDEF0ll,
                            INT64_MIN,  INT64_MAX, -0x80000001ll};
  Assembler a(xlen());
  Reg regs[] = {s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, t3};
  for (size_t i = 0; i < std::size(values); ++i) a.li(regs[i], values[i]);
  a.kx_exit();
  TestGpu g = run(a);
  for (size_t i = 0; i < std::size(values); ++i) EXPECT_EQ(g.x(regs[i]), reg(values[i])) << values[i];
}

TEST_P(IntIsa, Shifts) {
  Assembler a(xlen());
  const unsigned top = xlen() - 1;
  a.li(t0, -16);
  a.li(t1, top);
  a.slli(s2, t0, 2);
  a.srli(s3, t0, 2);
  a.srai(s4, t0, 2);
  a.sll(s5, t0, t1);
  a.srl(s6, t0, t1);
  a.sra(s7, t0, t1);
  a.li(t2, static_cast<int64_t>(xlen()) + 1);  // only the low log2(XLEN) bits count
  a.sll(s8, t0, t2);
  a.slli(s9, t0, top);
  a.kx_exit();
  TestGpu g = run(a);
  EXPECT_EQ(g.x(s2), reg(-64));
  EXPECT_EQ(g.x(s3), xlen() == 32 ? uint64_t{0xFFFFFFF0u >> 2} : 0xFFFFFFFFFFFFFFF0ull >> 2);
  EXPECT_EQ(g.x(s4), reg(-4));
  EXPECT_EQ(g.x(s5), reg(0));
  EXPECT_EQ(g.x(s6), 1u);
  EXPECT_EQ(g.x(s7), reg(-1));
  EXPECT_EQ(g.x(s8), reg(-32));
  EXPECT_EQ(g.x(s9), reg(0));
}

TEST(IntIsaRv64, WordForms) {
  Assembler a(64);
  a.li(t0, 0x7FFFFFFF);
  a.li(t1, 0x1234567880000000ll);
  a.addiw(s2, t0, 1);  // wraps to INT32_MIN, sign-extended
  a.addw(s3, t0, t0);  // 0xFFFFFFFE -> -2
  a.subw(s4, t1, t0);  // low words: 0x80000000 - 0x7FFFFFFF = 1
  a.slliw(s5, t0, 4);  // 0xFFFFFFF0 -> -16
  a.srliw(s6, t1, 4);  // 0x08000000
  a.sraiw(s7, t1, 4);  // 0xF8000000 sign-extended
  a.li(t2, 36);        // shift amount 36 & 31 = 4
  a.sllw(s8, t0, t2);
  a.srlw(s9, t1, t2);
  a.sraw(s10, t1, t2);
  a.addiw(s11, t1, 0);  // sext.w
  a.kx_exit();
  TestGpu g(64);
  g.load(a);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.x(s2), 0xFFFFFFFF80000000ull);
  EXPECT_EQ(g.x(s3), 0xFFFFFFFFFFFFFFFEull);
  EXPECT_EQ(g.x(s4), 1u);
  EXPECT_EQ(g.x(s5), 0xFFFFFFFFFFFFFFF0ull);
  EXPECT_EQ(g.x(s6), 0x08000000u);
  EXPECT_EQ(g.x(s7), 0xFFFFFFFFF8000000ull);
  EXPECT_EQ(g.x(s8), 0xFFFFFFFFFFFFFFF0ull);
  EXPECT_EQ(g.x(s9), 0x08000000u);
  EXPECT_EQ(g.x(s10), 0xFFFFFFFFF8000000ull);
  EXPECT_EQ(g.x(s11), 0xFFFFFFFF80000000ull);
}

TEST(IntIsaRv32, Rv64OnlyEncodingsAreIllegal) {
  const uint32_t rv64_only[] = {
      0x0002B283,  // ld t0, 0(t0)
      0x0002E283,  // lwu
      0x0052B023,  // sd
      0x0012829B,  // addiw
      0x0262D293,  // srli t0, t0, 38 (shamt bit 5)
      0x1002B2AF,  // lr.d
  };
  for (uint32_t word : rv64_only) {
    TestGpu g(32);
    g.gpu().write_mem(kCode, &word, 4);
    ASSERT_EQ(g.run(), LaunchState::kFault);
    EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_ILLEGAL_INSTRUCTION) << std::hex << word;
    EXPECT_EQ(g.gpu().fault().info, word);
  }
}

TEST_P(IntIsa, BranchesTakeAndFallThrough) {
  // s2 collects one bit per branch that behaved as expected.
  Assembler a(xlen());
  a.li(t0, -1);
  a.li(t1, 1);
  a.li(s2, 0);
  int bit = 0;
  auto expect_taken = [&](auto emit) {
    const std::string yes = "taken" + std::to_string(bit), done = "done" + std::to_string(bit);
    emit(yes);
    a.j(done);
    a.bind(yes);
    a.ori(s2, s2, 1 << bit);
    a.bind(done);
    ++bit;
  };
  auto expect_not_taken = [&](auto emit) {
    const std::string yes = "taken" + std::to_string(bit);
    emit(yes);
    a.ori(s2, s2, 1 << bit);
    a.bind(yes);
    ++bit;
  };
  expect_taken([&](const std::string& l) { a.beq(t0, t0, l); });
  expect_not_taken([&](const std::string& l) { a.beq(t0, t1, l); });
  expect_taken([&](const std::string& l) { a.bne(t0, t1, l); });
  expect_taken([&](const std::string& l) { a.blt(t0, t1, l); });       // -1 < 1 signed
  expect_not_taken([&](const std::string& l) { a.bltu(t0, t1, l); });  // all ones > 1 unsigned
  expect_taken([&](const std::string& l) { a.bge(t1, t0, l); });
  expect_taken([&](const std::string& l) { a.bgeu(t0, t1, l); });
  expect_taken([&](const std::string& l) { a.bge(t1, t1, l); });
  expect_not_taken([&](const std::string& l) { a.bge(t0, t1, l); });
  a.kx_exit();
  TestGpu g = run(a);
  EXPECT_EQ(g.x(s2), (1u << bit) - 1);
}

TEST_P(IntIsa, JumpsLinkAndLoop) {
  Assembler a(xlen());
  a.li(s2, 0);
  a.li(t0, 10);
  a.bind("loop");  // s2 = 10 + 9 + ... + 1
  a.add(s2, s2, t0);
  a.addi(t0, t0, -1);
  a.bne(t0, zero, "loop");
  a.jal(ra, "function");
  a.mv(s4, ra);
  a.kx_exit();
  a.bind("function");
  a.mv(s3, ra);
  a.li(s5, 77);
  a.jalr(zero, ra, 1);  // bit 0 of the target is cleared
  TestGpu g = run(a);
  EXPECT_EQ(g.x(s2), 55u);
  EXPECT_EQ(g.x(s3), kCode + 6 * 4);
  EXPECT_EQ(g.x(s4), g.x(s3));
  EXPECT_EQ(g.x(s5), 77u);
}

TEST_P(IntIsa, LoadsAndStoresEveryWidth) {
  const bool rv64 = xlen() == 64;
  TestGpu g(xlen());
  Assembler b(xlen());
  b.li(t0, static_cast<int32_t>(0xB5A69788u));
  b.sw(t0, a0, 0);
  b.li(t0, static_cast<int32_t>(0xF1E2D3C4u));
  b.sw(t0, a0, 4);
  b.lb(s2, a0, 0);  // 0x88 -> negative
  b.lbu(s3, a0, 0);
  b.lh(s4, a0, 2);  // 0xB5A6 -> negative
  b.lhu(s5, a0, 2);
  b.lw(s6, a0, 4);  // 0xF1E2D3C4 -> negative
  b.sb(t0, a0, 16);
  b.sh(t0, a0, 18);
  b.sw(t0, a0, 20);
  if (rv64) {
    b.lwu(s7, a0, 4);
    b.ld(s8, a0, 0);
    b.sd(s8, a0, 24);
  }
  b.kx_exit();
  g.load(b);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.x(s2), reg(int8_t(0x88)));
  EXPECT_EQ(g.x(s3), 0x88u);
  EXPECT_EQ(g.x(s4), reg(int16_t(0xB5A6)));
  EXPECT_EQ(g.x(s5), 0xB5A6u);
  EXPECT_EQ(g.x(s6), reg(int32_t(0xF1E2D3C4u)));
  EXPECT_EQ(g.data<uint8_t>(16), 0xC4u);
  EXPECT_EQ(g.data<uint16_t>(18), 0xD3C4u);
  EXPECT_EQ(g.data<uint32_t>(20), 0xF1E2D3C4u);
  if (rv64) {
    EXPECT_EQ(g.x(s7), 0xF1E2D3C4u);
    EXPECT_EQ(g.x(s8), 0xF1E2D3C4B5A69788ull);
    EXPECT_EQ(g.data<uint64_t>(24), 0xF1E2D3C4B5A69788ull);
  }
}

TEST_P(IntIsa, MultiplyDivideAndTheirEdgeRules) {
  const int64_t min = xlen() == 32 ? INT32_MIN : INT64_MIN;
  Assembler a(xlen());
  a.li(t0, -6);
  a.li(t1, 4);
  a.li(t2, min);
  a.li(t3, -1);
  a.mul(s2, t0, t1);     // -24
  a.mulh(s3, t0, t1);    // high part of -24: all ones
  a.mulhu(s4, t3, t3);   // (2^X-1)^2 >> X = 2^X - 2
  a.mulhsu(s5, t3, t1);  // -1 * 4 -> high all ones
  a.div(s6, t0, t1);     // -1 (rounds toward zero)
  a.rem(s7, t0, t1);     // -2
  a.divu(s8, t0, t1);
  a.remu(s9, t0, t1);
  a.div(s10, t0, zero);  // -1
  a.rem(s11, t0, zero);  // dividend
  a.divu(a1, t0, zero);  // all ones
  a.remu(a2, t0, zero);  // dividend
  a.div(a3, t2, t3);     // overflow: MIN
  a.rem(a4, t2, t3);     // overflow: 0
  a.kx_exit();
  TestGpu g = run(a);
  const uint64_t mask = xlen() == 32 ? 0xFFFFFFFFull : ~0ull;
  const uint64_t u6 = static_cast<uint64_t>(-6) & mask;
  EXPECT_EQ(g.x(s2), reg(-24));
  EXPECT_EQ(g.x(s3), reg(-1));
  EXPECT_EQ(g.x(s4), reg(-2));
  EXPECT_EQ(g.x(s5), reg(-1));
  EXPECT_EQ(g.x(s6), reg(-1));
  EXPECT_EQ(g.x(s7), reg(-2));
  EXPECT_EQ(g.x(s8), u6 / 4);
  EXPECT_EQ(g.x(s9), u6 % 4);
  EXPECT_EQ(g.x(s10), reg(-1));
  EXPECT_EQ(g.x(s11), reg(-6));
  EXPECT_EQ(g.x(a1), reg(-1));
  EXPECT_EQ(g.x(a2), reg(-6));
  EXPECT_EQ(g.x(a3), reg(min));
  EXPECT_EQ(g.x(a4), 0u);
}

TEST(IntIsaRv64, MultiplyDivideWordForms) {
  Assembler a(64);
  a.li(t0, 0x100000007ll);  // low word 7
  a.li(t1, -2);
  a.li(t2, INT32_MIN);
  a.li(t3, -1);
  a.mulw(s2, t0, t1);   // -14
  a.divw(s3, t0, t1);   // -3
  a.remw(s4, t0, t1);   // 1
  a.divuw(s5, t1, t0);  // 0xFFFFFFFE / 7, sign-extended from 32 bits
  a.remuw(s6, t1, t0);
  a.divw(s7, t2, t3);      // overflow: INT32_MIN
  a.remw(s8, t2, t3);      // 0
  a.divw(s9, t0, zero);    // -1
  a.remuw(s10, t1, zero);  // dividend's low word, sign-extended
  a.kx_exit();
  TestGpu g(64);
  g.load(a);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.x(s2), static_cast<uint64_t>(-14));
  EXPECT_EQ(g.x(s3), static_cast<uint64_t>(-3));
  EXPECT_EQ(g.x(s4), 1u);
  EXPECT_EQ(g.x(s5), uint64_t{0xFFFFFFFEu / 7});
  EXPECT_EQ(g.x(s6), uint64_t{0xFFFFFFFEu % 7});
  EXPECT_EQ(g.x(s7), static_cast<uint64_t>(int64_t{INT32_MIN}));
  EXPECT_EQ(g.x(s8), 0u);
  EXPECT_EQ(g.x(s9), ~0ull);
  EXPECT_EQ(g.x(s10), static_cast<uint64_t>(-2));
}

TEST(IntIsaRv64, MulhFullWidth) {
  Assembler a(64);
  a.li(t0, INT64_MIN);
  a.li(t1, INT64_MAX);
  a.mulh(s2, t0, t1);  // -2^63 * (2^63-1) >> 64
  a.mulhu(s3, t0, t1);
  a.mulhsu(s4, t0, t0);  // -2^63 * 2^63 (unsigned)
  a.kx_exit();
  TestGpu g(64);
  g.load(a);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.x(s2), 0xC000000000000000ull);
  EXPECT_EQ(g.x(s3), 0x3FFFFFFFFFFFFFFFull);
  EXPECT_EQ(g.x(s4), 0xC000000000000000ull);
}

INSTANTIATE_TEST_SUITE_P(Xlen, IntIsa, ::testing::Values(32u, 64u),
                         [](const auto& param_info) { return "Rv" + std::to_string(param_info.param); });

}  // namespace
}  // namespace kestrel::model::test
