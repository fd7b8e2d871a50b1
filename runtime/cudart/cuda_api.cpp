// The CUDA runtime API entry points (cuda_runtime_api.h) over the Kestrel C
// API.  Each one checks its arguments, finds its device and stream, and
// either runs its work on the device's worker (cudart_state.hpp) or queues
// it there.  The calling thread's last error and current device are thread
// local, as in CUDA (guide 3.2.9, 3.2.6.2).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cudart_state.hpp"

using kestrel::cudart::DeviceState;
using kestrel::cudart::DeviceVariable;
using kestrel::cudart::FatBinary;
using kestrel::cudart::KernelFunction;
using kestrel::cudart::Operation;
using kestrel::cudart::Runtime;

namespace {

constexpr size_t kPitchAlignment = 256;  // cudaMallocPitch rows start at multiples of this
constexpr int kRegistersPerThread = 64;  // x0-x31 and f0-f31, every thread's own
constexpr uint64_t kDefaultMallocHeap = 8u << 20;

thread_local cudaError_t t_last_error = cudaSuccess;
thread_local int t_device = 0;

cudaError_t record(cudaError_t error) {
  if (error != cudaSuccess) t_last_error = error;
  return error;
}

uint64_t address_of(const void* pointer) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pointer));
}
void* pointer_to(uint64_t address) { return reinterpret_cast<void*>(static_cast<uintptr_t>(address)); }

// The device an operation runs on and the stream it joins.
struct Target {
  DeviceState* device = nullptr;
  CUstream_st* stream = nullptr;
  cudaStream_t handle = nullptr;  // as the user named it, for callbacks
};

// The calling thread's current device, opened, without a sticky error.
cudaError_t current_device(DeviceState** device) {
  DeviceState* d = Runtime::get().device(t_device);
  if (d == nullptr) return cudaErrorInvalidDevice;
  const cudaError_t opened = d->ensure_open();
  if (opened != cudaSuccess) return opened;
  if (d->sticky_error() != cudaSuccess) return d->sticky_error();
  *device = d;
  return cudaSuccess;
}

