// kx.tex, the texture unit's fetch (docs/isa.md section 2.5), on the model:
// every form against the texture arithmetic's own entry point
// (kestrel/model/texture_sampling.hpp, what the device SDK's software path
// computes) over the same texels, per-lane objects, partial masks, the
// descriptors the unit refuses, form mismatches, each fault with its kind,
// address, thread and PC, and the illegal encodings.  Hand-assembled
// kernels on RV64 and RV32; descriptors written word by word at the
// generated KESTREL_TEX_DESC_* positions.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "harness.hpp"
#include "kestrel/model/texture_sampling.hpp"
#include "kestrel/texture_unit.hpp"

namespace kestrel::model::test {
namespace {

using texture::AddressMode;
using texture::ChannelKind;
using texture::FilterMode;
using texture::ReadMode;

// The data area (kData, passed in a0): per-lane parameters, results,
// descriptors and texels.
constexpr uint32_t kParams = 0x0000;  // lane l: object, layer, x, y, z at 32 * l
constexpr uint32_t kResults = 0x400;  // lane l: the four components at 16 * l
constexpr uint32_t kDescriptors = 0x600;
constexpr uint32_t kTexels = 0x1000;
constexpr uint32_t kSentinel = 0x7fbad123;  // what f rd..rd+3 hold before the fetch

// A texture as cudaCreateTextureObject would describe it.
struct Texture {
  uint32_t shape = KESTREL_TEX_SHAPE_2D;
  ChannelKind kind = ChannelKind::kFloat;
  int bits = 32;
  int channels = 1;
  bool read_normalized = false;
  bool normalized_coords = false;
  bool linear = false;
  AddressMode address[3] = {AddressMode::kClamp, AddressMode::kClamp, AddressMode::kClamp};
  float border[4] = {0.25f, -0.5f, 2.0f, 1.0f};
  bool srgb = false;
  uint32_t width = 5, height = 1, depth = 1, layers = 1;
  uint32_t base = 0;  // device address of texel (0, 0)
  uint32_t pitch = 64, slice_pitch = 0;
  uint32_t mip_levels = 0;
  bool surface = false;

  int texel_bytes() const { return bits / 8 * channels; }

