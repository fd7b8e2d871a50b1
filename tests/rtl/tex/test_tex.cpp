// Texture unit benches (rtl/tex, issue 16): kestrel_tex_address and
// kestrel_tex_filter against include/kestrel/texture_math.hpp, bit for bit.
// The address unit's taps and weights are compared with the header's
// texel_coordinate / linear_taps / resolve / slice_weights; the two units
// chained (the bench reads the texels the address unit names) are compared
// with kestrel::texture::sample() (CUDA C Programming Guide v8.0, 3.2.11.1
// and appendix F).  Random descriptors and coordinates with fixed seeds, the
// corners weighted up: wrap and mirror at negative and huge coordinates,
// NaN and infinite coordinates, border, unnormalized coordinates, every
// format class, texels and border colours with NaN, infinities, -0 and
// subnormals.  Struct ports are packed here field by field, LSB first, in
// the reverse of their declaration order in kestrel_tex_pkg.sv.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "Vtex_address.h"
#include "Vtex_filter.h"
#include "kestrel/texture_math.hpp"
#include "rtl_test.hpp"

namespace {

namespace tx = kestrel::texture;
using kestrel::rtlbench::Bench;

constexpr int kExtentBits = 18, kIndexBits = 17, kWeightBits = 9, kLayerBits = 16, kTaps = 8;

// --- bit packing of the struct ports ---------------------------------------

class BitWriter {
 public:
  explicit BitWriter(unsigned bits) : words_((bits + 31) / 32, 0u), bits_(bits) {}
  void put(uint64_t value, unsigned width) {
    for (unsigned b = 0; b < width; ++b, ++pos_)
      if ((value >> b) & 1u) words_[pos_ / 32] |= 1u << (pos_ % 32);
  }
  template <typename Port>
  void store(Port& port) const {
    EXPECT_EQ(pos_, bits_) << "packed field widths disagree with the struct";
    for (size_t w = 0; w < words_.size(); ++w) port[w] = words_[w];
  }

 private:
  std::vector<uint32_t> words_;
  unsigned bits_;
  unsigned pos_ = 0;
};

class BitReader {
 public:
  template <typename Port>
  BitReader(const Port& port, unsigned bits) : words_((bits + 31) / 32) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] = port[w];
  }
  uint64_t get(unsigned width) {
    uint64_t v = 0;
    for (unsigned b = 0; b < width; ++b, ++pos_)
      v |= static_cast<uint64_t>((words_[pos_ / 32] >> (pos_ % 32)) & 1u) << b;
    return v;
  }

 private:
  std::vector<uint32_t> words_;
  unsigned pos_ = 0;
};

constexpr unsigned kAddrReqBits = 32 + 96 + kLayerBits + 3 * kExtentBits + 6 + 3 + 2;
constexpr unsigned kAxisBits = 2 * (kIndexBits + 1) + kWeightBits;
constexpr unsigned kAddrRspBits = kLayerBits + kTaps * kWeightBits + 3 * kAxisBits;
constexpr unsigned kFilterReqBits = kTaps * 128 + kTaps + kTaps * kWeightBits + 128 + 8;

unsigned encode_dim(tx::Dimension d) {
  return d == tx::Dimension::k1D ? 0u : d == tx::Dimension::k2D ? 1u : 2u;
}
unsigned encode_mode(tx::AddressMode m) {
  switch (m) {
    case tx::AddressMode::kWrap:
      return 0;
    case tx::AddressMode::kClamp:
      return 1;
    case tx::AddressMode::kMirror:
      return 2;
    default:
      return 3;
  }
}
unsigned encode_kind(tx::ChannelKind k) {
  return k == tx::ChannelKind::kSigned ? 0u : k == tx::ChannelKind::kUnsigned ? 1u : 2u;
}
unsigned encode_bits(int bits) { return bits == 8 ? 0u : bits == 16 ? 1u : 2u; }
unsigned encode_channels(int channels) { return channels == 1 ? 0u : channels == 2 ? 1u : 2u; }

