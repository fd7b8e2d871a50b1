// The state behind Kestrel's CUDA runtime API (docs/cuda-runtime.md):
//   * Registry: the device images, kernels and variables that clang's
//     generated constructors register (__cudaRegisterFatBinary & co.), each
//     image parsed once on the host so that launches know every kernel's
//     parameters and static shared memory without touching a device;
//   * DeviceState: one per CUDA device, i.e. one Kestrel backend instance.
//     A worker thread owns the kestrel_device_t and executes the operations
//     (copies, launches, event records, host functions): each stream in
//     order, the legacy default stream synchronizing with the blocking
//     streams (guide 3.2.5.5), and work of other streams running while a
//     kernel is in flight: the worker simulates the kernel in slices
//     (DeviceContext::advance) and does the other streams' copies between
//     them (concurrent copies), the copy engine.  The device is opened and
//     closed through the C API; everything else calls the runtime's
//     DeviceContext directly, so a module image is parsed once (here, at
//     registration) and a launch is checked once (runtime::plan_launch, on
//     the calling thread).  One kernel runs
//     at a time.  Callers that must wait (cudaMemcpy,
//     cudaStreamSynchronize) wait for their operation or their stream to
//     drain.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cuda_error.hpp"
#include "device_context.hpp"
#include "kestrel/cuda/cuda_runtime_api.h"
#include "kestrel/kestrel.h"
#include "kestrel/runtime/module_image.hpp"

struct CUstream_st;
struct CUevent_st;

namespace kestrel::cudart {

// One registered device image (one .cu file of the program).
struct FatBinary {
  std::vector<uint8_t> module;  // the .kmod bytes
  std::optional<runtime::ModuleImage> image;
  std::string error;  // why the image is unusable, empty when it is fine
};

struct KernelFunction {
  FatBinary* binary = nullptr;
  std::string name;  // mangled device name
  const runtime::KernelInfo* info = nullptr;
};

struct DeviceVariable {
  FatBinary* binary = nullptr;
  std::string name;
  size_t bytes = 0;
  bool constant = false;
  // A __managed__ variable: its host shadow is its host copy (managed_memory.hpp).
  bool managed = false;
};

// A texture reference (guide 3.2.11.1.2): a device variable whose device
// copy holds the descriptor of what it is bound to (api_textures.cpp).
struct TextureReference {
  FatBinary* binary = nullptr;
  std::string name;
  int type = 0;                  // texture<T, Type, ...>'s Type (cudaTextureType1D, ...)
  bool normalized_read = false;  // ReadMode is cudaReadModeNormalizedFloat
};

// A surface reference (guide 3.2.11.2.2): as a texture reference, its device
// copy holds the surface descriptor of the array it is bound to.
struct SurfaceReference {
  FatBinary* binary = nullptr;
  std::string name;
  int type = 0;  // surface<T, Type>'s Type (cudaSurfaceType1D, ...)
};

class Registry {
 public:
  FatBinary* add_binary(const void* wrapper);
  void add_function(FatBinary* binary, const void* host_function, const char* device_name);
  void add_variable(FatBinary* binary, const void* host_variable, const char* device_name, size_t bytes,
                    bool constant);
  void add_texture(FatBinary* binary, const void* host_variable, const char* device_name, int type,
                   bool normalized_read);
  void add_surface(FatBinary* binary, const void* host_variable, const char* device_name, int type);
  // nullptr when `host_function` was never registered.
  const KernelFunction* function(const void* host_function) const;
  const DeviceVariable* variable(const void* host_variable) const;
  const TextureReference* texture(const void* host_variable) const;
  const SurfaceReference* surface(const void* host_variable) const;
  // The __managed__ variables of `binary` with their host shadows.
  std::vector<std::pair<void*, DeviceVariable>> managed_variables(const FatBinary* binary) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<FatBinary>> binaries_;
  std::map<const void*, KernelFunction> functions_;
  std::map<const void*, DeviceVariable> variables_;
  std::map<const void*, TextureReference> textures_;
  std::map<const void*, SurfaceReference> surfaces_;
  std::map<const FatBinary*, std::vector<void*>> managed_;  // host shadows of managed variables
};

class DeviceState;

// The host link a copy crosses, as event timing counts it: 8 bytes per device
// cycle (a 64-bit link at the device clock).  A model, not a measurement:
// the simulated backends move host data without simulated time.
constexpr uint64_t kCopyBytesPerCycle = 8;

// An operation of a stream, run by the device's worker thread.  It throws
// the error it meets (cuda_error.hpp); a kernel fault becomes the device's
// sticky error.
using Work = std::function<void(DeviceState&)>;
struct Operation {
  CUstream_st* stream = nullptr;
  Work run;
  // A kernel launch: run() starts the kernel and finish() runs once it has
  // ended (faults, cycle count).  In between the launch is in flight: later
  // work of its stream waits, work of other streams (copies) runs beside it.
  Work finish;
  // Runs instead of run() when the operation is skipped because the device
  // has a sticky error: undoes what the call that queued it did.
  Work skipped;
  // When set, the operation waits until it holds (cudaStreamWaitEvent);
  // asked on the worker under the device mutex.
  std::function<bool()> ready;
  std::shared_ptr<std::promise<cudaError_t>> done;  // for callers that wait on this operation
  bool despite_sticky = false;                      // runs even after a kernel fault (reset, close, events)
};

class DeviceState {
 public:
  // Device `ordinal` of `count`: its allocations start at its share of the
  // device memory (ordinal / count of it), so that two devices hand out
  // different addresses until one fills past another's start.
  DeviceState(int ordinal, int count, std::string backend);
  ~DeviceState();
  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;

