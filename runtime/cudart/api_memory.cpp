// Device and page-locked host memory, copies, fills and module variables
// (guide 3.2.2, 3.2.4, B.2).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "api_common.hpp"
#include "managed_memory.hpp"

using namespace kestrel::cudart;

namespace {

// ---- Copies -------------------------------------------------------------------

// A managed allocation (cudaMallocManaged) is either side: the copy touches
// whichever copy of it holds the data when it runs (managed_memory.hpp).
enum class Side { host, device, managed };

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

// The side of a copy's `role` ("source", "destination") pointer, whose
// `span` bytes the copy touches.  An explicit direction is checked against
// the device ranges the runtime knows, both ways: a device side must lie in
// one of the call's device's allocations or variables, and a host side must
// not be device memory of any device (the copy would dereference a device
// address on the host and crash).  cudaMemcpyDefault infers the side from
// those ranges (guide 3.2.7): the call's device's memory is device memory,
// another device's is an error (no peer access), anything else is host.
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

// One row-by-row copy of `height` rows of `width` bytes (height 1: a plain copy).
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
  const uint64_t d = address_of(dst), s = address_of(src);
  dispatch(target, wait, [=](DeviceState& device) {
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
std::map<void*, size_t>& host_allocations() {
  static std::map<void*, size_t> allocations;
  return allocations;
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
    if (!live) {
      // Another device's allocation is the likeliest mistake with several
      // devices; a pointer into an allocation or a freed one stays a plain
      // cudaErrorInvalidValue, as in CUDA.
      const int owner = other_owner(&device, devPtr);
      if (owner >= 0)
        reject(cudaErrorInvalidValue, "cudaFree: " + hex_address(devPtr) + " is memory of device " +
                                          std::to_string(owner) + ", but the current device is " +
                                          std::to_string(device.ordinal()) + " (cudaSetDevice(" +
                                          std::to_string(owner) + ") first)");
      throw CudaError(cudaErrorInvalidValue);
    }
    check(device.run_sync([address](DeviceState& d) { d.context().release(address); }));
    ManagedMemory::get().remove(address);
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
