// The arithmetic of CUDA texture fetches (CUDA C Programming Guide v8.0,
// 3.2.11.1 and appendix F), bit-exact against an NVIDIA H100: addressing,
// point and linear filtering, format conversion, tex2Dgather and
// tex1Dfetch.  Defined once here and compiled on both sides (issue 16): the
// functional model's kestrel/model/texture_sampling.hpp wraps it with
// validation for the host, and the device SDK's kestrel_texture.h calls it
// from kernels, reading texels with ordinary loads.  Each rule names the
// golden file it was fitted to; tests/cuda/reference/nvidia_texture/README.md
// gives the evidence and docs/texture.md the summary.
//
// Freestanding on purpose: no exceptions, no heap, no standard library
// beyond <stdint.h>, and no libm (the device is rv32imaf/rv64imaf: its
// double arithmetic is libgcc's software, floor and ldexp are spelled out
// below).  Every function is pure; the texels come from a reader functor
// `read(x, y, z, layer, uint8_t* out)` the caller supplies.  The descriptor
// must be one CUDA accepts (kestrel::model::texture::sample validates it;
// the runtime validates what a texture object holds).
#pragma once

#include <stdint.h>

#if defined(__CUDA__)
#define KESTREL_TEXTURE_MATH_FN __host__ __device__ inline
#else
#define KESTREL_TEXTURE_MATH_FN inline
#endif

namespace kestrel::texture {

enum class Dimension { k1D, k2D, k3D, kCubemap };
enum class ChannelKind { kSigned, kUnsigned, kFloat };
enum class ReadMode { kElementType, kNormalizedFloat };
enum class AddressMode { kWrap, kClamp, kMirror, kBorder };
enum class FilterMode { kPoint, kLinear };

// The fields of a texture that change the arithmetic (what
// cudaCreateTextureObject fixes), as plain data both sides can build.
struct Descriptor {
  Dimension dimension;
  bool layered;  // 1D or 2D layered (guide 3.2.11.1.4), or cubemap layered (3.2.11.1.6)
  int width;
  int height;  // 1 for 1D
  int depth;   // 1 for 1D and 2D
  int layers;  // layered textures; a cubemap has 6 faces of width x width, a layered one 6 per layer
  ChannelKind kind;
  int bits_per_channel;  // 8, 16 or 32 (16 or 32 for floats)
  int channels;          // 1, 2 or 4
  ReadMode read_mode;
  bool normalized_coordinates;
  AddressMode address[3];
  uint32_t border_color[4];  // binary32 bits
  FilterMode filter;
  // cudaTextureDesc::sRGB (guide 3.2.11.1): 8-bit unsigned texels read as
  // normalized floats are converted from sRGB to linear (srgb_converts).
  bool srgb = false;
};

// Four result components as bits: the float's bits when the descriptor
// returns floats, otherwise the integer (sign-extended for signed formats).
// Components beyond the format's channels are 0 (y, z) and 1 (w: 1.0f or
// integer 1).
struct Texels {
  uint32_t v[4];
};

namespace detail {

constexpr int kMaxTexelBytes = 16;
// A weight of linear filtering in units of 1/256 (appendix F.2: 9-bit
// fixed point with 8 fractional bits, so 0..256).
constexpr int kWeightOne = 256;
// Normalized coordinates keep 21 fractional bits, truncated toward minus
// infinity, before they are scaled by the texture's size
// (texture_precision: point sampling beside k/N).
constexpr double kNormalizedCoordinateScale = 2097152.0;  // 2^21
constexpr uint32_t kQuietNaN = 0x7fc00000u;
constexpr uint32_t kInfinity = 0x7f800000u;
constexpr uint32_t kOneFloat = 0x3f800000u;

KESTREL_TEXTURE_MATH_FN int texel_bytes(const Descriptor& t) { return t.bits_per_channel / 8 * t.channels; }
KESTREL_TEXTURE_MATH_FN bool returns_float(const Descriptor& t) {
  return t.kind == ChannelKind::kFloat || t.read_mode == ReadMode::kNormalizedFloat;
}

KESTREL_TEXTURE_MATH_FN uint32_t float_bits(float f) { return __builtin_bit_cast(uint32_t, f); }
KESTREL_TEXTURE_MATH_FN float bits_float(uint32_t u) { return __builtin_bit_cast(float, u); }
KESTREL_TEXTURE_MATH_FN bool is_nan_bits(uint32_t u) { return (u & 0x7fffffffu) > kInfinity; }

KESTREL_TEXTURE_MATH_FN long long max_ll(long long a, long long b) { return a > b ? a : b; }
KESTREL_TEXTURE_MATH_FN long long min_ll(long long a, long long b) { return a < b ? a : b; }
KESTREL_TEXTURE_MATH_FN int max_int(int a, int b) { return a > b ? a : b; }

// floor of a double of magnitude below 2^63 (the largest is a clamped
// normalized coordinate, 1e12 x 2^21 < 2^61).
KESTREL_TEXTURE_MATH_FN long long floor_ll(double v) {
  const long long t = static_cast<long long>(v);  // toward zero
  return static_cast<double>(t) > v ? t - 1 : t;
}
// 2^e as a double, -1022 <= e <= 1023.
KESTREL_TEXTURE_MATH_FN double pow2(int e) {
  return __builtin_bit_cast(double, static_cast<uint64_t>(e + 1023) << 52);
}
KESTREL_TEXTURE_MATH_FN int leading_bit(uint64_t v) { return 63 - __builtin_clzll(v); }

// --- Texel values -----------------------------------------------------------

KESTREL_TEXTURE_MATH_FN float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exponent == 0x1f) return bits_float(sign | (mantissa ? kQuietNaN : kInfinity));
  const float magnitude = exponent == 0
                              ? static_cast<float>(mantissa) * 5.9604644775390625e-8f  // 2^-24
                              : static_cast<float>(mantissa + 1024) * static_cast<float>(pow2(exponent - 25));
  return bits_float(sign | float_bits(magnitude));
}

// Channel `c` of a raw texel as a signed or unsigned integer.
KESTREL_TEXTURE_MATH_FN long long channel_integer(const Descriptor& t, const uint8_t* texel, int c) {
  const int bytes = t.bits_per_channel / 8;
  uint32_t raw = 0;
  for (int b = 0; b < bytes; ++b) raw |= static_cast<uint32_t>(texel[c * bytes + b]) << (8 * b);
  if (t.kind == ChannelKind::kSigned) {
    const int shift = 32 - t.bits_per_channel;
    return static_cast<int32_t>(raw << shift) >> shift;
  }
  return raw;
}

// Channel `c` of a float texel.
KESTREL_TEXTURE_MATH_FN float channel_float(const Descriptor& t, const uint8_t* texel, int c) {
  const long long raw = channel_integer(t, texel, c);
  return t.bits_per_channel == 16 ? half_to_float(static_cast<uint16_t>(raw))
                                  : bits_float(static_cast<uint32_t>(raw));
}

