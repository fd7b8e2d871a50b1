// The surface reference API (CUDA C Programming Guide v8.0, 3.2.11.2.2 and
// B.9.2) against surface objects (3.2.11.2.1) over the same arrays.  Lines
// beginning "h100: " repeat cases of
// tests/cuda/reference/nvidia_texture/surface_ops.cu through references
// (the guide's templated 1D memset, reads with the boundary modes zero and
// clamp in 1D and 2D, an in-place image filter, 3D and 2D-layered writes and
// reads); tests/cuda/CMakeLists.txt checks them against the H100's
// surface_ops.expected.  Then the guide's 3.2.11.2.2 copy kernel, a 1D
// layered surface (no golden: against an object), a cubemap and a layered
// cubemap (surfCubemap*, B.9.1.11-14 and B.9.2.11-14: written through
// references, read through objects and copied back), the API's errors, and
// last an access through a reference that was never bound, which ends its
// launch with cudaErrorIllegalAddress.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "program_checks.h"

surface<void, cudaSurfaceType1D> surf1D;  // the guide's untyped references
surface<void, 2> surf2D;                  // Type 2 is cudaSurfaceType2D, as in the guide's listing
surface<void, cudaSurfaceType3D> surf3D;
surface<void, cudaSurfaceType1DLayered> surfLayers1D;
surface<void, cudaSurfaceType2DLayered> surfLayers2D;
surface<void, 2> inputSurfRef;  // the guide's copy kernel (3.2.11.2.2)
surface<void, 2> outputSurfRef;
surface<void, cudaSurfaceTypeCubemap> surfCube;
surface<void, cudaSurfaceTypeCubemapLayered> surfCubeLayers;
surface<void, cudaSurfaceType1D> surfNeverBound;

// The guide's templated memset (the 1D surface notes), one element a thread.
template <class T>
__global__ void surf1d_memset(int count, T value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) surf1Dwrite(value, surf1D, i * static_cast<int>(sizeof(T)));
}

__global__ void surf1d_read(const int* x, unsigned* out, int n, cudaSurfaceBoundaryMode mode) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (mode == cudaBoundaryModeZero)
    out[i] = surf1Dread<unsigned>(surf1D, x[i], cudaBoundaryModeZero);
  else
    surf1Dread(&out[i], surf1D, x[i], cudaBoundaryModeClamp);  // the out-parameter form
}

__global__ void surf2d_read(const int2* c, unsigned* out, int n, cudaSurfaceBoundaryMode mode) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = mode == cudaBoundaryModeZero ? surf2Dread<unsigned>(surf2D, c[i].x, c[i].y, cudaBoundaryModeZero)
                                        : surf2Dread<unsigned>(surf2D, c[i].x, c[i].y, cudaBoundaryModeClamp);
}

// surface_ops' in-place filter: each pixel becomes its inverse with red and blue swapped.
__global__ void invert_in_place(int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const uchar4 p = surf2Dread<uchar4>(surf2D, x * 4, y);
  surf2Dwrite(make_uchar4(255 - p.z, 255 - p.y, 255 - p.x, p.w), surf2D, x * 4, y);
}

__global__ void surf3d_fill(int w, int h, int d) {
  const int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  if (x < w && y < h && z < d) surf3Dwrite(static_cast<short>(x + 10 * y + 100 * z - 7), surf3D, x * 2, y, z);
}

__global__ void surf3d_read(const int4* c, short* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) surf3Dread(&out[i], surf3D, c[i].x, c[i].y, c[i].z, cudaBoundaryModeZero);
}

__global__ void surf_layered(float* out, int w, int h, int layers) {
  const int x = threadIdx.x, y = threadIdx.y;
  for (int l = 0; l < layers; ++l)
    if (x < w && y < h) surf2DLayeredwrite(0.5f * x + 2.0f * y + 16.0f * l, surfLayers2D, x * 4, y, l);
  __syncthreads();
  if (x < w && y < h)
    for (int l = 0; l < layers; ++l)
      out[(l * h + y) * w + x] = surf2DLayeredread<float>(surfLayers2D, ((x + 1) % w) * 4, y, layers - 1 - l);
}

