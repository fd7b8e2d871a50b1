// Device management, properties, limits and the thread's last error
// (guide 3.2.6, 3.2.9).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "api_common.hpp"
#include "cuda_arrays.hpp"
#include "kestrel/cuda/cuda_profiler_api.h"
#include "kestrel/error.hpp"

using namespace kestrel::cudart;

namespace {

// The array and texture object limits the runtime enforces (cuda_arrays.hpp:
// guide appendix G.1 for compute capability 6.x; the mipmapped 1D and 2D
// limits, which the table lacks, are an H100's).
void fill_texture_limits(cudaDeviceProp* prop) {
  auto i = [](size_t value) { return static_cast<int>(value); };
  prop->textureAlignment = kTextureAlignment;
  prop->texturePitchAlignment = kTexturePitchAlignment;
  prop->surfaceAlignment = kTextureAlignment;
  prop->maxTexture1D = i(kMax1D);
  prop->maxTexture1DLinear = i(kMax1DLinear);
  prop->maxTexture2D[0] = i(kMax2DWidth);
  prop->maxTexture2D[1] = i(kMax2DHeight);
  prop->maxTexture1DMipmap = i(kMax1DMipmap);
  prop->maxTexture2DMipmap[0] = prop->maxTexture2DMipmap[1] = i(kMax2DMipmap);
  prop->maxTexture2DLinear[0] = i(kMax2DLinear);
  prop->maxTexture2DLinear[1] = i(kMax2DLinear);
  prop->maxTexture2DLinear[2] = i(kMax2DLinearPitch);
  prop->maxTexture2DGather[0] = prop->maxTexture2DGather[1] = i(kMaxGather2D);
  for (int axis = 0; axis < 3; ++axis) prop->maxTexture3D[axis] = prop->maxTexture3DAlt[axis] = i(kMax3D);
  prop->maxTextureCubemap = i(kMaxCubemap);
  prop->maxTexture1DLayered[0] = i(kMaxLayeredWidth);
  prop->maxTexture1DLayered[1] = i(kMaxLayers);
  prop->maxTexture2DLayered[0] = prop->maxTexture2DLayered[1] = i(kMaxLayeredWidth);
  prop->maxTexture2DLayered[2] = i(kMaxLayers);
  prop->maxTextureCubemapLayered[0] = i(kMaxCubemap);
  prop->maxTextureCubemapLayered[1] = i(kMaxCubemapLayers);
  // A surface array is a texture array too: the smaller of the two tables.
  prop->maxSurface1D = i(kMax1D);
  prop->maxSurface2D[0] = i(kMax2DWidth);
  prop->maxSurface2D[1] = i(kMaxSurface2DHeight);
  prop->maxSurface3D[0] = prop->maxSurface3D[1] = i(kMax3D);
  prop->maxSurface3D[2] = i(kMaxSurface3DDepth);
  prop->maxSurface1DLayered[0] = i(kMaxLayeredWidth);
  prop->maxSurface1DLayered[1] = i(kMaxLayers);
  prop->maxSurface2DLayered[0] = prop->maxSurface2DLayered[1] = i(kMaxLayeredWidth);
  prop->maxSurface2DLayered[2] = i(kMaxLayers);
  prop->maxSurfaceCubemap = i(kMaxCubemap);
  prop->maxSurfaceCubemapLayered[0] = i(kMaxCubemap);
  prop->maxSurfaceCubemapLayered[1] = i(kMaxCubemapLayers);
}

void fill_properties(const kestrel_device_props& p, cudaDeviceProp* prop) {
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "%s", p.name);
  prop->totalGlobalMem = p.global_mem_bytes;
  prop->sharedMemPerBlock = p.shared_mem_per_block;
  prop->regsPerBlock = static_cast<int>(p.max_threads_per_block) * kRegistersPerThread;
  prop->warpSize = static_cast<int>(p.warp_size);
  prop->memPitch = p.global_mem_bytes;
  prop->maxThreadsPerBlock = static_cast<int>(p.max_threads_per_block);
  for (int i = 0; i < 3; ++i) {
    prop->maxThreadsDim[i] = static_cast<int>(p.max_block_dim[i]);
    prop->maxGridSize[i] = static_cast<int>(std::min<uint32_t>(p.max_grid_dim[i], 0x7FFFFFFF));
  }
  prop->clockRate = static_cast<int>(p.clock_khz);
  // __constant__ data is read-only device DRAM: no bank smaller than the memory.
  prop->totalConstMem = p.global_mem_bytes;
  prop->major = 7;
  prop->minor = 0;
  fill_texture_limits(prop);
  prop->multiProcessorCount = static_cast<int>(p.num_sms);
  prop->l2CacheSize = static_cast<int>(p.l2_bytes);
  prop->kernelExecTimeoutEnabled = 1;  // the launch watchdog (KESTREL_LIMIT_WATCHDOG_MCYCLES)
  prop->managedMemory = 1;      // cudaMallocManaged, with the pre-6.x rules (concurrentManagedAccess 0)
  prop->cooperativeLaunch = 1;  // cudaLaunchCooperativeKernel, occupancy-checked
  // One copy engine where the backend runs copies beside a kernel; kernels
  // run one at a time (concurrentKernels 0).
  prop->asyncEngineCount = static_cast<int>(p.copy_engines);
  prop->deviceOverlap = p.copy_engines != 0 ? 1 : 0;
  prop->maxThreadsPerMultiProcessor = static_cast<int>(p.warps_per_sm * p.warp_size);
  prop->sharedMemPerMultiprocessor = p.shared_mem_per_block;
  prop->regsPerMultiprocessor = static_cast<int>(p.warps_per_sm * p.warp_size) * kRegistersPerThread;
  prop->sharedMemPerBlockOptin = p.shared_mem_per_block;
  prop->maxBlocksPerMultiProcessor = static_cast<int>(p.warps_per_sm);
  prop->computeMode = cudaComputeModeDefault;  // any host thread may use the device
  // Pinned memory is bookkeeping on the simulators, so registering it works;
  // mapping it into the device does not (canMapHostMemory 0).
  prop->hostRegisterSupported = 1;
  prop->memoryPoolsSupported = 1;  // the default pool of cudaMallocAsync (no IPC handle types)
  // The fields CUDA 12 adds stay 0 (memset above) where Kestrel lacks the
  // unit or the feature: mipmapped textures, L1/L2 caches and their
  // persistence windows, ECC, managed and pageable memory access, compute
  // preemption, cooperative and cluster launches, memory pools, IPC,
  // GPUDirect, NUMA; docs/cuda-runtime.md ("Devices") lists them.
}

