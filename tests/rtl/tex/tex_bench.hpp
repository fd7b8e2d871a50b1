// Shared by the texture benches (test_tex_unit.cpp: kestrel_tex_unit;
// test_sm_tex.cpp: kestrel_sm_tex): a C++ device memory behind the unit's
// line port, textures and their descriptors (docs/isa.md section 12, packed
// through the generated contract::TexDesc), random textures, coordinates and
// lanes, and the reference sample (kestrel::texture::sample() of
// include/kestrel/texture_math.hpp reading the same memory).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>

#include "kestrel/texture_math.hpp"
#include "wide_bits.hpp"

namespace kestrel::texbench {

namespace tx = kestrel::texture;
namespace contract = kestrel::contract;

// kestrel_pkg::fault_kind_e
constexpr unsigned kFaultNone = 0, kFaultMisaligned = 2, kFaultIllegalAddress = 3, kFaultTexture = 12;

// --- device memory ------------------------------------------------------------

// Lines written by the bench (descriptors, in [kDescBase, kDescLimit)) and,
// at and above kTexelBase, hashed texel bytes; anything else faults as an
// unmapped page (textures may start below kTexelBase to have unmapped
// texels, but not below kDescLimit).
constexpr uint32_t kDescBase = 0x10000000u;
constexpr uint32_t kDescLimit = 0x18000000u;
constexpr uint32_t kTexelBase = 0x20000000u;
constexpr uint32_t kTexelLimit = 0xE0000000u;

class DeviceMemory {
 public:
  explicit DeviceMemory(uint64_t seed) : seed_(seed) {}

  void write_line(uint32_t addr, const uint8_t* bytes) { std::memcpy(lines_[addr & ~63u].data(), bytes, 64); }

  bool mapped(uint32_t line) const {
    return lines_.count(line) != 0 || (line >= kTexelBase && line < kTexelLimit);
  }

  uint8_t byte(uint32_t addr) const {
    const auto it = lines_.find(addr & ~63u);
    if (it != lines_.end()) return it->second[addr & 63u];
    return static_cast<uint8_t>(word(addr >> 2) >> (8 * (addr & 3u)));
  }

  unsigned read_line(uint32_t line, uint8_t* out) const {
    if (!mapped(line)) {
      std::memset(out, 0, 64);
      return kFaultIllegalAddress;
    }
    for (uint32_t b = 0; b < 64; ++b) out[b] = byte(line + b);
    return kFaultNone;
  }

 private:
  // Texel words: float specials (NaN, infinities, zeros, subnormals, the
  // largest finite), pairs of half specials, floats near 1, integer corners
  // and random bits.
  uint32_t word(uint32_t index) const {
    uint64_t h = (seed_ ^ index) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    const uint32_t v = static_cast<uint32_t>(h);
    static const uint32_t specials[] = {0x7fc00000u, 0xffc00001u, 0x7f800000u, 0xff800000u, 0x00000000u,
                                        0x80000000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu, 0x3f800000u,
                                        0x7e00fc00u, 0x7c000001u, 0x83ff8000u, 0xffffffffu, 0x80808080u,
                                        0x7fff7fffu, 0x00800000u, 0xbfc00000u};
    switch ((h >> 40) % 8) {
      case 0:
        return specials[(h >> 44) % (sizeof specials / sizeof specials[0])];
      case 1:
      case 2:
        return (v & 0x807fffffu) | static_cast<uint32_t>(120 + (h >> 48) % 14) << 23;
      default:
        return v;
    }
  }

