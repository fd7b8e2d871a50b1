// Texture fetches through the SM's texture unit (kx.tex, docs/isa.md section
// 2.5; docs/texture.md): tex1Dfetch, tex1D, tex2D, tex3D, tex1DLayered and
// tex2DLayered of an object the unit fetches issue kx.tex, and the Lod forms
// fetch in software (docs/texture.md, "Which fetches go through the unit").
//
// (a) Each form through the unit against the same fetch in software
//     (tex*Lod at level 0 of a texture without mipmaps; for tex1Dfetch the
//     SDK's software half, and the host's own values), bit for bit, over
//     formats, filters and address modes, and through a texture reference.
// (b) Each thread of a warp fetching from its own object, against the
//     values the host knows.
// (c) tex2D of a 3D object: the unit's TEXTURE fault, which CUDA reports as
//     cudaErrorInvalidTexture, sticky until cudaDeviceReset; the runtime's
//     message names the kind, the object, the thread and, built with
//     -lineinfo, the kx.tex's source line; after the reset the device
//     fetches again.
//
// Small on purpose: on rtlsim it runs in lock-step with the model, whose
// software fetches cost thousands of instructions each.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "program_checks.h"

constexpr int kThreads = 32;

// The four components' bits of a fetch of type T.
template <class T>
__device__ uint4 bits_of(T v) {
  uint4 b = make_uint4(0, 0, 0, 0);
  memcpy(&b, &v, sizeof v);
  return b;
}

// (a): each thread fetches at its coordinates through the unit and in software.
template <class T>
__global__ void fetch_1d(cudaTextureObject_t t, const float4* at, uint4* unit, uint4* soft) {
  const float4 c = at[threadIdx.x];
  unit[threadIdx.x] = bits_of(tex1D<T>(t, c.x));
  soft[threadIdx.x] = bits_of(tex1DLod<T>(t, c.x, 0.0f));
}
template <class T>
__global__ void fetch_2d(cudaTextureObject_t t, const float4* at, uint4* unit, uint4* soft) {
  const float4 c = at[threadIdx.x];
  unit[threadIdx.x] = bits_of(tex2D<T>(t, c.x, c.y));
  soft[threadIdx.x] = bits_of(tex2DLod<T>(t, c.x, c.y, 0.0f));
}
template <class T>
__global__ void fetch_3d(cudaTextureObject_t t, const float4* at, uint4* unit, uint4* soft) {
  const float4 c = at[threadIdx.x];
  unit[threadIdx.x] = bits_of(tex3D<T>(t, c.x, c.y, c.z));
  soft[threadIdx.x] = bits_of(tex3DLod<T>(t, c.x, c.y, c.z, 0.0f));
}
template <class T>
__global__ void fetch_1d_layered(cudaTextureObject_t t, const float4* at, uint4* unit, uint4* soft) {
  const float4 c = at[threadIdx.x];
  const int layer = static_cast<int>(c.w);
  unit[threadIdx.x] = bits_of(tex1DLayered<T>(t, c.x, layer));
  soft[threadIdx.x] = bits_of(tex1DLayeredLod<T>(t, c.x, layer, 0.0f));
}
template <class T>
__global__ void fetch_2d_layered(cudaTextureObject_t t, const float4* at, uint4* unit, uint4* soft) {
  const float4 c = at[threadIdx.x];
  const int layer = static_cast<int>(c.w);
  unit[threadIdx.x] = bits_of(tex2DLayered<T>(t, c.x, c.y, layer));
  soft[threadIdx.x] = bits_of(tex2DLayeredLod<T>(t, c.x, c.y, layer, 0.0f));
}