void properties_of(int ordinal, cudaDeviceProp* prop) {
  fill_properties(opened_device(ordinal).props(), prop);
  prop->pciBusID = ordinal;
  prop->multiGpuBoardGroupID = ordinal;  // every device is its own board
}

// Every device ordinal is valid; throws cudaErrorInvalidDevice otherwise.
DeviceState& device_at(int ordinal) {
  DeviceState* device = Runtime::get().device(ordinal);
  require(device != nullptr, cudaErrorInvalidDevice);
  return *device;
}

// A limit the backend keeps (stack, printf FIFO, device heap), as the runtime names it.
kestrel_limit backend_limit(cudaLimit limit) {
  switch (limit) {
    case cudaLimitStackSize:
      return KESTREL_LIMIT_STACK_BYTES;
    case cudaLimitMallocHeapSize:
      return KESTREL_LIMIT_HEAP_BYTES;
    default:
      return KESTREL_LIMIT_PRINTF_FIFO_BYTES;
  }
}

}  // namespace

extern "C" {

// ---- Errors ---------------------------------------------------------------------------

cudaError_t cudaGetLastError(void) {
  cudaError_t error = last_error();
  last_error() = cudaSuccess;
  if (DeviceState* device = Runtime::get().device(current_ordinal())) {
    const cudaError_t sticky = device->sticky_error();
    if (sticky != cudaSuccess) error = sticky;
  }
  return error;
}

cudaError_t cudaPeekAtLastError(void) {
  if (DeviceState* device = Runtime::get().device(current_ordinal())) {
    const cudaError_t sticky = device->sticky_error();
    if (sticky != cudaSuccess) return sticky;
  }
  return last_error();
}

// ---- Devices ----------------------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count) {
  return api([&] {
    require(count != nullptr, cudaErrorInvalidValue);
    *count = Runtime::get().device_count();
  });
}