// The largest value of a normalized format: 2^b - 1 unsigned, 2^(b-1) - 1
// signed (guide 3.2.11.1 maps the range to [0, 1] or [-1, 1]; -128 and
// -32768 read as -1.0 too: texture_formats).
KESTREL_TEXTURE_MATH_FN long long normalized_scale(const Descriptor& t) {
  return t.kind == ChannelKind::kSigned ? (1LL << (t.bits_per_channel - 1)) - 1
                                        : (1LL << t.bits_per_channel) - 1;
}

// A point-sampled normalized integer: v / scale rounded once to float.
KESTREL_TEXTURE_MATH_FN float normalized_exact(const Descriptor& t, long long v) {
  const long long scale = normalized_scale(t);
  v = max_ll(v, -scale);
  // v and scale are exact floats (below 2^16), so the float division is the
  // correctly rounded quotient.
  return static_cast<float>(v) / static_cast<float>(scale);
}

// Filtering and gather read normalized integers through a 16-bit fixed
// point value: unorm16 (q / 65535) for unsigned formats, snorm16 (q / 32767)
// for signed ones (texture_formats: an 8-bit 1 reads as 1/127 point-sampled
// but 258/32767 gathered or filtered at a texel centre).
// The most negative value (-128, -32768) is not clamped to -1 here but in
// the filtered result (texture_formats: s8 -128, -127, 1, 63 blend to
// -12320 / 32767).
KESTREL_TEXTURE_MATH_FN long long normalized_fixed16(const Descriptor& t, long long v) {
  if (t.bits_per_channel == 16) return v;
  if (t.kind == ChannelKind::kUnsigned) return v * 257;  // v / 255 == v * 257 / 65535 exactly
  const long long scaled = v * 32767;                    // round half away from zero of v * 32767 / 127
  return scaled >= 0 ? (scaled + 63) / 127 : -((-scaled + 63) / 127);
}

KESTREL_TEXTURE_MATH_FN double fixed16_scale(const Descriptor& t) {
  return t.kind == ChannelKind::kSigned ? 32767.0 : 65535.0;
}

// q / 65535 or q / 32767 rounded once to float: both are exact floats
// (|q| < 2^24), so the float division is the correctly rounded quotient.
KESTREL_TEXTURE_MATH_FN float fixed16_to_float(const Descriptor& t, long long q) {
  return static_cast<float>(q) / (t.kind == ChannelKind::kSigned ? 32767.0f : 65535.0f);
}

KESTREL_TEXTURE_MATH_FN long long round_half_up(double v) { return floor_ll(v + 0.5); }

// A subnormal float counts as a zero of its sign in filtering and gather
// (texture_formats: a subnormal texel filters and gathers as +0).
KESTREL_TEXTURE_MATH_FN uint32_t flush_subnormal(uint32_t u) {
  return (u & 0x7f800000u) == 0 ? (u & 0x80000000u) : u;
}

// --- sRGB (guide 3.2.11.1, cudaTextureDesc::sRGB) -------------------------
//
// What the H100 does (texture_srgb): only 8-bit unsigned texels read as
// normalized floats are converted (other formats and element-type reads
// ignore the flag), and not their alpha: the last channel of a 2- or
// 4-channel texel.  Byte m stands for the linear value M(m) x 2^(k(m) - 16),
// M an 8-bit integer: the IEC 61966-2-1 curve rounded to the nearest multiple
// of 2^(k - 16), where k grows by one at bytes 32, 48, 64, 96, 136, 184 and
// 248 (k = 2 below 32, 9 from 248).  Point sampling, tex1Dfetch and
// tex2Dgather return that value.  Linear filtering truncates every tap's
// value to the multiple of 2^(k - 16) of the largest byte among the taps of
// nonzero weight, sums the weighted values exactly and rounds the sum once
// to 11 significant bits (half precision's, ties away from zero).  The
// border colour is encoded to the nearest byte first.  Fitted to every pair
// of bytes at 9 weights and 131,072 random bilinear fetches, all bit for bit.

// The shift k of byte m.
KESTREL_TEXTURE_MATH_FN constexpr int srgb_shift(int byte) {
  return 2 + (byte >= 32) + (byte >= 48) + (byte >= 64) + (byte >= 96) + (byte >= 136) + (byte >= 184) +
         (byte >= 248);
}

// The IEC 61966-2-1 sRGB-to-linear curve of v in [0, 1], in double with no
// libm: v / 12.92 up to 0.04045, else t^2.4 = t^2 x (t^2)^(1/5) with
// t = (v + 0.055) / 1.055 and the fifth root by Newton's method from 1
// (decreasing to the root; 64 steps reach it for t^2 >= 0.008).
KESTREL_TEXTURE_MATH_FN constexpr double srgb_curve(double v) {
  if (v <= 0.04045) return v / 12.92;
  const double t = (v + 0.055) / 1.055, square = t * t;
  double root = 1.0;
  for (int i = 0; i < 64; ++i) {
    const double r2 = root * root;
    root = (4.0 * root + square / (r2 * r2)) / 5.0;
  }
  return square * root;
}

// M(m) for every byte, made at compile time from the curve.
struct SrgbTable {
  uint8_t mantissa[256];
};

KESTREL_TEXTURE_MATH_FN constexpr SrgbTable make_srgb_table() {
  SrgbTable table{};
  for (int m = 0; m < 256; ++m) {
    const double scaled = srgb_curve(m / 255.0) * static_cast<double>(1 << (16 - srgb_shift(m)));
    table.mantissa[m] = static_cast<uint8_t>(static_cast<int>(scaled + 0.5));  // nearest; no ties occur
  }
  return table;
}

inline constexpr SrgbTable kSrgbTable = make_srgb_table();

// Byte m's linear value in units of 2^-16 (0..65536).
KESTREL_TEXTURE_MATH_FN uint32_t srgb_linear(int byte) {
  return static_cast<uint32_t>(kSrgbTable.mantissa[byte]) << srgb_shift(byte);
}

// Byte m's linear value as a float (exact).
KESTREL_TEXTURE_MATH_FN float srgb_float(int byte) {
  return static_cast<float>(srgb_linear(byte)) * 1.52587890625e-5f;  // 2^-16
}

// Whether channel c of the texture is converted from sRGB.
KESTREL_TEXTURE_MATH_FN bool srgb_converts(const Descriptor& t, int c) {
  if (!t.srgb || t.kind != ChannelKind::kUnsigned || t.bits_per_channel != 8 ||
      t.read_mode != ReadMode::kNormalizedFloat)
    return false;
  return !((t.channels == 2 || t.channels == 4) && c == t.channels - 1);
}

