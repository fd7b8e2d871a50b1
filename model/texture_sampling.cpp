// The arithmetic of CUDA texture fetches (kestrel/model/texture_sampling.hpp).
// Each rule below names the golden file it was fitted to; the README beside
// those files (tests/cuda/reference/nvidia_texture/) gives the evidence.
#include "kestrel/model/texture_sampling.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kestrel::model::texture {
namespace {

// A weight of linear filtering in units of 1/256 (appendix F.2: 9-bit
// fixed point with 8 fractional bits, so 0..256).
constexpr int kWeightOne = 256;

// Normalized coordinates keep 21 fractional bits, truncated toward minus
// infinity, before they are scaled by the texture's size
// (texture_precision: point sampling beside k/N).
constexpr double kNormalizedCoordinateScale = 2097152.0;  // 2^21

// The taps of one axis: texel i0 with weight (256 - weight) and texel
// i0 + 1 with weight `weight`, in units of 1/256.
struct AxisTaps {
  long long i0 = 0;
  int weight = 0;
};

// Where a texel index lands: inside (index valid) or on the border colour.
struct TexelIndex {
  long long index = 0;
  bool border = false;
};

void validate(const TextureDescriptor& t) {
  const bool float_kind = t.kind == ChannelKind::kFloat;
  if (t.width < 1 || t.height < 1 || t.depth < 1 || t.layers < 1)
    throw std::invalid_argument("texture: width, height, depth and layers must be at least 1");
  if (t.channels != 1 && t.channels != 2 && t.channels != 4)
    throw std::invalid_argument("texture: a texel has 1, 2 or 4 channels");
  if (float_kind ? (t.bits_per_channel != 16 && t.bits_per_channel != 32)
                 : (t.bits_per_channel != 8 && t.bits_per_channel != 16 && t.bits_per_channel != 32))
    throw std::invalid_argument("texture: channels are 8-, 16- or 32-bit integers or 16- or 32-bit floats");
  if (t.read_mode == ReadMode::kNormalizedFloat && (float_kind || t.bits_per_channel == 32))
    throw std::invalid_argument("texture: only 8- and 16-bit integers can be read as normalized floats");
  if (t.filter == FilterMode::kLinear && !t.returns_float())
    throw std::invalid_argument("texture: linear filtering needs a float result (guide appendix F.2)");
  if (t.layered && t.dimension != Dimension::k1D && t.dimension != Dimension::k2D)
    throw std::invalid_argument("texture: only 1D and 2D textures are layered here (no cubemap layers)");
  if (t.dimension == Dimension::kCubemap && (t.height != t.width || t.layers != 6))
    throw std::invalid_argument("texture: a cubemap has 6 square faces");
}

// --- Texel values -----------------------------------------------------------

float half_to_float(std::uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0x1f)
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else
    magnitude = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
  return sign ? -magnitude : magnitude;
}

std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Channel `c` of a raw texel as a signed or unsigned integer.
long long channel_integer(const TextureDescriptor& t, const std::uint8_t* texel, int c) {
  const int bytes = t.bits_per_channel / 8;
  std::uint32_t raw = 0;
  for (int b = 0; b < bytes; ++b) raw |= static_cast<std::uint32_t>(texel[c * bytes + b]) << (8 * b);
  if (t.kind == ChannelKind::kSigned) {
    const int shift = 32 - t.bits_per_channel;
    return static_cast<std::int32_t>(raw << shift) >> shift;
  }
  return raw;
}

// Channel `c` of a float texel.
float channel_float(const TextureDescriptor& t, const std::uint8_t* texel, int c) {
  const long long raw = channel_integer(t, texel, c);
  return t.bits_per_channel == 16 ? half_to_float(static_cast<std::uint16_t>(raw))
                                  : bits_float(static_cast<std::uint32_t>(raw));
}

// The largest value of a normalized format: 2^b - 1 unsigned, 2^(b-1) - 1
// signed (guide 3.2.11.1 maps the range to [0, 1] or [-1, 1]; -128 and
// -32768 read as -1.0 too: texture_formats).
long long normalized_scale(const TextureDescriptor& t) {
  return t.kind == ChannelKind::kSigned ? (1LL << (t.bits_per_channel - 1)) - 1
                                        : (1LL << t.bits_per_channel) - 1;
}