cudaError_t cudaSetDevice(int device) {
  return api([&] {
    require(Runtime::get().device(device) != nullptr, cudaErrorInvalidDevice);
    current_ordinal() = device;
  });
}

cudaError_t cudaGetDevice(int* device) {
  return api([&] {
    require(device != nullptr, cudaErrorInvalidValue);
    *device = current_ordinal();
  });
}

cudaError_t kestrelSetBackend(const char* backend) {
  return api([&] { check(Runtime::get().set_backend(backend)); });
}

cudaError_t kestrelSetDeviceCount(int count) {
  return api([&] { check(Runtime::get().set_device_count(count)); });
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  return api([&] {
    require(prop != nullptr, cudaErrorInvalidValue);
    properties_of(device, prop);
  });
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  return api([&] {
    require(value != nullptr, cudaErrorInvalidValue);
    cudaDeviceProp p;
    properties_of(device, &p);
    const auto clamp = [](size_t v) { return static_cast<int>(std::min<size_t>(v, 0x7FFFFFFF)); };
    switch (attr) {
      case cudaDevAttrMaxThreadsPerBlock:
        *value = p.maxThreadsPerBlock;
        break;
      case cudaDevAttrMaxBlockDimX:
        *value = p.maxThreadsDim[0];
        break;
      case cudaDevAttrMaxBlockDimY:
        *value = p.maxThreadsDim[1];
        break;
      case cudaDevAttrMaxBlockDimZ:
        *value = p.maxThreadsDim[2];
        break;
      case cudaDevAttrMaxGridDimX:
        *value = p.maxGridSize[0];
        break;
      case cudaDevAttrMaxGridDimY:
        *value = p.maxGridSize[1];
        break;
      case cudaDevAttrMaxGridDimZ:
        *value = p.maxGridSize[2];
        break;
      case cudaDevAttrMaxSharedMemoryPerBlock:
        *value = clamp(p.sharedMemPerBlock);
        break;
      case cudaDevAttrTotalConstantMemory:
        *value = clamp(p.totalConstMem);
        break;
      case cudaDevAttrWarpSize:
        *value = p.warpSize;
        break;
      case cudaDevAttrMaxPitch:
        *value = clamp(p.memPitch);
        break;
      case cudaDevAttrMaxRegistersPerBlock:
        *value = p.regsPerBlock;
        break;
      case cudaDevAttrClockRate:
        *value = p.clockRate;
        break;
      case cudaDevAttrTextureAlignment:
        *value = clamp(p.textureAlignment);
        break;
      case cudaDevAttrGpuOverlap:
        *value = p.deviceOverlap;
        break;
      case cudaDevAttrMultiProcessorCount:
        *value = p.multiProcessorCount;
        break;
      case cudaDevAttrKernelExecTimeout:
        *value = p.kernelExecTimeoutEnabled;
        break;
      case cudaDevAttrIntegrated:
        *value = p.integrated;
        break;
      case cudaDevAttrCanMapHostMemory:
        *value = p.canMapHostMemory;
        break;
      case cudaDevAttrComputeMode:
        *value = p.computeMode;
        break;
      case cudaDevAttrConcurrentKernels:
        *value = p.concurrentKernels;
        break;
      case cudaDevAttrEccEnabled:
        *value = p.ECCEnabled;
        break;
      case cudaDevAttrPciBusId:
        *value = p.pciBusID;
        break;
      case cudaDevAttrPciDeviceId:
        *value = p.pciDeviceID;
        break;
      case cudaDevAttrMemoryClockRate:
        *value = p.memoryClockRate;
        break;
      case cudaDevAttrGlobalMemoryBusWidth:
        *value = p.memoryBusWidth;
        break;
      case cudaDevAttrL2CacheSize:
        *value = p.l2CacheSize;
        break;
      case cudaDevAttrMaxThreadsPerMultiProcessor:
        *value = p.maxThreadsPerMultiProcessor;
        break;
      case cudaDevAttrAsyncEngineCount:
        *value = p.asyncEngineCount;
        break;
      case cudaDevAttrUnifiedAddressing:
        *value = p.unifiedAddressing;
        break;
      case cudaDevAttrComputeCapabilityMajor:
        *value = p.major;
        break;
      case cudaDevAttrComputeCapabilityMinor:
        *value = p.minor;
        break;
      case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
        *value = clamp(p.sharedMemPerMultiprocessor);
        break;
      case cudaDevAttrMaxRegistersPerMultiprocessor:
        *value = p.regsPerMultiprocessor;
        break;
      case cudaDevAttrManagedMemory:
        *value = p.managedMemory;
        break;
      case cudaDevAttrMaxBlocksPerMultiprocessor:
        *value = p.maxBlocksPerMultiProcessor;
        break;
      case cudaDevAttrSurfaceAlignment:
        *value = clamp(p.surfaceAlignment);
        break;
      case cudaDevAttrTccDriver:
        *value = p.tccDriver;
        break;
      case cudaDevAttrPciDomainId:
        *value = p.pciDomainID;
        break;
      case cudaDevAttrTexturePitchAlignment:
        *value = clamp(p.texturePitchAlignment);
        break;
      case cudaDevAttrMaxTexture1DWidth:
        *value = p.maxTexture1D;
        break;
      case cudaDevAttrMaxTexture2DWidth:
        *value = p.maxTexture2D[0];
        break;
      case cudaDevAttrMaxTexture2DHeight:
        *value = p.maxTexture2D[1];
        break;
      case cudaDevAttrMaxTexture3DWidth:
        *value = p.maxTexture3D[0];
        break;
      case cudaDevAttrMaxTexture3DHeight:
        *value = p.maxTexture3D[1];
        break;
      case cudaDevAttrMaxTexture3DDepth:
        *value = p.maxTexture3D[2];
        break;
      case cudaDevAttrMaxTexture2DLayeredWidth:
        *value = p.maxTexture2DLayered[0];
        break;
      case cudaDevAttrMaxTexture2DLayeredHeight:
        *value = p.maxTexture2DLayered[1];
        break;
      case cudaDevAttrMaxTexture2DLayeredLayers:
        *value = p.maxTexture2DLayered[2];
        break;
      case cudaDevAttrMaxTexture1DLayeredWidth:
        *value = p.maxTexture1DLayered[0];
        break;
      case cudaDevAttrMaxTexture1DLayeredLayers:
        *value = p.maxTexture1DLayered[1];
        break;
      case cudaDevAttrMaxTexture2DGatherWidth:
        *value = p.maxTexture2DGather[0];
        break;
      case cudaDevAttrMaxTexture2DGatherHeight:
        *value = p.maxTexture2DGather[1];
        break;
      case cudaDevAttrMaxTexture3DWidthAlt:
        *value = p.maxTexture3DAlt[0];
        break;
      case cudaDevAttrMaxTexture3DHeightAlt:
        *value = p.maxTexture3DAlt[1];
        break;
      case cudaDevAttrMaxTexture3DDepthAlt:
        *value = p.maxTexture3DAlt[2];
        break;
      case cudaDevAttrMaxTextureCubemapWidth:
        *value = p.maxTextureCubemap;
        break;
      case cudaDevAttrMaxTextureCubemapLayeredWidth:
        *value = p.maxTextureCubemapLayered[0];
        break;
      case cudaDevAttrMaxTextureCubemapLayeredLayers:
        *value = p.maxTextureCubemapLayered[1];
        break;
      case cudaDevAttrMaxSurface1DWidth:
        *value = p.maxSurface1D;
        break;
      case cudaDevAttrMaxSurface2DWidth:
        *value = p.maxSurface2D[0];
        break;
      case cudaDevAttrMaxSurface2DHeight:
        *value = p.maxSurface2D[1];
        break;
      case cudaDevAttrMaxSurface3DWidth:
        *value = p.maxSurface3D[0];
        break;
      case cudaDevAttrMaxSurface3DHeight:
        *value = p.maxSurface3D[1];
        break;
      case cudaDevAttrMaxSurface3DDepth:
        *value = p.maxSurface3D[2];
        break;
      case cudaDevAttrMaxSurface1DLayeredWidth:
        *value = p.maxSurface1DLayered[0];
        break;
      case cudaDevAttrMaxSurface1DLayeredLayers:
        *value = p.maxSurface1DLayered[1];
        break;
      case cudaDevAttrMaxSurface2DLayeredWidth:
        *value = p.maxSurface2DLayered[0];
        break;
      case cudaDevAttrMaxSurface2DLayeredHeight:
        *value = p.maxSurface2DLayered[1];
        break;
      case cudaDevAttrMaxSurface2DLayeredLayers:
        *value = p.maxSurface2DLayered[2];
        break;
      case cudaDevAttrMaxSurfaceCubemapWidth:
        *value = p.maxSurfaceCubemap;
        break;
      case cudaDevAttrMaxSurfaceCubemapLayeredWidth:
        *value = p.maxSurfaceCubemapLayered[0];
        break;
      case cudaDevAttrMaxSurfaceCubemapLayeredLayers:
        *value = p.maxSurfaceCubemapLayered[1];
        break;
      case cudaDevAttrMaxTexture1DLinearWidth:
        *value = p.maxTexture1DLinear;
        break;
      case cudaDevAttrMaxTexture2DLinearWidth:
        *value = p.maxTexture2DLinear[0];
        break;
      case cudaDevAttrMaxTexture2DLinearHeight:
        *value = p.maxTexture2DLinear[1];
        break;
      case cudaDevAttrMaxTexture2DLinearPitch:
        *value = p.maxTexture2DLinear[2];
        break;
      case cudaDevAttrMaxTexture2DMipmappedWidth:
        *value = p.maxTexture2DMipmap[0];
        break;
      case cudaDevAttrMaxTexture2DMipmappedHeight:
        *value = p.maxTexture2DMipmap[1];
        break;
      case cudaDevAttrMaxTexture1DMipmappedWidth:
        *value = p.maxTexture1DMipmap;
        break;
      case cudaDevAttrStreamPrioritiesSupported:
        *value = p.streamPrioritiesSupported;
        break;
      case cudaDevAttrGlobalL1CacheSupported:
        *value = p.globalL1CacheSupported;
        break;
      case cudaDevAttrLocalL1CacheSupported:
        *value = p.localL1CacheSupported;
        break;
      case cudaDevAttrIsMultiGpuBoard:
        *value = p.isMultiGpuBoard;
        break;
      case cudaDevAttrMultiGpuBoardGroupID:
        *value = p.multiGpuBoardGroupID;
        break;
      case cudaDevAttrHostNativeAtomicSupported:
        *value = p.hostNativeAtomicSupported;
        break;
      case cudaDevAttrSingleToDoublePrecisionPerfRatio:
        *value = p.singleToDoublePrecisionPerfRatio;
        break;
      case cudaDevAttrPageableMemoryAccess:
        *value = p.pageableMemoryAccess;
        break;
      case cudaDevAttrConcurrentManagedAccess:
        *value = p.concurrentManagedAccess;
        break;
      case cudaDevAttrComputePreemptionSupported:
        *value = p.computePreemptionSupported;
        break;
      case cudaDevAttrCanUseHostPointerForRegisteredMem:
        *value = p.canUseHostPointerForRegisteredMem;
        break;
      case cudaDevAttrCooperativeLaunch:
        *value = p.cooperativeLaunch;
        break;
      case cudaDevAttrCooperativeMultiDeviceLaunch:
        *value = p.cooperativeMultiDeviceLaunch;
        break;
      case cudaDevAttrMaxSharedMemoryPerBlockOptin:
        *value = clamp(p.sharedMemPerBlockOptin);
        break;
      case cudaDevAttrHostRegisterSupported:
        *value = p.hostRegisterSupported;
        break;
      case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
        *value = p.pageableMemoryAccessUsesHostPageTables;
        break;
      case cudaDevAttrDirectManagedMemAccessFromHost:
        *value = p.directManagedMemAccessFromHost;
        break;
      case cudaDevAttrMaxPersistingL2CacheSize:
        *value = p.persistingL2CacheMaxSize;
        break;
      case cudaDevAttrMaxAccessPolicyWindowSize:
        *value = p.accessPolicyMaxWindowSize;
        break;
      case cudaDevAttrReservedSharedMemoryPerBlock:
        *value = clamp(p.reservedSharedMemPerBlock);
        break;
      case cudaDevAttrSparseCudaArraySupported:
        *value = p.sparseCudaArraySupported;
        break;
      case cudaDevAttrHostRegisterReadOnlySupported:
        *value = p.hostRegisterReadOnlySupported;
        break;
      case cudaDevAttrTimelineSemaphoreInteropSupported:
        *value = p.timelineSemaphoreInteropSupported;
        break;
      case cudaDevAttrMemoryPoolsSupported:
        *value = p.memoryPoolsSupported;
        break;
      case cudaDevAttrGPUDirectRDMASupported:
        *value = p.gpuDirectRDMASupported;
        break;
      case cudaDevAttrGPUDirectRDMAFlushWritesOptions:
        *value = static_cast<int>(p.gpuDirectRDMAFlushWritesOptions);
        break;
      case cudaDevAttrGPUDirectRDMAWritesOrdering:
        *value = p.gpuDirectRDMAWritesOrdering;
        break;
      case cudaDevAttrMemoryPoolSupportedHandleTypes:
        *value = static_cast<int>(p.memoryPoolSupportedHandleTypes);
        break;
      case cudaDevAttrClusterLaunch:
        *value = p.clusterLaunch;
        break;
      case cudaDevAttrDeferredMappingCudaArraySupported:
        *value = p.deferredMappingCudaArraySupported;
        break;
      case cudaDevAttrCanFlushRemoteWrites:
        *value = 0;  // no remote (peer or host) writes to flush
        break;
      default:
        throw CudaError(cudaErrorInvalidValue);
    }
  });
}

