// Texture and surface objects (guide 3.2.11.1.1, 3.2.11.2.1): the runtime
// checks a resource and a texture description as CUDA does, writes the
// object's 64-byte descriptor (tools/contract/contract.toml, tex_desc;
// docs/isa.md) into device memory and hands out its device address as the
// handle, which the device SDK's fetch functions read (docs/texture.md).
// Error codes are those an H100 gave
// (tests/cuda/reference/nvidia_texture/array_api_errors.expected).
//
// Texture references (guide 3.2.11.1.2): a bind builds the same descriptor
// from the resource and the reference's fields, with the same checks, and
// writes it into the reference's device copy (a module variable) instead of
// a fresh line; unbinding writes zeros, which the device reads as unbound.
// Surface references (guide 3.2.11.2.2) likewise: a bind writes the array's
// surface descriptor into the reference's device copy.
#include <array>
#include <climits>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "api_common.hpp"
#include "cuda_arrays.hpp"
#include "kestrel/abi.h"
#include "kestrel/texture_unit.hpp"
#include "kestrel_contract.hpp"

using namespace kestrel::cudart;

namespace {

struct TextureObject {
  DeviceState* device = nullptr;
  bool surface = false;
  cudaResourceDesc resource{};
  cudaTextureDesc texture{};
};

std::mutex g_objects_mutex;
// Live objects by handle (their descriptor's device address).
std::map<uint64_t, TextureObject>& objects() {
  static std::map<uint64_t, TextureObject> live;
  return live;
}

uint32_t float_bits(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// The descriptor's format fields from a valid channel descriptor.
void set_format(kestrel::contract::TexDesc& d, const cudaChannelFormatDesc& format) {
  d.channels = static_cast<uint8_t>(channels_of(format));
  d.channel_size = static_cast<uint8_t>(format.x == 8 ? 0 : format.x == 16 ? 1 : 2);
  d.channel_kind = static_cast<uint8_t>(format.f);  // tex_channel_kind has cudaChannelFormatKind's values
}

// The descriptor of `resource` (shape, place, format), checked: `surface`
// says which kind of object wants it.
kestrel::contract::TexDesc describe_array(const char* api, DeviceState& device, const cudaArray& array,
                                          bool surface) {
  kestrel::contract::TexDesc d;
  d.height = d.depth = d.layers = 1;
  if (array.device != &device)
    reject(cudaErrorInvalidValue, std::string(api) + ": the array belongs to device " +
                                      std::to_string(array.device->ordinal()) +
                                      ", but the call runs on device " + std::to_string(device.ordinal()));
  // Guide 3.2.11.2: only arrays made for surfaces back surface objects
  // (an H100 accepts any array; Kestrel holds programs to the guide).
  if (surface && (array.flags & cudaArraySurfaceLoadStore) == 0)
    reject(cudaErrorInvalidValue,
           std::string(api) + ": the array was not created with cudaArraySurfaceLoadStore");
  const cudaExtent& e = array.extent;
  const bool layered = (array.flags & cudaArrayLayered) != 0;
  if ((array.flags & cudaArrayCubemap) != 0) {
    d.shape = layered ? KESTREL_TEX_SHAPE_CUBEMAP_LAYERED : KESTREL_TEX_SHAPE_CUBEMAP;
    d.layers = static_cast<uint32_t>(e.depth);
  } else if (layered) {
    d.shape = e.height == 0 ? KESTREL_TEX_SHAPE_1D_LAYERED : KESTREL_TEX_SHAPE_2D_LAYERED;
    d.layers = static_cast<uint32_t>(e.depth);
  } else if (e.height == 0) {
    d.shape = KESTREL_TEX_SHAPE_1D;
  } else if (e.depth == 0) {
    d.shape = KESTREL_TEX_SHAPE_2D;
  } else {
    d.shape = KESTREL_TEX_SHAPE_3D;
    d.depth = static_cast<uint32_t>(e.depth);
  }
  d.base_addr = static_cast<uint32_t>(array.base);
  d.width = static_cast<uint32_t>(e.width);
  d.height = static_cast<uint32_t>(array.rows);
  d.pitch = static_cast<uint32_t>(array.pitch);
  d.slice_pitch = static_cast<uint32_t>(array.slice_pitch);
  set_format(d, array.desc);
  return d;
}

kestrel::contract::TexDesc describe_resource(const char* api, DeviceState& device,
                                             const cudaResourceDesc& resource, bool surface) {
  kestrel::contract::TexDesc d;
  d.height = d.depth = d.layers = 1;
  switch (resource.resType) {
    case cudaResourceTypeArray:
      return describe_array(api, device, live_array(resource.res.array.array), surface);
    case cudaResourceTypeMipmappedArray: {
      // Level 0's image; create() adds the levels.  A surface is one array
      // (guide 3.2.11.2): cudaGetMipmappedArrayLevel gives one.
      const cudaMipmappedArray& mipmap = live_mipmapped_array(resource.res.mipmap.mipmap);
      if (surface)
        reject(cudaErrorInvalidValue, std::string(api) +
                                          ": a surface object takes one array; pass a level of the mipmapped "
                                          "array (cudaGetMipmappedArrayLevel)");
      return describe_array(api, device, *mipmap.levels.front(), false);
    }
    case cudaResourceTypeLinear:
    case cudaResourceTypePitch2D:
      break;
    default:
      throw CudaError(cudaErrorInvalidValue);
  }
  // Surfaces are arrays only (guide 3.2.11.2).
  require(!surface, cudaErrorInvalidValue);
  const bool pitched = resource.resType == cudaResourceTypePitch2D;
  void* const pointer = pitched ? resource.res.pitch2D.devPtr : resource.res.linear.devPtr;
  require(pointer != nullptr, cudaErrorInvalidValue);
  const size_t texel = texel_bytes_of(pitched ? resource.res.pitch2D.desc : resource.res.linear.desc);
  require(address_of(pointer) % kTextureAlignment == 0, cudaErrorInvalidValue);
  if (!pitched) {
    const size_t bytes = resource.res.linear.sizeInBytes;
    // A size of no whole texel count ends at the last whole texel, as on an H100.
    require(bytes / texel <= kMax1DLinear, cudaErrorInvalidValue);
    require_device_range(api, "resource", device, pointer, bytes == 0 ? 1 : bytes);
    d.shape = KESTREL_TEX_SHAPE_LINEAR;
    d.width = static_cast<uint32_t>(bytes / texel);
    d.pitch = d.slice_pitch = static_cast<uint32_t>(d.width * texel);
  } else {
    const size_t width = resource.res.pitch2D.width, height = resource.res.pitch2D.height;
    const size_t pitch = resource.res.pitch2D.pitchInBytes;
    require(pitch % kTexturePitchAlignment == 0 && pitch <= kMax2DLinearPitch, cudaErrorInvalidValue);
    require(width <= kMax2DLinear && height <= kMax2DLinear, cudaErrorInvalidValue);
    // A pitch below the row's bytes is accepted, as on an H100 (rows overlap).
    const size_t span = width == 0 || height == 0 ? 1 : (height - 1) * pitch + width * texel;
    require_device_range(api, "resource", device, pointer, span);
    d.shape = KESTREL_TEX_SHAPE_PITCH2D;
    d.width = static_cast<uint32_t>(width);
    d.height = static_cast<uint32_t>(height);
    d.pitch = static_cast<uint32_t>(pitch);
    d.slice_pitch = static_cast<uint32_t>(pitch * height);
  }
  d.base_addr = static_cast<uint32_t>(address_of(pointer));
  set_format(d, pitched ? resource.res.pitch2D.desc : resource.res.linear.desc);
  return d;
}

// The texture fields, checked against the resource's format `d`.
void describe_sampling(kestrel::contract::TexDesc& d, const cudaTextureDesc& t) {
  for (const cudaTextureAddressMode mode : t.addressMode)
    require(mode >= cudaAddressModeWrap && mode <= cudaAddressModeBorder, cudaErrorInvalidValue);
  require(t.filterMode == cudaFilterModePoint || t.filterMode == cudaFilterModeLinear, cudaErrorInvalidValue);
  // An H100 takes any read mode that is not cudaReadModeNormalizedFloat as
  // cudaReadModeElementType; Kestrel refuses values CUDA does not define.
  require(t.readMode == cudaReadModeElementType || t.readMode == cudaReadModeNormalizedFloat,
          cudaErrorInvalidValue);
  const bool is_float = d.channel_kind == KESTREL_TEX_CHANNEL_FLOAT;
  const bool normalized = t.readMode == cudaReadModeNormalizedFloat;
  // Linear filtering returns floats: float texels, or 8/16-bit integers read
  // as normalized floats (guide 3.2.11.1.1, F.2).
  require(t.filterMode == cudaFilterModePoint || is_float || (normalized && d.channel_size < 2),
          cudaErrorInvalidFilterSetting);
  require(!normalized || (!is_float && d.channel_size < 2), cudaErrorInvalidNormSetting);
  d.address_x = static_cast<uint8_t>(t.addressMode[0]);
  d.address_y = static_cast<uint8_t>(t.addressMode[1]);
  d.address_z = static_cast<uint8_t>(t.addressMode[2]);
  d.filter = t.filterMode == cudaFilterModeLinear;
  d.read_normalized = normalized;
  d.normalized_coords = t.normalizedCoords != 0;
  d.srgb = t.sRGB != 0;
  d.seamless_cubemap = t.seamlessCubemap != 0;
  d.border_r = float_bits(t.borderColor[0]);
  d.border_g = float_bits(t.borderColor[1]);
  d.border_b = float_bits(t.borderColor[2]);
  d.border_a = float_bits(t.borderColor[3]);
}

using DescriptorBytes = std::array<uint8_t, kestrel::contract::tex_desc::kWords * 4>;

// `d` as it lies in memory: bit n of the struct is bit n % 8 of byte n / 8 (docs/isa.md).
DescriptorBytes descriptor_bytes(const kestrel::contract::TexDesc& d) {
  uint32_t words[kestrel::contract::tex_desc::kWords] = {};
  d.pack(words);
  DescriptorBytes bytes{};
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(words[i / 4] >> (8 * (i % 4)));
  return bytes;
}

// `d` as the descriptor of a texture or surface object (or a texture
// reference's device copy) at `address`, with its unit_fetch flag set
// exactly when the device has texture units (`texture_unit`, CONFIG3) and the unit
// fetches the object (kx.tex, docs/isa.md
// section 2.5): the unit's own decision on the descriptor
// (kestrel/texture_unit.hpp, as kestrel_tex_desc_decode makes it) for a
// descriptor that is a whole memory line.  The device SDK's tex1D ..
// tex2DLayered read the flag and fetch in software when it is clear.  A
// mipmapped texture's level descriptors are not objects and keep it clear.
DescriptorBytes object_descriptor_bytes(bool texture_unit, kestrel::contract::TexDesc d, uint64_t address) {
  uint32_t words[kestrel::contract::tex_desc::kWords] = {};
  d.unit_fetch = false;
  d.pack(words);
  d.unit_fetch =
      texture_unit && address % KESTREL_TEX_DESC_BYTES == 0 && kestrel::texture::unit_fetches(words);
  return descriptor_bytes(d);
}

// Whether `device`'s SMs run kx.tex (CONFIG3).
bool has_texture_unit(DeviceState& device) {
  bool unit = false;
  check(device.run_sync([&](DeviceState& on) { unit = on.context().has_texture_unit(); }));
  return unit;
}

// Writes the object descriptor `d` into a fresh line of device memory;
// returns its address.
uint64_t place_descriptor(DeviceState& device, const kestrel::contract::TexDesc& d) {
  uint64_t address = 0;
  check(device.run_sync([&](DeviceState& on) {
    address = on.context().allocate(KESTREL_TEX_DESC_BYTES);
    const DescriptorBytes bytes = object_descriptor_bytes(on.context().has_texture_unit(), d, address);
    on.context().copy_to_device(address, bytes.data(), bytes.size());
  }));
  return address;
}

// The mipmap fields of a texture over a mipmapped array (guide 3.2.11.1's
// cudaTextureDesc), checked against the format `d`; `levels_addr` is where
// the levels' descriptors go.
void describe_mipmap(kestrel::contract::TexDesc& d, const cudaTextureDesc& t, size_t levels,
                     uint64_t levels_addr) {
  require(t.mipmapFilterMode == cudaFilterModePoint || t.mipmapFilterMode == cudaFilterModeLinear,
          cudaErrorInvalidValue);  // an H100's answer to mipmapFilterMode 7
  // Blending two levels returns floats, as linear filtering does (not
  // measured on the H100: Kestrel holds the mipmap filter to filterMode's rule).
  const bool is_float = d.channel_kind == KESTREL_TEX_CHANNEL_FLOAT;
  require(t.mipmapFilterMode == cudaFilterModePoint || is_float ||
              (t.readMode == cudaReadModeNormalizedFloat && d.channel_size < 2),
          cudaErrorInvalidFilterSetting);
  d.mip_levels = static_cast<uint8_t>(levels);
  d.mip_filter = t.mipmapFilterMode == cudaFilterModeLinear;
  d.lod_bias = float_bits(t.mipmapLevelBias);
  d.min_lod_clamp = float_bits(t.minMipmapLevelClamp);
  d.max_lod_clamp = float_bits(t.maxMipmapLevelClamp);
  d.levels_addr = static_cast<uint32_t>(levels_addr);
}

// The descriptors of a mipmapped array's levels, each level's image sampled
// as `texture` says, as they lie in memory one after another (level 0 first).
std::vector<uint8_t> level_descriptors(const char* api, DeviceState& device, const cudaMipmappedArray& mipmap,
                                       const cudaTextureDesc& texture) {
  std::vector<uint8_t> bytes;
  for (const cudaArray* level : mipmap.levels) {
    kestrel::contract::TexDesc l = describe_array(api, device, *level, false);
    describe_sampling(l, texture);
    const DescriptorBytes b = descriptor_bytes(l);
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
  return bytes;
}

uint64_t allocate_descriptors(DeviceState& device, size_t count) {
  uint64_t address = 0;
  check(device.run_sync(
      [&](DeviceState& on) { address = on.context().allocate(KESTREL_TEX_DESC_BYTES * count); }));
  return address;
}

void release_descriptors(DeviceState& device, uint64_t address) {
  check(device.run_sync([address](DeviceState& on) { on.context().release(address); }));
}

// Writes a mipmapped texture's descriptor (`d`, level 0's image) and, right
// after it, one descriptor per level with the same sampling fields; returns
// the first's address.
uint64_t place_mipmapped(const char* api, DeviceState& device, kestrel::contract::TexDesc d,
                         const cudaMipmappedArray& mipmap, const cudaTextureDesc& texture) {
  const size_t levels = mipmap.levels.size();
  const std::vector<uint8_t> level_bytes = level_descriptors(api, device, mipmap, texture);
  const uint64_t address = allocate_descriptors(device, levels + 1);
  try {
    describe_mipmap(d, texture, levels, address + KESTREL_TEX_DESC_BYTES);
  } catch (...) {
    release_descriptors(device, address);
    throw;
  }
  const DescriptorBytes top = object_descriptor_bytes(has_texture_unit(device), d, address);
  std::vector<uint8_t> bytes(top.size() + level_bytes.size());
  std::memcpy(bytes.data(), top.data(), top.size());
  std::memcpy(bytes.data() + top.size(), level_bytes.data(), level_bytes.size());
  check(device.run_sync(
      [&](DeviceState& on) { on.context().copy_to_device(address, bytes.data(), bytes.size()); }));
  return address;
}

uint64_t create(const char* api, bool surface, const cudaResourceDesc& resource,
                const cudaTextureDesc* texture) {
  DeviceState& device = current_device();
  kestrel::contract::TexDesc d = describe_resource(api, device, resource, surface);
  d.surface = surface;
  if (texture != nullptr) describe_sampling(d, *texture);
  const uint64_t handle =
      resource.resType == cudaResourceTypeMipmappedArray && texture != nullptr
          ? place_mipmapped(api, device, d, live_mipmapped_array(resource.res.mipmap.mipmap), *texture)
          : place_descriptor(device, d);
  TextureObject object;
  object.device = &device;
  object.surface = surface;
  object.resource = resource;
  if (texture != nullptr) object.texture = *texture;
  std::lock_guard<std::mutex> lock(g_objects_mutex);
  objects()[handle] = object;
  return handle;
}

// The live object `handle` of the kind `surface` says; cudaErrorInvalidValue otherwise.
TextureObject find(uint64_t handle, bool surface) {
  std::lock_guard<std::mutex> lock(g_objects_mutex);
  const auto it = objects().find(handle);
  require(it != objects().end() && it->second.surface == surface, cudaErrorInvalidValue);
  return it->second;
}

void destroy(uint64_t handle, bool surface) {
  if (handle == 0) return;  // as cudaFree(nullptr)
  DeviceState* device = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_objects_mutex);
    const auto it = objects().find(handle);
    require(it != objects().end() && it->second.surface == surface, cudaErrorInvalidValue);
    device = it->second.device;
    objects().erase(it);
  }
  check(device->run_sync([handle](DeviceState& d) { d.context().release(handle); }));
}

// ---- Texture references ----------------------------------------------------------

// Where a texture or surface reference is bound: the device whose copy of
// the reference holds the descriptor, that copy's address, and the byte
// offset cudaBindTexture* reported (cudaGetTextureAlignmentOffset); for a
// mipmapped array (cudaBindTextureToMipmappedArray), the block of its levels'
// descriptors that the bind allocated on that device (0 otherwise), which
// goes when the binding does.
struct Binding {
  DeviceState* device = nullptr;
  uint64_t descriptor_address = 0;
  size_t offset = 0;
  uint64_t levels_address = 0;
};

std::mutex g_bindings_mutex;
// By the reference's host variable (a textureReference or a surfaceReference).
std::map<const void*, Binding>& bindings() {
  static std::map<const void*, Binding> bound;
  return bound;
}

// The registered texture reference `texref`; cudaErrorInvalidTexture for
// anything else (a null pointer, a plain host variable).
const TextureReference& registered(const char* api, const textureReference* texref) {
  const TextureReference* reference = texref == nullptr ? nullptr : Runtime::get().registry().texture(texref);
  if (reference == nullptr)
    reject(cudaErrorInvalidTexture,
           std::string(api) + ": not a texture reference (a file-scope texture<T, Type, ReadMode> variable)");
  return *reference;
}

// The device address of `reference`'s copy on `device` (its module loads on
// first use).  The image is not trusted: the variable must hold a descriptor.
// `error`: the reference kind's error code.
uint64_t device_copy(const char* api, DeviceState& device, FatBinary* binary, const std::string& name,
                     cudaError_t error) {
  if (binary->image) {
    for (const kestrel::runtime::GlobalSymbol& global : binary->image->globals)
      if (global.name == name && global.bytes < KESTREL_TEX_DESC_BYTES)
        reject(error, std::string(api) + ": the device image's '" + name + "' has " +
                          std::to_string(global.bytes) + " bytes, not a descriptor's " +
                          std::to_string(KESTREL_TEX_DESC_BYTES));
  }
  uint64_t address = 0;
  check(device.run_sync([&](DeviceState& on) {
    address = on.symbol_address(DeviceVariable{binary, name, KESTREL_TEX_DESC_BYTES});
  }));
  return address;
}

void write_descriptor(DeviceState& device, uint64_t address, const DescriptorBytes& bytes) {
  check(device.run_sync(
      [&](DeviceState& on) { on.context().copy_to_device(address, bytes.data(), bytes.size()); }));
}

// Whether a resource of `shape` can back a reference of `type` (guide
// 3.2.11.1.2: linear memory for 1D references, pitched memory for 2D ones).
bool shape_fits(int type, uint8_t shape) {
  switch (type) {
    case cudaTextureType1D:
      return shape == KESTREL_TEX_SHAPE_LINEAR || shape == KESTREL_TEX_SHAPE_1D;
    case cudaTextureType2D:
      return shape == KESTREL_TEX_SHAPE_PITCH2D || shape == KESTREL_TEX_SHAPE_2D;
    case cudaTextureType3D:
      return shape == KESTREL_TEX_SHAPE_3D;
    case cudaTextureType1DLayered:
      return shape == KESTREL_TEX_SHAPE_1D_LAYERED;
    case cudaTextureType2DLayered:
      return shape == KESTREL_TEX_SHAPE_2D_LAYERED;
    case cudaTextureTypeCubemap:
      return shape == KESTREL_TEX_SHAPE_CUBEMAP;
    case cudaTextureTypeCubemapLayered:
      return shape == KESTREL_TEX_SHAPE_CUBEMAP_LAYERED;
    default:
      return false;
  }
}

// A reference's Type by name: `kind` is "Texture" or "Surface" (the
// cudaTextureType* and cudaSurfaceType* values are the same).
std::string type_name(const char* kind, int type) {
  const char* shape = nullptr;
  switch (type) {
    case cudaTextureType1D:
      shape = "1D";
      break;
    case cudaTextureType2D:
      shape = "2D";
      break;
    case cudaTextureType3D:
      shape = "3D";
      break;
    case cudaTextureType1DLayered:
      shape = "1DLayered";
      break;
    case cudaTextureType2DLayered:
      shape = "2DLayered";
      break;
    case cudaTextureTypeCubemap:
      shape = "Cubemap";
      break;
    case cudaTextureTypeCubemapLayered:
      shape = "CubemapLayered";
      break;
    default:
      return "an unknown type (" + std::to_string(type) + ")";
  }
  return std::string("cuda") + kind + "Type" + shape;
}

// Writes `bytes` into the reference's device copy at `address` on `device`
// and records the binding (with its levels' block, `levels_address`, or 0).
// A reference is bound on one device at a time: bound on another now, its
// copy on the device it was bound on reads as unbound again.  The previous
// binding's levels go after the new descriptor is in place: the copy and
// the release run on the legacy default stream, after the kernels queued
// before the bind, which read the old binding.
void record_binding(const void* reference, DeviceState& device, uint64_t address,
                    const DescriptorBytes& bytes, size_t offset, uint64_t levels_address = 0) {
  write_descriptor(device, address, bytes);
  Binding previous;
  {
    std::lock_guard<std::mutex> lock(g_bindings_mutex);
    Binding& binding = bindings()[reference];
    previous = binding;
    binding = Binding{&device, address, offset, levels_address};
  }
  if (previous.device != nullptr && previous.device != &device)
    write_descriptor(*previous.device, previous.descriptor_address, DescriptorBytes{});
  if (previous.levels_address != 0) release_descriptors(*previous.device, previous.levels_address);
}

// Binds `texref` to `resource` (whose channel descriptor is `desc`): the
// texture object's checks and descriptor, sampled as the reference's fields
// say now (guide 3.2.11.1.2: normalized, filterMode and addressMode may be
// changed in host code; a change takes effect at the next bind).  A
// mipmapped array (cudaResourceTypeMipmappedArray) also takes the
// reference's mipmapFilterMode, mipmapLevelBias and its clamps, and its
// levels' descriptors go into a block of their own that the binding owns.
void bind(const char* api, const textureReference* texref, const cudaChannelFormatDesc* desc,
          const cudaResourceDesc& resource, size_t offset) {
  const TextureReference& reference = registered(api, texref);
  require(desc != nullptr, cudaErrorInvalidValue);
  texel_bytes_of(*desc);  // an unsupported format: cudaErrorInvalidChannelDescriptor
  // The guide leaves a format that does not match the declaration
  // undefined; Kestrel refuses it rather than reinterpret the texels.
  const cudaChannelFormatDesc& declared = texref->channelDesc;
  if (desc->x != declared.x || desc->y != declared.y || desc->z != declared.z || desc->w != declared.w ||
      desc->f != declared.f)
    reject(cudaErrorInvalidChannelDescriptor,
           std::string(api) +
               ": the channel format does not match the texture reference's declared texel type "
               "(guide 3.2.11.1.2)");
  DeviceState& device = current_device();
  kestrel::contract::TexDesc d = describe_resource(api, device, resource, false);
  if (!shape_fits(reference.type, d.shape))
    reject(cudaErrorInvalidTexture, std::string(api) + ": '" + reference.name + "' is declared " +
                                        type_name("Texture", reference.type) +
                                        ", which this resource cannot back");
  cudaTextureDesc sampling{};
  for (int axis = 0; axis < 3; ++axis) sampling.addressMode[axis] = texref->addressMode[axis];
  sampling.filterMode = texref->filterMode;
  sampling.readMode = reference.normalized_read ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
  sampling.normalizedCoords = texref->normalized;
  sampling.sRGB = texref->sRGB;
  sampling.maxAnisotropy = texref->maxAnisotropy;
  sampling.mipmapFilterMode = texref->mipmapFilterMode;
  sampling.mipmapLevelBias = texref->mipmapLevelBias;
  sampling.minMipmapLevelClamp = texref->minMipmapLevelClamp;
  sampling.maxMipmapLevelClamp = texref->maxMipmapLevelClamp;
  describe_sampling(d, sampling);  // a texture reference's border colour is 0
  const uint64_t address =
      device_copy(api, device, reference.binary, reference.name, cudaErrorInvalidTexture);
  if (resource.resType != cudaResourceTypeMipmappedArray) {
    record_binding(texref, device, address, object_descriptor_bytes(has_texture_unit(device), d, address),
                   offset);
    return;
  }
  const cudaMipmappedArray& mipmap = live_mipmapped_array(resource.res.mipmap.mipmap);
  const std::vector<uint8_t> level_bytes = level_descriptors(api, device, mipmap, sampling);
  const uint64_t levels = allocate_descriptors(device, mipmap.levels.size());
  try {
    describe_mipmap(d, sampling, mipmap.levels.size(), levels);
    check(device.run_sync([&](DeviceState& on) {
      on.context().copy_to_device(levels, level_bytes.data(), level_bytes.size());
    }));
    record_binding(texref, device, address, object_descriptor_bytes(has_texture_unit(device), d, address),
                   offset, levels);
  } catch (...) {
    release_descriptors(device, levels);
    throw;
  }
}

// The registered surface reference `surfref`; cudaErrorInvalidSurface for
// anything else (a null pointer, a plain surfaceReference).
const SurfaceReference& registered_surface(const char* api, const surfaceReference* surfref) {
  const SurfaceReference* reference =
      surfref == nullptr ? nullptr : Runtime::get().registry().surface(surfref);
  if (reference == nullptr)
    reject(cudaErrorInvalidSurface,
           std::string(api) + ": not a surface reference (a file-scope surface<void, Type> variable)");
  return *reference;
}

// cudaBindTexture and cudaBindTexture2D: the texture starts at devPtr
// rounded down to the texture alignment, and `offset` (when given) says how
// far before devPtr that is; a misaligned devPtr without `offset` is refused.
size_t aligned_start(const char* api, size_t* offset, const void* devPtr, uint64_t* base) {
  require(devPtr != nullptr, cudaErrorInvalidValue);
  const uint64_t address = address_of(devPtr);
  const size_t misalignment = static_cast<size_t>(address % kTextureAlignment);
  if (misalignment != 0 && offset == nullptr)
    reject(cudaErrorInvalidValue, std::string(api) + ": devPtr is not a multiple of " +
                                      std::to_string(kTextureAlignment) +
                                      " bytes, and no offset pointer receives the difference");
  *base = address - misalignment;
  return misalignment;
}

// The bytes from `address` to the end of its allocation on `device`; 0 outside one.
size_t bytes_to_end(DeviceState& device, uint64_t address) {
  std::lock_guard<std::mutex> lock(device.mutex());
  auto it = device.allocations.upper_bound(address);
  if (it == device.allocations.begin()) return 0;
  --it;
  return address - it->first < it->second.bytes
             ? static_cast<size_t>(it->second.bytes - (address - it->first))
             : 0;
}

}  // namespace

