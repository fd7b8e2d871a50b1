// Texture addressing and filtering on an NVIDIA GPU (guide 3.2.11.1, B.8,
// appendix F): every address mode x filter mode x normalized or not, on 1D,
// 2D and 3D CUDA arrays of float and of unsigned char read as normalized
// float, with coordinates on texel edges, exact midpoints, just beside them
// and far outside; layered arrays (the layer index out of range too),
// cubemaps, tex1Dfetch of linear memory (indices out of range too), pitched
// 2D memory, and a border colour.  Every result is printed as the bits of
// the float the fetch returned, one line per case, so a simulator must match
// the GPU bit for bit (the golden file for issue 16's texture unit).
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

static unsigned bits(float f) {
  unsigned u;
  memcpy(&u, &f, sizeof u);
  return u;
}

__global__ void fetch1d(cudaTextureObject_t t, const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<float>(t, x[i]);
}
__global__ void fetch2d(cudaTextureObject_t t, const float2* c, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, c[i].x, c[i].y);
}
__global__ void fetch3d(cudaTextureObject_t t, const float4* c, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(t, c[i].x, c[i].y, c[i].z);
}
__global__ void fetch1d_layered(cudaTextureObject_t t, const float2* c, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1DLayered<float>(t, c[i].x, static_cast<int>(c[i].y));
}
__global__ void fetch2d_layered(cudaTextureObject_t t, const float4* c, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLayered<float>(t, c[i].x, c[i].y, static_cast<int>(c[i].z));
}
__global__ void fetch_cubemap(cudaTextureObject_t t, const float4* c, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, c[i].x, c[i].y, c[i].z);
}
__global__ void fetch_linear(cudaTextureObject_t t, const int* index, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, index[i]);
}

