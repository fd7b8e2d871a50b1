// Lab 10's harness (README.md): runs your conversions (texel_format.h)
// inside kernels on Kestrel's functional model and writes what they return
// to a results file for make check.  You need not change this file.
//
//   formats RESULTS_FILE
//
// Part 1 rebuilds the textures of the H100 golden program
// tests/cuda/reference/nvidia_texture/texture_formats.cu (8- and 16-bit
// integers read as normalized float: point, linear, tex2Dgather; 16-bit
// floats: point) and prints your results in its output format, one line per
// fetch mode, plus a "case" line per result saying which texels and weights
// it used.  Part 2 sweeps every 8- and 16-bit value, every half float and
// linear blends at every weight through both your functions and Kestrel's
// own texture fetches (tex2D on a CUDA array: the device SDK's software
// path, include/kestrel/texture_math.hpp) and prints where they differ.
// Part 3 fetches the values your predictions are about.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "texel_format.h"

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      printf("error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

// One result your functions compute: a point-sampled normalized integer, a
// point-sampled half float, a linear fetch of up to four taps, or one texel
// of a normalized tex2Dgather.
enum Op { kPointNormalized, kPointHalf, kLinear, kGather };

struct Case {
  int op;
  int is_signed;
  int bits;
  int taps;
  int value[4];   // the texels' integers (sign-extended), or a half's 16 bits
  int weight[4];  // kLinear: in units of 1/256, adding up to 256
  float x, y;     // part 2: where Kestrel's own fetch samples
};

__device__ unsigned convert(const Case& c) {
  float r = 0.0f;
  if (c.op == kPointNormalized) {
    r = normalized_point(c.is_signed != 0, c.bits, c.value[0]);
  } else if (c.op == kPointHalf) {
    r = half_to_float(static_cast<unsigned short>(c.value[0]));
  } else if (c.op == kGather) {
    r = filtered(c.is_signed != 0, 256 * fixed16(c.is_signed != 0, c.bits, c.value[0]));
  } else {
    int sum = 0;
    for (int t = 0; t < c.taps; ++t) sum += c.weight[t] * fixed16(c.is_signed != 0, c.bits, c.value[t]);
    r = filtered(c.is_signed != 0, sum);
  }
  return __float_as_uint(r);
}

__global__ void convert_cases(const Case* cases, unsigned* yours, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) yours[i] = convert(cases[i]);
}

// Kestrel's own fetch of a one-channel texture beside your conversion.
__global__ void fetch_and_convert(cudaTextureObject_t t, const Case* cases, unsigned* kestrel,
                                  unsigned* yours, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  kestrel[i] = __float_as_uint(tex2D<float>(t, cases[i].x, cases[i].y));
  yours[i] = convert(cases[i]);
}

// A texture's texels on the host: channel c of texel (x, y).
struct Texels {
  const char* format;  // s8, u8, s16, u16, f16
  int is_signed, bits, is_float;
  int width, height, channels;
  std::vector<int> values;  // (y x width + x) x channels + c
  int at(int x, int y, int c) const { return values[(y * width + x) * channels + c]; }
};

static int clamp_index(long long i, int size) {
  return static_cast<int>(i < 0 ? 0 : i >= size ? size - 1 : i);
}

// The two taps of linear filtering along one axis (appendix F.2) with the
// clamp address mode: the lower texel floor(u - 0.5) and the upper texel's
// weight, frac(u - 0.5) in units of 1/256 rounded half up (the 9-bit
// weights, 0..256).  Filtering first clamps u to the texel centres
// [0.5, size - 0.5]; tex2Dgather does not.  (The H100's rule, fitted in
// tests/cuda/reference/nvidia_texture/README.md, "Weights".)
struct AxisTaps {
  long long lower;
  int weight;
};

static AxisTaps axis_taps(float coordinate, int size, bool clamp_to_centres) {
  double u = coordinate;
  if (clamp_to_centres) u = u < 0.5 ? 0.5 : u > size - 0.5 ? size - 0.5 : u;
  const double below = u - 0.5;
  const long long lower = static_cast<long long>(std::floor(below));
  return {lower, static_cast<int>(std::floor((below - static_cast<double>(lower)) * 256.0 + 0.5))};
}

static Case base_case(const Texels& t, int op) {
  Case c;
  memset(&c, 0, sizeof c);
  c.op = op;
  c.is_signed = t.is_signed;
  c.bits = t.bits;
  return c;
}

