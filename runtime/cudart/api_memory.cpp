// Device and page-locked host memory, copies, fills and module variables
// (guide 3.2.2, 3.2.4, B.2).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api_common.hpp"
#include "managed_memory.hpp"

using namespace kestrel::cudart;

namespace {

// ---- Copies -------------------------------------------------------------------

const char* kind_name(cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToHost:
      return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice:
      return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost:
      return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice:
      return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault:
      return "cudaMemcpyDefault";
  }
  return "an unknown direction";
}

}  // namespace

namespace kestrel::cudart {

Side side_of(const char* api, const char* role, DeviceState& device, const void* pointer, size_t span,
             cudaMemcpyKind kind, bool device_by_kind) {
  const std::string what = std::string(api) + ": the " + role + " " + hex_address(pointer);
  if (ManagedMemory::get().holds(&device, address_of(pointer), span)) return Side::managed;
  if (kind == cudaMemcpyDefault) {
    if (holds(device, pointer, 1)) {
      require_device_range(api, role, device, pointer, span);
      return Side::device;
    }
    const int owner = other_owner(&device, pointer);
    if (owner >= 0)
      reject(cudaErrorInvalidValue, what + " is memory of device " + std::to_string(owner) +
                                        ", but the call runs on device " + std::to_string(device.ordinal()) +
                                        " (no peer access: cudaSetDevice(" + std::to_string(owner) +
                                        ") or a stream of that device)");
    return Side::host;
  }
  if (device_by_kind) {
    require_device_range(api, role, device, pointer, span);
    return Side::device;
  }
  const int owner = holds(device, pointer, 1) ? device.ordinal() : other_owner(&device, pointer);
  if (owner >= 0)
    reject(cudaErrorInvalidValue, what + " is device memory (of device " + std::to_string(owner) + "), but " +
                                      kind_name(kind) + " says it is host memory");
  return Side::host;
}

}  // namespace kestrel::cudart