void kestrel::cudart::forget_texture_objects_of(const DeviceState* device) {
  {
    std::lock_guard<std::mutex> lock(g_objects_mutex);
    for (auto it = objects().begin(); it != objects().end();)
      it = it->second.device == device ? objects().erase(it) : std::next(it);
  }
  // The references' device copies went with the device's modules.
  std::lock_guard<std::mutex> lock(g_bindings_mutex);
  for (auto it = bindings().begin(); it != bindings().end();)
    it = it->second.device == device ? bindings().erase(it) : std::next(it);
}

extern "C" {

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* pTexObject, const struct cudaResourceDesc* pResDesc,
                                    const struct cudaTextureDesc* pTexDesc,
                                    const struct cudaResourceViewDesc* pResViewDesc) {
  return api([&] {
    require(pTexObject != nullptr && pResDesc != nullptr, cudaErrorInvalidValue);
    *pTexObject = 0;
    require(pTexDesc != nullptr, cudaErrorInvalidResourceHandle);  // an H100's answer
    if (pResViewDesc != nullptr) {
      // A view without a format is CUDA's cudaErrorInvalidValue; Kestrel
      // implements no view (docs/cuda-runtime.md).
      require(pResViewDesc->format != cudaResViewFormatNone, cudaErrorInvalidValue);
      reject(cudaErrorNotSupported,
             "cudaCreateTextureObject: resource views are not implemented; pass nullptr");
    }
    *pTexObject = create("cudaCreateTextureObject", false, *pResDesc, pTexDesc);
  });
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  return api([&] { destroy(texObject, false); });
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc* pResDesc,
                                             cudaTextureObject_t texObject) {
  return api([&] {
    require(pResDesc != nullptr, cudaErrorInvalidValue);
    *pResDesc = find(texObject, false).resource;
  });
}

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc* pTexDesc, cudaTextureObject_t texObject) {
  return api([&] {
    require(pTexDesc != nullptr, cudaErrorInvalidValue);
    *pTexDesc = find(texObject, false).texture;
  });
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* pSurfObject,
                                    const struct cudaResourceDesc* pResDesc) {
  return api([&] {
    require(pSurfObject != nullptr && pResDesc != nullptr, cudaErrorInvalidValue);
    *pSurfObject = 0;
    *pSurfObject = create("cudaCreateSurfaceObject", true, *pResDesc, nullptr);
  });
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
  return api([&] { destroy(surfObject, true); });
}

cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc* pResDesc,
                                             cudaSurfaceObject_t surfObject) {
  return api([&] {
    require(pResDesc != nullptr, cudaErrorInvalidValue);
    *pResDesc = find(surfObject, true).resource;
  });
}

cudaError_t cudaBindTexture(size_t* offset, const struct textureReference* texref, const void* devPtr,
                            const struct cudaChannelFormatDesc* desc, size_t size) {
  return api([&] {
    if (offset != nullptr) *offset = 0;
    registered("cudaBindTexture", texref);
    uint64_t base = 0;
    const size_t misalignment = aligned_start("cudaBindTexture", offset, devPtr, &base);
    // UINT_MAX, the default, binds the rest of devPtr's allocation.
    if (size == UINT_MAX) size = bytes_to_end(current_device(), address_of(devPtr));
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = pointer_to(base);
    resource.res.linear.desc = desc != nullptr ? *desc : cudaChannelFormatDesc{};
    resource.res.linear.sizeInBytes = size + misalignment;
    bind("cudaBindTexture", texref, desc, resource, misalignment);
    if (offset != nullptr) *offset = misalignment;
  });
}

cudaError_t cudaBindTexture2D(size_t* offset, const struct textureReference* texref, const void* devPtr,
                              const struct cudaChannelFormatDesc* desc, size_t width, size_t height,
                              size_t pitch) {
  return api([&] {
    if (offset != nullptr) *offset = 0;
    registered("cudaBindTexture2D", texref);
    uint64_t base = 0;
    const size_t misalignment = aligned_start("cudaBindTexture2D", offset, devPtr, &base);
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypePitch2D;
    resource.res.pitch2D.devPtr = pointer_to(base);
    resource.res.pitch2D.desc = desc != nullptr ? *desc : cudaChannelFormatDesc{};
    // The texels before devPtr in its row widen the texture.
    const size_t texel = desc != nullptr ? texel_bytes_of(*desc) : 1;
    require(misalignment % texel == 0, cudaErrorInvalidValue);
    resource.res.pitch2D.width = width + misalignment / texel;
    resource.res.pitch2D.height = height;
    resource.res.pitch2D.pitchInBytes = pitch;
    bind("cudaBindTexture2D", texref, desc, resource, misalignment);
    if (offset != nullptr) *offset = misalignment;
  });
}

