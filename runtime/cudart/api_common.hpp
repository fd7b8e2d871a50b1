// What the CUDA entry points (api_*.cpp) share: the calling thread's current
// device (thread local, as in CUDA: guide 3.2.6.2), the device and stream an
// operation goes to, and how it is queued or waited for.  Every helper
// throws (cuda_error.hpp); the entry points run their bodies in api().
#pragma once

#include <cstdint>
#include <string>

#include "cuda_error.hpp"
#include "cudart_state.hpp"

namespace kestrel::cudart {

constexpr size_t kPitchAlignment = 256;  // cudaMallocPitch rows start at multiples of this
constexpr int kRegistersPerThread = 64;  // x0-x31 and f0-f31, every thread's own

// The calling thread's current device ordinal (cudaSetDevice).
int& current_ordinal();

inline uint64_t address_of(const void* pointer) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pointer));
}
inline void* pointer_to(uint64_t address) { return reinterpret_cast<void*>(static_cast<uintptr_t>(address)); }

// The device an operation runs on and the stream it joins.
struct Target {
  DeviceState* device = nullptr;
  CUstream_st* stream = nullptr;
  cudaStream_t handle = nullptr;  // as the user named it, for callbacks
};

// The calling thread's current device, opened; throws its sticky error.
DeviceState& current_device();
// Throws the device's sticky error, once the launch that caused it has
// finished and its output is printed.
void check_sticky(DeviceState& device);
// The device `ordinal`, opened (no sticky check: properties stay readable).
DeviceState& opened_device(int ordinal);

bool is_default_stream(cudaStream_t stream);
// 0, cudaStreamLegacy and cudaStreamPerThread are the current device's
// default stream; any other handle must be a live stream, whose device the
// work goes to.  Throws the device's sticky error.
Target resolve(cudaStream_t stream);

// Queues `op` on the target's stream, or runs it and waits when `wait`
// (throwing its error).  A blocking copy is a synchronization point: device
// printf output appears (guide B.17.2).
void dispatch(const Target& target, bool wait, Work op);

// The device range [pointer, pointer + bytes) lies in one allocation or
// module variable of `device`.
bool holds(DeviceState& device, const void* pointer, size_t bytes);

// The ordinal of a device other than `except` (nullptr: any device) whose
// allocations or module variables hold `pointer`, or -1.  Every device
// hands out addresses from the same DRAM window (KESTREL_GLOBAL_BASE), so
// a pointer of another device can also be one of `except`'s: callers ask
// `except` first (docs/cuda-runtime.md, "Device pointers and devices").
int other_owner(const DeviceState* except, const void* pointer);

// Throws `error` after printing "kestrel: <message>" to stderr: a misuse whose
// CUDA code alone would not tell the programmer what went wrong.
[[noreturn]] void reject(cudaError_t error, const std::string& message);

// A device pointer an entry point `api` (e.g. "cudaMemset") was given for
// `bytes` bytes on `device`: it must lie in one of the device's allocations
// or module variables.  Throws cudaErrorInvalidValue saying whether it is
// another device's memory, runs past its allocation or is no device memory.
void require_device_range(const char* api, const char* role, DeviceState& device, const void* pointer,
                          size_t bytes);

// "0x10000000".
std::string hex_address(const void* pointer);

// Where one side of a copy lies.  A managed allocation (cudaMallocManaged) is
// either side: the copy touches whichever copy of it holds the data when it
// runs (managed_memory.hpp).
enum class Side { host, device, managed };

// The side of a copy's `role` ("source", "destination") pointer, whose
// `span` bytes the copy touches.  An explicit direction is checked against
// the device ranges the runtime knows, both ways: a device side must lie in
// one of the call's device's allocations or variables, and a host side must
// not be device memory of any device (the copy would dereference a device
// address on the host and crash).  cudaMemcpyDefault infers the side from
// those ranges (guide 3.2.7): the call's device's memory is device memory,
// another device's is an error (no peer access), anything else is host.
// `device_by_kind`: the explicit kind says this side is device memory.
Side side_of(const char* api, const char* role, DeviceState& device, const void* pointer, size_t span,
             cudaMemcpyKind kind, bool device_by_kind);

// Whether [pointer, pointer + bytes) is page-locked host memory
// (cudaHostAlloc/cudaMallocHost or a cudaHostRegister range).
bool page_locked(const void* pointer, size_t bytes);

}  // namespace kestrel::cudart