void pack_addr_req(BitWriter& w, const tx::Descriptor& t, const float coord[3], int layer) {
  w.put(static_cast<uint32_t>(layer), 32);
  for (int a = 0; a < 3; ++a) w.put(tx::detail::float_bits(coord[a]), 32);
  w.put(static_cast<uint64_t>(t.layers), kLayerBits);
  const int extent[3] = {t.width, t.height, t.depth};
  for (int a = 0; a < 3; ++a) w.put(static_cast<uint64_t>(extent[a]), kExtentBits);
  for (int a = 0; a < 3; ++a) w.put(encode_mode(t.address[a]), 2);
  w.put(t.filter == tx::FilterMode::kLinear, 1);
  w.put(t.normalized_coordinates, 1);
  w.put(t.layered, 1);
  w.put(encode_dim(t.dimension), 2);
}

struct AxisOut {
  int index0, index1;
  bool border0, border1;
  int weight;
};
struct AddrOut {
  AxisOut axis[3];
  int tap_weight[kTaps];
  int layer;
};

AddrOut unpack_addr_rsp(BitReader& r) {
  AddrOut o;
  o.layer = static_cast<int>(r.get(kLayerBits));
  for (int& w : o.tap_weight) w = static_cast<int>(r.get(kWeightBits));
  for (AxisOut& a : o.axis) {
    a.weight = static_cast<int>(r.get(kWeightBits));
    a.border0 = r.get(1) != 0;
    a.index0 = static_cast<int>(r.get(kIndexBits));
    a.border1 = r.get(1) != 0;
    a.index1 = static_cast<int>(r.get(kIndexBits));
  }
  return o;
}

// --- the texture contents: a hash of the texel's position ------------------

struct TexelSource {
  const tx::Descriptor* texture;
  uint32_t seed;
  // Special values for floats: NaN, infinities, zeros, subnormals, large
  // and small, half specials; otherwise random bytes.
  void operator()(int x, int y, int z, int layer, uint8_t* out) const {
    uint64_t h = seed ^ (static_cast<uint64_t>(x) * 0x9E3779B97F4A7C15ull) ^
                 (static_cast<uint64_t>(y) * 0xC2B2AE3D27D4EB4Full) ^
                 (static_cast<uint64_t>(z) * 0x165667B19E3779F9ull) ^
                 (static_cast<uint64_t>(layer) * 0x27D4EB2F165667C5ull);
    auto next = [&h]() {
      h ^= h >> 33;
      h *= 0xff51afd7ed558ccdull;
      h ^= h >> 29;
      h *= 0xc4ceb9fe1a85ec53ull;
      h ^= h >> 32;
      return h;
    };
    const int bytes = texture->bits_per_channel / 8;
    for (int c = 0; c < texture->channels; ++c) {
      uint32_t v = static_cast<uint32_t>(next());
      if (texture->kind == tx::ChannelKind::kFloat && texture->bits_per_channel == 32) {
        static const uint32_t specials[] = {0x7fc00000u, 0xffc00001u, 0x7f800000u, 0xff800000u, 0x00000000u,
                                            0x80000000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu, 0xff7fffffu,
                                            0x3f800000u, 0x00800000u, 0x5f400000u, 0xbfc00000u};
        const uint64_t pick = next() % 8;
        if (pick == 0)
          v = specials[next() % (sizeof specials / sizeof specials[0])];
        else if (pick < 5)
          v = (v & 0x807fffffu) | static_cast<uint32_t>(120 + next() % 14) << 23;  // near 1
      } else if (texture->kind == tx::ChannelKind::kFloat) {
        static const uint16_t specials[] = {0x7e00, 0xfc00, 0x7c00, 0x0000, 0x8000,
                                            0x0001, 0x83ff, 0x7bff, 0xfbff, 0x3c00};
        if (next() % 6 == 0) v = specials[next() % (sizeof specials / sizeof specials[0])];
      } else if (next() % 6 == 0) {
        static const uint32_t specials[] = {0u,      1u,          0xffffffffu, 0x80u, 0x7fu, 0x8000u,
                                            0x7fffu, 0x80000000u, 0x81u,       0x40u, 0x3fu};
        v = specials[next() % (sizeof specials / sizeof specials[0])];
      }
      for (int b = 0; b < bytes; ++b) out[c * bytes + b] = static_cast<uint8_t>(v >> (8 * b));
    }
  }
};

// --- random descriptors and coordinates -------------------------------------

float random_float_bits(std::mt19937_64& rng) { return tx::detail::bits_float(static_cast<uint32_t>(rng())); }