bool is_default_stream(cudaStream_t stream) {
  return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

// 0, cudaStreamLegacy and cudaStreamPerThread are the current device's
// default stream; any other handle must be a live stream, whose device the
// work goes to.
cudaError_t resolve(cudaStream_t stream, Target* target) {
  target->handle = stream;
  if (is_default_stream(stream)) {
    const cudaError_t error = current_device(&target->device);
    if (error != cudaSuccess) return error;
    target->stream = target->device->default_stream();
    return cudaSuccess;
  }
  if (!Runtime::get().stream_live(stream)) return cudaErrorInvalidResourceHandle;
  target->device = stream->device;
  target->stream = stream;
  const cudaError_t opened = target->device->ensure_open();
  if (opened != cudaSuccess) return opened;
  return target->device->sticky_error();
}

// Queues `op` on the target's stream, or runs it and waits when `wait`.
// A blocking copy is a synchronization point: device printf output appears
// (guide B.17.2).
cudaError_t dispatch(const Target& target, bool wait, std::function<cudaError_t(DeviceState&)> op) {
  if (wait) {
    if (target.stream != target.device->default_stream()) {
      target.device->submit(target.stream, std::move(op));
      return target.device->synchronize_stream(target.stream);
    }
    const cudaError_t result = target.device->run_sync(std::move(op));
    target.device->flush_output();
    return result;
  }
  target.device->submit(target.stream, std::move(op));
  return cudaSuccess;
}

bool holds(DeviceState* device, const void* pointer, size_t bytes) {
  std::lock_guard<std::mutex> lock(device->mutex());
  return device->holds(address_of(pointer), bytes);
}

// ---- Copies -------------------------------------------------------------------

enum class Side { host, device };

cudaError_t sides_of(DeviceState* device, const void* dst, const void* src, cudaMemcpyKind kind,
                     Side* dst_side, Side* src_side) {
  switch (kind) {
    case cudaMemcpyHostToHost:
      *dst_side = Side::host, *src_side = Side::host;
      return cudaSuccess;
    case cudaMemcpyHostToDevice:
      *dst_side = Side::device, *src_side = Side::host;
      return cudaSuccess;
    case cudaMemcpyDeviceToHost:
      *dst_side = Side::host, *src_side = Side::device;
      return cudaSuccess;
    case cudaMemcpyDeviceToDevice:
      *dst_side = Side::device, *src_side = Side::device;
      return cudaSuccess;
    case cudaMemcpyDefault:
      // Kestrel's device addresses are the allocations this runtime made;
      // anything else is host memory (guide 3.2.7, unified address space).
      *dst_side = holds(device, dst, 1) ? Side::device : Side::host;
      *src_side = holds(device, src, 1) ? Side::device : Side::host;
      return cudaSuccess;
  }
  return cudaErrorInvalidMemcpyDirection;
}

// One row-by-row copy of `height` rows of `width` bytes (height 1: a plain copy).
cudaError_t copy(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                 cudaMemcpyKind kind, cudaStream_t stream, bool wait) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
  Target target;
  const cudaError_t resolved = resolve(stream, &target);
  if (resolved != cudaSuccess) return resolved;
  if (width == 0 || height == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return cudaErrorInvalidValue;
  Side dst_side, src_side;
  const cudaError_t sided = sides_of(target.device, dst, src, kind, &dst_side, &src_side);
  if (sided != cudaSuccess) return sided;
  const size_t dst_span = dpitch * (height - 1) + width;
  const size_t src_span = spitch * (height - 1) + width;
  if (dst_side == Side::device && !holds(target.device, dst, dst_span)) return cudaErrorInvalidValue;
  if (src_side == Side::device && !holds(target.device, src, src_span)) return cudaErrorInvalidValue;
  const uint64_t d = address_of(dst), s = address_of(src);
  return dispatch(target, wait, [=](DeviceState& device) {
    for (size_t row = 0; row < height; ++row) {
      const uint64_t to = d + row * dpitch, from = s + row * spitch;
      kestrel_status status = KESTREL_SUCCESS;
      if (dst_side == Side::host && src_side == Side::host)
        std::memmove(pointer_to(to), pointer_to(from), width);
      else if (dst_side == Side::device && src_side == Side::host)
        status = kestrel_memcpy_htod_concurrent(device.handle(), to, pointer_to(from), width);
      else if (dst_side == Side::host)
        status = kestrel_memcpy_dtoh_concurrent(device.handle(), pointer_to(to), from, width);
      else
        status = kestrel_memcpy_dtod_concurrent(device.handle(), to, from, width);
      if (status != KESTREL_SUCCESS) return device.fail(status);
    }
    if (dst_side == Side::device || src_side == Side::device)
      device.add_copy_cycles(uint64_t{width} * height);
    return cudaSuccess;
  });
}

cudaError_t fill(void* pointer, int value, size_t count, cudaStream_t stream, bool wait) {
  Target target;
  const cudaError_t resolved = resolve(stream, &target);
  if (resolved != cudaSuccess) return resolved;
  if (count == 0) return cudaSuccess;
  if (!holds(target.device, pointer, count)) return cudaErrorInvalidValue;
  const uint64_t address = address_of(pointer);
  return dispatch(target, wait, [=](DeviceState& device) {
    const kestrel_status status = kestrel_memset_concurrent(device.handle(), address, value, count);
    if (status != KESTREL_SUCCESS) return device.fail(status);
    device.add_copy_cycles(count);
    return cudaSuccess;
  });
}

// ---- Symbols --------------------------------------------------------------------

cudaError_t symbol_address(DeviceState* device, const void* symbol, const DeviceVariable** variable,
                           uint64_t* address) {
  *variable = Runtime::get().registry().variable(symbol);
  if (*variable == nullptr) return cudaErrorInvalidSymbol;
  const DeviceVariable* v = *variable;
  kestrel_devptr_t result = 0;
  const cudaError_t error = device->run_sync([&](DeviceState& d) { return d.symbol_address(*v, &result); });
  *address = result;
  return error;
}

cudaError_t symbol_copy(bool to_symbol, void* host_or_device, const void* symbol, size_t count, size_t offset,
                        cudaMemcpyKind kind, cudaStream_t stream, bool wait) {
  Target target;
  const cudaError_t resolved = resolve(stream, &target);
  if (resolved != cudaSuccess) return resolved;
  const DeviceVariable* variable = nullptr;
  uint64_t address = 0;
  const cudaError_t found = symbol_address(target.device, symbol, &variable, &address);
  if (found != cudaSuccess) return found;
  if (offset > variable->bytes || count > variable->bytes - offset) return cudaErrorInvalidValue;
  const bool other_side_on_device = kind == cudaMemcpyDeviceToDevice ||
                                    (kind == cudaMemcpyDefault && holds(target.device, host_or_device, 1));
  if (kind != cudaMemcpyDefault && kind != cudaMemcpyDeviceToDevice &&
      kind != (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost))
    return cudaErrorInvalidMemcpyDirection;
  const cudaMemcpyKind resolved_kind = other_side_on_device
                                           ? cudaMemcpyDeviceToDevice
                                           : (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  void* symbol_pointer = pointer_to(address + offset);
  if (to_symbol)
    return copy(symbol_pointer, count, host_or_device, count, count, 1, resolved_kind, stream, wait);
  return copy(host_or_device, count, symbol_pointer, count, count, 1, resolved_kind, stream, wait);
}

// ---- Properties -------------------------------------------------------------------

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
  prop->textureAlignment = kPitchAlignment;
  prop->texturePitchAlignment = kPitchAlignment;
  prop->multiProcessorCount = static_cast<int>(p.num_sms);
  prop->kernelExecTimeoutEnabled = 1;  // the launch watchdog (KESTREL_LIMIT_WATCHDOG_MI)
  // One copy engine where the backend runs copies beside a kernel; kernels
  // run one at a time (concurrentKernels 0).
  prop->asyncEngineCount = static_cast<int>(p.copy_engines);
  prop->deviceOverlap = p.copy_engines != 0 ? 1 : 0;
  prop->maxThreadsPerMultiProcessor = static_cast<int>(p.warps_per_sm * p.warp_size);
  prop->sharedMemPerMultiprocessor = p.shared_mem_per_block;
  prop->regsPerMultiprocessor = static_cast<int>(p.warps_per_sm * p.warp_size) * kRegistersPerThread;
  prop->sharedMemPerBlockOptin = p.shared_mem_per_block;
  prop->maxBlocksPerMultiProcessor = static_cast<int>(p.warps_per_sm);
}

cudaError_t properties_of(int ordinal, cudaDeviceProp* prop) {
  DeviceState* device = Runtime::get().device(ordinal);
  if (device == nullptr) return cudaErrorInvalidDevice;
  const cudaError_t opened = device->ensure_open();
  if (opened != cudaSuccess) return opened;
  fill_properties(device->props(), prop);
  prop->pciBusID = ordinal;
  return cudaSuccess;
}

// ---- Kernels ------------------------------------------------------------------------

cudaError_t kernel_of(const void* func, const KernelFunction** function) {
  if (func == nullptr) return cudaErrorInvalidDeviceFunction;
  *function = Runtime::get().registry().function(func);
  if (*function == nullptr) return cudaErrorInvalidDeviceFunction;
  if (!(*function)->binary->error.empty()) return cudaErrorInvalidKernelImage;
  if ((*function)->info == nullptr) return cudaErrorInvalidDeviceFunction;
  return cudaSuccess;
}

uint64_t static_shared_bytes(const KernelFunction& function) {
  return function.binary->image->static_shared_bytes();
}

// Resident blocks of `block_threads` threads on one SM: the model places a
// block where its warps and its shared memory fit (docs/isa.md section 6).
int blocks_per_sm(const kestrel_device_props& p, int block_threads, uint64_t shared_bytes) {
  if (block_threads <= 0 || static_cast<uint32_t>(block_threads) > p.max_threads_per_block) return 0;
  if (shared_bytes > p.shared_mem_per_block) return 0;
  const uint32_t warps = (static_cast<uint32_t>(block_threads) + p.warp_size - 1) / p.warp_size;
  uint64_t blocks = p.warps_per_sm / warps;
  if (shared_bytes > 0) blocks = std::min<uint64_t>(blocks, p.shared_mem_per_block / shared_bytes);
  return static_cast<int>(blocks);
}

struct LaunchConfiguration {
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
};
thread_local std::vector<LaunchConfiguration> t_configurations;

}  // namespace

