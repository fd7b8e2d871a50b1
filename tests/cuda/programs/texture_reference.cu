// The texture reference API (CUDA C Programming Guide v8.0, 3.2.11.1.2 and
// B.8.2) against texture objects (3.2.11.1.1) over the same data: every
// fetch through a reference must give the object's bits.  Cases: the
// guide's 3.2.11.1.2 example (a 2D float CUDA array, normalized
// coordinates, wrap, linear filtering); tex1Dfetch on linear memory bound
// at a misaligned pointer (cudaBindTexture's offset); a 1D array with
// normalized coordinates and wrap, where a field changed after the bind
// takes effect at the next bind only; pitched memory (cudaBindTexture2D);
// layered arrays and a cubemap (tex1DLayered, tex2DLayered, texCubemap);
// sRGB through a reference.
// Lines beginning "h100: " repeat fetches of texture_smoke.cu through
// references; tests/cuda/CMakeLists.txt checks them against the H100's
// texture_smoke.expected.  Then the API's errors, and last a fetch from an
// unbound reference, which ends its launch with cudaErrorIllegalAddress
// (with two devices, KESTREL_DEVICE_COUNT=2, also from a reference bound on
// the other device).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "program_checks.h"

// The guide's example reference (3.2.11.1.2), with its read mode spelled as
// cudaReadModeElementType (the guide's listing has a typo there).
texture<float, cudaTextureType2D, cudaReadModeElementType> texRef;
texture<int, cudaTextureType1D> texLinear;                                 // tex1Dfetch on linear memory
texture<float, cudaTextureType1D> texWrap;                                 // normalized coordinates, wrap
texture<float, cudaTextureType2D> texPitch;                                // pitched memory
texture<uchar4, cudaTextureType2D, cudaReadModeNormalizedFloat> texImage;  // texture_smoke's resize
texture<float, cudaTextureType3D> texVolume;                               // texture_smoke's volume ray
texture<short2, cudaTextureType1DLayered, cudaReadModeNormalizedFloat> texLayers1D;  // layered arrays
texture<float, cudaTextureType2DLayered> texLayers2D;
texture<float, cudaTextureTypeCubemap> texCube;                                     // a cubemap
texture<float, cudaTextureType1D, cudaReadModeNormalizedFloat> texFloatNormalized;  // refused at bind
texture<int, cudaTextureType1D> texNeverBound;

// The guide's transformKernel, over the reference and over an object.
__global__ void transformKernel(float* output, int width, int height, float theta) {
  unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= (unsigned)width || y >= (unsigned)height) return;
  float u = x / (float)width;
  float v = y / (float)height;
  u -= 0.5f;
  v -= 0.5f;
  float tu = u * cosf(theta) - v * sinf(theta) + 0.5f;
  float tv = v * cosf(theta) + u * sinf(theta) + 0.5f;
  output[y * width + x] = tex2D(texRef, tu, tv);
}
__global__ void transformKernelObject(cudaTextureObject_t tex, float* output, int width, int height,
                                      float theta) {
  unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= (unsigned)width || y >= (unsigned)height) return;
  float u = x / (float)width;
  float v = y / (float)height;
  u -= 0.5f;
  v -= 0.5f;
  float tu = u * cosf(theta) - v * sinf(theta) + 0.5f;
  float tv = v * cosf(theta) + u * sinf(theta) + 0.5f;
  output[y * width + x] = tex2D<float>(tex, tu, tv);
}

// Texel `first + i` for i in [0, n); the reference's out[i], the object's out[n + i].
__global__ void fetch_linear(cudaTextureObject_t tex, int* out, int first, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = tex1Dfetch(texLinear, first + i);
  out[n + i] = tex1Dfetch<int>(tex, first + i);
}

__global__ void sample_wrap(cudaTextureObject_t tex, const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = tex1D(texWrap, x[i]);
  out[n + i] = tex1D<float>(tex, x[i]);
}

