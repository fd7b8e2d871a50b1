// Compiled with -frounding-math: the compiler must not fold or move float
// operations across the rounding-mode and flag calls below.
#include "fpu.hpp"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace kestrel::model::fp {
namespace {

float as_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint32_t as_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

// Keeps a value in memory at this point, so the computation producing it
// cannot move past the flag read after it (nor one consuming it before the
// rounding-mode switch in front of it).
template <class T>
void pin(T& value) {
  asm volatile("" : "+m"(value) : : "memory");
}

uint32_t canonical(uint32_t bits) { return is_nan(bits) ? kCanonicalNan : bits; }

// Runs `op` in rounding mode rm (not RMM) and returns its result with the
// flags it raised.  The host runs in round-to-nearest outside these regions.
#if defined(__SSE2__)
// x86-64 does float and double arithmetic in SSE, whose control/status
// register MXCSR holds both the rounding mode and the exception flags: one
// read and two writes replace <cfenv>'s x87+SSE round trips, which dominated
// the per-lane cost of FP instructions.  Flush-to-zero and denormals-are-zero
// are forced off inside the region (RISC-V keeps subnormals).
template <class Op>
float guarded(unsigned rm, uint32_t& raised, Op op) {
  static constexpr unsigned kRoundingBits[4] = {0x0000, 0x6000, 0x2000, 0x4000};  // RNE, RTZ, RDN, RUP
  constexpr unsigned kFlagBits = 0x3F, kRoundingMask = 0x6000, kFlushToZero = 0x8000,
                     kDenormalsAreZero = 0x40;
  const unsigned saved = _mm_getcsr();
  _mm_setcsr((saved & ~(kFlagBits | kRoundingMask | kFlushToZero | kDenormalsAreZero)) | kRoundingBits[rm]);
  float result = op();
  pin(result);
  const unsigned status = _mm_getcsr();
  _mm_setcsr(saved);
  raised = ((status & 0x20) ? kInexact : 0) | ((status & 0x10) ? kUnderflow : 0) |
           ((status & 0x08) ? kOverflow : 0) | ((status & 0x04) ? kDivByZero : 0) |
           ((status & 0x01) ? kInvalid : 0);
  return result;
}
#else
int host_mode(unsigned rm) {
  switch (rm) {
    case kRtz:
      return FE_TOWARDZERO;
    case kRdn:
      return FE_DOWNWARD;
    case kRup:
      return FE_UPWARD;
    default:
      return FE_TONEAREST;
  }
}

uint32_t flags_from_host(int host) {
  uint32_t flags = 0;
  if (host & FE_INEXACT) flags |= kInexact;
  if (host & FE_UNDERFLOW) flags |= kUnderflow;
  if (host & FE_OVERFLOW) flags |= kOverflow;
  if (host & FE_DIVBYZERO) flags |= kDivByZero;
  if (host & FE_INVALID) flags |= kInvalid;
  return flags;
}

template <class Op>
float guarded(unsigned rm, uint32_t& raised, Op op) {
  const bool switch_mode = rm != kRne;
  if (switch_mode) std::fesetround(host_mode(rm));
  std::feclearexcept(FE_ALL_EXCEPT);
  float result = op();
  pin(result);
  raised = flags_from_host(std::fetestexcept(FE_ALL_EXCEPT));
  if (switch_mode) std::fesetround(FE_TONEAREST);
  return result;
}
#endif

// ---- round to nearest, ties to max magnitude (RMM), which x86 lacks --------
// An exact real value as an unevaluated sum hi + lo of doubles (|lo| at most
// half an ulp of hi), rounded to float by hand.
struct Exact {
  double hi;
  double lo;
};

Exact two_sum(double a, double b) {
  volatile double s = a + b;  // volatile: keep the error term from being simplified away
  const double bb = s - a;
  const double err = (a - (s - bb)) + (b - bb);
  return {s, err};
}

// RMM rounding of a non-zero magnitude hi + lo (hi > 0).
float round_rmm_magnitude(double hi, double lo) {
  float t = static_cast<float>(hi);
  if (static_cast<double>(t) > hi) t = std::nextafter(t, 0.0f);
  if (static_cast<double>(t) == hi) return t;  // lo is far below half an ulp of t
  const float u = std::nextafter(t, std::numeric_limits<float>::infinity());
  const double upper = std::isinf(u) ? std::ldexp(1.0, 128) : static_cast<double>(u);
  const double mid = (static_cast<double>(t) + upper) / 2;
  if (hi > mid) return u;
  if (hi < mid) return t;
  return lo >= 0 ? u : t;  // exactly halfway: ties go away from zero
}

float round_rmm(Exact v, uint32_t& flags) {
  const bool negative = v.hi < 0;
  const double hi = negative ? -v.hi : v.hi;
  const double lo = negative ? -v.lo : v.lo;
  const float magnitude = round_rmm_magnitude(hi, lo);
  flags |= kInexact;
  if (std::isinf(magnitude)) flags |= kOverflow;
  // Tininess after rounding, as RISC-V defines it: round with an unbounded
  // exponent range (scale into the normal range, exactly) and compare.
  const float scaled = round_rmm_magnitude(std::ldexp(hi, 64), std::ldexp(lo, 64));
  if (scaled < std::ldexp(1.0f, -126 + 64)) flags |= kUnderflow;
  return negative ? -magnitude : magnitude;
}

// Arithmetic in mode rm.  For RMM the host computes the round-to-nearest-even
// result first: when that is exact, NaN, or an exact infinity every mode
// agrees; otherwise `exact()` gives the precise value to round by hand.
template <class Op, class ExactOf>
uint32_t arith(unsigned rm, uint32_t& flags, Op op, ExactOf exact) {
  uint32_t raised = 0;
  if (rm != kRmm) {
    const float r = guarded(rm, raised, op);
    flags |= raised;
    return canonical(as_bits(r));
  }
  const float nearest = guarded(kRne, raised, op);
  if ((raised & kInexact) == 0 || std::isnan(nearest)) {
    flags |= raised;
    return canonical(as_bits(nearest));
  }
  return as_bits(round_rmm(exact(), flags));
}

}  // namespace

