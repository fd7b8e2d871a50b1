#include "cudart_state.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "kestrel/cuda/fatbin.h"
#include "kestrel/error.hpp"
#include "managed_memory.hpp"

namespace kestrel::cudart {

// ---- Registry ----------------------------------------------------------------

FatBinary* Registry::add_binary(const void* wrapper) {
  auto binary = std::make_unique<FatBinary>();
  kestrel_clang_fatbin_wrapper record{};
  if (wrapper == nullptr) {
    binary->error = "no device image given";
  } else {
    std::memcpy(&record, wrapper, sizeof record);
    kestrel_fatbin_header header{};
    if (record.magic != KESTREL_CLANG_FATBIN_WRAPPER_MAGIC || record.data == nullptr) {
      binary->error = "the registered device image is not a clang fat binary wrapper";
    } else {
      std::memcpy(&header, record.data, sizeof header);
      if (header.magic != KESTREL_FATBIN_MAGIC || header.header_bytes != sizeof header)
        binary->error = "the embedded device image was not made by kestrel-cc (no KFAT header)";
      else if (header.version != KESTREL_FATBIN_VERSION)
        binary->error = "the embedded device image has format version " + std::to_string(header.version) +
                        ", this runtime reads " + std::to_string(KESTREL_FATBIN_VERSION);
      else if (header.module_bytes == 0 || header.module_bytes > KESTREL_FATBIN_MAX_MODULE_BYTES)
        binary->error = "the embedded device image has an implausible size";
    }
    if (binary->error.empty()) {
      const auto* bytes = static_cast<const uint8_t*>(record.data) + sizeof header;
      binary->module.assign(bytes, bytes + header.module_bytes);
      try {
        binary->image = runtime::parse_module(binary->module.data(), binary->module.size(), header.xlen);
      } catch (const Error& error) {
        binary->error = error.what();
      }
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  binaries_.push_back(std::move(binary));
  return binaries_.back().get();
}

void Registry::add_function(FatBinary* binary, const void* host_function, const char* device_name) {
  if (binary == nullptr || host_function == nullptr || device_name == nullptr) return;
  KernelFunction function;
  function.binary = binary;
  function.name = device_name;
  if (binary->image) {
    for (const runtime::KernelInfo& info : binary->image->kernels)
      if (info.name == function.name) function.info = &info;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  functions_[host_function] = function;
}

void Registry::add_variable(FatBinary* binary, const void* host_variable, const char* device_name,
                            size_t bytes, bool constant) {
  if (binary == nullptr || host_variable == nullptr || device_name == nullptr) return;
  DeviceVariable variable{binary, device_name, bytes, constant, false};
  if (binary->image) {
    for (const runtime::GlobalSymbol& global : binary->image->globals) {
      if (global.name != variable.name || !global.managed) continue;
      // A __managed__ variable: its host shadow (which clang leaves
      // uninitialized) is its host copy from now on, so it starts with the
      // variable's initializer, before main can read it (guide J.2.2.3).
      const auto relocated = std::lower_bound(binary->image->relocations.begin(),
                                              binary->image->relocations.end(), global.address);
      if (global.bytes != bytes) {
        binary->error = "__managed__ variable '" + variable.name + "' has " + std::to_string(global.bytes) +
                        " bytes in the device image but " + std::to_string(bytes) + " on the host";
      } else if (relocated != binary->image->relocations.end() &&
                 *relocated < global.address + global.bytes) {
        binary->error = "__managed__ variable '" + variable.name +
                        "' is initialized with a device address, which its host copy cannot hold";
      } else {
        std::memcpy(const_cast<void*>(host_variable), binary->image->bytes.data() + global.address, bytes);
        variable.managed = true;
      }
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  variables_[host_variable] = variable;
  if (variable.managed) managed_[binary].push_back(const_cast<void*>(host_variable));
}

void Registry::add_texture(FatBinary* binary, const void* host_variable, const char* device_name, int type,
                           bool normalized_read) {
  if (binary == nullptr || host_variable == nullptr || device_name == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  textures_[host_variable] = TextureReference{binary, device_name, type, normalized_read};
}

void Registry::add_surface(FatBinary* binary, const void* host_variable, const char* device_name, int type) {
  if (binary == nullptr || host_variable == nullptr || device_name == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  surfaces_[host_variable] = SurfaceReference{binary, device_name, type};
}

std::vector<std::pair<void*, DeviceVariable>> Registry::managed_variables(const FatBinary* binary) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::pair<void*, DeviceVariable>> out;
  const auto it = managed_.find(binary);
  if (it == managed_.end()) return out;
  for (void* shadow : it->second) out.emplace_back(shadow, variables_.at(shadow));
  return out;
}

const KernelFunction* Registry::function(const void* host_function) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = functions_.find(host_function);
  return it == functions_.end() ? nullptr : &it->second;
}

const DeviceVariable* Registry::variable(const void* host_variable) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = variables_.find(host_variable);
  return it == variables_.end() ? nullptr : &it->second;
}

const TextureReference* Registry::texture(const void* host_variable) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = textures_.find(host_variable);
  return it == textures_.end() ? nullptr : &it->second;
}

const SurfaceReference* Registry::surface(const void* host_variable) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = surfaces_.find(host_variable);
  return it == surfaces_.end() ? nullptr : &it->second;
}

// ---- DeviceState ---------------------------------------------------------------

DeviceState::DeviceState(int ordinal, int count, std::string backend)
    : ordinal_(ordinal),
      count_(count),
      backend_(std::move(backend)),
      default_stream_(new CUstream_st{this, 0, 0}) {}

DeviceState::~DeviceState() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (device_ != nullptr) kestrel_device_close(device_);
}

void DeviceState::start_worker_locked() {
  if (!thread_.joinable()) thread_ = std::thread([this] { worker(); });
}

void DeviceState::enqueue_locked(Operation op) {
  start_worker_locked();
  ++op.stream->pending;
  queue_.push_back(std::move(op));
  changed_.notify_all();
}

void DeviceState::submit(CUstream_st* stream, Work op) {
  Operation operation;
  operation.stream = stream;
  operation.run = std::move(op);
  submit(std::move(operation));
}

void DeviceState::submit(Operation op) {
  std::lock_guard<std::mutex> lock(mutex_);
  enqueue_locked(std::move(op));
}

cudaError_t DeviceState::run_sync(Work op, bool despite_sticky) {
  Operation operation;
  operation.stream = default_stream_.get();
  operation.run = std::move(op);
  operation.done = std::make_shared<std::promise<cudaError_t>>();
  operation.despite_sticky = despite_sticky;
  std::future<cudaError_t> result = operation.done->get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    enqueue_locked(std::move(operation));
  }
  return result.get();
}

// In issue order, an operation waits for every earlier operation of its
// stream; the legacy default stream waits for every earlier operation of a
// blocking stream and a blocking stream for every earlier one of the default
// stream (guide 3.2.5.5.x, implicit synchronization; cudaStreamNonBlocking
// streams wait for neither); a launch waits while another kernel runs (one
// launch at a time); a stream wait waits for its event.  The kernel in
// flight counts as the earliest operation.
std::deque<Operation>::iterator DeviceState::next_runnable_locked() {
  std::set<const CUstream_st*> busy;
  bool default_busy = false, blocking_busy = false;
  auto note = [&](const CUstream_st* stream) {
    busy.insert(stream);
    if (stream == default_stream_.get())
      default_busy = true;
    else if ((stream->flags & cudaStreamNonBlocking) == 0)
      blocking_busy = true;
  };
  if (in_flight_) note(in_flight_->stream);
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    const CUstream_st* stream = it->stream;
    bool blocked = busy.count(stream) != 0;
    if (stream == default_stream_.get())
      blocked = blocked || blocking_busy;
    else if ((stream->flags & cudaStreamNonBlocking) == 0)
      blocked = blocked || default_busy;
    if (!blocked && it->finish && in_flight_) blocked = true;
    if (!blocked && it->ready && !it->ready()) blocked = true;
    if (!blocked) return it;
    note(stream);
  }
  return queue_.end();
}