  std::array<uint32_t, 16> words() const {
    std::array<uint32_t, 16> w{};
#define SET(F, v)                                                                            \
  w[KESTREL_TEX_DESC_##F##_WORD] |= (static_cast<uint32_t>(v) & KESTREL_TEX_DESC_##F##_MASK) \
                                    << KESTREL_TEX_DESC_##F##_SHIFT
    SET(BASE_ADDR, base);
    SET(WIDTH, width);
    SET(HEIGHT, height);
    SET(DEPTH, depth);
    SET(LAYERS, layers);
    SET(PITCH, pitch);
    SET(SLICE_PITCH, slice_pitch);
    SET(SHAPE, shape);
    SET(CHANNEL_KIND, static_cast<uint32_t>(kind));
    SET(CHANNEL_SIZE, bits == 8 ? 0 : bits == 16 ? 1 : 2);
    SET(CHANNELS, channels);
    SET(ADDRESS_X, static_cast<uint32_t>(address[0]));
    SET(ADDRESS_Y, static_cast<uint32_t>(address[1]));
    SET(ADDRESS_Z, static_cast<uint32_t>(address[2]));
    SET(FILTER, linear ? KESTREL_TEX_FILTER_LINEAR : KESTREL_TEX_FILTER_POINT);
    SET(READ_NORMALIZED, read_normalized);
    SET(NORMALIZED_COORDS, normalized_coords);
    SET(SRGB, srgb);
    SET(SURFACE, surface);
    SET(MIP_LEVELS, mip_levels);
    uint32_t b[4];
    std::memcpy(b, border, sizeof b);
    SET(BORDER_R, b[0]);
    SET(BORDER_G, b[1]);
    SET(BORDER_B, b[2]);
    SET(BORDER_A, b[3]);
#undef SET
    return w;
  }

  // The arithmetic's own descriptor (the model's validating entry point).
  model::texture::TextureDescriptor sampling() const {
    model::texture::TextureDescriptor t;
    t.dimension = shape == KESTREL_TEX_SHAPE_3D ? texture::Dimension::k3D
                  : shape == KESTREL_TEX_SHAPE_1D || shape == KESTREL_TEX_SHAPE_1D_LAYERED
                      ? texture::Dimension::k1D
                      : texture::Dimension::k2D;
    t.layered = shape == KESTREL_TEX_SHAPE_1D_LAYERED || shape == KESTREL_TEX_SHAPE_2D_LAYERED;
    t.width = static_cast<int>(width);
    t.height = static_cast<int>(height);
    t.depth = static_cast<int>(depth);
    t.layers = static_cast<int>(layers);
    t.kind = kind;
    t.bits_per_channel = bits;
    t.channels = channels;
    t.read_mode = read_normalized ? ReadMode::kNormalizedFloat : ReadMode::kElementType;
    t.normalized_coordinates = normalized_coords;
    for (int a = 0; a < 3; ++a) t.address[a] = address[a];
    for (int c = 0; c < 4; ++c) t.border_color[c] = border[c];
    t.filter = linear ? FilterMode::kLinear : FilterMode::kPoint;
    t.srgb = srgb;
    return t;
  }
};

// One lane's fetch.
struct Fetch {
  uint32_t object = 0;
  int32_t layer = 0;
  float x = 0.0f, y = 0.0f, z = 0.0f;
};

// Per lane: load the object, the layer and the coordinates, preset f0..f3
// to kSentinel, fetch with `form` (lanes at or above `active_lanes` skip it),
// store f0..f3.  Returns the kx.tex's byte offset in the code.
uint32_t fetch_kernel(Assembler& a, unsigned form, unsigned active_lanes = 32) {
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.slli(t1, t0, 5);
  a.add(t2, a0, t1);
  a.lw(s2, t2, kParams + 0);
  a.lw(s3, t2, kParams + 4);
  a.flw(f(28), t2, kParams + 8);
  a.flw(f(29), t2, kParams + 12);
  a.flw(f(30), t2, kParams + 16);
  a.lui(t3, kSentinel >> 12);
  a.addi(t3, t3, static_cast<int32_t>(kSentinel & 0xFFF));
  for (unsigned r = 0; r < 4; ++r) a.fmv_w_x(f(r), t3);
  a.addi(t4, zero, static_cast<int32_t>(active_lanes));
  a.bge(t0, t4, "skip");
  const uint32_t at = a.here();
  a.kx_tex(form, f(0), s2, s3, f(28));
  a.bind("skip");
  a.slli(t1, t0, 4);
  a.add(t2, a0, t1);
  for (unsigned r = 0; r < 4; ++r) a.fsw(f(r), t2, static_cast<int32_t>(kResults + 4 * r));
  a.kx_exit();
  return at;
}

class TexTest : public ::testing::TestWithParam<unsigned> {
 protected:
  TexTest() : g_(GetParam()) {}

  // Writes `t`'s descriptor as descriptor number `n`; returns its address.
  uint32_t place(const Texture& t, unsigned n) {
    const std::array<uint32_t, 16> w = t.words();
    const uint32_t address = static_cast<uint32_t>(kData) + kDescriptors + 64 * n;
    g_.gpu().write_mem(address, w.data(), sizeof w);
    return address;
  }

  // Fills `bytes` texel bytes at data offset `offset` with a pattern;
  // returns the device address.
  uint32_t texels(uint32_t offset, uint32_t bytes, uint32_t seed) {
    std::vector<uint8_t> data(bytes);
    uint32_t s = seed * 2654435761u + 1;
    for (uint8_t& b : data) {
      s = s * 1103515245u + 12345u;
      b = static_cast<uint8_t>(s >> 16);
    }
    g_.gpu().write_mem(kData + offset, data.data(), data.size());
    return static_cast<uint32_t>(kData) + offset;
  }

  // Runs the kernel with `form` over one warp of `fetches`.
  LaunchState run(unsigned form, const std::vector<Fetch>& fetches, unsigned active_lanes = 32) {
    Assembler a(GetParam());
    tex_pc_ = kCode + fetch_kernel(a, form, active_lanes);
    g_.load(a);
    for (uint32_t l = 0; l < fetches.size(); ++l) {
      const Fetch& f = fetches[l];
      g_.set_data(kParams + 32 * l + 0, f.object);
      g_.set_data(kParams + 32 * l + 4, f.layer);
      g_.set_data(kParams + 32 * l + 8, f.x);
      g_.set_data(kParams + 32 * l + 12, f.y);
      g_.set_data(kParams + 32 * l + 16, f.z);
    }
    return g_.run({1, 1, 1}, {static_cast<uint32_t>(fetches.size()), 1, 1});
  }