cudaError_t cudaBindTextureToArray(const struct textureReference* texref, cudaArray_const_t array,
                                   const struct cudaChannelFormatDesc* desc) {
  return api([&] {
    registered("cudaBindTextureToArray", texref);
    require(array != nullptr, cudaErrorInvalidValue);  // as cudaCreateTextureObject's check
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = const_cast<cudaArray_t>(array);
    // The array's own format is what the texels are; desc must agree.
    const cudaChannelFormatDesc& stored = live_array(array).desc;
    if (desc != nullptr && (desc->x != stored.x || desc->y != stored.y || desc->z != stored.z ||
                            desc->w != stored.w || desc->f != stored.f))
      reject(cudaErrorInvalidChannelDescriptor,
             "cudaBindTextureToArray: the channel format is not the array's (cudaGetChannelDesc)");
    bind("cudaBindTextureToArray", texref, desc, resource, 0);
  });
}

// A mipmapped texture reference (guide 3.2.11.1.2, 3.2.11.1.5 "Mipmaps"
// of the object API): the texture objects' mipmapped descriptor, with the
// reference's mipmap fields read at the bind as its other fields are.  The
// levels' shape is the reference's Type, `desc` their format.
cudaError_t cudaBindTextureToMipmappedArray(const struct textureReference* texref,
                                            cudaMipmappedArray_const_t mipmappedArray,
                                            const struct cudaChannelFormatDesc* desc) {
  return api([&] {
    const char* const name = "cudaBindTextureToMipmappedArray";
    registered(name, texref);
    // An unknown handle (a plain cudaArray_t among them) is
    // cudaErrorInvalidResourceHandle, as for cudaGetMipmappedArrayLevel.
    require(mipmappedArray != nullptr, cudaErrorInvalidValue);
    const cudaMipmappedArray& mipmap = live_mipmapped_array(mipmappedArray);
    const cudaChannelFormatDesc& stored = mipmap.desc;
    if (desc != nullptr && (desc->x != stored.x || desc->y != stored.y || desc->z != stored.z ||
                            desc->w != stored.w || desc->f != stored.f))
      reject(cudaErrorInvalidChannelDescriptor,
             std::string(name) + ": the channel format is not the mipmapped array's");
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeMipmappedArray;
    resource.res.mipmap.mipmap = const_cast<cudaMipmappedArray_t>(mipmappedArray);
    bind(name, texref, desc, resource, 0);
  });
}