// A border colour component as the sRGB byte whose exact value is nearest
// (0.5, 0.25 and 0.75 read as bytes 188, 137 and 225: texture_srgb), found
// by bisection on the curve's midpoints; NaN and values below 0 give 0.
KESTREL_TEXTURE_MATH_FN int srgb_encode(float linear) {
  const double c = static_cast<double>(linear);
  if (!(c > 0.0)) return 0;
  int low = 0, high = 255;  // the byte is the count of midpoints at or below c
  while (low < high) {
    const int mid = (low + high + 1) / 2;
    if (srgb_curve((mid - 0.5) / 255.0) <= c)
      low = mid;
    else
      high = mid - 1;
  }
  return low;
}

// A filtered sRGB channel: the weighted sum of linear values in units of
// 2^-24 (below 2^25) rounded to 11 significant bits, ties away from zero,
// as a float (sums below 2^11 units are exact: half precision's subnormals).
KESTREL_TEXTURE_MATH_FN float srgb_round(uint32_t sum) {
  if (sum >= (1u << 11)) {
    const int drop = leading_bit(sum) - 10;
    sum = ((sum >> (drop - 1)) + 1) >> 1 << drop;
  }
  return static_cast<float>(sum) * 5.9604644775390625e-8f;  // 2^-24, exact
}

// A filtered sRGB channel's sum over taps of bytes `bytes` and weights
// `weights` (1/256 each; weight-0 taps skipped): each value truncated to the
// step of the largest byte, in units of 2^-24.
KESTREL_TEXTURE_MATH_FN uint32_t srgb_weighted_sum(const uint32_t* bytes, const int* weights, int count) {
  int largest = 0;
  for (int n = 0; n < count; ++n)
    if (weights[n] != 0 && static_cast<int>(bytes[n]) > largest) largest = static_cast<int>(bytes[n]);
  const int step = srgb_shift(largest);
  uint32_t sum = 0;
  for (int n = 0; n < count; ++n)
    if (weights[n] != 0)
      sum += static_cast<uint32_t>(weights[n]) * (srgb_linear(static_cast<int>(bytes[n])) >> step << step);
  return sum;
}

// --- Exact weighted sums ----------------------------------------------------

// The weighted sum of up to eight texels: each product weight/256 x float
// is exact; they are summed in a fixed-point accumulator (bit 0 weighs
// 2^-160, below the smallest product 2^-149 x 2^-8; the top limb's sign bit
// is the sign) and rounded once.  Two passes over the same terms, note()
// then add(), so that no list of terms is kept: a kernel's stack is small
// (1 KiB by default, docs/isa.md section 4).
class ExactSum {
 public:
  // First pass: weight/256 x value is one of the terms.  Terms of weight 0
  // take no part (a fetch at a texel centre of -0 returns -0).
  KESTREL_TEXTURE_MATH_FN void note(int weight, float value) {
    if (weight == 0) return;
    const uint32_t u = flush_subnormal(float_bits(value));
    const bool negative = (u >> 31) != 0;
    if ((u & 0x7fffffffu) == 0) {
      all_negative_zero_ = all_negative_zero_ && negative;
      return;
    }
    all_negative_zero_ = false;
    if ((u & 0x7f800000u) == 0x7f800000u) {
      // inf + -inf and anything with NaN give NaN, as in float arithmetic.
      special_ = has_special_ && special_ != u ? kQuietNaN : u;
      if (is_nan_bits(u)) special_ = kQuietNaN;
      has_special_ = true;
      return;
    }
    int shift;
    const uint64_t product = term(weight, u, &shift);
    top_term_ = max_int(top_term_, shift + leading_bit(product));
  }

  // Second pass: adds the term, its bits in a window of kAccumulatorBits
  // below the leading bit of the largest term.
  KESTREL_TEXTURE_MATH_FN void add(int weight, float value) {
    if (weight == 0 || has_special_) return;
    const uint32_t u = flush_subnormal(float_bits(value));
    if ((u & 0x7fffffffu) == 0) return;
    int shift;
    uint64_t product = term(weight, u, &shift);
    const int drop = top_term_ - kAccumulatorBits - shift;  // this term's bits below the window
    if (drop >= 64)
      product = 0;
    else if (drop > 0)
      product &= ~((uint64_t{1} << drop) - 1);
    if (product) add_magnitude(product, shift, (u >> 31) != 0);
  }

  // The sum rounded once to a binary format of `precision` significant bits
  // whose smallest normal exponent is `min_exponent` and largest finite
  // exponent `max_exponent` (float: 24, -126, 127; half: 11, -14, 15), to
  // nearest with ties away from zero (texture_addressing: the ties of 2D
  // and 3D filtering), returned as float bits (exact for both formats).
  KESTREL_TEXTURE_MATH_FN uint32_t round(int precision, int min_exponent, int max_exponent) {
    if (has_special_) return special_;
    uint64_t* magnitude = limbs_;
    const bool negative = (magnitude[kLimbs - 1] >> 63) != 0;
    if (negative) negate(magnitude);
    int top = -1;
    for (int i = kLimbs - 1; i >= 0 && top < 0; --i)
      if (magnitude[i]) top = i * 64 + leading_bit(magnitude[i]);
    if (top < 0) return all_negative_zero_ ? 0x80000000u : 0u;
    // The last kept bit: precision - 1 below the leading one, but no finer
    // than the format's subnormal step.
    const int lsb = max_int(top - (precision - 1), kFractionBits + min_exponent - (precision - 1));
    uint64_t kept = 0;
    for (int b = top; b >= lsb; --b) kept = (kept << 1) | bit(magnitude, b);
    if (lsb > 0 && bit(magnitude, lsb - 1)) ++kept;  // half or more: away from zero
    const uint32_t sign = negative ? 0x80000000u : 0u;
    if (kept == 0) return sign;  // below half the format's smallest step
    // kept x 2^(lsb - 160) with kept < 2^25: at or past 2^(max + 1) overflows.
    if (leading_bit(kept) + lsb - kFractionBits > max_exponent) return sign | kInfinity;
    const double value = static_cast<double>(kept) * pow2(lsb - kFractionBits);
    return sign | float_bits(static_cast<float>(value));  // exact
  }

 private:
  static constexpr int kLimbs = 6;
  static constexpr int kFractionBits = 160;
  // The products are added in a window of this many bits below the leading
  // bit of the largest: smaller bits are dropped (texture_formats: 0.75e30
  // - 1.9375 rounds as the tie 0.75e30, away from zero; any window of 30 to
  // 60 bits fits every golden result).
  static constexpr int kAccumulatorBits = 32;

  // weight x the finite nonzero float of bits u, as product x 2^(shift - 160).
  KESTREL_TEXTURE_MATH_FN static uint64_t term(int weight, uint32_t u, int* shift) {
    const int biased = (u >> 23) & 0xff;
    const uint64_t mantissa = (u & 0x7fffff) | 0x800000;  // value = mantissa x 2^(biased - 150)
    *shift = biased - 150 - 8 + kFractionBits;
    return mantissa * static_cast<uint64_t>(weight);  // < 2^33
  }

  KESTREL_TEXTURE_MATH_FN static unsigned bit(const uint64_t* m, int b) {
    return (m[b / 64] >> (b % 64)) & 1u;
  }

