/* The CUDA runtime API as Kestrel implements it (library kestrel::cudart,
 * runtime/cudart/; docs/cuda-runtime.md).  Names, argument lists and error
 * numbers are CUDA's; sections of the CUDA C Programming Guide v8.0 are cited
 * as "guide X.Y".  Every function checks its arguments and returns an error
 * code instead of crashing on bad input. */
#ifndef KESTREL_CUDA_RUNTIME_API_H
#define KESTREL_CUDA_RUNTIME_API_H
/* CUDA's own include guard, which code written for CUDA may test. */
#ifndef __CUDA_RUNTIME_API_H__
#define __CUDA_RUNTIME_API_H__
#endif

#include <stddef.h>

#include "driver_functions.h"
#include "driver_types.h"
#include "surface_types.h"
#include "texture_types.h"
#include "vector_types.h"

/* The CUDA runtime API version Kestrel's headers follow: CUDA 12.0's names,
 * numbers and cudaDeviceProp (a subset of its functions; docs/cuda-runtime.md). */
#define CUDART_VERSION 12000

/* Default arguments, as CUDA's headers give them to C++ callers. */
#ifdef __cplusplus
#define KESTREL_DEFAULT(value) = value
#else
#define KESTREL_DEFAULT(value)
#endif

/* The API is what libkestrel_cudart.so exports, whatever the visibility
 * its own sources are compiled with. */
#pragma GCC visibility push(default)
#ifdef __cplusplus
extern "C" {
#endif

/* ---- Errors (guide 3.2.9) -------------------------------------------------- */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);

/* ---- Devices (guide 3.2.6) -------------------------------------------------- */
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t* value, enum cudaLimit limit);
cudaError_t cudaDriverGetVersion(int* version);
/* How a host thread waiting for the current device waits (cudaDeviceSchedule*:
 * Kestrel's waits always block on a condition variable) and cudaDeviceMapHost;
 * recorded per device and kept across cudaDeviceReset. */
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int* flags);
/* Kestrel devices have no peer access (guide 3.2.6.4): *canAccessPeer = 0;
 * enabling it is cudaErrorPeerAccessUnsupported. */
cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice);
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
cudaError_t cudaRuntimeGetVersion(int* version);
/* Kestrel: the backend ("model", "rtlsim", "fpga") every device opens with;
 * before the first device is used only.  Default: $KESTREL_BACKEND, else the
 * RTL model when it was built, else the functional model.  The number of
 * devices is $KESTREL_DEVICE_COUNT (default 1) or kestrelSetDeviceCount. */
cudaError_t kestrelSetBackend(const char* backend);
cudaError_t kestrelSetDeviceCount(int count);

/* ---- Memory (guide 3.2.2, 3.2.4) --------------------------------------------- */
cudaError_t cudaMalloc(void** devPtr, size_t size);
cudaError_t cudaFree(void* devPtr);
/* Stream-ordered allocation (CUDA 11.2) from the device's default pool:
 * cudaMallocAsync allocates at once (the host waits as for cudaMalloc), so
 * the memory is usable in the stream's order and before; cudaFreeAsync
 * returns it when the stream reaches the free.  The pool keeps no memory
 * back: a freed range goes back to the device at once, whatever the release
 * threshold (docs/cuda-runtime.md, "Memory"). */
cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t stream);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value);
cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height);
cudaError_t cudaMallocHost(void** ptr, size_t size);
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void* ptr);
/* Page-locks existing host memory (bookkeeping only on the simulators, as
 * cudaHostAlloc's memory is); cudaHostRegisterMapped and
 * cudaHostGetDevicePointer are cudaErrorNotSupported: no Kestrel device can
 * reach host memory (canMapHostMemory 0). */
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void* ptr);
cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags);
cudaError_t cudaMemGetInfo(size_t* free, size_t* total);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream KESTREL_DEFAULT(0));
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream KESTREL_DEFAULT(0));
/* Managed memory (guide J.2), with the rules of compute capability < 6.0:
 * the host may not touch it between a launch and the next synchronization. */
