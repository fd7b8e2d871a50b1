// F instructions through the interpreter: static and dynamic rounding modes,
// fflags and fcsr, conversions, moves, sign injection, compares, per-thread
// flags.  The arithmetic itself is tested in test_fpu.cpp.
#include <cfenv>
#include <cmath>
#include <limits>

#include "fpu.hpp"
#include "harness.hpp"

namespace kestrel::model::test {
namespace {

constexpr uint32_t kPosInf = 0x7F800000u;

TEST(FpIsa, StaticAndDynamicRoundingAndFflags) {
  Assembler a(64);
  a.flw(f(1), a0, 0);  // 1.0
  a.flw(f(2), a0, 4);  // 2^-24
  a.fadd(f(3), f(1), f(2), kRup);
  a.fadd(f(4), f(1), f(2), kRne);
  a.csrrwi(zero, 0x002, kRup);     // frm = RUP
  a.fadd(f(5), f(1), f(2));        // dynamic
  a.csrr(s2, 0x001);               // fflags: NX
  a.csrrwi(s3, 0x001, 0);          // read and clear
  a.csrr(s4, 0x003);               // fcsr = frm << 5
  a.fdiv(f(6), f(1), f(0), kRne);  // 1/0
  a.csrr(s5, 0x001);
  a.csrrwi(zero, 0x002, 5);  // an invalid frm value is stored...
  a.fadd(f(7), f(1), f(2));  // ...and faults when a dynamic op uses it
  a.kx_exit();
  TestGpu g(64);
  g.load(a);
  g.set_data<float>(0, 1.0f);
  g.set_data<float>(4, std::ldexp(1.0f, -24));
  ASSERT_EQ(g.run(), LaunchState::kFault);
  EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_ILLEGAL_INSTRUCTION);
  EXPECT_EQ(g.gpu().fault().pc, kCode + 12 * 4);
  EXPECT_EQ(g.fr(3), bits(std::nextafter(1.0f, 2.0f)));
  EXPECT_EQ(g.fr(4), bits(1.0f));
  EXPECT_EQ(g.fr(5), bits(std::nextafter(1.0f, 2.0f)));
  EXPECT_EQ(g.x(s2), fp::kInexact);
  EXPECT_EQ(g.x(s3), fp::kInexact);
  EXPECT_EQ(g.x(s4), uint64_t{fp::kRup} << 5);
  EXPECT_EQ(g.x(s5), fp::kDivByZero);
  EXPECT_EQ(g.fr(6), kPosInf);
}

TEST(FpIsa, ReservedStaticRoundingModeIsIllegal) {
  const uint32_t fadd_rm5 = 0x002081D3 | (5u << 12);  // fadd.s f3, f1, f2 with rm = 5
  TestGpu g(64);
  g.gpu().write_mem(kCode, &fadd_rm5, 4);
  ASSERT_EQ(g.run(), LaunchState::kFault);
  EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_ILLEGAL_INSTRUCTION);
}