float random_coordinate(std::mt19937_64& rng, bool normalized, int extent) {
  static const float specials[] = {
      NAN,    -NAN,   INFINITY,     -INFINITY,     0.0f,         -0.0f,         1e30f,       -1e30f,
      1e12f,  -1e12f, 3.3554432e7f, -3.3554436e7f, 1.6777215e7f, -1.6777217e7f, 1e-30f,      -1e-30f,
      1e-45f, 0.5f,   1.0f,         -1.0f,         2.5f,         1048576.5f,    -1048575.5f, 3e6f};
  const float scale = normalized ? 1.0f : static_cast<float>(extent);
  switch (rng() % 10) {
    case 0:
      return specials[rng() % (sizeof specials / sizeof specials[0])];
    case 1:
      return random_float_bits(rng);
    case 2: {  // a texel centre or edge, or k / N
      const float k = static_cast<float>(static_cast<int>(rng() % (4 * extent + 8)) - 2 * extent - 4);
      const float v = (rng() % 2) ? k + 0.5f : k;
      return normalized ? v / static_cast<float>(extent) : v;
    }
    case 3: {  // huge wrap/mirror coordinates with a fraction
      const float big = static_cast<float>(static_cast<int64_t>(rng() % 4000000) - 2000000);
      return big + static_cast<float>(rng() % 1024) / 1024.0f;
    }
    case 4:  // near zero and near the far edge
      return ((rng() % 2) ? scale : 0.0f) + (static_cast<float>(rng() % 2001) - 1000.0f) * 1e-4f;
    default: {
      std::uniform_real_distribution<float> d(-3.0f * scale, 3.0f * scale);
      return d(rng);
    }
  }
}

int random_extent(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
      return 1;
    case 1:
      return 131072;
    case 2:
      return 1 + static_cast<int>(rng() % 131072);
    case 3:
      return 1 << (rng() % 18);
    default:
      return 1 + static_cast<int>(rng() % 9);
  }
}

uint32_t random_border(std::mt19937_64& rng, const tx::Descriptor& t) {
  const bool blended_integer = t.kind != tx::ChannelKind::kFloat && t.filter == tx::FilterMode::kLinear;
  static const uint32_t corners[] = {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u,
                                     0x3f000000u, 0x00000001u, 0x80000010u, 0x3f7fffffu,
                                     0xbf7fffffu, 0x33800000u, 0x3c000000u};
  if (blended_integer) {
    // The unit blends border colours in [-1, 1] (docs/isa.md section 12).
    if (rng() % 3 == 0) return corners[rng() % (sizeof corners / sizeof corners[0])];
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    return tx::detail::float_bits(d(rng));
  }
  if (t.kind != tx::ChannelKind::kFloat && t.read_mode == tx::ReadMode::kElementType) {
    // Converted to an integer by a 64-bit conversion: |c| < 2^62 keeps the
    // reference's conversion defined.
    if (rng() % 2) return corners[rng() % (sizeof corners / sizeof corners[0])];
    const uint32_t bits = static_cast<uint32_t>(rng());
    return (bits & 0x807fffffu) | static_cast<uint32_t>(100 + rng() % 89) << 23;
  }
  static const uint32_t specials[] = {0x7fc00000u, 0x7f800000u, 0xff800000u, 0x7f7fffffu};
  if (rng() % 5 == 0) return specials[rng() % 4];
  if (rng() % 2) return corners[rng() % (sizeof corners / sizeof corners[0])];
  return static_cast<uint32_t>(rng());
}