extern "C" {

// ---- Errors ---------------------------------------------------------------------------

cudaError_t cudaGetLastError(void) {
  cudaError_t error = t_last_error;
  t_last_error = cudaSuccess;
  if (DeviceState* device = Runtime::get().device(t_device)) {
    const cudaError_t sticky = device->sticky_error();
    if (sticky != cudaSuccess) error = sticky;
  }
  return error;
}

cudaError_t cudaPeekAtLastError(void) {
  if (DeviceState* device = Runtime::get().device(t_device)) {
    const cudaError_t sticky = device->sticky_error();
    if (sticky != cudaSuccess) return sticky;
  }
  return t_last_error;
}

// ---- Devices ----------------------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return record(cudaErrorInvalidValue);
  *count = Runtime::get().device_count();
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (Runtime::get().device(device) == nullptr) return record(cudaErrorInvalidDevice);
  t_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return record(cudaErrorInvalidValue);
  *device = t_device;
  return cudaSuccess;
}

cudaError_t kestrelSetBackend(const char* backend) { return record(Runtime::get().set_backend(backend)); }

cudaError_t kestrelSetDeviceCount(int count) { return record(Runtime::get().set_device_count(count)); }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return record(cudaErrorInvalidValue);
  return record(properties_of(device, prop));
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (value == nullptr) return record(cudaErrorInvalidValue);
  cudaDeviceProp p;
  const cudaError_t error = properties_of(device, &p);
  if (error != cudaSuccess) return record(error);
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
    default:
      return record(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  return record(device->synchronize());
}