uint32_t add(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags) {
  float x = as_float(a), y = as_float(b);
  return arith(
      rm, flags,
      [&] {
        pin(x);
        pin(y);
        return x + y;
      },
      [&] { return two_sum(x, y); });
}

uint32_t sub(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags) {
  float x = as_float(a), y = as_float(b);
  return arith(
      rm, flags,
      [&] {
        pin(x);
        pin(y);
        return x - y;
      },
      [&] { return two_sum(x, -static_cast<double>(y)); });
}

uint32_t mul(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags) {
  float x = as_float(a), y = as_float(b);
  return arith(
      rm, flags,
      [&] {
        pin(x);
        pin(y);
        return x * y;
      },
      [&] {
        return Exact{static_cast<double>(x) * y, 0.0};
      });  // 24x24 bits: exact in a double
}

uint32_t div(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags) {
  float x = as_float(a), y = as_float(b);
  return arith(
      rm, flags,
      [&] {
        pin(x);
        pin(y);
        return x / y;
      },
      [&] {
        const double q = static_cast<double>(x) / y;
        const double rem = std::fma(-q, static_cast<double>(y), static_cast<double>(x));
        return Exact{q, rem / y};  // only the sign of lo decides a tie
      });
}

uint32_t sqrt(uint32_t a, unsigned rm, uint32_t& flags) {
  float x = as_float(a);
  return arith(
      rm, flags,
      [&] {
        pin(x);
        return std::sqrt(x);
      },
      [&] {
        const double s = std::sqrt(static_cast<double>(x));
        return Exact{s, std::fma(-s, s, static_cast<double>(x))};
      });
}

uint32_t fma(uint32_t a, uint32_t b, uint32_t c, bool negate_product, bool negate_addend, unsigned rm,
             uint32_t& flags) {
  // RISC-V: inf * 0 is invalid even when the addend is a quiet NaN.
  const bool inf_times_zero = ((a & 0x7FFFFFFFu) == 0x7F800000u && (b & 0x7FFFFFFFu) == 0) ||
                              ((b & 0x7FFFFFFFu) == 0x7F800000u && (a & 0x7FFFFFFFu) == 0);
  if (inf_times_zero) flags |= kInvalid;
  float x = as_float(negate_product ? a ^ 0x80000000u : a);
  float y = as_float(b);
  float z = as_float(negate_addend ? c ^ 0x80000000u : c);
  return arith(
      rm, flags,
      [&] {
        pin(x);
        pin(y);
        pin(z);
        return std::fma(x, y, z);
      },
      [&] { return two_sum(static_cast<double>(x) * y, z); });
}