  KESTREL_TEXTURE_MATH_FN static void negate(uint64_t* m) {
    unsigned carry = 1;
    for (int i = 0; i < kLimbs; ++i) {
      m[i] = ~m[i] + carry;
      carry = carry && m[i] == 0;
    }
  }

  KESTREL_TEXTURE_MATH_FN void add_magnitude(uint64_t value, int shift, bool negative) {
    // value x 2^shift spans at most two limbs; a negative term is added as
    // its two's complement, whose higher limbs are all ones.
    const int limb = shift / 64, offset = shift % 64;
    unsigned carry = negative ? 1u : 0u;
    for (int i = 0; i < kLimbs; ++i) {
      uint64_t part = i == limb ? value << offset : i == limb + 1 && offset ? value >> (64 - offset) : 0;
      if (negative) part = ~part;
      const uint64_t sum = limbs_[i] + part;
      const unsigned carry_out = sum < limbs_[i];
      limbs_[i] = sum + carry;
      carry = carry_out | (limbs_[i] < sum);
    }
  }

  uint64_t limbs_[kLimbs] = {};
  int top_term_ = 0;
  bool has_special_ = false;
  uint32_t special_ = 0;
  bool all_negative_zero_ = true;
};

// --- Coordinates and weights --------------------------------------------------

struct Axis {
  int size;
  AddressMode mode;
};

// The taps of one axis: texel i0 with weight (256 - weight) and texel
// i0 + 1 with weight `weight`, in units of 1/256.
struct AxisTaps {
  long long i0;
  int weight;
};

// Where a texel index lands: inside (index valid) or on the border colour.
struct TexelIndex {
  int index;  // inside the axis unless border
  bool border;
};

// The coordinate in texel units: normalized coordinates truncated to 21
// fractional bits and scaled by the size (exact in double).
KESTREL_TEXTURE_MATH_FN double texel_coordinate(float x, bool normalized, int size) {
  double u = x != x ? 0.0 : static_cast<double>(x);
  u = u < -1e12 ? -1e12 : u > 1e12 ? 1e12 : u;
  if (normalized)
    u = static_cast<double>(floor_ll(u * kNormalizedCoordinateScale)) / kNormalizedCoordinateScale * size;
  return u;
}

KESTREL_TEXTURE_MATH_FN TexelIndex resolve(long long i, const Axis& a) {
  const long long n = a.size;
  switch (a.mode) {
    case AddressMode::kWrap:
      return {static_cast<int>(((i % n) + n) % n), false};
    case AddressMode::kMirror: {
      const long long m = ((i % (2 * n)) + 2 * n) % (2 * n);
      return {static_cast<int>(m < n ? m : 2 * n - 1 - m), false};
    }
    case AddressMode::kBorder:
      return {i < 0 || i >= n ? 0 : static_cast<int>(i), i < 0 || i >= n};
    case AddressMode::kClamp:
    default:
      return {static_cast<int>(min_ll(max_ll(i, 0), n - 1)), false};
  }
}

// The two taps of linear filtering along one axis (appendix F.2): the
// weight of the upper texel is (u - 0.5)'s fraction in 1.8 fixed point,
// rounded half up (texture_precision); each tap is then addressed on its
// own.  For filtering, clamp first clamps u to the texel centres
// [0.5, N - 0.5] (texture_addressing: 96 3D results need it, where the
// weights do not keep the axes' marginals); tex2Dgather does not (with clamp
// a gather at (0.2, 0.2) returns texel (0, 0) four times).
KESTREL_TEXTURE_MATH_FN AxisTaps linear_taps(double u, const Axis& a, bool clamp_to_centres) {
  if (clamp_to_centres && a.mode == AddressMode::kClamp)
    u = u < 0.5 ? 0.5 : u > a.size - 0.5 ? a.size - 0.5 : u;
  const double below = u - 0.5;
  AxisTaps taps;
  taps.i0 = floor_ll(below);
  taps.weight = static_cast<int>(floor_ll((below - static_cast<double>(taps.i0)) * kWeightOne + 0.5));
  return taps;
}

// The per-texel weights of one z slice of weight wz (256 for 1D and 2D),
// w[j][i], in units of 1/256.  The slice is split along x, the upper
// column taking ax x wz / 256 rounded half up and the lower the rest; each
// column is then split along y, the upper row taking column x ay / 256
// rounded half up in the upper column and half down in the lower one, the
// lower row the rest.  In 2D this keeps both axes' weights exactly (the
// upper-upper texel gets rhu(ax x ay / 256), the others the differences:
// texture_precision, texture_addressing); in 3D it does not, and the tie
// rules are what texture_addressing's 3D results and texture_kernels'
// volume rays need.
KESTREL_TEXTURE_MATH_FN void slice_weights(int ax, int ay, int wz, int w[2][2]) {
  // p / 256 for p >= 0 in integers: half up (p + 128) >> 8, half down
  // (p + 127) >> 8 (no software double on the device).
  const int upper_column = (ax * wz + 128) >> 8;
  const int column[2] = {wz - upper_column, upper_column};
  const int upper_row[2] = {(column[0] * ay + 127) >> 8, (column[1] * ay + 128) >> 8};
  for (int i = 0; i < 2; ++i) {
    w[0][i] = column[i] - upper_row[i];
    w[1][i] = upper_row[i];
  }
}

KESTREL_TEXTURE_MATH_FN Texels defaults(const Descriptor& t) {
  return {{0u, 0u, 0u, returns_float(t) ? kOneFloat : 1u}};
}

// The border colour as a result component: the float, or for integer
// element-type reads the float converted to an integer.
KESTREL_TEXTURE_MATH_FN uint32_t border_component(const Descriptor& t, int c) {
  if (srgb_converts(t, c)) return float_bits(srgb_float(srgb_encode(bits_float(t.border_color[c]))));
  if (returns_float(t)) return t.border_color[c];
  return static_cast<uint32_t>(static_cast<long long>(bits_float(t.border_color[c])));
}

// Point sampling (appendix F.1): the texel floor(u) on each axis.
template <typename Reader>
KESTREL_TEXTURE_MATH_FN Texels point(const Descriptor& t, Reader& read, const Axis* axes, const double* u,
                                     int axes_used, int layer) {
  long long index[3] = {0, 0, 0};
  bool border = false;
  for (int a = 0; a < axes_used; ++a) {
    const TexelIndex r = resolve(floor_ll(u[a]), axes[a]);
    index[a] = r.index;
    border = border || r.border;
  }
  Texels r = defaults(t);
  if (border) {
    for (int c = 0; c < t.channels; ++c) r.v[c] = border_component(t, c);
    return r;
  }
  uint8_t texel[kMaxTexelBytes];
  read(static_cast<int>(index[0]), static_cast<int>(index[1]), static_cast<int>(index[2]), layer, texel);
  for (int c = 0; c < t.channels; ++c) {
    if (t.kind == ChannelKind::kFloat)
      r.v[c] = float_bits(channel_float(t, texel, c));
    else if (srgb_converts(t, c))
      r.v[c] = float_bits(srgb_float(static_cast<int>(channel_integer(t, texel, c))));
    else if (t.read_mode == ReadMode::kNormalizedFloat)
      r.v[c] = float_bits(normalized_exact(t, channel_integer(t, texel, c)));
    else
      r.v[c] = static_cast<uint32_t>(channel_integer(t, texel, c));
  }
  return r;
}