cudaError_t cudaDeviceReset(void) {
  DeviceState* device = Runtime::get().device(t_device);
  if (device == nullptr) return record(cudaErrorInvalidDevice);
  device->reset();
  Runtime::get().destroy_handles_of(device);
  return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  switch (limit) {
    case cudaLimitStackSize: {
      if (value == 0) return record(cudaErrorInvalidValue);
      const uint64_t bytes = (uint64_t{value} + 15) / 16 * 16;
      return record(device->run_sync([bytes](DeviceState& d) {
        const kestrel_status status = kestrel_device_set_limit(d.handle(), KESTREL_LIMIT_STACK_BYTES, bytes);
        return status == KESTREL_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
      }));
    }
    case cudaLimitPrintfFifoSize: {
      // The FIFO needs at least a page; smaller requests get one.
      const uint64_t bytes = std::max<uint64_t>(value, 4096);
      return record(device->run_sync([bytes](DeviceState& d) {
        const kestrel_status status =
            kestrel_device_set_limit(d.handle(), KESTREL_LIMIT_PRINTF_FIFO_BYTES, bytes);
        return status == KESTREL_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
      }));
    }
    case cudaLimitMallocHeapSize: {
      std::lock_guard<std::mutex> lock(device->mutex());
      device->limits_kept[limit] = value;
      return cudaSuccess;
    }
    default:
      return record(cudaErrorUnsupportedLimit);
  }
}

cudaError_t cudaDeviceGetLimit(size_t* value, enum cudaLimit limit) {
  if (value == nullptr) return record(cudaErrorInvalidValue);
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  switch (limit) {
    case cudaLimitStackSize: {
      uint64_t bytes = 0;
      const cudaError_t got = device->run_sync([&bytes](DeviceState& d) {
        return kestrel_device_get_limit(d.handle(), KESTREL_LIMIT_STACK_BYTES, &bytes) == KESTREL_SUCCESS
                   ? cudaSuccess
                   : cudaErrorUnknown;
      });
      *value = bytes;
      return record(got);
    }
    case cudaLimitPrintfFifoSize: {
      uint64_t bytes = 0;
      const cudaError_t got = device->run_sync([&bytes](DeviceState& d) {
        return kestrel_device_get_limit(d.handle(), KESTREL_LIMIT_PRINTF_FIFO_BYTES, &bytes) ==
                       KESTREL_SUCCESS
                   ? cudaSuccess
                   : cudaErrorUnknown;
      });
      *value = bytes;
      return record(got);
    }
    case cudaLimitMallocHeapSize: {
      std::lock_guard<std::mutex> lock(device->mutex());
      const auto it = device->limits_kept.find(limit);
      *value = it != device->limits_kept.end() ? it->second : kDefaultMallocHeap;
      return cudaSuccess;
    }
    default:
      return record(cudaErrorUnsupportedLimit);
  }
}

cudaError_t cudaDriverGetVersion(int* version) {
  if (version == nullptr) return record(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  if (version == nullptr) return record(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}

// ---- Memory -------------------------------------------------------------------------------

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  if (devPtr == nullptr) return record(cudaErrorInvalidValue);
  *devPtr = nullptr;
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  if (size == 0) return cudaSuccess;
  kestrel_devptr_t address = 0;
  const cudaError_t allocated = device->run_sync([&](DeviceState& d) {
    const kestrel_status status = kestrel_malloc(d.handle(), size, &address);
    return status == KESTREL_SUCCESS ? cudaSuccess : d.fail(status);
  });
  if (allocated != cudaSuccess) return record(allocated);
  {
    std::lock_guard<std::mutex> lock(device->mutex());
    device->allocations[address] = DeviceState::Allocation{size};
  }
  *devPtr = pointer_to(address);
  return cudaSuccess;
}

cudaError_t cudaFree(void* devPtr) {
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  if (devPtr == nullptr) return cudaSuccess;
  const uint64_t address = address_of(devPtr);
  {
    std::lock_guard<std::mutex> lock(device->mutex());
    if (device->allocations.count(address) == 0) return record(cudaErrorInvalidValue);
    device->allocations.erase(address);
  }
  return record(device->run_sync([address](DeviceState& d) {
    const kestrel_status status = kestrel_free(d.handle(), address);
    return status == KESTREL_SUCCESS ? cudaSuccess : d.fail(status);
  }));
}

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  if (devPtr == nullptr || pitch == nullptr) return record(cudaErrorInvalidValue);
  *pitch = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  if (height != 0 && *pitch > SIZE_MAX / height) return record(cudaErrorMemoryAllocation);
  return cudaMalloc(devPtr, *pitch * height);
}

}  // extern "C"