  uint64_t seed_;
  std::map<uint32_t, std::array<uint8_t, 64>> lines_;
};

// --- textures -------------------------------------------------------------------

enum Shape : unsigned {
  kShape1D = 0,
  kShape2D = 1,
  kShape3D = 2,
  kShape1DLayered = 3,
  kShape2DLayered = 4,
  kShapeCubemap = 5,
  kShapeCubemapLayered = 6,
  kShapeLinear = 7,
  kShapePitch2D = 8
};

struct Texture {
  tx::Descriptor sampling{};  // what the reference samples
  unsigned shape = kShape2D;
  uint32_t base = 0, pitch = 0, slice_pitch = 0;
  uint32_t desc_addr = 0;
  unsigned mip_levels = 0;
  bool surface = false;
};

inline unsigned encode_channel_size(int bits) { return bits == 8 ? 0u : bits == 16 ? 1u : 2u; }

// The descriptor line (docs/isa.md section 12) through the generated layout.
inline void write_descriptor(DeviceMemory& memory, const Texture& t) {
  contract::TexDesc d;
  const tx::Descriptor& s = t.sampling;
  d.base_addr = t.base;
  d.width = static_cast<uint32_t>(s.width);
  d.height = static_cast<uint32_t>(s.height);
  d.depth = static_cast<uint32_t>(s.depth);
  d.layers = static_cast<uint32_t>(s.layers);
  d.pitch = t.pitch;
  d.slice_pitch = t.slice_pitch;
  d.shape = static_cast<uint8_t>(t.shape);
  d.channel_kind = static_cast<uint8_t>(s.kind);  // cudaChannelFormatKind's order
  d.channel_size = static_cast<uint8_t>(encode_channel_size(s.bits_per_channel));
  d.channels = static_cast<uint8_t>(s.channels);
  d.address_x = static_cast<uint8_t>(s.address[0]);
  d.address_y = static_cast<uint8_t>(s.address[1]);
  d.address_z = static_cast<uint8_t>(s.address[2]);
  d.filter = s.filter == tx::FilterMode::kLinear;
  d.read_normalized = s.read_mode == tx::ReadMode::kNormalizedFloat;
  d.normalized_coords = s.normalized_coordinates;
  d.srgb = s.srgb;
  d.surface = t.surface;
  d.mip_levels = static_cast<uint8_t>(t.mip_levels);
  d.border_r = s.border_color[0];
  d.border_g = s.border_color[1];
  d.border_b = s.border_color[2];
  d.border_a = s.border_color[3];
  uint32_t words[contract::tex_desc::kWords] = {};
  d.pack(words);
  uint8_t line[64];
  for (int b = 0; b < 64; ++b) line[b] = static_cast<uint8_t>(words[b / 4] >> (8 * (b % 4)));
  memory.write_line(t.desc_addr, line);
}

// The reference's texel reader: texel (x, y, z or layer) at base + slice *
// slice_pitch + y * pitch + x * texel_bytes in 32-bit arithmetic (one of z
// and layer is 0, as in kestrel_texture.h).
struct MemoryReader {
  const DeviceMemory* memory;
  const Texture* texture;
  void operator()(int x, int y, int z, int layer, uint8_t* out) const {
    const uint32_t bytes = static_cast<uint32_t>(tx::detail::texel_bytes(texture->sampling));
    const uint32_t addr = texture->base + static_cast<uint32_t>(z + layer) * texture->slice_pitch +
                          static_cast<uint32_t>(y) * texture->pitch + static_cast<uint32_t>(x) * bytes;
    for (uint32_t b = 0; b < bytes; ++b) out[b] = memory->byte(addr + b);
  }
};

inline int random_extent(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
      return 1;
    case 1:
      return 1 << (rng() % 18);
    case 2:
      return 1 + static_cast<int>(rng() % 131072);
    case 3:
      return 1 + static_cast<int>(rng() % 40);
    default:
      return 1 + static_cast<int>(rng() % 9);
  }
}

inline uint32_t random_border(std::mt19937_64& rng, const tx::Descriptor& t) {
  static const uint32_t corners[] = {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x3f000000u,
                                     0x00000001u, 0x3f7fffffu, 0xbf7fffffu, 0x33800000u};
  if (t.kind != tx::ChannelKind::kFloat && t.filter == tx::FilterMode::kLinear) {
    // The unit blends border colours in [-1, 1] (docs/isa.md section 12).
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    return rng() % 3 == 0 ? corners[rng() % 9] : tx::detail::float_bits(d(rng));
  }
  if (t.kind != tx::ChannelKind::kFloat && t.read_mode == tx::ReadMode::kElementType) {
    // Converted to an integer: |c| < 2^62 keeps the reference defined.
    const uint32_t bits = static_cast<uint32_t>(rng());
    return rng() % 2 ? corners[rng() % 9]
                     : (bits & 0x807fffffu) | static_cast<uint32_t>(100 + rng() % 89) << 23;
  }
  return rng() % 2 ? corners[rng() % 9] : static_cast<uint32_t>(rng());
}

