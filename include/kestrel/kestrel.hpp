// Kestrel C++ layer: RAII owners over the C API of kestrel/kestrel.h.  Every
// failure throws kestrel::Error carrying the status code and the device's
// error message.  Header-only; link kestrel::runtime.
//
//   kestrel::Device device = kestrel::Device::open();
//   kestrel::Module module = kestrel::Module::load(device, "vector_add.kmod");
//   kestrel::DeviceBuffer<float> a(device, n), b(device, n), c(device, n);
//   a.upload(host_a);  b.upload(host_b);
//   module.kernel("vector_add").launch({(n + 255) / 256}, {256}, 0, a, b, c, n);
//   device.synchronize();
//   std::vector<float> result = c.download();
//
// Lifetimes: a Device outlives the buffers and modules made on it; a Kernel is
// borrowed from its Module and dies with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kestrel/error.hpp"
#include "kestrel/kestrel.h"

namespace kestrel {

namespace detail {
inline void check(kestrel_status status, kestrel_device_t* device) {
  if (status != KESTREL_SUCCESS) throw Error(status, kestrel_device_last_error(device));
}
}  // namespace detail

// CUDA's dim3: unspecified dimensions are 1.
struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  constexpr Dim3(uint32_t x_ = 1, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr operator kestrel_dim3() const { return kestrel_dim3{x, y, z}; }
};

// Zero fields take the backend defaults (see kestrel_device_config).
using DeviceConfig = kestrel_device_config;

class Device {
 public:
  // backend: "model", "rtlsim", "fpga", or "" for $KESTREL_BACKEND / the default.
  static Device open(const std::string& backend = "", const DeviceConfig* config = nullptr) {
    kestrel_device_t* handle = nullptr;
    detail::check(kestrel_device_open(backend.c_str(), config, &handle), nullptr);
    return Device(handle);
  }
  // Adopts a handle from the C API (e.g. kestrel::runtime::open_device).
  explicit Device(kestrel_device_t* handle) : handle_(handle) {}
  ~Device() { reset(); }
  Device(Device&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Device& operator=(Device&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  kestrel_device_t* handle() const { return handle_; }

  kestrel_device_props props() const {
    kestrel_device_props props{};
    detail::check(kestrel_device_get_props(handle_, &props), handle_);
    return props;
  }
  // Waits for every launch; a fault throws Error(KESTREL_ERROR_LAUNCH_FAULT or
  // KESTREL_ERROR_TIMEOUT) whose message describes it (details in fault()).
  void synchronize() const { detail::check(kestrel_synchronize(handle_), handle_); }
  // Runs the launch in flight for about `cycles` cycles (0: a default slice);
  // true while it still runs.  Copies made between calls with the
  // kestrel_memcpy_*_concurrent functions overlap the kernel.
  bool advance(uint64_t cycles = 0) const {
    int running = 0;
    detail::check(kestrel_launch_advance(handle_, cycles, &running), handle_);
    return running != 0;
  }
  kestrel_fault_info fault() const {
    kestrel_fault_info fault{};
    detail::check(kestrel_get_fault(handle_, &fault), handle_);
    return fault;
  }
  kestrel_counters counters() const {
    kestrel_counters counters{};
    detail::check(kestrel_get_counters(handle_, &counters), handle_);
    return counters;
  }
  // The latest launch's statistics: counters and derived figures.
  kestrel_launch_stats launch_stats() const {
    kestrel_launch_stats stats{};
    detail::check(kestrel_get_launch_stats(handle_, &stats), handle_);
    return stats;
  }
  // The latest launch's DRAM figures (modelled = 0 without a DRAM model).
  kestrel_dram_stats launch_dram_stats() const {
    kestrel_dram_stats stats{};
    detail::check(kestrel_get_launch_dram_stats(handle_, &stats), handle_);
    return stats;
  }
  // The latest launch's memory-system figures (counted = 0 without the
  // memory counter window).
  kestrel_memory_stats launch_memory_stats() const {
    kestrel_memory_stats stats{};
    detail::check(kestrel_get_launch_memory_stats(handle_, &stats), handle_);
    return stats;
  }
  // The latest launch's per-SM statistics; empty when the device has no
  // per-SM counters.
  std::vector<kestrel_sm_stats> launch_sm_stats() const {
    uint32_t count = 0;
    detail::check(kestrel_get_launch_sm_stats(handle_, nullptr, 0, &count), handle_);
    std::vector<kestrel_sm_stats> sms(count);
    detail::check(kestrel_get_launch_sm_stats(handle_, sms.data(), count, &count), handle_);
    sms.resize(count);
    return sms;
  }
  void set_limit(kestrel_limit limit, uint64_t value) const {
    detail::check(kestrel_device_set_limit(handle_, limit, value), handle_);
  }
  uint64_t limit(kestrel_limit limit) const {
    uint64_t value = 0;
    detail::check(kestrel_device_get_limit(handle_, limit, &value), handle_);
    return value;
  }

 private:
  void reset() noexcept {
    if (handle_ != nullptr) kestrel_device_close(handle_);
    handle_ = nullptr;
  }
  kestrel_device_t* handle_ = nullptr;
};

// `count` elements of T in device memory, freed by the destructor.
template <typename T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable types");

 public:
  DeviceBuffer(const Device& device, size_t count) : device_(device.handle()), count_(count) {
    detail::check(kestrel_malloc(device_, bytes(), &ptr_), device_);
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : device_(other.device_), ptr_(std::exchange(other.ptr_, 0)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      ptr_ = std::exchange(other.ptr_, 0);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  kestrel_devptr_t ptr() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  // Copies `count` elements from host memory to elements [offset, offset + count).
  void upload(const T* data, size_t count, size_t offset = 0) {
    detail::check(kestrel_memcpy_htod(device_, ptr_ + offset * sizeof(T), data, count * sizeof(T)), device_);
  }
  void upload(const std::vector<T>& data, size_t offset = 0) { upload(data.data(), data.size(), offset); }
  void download(T* data, size_t count, size_t offset = 0) const {
    detail::check(kestrel_memcpy_dtoh(device_, data, ptr_ + offset * sizeof(T), count * sizeof(T)), device_);
  }
  std::vector<T> download() const {
    std::vector<T> data(count_);
    download(data.data(), data.size());
    return data;
  }
  // Sets every byte to `value`, as cudaMemset.
  void fill_bytes(int value) { detail::check(kestrel_memset(device_, ptr_, value, bytes()), device_); }

 private:
  void reset() noexcept {
    if (ptr_ != 0) kestrel_free(device_, ptr_);
    ptr_ = 0;
  }
  kestrel_device_t* device_;
  kestrel_devptr_t ptr_ = 0;
  size_t count_;
};

namespace detail {
// A launch argument as the kernel receives it: device buffers and pointers
// become device addresses, everything else is copied as it is.
template <typename T>
kestrel_devptr_t kernel_arg(const DeviceBuffer<T>& buffer) {
  return buffer.ptr();
}
template <typename T>
kestrel_devptr_t kernel_arg(T* pointer) {
  return static_cast<kestrel_devptr_t>(reinterpret_cast<uintptr_t>(pointer));
}
template <typename T>
T kernel_arg(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>, "kernel arguments must be trivially copyable");
  return value;
}
}  // namespace detail

class Kernel {
 public:
  Kernel(kestrel_kernel_t* handle, kestrel_device_t* device) : handle_(handle), device_(device) {}

  kestrel_kernel_t* handle() const { return handle_; }
  std::string name() const {
    const char* text = nullptr;
    detail::check(kestrel_kernel_get_name(handle_, &text), device_);
    return text;
  }
  uint32_t num_params() const {
    uint32_t count = 0;
    detail::check(kestrel_kernel_num_params(handle_, &count), device_);
    return count;
  }
  kestrel_param_desc param(uint32_t index) const {
    kestrel_param_desc desc{};
    detail::check(kestrel_kernel_get_param(handle_, index, &desc), device_);
    return desc;
  }

  // kernel<<<grid, block, shared>>>(args...): each argument is taken by value
  // and checked against the kernel's parameter count and sizes.
  template <typename... Args>
  void launch(Dim3 grid, Dim3 block, uint32_t shared_bytes, const Args&... args) const {
    auto values = std::make_tuple(detail::kernel_arg(args)...);
    const uint32_t expected = num_params();
    if (expected != sizeof...(Args)) {
      throw Error(KESTREL_ERROR_INVALID_VALUE, "kernel '" + name() + "' takes " + std::to_string(expected) +
                                                   " parameters, the launch passes " +
                                                   std::to_string(sizeof...(Args)));
    }
    std::apply(
        [&](auto&... value) {
          const size_t sizes[] = {sizeof(value)..., 0};
          for (uint32_t i = 0; i < expected; ++i) check_size(i, sizes[i]);
          void* pointers[] = {static_cast<void*>(&value)..., nullptr};
          detail::check(kestrel_launch(handle_, grid, block, shared_bytes, pointers), device_);
        },
        values);
  }

 private:
  void check_size(uint32_t index, size_t host_bytes) const {
    const kestrel_param_desc desc = param(index);
    const size_t wanted = desc.kind == KESTREL_PARAM_POINTER ? sizeof(kestrel_devptr_t) : desc.size;
    if (host_bytes != wanted) {
      throw Error(KESTREL_ERROR_INVALID_VALUE,
                  "kernel '" + name() + "' parameter " + std::to_string(index) + " takes " +
                      std::to_string(wanted) + " host bytes, the argument has " + std::to_string(host_bytes));
    }
  }

  kestrel_kernel_t* handle_;
  kestrel_device_t* device_;
};

// A __device__ or __constant__ variable of a module.
struct Global {
  kestrel_devptr_t ptr = 0;
  size_t bytes = 0;
};

class Module {
 public:
  static Module load(const Device& device, const std::string& path) {
    kestrel_module_t* handle = nullptr;
    detail::check(kestrel_module_load(device.handle(), path.c_str(), &handle), device.handle());
    return Module(handle, device.handle());
  }
  static Module from_bytes(const Device& device, const void* image, size_t bytes) {
    kestrel_module_t* handle = nullptr;
    detail::check(kestrel_module_load_data(device.handle(), image, bytes, &handle), device.handle());
    return Module(handle, device.handle());
  }
  static Module from_bytes(const Device& device, const std::vector<uint8_t>& image) {
    return from_bytes(device, image.data(), image.size());
  }
  ~Module() { reset(); }
  Module(Module&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)), device_(other.device_) {}
  Module& operator=(Module&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
      device_ = other.device_;
    }
    return *this;
  }
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  kestrel_module_t* handle() const { return handle_; }

