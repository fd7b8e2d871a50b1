// The precision of an NVIDIA GPU's texture coordinate arithmetic (guide
// appendix F): textures whose texel i holds the float i, so that a point
// sample names the texel chosen and a linear sample between texels i and
// i + 1 returns i + alpha, the weight the hardware used.  Probed:
//   * point sampling at normalized coordinates just beside the texel
//     boundaries k/N (N = 5, 8, 4096), in steps of 2^-32 and growing, which
//     shows how a normalized coordinate becomes a texel coordinate;
//   * the linear weight at unnormalized x from 0.5 to 1.5 in steps of 2^-12,
//     and at normalized x across one texel, which shows the 9-bit weight's
//     rounding (appendix F.2) and the coordinate's fixed-point precision;
//   * the same at large coordinates (texel 4000 of 4096), where a float has
//     fewer fractional bits, and with the border mode;
//   * each axis's weight of a 2D texture, clamp and border.
// Results are float bits, one line per probe: a golden file for issue 16.
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

__global__ void fetch1d(cudaTextureObject_t t, const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<float>(t, x[i]);
}

__global__ void fetch2d(cudaTextureObject_t t, const float2* c, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, c[i].x, c[i].y);
}

// Linear samples of a 2D texture at `c` (unnormalized), printed as result bits.
static void probe2d(const char* name, cudaArray_t array, cudaTextureAddressMode mode,
                    const std::vector<float2>& c) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = array;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = mode;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  float2* dc = nullptr;
  float* dout = nullptr;
  CHECK(cudaMalloc(&dc, c.size() * sizeof(float2)));
  CHECK(cudaMalloc(&dout, c.size() * sizeof(float)));
  CHECK(cudaMemset(dout, 0xFF, c.size() * sizeof(float)));
  CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(float2), cudaMemcpyHostToDevice));
  const int n = static_cast<int>(c.size());
  fetch2d<<<(n + 127) / 128, 128>>>(t, dc, dout, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> out(c.size());
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  printf("%s:", name);
  for (size_t i = 0; i < c.size(); ++i) {
    unsigned xb, yb, rb;
    memcpy(&xb, &c[i].x, 4);
    memcpy(&yb, &c[i].y, 4);
    memcpy(&rb, &out[i], 4);
    printf(" %08x,%08x=%08x", xb, yb, rb);
  }
  printf("\n");
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dout));
}

static void probe(const char* name, cudaArray_t array, bool normalized, bool linear,
                  const std::vector<float>& x, cudaTextureAddressMode mode = cudaAddressModeClamp) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = array;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = mode;
  td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = normalized;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  float *dx = nullptr, *dout = nullptr;
  CHECK(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK(cudaMalloc(&dout, x.size() * sizeof(float)));
  CHECK(cudaMemset(dout, 0xFF, x.size() * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  const int n = static_cast<int>(x.size());
  fetch1d<<<(n + 127) / 128, 128>>>(t, dx, dout, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> out(x.size());
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  // Each line: the probe's name, then pairs x=result as float bits.
  printf("%s:", name);
  for (size_t i = 0; i < x.size(); ++i) {
    unsigned xb, rb;
    memcpy(&xb, &x[i], 4);
    memcpy(&rb, &out[i], 4);
    printf(" %08x=%08x", xb, rb);
  }
  printf("\n");
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dout));
}

int main() {
  for (int size : {5, 8, 4096}) {
    std::vector<float> texels(size);
    for (int i = 0; i < size; ++i) texels[i] = static_cast<float>(i);
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, size, 0));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, texels.data(), size * 4, size * 4, 1, cudaMemcpyHostToDevice));
    char name[96];

    // Point, normalized: beside the boundaries k / size.
    std::vector<float> x;
    const int boundaries[] = {1, 2, size / 2, size - 1};
    for (int k : boundaries) {
      const double b = static_cast<double>(k) / size;
      for (int e = 0; e <= 22; e += 2)
        for (int sign : {-1, 1}) x.push_back(static_cast<float>(b + sign * std::ldexp(1.0, -32 + e)));
      x.push_back(static_cast<float>(b));
    }
    snprintf(name, sizeof name, "point norm size %d", size);
    probe(name, array, true, false, x);

    // Linear, unnormalized: x from 0.5 to 1.5 in steps of 2^-12 (4097 values),
    // and around texel 4000 for the large texture.
    const double origin = size == 4096 ? 4000.5 : 0.5;
    x.clear();
    for (int i = 0; i <= 4096; ++i) x.push_back(static_cast<float>(origin + i / 4096.0));
    snprintf(name, sizeof name, "linear unnorm size %d from %.1f", size, origin);
    probe(name, array, false, true, x);
    snprintf(name, sizeof name, "linear unnorm border size %d from %.1f", size, origin);
    probe(name, array, false, true, x, cudaAddressModeBorder);

    // Linear, normalized: across the same texel in 1025 steps.
    x.clear();
    for (int i = 0; i <= 1024; ++i) x.push_back(static_cast<float>((origin + i / 1024.0) / size));
    snprintf(name, sizeof name, "linear norm size %d from %.1f", size, origin);
    probe(name, array, true, true, x);
    CHECK(cudaFreeArray(array));
  }
  // The weights of each axis of a 2D texture, clamp and border: a 5 x 3
  // texture holding x + 8y, swept along x at y = 1.5 (one row: the result is
  // x's weight) and along y at x = 2.5 (y's weight), from one texel centre
  // to the next in steps of 1/1024, and the x sweep again at y = 0 (half the
  // border row) and y = 0.5.
  {
    const int w = 5, h = 3;
    std::vector<float> texels(w * h);
    for (int j = 0; j < h; ++j)
      for (int i = 0; i < w; ++i) texels[j * w + i] = static_cast<float>(i + 8 * j);
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, w, h));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, texels.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
    for (cudaTextureAddressMode mode : {cudaAddressModeClamp, cudaAddressModeBorder}) {
      const char* m = mode == cudaAddressModeClamp ? "clamp" : "border";
      for (float y : {1.5f, 0.0f, 0.5f}) {
        std::vector<float2> c;
        for (int i = 0; i <= 1024; ++i) c.push_back(make_float2(static_cast<float>(0.5 + i / 1024.0), y));
        char name[96];
        snprintf(name, sizeof name, "2d linear %s x sweep at y %.1f", m, y);
        probe2d(name, array, mode, c);
      }
      std::vector<float2> c;
      for (int i = 0; i <= 1024; ++i) c.push_back(make_float2(2.5f, static_cast<float>(0.5 + i / 1024.0)));
      char name[96];
      snprintf(name, sizeof name, "2d linear %s y sweep at x 2.5", m);
      probe2d(name, array, mode, c);
    }
    CHECK(cudaFreeArray(array));
  }
  printf("texture_precision: done\n");
  return 0;
}