// Linear filtering (appendix F.2) over the first `axes_used` axes; an
// unused axis has one tap, texel 0.
//
// `level_weight` (1..256, in 1/256) is the weight of this level in a fetch
// that blends two levels of a mipmap (linear mipmap filter): the level is
// split first, like a slice (texture_mipmap: a 1D fetch between levels 0
// and 1 at LOD 1/8 weighs its four texels 23, 201, 10 and 22), and the
// result is this level's part of the sum, which blend_levels completes: for
// floats the part rounded as a whole fetch is, for normalized integers the
// weighted sum itself, unrounded.  256: an ordinary fetch.
template <typename Reader>
KESTREL_TEXTURE_MATH_FN Texels linear(const Descriptor& t, Reader& read, const Axis* axes, const double* u,
                                      int axes_used, int layer, int level_weight) {
  AxisTaps taps[3] = {{0, 0}, {0, 0}, {0, 0}};
  TexelIndex index[3][2] = {{{0, false}, {0, false}}, {{0, false}, {0, false}}, {{0, false}, {0, false}}};
  for (int a = 0; a < axes_used; ++a) {
    taps[a] = linear_taps(u[a], axes[a], true);
    index[a][0] = resolve(taps[a].i0, axes[a]);
    index[a][1] = resolve(taps[a].i0 + 1, axes[a]);
  }
  // Tap n is (i, j, k) = (n & 1, (n >> 1) & 1, n >> 2), of weight weights[n].
  int weights[8];
  const int count = axes_used == 3 ? 8 : 4;
  for (int k = 0; k < count / 4; ++k) {
    // A slice's weight of the level's: the upper slice rounds half up.
    const int upper_slice = (taps[2].weight * level_weight + 128) >> 8;
    const int wz = axes_used == 3 ? (k ? upper_slice : level_weight - upper_slice) : level_weight;
    int w[2][2];
    slice_weights(taps[0].weight, taps[1].weight, wz, w);
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) weights[k * 4 + j * 2 + i] = w[j][i];
  }
  // One channel at a time, so that only one texel and one channel's eight
  // values are held (a kernel's stack is 1 KiB by default): a texture of c
  // channels reads each tap c times.  Taps of weight 0 are not read.
  Texels r = defaults(t);
  for (int c = 0; c < t.channels; ++c) {
    // float bits, the 16-bit fixed-point value of a normalized integer, or
    // the byte of an sRGB channel
    uint32_t value[8];
    const bool srgb = srgb_converts(t, c);
    for (int n = 0; n < count; ++n) {
      if (weights[n] == 0) continue;
      const TexelIndex& xi = index[0][n & 1];
      const TexelIndex& yi = index[1][(n >> 1) & 1];
      const TexelIndex& zi = index[2][n >> 2];
      if (xi.border || yi.border || zi.border) {
        value[n] = t.kind == ChannelKind::kFloat ? t.border_color[c]
                   : srgb ? static_cast<uint32_t>(srgb_encode(bits_float(t.border_color[c])))
                          : static_cast<uint32_t>(round_half_up(
                                static_cast<double>(bits_float(t.border_color[c])) * fixed16_scale(t)));
        continue;
      }
      uint8_t texel[kMaxTexelBytes];
      read(xi.index, yi.index, zi.index, layer, texel);
      value[n] = t.kind == ChannelKind::kFloat ? float_bits(channel_float(t, texel, c))
                 : srgb                        ? static_cast<uint32_t>(channel_integer(t, texel, c))
                        : static_cast<uint32_t>(normalized_fixed16(t, channel_integer(t, texel, c)));
    }
    if (srgb) {
      // Each z slice's four taps take the step of their own largest byte
      // (texture_srgb: a 3D fetch); one level's part of a mipmap blend
      // stays an unrounded sum (in 2^-24).
      uint32_t sum = 0;
      for (int k = 0; k < count; k += 4) sum += srgb_weighted_sum(value + k, weights + k, 4);
      r.v[c] = level_weight != kWeightOne ? sum : float_bits(srgb_round(sum));
      continue;
    }
    if (t.kind == ChannelKind::kFloat) {
      ExactSum sum;
      for (int n = 0; n < count; ++n)
        if (weights[n] != 0) sum.note(weights[n], bits_float(value[n]));
      for (int n = 0; n < count; ++n)
        if (weights[n] != 0) sum.add(weights[n], bits_float(value[n]));
      // A half-float texture's filtered value is rounded to half precision
      // (texture_formats: 65504 / 4 - 1.5 / 4 reads as 16376).
      r.v[c] = t.bits_per_channel == 16 ? sum.round(11, -14, 15) : sum.round(24, -126, 127);
    } else {
      // Normalized integers: the weighted sum of the 16-bit fixed-point
      // texels, rounded half up to 16 bits, then converted to float.
      long long sum = 0;
      for (int n = 0; n < count; ++n)
        if (weights[n] != 0) sum += weights[n] * static_cast<long long>(static_cast<int32_t>(value[n]));
      if (level_weight != kWeightOne) {
        r.v[c] = static_cast<uint32_t>(sum);  // at most 256 x 65535 in magnitude
        continue;
      }
      long long q = (sum + 128) >> 8;  // floor((sum + 128) / 256)
      if (t.kind == ChannelKind::kSigned) q = max_ll(q, -32767);
      r.v[c] = float_bits(fixed16_to_float(t, q));
    }
  }
  return r;
}

// The face and face coordinates (s, t in [0, 1]) a cubemap direction picks
// (guide 3.2.11.1.5, table 1): the axis of largest magnitude picks the face.
struct CubemapFace {
  int face;
  float s;
  float t;
};

KESTREL_TEXTURE_MATH_FN float abs_float(float x) { return bits_float(float_bits(x) & 0x7fffffffu); }

KESTREL_TEXTURE_MATH_FN CubemapFace cubemap_face(float x, float y, float z) {
  const float ax = abs_float(x), ay = abs_float(y), az = abs_float(z);
  CubemapFace f;
  float sc, tc, ma;
  // The table's comparisons are strict, so ties go to z, then y
  // (texture_addressing: (1, 1, 0.2) reads face +y, (1, 1, 1) face +z).
  if (ax > ay && ax > az) {
    f.face = x >= 0 ? 0 : 1;
    sc = x >= 0 ? -z : z;
    tc = -y;
    ma = ax;
  } else if (ay > az) {
    f.face = y >= 0 ? 2 : 3;
    sc = x;
    tc = y >= 0 ? z : -z;
    ma = ay;
  } else {
    f.face = z >= 0 ? 4 : 5;
    sc = z >= 0 ? x : -x;
    tc = -y;
    ma = az;
  }
  f.s = (sc / ma + 1.0f) * 0.5f;
  f.t = (tc / ma + 1.0f) * 0.5f;
  return f;
}

