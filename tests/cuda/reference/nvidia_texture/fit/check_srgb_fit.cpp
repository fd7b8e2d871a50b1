// Compares srgb_fit.cu's output (a folder of raw float bits from a GPU) with
// Kestrel's texture arithmetic, kestrel/texture_math.hpp: the pair sweep's
// red and alpha channels and every channel of the random bilinear fetches.
// Prints the counts that differ and a few examples; exit status 1 if any.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kestrel/texture_math.hpp"

namespace tx = kestrel::texture;

static std::vector<uint8_t> load(const std::string& path) {
  std::vector<uint8_t> bytes;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return bytes;
  }
  uint8_t buffer[65536];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;)
    bytes.insert(bytes.end(), buffer, buffer + n);
  std::fclose(f);
  return bytes;
}

static uint32_t word(const std::vector<uint8_t>& bytes, size_t i) {
  uint32_t w;
  std::memcpy(&w, &bytes[4 * i], 4);
  return w;
}

// A 2D uchar4 texture read as normalized floats with sRGB, linear filtering, clamp.
struct Texture {
  tx::Descriptor desc{};
  const uint8_t* texels;
  Texture(const uint8_t* data, int width, int height) : texels(data) {
    desc.dimension = tx::Dimension::k2D;
    desc.width = width;
    desc.height = height;
    desc.depth = desc.layers = 1;
    desc.kind = tx::ChannelKind::kUnsigned;
    desc.bits_per_channel = 8;
    desc.channels = 4;
    desc.read_mode = tx::ReadMode::kNormalizedFloat;
    for (auto& a : desc.address) a = tx::AddressMode::kClamp;
    desc.filter = tx::FilterMode::kLinear;
    desc.srgb = true;
  }
  tx::Texels fetch(float x, float y) const {
    auto read = [this](int tx_, int ty, int, int, uint8_t* out) {
      std::memcpy(out, texels + 4 * (static_cast<size_t>(ty) * desc.width + tx_), 4);
    };
    return tx::sample(desc, read, x, y, 0.0f, 0);
  }
};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <folder of srgb_fit.cu's output>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  long bad = 0, total = 0;
  // Pairs: texel (2b, a) = a, (2b + 1, a) = b in all four channels.
  const std::vector<uint8_t> pairs = load(dir + "/fit_pairs.bin");
  std::vector<uint8_t> image(512 * 256 * 4);
  for (int a = 0; a < 256; ++a)
    for (int b = 0; b < 256; ++b) {
      std::memset(&image[4 * (a * 512 + 2 * b)], a, 4);
      std::memset(&image[4 * (a * 512 + 2 * b + 1)], b, 4);
    }
  const Texture pair_texture(image.data(), 512, 256);
  const int weights[] = {1, 16, 64, 96, 128, 160, 192, 240, 255};
  if (pairs.size() == 9u * 65536 * 8) {
    size_t i = 0;
    for (int w : weights)
      for (int a = 0; a < 256; ++a)
        for (int b = 0; b < 256; ++b, ++i) {
          const tx::Texels r = pair_texture.fetch(2 * b + 0.5f + w / 256.0f, a + 0.5f);
          for (int c = 0; c < 2; ++c) {
            ++total;
            if (r.v[c == 0 ? 0 : 3] != word(pairs, 2 * i + c) && ++bad <= 5)
              std::printf("pair %d %d weight %d channel %s: %08x, the GPU %08x\n", a, b, w, c ? "a" : "r",
                          r.v[c == 0 ? 0 : 3], word(pairs, 2 * i + c));
          }
        }
  }
  const std::vector<uint8_t> texture = load(dir + "/fit2d_tex.bin"), probes = load(dir + "/fit2d_probe.bin"),
                             out = load(dir + "/fit2d_out.bin");
  if (texture.size() == 256u * 256 * 4 && out.size() == probes.size()) {
    const Texture random(texture.data(), 256, 256);
    for (size_t i = 0; i < probes.size() / 16; ++i) {
      const int x = static_cast<int>(word(probes, 4 * i)), y = static_cast<int>(word(probes, 4 * i + 1));
      const int ax = static_cast<int>(word(probes, 4 * i + 2)),
                ay = static_cast<int>(word(probes, 4 * i + 3));
      const tx::Texels r = random.fetch(x + 0.5f + ax / 256.0f, y + 0.5f + ay / 256.0f);
      for (int c = 0; c < 4; ++c) {
        ++total;
        if (r.v[c] != word(out, 4 * i + c) && ++bad <= 10)
          std::printf("fetch %d %d weights %d %d channel %d: %08x, the GPU %08x\n", x, y, ax, ay, c, r.v[c],
                      word(out, 4 * i + c));
      }
    }
  }
  std::printf("%ld of %ld results differ\n", bad, total);
  return bad || total == 0 ? 1 : 0;
}