static Case point_case(const Texels& t, int channel, float x, float y) {
  Case c = base_case(t, t.is_float ? kPointHalf : kPointNormalized);
  c.taps = 1;
  c.value[0] = t.at(clamp_index(static_cast<long long>(std::floor(x)), t.width),
                    clamp_index(static_cast<long long>(std::floor(y)), t.height), channel);
  c.weight[0] = 256;
  c.x = x;
  c.y = y;
  return c;
}

// A bilinear fetch's four taps, (i0, j0), (i1, j0), (i0, j1), (i1, j1).
// The 2D weights: the upper column (i1) takes ax of 256, and each column
// splits along y, the upper row taking column x ay / 256 rounded half up
// in the upper column and half down in the lower one (so rows and columns
// keep the axes' weights exactly; the golden README's "Weights").
static Case linear_case(const Texels& t, int channel, float x, float y) {
  const AxisTaps tx = axis_taps(x, t.width, true), ty = axis_taps(y, t.height, true);
  const int column[2] = {256 - tx.weight, tx.weight};
  const int upper_row[2] = {(column[0] * ty.weight + 127) >> 8, (column[1] * ty.weight + 128) >> 8};
  Case c = base_case(t, kLinear);
  c.taps = 4;
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 2; ++i) {
      c.value[j * 2 + i] =
          t.at(clamp_index(tx.lower + i, t.width), clamp_index(ty.lower + j, t.height), channel);
      c.weight[j * 2 + i] = j ? upper_row[i] : column[i] - upper_row[i];
    }
  c.x = x;
  c.y = y;
  return c;
}

// tex2Dgather's `n`th texel (guide B.8.1.21): the order (i0, j1), (i1, j1),
// (i1, j0), (i0, j0) of a linear fetch's taps, without the clamp to centres.
static Case gather_case(const Texels& t, int channel, float x, float y, int n) {
  const AxisTaps tx = axis_taps(x, t.width, false), ty = axis_taps(y, t.height, false);
  const int order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  Case c = base_case(t, kGather);
  c.taps = 1;
  c.value[0] = t.at(clamp_index(tx.lower + order[n][0], t.width),
                    clamp_index(ty.lower + order[n][1], t.height), channel);
  c.weight[0] = 256;
  c.x = x;
  c.y = y;
  return c;
}

template <class T>
static T* to_device(const std::vector<T>& v) {
  T* d = nullptr;
  CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

static std::vector<unsigned> run_cases(const std::vector<Case>& cases) {
  Case* dc = to_device(cases);
  unsigned* dout = nullptr;
  CHECK(cudaMalloc(&dout, cases.size() * sizeof(unsigned)));
  const int n = static_cast<int>(cases.size());
  convert_cases<<<(n + 127) / 128, 128>>>(dc, dout, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> out(cases.size());
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dout));
  return out;
}

static std::string hex(unsigned v, int digits) {
  char s[16];
  snprintf(s, sizeof s, "%0*x", digits, v);
  return s;
}

// A texel's bits as the golden program stores them.
static std::string texel_bits(const Texels& t, int value) {
  return hex(static_cast<unsigned>(value) & (t.bits == 8 ? 0xffu : 0xffffu), t.bits / 4);
}

// ---- Part 1: the golden program's fetches -----------------------------------

// texture_formats.cu's texel values and coordinates (4 x 2 texels; component
// c of texel i is value (i + 3c) mod 8 of the format's list).
static const int kGoldenWidth = 4, kGoldenHeight = 2;
static const int kSigned8[8] = {-128, -127, -1, 0, 1, 63, 64, 127};
static const int kUnsigned8[8] = {0, 1, 2, 127, 128, 129, 254, 255};
static const int kSigned16[8] = {-32768, -32767, -1, 0, 1, 16384, 32766, 32767};
static const int kUnsigned16[8] = {0, 1, 255, 256, 32767, 32768, 65534, 65535};
static const int kHalf[8] = {0xc100, 0x8000, 0x0000, 0x0001, 0x3c00, 0x7bff, 0x3555, 0xfc00};

static Texels golden_texels(const char* format, int is_signed, int bits, int is_float, const int* list,
                            int channels) {
  Texels t{format, is_signed, bits, is_float, kGoldenWidth, kGoldenHeight, channels, {}};
  for (int i = 0; i < kGoldenWidth * kGoldenHeight; ++i)
    for (int c = 0; c < channels; ++c) t.values.push_back(list[(i + 3 * c) % 8]);
  return t;
}