// The guide's copy kernel (3.2.11.2.2), its surf2Dread spelled as in B.9.2.
__global__ void copyKernel(int width, int height) {
  unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < (unsigned)width && y < (unsigned)height) {
    uchar4 data;
    surf2Dread(&data, inputSurfRef, x * 4, y);
    surf2Dwrite(data, outputSurfRef, x * 4, y);
  }
}

// 1D layered: write through the reference (layer l, element x gets
// 1000 l + x, and writes past the end are dropped in zero mode), read back
// through an object of the same array.
__global__ void layered1d_write(int width, int layers) {
  const int x = threadIdx.x, l = blockIdx.x;
  if (l < layers) surf1DLayeredwrite(1000 * l + x, surfLayers1D, x * 4, l, cudaBoundaryModeZero);
  (void)width;
}

__global__ void layered1d_read(cudaSurfaceObject_t s, int* out, int width, int layers) {
  const int x = threadIdx.x, l = blockIdx.x;
  if (x < width && l < layers) out[l * width + x] = surf1DLayeredread<int>(s, x * 4, l);
}

// Cubemap surfaces (B.9.1.11-14, B.9.2.11-14): texel (x, y) of face (or
// layer x 6 + face) f gets 10000 f + 100 y + x through the reference; the
// block is one texel wider than the face, whose write is dropped (zero).
__global__ void cube_write(bool layered) {
  const int x = threadIdx.x, y = threadIdx.y, f = blockIdx.x;
  const unsigned v = 10000u * f + 100u * y + x;
  if (layered)
    surfCubemapLayeredwrite(v, surfCubeLayers, 4 * x, y, f, cudaBoundaryModeZero);
  else
    surfCubemapwrite(v, surfCube, 4 * x, y, f, cudaBoundaryModeZero);
}
// Every texel through an object; then, through the reference, face `faces`
// (one past the last) clamped, face -1 clamped and face `faces` as zero.
__global__ void cube_read(cudaSurfaceObject_t s, unsigned* out, int size, int faces, bool layered) {
  const int x = threadIdx.x, y = threadIdx.y, f = blockIdx.x;
  const int i = (f * size + y) * size + x;
  out[i] =
      layered ? surfCubemapLayeredread<unsigned>(s, 4 * x, y, f) : surfCubemapread<unsigned>(s, 4 * x, y, f);
  if (f == 0 && x == 0 && y == 0) {
    unsigned* edge = out + faces * size * size;
    if (layered) {
      surfCubemapLayeredread(&edge[0], surfCubeLayers, 4, 1, faces, cudaBoundaryModeClamp);
      edge[1] = surfCubemapLayeredread<unsigned>(surfCubeLayers, 4, 1, -1, cudaBoundaryModeClamp);
      edge[2] = surfCubemapLayeredread<unsigned>(surfCubeLayers, 4, 1, faces, cudaBoundaryModeZero);
    } else {
      surfCubemapread(&edge[0], surfCube, 4, 1, faces, cudaBoundaryModeClamp);
      edge[1] = surfCubemapread<unsigned>(surfCube, 4, 1, -1, cudaBoundaryModeClamp);
      edge[2] = surfCubemapread<unsigned>(surfCube, 4, 1, faces, cudaBoundaryModeZero);
    }
  }
}

__global__ void read_never_bound(unsigned* out) { out[0] = surf1Dread<unsigned>(surfNeverBound, 0); }