// tex1Dfetch (guide B.8.1.1): through the unit, and the SDK's software
// fetch of the same object (Kestrel's own, as no CUDA call forces it).
template <class T>
__global__ void fetch_by_index(cudaTextureObject_t t, const int* at, uint4* unit, uint4* soft) {
  const int i = at[threadIdx.x];
  unit[threadIdx.x] = bits_of(tex1Dfetch<T>(t, i));
  soft[threadIdx.x] = bits_of(
      kestrel_texture_detail::Result<T>::from(kestrel_texture_detail::fetch_linear_in_software(t, i)));
}

// A texture reference over the 2D texture of case (a).
texture<uchar4, cudaTextureType2D, cudaReadModeNormalizedFloat> image_ref;
__global__ void fetch_2d_ref(const float4* at, uint4* unit, uint4* soft) {
  const float4 c = at[threadIdx.x];
  unit[threadIdx.x] = bits_of(tex2D(image_ref, c.x, c.y));
  soft[threadIdx.x] = bits_of(tex2DLod(image_ref, c.x, c.y, 0.0f));
}

// (b): thread i fetches texel (i % 4, (i / 4) % 4) of object i % 4.
__global__ void per_thread_objects(const cudaTextureObject_t* objects, float* out) {
  const int i = threadIdx.x;
  out[i] = tex2D<float>(objects[i % 4], (i % 4) + 0.5f, ((i / 4) % 4) + 0.5f);
}

// (c): global thread 37 (block 1, thread 5) fetches a 3D object with tex2D.
constexpr int kCulprit = 37;
__global__ void wrong_form(cudaTextureObject_t flat, cudaTextureObject_t volume, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const cudaTextureObject_t t = i == kCulprit ? volume : flat;
  out[i] = tex2D<float>(t, 0.5f, 0.5f);
}

// ---- host side -------------------------------------------------------------------

static float g_texels[4096];

// An array of `format` (width x height x depth, layered per `flags`) filled
// with a byte pattern, and a texture object over it sampled as `t` says.
static cudaTextureObject_t make_texture(cudaChannelFormatDesc format, cudaExtent extent, unsigned flags,
                                        const cudaTextureDesc& t, cudaArray_t* array_out) {
  cudaArray_t array = nullptr;
  CHECK(cudaMalloc3DArray(&array, &format, extent, flags));
  const size_t texel = (format.x + format.y + format.z + format.w) / 8;
  const size_t height = extent.height == 0 ? 1 : extent.height, depth = extent.depth == 0 ? 1 : extent.depth;
  std::vector<unsigned char> bytes(extent.width * height * depth * texel);
  unsigned state = static_cast<unsigned>(extent.width * 131 + flags);
  for (unsigned char& b : bytes) {
    state = state * 1103515245u + 12345u;
    b = static_cast<unsigned char>(state >> 16);
  }
  if (format.f == cudaChannelFormatKindFloat) {
    // Finite floats of both signs around 1: the pattern's mantissas, the
    // exponents kept in a small range.
    const size_t channel = format.x / 8;
    for (size_t i = channel - 1; i < bytes.size(); i += channel)
      bytes[i] = static_cast<unsigned char>((bytes[i] & 0x80) |
                                            (channel == 4 ? 0x3c + bytes[i] % 4 : 0x38 + bytes[i] % 8));
  }
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(bytes.data(), extent.width * texel, extent.width, height);
  p.dstArray = array;
  p.extent = make_cudaExtent(extent.width, height, depth);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = array;
  cudaTextureObject_t object = 0;
  CHECK(cudaCreateTextureObject(&object, &r, &t, nullptr));
  *array_out = array;
  return object;
}

static cudaTextureDesc sampling(cudaTextureFilterMode filter, cudaTextureAddressMode address,
                                cudaTextureReadMode read, int normalized) {
  cudaTextureDesc t = {};
  t.filterMode = filter;
  t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = address;
  t.readMode = read;
  t.normalizedCoords = normalized;
  t.borderColor[0] = 0.25f;
  t.borderColor[3] = 0.75f;
  return t;
}

struct Buffers {
  float4* at = nullptr;
  uint4* unit = nullptr;
  uint4* soft = nullptr;
};

