// Texture fetches: kx.tex (docs/isa.md section 2.5), the texture unit's
// fetch of every executing lane, bit for bit as kestrel_tex_unit: the
// descriptor decided on as kestrel_tex_desc_decode does
// (kestrel/texture_unit.hpp), the taps' lines checked in the unit's order
// (kestrel::texture::unit_lane_taps), the components from the shared arithmetic
// (kestrel/texture_math.hpp) that the device SDK's software fetches use too.
#include <cstring>

#include "kestrel/texture_math.hpp"
#include "kestrel/texture_unit.hpp"
#include "machine.hpp"

namespace kestrel::model::interp {
namespace {

// The unit reads memory in lines; a descriptor is one.
constexpr uint32_t kLineBytes = KESTREL_TEX_DESC_BYTES;

}  // namespace

template <class X>
const uint8_t* Machine<X>::tex_line(uint32_t line) {
  const uint32_t offset = line - KESTREL_GLOBAL_BASE;
  if (offset >= mem_.size() || (mem_.page_perms_at(offset) & KESTREL_PAGE_READ) == 0) return nullptr;
  return mem_.dram() + offset;
}

// Per executing lane, lowest first: the object's descriptor line (the low
// 32 bits of rs1, a multiple of 64, readable), a descriptor the unit
// fetches with this form, every tap's line readable; the first lane that
// fails one of them faults the instruction, which then writes nothing.
// Otherwise f rd..rd+3 of every lane get the four components.
template <class X>
bool Machine<X>::exec_tex(uint32_t sm_id, Warp& w, const Inst& in, uint64_t pc, uint32_t mask) {
  using kestrel::texture::Texels;
  const X* objects = xrow(w, in.rs1);
  const X* layers_or_indices = xrow(w, in.rs2);
  const uint32_t* coords[3] = {frow(w, in.rs3), frow(w, in.rs3 + 1u), frow(w, in.rs3 + 2u)};
  Texels results[32];
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    const uint32_t object = static_cast<uint32_t>(objects[l]);
    if (object % kLineBytes != 0) {
      raise(KESTREL_FAULT_MISALIGNED, sm_id, w, l, pc, object);
      return false;
    }
    const uint8_t* descriptor = tex_line(object);
    if (descriptor == nullptr) {
      raise(KESTREL_FAULT_ILLEGAL_ADDRESS, sm_id, w, l, pc, object);
      return false;
    }
    uint32_t words[kLineBytes / 4];
    std::memcpy(words, descriptor, sizeof words);  // little-endian, as the host
    if (kestrel::texture::unit_status(words, in.aux) != kestrel::texture::UnitStatus::kFetch) {
      raise(KESTREL_FAULT_TEXTURE, sm_id, w, l, pc, object);
      return false;
    }
    const kestrel::texture::Image image = kestrel::texture::image_of(words);
    const float x = __builtin_bit_cast(float, coords[0][l]);
    const float y = __builtin_bit_cast(float, coords[1][l]);
    const float z = __builtin_bit_cast(float, coords[2][l]);
    const int layer_or_index = static_cast<int>(static_cast<uint32_t>(layers_or_indices[l]));
    // The taps' lines in the order the unit reads them; the first that
    // cannot be read faults.
    bool unreadable = false;
    uint32_t bad_line = 0;
    auto check = [&](int tx, int ty, int tz, int tlayer) {
      const uint32_t line =
          kestrel::texture::unit_texel_address(image, tx, ty, tz, tlayer) & ~(kLineBytes - 1);
      if (!unreadable && tex_line(line) == nullptr) {
        unreadable = true;
        bad_line = line;
      }
    };
    kestrel::texture::unit_lane_taps(image, in.aux, x, y, z, layer_or_index, check);
    if (unreadable) {
      raise(KESTREL_FAULT_ILLEGAL_ADDRESS, sm_id, w, l, pc, bad_line);
      return false;
    }
    // A texel lies in one line (arrays and texture memory are aligned to
    // their texel size); its bytes are taken from its line, as the unit does.
    auto read = [&](int tx, int ty, int tz, int tlayer, uint8_t* out) {
      const uint32_t address = kestrel::texture::unit_texel_address(image, tx, ty, tz, tlayer);
      const uint8_t* line = tex_line(address & ~(kLineBytes - 1));
      for (uint32_t i = 0; i < image.texel_bytes; ++i) out[i] = line[(address + i) % kLineBytes];
    };
    results[l] = kestrel::texture::unit_lane_fetch(image, in.aux, read, x, y, z, layer_or_index);
  }
  for (unsigned c = 0; c < kTexResults; ++c) {
    uint32_t* fd = frow(w, in.rd + c);
    for_each_lane(mask, [&](uint32_t l) { fd[l] = results[l].v[c]; });
  }
  return true;
}

// The register widths make_engine builds.
template const uint8_t* Machine<uint32_t>::tex_line(uint32_t line);
template const uint8_t* Machine<uint64_t>::tex_line(uint32_t line);
template bool Machine<uint32_t>::exec_tex(uint32_t sm_id, Warp& w, const Inst& in, uint64_t pc,
                                          uint32_t mask);
template bool Machine<uint64_t>::exec_tex(uint32_t sm_id, Warp& w, const Inst& in, uint64_t pc,
                                          uint32_t mask);

}  // namespace kestrel::model::interp
