// CUDA arrays, 3D copies, channel descriptors, texture and surface objects
// (guide 3.2.2, 3.2.11.1, 3.2.11.2, appendix G.1).  The error codes are those
// an NVIDIA H100 gave for the same calls
// (tests/cuda/reference/nvidia_texture/array_api_errors.cu and .expected);
// where Kestrel is stricter the test says so.  Texture descriptors and array
// texels are read back by a kernel (read_words, misuse_kernels.cu) at the
// addresses the descriptor names, as the texture unit will read them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "cuda_runtime.h"
#include "kestrel/abi.h"
#include "kestrel_contract.hpp"
#include "misuse_kernels.h"

namespace {

bool same(const cudaChannelFormatDesc& a, const cudaChannelFormatDesc& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w && a.f == b.f;
}

// `n` 32-bit words of device memory at `address`, read by a kernel.
std::vector<uint32_t> device_words(uint64_t address, int n) {
  unsigned* out = nullptr;
  EXPECT_EQ(cudaMalloc(&out, 32 * sizeof(unsigned)), cudaSuccess);
  (void)cudaGetLastError();  // the launch reports the last error: forget the misuse tested before
  EXPECT_EQ(launch_read_words(address, out, n), cudaSuccess);
  std::vector<uint32_t> words(static_cast<size_t>(n));
  EXPECT_EQ(cudaMemcpy(words.data(), out, words.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaFree(out), cudaSuccess);
  return words;
}

kestrel::contract::TexDesc descriptor_of(unsigned long long handle) {
  const std::vector<uint32_t> words = device_words(handle, kestrel::contract::tex_desc::kWords);
  return kestrel::contract::TexDesc::unpack(words.data());
}

cudaArray_t make_array(cudaChannelFormatDesc desc, size_t width, size_t height, unsigned flags = 0) {
  cudaArray_t array = nullptr;
  EXPECT_EQ(cudaMallocArray(&array, &desc, width, height, flags), cudaSuccess);
  return array;
}

TEST(ChannelDescriptors, TemplatesAndFunction) {
  const auto f = cudaChannelFormatKindFloat, s = cudaChannelFormatKindSigned,
             u = cudaChannelFormatKindUnsigned;
  EXPECT_TRUE(same(cudaCreateChannelDesc<float>(), cudaChannelFormatDesc{32, 0, 0, 0, f}));
  EXPECT_TRUE(same(cudaCreateChannelDesc<float4>(), cudaChannelFormatDesc{32, 32, 32, 32, f}));
  EXPECT_TRUE(same(cudaCreateChannelDesc<uchar2>(), cudaChannelFormatDesc{8, 8, 0, 0, u}));
  EXPECT_TRUE(same(cudaCreateChannelDesc<signed char>(), cudaChannelFormatDesc{8, 0, 0, 0, s}));
  EXPECT_TRUE(same(cudaCreateChannelDesc<short4>(), cudaChannelFormatDesc{16, 16, 16, 16, s}));
  EXPECT_TRUE(same(cudaCreateChannelDesc<ushort1>(), cudaChannelFormatDesc{16, 0, 0, 0, u}));
  EXPECT_TRUE(same(cudaCreateChannelDesc<unsigned int>(), cudaChannelFormatDesc{32, 0, 0, 0, u}));
  EXPECT_TRUE(same(cudaCreateChannelDesc<int2>(), cudaChannelFormatDesc{32, 32, 0, 0, s}));
  EXPECT_TRUE(same(cudaCreateChannelDesc<char>(),
                   cudaChannelFormatDesc{8, 0, 0, 0, static_cast<char>(-1) < 0 ? s : u}));
  EXPECT_TRUE(same(cudaCreateChannelDescHalf2(), cudaChannelFormatDesc{16, 16, 0, 0, f}));
  // A type without a descriptor (3-component vectors, doubles) gets kind none.
  EXPECT_TRUE(
      same(cudaCreateChannelDesc<float3>(), cudaChannelFormatDesc{0, 0, 0, 0, cudaChannelFormatKindNone}));
  EXPECT_TRUE(same(cudaCreateChannelDesc(8, 8, 8, 8, u), cudaChannelFormatDesc{8, 8, 8, 8, u}));
}

TEST(Arrays, RejectsChannelDescriptorsCudaCannotHold) {
  const cudaChannelFormatDesc bad[] = {
      cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindFloat),     // 8-bit float
      cudaCreateChannelDesc(32, 0, 32, 0, cudaChannelFormatKindFloat),   // a gap
      cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat),  // three channels
      cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindSigned),   // mixed sizes
      cudaCreateChannelDesc(64, 0, 0, 0, cudaChannelFormatKindUnsigned),
      cudaCreateChannelDesc(24, 0, 0, 0, cudaChannelFormatKindUnsigned),
      cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindNone),
      cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindUnsigned),
      cudaCreateChannelDesc<float3>(),
  };
  for (const cudaChannelFormatDesc& desc : bad) {
    cudaArray_t array = reinterpret_cast<cudaArray_t>(&array);
    EXPECT_EQ(cudaMallocArray(&array, &desc, 4, 4), cudaErrorInvalidChannelDescriptor)
        << desc.x << " " << desc.y;
    EXPECT_EQ(array, nullptr);
  }
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidChannelDescriptor);
  cudaArray_t half2 = make_array(cudaCreateChannelDescHalf2(), 4, 4);
  EXPECT_NE(half2, nullptr);
  EXPECT_EQ(cudaFreeArray(half2), cudaSuccess);
}