// A point-sampled normalized integer: v / scale rounded once to float.
float normalized_exact(const TextureDescriptor& t, long long v) {
  const long long scale = normalized_scale(t);
  v = std::max(v, -scale);
  // v / scale is never within 2^-53 of a float's rounding boundary (the
  // quotient's binary expansion repeats with a short period), so the double
  // quotient rounds to the correctly rounded float.
  return static_cast<float>(static_cast<double>(v) / static_cast<double>(scale));
}

// Filtering and gather read normalized integers through a 16-bit fixed
// point value: unorm16 (q / 65535) for unsigned formats, snorm16 (q / 32767)
// for signed ones (texture_formats: an 8-bit 1 reads as 1/127 point-sampled
// but 258/32767 gathered or filtered at a texel centre).
// The most negative value (-128, -32768) is not clamped to -1 here but in
// the filtered result (texture_formats: s8 -128, -127, 1, 63 blend to
// -12320 / 32767).
long long normalized_fixed16(const TextureDescriptor& t, long long v) {
  if (t.bits_per_channel == 16) return v;
  if (t.kind == ChannelKind::kUnsigned) return v * 257;  // v / 255 == v * 257 / 65535 exactly
  const long long scaled = v * 32767;                    // round half away from zero of v * 32767 / 127
  return scaled >= 0 ? (scaled + 63) / 127 : -((-scaled + 63) / 127);
}

double fixed16_scale(const TextureDescriptor& t) {
  return t.kind == ChannelKind::kSigned ? 32767.0 : 65535.0;
}

// --- Exact weighted sums ----------------------------------------------------

// The weighted sum of up to eight texels: each product weight/256 x float
// is exact; they are summed in a fixed-point accumulator (bit 0 weighs
// 2^-160, below the smallest product 2^-149 x 2^-8; the top limb's sign bit
// is the sign) and rounded once.
class ExactSum {
 public:
  // Adds weight/256 x value.  Terms of weight 0 take no part (a fetch at a
  // texel centre of -0 returns -0); subnormal floats count as zeros of their
  // sign (texture_formats: a subnormal texel filters and gathers as +0).
  void add(int weight, float value) {
    if (weight == 0) return;
    if (std::fpclassify(value) == FP_SUBNORMAL) value = std::signbit(value) ? -0.0f : 0.0f;
    if (value == 0.0f) {
      all_negative_zero_ = all_negative_zero_ && std::signbit(value);
      return;
    }
    all_negative_zero_ = false;
    if (!std::isfinite(value)) {
      // inf + -inf and anything with NaN give NaN, as in float arithmetic.
      special_ = has_special_ && (special_ != value) ? std::numeric_limits<float>::quiet_NaN() : value;
      if (std::isnan(value)) special_ = std::numeric_limits<float>::quiet_NaN();
      has_special_ = true;
      return;
    }
    const std::uint32_t u = float_bits(value);
    const int biased = (u >> 23) & 0xff;
    const std::uint64_t mantissa = (u & 0x7fffff) | 0x800000;  // value = mantissa x 2^(biased - 150)
    const std::uint64_t product = mantissa * static_cast<std::uint64_t>(weight);  // < 2^33
    terms_.push_back({product, biased - 150 - 8 + kFractionBits, (u >> 31) != 0});
  }

  // The sum rounded once to a binary format of `precision` significant bits
  // whose smallest normal exponent is `min_exponent` and largest finite
  // exponent `max_exponent` (float: 24, -126, 127; half: 11, -14, 15), to
  // nearest with ties away from zero (texture_addressing: the ties of 2D
  // and 3D filtering), returned as a float (exact for both formats).
  float round(int precision, int min_exponent, int max_exponent) {
    if (has_special_) return special_;
    int top_term = 0;
    for (const Term& t : terms_) top_term = std::max(top_term, t.shift + 63 - __builtin_clzll(t.product));
    for (const Term& t : terms_) {
      std::uint64_t product = t.product;
      const int drop = top_term - kAccumulatorBits - t.shift;  // this term's bits below the window
      if (drop >= 64)
        product = 0;
      else if (drop > 0)
        product &= ~((std::uint64_t{1} << drop) - 1);
      if (product) add_magnitude(product, t.shift, t.negative);
    }
    terms_.clear();
    std::array<std::uint64_t, kLimbs> magnitude = limbs_;
    const bool negative = (magnitude[kLimbs - 1] >> 63) != 0;
    if (negative) negate(magnitude);
    int top = -1;
    for (int i = kLimbs - 1; i >= 0 && top < 0; --i)
      if (magnitude[i]) top = i * 64 + 63 - __builtin_clzll(magnitude[i]);
    if (top < 0) return all_negative_zero_ ? -0.0f : 0.0f;
    // The last kept bit: precision - 1 below the leading one, but no finer
    // than the format's subnormal step.
    const int lsb = std::max(top - (precision - 1), kFractionBits + min_exponent - (precision - 1));
    std::uint64_t kept = 0;
    for (int b = top; b >= lsb; --b) kept = (kept << 1) | bit(magnitude, b);
    if (lsb > 0 && bit(magnitude, lsb - 1)) ++kept;  // half or more: away from zero
    const double value = std::ldexp(static_cast<double>(kept), lsb - kFractionBits);
    if (value >= std::ldexp(1.0, max_exponent + 1)) return negative ? -HUGE_VALF : HUGE_VALF;
    const float result = static_cast<float>(value);  // exact
    return negative ? -result : result;
  }

