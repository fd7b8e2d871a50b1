/* <cuda_runtime.h> for Kestrel: one header for every compilation of a CUDA
 * program.  In a .cu file (either pass of kestrel-cc) it brings the device
 * SDK, kestrel_cuda.h; in every file it declares the runtime API
 * (cuda_runtime_api.h) and, for C++, CUDA's template conveniences, which take
 * symbols and kernels as themselves rather than as void pointers. */
#ifndef KESTREL_CUDA_RUNTIME_H
#define KESTREL_CUDA_RUNTIME_H
/* CUDA's own include guard: NVIDIA's helper_cuda.h offers findCudaDevice,
 * gpuDeviceInit and the like only where it is defined. */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
#endif

#if defined(__CUDA__)
#include "kestrel_cuda.h"
#endif
#include "channel_descriptor.h"
#include "cuda_runtime_api.h"
#include "cuda_surface_types.h"
#include "cuda_texture_types.h"

#ifdef __cplusplus
// nvcc's cuda_runtime.h brings <initializer_list> with it, and CUDA programs
// rely on it (range-for over a braced list) without including it themselves.
#include <initializer_list>

template <class T>
static inline cudaError_t cudaMalloc(T** devPtr, size_t size) {
  return ::cudaMalloc((void**)(void*)devPtr, size);
}
template <class T>
static inline cudaError_t cudaMallocHost(T** ptr, size_t size) {
  return ::cudaMallocHost((void**)(void*)ptr, size);
}
template <class T>
static inline cudaError_t cudaHostAlloc(T** ptr, size_t size, unsigned int flags) {
  return ::cudaHostAlloc((void**)(void*)ptr, size, flags);
}
template <class T>
static inline cudaError_t cudaHostGetDevicePointer(T** pDevice, void* pHost, unsigned int flags) {
  return ::cudaHostGetDevicePointer((void**)(void*)pDevice, pHost, flags);
}
template <class T>
static inline cudaError_t cudaMallocAsync(T** devPtr, size_t size, cudaStream_t stream) {
  return ::cudaMallocAsync((void**)(void*)devPtr, size, stream);
}
template <class T>
static inline cudaError_t cudaMallocManaged(T** devPtr, size_t size,
                                            unsigned int flags = cudaMemAttachGlobal) {
  return ::cudaMallocManaged((void**)(void*)devPtr, size, flags);
}
template <class T>
static inline cudaError_t cudaMallocPitch(T** devPtr, size_t* pitch, size_t width, size_t height) {
  return ::cudaMallocPitch((void**)(void*)devPtr, pitch, width, height);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count,
                                             size_t offset = 0,
                                             enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return ::cudaMemcpyToSymbol((const void*)&symbol, src, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                               enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return ::cudaMemcpyFromSymbol(dst, (const void*)&symbol, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count,
                                                  size_t offset = 0,
                                                  enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                  cudaStream_t stream = 0) {
  return ::cudaMemcpyToSymbolAsync((const void*)&symbol, src, count, offset, kind, stream);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count,
                                                    size_t offset = 0,
                                                    enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                                    cudaStream_t stream = 0) {
  return ::cudaMemcpyFromSymbolAsync(dst, (const void*)&symbol, count, offset, kind, stream);
}
template <class T>
static inline cudaError_t cudaGetSymbolAddress(void** devPtr, const T& symbol) {
  return ::cudaGetSymbolAddress(devPtr, (const void*)&symbol);
}
template <class T>
static inline cudaError_t cudaGetSymbolSize(size_t* size, const T& symbol) {
  return ::cudaGetSymbolSize(size, (const void*)&symbol);
}
// The texture reference API's C++ forms (guide 3.2.11.1.2): the reference
// itself instead of its address, and its declared texel type's channel
// descriptor where none is given.
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTexture(size_t* offset, const struct texture<T, dim, readMode>& tex,
                                          const void* devPtr, const struct cudaChannelFormatDesc& desc,
                                          size_t size = 0xFFFFFFFFu) {
  return ::cudaBindTexture(offset, &tex, devPtr, &desc, size);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTexture(size_t* offset, const struct texture<T, dim, readMode>& tex,
                                          const void* devPtr, size_t size = 0xFFFFFFFFu) {
  return ::cudaBindTexture(offset, &tex, devPtr, &tex.channelDesc, size);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTexture2D(size_t* offset, const struct texture<T, dim, readMode>& tex,
                                            const void* devPtr, const struct cudaChannelFormatDesc& desc,
                                            size_t width, size_t height, size_t pitch) {
  return ::cudaBindTexture2D(offset, &tex, devPtr, &desc, width, height, pitch);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTexture2D(size_t* offset, const struct texture<T, dim, readMode>& tex,
                                            const void* devPtr, size_t width, size_t height, size_t pitch) {
  return ::cudaBindTexture2D(offset, &tex, devPtr, &tex.channelDesc, width, height, pitch);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTextureToArray(const struct texture<T, dim, readMode>& tex,
                                                 cudaArray_const_t array,
                                                 const struct cudaChannelFormatDesc& desc) {
  return ::cudaBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTextureToArray(const struct texture<T, dim, readMode>& tex,
                                                 cudaArray_const_t array) {
  struct cudaChannelFormatDesc desc;
  const cudaError_t error = ::cudaGetChannelDesc(&desc, array);
  return error != cudaSuccess ? error : ::cudaBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTextureToMipmappedArray(const struct texture<T, dim, readMode>& tex,
                                                          cudaMipmappedArray_const_t mipmappedArray,
                                                          const struct cudaChannelFormatDesc& desc) {
  return ::cudaBindTextureToMipmappedArray(&tex, mipmappedArray, &desc);
}
// The levels' own format (level 0's, which every level shares).
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTextureToMipmappedArray(const struct texture<T, dim, readMode>& tex,
                                                          cudaMipmappedArray_const_t mipmappedArray) {
  cudaArray_t level0 = nullptr;
  struct cudaChannelFormatDesc desc;
  cudaError_t error = ::cudaGetMipmappedArrayLevel(&level0, mipmappedArray, 0);
  if (error == cudaSuccess) error = ::cudaGetChannelDesc(&desc, level0);
  return error != cudaSuccess ? error : ::cudaBindTextureToMipmappedArray(&tex, mipmappedArray, &desc);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaUnbindTexture(const struct texture<T, dim, readMode>& tex) {
  return ::cudaUnbindTexture(&tex);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaGetTextureAlignmentOffset(size_t* offset,
                                                        const struct texture<T, dim, readMode>& tex) {
  return ::cudaGetTextureAlignmentOffset(offset, &tex);
}
// The guide's low-level example (3.2.11.1.2) declares a non-const
// textureReference* for cudaGetTextureReference to fill.  A template, so
// that a null pointer still means the C function alone; T is
// textureReference (anything else fails the cast).
template <class T>
static inline cudaError_t cudaGetTextureReference(T** texref, const void* symbol) {
  return ::cudaGetTextureReference(const_cast<const struct textureReference**>(texref), symbol);
}
// The surface reference API's C++ forms (guide 3.2.11.2.2): the reference
// itself, with the array's own format where no format is given.  The form
// with a format pointer is the guide's low-level listing's call.
template <class T, int dim>
static inline cudaError_t cudaBindSurfaceToArray(const struct surface<T, dim>& surf, cudaArray_const_t array,
                                                 const struct cudaChannelFormatDesc& desc) {
  return ::cudaBindSurfaceToArray(&surf, array, &desc);
}
template <class T, int dim>
static inline cudaError_t cudaBindSurfaceToArray(const struct surface<T, dim>& surf, cudaArray_const_t array,
                                                 const struct cudaChannelFormatDesc* desc) {
  return ::cudaBindSurfaceToArray(&surf, array, desc);
}
template <class T, int dim>
static inline cudaError_t cudaBindSurfaceToArray(const struct surface<T, dim>& surf,
                                                 cudaArray_const_t array) {
  struct cudaChannelFormatDesc desc;
  const cudaError_t error = ::cudaGetChannelDesc(&desc, array);
  return error != cudaSuccess ? error : ::cudaBindSurfaceToArray(&surf, array, &desc);
}
// As cudaGetTextureReference: the guide's listing declares a non-const
// surfaceReference*; T is surfaceReference.
template <class T>
static inline cudaError_t cudaGetSurfaceReference(T** surfref, const void* symbol) {
  return ::cudaGetSurfaceReference(const_cast<const struct surfaceReference**>(surfref), symbol);
}
static inline cudaError_t cudaEventCreate(cudaEvent_t* event, unsigned int flags) {
  return ::cudaEventCreateWithFlags(event, flags);
}
template <class T>
static inline cudaError_t cudaLaunchKernel(const T* func, dim3 gridDim, dim3 blockDim, void** args,
                                           size_t sharedMem = 0, cudaStream_t stream = 0) {
  return ::cudaLaunchKernel((const void*)func, gridDim, blockDim, args, sharedMem, stream);
}
// T* rather than CUDA's const T*: clang deduces no T from a function pointer there.
template <class T>
static inline cudaError_t cudaLaunchCooperativeKernel(T* func, dim3 gridDim, dim3 blockDim, void** args,
                                                      size_t sharedMem = 0, cudaStream_t stream = 0) {
  return ::cudaLaunchCooperativeKernel((const void*)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T>
static inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, T* entry) {
  return ::cudaFuncGetAttributes(attr, (const void*)entry);
}
template <class T>
static inline cudaError_t cudaFuncSetAttribute(T* entry, enum cudaFuncAttribute attr, int value) {
  return ::cudaFuncSetAttribute((const void*)entry, attr, value);
}
template <class T>
static inline cudaError_t cudaFuncSetCacheConfig(T* func, enum cudaFuncCache cacheConfig) {
  return ::cudaFuncSetCacheConfig((const void*)func, cacheConfig);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, T func, int blockSize,
                                                                        size_t dynamicSMemSize) {
  return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void*)func, blockSize,
                                                         dynamicSMemSize);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, T func,
                                                             size_t dynamicSMemSize = 0,
                                                             int blockSizeLimit = 0) {
  return ::cudaOccupancyMaxPotentialBlockSize(minGridSize, blockSize, (const void*)func, dynamicSMemSize,
                                              blockSizeLimit);
}
#endif /* __cplusplus */

#endif /* KESTREL_CUDA_RUNTIME_H */
