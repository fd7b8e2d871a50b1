// sRGB texture reads on an NVIDIA GPU (guide 3.2.11.1: cudaTextureDesc's
// sRGB field, "whether sRGB to linear conversion should be performed during
// texture fetch"): 8-bit unsigned textures read as normalized floats with
// sRGB = 1, point-sampled at every byte value (the conversion table, each
// channel of 1-, 2- and 4-channel texels: does alpha convert?), linearly
// filtered in 1D, 2D and 3D (ramps, shuffled texels, every weight between
// chosen pairs, 2D weight pairs, normalized coordinates with wrap), through
// tex2Dgather, with the border colour, between mipmap levels and through
// tex1Dfetch; and what sRGB = 1 does to other formats and to element-type
// reads (each cudaCreateTextureObject's answer is printed, then the fetches
// it allows).  Results are printed as the hexadecimal bits of each
// component, at most 16 a line, so a simulator must match the GPU bit for
// bit (issue 16's golden file for sRGB).
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

enum Kind { Fetch1D, Fetch2D, Fetch3D, Gather, Fetch1DLinear, Lod1D };

struct Probe {
  float x, y, z, lod;
  int index;  // tex1Dfetch's element, or tex2Dgather's component
};

template <class R>
__global__ void fetch(cudaTextureObject_t t, Kind kind, const Probe* p, R* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Probe q = p[i];
  R r = R();
  switch (kind) {
    case Fetch1D:
      r = tex1D<R>(t, q.x);
      break;
    case Fetch2D:
      r = tex2D<R>(t, q.x, q.y);
      break;
    case Fetch3D:
      r = tex3D<R>(t, q.x, q.y, q.z);
      break;
    case Gather:
      r = tex2Dgather<R>(t, q.x, q.y, q.index);
      break;
    case Fetch1DLinear:
      r = tex1Dfetch<R>(t, q.index);
      break;
    case Lod1D:
      r = tex1DLod<R>(t, q.x, q.lod);
      break;
  }
  out[i] = r;
}

static Probe at(float x, float y = 0.0f, float z = 0.0f) {
  Probe p;
  memset(&p, 0, sizeof p);
  p.x = x;
  p.y = y;
  p.z = z;
  return p;
}