static std::vector<float> golden_points() {
  std::vector<float> xy;
  for (int y = 0; y < kGoldenHeight; ++y)
    for (int x = 0; x < kGoldenWidth; ++x) {
      xy.push_back(x + 0.5f);
      xy.push_back(y + 0.5f);
    }
  const float between[] = {0.75f,
                           0.5f,
                           1.0f,
                           1.0f,
                           1.3f,
                           0.6f,
                           2.9f,
                           1.2f,
                           3.5f,
                           1.5f,
                           4.2f,
                           -0.3f,
                           0.5f + 1.0f / 512.0f,
                           0.5f + 255.0f / 256.0f,
                           2.0f,
                           1.125f,
                           1.51f,
                           1.49f};
  xy.insert(xy.end(), between, between + sizeof between / sizeof between[0]);
  return xy;
}

// One line of results: `name` with, per result, one case per channel.
struct Line {
  std::string name;
  int channels;
  std::vector<Case> cases;  // result r, channel c at r x channels + c
};

static void print_case(FILE* out, const Line& line, const Texels& t, int result, int channel, const Case& c) {
  fprintf(out, "case %s#%d#%d: at (%g, %g): ", line.name.c_str(), result, channel, c.x, c.y);
  if (c.op == kLinear) {
    fprintf(out, "texels");
    for (int k = 0; k < c.taps; ++k) fprintf(out, " %s", texel_bits(t, c.value[k]).c_str());
    fprintf(out, " weights");
    for (int k = 0; k < c.taps; ++k) fprintf(out, " %d", c.weight[k]);
    fprintf(out, " (of 256)\n");
  } else {
    fprintf(out, "texel %s\n", texel_bits(t, c.value[0]).c_str());
  }
}

static void golden_part(FILE* out) {
  struct Format {
    const char* name;
    int is_signed, bits, is_float;
    const int* list;
  };
  const Format formats[] = {{"s8", 1, 8, 0, kSigned8},
                            {"u8", 0, 8, 0, kUnsigned8},
                            {"s16", 1, 16, 0, kSigned16},
                            {"u16", 0, 16, 0, kUnsigned16},
                            {"f16", 1, 16, 1, kHalf}};
  const std::vector<float> points = golden_points();
  const float gathers[] = {1.0f, 1.0f, 2.3f, 0.7f, 0.2f, 0.2f, 3.9f, 1.9f, 2.5f, 1.0f};
  std::vector<Line> lines;
  std::vector<Texels> textures;
  for (const Format& f : formats)
    for (int channels : {1, 2, 4}) {
      const Texels t = golden_texels(f.name, f.is_signed, f.bits, f.is_float, f.list, channels);
      const std::string name = std::string(f.name) + " x" + std::to_string(channels);
      Line point{name + (f.is_float ? " element point" : " normalized point"), channels, {}};
      Line linear{name + " normalized linear", channels, {}};
      for (size_t p = 0; p < points.size(); p += 2)
        for (int c = 0; c < channels; ++c) {
          point.cases.push_back(point_case(t, c, points[p], points[p + 1]));
          linear.cases.push_back(linear_case(t, c, points[p], points[p + 1]));
        }
      lines.push_back(point);
      textures.push_back(t);
      if (f.is_float) continue;  // half floats: point sampling only (README.md)
      lines.push_back(linear);
      textures.push_back(t);
      for (int c = 0; c < channels; ++c) {
        Line gather{name + " normalized gather comp " + std::to_string(c), 4, {}};
        for (size_t g = 0; g < sizeof gathers / sizeof gathers[0]; g += 2)
          for (int n = 0; n < 4; ++n)
            gather.cases.push_back(gather_case(t, c, gathers[g], gathers[g + 1], n));
        lines.push_back(gather);
        textures.push_back(t);
      }
    }
  std::vector<Case> all;
  for (const Line& line : lines) all.insert(all.end(), line.cases.begin(), line.cases.end());
  const std::vector<unsigned> yours = run_cases(all);
  size_t next = 0;
  for (size_t l = 0; l < lines.size(); ++l) {
    const Line& line = lines[l];
    fprintf(out, "%s:", line.name.c_str());
    for (size_t k = 0; k < line.cases.size(); ++k)
      fprintf(out, "%s%08x", k % line.channels ? "," : " ", yours[next + k]);
    fprintf(out, "\n");
    for (size_t k = 0; k < line.cases.size(); ++k)
      print_case(out, line, textures[l], static_cast<int>(k / line.channels),
                 static_cast<int>(k % line.channels), line.cases[k]);
    next += line.cases.size();
  }
}