template <class T>
static T* to_device(const std::vector<T>& v) {
  T* p = nullptr;
  CHECK(cudaMalloc(&p, v.size() * sizeof(T) + 1));
  CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

template <class T>
static std::vector<T> to_host(const T* p, size_t n) {
  std::vector<T> v(n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

// One line of 32-bit words; "h100: " lines must be lines of surface_ops.expected.
static void print_words(const char* prefix, const char* name, const std::vector<unsigned>& v) {
  printf("%s%s:", prefix, name);
  for (unsigned w : v) printf(" %08x", w);
  printf("\n");
}

static void one_dimensional() {
  const int n = 12;
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned>();
  cudaArray_t array;
  CHECK(cudaMallocArray(&array, &desc, n, 0, cudaArraySurfaceLoadStore));
  CHECK(cudaBindSurfaceToArray(surf1D, array));  // the high-level form: the array's own format
  std::vector<unsigned> host(n);
  surf1d_memset<unsigned><<<1, 32>>>(n, 0xCAFEF00Du);
  CHECK(cudaMemcpy2DFromArray(host.data(), n * 4, array, 0, 0, n * 4, 1, cudaMemcpyDeviceToHost));
  print_words("h100: ", "surf1d memset u32", host);
  surf1d_memset<unsigned short><<<1, 32>>>(2 * n - 3, 0x1234);
  CHECK(cudaMemcpy2DFromArray(host.data(), n * 4, array, 0, 0, n * 4, 1, cudaMemcpyDeviceToHost));
  print_words("h100: ", "surf1d memset u16", host);
  surf1d_memset<unsigned char><<<1, 64>>>(5, 0xEE);
  CHECK(cudaMemcpy2DFromArray(host.data(), n * 4, array, 0, 0, n * 4, 1, cudaMemcpyDeviceToHost));
  print_words("h100: ", "surf1d memset u8", host);
  for (int i = 0; i < n; ++i) host[i] = 0x11110000u + i;
  CHECK(cudaMemcpy2DToArray(array, 0, 0, host.data(), n * 4, n * 4, 1, cudaMemcpyHostToDevice));
  const std::vector<int> xs = {0, 4, 44, 48, 52, 400, -4, -400};
  int* dx = to_device(xs);
  unsigned* dout = nullptr;
  CHECK(cudaMalloc(&dout, 64 * sizeof(unsigned)));
  for (cudaSurfaceBoundaryMode mode : {cudaBoundaryModeZero, cudaBoundaryModeClamp}) {
    surf1d_read<<<1, 32>>>(dx, dout, static_cast<int>(xs.size()), mode);
    print_words("h100: ", mode == cudaBoundaryModeZero ? "surf1d read u32 zero" : "surf1d read u32 clamp",
                to_host(dout, xs.size()));
  }
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dout));
  CHECK(cudaFreeArray(array));
}

static void two_dimensional() {
  const int w = 5, h = 3;
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned>();
  cudaArray_t array;
  CHECK(cudaMallocArray(&array, &desc, w, h, cudaArraySurfaceLoadStore));
  // The low-level form, with the array's format from cudaGetChannelDesc.
  surfaceReference* reference = nullptr;
  CHECK(cudaGetSurfaceReference(&reference, &surf2D));
  expect(reference == &surf2D, "cudaGetSurfaceReference gives the reference itself");
  cudaChannelFormatDesc channelDesc;
  CHECK(cudaGetChannelDesc(&channelDesc, array));
  CHECK(cudaBindSurfaceToArray(reference, array, &channelDesc));
  std::vector<unsigned> host(w * h);
  for (int i = 0; i < w * h; ++i) host[i] = 0x22220000u + i;
  CHECK(cudaMemcpy2DToArray(array, 0, 0, host.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
  const std::vector<int2> c = {{0, 0},  {16, 2}, {20, 1},  {-4, 1}, {8, 3},
                               {8, -1}, {24, 5}, {-8, -2}, {12, 1}};
  int2* dc = to_device(c);
  unsigned* dout = nullptr;
  CHECK(cudaMalloc(&dout, 64 * sizeof(unsigned)));
  for (cudaSurfaceBoundaryMode mode : {cudaBoundaryModeZero, cudaBoundaryModeClamp}) {
    surf2d_read<<<1, 32>>>(dc, dout, static_cast<int>(c.size()), mode);
    print_words("h100: ", mode == cudaBoundaryModeZero ? "surf2d read zero" : "surf2d read clamp",
                to_host(dout, c.size()));
  }
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dout));
  CHECK(cudaFreeArray(array));

  // Rebinding the same reference to another array (of another format: the
  // reference is untyped) for the in-place filter.
  const int iw = 19, ih = 7;
  const cudaChannelFormatDesc pixels = cudaCreateChannelDesc<uchar4>();
  cudaArray_t image;
  CHECK(cudaMallocArray(&image, &pixels, iw, ih, cudaArraySurfaceLoadStore));
  std::vector<unsigned> img(iw * ih);
  for (int i = 0; i < iw * ih; ++i) img[i] = static_cast<unsigned>(i * 2654435761u);
  CHECK(cudaMemcpy2DToArray(image, 0, 0, img.data(), iw * 4, iw * 4, ih, cudaMemcpyHostToDevice));
  CHECK(cudaBindSurfaceToArray(surf2D, image, pixels));
  invert_in_place<<<dim3(2, 2), dim3(16, 4)>>>(iw, ih);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy2DFromArray(img.data(), iw * 4, image, 0, 0, iw * 4, ih, cudaMemcpyDeviceToHost));
  print_words("h100: ", "surf2d in-place invert", img);

  // The guide's copy kernel: the inverted image into a second array.
  cudaArray_t copy;
  CHECK(cudaMallocArray(&copy, &pixels, iw, ih, cudaArraySurfaceLoadStore));
  CHECK(cudaBindSurfaceToArray(inputSurfRef, image));
  CHECK(cudaBindSurfaceToArray(outputSurfRef, copy));
  copyKernel<<<dim3(2, 1), dim3(16, 16)>>>(iw, ih);
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> copied(iw * ih);
  CHECK(cudaMemcpy2DFromArray(copied.data(), iw * 4, copy, 0, 0, iw * 4, ih, cudaMemcpyDeviceToHost));
  expect(copied == img, "the guide's copyKernel copies the image through two references");
  printf("copyKernel: %s\n", copied == img ? "copied" : "differs");
  CHECK(cudaFreeArray(image));
  CHECK(cudaFreeArray(copy));
}

