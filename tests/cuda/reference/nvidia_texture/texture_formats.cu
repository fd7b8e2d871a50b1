// Texture formats on an NVIDIA GPU (guide 3.2.11.1.1, B.8, appendix F):
// signed and unsigned 8-, 16- and 32-bit integers, 16- and 32-bit floats,
// 1, 2 and 4 channels, read as the element type and (8- and 16-bit
// integers) as normalized float, point-sampled at every texel and linearly
// filtered between them where CUDA allows it, and tex2Dgather of every
// component.  Each result is printed as the hexadecimal bits of each returned
// component, so a simulator must match the GPU bit for bit (the golden file
// for issue 16's texture unit).
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

template <class R>
__global__ void fetch(cudaTextureObject_t t, const float2* c, R* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<R>(t, c[i].x, c[i].y);
}

template <class R>
__global__ void gather(cudaTextureObject_t t, const float2* c, R* out, int n, int comp) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2Dgather<R>(t, c[i].x, c[i].y, comp);
}

const int kWidth = 4, kHeight = 2;

// Texel values of each kind: the extremes, zero and its neighbours.
static const long long kSigned8[8] = {-128, -127, -1, 0, 1, 63, 64, 127};
static const long long kUnsigned8[8] = {0, 1, 2, 127, 128, 129, 254, 255};
static const long long kSigned16[8] = {-32768, -32767, -1, 0, 1, 16384, 32766, 32767};
static const long long kUnsigned16[8] = {0, 1, 255, 256, 32767, 32768, 65534, 65535};
static const long long kSigned32[8] = {-2147483648LL, -2147483647LL, -1,          0, 1,
                                       1 << 30,       2147483646LL,  2147483647LL};
static const long long kUnsigned32[8] = {
    0, 1, 65535, 65536, 2147483647LL, 2147483648LL, 4294967294LL, 4294967295LL};
static const unsigned kFloat32[8] = {0xc0200000u /* -2.5 */,     0x80000000u /* -0 */, 0x00000000u,
                                     0x000116c2u /* denormal */, 0x3f800000u /* 1 */,  0x40533333u /* 3.3 */,
                                     0x7149f2cau /* 1e30 */,     0xc0f80000u /* -7.75 */};
static const unsigned kFloat16[8] = {0xc100u /* -2.5 */,     0x8000u,         0x0000u,
                                     0x0001u /* denormal */, 0x3c00u /* 1 */, 0x7bffu /* 65504 */,
                                     0x3555u /* 0.333 */,    0xfc00u /* -inf */};

struct Format {
  const char* name;
  int bits;
  cudaChannelFormatKind kind;
  bool is_signed, is_float;
};

// The texels of a format with `channels` components: component c of texel i
// is value (i + 3c) mod 8 of the format's list.
static std::vector<unsigned char> texels(const Format& f, int channels) {
  const int bytes = f.bits / 8;
  std::vector<unsigned char> data(kWidth * kHeight * channels * bytes);
  for (int i = 0; i < kWidth * kHeight; ++i)
    for (int c = 0; c < channels; ++c) {
      const int k = (i + 3 * c) % 8;
      unsigned long long v = 0;
      if (f.is_float)
        v = f.bits == 32 ? kFloat32[k] : kFloat16[k];
      else if (f.bits == 8)
        v = static_cast<unsigned long long>(f.is_signed ? kSigned8[k] : kUnsigned8[k]);
      else if (f.bits == 16)
        v = static_cast<unsigned long long>(f.is_signed ? kSigned16[k] : kUnsigned16[k]);
      else
        v = static_cast<unsigned long long>(f.is_signed ? kSigned32[k] : kUnsigned32[k]);
      memcpy(&data[(i * channels + c) * bytes], &v, bytes);  // little-endian
    }
  return data;
}

static cudaChannelFormatDesc channel_desc(const Format& f, int channels) {
  return cudaCreateChannelDesc(f.bits, channels >= 2 ? f.bits : 0, channels >= 3 ? f.bits : 0,
                               channels >= 4 ? f.bits : 0, f.kind);
}

