// Mipmapped texture references and tex2Dgather over references (CUDA C
// Programming Guide v8.0, 3.2.11.1.2, B.8.2.3-B.8.2.21) against texture
// objects (3.2.11.1.1, B.8.1) over the same data with the same settings:
// every fetch through a reference must give the object's bits.
//
// - Lod and Grad: each reference form of B.8.2 (tex1DLod, tex1DGrad,
//   tex2DLod, tex2DGrad, tex3DLod, tex3DGrad, tex1DLayeredLod,
//   tex1DLayeredGrad, tex2DLayeredLod, tex2DLayeredGrad, texCubemapLod,
//   texCubemapLayered, texCubemapLayeredLod) and the plain tex2D of a
//   mipmapped reference, over references bound with
//   cudaBindTextureToMipmappedArray, in two settings of the reference's
//   fields (linear filters with a bias and both clamps; point filters with a
//   negative bias), rebinding between them.
// - Level selection, against values worked out here: levels of constant
//   value 100 x level, read with the reference's mipmapFilterMode,
//   mipmapLevelBias, minMipmapLevelClamp and maxMipmapLevelClamp (and
//   texture<>'s defaults, which clamp every fetch to level 0).
// - tex2Dgather (B.8.2.21) over float, uchar4 (element type and normalized
//   float) and short2 references, every component.
// - Errors with CUDA's codes, and last a Lod fetch from a reference never
//   bound, which ends its launch with cudaErrorIllegalAddress.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "program_checks.h"

texture<float, cudaTextureType1D> texMip1D;
texture<float, cudaTextureType2D> texMip2D;
texture<float, cudaTextureType3D> texMip3D;
texture<float, cudaTextureType1DLayered> texMip1DLayered;
texture<uchar4, cudaTextureType2DLayered, cudaReadModeNormalizedFloat> texMip2DLayered;
texture<float, cudaTextureTypeCubemap> texMipCube;
texture<float, cudaTextureTypeCubemapLayered> texMipCubeLayered;
texture<float, cudaTextureType2D> texLevels;  // levels of constant value 100 x level
texture<int, cudaTextureType2D> texIntMip;    // errors: a linear mipmap filter of ints
texture<float, cudaTextureType3D> texVolume;  // errors: a 2D mipmapped array for a 3D reference
texture<float, cudaTextureType2D> texGatherFloat;
texture<uchar4, cudaTextureType2D> texGatherBytes;
texture<uchar4, cudaTextureType2D, cudaReadModeNormalizedFloat> texGatherUnorm;
texture<short2, cudaTextureType2D> texGatherShorts;
texture<float, cudaTextureType2D> texNeverBound;

// ---- Lod and Grad ---------------------------------------------------------------

enum Function {
  k1DLod,
  k1DGrad,
  k2DLod,
  k2DGrad,
  k2D,
  k3DLod,
  k3DGrad,
  k1DLayeredLod,
  k1DLayeredGrad,
  k2DLayeredLod,
  k2DLayeredGrad,
  kCubemapLod,
  kCubemapLayered,
  kCubemapLayeredLod,
  kFunctions
};
static const char* const kNames[kFunctions] = {
    "tex1DLod",         "tex1DGrad",     "tex2DLod",          "tex2DGrad",           "tex2D",
    "tex3DLod",         "tex3DGrad",     "tex1DLayeredLod",   "tex1DLayeredGrad",    "tex2DLayeredLod",
    "tex2DLayeredGrad", "texCubemapLod", "texCubemapLayered", "texCubemapLayeredLod"};

struct Probe {
  int function;
  int layer;
  float x, y, z, lod;
  float4 dx, dy;
};

struct Objects {
  cudaTextureObject_t t1d, t2d, t3d, t1d_layered, t2d_layered, cube, cube_layered;
};

__global__ void lod_through_references(const Probe* probes, int n, float4* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Probe p = probes[i];
  const float2 dx2 = make_float2(p.dx.x, p.dx.y), dy2 = make_float2(p.dy.x, p.dy.y);
  float4 r = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  switch (p.function) {
    case k1DLod:
      r.x = tex1DLod(texMip1D, p.x, p.lod);
      break;
    case k1DGrad:
      r.x = tex1DGrad(texMip1D, p.x, p.dx.x, p.dy.x);
      break;
    case k2DLod:
      r.x = tex2DLod(texMip2D, p.x, p.y, p.lod);
      break;
    case k2DGrad:
      r.x = tex2DGrad(texMip2D, p.x, p.y, dx2, dy2);
      break;
    case k2D:
      r.x = tex2D(texMip2D, p.x, p.y);
      break;
    case k3DLod:
      r.x = tex3DLod(texMip3D, p.x, p.y, p.z, p.lod);
      break;
    case k3DGrad:
      r.x = tex3DGrad(texMip3D, p.x, p.y, p.z, p.dx, p.dy);
      break;
    case k1DLayeredLod:
      r.x = tex1DLayeredLod(texMip1DLayered, p.x, p.layer, p.lod);
      break;
    case k1DLayeredGrad:
      r.x = tex1DLayeredGrad(texMip1DLayered, p.x, p.layer, p.dx.x, p.dy.x);
      break;
    case k2DLayeredLod:
      r = tex2DLayeredLod(texMip2DLayered, p.x, p.y, p.layer, p.lod);
      break;
    case k2DLayeredGrad:
      r = tex2DLayeredGrad(texMip2DLayered, p.x, p.y, p.layer, dx2, dy2);
      break;
    case kCubemapLod:
      r.x = texCubemapLod(texMipCube, p.x, p.y, p.z, p.lod);
      break;
    case kCubemapLayered:
      r.x = texCubemapLayered(texMipCubeLayered, p.x, p.y, p.z, p.layer);
      break;
    case kCubemapLayeredLod:
      r.x = texCubemapLayeredLod(texMipCubeLayered, p.x, p.y, p.z, p.layer, p.lod);
      break;
  }
  out[i] = r;
}