uint32_t min(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_signaling_nan(a) || is_signaling_nan(b)) flags |= kInvalid;
  if (is_nan(a) && is_nan(b)) return kCanonicalNan;
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  if ((a | b) == 0x80000000u) return 0x80000000u;  // -0 is less than +0
  return as_float(a) < as_float(b) ? a : b;
}

uint32_t max(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_signaling_nan(a) || is_signaling_nan(b)) flags |= kInvalid;
  if (is_nan(a) && is_nan(b)) return kCanonicalNan;
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  if ((a | b) == 0x80000000u) return a & b;  // +0 is above -0; max(-0, -0) stays -0
  return as_float(a) > as_float(b) ? a : b;
}

bool eq(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_signaling_nan(a) || is_signaling_nan(b)) flags |= kInvalid;
  if (is_nan(a) || is_nan(b)) return false;
  return as_float(a) == as_float(b);
}

bool lt(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    flags |= kInvalid;
    return false;
  }
  return as_float(a) < as_float(b);
}

bool le(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    flags |= kInvalid;
    return false;
  }
  return as_float(a) <= as_float(b);
}

uint32_t classify(uint32_t a) {
  const bool negative = (a >> 31) != 0;
  const uint32_t exponent = (a >> 23) & 0xFF;
  const uint32_t fraction = a & 0x7FFFFF;
  if (exponent == 0xFF) {
    if (fraction == 0) return negative ? 1u << 0 : 1u << 7;
    return (fraction & 0x400000) ? 1u << 9 : 1u << 8;
  }
  if (exponent == 0) {
    if (fraction == 0) return negative ? 1u << 3 : 1u << 4;
    return negative ? 1u << 2 : 1u << 5;
  }
  return negative ? 1u << 1 : 1u << 6;
}

uint64_t to_int(uint32_t a, unsigned bits, bool is_signed, unsigned rm, uint32_t& flags) {
  const double lowest = is_signed ? -std::ldexp(1.0, static_cast<int>(bits) - 1) : 0.0;
  const double limit = std::ldexp(1.0, static_cast<int>(is_signed ? bits - 1 : bits));  // first value too big
  const uint64_t width_mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  const uint64_t max_pattern = is_signed ? (width_mask >> 1) : width_mask;
  const uint64_t min_pattern = is_signed ? (1ull << (bits - 1)) : 0;
  auto sign_extend = [&](uint64_t pattern) {
    if (bits == 64) return pattern;
    return (pattern & (1ull << 31)) ? pattern | ~width_mask : pattern & width_mask;
  };
  if (is_nan(a)) {
    flags |= kInvalid;
    return sign_extend(max_pattern);
  }
  const double x = as_float(a);
  double rounded;
  switch (rm) {
    case kRtz:
      rounded = std::trunc(x);
      break;
    case kRdn:
      rounded = std::floor(x);
      break;
    case kRup:
      rounded = std::ceil(x);
      break;
    case kRmm:
      rounded = std::round(x);
      break;
    default:
      rounded = std::nearbyint(x);
      break;  // the host rounds to nearest even here
  }
  if (rounded < lowest) {
    flags |= kInvalid;
    return sign_extend(min_pattern);
  }
  if (rounded >= limit) {
    flags |= kInvalid;
    return sign_extend(max_pattern);
  }
  if (rounded != x) flags |= kInexact;
  const uint64_t pattern =
      is_signed ? static_cast<uint64_t>(static_cast<int64_t>(rounded)) : static_cast<uint64_t>(rounded);
  return sign_extend(pattern & width_mask);
}

uint32_t from_int(uint64_t value, bool is_signed, unsigned rm, uint32_t& flags) {
  auto convert = [&] {
    uint64_t v = value;
    pin(v);
    return is_signed ? static_cast<float>(static_cast<int64_t>(v)) : static_cast<float>(v);
  };
  auto exact = [&] {
    // Split into two halves a double holds exactly, then sum without loss.
    const double high =
        is_signed ? static_cast<double>(static_cast<int64_t>(value) >> 32) : static_cast<double>(value >> 32);
    return two_sum(std::ldexp(high, 32), static_cast<double>(value & 0xFFFFFFFFu));
  };
  return arith(rm, flags, convert, exact);
}

}  // namespace kestrel::model::fp