// Runs the probes and prints "<label> <k>: <result> ..." with 16 results a
// line, each result its components' bits joined by commas.
template <class R>
static void run(const char* label, cudaTextureObject_t t, Kind kind, const std::vector<Probe>& probes,
                size_t component = 4) {
  const int n = static_cast<int>(probes.size());
  Probe* dp = nullptr;
  R* dout = nullptr;
  CHECK(cudaMalloc(&dp, n * sizeof(Probe)));
  CHECK(cudaMalloc(&dout, n * sizeof(R)));
  CHECK(cudaMemcpy(dp, probes.data(), n * sizeof(Probe), cudaMemcpyHostToDevice));
  fetch<R><<<(n + 63) / 64, 64>>>(t, kind, dp, dout, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned char> out(n * sizeof(R));
  CHECK(cudaMemcpy(out.data(), dout, out.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(dp));
  CHECK(cudaFree(dout));
  // `component` is the size of R's scalar: 4 (float, int), 2 or 1.
  const size_t components = sizeof(R) / component;
  for (int i = 0; i < n; ++i) {
    if (i % 16 == 0) printf("%s%s %d:", i ? "\n" : "", label, i / 16);
    printf(" ");
    for (size_t c = 0; c < components; ++c) {
      unsigned v = 0;
      memcpy(&v, &out[i * sizeof(R) + c * component], component);
      printf("%s%0*x", c ? "," : "", static_cast<int>(component * 2), v);
    }
  }
  printf("\n");
}

// A fixed pseudo-random byte sequence (the same on every compiler).
struct Bytes {
  unsigned state;
  explicit Bytes(unsigned seed) : state(seed) {}
  unsigned char next() {
    state = state * 1664525u + 1013904223u;
    return static_cast<unsigned char>(state >> 24);
  }
};

// The 256 byte values in a fixed shuffled order.
static std::vector<unsigned char> shuffled_bytes(unsigned seed) {
  std::vector<unsigned char> v(256);
  for (int i = 0; i < 256; ++i) v[i] = static_cast<unsigned char>(i);
  Bytes r(seed);
  for (int i = 255; i > 0; --i) {
    const int low = r.next();
    const int j = (low | r.next() << 8) % (i + 1);
    const unsigned char t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
  return v;
}

struct Sampling {
  cudaTextureReadMode read;
  cudaTextureFilterMode filter;
  int srgb;
  cudaTextureAddressMode address;
  int normalized_coords;
  float border[4];
};

static Sampling srgb(cudaTextureFilterMode filter, cudaTextureReadMode read = cudaReadModeNormalizedFloat) {
  Sampling s;
  memset(&s, 0, sizeof s);
  s.read = read;
  s.filter = filter;
  s.srgb = 1;
  s.address = cudaAddressModeClamp;
  return s;
}

static cudaTextureDesc texture_desc(const Sampling& s) {
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = s.address;
  td.filterMode = s.filter;
  td.readMode = s.read;
  td.sRGB = s.srgb;
  td.normalizedCoords = s.normalized_coords;
  for (int c = 0; c < 4; ++c) td.borderColor[c] = s.border[c];
  return td;
}

static cudaError_t create(cudaTextureObject_t* t, cudaArray_t array, const Sampling& s) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = array;
  const cudaTextureDesc td = texture_desc(s);
  const cudaError_t e = cudaCreateTextureObject(t, &rd, &td, nullptr);
  (void)cudaGetLastError();
  return e;
}

static cudaTextureObject_t make(cudaArray_t array, const Sampling& s) {
  cudaTextureObject_t t = 0;
  CHECK(create(&t, array, s));
  return t;
}

// A 2D (height > 0) or 1D array of `bytes`, `channels` 8-bit channels of `kind`.
static cudaArray_t array_of(const std::vector<unsigned char>& bytes, int bits, int channels,
                            cudaChannelFormatKind kind, int width, int height, unsigned flags = 0) {
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc(
      bits, channels >= 2 ? bits : 0, channels >= 3 ? bits : 0, channels >= 4 ? bits : 0, kind);
  cudaArray_t a = nullptr;
  CHECK(cudaMallocArray(&a, &desc, width, height, flags));
  const size_t row = width * channels * bits / 8;
  CHECK(cudaMemcpy2DToArray(a, 0, 0, bytes.data(), row, row, height ? height : 1, cudaMemcpyHostToDevice));
  return a;
}

static cudaArray_t u8_array(const std::vector<unsigned char>& bytes, int channels, int width, int height = 0,
                            unsigned flags = 0) {
  return array_of(bytes, 8, channels, cudaChannelFormatKindUnsigned, width, height, flags);
}

// Point samples at the centres of texels 0..n-1 of a 1D texture.
static std::vector<Probe> centres(int n) {
  std::vector<Probe> p;
  for (int i = 0; i < n; ++i) p.push_back(at(i + 0.5f));
  return p;
}

// The conversion table: every byte value, in each channel.
static void tables() {
  std::vector<unsigned char> ramp(256), two(512), four(1024);
  for (int i = 0; i < 256; ++i) {
    ramp[i] = static_cast<unsigned char>(i);
    two[2 * i] = static_cast<unsigned char>(i);
    two[2 * i + 1] = static_cast<unsigned char>(255 - i);
    four[4 * i] = static_cast<unsigned char>(i);
    four[4 * i + 1] = static_cast<unsigned char>(i + 85);
    four[4 * i + 2] = static_cast<unsigned char>(i + 170);
    four[4 * i + 3] = static_cast<unsigned char>(i);
  }
  cudaArray_t a1 = u8_array(ramp, 1, 256), a2 = u8_array(two, 2, 256), a4 = u8_array(four, 4, 256);
  cudaTextureObject_t t = make(a1, srgb(cudaFilterModePoint));
  run<float>("u8x1 table", t, Fetch1D, centres(256));
  CHECK(cudaDestroyTextureObject(t));
  Sampling off = srgb(cudaFilterModePoint);
  off.srgb = 0;
  t = make(a1, off);
  run<float>("u8x1 table srgb0", t, Fetch1D, centres(256));
  CHECK(cudaDestroyTextureObject(t));
  t = make(a2, srgb(cudaFilterModePoint));
  run<float2>("u8x2 table", t, Fetch1D, centres(256));
  CHECK(cudaDestroyTextureObject(t));
  t = make(a4, srgb(cudaFilterModePoint));
  run<float4>("u8x4 table", t, Fetch1D, centres(256));
  CHECK(cudaDestroyTextureObject(t));
  // The same bytes as a 16 x 16 2D texture.
  cudaArray_t square = u8_array(ramp, 1, 16, 16);
  t = make(square, srgb(cudaFilterModePoint));
  std::vector<Probe> p;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) p.push_back(at(x + 0.5f, y + 0.5f));
  run<float>("u8x1 2D table", t, Fetch2D, p);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a1));
  CHECK(cudaFreeArray(a2));
  CHECK(cudaFreeArray(a4));
  CHECK(cudaFreeArray(square));
}