// Point-sampled texel centres, then positions between texels.
static std::vector<float2> fetch_coordinates() {
  std::vector<float2> c;
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) c.push_back(make_float2(x + 0.5f, y + 0.5f));
  const float2 between[] = {{0.75f, 0.5f},
                            {1.0f, 1.0f},
                            {1.3f, 0.6f},
                            {2.9f, 1.2f},
                            {3.5f, 1.5f},
                            {4.2f, -0.3f},
                            {0.5f + 1.0f / 512.0f, 0.5f + 255.0f / 256.0f},
                            {2.0f, 1.125f},
                            {1.51f, 1.49f}};
  for (const float2& b : between) c.push_back(b);
  return c;
}

static std::vector<float2> gather_coordinates() {
  return {{1.0f, 1.0f}, {2.3f, 0.7f}, {0.2f, 0.2f}, {3.9f, 1.9f}, {2.5f, 1.0f}};
}

static void print_bytes(const char* name, const std::vector<unsigned char>& out, size_t result_bytes,
                        size_t component_bytes) {
  printf("%s:", name);
  for (size_t r = 0; r < out.size() / result_bytes; ++r) {
    printf(" ");
    for (size_t c = 0; c < result_bytes / component_bytes; ++c) {
      unsigned long long v = 0;
      memcpy(&v, &out[r * result_bytes + c * component_bytes], component_bytes);
      printf("%s%0*llx", c ? "," : "", static_cast<int>(component_bytes * 2), v);
    }
  }
  printf("\n");
}

static cudaTextureObject_t make_texture(cudaArray_t array, cudaTextureReadMode read_mode,
                                        cudaTextureFilterMode filter) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = array;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = filter;
  td.readMode = read_mode;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

// Fetches of return type R (`channels` components) from `array`.
template <class R>
static void run_fetch(const char* name, cudaArray_t array, cudaTextureReadMode read_mode,
                      cudaTextureFilterMode filter, int channels) {
  const std::vector<float2> coords = fetch_coordinates();
  float2* dc = nullptr;
  R* dout = nullptr;
  CHECK(cudaMalloc(&dc, coords.size() * sizeof(float2)));
  CHECK(cudaMalloc(&dout, coords.size() * sizeof(R)));
  CHECK(cudaMemcpy(dc, coords.data(), coords.size() * sizeof(float2), cudaMemcpyHostToDevice));
  cudaTextureObject_t t = make_texture(array, read_mode, filter);
  fetch<R><<<1, 32>>>(t, dc, dout, static_cast<int>(coords.size()));
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> out(coords.size() * sizeof(R));
  CHECK(cudaMemcpy(out.data(), dout, out.size(), cudaMemcpyDeviceToHost));
  char full[160];
  snprintf(full, sizeof full, "%s %s %s", name,
           read_mode == cudaReadModeElementType ? "element" : "normalized",
           filter == cudaFilterModePoint ? "point" : "linear");
  print_bytes(full, out, sizeof(R), sizeof(R) / channels);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dout));
}

// tex2Dgather of every component; R is the four-component return type.
template <class R>
static void run_gather(const char* name, cudaArray_t array, cudaTextureReadMode read_mode, int channels) {
  const std::vector<float2> coords = gather_coordinates();
  float2* dc = nullptr;
  R* dout = nullptr;
  CHECK(cudaMalloc(&dc, coords.size() * sizeof(float2)));
  CHECK(cudaMalloc(&dout, coords.size() * sizeof(R)));
  CHECK(cudaMemcpy(dc, coords.data(), coords.size() * sizeof(float2), cudaMemcpyHostToDevice));
  cudaTextureObject_t t = make_texture(array, read_mode, cudaFilterModePoint);
  for (int comp = 0; comp < channels; ++comp) {
    gather<R><<<1, 32>>>(t, dc, dout, static_cast<int>(coords.size()), comp);
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned char> out(coords.size() * sizeof(R));
    CHECK(cudaMemcpy(out.data(), dout, out.size(), cudaMemcpyDeviceToHost));
    char full[160];
    snprintf(full, sizeof full, "%s %s gather comp %d", name,
             read_mode == cudaReadModeElementType ? "element" : "normalized", comp);
    print_bytes(full, out, sizeof(R), sizeof(R) / 4);
  }
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dout));
}

