// Device and page-locked host memory, copies, fills and module variables
// (guide 3.2.2, 3.2.4, B.2).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "api_common.hpp"

using namespace kestrel::cudart;

namespace {

// ---- Copies -------------------------------------------------------------------

enum class Side { host, device };

void sides_of(DeviceState& device, const void* dst, const void* src, cudaMemcpyKind kind, Side* dst_side,
              Side* src_side) {
  switch (kind) {
    case cudaMemcpyHostToHost:
      *dst_side = Side::host, *src_side = Side::host;
      return;
    case cudaMemcpyHostToDevice:
      *dst_side = Side::device, *src_side = Side::host;
      return;
    case cudaMemcpyDeviceToHost:
      *dst_side = Side::host, *src_side = Side::device;
      return;
    case cudaMemcpyDeviceToDevice:
      *dst_side = Side::device, *src_side = Side::device;
      return;
    case cudaMemcpyDefault:
      // Kestrel's device addresses are the allocations this runtime made;
      // anything else is host memory (guide 3.2.7, unified address space).
      *dst_side = holds(device, dst, 1) ? Side::device : Side::host;
      *src_side = holds(device, src, 1) ? Side::device : Side::host;
      return;
  }
  throw CudaError(cudaErrorInvalidMemcpyDirection);
}

// One row-by-row copy of `height` rows of `width` bytes (height 1: a plain copy).
void copy(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
          cudaMemcpyKind kind, cudaStream_t stream, bool wait) {
  require(kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault, cudaErrorInvalidMemcpyDirection);
  require(width <= dpitch && width <= spitch, cudaErrorInvalidPitchValue);
  const Target target = resolve(stream);
  if (width == 0 || height == 0) return;
  require(dst != nullptr && src != nullptr, cudaErrorInvalidValue);
  Side dst_side, src_side;
  sides_of(*target.device, dst, src, kind, &dst_side, &src_side);
  const size_t dst_span = dpitch * (height - 1) + width;
  const size_t src_span = spitch * (height - 1) + width;
  require(dst_side == Side::host || holds(*target.device, dst, dst_span), cudaErrorInvalidValue);
  require(src_side == Side::host || holds(*target.device, src, src_span), cudaErrorInvalidValue);
  const uint64_t d = address_of(dst), s = address_of(src);
  dispatch(target, wait, [=](DeviceState& device) {
    kestrel::runtime::DeviceContext& context = device.context();
    // Concurrent: a copy runs beside the kernel in flight (the copy engine).
    for (size_t row = 0; row < height; ++row) {
      const uint64_t to = d + row * dpitch, from = s + row * spitch;
      if (dst_side == Side::host && src_side == Side::host)
        std::memmove(pointer_to(to), pointer_to(from), width);
      else if (dst_side == Side::device && src_side == Side::host)
        context.copy_to_device(to, pointer_to(from), width, true);
      else if (dst_side == Side::host)
        context.copy_to_host(pointer_to(to), from, width, true);
      else
        context.copy_on_device(to, from, width, true);
    }
    if (dst_side == Side::device || src_side == Side::device)
      device.add_copy_cycles(uint64_t{width} * height);
  });
}

void fill(void* pointer, int value, size_t count, cudaStream_t stream, bool wait) {
  const Target target = resolve(stream);
  if (count == 0) return;
  require(holds(*target.device, pointer, count), cudaErrorInvalidValue);
  const uint64_t address = address_of(pointer);
  const auto byte = static_cast<uint8_t>(static_cast<unsigned>(value) & 0xFFu);
  dispatch(target, wait, [=](DeviceState& device) {
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

void symbol_copy(bool to_symbol, void* host_or_device, const void* symbol, size_t count, size_t offset,
                 cudaMemcpyKind kind, cudaStream_t stream, bool wait) {
  const Target target = resolve(stream);
  const DeviceVariable& variable = variable_of(symbol);
  const uint64_t address = symbol_address(*target.device, variable);
  require(offset <= variable.bytes && count <= variable.bytes - offset, cudaErrorInvalidValue);
  const bool other_side_on_device = kind == cudaMemcpyDeviceToDevice ||
                                    (kind == cudaMemcpyDefault && holds(*target.device, host_or_device, 1));
  require(kind == cudaMemcpyDefault || kind == cudaMemcpyDeviceToDevice ||
              kind == (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost),
          cudaErrorInvalidMemcpyDirection);
  const cudaMemcpyKind resolved_kind = other_side_on_device
                                           ? cudaMemcpyDeviceToDevice
                                           : (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  void* symbol_pointer = pointer_to(address + offset);
  if (to_symbol)
    copy(symbol_pointer, count, host_or_device, count, count, 1, resolved_kind, stream, wait);
  else
    copy(host_or_device, count, symbol_pointer, count, count, 1, resolved_kind, stream, wait);
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
    {
      std::lock_guard<std::mutex> lock(device.mutex());
      require(device.allocations.count(address) != 0, cudaErrorInvalidValue);
      device.allocations.erase(address);
    }
    check(device.run_sync([address](DeviceState& d) { d.context().release(address); }));
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
  return api([&] { copy(dst, count, src, count, count, 1, kind, nullptr, true); });
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  return api([&] { copy(dst, count, src, count, count, 1, kind, stream, false); });
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind) {
  return api([&] { copy(dst, dpitch, src, spitch, width, height, kind, nullptr, true); });
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return api([&] { copy(dst, dpitch, src, spitch, width, height, kind, stream, false); });
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return api([&] { fill(devPtr, value, count, nullptr, true); });
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return api([&] { fill(devPtr, value, count, stream, false); });
}

// ---- Symbols --------------------------------------------------------------------------------

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
  return api([&] { symbol_copy(true, const_cast<void*>(src), symbol, count, offset, kind, nullptr, true); });
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
  return api([&] { symbol_copy(false, dst, symbol, count, offset, kind, nullptr, true); });
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
  return api([&] { symbol_copy(true, const_cast<void*>(src), symbol, count, offset, kind, stream, false); });
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
  return api([&] { symbol_copy(false, dst, symbol, count, offset, kind, stream, false); });
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