TEST(Arrays, ShapesFlagsAndInfo) {
  const cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  EXPECT_EQ(cudaMallocArray(&a, nullptr, 4, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocArray(nullptr, &f32, 4, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocArray(&a, &f32, 0, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocArray(&a, &f32, 4, 4, cudaArrayLayered), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocArray(&a, &f32, 4, 4, 0x400), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 4, 5), cudaArrayCubemap), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 5, 6), cudaArrayCubemap), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 4, 8), cudaArrayCubemap | cudaArrayLayered),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 4, 0), cudaArrayLayered), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 0, 4), 0), cudaErrorInvalidValue);

  struct Case {
    cudaExtent extent;
    unsigned flags;
  };
  const Case good[] = {{make_cudaExtent(8, 0, 0), 0},
                       {make_cudaExtent(8, 3, 0), cudaArraySurfaceLoadStore},
                       {make_cudaExtent(8, 3, 2), 0},
                       {make_cudaExtent(4, 0, 3), cudaArrayLayered},
                       {make_cudaExtent(4, 4, 6), cudaArrayCubemap},
                       {make_cudaExtent(4, 4, 12), cudaArrayCubemap | cudaArrayLayered},
                       {make_cudaExtent(16, 16, 0), cudaArrayTextureGather}};
  for (const Case& c : good) {
    ASSERT_EQ(cudaMalloc3DArray(&a, &f32, c.extent, c.flags), cudaSuccess) << c.flags;
    cudaChannelFormatDesc desc{};
    cudaExtent extent{};
    unsigned flags = 99;
    ASSERT_EQ(cudaArrayGetInfo(&desc, &extent, &flags, a), cudaSuccess);
    EXPECT_TRUE(same(desc, f32));
    EXPECT_EQ(extent.width, c.extent.width);
    EXPECT_EQ(extent.height, c.extent.height);  // 0 for 1D arrays, as CUDA reports
    EXPECT_EQ(extent.depth, c.extent.depth);
    EXPECT_EQ(flags, c.flags);
    EXPECT_EQ(cudaArrayGetInfo(nullptr, nullptr, nullptr, a), cudaSuccess);
    desc = cudaChannelFormatDesc{};
    EXPECT_EQ(cudaGetChannelDesc(&desc, a), cudaSuccess);
    EXPECT_TRUE(same(desc, f32));
    EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
    // A freed array is no array any more.
    EXPECT_EQ(cudaArrayGetInfo(&desc, &extent, &flags, a), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaFreeArray(a), cudaErrorInvalidResourceHandle);
  }
  EXPECT_EQ(cudaFreeArray(nullptr), cudaSuccess);
  EXPECT_EQ(cudaGetChannelDesc(nullptr, a), cudaErrorInvalidValue);
}

TEST(Arrays, LimitsOfAppendixG) {
  const cudaChannelFormatDesc u8 = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t a = nullptr;
  auto refused = [&](cudaExtent e, unsigned flags) {
    return cudaMalloc3DArray(&a, &u8, e, flags) == cudaErrorInvalidValue && a == nullptr;
  };
  ASSERT_EQ(cudaMalloc3DArray(&a, &u8, make_cudaExtent(65536, 0, 0), 0), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_TRUE(refused(make_cudaExtent(65537, 0, 0), 0));
  EXPECT_TRUE(refused(make_cudaExtent(65537, 1, 0), 0));
  EXPECT_TRUE(refused(make_cudaExtent(1, 65536, 0), 0));
  EXPECT_TRUE(refused(make_cudaExtent(1, 32769, 0), cudaArraySurfaceLoadStore));
  EXPECT_TRUE(refused(make_cudaExtent(16385, 1, 0), cudaArrayTextureGather));
  EXPECT_TRUE(refused(make_cudaExtent(4097, 1, 1), 0));
  EXPECT_TRUE(refused(make_cudaExtent(1, 1, 2049), cudaArraySurfaceLoadStore));
  EXPECT_TRUE(refused(make_cudaExtent(16385, 0, 1), cudaArrayLayered));
  EXPECT_TRUE(refused(make_cudaExtent(1, 1, 2049), cudaArrayLayered));
  EXPECT_TRUE(refused(make_cudaExtent(16385, 16385, 6), cudaArrayCubemap));
  EXPECT_TRUE(refused(make_cudaExtent(1, 1, 2052), cudaArrayCubemap | cudaArrayLayered));

  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_EQ(prop.maxTexture1D, 65536);
  EXPECT_EQ(prop.maxTexture1DLinear, 1 << 27);
  EXPECT_EQ(prop.maxTexture2D[0], 65536);
  EXPECT_EQ(prop.maxTexture2D[1], 65535);
  EXPECT_EQ(prop.maxTexture2DLinear[0], 65000);
  EXPECT_EQ(prop.maxTexture2DGather[0], 16384);
  EXPECT_EQ(prop.maxTexture3D[2], 4096);
  EXPECT_EQ(prop.maxTexture2DLayered[2], 2048);
  EXPECT_EQ(prop.maxTextureCubemap, 16384);
  EXPECT_EQ(prop.maxTextureCubemapLayered[1], 2046);
  EXPECT_EQ(prop.maxSurface2D[1], 32768);
  EXPECT_EQ(prop.maxSurface3D[2], 2048);
  EXPECT_EQ(prop.maxTexture1DMipmap, 32768);  // an H100's (the guide's table has none)
  EXPECT_EQ(prop.maxTexture2DMipmap[0], 32768);
  EXPECT_EQ(prop.maxTexture2DMipmap[1], 32768);
  EXPECT_EQ(prop.textureAlignment, 256u);
  EXPECT_EQ(prop.texturePitchAlignment, 32u);
  EXPECT_EQ(prop.surfaceAlignment, 256u);
  int value = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrTexturePitchAlignment, 0), cudaSuccess);
  EXPECT_EQ(value, 32);
  // The texture and surface attributes (CUDA's numbers) report the same fields.
  const std::pair<cudaDeviceAttr, int> attributes[] = {
      {cudaDevAttrMaxTexture1DWidth, prop.maxTexture1D},
      {cudaDevAttrMaxTexture2DHeight, prop.maxTexture2D[1]},
      {cudaDevAttrMaxTexture3DDepth, prop.maxTexture3D[2]},
      {cudaDevAttrMaxTexture2DLayeredLayers, prop.maxTexture2DLayered[2]},
      {cudaDevAttrMaxTexture1DLayeredWidth, prop.maxTexture1DLayered[0]},
      {cudaDevAttrMaxTexture2DGatherWidth, prop.maxTexture2DGather[0]},
      {cudaDevAttrMaxTextureCubemapLayeredLayers, prop.maxTextureCubemapLayered[1]},
      {cudaDevAttrMaxSurface2DHeight, prop.maxSurface2D[1]},
      {cudaDevAttrMaxSurface3DDepth, prop.maxSurface3D[2]},
      {cudaDevAttrMaxSurfaceCubemapLayeredLayers, prop.maxSurfaceCubemapLayered[1]},
      {cudaDevAttrMaxTexture1DLinearWidth, prop.maxTexture1DLinear},
      {cudaDevAttrMaxTexture2DLinearPitch, prop.maxTexture2DLinear[2]},
      {cudaDevAttrMaxTexture1DMipmappedWidth, prop.maxTexture1DMipmap},
      {cudaDevAttrMaxTexture2DMipmappedHeight, prop.maxTexture2DMipmap[1]},
  };
  static_assert(cudaDevAttrMaxTexture1DWidth == 21 && cudaDevAttrMaxTexture1DLayeredWidth == 42 &&
                    cudaDevAttrMaxSurface1DWidth == 55 && cudaDevAttrMaxTexture2DLinearPitch == 72 &&
                    cudaDevAttrMaxTexture1DMipmappedWidth == 77,
                "CUDA's attribute numbers");
  for (const auto& [attribute, expected] : attributes) {
    value = -1;
    EXPECT_EQ(cudaDeviceGetAttribute(&value, attribute, 0), cudaSuccess) << attribute;
    EXPECT_EQ(value, expected) << attribute;
  }
}