// Every fetch a format of element types E1, E2, E4 (1, 2, 4 channels) allows.
template <class E1, class E2, class E4>
static void run_format(const Format& f) {
  for (int channels : {1, 2, 4}) {
    const std::vector<unsigned char> data = texels(f, channels);
    const cudaChannelFormatDesc desc = channel_desc(f, channels);
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, kWidth, kHeight, cudaArrayTextureGather));
    const size_t row = kWidth * channels * f.bits / 8;
    CHECK(cudaMemcpy2DToArray(array, 0, 0, data.data(), row, row, kHeight, cudaMemcpyHostToDevice));
    char name[64];
    snprintf(name, sizeof name, "%s x%d", f.name, channels);
    const bool normalizable = !f.is_float && f.bits <= 16;
    // Element type: the format's own type (16-bit floats read as float).
    if (channels == 1) run_fetch<E1>(name, array, cudaReadModeElementType, cudaFilterModePoint, 1);
    if (channels == 2) run_fetch<E2>(name, array, cudaReadModeElementType, cudaFilterModePoint, 2);
    if (channels == 4) run_fetch<E4>(name, array, cudaReadModeElementType, cudaFilterModePoint, 4);
    if (f.is_float) {
      if (channels == 1) run_fetch<float>(name, array, cudaReadModeElementType, cudaFilterModeLinear, 1);
      if (channels == 2) run_fetch<float2>(name, array, cudaReadModeElementType, cudaFilterModeLinear, 2);
      if (channels == 4) run_fetch<float4>(name, array, cudaReadModeElementType, cudaFilterModeLinear, 4);
    }
    if (normalizable) {
      for (cudaTextureFilterMode filter : {cudaFilterModePoint, cudaFilterModeLinear}) {
        if (channels == 1) run_fetch<float>(name, array, cudaReadModeNormalizedFloat, filter, 1);
        if (channels == 2) run_fetch<float2>(name, array, cudaReadModeNormalizedFloat, filter, 2);
        if (channels == 4) run_fetch<float4>(name, array, cudaReadModeNormalizedFloat, filter, 4);
      }
    }
    // Gather returns four of the element type (float4 for floats and
    // normalized reads).
    if (f.is_float) {
      run_gather<float4>(name, array, cudaReadModeElementType, channels);
    } else {
      run_gather<E4>(name, array, cudaReadModeElementType, channels);
      if (normalizable) run_gather<float4>(name, array, cudaReadModeNormalizedFloat, channels);
    }
    CHECK(cudaFreeArray(array));
  }
}

int main() {
  run_format<signed char, char2, char4>({"s8", 8, cudaChannelFormatKindSigned, true, false});
  run_format<unsigned char, uchar2, uchar4>({"u8", 8, cudaChannelFormatKindUnsigned, false, false});
  run_format<short, short2, short4>({"s16", 16, cudaChannelFormatKindSigned, true, false});
  run_format<unsigned short, ushort2, ushort4>({"u16", 16, cudaChannelFormatKindUnsigned, false, false});
  run_format<int, int2, int4>({"s32", 32, cudaChannelFormatKindSigned, true, false});
  run_format<unsigned int, uint2, uint4>({"u32", 32, cudaChannelFormatKindUnsigned, false, false});
  run_format<float, float2, float4>({"f32", 32, cudaChannelFormatKindFloat, true, true});
  run_format<float, float2, float4>({"f16", 16, cudaChannelFormatKindFloat, true, true});
  printf("texture_formats: done\n");
  return 0;
}