  // What the texture arithmetic gives for lane l's fetch of `t`, the texels
  // read straight from the device's memory.
  model::texture::Result expected(const Texture& t, const Fetch& f) {
    auto read = [&](int x, int y, int z, int layer, uint8_t* out) {
      const uint64_t address = t.base + uint64_t{static_cast<uint32_t>(z + layer)} * t.slice_pitch +
                               uint64_t{static_cast<uint32_t>(y)} * t.pitch +
                               uint64_t{static_cast<uint32_t>(x)} * static_cast<uint32_t>(t.texel_bytes());
      g_.gpu().read_mem(address, out, static_cast<size_t>(t.texel_bytes()));
    };
    return model::texture::sample(t.sampling(), read, {f.x, f.y, f.z, f.layer});
  }

  // Lane l's stored components.
  std::array<uint32_t, 4> result(uint32_t l) const {
    std::array<uint32_t, 4> r;
    for (uint32_t c = 0; c < 4; ++c) r[c] = g_.data<uint32_t>(kResults + 16 * l + 4 * c);
    return r;
  }

  void expect_results(const std::vector<Texture>& textures, const std::vector<unsigned>& which,
                      const std::vector<Fetch>& fetches) {
    for (uint32_t l = 0; l < fetches.size(); ++l) {
      const model::texture::Result want = expected(textures[which[l]], fetches[l]);
      const std::array<uint32_t, 4> got = result(l);
      for (int c = 0; c < 4; ++c)
        EXPECT_EQ(got[c], want[c]) << "lane " << l << " component " << c << " at (" << fetches[l].x << ", "
                                   << fetches[l].y << ", " << fetches[l].z << ") layer " << fetches[l].layer;
    }
  }

  void expect_fault(kestrel_fault_kind kind, uint64_t addr, uint32_t lane) {
    const Fault& f = g_.gpu().fault();
    EXPECT_EQ(f.kind, kind);
    EXPECT_EQ(f.addr, addr);
    EXPECT_EQ(f.pc, tex_pc_);
    EXPECT_EQ(f.thread.x, lane);
    EXPECT_EQ(f.block.x, 0u);
  }