TEST(ArrayCopies, TwoDimensionalRoundTripAndErrors) {
  cudaArray_t a = make_array(cudaCreateChannelDesc<float>(), 8, 4);
  std::vector<float> host(64);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i);
  // The 4 x 3 box at texel (1, 1) from rows 16 bytes apart.
  ASSERT_EQ(cudaMemcpy2DToArray(a, 4, 1, host.data(), 16, 16, 3, cudaMemcpyHostToDevice), cudaSuccess);
  std::vector<float> back(12, -1.0f);
  ASSERT_EQ(cudaMemcpy2DFromArray(back.data(), 16, a, 4, 1, 16, 3, cudaMemcpyDeviceToHost), cudaSuccess);
  for (size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i], host[i]);
  // Byte offsets and widths need not be whole texels (as on an H100).
  EXPECT_EQ(cudaMemcpy2DToArray(a, 2, 0, host.data(), 16, 6, 1, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 20, 0, host.data(), 16, 16, 1, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 2, host.data(), 16, 16, 3, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 0, host.data(), 8, 16, 2, cudaMemcpyHostToDevice),
            cudaErrorInvalidPitchValue);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 0, host.data(), 16, 16, 1, cudaMemcpyDeviceToHost),
            cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemcpy2DToArray(nullptr, 0, 0, host.data(), 16, 16, 1, cudaMemcpyHostToDevice),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaMemcpy2DFromArray(back.data(), 16, a, 0, 0, 16, 1, cudaMemcpyHostToDevice),
            cudaErrorInvalidMemcpyDirection);
  // A device pointer said to be host memory, and the way back through device memory.
  float* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, 256), cudaSuccess);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 0, device, 32, 32, 2, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  ASSERT_EQ(cudaMemcpy2DFromArray(device, 32, a, 0, 0, 32, 4, cudaMemcpyDeviceToDevice), cudaSuccess);
  cudaArray_t b = make_array(cudaCreateChannelDesc<float>(), 8, 4);
  ASSERT_EQ(cudaMemcpy2DToArrayAsync(b, 0, 0, device, 32, 32, 4, cudaMemcpyDefault, 0), cudaSuccess);
  std::vector<float> from_a(32), from_b(32);
  ASSERT_EQ(cudaMemcpy2DFromArray(from_a.data(), 32, a, 0, 0, 32, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DFromArrayAsync(from_b.data(), 32, b, 0, 0, 32, 4, cudaMemcpyDeviceToHost, 0),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(from_a, from_b);
  EXPECT_EQ(from_a[1 * 8 + 1], 0.0f);  // texel (1, 1) holds host[0]
  ASSERT_EQ(cudaMemcpy2DArrayToArray(b, 0, 3, a, 4, 1, 16, 1), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DFromArray(from_b.data(), 32, b, 0, 0, 32, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(from_b[3 * 8 + 0], host[0]);
  EXPECT_EQ(from_b[3 * 8 + 3], host[3]);
  EXPECT_EQ(cudaFree(device), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(b), cudaSuccess);
}

TEST(ArrayCopies, ToArrayGoesOnAtTheNextRow) {
  cudaArray_t a = make_array(cudaCreateChannelDesc<float>(), 8, 4);
  std::vector<float> host(32);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i);
  ASSERT_EQ(cudaMemcpyToArray(a, 0, 0, host.data(), 128, cudaMemcpyHostToDevice), cudaSuccess);
  // 8 bytes from byte 28 of row 0: texel 7 of row 0 and texel 0 of row 1.
  ASSERT_EQ(cudaMemcpyToArray(a, 28, 0, host.data(), 8, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpyToArray(a, 16, 1, host.data(), 40, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpyToArray(a, 16, 3, host.data(), 40, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  std::vector<float> back(32);
  ASSERT_EQ(cudaMemcpyFromArray(back.data(), a, 0, 0, 128, cudaMemcpyDeviceToHost), cudaSuccess);
  // An H100 printed "ToArray wrap: 0 1 9" for texels 7, 8 and 9 (its run had no third copy).
  EXPECT_EQ(back[7], 0.0f);
  EXPECT_EQ(back[8], 1.0f);
  EXPECT_EQ(back[9], 9.0f);
  // The third copy: byte 16 of row 1 is texel 12; 40 bytes are texels 12 to 21.
  EXPECT_EQ(back[11], 11.0f);
  EXPECT_EQ(back[12], 0.0f);
  EXPECT_EQ(back[16], 4.0f);  // row 2 goes on where row 1 ended
  EXPECT_EQ(back[21], 9.0f);
  EXPECT_EQ(back[22], 22.0f);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

TEST(ArrayCopies, ThreeDimensionalCopiesAndPitchedMemory) {
  // A 3 x 2 x 2 array of float2 (8-byte texels).
  cudaArray_t a = nullptr;
  const cudaChannelFormatDesc f2 = cudaCreateChannelDesc<float2>();
  ASSERT_EQ(cudaMalloc3DArray(&a, &f2, make_cudaExtent(3, 2, 2)), cudaSuccess);
  std::vector<float> host(3 * 2 * 2 * 2);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i + 1);
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(host.data(), 3 * 8, 3 * 8, 2);
  p.dstArray = a;
  p.extent = make_cudaExtent(3, 2, 2);
  p.kind = cudaMemcpyHostToDevice;
  ASSERT_EQ(cudaMemcpy3D(&p), cudaSuccess);

  // Array to pitched device memory (cudaMalloc3D), then to the host.
  cudaPitchedPtr pitched{};
  ASSERT_EQ(cudaMalloc3D(&pitched, make_cudaExtent(3 * 8, 2, 2)), cudaSuccess);
  EXPECT_EQ(pitched.pitch, 256u);
  EXPECT_EQ(pitched.xsize, 24u);
  EXPECT_EQ(pitched.ysize, 2u);
  ASSERT_EQ(cudaMemset3D(pitched, 0, make_cudaExtent(3 * 8, 2, 2)), cudaSuccess);
  cudaMemcpy3DParms q = {};
  q.srcArray = a;
  q.srcPos = make_cudaPos(1, 0, 1);  // texel (1, 0) of slice 1
  q.dstPtr = pitched;
  q.dstPos = make_cudaPos(8, 0, 1);  // bytes, rows, slices
  q.extent = make_cudaExtent(2, 2, 1);
  q.kind = cudaMemcpyDefault;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaMemcpy3DAsync(&q, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<float> back(pitched.pitch / 4 * 2 * 2, -1.0f);
  ASSERT_EQ(cudaMemcpy(back.data(), pitched.ptr, back.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  auto at = [&](size_t x_bytes, size_t y, size_t z) {
    return back[(z * pitched.ysize * pitched.pitch + y * pitched.pitch + x_bytes) / 4];
  };
  // Texel (x, y) of slice z of the array is host[((z * 2 + y) * 3 + x) * 2].
  EXPECT_EQ(at(8, 0, 1), host[14]);
  EXPECT_EQ(at(12, 0, 1), host[15]);
  EXPECT_EQ(at(16, 0, 1), host[16]);
  EXPECT_EQ(at(20, 0, 1), host[17]);
  EXPECT_EQ(at(8, 1, 1), host[20]);
  EXPECT_EQ(at(0, 0, 1), 0.0f);  // untouched
  EXPECT_EQ(at(24, 0, 1), 0.0f);
  EXPECT_EQ(at(8, 0, 0), 0.0f);

  // Misuse (the H100's answers).
  p.srcArray = a;
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);  // two sources
  p.srcArray = nullptr;
  p.extent = make_cudaExtent(4, 2, 1);
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);  // past the array
  p.extent = make_cudaExtent(3, 2, 3);
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  p.extent = make_cudaExtent(3, 2, 0);
  EXPECT_EQ(cudaMemcpy3D(&p), cudaSuccess);  // nothing to copy
  p.extent = make_cudaExtent(3, 2, 1);
  p.srcPtr = make_cudaPitchedPtr(host.data(), 16, 24, 2);
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);  // pitch below the row
  p.kind = cudaMemcpyDeviceToHost;
  p.srcPtr = make_cudaPitchedPtr(host.data(), 24, 24, 2);
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidMemcpyDirection);  // the array is no host memory
  EXPECT_EQ(cudaMemcpy3D(nullptr), cudaErrorInvalidValue);
  // Sizes whose product wraps round are refused, not copied from wherever they point.
  p.kind = cudaMemcpyHostToDevice;
  p.extent = make_cudaExtent(3, 2, 2);
  p.srcPtr = make_cudaPitchedPtr(host.data(), 24, 24, SIZE_MAX / 8);
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);

  // cudaMemset2D on the pitched memory.
  ASSERT_EQ(cudaMemset2D(pitched.ptr, pitched.pitch, 0x7F, 5, 3), cudaSuccess);
  std::vector<uint8_t> bytes(pitched.pitch * 4);
  ASSERT_EQ(cudaMemcpy(bytes.data(), pitched.ptr, bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(bytes[2 * pitched.pitch + 4], 0x7F);
  EXPECT_NE(bytes[2 * pitched.pitch + 5], 0x7F);
  EXPECT_NE(bytes[3 * pitched.pitch], 0x7F);
  EXPECT_EQ(cudaMemset2D(pitched.ptr, 4, 1, 10, 3), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset2D(pitched.ptr, pitched.pitch, 1, 10, 5),
            cudaErrorInvalidValue);  // past the allocation

  EXPECT_EQ(cudaMemset3D(make_cudaPitchedPtr(pitched.ptr, pitched.pitch, 24, SIZE_MAX / 16), 0,
                         make_cudaExtent(24, 2, 2)),
            cudaErrorInvalidValue);
  EXPECT_EQ(
      cudaMemset3D(make_cudaPitchedPtr(pitched.ptr, pitched.pitch, 24, 2), 0, make_cudaExtent(24, 3, 2)),
      cudaErrorInvalidValue);  // slices would overlap
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(cudaFree(pitched.ptr), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

// The resource and texture descriptions of a 2D float array, point sampled.
struct TextureSetup {
  cudaResourceDesc resource{};
  cudaTextureDesc texture{};
  explicit TextureSetup(cudaArray_t array) {
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
  }
};

TEST(TextureObjects, ValidationFollowsCuda) {
  cudaArray_t a = make_array(cudaCreateChannelDesc<float>(), 8, 4);
  TextureSetup s(a);
  cudaTextureObject_t tex = 0;
  EXPECT_EQ(cudaCreateTextureObject(&tex, nullptr, &s.texture, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaCreateTextureObject(&tex, &s.resource, nullptr, nullptr), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaCreateTextureObject(nullptr, &s.resource, &s.texture, nullptr), cudaErrorInvalidValue);
  s.resource.res.array.array = nullptr;
  EXPECT_EQ(cudaCreateTextureObject(&tex, &s.resource, &s.texture, nullptr), cudaErrorInvalidResourceHandle);
  s.resource.res.array.array = a;
  s.texture.filterMode = cudaFilterModeLinear;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &s.resource, &s.texture, nullptr), cudaSuccess);
  EXPECT_NE(tex, 0u);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaErrorInvalidValue);  // destroyed already
  EXPECT_EQ(cudaDestroyTextureObject(0), cudaSuccess);
  s.texture.readMode = cudaReadModeNormalizedFloat;
  EXPECT_EQ(cudaCreateTextureObject(&tex, &s.resource, &s.texture, nullptr), cudaErrorInvalidNormSetting);
  s.texture.readMode = cudaReadModeElementType;
  s.texture.addressMode[0] = static_cast<cudaTextureAddressMode>(7);
  EXPECT_EQ(cudaCreateTextureObject(&tex, &s.resource, &s.texture, nullptr), cudaErrorInvalidValue);
  s.texture.addressMode[0] = cudaAddressModeWrap;  // unnormalized: allowed (acts as clamp)
  s.texture.filterMode = static_cast<cudaTextureFilterMode>(5);
  EXPECT_EQ(cudaCreateTextureObject(&tex, &s.resource, &s.texture, nullptr), cudaErrorInvalidValue);
  // Stricter than an H100, which takes an undefined read mode as element type.
  s.texture.filterMode = cudaFilterModePoint;
  s.texture.readMode = static_cast<cudaTextureReadMode>(5);
  EXPECT_EQ(cudaCreateTextureObject(&tex, &s.resource, &s.texture, nullptr), cudaErrorInvalidValue);
  s.texture.readMode = cudaReadModeElementType;
  cudaResourceViewDesc view{};
  EXPECT_EQ(cudaCreateTextureObject(&tex, &s.resource, &s.texture, &view), cudaErrorInvalidValue);
  view.format = static_cast<cudaResourceViewFormat>(1);
  EXPECT_EQ(cudaCreateTextureObject(&tex, &s.resource, &s.texture, &view), cudaErrorNotSupported);

  // Linear filtering needs float results.
  cudaArray_t ints = make_array(cudaCreateChannelDesc<int>(), 8, 4);
  cudaArray_t bytes = make_array(cudaCreateChannelDesc<unsigned char>(), 8, 4);
  TextureSetup i(ints), b(bytes);
  i.texture.filterMode = b.texture.filterMode = cudaFilterModeLinear;
  EXPECT_EQ(cudaCreateTextureObject(&tex, &i.resource, &i.texture, nullptr), cudaErrorInvalidFilterSetting);
  i.texture.readMode = cudaReadModeNormalizedFloat;
  EXPECT_EQ(cudaCreateTextureObject(&tex, &i.resource, &i.texture, nullptr), cudaErrorInvalidFilterSetting);
  i.texture.filterMode = cudaFilterModePoint;
  EXPECT_EQ(cudaCreateTextureObject(&tex, &i.resource, &i.texture, nullptr), cudaErrorInvalidNormSetting);
  EXPECT_EQ(cudaCreateTextureObject(&tex, &b.resource, &b.texture, nullptr), cudaErrorInvalidFilterSetting);
  b.texture.readMode = cudaReadModeNormalizedFloat;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &b.resource, &b.texture, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);

  // Linear and pitched memory.
  char* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 1 << 16), cudaSuccess);
  cudaResourceDesc r{};
  cudaTextureDesc t{};
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = dev;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = 1024;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
  r.res.linear.devPtr = dev + 4;
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaErrorInvalidValue);  // textureAlignment
  r.res.linear.devPtr = dev + (1 << 16) - 512;
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr),
            cudaErrorInvalidValue);  // runs past the allocation
  r.res.linear.devPtr = dev;
  r.res.linear.sizeInBytes = 1022;  // ends at the last whole texel
  ASSERT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaSuccess);
  EXPECT_EQ(descriptor_of(tex).width, 255u);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
  r.res.linear.desc = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaErrorInvalidChannelDescriptor);
  r.res.linear.devPtr = nullptr;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaErrorInvalidValue);
  r = cudaResourceDesc{};
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = dev;
  r.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  r.res.pitch2D.width = 10;
  r.res.pitch2D.height = 4;
  r.res.pitch2D.pitchInBytes = 64;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
  r.res.pitch2D.pitchInBytes = 48;  // not a multiple of texturePitchAlignment
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaErrorInvalidValue);
  r.res.pitch2D.pitchInBytes = 64;
  r.res.pitch2D.devPtr = dev + 32;
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaErrorInvalidValue);
  r.res.pitch2D.devPtr = dev;
  r.res.pitch2D.width = 65001;
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaErrorInvalidValue);
  r.resType = static_cast<cudaResourceType>(9);
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaErrorInvalidValue);
  r.resType = cudaResourceTypeMipmappedArray;  // r.res holds no mipmapped array
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaErrorInvalidResourceHandle);

  EXPECT_EQ(cudaFree(dev), cudaSuccess);
  for (cudaArray_t array : {a, ints, bytes}) EXPECT_EQ(cudaFreeArray(array), cudaSuccess);
}

