// Bit-exact model of rtl/fpu/kestrel_sfu.sv.  Every step is integer
// arithmetic on the widths the RTL uses; only the last one, rounding the
// fixed-point result to a float, uses the host (an exact double, converted
// with round-to-nearest-even, which is what kestrel_fpu_round does).
#include "sfu.hpp"

#include <cmath>
#include <cstring>

namespace kestrel::model::sfu {
namespace {

struct SfuCoefficients {
  int64_t c0;
  int32_t c1;
  int32_t c2;
};

#include "sfu_tables.inc"

// Rows of kSfuTable.
enum Table : unsigned {
  kTabRcp,
  kTabRsqrtEven,
  kTabRsqrtOdd,
  kTabEx2,
  kTabLg2,
  kTabSinQuarter,
  kTabCosQuarter
};

constexpr unsigned kFracBits = 23;     // position t inside a segment, as t * 2^23
constexpr unsigned kOutFracBits = 30;  // interpolated values are scaled by 2^30
constexpr uint32_t kCanonicalNan = 0x7FC00000u;
constexpr uint32_t kInfinity = 0x7F800000u;
// 2^37 / (2 pi), rounded: turns per radian for the sin/cos range reduction.
constexpr uint64_t kTurnsPerRadian = 21874088818ull;

// Arithmetic right shift (floor division by 2^n), spelled out because C++17
// leaves >> of a negative value implementation-defined.
int64_t floor_shift(int64_t value, unsigned n) {
  return value >= 0 ? value >> n : -((-value + (int64_t(1) << n) - 1) >> n);
}

// c0 + c1 t + c2 t^2 on segment `index` of `table`, f = t * 2^23; negative
// results (possible only where the function touches zero) clamp to 0.
int64_t interpolate(unsigned table, unsigned index, uint32_t f) {
  const SfuCoefficients& c = kSfuTable[table][index];
  const int64_t square = (int64_t(f) * f) >> kFracBits;
  const int64_t y =
      c.c0 + floor_shift(int64_t(c.c1) * f, kFracBits) + floor_shift(int64_t(c.c2) * square, kFracBits);
  return y < 0 ? 0 : y;
}

// (-1)^negative * magnitude * 2^exponent rounded to the nearest float (ties
// to even), subnormals kept, overflow to infinity.  The double is exact.
uint32_t to_float(bool negative, uint64_t magnitude, int exponent) {
  const float rounded = static_cast<float>(std::ldexp(static_cast<double>(magnitude), exponent));
  uint32_t bits;
  std::memcpy(&bits, &rounded, sizeof bits);
  return bits | (negative && magnitude != 0 ? 0x80000000u : 0u);
}

struct Unpacked {
  bool negative;
  bool nan;
  bool inf;
  bool zero;
  uint32_t significand;  // with the hidden bit; subnormals normalized to bit 23 when asked
  int exponent;          // unbiased
};

Unpacked unpack(uint32_t a, bool normalize) {
  Unpacked u{};
  const uint32_t biased = (a >> 23) & 0xFF;
  const uint32_t fraction = a & 0x7FFFFF;
  u.negative = (a >> 31) != 0;
  u.nan = biased == 0xFF && fraction != 0;
  u.inf = biased == 0xFF && fraction == 0;
  u.zero = biased == 0 && fraction == 0;
  u.significand = (biased != 0 ? 0x800000u : 0u) | fraction;
  u.exponent = biased != 0 ? int(biased) - 127 : -126;
  if (normalize && !u.zero) {
    while ((u.significand & 0x800000u) == 0) {
      u.significand <<= 1;
      --u.exponent;
    }
  }
  return u;
}

// Table index and in-segment position from the 23 fraction bits.
unsigned index_of_fraction(uint32_t significand) { return (significand >> 16) & 0x7F; }
uint32_t position_of_fraction(uint32_t significand) { return (significand & 0xFFFF) << 7; }

uint32_t reciprocal(uint32_t a) {
  const Unpacked u = unpack(a, true);
  if (u.nan) return kCanonicalNan;
  if (u.inf) return u.negative ? 0x80000000u : 0;
  if (u.zero) return (u.negative ? 0x80000000u : 0) | kInfinity;
  const int64_t y =
      interpolate(kTabRcp, index_of_fraction(u.significand), position_of_fraction(u.significand));
  return to_float(u.negative, uint64_t(y), -int(kOutFracBits) - u.exponent);
}

uint32_t reciprocal_sqrt(uint32_t a) {
  const Unpacked u = unpack(a, true);
  if (u.nan || (u.negative && !u.zero)) return kCanonicalNan;
  if (u.inf) return 0;
  if (u.zero) return (u.negative ? 0x80000000u : 0) | kInfinity;
  // An odd exponent moves a factor 2 into the table's argument.
  const bool odd = (u.exponent & 1) != 0;
  const int half = int(floor_shift(u.exponent, 1));
  const int64_t y = interpolate(odd ? kTabRsqrtOdd : kTabRsqrtEven, index_of_fraction(u.significand),
                                position_of_fraction(u.significand));
  return to_float(false, uint64_t(y), -int(kOutFracBits) - half);
}

uint32_t exp2(uint32_t a) {
  const Unpacked u = unpack(a, false);
  if (u.nan) return kCanonicalNan;
  if (u.inf) return u.negative ? 0 : kInfinity;
  if (u.exponent >= 8) return u.negative ? 0 : kInfinity;  // |x| >= 256
  // x as a signed fixed-point number with 30 fraction bits, truncated.
  const int shift = u.exponent + 7;  // from 23 fraction bits to 30
  const int64_t magnitude =
      shift >= 0 ? int64_t(u.significand) << shift : (shift > -40 ? int64_t(u.significand) >> -shift : 0);
  const int64_t fixed = u.negative ? -magnitude : magnitude;
  const int64_t integer = floor_shift(fixed, 30);
  const uint32_t fraction = uint32_t(fixed & 0x3FFFFFFF);
  const int64_t y = interpolate(kTabEx2, fraction >> 23, fraction & 0x7FFFFF);
  return to_float(false, uint64_t(y), int(integer) - int(kOutFracBits));
}

uint32_t log2(uint32_t a) {
  const Unpacked u = unpack(a, true);
  if (u.nan || (u.negative && !u.zero)) return kCanonicalNan;
  if (u.zero) return 0xFF800000u;
  if (u.inf) return kInfinity;
  const int64_t y =
      interpolate(kTabLg2, index_of_fraction(u.significand), position_of_fraction(u.significand));
  const int64_t value = (int64_t(u.exponent) << kOutFracBits) + y;
  return to_float(value < 0, uint64_t(value < 0 ? -value : value), -int(kOutFracBits));
}

// sin or cos: the angle in turns (32 fraction bits, modulo 1), a quadrant,
// then the quarter-wave tables.
uint32_t sin_cos(uint32_t a, bool cosine) {
  const Unpacked u = unpack(a, false);
  if (u.nan || u.inf) return kCanonicalNan;
  const uint64_t product = uint64_t(u.significand) * kTurnsPerRadian;  // 24 x 35 bits
  const int shift = u.exponent - 28;                                   // turns * 2^32 = product * 2^shift
  uint32_t turns = 0;
  if (shift >= 0) {
    turns = shift < 32 ? uint32_t(product << shift) : 0;
  } else {
    turns = -shift < 64 ? uint32_t(product >> -shift) : 0;
  }
  if (u.negative) turns = 0u - turns;
  const unsigned quadrant = ((turns >> 30) + (cosine ? 1 : 0)) & 3;
  const uint32_t within = turns & 0x3FFFFFFF;
  const unsigned table = (quadrant & 1) ? kTabCosQuarter : kTabSinQuarter;
  const int64_t y = interpolate(table, within >> 23, within & 0x7FFFFF);
  return to_float(quadrant >= 2, uint64_t(y), -int(kOutFracBits));
}

}  // namespace

uint32_t evaluate(unsigned function, uint32_t a) {
  switch (function) {
    case kRcp:
      return reciprocal(a);
    case kRsqrt:
      return reciprocal_sqrt(a);
    case kEx2:
      return exp2(a);
    case kLg2:
      return log2(a);
    case kSin:
      return sin_cos(a, false);
    default:
      return sin_cos(a, true);
  }
}

}  // namespace kestrel::model::sfu
