// Mipmapped textures and level-of-detail fetches (CUDA C Programming Guide
// v8.0, 3.2.11.1 "mipmapped arrays" and B.8.1.3-B.8.1.14: tex1DLod, tex2DLod,
// tex3DLod, tex1DLayeredLod, tex2DLayeredLod, texCubemapLod, tex1DGrad,
// tex2DGrad, tex3DGrad, tex1DLayeredGrad, tex2DLayeredGrad) and
// texCubemapLayered (B.8.1.9).  Probed:
//   * a 64 x 32 float mipmap whose level L holds the float L everywhere, so a
//     fetch names the level chosen (point mipmap filter) or the blend of two
//     levels (linear): lod swept from -2 to 8 in steps of 1/32, finely
//     (2^-12) across [1, 1 + 1/16) and around the point filter's switch at
//     0.5, special values (infinities, NaN, huge), with mipmapLevelBias and
//     min/maxMipmapLevelClamp;
//   * the same with an 8-bit unsigned normalized mipmap (level L holds 40 L);
//   * a mipmap whose texels hold their level and index (linear filtering
//     within and across levels);
//   * gradients: the level a gradient chooses, swept along x, y, diagonals
//     and unequal axes; 1D and 3D gradients;
//   * the layered, 3D and cubemap Lod forms, and texCubemapLayered;
//   * the runtime's answers to good and bad mipmapped-array calls.
// Results are float bits, at most 16 probes a line: a golden file for issue 16.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      printf("error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

// One probe: coordinates, a lod (or the gradients) and a layer.
struct Probe {
  float x, y, z, lod;
  float dxx, dxy, dxz, dyx, dyy, dyz;
  int layer;
};

enum Kind {
  Lod1D, Lod2D, Lod3D, Lod1DLayered, Lod2DLayered, LodCubemap,
  Grad1D, Grad2D, Grad3D, Grad1DLayered, Grad2DLayered, CubemapLayered
};

__global__ void fetch(cudaTextureObject_t t, int kind, const Probe* p, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Probe q = p[i];
  float r = 0.0f;
  switch (kind) {
    case Lod1D: r = tex1DLod<float>(t, q.x, q.lod); break;
    case Lod2D: r = tex2DLod<float>(t, q.x, q.y, q.lod); break;
    case Lod3D: r = tex3DLod<float>(t, q.x, q.y, q.z, q.lod); break;
    case Lod1DLayered: r = tex1DLayeredLod<float>(t, q.x, q.layer, q.lod); break;
    case Lod2DLayered: r = tex2DLayeredLod<float>(t, q.x, q.y, q.layer, q.lod); break;
    case LodCubemap: r = texCubemapLod<float>(t, q.x, q.y, q.z, q.lod); break;
    case Grad1D: r = tex1DGrad<float>(t, q.x, q.dxx, q.dyx); break;
    case Grad2D:
      r = tex2DGrad<float>(t, q.x, q.y, make_float2(q.dxx, q.dxy), make_float2(q.dyx, q.dyy));
      break;
    case Grad3D:
      r = tex3DGrad<float>(t, q.x, q.y, q.z, make_float4(q.dxx, q.dxy, q.dxz, 0.0f),
                           make_float4(q.dyx, q.dyy, q.dyz, 0.0f));
      break;
    case Grad1DLayered: r = tex1DLayeredGrad<float>(t, q.x, q.layer, q.dxx, q.dyx); break;
    case Grad2DLayered:
      r = tex2DLayeredGrad<float>(t, q.x, q.y, q.layer, make_float2(q.dxx, q.dxy),
                                  make_float2(q.dyx, q.dyy));
      break;
    case CubemapLayered: r = texCubemapLayered<float>(t, q.x, q.y, q.z, q.layer); break;
  }
  out[i] = r;
}

static unsigned bits(float f) {
  unsigned u;
  memcpy(&u, &f, sizeof u);
  return u;
}