__global__ void sample_pitch(cudaTextureObject_t tex, float* out, int w, int h) {
  const int x = threadIdx.x, y = threadIdx.y;
  if (x >= w || y >= h) return;
  // From a texel before the first to one past the last, off-centre.
  const float u = x - 1.25f, v = y - 1.75f;
  out[y * w + x] = tex2D(texPitch, u, v);
  out[w * h + y * w + x] = tex2D<float>(tex, u, v);
}

// texture_smoke.cu's kernels over references.
__global__ void resize(float4* out, int ow, int oh) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < ow && y < oh) out[y * ow + x] = tex2D(texImage, (x + 0.5f) / ow, (y + 0.5f) / oh);
}
__global__ void volume_ray(float* out, int n, float3 origin, float3 step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D(texVolume, origin.x + i * step.x, origin.y + i * step.y, origin.z + i * step.z);
}

// Sample i: the references' at out[3 i + k], the objects' at out[3 (n + i) + k].
__global__ void sample_layers_and_cube(cudaTextureObject_t layers1d, cudaTextureObject_t layers2d,
                                       cudaTextureObject_t cube, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = -0.6f + 0.37f * i, y = 1.9f - 0.23f * i;
  const int layer = i % 4;  // 3 is past the last layer: clamped
  // Directions toward every face: x major for |dx| = 2, y major where |dy| = 3, z otherwise.
  const float dx = (i % 5) - 2.0f, dz = (i % 2) ? 1.0f : -0.75f;
  const float dy = i % 7 == 3 ? 3.0f : i % 7 == 5 ? -3.0f : 0.5f * (i % 3) - 0.5f;
  const float2 a = tex1DLayered(texLayers1D, x, layer);
  out[3 * i] = a.x - a.y;
  out[3 * i + 1] = tex2DLayered(texLayers2D, x, y, layer);
  out[3 * i + 2] = texCubemap(texCube, dx, dy, dz);
  const float2 b = tex1DLayered<float2>(layers1d, x, layer);
  out[3 * (n + i)] = b.x - b.y;
  out[3 * (n + i) + 1] = tex2DLayered<float>(layers2d, x, y, layer);
  out[3 * (n + i) + 2] = texCubemap<float>(cube, dx, dy, dz);
}

// Bilinear samples of texImage and of an object at the same points: the
// reference's at out[i], the object's at out[n + i].
__global__ void sample_image(cudaTextureObject_t tex, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float u = 0.03f + 0.031f * i, v = 0.97f - 0.029f * i;
  out[i] = tex2D(texImage, u, v);
  out[n + i] = tex2D<float4>(tex, u, v);
}

__global__ void fetch_unbound(int* out) { *out = tex1Dfetch(texNeverBound, 0); }
__global__ void fetch_first_texel(int* out) { *out = tex1Dfetch(texLinear, 0); }

static cudaTextureObject_t make_object(const cudaResourceDesc& rd, cudaTextureAddressMode address,
                                       cudaTextureFilterMode filter, cudaTextureReadMode read,
                                       int normalized) {
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = address;
  td.filterMode = filter;
  td.readMode = read;
  td.normalizedCoords = normalized;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static cudaResourceDesc array_resource(cudaArray_t array) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = array;
  return rd;
}

// How many of the n words at a equal those at b, bit for bit.
static int same_bits(const void* a, const void* b, int n) {
  int same = 0;
  for (int i = 0; i < n; ++i) same += memcmp((const char*)a + 4 * i, (const char*)b + 4 * i, 4) == 0;
  return same;
}

static void print_h100_line(const char* name, const float* v, size_t n) {
  printf("h100: %s:", name);
  for (size_t i = 0; i < n; ++i) {
    unsigned u;
    memcpy(&u, &v[i], 4);
    printf(" %08x", u);
  }
  printf("\n");
}