// Device copies of a host vector, freed at exit of the scope.
template <class T>
struct DeviceVector {
  T* p = nullptr;
  int n = 0;
  explicit DeviceVector(const std::vector<T>& v) : n(static_cast<int>(v.size())) {
    CHECK(cudaMalloc(&p, v.size() * sizeof(T)));
    CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceVector() { cudaFree(p); }
};

// Prints the n results of the kernel just launched, then fills the buffer
// with a sentinel (all ones) so that a result a kernel did not write shows.
static void print_results(const char* name, float* d_out, int n) {
  std::vector<float> out(n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  printf("%s:", name);
  for (float v : out) printf(" %08x", bits(v));
  printf("\n");
  CHECK(cudaMemset(d_out, 0xFF, n * sizeof(float)));
}

// Texel values: distinct, not multiples of a power of two, of both signs.
static float float_texel(int i) { return static_cast<float>((i * 37) % 101) / 7.0f - 3.0f; }
static unsigned char byte_texel(int i) { return static_cast<unsigned char>((i * 53 + 17) % 256); }

static const char* address_name(cudaTextureAddressMode m) {
  switch (m) {
    case cudaAddressModeWrap:
      return "wrap";
    case cudaAddressModeClamp:
      return "clamp";
    case cudaAddressModeMirror:
      return "mirror";
    default:
      return "border";
  }
}

// Coordinates along one axis of `size` texels (unnormalized): below, on and
// beside texel edges and centres, and far outside on both sides.
static std::vector<float> axis_coordinates(int size, bool many) {
  const float s = static_cast<float>(size);
  std::vector<float> c = {
      -3.0f, -0.5f,    0.0f, 0.25f,    0.5f, 0.5f + 1.0f / 512.0f, 1.0f, 1.5f - 1.0f / 1024.0f,
      1.75f, s - 0.5f, s,    s + 0.75f};
  if (many) {
    const std::vector<float> more = {
        -0.25f,          0.75f,     1.0f + 1.0f / 256.0f, 1.5f, 2.49f, 2.5f, 2.5001f, 3.3f, s - 0.25f,
        2.0f * s + 0.3f, -s - 1.2f, 0.5f + 1.0f / 256.0f};
    c.insert(c.end(), more.begin(), more.end());
  }
  return c;
}

struct Format {
  const char* name;
  cudaChannelFormatDesc desc;
  cudaTextureReadMode read_mode;
  size_t texel_bytes;
};

// Fills a host buffer of `count` texels of the format.
static std::vector<unsigned char> texels(const Format& f, int count) {
  std::vector<unsigned char> data(count * f.texel_bytes);
  for (int i = 0; i < count; ++i) {
    if (f.texel_bytes == 4) {
      const float v = float_texel(i);
      memcpy(&data[i * 4], &v, 4);
    } else {
      data[i] = byte_texel(i);
    }
  }
  return data;
}

static cudaTextureObject_t make_texture(cudaArray_t array, cudaTextureAddressMode mode,
                                        cudaTextureFilterMode filter, cudaTextureReadMode read_mode,
                                        bool normalized) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = array;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = mode;
  td.filterMode = filter;
  td.readMode = read_mode;
  td.normalizedCoords = normalized ? 1 : 0;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

int main() {
  const Format formats[] = {
      {"f32", cudaCreateChannelDesc<float>(), cudaReadModeElementType, 4},
      {"u8n", cudaCreateChannelDesc<unsigned char>(), cudaReadModeNormalizedFloat, 1},
  };
  const cudaTextureAddressMode modes[] = {cudaAddressModeWrap, cudaAddressModeClamp, cudaAddressModeMirror,
                                          cudaAddressModeBorder};
  const cudaTextureFilterMode filters[] = {cudaFilterModePoint, cudaFilterModeLinear};
  const int w = 5, h = 3, d = 4;  // not powers of two
  float* d_out = nullptr;
  CHECK(cudaMalloc(&d_out, 4096 * sizeof(float)));
  CHECK(cudaMemset(d_out, 0xFF, 4096 * sizeof(float)));

  for (const Format& f : formats) {
    // 1D, 2D and 3D arrays of the format.
    cudaArray_t a1, a2, a3;
    std::vector<unsigned char> data = texels(f, w * h * d);
    CHECK(cudaMallocArray(&a1, &f.desc, w, 0));
    CHECK(cudaMemcpy2DToArray(a1, 0, 0, data.data(), w * f.texel_bytes, w * f.texel_bytes, 1,
                              cudaMemcpyHostToDevice));
    CHECK(cudaMallocArray(&a2, &f.desc, w, h));
    CHECK(cudaMemcpy2DToArray(a2, 0, 0, data.data(), w * f.texel_bytes, w * f.texel_bytes, h,
                              cudaMemcpyHostToDevice));
    CHECK(cudaMalloc3DArray(&a3, &f.desc, make_cudaExtent(w, h, d)));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(data.data(), w * f.texel_bytes, w, h);
    p.dstArray = a3;
    p.extent = make_cudaExtent(w, h, d);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));

    for (int normalized = 0; normalized < 2; ++normalized) {
      const std::vector<float> xs = axis_coordinates(w, true), ys = axis_coordinates(h, false),
                               zs = axis_coordinates(d, false);
      auto norm = [&](float c, int size) { return normalized ? c / static_cast<float>(size) : c; };
      std::vector<float> c1;
      for (float x : xs) c1.push_back(norm(x, w));
      std::vector<float2> c2;
      for (float y : ys)
        for (size_t i = 0; i < xs.size(); i += 2) c2.push_back(make_float2(norm(xs[i], w), norm(y, h)));
      std::vector<float4> c3;
      for (size_t k = 0; k < zs.size(); k += 3)
        for (size_t j = 0; j < ys.size(); j += 2)
          for (size_t i = 1; i < xs.size(); i += 3)
            c3.push_back(make_float4(norm(xs[i], w), norm(ys[j], h), norm(zs[k], d), 0.0f));
      DeviceVector<float> dc1(c1);
      DeviceVector<float2> dc2(c2);
      DeviceVector<float4> dc3(c3);
      for (cudaTextureAddressMode mode : modes) {
        for (cudaTextureFilterMode filter : filters) {
          char name[128];
          const char* prefix = filter == cudaFilterModePoint ? "point" : "linear";
          cudaTextureObject_t t1 = make_texture(a1, mode, filter, f.read_mode, normalized);
          fetch1d<<<1, 64>>>(t1, dc1.p, d_out, dc1.n);
          snprintf(name, sizeof name, "%s 1d %s %s %s", f.name, address_name(mode), prefix,
                   normalized ? "norm" : "unnorm");
          print_results(name, d_out, dc1.n);
          cudaTextureObject_t t2 = make_texture(a2, mode, filter, f.read_mode, normalized);
          fetch2d<<<(dc2.n + 63) / 64, 64>>>(t2, dc2.p, d_out, dc2.n);
          snprintf(name, sizeof name, "%s 2d %s %s %s", f.name, address_name(mode), prefix,
                   normalized ? "norm" : "unnorm");
          print_results(name, d_out, dc2.n);
          cudaTextureObject_t t3 = make_texture(a3, mode, filter, f.read_mode, normalized);
          fetch3d<<<(dc3.n + 63) / 64, 64>>>(t3, dc3.p, d_out, dc3.n);
          snprintf(name, sizeof name, "%s 3d %s %s %s", f.name, address_name(mode), prefix,
                   normalized ? "norm" : "unnorm");
          print_results(name, d_out, dc3.n);
          CHECK(cudaDestroyTextureObject(t1));
          CHECK(cudaDestroyTextureObject(t2));
          CHECK(cudaDestroyTextureObject(t3));
        }
      }
    }
    CHECK(cudaFreeArray(a1));
    CHECK(cudaFreeArray(a2));
    CHECK(cudaFreeArray(a3));
  }