// Runs the probes and prints "<label> <k>: <input bits>=<result bits> ..."
// with 16 probes a line; `input` picks the value shown for each probe.
static void run(const char* label, cudaTextureObject_t t, Kind kind, const std::vector<Probe>& probes,
                float (*input)(const Probe&)) {
  const int n = static_cast<int>(probes.size());
  Probe* dp = nullptr;
  float* dout = nullptr;
  CHECK(cudaMalloc(&dp, n * sizeof(Probe)));
  CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CHECK(cudaMemcpy(dp, probes.data(), n * sizeof(Probe), cudaMemcpyHostToDevice));
  fetch<<<(n + 63) / 64, 64>>>(t, kind, dp, dout, n);
  CHECK(cudaGetLastError());
  std::vector<float> out(n);
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(dp));
  CHECK(cudaFree(dout));
  for (int i = 0; i < n; ++i) {
    if (i % 16 == 0) printf("%s%s %d:", i ? "\n" : "", label, i / 16);
    printf(" %08x=%08x", bits(input(probes[i])), bits(out[i]));
  }
  printf("\n");
}

static float show_lod(const Probe& p) { return p.lod; }
static float show_dxx(const Probe& p) { return p.dxx; }
static float show_dxy(const Probe& p) { return p.dxy; }
static float show_dyy(const Probe& p) { return p.dyy; }
static float show_x(const Probe& p) { return p.x; }

static Probe at(float x, float y, float z, float lod, int layer = 0) {
  Probe p;
  memset(&p, 0, sizeof p);
  p.x = x;
  p.y = y;
  p.z = z;
  p.lod = lod;
  p.layer = layer;
  return p;
}

static Probe grad(float x, float y, float z, float dxx, float dxy, float dxz, float dyx, float dyy,
                  float dyz) {
  Probe p = at(x, y, z, 0.0f);
  p.dxx = dxx;
  p.dxy = dxy;
  p.dxz = dxz;
  p.dyx = dyx;
  p.dyy = dyy;
  p.dyz = dyz;
  return p;
}

// Fills every level of `m` (numLevels of them) through cudaMemcpy3D with
// value(level, x, y, z) of the element type T; z is the slice, layer or
// layer * 6 + face.
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
          host[(z * h + y) * w + x] = value(level, static_cast<int>(x), static_cast<int>(y), static_cast<int>(z));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(host.data(), w * sizeof(T), w, h);
    p.dstArray = a;
    p.extent = make_cudaExtent(w, h, d);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
  }
}

static cudaTextureObject_t make_texture(cudaMipmappedArray_t m, cudaTextureFilterMode filter,
                                        cudaTextureFilterMode mip_filter, float bias, float min_clamp,
                                        float max_clamp, cudaTextureReadMode read = cudaReadModeElementType) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeMipmappedArray;
  rd.res.mipmap.mipmap = m;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = filter;
  td.readMode = read;
  td.normalizedCoords = 1;
  td.mipmapFilterMode = mip_filter;
  td.mipmapLevelBias = bias;
  td.minMipmapLevelClamp = min_clamp;
  td.maxMipmapLevelClamp = max_clamp;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static std::vector<Probe> lod_sweep(float from, float to, float step, float x = 0.5f, float y = 0.5f) {
  std::vector<Probe> v;
  const int n = static_cast<int>((to - from) / step + 0.5f);
  for (int i = 0; i <= n; ++i) v.push_back(at(x, y, 0.5f, from + i * step));
  return v;
}