TEST(TextureObjects, DescriptorAndTexelsInDeviceMemory) {
  // A 2-layer 5 x 3 array of float: texel (x, y) of layer l holds 100 l + 10 y + x.
  cudaArray_t a = nullptr;
  const cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
  ASSERT_EQ(cudaMalloc3DArray(&a, &f32, make_cudaExtent(5, 3, 2), cudaArrayLayered), cudaSuccess);
  std::vector<float> host(5 * 3 * 2);
  for (int l = 0; l < 2; ++l)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x) host[(l * 3 + y) * 5 + x] = static_cast<float>(100 * l + 10 * y + x);
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(host.data(), 20, 5, 3);
  p.dstArray = a;
  p.extent = make_cudaExtent(5, 3, 2);
  p.kind = cudaMemcpyHostToDevice;
  ASSERT_EQ(cudaMemcpy3D(&p), cudaSuccess);

  TextureSetup s(a);
  s.texture.addressMode[0] = cudaAddressModeWrap;
  s.texture.addressMode[1] = cudaAddressModeMirror;
  s.texture.addressMode[2] = cudaAddressModeBorder;
  s.texture.filterMode = cudaFilterModeLinear;
  s.texture.normalizedCoords = 1;
  s.texture.borderColor[0] = 0.5f;
  s.texture.borderColor[3] = -2.0f;
  s.texture.maxAnisotropy = 4;  // kept, no effect
  cudaTextureObject_t tex = 0;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &s.resource, &s.texture, nullptr), cudaSuccess);
  EXPECT_EQ(tex % 64, 0u);  // one memory line

  const kestrel::contract::TexDesc d = descriptor_of(tex);
  EXPECT_EQ(d.shape, KESTREL_TEX_SHAPE_2D_LAYERED);
  EXPECT_EQ(d.width, 5u);
  EXPECT_EQ(d.height, 3u);
  EXPECT_EQ(d.depth, 1u);
  EXPECT_EQ(d.layers, 2u);
  EXPECT_EQ(d.pitch, 64u);  // 20 bytes rounded up to a line
  EXPECT_EQ(d.slice_pitch, 3u * 64u);
  EXPECT_EQ(d.channel_kind, KESTREL_TEX_CHANNEL_FLOAT);
  EXPECT_EQ(d.channel_size, 2u);
  EXPECT_EQ(d.channels, 1u);
  EXPECT_EQ(d.address_x, KESTREL_TEX_ADDRESS_WRAP);
  EXPECT_EQ(d.address_y, KESTREL_TEX_ADDRESS_MIRROR);
  EXPECT_EQ(d.address_z, KESTREL_TEX_ADDRESS_BORDER);
  EXPECT_EQ(d.filter, true);
  EXPECT_EQ(d.normalized_coords, true);
  EXPECT_EQ(d.read_normalized, false);
  EXPECT_EQ(d.surface, false);
  EXPECT_EQ(d.border_r, 0x3F000000u);
  EXPECT_EQ(d.border_a, 0xC0000000u);
  EXPECT_EQ(d.unit_fetch, true);  // kx.tex fetches it
  EXPECT_EQ(d.pad, 0u);

  // Texel (x, y) of layer l is at base + l * slice_pitch + y * pitch + 4 x.
  const std::vector<uint32_t> row = device_words(d.base_addr + 1 * d.slice_pitch + 2 * d.pitch, 5);
  for (uint32_t x = 0; x < 5; ++x) {
    float texel = 0;
    std::memcpy(&texel, &row[x], 4);
    EXPECT_EQ(texel, 120.0f + static_cast<float>(x));
  }

  cudaTextureDesc t{};
  ASSERT_EQ(cudaGetTextureObjectTextureDesc(&t, tex), cudaSuccess);
  EXPECT_EQ(t.addressMode[1], cudaAddressModeMirror);
  EXPECT_EQ(t.maxAnisotropy, 4u);
  EXPECT_EQ(t.borderColor[3], -2.0f);
  cudaResourceDesc r{};
  ASSERT_EQ(cudaGetTextureObjectResourceDesc(&r, tex), cudaSuccess);
  EXPECT_EQ(r.resType, cudaResourceTypeArray);
  EXPECT_EQ(r.res.array.array, a);
  EXPECT_EQ(cudaGetTextureObjectResourceDesc(nullptr, tex), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetSurfaceObjectResourceDesc(&r, tex), cudaErrorInvalidValue);  // a texture, not a surface
  EXPECT_EQ(cudaDestroySurfaceObject(tex), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
  EXPECT_EQ(cudaGetTextureObjectTextureDesc(&t, tex), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

// Mipmapped arrays (guide 3.2.11.1): levels, the H100's error codes
// (texture_mipmap.expected's last lines) and the descriptor of a texture
// over one: level 0's image, the mipmap fields, and one descriptor per level
// after it.
// The descriptor's unit_fetch flag (docs/isa.md section 2.5): set exactly
// for the objects the texture unit fetches, which kx.tex fetches and the SDK
// fetches in software otherwise.
TEST(TextureObjects, UnitFetchFlagSaysWhatTheTextureUnitFetches) {
  struct Case {
    const char* what;
    cudaChannelFormatDesc format;
    cudaExtent extent;  // cudaMalloc3DArray's
    unsigned flags;
    cudaTextureReadMode read;
    cudaTextureFilterMode filter;
    int srgb;
    bool fetched;
  };
  const cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>(), u8x4 = cudaCreateChannelDesc<uchar4>(),
                              s16 = cudaCreateChannelDesc<short>(), half = cudaCreateChannelDescHalf();
  const Case cases[] = {
      {"1D float", f32, make_cudaExtent(16, 0, 0), 0, cudaReadModeElementType, cudaFilterModeLinear, 0, true},
      {"2D uchar4 normalized", u8x4, make_cudaExtent(8, 4, 0), 0, cudaReadModeNormalizedFloat,
       cudaFilterModeLinear, 0, true},
      {"3D half", half, make_cudaExtent(4, 4, 4), 0, cudaReadModeElementType, cudaFilterModeLinear, 0, true},
      {"1D layered short", s16, make_cudaExtent(8, 0, 3), cudaArrayLayered, cudaReadModeElementType,
       cudaFilterModePoint, 0, true},
      {"2D layered float", f32, make_cudaExtent(4, 4, 2), cudaArrayLayered, cudaReadModeElementType,
       cudaFilterModePoint, 0, true},
      {"sRGB float (the flag changes nothing)", f32, make_cudaExtent(8, 4, 0), 0, cudaReadModeElementType,
       cudaFilterModePoint, 1, true},
      {"sRGB uchar4 element type", u8x4, make_cudaExtent(8, 4, 0), 0, cudaReadModeElementType,
       cudaFilterModePoint, 1, true},
      {"sRGB uchar4 normalized", u8x4, make_cudaExtent(8, 4, 0), 0, cudaReadModeNormalizedFloat,
       cudaFilterModePoint, 1, false},
      {"cubemap", f32, make_cudaExtent(4, 4, 6), cudaArrayCubemap, cudaReadModeElementType,
       cudaFilterModePoint, 0, false},
      {"layered cubemap", f32, make_cudaExtent(4, 4, 12), cudaArrayCubemap | cudaArrayLayered,
       cudaReadModeElementType, cudaFilterModePoint, 0, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    cudaArray_t a = nullptr;
    ASSERT_EQ(cudaMalloc3DArray(&a, &c.format, c.extent, c.flags), cudaSuccess);
    TextureSetup s(a);
    s.texture.readMode = c.read;
    s.texture.filterMode = c.filter;
    s.texture.sRGB = c.srgb;
    cudaTextureObject_t tex = 0;
    ASSERT_EQ(cudaCreateTextureObject(&tex, &s.resource, &s.texture, nullptr), cudaSuccess);
    EXPECT_EQ(descriptor_of(tex).unit_fetch, c.fetched);
    EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
    EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  }
  // Linear memory is tex1Dfetch's (the 1D fetch form), also with a linear
  // filter, which tex1Dfetch ignores, but not when no whole texel fits (the
  // software path returns 0); pitched 2D memory is the 2D form's.
  float* memory = nullptr;
  ASSERT_EQ(cudaMalloc(&memory, 4096), cudaSuccess);
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = memory;
  r.res.linear.desc = f32;
  r.res.linear.sizeInBytes = 4096;
  cudaTextureDesc t{};
  cudaTextureObject_t tex = 0;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaSuccess);
  EXPECT_EQ(descriptor_of(tex).unit_fetch, true);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
  t.filterMode = cudaFilterModeLinear;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaSuccess);
  EXPECT_EQ(descriptor_of(tex).unit_fetch, true);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
  r.res.linear.sizeInBytes = 3;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaSuccess);
  EXPECT_EQ(descriptor_of(tex).unit_fetch, false);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
  t.filterMode = cudaFilterModePoint;
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = memory;
  r.res.pitch2D.desc = f32;
  r.res.pitch2D.width = 16;
  r.res.pitch2D.height = 8;
  r.res.pitch2D.pitchInBytes = 128;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaSuccess);
  EXPECT_EQ(descriptor_of(tex).unit_fetch, true);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
  EXPECT_EQ(cudaFree(memory), cudaSuccess);
}