__global__ void lod_through_objects(const Probe* probes, int n, Objects o, float4* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Probe p = probes[i];
  const float2 dx2 = make_float2(p.dx.x, p.dx.y), dy2 = make_float2(p.dy.x, p.dy.y);
  float4 r = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  switch (p.function) {
    case k1DLod:
      r.x = tex1DLod<float>(o.t1d, p.x, p.lod);
      break;
    case k1DGrad:
      r.x = tex1DGrad<float>(o.t1d, p.x, p.dx.x, p.dy.x);
      break;
    case k2DLod:
      r.x = tex2DLod<float>(o.t2d, p.x, p.y, p.lod);
      break;
    case k2DGrad:
      r.x = tex2DGrad<float>(o.t2d, p.x, p.y, dx2, dy2);
      break;
    case k2D:
      r.x = tex2D<float>(o.t2d, p.x, p.y);
      break;
    case k3DLod:
      r.x = tex3DLod<float>(o.t3d, p.x, p.y, p.z, p.lod);
      break;
    case k3DGrad:
      r.x = tex3DGrad<float>(o.t3d, p.x, p.y, p.z, p.dx, p.dy);
      break;
    case k1DLayeredLod:
      r.x = tex1DLayeredLod<float>(o.t1d_layered, p.x, p.layer, p.lod);
      break;
    case k1DLayeredGrad:
      r.x = tex1DLayeredGrad<float>(o.t1d_layered, p.x, p.layer, p.dx.x, p.dy.x);
      break;
    case k2DLayeredLod:
      r = tex2DLayeredLod<float4>(o.t2d_layered, p.x, p.y, p.layer, p.lod);
      break;
    case k2DLayeredGrad:
      r = tex2DLayeredGrad<float4>(o.t2d_layered, p.x, p.y, p.layer, dx2, dy2);
      break;
    case kCubemapLod:
      r.x = texCubemapLod<float>(o.cube, p.x, p.y, p.z, p.lod);
      break;
    case kCubemapLayered:
      r.x = texCubemapLayered<float>(o.cube_layered, p.x, p.y, p.z, p.layer);
      break;
    case kCubemapLayeredLod:
      r.x = texCubemapLayeredLod<float>(o.cube_layered, p.x, p.y, p.z, p.layer, p.lod);
      break;
  }
  out[i] = r;
}

// Fills every level of `m` with value(level, x, y, z) of T; z is the slice,
// layer or layer x 6 + face.
template <typename T, typename F>
static void fill(cudaMipmappedArray_t m, unsigned levels, F value) {
  for (unsigned level = 0; level < levels; ++level) {
    cudaArray_t a = nullptr;
    CHECK(cudaGetMipmappedArrayLevel(&a, m, level));
    cudaChannelFormatDesc desc;
    cudaExtent e;
    unsigned flags = 0;
    CHECK(cudaArrayGetInfo(&desc, &e, &flags, a));
    const size_t w = e.width, h = e.height ? e.height : 1, d = e.depth ? e.depth : 1;
    std::vector<T> host(w * h * d);
    for (size_t z = 0; z < d; ++z)
      for (size_t y = 0; y < h; ++y)
        for (size_t x = 0; x < w; ++x)
          host[(z * h + y) * w + x] =
              value(level, static_cast<int>(x), static_cast<int>(y), static_cast<int>(z));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(host.data(), w * sizeof(T), w, h);
    p.dstArray = a;
    p.extent = make_cudaExtent(w, h, d);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
  }
}

static float texel_value(unsigned level, int x, int y, int z) {
  return static_cast<float>((level * 131 + x * 17 + y * 29 + z * 7) % 97) / 7.0f - 3.0f;
}

// One setting of the mipmap fields, applied to a reference and to an
// object's description alike.
struct Setting {
  cudaTextureFilterMode filter, mip_filter;
  cudaTextureAddressMode address;
  float bias, min_clamp, max_clamp;
};