cudaError_t cudaDeviceSynchronize(void) {
  return api([] { check(current_device().synchronize()); });
}

cudaError_t cudaDeviceReset(void) {
  return api([] {
    DeviceState* device = Runtime::get().device(current_ordinal());
    require(device != nullptr, cudaErrorInvalidDevice);
    device->reset();
    Runtime::get().destroy_handles_of(device);
    // The reset freed their memory: the handles name nothing any more.
    forget_arrays_of(device);
    forget_texture_objects_of(device);
  });
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
  return api([&] {
    DeviceState& device = current_device();
    uint64_t bytes = 0;
    switch (limit) {
      case cudaLimitStackSize:
        require(value != 0, cudaErrorInvalidValue);
        bytes = (uint64_t{value} + 15) / 16 * 16;
        break;
      case cudaLimitPrintfFifoSize:
        // The FIFO needs at least a page; smaller requests get one.
        bytes = std::max<uint64_t>(value, 4096);
        break;
      case cudaLimitMallocHeapSize:
        // Fixed once a launch has used the heap (guide B.18.1).
        bytes = value;
        break;
      default:
        throw CudaError(cudaErrorUnsupportedLimit);
    }
    const kestrel_limit which = backend_limit(limit);
    // Any value the runtime refuses is an invalid value to CUDA.
    check(device.run_sync([which, bytes](DeviceState& d) {
      try {
        if (which == KESTREL_LIMIT_STACK_BYTES)
          d.context().set_stack_bytes(bytes);
        else if (which == KESTREL_LIMIT_HEAP_BYTES)
          d.context().set_heap_bytes(bytes);
        else
          d.context().set_printf_fifo_bytes(bytes);
      } catch (const kestrel::Error&) {
        throw CudaError(cudaErrorInvalidValue);
      }
    }));
  });
}