// Weights of linear filtering (in 1/256) probed between neighbours.
static const int kWeights[] = {1, 32, 64, 85, 128, 171, 192, 255};

// 1D linear filtering between every pair of neighbours of `texels` at the
// weights above.
static void neighbours(const char* name, const std::vector<unsigned char>& texels) {
  cudaArray_t a = u8_array(texels, 1, static_cast<int>(texels.size()));
  cudaTextureObject_t t = make(a, srgb(cudaFilterModeLinear));
  for (int w : kWeights) {
    std::vector<Probe> p;
    for (int i = 0; i + 1 < static_cast<int>(texels.size()); ++i) p.push_back(at(i + 0.5f + w / 256.0f));
    char label[64];
    snprintf(label, sizeof label, "%s w%d", name, w);
    run<float>(label, t, Fetch1D, p);
  }
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a));
}

static void linear_1d() {
  std::vector<unsigned char> ramp(256);
  for (int i = 0; i < 256; ++i) ramp[i] = static_cast<unsigned char>(i);
  neighbours("u8x1 ramp linear", ramp);
  neighbours("u8x1 shuffled linear", shuffled_bytes(7));
  // Every weight 0..256 between chosen pairs (a, b), texels 2k and 2k + 1.
  static const int pairs[][2] = {{0, 255},  {255, 0},   {0, 1},     {1, 0},     {0, 10},    {10, 11},
                                 {50, 51},  {100, 101}, {128, 129}, {200, 201}, {254, 255}, {17, 200},
                                 {64, 192}, {3, 4},     {30, 31},   {240, 5}};
  const int count = sizeof pairs / sizeof pairs[0];
  std::vector<unsigned char> texels;
  for (int k = 0; k < count; ++k) {
    texels.push_back(static_cast<unsigned char>(pairs[k][0]));
    texels.push_back(static_cast<unsigned char>(pairs[k][1]));
  }
  cudaArray_t a = u8_array(texels, 1, static_cast<int>(texels.size()));
  cudaTextureObject_t t = make(a, srgb(cudaFilterModeLinear));
  for (int k = 0; k < count; ++k) {
    std::vector<Probe> p;
    for (int w = 0; w <= 256; ++w) p.push_back(at(2 * k + 0.5f + w / 256.0f));
    char label[64];
    snprintf(label, sizeof label, "u8x1 sweep %d-%d", pairs[k][0], pairs[k][1]);
    run<float>(label, t, Fetch1D, p);
  }
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a));
  // Two channels: does the second convert when filtered?
  const std::vector<unsigned char> first = shuffled_bytes(11), second = shuffled_bytes(12);
  std::vector<unsigned char> two(512);
  for (int i = 0; i < 256; ++i) {
    two[2 * i] = first[i];
    two[2 * i + 1] = second[i];
  }
  a = u8_array(two, 2, 256);
  t = make(a, srgb(cudaFilterModeLinear));
  for (int w : {64, 128, 192}) {
    std::vector<Probe> p;
    for (int i = 0; i < 255; ++i) p.push_back(at(i + 0.5f + w / 256.0f));
    char label[64];
    snprintf(label, sizeof label, "u8x2 shuffled linear w%d", w);
    run<float2>(label, t, Fetch1D, p);
  }
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a));
}