 private:
  static constexpr int kLimbs = 6;
  static constexpr int kFractionBits = 160;
  // The products are added in a window of this many bits below the leading
  // bit of the largest: smaller bits are dropped (texture_formats: 0.75e30
  // - 1.9375 rounds as the tie 0.75e30, away from zero; any window of 30 to
  // 60 bits fits every golden result).
  static constexpr int kAccumulatorBits = 32;

  static unsigned bit(const std::array<std::uint64_t, kLimbs>& m, int b) {
    return (m[b / 64] >> (b % 64)) & 1u;
  }

  static void negate(std::array<std::uint64_t, kLimbs>& m) {
    unsigned carry = 1;
    for (auto& limb : m) {
      limb = ~limb + carry;
      carry = carry && limb == 0;
    }
  }

  void add_magnitude(std::uint64_t value, int shift, bool negative) {
    std::array<std::uint64_t, kLimbs> term{};
    const int limb = shift / 64, offset = shift % 64;
    term[limb] = value << offset;
    if (offset && limb + 1 < kLimbs) term[limb + 1] = value >> (64 - offset);
    if (negative) negate(term);
    unsigned carry = 0;
    for (int i = 0; i < kLimbs; ++i) {
      const std::uint64_t sum = limbs_[i] + term[i];
      const unsigned carry_out = sum < limbs_[i];
      limbs_[i] = sum + carry;
      carry = carry_out | (limbs_[i] < sum);
    }
  }

  std::array<std::uint64_t, kLimbs> limbs_{};
  bool has_special_ = false;
  float special_ = 0.0f;
  bool all_negative_zero_ = true;
  struct Term {
    std::uint64_t product;
    int shift;
    bool negative;
  };
  std::vector<Term> terms_;
};

// --- Coordinates and weights --------------------------------------------------

struct Axis {
  int size = 1;
  AddressMode mode = AddressMode::kClamp;
};

// The coordinate in texel units: normalized coordinates truncated to 21
// fractional bits and scaled by the size (exact in double).
double texel_coordinate(float x, bool normalized, int size) {
  double u = std::isnan(x) ? 0.0 : std::clamp(static_cast<double>(x), -1e12, 1e12);
  if (normalized) u = std::floor(u * kNormalizedCoordinateScale) / kNormalizedCoordinateScale * size;
  return u;
}

TexelIndex resolve(long long i, const Axis& a) {
  const long long n = a.size;
  switch (a.mode) {
    case AddressMode::kWrap:
      return {((i % n) + n) % n, false};
    case AddressMode::kMirror: {
      long long m = ((i % (2 * n)) + 2 * n) % (2 * n);
      return {m < n ? m : 2 * n - 1 - m, false};
    }
    case AddressMode::kBorder:
      return {i, i < 0 || i >= n};
    case AddressMode::kClamp:
    default:
      return {std::clamp(i, 0LL, n - 1), false};
  }
}

