// Fitting data for sRGB filtering on an NVIDIA GPU (not a golden file: its
// 9 MB of output stay out of the repository): every pair of bytes (a, b)
// blended at 9 weights, and 131,072 random bilinear fetches of a random
// 256 x 256 uchar4 texture, all with sRGB = 1 (guide 3.2.11.1), written as
// raw float bits to the folder given as argv[1]:
//   nvcc -arch=sm_90 -O2 -o srgb_fit srgb_fit.cu && ./srgb_fit <dir>
//   c++ -std=c++17 -I include check_srgb_fit.cpp -o check && ./check <dir>
// check_srgb_fit.cpp compares them with kestrel/texture_math.hpp (on the
// H100 of texture_srgb.expected: every result matched, docs/texture.md).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      printf("error %s line %d: %s\n", #call, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

__global__ void k(cudaTextureObject_t t, const float2* c, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, c[i].x, c[i].y);
}

static cudaTextureObject_t make(cudaArray_t a) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeNormalizedFloat;
  td.sRGB = 1;
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static std::vector<float4> fetch(cudaTextureObject_t t, const std::vector<float2>& c) {
  float2* dc;
  float4* dout;
  int n = (int)c.size();
  CHECK(cudaMalloc(&dc, n * sizeof(float2)));
  CHECK(cudaMalloc(&dout, n * sizeof(float4)));
  CHECK(cudaMemcpy(dc, c.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
  k<<<(n + 255) / 256, 256>>>(t, dc, dout, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<float4> out(n);
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float4), cudaMemcpyDeviceToHost));
  cudaFree(dc);
  cudaFree(dout);
  return out;
}

static void save(const char* dir, const char* name, const void* p, size_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  fwrite(p, 1, n, f);
  fclose(f);
}

int main(int argc, char** argv) {
  const char* dir = argv[1];
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
  // Pairs: texel (2b, a) = a, (2b + 1, a) = b in all four channels.
  {
    std::vector<uchar4> tex(512 * 256);
    for (int a = 0; a < 256; ++a)
      for (int b = 0; b < 256; ++b) {
        tex[a * 512 + 2 * b] = make_uchar4(a, a, a, a);
        tex[a * 512 + 2 * b + 1] = make_uchar4(b, b, b, b);
      }
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &desc, 512, 256));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, tex.data(), 512 * 4, 512 * 4, 256, cudaMemcpyHostToDevice));
    cudaTextureObject_t t = make(arr);
    const int weights[] = {1, 16, 64, 96, 128, 160, 192, 240, 255};
    std::vector<float2> c;
    for (int w : weights)
      for (int a = 0; a < 256; ++a)
        for (int b = 0; b < 256; ++b) c.push_back(make_float2(2 * b + 0.5f + w / 256.0f, a + 0.5f));
    std::vector<float4> out = fetch(t, c);
    std::vector<float> ra(2 * out.size());
    for (size_t i = 0; i < out.size(); ++i) {
      ra[2 * i] = out[i].x;
      ra[2 * i + 1] = out[i].w;
    }
    save(dir, "fit_pairs.bin", ra.data(), ra.size() * 4);
    printf("pairs: %zu\n", out.size());
  }
  // Random 2D: 256 x 256 random texels, 131072 random probes.
  {
    unsigned s = 12345;
    auto next = [&]() {
      s = s * 1664525u + 1013904223u;
      return s >> 8;
    };
    std::vector<uchar4> tex(256 * 256);
    for (auto& v : tex) {
      unsigned r = next();
      v = make_uchar4(r & 255, (r >> 8) & 255, (r >> 16) & 255, next() & 255);
    }
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &desc, 256, 256));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, tex.data(), 256 * 4, 256 * 4, 256, cudaMemcpyHostToDevice));
    cudaTextureObject_t t = make(arr);
    const int n = 131072;
    std::vector<int> probe(4 * n);
    std::vector<float2> c(n);
    for (int i = 0; i < n; ++i) {
      int x = next() % 255, y = next() % 255, ax = next() % 257, ay = next() % 257;
      probe[4 * i] = x;
      probe[4 * i + 1] = y;
      probe[4 * i + 2] = ax;
      probe[4 * i + 3] = ay;
      c[i] = make_float2(x + 0.5f + ax / 256.0f, y + 0.5f + ay / 256.0f);
    }
    std::vector<float4> out = fetch(t, c);
    save(dir, "fit2d_tex.bin", tex.data(), tex.size() * 4);
    save(dir, "fit2d_probe.bin", probe.data(), probe.size() * 4);
    save(dir, "fit2d_out.bin", out.data(), out.size() * 16);
    printf("2d: %d\n", n);
  }
  return 0;
}