namespace {

// One row-by-row copy of `height` rows of `width` bytes (height 1: a plain copy).
// An asynchronous copy (`wait` false) with pageable host memory behaves as
// CUDA's (runtime API, "API synchronization behavior"): a pageable source is
// staged before the call returns, so the caller may reuse it at once, and a
// copy into pageable memory, or from host to host, returns only once it has
// completed.  Page-locked memory is read and written when the stream gets there.
void copy(const char* api, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
          size_t height, cudaMemcpyKind kind, cudaStream_t stream, bool wait) {
  require(kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault, cudaErrorInvalidMemcpyDirection);
  require(width <= dpitch && width <= spitch, cudaErrorInvalidPitchValue);
  const Target target = resolve(stream);
  if (width == 0 || height == 0) return;
  require(dst != nullptr && src != nullptr, cudaErrorInvalidValue);
  const size_t dst_span = dpitch * (height - 1) + width;
  const size_t src_span = spitch * (height - 1) + width;
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  const Side dst_side = side_of(api, "destination", *target.device, dst, dst_span, kind, dst_device);
  const Side src_side = side_of(api, "source", *target.device, src, src_span, kind, src_device);
  std::shared_ptr<std::vector<uint8_t>> staged;
  if (!wait && dst_side == Side::host && (src_side == Side::host || !page_locked(dst, dst_span))) {
    wait = true;
  } else if (!wait && src_side == Side::host && !page_locked(src, src_span)) {
    const auto* bytes = static_cast<const uint8_t*>(src);
    staged = std::make_shared<std::vector<uint8_t>>(bytes, bytes + src_span);
  }
  const uint64_t d = address_of(dst), s = address_of(staged ? staged->data() : src);
  dispatch(target, wait, [=](DeviceState& device) {
    (void)staged;  // kept alive until the copy has run
    kestrel::runtime::DeviceContext& context = device.context();
    // The host memory of a side, or nullptr for device memory.
    auto host_memory = [&](Side side, uint64_t address) -> void* {
      if (side == Side::host) return pointer_to(address);
      if (side == Side::managed) return ManagedMemory::get().host_copy(device, address);
      return nullptr;
    };
    bool touched_device = false;
    // Concurrent: a copy runs beside the kernel in flight (the copy engine).
    for (size_t row = 0; row < height; ++row) {
      const uint64_t to = d + row * dpitch, from = s + row * spitch;
      void* const to_host = host_memory(dst_side, to);
      const void* const from_host = host_memory(src_side, from);
      touched_device = touched_device || to_host == nullptr || from_host == nullptr;
      if (to_host != nullptr && from_host != nullptr)
        std::memmove(to_host, from_host, width);
      else if (from_host != nullptr)
        context.copy_to_device(to, from_host, width, true);
      else if (to_host != nullptr)
        context.copy_to_host(to_host, from, width, true);
      else
        context.copy_on_device(to, from, width, true);
    }
    if (touched_device) device.add_copy_cycles(uint64_t{width} * height);
  });
}

void fill(const char* api, void* pointer, int value, size_t count, cudaStream_t stream, bool wait) {
  const Target target = resolve(stream);
  if (count == 0) return;
  require_device_range(api, "destination", *target.device, pointer, count);
  const uint64_t address = address_of(pointer);
  const auto byte = static_cast<uint8_t>(static_cast<unsigned>(value) & 0xFFu);
  dispatch(target, wait, [=](DeviceState& device) {
    if (void* host = ManagedMemory::get().host_copy(device, address)) {
      std::memset(host, byte, count);  // a managed allocation the host owns now
      return;
    }
    device.context().fill(address, byte, count, true);
    device.add_copy_cycles(count);
  });
}

// ---- Symbols --------------------------------------------------------------------

const DeviceVariable& variable_of(const void* symbol) {
  const DeviceVariable* variable = Runtime::get().registry().variable(symbol);
  require(variable != nullptr, cudaErrorInvalidSymbol);
  return *variable;
}

// The device address of `variable`, its module placed on first use.
uint64_t symbol_address(DeviceState& device, const DeviceVariable& variable) {
  kestrel_devptr_t address = 0;
  check(device.run_sync([&](DeviceState& d) { address = d.symbol_address(variable); }));
  return address;
}

void symbol_copy(const char* api, bool to_symbol, void* host_or_device, const void* symbol, size_t count,
                 size_t offset, cudaMemcpyKind kind, cudaStream_t stream, bool wait) {
  const Target target = resolve(stream);
  const DeviceVariable& variable = variable_of(symbol);
  const uint64_t address = symbol_address(*target.device, variable);
  require(offset <= variable.bytes && count <= variable.bytes - offset, cudaErrorInvalidValue);
  require(kind == cudaMemcpyDefault || kind == cudaMemcpyDeviceToDevice ||
              kind == (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost),
          cudaErrorInvalidMemcpyDirection);
  // The symbol is device memory of the call's device (symbol_address noted
  // its range), so the copy's own checks see both sides the right way.
  void* symbol_pointer = pointer_to(address + offset);
  if (to_symbol)
    copy(api, symbol_pointer, count, host_or_device, count, count, 1, kind, stream, wait);
  else
    copy(api, host_or_device, count, symbol_pointer, count, count, 1, kind, stream, wait);
}

// ---- Page-locked host memory ------------------------------------------------------

std::mutex g_host_mutex;
// Ranges page-locked by cudaHostRegister, under g_host_mutex.
std::map<void*, size_t>& host_registrations() {
  static std::map<void*, size_t> ranges;
  return ranges;
}
std::map<void*, size_t>& host_allocations() {
  static std::map<void*, size_t> allocations;
  return allocations;
}

}  // namespace

bool kestrel::cudart::page_locked(const void* pointer, size_t bytes) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(pointer);
  std::lock_guard<std::mutex> lock(g_host_mutex);
  for (const std::map<void*, size_t>* ranges : {&host_registrations(), &host_allocations()}) {
    auto it = ranges->upper_bound(const_cast<void*>(pointer));
    if (it == ranges->begin()) continue;
    --it;
    const uintptr_t start = reinterpret_cast<uintptr_t>(it->first);
    if (begin - start < it->second && bytes <= it->second - (begin - start)) return true;
  }
  return false;
}

namespace {

// cudaFree and cudaFreeAsync of something that is no live allocation of
// `device`: another device's allocation gets a message saying so.
[[noreturn]] void refuse_free(const char* api, DeviceState& device, void* devPtr) {
  const int owner = other_owner(&device, devPtr);
  if (owner >= 0)
    reject(cudaErrorInvalidValue, std::string(api) + ": " + hex_address(devPtr) + " is memory of device " +
                                      std::to_string(owner) + ", but the current device is " +
                                      std::to_string(device.ordinal()) + " (cudaSetDevice(" +
                                      std::to_string(owner) + ") first)");
  // A pointer into an allocation or a freed one is a plain
  // cudaErrorInvalidValue, as in CUDA.
  throw CudaError(cudaErrorInvalidValue);
}

}  // namespace

