// The arithmetic of CUDA texture fetches (CUDA C Programming Guide v8.0,
// 3.2.11.1 and appendix F), bit-exact against an NVIDIA H100: addressing,
// point and linear filtering, format conversion, tex2Dgather and
// tex1Dfetch.  One definition shared by the functional model and the RTL
// bench's reference (issue 16); the precision rules and how they were found
// are in tests/cuda/reference/nvidia_texture/README.md and docs/texture.md.
//
// Every function is pure: the texels come from a TexelReader the caller
// supplies, so the same code serves a CUDA array, pitched memory or a bench.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "kestrel/texture_math.hpp"

namespace kestrel::model::texture {

using kestrel::texture::AddressMode;
using kestrel::texture::ChannelKind;
using kestrel::texture::Dimension;
using kestrel::texture::FilterMode;
using kestrel::texture::ReadMode;

// What cudaCreateTextureObject fixes: the resource's shape and channel
// format with the cudaTextureDesc fields that change the arithmetic.
struct TextureDescriptor {
  Dimension dimension = Dimension::k1D;
  bool layered = false;  // 1D or 2D layered (guide 3.2.11.1.4)
  int width = 1;
  int height = 1;  // 1 for 1D
  int depth = 1;   // 1 for 1D and 2D
  int layers = 1;  // layered textures; a cubemap has 6 faces of width x width
  ChannelKind kind = ChannelKind::kFloat;
  int bits_per_channel = 32;  // 8, 16 or 32 (16 or 32 for floats)
  int channels = 1;           // 1, 2 or 4
  ReadMode read_mode = ReadMode::kElementType;
  bool normalized_coordinates = false;
  std::array<AddressMode, 3> address{AddressMode::kClamp, AddressMode::kClamp, AddressMode::kClamp};
  std::array<float, 4> border_color{0.0f, 0.0f, 0.0f, 0.0f};
  FilterMode filter = FilterMode::kPoint;
  // cudaTextureDesc::sRGB: 8-bit unsigned texels read as normalized floats
  // convert from sRGB (but alpha); other formats ignore it, as on an H100.
  bool srgb = false;

  int texel_bytes() const { return bits_per_channel / 8 * channels; }
  // Normalized-float reads and every read of a float format return floats;
  // element-type reads of integer formats return integers.
  bool returns_float() const {
    return kind == ChannelKind::kFloat || read_mode == ReadMode::kNormalizedFloat;
  }
};

// Copies the raw bytes of texel (x, y, z) of `layer` (the cubemap face for
// cubemaps) into `out` (texel_bytes() bytes, little-endian channels).  Only
// called with coordinates inside the texture.
using TexelReader = std::function<void(int x, int y, int z, int layer, std::uint8_t* out)>;

// The coordinates of one fetch: x, y, z as the kernel passes them (for a
// cubemap the direction), and the layer index of layered textures.
struct Coordinates {
  float x = 0.0f;
  float y = 0.0f;
  float z = 0.0f;
  int layer = 0;
};

// Four result components as bits: the float's bits when the descriptor
// returns floats, otherwise the integer (sign-extended for signed formats).
// Components beyond the format's channels are 0 (y, z) and 1 (w: 1.0f or
// integer 1), the model's convention: the golden files do not print them.
using Result = std::array<std::uint32_t, 4>;

// tex1D/tex2D/tex3D/tex1DLayered/tex2DLayered/texCubemap: the fetch at `c`.
// Throws std::invalid_argument when the descriptor is not a texture CUDA
// accepts (bad size, format or filter on an integer element-type read).
Result sample(const TextureDescriptor& texture, const TexelReader& read, const Coordinates& c);

// tex2Dgather: component `component` (0..3) of the four texels a linear
// fetch at (x, y) would blend, in the order (i0, j1), (i1, j1), (i1, j0),
// (i0, j0).  The descriptor must be 2D.
Result gather(const TextureDescriptor& texture, const TexelReader& read, float x, float y, int component);

// tex1Dfetch of linear memory of `element_count` texels starting at
// `memory`: texel `index`, or all zeros when the index is out of range
// (guide B.8.1.1).  No filtering or conversion beyond the read mode.
Result fetch_linear(const TextureDescriptor& texture, const std::uint8_t* memory, std::size_t element_count,
                    int index);

}  // namespace kestrel::model::texture