// ---- Part 2: sweeps against Kestrel's own fetches -------------------------

static cudaTextureObject_t make_texture(cudaArray_t* array, const Texels& t, bool linear) {
  const cudaChannelFormatKind kind = t.is_float    ? cudaChannelFormatKindFloat
                                     : t.is_signed ? cudaChannelFormatKindSigned
                                                   : cudaChannelFormatKindUnsigned;
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc(t.bits, 0, 0, 0, kind);
  CHECK(cudaMallocArray(array, &desc, t.width, t.height));
  const int bytes = t.bits / 8;
  std::vector<unsigned char> data(t.values.size() * bytes);
  for (size_t i = 0; i < t.values.size(); ++i) {
    const unsigned v = static_cast<unsigned>(t.values[i]);
    memcpy(&data[i * bytes], &v, bytes);  // little-endian: the low bytes
  }
  const size_t row = static_cast<size_t>(t.width) * bytes;
  CHECK(cudaMemcpy2DToArray(*array, 0, 0, data.data(), row, row, t.height, cudaMemcpyHostToDevice));
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = *array;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.readMode = t.is_float ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
  cudaTextureObject_t object = 0;
  CHECK(cudaCreateTextureObject(&object, &rd, &td, nullptr));
  return object;
}

struct Sweep {
  std::vector<unsigned> kestrel, yours;
};

// Kestrel's fetch and your conversion of each case on texture t.
static Sweep sweep(const Texels& t, bool linear, const std::vector<Case>& cases) {
  cudaArray_t array;
  const cudaTextureObject_t object = make_texture(&array, t, linear);
  Case* dc = to_device(cases);
  unsigned *dk = nullptr, *dy = nullptr;
  CHECK(cudaMalloc(&dk, cases.size() * sizeof(unsigned)));
  CHECK(cudaMalloc(&dy, cases.size() * sizeof(unsigned)));
  const int n = static_cast<int>(cases.size());
  fetch_and_convert<<<(n + 127) / 128, 128>>>(object, dc, dk, dy, n);
  CHECK(cudaDeviceSynchronize());
  Sweep s{std::vector<unsigned>(cases.size()), std::vector<unsigned>(cases.size())};
  CHECK(cudaMemcpy(s.kestrel.data(), dk, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(s.yours.data(), dy, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaDestroyTextureObject(object));
  CHECK(cudaFreeArray(array));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dk));
  CHECK(cudaFree(dy));
  return s;
}

// "sweep NAME: N cases, D differ" and the first difference.
static void report(FILE* out, const char* name, const Texels& t, const std::vector<Case>& cases,
                   const Sweep& s) {
  size_t differ = 0, first = cases.size();
  for (size_t i = 0; i < cases.size(); ++i)
    if (s.kestrel[i] != s.yours[i]) {
      if (!differ) first = i;
      ++differ;
    }
  fprintf(out, "sweep %s: %zu cases, %zu differ\n", name, cases.size(), differ);
  if (!differ) return;
  const Case& c = cases[first];
  fprintf(out, "sweep %s first: at (%g, %g): ", name, c.x, c.y);
  if (c.op == kLinear)
    fprintf(out, "texels %s %s weights %d %d (of 256)", texel_bits(t, c.value[0]).c_str(),
            texel_bits(t, c.value[1]).c_str(), c.weight[0], c.weight[1]);
  else
    fprintf(out, "texel %s", texel_bits(t, c.value[0]).c_str());
  fprintf(out, ": kestrel %08x, yours %08x\n", s.kestrel[first], s.yours[first]);
}

// Every value of an 8- or 16-bit format (or every half float), one texel each.
static Texels every_value(const char* format, int is_signed, int bits, int is_float) {
  const int count = 1 << bits, width = 256;
  Texels t{format, is_signed, bits, is_float, width, count / width, 1, {}};
  for (int v = 0; v < count; ++v)
    t.values.push_back(is_signed && !is_float && v >= count / 2 ? v - count : v);  // two's complement
  return t;
}