tx::Descriptor random_descriptor(std::mt19937_64& rng) {
  tx::Descriptor t{};
  const unsigned d = rng() % 5;
  t.dimension = d < 2 ? tx::Dimension::k1D : d < 4 ? tx::Dimension::k2D : tx::Dimension::k3D;
  t.layered = t.dimension != tx::Dimension::k3D && rng() % 3 == 0;
  t.width = random_extent(rng);
  t.height = t.dimension == tx::Dimension::k1D ? 1 : random_extent(rng);
  t.depth = t.dimension == tx::Dimension::k3D ? random_extent(rng) : 1;
  t.layers = t.layered ? 1 + static_cast<int>(rng() % 8) : 1;
  switch (rng() % 3) {
    case 0:
      t.kind = tx::ChannelKind::kSigned;
      break;
    case 1:
      t.kind = tx::ChannelKind::kUnsigned;
      break;
    default:
      t.kind = tx::ChannelKind::kFloat;
      break;
  }
  static const int channel_counts[] = {1, 2, 4};
  t.channels = channel_counts[rng() % 3];
  t.filter = rng() % 2 ? tx::FilterMode::kLinear : tx::FilterMode::kPoint;
  if (t.kind == tx::ChannelKind::kFloat) {
    t.bits_per_channel = rng() % 2 ? 16 : 32;
    t.read_mode = tx::ReadMode::kElementType;
  } else {
    // Normalized reads take 8- and 16-bit integers; CUDA filters only
    // normalized ones.
    t.read_mode = (t.filter == tx::FilterMode::kLinear || rng() % 2) ? tx::ReadMode::kNormalizedFloat
                                                                     : tx::ReadMode::kElementType;
    static const int sizes[] = {8, 16, 32};
    t.bits_per_channel = t.read_mode == tx::ReadMode::kNormalizedFloat ? sizes[rng() % 2] : sizes[rng() % 3];
  }
  t.normalized_coordinates = rng() % 3 != 0;
  static const tx::AddressMode modes[] = {tx::AddressMode::kWrap, tx::AddressMode::kClamp,
                                          tx::AddressMode::kMirror, tx::AddressMode::kBorder};
  for (auto& m : t.address) m = modes[rng() % 4];
  for (auto& c : t.border_color) c = random_border(rng, t);
  return t;
}

// --- reference addressing (texture_math.hpp sample(), up to the reads) -----

AddrOut reference_address(const tx::Descriptor& t, const float coord_in[3], int layer_index) {
  using namespace tx::detail;
  float coord[3] = {coord_in[0], coord_in[1], coord_in[2]};
  int sizes[3] = {t.width, t.height, t.depth};
  int axes_used = 2;
  if (t.dimension == tx::Dimension::k1D && t.layered) {
    axes_used = 1;
    sizes[1] = 1;
  } else if (t.dimension == tx::Dimension::k1D) {
    coord[1] = 0.0f;
    sizes[1] = 1;
  } else if (t.dimension == tx::Dimension::k3D) {
    axes_used = 3;
  }
  AddrOut o{};
  for (int a = 0; a < axes_used; ++a) {
    Axis axis{sizes[a], t.address[a]};
    if (!t.normalized_coordinates &&
        (axis.mode == tx::AddressMode::kWrap || axis.mode == tx::AddressMode::kMirror))
      axis.mode = tx::AddressMode::kClamp;
    const double u = texel_coordinate(coord[a], t.normalized_coordinates, sizes[a]);
    long long i0;
    if (t.filter == tx::FilterMode::kLinear) {
      const AxisTaps taps = linear_taps(u, axis, true);
      i0 = taps.i0;
      o.axis[a].weight = taps.weight;
    } else {
      i0 = floor_ll(u);
    }
    const TexelIndex r0 = resolve(i0, axis), r1 = resolve(i0 + 1, axis);
    o.axis[a] = {r0.index, r1.index, r0.border, r1.border, o.axis[a].weight};
  }
  if (t.filter == tx::FilterMode::kLinear) {
    for (int k = 0; k < (axes_used == 3 ? 2 : 1); ++k) {
      const int wz = axes_used == 3 ? (k ? o.axis[2].weight : kWeightOne - o.axis[2].weight) : kWeightOne;
      int w[2][2];
      slice_weights(o.axis[0].weight, o.axis[1].weight, wz, w);
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) o.tap_weight[k * 4 + j * 2 + i] = w[j][i];
    }
  } else {
    o.tap_weight[0] = kWeightOne;
  }
  if (t.layered) {
    const uint32_t last = static_cast<uint32_t>(t.layers - 1), asked = static_cast<uint32_t>(layer_index);
    o.layer = static_cast<int>(asked < last ? asked : last);
  }
  return o;
}

std::string describe(const tx::Descriptor& t, const float coord[3], int layer) {
  char text[512];
  std::snprintf(
      text, sizeof text,
      "dim %d layered %d extent %dx%dx%d layers %d kind %d bits %d channels %d read %d norm %d "
      "modes %d,%d,%d filter %d border %08x %08x %08x %08x coord %08x %08x %08x (%g %g %g) layer %d",
      static_cast<int>(t.dimension), t.layered, t.width, t.height, t.depth, t.layers,
      static_cast<int>(t.kind), t.bits_per_channel, t.channels, static_cast<int>(t.read_mode),
      t.normalized_coordinates, static_cast<int>(t.address[0]), static_cast<int>(t.address[1]),
      static_cast<int>(t.address[2]), static_cast<int>(t.filter), t.border_color[0], t.border_color[1],
      t.border_color[2], t.border_color[3], tx::detail::float_bits(coord[0]),
      tx::detail::float_bits(coord[1]), tx::detail::float_bits(coord[2]), static_cast<double>(coord[0]),
      static_cast<double>(coord[1]), static_cast<double>(coord[2]), layer);
  return text;
}

