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
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "Vtex_unit.h"
#include "kestrel/texture_math.hpp"
#include "rtl_test.hpp"
#include "tex_bench.hpp"

namespace {

using namespace kestrel::texbench;
using kestrel::rtlbench::Bench;

// The bench model's parameters (tests/rtl/tex/CMakeLists.txt).
constexpr int kLanes = 8;
constexpr int kDescEntries = 2;

constexpr unsigned kStatusOk = 0, kStatusUnsupported = 1, kStatusMismatch = 2, kStatusFault = 3;

// --- the fetch and the harness --------------------------------------------------

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

// tex_dim_e: 1D, 2D, 3D, and Indexed for tex1Dfetch of linear memory.
constexpr unsigned kDimIndexed = 3;

Fetch fetch_of(const Texture& t) {
  Fetch f;
  f.desc_addr = t.desc_addr;
  f.dim = t.shape == kShapeLinear                      ? kDimIndexed
          : t.sampling.dimension == tx::Dimension::k1D ? 0u
          : t.sampling.dimension == tx::Dimension::k2D ? 1u
                                                       : 2u;
  f.layered = t.sampling.layered;
  return f;
}

class Harness {
 public:
  explicit Harness(uint64_t seed) : memory(seed), rng_(seed) { bench_.reset(); }

  DeviceMemory memory;
  Pacing pacing;

  // Line reads the memory took: descriptors, texels.
  unsigned desc_reads() const { return port_.desc_reads; }
  unsigned texel_reads() const { return port_.texel_reads; }

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
      port_.drive(dut, rng_, pacing, cycle_);
      bench_.eval();
      if (dut.req_valid_i && dut.req_ready_o) {
        taken = true;
        take_cycle = cycle;
      } else if (taken && !seen_valid && dut.rsp_valid_o) {
        seen_valid = true;
        r.cycles = cycle - take_cycle;
      }
      port_.sample(dut, rng_, pacing, cycle_);
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
  Bench<Vtex_unit> bench_;
  std::mt19937_64 rng_;
  uint32_t tex_hits_ = 0, tex_misses_ = 0, desc_misses_ = 0;
  LineMemory port_{memory};
  uint64_t cycle_ = 0;
};

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
    random_lanes(rng, t, f.lane, kLanes);
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
  EXPECT_EQ(h.desc_misses(), h.desc_reads());
  EXPECT_EQ(h.tex_misses(), h.texel_reads());
}

// A small 2D texture that fits the texel cache: a second identical fetch
// reads nothing from memory and every tap hits.
TEST(TexFetchUnit, SecondIdenticalFetchHits) {
  std::mt19937_64 rng(2);
  Harness h(2);
  // 16-byte texels: a row is one line.
  Texture t = float4_2d_texture(rng, kDescBase, 4, 4, tx::FilterMode::kLinear);
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
  const unsigned reads = h.texel_reads();
  const Response second = h.run(f);
  EXPECT_EQ(check_values(h, t, f, second), 0u);
  EXPECT_EQ(h.desc_misses(), 1u) << "the descriptor stays cached";
  EXPECT_EQ(h.tex_misses(), misses);
  EXPECT_EQ(h.tex_hits(), hits + static_cast<uint32_t>(kLanes * 4));
  EXPECT_EQ(h.texel_reads(), reads);
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
  EXPECT_EQ(h.texel_reads(), 1u);
  EXPECT_EQ(h.tex_misses(), 1u);
  EXPECT_EQ(h.tex_hits(), static_cast<uint32_t>(kLanes - 1));
}