// A texture the unit supports, laid out as cudaMalloc3DArray would (rows
// pitched to 64 bytes, page-aligned base) or, for Pitch2D and linear
// memory, as cudaMallocPitch or cudaMalloc memory may be (rows 32 bytes
// apart or more, the base a multiple of 256); at most 64 MiB so that every
// texel stays in mapped memory.  Linear memory (tex1Dfetch's) is up to 2^22
// texels wide, its filter and coordinate fields random as the fetch ignores
// them.
inline Texture random_texture(std::mt19937_64& rng, uint32_t desc_addr) {
  Texture t;
  tx::Descriptor& s = t.sampling;
  static const unsigned shapes[] = {kShape1D,        kShape2D,      kShape3D,    kShape1DLayered,
                                    kShape2DLayered, kShapePitch2D, kShapeLinear};
  t.shape = shapes[rng() % 7];
  const bool linear_memory = t.shape == kShapeLinear;
  s.dimension = t.shape == kShape3D                                                    ? tx::Dimension::k3D
                : (t.shape == kShape1D || t.shape == kShape1DLayered || linear_memory) ? tx::Dimension::k1D
                                                                                       : tx::Dimension::k2D;
  s.layered = t.shape == kShape1DLayered || t.shape == kShape2DLayered;
  switch (rng() % 3) {
    case 0:
      s.kind = tx::ChannelKind::kSigned;
      break;
    case 1:
      s.kind = tx::ChannelKind::kUnsigned;
      break;
    default:
      s.kind = tx::ChannelKind::kFloat;
      break;
  }
  static const int channel_counts[] = {1, 2, 4};
  s.channels = channel_counts[rng() % 3];
  s.filter = rng() % 2 ? tx::FilterMode::kLinear : tx::FilterMode::kPoint;
  if (s.kind == tx::ChannelKind::kFloat) {
    s.bits_per_channel = rng() % 2 ? 16 : 32;
    s.read_mode = tx::ReadMode::kElementType;
  } else {
    s.read_mode = (s.filter == tx::FilterMode::kLinear || rng() % 2) ? tx::ReadMode::kNormalizedFloat
                                                                     : tx::ReadMode::kElementType;
    static const int sizes[] = {8, 16, 32};
    s.bits_per_channel = s.read_mode == tx::ReadMode::kNormalizedFloat ? sizes[rng() % 2] : sizes[rng() % 3];
  }
  s.normalized_coordinates = rng() % 3 != 0;
  static const tx::AddressMode modes[] = {tx::AddressMode::kWrap, tx::AddressMode::kClamp,
                                          tx::AddressMode::kMirror, tx::AddressMode::kBorder};
  for (auto& m : s.address) m = modes[rng() % 4];
  for (auto& c : s.border_color) c = random_border(rng, s);
  const uint64_t texel = static_cast<uint64_t>(tx::detail::texel_bytes(s));
  for (;;) {
    s.width = linear_memory && rng() % 4 == 0 ? 1 + static_cast<int>(rng() % (1u << 22)) : random_extent(rng);
    s.height = s.dimension == tx::Dimension::k1D ? 1 : random_extent(rng);
    s.depth = s.dimension == tx::Dimension::k3D ? random_extent(rng) : 1;
    s.layers = s.layered ? 1 + static_cast<int>(rng() % 8) : 1;
    const uint64_t row = static_cast<uint64_t>(s.width) * texel;
    // A pitched resource's rows are 32 bytes apart at least
    // (texturePitchAlignment, runtime/cudart/cuda_arrays.hpp), so a row may
    // start mid-line; an array's start a line.
    const uint64_t pitch = linear_memory              ? row
                           : t.shape == kShapePitch2D ? (row + 31) / 32 * 32 + 32 * (rng() % 3)
                                                      : (row + 63) / 64 * 64;
    const uint64_t bytes =
        pitch * static_cast<uint64_t>(s.height) * static_cast<uint64_t>(s.depth * s.layers);
    if (bytes > (64u << 20)) continue;
    t.pitch = static_cast<uint32_t>(pitch);
    t.slice_pitch = static_cast<uint32_t>(pitch * static_cast<uint64_t>(s.height));
    break;
  }
  // Arrays start a page, pitched and linear memory a multiple of
  // textureAlignment (256).
  t.base = kTexelBase + static_cast<uint32_t>(rng() % 0x800) * 0x100000u +
           (t.shape == kShapePitch2D || linear_memory ? static_cast<uint32_t>(rng() % 16) * 256u : 0u);
  t.desc_addr = desc_addr;
  return t;
}

