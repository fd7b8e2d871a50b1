// CUDA arrays (guide 3.2.11.1.1, 3.2.11.2) as the runtime keeps them: each
// cudaArray_t is a host record of an image in device memory that only the
// array API and texture/surface objects reach (it is no cudaMalloc range, so
// cudaMemcpy and cudaFree refuse its memory).  docs/cuda-runtime.md ("CUDA
// arrays") gives the layout, which the texture descriptor
// (tools/contract/contract.toml, tex_desc) repeats for the texture unit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kestrel/cuda/cuda_runtime_api.h"

namespace kestrel::cudart {
class DeviceState;

// ---- Limits (guide appendix G.1, Table 13, compute capability 6.x) -------------
// Enforced by cudaMallocArray/cudaMalloc3DArray and cudaCreateTextureObject,
// reported in cudaDeviceProp.  An array that is a surface too
// (cudaArraySurfaceLoadStore) must fit both the texture and the surface table.
constexpr size_t kMax1D = 65536;                             // 1D texture and surface width
constexpr size_t kMax2DWidth = 65536, kMax2DHeight = 65535;  // 2D texture
constexpr size_t kMaxSurface2DHeight = 32768;                // 2D surface
constexpr size_t kMaxGather2D = 16384;                       // cudaArrayTextureGather, each dimension
constexpr size_t kMax3D = 4096;                              // 3D texture, each dimension
constexpr size_t kMaxSurface3DDepth = 2048;                  // 3D surface depth
constexpr size_t kMaxLayeredWidth = 16384;                   // 1D and 2D layered textures (and height)
constexpr size_t kMaxLayers = 2048;
constexpr size_t kMaxCubemap = 16384;       // cubemap and layered cubemap width
constexpr size_t kMaxCubemapLayers = 2046;  // faces of a layered cubemap
// Mipmapped arrays: 1D and 2D have limits of their own (cudaDeviceProp's
// maxTexture1DMipmap and maxTexture2DMipmap, the values an H100 reports);
// the other shapes take their plain arrays' limits.  17 levels at most.
constexpr size_t kMax1DMipmap = 32768;
constexpr size_t kMax2DMipmap = 32768;                        // width and height
constexpr size_t kMax1DLinear = size_t{1} << 27;              // texels of a linear resource
constexpr size_t kMax2DLinear = 65000;                        // width and height of a pitched resource
constexpr size_t kMax2DLinearPitch = (size_t{1} << 20) - 32;  // its pitch in bytes
// A linear or pitched resource starts at a multiple of this (textureAlignment,
// cudaMalloc's and cudaMallocPitch's alignment) ...
constexpr size_t kTextureAlignment = 256;
// ... and a pitched one's rows are a multiple of this apart (texturePitchAlignment).
constexpr size_t kTexturePitchAlignment = 32;

// Rows of an array start a memory line apart, so that a row's first texel
// starts a line (KESTREL_LINE_BYTES in the contract's geometry).
constexpr size_t kArrayRowAlignment = 64;

// The bytes of one texel of `desc`, or throws
// cudaErrorInvalidChannelDescriptor for a format no CUDA array or texture can
// hold: CUDA's rules as an H100 applies them
// (tests/cuda/reference/nvidia_texture/array_api_errors.expected): channels
// x, y, z, w used from x on without gaps, 1, 2 or 4 of them, all of 8, 16 or
// 32 bits, floats of 16 or 32 bits, kind signed, unsigned or float.
size_t texel_bytes_of(const cudaChannelFormatDesc& desc);
// The channels of a valid descriptor.
int channels_of(const cudaChannelFormatDesc& desc);

}  // namespace kestrel::cudart

struct cudaArray {
  kestrel::cudart::DeviceState* device = nullptr;
  uint64_t base = 0;  // device address of texel (0, 0, 0)
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};  // as allocated: height 0 for 1D, depth 0 unless 3D, layered or cubemap
  unsigned flags = 0;
  size_t texel_bytes = 0;
  size_t row_bytes = 0;    // width * texel_bytes
  size_t pitch = 0;        // bytes from one row to the next
  size_t rows = 0;         // max(height, 1)
  size_t slices = 0;       // max(depth, 1): 3D slices, layers or cube faces
  size_t slice_pitch = 0;  // pitch * rows
  // The mipmapped array this array is a level of (cudaGetMipmappedArrayLevel),
  // which owns it; null for an array of its own.
  const cudaMipmappedArray* mipmap = nullptr;
};

// A mipmapped array (guide 3.2.11.1): one ordinary array per level, level l
// max(1, size >> l) on each axis of width, height and (3D only) depth;
// layers and cube faces keep their count.
struct cudaMipmappedArray {
  kestrel::cudart::DeviceState* device = nullptr;
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};  // level 0's, as cudaMallocMipmappedArray took it
  unsigned flags = 0;
  std::vector<cudaArray*> levels;  // owned through the array table (api_arrays.cpp)
};

namespace kestrel::cudart {
// The live array `array` names; cudaErrorInvalidResourceHandle otherwise.
cudaArray& live_array(cudaArray_const_t array);
// The live mipmapped array `mipmap` names; cudaErrorInvalidResourceHandle otherwise.
cudaMipmappedArray& live_mipmapped_array(cudaMipmappedArray_const_t mipmap);
// cudaDeviceReset: the arrays and texture/surface objects of `device` are
// gone with its memory; their handles become unknown (api_arrays.cpp,
// api_textures.cpp).
void forget_arrays_of(const DeviceState* device);
void forget_texture_objects_of(const DeviceState* device);
}  // namespace kestrel::cudart
