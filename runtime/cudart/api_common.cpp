#include "api_common.hpp"

#include <cstdio>
#include <mutex>
#include <string>

namespace kestrel::cudart {

int& current_ordinal() {
  thread_local int ordinal = 0;
  return ordinal;
}

DeviceState& opened_device(int ordinal) {
  DeviceState* device = Runtime::get().device(ordinal);
  require(device != nullptr, cudaErrorInvalidDevice);
  check(device->ensure_open());
  return *device;
}

void check_sticky(DeviceState& device) {
  if (device.sticky_error() == cudaSuccess) return;
  // The worker sets the sticky error while it finishes the faulted launch:
  // wait for it, so that the launch's printf output (and the assert message)
  // is printed before the error is reported, as CUDA prints it at the
  // synchronization that reports the error (guide B.17.2).
  static_cast<void>(device.synchronize());
  check(device.sticky_error());
}

DeviceState& current_device() {
  DeviceState& device = opened_device(current_ordinal());
  check_sticky(device);
  return device;
}

bool is_default_stream(cudaStream_t stream) {
  return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

Target resolve(cudaStream_t stream) {
  Target target;
  target.handle = stream;
  if (is_default_stream(stream)) {
    target.device = &current_device();
    target.stream = target.device->default_stream();
    return target;
  }
  require(Runtime::get().stream_live(stream), cudaErrorInvalidResourceHandle);
  target.device = stream->device;
  target.stream = stream;
  check(target.device->ensure_open());
  check_sticky(*target.device);
  return target;
}

void dispatch(const Target& target, bool wait, Work op) {
  if (!wait) {
    target.device->submit(target.stream, std::move(op));
    return;
  }
  if (target.stream != target.device->default_stream()) {
    target.device->submit(target.stream, std::move(op));
    check(target.device->synchronize_stream(target.stream));
    return;
  }
  const cudaError_t result = target.device->run_sync(std::move(op));
  target.device->flush_output();
  check(result);
}

bool holds(DeviceState& device, const void* pointer, size_t bytes) {
  std::lock_guard<std::mutex> lock(device.mutex());
  return device.holds(address_of(pointer), bytes);
}

int other_owner(const DeviceState* except, const void* pointer) {
  Runtime& runtime = Runtime::get();
  const int count = runtime.device_count();
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    DeviceState* device = runtime.device(ordinal);
    if (device == nullptr || device == except) continue;
    if (holds(*device, pointer, 1)) return ordinal;
  }
  return -1;
}

void reject(cudaError_t error, const std::string& message) {
  std::fprintf(stderr, "kestrel: %s\n", message.c_str());
  throw CudaError(error);
}

std::string hex_address(const void* pointer) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address_of(pointer)));
  return text;
}

void require_device_range(const char* api, const char* role, DeviceState& device, const void* pointer,
                          size_t bytes) {
  if (holds(device, pointer, bytes)) return;
  const std::string what = std::string(api) + ": the " + role + " " + hex_address(pointer);
  const std::string here = "device " + std::to_string(device.ordinal());
  if (holds(device, pointer, 1))
    reject(cudaErrorInvalidValue, what + " + " + std::to_string(bytes) + " bytes runs past the end of its " +
                                      "allocation on " + here);
  const int owner = other_owner(&device, pointer);
  if (owner >= 0)
    reject(cudaErrorInvalidValue, what + " is memory of device " + std::to_string(owner) +
                                      ", but the call runs on " + here + " (no peer access: cudaSetDevice(" +
                                      std::to_string(owner) + ") or a stream of that device)");
  reject(cudaErrorInvalidValue, what + " is not device memory of " + here + " (a host pointer, or freed?)");
}

}  // namespace kestrel::cudart