// --- driving the units --------------------------------------------------------

// One request through a unit with a valid/ready handshake, the response
// taken `stall` cycles after it is first offered; returns the cycles from
// the request's acceptance to the response's first valid cycle.
template <typename Model, typename Load>
unsigned transact(Bench<Model>& bench, Load load, unsigned stall) {
  Model& dut = bench.dut();
  load(dut);
  dut.req_valid_i = 1;
  dut.rsp_ready_i = 0;
  bench.eval();
  unsigned guard = 0;
  while (!dut.req_ready_o) {
    bench.tick();
    EXPECT_LT(++guard, 20u) << "request never taken";
    if (guard >= 20) return 0;
  }
  bench.tick();
  dut.req_valid_i = 0;
  unsigned latency = 1;
  bench.eval();
  while (!dut.rsp_valid_o) {
    bench.tick();
    ++latency;
    EXPECT_LT(latency, 20u) << "no response";
    if (latency >= 20) return 0;
  }
  for (unsigned s = 0; s < stall; ++s) {
    bench.tick();  // held: the handshake assertions check valid and payload stay
    EXPECT_TRUE(dut.rsp_valid_o);
  }
  dut.rsp_ready_i = 1;
  bench.eval();
  return latency;
}

template <typename Model>
void finish(Bench<Model>& bench) {
  bench.tick();
  bench.dut().rsp_ready_i = 0;
  bench.eval();
}

AddrOut run_address(Bench<Vtex_address>& bench, const tx::Descriptor& t, const float coord[3], int layer,
                    unsigned stall) {
  const unsigned latency = transact(
      bench,
      [&](Vtex_address& dut) {
        BitWriter w(kAddrReqBits);
        pack_addr_req(w, t, coord, layer);
        w.store(dut.req_i);
      },
      stall);
  EXPECT_EQ(latency, 1u);
  BitReader r(bench.dut().rsp_o, kAddrRspBits);
  const AddrOut o = unpack_addr_rsp(r);
  finish(bench);
  return o;
}

// The filter request for the taps the address unit named, the texels read
// from `source` (texture_math.hpp point() and linear() read the same ones).
tx::Texels run_filter(Bench<Vtex_filter>& bench, const tx::Descriptor& t, const AddrOut& a,
                      const TexelSource& source, unsigned stall) {
  uint8_t texels[kTaps][16] = {};
  bool border[kTaps] = {};
  for (int n = 0; n < kTaps; ++n) {
    const bool linear = t.filter == tx::FilterMode::kLinear;
    const AxisOut& xa = a.axis[0];
    const AxisOut& ya = a.axis[1];
    const AxisOut& za = a.axis[2];
    const int i = linear ? n & 1 : 0, j = linear ? (n >> 1) & 1 : 0, k = linear ? n >> 2 : 0;
    const int x = i ? xa.index1 : xa.index0, y = j ? ya.index1 : ya.index0, z = k ? za.index1 : za.index0;
    border[n] =
        (i ? xa.border1 : xa.border0) || (j ? ya.border1 : ya.border0) || (k ? za.border1 : za.border0);
    if (!border[n] && (n == 0 || linear)) source(x, y, z, a.layer, texels[n]);
  }
  const unsigned latency = transact(
      bench,
      [&](Vtex_filter& dut) {
        BitWriter w(kFilterReqBits);
        for (auto& texel : texels)
          for (uint8_t byte : texel) w.put(byte, 8);
        for (bool b : border) w.put(b, 1);
        for (int weight : a.tap_weight) w.put(static_cast<uint64_t>(weight), kWeightBits);
        for (uint32_t c : t.border_color) w.put(c, 32);
        w.put(t.filter == tx::FilterMode::kLinear, 1);
        w.put(t.read_mode == tx::ReadMode::kNormalizedFloat, 1);
        w.put(encode_channels(t.channels), 2);
        w.put(encode_bits(t.bits_per_channel), 2);
        w.put(encode_kind(t.kind), 2);
        w.store(dut.req_i);
      },
      stall);
  EXPECT_EQ(latency, 5u);
  tx::Texels r;
  for (int c = 0; c < 4; ++c) r.v[c] = bench.dut().rsp_o[c];
  finish(bench);
  return r;
}