template <class T, int dim, enum cudaTextureReadMode mode>
static void apply(texture<T, dim, mode>& ref, const Setting& s) {
  ref.normalized = 1;
  ref.filterMode = s.filter;
  ref.addressMode[0] = ref.addressMode[1] = ref.addressMode[2] = s.address;
  ref.mipmapFilterMode = s.mip_filter;
  ref.mipmapLevelBias = s.bias;
  ref.minMipmapLevelClamp = s.min_clamp;
  ref.maxMipmapLevelClamp = s.max_clamp;
}

static cudaTextureObject_t make_object(cudaMipmappedArray_t m, const Setting& s, cudaTextureReadMode read) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeMipmappedArray;
  rd.res.mipmap.mipmap = m;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = s.address;
  td.filterMode = s.filter;
  td.readMode = read;
  td.normalizedCoords = 1;
  td.mipmapFilterMode = s.mip_filter;
  td.mipmapLevelBias = s.bias;
  td.minMipmapLevelClamp = s.min_clamp;
  td.maxMipmapLevelClamp = s.max_clamp;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

// Probes of every function: LODs from below 0 to past the last level,
// coordinates off the texel centres (and outside [0, 1) for the address
// modes), gradients from a fraction of a texel to many.
static std::vector<Probe> lod_probes() {
  std::vector<Probe> probes;
  for (int f = 0; f < kFunctions; ++f)
    for (int i = 0; i < 20; ++i) {
      Probe p;
      memset(&p, 0, sizeof p);
      p.function = f;
      p.layer = i % 3;
      p.x = -0.35f + 0.083f * i;
      p.y = 1.1f - 0.061f * i;
      p.z = 0.27f + 0.047f * i;
      p.lod = -1.5f + 0.4375f * i;  // -1.5 .. 6.8125, multiples of 1/16
      if (f == kCubemapLod || f == kCubemapLayered || f == kCubemapLayeredLod) {
        // Directions toward every face.
        p.x = (i % 5) - 2.0f + 0.13f;
        p.y = i % 7 == 3 ? 3.0f : i % 7 == 5 ? -3.0f : 0.5f * (i % 3) - 0.45f;
        p.z = (i % 2) ? 1.0f : -0.75f;
      }
      const float scale = ldexpf(1.0f, i % 9 - 3) / 64.0f;  // 1/8 .. 32 texels of a 64-wide level 0
      p.dx = make_float4(scale, scale * 0.3f * (i % 4), scale * 0.1f * (i % 3), 0.0f);
      p.dy = make_float4(-scale * 0.2f * (i % 5), scale * 0.7f, scale * 0.05f * (i % 2), 0.0f);
      probes.push_back(p);
    }
  return probes;
}

static bool same_bits(const float4& a, const float4& b) { return memcmp(&a, &b, sizeof a) == 0; }

