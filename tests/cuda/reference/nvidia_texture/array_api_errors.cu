// The CUDA runtime's answers to good and bad calls of the array, texture
// object and surface object API (guide 3.2.11.1, 3.2.11.2, 3.2.2): which
// error each misuse gets, and what the getters report.  Host code only, so
// Kestrel's runtime (tests/cuda/test_arrays.cpp) can be held to the same
// answers.  Each line is "<case>: <cudaGetErrorName>" or a value.
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

#define SHOW(name, call) std::printf("%s: %s\n", name, cudaGetErrorName(call)), (void)cudaGetLastError()

static cudaArray_t array_of(cudaChannelFormatDesc d, size_t w, size_t h, unsigned flags = 0) {
  cudaArray_t a = nullptr;
  cudaMallocArray(&a, &d, w, h, flags);
  return a;
}

int main() {
  cudaArray_t a = nullptr;
  cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
  // Channel descriptors.
  cudaChannelFormatDesc d;
  d = cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindFloat);
  SHOW("float 8-bit", cudaMallocArray(&a, &d, 4, 4));
  d = cudaCreateChannelDesc(32, 0, 32, 0, cudaChannelFormatKindFloat);
  SHOW("gap in channels", cudaMallocArray(&a, &d, 4, 4));
  d = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
  SHOW("three channels", cudaMallocArray(&a, &d, 4, 4));
  d = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindSigned);
  SHOW("mixed sizes", cudaMallocArray(&a, &d, 4, 4));
  d = cudaCreateChannelDesc(64, 0, 0, 0, cudaChannelFormatKindUnsigned);
  SHOW("64-bit channel", cudaMallocArray(&a, &d, 4, 4));
  d = cudaCreateChannelDesc(24, 0, 0, 0, cudaChannelFormatKindUnsigned);
  SHOW("24-bit channel", cudaMallocArray(&a, &d, 4, 4));
  d = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindNone);
  SHOW("kind none", cudaMallocArray(&a, &d, 4, 4));
  d = cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindUnsigned);
  SHOW("no channels", cudaMallocArray(&a, &d, 4, 4));
  d = cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat);
  SHOW("half2", cudaMallocArray(&a, &d, 4, 4));
  cudaFreeArray(a);
  SHOW("null desc", cudaMallocArray(&a, nullptr, 4, 4));
  SHOW("null array", cudaMallocArray(nullptr, &f32, 4, 4));
  SHOW("width 0", cudaMallocArray(&a, &f32, 0, 4));
  SHOW("width 0 height 0", cudaMallocArray(&a, &f32, 0, 0));
  SHOW("layered flag on MallocArray", cudaMallocArray(&a, &f32, 4, 4, cudaArrayLayered));
  SHOW("unknown flag", cudaMallocArray(&a, &f32, 4, 4, 0x400));
  SHOW("cubemap 4x4x6", cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 4, 6), cudaArrayCubemap));
  cudaFreeArray(a);
  SHOW("cubemap depth 5", cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 4, 5), cudaArrayCubemap));
  SHOW("cubemap 4x5", cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 5, 6), cudaArrayCubemap));
  SHOW("cubemap layered depth 12",
       cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 4, 12), cudaArrayCubemap | cudaArrayLayered));
  cudaFreeArray(a);
  SHOW("cubemap layered depth 8",
       cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 4, 8), cudaArrayCubemap | cudaArrayLayered));
  SHOW("layered depth 0", cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 4, 0), cudaArrayLayered));
  SHOW("3D height 0", cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 0, 4), 0));
  SHOW("1D layered", cudaMalloc3DArray(&a, &f32, make_cudaExtent(4, 0, 3), cudaArrayLayered));
  cudaChannelFormatDesc got;
  cudaExtent e;
  unsigned flags = 99;
  SHOW("info 1D layered", cudaArrayGetInfo(&got, &e, &flags, a));
  std::printf("  extent %zu %zu %zu flags %u\n", e.width, e.height, e.depth, flags);
  cudaFreeArray(a);
  SHOW("free null", cudaFreeArray(nullptr));
  a = array_of(f32, 8, 0);
  SHOW("info 1D", cudaArrayGetInfo(&got, &e, &flags, a));
  std::printf("  desc %d %d %d %d kind %d extent %zu %zu %zu flags %u\n", got.x, got.y, got.z, got.w,
              (int)got.f, e.width, e.height, e.depth, flags);
  SHOW("info null outputs", cudaArrayGetInfo(nullptr, nullptr, nullptr, a));
  SHOW("getchanneldesc", cudaGetChannelDesc(&got, a));
  cudaFreeArray(a);

  // Copies.
  float host[64] = {};
  a = array_of(f32, 8, 4);
  SHOW("2DToArray in bounds", cudaMemcpy2DToArray(a, 4, 1, host, 16, 16, 3, cudaMemcpyHostToDevice));
  SHOW("2DToArray past width", cudaMemcpy2DToArray(a, 20, 0, host, 16, 16, 1, cudaMemcpyHostToDevice));
  SHOW("2DToArray past height", cudaMemcpy2DToArray(a, 0, 2, host, 16, 16, 3, cudaMemcpyHostToDevice));
  SHOW("2DToArray width not texels", cudaMemcpy2DToArray(a, 0, 0, host, 16, 6, 1, cudaMemcpyHostToDevice));
  SHOW("2DToArray offset not texels", cudaMemcpy2DToArray(a, 2, 0, host, 16, 8, 1, cudaMemcpyHostToDevice));
  SHOW("2DToArray spitch < width", cudaMemcpy2DToArray(a, 0, 0, host, 8, 16, 2, cudaMemcpyHostToDevice));
  SHOW("2DToArray kind D2H", cudaMemcpy2DToArray(a, 0, 0, host, 16, 16, 1, cudaMemcpyDeviceToHost));
  SHOW("2DToArray null array", cudaMemcpy2DToArray(nullptr, 0, 0, host, 16, 16, 1, cudaMemcpyHostToDevice));
  SHOW("2DFromArray kind H2D", cudaMemcpy2DFromArray(host, 16, a, 0, 0, 16, 1, cudaMemcpyHostToDevice));
  SHOW("ToArray whole", cudaMemcpyToArray(a, 0, 0, host, 128, cudaMemcpyHostToDevice));
  SHOW("ToArray wraps rows", cudaMemcpyToArray(a, 16, 1, host, 40, cudaMemcpyHostToDevice));
  SHOW("ToArray past end", cudaMemcpyToArray(a, 16, 3, host, 40, cudaMemcpyHostToDevice));
  for (int i = 0; i < 32; ++i) host[i] = (float)i;
  cudaMemcpyToArray(a, 0, 0, host, 128, cudaMemcpyHostToDevice);
  cudaMemcpyToArray(a, 28, 0, host, 8, cudaMemcpyHostToDevice);  // texels 7 and 8 (row 1, 0)
  float back[32];
  cudaMemcpyFromArray(back, a, 0, 0, 128, cudaMemcpyDeviceToHost);
  std::printf("  ToArray wrap: %g %g %g\n", back[7], back[8], back[9]);
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(host, 32, 8, 4);
  p.dstArray = a;
  p.extent = make_cudaExtent(8, 4, 1);
  p.kind = cudaMemcpyHostToDevice;
  SHOW("3D host to array", cudaMemcpy3D(&p));
  p.srcArray = a;
  SHOW("3D both src", cudaMemcpy3D(&p));
  p.srcArray = nullptr;
  p.extent = make_cudaExtent(9, 4, 1);
  SHOW("3D extent past array", cudaMemcpy3D(&p));
  p.extent = make_cudaExtent(8, 4, 2);
  SHOW("3D depth past 2D array", cudaMemcpy3D(&p));
  p.extent = make_cudaExtent(8, 4, 0);
  SHOW("3D depth 0", cudaMemcpy3D(&p));
  p.extent = make_cudaExtent(8, 4, 1);
  p.srcPtr = make_cudaPitchedPtr(host, 16, 8, 4);
  SHOW("3D pitch < width", cudaMemcpy3D(&p));
  SHOW("3D null", cudaMemcpy3D(nullptr));
  cudaPitchedPtr pitched;
  SHOW("Malloc3D", cudaMalloc3D(&pitched, make_cudaExtent(10, 3, 2)));
  std::printf("  pitch %zu xsize %zu ysize %zu\n", pitched.pitch, pitched.xsize, pitched.ysize);
  SHOW("Memset3D", cudaMemset3D(pitched, 1, make_cudaExtent(10, 3, 2)));
  SHOW("Memset2D", cudaMemset2D(pitched.ptr, pitched.pitch, 1, 10, 3));
  SHOW("Memset2D pitch < width", cudaMemset2D(pitched.ptr, 4, 1, 10, 3));
  cudaFree(pitched.ptr);

  // Texture objects.
  cudaResourceDesc r;
  cudaTextureDesc t;
  cudaTextureObject_t tex = 0;
  std::memset(&r, 0, sizeof r);
  std::memset(&t, 0, sizeof t);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  SHOW("tex array", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  std::printf("  handle nonzero %d\n", tex != 0);
  cudaTextureDesc tg;
  cudaResourceDesc rg;
  SHOW("get tex desc", cudaGetTextureObjectTextureDesc(&tg, tex));
  SHOW("get res desc", cudaGetTextureObjectResourceDesc(&rg, tex));
  std::printf("  res type %d array same %d\n", (int)rg.resType, rg.res.array.array == a);
  SHOW("destroy", cudaDestroyTextureObject(tex));
  SHOW("destroy 0", cudaDestroyTextureObject(0));
  SHOW("tex null res", cudaCreateTextureObject(&tex, nullptr, &t, nullptr));
  SHOW("tex null texdesc", cudaCreateTextureObject(&tex, &r, nullptr, nullptr));
  SHOW("tex null out", cudaCreateTextureObject(nullptr, &r, &t, nullptr));
  r.res.array.array = nullptr;
  SHOW("tex null array", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  r.res.array.array = a;
  t.filterMode = cudaFilterModeLinear;
  SHOW("float linear", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  cudaDestroyTextureObject(tex);
  t.readMode = cudaReadModeNormalizedFloat;
  SHOW("float normalized read", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  cudaDestroyTextureObject(tex);
  t.readMode = cudaReadModeElementType;
  t.addressMode[0] = cudaAddressModeWrap;
  SHOW("wrap unnormalized", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  cudaDestroyTextureObject(tex);
  t.addressMode[0] = (cudaTextureAddressMode)7;
  SHOW("address mode 7", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  t.addressMode[0] = cudaAddressModeClamp;
  t.filterMode = (cudaTextureFilterMode)5;
  SHOW("filter mode 5", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  t.filterMode = cudaFilterModePoint;
  t.readMode = (cudaTextureReadMode)5;
  SHOW("read mode 5", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  t.readMode = cudaReadModeElementType;
  cudaResourceViewDesc v;
  std::memset(&v, 0, sizeof v);
  SHOW("view none", cudaCreateTextureObject(&tex, &r, &t, &v));
  cudaDestroyTextureObject(tex);
  cudaArray_t ai = array_of(cudaCreateChannelDesc<int>(), 8, 4);
  cudaArray_t ab = array_of(cudaCreateChannelDesc<unsigned char>(), 8, 4);
  r.res.array.array = ai;
  t.filterMode = cudaFilterModeLinear;
  SHOW("int linear element", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  t.readMode = cudaReadModeNormalizedFloat;
  SHOW("int normalized read", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  r.res.array.array = ab;
  t.readMode = cudaReadModeElementType;
  SHOW("uchar linear element", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  t.readMode = cudaReadModeNormalizedFloat;
  SHOW("uchar linear normalized", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  cudaDestroyTextureObject(tex);
  std::memset(&t, 0, sizeof t);
  char* dev = nullptr;
  cudaMalloc(&dev, 1 << 16);
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = dev;
  r.res.linear.desc = f32;
  r.res.linear.sizeInBytes = 1024;
  SHOW("linear", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  cudaDestroyTextureObject(tex);
  r.res.linear.devPtr = dev + 4;
  SHOW("linear misaligned 4", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  r.res.linear.devPtr = dev + 256;
  SHOW("linear offset 256", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  cudaDestroyTextureObject(tex);
  r.res.linear.devPtr = dev;
  r.res.linear.sizeInBytes = 0;
  SHOW("linear size 0", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  r.res.linear.sizeInBytes = 1022;
  SHOW("linear size not texels", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  cudaDestroyTextureObject(tex);
  r.res.linear.sizeInBytes = 1024;
  r.res.linear.desc = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
  SHOW("linear 3 channels", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  r.res.linear.devPtr = nullptr;
  r.res.linear.desc = f32;
  SHOW("linear null", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = dev;
  r.res.pitch2D.desc = f32;
  r.res.pitch2D.width = 10;
  r.res.pitch2D.height = 4;
  r.res.pitch2D.pitchInBytes = 64;
  SHOW("pitch2D 64", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  cudaDestroyTextureObject(tex);
  r.res.pitch2D.pitchInBytes = 48;
  SHOW("pitch2D 48", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  r.res.pitch2D.pitchInBytes = 32;
  SHOW("pitch2D pitch < row", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  r.res.pitch2D.pitchInBytes = 64;
  r.res.pitch2D.devPtr = dev + 32;
  SHOW("pitch2D base +32", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  r.res.pitch2D.devPtr = dev;
  r.res.pitch2D.width = 0;
  SHOW("pitch2D width 0", cudaCreateTextureObject(&tex, &r, &t, nullptr));
  r.resType = (cudaResourceType)9;
  SHOW("res type 9", cudaCreateTextureObject(&tex, &r, &t, nullptr));

  // Surface objects.
  cudaSurfaceObject_t surf = 0;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  SHOW("surface without flag", cudaCreateSurfaceObject(&surf, &r));
  cudaArray_t as = array_of(f32, 8, 4, cudaArraySurfaceLoadStore);
  r.res.array.array = as;
  SHOW("surface", cudaCreateSurfaceObject(&surf, &r));
  SHOW("surface get res", cudaGetSurfaceObjectResourceDesc(&rg, surf));
  SHOW("surface destroy", cudaDestroySurfaceObject(surf));
  SHOW("surface destroy 0", cudaDestroySurfaceObject(0));
  SHOW("surface null", cudaCreateSurfaceObject(&surf, nullptr));
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = dev;
  r.res.linear.desc = f32;
  r.res.linear.sizeInBytes = 1024;
  SHOW("surface linear", cudaCreateSurfaceObject(&surf, &r));

  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("textureAlignment %zu texturePitchAlignment %zu surfaceAlignment %zu\n", prop.textureAlignment,
              prop.texturePitchAlignment, prop.surfaceAlignment);
  std::printf("sizes: resdesc %zu texdesc %zu viewdesc %zu 3dparms %zu\n", sizeof(cudaResourceDesc),
              sizeof(cudaTextureDesc), sizeof(cudaResourceViewDesc), sizeof(cudaMemcpy3DParms));
  cudaFreeArray(a);
  cudaFreeArray(ai);
  cudaFreeArray(ab);
  cudaFreeArray(as);
  cudaFree(dev);
  return 0;
}