// Where a fetch at (x, y, z) (for a cubemap the direction) of layer
// `layer_index` lands: the axes it filters along (axes_used of them; an
// unused axis has one tap, texel 0), each coordinate in texel units, and the
// layer or cube face it reads.
struct Lookup {
  Axis axes[3];
  double u[3];
  int axes_used;
  int layer;
};

KESTREL_TEXTURE_MATH_FN Lookup lookup(const Descriptor& texture, float x, float y, float z, int layer_index) {
  Lookup l;
  l.axes_used = 2;
  l.layer = 0;
  bool normalized = texture.normalized_coordinates;
  int width = texture.width, height = texture.height;
  if (texture.dimension == Dimension::kCubemap) {
    // Cubemap fetches always address the face in normalized coordinates.
    const CubemapFace f = cubemap_face(x, y, z);
    l.layer = f.face;
    x = f.s;
    y = f.t;
    normalized = true;
  } else if (texture.dimension == Dimension::k1D && texture.layered) {
    // A layered 1D texture is filtered along x alone (texture_addressing:
    // its border-mode linear fetch at a texel centre is the texel).
    l.axes_used = 1;
    height = 1;
  } else if (texture.dimension == Dimension::k1D) {
    // A 1D texture is filtered as a 2D texture of height 1 sampled at y = 0
    // (texture_precision: a border-mode linear fetch is half the clamp's).
    y = 0.0f;
    height = 1;
  } else if (texture.dimension == Dimension::k3D) {
    l.axes_used = 3;
  }
  // The layer index is unsigned: a negative one reads the last layer
  // (texture_addressing: layer -1 reads layer 2 of 3); a layered cubemap's
  // layer is 6 faces (texture_mipmap: texCubemapLayered's layer -1 reads the
  // last cubemap too).
  if (texture.layered) {
    const bool cubemap = texture.dimension == Dimension::kCubemap;
    const uint32_t last = static_cast<uint32_t>((cubemap ? texture.layers / 6 : texture.layers) - 1),
                   asked = static_cast<uint32_t>(layer_index);
    const int picked = static_cast<int>(asked < last ? asked : last);
    l.layer = cubemap ? picked * 6 + l.layer : picked;
  }
  const int sizes[3] = {width, height, texture.depth};
  const float coords[3] = {x, y, z};
  for (int a = 0; a < 3; ++a) {
    l.axes[a].size = sizes[a];
    l.axes[a].mode = texture.dimension == Dimension::kCubemap ? AddressMode::kClamp : texture.address[a];
    // With unnormalized coordinates wrap and mirror act as clamp.
    if (!normalized && (l.axes[a].mode == AddressMode::kWrap || l.axes[a].mode == AddressMode::kMirror))
      l.axes[a].mode = AddressMode::kClamp;
    l.u[a] = texel_coordinate(coords[a], normalized, sizes[a]);
  }
  return l;
}

}  // namespace detail

// tex1D/tex2D/tex3D/tex1DLayered/tex2DLayered/texCubemap: the fetch at
// (x, y, z) (for a cubemap the direction) of layer `layer`; `level_weight`
// below 256 gives one level's part of a linear mipmap blend (linear()).
template <typename Reader>
KESTREL_TEXTURE_MATH_FN Texels sample(const Descriptor& texture, Reader& read, float x, float y, float z,
                                      int layer_index, int level_weight = detail::kWeightOne) {
  using namespace detail;
  const Lookup l = lookup(texture, x, y, z, layer_index);
  return texture.filter == FilterMode::kPoint
             ? point(texture, read, l.axes, l.u, l.axes_used, l.layer)
             : linear(texture, read, l.axes, l.u, l.axes_used, l.layer, level_weight);
}

// The texels the texture unit reads for sample()'s fetch, in its order
// (kestrel_tex_unit; docs/texture.md, "Taps"): point sampling reads tap 0,
// linear filtering taps 0-1 (1D layered), 0-3 (1D, 2D) or 0-7 (3D), tap n
// being texel (n & 1, (n >> 1) & 1, n >> 2) of the axes' index pairs (x
// fastest, then y, then z), taps of weight 0 included; border taps read
// nothing.  visit(x, y, z, layer) for each texel read.  sample()'s reader
// sees the same order, but per channel and without the taps of weight 0.
template <typename Visit>
KESTREL_TEXTURE_MATH_FN void unit_taps(const Descriptor& texture, float x, float y, float z, int layer_index,
                                       Visit& visit) {
  using namespace detail;
  const Lookup l = lookup(texture, x, y, z, layer_index);
  TexelIndex index[3][2] = {{{0, false}, {0, false}}, {{0, false}, {0, false}}, {{0, false}, {0, false}}};
  const bool linear_filter = texture.filter == FilterMode::kLinear;
  for (int a = 0; a < l.axes_used; ++a) {
    if (linear_filter) {
      const AxisTaps taps = linear_taps(l.u[a], l.axes[a], true);
      index[a][0] = resolve(taps.i0, l.axes[a]);
      index[a][1] = resolve(taps.i0 + 1, l.axes[a]);
    } else {
      index[a][0] = resolve(floor_ll(l.u[a]), l.axes[a]);
    }
  }
  const int count = !linear_filter ? 1 : l.axes_used == 3 ? 8 : l.axes_used == 2 ? 4 : 2;
  for (int n = 0; n < count; ++n) {
    const TexelIndex& xi = index[0][n & 1];
    const TexelIndex& yi = index[1][(n >> 1) & 1];
    const TexelIndex& zi = index[2][n >> 2];
    if (!xi.border && !yi.border && !zi.border) visit(xi.index, yi.index, zi.index, l.layer);
  }
}