  // A border colour other than zero (float texels, unnormalized 2D).
  {
    const Format& f = formats[0];
    std::vector<unsigned char> data = texels(f, w * h);
    cudaArray_t a2;
    CHECK(cudaMallocArray(&a2, &f.desc, w, h));
    CHECK(cudaMemcpy2DToArray(a2, 0, 0, data.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a2;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeBorder;
    td.borderColor[0] = 0.75f;
    td.borderColor[1] = td.borderColor[2] = td.borderColor[3] = 0.0f;
    const std::vector<float2> c = {{-0.5f, 1.5f}, {0.25f, 1.5f},  {0.5f, 0.5f},  {4.75f, 2.75f},
                                   {5.0f, 1.0f},  {2.5f, -0.25f}, {2.25f, 3.1f}, {-7.0f, -7.0f}};
    DeviceVector<float2> dc(c);
    for (cudaTextureFilterMode filter : filters) {
      td.filterMode = filter;
      cudaTextureObject_t t = 0;
      CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
      fetch2d<<<1, 32>>>(t, dc.p, d_out, dc.n);
      print_results(filter == cudaFilterModePoint ? "f32 2d border(0.75) point unnorm"
                                                  : "f32 2d border(0.75) linear unnorm",
                    d_out, dc.n);
      CHECK(cudaDestroyTextureObject(t));
    }
    CHECK(cudaFreeArray(a2));
  }

  // Layered arrays: 1D of 3 layers and 2D of 3 layers; the layer index out
  // of range on both sides.
  {
    const int layers = 3;
    std::vector<unsigned char> data = texels(formats[0], w * h * layers);
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t l1, l2;
    CHECK(cudaMalloc3DArray(&l1, &desc, make_cudaExtent(w, 0, layers), cudaArrayLayered));
    CHECK(cudaMalloc3DArray(&l2, &desc, make_cudaExtent(w, h, layers), cudaArrayLayered));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(data.data(), w * 4, w, 1);
    p.dstArray = l1;
    p.extent = make_cudaExtent(w, 1, layers);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    p.srcPtr = make_cudaPitchedPtr(data.data(), w * 4, w, h);
    p.dstArray = l2;
    p.extent = make_cudaExtent(w, h, layers);
    CHECK(cudaMemcpy3D(&p));
    std::vector<float2> c1;
    std::vector<float4> c2;
    const float xs[] = {-0.5f, 0.5f, 1.25f, 2.5f, 4.75f, 6.0f};
    const float layer_index[] = {-1.0f, 0.0f, 1.0f, 2.0f, 3.0f, 7.0f};
    for (float l : layer_index)
      for (float x : xs) {
        c1.push_back(make_float2(x, l));
        c2.push_back(make_float4(x, 1.25f, l, 0.0f));
        c2.push_back(make_float4(x, 2.75f, l, 0.0f));
      }
    DeviceVector<float2> dc1(c1);
    DeviceVector<float4> dc2(c2);
    for (cudaTextureAddressMode mode : {cudaAddressModeClamp, cudaAddressModeBorder})
      for (cudaTextureFilterMode filter : filters) {
        char name[128];
        const char* prefix = filter == cudaFilterModePoint ? "point" : "linear";
        cudaTextureObject_t t1 = make_texture(l1, mode, filter, cudaReadModeElementType, false);
        fetch1d_layered<<<1, 64>>>(t1, dc1.p, d_out, dc1.n);
        snprintf(name, sizeof name, "f32 1d-layered %s %s unnorm", address_name(mode), prefix);
        print_results(name, d_out, dc1.n);
        cudaTextureObject_t t2 = make_texture(l2, mode, filter, cudaReadModeElementType, false);
        fetch2d_layered<<<1, 128>>>(t2, dc2.p, d_out, dc2.n);
        snprintf(name, sizeof name, "f32 2d-layered %s %s unnorm", address_name(mode), prefix);
        print_results(name, d_out, dc2.n);
        CHECK(cudaDestroyTextureObject(t1));
        CHECK(cudaDestroyTextureObject(t2));
      }
    CHECK(cudaFreeArray(l1));
    CHECK(cudaFreeArray(l2));
  }

  // A cubemap of 4x4 faces: directions through face centres, texel edges,
  // cube edges and corners, and of different lengths.
  {
    const int edge = 4;
    std::vector<unsigned char> data = texels(formats[0], edge * edge * 6);
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t cube;
    CHECK(cudaMalloc3DArray(&cube, &desc, make_cudaExtent(edge, edge, 6), cudaArrayCubemap));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(data.data(), edge * 4, edge, edge);
    p.dstArray = cube;
    p.extent = make_cudaExtent(edge, edge, 6);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    const std::vector<float4> dirs = {{1, 0, 0, 0},
                                      {-1, 0, 0, 0},
                                      {0, 1, 0, 0},
                                      {0, -1, 0, 0},
                                      {0, 0, 1, 0},
                                      {0, 0, -1, 0},
                                      {1, 0.5f, -0.25f, 0},
                                      {-2, 1, 0.5f, 0},
                                      {0.3f, 1, -0.9f, 0},
                                      {0.2f, -3, 0.7f, 0},
                                      {0.25f, 0.5f, 1, 0},
                                      {-0.75f, 0.1f, -1, 0},
                                      {1, 1, 0.2f, 0},
                                      {1, 1, 1, 0},
                                      {-1, -1, -1, 0},
                                      {0.999f, 1, 0, 0},
                                      {1, 0.999f, 0, 0},
                                      {5, 2.5f, 1.25f, 0},
                                      {0.5f, 0.125f, 0.0625f, 0},
                                      {-1, 0.25f, 0.75f, 0}};
    DeviceVector<float4> dc(dirs);
    for (int normalized = 0; normalized < 2; ++normalized)
      for (cudaTextureFilterMode filter : filters) {
        char name[128];
        cudaTextureObject_t t =
            make_texture(cube, cudaAddressModeClamp, filter, cudaReadModeElementType, normalized);
        fetch_cubemap<<<1, 32>>>(t, dc.p, d_out, dc.n);
        snprintf(name, sizeof name, "f32 cubemap clamp %s %s",
                 filter == cudaFilterModePoint ? "point" : "linear", normalized ? "norm" : "unnorm");
        print_results(name, d_out, dc.n);
        CHECK(cudaDestroyTextureObject(t));
      }
    CHECK(cudaFreeArray(cube));
  }

  // tex1Dfetch of linear memory: indices inside, and out of range on both sides.
  {
    const int n = 37;
    std::vector<float> values(n);
    for (int i = 0; i < n; ++i) values[i] = float_texel(i + 5);
    DeviceVector<float> dv(values);
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = dv.p;
    rd.res.linear.desc = cudaCreateChannelDesc<float>();
    rd.res.linear.sizeInBytes = n * sizeof(float);
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t = 0;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    const std::vector<int> index = {0, 1, 17, 36, 37, 38, 100, -1, -37, 1 << 20};
    DeviceVector<int> di(index);
    fetch_linear<<<1, 32>>>(t, di.p, d_out, di.n);
    print_results("f32 linear-memory fetch", d_out, di.n);
    CHECK(cudaDestroyTextureObject(t));
  }

  // Pitched 2D linear memory (cudaMallocPitch), point and linear, clamp and border.
  {
    const int pw = 7, ph = 3;
    float* dp = nullptr;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(&dp, &pitch, pw * sizeof(float), ph));
    std::vector<float> values(pw * ph);
    for (int i = 0; i < pw * ph; ++i) values[i] = float_texel(i + 11);
    CHECK(cudaMemcpy2D(dp, pitch, values.data(), pw * sizeof(float), pw * sizeof(float), ph,
                       cudaMemcpyHostToDevice));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypePitch2D;
    rd.res.pitch2D.devPtr = dp;
    rd.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    rd.res.pitch2D.width = pw;
    rd.res.pitch2D.height = ph;
    rd.res.pitch2D.pitchInBytes = pitch;
    const std::vector<float2> c = {{0.5f, 0.5f},  {1.25f, 0.75f}, {6.5f, 2.5f},  {7.2f, 1.5f},
                                   {-1.0f, 1.0f}, {3.0f, 1.5f},   {3.75f, 2.9f}, {2.5f, -0.4f}};
    DeviceVector<float2> dc(c);
    for (cudaTextureAddressMode mode : {cudaAddressModeClamp, cudaAddressModeBorder})
      for (cudaTextureFilterMode filter : filters) {
        cudaTextureDesc td;
        memset(&td, 0, sizeof td);
        td.addressMode[0] = td.addressMode[1] = mode;
        td.filterMode = filter;
        td.readMode = cudaReadModeElementType;
        cudaTextureObject_t t = 0;
        CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
        fetch2d<<<1, 32>>>(t, dc.p, d_out, dc.n);
        char name[128];
        snprintf(name, sizeof name, "f32 pitch2d %s %s unnorm", address_name(mode),
                 filter == cudaFilterModePoint ? "point" : "linear");
        print_results(name, d_out, dc.n);
        CHECK(cudaDestroyTextureObject(t));
      }
    CHECK(cudaFree(dp));
  }
  CHECK(cudaFree(d_out));
  printf("texture_addressing: done\n");
  return 0;
}