// Unbinding a reference that is not bound does nothing, as in CUDA.
cudaError_t cudaUnbindTexture(const struct textureReference* texref) {
  return api([&] {
    registered("cudaUnbindTexture", texref);
    Binding binding;
    {
      std::lock_guard<std::mutex> lock(g_bindings_mutex);
      const auto it = bindings().find(texref);
      if (it == bindings().end()) return;
      binding = it->second;
      bindings().erase(it);
    }
    write_descriptor(*binding.device, binding.descriptor_address, DescriptorBytes{});
    if (binding.levels_address != 0) release_descriptors(*binding.device, binding.levels_address);
  });
}

cudaError_t cudaGetTextureAlignmentOffset(size_t* offset, const struct textureReference* texref) {
  return api([&] {
    require(offset != nullptr, cudaErrorInvalidValue);
    registered("cudaGetTextureAlignmentOffset", texref);
    std::lock_guard<std::mutex> lock(g_bindings_mutex);
    const auto it = bindings().find(texref);
    require(it != bindings().end(), cudaErrorInvalidTextureBinding);
    *offset = it->second.offset;
  });
}

// The symbol is the reference itself (its host variable's address).
cudaError_t cudaGetSurfaceReference(const struct surfaceReference** surfref, const void* symbol) {
  return api([&] {
    require(surfref != nullptr, cudaErrorInvalidValue);
    *surfref = nullptr;
    registered_surface("cudaGetSurfaceReference", static_cast<const surfaceReference*>(symbol));
    *surfref = static_cast<const surfaceReference*>(symbol);
  });
}