// Coordinates of `size` texels per axis for 32 threads: centres, edges,
// fractions and outside.
static void set_coordinates(const Buffers& b, float width, float height, float depth, int layers,
                            bool normalized) {
  float4 at[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    const float step = (i % 5) * 0.25f + (i / 5) * 0.7f - 0.9f;
    at[i].x = normalized ? step / width : step * width / 6.0f;
    at[i].y = normalized ? (step * 0.6f + 0.1f) / height : (step * 0.6f + 0.1f) * height / 6.0f;
    at[i].z = normalized ? (1.7f - step) / depth : (1.7f - step) * depth / 6.0f;
    at[i].w = static_cast<float>(i % (layers + 1)) - (i == 7 ? 1.0f : 0.0f);  // -1: the last layer
  }
  CHECK(cudaMemcpy(b.at, at, sizeof at, cudaMemcpyHostToDevice));
}

// Compares the unit's results with the software path's.
static void expect_same(const Buffers& b, const char* what) {
  uint4 unit[kThreads], soft[kThreads];
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(unit, b.unit, sizeof unit, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(soft, b.soft, sizeof soft, cudaMemcpyDeviceToHost));
  int differ = 0;
  for (int i = 0; i < kThreads; ++i) {
    if (memcmp(&unit[i], &soft[i], sizeof unit[i]) != 0) {
      if (differ++ < 3)
        printf("  %s thread %d: unit %08x %08x %08x %08x, software %08x %08x %08x %08x\n", what, i, unit[i].x,
               unit[i].y, unit[i].z, unit[i].w, soft[i].x, soft[i].y, soft[i].z, soft[i].w);
    }
  }
  printf("(a) %s: unit and software agree on %d of %d fetches (thread 3: %08x %08x %08x %08x)\n", what,
         kThreads - differ, kThreads, unit[3].x, unit[3].y, unit[3].z, unit[3].w);
  expect(differ == 0, what);
}

// tex1Dfetch of linear memory: floats against the host's values (0 outside
// the memory), uchar4 read as normalized floats against the software fetch;
// indices inside, at both ends, just outside and far outside.
static void fetch_by_index_cases(const Buffers& b) {
  constexpr int kElements = 1000;
  int indices[kThreads];
  for (int i = 0; i < kThreads; ++i) indices[i] = (i * 211) % kElements;
  const int edges[] = {0, 1, kElements - 1, kElements, kElements + 7, -1, -1000000, 2147483647};
  for (int i = 0; i < 8; ++i) indices[3 * i + 1] = edges[i];
  int* at = nullptr;
  CHECK(cudaMalloc(&at, sizeof indices));
  CHECK(cudaMemcpy(at, indices, sizeof indices, cudaMemcpyHostToDevice));
  float values[kElements];
  for (int i = 0; i < kElements; ++i) values[i] = 0.5f * i - 17.25f;
  void* memory = nullptr;
  CHECK(cudaMalloc(&memory, sizeof values));
  CHECK(cudaMemcpy(memory, values, sizeof values, cudaMemcpyHostToDevice));
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = memory;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = sizeof values;
  cudaTextureDesc t = sampling(cudaFilterModePoint, cudaAddressModeClamp, cudaReadModeElementType, 0);
  cudaTextureObject_t object = 0;
  CHECK(cudaCreateTextureObject(&object, &r, &t, nullptr));
  fetch_by_index<float><<<1, kThreads>>>(object, at, b.unit, b.soft);
  expect_same(b, "tex1Dfetch float");
  uint4 unit[kThreads];
  CHECK(cudaMemcpy(unit, b.unit, sizeof unit, cudaMemcpyDeviceToHost));
  int right = 0;
  for (int i = 0; i < kThreads; ++i) {
    const float want = indices[i] >= 0 && indices[i] < kElements ? values[indices[i]] : 0.0f;
    float got = 0;
    memcpy(&got, &unit[i].x, sizeof got);
    right += memcmp(&got, &want, sizeof got) == 0;
  }
  printf("(a) tex1Dfetch float: %d of %d threads read the host's value (0 outside)\n", right, kThreads);
  expect(right == kThreads, "tex1Dfetch float against the host");
  CHECK(cudaDestroyTextureObject(object));
  // The same bytes as 250 uchar4 read as normalized floats.
  r.res.linear.desc = cudaCreateChannelDesc<uchar4>();
  t = sampling(cudaFilterModeLinear, cudaAddressModeWrap, cudaReadModeNormalizedFloat, 1);
  CHECK(cudaCreateTextureObject(&object, &r, &t, nullptr));
  for (int& i : indices) i = i % 260 - 4;
  CHECK(cudaMemcpy(at, indices, sizeof indices, cudaMemcpyHostToDevice));
  fetch_by_index<float4><<<1, kThreads>>>(object, at, b.unit, b.soft);
  expect_same(b, "tex1Dfetch uchar4 normalized");
  CHECK(cudaDestroyTextureObject(object));
  CHECK(cudaFree(memory));
  CHECK(cudaFree(at));
}