static void lod_and_grad() {
  const cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
  const cudaChannelFormatDesc u8x4 = cudaCreateChannelDesc<uchar4>();
  cudaMipmappedArray_t m1d, m2d, m3d, m1dl, m2dl, mcube, mcubel;
  CHECK(cudaMallocMipmappedArray(&m1d, &f32, make_cudaExtent(100, 0, 0), 7));
  CHECK(cudaMallocMipmappedArray(&m2d, &f32, make_cudaExtent(64, 32, 0), 7));
  CHECK(cudaMallocMipmappedArray(&m3d, &f32, make_cudaExtent(16, 8, 4), 5));
  CHECK(cudaMallocMipmappedArray(&m1dl, &f32, make_cudaExtent(32, 0, 3), 6, cudaArrayLayered));
  CHECK(cudaMallocMipmappedArray(&m2dl, &u8x4, make_cudaExtent(16, 8, 3), 5, cudaArrayLayered));
  CHECK(cudaMallocMipmappedArray(&mcube, &f32, make_cudaExtent(8, 8, 6), 4, cudaArrayCubemap));
  CHECK(cudaMallocMipmappedArray(&mcubel, &f32, make_cudaExtent(8, 8, 12), 4,
                                 cudaArrayCubemap | cudaArrayLayered));
  fill<float>(m1d, 7, texel_value);
  fill<float>(m2d, 7, texel_value);
  fill<float>(m3d, 5, texel_value);
  fill<float>(m1dl, 6, texel_value);
  fill<uchar4>(m2dl, 5, [](unsigned level, int x, int y, int z) {
    return make_uchar4((level * 53 + x * 37 + z * 11) & 255, (level * 71 + y * 91 + 3) & 255,
                       (255 - x * 13 - y * 7 - level * 29) & 255, (x * y * 7 + z * 5) & 255);
  });
  fill<float>(mcube, 4, texel_value);
  fill<float>(mcubel, 4, texel_value);

  const std::vector<Probe> probes = lod_probes();
  const int n = static_cast<int>(probes.size());
  Probe* dprobes = nullptr;
  float4* dout = nullptr;
  CHECK(cudaMalloc(&dprobes, n * sizeof(Probe)));
  CHECK(cudaMalloc(&dout, 2 * n * sizeof(float4)));
  CHECK(cudaMemcpy(dprobes, probes.data(), n * sizeof(Probe), cudaMemcpyHostToDevice));

  // Linear filters between and within levels, a bias and both clamps; then
  // point filters with a negative bias (rebinding every reference).
  const Setting settings[] = {
      {cudaFilterModeLinear, cudaFilterModeLinear, cudaAddressModeWrap, 0.25f, 0.5f, 4.5f},
      {cudaFilterModePoint, cudaFilterModePoint, cudaAddressModeClamp, -0.75f, 0.0f, 16.0f}};
  for (int s = 0; s < 2; ++s) {
    const Setting& set = settings[s];
    apply(texMip1D, set);
    apply(texMip2D, set);
    apply(texMip3D, set);
    apply(texMip1DLayered, set);
    apply(texMip2DLayered, set);
    apply(texMipCube, set);
    apply(texMipCubeLayered, set);
    // The cubemaps clamped in both settings.
    texMipCube.addressMode[0] = texMipCube.addressMode[1] = texMipCube.addressMode[2] = cudaAddressModeClamp;
    texMipCubeLayered.addressMode[0] = texMipCubeLayered.addressMode[1] = texMipCubeLayered.addressMode[2] =
        cudaAddressModeClamp;
    CHECK(cudaBindTextureToMipmappedArray(texMip1D, m1d));
    CHECK(cudaBindTextureToMipmappedArray(texMip2D, m2d, f32));
    CHECK(cudaBindTextureToMipmappedArray(&texMip3D, m3d, &f32));
    CHECK(cudaBindTextureToMipmappedArray(texMip1DLayered, m1dl));
    CHECK(cudaBindTextureToMipmappedArray(texMip2DLayered, m2dl));
    CHECK(cudaBindTextureToMipmappedArray(texMipCube, mcube));
    CHECK(cudaBindTextureToMipmappedArray(texMipCubeLayered, mcubel));
    Setting cube = set;
    cube.address = cudaAddressModeClamp;
    Objects o;
    o.t1d = make_object(m1d, set, cudaReadModeElementType);
    o.t2d = make_object(m2d, set, cudaReadModeElementType);
    o.t3d = make_object(m3d, set, cudaReadModeElementType);
    o.t1d_layered = make_object(m1dl, set, cudaReadModeElementType);
    o.t2d_layered = make_object(m2dl, set, cudaReadModeNormalizedFloat);
    o.cube = make_object(mcube, cube, cudaReadModeElementType);
    o.cube_layered = make_object(mcubel, cube, cudaReadModeElementType);
    lod_through_references<<<(n + 63) / 64, 64>>>(dprobes, n, dout);
    CHECK(cudaGetLastError());
    lod_through_objects<<<(n + 63) / 64, 64>>>(dprobes, n, o, dout + n);
    CHECK(cudaDeviceSynchronize());
    std::vector<float4> out(2 * n);
    CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float4), cudaMemcpyDeviceToHost));
    int same[kFunctions] = {}, total[kFunctions] = {}, distinct = 0, all_same = 0;
    for (int i = 0; i < n; ++i) {
      const int f = probes[i].function;
      ++total[f];
      if (same_bits(out[i], out[n + i])) {
        ++same[f];
        ++all_same;
      } else if (total[f] - same[f] <= 2) {
        printf("  %s probe %d: reference (%.9g %.9g %.9g %.9g), object (%.9g %.9g %.9g %.9g)\n", kNames[f], i,
               out[i].x, out[i].y, out[i].z, out[i].w, out[n + i].x, out[n + i].y, out[n + i].z,
               out[n + i].w);
      }
      if (i > 0 && probes[i - 1].function == f && !same_bits(out[i], out[i - 1])) ++distinct;
    }
    printf("mipmapped references, setting %d:", s);
    for (int f = 0; f < kFunctions; ++f) printf(" %s %d/%d", kNames[f], same[f], total[f]);
    printf(
        "\nmipmapped references, setting %d: %d of %d fetches equal the objects' bits (%d changes along "
        "the sweeps)\n",
        s, all_same, n, distinct);
    expect(all_same == n, "a mipmapped reference's fetch differs from the object's");
    // The sweeps must see the data change (a constant answer would prove nothing).
    expect(distinct > n / 2, "the sweeps' results hardly change");
    CHECK(cudaDestroyTextureObject(o.t1d));
    CHECK(cudaDestroyTextureObject(o.t2d));
    CHECK(cudaDestroyTextureObject(o.t3d));
    CHECK(cudaDestroyTextureObject(o.t1d_layered));
    CHECK(cudaDestroyTextureObject(o.t2d_layered));
    CHECK(cudaDestroyTextureObject(o.cube));
    CHECK(cudaDestroyTextureObject(o.cube_layered));
  }
  CHECK(cudaUnbindTexture(texMip1D));
  CHECK(cudaUnbindTexture(texMip2D));
  CHECK(cudaUnbindTexture(texMip3D));
  CHECK(cudaUnbindTexture(texMip1DLayered));
  CHECK(cudaUnbindTexture(texMip2DLayered));
  CHECK(cudaUnbindTexture(texMipCube));
  CHECK(cudaUnbindTexture(texMipCubeLayered));
  CHECK(cudaFree(dprobes));
  CHECK(cudaFree(dout));
  for (cudaMipmappedArray_t m : {m1d, m2d, m3d, m1dl, m2dl, mcube, mcubel}) CHECK(cudaFreeMipmappedArray(m));
}