void DeviceState::complete_locked(Operation& op, cudaError_t result) {
  --op.stream->pending;
  if (op.done) {
    op.done->set_value(result);
  } else if (result != cudaSuccess && async_error_ == cudaSuccess) {
    async_error_ = result;
  }
  changed_.notify_all();
}

void DeviceState::worker() {
  // Simulated cycles per slice of the kernel in flight between two looks at
  // the queue: small enough that a copy issued meanwhile lands soon, large
  // enough that the bookkeeping costs little.
  constexpr uint64_t kSliceCycles = 4096;
  // Stream callbacks and host functions run here; the CUDA entry points
  // refuse them (api(), guide 3.2.5.5.6).
  on_device_worker() = true;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (stopping_) {
      // The process is ending: what is left never runs, but nobody may wait forever.
      for (Operation& op : queue_)
        if (op.done) op.done->set_value(cudaErrorCudartUnloading);
      queue_.clear();
      if (in_flight_ && in_flight_->done) in_flight_->done->set_value(cudaErrorCudartUnloading);
      in_flight_.reset();
      return;
    }
    const auto next = next_runnable_locked();
    if (next != queue_.end()) {
      Operation op = std::move(*next);
      queue_.erase(next);
      running_op_ = true;
      lock.unlock();
      const cudaError_t sticky = sticky_.load();
      cudaError_t result = sticky;
      bool started = false;
      if (sticky == cudaSuccess || op.despite_sticky) {
        try {
          op.run(*this);
          result = cudaSuccess;
        } catch (...) {
          result = current_cuda_error(this);
        }
        started = result == cudaSuccess && op.finish;
      } else if (op.skipped) {
        try {
          op.skipped(*this);
        } catch (...) {
          // The sticky error is what the operation reports.
        }
      }
      lock.lock();
      running_op_ = false;
      if (started)
        in_flight_ = std::move(op);
      else
        complete_locked(op, result);
      continue;
    }
    if (in_flight_) {
      lock.unlock();
      bool running = false;
      try {
        running = context_->advance(kSliceCycles);
      } catch (...) {
        // The advance failed, which the synchronize in finish() reports.
      }
      cudaError_t result = cudaSuccess;
      if (!running) {
        try {
          in_flight_->finish(*this);
        } catch (...) {
          result = current_cuda_error(this);
        }
      }
      lock.lock();
      if (!running) {
        Operation op = std::move(*in_flight_);
        in_flight_.reset();
        complete_locked(op, result);
      }
      continue;
    }
    changed_.wait(lock);
  }
}