// Border taps read nothing: every lane far outside a border-mode texture;
// a tex1Dfetch outside linear memory reads nothing either (and returns 0).
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
    for (Lane& l : f.lane) {
      l = {rng() % 2 ? far : -far, -far, far, 0};
      if (t.shape == kShapeLinear)
        l.layer = rng() % 2 ? -1 - static_cast<int32_t>(rng() % 9) : t.sampling.width;
    }
    const unsigned reads = h.texel_reads();
    const Response r = h.run(f);
    EXPECT_EQ(r.status, kStatusOk);
    EXPECT_EQ(check_values(h, t, f, r), 0u);
    EXPECT_EQ(h.texel_reads(), reads) << describe(t, f.lane[0]);
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
    if (kind == 2) {  // linear memory of no whole texel
      t.shape = kShapeLinear;
      t.sampling.width = 0;
    }
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
    random_lanes(rng, t, f.lane, kLanes);
    const unsigned reads = h.texel_reads();
    const Response r = h.run(f);
    EXPECT_EQ(r.status, kStatusUnsupported) << "case " << kind;
    EXPECT_EQ(r.fault_addr, t.desc_addr) << "a refusal names the object";
    EXPECT_EQ(h.texel_reads(), reads);
    expect_zero(r);
  }
  // A form other than the descriptor's shape (tex2D on a 3D texture, a
  // layered fetch of an unlayered one, tex1Dfetch of an array or tex1D of
  // linear memory).
  for (int kind = 0; kind < 3; ++kind) {
    Texture t = random_texture(rng, desc += 0x1000u);
    write_descriptor(h.memory, t);
    Fetch f = fetch_of(t);
    if (kind == 0) f.dim = (f.dim + 1) % 3;
    if (kind == 1) f.layered = !f.layered;
    if (kind == 2) f.dim = f.dim == kDimIndexed ? 0u : kDimIndexed;
    f.mask = 0x0F;
    random_lanes(rng, t, f.lane, kLanes);
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
    const unsigned reads = h.desc_reads();
    const Response r = h.run(f);
    EXPECT_EQ(r.status, kStatusFault);
    EXPECT_EQ(r.fault, kFaultMisaligned);
    EXPECT_EQ(r.fault_addr, kDescBase + 0x1004u);
    EXPECT_EQ(r.fault_lane, 7u);
    EXPECT_EQ(h.desc_reads(), reads);
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
    random_lanes(rng, t, f.lane, kLanes);
    for (auto& m : t.sampling.address) m = tx::AddressMode::kClamp;
    // Every lane's index inside linear memory.
    if (t.shape == kShapeLinear)
      for (Lane& l : f.lane) l.layer = static_cast<int32_t>(rng() % static_cast<uint32_t>(t.sampling.width));
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
    const unsigned reads = h.desc_reads();
    const Response r = h.run(f);
    EXPECT_EQ(r.status, kStatusOk);
    EXPECT_EQ(h.desc_reads(), reads);
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
    random_lanes(rng, a, fa.lane, kLanes);
    const Response ra = h.run(fa);
    ASSERT_EQ(ra.status, kStatusOk);
    Fetch fb = fetch_of(b);
    fb.mask = static_cast<uint8_t>(~first);
    fb.merge = true;
    random_lanes(rng, b, fb.lane, kLanes);
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
  const Case cases[] = {{"1D fetch (linear memory)", tx::FilterMode::kPoint, kShapeLinear},
                        {"2D point", tx::FilterMode::kPoint, kShape2D},
                        {"2D bilinear", tx::FilterMode::kLinear, kShape2D},
                        {"3D trilinear", tx::FilterMode::kLinear, kShape3D}};
  uint32_t desc = kDescBase;
  for (const Case& c : cases) {
    Texture t = random_texture(rng, desc += 0x1000u);
    t.shape = c.shape;
    tx::Descriptor& s = t.sampling;
    s.dimension = c.shape == kShape3D       ? tx::Dimension::k3D
                  : c.shape == kShapeLinear ? tx::Dimension::k1D
                                            : tx::Dimension::k2D;
    s.layered = false;
    s.width = c.shape == kShapeLinear ? 64 * 64 : 64;
    s.height = c.shape == kShapeLinear ? 1 : 64;
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
    // Neighbouring texels of one row: the lanes share two lines per row
    // (linear memory: texels 8.. of one line).
    for (int l = 0; l < kLanes; ++l) f.lane[l] = {8.3f + static_cast<float>(l), 20.6f, 30.4f, 8 + l};
    h.flush();
    const unsigned reads = h.texel_reads();
    const Response miss = h.run(f);
    const unsigned lines = h.texel_reads() - reads;
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