static void mipmap_errors() {
  const cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m = nullptr;
  cudaArray_t a = nullptr;
  cudaExtent e;
  cudaChannelFormatDesc got;
  unsigned flags = 0;
  // numLevels beyond 1 + floor(log2(max extent)), and 0.
  const unsigned asked[] = {0, 1, 3, 7, 8, 20};
  for (unsigned levels : asked) {
    cudaError_t r = cudaMallocMipmappedArray(&m, &f, make_cudaExtent(64, 32, 0), levels);
    printf("malloc 64x32 levels %u: %s", levels, cudaGetErrorName(r));
    if (r == cudaSuccess) {
      for (unsigned level = 0; level < 9; ++level) {
        r = cudaGetMipmappedArrayLevel(&a, m, level);
        if (r != cudaSuccess) {
          printf(" level %u %s", level, cudaGetErrorName(r));
          break;
        }
        CHECK(cudaArrayGetInfo(&got, &e, &flags, a));
        printf(" %zux%zux%zu", e.width, e.height, e.depth);
      }
      CHECK(cudaFreeMipmappedArray(m));
    }
    printf("\n");
  }
  // Shapes: 1D, 3D, layered, cubemap, non-power-of-two.
  struct Shape {
    const char* name;
    cudaExtent extent;
    unsigned flags;
  } shapes[] = {{"1D 100", make_cudaExtent(100, 0, 0), 0},
                {"3D 20x9x5", make_cudaExtent(20, 9, 5), 0},
                {"1D layered 16 x3", make_cudaExtent(16, 0, 3), cudaArrayLayered},
                {"2D layered 12x5 x2", make_cudaExtent(12, 5, 2), cudaArrayLayered},
                {"cubemap 8", make_cudaExtent(8, 8, 6), cudaArrayCubemap},
                {"cubemap layered 4 x2", make_cudaExtent(4, 4, 12), cudaArrayCubemap | cudaArrayLayered},
                {"cubemap 8x4", make_cudaExtent(8, 4, 6), cudaArrayCubemap},
                {"2D 0x4", make_cudaExtent(0, 4, 0), 0},
                {"2D surface 16x16", make_cudaExtent(16, 16, 0), cudaArraySurfaceLoadStore}};
  for (const Shape& s : shapes) {
    cudaError_t r = cudaMallocMipmappedArray(&m, &f, s.extent, 10, s.flags);
    printf("malloc %s: %s", s.name, cudaGetErrorName(r));
    if (r == cudaSuccess) {
      for (unsigned level = 0; level < 12; ++level) {
        r = cudaGetMipmappedArrayLevel(&a, m, level);
        if (r != cudaSuccess) {
          printf(" level %u %s", level, cudaGetErrorName(r));
          break;
        }
        CHECK(cudaArrayGetInfo(&got, &e, &flags, a));
        printf(" %zux%zux%zu/%x", e.width, e.height, e.depth, flags);
      }
      CHECK(cudaFreeMipmappedArray(m));
    }
    printf("\n");
  }
  printf("malloc null out: %s\n",
         cudaGetErrorName(cudaMallocMipmappedArray(nullptr, &f, make_cudaExtent(4, 4, 0), 1)));
  printf("malloc null desc: %s\n",
         cudaGetErrorName(cudaMallocMipmappedArray(&m, nullptr, make_cudaExtent(4, 4, 0), 1)));
  printf("level of null: %s\n", cudaGetErrorName(cudaGetMipmappedArrayLevel(&a, nullptr, 0)));
  CHECK(cudaMallocMipmappedArray(&m, &f, make_cudaExtent(4, 4, 0), 3));
  printf("level null out: %s\n", cudaGetErrorName(cudaGetMipmappedArrayLevel(nullptr, m, 0)));
  // A level array belongs to its mipmapped array.
  CHECK(cudaGetMipmappedArrayLevel(&a, m, 1));
  printf("free a level: %s\n", cudaGetErrorName(cudaFreeArray(a)));
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.normalizedCoords = 1;
  cudaTextureObject_t t = 0;
  rd.resType = cudaResourceTypeMipmappedArray;
  rd.res.mipmap.mipmap = nullptr;
  printf("texture of null mipmap: %s\n", cudaGetErrorName(cudaCreateTextureObject(&t, &rd, &td, nullptr)));
  rd.res.mipmap.mipmap = m;
  td.normalizedCoords = 0;
  cudaError_t r = cudaCreateTextureObject(&t, &rd, &td, nullptr);
  printf("texture unnormalized: %s\n", cudaGetErrorName(r));
  if (r == cudaSuccess) CHECK(cudaDestroyTextureObject(t));
  td.normalizedCoords = 1;
  td.mipmapFilterMode = static_cast<cudaTextureFilterMode>(7);
  r = cudaCreateTextureObject(&t, &rd, &td, nullptr);
  printf("texture bad mipmap filter: %s\n", cudaGetErrorName(r));
  if (r == cudaSuccess) CHECK(cudaDestroyTextureObject(t));
  td.mipmapFilterMode = cudaFilterModeLinear;
  r = cudaCreateTextureObject(&t, &rd, &td, nullptr);
  cudaResourceDesc back;
  memset(&back, 0, sizeof back);
  if (r == cudaSuccess) CHECK(cudaGetTextureObjectResourceDesc(&back, t));
  printf("texture linear mipmap filter: %s resType %d same %d\n", cudaGetErrorName(r), back.resType,
         back.res.mipmap.mipmap == m);
  if (r == cudaSuccess) CHECK(cudaDestroyTextureObject(t));
  printf("free: %s\n", cudaGetErrorName(cudaFreeMipmappedArray(m)));
  printf("free null: %s\n", cudaGetErrorName(cudaFreeMipmappedArray(nullptr)));
  printf("after errors: %s\n", cudaGetErrorName(cudaGetLastError()));
}

