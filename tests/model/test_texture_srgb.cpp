// sRGB texture reads (CUDA C Programming Guide v8.0, 3.2.11.1:
// cudaTextureDesc::sRGB) in the functional model's texture arithmetic
// (kestrel/texture_math.hpp), checked against the curve of IEC 61966-2-1
// computed here with libm, against hand-worked cases of the H100's rule and
// against the H100's own output, texture_srgb.expected
// (tests/cuda/reference/nvidia_texture), replayed in C++.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kestrel/model/texture_sampling.hpp"

namespace kestrel::model::texture {
namespace {

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The "<label> <k>: r r ..." lines of texture_srgb.expected, joined per label.
std::map<std::string, std::vector<std::string>> golden() {
  const std::string path = std::string(KESTREL_TEXTURE_GOLDEN_DIR) + "/texture_srgb.expected";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::map<std::string, std::vector<std::string>> lines;
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(": ");
    const size_t space = line.rfind(' ', colon);
    if (colon == std::string::npos || space == std::string::npos || line.compare(0, 7, "create ") == 0)
      continue;
    std::istringstream tokens(line.substr(colon + 2));
    std::vector<std::string>& out = lines[line.substr(0, space)];
    for (std::string t; tokens >> t;) out.push_back(t);
  }
  return lines;
}

std::string hex(std::uint32_t v) {
  char buf[12];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

// A 1D or 2D texture of 8-bit unsigned channels read as normalized floats
// with sRGB on, clamp addressing.
struct SrgbTexture {
  TextureDescriptor desc;
  std::vector<std::uint8_t> data;

  SrgbTexture(std::vector<std::uint8_t> texels, int channels, int width, int height = 0)
      : data(std::move(texels)) {
    desc.dimension = height ? Dimension::k2D : Dimension::k1D;
    desc.width = width;
    desc.height = height ? height : 1;
    desc.kind = ChannelKind::kUnsigned;
    desc.bits_per_channel = 8;
    desc.channels = channels;
    desc.read_mode = ReadMode::kNormalizedFloat;
    desc.srgb = true;
  }
  Result fetch(float x, float y = 0.0f) const {
    const TexelReader read = [this](int tx, int ty, int, int, std::uint8_t* out) {
      // A whole texel: the 16-bit cases read two bytes a channel.
      const size_t bytes = static_cast<size_t>(desc.texel_bytes());
      const size_t texel = static_cast<size_t>(ty) * desc.width + static_cast<size_t>(tx);
      std::memcpy(out, &data[texel * bytes], bytes);
    };
    return sample(desc, read, Coordinates{x, y, 0.0f, 0});
  }
};

// The sRGB-to-linear curve of IEC 61966-2-1.
double srgb_curve(int byte) {
  const double v = byte / 255.0;
  return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}

// The step of byte m's value in the H100's table: 2^(k - 16), k from 2 to 9.
double step_of(int byte) {
  int k = 2;
  for (int threshold : {32, 48, 64, 96, 136, 184, 248}) k += byte >= threshold;
  return std::ldexp(1.0, k - 16);
}

// Point sampling returns the curve rounded to the byte's step, which is
// what the H100 prints for every byte (texture_srgb's "u8x1 table").
TEST(TextureSrgb, PointSamplingIsTheCurveRoundedToTheBytesStep) {
  std::vector<std::uint8_t> ramp(256);
  for (int i = 0; i < 256; ++i) ramp[i] = static_cast<std::uint8_t>(i);
  const SrgbTexture t(ramp, 1, 256);
  const std::vector<std::string> h100 = golden()["u8x1 table"];
  ASSERT_EQ(h100.size(), 256u);
  for (int m = 0; m < 256; ++m) {
    const float got = from_bits(t.fetch(m + 0.5f)[0]);
    const double step = step_of(m);
    EXPECT_EQ(static_cast<double>(got), std::floor(srgb_curve(m) / step + 0.5) * step) << "byte " << m;
    EXPECT_EQ(hex(bits(got)), h100[m]) << "byte " << m;
  }
  EXPECT_EQ(t.fetch(255.5f)[0], bits(1.0f));
}

// Alpha is not converted: the last channel of 2- and 4-channel texels.
// Other formats and element-type reads ignore sRGB (texture_srgb).
TEST(TextureSrgb, AlphaAndOtherFormatsAreNotConverted) {
  const SrgbTexture one({128}, 1, 1), two({128, 128}, 2, 1), four({128, 128, 128, 128}, 4, 1);
  const std::uint32_t converted = bits(14144.0f / 65536.0f), plain = bits(128.0f / 255.0f);
  EXPECT_EQ(one.fetch(0.5f)[0], converted);
  EXPECT_EQ(two.fetch(0.5f), (Result{converted, plain, 0, bits(1.0f)}));
  EXPECT_EQ(four.fetch(0.5f), (Result{converted, converted, converted, plain}));
  SrgbTexture element({128}, 1, 1);
  element.desc.read_mode = ReadMode::kElementType;
  EXPECT_EQ(element.fetch(0.5f)[0], 128u);
  SrgbTexture wide({0x00, 0x80}, 1, 1);  // 16-bit 32768
  wide.desc.bits_per_channel = 16;
  EXPECT_EQ(wide.fetch(0.5f)[0], bits(32768.0f / 65535.0f));
  SrgbTexture signed8({64}, 1, 1);
  signed8.desc.kind = ChannelKind::kSigned;
  EXPECT_EQ(signed8.fetch(0.5f)[0], bits(64.0f / 127.0f));
}

// Filtering: each tap's value is truncated to the step of the largest byte
// among the taps; the weighted sum is rounded to 11 significant bits, ties
// away from zero.  Worked cases from the H100's pair sweep.
TEST(TextureSrgb, FilteringTruncatesToTheLargestTapsStep) {
  // Byte 1 is 20 x 2^-16 (step 4), byte 31 is 896 (step 4), byte 32 is 944
  // (step 8), byte 255 is 65536 (step 512).
  SrgbTexture t({1, 31, 1, 32, 1, 255, 10, 11}, 1, 8);
  t.desc.filter = FilterMode::kLinear;
  const float w1 = 1.0f / 256.0f;
  // (255 x 20 + 896) / 256 = 23.421875 units: exact.
  EXPECT_EQ(t.fetch(0.5f + w1)[0], bits(23.421875f / 65536.0f));
  // Byte 32's step truncates byte 1 to 16: (255 x 16 + 944) / 256 = 19.625.
  EXPECT_EQ(t.fetch(2.5f + w1)[0], bits(19.625f / 65536.0f));
  // Byte 255's step drops byte 1 entirely: 1/256.
  EXPECT_EQ(t.fetch(4.5f + w1)[0], bits(1.0f / 256.0f));
  // Bytes 10 and 11 (200 and 220 units) at weight 4/256: 200.3125 units, a
  // tie between 200.25 and 200.375 at 11 significant bits, rounds away.
  EXPECT_EQ(t.fetch(6.5f + 4.0f / 256.0f)[0], bits(200.375f / 65536.0f));
  // Weight-0 taps set no step: byte 1 at its centre beside byte 255.
  EXPECT_EQ(t.fetch(4.5f)[0], bits(20.0f / 65536.0f));
}

// The border colour's colour channels are encoded to the nearest byte and
// read back through the table (0.5, 0.25, 0.75 read as bytes 188, 137, 225
// on the H100); alpha is the colour itself.
TEST(TextureSrgb, BorderColourIsEncodedToAByte) {
  SrgbTexture t({0, 0, 0, 0}, 4, 1, 1);
  t.desc.address = {AddressMode::kBorder, AddressMode::kBorder, AddressMode::kBorder};
  t.desc.border_color = {0.5f, 0.25f, 0.75f, 0.2f};
  EXPECT_EQ(t.fetch(-1.0f, -1.0f), (Result{0x3f010000u, 0x3e800000u, 0x3f410000u, bits(0.2f)}));
  t.desc.border_color = {-1.0f, 2.0f, std::nanf(""), 1.0f};
  EXPECT_EQ(t.fetch(-1.0f, -1.0f), (Result{0u, bits(1.0f), 0u, bits(1.0f)}));
}

// The H100's output replayed: the tables of 1, 2 and 4 channels, every
// weight between 16 pairs, and 1D filtering between all neighbours of a
// ramp (texture_srgb.cu builds the same textures).
TEST(TextureSrgb, GoldenTablesAndSweeps) {
  auto lines = golden();
  std::vector<std::uint8_t> ramp(256), two(512), four(1024);
  for (int i = 0; i < 256; ++i) {
    ramp[i] = static_cast<std::uint8_t>(i);
    two[2 * i] = static_cast<std::uint8_t>(i);
    two[2 * i + 1] = static_cast<std::uint8_t>(255 - i);
    for (int c = 0; c < 4; ++c) four[4 * i + c] = static_cast<std::uint8_t>(c == 3 ? i : i + 85 * c);
  }
  const SrgbTexture t1(ramp, 1, 256), t2(two, 2, 256), t4(four, 4, 256);
  int matching = 0, total = 0;
  auto check = [&](const std::string& label, const std::vector<std::string>& got) {
    const std::vector<std::string>& want = lines[label];
    EXPECT_EQ(got.size(), want.size()) << label;
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
      ++total;
      if (got[i] == want[i])
        ++matching;
      else
        ADD_FAILURE() << label << " [" << i << "]: " << got[i] << ", the H100 " << want[i];
    }
  };
  std::vector<std::string> r1, r2, r4;
  for (int i = 0; i < 256; ++i) {
    const Result a = t1.fetch(i + 0.5f), b = t2.fetch(i + 0.5f), c = t4.fetch(i + 0.5f);
    r1.push_back(hex(a[0]));
    r2.push_back(hex(b[0]) + "," + hex(b[1]));
    r4.push_back(hex(c[0]) + "," + hex(c[1]) + "," + hex(c[2]) + "," + hex(c[3]));
  }
  check("u8x1 table", r1);
  check("u8x2 table", r2);
  check("u8x4 table", r4);
  const int pairs[][2] = {{0, 255},  {255, 0},   {0, 1},     {1, 0},     {0, 10},    {10, 11},
                          {50, 51},  {100, 101}, {128, 129}, {200, 201}, {254, 255}, {17, 200},
                          {64, 192}, {3, 4},     {30, 31},   {240, 5}};
  std::vector<std::uint8_t> texels;
  for (const auto& p : pairs) {
    texels.push_back(static_cast<std::uint8_t>(p[0]));
    texels.push_back(static_cast<std::uint8_t>(p[1]));
  }
  SrgbTexture sweeps(texels, 1, static_cast<int>(texels.size())), linear_ramp(ramp, 1, 256);
  sweeps.desc.filter = linear_ramp.desc.filter = FilterMode::kLinear;
  for (int k = 0; k < 16; ++k) {
    std::vector<std::string> got;
    for (int w = 0; w <= 256; ++w) got.push_back(hex(sweeps.fetch(2 * k + 0.5f + w / 256.0f)[0]));
    check("u8x1 sweep " + std::to_string(pairs[k][0]) + "-" + std::to_string(pairs[k][1]), got);
  }
  for (int w : {1, 32, 64, 85, 128, 171, 192, 255}) {
    std::vector<std::string> got;
    for (int i = 0; i < 255; ++i) got.push_back(hex(linear_ramp.fetch(i + 0.5f + w / 256.0f)[0]));
    check("u8x1 ramp linear w" + std::to_string(w), got);
  }
  std::printf("texture_srgb: %d of %d replayed results match\n", matching, total);
  EXPECT_EQ(total, 256 * 3 + 16 * 257 + 8 * 255);
}

}  // namespace
}  // namespace kestrel::model::texture