static std::vector<unsigned char> random_bytes(unsigned seed, size_t n) {
  Bytes r(seed);
  std::vector<unsigned char> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = r.next();
  return v;
}

static void linear_2d_3d() {
  // 16 x 16 four-channel texels; weight pairs at a few texel blocks, then
  // normalized coordinates with wrap.
  cudaArray_t a = u8_array(random_bytes(21, 16 * 16 * 4), 4, 16, 16);
  cudaTextureObject_t t = make(a, srgb(cudaFilterModeLinear));
  static const int weights[] = {0, 1, 32, 64, 127, 128, 129, 192, 255, 256};
  static const int blocks[][2] = {{0, 0}, {3, 7}, {8, 2}, {14, 14}, {5, 11}, {11, 5}};
  for (const auto& b : blocks) {
    std::vector<Probe> p;
    for (int ay : weights)
      for (int ax : weights) p.push_back(at(b[0] + 0.5f + ax / 256.0f, b[1] + 0.5f + ay / 256.0f));
    char label[64];
    snprintf(label, sizeof label, "u8x4 2D linear at %d,%d", b[0], b[1]);
    run<float4>(label, t, Fetch2D, p);
  }
  CHECK(cudaDestroyTextureObject(t));
  Sampling wrap = srgb(cudaFilterModeLinear);
  wrap.address = cudaAddressModeWrap;
  wrap.normalized_coords = 1;
  t = make(a, wrap);
  std::vector<Probe> p;
  for (int k = 0; k < 64; ++k) p.push_back(at(-0.25f + k * (3.0f / 128.0f), 1.125f - k * (5.0f / 256.0f)));
  run<float4>("u8x4 2D linear wrap normalized", t, Fetch2D, p);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a));

  // A 4 x 4 x 4 one-channel volume.
  const std::vector<unsigned char> volume = random_bytes(31, 64);
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t v = nullptr;
  CHECK(cudaMalloc3DArray(&v, &desc, make_cudaExtent(4, 4, 4)));
  cudaMemcpy3DParms copy;
  memset(&copy, 0, sizeof copy);
  copy.srcPtr = make_cudaPitchedPtr(const_cast<unsigned char*>(volume.data()), 4, 4, 4);
  copy.dstArray = v;
  copy.extent = make_cudaExtent(4, 4, 4);
  copy.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&copy));
  t = make(v, srgb(cudaFilterModeLinear));
  p.clear();
  Bytes r(41);
  for (int k = 0; k < 64; ++k) {
    const float x = r.next() / 64.0f, y = r.next() / 64.0f, z = r.next() / 64.0f;
    p.push_back(at(x, y, z));
  }
  run<float>("u8x1 3D linear", t, Fetch3D, p);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(v));
}

