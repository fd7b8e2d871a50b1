// The CUDA layer's one error idiom.  Code inside the layer throws: a
// CudaError for a CUDA-level problem (an unknown stream, a bad copy
// direction), a kestrel::Error from the runtime underneath (a launch
// configuration, a module image, device memory).  The exception becomes a
// cudaError_t in one place, current_cuda_error(); api() does that for every
// entry point and records the thread's last error (guide 3.2.9), and the
// device worker does it for queued operations, where a kernel fault becomes
// the device's sticky error.
#pragma once

#include <cstdint>
#include <exception>
#include <type_traits>

#include "kestrel/cuda/cuda_runtime_api.h"
#include "kestrel/kestrel.h"

namespace kestrel::cudart {

class DeviceState;

class CudaError : public std::exception {
 public:
  explicit CudaError(cudaError_t error) : error_(error) {}
  cudaError_t error() const { return error_; }
  const char* what() const noexcept override { return cudaGetErrorName(error_); }

 private:
  cudaError_t error_;
};

// Throws CudaError(error) unless it is cudaSuccess.
inline void check(cudaError_t error) {
  if (error != cudaSuccess) throw CudaError(error);
}
// Throws CudaError(error) unless `ok`.
inline void require(bool ok, cudaError_t error) {
  if (!ok) throw CudaError(error);
}

cudaError_t cuda_error_from_status(kestrel_status status);
cudaError_t cuda_error_from_fault(int32_t kind);

// The CUDA error for the exception being handled; call it only inside a
// catch block.  A kernel fault or timeout (kestrel::Error with
// KESTREL_ERROR_LAUNCH_FAULT or KESTREL_ERROR_TIMEOUT) becomes `device`'s
// sticky error when a device is given.
cudaError_t current_cuda_error(DeviceState* device);

// The calling thread's last error (cudaGetLastError), set by api().
cudaError_t& last_error();

// True on a device's worker thread, which runs the stream callbacks and host
// functions (DeviceState::worker sets it).  A callback must not call the
// runtime (guide 3.2.5.5.6): a call that waits for the device would wait
// for the worker running it, forever.
bool& on_device_worker();
// The answer to an entry point called from a callback: a note on stderr and
// cudaErrorNotPermitted, recorded as the worker thread's last error.
cudaError_t refuse_call_from_callback();

// Runs the body of a CUDA entry point; called from a stream callback it runs
// nothing and answers cudaErrorNotPermitted.  A thrown error is recorded as
// the thread's last error and returned.  A body that returns a cudaError_t
// returns a result that is not an error (cudaErrorNotReady of a query); it
// is passed on and not recorded.
template <typename Body>
cudaError_t api(Body&& body) {
  if (on_device_worker()) return refuse_call_from_callback();
  try {
    if constexpr (std::is_same_v<decltype(body()), cudaError_t>) {
      return body();
    } else {
      body();
      return cudaSuccess;
    }
  } catch (...) {
    const cudaError_t error = current_cuda_error(nullptr);
    last_error() = error;
    return error;
  }
}

}  // namespace kestrel::cudart