// A row of 64 texels for linear blends: two extreme pairs first (the
// lowest and highest value; 0 and 17), then a fixed pseudo-random sequence.
static Texels blend_row(const char* format, int is_signed, int bits) {
  const int lowest = is_signed ? -(1 << (bits - 1)) : 0,
            highest = is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  Texels t{format, is_signed, bits, 0, 64, 1, 1, {lowest, highest, 0, 17}};
  unsigned state = 12345u;
  while (t.values.size() < 64) {
    state = state * 1103515245u + 12345u;
    t.values.push_back(lowest + static_cast<int>((state >> 8) % static_cast<unsigned>(highest - lowest + 1)));
  }
  return t;
}

static float bits_float_host(unsigned u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static void sweep_part(FILE* out) {
  // Point sampling of every value.
  struct Every {
    const char* name;
    const char* format;
    int is_signed, bits, is_float;
  };
  const Every everies[] = {{"u8 normalized point", "u8", 0, 8, 0},
                           {"s8 normalized point", "s8", 1, 8, 0},
                           {"u16 normalized point", "u16", 0, 16, 0},
                           {"s16 normalized point", "s16", 1, 16, 0},
                           {"f16 element point", "f16", 1, 16, 1}};
  for (const Every& e : everies) {
    const Texels t = every_value(e.format, e.is_signed, e.bits, e.is_float);
    std::vector<Case> cases;
    for (int y = 0; y < t.height; ++y)
      for (int x = 0; x < t.width; ++x) cases.push_back(point_case(t, 0, x + 0.5f, y + 0.5f));
    const Sweep s = sweep(t, false, cases);
    report(out, e.name, t, cases, s);
    if (e.is_float) {
      // Part 3's half-float measurements, from Kestrel's fetches.
      int nan = 0;
      for (unsigned k : s.kestrel) nan += (k & 0x7fffffffu) > 0x7f800000u;
      fprintf(out, "measured half_nan_patterns %d\n", nan);
      fprintf(out, "measured half_min_subnormal %.9g\n", bits_float_host(s.kestrel[1]));
    }
  }
  // Linear blends of neighbours at every weight 0..255 of 256 (x = i + 0.5
  // + w / 256 weighs texel i + 1 by w), plus x from 0.5 to 1.5 in steps of
  // 1/4096 between the first two texels.
  struct Blend {
    const char* name;
    const char* format;
    int is_signed, bits;
  };
  const Blend blends[] = {{"u8 normalized linear", "u8", 0, 8},
                          {"s8 normalized linear", "s8", 1, 8},
                          {"u16 normalized linear", "u16", 0, 16},
                          {"s16 normalized linear", "s16", 1, 16}};
  for (const Blend& b : blends) {
    const Texels t = blend_row(b.format, b.is_signed, b.bits);
    std::vector<Case> cases;
    for (int i = 0; i + 1 < t.width; ++i)
      for (int w = 0; w < 256; ++w) cases.push_back(linear_case(t, 0, i + 0.5f + w / 256.0f, 0.5f));
    const size_t fine = cases.size();
    for (int k = 0; k <= 4096; ++k) cases.push_back(linear_case(t, 0, 0.5f + k / 4096.0f, 0.5f));
    const Sweep s = sweep(t, true, cases);
    report(out, b.name, t, cases, s);
    // Part 3: halfway between texels 0 and 1 (x = 1.0), a quarter of the
    // way from texel 2 to 3 (x = 2.75), and the distinct results between
    // texels 0 and 1.
    if (b.bits != 8) continue;
    const float mid = bits_float_host(s.kestrel[128]);
    if (b.is_signed) {
      fprintf(out, "measured s8_mid_m128_127 %.9g\n", mid);
      continue;
    }
    fprintf(out, "measured u8_mid_0_255 %.9g\n", mid);
    fprintf(out, "measured u8_0_17_quarter_x65535 %.9g\n",
            bits_float_host(s.kestrel[2 * 256 + 64]) * 65535.0);
    const std::set<unsigned> distinct(s.kestrel.begin() + fine, s.kestrel.end());
    fprintf(out, "measured u8_distinct_0_255 %zu\n", distinct.size());
  }
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s RESULTS_FILE\n", argv[0]);
    return 2;
  }
  FILE* out = fopen(argv[1], "w");
  if (!out) {
    perror(argv[1]);
    return 2;
  }
  golden_part(out);
  sweep_part(out);
  fclose(out);
  printf("formats: results in %s\n", argv[1]);
  return 0;
}