static void volumes_and_layers() {
  const int w = 4, h = 3, d = 2;
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<short>();
  cudaArray_t array;
  CHECK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(w, h, d), cudaArraySurfaceLoadStore));
  CHECK(cudaBindSurfaceToArray(surf3D, array));
  surf3d_fill<<<d, dim3(w, h)>>>(w, h, d);
  const std::vector<int4> c = {{0, 0, 0, 0}, {6, 2, 1, 0}, {2, 1, 0, 0},  {8, 0, 0, 0},
                               {0, 3, 0, 0}, {0, 0, 2, 0}, {-2, 0, 0, 0}, {4, 2, 1, 0}};
  int4* dc = to_device(c);
  short* dout = nullptr;
  CHECK(cudaMalloc(&dout, 64 * sizeof(short)));
  surf3d_read<<<1, 32>>>(dc, dout, static_cast<int>(c.size()));
  std::vector<short> r = to_host(dout, c.size());
  std::vector<unsigned> widened;
  for (short v : r) widened.push_back(static_cast<unsigned short>(v));
  print_words("h100: ", "surf3d read zero", widened);
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dout));
  CHECK(cudaFreeArray(array));

  const int layers = 3;
  const cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t layered;
  CHECK(cudaMalloc3DArray(&layered, &fdesc, make_cudaExtent(w, h, layers),
                          cudaArrayLayered | cudaArraySurfaceLoadStore));
  CHECK(cudaBindSurfaceToArray(surfLayers2D, layered));
  float* dl = nullptr;
  CHECK(cudaMalloc(&dl, w * h * layers * sizeof(float)));
  surf_layered<<<1, dim3(w, h)>>>(dl, w, h, layers);
  std::vector<float> lf = to_host(dl, w * h * layers);
  std::vector<unsigned> lw(lf.size());
  memcpy(lw.data(), lf.data(), lf.size() * 4);
  print_words("h100: ", "surf2d-layered write read", lw);
  CHECK(cudaFree(dl));
  CHECK(cudaFreeArray(layered));

  // 1D layered (height 0): written through the reference, read through an object.
  const int lw1 = 6, layers1 = 2;
  const cudaChannelFormatDesc idesc = cudaCreateChannelDesc<int>();
  cudaArray_t line;
  CHECK(cudaMalloc3DArray(&line, &idesc, make_cudaExtent(lw1, 0, layers1),
                          cudaArrayLayered | cudaArraySurfaceLoadStore));
  CHECK(cudaBindSurfaceToArray(surfLayers1D, line));
  layered1d_write<<<layers1, lw1 + 2>>>(lw1, layers1);  // two threads a layer past the end: dropped
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = line;
  cudaSurfaceObject_t object = 0;
  CHECK(cudaCreateSurfaceObject(&object, &rd));
  int* dline = nullptr;
  CHECK(cudaMalloc(&dline, lw1 * layers1 * sizeof(int)));
  layered1d_read<<<layers1, lw1>>>(object, dline, lw1, layers1);
  const std::vector<int> got = to_host(dline, lw1 * layers1);
  bool right = true;
  for (int l = 0; l < layers1; ++l)
    for (int x = 0; x < lw1; ++x) right = right && got[l * lw1 + x] == 1000 * l + x;
  expect(right, "surf1DLayeredwrite through a reference, read through an object");
  printf("surf1d-layered: %s\n", right ? "as written" : "differs");
  CHECK(cudaDestroySurfaceObject(object));
  CHECK(cudaFree(dline));
  CHECK(cudaFreeArray(line));
}