// A device's default memory pool (cudaMallocAsync).  It keeps no memory of
// its own: its bookkeeping is which live allocations came from it, for the
// usage attributes, and the attributes a program set.  Under g_pool_mutex.
struct CUmemPoolHandle_st {
  int ordinal = 0;
  uint64_t release_threshold = 0;
  int reuse[3] = {1, 1, 1};  // the three cudaMemPoolReuse* policies, on by default
  std::map<uint64_t, size_t> live;
  uint64_t used_high = 0;
};

namespace {

std::mutex g_pool_mutex;
std::map<int, std::unique_ptr<CUmemPoolHandle_st>>& pools() {
  static std::map<int, std::unique_ptr<CUmemPoolHandle_st>> by_ordinal;
  return by_ordinal;
}
CUmemPoolHandle_st& pool_of_locked(int ordinal) {
  std::unique_ptr<CUmemPoolHandle_st>& pool = pools()[ordinal];
  if (!pool) {
    pool = std::make_unique<CUmemPoolHandle_st>();
    pool->ordinal = ordinal;
  }
  return *pool;
}
// The pool's bytes in live allocations; forgets those a cudaDeviceReset ended.
uint64_t pool_used_locked(CUmemPoolHandle_st& pool) {
  DeviceState* device = Runtime::get().device(pool.ordinal);
  uint64_t used = 0;
  std::lock_guard<std::mutex> lock(device->mutex());
  for (auto it = pool.live.begin(); it != pool.live.end();) {
    if (device->allocations.count(it->first) == 0) {
      it = pool.live.erase(it);
    } else {
      used += it->second;
      ++it;
    }
  }
  return used;
}
void pool_forget(int ordinal, uint64_t address) {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  const auto it = pools().find(ordinal);
  if (it != pools().end()) it->second->live.erase(address);
}
CUmemPoolHandle_st& live_pool(cudaMemPool_t pool) {
  for (const auto& [ordinal, candidate] : pools())
    if (candidate.get() == pool) return *candidate;
  throw CudaError(cudaErrorInvalidValue);
}

}  // namespace

extern "C" {

// ---- Device memory -------------------------------------------------------------------

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  return api([&] {
    require(devPtr != nullptr, cudaErrorInvalidValue);
    *devPtr = nullptr;
    DeviceState& device = current_device();
    if (size == 0) return;
    kestrel_devptr_t address = 0;
    check(device.run_sync([&](DeviceState& d) { address = d.context().allocate(size); }));
    {
      std::lock_guard<std::mutex> lock(device.mutex());
      device.allocations[address] = DeviceState::Allocation{size};
    }
    *devPtr = pointer_to(address);
  });
}

cudaError_t cudaFree(void* devPtr) {
  return api([&] {
    DeviceState& device = current_device();
    if (devPtr == nullptr) return;
    const uint64_t address = address_of(devPtr);
    bool live = false;
    {
      std::lock_guard<std::mutex> lock(device.mutex());
      live = device.allocations.erase(address) != 0;
    }
    if (!live) refuse_free("cudaFree", device, devPtr);
    pool_forget(device.ordinal(), address);
    check(device.run_sync([address](DeviceState& d) { d.context().release(address); }));
    ManagedMemory::get().remove(address);
  });
}

cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t stream) {
  return api([&] {
    require(devPtr != nullptr, cudaErrorInvalidValue);
    *devPtr = nullptr;
    const Target target = resolve(stream);
    DeviceState& device = *target.device;
    if (size == 0) return;
    // Allocated now, so it exists before the stream reaches this point.
    kestrel_devptr_t address = 0;
    check(device.run_sync([&](DeviceState& d) { address = d.context().allocate(size); }));
    {
      std::lock_guard<std::mutex> lock(device.mutex());
      device.allocations[address] = DeviceState::Allocation{size};
    }
    {
      std::lock_guard<std::mutex> lock(g_pool_mutex);
      CUmemPoolHandle_st& pool = pool_of_locked(device.ordinal());
      pool.live[address] = size;
      pool.used_high = std::max(pool.used_high, pool_used_locked(pool));
    }
    *devPtr = pointer_to(address);
  });
}

cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t stream) {
  return api([&] {
    const Target target = resolve(stream);
    DeviceState& device = *target.device;
    if (devPtr == nullptr) return;
    const uint64_t address = address_of(devPtr);
    bool live = false;
    {
      std::lock_guard<std::mutex> lock(device.mutex());
      live = device.allocations.erase(address) != 0;
    }
    // Later calls may not name it; work queued before still may use it.
    if (!live) refuse_free("cudaFreeAsync", device, devPtr);
    pool_forget(device.ordinal(), address);
    // Returned when the stream gets there, and never under a kernel of
    // another stream (the allocator needs the device idle).
    Operation free;
    free.stream = target.stream;
    DeviceState* owner = &device;
    free.ready = [owner] { return !owner->kernel_in_flight(); };
    free.run = [address](DeviceState& d) { d.context().release(address); };
    device.submit(std::move(free));
  });
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  return api([&] {
    require(memPool != nullptr, cudaErrorInvalidValue);
    require(Runtime::get().device(device) != nullptr, cudaErrorInvalidDevice);
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    *memPool = &pool_of_locked(device);
  });
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  return api([&] {
    require(value != nullptr, cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    CUmemPoolHandle_st& pool = live_pool(memPool);
    switch (attr) {
      case cudaMemPoolReuseFollowEventDependencies:
      case cudaMemPoolReuseAllowOpportunistic:
      case cudaMemPoolReuseAllowInternalDependencies: {
        const int flag = *static_cast<const int*>(value);
        require(flag == 0 || flag == 1, cudaErrorInvalidValue);
        pool.reuse[attr - cudaMemPoolReuseFollowEventDependencies] = flag;
        return;
      }
      case cudaMemPoolAttrReleaseThreshold:
        pool.release_threshold = *static_cast<const uint64_t*>(value);
        return;
      case cudaMemPoolAttrReservedMemHigh:
      case cudaMemPoolAttrUsedMemHigh:
        // Only a reset to the current use is allowed.
        require(*static_cast<const uint64_t*>(value) == 0, cudaErrorInvalidValue);
        pool.used_high = pool_used_locked(pool);
        return;
      default:
        throw CudaError(cudaErrorInvalidValue);
    }
  });
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  return api([&] {
    require(value != nullptr, cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    CUmemPoolHandle_st& pool = live_pool(memPool);
    switch (attr) {
      case cudaMemPoolReuseFollowEventDependencies:
      case cudaMemPoolReuseAllowOpportunistic:
      case cudaMemPoolReuseAllowInternalDependencies:
        *static_cast<int*>(value) = pool.reuse[attr - cudaMemPoolReuseFollowEventDependencies];
        return;
      case cudaMemPoolAttrReleaseThreshold:
        *static_cast<uint64_t*>(value) = pool.release_threshold;
        return;
      // The pool reserves exactly what is allocated from it.
      case cudaMemPoolAttrReservedMemCurrent:
      case cudaMemPoolAttrUsedMemCurrent:
        *static_cast<uint64_t*>(value) = pool_used_locked(pool);
        return;
      case cudaMemPoolAttrReservedMemHigh:
      case cudaMemPoolAttrUsedMemHigh:
        *static_cast<uint64_t*>(value) = pool.used_high;
        return;
      default:
        throw CudaError(cudaErrorInvalidValue);
    }
  });
}

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  return api([&] {
    require(devPtr != nullptr && pitch != nullptr, cudaErrorInvalidValue);
    *pitch = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
    require(height == 0 || *pitch <= SIZE_MAX / height, cudaErrorMemoryAllocation);
    check(cudaMalloc(devPtr, *pitch * height));
  });
}

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags) {
  return api([&] {
    require(ptr != nullptr, cudaErrorInvalidValue);
    *ptr = nullptr;
    const unsigned known = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
    require((flags & ~known) == 0, cudaErrorInvalidValue);
    // Mapped host memory would need the device to reach host memory, which no
    // Kestrel backend can (docs/cuda-runtime.md).
    require((flags & cudaHostAllocMapped) == 0, cudaErrorNotSupported);
    if (size == 0) return;
    // Page aligned so that a backend able to pin pages could; the model and RTL
    // simulators copy from anywhere, so the memory itself is ordinary.
    const size_t rounded = (size + 4095) / 4096 * 4096;
    void* memory = std::aligned_alloc(4096, rounded);
    require(memory != nullptr, cudaErrorMemoryAllocation);
    std::lock_guard<std::mutex> lock(g_host_mutex);
    host_allocations()[memory] = size;
    *ptr = memory;
  });
}

cudaError_t cudaMallocHost(void** ptr, size_t size) { return cudaHostAlloc(ptr, size, cudaHostAllocDefault); }