// The two taps of linear filtering along one axis (appendix F.2): the
// weight of the upper texel is (u - 0.5)'s fraction in 1.8 fixed point,
// rounded half up (texture_precision); each tap is then addressed on its
// own.  For filtering, clamp first clamps u to the texel centres
// [0.5, N - 0.5] (texture_addressing: 96 3D results need it, where the
// weights do not keep the axes' marginals); tex2Dgather does not (with clamp
// a gather at (0.2, 0.2) returns texel (0, 0) four times).
AxisTaps linear_taps(double u, const Axis& a, bool clamp_to_centres) {
  if (clamp_to_centres && a.mode == AddressMode::kClamp) u = std::clamp(u, 0.5, a.size - 0.5);
  const double below = u - 0.5;
  AxisTaps taps;
  taps.i0 = static_cast<long long>(std::floor(below));
  taps.weight = static_cast<int>(std::floor((below - static_cast<double>(taps.i0)) * kWeightOne + 0.5));
  return taps;
}

long long round_half_up(double v) { return static_cast<long long>(std::floor(v + 0.5)); }

long long round_half_down(double v) { return static_cast<long long>(std::ceil(v - 0.5)); }

// The per-texel weights of one z slice of weight wz (256 for 1D and 2D),
// indexed [j][i], in units of 1/256.  The slice is split along x, the upper
// column taking ax x wz / 256 rounded half up and the lower the rest; each
// column is then split along y, the upper row taking column x ay / 256
// rounded half up in the upper column and half down in the lower one, the
// lower row the rest.  In 2D this keeps both axes' weights exactly (the
// upper-upper texel gets rhu(ax x ay / 256), the others the differences:
// texture_precision, texture_addressing); in 3D it does not, and the tie
// rules are what texture_addressing's 3D results and texture_kernels'
// volume rays need.
std::array<std::array<int, 2>, 2> slice_weights(int ax, int ay, int wz) {
  const long long upper_column = round_half_up(ax * wz / 256.0);
  const long long column[2] = {wz - upper_column, upper_column};
  const long long upper_row[2] = {round_half_down(column[0] * ay / 256.0),
                                  round_half_up(column[1] * ay / 256.0)};
  return {{{static_cast<int>(column[0] - upper_row[0]), static_cast<int>(column[1] - upper_row[1])},
           {static_cast<int>(upper_row[0]), static_cast<int>(upper_row[1])}}};
}

// A texel's channels as the filter sees them, or the border colour.
struct Tap {
  const std::uint8_t* texel = nullptr;  // null: the border colour
  int weight = 0;
};

class Sampler {
 public:
  Sampler(const TextureDescriptor& t, const TexelReader& read) : t_(t), read_(read) {}

  // Point sampling (appendix F.1): the texel floor(u) on each axis.
  Result point(const std::array<Axis, 3>& axes, const std::array<double, 3>& u, int axes_used, int layer) {
    std::array<long long, 3> index{0, 0, 0};
    bool border = false;
    for (int a = 0; a < axes_used; ++a) {
      const TexelIndex r = resolve(static_cast<long long>(std::floor(u[a])), axes[a]);
      index[a] = r.index;
      border = border || r.border;
    }
    if (border) return border_result();
    std::vector<std::uint8_t> texel(t_.texel_bytes());
    read_(static_cast<int>(index[0]), static_cast<int>(index[1]), static_cast<int>(index[2]), layer,
          texel.data());
    Result r = defaults();
    for (int c = 0; c < t_.channels; ++c) {
      if (t_.kind == ChannelKind::kFloat)
        r[c] = float_bits(channel_float(t_, texel.data(), c));
      else if (t_.read_mode == ReadMode::kNormalizedFloat)
        r[c] = float_bits(normalized_exact(t_, channel_integer(t_, texel.data(), c)));
      else
        r[c] = static_cast<std::uint32_t>(channel_integer(t_, texel.data(), c));
    }
    return r;
  }