// A random texture made a 2D texture of float4 texels (16 bytes: a row of
// 4 is one line), width x height, rows packed, read as element type with
// unnormalized clamped coordinates and `filter`; base_addr stays random.
inline Texture float4_2d_texture(std::mt19937_64& rng, uint32_t desc_addr, int width, int height,
                                 tx::FilterMode filter) {
  Texture t = random_texture(rng, desc_addr);
  t.shape = kShape2D;
  tx::Descriptor& s = t.sampling;
  s.dimension = tx::Dimension::k2D;
  s.layered = false;
  s.width = width;
  s.height = height;
  s.depth = s.layers = 1;
  s.kind = tx::ChannelKind::kFloat;
  s.bits_per_channel = 32;
  s.channels = 4;
  s.read_mode = tx::ReadMode::kElementType;
  s.filter = filter;
  s.normalized_coordinates = false;
  for (auto& m : s.address) m = tx::AddressMode::kClamp;
  t.pitch = static_cast<uint32_t>(16 * width);
  t.slice_pitch = t.pitch * static_cast<uint32_t>(height);
  return t;
}

inline float random_coordinate(std::mt19937_64& rng, bool normalized, int extent) {
  static const float specials[] = {NAN,    -NAN,  INFINITY, -INFINITY, 0.0f, -0.0f,        1e30f,
                                   -1e30f, 1e12f, 1e-30f,   -1e-45f,   0.5f, 3.3554432e7f, -1048575.5f};
  const float scale = normalized ? 1.0f : static_cast<float>(extent);
  switch (rng() % 8) {
    case 0:
      return specials[rng() % (sizeof specials / sizeof specials[0])];
    case 1: {  // a texel centre or edge
      const float k = static_cast<float>(static_cast<int>(rng() % (4 * extent + 8)) - 2 * extent - 4);
      const float v = (rng() % 2) ? k + 0.5f : k;
      return normalized ? v / static_cast<float>(extent) : v;
    }
    case 2:  // far outside
      return static_cast<float>(static_cast<int64_t>(rng() % 4000000) - 2000000) + 0.25f;
    case 3:  // near the edges
      return ((rng() % 2) ? scale : 0.0f) + (static_cast<float>(rng() % 2001) - 1000.0f) * 1e-4f;
    default: {
      std::uniform_real_distribution<float> d(-1.5f * scale, 2.5f * scale);
      return d(rng);
    }
  }
}

// --- lanes, the reference -------------------------------------------------------

struct Lane {
  float x = 0, y = 0, z = 0;
  int32_t layer = 0;
};

// What the fetch returns: tex1Dfetch's texel l.layer of linear memory, else
// the sample at the lane's coordinates.
inline tx::Texels reference(const DeviceMemory& memory, const Texture& t, const Lane& l) {
  MemoryReader read{&memory, &t};
  if (t.shape == kShapeLinear)
    return tx::fetch_linear(t.sampling, read, static_cast<uint32_t>(t.sampling.width), l.layer);
  return tx::sample(t.sampling, read, l.x, l.y, l.z, l.layer);
}

// A tex1Dfetch index of linear memory `width` texels wide: near `centre`,
// inside, just outside either end, or far outside (negative ones too).
inline int32_t random_index(std::mt19937_64& rng, int width, int32_t centre) {
  switch (rng() % 8) {
    case 0:
      return rng() % 2 ? -1 - static_cast<int32_t>(rng() % 3) : width + static_cast<int32_t>(rng() % 3);
    case 1:
      return static_cast<int32_t>(rng());
    case 2:
      return width > 0 ? static_cast<int32_t>(rng() % static_cast<uint32_t>(width)) : 0;
    default:
      return centre + static_cast<int32_t>(rng() % 9) - 4;
  }
}

inline std::string describe(const Texture& t, const Lane& l) {
  const tx::Descriptor& s = t.sampling;
  char text[400];
  std::snprintf(text, sizeof text,
                "shape %u %dx%dx%d layers %d kind %d bits %d channels %d read %d norm %d modes %d,%d,%d "
                "filter %d base %08x pitch %u slice %u coord %08x %08x %08x (%g %g %g) layer %d",
                t.shape, s.width, s.height, s.depth, s.layers, static_cast<int>(s.kind), s.bits_per_channel,
                s.channels, static_cast<int>(s.read_mode), s.normalized_coordinates,
                static_cast<int>(s.address[0]), static_cast<int>(s.address[1]),
                static_cast<int>(s.address[2]), static_cast<int>(s.filter), t.base, t.pitch, t.slice_pitch,
                tx::detail::float_bits(l.x), tx::detail::float_bits(l.y), tx::detail::float_bits(l.z),
                static_cast<double>(l.x), static_cast<double>(l.y), static_cast<double>(l.z), l.layer);
  return text;
}

