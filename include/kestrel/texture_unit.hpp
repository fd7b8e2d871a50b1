// What the texture unit fetches (kx.tex, docs/isa.md section 2.5): the
// decision on a 64-byte texture descriptor (docs/isa.md section 12) that
// rtl/tex/kestrel_tex_desc_decode.sv makes, rule for rule, and the
// descriptor's image as kestrel/texture_math.hpp samples it.  One definition
// for the C++ side: the CUDA runtime sets the descriptor's unit_fetch flag
// with unit_fetches(), the functional model executes kx.tex with
// unit_status() and image_of(), and the device SDK's software fetches read
// their descriptor with image_of() too.
//
// Freestanding, as texture_math.hpp: no exceptions, no heap, no standard
// library.  A descriptor is its 16 little-endian 32-bit words (bit n of
// tex_desc_t is bit n % 32 of word n / 32), the fields at the generated
// KESTREL_TEX_DESC_* positions of kestrel/abi_contract.h.
#pragma once

#include <stdint.h>

#include "kestrel/abi_contract.h"
#include "kestrel/texture_math.hpp"

namespace kestrel::texture {

namespace unit_detail {

// Field F of the descriptor's words.
#define KESTREL_TEX_UNIT_FIELD(words, F) \
  (((words)[KESTREL_TEX_DESC_##F##_WORD] >> KESTREL_TEX_DESC_##F##_SHIFT) & KESTREL_TEX_DESC_##F##_MASK)

// The datapath's extents (kestrel_tex_pkg::TexExtentBits, TexLayerBits).
constexpr uint32_t kMaxExtent = 1u << 17;
constexpr uint32_t kMaxLayers = 0xFFFFu;

// The kx.tex form that reads a shape (a pitched 2D resource reads as 2D,
// linear memory with tex1Dfetch's form), or -1 for a shape the unit does
// not fetch (cubemaps).
KESTREL_TEXTURE_MATH_FN int form_of_shape(uint32_t shape) {
  switch (shape) {
    case KESTREL_TEX_SHAPE_1D:
      return KESTREL_TEX_FORM_1D;
    case KESTREL_TEX_SHAPE_2D:
    case KESTREL_TEX_SHAPE_PITCH2D:
      return KESTREL_TEX_FORM_2D;
    case KESTREL_TEX_SHAPE_3D:
      return KESTREL_TEX_FORM_3D;
    case KESTREL_TEX_SHAPE_1D_LAYERED:
      return KESTREL_TEX_FORM_1D_LAYERED;
    case KESTREL_TEX_SHAPE_2D_LAYERED:
      return KESTREL_TEX_FORM_2D_LAYERED;
    case KESTREL_TEX_SHAPE_LINEAR:
      return KESTREL_TEX_FORM_1D_FETCH;
    default:
      return -1;
  }
}

KESTREL_TEXTURE_MATH_FN bool extent_ok(uint32_t extent, uint32_t limit) {
  return extent != 0 && extent <= limit;
}

}  // namespace unit_detail

// Whether the texture unit fetches the object the descriptor `words`
// describes with the form of its shape (kestrel_tex_desc_decode's
// TexStatusUnsupported otherwise): shape 1D, 2D, 3D, 1D or 2D layered,
// pitched 2D or linear memory; a channel kind, size and count of section
// 12, but 8-bit floats; normalized reads of 8- and 16-bit integers only;
// linear filtering of float results only (linear memory: any filter, which
// tex1Dfetch ignores); not an sRGB read of 8-bit unsigned channels as
// normalized floats (the unit has no sRGB conversion); 1 to 2^17 texels
// along each axis (linear memory: any nonzero width, as tex1Dfetch's index
// is an integer) and 1 to 65,535 layers; not a surface, not mipmapped.
// The descriptor's unit_fetch flag is not read.
KESTREL_TEXTURE_MATH_FN bool unit_fetches(const uint32_t* words) {
  using namespace unit_detail;
  const uint32_t kind = KESTREL_TEX_UNIT_FIELD(words, CHANNEL_KIND);
  const uint32_t size = KESTREL_TEX_UNIT_FIELD(words, CHANNEL_SIZE);
  const uint32_t channels = KESTREL_TEX_UNIT_FIELD(words, CHANNELS);
  const bool read_normalized = KESTREL_TEX_UNIT_FIELD(words, READ_NORMALIZED) != 0;
  const bool linear_memory = KESTREL_TEX_UNIT_FIELD(words, SHAPE) == KESTREL_TEX_SHAPE_LINEAR;
  const bool linear = KESTREL_TEX_UNIT_FIELD(words, FILTER) == KESTREL_TEX_FILTER_LINEAR && !linear_memory;
  const bool is_float = kind == KESTREL_TEX_CHANNEL_FLOAT;
  if (form_of_shape(KESTREL_TEX_UNIT_FIELD(words, SHAPE)) < 0) return false;
  if (kind > KESTREL_TEX_CHANNEL_FLOAT || size > 2 || (channels != 1 && channels != 2 && channels != 4))
    return false;
  if (is_float && size == 0) return false;
  if (read_normalized && (is_float || size == 2)) return false;
  if (linear && !is_float && !read_normalized) return false;
  if (KESTREL_TEX_UNIT_FIELD(words, SRGB) != 0 && kind == KESTREL_TEX_CHANNEL_UNSIGNED && size == 0 &&
      read_normalized)
    return false;
  if (!extent_ok(KESTREL_TEX_UNIT_FIELD(words, WIDTH), linear_memory ? 0xFFFFFFFFu : kMaxExtent) ||
      !extent_ok(KESTREL_TEX_UNIT_FIELD(words, HEIGHT), kMaxExtent) ||
      !extent_ok(KESTREL_TEX_UNIT_FIELD(words, DEPTH), kMaxExtent) ||
      !extent_ok(KESTREL_TEX_UNIT_FIELD(words, LAYERS), kMaxLayers))
    return false;
  return KESTREL_TEX_UNIT_FIELD(words, SURFACE) == 0 && KESTREL_TEX_UNIT_FIELD(words, MIP_LEVELS) == 0;
}

// What kx.tex with `form` (KESTREL_TEX_FORM_*) does with the descriptor
// `words`: fetch, or fault TEXTURE because the unit does not fetch the
// object (unit_fetches) or because the form is not its shape's (a 1D or 2D
// form reads 1D or 2D arrays, the 2D form pitched 2D memory too, the 1D
// fetch form linear memory only).
enum class UnitStatus { kFetch, kUnsupported, kFormMismatch };

KESTREL_TEXTURE_MATH_FN UnitStatus unit_status(const uint32_t* words, uint32_t form) {
  if (!unit_fetches(words)) return UnitStatus::kUnsupported;
  const int shape_form = unit_detail::form_of_shape(KESTREL_TEX_UNIT_FIELD(words, SHAPE));
  return static_cast<uint32_t>(shape_form) == form ? UnitStatus::kFetch : UnitStatus::kFormMismatch;
}

// The image a descriptor describes, as the arithmetic samples it: its
// sampling fields, and where the texels lie.  Texel (x, y) of slice s (the
// 3D slice, the layer or the cube face) is at base + s * slice_pitch +
// y * pitch + x * texel_bytes.  `words[n]` gives the descriptor's word n: an
// array of them (the model, for the descriptors the unit fetches), or the
// device SDK's loads from the object (its software path, every shape).
struct Image {
  Descriptor texture;
  uint32_t base;
  uint32_t pitch;
  uint32_t slice_pitch;
  uint32_t texel_bytes;
};

template <class Words>
KESTREL_TEXTURE_MATH_FN Image image_of(const Words& words) {
  Image image;
  Descriptor& t = image.texture;
  const uint32_t shape = KESTREL_TEX_UNIT_FIELD(words, SHAPE);
  t.layered = shape == KESTREL_TEX_SHAPE_1D_LAYERED || shape == KESTREL_TEX_SHAPE_2D_LAYERED ||
              shape == KESTREL_TEX_SHAPE_CUBEMAP_LAYERED;
  t.dimension = shape == KESTREL_TEX_SHAPE_3D ? Dimension::k3D
                : shape == KESTREL_TEX_SHAPE_CUBEMAP || shape == KESTREL_TEX_SHAPE_CUBEMAP_LAYERED
                    ? Dimension::kCubemap
                : shape == KESTREL_TEX_SHAPE_1D || shape == KESTREL_TEX_SHAPE_1D_LAYERED ||
                        shape == KESTREL_TEX_SHAPE_LINEAR
                    ? Dimension::k1D
                    : Dimension::k2D;
  t.width = static_cast<int>(KESTREL_TEX_UNIT_FIELD(words, WIDTH));
  t.height = static_cast<int>(KESTREL_TEX_UNIT_FIELD(words, HEIGHT));
  t.depth = static_cast<int>(KESTREL_TEX_UNIT_FIELD(words, DEPTH));
  t.layers = static_cast<int>(KESTREL_TEX_UNIT_FIELD(words, LAYERS));
  // tex_channel_kind, tex_address and tex_filter have the core's orders
  // (CUDA's values).
  t.kind = static_cast<ChannelKind>(KESTREL_TEX_UNIT_FIELD(words, CHANNEL_KIND));
  t.bits_per_channel = 8 << KESTREL_TEX_UNIT_FIELD(words, CHANNEL_SIZE);
  t.channels = static_cast<int>(KESTREL_TEX_UNIT_FIELD(words, CHANNELS));
  t.read_mode =
      KESTREL_TEX_UNIT_FIELD(words, READ_NORMALIZED) ? ReadMode::kNormalizedFloat : ReadMode::kElementType;
  t.normalized_coordinates = KESTREL_TEX_UNIT_FIELD(words, NORMALIZED_COORDS) != 0;
  t.address[0] = static_cast<AddressMode>(KESTREL_TEX_UNIT_FIELD(words, ADDRESS_X));
  t.address[1] = static_cast<AddressMode>(KESTREL_TEX_UNIT_FIELD(words, ADDRESS_Y));
  t.address[2] = static_cast<AddressMode>(KESTREL_TEX_UNIT_FIELD(words, ADDRESS_Z));
  t.filter = KESTREL_TEX_UNIT_FIELD(words, FILTER) ? FilterMode::kLinear : FilterMode::kPoint;
  t.srgb = KESTREL_TEX_UNIT_FIELD(words, SRGB) != 0;
  t.border_color[0] = KESTREL_TEX_UNIT_FIELD(words, BORDER_R);
  t.border_color[1] = KESTREL_TEX_UNIT_FIELD(words, BORDER_G);
  t.border_color[2] = KESTREL_TEX_UNIT_FIELD(words, BORDER_B);
  t.border_color[3] = KESTREL_TEX_UNIT_FIELD(words, BORDER_A);
  image.base = KESTREL_TEX_UNIT_FIELD(words, BASE_ADDR);
  image.pitch = KESTREL_TEX_UNIT_FIELD(words, PITCH);
  image.slice_pitch = KESTREL_TEX_UNIT_FIELD(words, SLICE_PITCH);
  image.texel_bytes = static_cast<uint32_t>(detail::texel_bytes(t));
  return image;
}

// The address of texel (x, y, z) of `layer` (one of z and layer is 0) as the
// unit forms it, in 32-bit arithmetic.
KESTREL_TEXTURE_MATH_FN uint32_t unit_texel_address(const Image& image, int x, int y, int z, int layer) {
  return image.base + static_cast<uint32_t>(z + layer) * image.slice_pitch +
         static_cast<uint32_t>(y) * image.pitch + static_cast<uint32_t>(x) * image.texel_bytes;
}

// The texels kx.tex of `form` reads for one lane, in the unit's order:
// tex1Dfetch's (KESTREL_TEX_FORM_1D_FETCH) texel `index` of linear memory
// when it lies inside (none outside: the lane reads 0), else unit_taps()'s
// at (x, y, z) of `layer`.  rs2 carries the index and the layer alike.
template <typename Visit>
KESTREL_TEXTURE_MATH_FN void unit_lane_taps(const Image& image, uint32_t form, float x, float y, float z,
                                            int layer_or_index, Visit& visit) {
  if (form != KESTREL_TEX_FORM_1D_FETCH) {
    unit_taps(image.texture, x, y, z, layer_or_index, visit);
  } else if (static_cast<uint32_t>(layer_or_index) < static_cast<uint32_t>(image.texture.width)) {
    visit(layer_or_index, 0, 0, 0);
  }
}

// What kx.tex of `form` returns for one lane (its Texels): fetch_linear()
// of the 1D fetch form, else sample().
template <typename Reader>
KESTREL_TEXTURE_MATH_FN Texels unit_lane_fetch(const Image& image, uint32_t form, Reader& read, float x,
                                               float y, float z, int layer_or_index) {
  if (form == KESTREL_TEX_FORM_1D_FETCH)
    return fetch_linear(image.texture, read, static_cast<uint32_t>(image.texture.width), layer_or_index);
  return sample(image.texture, read, x, y, z, layer_or_index);
}

#undef KESTREL_TEX_UNIT_FIELD

}  // namespace kestrel::texture