// tex2Dgather: component `component` (0..channels-1) of the four texels a
// linear fetch at (x, y) would blend, in the order (i0, j1), (i1, j1),
// (i1, j0), (i0, j0).  The texture is 2D and not layered.
template <typename Reader>
KESTREL_TEXTURE_MATH_FN Texels gather(const Descriptor& texture, Reader& read, float x, float y,
                                      int component) {
  using namespace detail;
  Axis axes[2];
  double u[2];
  const int sizes[2] = {texture.width, texture.height};
  const float coords[2] = {x, y};
  for (int a = 0; a < 2; ++a) {
    axes[a].size = sizes[a];
    axes[a].mode = texture.address[a];
    if (!texture.normalized_coordinates &&
        (axes[a].mode == AddressMode::kWrap || axes[a].mode == AddressMode::kMirror))
      axes[a].mode = AddressMode::kClamp;
    u[a] = texel_coordinate(coords[a], texture.normalized_coordinates, sizes[a]);
  }
  const AxisTaps tx = linear_taps(u[0], axes[0], false), ty = linear_taps(u[1], axes[1], false);
  const TexelIndex xs[2] = {resolve(tx.i0, axes[0]), resolve(tx.i0 + 1, axes[0])};
  const TexelIndex ys[2] = {resolve(ty.i0, axes[1]), resolve(ty.i0 + 1, axes[1])};
  const int order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  Texels r = {{0u, 0u, 0u, 0u}};
  uint8_t texel[kMaxTexelBytes];
  for (int n = 0; n < 4; ++n) {
    const TexelIndex& xi = xs[order[n][0]];
    const TexelIndex& yi = ys[order[n][1]];
    if (xi.border || yi.border) {
      r.v[n] = border_component(texture, component);
      continue;
    }
    read(xi.index, yi.index, 0, 0, texel);
    const long long v = channel_integer(texture, texel, component);
    if (texture.kind == ChannelKind::kFloat)
      r.v[n] = flush_subnormal(float_bits(channel_float(texture, texel, component)));
    else if (srgb_converts(texture, component))
      r.v[n] = float_bits(srgb_float(static_cast<int>(v)));
    else if (texture.read_mode == ReadMode::kNormalizedFloat)
      r.v[n] = float_bits(fixed16_to_float(texture, max_ll(normalized_fixed16(texture, v), -32767)));
    else
      r.v[n] = static_cast<uint32_t>(v);
  }
  return r;
}

// tex1Dfetch of linear memory of `element_count` texels: texel `index`
// (read as read(index, 0, 0, 0, out)), or all zeros when the index is out
// of range (guide B.8.1.1).  No filtering or conversion beyond the read mode.
template <typename Reader>
KESTREL_TEXTURE_MATH_FN Texels fetch_linear(const Descriptor& texture, Reader& read, uint32_t element_count,
                                            int index) {
  if (index < 0 || static_cast<uint32_t>(index) >= element_count) return {{0u, 0u, 0u, 0u}};
  Descriptor one_dimensional = texture;
  one_dimensional.dimension = Dimension::k1D;
  one_dimensional.filter = FilterMode::kPoint;
  one_dimensional.width = static_cast<int>(element_count);
  const detail::Axis axis[1] = {{static_cast<int>(element_count), AddressMode::kClamp}};
  const double u[1] = {static_cast<double>(index)};
  return detail::point(one_dimensional, read, axis, u, 1, 0);
}

// ---- Mipmaps and level of detail (guide 3.2.11.1, B.8.1.3-B.8.1.20) ----------
//
// A mipmapped texture is a chain of images, level l of size max(1, size >> l)
// per axis (layers and cube faces keep their count).  A fetch picks a level
// of detail (LOD): given (tex*Lod) or from the gradients of the coordinates
// (tex*Grad), plus the bias, clamped to [min clamp, max clamp] and to the
// levels there are; then samples the nearest level (point mipmap filter) or
// blends the two around it (linear).  The precision is the H100's, fitted
// to tests/cuda/reference/nvidia_texture/texture_mipmap.expected.

// What cudaTextureDesc fixes for a mipmapped texture.
struct Mipmap {
  int levels;         // 1..17
  FilterMode filter;  // mipmapFilterMode
  float bias;         // mipmapLevelBias
  float min_clamp;    // minMipmapLevelClamp
  float max_clamp;    // maxMipmapLevelClamp
};

// LOD in fixed point with 8 fractional bits.
constexpr int kLodOne = 256;

// The LOD a fetch uses, in 1/256 of a level, 0..(levels - 1) x 256: lod +
// bias (a float addition), clamped to the max clamp and then the min clamp
// (so a min clamp above the max clamp wins), to [0, levels - 1], and
// truncated to 8 fractional bits.  NaN counts as 0.  texture_mipmap: lod
// 1 + k/4096 selects 1 + floor(k/16)/256, 0.99999994 gives 255/256, NaN
// level 0, clamp (3, 1) level 3; all 1,944 bias and clamp probes.
KESTREL_TEXTURE_MATH_FN int lod_fixed(const Mipmap& m, float lod) {
  float l = lod + m.bias;
  if (l != l) l = 0.0f;
  if (l > m.max_clamp) l = m.max_clamp;
  if (l < m.min_clamp) l = m.min_clamp;
  if (!(l > 0.0f)) return 0;  // also NaN clamps
  const float top = static_cast<float>(m.levels - 1);
  if (l >= top) return (m.levels - 1) * kLodOne;
  // l < 17, so l x 256 is exact and fits; the conversion truncates.
  return static_cast<int>(l * static_cast<float>(kLodOne));
}