// Lanes near one point (neighbouring texels, the common case of a warp) or
// anywhere, corners included; for linear memory, the layer field is the
// lane's tex1Dfetch index.
inline void random_lanes(std::mt19937_64& rng, const Texture& t, Lane* lanes, int count) {
  const tx::Descriptor& s = t.sampling;
  const int extent[3] = {s.width, s.height, s.depth};
  float centre[3];
  for (int a = 0; a < 3; ++a) centre[a] = random_coordinate(rng, s.normalized_coordinates, extent[a]);
  const bool clustered = rng() % 2 == 0;
  const int32_t layer = static_cast<int32_t>(rng() % 10) - 2;
  // tex1Dfetch's lanes: indices near one texel, mostly inside.
  const int32_t index_centre = s.width > 0 ? static_cast<int32_t>(rng() % static_cast<uint32_t>(s.width)) : 0;
  for (int n = 0; n < count; ++n) {
    Lane& l = lanes[n];
    float c[3];
    for (int a = 0; a < 3; ++a) {
      if (clustered) {
        const float step = s.normalized_coordinates ? 1.0f / static_cast<float>(extent[a]) : 1.0f;
        c[a] = centre[a] + step * static_cast<float>(static_cast<int>(rng() % 5) - 2) * 0.5f;
      } else {
        c[a] = random_coordinate(rng, s.normalized_coordinates, extent[a]);
      }
    }
    l = {c[0], c[1], c[2], clustered ? layer : static_cast<int32_t>(rng() % 10) - 2};
    if (t.shape == kShapeLinear) l.layer = random_index(rng, s.width, index_centre);
  }
}

// --- the unit's line port ------------------------------------------------------

struct Pacing {
  unsigned min_latency = 1, max_latency = 20;  // memory response latency, cycles after the request
  unsigned mem_ready_percent = 70;             // memory request back-pressure
  unsigned rsp_ready_percent = 60;             // fetch response back-pressure
};

// The device memory behind a unit's line port (mem_req_valid_o, mem_req_o,
// mem_rsp_i, ...: kestrel_tex_unit's, which kestrel_sm_tex passes out):
// requests taken under random back-pressure, answered in order after a
// random latency.  drive() sets the port's inputs before the model settles,
// sample() takes what it shows after.
class LineMemory {
 public:
  explicit LineMemory(const DeviceMemory& memory) : memory_(memory) {}

  unsigned desc_reads = 0, texel_reads = 0;  // line reads in [kDescBase, kDescLimit) / elsewhere

  template <typename Dut>
  void drive(Dut& dut, std::mt19937_64& rng, const Pacing& pacing, uint64_t cycle) {
    dut.mem_req_ready_i = rng() % 100 < pacing.mem_ready_percent;
    rsp_due_ = !queue_.empty() && queue_.front().due <= cycle;
    dut.mem_rsp_valid_i = rsp_due_;
    if (rsp_due_) rtlbench::pack_rsp(dut.mem_rsp_i.data(), 0, queue_.front().rsp);
  }

  template <typename Dut>
  void sample(const Dut& dut, std::mt19937_64& rng, const Pacing& pacing, uint64_t cycle) {
    if (dut.mem_req_valid_o && dut.mem_req_ready_i) accept(dut.mem_req_o.data(), rng, pacing, cycle);
    if (rsp_due_ && dut.mem_rsp_ready_o) queue_.pop_front();
  }

  bool idle() const { return queue_.empty(); }

 private:
  struct Pending {
    uint64_t due;
    rtlbench::MemRsp rsp;
  };

  void accept(const uint32_t* words, std::mt19937_64& rng, const Pacing& pacing, uint64_t cycle) {
    const rtlbench::MemReq q = rtlbench::unpack_req(words, 0);
    EXPECT_EQ(q.kind, 0u) << "texture reads are MemRead";
    EXPECT_FALSE(q.write);
    EXPECT_FALSE(q.amo);
    EXPECT_EQ(q.be, 0u);
    EXPECT_EQ(q.addr % 64, 0u) << "line requests are line-aligned";
    if (q.addr >= kDescBase && q.addr < kDescLimit)
      ++desc_reads;
    else
      ++texel_reads;
    Pending p;
    p.due = cycle + pacing.min_latency + rng() % (pacing.max_latency - pacing.min_latency + 1);
    p.rsp.fault = memory_.read_line(q.addr, p.rsp.rdata);
    queue_.push_back(p);
  }

  const DeviceMemory& memory_;
  std::deque<Pending> queue_;
  bool rsp_due_ = false;
};

}  // namespace kestrel::texbench