// The surface object's checks (an array made with cudaArraySurfaceLoadStore,
// on the current device) and descriptor, written into the reference's
// device copy.  The array's shape must be the reference's Type, and `desc`
// the array's format: the guide leaves a mismatch undefined (3.2.11.2.2);
// Kestrel refuses it.  The reference's own channelDesc is not checked: the
// guide's surface<void, Type> has none.
cudaError_t cudaBindSurfaceToArray(const struct surfaceReference* surfref, cudaArray_const_t array,
                                   const struct cudaChannelFormatDesc* desc) {
  return api([&] {
    const char* const name = "cudaBindSurfaceToArray";
    const SurfaceReference& reference = registered_surface(name, surfref);
    require(array != nullptr && desc != nullptr, cudaErrorInvalidValue);
    const cudaArray& stored = live_array(array);
    if (desc->x != stored.desc.x || desc->y != stored.desc.y || desc->z != stored.desc.z ||
        desc->w != stored.desc.w || desc->f != stored.desc.f)
      reject(cudaErrorInvalidChannelDescriptor,
             "cudaBindSurfaceToArray: the channel format is not the array's (cudaGetChannelDesc)");
    DeviceState& device = current_device();
    kestrel::contract::TexDesc d = describe_array(name, device, stored, true);
    d.surface = true;
    if (!shape_fits(reference.type, d.shape) || d.shape == KESTREL_TEX_SHAPE_LINEAR ||
        d.shape == KESTREL_TEX_SHAPE_PITCH2D)
      reject(cudaErrorInvalidSurface, std::string(name) + ": '" + reference.name + "' is declared " +
                                          type_name("Surface", reference.type) +
                                          ", which this array cannot back");
    const uint64_t address =
        device_copy(name, device, reference.binary, reference.name, cudaErrorInvalidSurface);
    record_binding(surfref, device, address, descriptor_bytes(d), 0);
  });
}

cudaError_t cudaGetTextureReference(const struct textureReference** texref, const void* symbol) {
  return api([&] {
    require(texref != nullptr, cudaErrorInvalidValue);
    *texref = nullptr;
    registered("cudaGetTextureReference", static_cast<const textureReference*>(symbol));
    *texref = static_cast<const textureReference*>(symbol);
  });
}

}  // extern "C"