namespace detail {

// round(log2(x) x 256) for a positive finite x, half up: the exponent, and
// the mantissa's logarithm bit by bit (squaring it; a square of 2 or more is
// a 1 bit), 10 bits of it computed and rounded to 8.  Exact but for ties far
// below 2^-10, which no float length hits in practice.
KESTREL_TEXTURE_MATH_FN int log2_fixed(float x) {
  uint32_t u = float_bits(x) & 0x7fffffffu;
  int exponent = static_cast<int>(u >> 23) - 127;
  uint32_t mantissa = u & 0x7fffffu;
  if ((u >> 23) == 0) {  // subnormal: normalize
    exponent = -126;
    while ((mantissa & 0x800000u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    mantissa &= 0x7fffffu;
  }
  // m in [1, 2) with 30 fractional bits.
  uint64_t m = (static_cast<uint64_t>(0x800000u | mantissa)) << 7;
  int fraction = 0;
  for (int bit = 0; bit < 10; ++bit) {
    m = (m * m) >> 30;
    fraction <<= 1;
    if (m >= (uint64_t{2} << 30)) {
      m >>= 1;
      fraction |= 1;
    }
  }
  return exponent * kLodOne + ((fraction + 2) >> 2);
}

}  // namespace detail

// The LOD that the gradients dx, dy (texture coordinates per unit of x and y
// of the caller, in the units of the texture's coordinates) ask of `level0`,
// before the bias and clamps, as a float: log2 of the longer gradient in
// texels of level 0, to 8 fractional bits (rounded), or -infinity for zero
// gradients.  A gradient's length is not its Euclidean norm but max + 11/32
// x the middle axis + 1/4 x the smallest, of its extents in texels
// (texture_mipmap's "grad angle": 5 texels read 2.324 along x, 2.402 at 22.5
// degrees and 2.25 at 45); 1D textures add 1/16 of the shorter gradient.
// The fit and what it misses: tests/cuda/reference/nvidia_texture/README.md
// ("Mipmaps").
KESTREL_TEXTURE_MATH_FN float gradient_lod(const Descriptor& level0, const float* dx, const float* dy) {
  using namespace detail;
  const int axes = level0.dimension == Dimension::k1D ? 1 : level0.dimension == Dimension::k3D ? 3 : 2;
  const int sizes[3] = {level0.width, level0.height, level0.depth};
  // Each gradient in texels, then its length.
  float longest = 0.0f, shortest = 0.0f;
  for (int g = 0; g < 2; ++g) {
    const float* d = g == 0 ? dx : dy;
    float e[3] = {0.0f, 0.0f, 0.0f};
    for (int a = 0; a < axes; ++a) {
      // Unnormalized coordinates are texels already.
      const float texels = level0.normalized_coordinates ? d[a] * static_cast<float>(sizes[a]) : d[a];
      e[a] = abs_float(texels);
      if (e[a] != e[a]) return e[a];  // NaN
    }
    // Largest first.
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j + 1 < 3 - i; ++j)
        if (e[j] < e[j + 1]) {
          const float t = e[j];
          e[j] = e[j + 1];
          e[j + 1] = t;
        }
    // max + 11/32 x mid + 1/4 x min (texture_mipmap "3D grad": a gradient
    // of (1/2, 1, 1/4) x A texels reads log2(A) + 78/256; 2D: "grad angle").
    const float middle = e[1] * 0.34375f;
    const float least = e[2] * 0.25f;
    const float minor = middle + least;
    const float length = e[0] + minor;
    if (g == 0 || length > longest) {
      shortest = longest;
      longest = length;
    } else {
      shortest = length;
    }
  }
  // A 1D texture's two gradients lie on one axis, and the shorter one counts
  // 1/16 (texture_mipmap "1D grad": |dx| = 1 texel and |dy| = 1/2 read LOD
  // 12/256 where the longer alone gives 0; 44 of the 68 probes below the last
  // level fit this, most of the rest by 1/256).  2D and 3D take the longer
  // alone ("grad aniso": dy up to dx changes nothing).
  if (axes == 1) {
    const float part = shortest * 0.0625f;
    longest = longest + part;
  }
  if (longest == 0.0f) return -bits_float(kInfinity);
  if (longest > 3.0e38f) return bits_float(kInfinity);
  return static_cast<float>(log2_fixed(longest)) / static_cast<float>(kLodOne);
}

// The level or two levels a mipmapped fetch at LOD `lod` (lod_fixed's
// units) reads: the nearest level (point mipmap filter; l + 1/2 rounds up,
// texture_mipmap "lod point switch"), or, linear, levels floor(lod) and
// floor(lod) + 1 with the upper one's weight the 8 fractional bits of lod
// (0: the lower level alone).  Results that are not floats (integers read as
// integers, which the runtime allows with the point mipmap filter only) take
// the nearest level.
struct LevelPick {
  int lower;
  int upper;
  int weight;  // of the upper level, in 1/256
};

KESTREL_TEXTURE_MATH_FN LevelPick pick_levels(const Descriptor& texture, const Mipmap& m, int lod) {
  const int last = m.levels - 1;
  LevelPick p;
  if (m.filter == FilterMode::kPoint || !detail::returns_float(texture)) {
    const int level = (lod + kLodOne / 2) / kLodOne;
    p.lower = p.upper = level < last ? level : last;
    p.weight = 0;
    return p;
  }
  const int level = lod / kLodOne;
  p.lower = level < last ? level : last;
  p.upper = p.lower + 1 <= last ? p.lower + 1 : last;
  p.weight = p.upper == p.lower ? 0 : lod % kLodOne;
  return p;
}

// A linear mipmap filter's blend of the two levels' fetches.  With linear
// filtering within the levels, `lower` and `upper` are the levels' parts
// (sample() with level weights 256 - weight and weight): floats add, and
// normalized integers' sums add and round as one fetch's.  With point
// sampling they are the two texels' values, weighed (256 - weight) / 256
// and weight / 256.  Each component's sum is exact and rounded once as
// linear filtering rounds.
KESTREL_TEXTURE_MATH_FN Texels blend_levels(const Descriptor& texture, const Texels& lower,
                                            const Texels& upper, int weight) {
  using namespace detail;
  const bool parts = texture.filter == FilterMode::kLinear;
  Texels r = defaults(texture);
  for (int c = 0; c < texture.channels; ++c) {
    if (srgb_converts(texture, c)) {
      if (parts) {
        r.v[c] = float_bits(srgb_round(lower.v[c] + upper.v[c]));  // each level's sum truncated on its own
        continue;
      }
      // Two point samples, exact multiples of 2^-16: each level is a block
      // of one tap, so neither is truncated (texture_srgb: the point filter
      // with the linear mipmap filter).
      const uint32_t lower_value = static_cast<uint32_t>(bits_float(lower.v[c]) * 65536.0f),
                     upper_value = static_cast<uint32_t>(bits_float(upper.v[c]) * 65536.0f);
      r.v[c] = float_bits(srgb_round((kLodOne - weight) * lower_value + weight * upper_value));
      continue;
    }
    if (parts && texture.kind != ChannelKind::kFloat) {
      const long long sum = static_cast<long long>(static_cast<int32_t>(lower.v[c])) +
                            static_cast<long long>(static_cast<int32_t>(upper.v[c]));
      long long q = (sum + 128) >> 8;
      if (texture.kind == ChannelKind::kSigned) q = max_ll(q, -32767);
      r.v[c] = float_bits(fixed16_to_float(texture, q));
      continue;
    }
    const int lower_weight = parts ? kLodOne : kLodOne - weight, upper_weight = parts ? kLodOne : weight;
    ExactSum sum;
    sum.note(lower_weight, bits_float(lower.v[c]));
    sum.note(upper_weight, bits_float(upper.v[c]));
    sum.add(lower_weight, bits_float(lower.v[c]));
    sum.add(upper_weight, bits_float(upper.v[c]));
    r.v[c] = texture.kind == ChannelKind::kFloat && texture.bits_per_channel == 16 ? sum.round(11, -14, 15)
                                                                                   : sum.round(24, -126, 127);
  }
  return r;
}

// The level weight sample() takes for level `upper` (false: the lower one)
// of a pick: with linear filtering the levels are weighed inside the fetch.
KESTREL_TEXTURE_MATH_FN int level_weight(const Descriptor& texture, const LevelPick& p, bool upper) {
  if (p.weight == 0 || texture.filter != FilterMode::kLinear) return detail::kWeightOne;
  return upper ? p.weight : kLodOne - p.weight;
}

// A mipmapped fetch at LOD `lod`: pick_levels, then blend_levels where two
// levels take part.  sample_level(l, level_weight) returns level l's fetch
// (sample() on that level's image).
template <typename SampleLevel>
KESTREL_TEXTURE_MATH_FN Texels sample_mipmapped(const Descriptor& texture, const Mipmap& m, int lod,
                                                SampleLevel& sample_level) {
  const LevelPick p = pick_levels(texture, m, lod);
  const Texels lower = sample_level(p.lower, level_weight(texture, p, false));
  if (p.weight == 0) return lower;
  return blend_levels(texture, lower, sample_level(p.upper, level_weight(texture, p, true)), p.weight);
}

}  // namespace kestrel::texture
