#include "api_common.hpp"

#include <mutex>

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

DeviceState& current_device() {
  DeviceState& device = opened_device(current_ordinal());
  check(device.sticky_error());
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
  check(target.device->sticky_error());
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

}  // namespace kestrel::cudart