static void unit_against_software() {
  Buffers b;
  CHECK(cudaMalloc(&b.at, kThreads * sizeof(float4)));
  CHECK(cudaMalloc(&b.unit, kThreads * sizeof(uint4)));
  CHECK(cudaMalloc(&b.soft, kThreads * sizeof(uint4)));
  cudaArray_t arrays[6] = {};

  cudaTextureObject_t t = make_texture(
      cudaCreateChannelDesc<float>(), make_cudaExtent(37, 0, 0), 0,
      sampling(cudaFilterModeLinear, cudaAddressModeClamp, cudaReadModeElementType, 0), &arrays[0]);
  set_coordinates(b, 37, 1, 1, 0, false);
  fetch_1d<float4><<<1, kThreads>>>(t, b.at, b.unit, b.soft);
  expect_same(b, "tex1D float, linear, clamp");
  CHECK(cudaDestroyTextureObject(t));

  const cudaTextureDesc image_sampling =
      sampling(cudaFilterModeLinear, cudaAddressModeWrap, cudaReadModeNormalizedFloat, 1);
  t = make_texture(cudaCreateChannelDesc<uchar4>(), make_cudaExtent(16, 8, 0), 0, image_sampling, &arrays[1]);
  set_coordinates(b, 16, 8, 1, 0, true);
  fetch_2d<float4><<<1, kThreads>>>(t, b.at, b.unit, b.soft);
  expect_same(b, "tex2D uchar4 normalized, linear, wrap");
  CHECK(cudaDestroyTextureObject(t));
  // The same array through a texture reference.
  image_ref.filterMode = cudaFilterModeLinear;
  image_ref.addressMode[0] = image_ref.addressMode[1] = cudaAddressModeWrap;
  image_ref.normalized = 1;
  const cudaChannelFormatDesc uchar4_format = cudaCreateChannelDesc<uchar4>();
  CHECK(cudaBindTextureToArray(image_ref, arrays[1], uchar4_format));
  fetch_2d_ref<<<1, kThreads>>>(b.at, b.unit, b.soft);
  expect_same(b, "tex2D over a texture reference");
  CHECK(cudaUnbindTexture(image_ref));

  t = make_texture(cudaCreateChannelDescHalf2(), make_cudaExtent(5, 4, 3), 0,
                   sampling(cudaFilterModeLinear, cudaAddressModeBorder, cudaReadModeElementType, 0),
                   &arrays[2]);
  set_coordinates(b, 5, 4, 3, 0, false);
  fetch_3d<float4><<<1, kThreads>>>(t, b.at, b.unit, b.soft);
  expect_same(b, "tex3D half2, linear, border");
  CHECK(cudaDestroyTextureObject(t));

  t = make_texture(cudaCreateChannelDesc<short>(), make_cudaExtent(9, 0, 3), cudaArrayLayered,
                   sampling(cudaFilterModePoint, cudaAddressModeClamp, cudaReadModeElementType, 0),
                   &arrays[3]);
  set_coordinates(b, 9, 1, 1, 3, false);
  fetch_1d_layered<int4><<<1, kThreads>>>(t, b.at, b.unit, b.soft);
  expect_same(b, "tex1DLayered short, point (integers)");
  CHECK(cudaDestroyTextureObject(t));

  t = make_texture(cudaCreateChannelDesc<char2>(), make_cudaExtent(7, 5, 2), cudaArrayLayered,
                   sampling(cudaFilterModeLinear, cudaAddressModeMirror, cudaReadModeNormalizedFloat, 1),
                   &arrays[4]);
  set_coordinates(b, 7, 5, 1, 2, true);
  fetch_2d_layered<float4><<<1, kThreads>>>(t, b.at, b.unit, b.soft);
  expect_same(b, "tex2DLayered char2 normalized, linear, mirror");
  CHECK(cudaDestroyTextureObject(t));

  for (cudaArray_t a : arrays)
    if (a != nullptr) CHECK(cudaFreeArray(a));
  fetch_by_index_cases(b);
  CHECK(cudaFree(b.at));
  CHECK(cudaFree(b.unit));
  CHECK(cudaFree(b.soft));
}