bool same_address(const AddrOut& a, const AddrOut& b) {
  bool same = a.layer == b.layer;
  for (int n = 0; n < kTaps; ++n) same = same && a.tap_weight[n] == b.tap_weight[n];
  for (int x = 0; x < 3; ++x) {
    const AxisOut &g = a.axis[x], &w = b.axis[x];
    same = same && g.index0 == w.index0 && g.index1 == w.index1 && g.border0 == w.border0 &&
           g.border1 == w.border1 && g.weight == w.weight;
  }
  return same;
}

bool same_texels(const tx::Texels& a, const tx::Texels& b) { return std::memcmp(a.v, b.v, sizeof a.v) == 0; }

// --- tests --------------------------------------------------------------------

TEST(TexUnit, AddressMatchesReference) {
  Bench<Vtex_address> bench;
  bench.reset();
  std::mt19937_64 rng(16);
  unsigned failures = 0;
  for (int trial = 0; trial < 60000 && failures < 10; ++trial) {
    const tx::Descriptor t = random_descriptor(rng);
    const float coord[3] = {random_coordinate(rng, t.normalized_coordinates, t.width),
                            random_coordinate(rng, t.normalized_coordinates, t.height),
                            random_coordinate(rng, t.normalized_coordinates, t.depth)};
    const int layer = (rng() % 4 == 0) ? -static_cast<int>(rng() % 3) - 1 : static_cast<int>(rng() % 10);
    const AddrOut got = run_address(bench, t, coord, layer, rng() % 4 == 0 ? 1 + rng() % 2 : 0);
    const AddrOut want = reference_address(t, coord, layer);
    bool same = got.layer == want.layer;
    for (int n = 0; n < kTaps; ++n) same = same && got.tap_weight[n] == want.tap_weight[n];
    for (int a = 0; a < 3; ++a) {
      const AxisOut &g = got.axis[a], &w = want.axis[a];
      same = same && g.index0 == w.index0 && g.index1 == w.index1 && g.border0 == w.border0 &&
             g.border1 == w.border1 && g.weight == w.weight;
    }
    if (!same) {
      ++failures;
      ADD_FAILURE() << describe(t, coord, layer) << "\n got  x " << got.axis[0].index0 << "/"
                    << got.axis[0].index1 << " b" << got.axis[0].border0 << got.axis[0].border1 << " w"
                    << got.axis[0].weight << " y " << got.axis[1].index0 << "/" << got.axis[1].index1 << " b"
                    << got.axis[1].border0 << got.axis[1].border1 << " w" << got.axis[1].weight << " z "
                    << got.axis[2].index0 << "/" << got.axis[2].index1 << " w" << got.axis[2].weight
                    << " layer " << got.layer << "\n want x " << want.axis[0].index0 << "/"
                    << want.axis[0].index1 << " b" << want.axis[0].border0 << want.axis[0].border1 << " w"
                    << want.axis[0].weight << " y " << want.axis[1].index0 << "/" << want.axis[1].index1
                    << " b" << want.axis[1].border0 << want.axis[1].border1 << " w" << want.axis[1].weight
                    << " z " << want.axis[2].index0 << "/" << want.axis[2].index1 << " w"
                    << want.axis[2].weight << " layer " << want.layer;
    }
  }
}