  TestGpu g_;
  uint64_t tex_pc_ = 0;
};

// Coordinates around and outside a texture of `size` texels: texel centres
// and edges (linear weights of 0), fractions, far outside, negative.
float coordinate(uint32_t lane, uint32_t size, bool normalized, uint32_t salt) {
  static const float kSteps[] = {0.5f, 0.0f, 1.25f, -0.75f, 2.5f, 3.9f, 100.0f, -1e6f};
  const uint32_t k = (lane * 7 + salt * 3) % 8;
  float v = kSteps[k] + static_cast<float>((lane + salt) % size) * 0.875f;
  if (k == 6) v = static_cast<float>(size) + 0.3f;
  return normalized ? v / static_cast<float>(size) : v;
}

std::vector<Fetch> fetches_of(uint32_t object, const Texture& t, uint32_t salt) {
  std::vector<Fetch> f(32);
  for (uint32_t l = 0; l < 32; ++l) {
    f[l].object = object;
    f[l].x = coordinate(l, t.width, t.normalized_coords, salt);
    f[l].y = coordinate(l, t.height, t.normalized_coords, salt + 1);
    f[l].z = coordinate(l, t.depth, t.normalized_coords, salt + 2);
    f[l].layer = static_cast<int32_t>(l % (t.layers + 2)) - 1;  // -1 reads the last layer
  }
  return f;
}

TEST_P(TexTest, EveryFormAgreesWithTheArithmetic) {
  struct Case {
    unsigned form;
    Texture t;
  };
  std::vector<Case> cases;
  {
    Texture t;  // 1D float, linear
    t.shape = KESTREL_TEX_SHAPE_1D;
    t.width = 9;
    t.linear = true;
    cases.push_back({KESTREL_TEX_FORM_1D, t});
  }
  {
    Texture t;  // 2D uchar4 read as normalized floats, linear, wrap
    t.kind = ChannelKind::kUnsigned;
    t.bits = 8;
    t.channels = 4;
    t.read_normalized = true;
    t.normalized_coords = true;
    t.linear = true;
    t.address[0] = AddressMode::kWrap;
    t.address[1] = AddressMode::kMirror;
    t.width = 6;
    t.height = 4;
    cases.push_back({KESTREL_TEX_FORM_2D, t});
  }
  {
    Texture t;  // 3D float2, linear, border
    t.shape = KESTREL_TEX_SHAPE_3D;
    t.channels = 2;
    t.linear = true;
    t.address[0] = t.address[1] = t.address[2] = AddressMode::kBorder;
    t.width = 4;
    t.height = 3;
    t.depth = 3;
    cases.push_back({KESTREL_TEX_FORM_3D, t});
  }
  {
    Texture t;  // 1D layered short, point, integers (sign-extended; y, z 0 and w 1)
    t.shape = KESTREL_TEX_SHAPE_1D_LAYERED;
    t.kind = ChannelKind::kSigned;
    t.bits = 16;
    t.width = 7;
    t.layers = 3;
    cases.push_back({KESTREL_TEX_FORM_1D_LAYERED, t});
  }
  {
    Texture t;  // 1D layered char2 read normalized, linear (taps 0 and 1)
    t.shape = KESTREL_TEX_SHAPE_1D_LAYERED;
    t.kind = ChannelKind::kSigned;
    t.bits = 8;
    t.channels = 2;
    t.read_normalized = true;
    t.linear = true;
    t.width = 7;
    t.layers = 2;
    cases.push_back({KESTREL_TEX_FORM_1D_LAYERED, t});
  }
  {
    Texture t;  // 2D layered half4, linear
    t.shape = KESTREL_TEX_SHAPE_2D_LAYERED;
    t.bits = 16;
    t.channels = 4;
    t.linear = true;
    t.width = 3;
    t.height = 3;
    t.layers = 2;
    cases.push_back({KESTREL_TEX_FORM_2D_LAYERED, t});
  }
  {
    Texture t;  // pitched 2D uint, point, through the 2D form
    t.shape = KESTREL_TEX_SHAPE_PITCH2D;
    t.kind = ChannelKind::kUnsigned;
    t.width = 5;
    t.height = 3;
    t.pitch = 32;
    cases.push_back({KESTREL_TEX_FORM_2D, t});
  }
  {
    Texture t;  // sRGB on a float texture changes nothing and is fetched
    t.srgb = true;
    t.width = 4;
    t.height = 4;
    t.linear = true;
    cases.push_back({KESTREL_TEX_FORM_2D, t});
  }
  uint32_t salt = 0;
  for (Case& c : cases) {
    Texture& t = c.t;
    if (t.shape != KESTREL_TEX_SHAPE_PITCH2D)
      t.pitch = (static_cast<uint32_t>(t.texel_bytes()) * t.width + 63) / 64 * 64;
    t.slice_pitch = t.pitch * t.height;
    t.base = texels(kTexels, t.slice_pitch * (t.shape == KESTREL_TEX_SHAPE_3D ? t.depth : t.layers), salt);
    const std::vector<Fetch> fetches = fetches_of(place(t, 0), t, salt);
    ASSERT_EQ(run(c.form, fetches), LaunchState::kDone)
        << "case " << salt << ": kind " << g_.gpu().fault().kind;
    SCOPED_TRACE("case " + std::to_string(salt));
    expect_results({t}, std::vector<unsigned>(32, 0), fetches);
    ++salt;
  }
}

// tex1Dfetch through the unit (form 1D fetch, the index in rs2): texel
// `index` of linear memory read as its format and read mode say, all four
// components 0 outside it (guide B.8.1.1), whatever the descriptor's filter,
// coordinate and address fields (tex1Dfetch ignores them).
TEST_P(TexTest, FetchByIndexReadsLinearMemory) {
  std::vector<Texture> cases;
  {
    Texture t;  // float, linear filter and normalized coordinates ignored
    t.linear = true;
    t.normalized_coords = true;
    t.width = 20;
    cases.push_back(t);
  }
  {
    Texture t;  // uchar4 read as normalized floats
    t.kind = ChannelKind::kUnsigned;
    t.bits = 8;
    t.channels = 4;
    t.read_normalized = true;
    t.width = 17;
    cases.push_back(t);
  }
  {
    Texture t;  // short2 as integers (sign-extended; z 0, w 1 inside, 0 outside)
    t.kind = ChannelKind::kSigned;
    t.bits = 16;
    t.channels = 2;
    t.width = 9;
    cases.push_back(t);
  }
  {
    Texture t;  // half4
    t.bits = 16;
    t.channels = 4;
    t.width = 11;
    cases.push_back(t);
  }
  uint32_t salt = 0;
  for (Texture& t : cases) {
    SCOPED_TRACE("case " + std::to_string(salt));
    t.shape = KESTREL_TEX_SHAPE_LINEAR;
    t.pitch = t.slice_pitch = static_cast<uint32_t>(t.texel_bytes()) * t.width;
    t.base = texels(kTexels, t.pitch, salt);
    const std::array<uint32_t, 16> w = t.words();
    EXPECT_TRUE(kestrel::texture::unit_fetches(w.data()));
    const uint32_t object = place(t, 0);
    std::vector<Fetch> fetches(32);
    const int32_t width = static_cast<int32_t>(t.width);
    const int32_t indices[] = {0, 1, width - 1, width, width + 1, -1, INT32_MIN, INT32_MAX, width / 2};
    for (uint32_t l = 0; l < 32; ++l) {
      fetches[l].object = object;
      fetches[l].layer = l < 9 ? indices[l] : static_cast<int32_t>((l * 7919u + salt) % t.width);
      fetches[l].x = -1e30f;  // no coordinate is read
    }
    ASSERT_EQ(run(KESTREL_TEX_FORM_1D_FETCH, fetches), LaunchState::kDone)
        << "fault " << g_.gpu().fault().kind;
    std::vector<uint8_t> memory(t.pitch);
    g_.gpu().read_mem(t.base, memory.data(), memory.size());
    for (uint32_t l = 0; l < 32; ++l) {
      const model::texture::Result want =
          model::texture::fetch_linear(t.sampling(), memory.data(), t.width, fetches[l].layer);
      const std::array<uint32_t, 4> got = result(l);
      for (int c = 0; c < 4; ++c)
        EXPECT_EQ(got[c], want[c]) << "lane " << l << " index " << fetches[l].layer << " component " << c;
    }
    ++salt;
  }
}

// Each lane may name its own object; lanes that do not execute keep their
// registers.
TEST_P(TexTest, PerLaneObjectsAndAPartialMask) {
  std::vector<Texture> textures(3);
  std::vector<uint32_t> objects;
  for (unsigned n = 0; n < 3; ++n) {
    Texture& t = textures[n];
    t.width = 4 + n;
    t.height = 3;
    t.channels = n == 2 ? 4 : 1;
    t.kind = n == 1 ? ChannelKind::kSigned : ChannelKind::kFloat;
    t.bits = n == 1 ? 8 : 32;
    t.linear = n != 1;
    t.pitch = 64 * (n + 1);
    t.slice_pitch = t.pitch * t.height;
    t.base = texels(kTexels + 0x1000 * n, t.slice_pitch, n + 7);
    objects.push_back(place(t, n));
  }
  std::vector<Fetch> fetches(32);
  std::vector<unsigned> which(32);
  for (uint32_t l = 0; l < 32; ++l) {
    which[l] = (l * 5) % 3;
    fetches[l] = fetches_of(objects[which[l]], textures[which[l]], l)[l];
  }
  ASSERT_EQ(run(KESTREL_TEX_FORM_2D, fetches), LaunchState::kDone);
  expect_results(textures, which, fetches);
  // Lanes 20 and up skip the fetch: f0..f3 keep the sentinel.
  ASSERT_EQ(run(KESTREL_TEX_FORM_2D, fetches, 20), LaunchState::kDone);
  for (uint32_t l = 20; l < 32; ++l)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(result(l)[c], kSentinel) << "lane " << l;
  EXPECT_EQ(result(19), expected(textures[which[19]], fetches[19]));
}

// A 2D float texture for the fault tests, and a warp fetching it.
struct FaultSetup {
  Texture t;
  std::vector<Fetch> fetches;
};

class TexFaultTest : public TexTest {
 protected:
  // A texture of the shape `form` reads.
  FaultSetup good(unsigned form = KESTREL_TEX_FORM_2D) {
    static const uint32_t kShapes[] = {KESTREL_TEX_SHAPE_1D,         KESTREL_TEX_SHAPE_2D,
                                       KESTREL_TEX_SHAPE_3D,         KESTREL_TEX_SHAPE_1D_LAYERED,
                                       KESTREL_TEX_SHAPE_2D_LAYERED, KESTREL_TEX_SHAPE_LINEAR};
    FaultSetup s;
    s.t.shape = kShapes[form];
    s.t.width = 4;
    s.t.height = form == KESTREL_TEX_FORM_1D_FETCH ? 1 : 4;
    s.t.linear = true;
    s.t.slice_pitch = s.t.pitch * s.t.height;
    s.t.base = texels(kTexels, s.t.slice_pitch, 3);
    s.fetches = fetches_of(place(s.t, 0), s.t, 1);
    return s;
  }

