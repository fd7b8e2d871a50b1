// Streams, events and host functions in streams (guide 3.2.5).
#include <mutex>

#include "api_common.hpp"

using namespace kestrel::cudart;

namespace {

CUevent_st* live_event(cudaEvent_t event) {
  require(Runtime::get().event_live(event), cudaErrorInvalidResourceHandle);
  return event;
}

// Waits on the host until `event`'s latest record has completed.
void wait_for(CUevent_st* event) {
  std::unique_lock<std::mutex> lock(event->device->mutex());
  const uint64_t wanted = event->records;
  event->device->changed().wait(lock, [&] { return event->completed >= wanted; });
}

}  // namespace

extern "C" {

// ---- Streams ----------------------------------------------------------------------------------

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  return api([&] {
    require(stream != nullptr, cudaErrorInvalidValue);
    require((flags & ~static_cast<unsigned>(cudaStreamNonBlocking)) == 0, cudaErrorInvalidValue);
    DeviceState& device = current_device();
    // Kestrel runs one kernel at a time and starts stream work in issue order,
    // so every priority is the same one (cudaDeviceGetStreamPriorityRange
    // reports 0..0) and CUDA clamps.
    (void)priority;
    auto* created = new CUstream_st{&device, flags, 0};
    Runtime::get().add_stream(created);
    *stream = created;
  });
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return cudaStreamCreateWithPriority(stream, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithPriority(stream, 0, 0); }

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return api([&] {
    require(!is_default_stream(stream) && Runtime::get().stream_live(stream), cudaErrorInvalidResourceHandle);
    // Work already queued still runs (as in CUDA); the handle dies after it.
    stream->device->synchronize_stream(stream);
    Runtime::get().destroy_stream(stream);
  });
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return api([&] {
    const Target target = resolve(stream);
    if (target.stream == target.device->default_stream())
      check(target.device->synchronize());
    else
      check(target.device->synchronize_stream(target.stream));
  });
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  return api([&] {
    const Target target = resolve(stream);
    std::lock_guard<std::mutex> lock(target.device->mutex());
    return target.device->stream_idle(target.stream) ? cudaSuccess : cudaErrorNotReady;
  });
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return api([&] {
    require(flags == 0, cudaErrorInvalidValue);
    const Target target = resolve(stream);
    live_event(event);
    // Later work of the stream waits until the event's latest record has
    // completed.  An event of another device is waited for here, on the host.
    if (event->device != target.device) {
      wait_for(event);
      return;
    }
    uint64_t wanted = 0;
    {
      std::lock_guard<std::mutex> lock(target.device->mutex());
      wanted = event->records;
    }
    if (wanted == 0) return;
    Operation wait;
    wait.stream = target.stream;
    wait.run = [](DeviceState&) {};
    wait.ready = [event, wanted] { return Runtime::get().event_reached(event, wanted); };
    target.device->submit(std::move(wait));
  });
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  return api([&] {
    require(fn != nullptr, cudaErrorInvalidValue);
    const Target target = resolve(stream);
    target.device->submit(target.stream, [fn, userData](DeviceState&) { fn(userData); });
  });
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int flags) {
  return api([&] {
    require(callback != nullptr && flags == 0, cudaErrorInvalidValue);
    const Target target = resolve(stream);
    const cudaStream_t handle = target.handle;
    target.device->submit(target.stream, [callback, userData, handle](DeviceState& device) {
      callback(handle, device.sticky_error(), userData);
    });
  });
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority != nullptr) *leastPriority = 0;
  if (greatestPriority != nullptr) *greatestPriority = 0;
  return cudaSuccess;
}

// ---- Events ------------------------------------------------------------------------------------

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  return api([&] {
    require(event != nullptr, cudaErrorInvalidValue);
    const unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    require((flags & ~known) == 0, cudaErrorInvalidValue);
    // Interprocess events need a timing-free event, as in CUDA.
    require((flags & cudaEventInterprocess) == 0 || (flags & cudaEventDisableTiming) != 0,
            cudaErrorInvalidValue);
    DeviceState& device = current_device();
    auto* created = new CUevent_st{&device, flags};
    Runtime::get().add_event(created);
    *event = created;
  });
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  return api([&] {
    wait_for(live_event(event));
    Runtime::get().destroy_event(event);
  });
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return api([&] {
    live_event(event);
    const Target target = resolve(stream);
    require(event->device == target.device, cudaErrorInvalidResourceHandle);
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
    };
    target.device->submit(std::move(operation));
  });
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  return api([&] {
    live_event(event);
    std::lock_guard<std::mutex> lock(event->device->mutex());
    return event->completed >= event->records ? cudaSuccess : cudaErrorNotReady;
  });
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return api([&] {
    wait_for(live_event(event));
    event->device->flush_output();
    check(event->device->sticky_error());
  });
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return api([&] {
    require(ms != nullptr, cudaErrorInvalidValue);
    live_event(start);
    live_event(end);
    require(start->device == end->device, cudaErrorInvalidResourceHandle);
    require(((start->flags | end->flags) & cudaEventDisableTiming) == 0, cudaErrorInvalidResourceHandle);
    DeviceState* device = start->device;
    std::lock_guard<std::mutex> lock(device->mutex());
    require(start->records != 0 && end->records != 0, cudaErrorInvalidResourceHandle);
    // Not ready is an error here, as in CUDA (it is recorded).
    require(start->completed >= start->records && end->completed >= end->records, cudaErrorNotReady);
    // Time on the device is its cycle counter over its clock: the cycles of
    // the kernels that ran between the two records.
    const double cycles = static_cast<double>(end->cycles) - static_cast<double>(start->cycles);
    const double khz = device->props().clock_khz == 0 ? 1.0 : static_cast<double>(device->props().clock_khz);
    *ms = static_cast<float>(cycles / khz);
  });
}

}  // extern "C"