static void per_thread_objects() {
  cudaArray_t arrays[4];
  cudaTextureObject_t objects[4];
  const cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
  for (int k = 0; k < 4; ++k) {
    CHECK(cudaMallocArray(&arrays[k], &f32, 4, 4));
    for (int n = 0; n < 16; ++n) g_texels[n] = 100.0f * k + n;
    CHECK(cudaMemcpy2DToArray(arrays[k], 0, 0, g_texels, 16, 16, 4, cudaMemcpyHostToDevice));
    cudaResourceDesc r = {};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = arrays[k];
    const cudaTextureDesc t = sampling(cudaFilterModePoint, cudaAddressModeClamp, cudaReadModeElementType, 0);
    CHECK(cudaCreateTextureObject(&objects[k], &r, &t, nullptr));
  }
  cudaTextureObject_t* device_objects = nullptr;
  float* out = nullptr;
  CHECK(cudaMalloc(&device_objects, sizeof objects));
  CHECK(cudaMalloc(&out, kThreads * sizeof(float)));
  CHECK(cudaMemcpy(device_objects, objects, sizeof objects, cudaMemcpyHostToDevice));
  per_thread_objects<<<1, kThreads>>>(device_objects, out);
  float got[kThreads];
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  int right = 0;
  for (int i = 0; i < kThreads; ++i) {
    const float want = 100.0f * (i % 4) + 4 * ((i / 4) % 4) + i % 4;
    right += got[i] == want;
    if (got[i] != want) printf("  thread %d: %g, expected %g\n", i, got[i], want);
  }
  printf("(b) per-thread objects: %d of %d threads read their own object's texel\n", right, kThreads);
  expect(right == kThreads, "per-thread objects");
  for (int k = 0; k < 4; ++k) {
    CHECK(cudaDestroyTextureObject(objects[k]));
    CHECK(cudaFreeArray(arrays[k]));
  }
  CHECK(cudaFree(device_objects));
  CHECK(cudaFree(out));
}

// What the process writes to stderr while `run` runs (the runtime's fault
// message), passed on to stderr as well.
template <class Run>
static std::string stderr_of(Run run) {
  FILE* capture = tmpfile();
  if (capture == nullptr) {
    printf("error: tmpfile\n");
    exit(1);
  }
  fflush(stderr);
  const int saved = dup(2);
  dup2(fileno(capture), 2);
  run();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  rewind(capture);
  for (int c; (c = fgetc(capture)) != EOF;) text += static_cast<char>(c);
  fclose(capture);
  fputs(text.c_str(), stderr);
  return text;
}