cudaError_t DeviceState::ensure_open() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (opened_) return open_error_;
  }
  const cudaError_t error = run_sync(
      [](DeviceState& self) {
        if (self.device_ != nullptr) return;
        const char* backend = self.backend_.empty() ? nullptr : self.backend_.c_str();
        const kestrel_status status = kestrel_device_open(backend, nullptr, &self.device_);
        if (status != KESTREL_SUCCESS) {
          std::fprintf(stderr, "kestrel: cannot open CUDA device %d: %s\n", self.ordinal_,
                       kestrel_device_last_error(nullptr));
          self.device_ = nullptr;
          throw CudaError(status == KESTREL_ERROR_NO_DEVICE ? cudaErrorNoDevice
                                                            : cudaErrorInitializationError);
        }
        self.context_ = &runtime::context_of(self.device_);
        self.props_ = self.context_->props();
        // Every device's DRAM starts at KESTREL_GLOBAL_BASE, so the devices
        // share one range of addresses; starting each device's allocations
        // at its own share keeps their pointers apart, so that one used on
        // the wrong device is recognized (docs/cuda-runtime.md).
        const uint64_t share = self.props_.global_mem_bytes / static_cast<uint64_t>(self.count_);
        self.context_->set_allocation_origin(share * static_cast<uint64_t>(self.ordinal_));
        self.context_->set_output(&DeviceState::collect_output, &self);
      },
      true);
  std::lock_guard<std::mutex> lock(mutex_);
  opened_ = true;
  open_error_ = error;
  return error;
}

void DeviceState::collect_output(void* self, int stream, const char* text, size_t bytes) {
  DeviceState& device = *static_cast<DeviceState*>(self);
  std::lock_guard<std::mutex> lock(device.output_mutex_);
  device.output_.emplace_back(stream, std::string(text, bytes));
}

void DeviceState::flush_output() {
  std::vector<std::pair<int, std::string>> output;
  {
    std::lock_guard<std::mutex> lock(output_mutex_);
    output.swap(output_);
  }
  for (const auto& [stream, text] : output) {
    FILE* file = stream == 2 ? stderr : stdout;
    std::fwrite(text.data(), 1, text.size(), file);
    std::fflush(file);
  }
}

cudaError_t DeviceState::synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return idle_locked(); });
  lock.unlock();
  flush_output();
  lock.lock();
  const cudaError_t sticky = sticky_.load();
  if (sticky != cudaSuccess) return sticky;
  return std::exchange(async_error_, cudaSuccess);
}