int main() {
  const cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
  // 64 x 32, 7 levels (64x32 .. 1x1), level L holds L.
  cudaMipmappedArray_t levels2d = nullptr;
  CHECK(cudaMallocMipmappedArray(&levels2d, &f32, make_cudaExtent(64, 32, 0), 7));
  fill<float>(levels2d, 7, [](unsigned level, int, int, int) { return static_cast<float>(level); });

  const float big = 1000.0f;
  {
    cudaTextureObject_t pt = make_texture(levels2d, cudaFilterModePoint, cudaFilterModePoint, 0, 0, big);
    cudaTextureObject_t ln = make_texture(levels2d, cudaFilterModePoint, cudaFilterModeLinear, 0, 0, big);
    run("lod point", pt, Lod2D, lod_sweep(-2.0f, 8.0f, 1.0f / 32), show_lod);
    run("lod linear", ln, Lod2D, lod_sweep(-2.0f, 8.0f, 1.0f / 32), show_lod);
    run("lod linear fine", ln, Lod2D, lod_sweep(1.0f, 1.0625f - 1.0f / 4096, 1.0f / 4096), show_lod);
    run("lod linear fine 5", ln, Lod2D, lod_sweep(5.0f, 5.0625f - 1.0f / 4096, 1.0f / 4096), show_lod);
    run("lod point switch", pt, Lod2D, lod_sweep(0.5f - 16.0f / 4096, 0.5f + 16.0f / 4096, 1.0f / 4096),
        show_lod);
    run("lod point switch 2", pt, Lod2D, lod_sweep(2.5f - 16.0f / 4096, 2.5f + 16.0f / 4096, 1.0f / 4096),
        show_lod);
    std::vector<Probe> special;
    const float values[] = {INFINITY, -INFINITY, NAN, 1e30f, -1e30f, 6.0f, 6.001f, 6.999f, 7.0f, 100.0f,
                            -0.0f, 1e-30f, -1e-30f, 0.99999994f, 1.0000001f, 3.4e38f};
    for (float v : values) special.push_back(at(0.5f, 0.5f, 0.5f, v));
    run("lod point special", pt, Lod2D, special, show_lod);
    run("lod linear special", ln, Lod2D, special, show_lod);
    CHECK(cudaDestroyTextureObject(pt));
    CHECK(cudaDestroyTextureObject(ln));
  }
  // Bias and clamps.
  struct Setting {
    const char* name;
    float bias, lo, hi;
  } settings[] = {{"bias 0.5", 0.5f, 0, big},         {"bias -1.25", -1.25f, 0, big},
                  {"bias 2.75", 2.75f, 0, big},       {"bias 0.3", 0.3f, 0, big},
                  {"clamp 0.75 2.5", 0, 0.75f, 2.5f}, {"clamp 3 1", 0, 3.0f, 1.0f},
                  {"clamp -1 100", 0, -1.0f, 100.0f}, {"clamp 1.3 1.3", 0, 1.3f, 1.3f},
                  {"clamp 0 0", 0, 0, 0},             {"bias 1 clamp 0.5 2.25", 1.0f, 0.5f, 2.25f},
                  {"clamp 2.2 5", 0, 2.2f, 5.0f},     {"clamp 0.1 0.9", 0, 0.1f, 0.9f}};
  for (const Setting& s : settings) {
    for (int mip = 0; mip < 2; ++mip) {
      cudaTextureObject_t t = make_texture(levels2d, cudaFilterModePoint,
                                           mip ? cudaFilterModeLinear : cudaFilterModePoint, s.bias, s.lo, s.hi);
      char label[96];
      snprintf(label, sizeof label, "%s %s", s.name, mip ? "linear" : "point");
      run(label, t, Lod2D, lod_sweep(-2.0f, 8.0f, 1.0f / 8), show_lod);
      CHECK(cudaDestroyTextureObject(t));
    }
  }
  // Gradients on the same texture (normalized coordinates: a gradient of
  // a / 64 along x is a texels).
  {
    cudaTextureObject_t ln = make_texture(levels2d, cudaFilterModePoint, cudaFilterModeLinear, 0, 0, big);
    cudaTextureObject_t pt = make_texture(levels2d, cudaFilterModePoint, cudaFilterModePoint, 0, 0, big);
    std::vector<Probe> gx, gy, gyx, diag, zero;
    for (int k = -96; k <= 480; k += 3) {
      const float a = exp2f(k / 64.0f);
      gx.push_back(grad(0.5f, 0.5f, 0, a / 64, 0, 0, 0, 0, 0));
      gy.push_back(grad(0.5f, 0.5f, 0, 0, 0, 0, 0, a / 32, 0));
      gyx.push_back(grad(0.5f, 0.5f, 0, 0, a / 32, 0, a / 64, 0, 0));
      diag.push_back(grad(0.5f, 0.5f, 0, a / 64, a / 32, 0, 0, 0, 0));
    }
    run("grad x linear", ln, Grad2D, gx, show_dxx);
    run("grad x point", pt, Grad2D, gx, show_dxx);
    run("grad y linear", ln, Grad2D, gy, show_dyy);
    run("grad swapped linear", ln, Grad2D, gyx, show_dxy);
    run("grad diagonal linear", ln, Grad2D, diag, show_dxx);
    // dx = 5 texels at angles, dy = t x 5 texels along y: the length's
    // approximation and how the two gradients combine.
    std::vector<Probe> angle, aniso;
    for (int i = 0; i <= 32; ++i) {
      const float c = cosf(i * 3.14159265f / 64), s = sinf(i * 3.14159265f / 64);
      angle.push_back(grad(0.5f, 0.5f, 0, 5 * c / 64, 5 * s / 32, 0, 0, 0, 0));
    }
    for (int i = 0; i <= 32; ++i)
      aniso.push_back(grad(0.5f, 0.5f, 0, 5.0f / 64, 0, 0, 0, (5.0f * i / 16) / 32, 0));
    run("grad angle linear", ln, Grad2D, angle, show_dxy);
    run("grad aniso linear", ln, Grad2D, aniso, show_dyy);
    const float odd[] = {0.0f, -3.0f / 64, 1e-30f, 1e30f, INFINITY, NAN, 1.0f, -1.0f};
    for (float v : odd) zero.push_back(grad(0.5f, 0.5f, 0, v, 0, 0, 0, 0, 0));
    run("grad special linear", ln, Grad2D, zero, show_dxx);
    CHECK(cudaDestroyTextureObject(ln));
    CHECK(cudaDestroyTextureObject(pt));
    cudaTextureObject_t bias = make_texture(levels2d, cudaFilterModePoint, cudaFilterModeLinear, 0.75f, 0.5f, 4.25f);
    run("grad x bias 0.75 clamp 0.5 4.25", bias, Grad2D, gx, show_dxx);
    CHECK(cudaDestroyTextureObject(bias));
  }
  // Level and texel index: level L texel (x, y) holds L * 4096 + y * 64 + x,
  // linear filtering within levels.
  {
    cudaMipmappedArray_t index2d = nullptr;
    CHECK(cudaMallocMipmappedArray(&index2d, &f32, make_cudaExtent(64, 32, 0), 7));
    fill<float>(index2d, 7, [](unsigned level, int x, int y, int) {
      return static_cast<float>(level * 4096 + y * 64 + x);
    });
    cudaTextureObject_t ll = make_texture(index2d, cudaFilterModeLinear, cudaFilterModeLinear, 0, 0, big);
    cudaTextureObject_t lp = make_texture(index2d, cudaFilterModeLinear, cudaFilterModePoint, 0, 0, big);
    std::vector<Probe> v;
    const float xs[] = {0.3f, 0.123f, 0.77f, 0.0f, 0.999f};
    const float lods[] = {0.0f, 0.25f, 0.5f, 1.0f, 1.5f, 2.75f, 3.1f, 4.0f, 5.5f, 6.0f};
    for (float x : xs)
      for (float lod : lods) v.push_back(at(x, 1.0f - x * 0.6f, 0.5f, lod));
    run("index linear linear", ll, Lod2D, v, show_x);
    run("index linear point", lp, Lod2D, v, show_x);
    std::vector<Probe> g;
    for (float x : xs)
      for (int k = 0; k < 8; ++k) {
        const float a = exp2f(k * 0.8f - 0.5f);
        g.push_back(grad(x, 1.0f - x * 0.6f, 0, a / 64, 0.3f * a / 32, 0, -0.2f * a / 64, 0.7f * a / 32, 0));
      }
    run("index grad linear linear", ll, Grad2D, g, show_x);
    CHECK(cudaDestroyTextureObject(ll));
    CHECK(cudaDestroyTextureObject(lp));
    CHECK(cudaFreeMipmappedArray(index2d));
  }
  // 8-bit unsigned normalized: level L holds 40 L.
  {
    const cudaChannelFormatDesc u8 = cudaCreateChannelDesc<unsigned char>();
    cudaMipmappedArray_t m = nullptr;
    CHECK(cudaMallocMipmappedArray(&m, &u8, make_cudaExtent(16, 16, 0), 5));
    fill<unsigned char>(m, 5, [](unsigned level, int, int, int) { return static_cast<unsigned char>(40 * level); });
    cudaTextureObject_t t = make_texture(m, cudaFilterModeLinear, cudaFilterModeLinear, 0, 0, big,
                                         cudaReadModeNormalizedFloat);
    run("u8 lod linear", t, Lod2D, lod_sweep(0.0f, 4.0f, 1.0f / 64), show_lod);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeMipmappedArray(m));
  }
  // 1D: 256 texels, 9 levels; level L texel x holds L * 1000 + x.
  {
    cudaMipmappedArray_t m = nullptr;
    CHECK(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(256, 0, 0), 9));
    fill<float>(m, 9, [](unsigned level, int x, int, int) { return static_cast<float>(level * 1000 + x); });
    cudaTextureObject_t t = make_texture(m, cudaFilterModeLinear, cudaFilterModeLinear, 0, 0, big);
    run("1D lod", t, Lod1D, lod_sweep(-0.5f, 9.0f, 1.0f / 8, 0.4f), show_lod);
    std::vector<Probe> g;
    for (int k = -32; k <= 600; k += 8) {
      const float a = exp2f(k / 64.0f);
      g.push_back(grad(0.4f, 0, 0, a / 256, 0, 0, -0.5f * a / 256, 0, 0));
    }
    run("1D grad", t, Grad1D, g, show_dxx);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeMipmappedArray(m));
  }
  // 3D: 16 x 8 x 4, 5 levels; level L holds L * 10000 + z * 1000 + y * 16 + x.
  {
    cudaMipmappedArray_t m = nullptr;
    CHECK(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(16, 8, 4), 5));
    fill<float>(m, 5, [](unsigned level, int x, int y, int z) {
      return static_cast<float>(level * 10000 + z * 1000 + y * 16 + x);
    });
    cudaTextureObject_t t = make_texture(m, cudaFilterModePoint, cudaFilterModeLinear, 0, 0, big);
    std::vector<Probe> v;
    for (int i = 0; i <= 40; ++i) v.push_back(at(0.3f, 0.6f, 0.7f, -0.5f + i * 0.125f));
    run("3D lod", t, Lod3D, v, show_lod);
    std::vector<Probe> g;
    for (int k = -16; k <= 320; k += 8) {
      const float a = exp2f(k / 64.0f);
      g.push_back(grad(0.3f, 0.6f, 0.7f, a / 16, 0, 0, 0, 0, 0));
      g.push_back(grad(0.3f, 0.6f, 0.7f, 0, 0, a / 4, 0, 0, 0));
      g.push_back(grad(0.3f, 0.6f, 0.7f, 0, 0, 0, 0.5f * a / 16, a / 8, 0.25f * a / 4));
    }
    run("3D grad", t, Grad3D, g, show_dxx);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeMipmappedArray(m));
  }
  // Layered: 1D 32 x 3 layers and 2D 16 x 8 x 3 layers; value layer * 100 +
  // level * 10 + x % 10.
  {
    cudaMipmappedArray_t m1 = nullptr, m2 = nullptr;
    CHECK(cudaMallocMipmappedArray(&m1, &f32, make_cudaExtent(32, 0, 3), 6, cudaArrayLayered));
    CHECK(cudaMallocMipmappedArray(&m2, &f32, make_cudaExtent(16, 8, 3), 5, cudaArrayLayered));
    auto v = [](unsigned level, int x, int, int layer) {
      return static_cast<float>(layer * 100 + level * 10 + x % 10);
    };
    fill<float>(m1, 6, v);
    fill<float>(m2, 5, v);
    cudaTextureObject_t t1 = make_texture(m1, cudaFilterModePoint, cudaFilterModeLinear, 0, 0, big);
    cudaTextureObject_t t2 = make_texture(m2, cudaFilterModePoint, cudaFilterModeLinear, 0, 0, big);
    std::vector<Probe> p;
    for (int layer = -1; layer <= 3; ++layer)
      for (int i = 0; i <= 12; ++i) p.push_back(at(0.4f, 0.6f, 0, -0.5f + i * 0.5f, layer));
    run("1D layered lod", t1, Lod1DLayered, p, show_lod);
    run("2D layered lod", t2, Lod2DLayered, p, show_lod);
    std::vector<Probe> g1, g2;
    for (int layer = 0; layer < 3; ++layer)
      for (int k = 0; k < 8; ++k) {
        const float a = exp2f(k * 0.7f - 0.3f);
        Probe q = grad(0.4f, 0.6f, 0, a / 32, 0, 0, 0, 0, 0);
        q.layer = layer;
        g1.push_back(q);
        q = grad(0.4f, 0.6f, 0, a / 16, 0, 0, 0, a / 16, 0);
        q.layer = layer;
        g2.push_back(q);
      }
    run("1D layered grad", t1, Grad1DLayered, g1, show_dxx);
    run("2D layered grad", t2, Grad2DLayered, g2, show_dxx);
    CHECK(cudaDestroyTextureObject(t1));
    CHECK(cudaDestroyTextureObject(t2));
    CHECK(cudaFreeMipmappedArray(m1));
    CHECK(cudaFreeMipmappedArray(m2));
  }
  // Cubemap 8 x 8, 4 levels: face * 100 + level * 10 + y * 8 + x at level 0.
  {
    cudaMipmappedArray_t m = nullptr;
    CHECK(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(8, 8, 6), 4, cudaArrayCubemap));
    fill<float>(m, 4, [](unsigned level, int x, int y, int face) {
      return static_cast<float>(face * 100 + level * 10 + (level ? 0 : y * 8 + x) % 10);
    });
    cudaTextureObject_t t = make_texture(m, cudaFilterModePoint, cudaFilterModeLinear, 0, 0, big);
    std::vector<Probe> p;
    const float dirs[][3] = {{1, 0.2f, -0.3f}, {-1, 0.5f, 0.1f}, {0.3f, 1, 0.2f},
                             {0.1f, -1, -0.6f}, {0.2f, 0.4f, 1}, {-0.7f, 0.1f, -1}};
    for (const auto& d : dirs)
      for (int i = 0; i <= 8; ++i) p.push_back(at(d[0], d[1], d[2], -0.5f + i * 0.5f));
    run("cubemap lod", t, LodCubemap, p, show_lod);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeMipmappedArray(m));
  }
  // texCubemapLayered on a plain cubemap layered array, 4 x 4, 2 layers:
  // layer * 1000 + face * 100 + y * 4 + x.
  {
    cudaArray_t a = nullptr;
    CHECK(cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 4, 12), cudaArrayCubemap | cudaArrayLayered));
    std::vector<float> host(4 * 4 * 12);
    for (int z = 0; z < 12; ++z)
      for (int i = 0; i < 16; ++i) host[z * 16 + i] = static_cast<float>((z / 6) * 1000 + (z % 6) * 100 + i);
    cudaMemcpy3DParms cp;
    memset(&cp, 0, sizeof cp);
    cp.srcPtr = make_cudaPitchedPtr(host.data(), 4 * sizeof(float), 4, 4);
    cp.dstArray = a;
    cp.extent = make_cudaExtent(4, 4, 12);
    cp.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&cp));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.filterMode = cudaFilterModeLinear;
    td.normalizedCoords = 1;
    cudaTextureObject_t t = 0;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    std::vector<Probe> p;
    const float dirs[][3] = {{1, 0.2f, -0.3f}, {-1, 0.5f, 0.1f}, {0.3f, 1, 0.2f},
                             {0.1f, -1, -0.6f}, {0.2f, 0.4f, 1},  {-0.7f, 0.1f, -1}};
    for (int layer = -1; layer <= 2; ++layer)
      for (const auto& d : dirs) p.push_back(at(d[0], d[1], d[2], 0, layer));
    run("cubemap layered", t, CubemapLayered, p, show_x);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));
  }
  CHECK(cudaFreeMipmappedArray(levels2d));
  mipmap_errors();
  return 0;
}