  int ordinal() const { return ordinal_; }
  // Opens the backend (once, on the worker) and returns its properties.
  cudaError_t ensure_open();
  const kestrel_device_props& props() const { return props_; }

  // Queues `op` on `stream` (an internal stream of this device).
  void submit(CUstream_st* stream, Work op);
  // Queues a prepared operation (launches, stream waits, event records).
  void submit(Operation op);
  // Queues `op` on the legacy default stream and waits for its result.
  cudaError_t run_sync(Work op, bool despite_sticky = false);
  // Waits until every operation issued so far has run; returns the
  // first asynchronous error not yet reported (sticky errors stay).
  cudaError_t synchronize();
  cudaError_t synchronize_stream(CUstream_st* stream);
  bool stream_idle(const CUstream_st* stream) const;
  // Returns and clears the asynchronous error, or the sticky one.
  cudaError_t take_async_error();
  cudaError_t sticky_error() const { return sticky_.load(); }
  // cudaDeviceReset: waits, closes the backend, forgets every allocation,
  // module, stream and event of this device and clears its errors.
  void reset();

  // The profiling window (cudaProfilerStart/Stop, cuda_profiler_api.h):
  // open from a start until the next stop or reset.  Statistics may count
  // only the launches issued while it is open, as nsys does with
  // --capture-range=cudaProfilerApi (docs/cuda-runtime.md, "Profiler window").
  void set_profiling(bool open) { profiling_ = open; }
  bool profiling() const { return profiling_.load(); }
  // cudaSetDeviceFlags and cudaDeviceSetCacheConfig: recorded, kept across
  // reset; Kestrel's waits block whatever the policy, and its SMs have no L1
  // cache to prefer (docs/cuda-runtime.md, "Devices").
  void set_flags(unsigned flags) { flags_ = flags; }
  unsigned flags() const { return flags_.load(); }
  void set_cache_config(cudaFuncCache config) { cache_config_ = config; }
  cudaFuncCache cache_config() const { return cache_config_.load(); }

  CUstream_st* default_stream() { return default_stream_.get(); }
  std::mutex& mutex() { return mutex_; }
  std::condition_variable& changed() { return changed_; }

  // ---- Used by operations, on the worker thread only. ----
  runtime::DeviceContext& context() const { return *context_; }
  // The module of `binary` on this device, placed on first use.
  const runtime::LoadedModule& module_for(FatBinary* binary);
  kestrel_devptr_t symbol_address(const DeviceVariable& variable);
  // A kernel fault or timeout the runtime reported: it becomes the sticky
  // error, and its message goes to stderr.  Returns the CUDA error.
  cudaError_t fault(kestrel_status status);
  uint64_t device_cycles() const { return device_cycles_; }
  void add_cycles(uint64_t cycles) { device_cycles_ += cycles; }
  // A copy of `bytes` on the device's timeline: it takes the host link's
  // time (kCopyBytesPerCycle) unless a kernel runs, which hides it.
  void add_copy_cycles(uint64_t bytes);
  bool kernel_in_flight() const { return in_flight_.has_value(); }
  const std::string& last_fault_message() const { return fault_message_; }

  // Device printf output (and assert messages) of retired launches waits
  // here until a synchronization point of the guide (B.17.2) writes it to
  // stdout/stderr on the caller's thread: device synchronize, stream and
  // event synchronize, blocking copies, reset.
  void flush_output();