cudaError_t DeviceState::synchronize_stream(CUstream_st* stream) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [stream] { return stream->pending == 0; });
  lock.unlock();
  flush_output();
  lock.lock();
  const cudaError_t sticky = sticky_.load();
  if (sticky != cudaSuccess) return sticky;
  return std::exchange(async_error_, cudaSuccess);
}

bool DeviceState::stream_idle(const CUstream_st* stream) const { return stream->pending == 0; }

cudaError_t DeviceState::take_async_error() {
  const cudaError_t sticky = sticky_.load();
  if (sticky != cudaSuccess) return sticky;
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(async_error_, cudaSuccess);
}

void DeviceState::reset() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return idle_locked(); });
  }
  run_sync(
      [](DeviceState& self) {
        self.modules_.clear();
        if (self.device_ != nullptr) kestrel_device_close(self.device_);
        self.device_ = nullptr;
        self.context_ = nullptr;
        self.device_cycles_ = 0;
        self.fault_message_.clear();
      },
      true);
  flush_output();
  ManagedMemory::get().forget(this);
  std::lock_guard<std::mutex> lock(mutex_);
  allocations.clear();
  symbol_ranges.clear();
  limits_kept.clear();
  opened_ = false;
  open_error_ = cudaSuccess;
  async_error_ = cudaSuccess;
  sticky_ = cudaSuccess;
  profiling_ = false;
}

bool DeviceState::holds(uint64_t ptr, size_t bytes) const {
  auto inside = [&](const auto& ranges, auto size_of) {
    auto it = ranges.upper_bound(ptr);
    if (it == ranges.begin()) return false;
    --it;
    const uint64_t size = size_of(it->second);
    return ptr >= it->first && ptr - it->first < size && bytes <= size - (ptr - it->first);
  };
  return inside(allocations, [](const Allocation& a) { return uint64_t{a.bytes}; }) ||
         inside(symbol_ranges, [](uint64_t size) { return size; });
}

const runtime::LoadedModule& DeviceState::module_for(FatBinary* binary) {
  const auto it = modules_.find(binary);
  if (it != modules_.end()) return *it->second;
  if (!binary->error.empty()) {
    std::fprintf(stderr, "kestrel: unusable device image: %s\n", binary->error.c_str());
    throw CudaError(cudaErrorInvalidKernelImage);
  }
  try {
    // The image was parsed at registration; placing it parses nothing again.
    auto& module = modules_[binary];
    module = context_->load_module(*binary->image);
    // Its __managed__ variables join the device's managed memory, with
    // their host shadows as host copies.
    for (const auto& [shadow, variable] : Runtime::get().registry().managed_variables(binary)) {
      for (const runtime::GlobalSymbol& global : module->image.globals) {
        if (global.name != variable.name) continue;
        const kestrel_devptr_t address = module->base + global.address;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          symbol_ranges[address] = global.bytes;
        }
        ManagedMemory::get().add_variable(*this, address, variable.bytes, shadow);
      }
    }
    return *module;
  } catch (const Error& error) {
    modules_.erase(binary);
    std::fprintf(stderr, "kestrel: cannot load the device image: %s\n", error.what());
    throw CudaError(error.status() == KESTREL_ERROR_OUT_OF_MEMORY ? cudaErrorMemoryAllocation
                                                                  : cudaErrorInvalidKernelImage);
  }
}

kestrel_devptr_t DeviceState::symbol_address(const DeviceVariable& variable) {
  const runtime::LoadedModule& module = module_for(variable.binary);
  for (const runtime::GlobalSymbol& global : module.image.globals) {
    if (global.name != variable.name) continue;
    const kestrel_devptr_t address = module.base + global.address;
    std::lock_guard<std::mutex> lock(mutex_);
    symbol_ranges[address] = global.bytes;
    return address;
  }
  throw CudaError(cudaErrorInvalidSymbol);
}

void DeviceState::add_copy_cycles(uint64_t bytes) {
  if (in_flight_) return;
  device_cycles_ += (bytes + kCopyBytesPerCycle - 1) / kCopyBytesPerCycle;
}

