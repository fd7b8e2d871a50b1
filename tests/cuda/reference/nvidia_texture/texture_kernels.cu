// Texture kernels on an NVIDIA GPU (guide 3.2.11.1, appendix F): a bilinear
// image resize of a uchar4 image read as normalized float, trilinear sampling
// of a 3D volume, and the table lookup of appendix F.3.  Results are printed
// as float bits: the golden file for issue 16's texture unit.
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

// Output pixel (x, y) of an ow x oh image samples the input at its own
// centre, in normalized coordinates.
__global__ void resize(cudaTextureObject_t t, float4* out, int ow, int oh) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < ow && y < oh) out[y * ow + x] = tex2D<float4>(t, (x + 0.5f) / ow, (y + 0.5f) / oh);
}

// Samples along a ray through the volume (unnormalized coordinates).
__global__ void volume_ray(cudaTextureObject_t t, float* out, int n, float3 origin, float3 step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(t, origin.x + i * step.x, origin.y + i * step.y, origin.z + i * step.z);
}

// Appendix F.3: TL(x) = tex(((N - 1) / N) x + 0.5 / N) with normalized
// coordinates, so that x in [0, 1] maps the first to the last texel centre.
__global__ void table_lookup(cudaTextureObject_t t, const float* x, float* out, int n, int entries) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<float>(t, (entries - 1.0f) / entries * x[i] + 0.5f / entries);
}

static void print_floats(const char* name, const float* v, size_t n) {
  printf("%s:", name);
  for (size_t i = 0; i < n; ++i) {
    unsigned u;
    memcpy(&u, &v[i], 4);
    printf(" %08x", u);
  }
  printf("\n");
}

static cudaTextureObject_t make_texture(cudaArray_t array, cudaTextureAddressMode mode,
                                        cudaTextureReadMode read_mode, bool normalized) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = array;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = mode;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = read_mode;
  td.normalizedCoords = normalized;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

int main() {
  // Bilinear resize of a 7 x 5 uchar4 image to 13 x 9 and down to 3 x 2.
  {
    const int w = 7, h = 5;
    std::vector<uchar4> image(w * h);
    for (int i = 0; i < w * h; ++i)
      image[i] = make_uchar4((i * 37) & 255, (i * 91 + 3) & 255, (255 - i * 13) & 255, (i * 7) & 255);
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, w, h));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, image.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
    for (cudaTextureAddressMode mode : {cudaAddressModeClamp, cudaAddressModeWrap, cudaAddressModeMirror}) {
      cudaTextureObject_t t = make_texture(array, mode, cudaReadModeNormalizedFloat, true);
      for (int size = 0; size < 2; ++size) {
        const int ow = size ? 3 : 13, oh = size ? 2 : 9;
        float4* dout = nullptr;
        CHECK(cudaMalloc(&dout, ow * oh * sizeof(float4)));
        resize<<<dim3(1, 1), dim3(16, 16)>>>(t, dout, ow, oh);
        CHECK(cudaDeviceSynchronize());
        std::vector<float4> out(ow * oh);
        CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float4), cudaMemcpyDeviceToHost));
        char name[96];
        snprintf(name, sizeof name, "resize %dx%d -> %dx%d %s", w, h, ow, oh,
                 mode == cudaAddressModeClamp  ? "clamp"
                 : mode == cudaAddressModeWrap ? "wrap"
                                               : "mirror");
        print_floats(name, reinterpret_cast<const float*>(out.data()), out.size() * 4);
        CHECK(cudaFree(dout));
      }
      CHECK(cudaDestroyTextureObject(t));
    }
    CHECK(cudaFreeArray(array));
  }

  // Trilinear sampling of a 5 x 4 x 3 float volume along two rays.
  {
    const int w = 5, h = 4, d = 3;
    std::vector<float> volume(w * h * d);
    for (int i = 0; i < w * h * d; ++i) volume[i] = static_cast<float>((i * 29) % 61) / 3.0f - 5.0f;
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(w, h, d)));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(volume.data(), w * sizeof(float), w, h);
    p.dstArray = array;
    p.extent = make_cudaExtent(w, h, d);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    const int n = 40;
    float* dout = nullptr;
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    std::vector<float> out(n);
    for (cudaTextureAddressMode mode : {cudaAddressModeClamp, cudaAddressModeBorder}) {
      cudaTextureObject_t t = make_texture(array, mode, cudaReadModeElementType, false);
      volume_ray<<<1, 64>>>(t, dout, n, make_float3(-0.7f, 0.2f, 0.1f), make_float3(0.17f, 0.11f, 0.09f));
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
      print_floats(mode == cudaAddressModeClamp ? "volume ray 1 clamp" : "volume ray 1 border", out.data(),
                   n);
      volume_ray<<<1, 64>>>(t, dout, n, make_float3(4.9f, 3.9f, 2.9f),
                            make_float3(-0.125f, -0.0625f, -0.0703125f));
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
      print_floats(mode == cudaAddressModeClamp ? "volume ray 2 clamp" : "volume ray 2 border", out.data(),
                   n);
      CHECK(cudaDestroyTextureObject(t));
    }
    CHECK(cudaFree(dout));
    CHECK(cudaFreeArray(array));
  }

  // Appendix F.3 table lookup: an 8-entry table, x from 0 to 1 in 1/64 steps
  // and just outside.
  {
    const int entries = 8;
    const float table[entries] = {0.0f, 1.0f, 4.0f, 9.0f, 16.0f, 25.0f, 36.0f, 49.0f};
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, entries, 0));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, table, sizeof table, sizeof table, 1, cudaMemcpyHostToDevice));
    std::vector<float> x;
    for (int i = 0; i <= 64; ++i) x.push_back(i / 64.0f);
    x.push_back(-0.1f);
    x.push_back(1.1f);
    x.push_back(1.0f / 3.0f);
    float *dx = nullptr, *dout = nullptr;
    CHECK(cudaMalloc(&dx, x.size() * sizeof(float)));
    CHECK(cudaMalloc(&dout, x.size() * sizeof(float)));
    CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    cudaTextureObject_t t = make_texture(array, cudaAddressModeClamp, cudaReadModeElementType, true);
    table_lookup<<<1, 128>>>(t, dx, dout, static_cast<int>(x.size()), entries);
    CHECK(cudaDeviceSynchronize());
    std::vector<float> out(x.size());
    CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    print_floats("table lookup F.3", out.data(), out.size());
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dout));
    CHECK(cudaFreeArray(array));
  }
  printf("texture_kernels: done\n");
  return 0;
}