// The guide's example, 24 x 16 texels rotated by 0.5 radians.
static void guide_transform() {
  const int width = 24, height = 16, n = width * height;
  const float angle = 0.5f;
  std::vector<float> h_data(n);
  for (int i = 0; i < n; ++i) h_data[i] = std::sin(0.37f * i) * 10.0f + (i % 7);
  cudaChannelFormatDesc channelDesc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray* cuArray;
  CHECK(cudaMallocArray(&cuArray, &channelDesc, width, height));
  CHECK(cudaMemcpyToArray(cuArray, 0, 0, h_data.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  texRef.addressMode[0] = cudaAddressModeWrap;
  texRef.addressMode[1] = cudaAddressModeWrap;
  texRef.filterMode = cudaFilterModeLinear;
  texRef.normalized = true;
  CHECK(cudaBindTextureToArray(texRef, cuArray, channelDesc));
  const cudaTextureObject_t object = make_object(array_resource(cuArray), cudaAddressModeWrap,
                                                 cudaFilterModeLinear, cudaReadModeElementType, 1);
  float* output;
  CHECK(cudaMalloc(&output, 2 * n * sizeof(float)));
  dim3 dimBlock(16, 16);
  dim3 dimGrid((width + dimBlock.x - 1) / dimBlock.x, (height + dimBlock.y - 1) / dimBlock.y);
  transformKernel<<<dimGrid, dimBlock>>>(output, width, height, angle);
  transformKernelObject<<<dimGrid, dimBlock>>>(object, output + n, width, height, angle);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> out(2 * n);
  CHECK(cudaMemcpy(out.data(), output, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const int same = same_bits(out.data(), out.data() + n, n);
  // Filtering blends: some outputs are no texel's value.
  int blended = 0;
  for (int i = 0; i < n; ++i) {
    bool texel = false;
    for (int j = 0; j < n && !texel; ++j) texel = out[i] == h_data[j];
    blended += !texel;
  }
  printf("guide 3.2.11.1.2 transform %dx%d: %d of %d identical to the object's, %d filtered\n", width, height,
         same, n, blended);
  expect(same == n, "transform: reference and object differ");
  expect(blended > 0, "transform: no output was filtered");
  CHECK(cudaUnbindTexture(texRef));
  CHECK(cudaDestroyTextureObject(object));
  CHECK(cudaFree(output));
  CHECK(cudaFreeArray(cuArray));
}

// tex1Dfetch over cudaBindTexture at 3 ints past an allocation's start: the
// texture starts at the allocation, offset says where devPtr lies.
static void linear_fetch() {
  const int count = 40, skip = 3, first = -2, n = 48;
  std::vector<int> host(count);
  for (int i = 0; i < count; ++i) host[i] = i * 1000 + 7 - (i % 3) * 50000;
  int* data;
  CHECK(cudaMalloc(&data, count * sizeof(int)));
  CHECK(cudaMemcpy(data, host.data(), count * sizeof(int), cudaMemcpyHostToDevice));
  const size_t bytes = (count - skip) * sizeof(int);
  size_t offset = 99;
  CHECK(cudaBindTexture(&offset, texLinear, data + skip, bytes));
  size_t reported = 99;
  CHECK(cudaGetTextureAlignmentOffset(&reported, texLinear));
  expect(offset == skip * sizeof(int) && reported == offset, "cudaBindTexture's offset");
  // The object over the same bytes: from the aligned start.
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeLinear;
  rd.res.linear.devPtr = data;
  rd.res.linear.desc = cudaCreateChannelDesc<int>();
  rd.res.linear.sizeInBytes = bytes + offset;
  const cudaTextureObject_t object =
      make_object(rd, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, 0);
  int* out;
  CHECK(cudaMalloc(&out, 2 * n * sizeof(int)));
  // Indices are texels from the aligned start (the guide's offset / texel size).
  const int shift = static_cast<int>(offset / sizeof(int));
  fetch_linear<<<1, 64>>>(object, out, first + shift, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got(2 * n);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  int right = 0;
  for (int i = 0; i < n; ++i) {
    const int index = first + shift + i;  // from the allocation's start
    right += got[i] == (index >= 0 && index < count ? host[index] : 0);
  }
  const int same = same_bits(got.data(), got.data() + n, n);
  printf(
      "tex1Dfetch linear, offset %zu: %d of %d identical to the object's, %d of %d as written (0 outside)\n",
      offset, same, n, right, n);
  expect(same == n && right == n, "tex1Dfetch over linear memory");
  CHECK(cudaUnbindTexture(texLinear));
  CHECK(cudaDestroyTextureObject(object));
  CHECK(cudaFree(out));
  CHECK(cudaFree(data));
}

// A 1D array of 10 texels, normalized coordinates from -1.3 to 1.85 with
// wrap.  The bind takes the fields as they are then: the linear bind keeps
// filtering after filterMode changes to point, until the next bind.
static void normalized_wrap() {
  const int width = 10, n = 64;
  std::vector<float> texels(width), x(n);
  for (int i = 0; i < width; ++i) texels[i] = (i * 7 % 10) - 2.5f * (i & 1);
  for (int i = 0; i < n; ++i) x[i] = -1.3f + 0.05f * i;
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  CHECK(cudaMallocArray(&array, &desc, width));
  CHECK(cudaMemcpyToArray(array, 0, 0, texels.data(), width * sizeof(float), cudaMemcpyHostToDevice));
  float *dx, *out;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&out, 2 * n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const cudaTextureObject_t linear = make_object(array_resource(array), cudaAddressModeWrap,
                                                 cudaFilterModeLinear, cudaReadModeElementType, 1);
  const cudaTextureObject_t point = make_object(array_resource(array), cudaAddressModeWrap,
                                                cudaFilterModePoint, cudaReadModeElementType, 1);
  std::vector<float> got(2 * n), point_results(2 * n);
  texWrap.normalized = 1;
  texWrap.addressMode[0] = cudaAddressModeWrap;
  texWrap.filterMode = cudaFilterModeLinear;
  CHECK(cudaBindTextureToArray(texWrap, array));
  texWrap.filterMode = cudaFilterModePoint;  // not bound yet
  sample_wrap<<<1, 64>>>(linear, dx, out, n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const int same_linear = same_bits(got.data(), got.data() + n, n);
  CHECK(cudaBindTextureToArray(texWrap, array));  // now point sampling
  sample_wrap<<<1, 64>>>(point, dx, out, n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(point_results.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const int same_point = same_bits(point_results.data(), point_results.data() + n, n);
  // Wrap: x and x + 1 read the same texels.
  int periodic = 0;
  for (int i = 0; i + 20 < n; ++i) periodic += got[i] == got[i + 20];
  const int differ = n - same_bits(got.data(), point_results.data(), n);
  printf(
      "tex1D normalized wrap: %d of %d linear and %d of %d point identical to the objects', %d differ "
      "between them, %d of %d periodic\n",
      same_linear, n, same_point, n, differ, n - 20, periodic);
  expect(same_linear == n && same_point == n, "normalized wrap: reference and object differ");
  expect(differ > 0, "normalized wrap: the field change showed no effect at the next bind");
  expect(periodic > (n - 20) / 2, "normalized wrap: not periodic");
  CHECK(cudaUnbindTexture(texWrap));
  CHECK(cudaDestroyTextureObject(linear));
  CHECK(cudaDestroyTextureObject(point));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(out));
  CHECK(cudaFreeArray(array));
}

// cudaBindTexture2D over cudaMallocPitch memory, point sampling, clamp.
static void pitched() {
  const int w = 9, h = 7, n = w * h;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = 0.25f * i - 3.0f;
  float* data;
  size_t pitch = 0;
  CHECK(cudaMallocPitch(&data, &pitch, w * sizeof(float), h));
  CHECK(cudaMemcpy2D(data, pitch, host.data(), w * sizeof(float), w * sizeof(float), h,
                     cudaMemcpyHostToDevice));
  size_t offset = 99;
  CHECK(cudaBindTexture2D(&offset, texPitch, data, w, h, pitch));
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypePitch2D;
  rd.res.pitch2D.devPtr = data;
  rd.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  rd.res.pitch2D.width = w;
  rd.res.pitch2D.height = h;
  rd.res.pitch2D.pitchInBytes = pitch;
  const cudaTextureObject_t object =
      make_object(rd, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, 0);
  float* out;
  CHECK(cudaMalloc(&out, 2 * n * sizeof(float)));
  sample_pitch<<<1, dim3(16, 8)>>>(object, out, w, h);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> got(2 * n);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int right = 0;  // point sampling with clamp reads texel (clamp(floor(u)), clamp(floor(v)))
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int tx = std::min(std::max((int)std::floor(x - 1.25f), 0), w - 1);
      const int ty = std::min(std::max((int)std::floor(y - 1.75f), 0), h - 1);
      right += got[y * w + x] == host[ty * w + tx];
    }
  const int same = same_bits(got.data(), got.data() + n, n);
  printf(
      "tex2D pitched (pitch %zu, offset %zu): %d of %d identical to the object's, %d of %d the clamped "
      "texel\n",
      pitch, offset, same, n, right, n);
  expect(offset == 0 && same == n && right == n, "tex2D over pitched memory");
  CHECK(cudaUnbindTexture(texPitch));
  CHECK(cudaDestroyTextureObject(object));
  CHECK(cudaFree(out));
  CHECK(cudaFree(data));
}

// Copies `bytes_per_texel` x w x h x depth host bytes into a 3D-shaped array.
static void fill_array(cudaArray_t array, const void* data, size_t texel, int w, int h, int depth) {
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(data), w * texel, w, h);
  p.dstArray = array;
  p.extent = make_cudaExtent(w, h, depth);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
}

// tex1DLayered (normalized 16-bit reads, linear, clamp), tex2DLayered
// (linear, wrap with normalized coordinates) and texCubemap (point).
static void layers_and_cube() {
  const int w = 6, h = 5, layers = 3, edge = 4, n = 40;
  std::vector<short2> row_texels(w * layers);
  for (int i = 0; i < w * layers; ++i)
    row_texels[i] = make_short2((short)(i * 2311 - 20000), (short)(i * -977));
  std::vector<float> plane_texels(w * h * layers), cube_texels(edge * edge * 6);
  for (size_t i = 0; i < plane_texels.size(); ++i) plane_texels[i] = (float)((i * 13) % 17) - 0.125f * i;
  for (size_t i = 0; i < cube_texels.size(); ++i) cube_texels[i] = 100.0f * (i / 16) + (float)(i % 16);
  const cudaChannelFormatDesc short2_desc = cudaCreateChannelDesc<short2>();
  const cudaChannelFormatDesc float_desc = cudaCreateChannelDesc<float>();
  cudaArray_t rows, planes, cube;
  CHECK(cudaMalloc3DArray(&rows, &short2_desc, make_cudaExtent(w, 0, layers), cudaArrayLayered));
  CHECK(cudaMalloc3DArray(&planes, &float_desc, make_cudaExtent(w, h, layers), cudaArrayLayered));
  CHECK(cudaMalloc3DArray(&cube, &float_desc, make_cudaExtent(edge, edge, 6), cudaArrayCubemap));
  fill_array(rows, row_texels.data(), sizeof(short2), w, 1, layers);
  fill_array(planes, plane_texels.data(), sizeof(float), w, h, layers);
  fill_array(cube, cube_texels.data(), sizeof(float), edge, edge, 6);
  texLayers1D.filterMode = cudaFilterModeLinear;
  CHECK(cudaBindTextureToArray(texLayers1D, rows));
  texLayers2D.filterMode = cudaFilterModeLinear;
  texLayers2D.normalized = 1;
  texLayers2D.addressMode[0] = texLayers2D.addressMode[1] = cudaAddressModeWrap;
  CHECK(cudaBindTextureToArray(texLayers2D, planes));
  CHECK(cudaBindTextureToArray(texCube, cube));
  const cudaTextureObject_t o1 = make_object(array_resource(rows), cudaAddressModeClamp, cudaFilterModeLinear,
                                             cudaReadModeNormalizedFloat, 0);
  const cudaTextureObject_t o2 = make_object(array_resource(planes), cudaAddressModeWrap,
                                             cudaFilterModeLinear, cudaReadModeElementType, 1);
  const cudaTextureObject_t o3 = make_object(array_resource(cube), cudaAddressModeClamp, cudaFilterModePoint,
                                             cudaReadModeElementType, 0);
  float* out;
  CHECK(cudaMalloc(&out, 6 * n * sizeof(float)));
  sample_layers_and_cube<<<1, 64>>>(o1, o2, o3, out, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> got(6 * n);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const int same = same_bits(got.data(), got.data() + 3 * n, 3 * n);
  std::vector<float> faces;  // the cube's samples are texels of several faces
  for (int i = 0; i < n; ++i) faces.push_back(std::floor(got[3 * i + 2] / 100.0f));
  std::sort(faces.begin(), faces.end());
  const int distinct_faces = static_cast<int>(std::unique(faces.begin(), faces.end()) - faces.begin());
  printf("tex1DLayered, tex2DLayered, texCubemap: %d of %d identical to the objects', %d cube faces read\n",
         same, 3 * n, distinct_faces);
  expect(same == 3 * n, "layered and cubemap: reference and object differ");
  expect(distinct_faces == 6, "texCubemap: not every face was read");
  CHECK(cudaUnbindTexture(texLayers1D));
  CHECK(cudaUnbindTexture(texLayers2D));
  CHECK(cudaUnbindTexture(texCube));
  CHECK(cudaDestroyTextureObject(o1));
  CHECK(cudaDestroyTextureObject(o2));
  CHECK(cudaDestroyTextureObject(o3));
  CHECK(cudaFree(out));
  CHECK(cudaFreeArray(rows));
  CHECK(cudaFreeArray(planes));
  CHECK(cudaFreeArray(cube));
}

// texture_smoke.cu's resize and volume ray, through references.
// sRGB through a reference (the field is read at the bind, as through an
// object's cudaTextureDesc::sRGB; guide 3.2.11.1): a uchar4 image filtered
// with sRGB on must give the object's bits, and not those of sRGB off.
static void srgb() {
  const int w = 7, h = 5, n = 32;
  std::vector<uchar4> image(w * h);
  for (int i = 0; i < w * h; ++i)
    image[i] = make_uchar4((i * 37) & 255, (i * 91 + 3) & 255, (255 - i * 13) & 255, (i * 7) & 255);
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
  cudaArray_t array;
  CHECK(cudaMallocArray(&array, &desc, w, h));
  CHECK(cudaMemcpy2DToArray(array, 0, 0, image.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeNormalizedFloat;
  td.normalizedCoords = 1;
  td.sRGB = 1;
  const cudaResourceDesc rd = array_resource(array);
  cudaTextureObject_t object = 0;
  CHECK(cudaCreateTextureObject(&object, &rd, &td, nullptr));
  float4* dout = nullptr;
  CHECK(cudaMalloc(&dout, 2 * n * sizeof(float4)));
  std::vector<float4> with(2 * n), without(2 * n);
  texImage.addressMode[0] = texImage.addressMode[1] = cudaAddressModeClamp;
  texImage.filterMode = cudaFilterModeLinear;
  texImage.normalized = true;
  texImage.sRGB = 1;
  CHECK(cudaBindTextureToArray(texImage, array));
  sample_image<<<1, 32>>>(object, dout, n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(with.data(), dout, with.size() * sizeof(float4), cudaMemcpyDeviceToHost));
  texImage.sRGB = 0;
  CHECK(cudaBindTextureToArray(texImage, array));
  sample_image<<<1, 32>>>(object, dout, n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(without.data(), dout, without.size() * sizeof(float4), cudaMemcpyDeviceToHost));
  const int same = same_bits(with.data(), with.data() + n, 4 * n);
  const int differ = 4 * n - same_bits(without.data(), with.data() + n, 4 * n);
  printf("tex2D sRGB: %d of %d components identical to the object's, %d differ with sRGB off\n", same, 4 * n,
         differ);
  expect(same == 4 * n, "sRGB: reference and object differ");
  expect(differ > 0, "sRGB: the bind ignored the reference's sRGB field");
  CHECK(cudaUnbindTexture(texImage));
  CHECK(cudaDestroyTextureObject(object));
  CHECK(cudaFree(dout));
  CHECK(cudaFreeArray(array));
}

static void h100_cases() {
  {
    const int w = 7, h = 5, ow = 3, oh = 2;
    std::vector<uchar4> image(w * h);
    for (int i = 0; i < w * h; ++i)
      image[i] = make_uchar4((i * 37) & 255, (i * 91 + 3) & 255, (255 - i * 13) & 255, (i * 7) & 255);
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, w, h));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, image.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
    texImage.addressMode[0] = texImage.addressMode[1] = cudaAddressModeClamp;
    texImage.filterMode = cudaFilterModeLinear;
    texImage.normalized = true;
    CHECK(cudaBindTextureToArray(texImage, array));
    float4* dout = nullptr;
    CHECK(cudaMalloc(&dout, ow * oh * sizeof(float4)));
    resize<<<dim3(1, 1), dim3(16, 16)>>>(dout, ow, oh);
    CHECK(cudaDeviceSynchronize());
    std::vector<float4> out(ow * oh);
    CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float4), cudaMemcpyDeviceToHost));
    print_h100_line("resize 7x5 -> 3x2 clamp", reinterpret_cast<const float*>(out.data()), out.size() * 4);
    CHECK(cudaUnbindTexture(texImage));
    CHECK(cudaFree(dout));
    CHECK(cudaFreeArray(array));
  }
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
    texVolume.addressMode[0] = texVolume.addressMode[1] = texVolume.addressMode[2] = cudaAddressModeClamp;
    texVolume.filterMode = cudaFilterModeLinear;
    CHECK(cudaBindTextureToArray(texVolume, array));
    float* dout = nullptr;
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    volume_ray<<<1, 32>>>(dout, n, make_float3(-0.7f, 0.2f, 0.1f), make_float3(0.17f, 0.11f, 0.09f));
    CHECK(cudaDeviceSynchronize());
    std::vector<float> out(n);
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    print_h100_line("volume ray 1 clamp", out.data(), n);
    CHECK(cudaUnbindTexture(texVolume));
    CHECK(cudaFree(dout));
    CHECK(cudaFreeArray(array));
  }
}

static void errors() {
  int* data;
  CHECK(cudaMalloc(&data, 1024));
  size_t offset = 0;
  const cudaChannelFormatDesc int_desc = cudaCreateChannelDesc<int>();
  // Formats Kestrel has no texels for (guide 3.2.11.1.1: 1, 2 or 4 channels
  // of 8, 16 or 32 bits), and one that is not the declared type's.
  const cudaChannelFormatDesc three = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindSigned);
  const cudaChannelFormatDesc wide = cudaCreateChannelDesc(64, 0, 0, 0, cudaChannelFormatKindFloat);
  const cudaChannelFormatDesc floats = cudaCreateChannelDesc<float>();
  expect_error(cudaBindTexture(&offset, texLinear, data, three, 1024), cudaErrorInvalidChannelDescriptor,
               "3-channel format");
  expect_error(cudaBindTexture(&offset, texLinear, data, wide, 1024), cudaErrorInvalidChannelDescriptor,
               "64-bit format");
  expect_error(cudaBindTexture(&offset, texLinear, data, floats, 1024), cudaErrorInvalidChannelDescriptor,
               "format not the declared type's");
  // Linear filtering of integers read as integers; a normalized read of floats.
  texLinear.filterMode = cudaFilterModeLinear;
  expect_error(cudaBindTexture(&offset, texLinear, data, int_desc, 1024), cudaErrorInvalidFilterSetting,
               "linear filtering of int");
  texLinear.filterMode = cudaFilterModePoint;
  expect_error(cudaBindTexture(&offset, texFloatNormalized, data, 1024), cudaErrorInvalidNormSetting,
               "normalized read of float");
  // Linear memory cannot back a 2D reference.
  expect_error(cudaBindTexture(&offset, texPitch, data, 1024), cudaErrorInvalidTexture,
               "linear memory for a 2D reference");
  // A misaligned pointer needs the offset out-parameter.
  expect_error(cudaBindTexture(nullptr, &texLinear, data + 1, &int_desc, 64), cudaErrorInvalidValue,
               "misaligned without offset");
  expect_error(cudaBindTexture(&offset, texLinear, data, 4096), cudaErrorInvalidValue,
               "size past the allocation");
  // Something that is not a texture reference.
  static textureReference plain;
  expect_error(cudaBindTexture(&offset, &plain, data, &int_desc, 64), cudaErrorInvalidTexture,
               "not a texture reference");
  const textureReference* found = nullptr;
  expect_error(cudaGetTextureReference(&found, &plain), cudaErrorInvalidTexture,
               "cudaGetTextureReference of a plain variable");
  // The guide's low-level path: cudaGetTextureReference, then the C API.
  textureReference* texRefPtr = nullptr;
  CHECK(cudaGetTextureReference(&texRefPtr, &texLinear));
  expect(texRefPtr == &texLinear, "cudaGetTextureReference returns the reference");
  CHECK(cudaBindTexture(&offset, texRefPtr, data, &int_desc, 1024));
  // Unbinding twice: the second does nothing (CUDA's documented behaviour).
  expect_error(cudaUnbindTexture(texRefPtr), cudaSuccess, "unbind");
  expect_error(cudaUnbindTexture(texRefPtr), cudaSuccess, "unbind again");
  expect_error(cudaGetTextureAlignmentOffset(&offset, texLinear), cudaErrorInvalidTextureBinding,
               "alignment offset of an unbound reference");
  expect_error(cudaUnbindTexture(&plain), cudaErrorInvalidTexture, "unbind a plain variable");
  CHECK(cudaFree(data));
}

int main() {
  guide_transform();
  linear_fetch();
  normalized_wrap();
  pitched();
  layers_and_cube();
  h100_cases();
  srgb();
  errors();
  // Last: the faults are sticky (guide 3.2.9), so nothing runs after them on
  // their device.
  int device_count = 0;
  CHECK(cudaGetDeviceCount(&device_count));
  if (device_count >= 2) {
    // A reference is bound on one device at a time: bound on device 1, its
    // copy on device 0 reads as unbound.
    const int value = 4242;
    int *on0, *on1, *out0, *out1;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&on0, 256));
    CHECK(cudaMalloc(&out0, sizeof(int)));
    CHECK(cudaMemcpy(on0, &value, sizeof value, cudaMemcpyHostToDevice));
    CHECK(cudaBindTexture(nullptr, texLinear, on0, 256));
    fetch_first_texel<<<1, 1>>>(out0);
    CHECK(cudaDeviceSynchronize());
    int got0 = 0;
    CHECK(cudaMemcpy(&got0, out0, sizeof got0, cudaMemcpyDeviceToHost));
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&on1, 256));
    CHECK(cudaMalloc(&out1, sizeof(int)));
    CHECK(cudaMemcpy(on1, &value, sizeof value, cudaMemcpyHostToDevice));
    CHECK(cudaBindTexture(nullptr, texLinear, on1, 256));
    fetch_first_texel<<<1, 1>>>(out1);
    CHECK(cudaDeviceSynchronize());
    int got1 = 0;
    CHECK(cudaMemcpy(&got1, out1, sizeof got1, cudaMemcpyDeviceToHost));
    CHECK(cudaSetDevice(0));
    fetch_first_texel<<<1, 1>>>(out0);
    const cudaError_t moved = cudaDeviceSynchronize();
    printf("two devices: texel 0 bound on device 0 %d, rebound on device 1 %d, then on device 0: %s\n", got0,
           got1, cudaGetErrorName(moved));
    expect(got0 == value && got1 == value && moved == cudaErrorIllegalAddress,
           "a reference bound on another device reads as unbound");
    CHECK(cudaSetDevice(1));
  }
  int* out;
  CHECK(cudaMalloc(&out, sizeof(int)));
  fetch_unbound<<<1, 1>>>(out);
  const cudaError_t unbound = cudaDeviceSynchronize();
  printf("fetch from an unbound reference: %s\n", cudaGetErrorName(unbound));
  expect(unbound == cudaErrorIllegalAddress, "a fetch from an unbound reference faults");
  printf("texture_reference: %s (%d failed)\n", g_failures == 0 ? "PASSED" : "FAILED", g_failures);
  return g_failures == 0 ? 0 : 1;
}