TEST(MipmappedArrays, LevelsErrorsAndDescriptors) {
  const cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m = nullptr;
  cudaArray_t level = nullptr;
  cudaChannelFormatDesc desc{};
  cudaExtent e{};
  unsigned flags = 0;
  // numLevels is clamped to [1, 1 + floor(log2(largest axis))].
  ASSERT_EQ(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(20, 9, 5), 100), cudaSuccess);
  const size_t expected[][3] = {{20, 9, 5}, {10, 4, 2}, {5, 2, 1}, {2, 1, 1}, {1, 1, 1}};
  for (unsigned l = 0; l < 5; ++l) {
    ASSERT_EQ(cudaGetMipmappedArrayLevel(&level, m, l), cudaSuccess);
    ASSERT_EQ(cudaArrayGetInfo(&desc, &e, &flags, level), cudaSuccess);
    EXPECT_EQ(e.width, expected[l][0]);
    EXPECT_EQ(e.height, expected[l][1]);
    EXPECT_EQ(e.depth, expected[l][2]);
  }
  EXPECT_EQ(cudaGetMipmappedArrayLevel(&level, m, 5), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetMipmappedArrayLevel(nullptr, m, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetMipmappedArrayLevel(&level, nullptr, 0), cudaErrorInvalidResourceHandle);
  // A level belongs to its mipmapped array (an H100 says cudaSuccess and
  // frees nothing; Kestrel says so with an error).
  ASSERT_EQ(cudaGetMipmappedArrayLevel(&level, m, 1), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(level), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeMipmappedArray(m), cudaSuccess);
  EXPECT_EQ(cudaFreeMipmappedArray(m), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaArrayGetInfo(&desc, &e, &flags, level), cudaErrorInvalidResourceHandle);  // gone with it
  EXPECT_EQ(cudaFreeMipmappedArray(nullptr), cudaSuccess);

  // Layers and faces keep their count; bad shapes and sizes as cudaMalloc3DArray's.
  ASSERT_EQ(
      cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(8, 8, 12), 9, cudaArrayCubemap | cudaArrayLayered),
      cudaSuccess);
  ASSERT_EQ(cudaGetMipmappedArrayLevel(&level, m, 3), cudaSuccess);
  ASSERT_EQ(cudaArrayGetInfo(&desc, &e, &flags, level), cudaSuccess);
  EXPECT_EQ(e.width, 1u);
  EXPECT_EQ(e.depth, 12u);
  EXPECT_EQ(flags, static_cast<unsigned>(cudaArrayCubemap | cudaArrayLayered));
  EXPECT_EQ(cudaGetMipmappedArrayLevel(&level, m, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeMipmappedArray(m), cudaSuccess);
  EXPECT_EQ(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(8, 4, 6), 2, cudaArrayCubemap),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(0, 4, 0), 2), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocMipmappedArray(nullptr, &f32, make_cudaExtent(4, 4, 0), 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocMipmappedArray(&m, nullptr, make_cudaExtent(4, 4, 0), 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(32769, 0, 0), 2), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(32769, 4, 0), 2), cudaErrorInvalidValue);
  const cudaChannelFormatDesc three = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
  EXPECT_EQ(cudaMallocMipmappedArray(&m, &three, make_cudaExtent(4, 4, 0), 1),
            cudaErrorInvalidChannelDescriptor);

  // A texture object over a 16 x 8 mipmap of 5 levels.
  ASSERT_EQ(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(16, 8, 0), 5), cudaSuccess);
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeMipmappedArray;
  r.res.mipmap.mipmap = m;
  cudaTextureDesc t{};
  t.normalizedCoords = 1;
  t.filterMode = cudaFilterModeLinear;
  t.mipmapFilterMode = static_cast<cudaTextureFilterMode>(7);
  cudaTextureObject_t tex = 0;
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaErrorInvalidValue);  // the H100's answer
  t.mipmapFilterMode = cudaFilterModeLinear;
  t.mipmapLevelBias = 0.5f;
  t.minMipmapLevelClamp = 1.0f;
  t.maxMipmapLevelClamp = 3.25f;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaSuccess);
  const kestrel::contract::TexDesc d = descriptor_of(tex);
  EXPECT_EQ(d.shape, KESTREL_TEX_SHAPE_2D);
  EXPECT_EQ(d.width, 16u);
  EXPECT_EQ(d.height, 8u);
  EXPECT_EQ(d.mip_levels, 5u);
  EXPECT_EQ(d.mip_filter, true);
  EXPECT_EQ(d.lod_bias, 0x3F000000u);
  EXPECT_EQ(d.min_lod_clamp, 0x3F800000u);
  EXPECT_EQ(d.max_lod_clamp, 0x40500000u);
  EXPECT_EQ(d.levels_addr, tex + 64);
  EXPECT_EQ(d.unit_fetch, false);  // mipmapped: fetched in software
  EXPECT_EQ(d.pad, 0u);
  for (unsigned l = 0; l < 5; ++l) {
    const kestrel::contract::TexDesc ld = descriptor_of(d.levels_addr + 64 * l);
    ASSERT_EQ(cudaGetMipmappedArrayLevel(&level, m, l), cudaSuccess);
    EXPECT_EQ(ld.width, std::max(16u >> l, 1u));
    EXPECT_EQ(ld.height, std::max(8u >> l, 1u));
    EXPECT_EQ(ld.mip_levels, 0u);
    EXPECT_EQ(ld.unit_fetch, false);  // a level is no object
    EXPECT_EQ(ld.filter, true);
    EXPECT_EQ(ld.normalized_coords, true);
    if (l == 0) {
      EXPECT_EQ(ld.base_addr, d.base_addr);
    }
  }
  cudaResourceDesc back{};
  ASSERT_EQ(cudaGetTextureObjectResourceDesc(&back, tex), cudaSuccess);
  EXPECT_EQ(back.resType, cudaResourceTypeMipmappedArray);
  EXPECT_EQ(back.res.mipmap.mipmap, m);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
  // Blending two levels returns floats: not for integers read as integers.
  cudaMipmappedArray_t ints = nullptr;
  const cudaChannelFormatDesc i32 = cudaCreateChannelDesc<int>();
  ASSERT_EQ(cudaMallocMipmappedArray(&ints, &i32, make_cudaExtent(16, 8, 0), 5), cudaSuccess);
  r.res.mipmap.mipmap = ints;
  t.filterMode = cudaFilterModePoint;
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaErrorInvalidFilterSetting);
  t.mipmapFilterMode = cudaFilterModePoint;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaSuccess);
  // A surface is one array: a level, not the mipmapped array.
  cudaSurfaceObject_t surf = 0;
  EXPECT_EQ(cudaCreateSurfaceObject(&surf, &r), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeMipmappedArray(ints), cudaSuccess);
  EXPECT_EQ(cudaFreeMipmappedArray(m), cudaSuccess);
  r.res.mipmap.mipmap = m;  // freed
  EXPECT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaErrorInvalidResourceHandle);
  (void)cudaGetLastError();
}