  // By mangled name, demangled signature, or plain name when unique.
  Kernel kernel(const std::string& name) const {
    kestrel_kernel_t* kernel = nullptr;
    detail::check(kestrel_module_get_kernel(handle_, name.c_str(), &kernel), device_);
    return Kernel(kernel, device_);
  }
  Global global(const std::string& name) const {
    Global g;
    detail::check(kestrel_module_get_global(handle_, name.c_str(), &g.ptr, &g.bytes), device_);
    return g;
  }
  // cudaMemcpyToSymbol / cudaMemcpyFromSymbol for a variable of type T.
  template <typename T>
  void write_global(const std::string& name, const T& value) const {
    static_assert(std::is_trivially_copyable_v<T>, "globals hold trivially copyable types");
    const Global g = sized_global(name, sizeof(T));
    detail::check(kestrel_memcpy_htod(device_, g.ptr, &value, sizeof(T)), device_);
  }
  template <typename T>
  T read_global(const std::string& name) const {
    static_assert(std::is_trivially_copyable_v<T>, "globals hold trivially copyable types");
    const Global g = sized_global(name, sizeof(T));
    T value;
    detail::check(kestrel_memcpy_dtoh(device_, &value, g.ptr, sizeof(T)), device_);
    return value;
  }

 private:
  Module(kestrel_module_t* handle, kestrel_device_t* device) : handle_(handle), device_(device) {}
  Global sized_global(const std::string& name, size_t bytes) const {
    const Global g = global(name);
    if (g.bytes < bytes) {
      throw Error(KESTREL_ERROR_INVALID_VALUE, "global '" + name + "' has " + std::to_string(g.bytes) +
                                                   " bytes, the host type " + std::to_string(bytes));
    }
    return g;
  }
  void reset() noexcept {
    if (handle_ != nullptr) kestrel_module_unload(handle_);
    handle_ = nullptr;
  }
  kestrel_module_t* handle_;
  kestrel_device_t* device_;
};

}  // namespace kestrel