// ---- Level selection --------------------------------------------------------------

// out[3 i]: tex2DLod at lods[i]; out[3 i + 1]: tex2DGrad with a gradient of
// gradients[i] (in normalized coordinates) along x; out[3 i + 2]: tex2D (LOD 0).
__global__ void level_kernel(const float* lods, const float* gradients, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[3 * i] = tex2DLod(texLevels, 0.3f, 0.6f, lods[i]);
  const float2 dx = make_float2(gradients[i], 0.0f), dy = make_float2(0.0f, 0.0f);
  out[3 * i + 1] = tex2DGrad(texLevels, 0.3f, 0.6f, dx, dy);
  out[3 * i + 2] = tex2D(texLevels, 0.3f, 0.6f);
}

static const int kLevels = 6;  // of a 32 x 32 array

// The value a fetch at `lod` reads from levels of value 100 x level
// (docs/texture.md, "Mipmaps": bias, then the max clamp, then the min
// clamp, then the levels; the point filter takes the nearest level, half
// up; the linear one blends the two around the LOD).
static float expected_level_value(float lod, const Setting& s) {
  float l = lod + s.bias;
  if (l > s.max_clamp) l = s.max_clamp;
  if (l < s.min_clamp) l = s.min_clamp;
  if (l < 0.0f) l = 0.0f;
  if (l > kLevels - 1) l = kLevels - 1;
  return s.mip_filter == cudaFilterModePoint ? 100.0f * floorf(l + 0.5f) : 100.0f * l;
}

// Runs level_kernel over `lods` with texLevels bound (when `bind`) as `s`
// says, or with texture<>'s defaults, and checks every result.  tex2DGrad's
// gradient is 2^floor(LOD) texels of level 0 along x, whose LOD is exactly
// floor(LOD) (a power of two's logarithm; docs/texture.md, "Mipmaps").
static void check_levels(cudaMipmappedArray_t m, const Setting* s, const char* what, bool bind = true) {
  const float lods[] = {-2.0f, 0.0f, 0.25f, 0.5f, 1.0f, 1.75f, 2.0f, 2.5f, 3.0f, 3.25f, 4.0f, 5.0f, 7.0f};
  const int n = sizeof lods / sizeof lods[0];
  float gradients[n];
  for (int i = 0; i < n; ++i) gradients[i] = ldexpf(1.0f / 32.0f, static_cast<int>(floorf(lods[i])));
  if (bind) {
    if (s != nullptr) apply(texLevels, *s);
    CHECK(cudaBindTextureToMipmappedArray(texLevels, m));
  }
  float *dlods = nullptr, *dgradients = nullptr, *dout = nullptr;
  CHECK(cudaMalloc(&dlods, sizeof lods));
  CHECK(cudaMalloc(&dgradients, sizeof gradients));
  CHECK(cudaMalloc(&dout, 3 * n * sizeof(float)));
  CHECK(cudaMemcpy(dlods, lods, sizeof lods, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dgradients, gradients, sizeof gradients, cudaMemcpyHostToDevice));
  level_kernel<<<1, 32>>>(dlods, dgradients, dout, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> out(3 * n);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  // texture<>'s defaults: point mipmap filter, no bias, both clamps 0.
  const Setting defaults = {cudaFilterModePoint, cudaFilterModePoint, cudaAddressModeClamp, 0.0f, 0.0f, 0.0f};
  const Setting& want = s != nullptr ? *s : defaults;
  int good = 0;
  printf("levels %s:", what);
  for (int i = 0; i < n; ++i) {
    const float lod_want = expected_level_value(lods[i], want);
    const float grad_want = expected_level_value(floorf(lods[i]), want);
    const float plain_want = expected_level_value(0.0f, want);
    printf(" %g->%g/%g/%g", lods[i], out[3 * i], out[3 * i + 1], out[3 * i + 2]);
    good += (out[3 * i] == lod_want) + (out[3 * i + 1] == grad_want) + (out[3 * i + 2] == plain_want);
  }
  printf("\nlevels %s: %d of %d as expected\n", what, good, 3 * n);
  expect(good == 3 * n, what);
  CHECK(cudaFree(dlods));
  CHECK(cudaFree(dgradients));
  CHECK(cudaFree(dout));
}

static void level_selection(cudaMipmappedArray_t* kept) {
  const cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m;
  CHECK(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(32, 32, 0), kLevels));
  fill<float>(m, kLevels, [](unsigned level, int, int, int) { return 100.0f * level; });
  check_levels(m, nullptr, "texture<> defaults (level 0 only)");
  const Setting point = {cudaFilterModePoint, cudaFilterModePoint, cudaAddressModeClamp, 0.0f, 0.0f, 16.0f};
  check_levels(m, &point, "point");
  const Setting linear = {
      cudaFilterModeLinear, cudaFilterModeLinear, cudaAddressModeClamp, 0.0f, 0.0f, 16.0f};
  check_levels(m, &linear, "linear");
  const Setting biased = {cudaFilterModePoint, cudaFilterModePoint, cudaAddressModeClamp, 1.0f, 0.0f, 16.0f};
  check_levels(m, &biased, "bias 1");
  const Setting clamped = {
      cudaFilterModeLinear, cudaFilterModeLinear, cudaAddressModeClamp, -0.5f, 1.5f, 3.25f};
  check_levels(m, &clamped, "bias -0.5, clamps 1.5 and 3.25");
  *kept = m;  // still bound to texLevels, for errors()
}