cudaError_t cudaMallocManaged(void** devPtr, size_t size,
                              unsigned int flags KESTREL_DEFAULT(cudaMemAttachGlobal));
cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, int dstDevice,
                                 cudaStream_t stream KESTREL_DEFAULT(0));
cudaError_t cudaMemAdvise(const void* devPtr, size_t count, enum cudaMemoryAdvise advice, int device);
cudaError_t cudaMemset(void* devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream KESTREL_DEFAULT(0));

/* ---- CUDA arrays and 3D copies (guide 3.2.11.1.1, 3.2.11.2, 3.2.2) ------------
 * An array's layout in device memory is docs/cuda-runtime.md's ("CUDA arrays").
 * Sizes beyond appendix G's compute capability 6.x limits are
 * cudaErrorInvalidValue; a format CUDA cannot hold is
 * cudaErrorInvalidChannelDescriptor. */
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);
cudaError_t cudaMallocArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, size_t width,
                            size_t height KESTREL_DEFAULT(0), unsigned int flags KESTREL_DEFAULT(0));
cudaError_t cudaMalloc3DArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc,
                              struct cudaExtent extent, unsigned int flags KESTREL_DEFAULT(0));
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t* mipmappedArray,
                                     const struct cudaChannelFormatDesc* desc, struct cudaExtent extent,
                                     unsigned int numLevels, unsigned int flags KESTREL_DEFAULT(0));
cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t* levelArray, cudaMipmappedArray_const_t mipmappedArray,
                                       unsigned int level);
cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc* desc, struct cudaExtent* extent,
                             unsigned int* flags, cudaArray_t array);
cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc* desc, cudaArray_const_t array);
/* wOffset and width in bytes, hOffset and height in rows (guide 3.2.2). */
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                     size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream KESTREL_DEFAULT(0));
cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
                                       cudaStream_t stream KESTREL_DEFAULT(0));
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                     cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                     size_t width, size_t height,
                                     enum cudaMemcpyKind kind KESTREL_DEFAULT(cudaMemcpyDeviceToDevice));
/* Deprecated in CUDA but in the v8.0 guide: `count` bytes from (wOffset,
 * hOffset) on, continuing on the next row at the end of one. */
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                              enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms* p);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms* p, cudaStream_t stream KESTREL_DEFAULT(0));
/* Pitched 3D memory: rows as cudaMallocPitch's, extent.width in bytes. */
cudaError_t cudaMalloc3D(struct cudaPitchedPtr* pitchedDevPtr, struct cudaExtent extent);
cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream KESTREL_DEFAULT(0));
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);
cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
                              cudaStream_t stream KESTREL_DEFAULT(0));

/* ---- Texture and surface objects (guide 3.2.11.1.1, 3.2.11.2.1) --------------
 * The handle is the device address of a 64-byte descriptor the runtime
 * writes (docs/isa.md, "Texture and surface descriptors"); kernels fetch
 * through the device SDK's software path (docs/texture.md). */
cudaError_t cudaCreateTextureObject(cudaTextureObject_t* pTexObject, const struct cudaResourceDesc* pResDesc,
                                    const struct cudaTextureDesc* pTexDesc,
                                    const struct cudaResourceViewDesc* pResViewDesc);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc* pResDesc,
                                             cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc* pTexDesc, cudaTextureObject_t texObject);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* pSurfObject,
                                    const struct cudaResourceDesc* pResDesc);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);
cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc* pResDesc,
                                             cudaSurfaceObject_t surfObject);

/* ---- Texture references (guide 3.2.11.1.2) ---------------------------------
 * texref is a texture<T, Type, ReadMode> variable (cuda_texture_types.h).  A
 * bind reads its normalized, filterMode and addressMode and writes the
 * bound texture's descriptor into its device copy, after the work queued on
 * the device before it (bound to a mipmapped array, also its mipmap
 * fields); cudaUnbindTexture clears it.  size defaults to
 * UINT_MAX, as in CUDA: the rest of devPtr's allocation. */
