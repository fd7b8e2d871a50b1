// The model's texture fetches (kestrel/model/texture_sampling.hpp): the
// descriptor checked here, the arithmetic in the shared core
// kestrel/texture_math.hpp that the device SDK compiles too.
#include "kestrel/model/texture_sampling.hpp"

#include <cstring>
#include <stdexcept>

#include "kestrel/texture_math.hpp"

namespace kestrel::model::texture {
namespace {

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

// The shared core's descriptor (kestrel/texture_math.hpp) of a validated one.
kestrel::texture::Descriptor core_descriptor(const TextureDescriptor& t) {
  kestrel::texture::Descriptor d{};
  d.dimension = t.dimension;
  d.layered = t.layered;
  d.width = t.width;
  d.height = t.height;
  d.depth = t.depth;
  d.layers = t.layers;
  d.kind = t.kind;
  d.bits_per_channel = t.bits_per_channel;
  d.channels = t.channels;
  d.read_mode = t.read_mode;
  d.normalized_coordinates = t.normalized_coordinates;
  d.filter = t.filter;
  d.srgb = t.srgb;
  for (int a = 0; a < 3; ++a) d.address[a] = t.address[a];
  for (int c = 0; c < 4; ++c) {
    std::uint32_t bits;
    std::memcpy(&bits, &t.border_color[c], sizeof bits);
    d.border_color[c] = bits;
  }
  return d;
}

Result to_result(const kestrel::texture::Texels& texels) {
  return {texels.v[0], texels.v[1], texels.v[2], texels.v[3]};
}

}  // namespace

Result sample(const TextureDescriptor& texture, const TexelReader& read, const Coordinates& c) {
  validate(texture);
  return to_result(kestrel::texture::sample(core_descriptor(texture), read, c.x, c.y, c.z, c.layer));
}

Result gather(const TextureDescriptor& texture, const TexelReader& read, float x, float y, int component) {
  validate(texture);
  if (texture.dimension != Dimension::k2D || texture.layered)
    throw std::invalid_argument("texture: tex2Dgather needs a 2D texture");
  if (component < 0 || component >= texture.channels)
    throw std::invalid_argument("texture: gather component beyond the texel's channels");
  return to_result(kestrel::texture::gather(core_descriptor(texture), read, x, y, component));
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
  auto read = [&](int i, int, int, int, std::uint8_t* out) {
    std::memcpy(out, memory + static_cast<std::size_t>(i) * bytes, bytes);
  };
  return to_result(kestrel::texture::fetch_linear(core_descriptor(one_dimensional), read,
                                                  static_cast<std::uint32_t>(element_count), index));
}

}  // namespace kestrel::model::texture