// ---- tex2Dgather ---------------------------------------------------------------------

struct GatherObjects {
  cudaTextureObject_t floats, bytes, unorm, shorts;
};

// Coordinate i: out[4 (n x k + i)] the four words of gather k (0: float,
// 1: uchar4, 2: uchar4 as unorm, 3: short2) of component i % 4 through the
// references; the objects' at 4 n more.
__global__ void gather_kernel(GatherObjects o, const float2* xy, uint4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = xy[i].x, y = xy[i].y;
  const int comp = i % 4;
  const float4 f = tex2Dgather(texGatherFloat, x, y, comp);
  const uchar4 b = tex2Dgather(texGatherBytes, x, y, comp);
  const float4 u = tex2Dgather(texGatherUnorm, x, y, comp);
  const short4 s = tex2Dgather(texGatherShorts, x, y, comp);
  out[i] = make_uint4(__float_as_uint(f.x), __float_as_uint(f.y), __float_as_uint(f.z), __float_as_uint(f.w));
  out[n + i] = make_uint4(b.x, b.y, b.z, b.w);
  out[2 * n + i] =
      make_uint4(__float_as_uint(u.x), __float_as_uint(u.y), __float_as_uint(u.z), __float_as_uint(u.w));
  out[3 * n + i] =
      make_uint4((unsigned short)s.x, (unsigned short)s.y, (unsigned short)s.z, (unsigned short)s.w);
  const float4 of = tex2Dgather<float4>(o.floats, x, y, comp);
  const uchar4 ob = tex2Dgather<uchar4>(o.bytes, x, y, comp);
  const float4 ou = tex2Dgather<float4>(o.unorm, x, y, comp);
  const short4 os = tex2Dgather<short4>(o.shorts, x, y, comp);
  out[4 * n + i] =
      make_uint4(__float_as_uint(of.x), __float_as_uint(of.y), __float_as_uint(of.z), __float_as_uint(of.w));
  out[5 * n + i] = make_uint4(ob.x, ob.y, ob.z, ob.w);
  out[6 * n + i] =
      make_uint4(__float_as_uint(ou.x), __float_as_uint(ou.y), __float_as_uint(ou.z), __float_as_uint(ou.w));
  out[7 * n + i] =
      make_uint4((unsigned short)os.x, (unsigned short)os.y, (unsigned short)os.z, (unsigned short)os.w);
}