cudaError_t DeviceState::fault(kestrel_status status) {
  const kestrel_fault_info& fault = context_->last_fault();
  const cudaError_t error =
      status == KESTREL_ERROR_TIMEOUT ? cudaErrorLaunchTimeout : cuda_error_from_fault(fault.kind);
  fault_message_ = fault.message;
  // CUDA's error codes say only what kind of fault; the runtime's message
  // says where, which is what a programmer needs.
  std::fprintf(stderr, "kestrel: kernel fault on device %d: %s\n", ordinal_, fault.message);
  sticky_ = error;
  return error;
}

// ---- Runtime ---------------------------------------------------------------------

Runtime::Runtime() {
  // The C API keeps its live-handle sets in function-local statics.  Asking
  // it about a handle that is not live builds them now, before this object,
  // so that they are destroyed after it: the destructor closes the devices.
  int not_a_handle = 0;
  kestrel_device_props props{};
  uint32_t count = 0;
  kestrel_device_get_props(reinterpret_cast<kestrel_device_t*>(&not_a_handle), &props);
  kestrel_module_unload(reinterpret_cast<kestrel_module_t*>(&not_a_handle));
  kestrel_kernel_num_params(reinterpret_cast<kestrel_kernel_t*>(&not_a_handle), &count);
}

Runtime& Runtime::get() {
  static Runtime runtime;
  return runtime;
}

void Runtime::create_devices_locked() {
  if (count_ != 0) return;
  int count = requested_count_;
  if (count == 0) {
    count = 1;
    if (const char* text = std::getenv("KESTREL_DEVICE_COUNT")) {
      char* end = nullptr;
      const long value = std::strtol(text, &end, 10);
      if (end != text && *end == '\0' && value >= 1 && value <= 16)
        count = static_cast<int>(value);
      else
        std::fprintf(stderr, "kestrel: ignoring KESTREL_DEVICE_COUNT=%s (want 1 to 16)\n", text);
    }
  }
  for (int i = 0; i < count; ++i) devices_.push_back(std::make_unique<DeviceState>(i, count, backend_));
  count_ = count;
}

int Runtime::device_count() {
  std::lock_guard<std::mutex> lock(mutex_);
  create_devices_locked();
  return count_;
}

DeviceState* Runtime::device(int ordinal) {
  std::lock_guard<std::mutex> lock(mutex_);
  create_devices_locked();
  if (ordinal < 0 || ordinal >= count_) return nullptr;
  return devices_[static_cast<size_t>(ordinal)].get();
}

cudaError_t Runtime::set_backend(const char* backend) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (backend == nullptr) return cudaErrorInvalidValue;
  if (count_ != 0) return cudaErrorIllegalState;
  backend_ = backend;
  return cudaSuccess;
}

cudaError_t Runtime::set_device_count(int count) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (count < 1 || count > 16) return cudaErrorInvalidValue;
  if (count_ != 0) return cudaErrorIllegalState;
  requested_count_ = count;
  return cudaSuccess;
}

bool Runtime::stream_live(CUstream_st* stream) {
  std::lock_guard<std::mutex> lock(handles_mutex_);
  return streams_.count(stream) != 0;
}

bool Runtime::event_live(CUevent_st* event) {
  std::lock_guard<std::mutex> lock(handles_mutex_);
  return events_.count(event) != 0;
}

bool Runtime::event_reached(CUevent_st* event, uint64_t wanted) {
  std::lock_guard<std::mutex> lock(handles_mutex_);
  return events_.count(event) == 0 || event->completed >= wanted;
}

void Runtime::add_stream(CUstream_st* stream) {
  std::lock_guard<std::mutex> lock(handles_mutex_);
  streams_.insert(stream);
}

void Runtime::add_event(CUevent_st* event) {
  std::lock_guard<std::mutex> lock(handles_mutex_);
  events_.insert(event);
}

void Runtime::destroy_stream(CUstream_st* stream) {
  std::lock_guard<std::mutex> lock(handles_mutex_);
  if (streams_.erase(stream) != 0) delete stream;
}

void Runtime::destroy_event(CUevent_st* event) {
  std::lock_guard<std::mutex> lock(handles_mutex_);
  if (events_.erase(event) != 0) delete event;
}

void Runtime::destroy_handles_of(DeviceState* device) {
  std::lock_guard<std::mutex> lock(handles_mutex_);
  for (auto it = streams_.begin(); it != streams_.end();) {
    if ((*it)->device == device) {
      delete *it;
      it = streams_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = events_.begin(); it != events_.end();) {
    if ((*it)->device == device) {
      delete *it;
      it = events_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace kestrel::cudart