namespace {
std::mutex g_host_mutex;
std::map<void*, size_t>& host_allocations() {
  static std::map<void*, size_t> allocations;
  return allocations;
}
}  // namespace

extern "C" {

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags) {
  if (ptr == nullptr) return record(cudaErrorInvalidValue);
  *ptr = nullptr;
  const unsigned known = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
  if ((flags & ~known) != 0) return record(cudaErrorInvalidValue);
  // Mapped host memory would need the device to reach host memory, which no
  // Kestrel backend can (docs/cuda-runtime.md).
  if ((flags & cudaHostAllocMapped) != 0) return record(cudaErrorNotSupported);
  if (size == 0) return cudaSuccess;
  // Page aligned so that a backend able to pin pages could; the model and RTL
  // simulators copy from anywhere, so the memory itself is ordinary.
  const size_t rounded = (size + 4095) / 4096 * 4096;
  void* memory = std::aligned_alloc(4096, rounded);
  if (memory == nullptr) return record(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(g_host_mutex);
  host_allocations()[memory] = size;
  *ptr = memory;
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, size_t size) { return cudaHostAlloc(ptr, size, cudaHostAllocDefault); }

cudaError_t cudaFreeHost(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;
  std::lock_guard<std::mutex> lock(g_host_mutex);
  if (host_allocations().erase(ptr) == 0) return record(cudaErrorInvalidValue);
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) return record(cudaErrorInvalidValue);
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  return record(device->run_sync([&](DeviceState& d) {
    const kestrel_status status = kestrel_mem_get_info(d.handle(), free, total);
    return status == KESTREL_SUCCESS ? cudaSuccess : d.fail(status);
  }));
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return record(copy(dst, count, src, count, count, 1, kind, nullptr, true));
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  return record(copy(dst, count, src, count, count, 1, kind, stream, false));
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind) {
  return record(copy(dst, dpitch, src, spitch, width, height, kind, nullptr, true));
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return record(copy(dst, dpitch, src, spitch, width, height, kind, stream, false));
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return record(fill(devPtr, value, count, nullptr, true));
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return record(fill(devPtr, value, count, stream, false));
}

// ---- Symbols --------------------------------------------------------------------------------

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
  return record(symbol_copy(true, const_cast<void*>(src), symbol, count, offset, kind, nullptr, true));
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
  return record(symbol_copy(false, dst, symbol, count, offset, kind, nullptr, true));
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
  return record(symbol_copy(true, const_cast<void*>(src), symbol, count, offset, kind, stream, false));
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
  return record(symbol_copy(false, dst, symbol, count, offset, kind, stream, false));
}

cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  if (devPtr == nullptr) return record(cudaErrorInvalidValue);
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  const DeviceVariable* variable = nullptr;
  uint64_t address = 0;
  const cudaError_t found = symbol_address(device, symbol, &variable, &address);
  if (found != cudaSuccess) return record(found);
  *devPtr = pointer_to(address);
  return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  if (size == nullptr) return record(cudaErrorInvalidValue);
  const DeviceVariable* variable = Runtime::get().registry().variable(symbol);
  if (variable == nullptr) return record(cudaErrorInvalidSymbol);
  *size = variable->bytes;
  return cudaSuccess;
}

