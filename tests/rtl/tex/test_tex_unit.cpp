// The texture unit's memory side (rtl/tex/kestrel_tex_unit.sv, issue 16):
// whole warp fetches from a texture object's handle, against
// kestrel::texture::sample() of include/kestrel/texture_math.hpp (CUDA C
// Programming Guide v8.0, 3.2.11.1 and appendix F) reading the same device
// memory, bit for bit.  The device memory behind the unit's line port
// answers after a random latency and takes requests under random
// back-pressure; the fetch responses are taken under back-pressure too.
// Descriptors are packed through the generated contract::TexDesc (docs/isa.md
// section 12), texels are a hash of their byte address (with float
// specials), so textures of any extent need no storage.  Also checked: the
// cache counters (an identical second fetch reads nothing), lanes on one
// line costing one read, border taps reading nothing, the statuses
// (unsupported shapes, a form that differs from the shape, faults), and the
// cycles per warp fetch that docs/microarchitecture.md quotes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "Vtex_unit.h"
#include "kestrel/texture_math.hpp"
#include "rtl_test.hpp"
#include "wide_bits.hpp"

namespace {

namespace tx = kestrel::texture;
namespace contract = kestrel::contract;
using kestrel::rtlbench::Bench;

// The bench model's parameters (tests/rtl/tex/CMakeLists.txt).
constexpr int kLanes = 8;
constexpr int kDescEntries = 2;

constexpr unsigned kStatusOk = 0, kStatusUnsupported = 1, kStatusMismatch = 2, kStatusFault = 3;
constexpr unsigned kFaultNone = 0, kFaultMisaligned = 2, kFaultIllegalAddress = 3;

// --- device memory ------------------------------------------------------------

// Lines written by the bench (descriptors) and, at and above kTexelBase,
// hashed texel bytes; anything else faults as an unmapped page.
constexpr uint32_t kDescBase = 0x10000000u;
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

unsigned encode_channel_size(int bits) { return bits == 8 ? 0u : bits == 16 ? 1u : 2u; }

// The descriptor line (docs/isa.md section 12) through the generated layout.
void write_descriptor(DeviceMemory& memory, const Texture& t) {
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

int random_extent(std::mt19937_64& rng) {
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

uint32_t random_border(std::mt19937_64& rng, const tx::Descriptor& t) {
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
// pitched to 64 bytes, page-aligned base) or, for Pitch2D, as
// cudaMallocPitch memory may be (rows 32 bytes apart or more, the base a
// multiple of 256); at most 64 MiB so that every texel stays in mapped
// memory.
Texture random_texture(std::mt19937_64& rng, uint32_t desc_addr) {
  Texture t;
  tx::Descriptor& s = t.sampling;
  static const unsigned shapes[] = {kShape1D,        kShape2D,        kShape3D,
                                    kShape1DLayered, kShape2DLayered, kShapePitch2D};
  t.shape = shapes[rng() % 6];
  s.dimension = t.shape == kShape3D                                   ? tx::Dimension::k3D
                : (t.shape == kShape1D || t.shape == kShape1DLayered) ? tx::Dimension::k1D
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
    s.width = random_extent(rng);
    s.height = s.dimension == tx::Dimension::k1D ? 1 : random_extent(rng);
    s.depth = s.dimension == tx::Dimension::k3D ? random_extent(rng) : 1;
    s.layers = s.layered ? 1 + static_cast<int>(rng() % 8) : 1;
    const uint64_t row = static_cast<uint64_t>(s.width) * texel;
    // A pitched resource's rows are 32 bytes apart at least
    // (texturePitchAlignment, runtime/cudart/cuda_arrays.hpp), so a row may
    // start mid-line; an array's start a line.
    const uint64_t pitch =
        t.shape == kShapePitch2D ? (row + 31) / 32 * 32 + 32 * (rng() % 3) : (row + 63) / 64 * 64;
    const uint64_t bytes =
        pitch * static_cast<uint64_t>(s.height) * static_cast<uint64_t>(s.depth * s.layers);
    if (bytes > (64u << 20)) continue;
    t.pitch = static_cast<uint32_t>(pitch);
    t.slice_pitch = static_cast<uint32_t>(pitch * static_cast<uint64_t>(s.height));
    break;
  }
  // Arrays start a page, pitched resources a multiple of textureAlignment (256).
  t.base = kTexelBase + static_cast<uint32_t>(rng() % 0x800) * 0x100000u +
           (t.shape == kShapePitch2D ? static_cast<uint32_t>(rng() % 16) * 256u : 0u);
  t.desc_addr = desc_addr;
  return t;
}

float random_coordinate(std::mt19937_64& rng, bool normalized, int extent) {
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

// --- the fetch and the harness --------------------------------------------------

struct Lane {
  float x = 0, y = 0, z = 0;
  int32_t layer = 0;
};

struct Fetch {
  uint32_t desc_addr = 0;
  unsigned dim = 1;  // tex_dim_e
  bool layered = false;
  uint8_t warp = 0;
  uint8_t mask = 0;
  bool merge = false;  // lanes outside the mask keep the previous fetch's values
  Lane lane[kLanes];
};

struct Response {
  uint8_t warp = 0;
  unsigned status = 0, fault = 0;
  uint32_t fault_addr = 0;
  unsigned fault_lane = 0;
  uint8_t mask = 0;
  uint32_t value[kLanes][4] = {};
  unsigned cycles = 0;  // from the request's acceptance to the response's first valid cycle
};

Fetch fetch_of(const Texture& t) {
  Fetch f;
  f.desc_addr = t.desc_addr;
  f.dim = t.sampling.dimension == tx::Dimension::k1D   ? 0u
          : t.sampling.dimension == tx::Dimension::k2D ? 1u
                                                       : 2u;
  f.layered = t.sampling.layered;
  return f;
}

struct Pacing {
  unsigned min_latency = 1, max_latency = 20;  // memory response latency, cycles after the request
  unsigned mem_ready_percent = 70;             // memory request back-pressure
  unsigned rsp_ready_percent = 60;             // fetch response back-pressure
};

class Harness {
 public:
  explicit Harness(uint64_t seed) : memory(seed), rng_(seed) { bench_.reset(); }

  DeviceMemory memory;
  Pacing pacing;
  unsigned desc_reads = 0, texel_reads = 0;

  void flush() {
    bench_->flush_i = 1;
    bench_.tick();
    bench_->flush_i = 0;
  }

  // The unit's event pulses, counted per cycle.
  uint32_t tex_hits() const { return tex_hits_; }
  uint32_t tex_misses() const { return tex_misses_; }
  uint32_t desc_misses() const { return desc_misses_; }

  Response run(const Fetch& f) {
    Vtex_unit& dut = bench_.dut();
    // tex_fetch_req_t, LSB first: form.layered, form.dim, desc_addr, warp, merge.
    dut.req_i = static_cast<uint64_t>(f.layered) | static_cast<uint64_t>(f.dim) << 1 |
                static_cast<uint64_t>(f.desc_addr) << 3 | static_cast<uint64_t>(f.warp) << 35 |
                static_cast<uint64_t>(f.merge) << 43;
    dut.req_mask_i = f.mask;
    for (int l = 0; l < kLanes; ++l) {
      dut.req_coord_i[4 * l] = tx::detail::float_bits(f.lane[l].x);
      dut.req_coord_i[4 * l + 1] = tx::detail::float_bits(f.lane[l].y);
      dut.req_coord_i[4 * l + 2] = tx::detail::float_bits(f.lane[l].z);
      dut.req_coord_i[4 * l + 3] = static_cast<uint32_t>(f.lane[l].layer);
    }
    bool offered = false, taken = false, seen_valid = false, answered = false;
    unsigned take_cycle = 0;
    Response r;
    for (unsigned cycle = 0; !answered; ++cycle) {
      if (cycle > 200000) {
        ADD_FAILURE() << "fetch never answered";
        break;
      }
      offered = offered || rng_() % 4 != 0;
      dut.req_valid_i = offered && !taken;
      dut.rsp_ready_i = rng_() % 100 < pacing.rsp_ready_percent;
      dut.mem_req_ready_i = rng_() % 100 < pacing.mem_ready_percent;
      const bool rsp_due = !mem_queue_.empty() && mem_queue_.front().due <= cycle_;
      dut.mem_rsp_valid_i = rsp_due;
      if (rsp_due) kestrel::rtlbench::pack_rsp(dut.mem_rsp_i.data(), 0, mem_queue_.front().rsp);
      bench_.eval();
      if (dut.req_valid_i && dut.req_ready_o) {
        taken = true;
        take_cycle = cycle;
      } else if (taken && !seen_valid && dut.rsp_valid_o) {
        seen_valid = true;
        r.cycles = cycle - take_cycle;
      }
      if (dut.mem_req_valid_o && dut.mem_req_ready_i) accept_mem_request();
      if (rsp_due && dut.mem_rsp_ready_o) mem_queue_.pop_front();
      tex_hits_ += dut.ev_tex_hit_o;
      tex_misses_ += dut.ev_tex_miss_o;
      desc_misses_ += dut.ev_desc_miss_o;
      if (dut.rsp_valid_o && dut.rsp_ready_i) {
        // tex_fetch_rsp_t, LSB first: fault_addr, fault, status, warp, fault_lane.
        const uint64_t h = dut.rsp_o;
        r.fault_lane = static_cast<unsigned>(h >> 46) & 0xFFu;
        r.fault_addr = static_cast<uint32_t>(h);
        r.fault = static_cast<unsigned>(h >> 32) & 15u;
        r.status = static_cast<unsigned>(h >> 36) & 3u;
        r.warp = static_cast<uint8_t>(h >> 38);
        r.mask = dut.rsp_mask_o;
        for (int l = 0; l < kLanes; ++l)
          for (int c = 0; c < 4; ++c) r.value[l][c] = dut.rsp_value_o[4 * l + c];
        answered = true;
      }
      bench_.tick();
      ++cycle_;
    }
    dut.req_valid_i = 0;
    dut.rsp_ready_i = 0;
    dut.mem_rsp_valid_i = 0;
    bench_.eval();
    return r;
  }

 private:
  struct Pending {
    uint64_t due;
    kestrel::rtlbench::MemRsp rsp;
  };

  void accept_mem_request() {
    const kestrel::rtlbench::MemReq q = kestrel::rtlbench::unpack_req(bench_->mem_req_o.data(), 0);
    EXPECT_EQ(q.kind, 0u) << "texture reads are MemRead";
    EXPECT_FALSE(q.write);
    EXPECT_FALSE(q.amo);
    EXPECT_EQ(q.be, 0u);
    EXPECT_EQ(q.addr % 64, 0u) << "line requests are line-aligned";
    if (q.addr >= kDescBase && q.addr < kTexelBase)
      ++desc_reads;
    else
      ++texel_reads;
    Pending p;
    p.due = cycle_ + pacing.min_latency + rng_() % (pacing.max_latency - pacing.min_latency + 1);
    p.rsp.fault = memory.read_line(q.addr, p.rsp.rdata);
    mem_queue_.push_back(p);
  }

  Bench<Vtex_unit> bench_;
  std::mt19937_64 rng_;
  uint32_t tex_hits_ = 0, tex_misses_ = 0, desc_misses_ = 0;
  std::deque<Pending> mem_queue_;
  uint64_t cycle_ = 0;
};

tx::Texels reference(const DeviceMemory& memory, const Texture& t, const Lane& l) {
  MemoryReader read{&memory, &t};
  return tx::sample(t.sampling, read, l.x, l.y, l.z, l.layer);
}

std::string describe(const Texture& t, const Lane& l) {
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

// Every active lane against the reference, inactive lanes 0.
unsigned check_values(const Harness& h, const Texture& t, const Fetch& f, const Response& r) {
  unsigned failures = 0;
  EXPECT_EQ(r.mask, f.mask);
  EXPECT_EQ(r.warp, f.warp);
  for (int l = 0; l < kLanes; ++l) {
    tx::Texels want{};
    if ((f.mask >> l) & 1u) want = reference(h.memory, t, f.lane[l]);
    if (std::memcmp(want.v, r.value[l], sizeof want.v) != 0) {
      char values[160];
      std::snprintf(values, sizeof values, "lane %d got %08x %08x %08x %08x want %08x %08x %08x %08x", l,
                    r.value[l][0], r.value[l][1], r.value[l][2], r.value[l][3], want.v[0], want.v[1],
                    want.v[2], want.v[3]);
      ADD_FAILURE() << describe(t, f.lane[l]) << "\n " << values;
      ++failures;
    }
  }
  return failures;
}

// Lanes near one point (neighbouring texels, the common case of a warp) or
// anywhere, corners included.
void random_lanes(std::mt19937_64& rng, const Texture& t, Fetch& f) {
  const tx::Descriptor& s = t.sampling;
  const int extent[3] = {s.width, s.height, s.depth};
  float centre[3];
  for (int a = 0; a < 3; ++a) centre[a] = random_coordinate(rng, s.normalized_coordinates, extent[a]);
  const bool clustered = rng() % 2 == 0;
  const int32_t layer = static_cast<int32_t>(rng() % 10) - 2;
  for (Lane& l : f.lane) {
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
  }
}

// --- tests ------------------------------------------------------------------------

TEST(TexFetchUnit, RandomFetchesMatchSample) {
  std::mt19937_64 rng(1616);
  Harness h(16);
  std::vector<Texture> textures;
  for (int i = 0; i < 48; ++i) {
    textures.push_back(random_texture(rng, kDescBase + 0x1000u * static_cast<uint32_t>(i)));
    write_descriptor(h.memory, textures.back());
  }
  // The descriptor cache's expected behaviour: kDescEntries lines, filled
  // round-robin, emptied (not rewound) by a flush.
  uint32_t desc_line[kDescEntries] = {};
  bool desc_valid[kDescEntries] = {};
  unsigned desc_victim = 0, expected_desc_misses = 0, nonzero_lanes = 0;
  unsigned failures = 0, fetches = 0;
  for (int n = 0; n < 1200 && failures < 10; ++n) {
    // Runs of fetches on one texture (as a kernel makes), then another.
    const Texture& t = textures[(n / 4 + (rng() % 3 == 0 ? rng() % 48 : 0)) % 48];
    Fetch f = fetch_of(t);
    f.warp = static_cast<uint8_t>(rng() % 8);
    f.mask = rng() % 4 == 0 ? static_cast<uint8_t>(rng()) : 0xFF;
    random_lanes(rng, t, f);
    if (rng() % 50 == 0) {
      h.flush();
      for (bool& v : desc_valid) v = false;
    }
    if (f.mask != 0) {
      bool hit = false;
      for (int e = 0; e < kDescEntries; ++e) hit = hit || (desc_valid[e] && desc_line[e] == f.desc_addr);
      if (!hit) {
        ++expected_desc_misses;
        desc_line[desc_victim] = f.desc_addr;
        desc_valid[desc_victim] = true;
        desc_victim = (desc_victim + 1) % kDescEntries;
      }
    }
    const Response r = h.run(f);
    for (const auto& lane : r.value) nonzero_lanes += (lane[0] | lane[1] | lane[2] | lane[3]) != 0;
    EXPECT_EQ(r.status, kStatusOk);
    EXPECT_EQ(r.fault, kFaultNone);
    failures += check_values(h, t, f, r);
    ++fetches;
  }
  EXPECT_EQ(fetches, 1200u);
  // The caches did their work: most taps hit, most descriptors too.
  EXPECT_GT(h.tex_hits(), 2 * h.tex_misses());
  EXPECT_EQ(h.desc_misses(), expected_desc_misses);
  // The values compared are mostly texels, not zeros.
  EXPECT_GT(nonzero_lanes, 1200u * kLanes / 2);
  EXPECT_EQ(h.desc_misses(), h.desc_reads);
  EXPECT_EQ(h.tex_misses(), h.texel_reads);
}

// A small 2D texture that fits the texel cache: a second identical fetch
// reads nothing from memory and every tap hits.
TEST(TexFetchUnit, SecondIdenticalFetchHits) {
  std::mt19937_64 rng(2);
  Harness h(2);
  Texture t = random_texture(rng, kDescBase);
  t.shape = kShape2D;
  tx::Descriptor& s = t.sampling;
  s.dimension = tx::Dimension::k2D;
  s.layered = false;
  s.width = 4;
  s.height = 4;
  s.depth = s.layers = 1;
  s.kind = tx::ChannelKind::kFloat;
  s.bits_per_channel = 32;
  s.channels = 4;  // 16-byte texels: a row is one line
  s.read_mode = tx::ReadMode::kElementType;
  s.filter = tx::FilterMode::kLinear;
  s.normalized_coordinates = false;
  for (auto& m : s.address) m = tx::AddressMode::kClamp;
  t.pitch = 64;
  t.slice_pitch = 256;
  write_descriptor(h.memory, t);
  Fetch f = fetch_of(t);
  f.mask = 0xFF;
  for (int l = 0; l < kLanes; ++l)
    f.lane[l] = {0.5f + 0.37f * static_cast<float>(l), 3.9f - 0.45f * static_cast<float>(l), 0, 0};
  h.flush();
  const Response first = h.run(f);
  EXPECT_EQ(check_values(h, t, f, first), 0u);
  EXPECT_EQ(h.desc_misses(), 1u);
  const uint32_t misses = h.tex_misses(), hits = h.tex_hits();
  EXPECT_GE(misses, 1u);
  EXPECT_LE(misses, 4u) << "the texture is four lines";
  EXPECT_EQ(misses + hits, static_cast<uint32_t>(kLanes * 4)) << "four taps a lane, none on the border";
  const unsigned reads = h.texel_reads;
  const Response second = h.run(f);
  EXPECT_EQ(check_values(h, t, f, second), 0u);
  EXPECT_EQ(h.desc_misses(), 1u) << "the descriptor stays cached";
  EXPECT_EQ(h.tex_misses(), misses);
  EXPECT_EQ(h.tex_hits(), hits + static_cast<uint32_t>(kLanes * 4));
  EXPECT_EQ(h.texel_reads, reads);
  // After a flush the same fetch reads its lines again.
  h.flush();
  const Response third = h.run(f);
  EXPECT_EQ(check_values(h, t, f, third), 0u);
  EXPECT_EQ(h.desc_misses(), 2u);
  EXPECT_EQ(h.tex_misses(), 2 * misses);
}

// Eight lanes point-sampling eight texels of one line: one texel read.
TEST(TexFetchUnit, LanesOnOneLineCostOneRead) {
  std::mt19937_64 rng(3);
  Harness h(3);
  Texture t = random_texture(rng, kDescBase);
  t.shape = kShape2D;
  tx::Descriptor& s = t.sampling;
  s.dimension = tx::Dimension::k2D;
  s.layered = false;
  s.width = 256;
  s.height = 8;
  s.depth = s.layers = 1;
  s.kind = tx::ChannelKind::kUnsigned;
  s.bits_per_channel = 8;
  s.channels = 2;  // 2-byte texels: 32 to a line
  s.read_mode = tx::ReadMode::kElementType;
  s.filter = tx::FilterMode::kPoint;
  s.normalized_coordinates = false;
  t.pitch = 512;
  t.slice_pitch = 512 * 8;
  write_descriptor(h.memory, t);
  Fetch f = fetch_of(t);
  f.mask = 0xFF;
  for (int l = 0; l < kLanes; ++l)
    f.lane[l] = {32.5f + 3.0f * static_cast<float>(l), 5.5f, 0, 0};  // texels 32..53 of row 5
  h.flush();
  const Response r = h.run(f);
  EXPECT_EQ(check_values(h, t, f, r), 0u);
  EXPECT_EQ(h.texel_reads, 1u);
  EXPECT_EQ(h.tex_misses(), 1u);
  EXPECT_EQ(h.tex_hits(), static_cast<uint32_t>(kLanes - 1));
}

// Border taps read nothing: every lane far outside a border-mode texture.
TEST(TexFetchUnit, BorderTapsReadNothing) {
  std::mt19937_64 rng(4);
  Harness h(4);
  for (int trial = 0; trial < 20; ++trial) {
    Texture t = random_texture(rng, kDescBase + 0x1000u * static_cast<uint32_t>(trial));
    for (auto& m : t.sampling.address) m = tx::AddressMode::kBorder;
    for (auto& c : t.sampling.border_color) c = random_border(rng, t.sampling);
    write_descriptor(h.memory, t);
    Fetch f = fetch_of(t);
    f.mask = 0xFF;
    const float far = t.sampling.normalized_coordinates ? 7.25f : 3.0e6f;
    for (Lane& l : f.lane) l = {rng() % 2 ? far : -far, -far, far, 0};
    const unsigned reads = h.texel_reads;
    const Response r = h.run(f);
    EXPECT_EQ(r.status, kStatusOk);
    EXPECT_EQ(check_values(h, t, f, r), 0u);
    EXPECT_EQ(h.texel_reads, reads) << describe(t, f.lane[0]);
  }
}

// What the unit refuses, and faults.
TEST(TexFetchUnit, StatusesAndFaults) {
  std::mt19937_64 rng(5);
  Harness h(5);
  auto expect_zero = [](const Response& r) {
    for (const auto& lane : r.value)
      for (uint32_t c : lane) EXPECT_EQ(c, 0u);
  };
  uint32_t desc = kDescBase;
  // Shapes outside the datapath, mipmapped textures and surfaces: refused
  // after the descriptor, no texel read.
  for (int kind = 0; kind < 6; ++kind) {
    Texture t = random_texture(rng, desc += 0x1000u);
    Fetch f = fetch_of(t);
    if (kind == 0) t.shape = kShapeCubemap;
    if (kind == 1) t.shape = kShapeCubemapLayered;
    if (kind == 2) t.shape = kShapeLinear;
    if (kind == 3) t.mip_levels = 3;
    if (kind == 4) t.surface = true;
    if (kind == 5) {  // sRGB of 8-bit unsigned channels read as normalized floats
      t.sampling.srgb = true;
      t.sampling.kind = tx::ChannelKind::kUnsigned;
      t.sampling.bits_per_channel = 8;
      t.sampling.read_mode = tx::ReadMode::kNormalizedFloat;
    }
    write_descriptor(h.memory, t);
    f.mask = 0xFF;
    random_lanes(rng, t, f);
    const unsigned reads = h.texel_reads;
    const Response r = h.run(f);
    EXPECT_EQ(r.status, kStatusUnsupported) << "case " << kind;
    EXPECT_EQ(r.fault_addr, t.desc_addr) << "a refusal names the object";
    EXPECT_EQ(h.texel_reads, reads);
    expect_zero(r);
  }
  // A form other than the descriptor's shape (tex2D on a 3D texture, a
  // layered fetch of an unlayered one).
  for (int kind = 0; kind < 2; ++kind) {
    Texture t = random_texture(rng, desc += 0x1000u);
    write_descriptor(h.memory, t);
    Fetch f = fetch_of(t);
    if (kind == 0) f.dim = (f.dim + 1) % 3;
    if (kind == 1) f.layered = !f.layered;
    f.mask = 0x0F;
    random_lanes(rng, t, f);
    const Response r = h.run(f);
    EXPECT_EQ(r.status, kStatusMismatch) << "case " << kind;
    EXPECT_EQ(r.fault_addr, t.desc_addr) << "a refusal names the object";
    EXPECT_EQ(r.fault_lane, 0u) << "the mask's lowest lane";
    expect_zero(r);
  }
  // A descriptor at an unmapped address.
  {
    Fetch f;
    f.desc_addr = 0x00400040u;
    f.mask = 0x06;
    const Response r = h.run(f);
    EXPECT_EQ(r.status, kStatusFault);
    EXPECT_EQ(r.fault, kFaultIllegalAddress);
    EXPECT_EQ(r.fault_addr, 0x00400040u);
    EXPECT_EQ(r.fault_lane, 1u);
    expect_zero(r);
  }
  // A handle that is not a line's address: misaligned, nothing read.
  {
    Fetch f;
    f.desc_addr = kDescBase + 0x1004u;
    f.mask = 0x80;
    const unsigned reads = h.desc_reads;
    const Response r = h.run(f);
    EXPECT_EQ(r.status, kStatusFault);
    EXPECT_EQ(r.fault, kFaultMisaligned);
    EXPECT_EQ(r.fault_addr, kDescBase + 0x1004u);
    EXPECT_EQ(r.fault_lane, 7u);
    EXPECT_EQ(h.desc_reads, reads);
    expect_zero(r);
  }
  // Texels at an unmapped address: the fault and the line; lanes before it
  // keep their values, the others read 0.
  {
    Texture t = random_texture(rng, desc += 0x1000u);
    t.base = 0x08000000u;  // below kDescBase: unmapped
    write_descriptor(h.memory, t);
    Fetch f = fetch_of(t);
    f.mask = 0xF8;
    random_lanes(rng, t, f);
    for (auto& m : t.sampling.address) m = tx::AddressMode::kClamp;
    write_descriptor(h.memory, t);
    const Response r = h.run(f);
    EXPECT_EQ(r.status, kStatusFault);
    EXPECT_EQ(r.fault_lane, 3u) << "the first lane that reads a texel";
    EXPECT_EQ(r.fault, kFaultIllegalAddress);
    EXPECT_EQ(r.fault_addr & 63u, 0u);
    EXPECT_LT(r.fault_addr - t.base,
              t.slice_pitch * static_cast<uint32_t>(t.sampling.depth * t.sampling.layers));
    expect_zero(r);
  }
  // No active lane: nothing read, not even the descriptor.
  {
    Fetch f;
    f.desc_addr = 0x00400040u;
    f.mask = 0;
    const unsigned reads = h.desc_reads;
    const Response r = h.run(f);
    EXPECT_EQ(r.status, kStatusOk);
    EXPECT_EQ(h.desc_reads, reads);
  }
}

// A warp whose lanes name two objects, fetched in two passes as the SM
// does: the second merges, so each lane reads its own object's texels and
// nothing of the first pass is lost.
TEST(TexFetchUnit, MergedPassesKeepTheFirstPassValues) {
  std::mt19937_64 rng(77);
  Harness h(77);
  for (int n = 0; n < 40; ++n) {
    const Texture a = random_texture(rng, kDescBase + 0x2000u * static_cast<uint32_t>(n));
    Texture b = random_texture(rng, kDescBase + 0x2000u * static_cast<uint32_t>(n) + 0x1000u);
    write_descriptor(h.memory, a);
    write_descriptor(h.memory, b);
    const uint8_t first = static_cast<uint8_t>(rng() | 1u);  // lane 0 names a
    Fetch fa = fetch_of(a);
    fa.mask = first;
    random_lanes(rng, a, fa);
    const Response ra = h.run(fa);
    ASSERT_EQ(ra.status, kStatusOk);
    Fetch fb = fetch_of(b);
    fb.mask = static_cast<uint8_t>(~first);
    fb.merge = true;
    random_lanes(rng, b, fb);
    const Response rb = h.run(fb);
    ASSERT_EQ(rb.status, kStatusOk);
    for (int l = 0; l < kLanes; ++l) {
      const bool in_a = (first >> l) & 1u;
      const tx::Texels want = in_a ? reference(h.memory, a, fa.lane[l]) : reference(h.memory, b, fb.lane[l]);
      EXPECT_EQ(std::memcmp(want.v, rb.value[l], sizeof want.v), 0) << "fetch " << n << " lane " << l;
    }
  }
}

// Cycles per warp fetch (kLanes lanes, all active) with a memory that takes
// every request at once and answers 20 cycles later: the figures of
// docs/microarchitecture.md's texture unit table.
TEST(TexFetchUnit, CyclesPerWarpFetch) {
  std::mt19937_64 rng(6);
  Harness h(6);
  constexpr unsigned kLatency = 20;
  h.pacing = {kLatency, kLatency, 100, 100};
  struct Case {
    const char* name;
    tx::FilterMode filter;
    unsigned shape;
  };
  const Case cases[] = {{"2D point", tx::FilterMode::kPoint, kShape2D},
                        {"2D bilinear", tx::FilterMode::kLinear, kShape2D},
                        {"3D trilinear", tx::FilterMode::kLinear, kShape3D}};
  uint32_t desc = kDescBase;
  for (const Case& c : cases) {
    Texture t = random_texture(rng, desc += 0x1000u);
    t.shape = c.shape;
    tx::Descriptor& s = t.sampling;
    s.dimension = c.shape == kShape3D ? tx::Dimension::k3D : tx::Dimension::k2D;
    s.layered = false;
    s.width = s.height = 64;
    s.depth = c.shape == kShape3D ? 64 : 1;
    s.layers = 1;
    s.kind = tx::ChannelKind::kFloat;
    s.bits_per_channel = 32;
    s.channels = 1;
    s.read_mode = tx::ReadMode::kElementType;
    s.filter = c.filter;
    s.normalized_coordinates = false;
    for (auto& m : s.address) m = tx::AddressMode::kClamp;
    t.pitch = 256;
    t.slice_pitch = 256 * 64;
    write_descriptor(h.memory, t);
    Fetch f = fetch_of(t);
    f.mask = 0xFF;
    // Neighbouring texels of one row: the lanes share two lines per row.
    for (int l = 0; l < kLanes; ++l) f.lane[l] = {8.3f + static_cast<float>(l), 20.6f, 30.4f, 0};
    h.flush();
    const unsigned reads = h.texel_reads;
    const Response miss = h.run(f);
    const unsigned lines = h.texel_reads - reads;
    const Response hit = h.run(f);
    EXPECT_EQ(check_values(h, t, f, miss), 0u);
    EXPECT_EQ(check_values(h, t, f, hit), 0u);
    std::printf("[ cycles  ] %s, %d lanes: %u cycles cold (descriptor and %u texel lines read), %u warm\n",
                c.name, kLanes, miss.cycles, lines, hit.cycles);
    const unsigned taps = c.filter == tx::FilterMode::kPoint ? 1 : c.shape == kShape3D ? 8 : 4;
    // Warm: 3 cycles to the first lane (request, descriptor lookup and
    // read); a lane's 3 + taps cycles (address unit, one tap a cycle, the
    // last tap's read, the filter handoff), each lane after the first
    // waiting for the filter's 5 when it is shorter; then the last lane's
    // filtering to the response (5).
    const unsigned lane = 3 + taps;
    EXPECT_EQ(hit.cycles, 3 + lane + (kLanes - 1) * std::max(lane, 5u) + 5) << c.name;
    // Cold: each read (the descriptor, each line) waits the memory's latency.
    EXPECT_GE(miss.cycles, hit.cycles + kLatency * (1 + lines)) << c.name;
    EXPECT_LE(miss.cycles, hit.cycles + (kLatency + 2) * (1 + lines)) << c.name;
  }
}

}  // namespace
