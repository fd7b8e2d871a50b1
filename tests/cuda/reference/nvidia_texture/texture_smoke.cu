// A few fetches of texture_kernels.cu and a surface write of surface_ops.cu,
// small enough for the RTL simulation in lock-step (tests/cuda/reference
// runs it on rtlsim in `make test`; the full programs are labelled long
// there).  Textures, coordinates and launches are those of the two programs,
// so texture_smoke.expected is made of their H100 lines (the volume ray cut
// to its first 8 samples); run on the H100 itself (nvcc 13.0.88, driver
// 580.159.04, 2026-11-26) it prints the same file byte for byte.
// Guide 3.2.11.1 (tex2D, tex3D), 3.2.11.2 and B.9 (surf1Dwrite).
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

// texture_kernels.cu: output pixel (x, y) samples the input at its centre.
__global__ void resize(cudaTextureObject_t t, float4* out, int ow, int oh) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < ow && y < oh) out[y * ow + x] = tex2D<float4>(t, (x + 0.5f) / ow, (y + 0.5f) / oh);
}

// texture_kernels.cu: samples along a ray through the volume.
__global__ void volume_ray(cudaTextureObject_t t, float* out, int n, float3 origin, float3 step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(t, origin.x + i * step.x, origin.y + i * step.y, origin.z + i * step.z);
}

// surface_ops.cu: the guide's templated 1D surface memset.
__global__ void surf1d_memset(cudaSurfaceObject_t s, int count, unsigned value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) surf1Dwrite(value, s, i * static_cast<int>(sizeof(unsigned)));
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

static cudaTextureObject_t make_texture(cudaArray_t array, cudaTextureReadMode read_mode, bool normalized) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = array;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = read_mode;
  td.normalizedCoords = normalized;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

int main() {
  // Bilinear resize of a 7 x 5 uchar4 image to 3 x 2, clamp.
  {
    const int w = 7, h = 5, ow = 3, oh = 2;
    std::vector<uchar4> image(w * h);
    for (int i = 0; i < w * h; ++i)
      image[i] = make_uchar4((i * 37) & 255, (i * 91 + 3) & 255, (255 - i * 13) & 255, (i * 7) & 255);
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, w, h));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, image.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
    cudaTextureObject_t t = make_texture(array, cudaReadModeNormalizedFloat, true);
    float4* dout = nullptr;
    CHECK(cudaMalloc(&dout, ow * oh * sizeof(float4)));
    resize<<<dim3(1, 1), dim3(16, 16)>>>(t, dout, ow, oh);
    CHECK(cudaDeviceSynchronize());
    std::vector<float4> out(ow * oh);
    CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float4), cudaMemcpyDeviceToHost));
    print_floats("resize 7x5 -> 3x2 clamp", reinterpret_cast<const float*>(out.data()), out.size() * 4);
    CHECK(cudaFree(dout));
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(array));
  }

  // Trilinear sampling of a 5 x 4 x 3 float volume: the first 8 samples of
  // texture_kernels' ray 1, clamp.
  {
    const int w = 5, h = 4, d = 3, n = 8;
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
    float* dout = nullptr;
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    std::vector<float> out(n);
    cudaTextureObject_t t = make_texture(array, cudaReadModeElementType, false);
    volume_ray<<<1, 32>>>(t, dout, n, make_float3(-0.7f, 0.2f, 0.1f), make_float3(0.17f, 0.11f, 0.09f));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_floats("volume ray 1 clamp", out.data(), n);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFree(dout));
    CHECK(cudaFreeArray(array));
  }

  // A 1D surface of 12 words set by surf1Dwrite.
  {
    const int n = 12;
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, n, 0, cudaArraySurfaceLoadStore));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = array;
    cudaSurfaceObject_t s = 0;
    CHECK(cudaCreateSurfaceObject(&s, &rd));
    surf1d_memset<<<1, 32>>>(s, n, 0xCAFEF00Du);
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> host(n);
    CHECK(cudaMemcpy2DFromArray(host.data(), n * 4, array, 0, 0, n * 4, 1, cudaMemcpyDeviceToHost));
    printf("surf1d memset u32:");
    for (unsigned v : host) printf(" %08x", v);
    printf("\n");
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(array));
  }
  printf("texture_smoke: done\n");
  return 0;
}