static cudaTextureObject_t gather_object(cudaArray_t a, bool normalized_coords,
                                         cudaTextureAddressMode address, cudaTextureReadMode read) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = address;
  td.filterMode = cudaFilterModePoint;
  td.readMode = read;
  td.normalizedCoords = normalized_coords;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static void gather() {
  const int w = 9, h = 7;
  const cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
  const cudaChannelFormatDesc u8x4 = cudaCreateChannelDesc<uchar4>();
  const cudaChannelFormatDesc s16x2 = cudaCreateChannelDesc<short2>();
  cudaArray_t floats, bytes, shorts;
  CHECK(cudaMallocArray(&floats, &f32, w, h, cudaArrayTextureGather));
  CHECK(cudaMallocArray(&bytes, &u8x4, w, h, cudaArrayTextureGather));
  CHECK(cudaMallocArray(&shorts, &s16x2, w, h, cudaArrayTextureGather));
  std::vector<float> f(w * h);
  std::vector<uchar4> b(w * h);
  std::vector<short2> s(w * h);
  for (int i = 0; i < w * h; ++i) {
    f[i] = texel_value(0, i % w, i / w, 1);
    b[i] = make_uchar4((i * 37) & 255, (i * 91 + 3) & 255, (255 - i * 13) & 255, (i * 7) & 255);
    s[i] = make_short2(static_cast<short>(i * 997 - 30000), static_cast<short>(20000 - i * 613));
  }
  CHECK(cudaMemcpy2DToArray(floats, 0, 0, f.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DToArray(bytes, 0, 0, b.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DToArray(shorts, 0, 0, s.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
  // Floats with normalized coordinates and wrap; the integers unnormalized, clamped.
  texGatherFloat.normalized = 1;
  texGatherFloat.addressMode[0] = texGatherFloat.addressMode[1] = cudaAddressModeWrap;
  texGatherBytes.addressMode[0] = texGatherBytes.addressMode[1] = cudaAddressModeClamp;
  texGatherUnorm.addressMode[0] = texGatherUnorm.addressMode[1] = cudaAddressModeBorder;
  texGatherShorts.addressMode[0] = texGatherShorts.addressMode[1] = cudaAddressModeClamp;
  CHECK(cudaBindTextureToArray(texGatherFloat, floats));
  CHECK(cudaBindTextureToArray(texGatherBytes, bytes));
  CHECK(cudaBindTextureToArray(texGatherUnorm, bytes));
  CHECK(cudaBindTextureToArray(texGatherShorts, shorts));
  GatherObjects o;
  o.floats = gather_object(floats, true, cudaAddressModeWrap, cudaReadModeElementType);
  o.bytes = gather_object(bytes, false, cudaAddressModeClamp, cudaReadModeElementType);
  o.unorm = gather_object(bytes, false, cudaAddressModeBorder, cudaReadModeNormalizedFloat);
  o.shorts = gather_object(shorts, false, cudaAddressModeClamp, cudaReadModeElementType);

  const int n = 64;
  std::vector<float2> xy(n);
  for (int i = 0; i < n; ++i) {
    // Texel edges, centres and far outside; normalized for the floats
    // (the same numbers: wrap makes them land everywhere).
    xy[i] = make_float2(-1.5f + 0.25f * i - 0.03f * (i % 3), 8.0f - 0.19f * i);
  }
  float2* dxy = nullptr;
  uint4* dout = nullptr;
  CHECK(cudaMalloc(&dxy, n * sizeof(float2)));
  CHECK(cudaMalloc(&dout, 8 * n * sizeof(uint4)));
  CHECK(cudaMemcpy(dxy, xy.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
  gather_kernel<<<(n + 31) / 32, 32>>>(o, dxy, dout, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<uint4> out(8 * n);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(uint4), cudaMemcpyDeviceToHost));
  const char* const names[4] = {"float", "uchar4", "uchar4 normalized", "short2"};
  int all_same = 0, nonzero = 0;
  for (int k = 0; k < 4; ++k) {
    int same = 0;
    for (int i = 0; i < n; ++i) {
      const uint4& r = out[k * n + i];
      const uint4& q = out[(4 + k) * n + i];
      if (r.x == q.x && r.y == q.y && r.z == q.z && r.w == q.w) {
        ++same;
      } else if (n - same <= 2) {
        printf("  %s (%g, %g) comp %d: reference %08x %08x %08x %08x, object %08x %08x %08x %08x\n", names[k],
               xy[i].x, xy[i].y, i % 4, r.x, r.y, r.z, r.w, q.x, q.y, q.z, q.w);
      }
      nonzero += (r.x | r.y | r.z | r.w) != 0;
    }
    printf("tex2Dgather %s: %d of %d equal the object's bits\n", names[k], same, n);
    all_same += same;
  }
  expect(all_same == 4 * n, "a reference's tex2Dgather differs from the object's");
  expect(nonzero > 3 * n, "tex2Dgather returned mostly zeros");
  CHECK(cudaUnbindTexture(texGatherFloat));
  CHECK(cudaUnbindTexture(texGatherBytes));
  CHECK(cudaUnbindTexture(texGatherUnorm));
  CHECK(cudaUnbindTexture(texGatherShorts));
  CHECK(cudaDestroyTextureObject(o.floats));
  CHECK(cudaDestroyTextureObject(o.bytes));
  CHECK(cudaDestroyTextureObject(o.unorm));
  CHECK(cudaDestroyTextureObject(o.shorts));
  CHECK(cudaFree(dxy));
  CHECK(cudaFree(dout));
  CHECK(cudaFreeArray(floats));
  CHECK(cudaFreeArray(bytes));
  CHECK(cudaFreeArray(shorts));
}

// ---- Errors ---------------------------------------------------------------------------

// texLevels is bound to `levels` (linear filters, bias -0.5, clamps 1.5 and
// 3.25: level_selection's last setting); a refused bind must leave it so.
static void errors(cudaMipmappedArray_t levels) {
  const cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
  const cudaChannelFormatDesc i32 = cudaCreateChannelDesc<int>();
  const Setting clamped = {
      cudaFilterModeLinear, cudaFilterModeLinear, cudaAddressModeClamp, -0.5f, 1.5f, 3.25f};
  cudaArray_t plain;
  CHECK(cudaMallocArray(&plain, &f32, 8, 8));
  cudaMipmappedArray_t ints;
  CHECK(cudaMallocMipmappedArray(&ints, &i32, make_cudaExtent(8, 8, 0), 3));
  // A plain array where a mipmapped one belongs, and the reverse: handles
  // of the other kind are unknown handles.
  expect_error(
      cudaBindTextureToMipmappedArray(texLevels, reinterpret_cast<cudaMipmappedArray_const_t>(plain), f32),
      cudaErrorInvalidResourceHandle, "a plain array bound with cudaBindTextureToMipmappedArray");
  expect_error(cudaBindTextureToArray(texLevels, reinterpret_cast<cudaArray_const_t>(levels), f32),
               cudaErrorInvalidResourceHandle, "a mipmapped array bound with cudaBindTextureToArray");
  expect_error(cudaBindTextureToMipmappedArray(&texLevels, nullptr, &f32), cudaErrorInvalidValue,
               "a null mipmapped array");
  expect_error(cudaBindTextureToMipmappedArray(&texLevels, levels, nullptr), cudaErrorInvalidValue,
               "a null format");
  static textureReference not_a_reference;
  expect_error(cudaBindTextureToMipmappedArray(&not_a_reference, levels, &f32), cudaErrorInvalidTexture,
               "not a texture reference");
  expect_error(cudaBindTextureToMipmappedArray(texVolume, levels), cudaErrorInvalidTexture,
               "a 2D mipmapped array for a 3D reference");
  expect_error(cudaBindTextureToMipmappedArray(texLevels, levels, i32), cudaErrorInvalidChannelDescriptor,
               "a format not the array's");
  expect_error(cudaBindTextureToMipmappedArray(texLevels, ints), cudaErrorInvalidChannelDescriptor,
               "an array not of the declared type");
  texLevels.mipmapFilterMode = static_cast<cudaTextureFilterMode>(7);
  expect_error(cudaBindTextureToMipmappedArray(texLevels, levels), cudaErrorInvalidValue,
               "mipmapFilterMode 7");
  apply(texLevels, clamped);
  texIntMip.mipmapFilterMode = cudaFilterModeLinear;
  expect_error(cudaBindTextureToMipmappedArray(texIntMip, ints), cudaErrorInvalidFilterSetting,
               "a linear mipmap filter of ints read as ints");
  texIntMip.mipmapFilterMode = cudaFilterModePoint;
  expect_error(cudaBindTextureToMipmappedArray(texIntMip, ints), cudaSuccess,
               "a point mipmap filter of ints");
  size_t offset = 1;
  expect_error(cudaGetTextureAlignmentOffset(&offset, texIntMip), cudaSuccess,
               "alignment offset of a mipmapped reference");
  expect(offset == 0, "a mipmapped reference's alignment offset is 0");
  expect_error(cudaUnbindTexture(texIntMip), cudaSuccess, "unbind a mipmapped reference");
  // The refused binds left texLevels bound as it was.
  check_levels(levels, &clamped, "after the refused binds", false);
  // Rebinding many times leaves no device memory behind (each bind owns its
  // levels' descriptors and the next bind frees them).
  size_t free_before = 0, free_after = 0, total = 0;
  CHECK(cudaMemGetInfo(&free_before, &total));
  for (int i = 0; i < 64; ++i) CHECK(cudaBindTextureToMipmappedArray(texLevels, levels));
  CHECK(cudaUnbindTexture(texLevels));
  CHECK(cudaBindTextureToMipmappedArray(texLevels, levels));
  CHECK(cudaUnbindTexture(texLevels));
  CHECK(cudaMemGetInfo(&free_after, &total));
  printf("device memory free before 66 binds %zu, after %zu\n", free_before, free_after);
  expect(free_after >= free_before, "rebinding a mipmapped reference leaks device memory");
  CHECK(cudaFreeArray(plain));
  CHECK(cudaFreeMipmappedArray(ints));
}

__global__ void fetch_unbound(float* out) { *out = tex2DLod(texNeverBound, 0.5f, 0.5f, 1.0f); }

int main() {
  // The software fetch's stack (docs/texture.md, "Mipmaps"): a plain fetch
  // of a mipmapped texture between two levels (texCubemapLayered at LOD
  // 0.5 here) nests one call deeper than a Lod fetch and needs more than
  // the default 1 KiB in these kernels, through an object as through a
  // reference.  Those are the kernels' own frames, which kestrel-cc records
  // and a launch reserves whatever the limit (guide 5.3.2), so the program
  // runs at the default limit, which stays as it was.
  size_t stack_limit = 0;
  CHECK(cudaDeviceGetLimit(&stack_limit, cudaLimitStackSize));
  expect(stack_limit == 1024, "the default stack limit is 1 KiB");
  lod_and_grad();
  cudaMipmappedArray_t levels = nullptr;
  level_selection(&levels);
  gather();
  errors(levels);
  CHECK(cudaFreeMipmappedArray(levels));
  CHECK(cudaDeviceGetLimit(&stack_limit, cudaLimitStackSize));
  expect(stack_limit == 1024, "launches leave the stack limit as the user set it");
  // Last: the fault is sticky (guide 3.2.9).
  float* out;
  CHECK(cudaMalloc(&out, sizeof(float)));
  fetch_unbound<<<1, 1>>>(out);
  const cudaError_t unbound = cudaDeviceSynchronize();
  printf("tex2DLod from an unbound reference: %s\n", cudaGetErrorName(unbound));
  expect(unbound == cudaErrorIllegalAddress, "a Lod fetch from an unbound reference faults");
  printf("texture_reference_mipmap: %s (%d failed)\n", g_failures == 0 ? "PASSED" : "FAILED", g_failures);
  return g_failures == 0 ? 0 : 1;
}