// Texture references (guide 3.2.11.1.2) are variables clang registers from a
// .cu file (tests/cuda/programs/texture_reference.cu binds and fetches
// them); here, every call refuses what is not one.
TEST(TextureReferences, OnlyRegisteredReferencesAreAccepted) {
  static textureReference plain;
  void* data = nullptr;
  ASSERT_EQ(cudaMalloc(&data, 1024), cudaSuccess);
  cudaArray_t a = make_array(cudaCreateChannelDesc<float>(), 8, 4);
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  size_t offset = 7;
  EXPECT_EQ(cudaBindTexture(&offset, &plain, data, &desc, 1024), cudaErrorInvalidTexture);
  EXPECT_EQ(offset, 0u);
  EXPECT_EQ(cudaBindTexture(&offset, nullptr, data, &desc, 1024), cudaErrorInvalidTexture);
  EXPECT_EQ(cudaBindTexture2D(&offset, &plain, data, &desc, 8, 4, 256), cudaErrorInvalidTexture);
  EXPECT_EQ(cudaBindTextureToArray(&plain, a, &desc), cudaErrorInvalidTexture);
  cudaMipmappedArray_t mip = nullptr;
  ASSERT_EQ(cudaMallocMipmappedArray(&mip, &desc, make_cudaExtent(8, 4, 0), 2), cudaSuccess);
  EXPECT_EQ(cudaBindTextureToMipmappedArray(&plain, mip, &desc), cudaErrorInvalidTexture);
  EXPECT_EQ(cudaBindTextureToMipmappedArray(nullptr, mip, &desc), cudaErrorInvalidTexture);
  EXPECT_EQ(cudaFreeMipmappedArray(mip), cudaSuccess);
  EXPECT_EQ(cudaUnbindTexture(&plain), cudaErrorInvalidTexture);
  EXPECT_EQ(cudaGetTextureAlignmentOffset(&offset, &plain), cudaErrorInvalidTexture);
  EXPECT_EQ(cudaGetTextureAlignmentOffset(nullptr, &plain), cudaErrorInvalidValue);
  const textureReference* found = &plain;
  EXPECT_EQ(cudaGetTextureReference(&found, &plain), cudaErrorInvalidTexture);
  EXPECT_EQ(found, nullptr);
  EXPECT_EQ(cudaGetTextureReference(nullptr, &plain), cudaErrorInvalidValue);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorInvalidTextureBinding), "cudaErrorInvalidTextureBinding");
  cudaGetLastError();
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaFree(data), cudaSuccess);
}