  // ---- Host-side bookkeeping, under mutex(). ----
  struct Allocation {
    size_t bytes;
  };
  std::map<uint64_t, Allocation> allocations;  // cudaMalloc ranges by base
  std::map<uint64_t, uint64_t> symbol_ranges;  // base -> bytes of module variables (all loaded modules)
  // The device range [ptr, ptr + bytes) lies in one allocation or variable.
  bool holds(uint64_t ptr, size_t bytes) const;
  bool is_device_pointer(uint64_t ptr) const { return holds(ptr, 1); }
  std::map<uint32_t, uint64_t> limits_kept;  // cudaLimitPrintfFifoSize: stored, see docs/cuda-runtime.md

 private:
  void worker();
  void start_worker_locked();
  void enqueue_locked(Operation op);
  // The first queued operation that may run now (guide 3.2.5.5), or end().
  std::deque<Operation>::iterator next_runnable_locked();
  // Reports `op`'s result to its waiter or as the asynchronous error.
  void complete_locked(Operation& op, cudaError_t result);
  bool idle_locked() const { return queue_.empty() && !running_op_ && !in_flight_; }

  const int ordinal_;
  const int count_;
  const std::string backend_;
  kestrel_device_t* device_ = nullptr;         // worker thread only, after open
  runtime::DeviceContext* context_ = nullptr;  // device_'s
  kestrel_device_props props_{};
  bool opened_ = false;
  cudaError_t open_error_ = cudaSuccess;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Operation> queue_;
  bool running_op_ = false;
  std::optional<Operation> in_flight_;  // the kernel running; set and cleared by the worker under mutex_
  bool stopping_ = false;
  std::thread thread_;
  std::unique_ptr<CUstream_st> default_stream_;

  std::atomic<cudaError_t> sticky_{cudaSuccess};
  std::atomic<bool> profiling_{false};
  std::atomic<unsigned> flags_{0};
  std::atomic<cudaFuncCache> cache_config_{cudaFuncCachePreferNone};
  cudaError_t async_error_ = cudaSuccess;  // under mutex_
  std::map<FatBinary*, std::unique_ptr<runtime::LoadedModule>> modules_;
  uint64_t device_cycles_ = 0;
  std::string fault_message_;

  static void collect_output(void* self, int stream, const char* text, size_t bytes);
  std::mutex output_mutex_;
  std::vector<std::pair<int, std::string>> output_;  // (stream, text) in order, under output_mutex_
};

// The process-wide runtime: the registry and the devices.
class Runtime {
 public:
  static Runtime& get();
  Registry& registry() { return registry_; }
  int device_count();
  // nullptr for an ordinal that names no device.
  DeviceState* device(int ordinal);
  cudaError_t set_backend(const char* backend);
  cudaError_t set_device_count(int count);

  // Live stream and event handles, so that a destroyed or made-up handle is
  // an error rather than a crash.
  bool stream_live(CUstream_st* stream);
  bool event_live(CUevent_st* event);
  // Whether `event` has completed its record number `wanted`; a destroyed
  // event counts as complete (a stream wait outlives its event, as in CUDA).
  // The caller holds the event's device mutex.
  bool event_reached(CUevent_st* event, uint64_t wanted);
  void add_stream(CUstream_st* stream);
  void add_event(CUevent_st* event);
  void destroy_stream(CUstream_st* stream);
  void destroy_event(CUevent_st* event);
  // Destroys every stream and event of `device` (cudaDeviceReset).
  void destroy_handles_of(DeviceState* device);

 private:
  Runtime();
  void create_devices_locked();
  std::mutex mutex_;
  Registry registry_;
  std::string backend_;
  int count_ = 0;  // 0 until the devices exist
  int requested_count_ = 0;
  std::vector<std::unique_ptr<DeviceState>> devices_;
  std::mutex handles_mutex_;
  std::set<CUstream_st*> streams_;
  std::set<CUevent_st*> events_;
};

}  // namespace kestrel::cudart

struct CUstream_st {
  kestrel::cudart::DeviceState* device;
  unsigned int flags;
  int priority;
  int pending = 0;  // operations queued and not yet run, under the device mutex
};

struct CUevent_st {
  kestrel::cudart::DeviceState* device;
  unsigned int flags;
  uint64_t records = 0;    // cudaEventRecord calls, under the device mutex
  uint64_t completed = 0;  // records the worker has reached
  uint64_t cycles = 0;     // device cycles at the latest completed record
};
