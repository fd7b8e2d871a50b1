// The F arithmetic unit on its own: all five rounding modes, flags, canonical
// NaNs, fmin/fmax NaN rules, saturating conversions, fclass, compares,
// subnormals, the fused forms' single rounding.  Built twice: with the x86-64
// MXCSR fast path and with the portable <cfenv> path.
#include <cfenv>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include "fpu.hpp"

#include "fp_bits.hpp"

namespace kestrel::model::test {
namespace {

constexpr uint32_t kQNaN = 0x7FC00000u;
constexpr uint32_t kSNaN = 0x7F800001u;
constexpr uint32_t kNegQNaNPayload = 0xFFC12345u;
constexpr uint32_t kPosInf = 0x7F800000u, kNegInf = 0xFF800000u;
constexpr uint32_t kMinSubnormal = 0x00000001u;
constexpr uint32_t kMinNormal = 0x00800000u;

uint32_t add(float a, float b, unsigned rm, uint32_t* flags = nullptr) {
  uint32_t f = 0;
  const uint32_t r = fp::add(bits(a), bits(b), rm, f);
  if (flags) *flags = f;
  return r;
}

TEST(FpUnit, RoundingModesOfAnInexactSum) {
  // 1 + 2^-24 lies halfway between 1 and the next float 1 + 2^-23.
  const float one = 1.0f, half_ulp = std::ldexp(1.0f, -24);
  EXPECT_EQ(add(one, half_ulp, fp::kRne), bits(1.0f));                        // ties to even
  EXPECT_EQ(add(one, half_ulp, fp::kRmm), bits(std::nextafter(1.0f, 2.0f)));  // ties away
  EXPECT_EQ(add(one, half_ulp, fp::kRtz), bits(1.0f));
  EXPECT_EQ(add(one, half_ulp, fp::kRup), bits(std::nextafter(1.0f, 2.0f)));
  EXPECT_EQ(add(one, half_ulp, fp::kRdn), bits(1.0f));
  EXPECT_EQ(add(-one, -half_ulp, fp::kRdn), bits(-std::nextafter(1.0f, 2.0f)));
  EXPECT_EQ(add(-one, -half_ulp, fp::kRup), bits(-1.0f));
  EXPECT_EQ(add(-one, -half_ulp, fp::kRmm), bits(-std::nextafter(1.0f, 2.0f)));
  // Not a tie: RMM rounds to nearest like RNE.
  const float quarter_ulp = std::ldexp(1.0f, -25);
  EXPECT_EQ(add(one, quarter_ulp, fp::kRmm), bits(1.0f));
  // An odd neighbour: 1 + 3*2^-24 is halfway between 1+2^-23 and 1+2^-22; RNE goes to the even one.
  const float odd = std::nextafter(1.0f, 2.0f);
  EXPECT_EQ(add(odd, half_ulp, fp::kRne), bits(1.0f + std::ldexp(1.0f, -22)));
  EXPECT_EQ(add(odd, half_ulp, fp::kRmm), bits(1.0f + std::ldexp(1.0f, -22)));
  // The host is back in round-to-nearest afterwards.
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

TEST(FpUnit, FlagsPerOperation) {
  uint32_t flags = 0;
  add(1.0f, std::ldexp(1.0f, -30), fp::kRne, &flags);
  EXPECT_EQ(flags, fp::kInexact);
  add(1.0f, 2.0f, fp::kRne, &flags);
  EXPECT_EQ(flags, 0u);
  add(std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), fp::kRne, &flags);
  EXPECT_EQ(flags, fp::kOverflow | fp::kInexact);
  flags = 0;
  EXPECT_EQ(fp::div(bits(1.0f), bits(0.0f), fp::kRne, flags), kPosInf);
  EXPECT_EQ(flags, fp::kDivByZero);
  flags = 0;
  EXPECT_EQ(fp::sqrt(bits(-1.0f), fp::kRne, flags), kQNaN);
  EXPECT_EQ(flags, fp::kInvalid);
  flags = 0;
  // Underflow: a tiny inexact result.
  fp::mul(bits(std::ldexp(1.0f, -100)), bits(std::ldexp(1.0f + std::ldexp(1.0f, -20), -40)), fp::kRne, flags);
  EXPECT_EQ(flags, fp::kUnderflow | fp::kInexact);
  flags = 0;
  // An exact subnormal result raises nothing (no flush to zero).
  EXPECT_EQ(fp::mul(bits(std::ldexp(1.0f, -140)), bits(0.5f), fp::kRne, flags), bits(std::ldexp(1.0f, -141)));
  EXPECT_EQ(flags, 0u);
}

TEST(FpUnit, RmmSetsFlagsLikeTheOtherModes) {
  uint32_t flags = 0;
  EXPECT_EQ(fp::add(bits(std::numeric_limits<float>::max()), bits(std::numeric_limits<float>::max()),
                    fp::kRmm, flags),
            kPosInf);
  EXPECT_EQ(flags, fp::kOverflow | fp::kInexact);
  flags = 0;
  // Halfway between 0 and the smallest subnormal: ties away gives the subnormal.
  EXPECT_EQ(fp::mul(bits(std::ldexp(1.0f, -75)), bits(std::ldexp(1.0f, -75)), fp::kRmm, flags),
            kMinSubnormal);
  EXPECT_EQ(flags, fp::kUnderflow | fp::kInexact);
  flags = 0;
  EXPECT_EQ(fp::mul(bits(std::ldexp(1.0f, -75)), bits(std::ldexp(1.0f, -75)), fp::kRne, flags), 0u);
  EXPECT_EQ(flags, fp::kUnderflow | fp::kInexact);
  flags = 0;
  EXPECT_EQ(fp::div(bits(1.0f), bits(3.0f), fp::kRmm, flags), bits(1.0f / 3.0f));
  EXPECT_EQ(flags, fp::kInexact);
  flags = 0;
  EXPECT_EQ(fp::sqrt(bits(2.0f), fp::kRmm, flags), bits(std::sqrt(2.0f)));
  flags = 0;
  // 2^24 + 1 is a tie between 2^24 and 2^24 + 2: away from zero.
  EXPECT_EQ(fp::from_int(16777217, true, fp::kRmm, flags), bits(16777218.0f));
  EXPECT_EQ(fp::from_int(16777217, true, fp::kRne, flags), bits(16777216.0f));
  EXPECT_EQ(fp::from_int(static_cast<uint64_t>(-16777217ll), true, fp::kRmm, flags), bits(-16777218.0f));
}

TEST(FpUnit, CanonicalNanResults) {
  uint32_t flags = 0;
  EXPECT_EQ(fp::add(kNegQNaNPayload, bits(1.0f), fp::kRne, flags), kQNaN);
  EXPECT_EQ(flags, 0u);  // quiet NaN input: no invalid
  EXPECT_EQ(fp::mul(kSNaN, bits(1.0f), fp::kRne, flags), kQNaN);
  EXPECT_EQ(flags, fp::kInvalid);
  flags = 0;
  EXPECT_EQ(fp::sub(kPosInf, kPosInf, fp::kRne, flags), kQNaN);
  EXPECT_EQ(flags, fp::kInvalid);
  flags = 0;
  EXPECT_EQ(fp::fma(kPosInf, bits(0.0f), kQNaN, false, false, fp::kRne, flags), kQNaN);
  EXPECT_EQ(flags, fp::kInvalid);  // inf * 0 is invalid even with a quiet NaN addend
  flags = 0;
  EXPECT_EQ(fp::div(bits(0.0f), bits(0.0f), fp::kRmm, flags), kQNaN);
  EXPECT_EQ(flags, fp::kInvalid);
}

TEST(FpUnit, MinMaxNanAndSignedZeroRules) {
  uint32_t flags = 0;
  EXPECT_EQ(fp::min(kQNaN, bits(2.0f), flags), bits(2.0f));
  EXPECT_EQ(fp::max(bits(2.0f), kNegQNaNPayload, flags), bits(2.0f));
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(fp::min(kSNaN, bits(2.0f), flags), bits(2.0f));
  EXPECT_EQ(flags, fp::kInvalid);
  flags = 0;
  EXPECT_EQ(fp::max(kQNaN, kNegQNaNPayload, flags), kQNaN);
  EXPECT_EQ(fp::min(bits(0.0f), bits(-0.0f), flags), bits(-0.0f));
  EXPECT_EQ(fp::min(bits(-0.0f), bits(0.0f), flags), bits(-0.0f));
  EXPECT_EQ(fp::max(bits(-0.0f), bits(0.0f), flags), bits(0.0f));
  EXPECT_EQ(fp::max(bits(-0.0f), bits(-0.0f), flags), bits(-0.0f));  // found by the FPU lane bench
  EXPECT_EQ(fp::min(bits(-3.0f), bits(2.0f), flags), bits(-3.0f));
  EXPECT_EQ(fp::max(bits(-3.0f), bits(2.0f), flags), bits(2.0f));
  EXPECT_EQ(flags, 0u);
}

TEST(FpUnit, ComparesQuietAndSignaling) {
  uint32_t flags = 0;
  EXPECT_FALSE(fp::eq(kQNaN, kQNaN, flags));
  EXPECT_EQ(flags, 0u);
  EXPECT_FALSE(fp::eq(kSNaN, bits(1.0f), flags));
  EXPECT_EQ(flags, fp::kInvalid);
  flags = 0;
  EXPECT_FALSE(fp::lt(kQNaN, bits(1.0f), flags));
  EXPECT_EQ(flags, fp::kInvalid);
  flags = 0;
  EXPECT_FALSE(fp::le(bits(1.0f), kQNaN, flags));
  EXPECT_EQ(flags, fp::kInvalid);
  flags = 0;
  EXPECT_TRUE(fp::eq(bits(0.0f), bits(-0.0f), flags));
  EXPECT_TRUE(fp::le(bits(-0.0f), bits(0.0f), flags));
  EXPECT_FALSE(fp::lt(bits(-0.0f), bits(0.0f), flags));
  EXPECT_TRUE(fp::lt(bits(-1.0f), bits(1.0f), flags));
  EXPECT_EQ(flags, 0u);
}

TEST(FpUnit, ClassifyEveryClass) {
  EXPECT_EQ(fp::classify(kNegInf), 1u << 0);
  EXPECT_EQ(fp::classify(bits(-1.0f)), 1u << 1);
  EXPECT_EQ(fp::classify(0x80000001u), 1u << 2);
  EXPECT_EQ(fp::classify(bits(-0.0f)), 1u << 3);
  EXPECT_EQ(fp::classify(bits(0.0f)), 1u << 4);
  EXPECT_EQ(fp::classify(kMinSubnormal), 1u << 5);
  EXPECT_EQ(fp::classify(kMinNormal), 1u << 6);
  EXPECT_EQ(fp::classify(kPosInf), 1u << 7);
  EXPECT_EQ(fp::classify(kSNaN), 1u << 8);
  EXPECT_EQ(fp::classify(kQNaN), 1u << 9);
}

TEST(FpUnit, FloatToIntSaturates) {
  uint32_t flags = 0;
  auto to_int = [&](float v, unsigned width, bool is_signed, unsigned rm) {
    flags = 0;
    return fp::to_int(bits(v), width, is_signed, rm, flags);
  };
  EXPECT_EQ(to_int(2.5f, 32, true, fp::kRne), 2u);
  EXPECT_EQ(flags, fp::kInexact);
  EXPECT_EQ(to_int(2.5f, 32, true, fp::kRmm), 3u);
  EXPECT_EQ(to_int(-2.5f, 32, true, fp::kRdn), static_cast<uint64_t>(-3));
  EXPECT_EQ(to_int(-2.5f, 32, true, fp::kRup), static_cast<uint64_t>(-2));
  EXPECT_EQ(to_int(-2.5f, 32, true, fp::kRtz), static_cast<uint64_t>(-2));
  EXPECT_EQ(to_int(3e9f, 32, true, fp::kRne), 0x7FFFFFFFu);
  EXPECT_EQ(flags, fp::kInvalid);
  EXPECT_EQ(to_int(-3e9f, 32, true, fp::kRne), 0xFFFFFFFF80000000ull);  // INT32_MIN, sign-extended
  EXPECT_EQ(flags, fp::kInvalid);
  EXPECT_EQ(to_int(-1.0f, 32, false, fp::kRne), 0u);
  EXPECT_EQ(flags, fp::kInvalid);
  EXPECT_EQ(to_int(-0.25f, 32, false, fp::kRtz), 0u);  // rounds to 0: in range, only inexact
  EXPECT_EQ(flags, fp::kInexact);
  EXPECT_EQ(to_int(5e9f, 32, false, fp::kRne), ~0ull);  // UINT32_MAX sign-extended (fcvt.wu on RV64)
  EXPECT_EQ(flags, fp::kInvalid);
  EXPECT_EQ(to_int(3e9f, 32, false, fp::kRne),
            0xFFFFFFFFB2D05E00ull);  // 3e9 fits; bit 31 set -> sign-extended
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(fp::to_int(kQNaN, 32, true, fp::kRne, flags), 0x7FFFFFFFu);
  EXPECT_EQ(fp::to_int(kNegInf, 64, true, fp::kRne, flags), 1ull << 63);
  EXPECT_EQ(fp::to_int(kPosInf, 64, false, fp::kRne, flags), ~0ull);
  EXPECT_EQ(fp::to_int(kQNaN, 64, false, fp::kRne, flags), ~0ull);
  EXPECT_EQ(to_int(1e19f, 64, false, fp::kRne), 9999999980506447872ull);  // 1e19f is exactly this
  EXPECT_EQ(to_int(-9.3e18f, 64, true, fp::kRne), 1ull << 63);
  EXPECT_EQ(flags, fp::kInvalid);
}

TEST(FpUnit, IntToFloatRounds) {
  uint32_t flags = 0;
  EXPECT_EQ(fp::from_int(16777217, true, fp::kRup, flags), bits(16777218.0f));
  EXPECT_EQ(flags, fp::kInexact);
  EXPECT_EQ(fp::from_int(16777217, true, fp::kRdn, flags), bits(16777216.0f));
  EXPECT_EQ(fp::from_int(~0ull, false, fp::kRtz, flags), bits(std::nextafter(std::ldexp(1.0f, 64), 0.0f)));
  EXPECT_EQ(fp::from_int(~0ull, false, fp::kRne, flags), bits(std::ldexp(1.0f, 64)));
  flags = 0;
  EXPECT_EQ(fp::from_int(static_cast<uint64_t>(-7), true, fp::kRne, flags), bits(-7.0f));
  EXPECT_EQ(flags, 0u);
}

TEST(FpUnit, FusedMultiplyAddRoundsOnce) {
  // (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24 exactly; a separate multiply would round it away.
  const float x = 1.0f + std::ldexp(1.0f, -12);
  uint32_t flags = 0;
  EXPECT_EQ(fp::fma(bits(x), bits(x), bits(-(1.0f + std::ldexp(1.0f, -11))), false, false, fp::kRne, flags),
            bits(std::ldexp(1.0f, -24)));
  EXPECT_EQ(flags, 0u);
  // The negated forms: fnmadd = -(a*b) - c.
  EXPECT_EQ(fp::fma(bits(2.0f), bits(3.0f), bits(1.0f), true, true, fp::kRne, flags), bits(-7.0f));
  EXPECT_EQ(fp::fma(bits(2.0f), bits(3.0f), bits(1.0f), false, true, fp::kRne, flags), bits(5.0f));
  EXPECT_EQ(fp::fma(bits(2.0f), bits(3.0f), bits(1.0f), true, false, fp::kRne, flags), bits(-5.0f));
  // RMM on a tie of the fused result: 1 + 2^-24 from (1)*(1) + 2^-24.
  EXPECT_EQ(fp::fma(bits(1.0f), bits(1.0f), bits(std::ldexp(1.0f, -24)), false, false, fp::kRmm, flags),
            bits(std::nextafter(1.0f, 2.0f)));
}

}  // namespace
}  // namespace kestrel::model::test