// Surface references (guide 3.2.11.2.2), likewise: registered from a .cu
// file (tests/cuda/programs/surface_reference.cu binds and uses them); a
// surface<void, Type> declared in a host C++ file is a plain struct that
// clang does not register, so it is refused as any surfaceReference is.
TEST(SurfaceReferences, OnlyRegisteredReferencesAreAccepted) {
  static surfaceReference plain;
  static surface<void, cudaSurfaceType2D> host_only;
  cudaArray_t a = make_array(cudaCreateChannelDesc<float>(), 8, 4, cudaArraySurfaceLoadStore);
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  EXPECT_EQ(cudaBindSurfaceToArray(&plain, a, &desc), cudaErrorInvalidSurface);
  EXPECT_EQ(cudaBindSurfaceToArray(static_cast<const surfaceReference*>(nullptr), a, &desc),
            cudaErrorInvalidSurface);
  EXPECT_EQ(cudaBindSurfaceToArray(host_only, a), cudaErrorInvalidSurface);
  const surfaceReference* found = &plain;
  EXPECT_EQ(cudaGetSurfaceReference(&found, &plain), cudaErrorInvalidSurface);
  EXPECT_EQ(found, nullptr);
  EXPECT_EQ(cudaGetSurfaceReference(static_cast<const surfaceReference**>(nullptr), &plain),
            cudaErrorInvalidValue);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorInvalidSurface), "cudaErrorInvalidSurface");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidSurface), "invalid surface reference");
  // surface<void, Type> records no channels; surface<T, Type> records T's.
  EXPECT_EQ(host_only.channelDesc.f, cudaChannelFormatKindNone);
  EXPECT_EQ(surface<float2>().channelDesc.y, 32);
  cudaGetLastError();
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