// ---- Streams ----------------------------------------------------------------------------------

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  if (stream == nullptr) return record(cudaErrorInvalidValue);
  if ((flags & ~static_cast<unsigned>(cudaStreamNonBlocking)) != 0) return record(cudaErrorInvalidValue);
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  // Kestrel runs one kernel at a time and starts stream work in issue order,
  // so every priority is the same one (cudaDeviceGetStreamPriorityRange
  // reports 0..0) and CUDA clamps.
  (void)priority;
  auto* created = new CUstream_st{device, flags, 0};
  Runtime::get().add_stream(created);
  *stream = created;
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return cudaStreamCreateWithPriority(stream, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithPriority(stream, 0, 0); }

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (is_default_stream(stream) || !Runtime::get().stream_live(stream))
    return record(cudaErrorInvalidResourceHandle);
  // Work already queued still runs (as in CUDA); the handle dies after it.
  stream->device->synchronize_stream(stream);
  Runtime::get().destroy_stream(stream);
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  Target target;
  const cudaError_t error = resolve(stream, &target);
  if (error != cudaSuccess) return record(error);
  if (target.stream == target.device->default_stream()) return record(target.device->synchronize());
  return record(target.device->synchronize_stream(target.stream));
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  Target target;
  const cudaError_t error = resolve(stream, &target);
  if (error != cudaSuccess) return record(error);
  std::lock_guard<std::mutex> lock(target.device->mutex());
  return target.device->stream_idle(target.stream) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  if (flags != 0) return record(cudaErrorInvalidValue);
  Target target;
  const cudaError_t error = resolve(stream, &target);
  if (error != cudaSuccess) return record(error);
  if (!Runtime::get().event_live(event)) return record(cudaErrorInvalidResourceHandle);
  // Later work of the stream waits until the event's latest record has
  // completed.  An event of another device is waited for here, on the host.
  if (event->device != target.device) {
    std::unique_lock<std::mutex> lock(event->device->mutex());
    const uint64_t wanted = event->records;
    event->device->changed().wait(lock, [&] { return event->completed >= wanted; });
    return cudaSuccess;
  }
  uint64_t wanted = 0;
  {
    std::lock_guard<std::mutex> lock(target.device->mutex());
    wanted = event->records;
  }
  if (wanted == 0) return cudaSuccess;
  Operation wait;
  wait.stream = target.stream;
  wait.run = [](DeviceState&) { return cudaSuccess; };
  wait.ready = [event, wanted] { return Runtime::get().event_reached(event, wanted); };
  target.device->submit(std::move(wait));
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  if (fn == nullptr) return record(cudaErrorInvalidValue);
  Target target;
  const cudaError_t error = resolve(stream, &target);
  if (error != cudaSuccess) return record(error);
  target.device->submit(target.stream, [fn, userData](DeviceState&) {
    fn(userData);
    return cudaSuccess;
  });
  return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int flags) {
  if (callback == nullptr || flags != 0) return record(cudaErrorInvalidValue);
  Target target;
  const cudaError_t error = resolve(stream, &target);
  if (error != cudaSuccess) return record(error);
  const cudaStream_t handle = target.handle;
  target.device->submit(target.stream, [callback, userData, handle](DeviceState& device) {
    callback(handle, device.sticky_error(), userData);
    return cudaSuccess;
  });
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority != nullptr) *leastPriority = 0;
  if (greatestPriority != nullptr) *greatestPriority = 0;
  return cudaSuccess;
}

// ---- Events ------------------------------------------------------------------------------------

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (event == nullptr) return record(cudaErrorInvalidValue);
  const unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if ((flags & ~known) != 0) return record(cudaErrorInvalidValue);
  // Interprocess events need a timing-free event, as in CUDA.
  if ((flags & cudaEventInterprocess) != 0 && (flags & cudaEventDisableTiming) == 0)
    return record(cudaErrorInvalidValue);
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  auto* created = new CUevent_st{device, flags};
  Runtime::get().add_event(created);
  *event = created;
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (!Runtime::get().event_live(event)) return record(cudaErrorInvalidResourceHandle);
  {
    std::unique_lock<std::mutex> lock(event->device->mutex());
    const uint64_t wanted = event->records;
    event->device->changed().wait(lock, [&] { return event->completed >= wanted; });
  }
  Runtime::get().destroy_event(event);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!Runtime::get().event_live(event)) return record(cudaErrorInvalidResourceHandle);
  Target target;
  const cudaError_t error = resolve(stream, &target);
  if (error != cudaSuccess) return record(error);
  if (event->device != target.device) return record(cudaErrorInvalidResourceHandle);
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(target.device->mutex());
    generation = ++event->records;
  }
  // A record completes even after a kernel fault (the device's sticky error),
  // so that nothing waiting for the event waits forever.
  Operation operation;
  operation.stream = target.stream;
  operation.despite_sticky = true;
  operation.run = [event, generation](DeviceState& device) {
    std::lock_guard<std::mutex> lock(device.mutex());
    event->cycles = device.device_cycles();
    event->completed = generation;
    return cudaSuccess;
  };
  target.device->submit(std::move(operation));
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (!Runtime::get().event_live(event)) return record(cudaErrorInvalidResourceHandle);
  std::lock_guard<std::mutex> lock(event->device->mutex());
  return event->completed >= event->records ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!Runtime::get().event_live(event)) return record(cudaErrorInvalidResourceHandle);
  DeviceState* device = event->device;
  std::unique_lock<std::mutex> lock(device->mutex());
  const uint64_t wanted = event->records;
  device->changed().wait(lock, [&] { return event->completed >= wanted; });
  lock.unlock();
  device->flush_output();
  return record(device->sticky_error());
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) return record(cudaErrorInvalidValue);
  Runtime& runtime = Runtime::get();
  if (!runtime.event_live(start) || !runtime.event_live(end)) return record(cudaErrorInvalidResourceHandle);
  if (start->device != end->device) return record(cudaErrorInvalidResourceHandle);
  if (((start->flags | end->flags) & cudaEventDisableTiming) != 0)
    return record(cudaErrorInvalidResourceHandle);
  DeviceState* device = start->device;
  std::lock_guard<std::mutex> lock(device->mutex());
  if (start->records == 0 || end->records == 0) return record(cudaErrorInvalidResourceHandle);
  if (start->completed < start->records || end->completed < end->records) return record(cudaErrorNotReady);
  // Time on the device is its cycle counter over its clock: the cycles of
  // the kernels that ran between the two records.
  const double cycles = static_cast<double>(end->cycles) - static_cast<double>(start->cycles);
  const double khz = device->props().clock_khz == 0 ? 1.0 : static_cast<double>(device->props().clock_khz);
  *ms = static_cast<float>(cycles / khz);
  return cudaSuccess;
}

