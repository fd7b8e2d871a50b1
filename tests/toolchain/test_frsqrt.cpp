// __frsqrt_rn (sw_kernels/sdk/include/kestrel_frsqrt.h) on the host: every
// result is proved correctly rounded (round to nearest even) by an
// independent 128-bit test that the midpoints next to it bracket 1/sqrt(x);
// inputs: every float in [1, 4) (every significand with both exponent
// parities; 1/sqrt(4^k x) = 2^-k / sqrt(x) covers the other binades), every
// subnormal, a million random bit patterns, and the special values (guide
// appendix D.2, Table 9: IEEE-compliant).  KESTREL_FRSQRT_ALL=1 checks all
// 2^31 non-negative floats (minutes).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>

#include "kestrel_frsqrt.h"  // -iquote: the SDK's assert.h/math.h are for devices

namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang: exact products up to 2^128

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Sign of m^2 * x - 1 for m = M * 2^em, x = X * 2^ex, all exact in 128 bits:
// true when m^2 * x < 1, i.e. 1/sqrt(x) > m.
bool rsqrt_exceeds(u128 M, int em, u128 X, int ex) {
  const u128 p = M * M * X;      // below 2^(2*26 + 24)
  const int k = -(2 * em + ex);  // compare p with 2^k
  if (k >= 127) return true;
  if (k < 0) return false;
  return p < (static_cast<u128>(1) << k);
}

// Proves y = RN(1/sqrt(x)) for a positive finite x.
bool correctly_rounded(float x, float y) {
  uint32_t xb = bits_of(x), yb = bits_of(y);
  if (!(y > 0.0f) || std::isinf(y) || (yb >> 23) == 0) return false;  // always normal
  u128 X = xb & 0x7FFFFFu;
  int ex = -149;
  if ((xb >> 23) != 0) {
    X |= 0x800000u;
    ex = static_cast<int>(xb >> 23) - 150;
  }
  const u128 Y = (yb & 0x7FFFFFu) | 0x800000u;
  const int ey = static_cast<int>(yb >> 23) - 150;
  // Upper midpoint (2Y + 1) * 2^(ey - 1): 1/sqrt(x) must lie below it.
  if (rsqrt_exceeds(2 * Y + 1, ey - 1, X, ex)) return false;
  // Lower midpoint: (2Y - 1) * 2^(ey - 1), or (4Y - 1) * 2^(ey - 2) when y is
  // a power of two (the float below has half the spacing).
  const bool pow2 = (yb & 0x7FFFFFu) == 0;
  const u128 L = pow2 ? 4 * Y - 1 : 2 * Y - 1;
  const int el = pow2 ? ey - 2 : ey - 1;
  return rsqrt_exceeds(L, el, X, ex);
}

unsigned check_range(uint32_t first, uint32_t last, uint32_t step = 1) {
  unsigned bad = 0;
  for (uint64_t b = first; b <= last; b += step) {
    const float x = float_of(static_cast<uint32_t>(b));
    const float y = __frsqrt_rn(x);
    if (!correctly_rounded(x, y) && ++bad <= 5) {
      ADD_FAILURE() << std::hex << "x=0x" << b << ": got 0x" << bits_of(y);
    }
  }
  return bad;
}

TEST(Frsqrt, SpecialValues) {
  EXPECT_EQ(bits_of(__frsqrt_rn(0.0f)), 0x7F800000u);
  EXPECT_EQ(bits_of(__frsqrt_rn(-0.0f)), 0xFF800000u);
  EXPECT_EQ(bits_of(__frsqrt_rn(INFINITY)), 0u);
  EXPECT_EQ(bits_of(__frsqrt_rn(-INFINITY)), 0x7FC00000u);
  EXPECT_EQ(bits_of(__frsqrt_rn(-1.0f)), 0x7FC00000u);
  EXPECT_EQ(bits_of(__frsqrt_rn(float_of(0x80000001u))), 0x7FC00000u);  // -smallest subnormal
  EXPECT_EQ(bits_of(__frsqrt_rn(float_of(0x7FC00001u))), 0x7FC00000u);  // quiet NaN: canonical
  EXPECT_EQ(bits_of(__frsqrt_rn(float_of(0x7F800001u))), 0x7FC00000u);  // signaling NaN
  EXPECT_EQ(bits_of(__frsqrt_rn(float_of(0xFFC00000u))), 0x7FC00000u);
  // Exact cases: 1/sqrt(4^k) = 2^-k.
  EXPECT_EQ(__frsqrt_rn(1.0f), 1.0f);
  EXPECT_EQ(__frsqrt_rn(4.0f), 0.5f);
  EXPECT_EQ(__frsqrt_rn(0.25f), 2.0f);
  EXPECT_EQ(__frsqrt_rn(std::ldexp(1.0f, -148)), std::ldexp(1.0f, 74));  // smallest subnormal x 2
  EXPECT_TRUE(correctly_rounded(float_of(1), __frsqrt_rn(float_of(1))));
  EXPECT_TRUE(correctly_rounded(float_of(0x7F7FFFFFu), __frsqrt_rn(float_of(0x7F7FFFFFu))));
  EXPECT_TRUE(correctly_rounded(float_of(0x00800000u), __frsqrt_rn(float_of(0x00800000u))));
  EXPECT_TRUE(correctly_rounded(float_of(0x007FFFFFu), __frsqrt_rn(float_of(0x007FFFFFu))));
}

// The checker itself must reject a neighbour of the right answer.
TEST(Frsqrt, CheckerRejectsNeighbours) {
  std::mt19937 rng(3);
  for (int i = 0; i < 10000; ++i) {
    const float x = float_of(rng() & 0x7F7FFFFFu);
    if (x == 0.0f) continue;
    const uint32_t y = bits_of(__frsqrt_rn(x));
    EXPECT_FALSE(correctly_rounded(x, float_of(y + 1)));
    EXPECT_FALSE(correctly_rounded(x, float_of(y - 1)));
  }
}

TEST(Frsqrt, EverySignificandInOneToFour) { EXPECT_EQ(check_range(0x3F800000u, 0x407FFFFFu), 0u); }

TEST(Frsqrt, EverySubnormal) { EXPECT_EQ(check_range(0x00000001u, 0x007FFFFFu), 0u); }

TEST(Frsqrt, RandomBitPatterns) {
  std::mt19937 rng(7);
  unsigned bad = 0;
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t b = rng() & 0x7FFFFFFFu;
    if (b == 0 || b >= 0x7F800000u) continue;
    bad += check_range(b, b);
  }
  EXPECT_EQ(bad, 0u);
}

TEST(Frsqrt, AllNonNegativeFloats) {
  const char* all = std::getenv("KESTREL_FRSQRT_ALL");
  if (all == nullptr || std::strcmp(all, "1") != 0) GTEST_SKIP() << "set KESTREL_FRSQRT_ALL=1";
  EXPECT_EQ(check_range(0x00000001u, 0x7F7FFFFFu), 0u);
}

}  // namespace