// A cubemap (8 x 8 x 6) and a layered one (4 x 4 x 2 cubemaps): written
// through references, read through objects, copied back to the host (face
// f is slice f, guide 3.2.11.1.5's order), and read past the last face.
static void cubemaps() {
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned>();
  for (int layered = 0; layered < 2; ++layered) {
    const int size = layered ? 4 : 8, faces = layered ? 12 : 6;
    cudaArray_t array;
    CHECK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(size, size, faces),
                            cudaArrayCubemap | cudaArraySurfaceLoadStore | (layered ? cudaArrayLayered : 0)));
    if (layered)
      CHECK(cudaBindSurfaceToArray(surfCubeLayers, array));
    else
      CHECK(cudaBindSurfaceToArray(surfCube, array));
    cube_write<<<faces, dim3(size + 1, size)>>>(layered != 0);
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = array;
    cudaSurfaceObject_t object = 0;
    CHECK(cudaCreateSurfaceObject(&object, &rd));
    unsigned* dout = nullptr;
    const int n = faces * size * size;
    CHECK(cudaMalloc(&dout, (n + 3) * sizeof(unsigned)));
    cube_read<<<faces, dim3(size, size)>>>(object, dout, size, faces, layered != 0);
    const std::vector<unsigned> got = to_host(dout, n + 3);
    std::vector<unsigned> copied(n);
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcArray = array;
    p.dstPtr = make_cudaPitchedPtr(copied.data(), size * sizeof(unsigned), size, size);
    p.extent = make_cudaExtent(size, size, faces);
    p.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&p));
    int right = 0;
    for (int f = 0; f < faces; ++f)
      for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) {
          const int i = (f * size + y) * size + x;
          const unsigned want = 10000u * f + 100u * y + x;
          right += got[i] == want && copied[i] == want;
        }
    const unsigned last = 10000u * (faces - 1) + 100u + 1u, first = 100u + 1u;
    printf("%s: %d of %d texels as written; past the last face clamp %u, before the first %u, zero %u\n",
           layered ? "surfCubemapLayered" : "surfCubemap", right, n, got[n], got[n + 1], got[n + 2]);
    expect(right == n, "cubemap surface: written through a reference, read through an object and copied");
    expect(got[n] == last && got[n + 1] == first && got[n + 2] == 0, "cubemap surface: faces out of range");
    CHECK(cudaDestroySurfaceObject(object));
    CHECK(cudaFree(dout));
    CHECK(cudaFreeArray(array));
  }
}