  // Runs with lane `lane` fetching `object` (the others a good texture)
  // and expects the fault, no register written in any lane.
  void expect(unsigned form, uint32_t object, uint32_t lane, kestrel_fault_kind kind, uint64_t addr) {
    FaultSetup s = good(form);
    s.fetches[lane].object = object;
    ASSERT_EQ(run(form, s.fetches), LaunchState::kFault);
    expect_fault(kind, addr, lane);
    for (uint32_t l = 0; l < 32; ++l)
      for (unsigned r = 0; r < 4; ++r) EXPECT_EQ(g_.fr(r, l), kSentinel) << "lane " << l << " f" << r;
  }
};

TEST_P(TexFaultTest, MisalignedObject) {
  const uint32_t object = static_cast<uint32_t>(kData) + kDescriptors + 4;
  expect(KESTREL_TEX_FORM_2D, object, 5, KESTREL_FAULT_MISALIGNED, object);
}

TEST_P(TexFaultTest, DescriptorLineNotReadable) {
  expect(KESTREL_TEX_FORM_2D, static_cast<uint32_t>(kUnmapped) + 128, 9, KESTREL_FAULT_ILLEGAL_ADDRESS,
         kUnmapped + 128);
  expect(KESTREL_TEX_FORM_2D, 0, 0, KESTREL_FAULT_ILLEGAL_ADDRESS, 0);  // the null guard
  // A read-only page holds a readable descriptor.
  FaultSetup s = good();
  const std::array<uint32_t, 16> w = s.t.words();
  g_.gpu().write_mem(kReadOnly, w.data(), sizeof w);
  for (Fetch& f : s.fetches) f.object = static_cast<uint32_t>(kReadOnly);
  ASSERT_EQ(run(KESTREL_TEX_FORM_2D, s.fetches), LaunchState::kDone);
  expect_results({s.t}, std::vector<unsigned>(32, 0), s.fetches);
}

// Descriptors the unit does not fetch: TEXTURE at the object's address.
TEST_P(TexFaultTest, UnsupportedDescriptors) {
  struct Case {
    const char* what;
    unsigned form;
    void (*change)(Texture&);
  };
  const Case cases[] = {
      {"cubemap", KESTREL_TEX_FORM_2D,
       [](Texture& t) {
         t.shape = KESTREL_TEX_SHAPE_CUBEMAP;
         t.layers = 6;
       }},
      {"layered cubemap", KESTREL_TEX_FORM_2D_LAYERED,
       [](Texture& t) {
         t.shape = KESTREL_TEX_SHAPE_CUBEMAP_LAYERED;
         t.layers = 12;
       }},
      {"linear memory of no whole texel", KESTREL_TEX_FORM_1D_FETCH,
       [](Texture& t) {
         t.shape = KESTREL_TEX_SHAPE_LINEAR;
         t.width = 0;
       }},
      {"sRGB uchar read normalized", KESTREL_TEX_FORM_2D,
       [](Texture& t) {
         t.kind = ChannelKind::kUnsigned;
         t.bits = 8;
         t.read_normalized = true;
         t.srgb = true;
       }},
      {"mipmapped", KESTREL_TEX_FORM_2D, [](Texture& t) { t.mip_levels = 3; }},
      {"surface", KESTREL_TEX_FORM_2D, [](Texture& t) { t.surface = true; }},
      {"8-bit float", KESTREL_TEX_FORM_2D, [](Texture& t) { t.bits = 8; }},
      {"normalized read of floats", KESTREL_TEX_FORM_2D, [](Texture& t) { t.read_normalized = true; }},
      {"normalized read of 32-bit integers", KESTREL_TEX_FORM_2D,
       [](Texture& t) {
         t.kind = ChannelKind::kSigned;
         t.read_normalized = true;
       }},
      {"linear filter of integers", KESTREL_TEX_FORM_2D, [](Texture& t) { t.kind = ChannelKind::kUnsigned; }},
      {"3 channels", KESTREL_TEX_FORM_2D, [](Texture& t) { t.channels = 3; }},
      {"width 0", KESTREL_TEX_FORM_2D, [](Texture& t) { t.width = 0; }},
      {"width 2^17 + 1", KESTREL_TEX_FORM_2D, [](Texture& t) { t.width = (1u << 17) + 1; }},
      {"65,536 layers", KESTREL_TEX_FORM_2D_LAYERED,
       [](Texture& t) {
         t.shape = KESTREL_TEX_SHAPE_2D_LAYERED;
         t.layers = 65536;
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Texture t = good().t;
    c.change(t);
    std::array<uint32_t, 16> w = t.words();
    EXPECT_FALSE(kestrel::texture::unit_fetches(w.data()));
    const uint32_t object = place(t, 3);
    expect(c.form, object, 7, KESTREL_FAULT_TEXTURE, object);
  }
  // The limits themselves are fetched.
  Texture t = good().t;
  t.width = 1u << 17;
  t.shape = KESTREL_TEX_SHAPE_2D_LAYERED;
  t.layers = 65535;
  std::array<uint32_t, 16> w = t.words();
  EXPECT_TRUE(kestrel::texture::unit_fetches(w.data()));
  // Linear memory has no 2^17 limit: tex1Dfetch's index is an integer.
  t = good().t;
  t.shape = KESTREL_TEX_SHAPE_LINEAR;
  t.width = 1u << 27;
  t.height = 1;
  w = t.words();
  EXPECT_TRUE(kestrel::texture::unit_fetches(w.data()));
}

// The form must be the object's shape: TEXTURE at the object's address.
TEST_P(TexFaultTest, FormOtherThanTheShape) {
  struct Case {
    uint32_t shape;
    unsigned form;
  };
  const Case cases[] = {{KESTREL_TEX_SHAPE_3D, KESTREL_TEX_FORM_2D},
                        {KESTREL_TEX_SHAPE_2D, KESTREL_TEX_FORM_3D},
                        {KESTREL_TEX_SHAPE_2D, KESTREL_TEX_FORM_1D},
                        {KESTREL_TEX_SHAPE_1D, KESTREL_TEX_FORM_2D},
                        {KESTREL_TEX_SHAPE_2D_LAYERED, KESTREL_TEX_FORM_2D},
                        {KESTREL_TEX_SHAPE_2D, KESTREL_TEX_FORM_2D_LAYERED},
                        {KESTREL_TEX_SHAPE_1D_LAYERED, KESTREL_TEX_FORM_1D},
                        {KESTREL_TEX_SHAPE_PITCH2D, KESTREL_TEX_FORM_2D_LAYERED},
                        {KESTREL_TEX_SHAPE_LINEAR, KESTREL_TEX_FORM_1D},
                        {KESTREL_TEX_SHAPE_1D, KESTREL_TEX_FORM_1D_FETCH},
                        {KESTREL_TEX_SHAPE_PITCH2D, KESTREL_TEX_FORM_1D_FETCH}};
  for (const Case& c : cases) {
    SCOPED_TRACE("shape " + std::to_string(c.shape) + " form " + std::to_string(c.form));
    Texture t = good().t;
    t.shape = c.shape;
    const uint32_t object = place(t, 3);
    expect(c.form, object, 31, KESTREL_FAULT_TEXTURE, object);
  }
}

// The first lane in lane order with a fault reports it, whatever the kinds.
TEST_P(TexFaultTest, TheLowestFaultingLaneReports) {
  FaultSetup s = good();
  Texture cube = s.t;
  cube.shape = KESTREL_TEX_SHAPE_CUBEMAP;
  s.fetches[12].object = place(cube, 3);
  s.fetches[4].object = static_cast<uint32_t>(kUnmapped);
  s.fetches[20].object += 8;
  ASSERT_EQ(run(KESTREL_TEX_FORM_2D, s.fetches), LaunchState::kFault);
  expect_fault(KESTREL_FAULT_ILLEGAL_ADDRESS, kUnmapped, 4);
}

// A texel line that cannot be read (freed memory): the read's fault at the
// line, the first tap in the unit's order (x fastest, then y), taps of
// weight 0 included.  The image's row 0 is the read-only page's last line,
// row 1 the unmapped page after it.
TEST_P(TexFaultTest, TexelLineNotReadable) {
  FaultSetup s = good();
  Texture t = s.t;
  t.width = 4;
  t.height = 2;
  t.pitch = 64;
  t.base = static_cast<uint32_t>(kReadOnly) + 0x1000 - 64;
  const uint32_t row1 = static_cast<uint32_t>(kReadOnly) + 0x1000;
  const uint32_t object = place(t, 3);
  // Between rows 0 and 1: taps 2 and 3 lie in row 1.
  s.fetches[6] = Fetch{object, 0, 1.5f, 1.0f, 0.0f};
  ASSERT_EQ(run(KESTREL_TEX_FORM_2D, s.fetches), LaunchState::kFault);
  expect_fault(KESTREL_FAULT_ILLEGAL_ADDRESS, row1, 6);
  // At row 0's centre row 1's taps weigh 0; the unit reads them anyway.
  s.fetches[6].y = 0.5f;
  ASSERT_EQ(run(KESTREL_TEX_FORM_2D, s.fetches), LaunchState::kFault);
  expect_fault(KESTREL_FAULT_ILLEGAL_ADDRESS, row1, 6);
  // Point sampling of row 0 reads row 0 alone: fetched (from the read-only page).
  t.linear = false;
  place(t, 3);
  ASSERT_EQ(run(KESTREL_TEX_FORM_2D, s.fetches), LaunchState::kDone);
  // Border addressing along y: row 1's taps are border taps, which read nothing.
  t.linear = true;
  t.address[1] = AddressMode::kBorder;
  t.height = 1;
  place(t, 3);
  s.fetches[6].y = 0.5f;
  ASSERT_EQ(run(KESTREL_TEX_FORM_2D, s.fetches), LaunchState::kDone);
  // An image wholly in unmapped memory: tap 0's line.
  t.base = static_cast<uint32_t>(kUnmapped) + 256;
  t.address[1] = AddressMode::kClamp;
  t.height = 2;
  place(t, 3);
  s.fetches[6] = Fetch{object, 0, 2.5f, 0.5f, 0.0f};  // tap 0 is texel (2, 0)
  ASSERT_EQ(run(KESTREL_TEX_FORM_2D, s.fetches), LaunchState::kFault);
  expect_fault(KESTREL_FAULT_ILLEGAL_ADDRESS, kUnmapped + 256, 6);
}

// funct3 5-7, funct2 1-3, f rd above f28 and f rs3 above f29 are illegal.
TEST_P(TexTest, IllegalEncodings) {
  struct Case {
    unsigned form, op, rd, rs3;
  };
  const Case cases[] = {{6, 0, 0, 28}, {7, 0, 0, 28}, {1, 1, 0, 28}, {1, 2, 0, 28}, {1, 3, 0, 28},
                        {1, 0, 29, 8}, {1, 0, 31, 8}, {1, 0, 0, 30}, {1, 0, 0, 31}};
  for (const Case& c : cases) {
    SCOPED_TRACE("form " + std::to_string(c.form) + " op " + std::to_string(c.op) + " rd " +
                 std::to_string(c.rd) + " rs3 " + std::to_string(c.rs3));
    Assembler a(GetParam());
    a.kx_tex(c.form, f(c.rd), a0, zero, f(c.rs3), c.op);
    a.kx_exit();
    g_.load(a);
    ASSERT_EQ(g_.run(), LaunchState::kFault);
    const Fault& fault = g_.gpu().fault();
    EXPECT_EQ(fault.kind, KESTREL_FAULT_ILLEGAL_INSTRUCTION);
    EXPECT_EQ(fault.pc, kCode);
    EXPECT_EQ(fault.info, a.finish()[0]);
  }
  // The edges are legal: f rd = f28 (f28..f31), f rs3 = f29 (f29..f31).
  Texture t;
  t.width = 2;
  t.slice_pitch = t.pitch;
  t.base = texels(kTexels, 64, 1);
  const uint32_t object = place(t, 0);
  Assembler a(GetParam());
  a.addi(t0, a0, kDescriptors);
  a.kx_tex(KESTREL_TEX_FORM_2D, f(28), t0, zero, f(29));
  a.kx_exit();
  g_.load(a);
  ASSERT_EQ(g_.run(), LaunchState::kDone);
  const model::texture::Result want = expected(t, Fetch{object, 0, 0.0f, 0.0f, 0.0f});
  for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(g_.fr(28 + c), want[c]);
}

INSTANTIATE_TEST_SUITE_P(Xlen, TexTest, ::testing::Values(64u, 32u),
                         [](const ::testing::TestParamInfo<unsigned>& i) {
                           return "rv" + std::to_string(i.param);
                         });
INSTANTIATE_TEST_SUITE_P(Xlen, TexFaultTest, ::testing::Values(64u, 32u),
                         [](const ::testing::TestParamInfo<unsigned>& i) {
                           return "rv" + std::to_string(i.param);
                         });

}  // namespace
}  // namespace kestrel::model::test