TEST(FpIsa, ConversionsMovesSignsAndCompares) {
  for (unsigned xlen : {32u, 64u}) {
    Assembler a(xlen);
    a.li(t0, -7);
    a.fcvt_s_w(f(1), t0);        // -7.0
    a.fcvt_s_wu(f(2), t0);       // 4294967289 -> 4294967296.0 (RNE)
    a.fcvt_w_s(s2, f(1), kRtz);  // -7
    a.fmv_x_w(s3, f(1));         // bit pattern, sign-extended on RV64
    a.li(t1, 0x40490FDB);        // pi
    a.fmv_w_x(f(3), t1);
    a.fsgnjn(f(4), f(3), f(3));  // -pi
    a.fsgnjx(f(5), f(4), f(1));  // -pi ^ sign(-7) = pi
    a.fsgnj(f(6), f(3), f(1));   // -pi
    a.flt(s4, f(1), f(3));       // 1
    a.fle(s5, f(3), f(1));       // 0
    a.feq(s6, f(3), f(5));       // 1
    a.fclass(s7, f(4));          // negative normal
    a.fmin(f(7), f(1), f(3));
    a.fmax(f(8), f(1), f(3));
    a.fsqrt(f(9), f(3), kRne);
    a.fmadd(f(10), f(3), f(3), f(1), kRne);
    a.fnmsub(f(11), f(3), f(3), f(1), kRne);
    a.fsw(f(4), a0, 8);
    a.kx_exit();
    TestGpu g(xlen);
    g.load(a);
    ASSERT_EQ(g.run(), LaunchState::kDone);
    const float pi = flt(0x40490FDB);
    const uint64_t minus7_bits = xlen == 64 ? 0xFFFFFFFFC0E00000ull : 0xC0E00000u;
    EXPECT_EQ(g.fr(1), bits(-7.0f));
    EXPECT_EQ(g.fr(2), bits(4294967296.0f));
    EXPECT_EQ(g.x(s2), xlen == 64 ? static_cast<uint64_t>(-7) : 0xFFFFFFF9u);
    EXPECT_EQ(g.x(s3), minus7_bits);
    EXPECT_EQ(g.fr(4), bits(-pi));
    EXPECT_EQ(g.fr(5), bits(pi));
    EXPECT_EQ(g.fr(6), bits(-pi));
    EXPECT_EQ(g.x(s4), 1u);
    EXPECT_EQ(g.x(s5), 0u);
    EXPECT_EQ(g.x(s6), 1u);
    EXPECT_EQ(g.x(s7), 1u << 1);
    EXPECT_EQ(g.fr(7), bits(-7.0f));
    EXPECT_EQ(g.fr(8), bits(pi));
    EXPECT_EQ(g.fr(9), bits(std::sqrt(pi)));
    EXPECT_EQ(g.fr(10), bits(std::fma(pi, pi, -7.0f)));
    EXPECT_EQ(g.fr(11), bits(std::fma(-pi, pi, -7.0f)));
    EXPECT_EQ(g.data<uint32_t>(8), bits(-pi));
  }
}

TEST(FpIsa, LongConversionsOnRv64) {
  Assembler a(64);
  a.li(t0, 0x123456789ll);
  a.fcvt_s_l(f(1), t0, kRtz);
  a.fcvt_l_s(s2, f(1), kRtz);
  a.li(t1, -1);
  a.fcvt_s_lu(f(2), t1, kRne);  // 2^64
  a.fcvt_lu_s(s3, f(2), kRne);  // saturates: all ones, invalid
  a.csrr(s4, 0x001);
  a.kx_exit();
  TestGpu g(64);
  g.load(a);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.fr(1), bits(4886717952.0f));  // 0x123456789 truncated to 24 bits
  EXPECT_EQ(g.x(s2), 4886717952ull);
  EXPECT_EQ(g.fr(2), bits(std::ldexp(1.0f, 64)));
  EXPECT_EQ(g.x(s3), ~0ull);
  EXPECT_EQ(g.x(s4), fp::kInexact | fp::kInvalid);
}

TEST(FpIsa, FlagsArePerThread) {
  // Only odd lanes divide by zero; only they see DZ in fflags.
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.andi(t0, t0, 1);
  a.fcvt_s_w(f(1), t0);  // 0.0 or 1.0
  a.li(t1, 1);
  a.fcvt_s_w(f(2), t1);
  a.fdiv(f(3), f(2), f(1), kRne);  // 1/0 on even lanes
  a.csrr(s2, 0x001);
  a.kx_exit();
  TestGpu g(64, 8);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {8, 1, 1}), LaunchState::kDone);
  for (uint32_t lane = 0; lane < 8; ++lane) {
    EXPECT_EQ(g.x(s2, lane), lane % 2 == 0 ? fp::kDivByZero : 0u) << lane;
  }
}

}  // namespace
}  // namespace kestrel::model::test