cudaError_t cudaDeviceGetLimit(size_t* value, enum cudaLimit limit) {
  return api([&] {
    require(value != nullptr, cudaErrorInvalidValue);
    DeviceState& device = current_device();
    switch (limit) {
      case cudaLimitStackSize:
      case cudaLimitPrintfFifoSize:
      case cudaLimitMallocHeapSize: {
        const kestrel_limit which = backend_limit(limit);
        uint64_t bytes = 0;
        const cudaError_t got = device.run_sync([which, &bytes](DeviceState& d) {
          bytes = which == KESTREL_LIMIT_STACK_BYTES  ? d.context().stack_bytes()
                  : which == KESTREL_LIMIT_HEAP_BYTES ? d.context().heap_bytes()
                                                      : d.context().printf_fifo_bytes();
        });
        *value = bytes;
        check(got);
        return;
      }
      default:
        throw CudaError(cudaErrorUnsupportedLimit);
    }
  });
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  return api([&] {
    const unsigned known =
        cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax | cudaDeviceSyncMemops;
    require((flags & ~known) == 0, cudaErrorInvalidValue);
    // At most one scheduling policy.
    const unsigned schedule = flags & cudaDeviceScheduleMask;
    require(schedule == cudaDeviceScheduleAuto || schedule == cudaDeviceScheduleSpin ||
                schedule == cudaDeviceScheduleYield || schedule == cudaDeviceScheduleBlockingSync,
            cudaErrorInvalidValue);
    device_at(current_ordinal()).set_flags(flags);
  });
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  return api([&] {
    require(flags != nullptr, cudaErrorInvalidValue);
    *flags = device_at(current_ordinal()).flags();
  });
}

cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  return api([&] {
    require(canAccessPeer != nullptr, cudaErrorInvalidValue);
    device_at(device);
    device_at(peerDevice);
    *canAccessPeer = 0;
  });
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
  return api([&] {
    require(flags == 0, cudaErrorInvalidValue);
    device_at(peerDevice);
    require(peerDevice != current_ordinal(), cudaErrorInvalidDevice);
    reject(
        cudaErrorPeerAccessUnsupported,
        "cudaDeviceEnablePeerAccess: Kestrel devices have no peer access; each device reaches only its own "
        "memory (cudaDeviceCanAccessPeer reports 0)");
  });
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
  return api([&] {
    device_at(peerDevice);
    throw CudaError(cudaErrorPeerAccessNotEnabled);
  });
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
  return api([&] {
    require(cacheConfig >= cudaFuncCachePreferNone && cacheConfig <= cudaFuncCachePreferEqual,
            cudaErrorInvalidValue);
    device_at(current_ordinal()).set_cache_config(cacheConfig);
  });
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache* cacheConfig) {
  return api([&] {
    require(cacheConfig != nullptr, cudaErrorInvalidValue);
    *cacheConfig = device_at(current_ordinal()).cache_config();
  });
}

// ---- Profiler window (cuda_profiler_api.h) -----------------------------------------------

cudaError_t cudaProfilerStart(void) {
  return api([] { current_device().set_profiling(true); });
}

cudaError_t cudaProfilerStop(void) {
  return api([] { current_device().set_profiling(false); });
}

cudaError_t kestrelProfilerActive(int* active) {
  return api([&] {
    require(active != nullptr, cudaErrorInvalidValue);
    *active = current_device().profiling() ? 1 : 0;
  });
}

cudaError_t cudaDriverGetVersion(int* version) {
  return api([&] {
    require(version != nullptr, cudaErrorInvalidValue);
    *version = CUDART_VERSION;
  });
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  return api([&] {
    require(version != nullptr, cudaErrorInvalidValue);
    *version = CUDART_VERSION;
  });
}

}  // extern "C"
