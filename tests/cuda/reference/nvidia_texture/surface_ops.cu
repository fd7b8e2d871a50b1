// Surfaces on an NVIDIA GPU (guide 3.2.11.2, B.9): the guide's templated 1D
// surface memset (written for surface objects: CUDA 12 has no surface
// references), 1D, 2D, 3D and 2D-layered reads and writes with byte-addressed
// x, the boundary modes zero and clamp for reads and writes outside the
// array on every side, an in-place image filter on a 2D surface, and last a
// write outside the array with the trap mode, whose error the program
// prints.  The golden file for issue 16's surfaces.
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

// The guide's templated memset over a 1D surface (3.2.11.2 / the 1D surface
// notes), one element per thread; x is in bytes.
template <class T>
__global__ void surf1d_memset(cudaSurfaceObject_t s, int count, T value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) surf1Dwrite(value, s, i * static_cast<int>(sizeof(T)));
}

template <class T>
__global__ void surf1d_read(cudaSurfaceObject_t s, const int* x, T* out, int n,
                            cudaSurfaceBoundaryMode mode) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (mode == cudaBoundaryModeZero)
    out[i] = surf1Dread<T>(s, x[i], cudaBoundaryModeZero);
  else
    out[i] = surf1Dread<T>(s, x[i], cudaBoundaryModeClamp);
}

template <class T>
__global__ void surf1d_write(cudaSurfaceObject_t s, const int* x, const T* v, int n,
                             cudaSurfaceBoundaryMode mode) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (mode == cudaBoundaryModeZero)
    surf1Dwrite(v[i], s, x[i], cudaBoundaryModeZero);
  else
    surf1Dwrite(v[i], s, x[i], cudaBoundaryModeClamp);
}

__global__ void surf2d_read(cudaSurfaceObject_t s, const int2* c, unsigned* out, int n,
                            cudaSurfaceBoundaryMode mode) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = mode == cudaBoundaryModeZero ? surf2Dread<unsigned>(s, c[i].x, c[i].y, cudaBoundaryModeZero)
                                        : surf2Dread<unsigned>(s, c[i].x, c[i].y, cudaBoundaryModeClamp);
}

__global__ void surf2d_write(cudaSurfaceObject_t s, const int2* c, int n, cudaSurfaceBoundaryMode mode) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned v = 0xA0000000u + i;
  if (mode == cudaBoundaryModeZero)
    surf2Dwrite(v, s, c[i].x, c[i].y, cudaBoundaryModeZero);
  else
    surf2Dwrite(v, s, c[i].x, c[i].y, cudaBoundaryModeClamp);
}

// In place: each pixel (uchar4) becomes its inverse with red and blue swapped.
__global__ void invert_in_place(cudaSurfaceObject_t s, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const uchar4 p = surf2Dread<uchar4>(s, x * 4, y);
  surf2Dwrite(make_uchar4(255 - p.z, 255 - p.y, 255 - p.x, p.w), s, x * 4, y);
}

__global__ void surf3d_fill(cudaSurfaceObject_t s, int w, int h, int d) {
  const int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  if (x < w && y < h && z < d) surf3Dwrite(static_cast<short>(x + 10 * y + 100 * z - 7), s, x * 2, y, z);
}

__global__ void surf3d_read(cudaSurfaceObject_t s, const int4* c, short* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = surf3Dread<short>(s, c[i].x, c[i].y, c[i].z, cudaBoundaryModeZero);
}

__global__ void surf_layered(cudaSurfaceObject_t s, float* out, int w, int h, int layers) {
  const int x = threadIdx.x, y = threadIdx.y;
  for (int l = 0; l < layers; ++l)
    if (x < w && y < h) surf2DLayeredwrite(0.5f * x + 2.0f * y + 16.0f * l, s, x * 4, y, l);
  __syncthreads();
  if (x < w && y < h)
    for (int l = 0; l < layers; ++l)
      out[(l * h + y) * w + x] = surf2DLayeredread<float>(s, ((x + 1) % w) * 4, y, layers - 1 - l);
}

__global__ void surf1d_write_trap(cudaSurfaceObject_t s, int x) {
  surf1Dwrite(1, s, x, cudaBoundaryModeTrap);
}

static cudaSurfaceObject_t make_surface(cudaArray_t array) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = array;
  cudaSurfaceObject_t s = 0;
  CHECK(cudaCreateSurfaceObject(&s, &rd));
  return s;
}

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

static void print_words(const char* name, const std::vector<unsigned>& v) {
  printf("%s:", name);
  for (unsigned w : v) printf(" %08x", w);
  printf("\n");
}