static cudaTextureObject_t make_point_texture(cudaExtent extent, cudaArray_t* array) {
  return make_texture(cudaCreateChannelDesc<float>(), extent, 0,
                      sampling(cudaFilterModePoint, cudaAddressModeClamp, cudaReadModeElementType, 0), array);
}

static void wrong_form_faults() {
  cudaArray_t flat_array = nullptr, volume_array = nullptr;
  const cudaTextureObject_t flat = make_point_texture(make_cudaExtent(4, 4, 0), &flat_array);
  const cudaTextureObject_t volume = make_point_texture(make_cudaExtent(4, 4, 4), &volume_array);
  float* out = nullptr;
  CHECK(cudaMalloc(&out, 64 * sizeof(float)));
  cudaError_t synchronized = cudaSuccess;
  const std::string message = stderr_of([&] {
    wrong_form<<<2, 32>>>(flat, volume, out);
    synchronized = cudaDeviceSynchronize();
  });
  expect_error(synchronized, cudaErrorInvalidTexture, "(c) tex2D of a 3D object");
  // Sticky until the reset: every call returns it, getting it clears nothing.
  void* memory = nullptr;
  expect(cudaMalloc(&memory, 16) == cudaErrorInvalidTexture, "(c) the error is sticky (cudaMalloc)");
  expect(cudaGetLastError() == cudaErrorInvalidTexture, "(c) cudaGetLastError returns it");
  expect(cudaPeekAtLastError() == cudaErrorInvalidTexture, "(c) cudaGetLastError did not clear it");

  // The message: the kind, the object, the thread, the kernel and, from the
  // line table (-lineinfo), the PC's source: the kx.tex of the SDK's one
  // helper that issues it, with the 2D form (unit_fetch<KESTREL_TEX_FORM_2D>).
  char object[64], where[64];
  snprintf(object, sizeof object, "texture fault 0x%llx (kx.tex:", static_cast<unsigned long long>(volume));
  snprintf(where, sizeof where, "in block (1,0,0) thread (%d,0,0)", kCulprit - 32);
  const char* const parts[] = {object,
                               " at pc 0x",
                               where,
                               "in kernel 'wrong_form",
                               "kestrel_texture.h:",
                               "(unit_fetch<1U>, inlined into"};
  for (const char* part : parts) {
    const bool found = message.find(part) != std::string::npos;
    printf("(c) message %s \"%s\"\n", found ? "names" : "LACKS", part);
    expect(found, part);
  }

  // The reset forgets the fault; the device fetches again.
  CHECK(cudaDeviceReset());
  expect(cudaGetLastError() == cudaSuccess, "(c) the reset clears the error");
  const cudaTextureObject_t again = make_point_texture(make_cudaExtent(4, 4, 0), &flat_array);
  CHECK(cudaMalloc(&out, 64 * sizeof(float)));
  wrong_form<<<2, 32>>>(again, again, out);
  CHECK(cudaDeviceSynchronize());
  float got[64];
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  float texel0 = 0;
  CHECK(cudaMemcpyFromArray(&texel0, flat_array, 0, 0, sizeof texel0, cudaMemcpyDeviceToHost));
  int right = 0;
  for (float v : got) right += memcmp(&v, &texel0, sizeof v) == 0;
  printf("(c) after the reset: %d of 64 threads fetched texel (0, 0)\n", right);
  expect(right == 64, "(c) fetches after the reset");
  CHECK(cudaDestroyTextureObject(again));
  CHECK(cudaFreeArray(flat_array));
  CHECK(cudaFree(out));
}

int main() {
  unit_against_software();
  per_thread_objects();
  wrong_form_faults();
  if (g_failures != 0) {
    printf("texture_unit: %d FAILED\n", g_failures);
    return EXIT_FAILURE;
  }
  printf("texture_unit: PASSED\n");
  return EXIT_SUCCESS;
}