// tex2Dgather with sRGB; the border colour with sRGB.
static void gather_and_border() {
  const std::vector<unsigned char> texels = random_bytes(51, 4 * 4 * 4);
  cudaArray_t a = u8_array(texels, 4, 4, 4, cudaArrayTextureGather);
  std::vector<Probe> p;
  const float where[][2] = {{1.0f, 1.0f}, {2.3f, 0.7f}, {0.2f, 0.2f}, {3.9f, 1.9f}, {2.5f, 1.0f}};
  for (int comp = 0; comp < 4; ++comp)
    for (const auto& w : where) {
      Probe q = at(w[0], w[1]);
      q.index = comp;
      p.push_back(q);
    }
  cudaTextureObject_t t = make(a, srgb(cudaFilterModePoint));
  run<float4>("u8x4 gather normalized", t, Gather, p);
  CHECK(cudaDestroyTextureObject(t));
  t = make(a, srgb(cudaFilterModePoint, cudaReadModeElementType));
  run<uchar4>("u8x4 gather element", t, Gather, p, 1);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a));

  a = u8_array(texels, 4, 4, 4);
  Sampling border = srgb(cudaFilterModePoint);
  border.address = cudaAddressModeBorder;
  const float colour[4] = {0.5f, 0.25f, 0.75f, 0.2f};
  memcpy(border.border, colour, sizeof colour);
  const float inside_and_out[][2] = {{-1.0f, -1.0f}, {5.0f, 1.0f}, {1.5f, 1.5f},   {0.0f, 1.5f},
                                     {0.25f, 0.25f}, {4.0f, 2.0f}, {-0.5f, -0.5f}, {3.75f, 3.9f}};
  p.clear();
  for (const auto& w : inside_and_out) p.push_back(at(w[0], w[1]));
  t = make(a, border);
  run<float4>("u8x4 border point", t, Fetch2D, p);
  CHECK(cudaDestroyTextureObject(t));
  border.filter = cudaFilterModeLinear;
  t = make(a, border);
  run<float4>("u8x4 border linear", t, Fetch2D, p);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a));
}

// A 1D mipmap of 16, 8 and 4 texels, sampled between levels.
static void mipmap() {
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned char>();
  cudaMipmappedArray_t m = nullptr;
  CHECK(cudaMallocMipmappedArray(&m, &desc, make_cudaExtent(16, 0, 0), 3));
  for (unsigned level = 0; level < 3; ++level) {
    cudaArray_t a = nullptr;
    CHECK(cudaGetMipmappedArrayLevel(&a, m, level));
    const int width = 16 >> level;
    const std::vector<unsigned char> texels = random_bytes(61 + level, width);
    CHECK(cudaMemcpy2DToArray(a, 0, 0, texels.data(), width, width, 1, cudaMemcpyHostToDevice));
  }
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeMipmappedArray;
  rd.res.mipmap.mipmap = m;
  std::vector<Probe> p;
  for (float lod : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.5f, 2.0f})
    for (float x : {0.1f, 0.3f, 0.55f, 0.8f}) {
      Probe q = at(x);
      q.lod = lod;
      p.push_back(q);
    }
  for (cudaTextureFilterMode filter : {cudaFilterModeLinear, cudaFilterModePoint}) {
    Sampling s = srgb(filter);
    s.normalized_coords = 1;
    cudaTextureDesc td = texture_desc(s);
    td.mipmapFilterMode = cudaFilterModeLinear;
    td.maxMipmapLevelClamp = 2.0f;
    cudaTextureObject_t t = 0;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    run<float>(filter == cudaFilterModeLinear ? "u8x1 mipmap linear" : "u8x1 mipmap point", t, Lod1D, p);
    CHECK(cudaDestroyTextureObject(t));
  }
  CHECK(cudaFreeMipmappedArray(m));
}

// tex1Dfetch of linear memory, one and four channels.
static void linear_memory() {
  const std::vector<unsigned char> texels = random_bytes(71, 64);
  unsigned char* d = nullptr;
  CHECK(cudaMalloc(&d, texels.size()));
  CHECK(cudaMemcpy(d, texels.data(), texels.size(), cudaMemcpyHostToDevice));
  for (int channels : {1, 4}) {
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = d;
    rd.res.linear.desc =
        channels == 1 ? cudaCreateChannelDesc<unsigned char>() : cudaCreateChannelDesc<uchar4>();
    rd.res.linear.sizeInBytes = 16 * channels;
    const cudaTextureDesc td = texture_desc(srgb(cudaFilterModePoint));
    cudaTextureObject_t t = 0;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    std::vector<Probe> p;
    for (int i = 0; i <= 16; ++i) {
      Probe q = at(0.0f);
      q.index = i;
      p.push_back(q);
    }
    if (channels == 1)
      run<float>("u8x1 tex1Dfetch", t, Fetch1DLinear, p);
    else
      run<float4>("u8x4 tex1Dfetch", t, Fetch1DLinear, p);
    CHECK(cudaDestroyTextureObject(t));
  }
  CHECK(cudaFree(d));
}