TEST(SurfaceObjects, ArraysMadeForSurfacesOnly) {
  const cudaChannelFormatDesc u8x4 = cudaCreateChannelDesc<uchar4>();
  cudaArray_t plain = make_array(u8x4, 8, 4);
  cudaArray_t surface_array = nullptr;
  ASSERT_EQ(cudaMalloc3DArray(&surface_array, &u8x4, make_cudaExtent(8, 8, 6),
                              cudaArrayCubemap | cudaArraySurfaceLoadStore),
            cudaSuccess);
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = plain;
  cudaSurfaceObject_t surf = 0;
  // Guide 3.2.11.2 (an H100 accepts it; Kestrel holds programs to the guide).
  EXPECT_EQ(cudaCreateSurfaceObject(&surf, &r), cudaErrorInvalidValue);
  EXPECT_EQ(cudaCreateSurfaceObject(&surf, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaCreateSurfaceObject(nullptr, &r), cudaErrorInvalidValue);
  r.res.array.array = surface_array;
  ASSERT_EQ(cudaCreateSurfaceObject(&surf, &r), cudaSuccess);
  const kestrel::contract::TexDesc d = descriptor_of(surf);
  EXPECT_EQ(d.surface, true);
  EXPECT_EQ(d.shape, KESTREL_TEX_SHAPE_CUBEMAP);
  EXPECT_EQ(d.layers, 6u);
  EXPECT_EQ(d.width, 8u);
  EXPECT_EQ(d.height, 8u);
  EXPECT_EQ(d.channels, 4u);
  EXPECT_EQ(d.channel_size, 0u);
  EXPECT_EQ(d.channel_kind, KESTREL_TEX_CHANNEL_UNSIGNED);
  EXPECT_EQ(d.filter, false);  // surfaces neither filter nor address
  EXPECT_EQ(d.unit_fetch, false);
  cudaResourceDesc back{};
  ASSERT_EQ(cudaGetSurfaceObjectResourceDesc(&back, surf), cudaSuccess);
  EXPECT_EQ(back.res.array.array, surface_array);
  EXPECT_EQ(cudaDestroyTextureObject(surf), cudaErrorInvalidValue);  // a surface, not a texture
  EXPECT_EQ(cudaDestroySurfaceObject(surf), cudaSuccess);
  EXPECT_EQ(cudaDestroySurfaceObject(surf), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDestroySurfaceObject(0), cudaSuccess);
  // Surfaces are arrays only.
  char* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 1024), cudaSuccess);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = dev;
  r.res.linear.desc = u8x4;
  r.res.linear.sizeInBytes = 1024;
  EXPECT_EQ(cudaCreateSurfaceObject(&surf, &r), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(plain), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(surface_array), cudaSuccess);
}

TEST(Arrays, ResetForgetsArraysAndObjects) {
  cudaArray_t a = make_array(cudaCreateChannelDesc<float>(), 8, 4, cudaArraySurfaceLoadStore);
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc t{};
  cudaTextureObject_t tex = 0;
  cudaSurfaceObject_t surf = 0;
  ASSERT_EQ(cudaCreateTextureObject(&tex, &r, &t, nullptr), cudaSuccess);
  ASSERT_EQ(cudaCreateSurfaceObject(&surf, &r), cudaSuccess);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  // Their memory went with the reset: the handles name nothing now.
  cudaExtent extent{};
  EXPECT_EQ(cudaArrayGetInfo(nullptr, &extent, nullptr, a), cudaErrorInvalidResourceHandle);
  float host[8] = {};
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 0, host, 32, 32, 1, cudaMemcpyHostToDevice),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaFreeArray(a), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaGetTextureObjectResourceDesc(&r, tex), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDestroyTextureObject(tex), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDestroySurfaceObject(surf), cudaErrorInvalidValue);
  // The device works on.
  cudaArray_t b = make_array(cudaCreateChannelDesc<float>(), 8, 4);
  EXPECT_EQ(cudaMemcpy2DToArray(b, 0, 0, host, 32, 32, 1, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(b), cudaSuccess);
}

}  // namespace