// The address unit as a pipeline: requests offered back to back at random,
// responses taken at random; one fetch per cycle when nothing stalls, in
// order, each matching the reference.
TEST(TexUnit, AddressStreamsUnderBackPressure) {
  Bench<Vtex_address> bench;
  bench.reset();
  std::mt19937_64 rng(1616);
  struct Request {
    tx::Descriptor texture;
    float coord[3];
    int layer;
  };
  std::vector<Request> requests(4000);
  for (Request& r : requests) {
    r.texture = random_descriptor(rng);
    const int extent[3] = {r.texture.width, r.texture.height, r.texture.depth};
    for (int a = 0; a < 3; ++a)
      r.coord[a] = random_coordinate(rng, r.texture.normalized_coordinates, extent[a]);
    r.layer = static_cast<int>(rng() % 10) - 2;
  }
  Vtex_address& dut = bench.dut();
  size_t offered = 0, answered = 0, cycles = 0;
  bool offering = false;
  while (answered < requests.size() && cycles < 20 * requests.size()) {
    if (!offering && offered < requests.size() && rng() % 4 != 0) {
      BitWriter w(kAddrReqBits);
      pack_addr_req(w, requests[offered].texture, requests[offered].coord, requests[offered].layer);
      w.store(dut.req_i);
      offering = true;
    }
    dut.req_valid_i = offering;
    dut.rsp_ready_i = rng() % 3 != 0;
    bench.eval();
    if (dut.rsp_valid_o && dut.rsp_ready_i) {
      BitReader r(dut.rsp_o, kAddrRspBits);
      const Request& q = requests[answered];
      EXPECT_TRUE(same_address(unpack_addr_rsp(r), reference_address(q.texture, q.coord, q.layer)))
          << describe(q.texture, q.coord, q.layer);
      ++answered;
    }
    const bool taken = offering && dut.req_ready_o;
    bench.tick();
    ++cycles;
    if (taken) {
      ++offered;
      offering = false;
    }
  }
  EXPECT_EQ(answered, requests.size());
  // With ready high two times in three and valid three in four, the unit
  // keeps up: about one response per 1.5 cycles.
  EXPECT_LT(cycles, 2 * requests.size());
}

// Both units chained, against kestrel::texture::sample(): the address unit
// runs every fetch first, then the filter unit, each model alive on its own
// (two Verilated models alive at once deadlock in Verilator 5.006's
// destructors).
struct Fetch {
  tx::Descriptor texture;
  float coord[3];
  int layer;
  uint32_t texel_seed;
  AddrOut taps;
};

void check_fetches(uint64_t seed, int trials, bool (*keep)(const tx::Descriptor&)) {
  std::mt19937_64 rng(seed);
  std::vector<Fetch> fetches;
  while (fetches.size() < static_cast<size_t>(trials)) {
    Fetch f{};
    f.texture = random_descriptor(rng);
    if (!keep(f.texture)) continue;
    for (int a = 0; a < 3; ++a) {
      const int extent[3] = {f.texture.width, f.texture.height, f.texture.depth};
      f.coord[a] = random_coordinate(rng, f.texture.normalized_coordinates, extent[a]);
    }
    f.layer = static_cast<int>(rng() % 10) - 2;
    f.texel_seed = static_cast<uint32_t>(rng());
    fetches.push_back(f);
  }
  {
    Bench<Vtex_address> address;
    address.reset();
    for (Fetch& f : fetches) f.taps = run_address(address, f.texture, f.coord, f.layer, 0);
  }
  Bench<Vtex_filter> filter;
  filter.reset();
  unsigned failures = 0;
  for (const Fetch& f : fetches) {
    const TexelSource source{&f.texture, f.texel_seed};
    const tx::Texels got = run_filter(filter, f.texture, f.taps, source, rng() % 4 == 0 ? 1 + rng() % 2 : 0);
    TexelSource reader = source;
    const tx::Texels want = tx::sample(f.texture, reader, f.coord[0], f.coord[1], f.coord[2], f.layer);
    if (!same_texels(got, want)) {
      char values[200];
      std::snprintf(values, sizeof values, "got %08x %08x %08x %08x want %08x %08x %08x %08x", got.v[0],
                    got.v[1], got.v[2], got.v[3], want.v[0], want.v[1], want.v[2], want.v[3]);
      ADD_FAILURE() << describe(f.texture, f.coord, f.layer) << "\n " << values;
      if (++failures == 10) break;
    }
  }
}

TEST(TexUnit, PointFetchesMatchSample) {
  check_fetches(1601, 20000, [](const tx::Descriptor& t) { return t.filter == tx::FilterMode::kPoint; });
}

TEST(TexUnit, LinearFloatFetchesMatchSample) {
  check_fetches(1602, 40000, [](const tx::Descriptor& t) {
    return t.filter == tx::FilterMode::kLinear && t.kind == tx::ChannelKind::kFloat;
  });
}

TEST(TexUnit, LinearNormalizedFetchesMatchSample) {
  check_fetches(1603, 20000, [](const tx::Descriptor& t) {
    return t.filter == tx::FilterMode::kLinear && t.kind != tx::ChannelKind::kFloat;
  });
}

}  // namespace