  // Linear filtering (appendix F.2) over the first `axes_used` axes; an
  // unused axis has one tap, texel 0.
  Result linear(const std::array<Axis, 3>& axes, const std::array<double, 3>& u, int axes_used, int layer) {
    std::array<AxisTaps, 3> taps{};
    std::array<std::array<TexelIndex, 2>, 3> index{};
    for (int a = 0; a < axes_used; ++a) {
      taps[a] = linear_taps(u[a], axes[a], true);
      index[a] = {resolve(taps[a].i0, axes[a]), resolve(taps[a].i0 + 1, axes[a])};
    }
    std::vector<Tap> blend;
    std::vector<std::vector<std::uint8_t>> storage(8, std::vector<std::uint8_t>(t_.texel_bytes()));
    const int slices = axes_used == 3 ? 2 : 1;
    for (int k = 0; k < slices; ++k) {
      const int wz = axes_used == 3 ? (k ? taps[2].weight : kWeightOne - taps[2].weight) : kWeightOne;
      const auto w = slice_weights(taps[0].weight, taps[1].weight, wz);
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
          const TexelIndex& xi = index[0][i];
          const TexelIndex& yi = index[1][j];
          const TexelIndex& zi = index[2][k];
          Tap tap;
          tap.weight = w[j][i];
          if (!(xi.border || yi.border || zi.border)) {
            std::vector<std::uint8_t>& texel = storage[blend.size()];
            read_(static_cast<int>(xi.index), static_cast<int>(yi.index), static_cast<int>(zi.index), layer,
                  texel.data());
            tap.texel = texel.data();
          }
          blend.push_back(tap);
        }
    }
    return combine(blend);
  }

  Result combine(const std::vector<Tap>& blend) const {
    Result r = defaults();
    for (int c = 0; c < t_.channels; ++c) {
      if (t_.kind == ChannelKind::kFloat) {
        ExactSum sum;
        for (const Tap& tap : blend)
          sum.add(tap.weight, tap.texel ? channel_float(t_, tap.texel, c) : t_.border_color[c]);
        // A half-float texture's filtered value is rounded to half precision
        // (texture_formats: 65504 / 4 - 1.5 / 4 reads as 16376).
        r[c] = float_bits(t_.bits_per_channel == 16 ? sum.round(11, -14, 15) : sum.round(24, -126, 127));
      } else {
        // Normalized integers: the weighted sum of the 16-bit fixed-point
        // texels, rounded half up to 16 bits, then converted to float.
        long long sum = 0;
        for (const Tap& tap : blend)
          sum += tap.weight * (tap.texel ? normalized_fixed16(t_, channel_integer(t_, tap.texel, c))
                                         : round_half_up(t_.border_color[c] * fixed16_scale(t_)));
        long long q = (sum + 128) >> 8;  // floor((sum + 128) / 256)
        if (t_.kind == ChannelKind::kSigned) q = std::max(q, -32767LL);
        r[c] = float_bits(static_cast<float>(static_cast<double>(q) / fixed16_scale(t_)));
      }
    }
    return r;
  }

  // Component `component` of the four texels of a 2D linear fetch.
  Result gather(const std::array<Axis, 3>& axes, const std::array<double, 3>& u, int component) {
    const AxisTaps tx = linear_taps(u[0], axes[0], false), ty = linear_taps(u[1], axes[1], false);
    const TexelIndex xs[2] = {resolve(tx.i0, axes[0]), resolve(tx.i0 + 1, axes[0])};
    const TexelIndex ys[2] = {resolve(ty.i0, axes[1]), resolve(ty.i0 + 1, axes[1])};
    const int order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    Result r{};
    std::vector<std::uint8_t> texel(t_.texel_bytes());
    for (int n = 0; n < 4; ++n) {
      const TexelIndex& xi = xs[order[n][0]];
      const TexelIndex& yi = ys[order[n][1]];
      if (xi.border || yi.border) {
        r[n] = t_.returns_float()
                   ? float_bits(t_.border_color[component])
                   : static_cast<std::uint32_t>(static_cast<long long>(t_.border_color[component]));
        continue;
      }
      read_(static_cast<int>(xi.index), static_cast<int>(yi.index), 0, 0, texel.data());
      const long long v = channel_integer(t_, texel.data(), component);
      if (t_.kind == ChannelKind::kFloat) {
        const float f = channel_float(t_, texel.data(), component);
        r[n] = float_bits(std::fpclassify(f) == FP_SUBNORMAL ? (std::signbit(f) ? -0.0f : 0.0f) : f);
      } else if (t_.read_mode == ReadMode::kNormalizedFloat)
        r[n] = float_bits(static_cast<float>(
            static_cast<double>(std::max(normalized_fixed16(t_, v), -32767LL)) / fixed16_scale(t_)));
      else
        r[n] = static_cast<std::uint32_t>(v);
    }
    return r;
  }

 private:
  Result defaults() const {
    const bool f = t_.returns_float();
    return {0u, 0u, 0u, f ? float_bits(1.0f) : 1u};
  }

  Result border_result() const {
    Result r = defaults();
    for (int c = 0; c < t_.channels; ++c)
      r[c] = t_.returns_float() ? float_bits(t_.border_color[c])
                                : static_cast<std::uint32_t>(static_cast<long long>(t_.border_color[c]));
    return r;
  }

  const TextureDescriptor& t_;
  const TexelReader& read_;
};