// Other formats and element-type reads with sRGB = 1: the create call's
// answer, then point (and linear) fetches at texel centres and between.
struct Format {
  const char* name;
  int bits;
  cudaChannelFormatKind kind;
};

template <class R>
static void try_format(const Format& f, const std::vector<unsigned char>& bytes, int channels, int width,
                       cudaTextureReadMode read, cudaTextureFilterMode filter,
                       const std::vector<Probe>& probes, size_t component = 4) {
  cudaArray_t a = array_of(bytes, f.bits, channels, f.kind, width, 0);
  cudaTextureObject_t t = 0;
  char label[96];
  snprintf(label, sizeof label, "%s x%d %s %s", f.name, channels,
           read == cudaReadModeElementType ? "element" : "normalized",
           filter == cudaFilterModePoint ? "point" : "linear");
  const cudaError_t e = create(&t, a, srgb(filter, read));
  printf("create %s: %s\n", label, cudaGetErrorName(e));
  if (e == cudaSuccess) {
    run<R>(label, t, Fetch1D, probes, component);
    CHECK(cudaDestroyTextureObject(t));
  }
  CHECK(cudaFreeArray(a));
}

// `values` (8 of them) as texels of `bits`-bit channels: channel c of texel i
// is value (i + 3c) mod 8.
static std::vector<unsigned char> texels_of(const long long* values, int bits, int channels) {
  const int bytes = bits / 8;
  std::vector<unsigned char> data(8 * channels * bytes);
  for (int i = 0; i < 8; ++i)
    for (int c = 0; c < channels; ++c) {
      const unsigned long long v = static_cast<unsigned long long>(values[(i + 3 * c) % 8]);
      memcpy(&data[(i * channels + c) * bytes], &v, bytes);
    }
  return data;
}