int main() {
  // 1D: the templated memset for three types, then reads and writes outside
  // the array with zero and clamp.
  {
    const int n = 12;
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, n, 0, cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s = make_surface(array);
    std::vector<unsigned> host(n);
    surf1d_memset<unsigned><<<1, 32>>>(s, n, 0xCAFEF00Du);
    CHECK(cudaMemcpy2DFromArray(host.data(), n * 4, array, 0, 0, n * 4, 1, cudaMemcpyDeviceToHost));
    print_words("surf1d memset u32", host);
    surf1d_memset<unsigned short><<<1, 32>>>(s, 2 * n - 3, 0x1234);
    CHECK(cudaMemcpy2DFromArray(host.data(), n * 4, array, 0, 0, n * 4, 1, cudaMemcpyDeviceToHost));
    print_words("surf1d memset u16", host);
    surf1d_memset<unsigned char><<<1, 64>>>(s, 5, 0xEE);
    CHECK(cudaMemcpy2DFromArray(host.data(), n * 4, array, 0, 0, n * 4, 1, cudaMemcpyDeviceToHost));
    print_words("surf1d memset u8", host);
    for (int i = 0; i < n; ++i) host[i] = 0x11110000u + i;
    CHECK(cudaMemcpy2DToArray(array, 0, 0, host.data(), n * 4, n * 4, 1, cudaMemcpyHostToDevice));
    const std::vector<int> xs = {0,   4,  44,   48, 52,
                                 400, -4, -400, 2,  46};  // bytes; 2 and 46 unaligned for 4 bytes
    const std::vector<int> aligned = {0, 4, 44, 48, 52, 400, -4, -400};
    int* dx = to_device(aligned);
    unsigned* dout = nullptr;
    CHECK(cudaMalloc(&dout, 64 * sizeof(unsigned)));
    for (cudaSurfaceBoundaryMode mode : {cudaBoundaryModeZero, cudaBoundaryModeClamp}) {
      surf1d_read<unsigned><<<1, 32>>>(s, dx, dout, static_cast<int>(aligned.size()), mode);
      print_words(mode == cudaBoundaryModeZero ? "surf1d read u32 zero" : "surf1d read u32 clamp",
                  to_host(dout, aligned.size()));
    }
    // 2-byte reads at odd halves of words.
    const std::vector<int> halves = {0, 2, 46, 48, 50, -2};
    int* dh = to_device(halves);
    unsigned short* dout16 = nullptr;
    CHECK(cudaMalloc(&dout16, 64 * sizeof(unsigned short)));
    for (cudaSurfaceBoundaryMode mode : {cudaBoundaryModeZero, cudaBoundaryModeClamp}) {
      surf1d_read<unsigned short><<<1, 32>>>(s, dh, dout16, static_cast<int>(halves.size()), mode);
      std::vector<unsigned short> h16 = to_host(dout16, halves.size());
      std::vector<unsigned> widened(h16.begin(), h16.end());
      print_words(mode == cudaBoundaryModeZero ? "surf1d read u16 zero" : "surf1d read u16 clamp", widened);
    }
    // Writes outside: zero drops them, clamp moves them to the edge.
    for (cudaSurfaceBoundaryMode mode : {cudaBoundaryModeZero, cudaBoundaryModeClamp}) {
      CHECK(cudaMemcpy2DToArray(array, 0, 0, host.data(), n * 4, n * 4, 1, cudaMemcpyHostToDevice));
      const std::vector<int> wx = {-4, 48, 400};
      const std::vector<unsigned> wv = {0xAAAA0001u, 0xAAAA0002u, 0xAAAA0003u};
      int* dwx = to_device(wx);
      unsigned* dwv = to_device(wv);
      // One at a time: which of several clamped writes to one word wins is not specified.
      for (int k = 0; k < 3; ++k) {
        surf1d_write<unsigned><<<1, 1>>>(s, dwx + k, dwv + k, 1, mode);
        CHECK(cudaDeviceSynchronize());
      }
      std::vector<unsigned> after(n);
      CHECK(cudaMemcpy2DFromArray(after.data(), n * 4, array, 0, 0, n * 4, 1, cudaMemcpyDeviceToHost));
      print_words(mode == cudaBoundaryModeZero ? "surf1d write u32 zero" : "surf1d write u32 clamp", after);
      CHECK(cudaFree(dwx));
      CHECK(cudaFree(dwv));
    }
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dh));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(dout16));
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(array));
  }

  // 2D: reads and writes outside the array on every side.
  {
    const int w = 5, h = 3;
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, w, h, cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s = make_surface(array);
    std::vector<unsigned> host(w * h);
    for (int i = 0; i < w * h; ++i) host[i] = 0x22220000u + i;
    const std::vector<int2> c = {{0, 0},  {16, 2}, {20, 1},  {-4, 1}, {8, 3},
                                 {8, -1}, {24, 5}, {-8, -2}, {12, 1}};
    int2* dc = to_device(c);
    unsigned* dout = nullptr;
    CHECK(cudaMalloc(&dout, 64 * sizeof(unsigned)));
    for (cudaSurfaceBoundaryMode mode : {cudaBoundaryModeZero, cudaBoundaryModeClamp}) {
      CHECK(cudaMemcpy2DToArray(array, 0, 0, host.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
      surf2d_read<<<1, 32>>>(s, dc, dout, static_cast<int>(c.size()), mode);
      print_words(mode == cudaBoundaryModeZero ? "surf2d read zero" : "surf2d read clamp",
                  to_host(dout, c.size()));
      for (int k = 0; k < static_cast<int>(c.size()); ++k) {
        surf2d_write<<<1, 1>>>(s, dc + k, 1, mode);
        CHECK(cudaDeviceSynchronize());
      }
      std::vector<unsigned> after(w * h);
      CHECK(cudaMemcpy2DFromArray(after.data(), w * 4, array, 0, 0, w * 4, h, cudaMemcpyDeviceToHost));
      print_words(mode == cudaBoundaryModeZero ? "surf2d write zero" : "surf2d write clamp", after);
    }
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dout));
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(array));
  }

  // An in-place filter over a 2D image of uchar4.
  {
    const int w = 19, h = 7;
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, w, h, cudaArraySurfaceLoadStore));
    std::vector<unsigned> host(w * h);
    for (int i = 0; i < w * h; ++i) host[i] = static_cast<unsigned>(i * 2654435761u);
    CHECK(cudaMemcpy2DToArray(array, 0, 0, host.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
    cudaSurfaceObject_t s = make_surface(array);
    invert_in_place<<<dim3(2, 2), dim3(16, 4)>>>(s, w, h);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy2DFromArray(host.data(), w * 4, array, 0, 0, w * 4, h, cudaMemcpyDeviceToHost));
    print_words("surf2d in-place invert", host);
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(array));
  }

  // 3D and 2D layered.
  {
    const int w = 4, h = 3, d = 2;
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<short>();
    cudaArray_t array;
    CHECK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(w, h, d), cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s = make_surface(array);
    surf3d_fill<<<d, dim3(w, h)>>>(s, w, h, d);
    const std::vector<int4> c = {{0, 0, 0, 0}, {6, 2, 1, 0}, {2, 1, 0, 0},  {8, 0, 0, 0},
                                 {0, 3, 0, 0}, {0, 0, 2, 0}, {-2, 0, 0, 0}, {4, 2, 1, 0}};
    int4* dc = to_device(c);
    short* dout = nullptr;
    CHECK(cudaMalloc(&dout, 64 * sizeof(short)));
    surf3d_read<<<1, 32>>>(s, dc, dout, static_cast<int>(c.size()));
    std::vector<short> r = to_host(dout, c.size());
    std::vector<unsigned> widened;
    for (short v : r) widened.push_back(static_cast<unsigned short>(v));
    print_words("surf3d read zero", widened);
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dout));
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(array));

    const int layers = 3;
    const cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
    cudaArray_t layered;
    CHECK(cudaMalloc3DArray(&layered, &fdesc, make_cudaExtent(w, h, layers),
                            cudaArrayLayered | cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t sl = make_surface(layered);
    float* dl = nullptr;
    CHECK(cudaMalloc(&dl, w * h * layers * sizeof(float)));
    surf_layered<<<1, dim3(w, h)>>>(sl, dl, w, h, layers);
    std::vector<float> lf = to_host(dl, w * h * layers);
    std::vector<unsigned> lw(lf.size());
    memcpy(lw.data(), lf.data(), lf.size() * 4);
    print_words("surf2d-layered write read", lw);
    CHECK(cudaFree(dl));
    CHECK(cudaDestroySurfaceObject(sl));
    CHECK(cudaFreeArray(layered));
  }

  // Last: the trap mode (the error is sticky).
  {
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<int>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, 8, 0, cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s = make_surface(array);
    surf1d_write_trap<<<1, 1>>>(s, 28);  // inside: no error
    printf("surf1d trap inside: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    surf1d_write_trap<<<1, 1>>>(s, 32);  // one element past the end
    printf("surf1d trap outside: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  }
  printf("surface_ops: done\n");
  return 0;
}