cudaError_t cudaFreeHost(void* ptr) {
  return api([&] {
    if (ptr == nullptr) return;
    std::lock_guard<std::mutex> lock(g_host_mutex);
    require(host_allocations().erase(ptr) != 0, cudaErrorInvalidValue);
    std::free(ptr);
  });
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  return api([&] {
    require(ptr != nullptr && size != 0, cudaErrorInvalidValue);
    const unsigned known = cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory |
                           cudaHostRegisterReadOnly;
    require((flags & ~known) == 0, cudaErrorInvalidValue);
    if ((flags & (cudaHostRegisterMapped | cudaHostRegisterIoMemory)) != 0)
      reject(cudaErrorNotSupported,
             "cudaHostRegister: no Kestrel device can reach host memory, so it cannot be mapped "
             "(canMapHostMemory is 0); register it without cudaHostRegisterMapped/IoMemory and copy it");
    const uintptr_t begin = reinterpret_cast<uintptr_t>(ptr);
    require(size <= UINTPTR_MAX - begin, cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(g_host_mutex);
    // Page-locked already: a registered range or cudaHostAlloc's memory.
    const auto overlaps = [&](const std::map<void*, size_t>& ranges) {
      for (const auto& [base, bytes] : ranges) {
        const uintptr_t start = reinterpret_cast<uintptr_t>(base);
        if (begin < start + bytes && start < begin + size) return true;
      }
      return false;
    };
    require(!overlaps(host_registrations()) && !overlaps(host_allocations()),
            cudaErrorHostMemoryAlreadyRegistered);
    // The simulators copy from any host memory; pinning is bookkeeping.
    host_registrations()[ptr] = size;
  });
}

cudaError_t cudaHostUnregister(void* ptr) {
  return api([&] {
    require(ptr != nullptr, cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(g_host_mutex);
    require(host_registrations().erase(ptr) != 0, cudaErrorHostMemoryNotRegistered);
  });
}

cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  return api([&] {
    require(pDevice != nullptr && pHost != nullptr && flags == 0, cudaErrorInvalidValue);
    *pDevice = nullptr;
    reject(cudaErrorNotSupported,
           "cudaHostGetDevicePointer: no Kestrel device can reach host memory, so host memory has no device "
           "address (canMapHostMemory is 0); copy it to device memory instead");
  });
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  return api([&] {
    require(free != nullptr && total != nullptr, cudaErrorInvalidValue);
    DeviceState& device = current_device();
    check(device.run_sync([&](DeviceState& d) {
      *free = d.context().free_bytes();
      *total = d.context().props().global_mem_bytes;
    }));
  });
}

// ---- Copies and fills ------------------------------------------------------------------

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return api([&] { copy("cudaMemcpy", dst, count, src, count, count, 1, kind, nullptr, true); });
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  return api([&] { copy("cudaMemcpyAsync", dst, count, src, count, count, 1, kind, stream, false); });
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind) {
  return api([&] { copy("cudaMemcpy2D", dst, dpitch, src, spitch, width, height, kind, nullptr, true); });
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return api(
      [&] { copy("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height, kind, stream, false); });
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return api([&] { fill("cudaMemset", devPtr, value, count, nullptr, true); });
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return api([&] { fill("cudaMemsetAsync", devPtr, value, count, stream, false); });
}

// ---- Symbols --------------------------------------------------------------------------------

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
  return api([&] {
    symbol_copy("cudaMemcpyToSymbol", true, const_cast<void*>(src), symbol, count, offset, kind, nullptr,
                true);
  });
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
  return api(
      [&] { symbol_copy("cudaMemcpyFromSymbol", false, dst, symbol, count, offset, kind, nullptr, true); });
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
  return api([&] {
    symbol_copy("cudaMemcpyToSymbolAsync", true, const_cast<void*>(src), symbol, count, offset, kind, stream,
                false);
  });
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
  return api([&] {
    symbol_copy("cudaMemcpyFromSymbolAsync", false, dst, symbol, count, offset, kind, stream, false);
  });
}

cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  return api([&] {
    require(devPtr != nullptr, cudaErrorInvalidValue);
    DeviceState& device = current_device();
    *devPtr = pointer_to(symbol_address(device, variable_of(symbol)));
  });
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  return api([&] {
    require(size != nullptr, cudaErrorInvalidValue);
    *size = variable_of(symbol).bytes;
  });
}

}  // extern "C"