static void errors() {
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned>();
  cudaArray_t line, plain_array, image;
  CHECK(cudaMallocArray(&line, &desc, 8, 0, cudaArraySurfaceLoadStore));
  CHECK(cudaMallocArray(&plain_array, &desc, 8, 0));  // not made for surfaces
  CHECK(cudaMallocArray(&image, &desc, 8, 4, cudaArraySurfaceLoadStore));
  static surfaceReference plain;  // not a surface<void, Type> variable: never registered
  plain.channelDesc = desc;
  expect_error(cudaBindSurfaceToArray(&plain, line, &desc), cudaErrorInvalidSurface,
               "bind a plain surfaceReference");
  expect_error(cudaBindSurfaceToArray(static_cast<const surfaceReference*>(nullptr), line, &desc),
               cudaErrorInvalidSurface, "bind a null reference");
  expect_error(cudaBindSurfaceToArray(surf1D, nullptr, desc), cudaErrorInvalidValue, "bind a null array");
  expect_error(cudaBindSurfaceToArray(&surf1D, line, nullptr), cudaErrorInvalidValue,
               "bind without a format");
  expect_error(cudaBindSurfaceToArray(surf1D, plain_array), cudaErrorInvalidValue,
               "bind an array without cudaArraySurfaceLoadStore");
  expect_error(cudaBindSurfaceToArray(surf1D, image), cudaErrorInvalidSurface,
               "bind a 2D array to a 1D reference");
  expect_error(cudaBindSurfaceToArray(surf2D, line), cudaErrorInvalidSurface,
               "bind a 1D array to a 2D reference");
  expect_error(cudaBindSurfaceToArray(surf1D, line, cudaCreateChannelDesc<short2>()),
               cudaErrorInvalidChannelDescriptor, "bind with a format that is not the array's");
  const surfaceReference* found = &plain;
  expect_error(cudaGetSurfaceReference(&found, &plain), cudaErrorInvalidSurface,
               "cudaGetSurfaceReference of a plain surfaceReference");
  expect(found == nullptr, "a failed cudaGetSurfaceReference clears its result");
  expect_error(cudaGetSurfaceReference(static_cast<const surfaceReference**>(nullptr), &surf1D),
               cudaErrorInvalidValue, "cudaGetSurfaceReference into a null pointer");
  expect_error(cudaBindSurfaceToArray(surf1D, line), cudaSuccess, "bind a 1D array to a 1D reference");
  CHECK(cudaFreeArray(line));
  CHECK(cudaFreeArray(plain_array));
  CHECK(cudaFreeArray(image));
}

int main() {
  one_dimensional();
  two_dimensional();
  volumes_and_layers();
  cubemaps();
  errors();
  // Last (the error is sticky): an access through a reference never bound.
  unsigned* dout = nullptr;
  CHECK(cudaMalloc(&dout, sizeof(unsigned)));
  read_never_bound<<<1, 1>>>(dout);
  expect_error(cudaDeviceSynchronize(), cudaErrorIllegalAddress, "read through a reference never bound");
  if (g_failures) {
    printf("surface_reference: %d FAILED\n", g_failures);
    return 1;
  }
  printf("surface_reference: done\n");
  return 0;
}