static void formats() {
  std::vector<Probe> eight = centres(8);
  for (float x : {0.75f, 1.0f, 2.3f, 3.5f, 5.125f, 6.9f, 7.25f, 7.5f}) eight.push_back(at(x));
  static const long long s8[8] = {-128, -127, -64, -1, 0, 1, 64, 127};
  static const long long u8[8] = {0, 1, 10, 64, 128, 188, 254, 255};
  static const long long s16[8] = {-32768, -32767, -1, 0, 1, 1000, 16384, 32767};
  static const long long u16[8] = {0, 1, 257, 4096, 32768, 50000, 65534, 65535};
  static const long long s32[8] = {-2147483647LL - 1, -1, 0, 1, 255, 65535, 1 << 30, 2147483647LL};
  static const unsigned f32[8] = {0x00000000u,
                                  0x3e800000u /* 0.25 */,
                                  0x3f000000u /* 0.5 */,
                                  0x3f800000u /* 1 */,
                                  0xbf000000u /* -0.5 */,
                                  0x40000000u /* 2 */,
                                  0x3d25aee6u /* 0.04045 */,
                                  0x3f666666u /* 0.9 */};
  static const unsigned f16[8] = {0x0000u,
                                  0x3400u /* 0.25 */,
                                  0x3800u /* 0.5 */,
                                  0x3c00u /* 1 */,
                                  0xb800u /* -0.5 */,
                                  0x4000u /* 2 */,
                                  0x292du /* 0.04045 */,
                                  0x3b33u /* 0.9 */};
  long long f32v[8], f16v[8];
  for (int i = 0; i < 8; ++i) {
    f32v[i] = f32[i];
    f16v[i] = f16[i];
  }
  const Format S8 = {"s8", 8, cudaChannelFormatKindSigned}, U8 = {"u8", 8, cudaChannelFormatKindUnsigned},
               S16 = {"s16", 16, cudaChannelFormatKindSigned},
               U16 = {"u16", 16, cudaChannelFormatKindUnsigned},
               S32 = {"s32", 32, cudaChannelFormatKindSigned},
               U32 = {"u32", 32, cudaChannelFormatKindUnsigned},
               F32 = {"f32", 32, cudaChannelFormatKindFloat}, F16 = {"f16", 16, cudaChannelFormatKindFloat};
  const cudaTextureReadMode E = cudaReadModeElementType, N = cudaReadModeNormalizedFloat;
  const cudaTextureFilterMode P = cudaFilterModePoint, L = cudaFilterModeLinear;
  for (cudaTextureFilterMode filter : {P, L}) {
    try_format<float>(S8, texels_of(s8, 8, 1), 1, 8, N, filter, eight);
    try_format<float4>(S8, texels_of(s8, 8, 4), 4, 8, N, filter, eight);
    try_format<float>(U16, texels_of(u16, 16, 1), 1, 8, N, filter, eight);
    try_format<float4>(U16, texels_of(u16, 16, 4), 4, 8, N, filter, eight);
    try_format<float>(S16, texels_of(s16, 16, 1), 1, 8, N, filter, eight);
    try_format<float>(F32, texels_of(f32v, 32, 1), 1, 8, E, filter, eight);
    try_format<float>(F16, texels_of(f16v, 16, 1), 1, 8, E, filter, eight);
  }
  try_format<signed char>(S8, texels_of(s8, 8, 1), 1, 8, E, P, eight, 1);
  try_format<unsigned char>(U8, texels_of(u8, 8, 1), 1, 8, E, P, eight, 1);
  try_format<uchar4>(U8, texels_of(u8, 8, 4), 4, 8, E, P, eight, 1);
  try_format<unsigned short>(U16, texels_of(u16, 16, 1), 1, 8, E, P, eight, 2);
  try_format<int>(S32, texels_of(s32, 32, 1), 1, 8, E, P, eight);
  try_format<unsigned>(U32, texels_of(s32, 32, 1), 1, 8, E, P, eight);
  // The refusals CUDA has without sRGB stay (linear filtering of integers
  // read as integers, normalized reads of 32-bit and float formats).
  try_format<float>(U8, texels_of(u8, 8, 1), 1, 8, E, L, eight);
  try_format<float>(U32, texels_of(s32, 32, 1), 1, 8, N, P, eight);
  try_format<float>(F32, texels_of(f32v, 32, 1), 1, 8, N, P, eight);

  // Every signed 8-bit value, and 16-bit values across the range, when sRGB
  // reads of them are allowed.
  std::vector<unsigned char> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<unsigned char>(i);
  cudaArray_t a = array_of(all, 8, 1, cudaChannelFormatKindSigned, 256, 0);
  cudaTextureObject_t t = 0;
  if (create(&t, a, srgb(P)) == cudaSuccess) {
    run<float>("s8x1 table", t, Fetch1D, centres(256));
    CHECK(cudaDestroyTextureObject(t));
  }
  CHECK(cudaFreeArray(a));
  std::vector<unsigned char> wide(768 * 2);
  for (int k = 0; k < 768; ++k) {
    const unsigned v = k < 512 ? k * 128 + ((k * 37) & 127) : (k - 512) * 257;
    wide[2 * k] = static_cast<unsigned char>(v);
    wide[2 * k + 1] = static_cast<unsigned char>(v >> 8);
  }
  a = array_of(wide, 16, 1, cudaChannelFormatKindUnsigned, 768, 0);
  if (create(&t, a, srgb(P)) == cudaSuccess) {
    run<float>("u16x1 table", t, Fetch1D, centres(768));
    CHECK(cudaDestroyTextureObject(t));
  }
  CHECK(cudaFreeArray(a));
}

int main() {
  tables();
  linear_1d();
  linear_2d_3d();
  gather_and_border();
  mipmap();
  linear_memory();
  formats();
  printf("texture_srgb: done\n");
  return 0;
}
