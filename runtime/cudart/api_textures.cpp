// Texture and surface objects (guide 3.2.11.1.1, 3.2.11.2.1): the runtime
// checks a resource and a texture description as CUDA does, writes the
// object's 64-byte descriptor (tools/contract/contract.toml, tex_desc;
// docs/isa.md) into device memory and hands out its device address as the
// handle.  Kestrel has no texture unit yet: nothing on the device reads the
// descriptor, and no kernel can fetch from an object (docs/cuda-runtime.md).
// Error codes are those an H100 gave
// (tests/cuda/reference/nvidia_texture/array_api_errors.expected).
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>

#include "api_common.hpp"
#include "cuda_arrays.hpp"
#include "kestrel/abi.h"
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
kestrel::contract::TexDesc describe_resource(const char* api, DeviceState& device,
                                             const cudaResourceDesc& resource, bool surface) {
  kestrel::contract::TexDesc d;
  d.height = d.depth = d.layers = 1;
  switch (resource.resType) {
    case cudaResourceTypeArray: {
      const cudaArray& array = live_array(resource.res.array.array);
      if (array.device != &device)
        reject(cudaErrorInvalidValue,
               std::string(api) + ": the array belongs to device " + std::to_string(array.device->ordinal()) +
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
    case cudaResourceTypeMipmappedArray:
      reject(cudaErrorInvalidResourceHandle, std::string(api) + ": Kestrel has no mipmapped arrays");
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

// Writes `d` into a fresh line of device memory; returns its address.
uint64_t place_descriptor(DeviceState& device, const kestrel::contract::TexDesc& d) {
  uint32_t words[kestrel::contract::tex_desc::kWords] = {};
  d.pack(words);
  // Bit n of the struct is bit n % 8 of byte n / 8 (docs/isa.md).
  uint8_t bytes[sizeof words];
  for (size_t i = 0; i < sizeof bytes; ++i) bytes[i] = static_cast<uint8_t>(words[i / 4] >> (8 * (i % 4)));
  uint64_t address = 0;
  check(device.run_sync([&](DeviceState& on) {
    address = on.context().allocate(sizeof bytes);
    on.context().copy_to_device(address, bytes, sizeof bytes);
  }));
  return address;
}

uint64_t create(const char* api, bool surface, const cudaResourceDesc& resource,
                const cudaTextureDesc* texture) {
  DeviceState& device = current_device();
  kestrel::contract::TexDesc d = describe_resource(api, device, resource, surface);
  d.surface = surface;
  if (texture != nullptr) describe_sampling(d, *texture);
  const uint64_t handle = place_descriptor(device, d);
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

}  // namespace

void kestrel::cudart::forget_texture_objects_of(const DeviceState* device) {
  std::lock_guard<std::mutex> lock(g_objects_mutex);
  for (auto it = objects().begin(); it != objects().end();)
    it = it->second.device == device ? objects().erase(it) : std::next(it);
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

}  // extern "C"