// The face and face coordinates (s, t in [0, 1]) a cubemap direction picks
// (guide 3.2.11.1.5, table 1): the axis of largest magnitude picks the face.
struct CubemapFace {
  int face = 0;
  float s = 0.0f;
  float t = 0.0f;
};

CubemapFace cubemap_face(float x, float y, float z) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
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

}  // namespace

Result sample(const TextureDescriptor& texture, const TexelReader& read, const Coordinates& c) {
  validate(texture);
  std::array<Axis, 3> axes{};
  std::array<double, 3> u{};
  int axes_used = 2;
  int layer = 0;
  bool normalized = texture.normalized_coordinates;
  float x = c.x, y = c.y, z = c.z;
  int width = texture.width, height = texture.height;
  if (texture.dimension == Dimension::kCubemap) {
    // Cubemap fetches always address the face in normalized coordinates.
    const CubemapFace f = cubemap_face(c.x, c.y, c.z);
    layer = f.face;
    x = f.s;
    y = f.t;
    normalized = true;
  } else if (texture.dimension == Dimension::k1D && texture.layered) {
    // A layered 1D texture is filtered along x alone (texture_addressing:
    // its border-mode linear fetch at a texel centre is the texel).
    axes_used = 1;
    height = 1;
  } else if (texture.dimension == Dimension::k1D) {
    // A 1D texture is filtered as a 2D texture of height 1 sampled at y = 0
    // (texture_precision: a border-mode linear fetch is half the clamp's).
    y = 0.0f;
    height = 1;
  } else if (texture.dimension == Dimension::k3D) {
    axes_used = 3;
  }
  // The layer index is unsigned: a negative one reads the last layer
  // (texture_addressing: layer -1 reads layer 2 of 3).
  if (texture.layered)
    layer =
        static_cast<int>(std::min<std::uint32_t>(static_cast<std::uint32_t>(c.layer), texture.layers - 1));
  const int sizes[3] = {width, height, texture.depth};
  const float coords[3] = {x, y, z};
  for (int a = 0; a < 3; ++a) {
    axes[a].size = sizes[a];
    axes[a].mode = texture.dimension == Dimension::kCubemap ? AddressMode::kClamp : texture.address[a];
    // With unnormalized coordinates wrap and mirror act as clamp.
    if (!normalized && (axes[a].mode == AddressMode::kWrap || axes[a].mode == AddressMode::kMirror))
      axes[a].mode = AddressMode::kClamp;
    u[a] = texel_coordinate(coords[a], normalized, sizes[a]);
  }
  Sampler sampler(texture, read);
  return texture.filter == FilterMode::kPoint ? sampler.point(axes, u, axes_used, layer)
                                              : sampler.linear(axes, u, axes_used, layer);
}

Result gather(const TextureDescriptor& texture, const TexelReader& read, float x, float y, int component) {
  validate(texture);
  if (texture.dimension != Dimension::k2D || texture.layered)
    throw std::invalid_argument("texture: tex2Dgather needs a 2D texture");
  if (component < 0 || component >= texture.channels)
    throw std::invalid_argument("texture: gather component beyond the texel's channels");
  std::array<Axis, 3> axes{};
  std::array<double, 3> u{};
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
  return Sampler(texture, read).gather(axes, u, component);
}

Result fetch_linear(const TextureDescriptor& texture, const std::uint8_t* memory, std::size_t element_count,
                    int index) {
  TextureDescriptor one_dimensional = texture;
  one_dimensional.dimension = Dimension::k1D;
  one_dimensional.filter = FilterMode::kPoint;
  one_dimensional.width = 1;
  validate(one_dimensional);
  if (index < 0 || static_cast<std::size_t>(index) >= element_count) return Result{};
  if (memory == nullptr) throw std::invalid_argument("texture: tex1Dfetch of null memory");
  const std::size_t bytes = static_cast<std::size_t>(texture.texel_bytes());
  const TexelReader read = [&](int, int, int, int, std::uint8_t* out) {
    std::memcpy(out, memory + static_cast<std::size_t>(index) * bytes, bytes);
  };
  return Sampler(one_dimensional, read).point({}, {0.0, 0.0, 0.0}, 1, 0);
}

}  // namespace kestrel::model::texture