// ---- Kernels ---------------------------------------------------------------------------------------

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, void* stream) {
  t_configurations.push_back(
      LaunchConfiguration{gridDim, blockDim, sharedMem, static_cast<cudaStream_t>(stream)});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream) {
  if (t_configurations.empty()) return record(cudaErrorMissingConfiguration);
  const LaunchConfiguration configuration = t_configurations.back();
  t_configurations.pop_back();
  if (gridDim != nullptr) *gridDim = configuration.grid;
  if (blockDim != nullptr) *blockDim = configuration.block;
  if (sharedMem != nullptr) *sharedMem = configuration.shared;
  if (stream != nullptr) *static_cast<cudaStream_t*>(stream) = configuration.stream;
  return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                             cudaStream_t stream) {
  const KernelFunction* function = nullptr;
  const cudaError_t found = kernel_of(func, &function);
  if (found != cudaSuccess) return record(found);
  Target target;
  const cudaError_t resolved = resolve(stream, &target);
  if (resolved != cudaSuccess) return record(resolved);
  const kestrel_device_props& p = target.device->props();
  const uint64_t threads = uint64_t{blockDim.x} * blockDim.y * blockDim.z;
  if (gridDim.x == 0 || gridDim.y == 0 || gridDim.z == 0 || threads == 0 || gridDim.x > p.max_grid_dim[0] ||
      gridDim.y > p.max_grid_dim[1] || gridDim.z > p.max_grid_dim[2] || blockDim.x > p.max_block_dim[0] ||
      blockDim.y > p.max_block_dim[1] || blockDim.z > p.max_block_dim[2] ||
      threads > p.max_threads_per_block ||
      static_shared_bytes(*function) + sharedMem > p.shared_mem_per_block)
    return record(cudaErrorInvalidConfiguration);
  const kestrel::runtime::KernelInfo& info = *function->info;
  if (!info.params.empty() && args == nullptr) return record(cudaErrorInvalidValue);
  // The arguments live in the caller's frame only until this call returns:
  // copy each one, as many bytes as the host passes for it.
  auto storage = std::make_shared<std::vector<std::vector<uint8_t>>>();
  for (size_t i = 0; i < info.params.size(); ++i) {
    if (args[i] == nullptr) return record(cudaErrorInvalidValue);
    const size_t bytes =
        info.params[i].kind == KESTREL_PARAM_POINTER ? sizeof(kestrel_devptr_t) : info.params[i].size;
    const auto* begin = static_cast<const uint8_t*>(args[i]);
    storage->emplace_back(begin, begin + bytes);
  }
  const kestrel_dim3 grid{gridDim.x, gridDim.y, gridDim.z}, block{blockDim.x, blockDim.y, blockDim.z};
  const uint32_t shared = static_cast<uint32_t>(sharedMem);
  // The launch starts the kernel; the worker runs it in slices, other
  // streams' copies between them, and finishes it when it ends.
  Operation launch;
  launch.stream = target.stream;
  launch.run = [function, storage, grid, block, shared](DeviceState& device) {
    cudaError_t error = cudaSuccess;
    kestrel_kernel_t* kernel = device.kernel_for(*function, &error);
    if (kernel == nullptr) return error;
    std::vector<void*> pointers;
    for (std::vector<uint8_t>& value : *storage) pointers.push_back(value.data());
    const kestrel_status status = kestrel_launch(kernel, grid, block, shared, pointers.data());
    return status == KESTREL_SUCCESS ? cudaSuccess : device.fail(status);
  };
  launch.finish = [](DeviceState& device) {
    const kestrel_status status = kestrel_synchronize(device.handle());
    if (status != KESTREL_SUCCESS) return device.fail(status);
    kestrel_counters counters{};
    if (kestrel_get_counters(device.handle(), &counters) == KESTREL_SUCCESS)
      device.add_cycles(counters.value[KESTREL_CNT_CYCLES]);
    return cudaSuccess;
  };
  target.device->submit(std::move(launch));
  return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func) {
  if (attr == nullptr) return record(cudaErrorInvalidValue);
  const KernelFunction* function = nullptr;
  const cudaError_t found = kernel_of(func, &function);
  if (found != cudaSuccess) return record(found);
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  size_t stack = 0;
  cudaDeviceGetLimit(&stack, cudaLimitStackSize);
  std::memset(attr, 0, sizeof *attr);
  const kestrel_device_props& p = device->props();
  attr->sharedSizeBytes = static_shared_bytes(*function);
  attr->localSizeBytes = stack;
  attr->maxThreadsPerBlock = static_cast<int>(p.max_threads_per_block);
  attr->numRegs = kRegistersPerThread;
  attr->ptxVersion = 70;
  attr->binaryVersion = 70;
  attr->maxDynamicSharedSizeBytes = static_cast<int>(p.shared_mem_per_block - attr->sharedSizeBytes);
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize) {
  if (numBlocks == nullptr || blockSize <= 0) return record(cudaErrorInvalidValue);
  const KernelFunction* function = nullptr;
  const cudaError_t found = kernel_of(func, &function);
  if (found != cudaSuccess) return record(found);
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  *numBlocks = blocks_per_sm(device->props(), blockSize, static_shared_bytes(*function) + dynamicSMemSize);
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, const void* func,
                                               size_t dynamicSMemSize, int blockSizeLimit) {
  if (minGridSize == nullptr || blockSize == nullptr || blockSizeLimit < 0)
    return record(cudaErrorInvalidValue);
  const KernelFunction* function = nullptr;
  const cudaError_t found = kernel_of(func, &function);
  if (found != cudaSuccess) return record(found);
  DeviceState* device = nullptr;
  const cudaError_t error = current_device(&device);
  if (error != cudaSuccess) return record(error);
  const kestrel_device_props& p = device->props();
  int limit = static_cast<int>(p.max_threads_per_block);
  if (blockSizeLimit > 0) limit = std::min(limit, blockSizeLimit);
  const uint64_t shared = static_shared_bytes(*function) + dynamicSMemSize;
  int best_size = 0, best_blocks = 0, best_threads = 0;
  // Largest block first: on a tie in resident threads the larger block wins, as in CUDA.
  // Candidates: the limit itself, then every whole number of warps below it.
  const int warp = static_cast<int>(p.warp_size);
  for (int size = limit; size > 0; size = size % warp != 0 ? size - size % warp : size - warp) {
    const int blocks = blocks_per_sm(p, size, shared);
    if (blocks * size > best_threads) {
      best_threads = blocks * size;
      best_blocks = blocks;
      best_size = size;
    }
  }
  *blockSize = best_size;
  *minGridSize = best_blocks * static_cast<int>(p.num_sms);
  return cudaSuccess;
}

// ---- Registration (called by clang's generated host code) ------------------------------------------

void** __cudaRegisterFatBinary(void* fatCubin) {
  return reinterpret_cast<void**>(Runtime::get().registry().add_binary(fatCubin));
}

void __cudaRegisterFatBinaryEnd(void** fatCubinHandle) { (void)fatCubinHandle; }

void __cudaUnregisterFatBinary(void** fatCubinHandle) {
  // Modules stay loaded until their devices close when the process ends;
  // clang calls this from an atexit handler, after which nothing launches.
  (void)fatCubinHandle;
}

int __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                           const char* deviceName, int thread_limit, uint3* tid, uint3* bid, dim3* bDim,
                           dim3* gDim, int* wSize) {
  (void)deviceName, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
  Runtime::get().registry().add_function(reinterpret_cast<FatBinary*>(fatCubinHandle), hostFun, deviceFun);
  return 0;
}

void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress, const char* deviceName,
                       int ext, size_t size, int constant, int global) {
  (void)deviceName, (void)ext, (void)global;
  Runtime::get().registry().add_variable(reinterpret_cast<FatBinary*>(fatCubinHandle), hostVar, deviceAddress,
                                         size, constant != 0);
}

}  // extern "C"