cudaError_t cudaBindTexture(size_t* offset, const struct textureReference* texref, const void* devPtr,
                            const struct cudaChannelFormatDesc* desc,
                            size_t size KESTREL_DEFAULT(0xFFFFFFFFu));
cudaError_t cudaBindTexture2D(size_t* offset, const struct textureReference* texref, const void* devPtr,
                              const struct cudaChannelFormatDesc* desc, size_t width, size_t height,
                              size_t pitch);
cudaError_t cudaBindTextureToArray(const struct textureReference* texref, cudaArray_const_t array,
                                   const struct cudaChannelFormatDesc* desc);
cudaError_t cudaBindTextureToMipmappedArray(const struct textureReference* texref,
                                            cudaMipmappedArray_const_t mipmappedArray,
                                            const struct cudaChannelFormatDesc* desc);
cudaError_t cudaUnbindTexture(const struct textureReference* texref);
cudaError_t cudaGetTextureAlignmentOffset(size_t* offset, const struct textureReference* texref);
cudaError_t cudaGetTextureReference(const struct textureReference** texref, const void* symbol);

/* ---- Surface references (guide 3.2.11.2.2) ---------------------------------
 * surfref is a surface<void, Type> variable (cuda_surface_types.h).  A bind
 * writes the array's surface descriptor into its device copy, after the
 * work queued on the device before it; there is no unbind (as in CUDA).
 * symbol is the reference itself, as for cudaGetTextureReference. */
cudaError_t cudaBindSurfaceToArray(const struct surfaceReference* surfref, cudaArray_const_t array,
                                   const struct cudaChannelFormatDesc* desc);
cudaError_t cudaGetSurfaceReference(const struct surfaceReference** surfref, const void* symbol);

/* ---- Symbols: __device__ and __constant__ variables (guide 3.2.2, B.2) ------- */
cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol);
cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol);

/* ---- Streams and events (guide 3.2.5) ---------------------------------------- */
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                unsigned int flags KESTREL_DEFAULT(0));
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData);
cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream KESTREL_DEFAULT(0));
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

/* ---- Kernels (guide 3.2.1, B.19) and occupancy (B.20) ------------------------- */
cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                             cudaStream_t stream);
/* Every block resident at once, so that cooperative_groups' grid_group::sync()
 * works; more blocks than the device holds is cudaErrorCooperativeLaunchTooLarge. */
cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                        size_t sharedMem, cudaStream_t stream);
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func);
/* The dynamic shared memory a kernel's launches may ask for (up to what the
 * SM has beside its static shared memory), and the carve-out preference,
 * which Kestrel records (cudaFuncGetAttributes reports it): its SMs have no
 * L1 cache to trade for shared memory. */
cudaError_t cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value);
/* Accepted and without effect: no L1 cache to prefer over shared memory. */
cudaError_t cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache cacheConfig);
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig);
cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache* cacheConfig);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize);
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, const void* func,
                                               size_t dynamicSMemSize, int blockSizeLimit);

/* ---- What clang's CUDA host code calls (not for users) ----------------------- */
void** __cudaRegisterFatBinary(void* fatCubin);
void __cudaRegisterFatBinaryEnd(void** fatCubinHandle);
void __cudaUnregisterFatBinary(void** fatCubinHandle);
int __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                           const char* deviceName, int thread_limit, uint3* tid, uint3* bid, dim3* bDim,
                           dim3* gDim, int* wSize);
void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress, const char* deviceName,
                       int ext, size_t size, int constant, int global);
void __cudaRegisterTexture(void** fatCubinHandle, const struct textureReference* hostVar,
                           const void** deviceAddress, const char* deviceName, int dim, int norm, int ext);
void __cudaRegisterSurface(void** fatCubinHandle, const struct surfaceReference* hostVar,
                           const void** deviceAddress, const char* deviceName, int dim, int ext);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem KESTREL_DEFAULT(0),
                                     void* stream KESTREL_DEFAULT(0));
cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop

#endif /* KESTREL_CUDA_RUNTIME_API_H */
