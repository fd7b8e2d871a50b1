// The C API of kestrel/kestrel.h.  Every entry point validates its handles and
// arguments, runs the work in runtime::DeviceContext and turns any exception
// into a status code plus the device's last-error message.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <new>
#include <string>
#include <unordered_set>
#include <vector>

#include "device_context.hpp"
#include "kestrel/driver/device.hpp"
#include "kestrel/driver/run_config.hpp"
#include "kestrel/error.hpp"
#include "kestrel/kestrel.h"
#include "kestrel/runtime/open_device.hpp"

using kestrel::Error;
using kestrel::runtime::DeviceContext;
using kestrel::runtime::KernelInfo;
using kestrel::runtime::LoadedModule;

struct kestrel_device {
  std::unique_ptr<DeviceContext> context;
  std::string last_error;
  std::vector<kestrel_module*> modules;
};

struct kestrel_kernel {
  kestrel_module* module;
  const KernelInfo* info;
};

struct kestrel_module {
  kestrel_device* device;
  std::unique_ptr<LoadedModule> loaded;
  std::vector<std::unique_ptr<kestrel_kernel>> kernels;
};

namespace {

constexpr size_t kMaxModuleFileBytes = 512u << 20;
constexpr uint64_t kDefaultAdvanceCycles = 4096;  // kestrel_launch_advance with cycles 0

// Live handles, so that a stale or foreign handle is an error, not a crash.
class HandleRegistry {
 public:
  void add(const void* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.insert(handle);
  }
  void remove(const void* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.erase(handle);
  }
  bool contains(const void* handle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_.count(handle) != 0;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_set<const void*> live_;
};

HandleRegistry& devices() {
  static HandleRegistry registry;
  return registry;
}
HandleRegistry& modules() {
  static HandleRegistry registry;
  return registry;
}
HandleRegistry& kernels() {
  static HandleRegistry registry;
  return registry;
}

thread_local std::string deviceless_error;

kestrel_device* checked(kestrel_device_t* device) {
  if (device == nullptr) throw Error(KESTREL_ERROR_INVALID_HANDLE, "device handle is NULL");
  if (!devices().contains(device))
    throw Error(KESTREL_ERROR_INVALID_HANDLE, "device handle is not open (closed?)");
  return device;
}

kestrel_module* checked(kestrel_module_t* module) {
  if (module == nullptr) throw Error(KESTREL_ERROR_INVALID_HANDLE, "module handle is NULL");
  if (!modules().contains(module))
    throw Error(KESTREL_ERROR_INVALID_HANDLE, "module handle is not loaded (unloaded?)");
  return module;
}

kestrel_kernel* checked(kestrel_kernel_t* kernel) {
  if (kernel == nullptr) throw Error(KESTREL_ERROR_INVALID_HANDLE, "kernel handle is NULL");
  if (!kernels().contains(kernel))
    throw Error(KESTREL_ERROR_INVALID_HANDLE, "kernel handle is not live (its module was unloaded?)");
  return kernel;
}

template <typename T>
void require_out(T* out, const char* name) {
  if (out == nullptr) throw Error(KESTREL_ERROR_INVALID_VALUE, std::string(name) + " is NULL");
}

// Runs `body`, reporting errors against `owner` when it is a live device.
template <typename Body>
kestrel_status guarded(kestrel_device_t* owner, Body&& body) {
  kestrel_status status = KESTREL_SUCCESS;
  std::string message;
  try {
    body();
    return KESTREL_SUCCESS;
  } catch (const Error& e) {
    status = e.status();
    message = e.what();
  } catch (const std::bad_alloc&) {
    status = KESTREL_ERROR_OUT_OF_MEMORY;
    message = "host out of memory";
  } catch (const std::exception& e) {
    status = KESTREL_ERROR_IO;
    message = std::string("backend error: ") + e.what();
  }
  if (owner != nullptr && devices().contains(owner)) {
    owner->last_error = message;
  } else {
    deviceless_error = message;
  }
  return status;
}

void destroy_module(kestrel_module* module) {
  for (const auto& kernel : module->kernels) kernels().remove(kernel.get());
  modules().remove(module);
  delete module;
}

// The configuration of the environment (KESTREL_CONFIG, KESTREL_CONFIG_FILE)
// with the fields `config` sets over it.
kestrel::BackendConfig backend_config(const kestrel_device_config* config, const std::string& backend,
                                      const kestrel::driver::RunConfig& run) {
  kestrel::BackendConfig result = run.device;
  result.options.clear();
  if (const auto it = run.backend_options.find(backend); it != run.backend_options.end())
    result.options = it->second;
  // Every simulated backend writes the instruction trace (the model, rtlsim).
  if (!run.itrace_path.empty()) result.options["itrace"] = run.itrace_path;
  if (config == nullptr) return result;
  if (config->xlen != 0) {
    if (config->xlen != 32 && config->xlen != 64)
      throw Error(KESTREL_ERROR_INVALID_VALUE, "xlen " + std::to_string(config->xlen) + " is not 32 or 64");
    result.xlen = config->xlen;
  }
  if (config->num_sms != 0) {
    if (config->num_sms > 255) throw Error(KESTREL_ERROR_INVALID_VALUE, "num_sms must be at most 255");
    result.num_sms = config->num_sms;
  }
  if (config->warps_per_sm != 0) {
    if (config->warps_per_sm > 255)
      throw Error(KESTREL_ERROR_INVALID_VALUE, "warps_per_sm must be at most 255");
    result.warps_per_sm = config->warps_per_sm;
  }
  if (config->lanes_per_warp != 0) {
    const uint32_t lanes = config->lanes_per_warp;
    if (lanes > 32 || (lanes & (lanes - 1)) != 0)
      throw Error(KESTREL_ERROR_INVALID_VALUE,
                  "lanes_per_warp " + std::to_string(lanes) + " is not a power of two of at most 32");
    result.lanes_per_warp = lanes;
  }
  if (config->mem_bytes != 0) {
    const uint64_t limit = KESTREL_GLOBAL_LIMIT - KESTREL_GLOBAL_BASE;
    if (config->mem_bytes % (1024 * 1024) != 0 || config->mem_bytes > limit)
      throw Error(KESTREL_ERROR_INVALID_VALUE, "mem_bytes must be a whole number of MiB of at most " +
                                                   std::to_string(limit >> 20) + " MiB");
    result.mem_bytes = config->mem_bytes;
  }
  // The trace file is an option of the rtlsim backend (the others never took
  // one, and ignore the field as before).
  if (config->trace_path != nullptr && backend == "rtlsim") result.options["trace"] = config->trace_path;
  return result;
}

kestrel_status finish_open(std::unique_ptr<kestrel::Transport> transport, const std::string& backend,
                           const kestrel::driver::RunConfig& run, kestrel_device_t** out) {
  return guarded(nullptr, [&] {
    auto device = std::make_unique<kestrel_device>();
    device->context = std::make_unique<DeviceContext>(std::move(transport), backend, run);
    devices().add(device.get());
    *out = device.release();
  });
}

kestrel_module_t* register_module(kestrel_device* device, std::unique_ptr<LoadedModule> loaded) {
  auto module = std::make_unique<kestrel_module>();
  module->device = device;
  module->loaded = std::move(loaded);
  for (const KernelInfo& info : module->loaded->image.kernels)
    module->kernels.push_back(std::make_unique<kestrel_kernel>(kestrel_kernel{module.get(), &info}));
  device->modules.push_back(module.get());
  for (const auto& kernel : module->kernels) kernels().add(kernel.get());
  modules().add(module.get());
  return module.release();
}

// Matches `query` against a mangled name: the name itself, its demangled
// signature, its qualified base name, or its unqualified base name.
enum class Match { none, exact, by_name };
Match match_name(const std::string& mangled, const std::string& query) {
  if (mangled == query) return Match::exact;
  if (kestrel::runtime::demangle(mangled) == query) return Match::exact;
  const std::string base = kestrel::runtime::base_name(mangled);
  if (base == query) return Match::by_name;
  const size_t colon = base.rfind("::");
  if (colon != std::string::npos && base.substr(colon + 2) == query) return Match::by_name;
  return Match::none;
}

template <typename Item, typename NameOf>
const Item& find_unique(const std::vector<Item>& items, const std::string& query, const char* what,
                        NameOf name_of) {
  const Item* exact = nullptr;
  std::vector<const Item*> by_name;
  for (const Item& item : items) {
    const Match m = match_name(name_of(item), query);
    if (m == Match::exact && exact == nullptr) exact = &item;
    if (m == Match::by_name) by_name.push_back(&item);
  }
  if (exact != nullptr) return *exact;
  if (by_name.size() == 1) return *by_name.front();
  if (by_name.size() > 1) {
    std::string candidates;
    for (const Item* item : by_name) candidates += " " + name_of(*item);
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                std::string(what) + " name '" + query + "' is ambiguous; use a mangled name:" + candidates);
  }
  std::string known;
  for (const Item& item : items) known += " " + kestrel::runtime::demangle(name_of(item));
  throw Error(KESTREL_ERROR_NOT_FOUND,
              std::string("no ") + what + " named '" + query +
                  "' in the module (it has:" + (known.empty() ? std::string(" none") : known) + ")");
}

}  // namespace

namespace kestrel::runtime {

kestrel_status open_device(std::unique_ptr<Transport> transport, kestrel_device_t** device) {
  if (device == nullptr) {
    deviceless_error = "device out-pointer is NULL";
    return KESTREL_ERROR_INVALID_VALUE;
  }
  *device = nullptr;
  if (!transport) {
    deviceless_error = "no transport given";
    return KESTREL_ERROR_INVALID_VALUE;
  }
  const std::string name = transport->name();
  kestrel::driver::RunConfig run;
  const kestrel_status configured =
      guarded(nullptr, [&] { run = kestrel::driver::run_config_from_environment(); });
  if (configured != KESTREL_SUCCESS) return configured;
  return finish_open(std::move(transport), name, run, device);
}

DeviceContext& context_of(kestrel_device_t* device) { return *checked(device)->context; }

}  // namespace kestrel::runtime

extern "C" {

const char* kestrel_strerror(kestrel_status status) {
  switch (status) {
    case KESTREL_SUCCESS:
      return "success";
    case KESTREL_ERROR_INVALID_VALUE:
      return "invalid value";
    case KESTREL_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case KESTREL_ERROR_INVALID_HANDLE:
      return "invalid handle";
    case KESTREL_ERROR_INVALID_MODULE:
      return "invalid module";
    case KESTREL_ERROR_NOT_FOUND:
      return "not found";
    case KESTREL_ERROR_INVALID_CONFIG:
      return "invalid launch configuration";
    case KESTREL_ERROR_LAUNCH_FAULT:
      return "launch fault";
    case KESTREL_ERROR_NO_DEVICE:
      return "no device";
    case KESTREL_ERROR_IO:
      return "I/O error";
    case KESTREL_ERROR_NOT_SUPPORTED:
      return "not supported";
    case KESTREL_ERROR_TIMEOUT:
      return "launch timeout";
  }
  return "unknown status";
}

kestrel_status kestrel_device_open(const char* backend, const kestrel_device_config* config,
                                   kestrel_device_t** device) {
  if (device == nullptr) {
    deviceless_error = "device out-pointer is NULL";
    return KESTREL_ERROR_INVALID_VALUE;
  }
  *device = nullptr;
  std::unique_ptr<kestrel::Transport> transport;
  std::string name;
  kestrel::driver::RunConfig run;
  const kestrel_status opened = guarded(nullptr, [&] {
    run = kestrel::driver::run_config_from_environment();
    // The config's own settings win over the environment's, its backend too.
    std::string own_backend;
    if (config != nullptr && config->settings != nullptr) {
      kestrel::driver::RunConfig own;
      kestrel::driver::parse_run_config(config->settings, "kestrel_device_config.settings", own);
      kestrel::driver::parse_run_config(config->settings, "kestrel_device_config.settings", run);
      own_backend = own.backend;
    }
    if (backend != nullptr && *backend != '\0') {
      name = backend;
    } else {
      name = own_backend.empty() ? kestrel::default_backend() : own_backend;
    }
    transport = kestrel::open_transport(name, backend_config(config, name, run));
  });
  if (opened != KESTREL_SUCCESS) return opened;
  return finish_open(std::move(transport), name, run, device);
}

kestrel_status kestrel_device_close(kestrel_device_t* device) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    devices().remove(d);
    for (kestrel_module* module : d->modules) destroy_module(module);
    delete d;
  });
}

kestrel_status kestrel_device_get_props(kestrel_device_t* device, kestrel_device_props* props) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(props, "props");
    *props = d->context->props();
  });
}

const char* kestrel_device_last_error(kestrel_device_t* device) {
  if (device == nullptr) return deviceless_error.c_str();
  if (!devices().contains(device)) {
    deviceless_error = "device handle is not open (closed?)";
    return deviceless_error.c_str();
  }
  return device->last_error.c_str();
}

kestrel_status kestrel_device_set_limit(kestrel_device_t* device, kestrel_limit limit, uint64_t value) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    switch (limit) {
      case KESTREL_LIMIT_STACK_BYTES:
        d->context->set_stack_bytes(value);
        return;
      case KESTREL_LIMIT_WATCHDOG_MCYCLES:
        d->context->set_watchdog_units(value);
        return;
      case KESTREL_LIMIT_PRINTF_FIFO_BYTES:
        d->context->set_printf_fifo_bytes(value);
        return;
      case KESTREL_LIMIT_HEAP_BYTES:
        d->context->set_heap_bytes(value);
        return;
      case KESTREL_LIMIT_MAX_ENUM:
        break;
    }
    throw Error(KESTREL_ERROR_INVALID_VALUE, "unknown limit " + std::to_string(static_cast<int>(limit)));
  });
}

kestrel_status kestrel_device_set_output(kestrel_device_t* device, kestrel_output_fn fn, void* user) {
  return guarded(device, [&] { checked(device)->context->set_output(fn, user); });
}

kestrel_status kestrel_device_get_limit(kestrel_device_t* device, kestrel_limit limit, uint64_t* value) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(value, "value");
    switch (limit) {
      case KESTREL_LIMIT_STACK_BYTES:
        *value = d->context->stack_bytes();
        return;
      case KESTREL_LIMIT_WATCHDOG_MCYCLES:
        *value = d->context->watchdog_units();
        return;
      case KESTREL_LIMIT_PRINTF_FIFO_BYTES:
        *value = d->context->printf_fifo_bytes();
        return;
      case KESTREL_LIMIT_HEAP_BYTES:
        *value = d->context->heap_bytes();
        return;
      case KESTREL_LIMIT_MAX_ENUM:
        break;
    }
    throw Error(KESTREL_ERROR_INVALID_VALUE, "unknown limit " + std::to_string(static_cast<int>(limit)));
  });
}

kestrel_status kestrel_malloc(kestrel_device_t* device, size_t bytes, kestrel_devptr_t* ptr) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(ptr, "ptr");
    *ptr = 0;
    *ptr = d->context->allocate(bytes);
  });
}

kestrel_status kestrel_free(kestrel_device_t* device, kestrel_devptr_t ptr) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    if (ptr != 0) d->context->release(ptr);
  });
}

kestrel_status kestrel_memcpy_htod(kestrel_device_t* device, kestrel_devptr_t dst, const void* src,
                                   size_t bytes) {
  return guarded(device, [&] { checked(device)->context->copy_to_device(dst, src, bytes); });
}

kestrel_status kestrel_memcpy_dtoh(kestrel_device_t* device, void* dst, kestrel_devptr_t src, size_t bytes) {
  return guarded(device, [&] { checked(device)->context->copy_to_host(dst, src, bytes); });
}

kestrel_status kestrel_memcpy_dtod(kestrel_device_t* device, kestrel_devptr_t dst, kestrel_devptr_t src,
                                   size_t bytes) {
  return guarded(device, [&] { checked(device)->context->copy_on_device(dst, src, bytes); });
}

kestrel_status kestrel_memset(kestrel_device_t* device, kestrel_devptr_t dst, int value, size_t bytes) {
  return guarded(device, [&] {
    checked(device)->context->fill(dst, static_cast<uint8_t>(static_cast<unsigned>(value) & 0xFFu), bytes);
  });
}

kestrel_status kestrel_memcpy_htod_concurrent(kestrel_device_t* device, kestrel_devptr_t dst, const void* src,
                                              size_t bytes) {
  return guarded(device, [&] { checked(device)->context->copy_to_device(dst, src, bytes, true); });
}

kestrel_status kestrel_memcpy_dtoh_concurrent(kestrel_device_t* device, void* dst, kestrel_devptr_t src,
                                              size_t bytes) {
  return guarded(device, [&] { checked(device)->context->copy_to_host(dst, src, bytes, true); });
}

kestrel_status kestrel_memcpy_dtod_concurrent(kestrel_device_t* device, kestrel_devptr_t dst,
                                              kestrel_devptr_t src, size_t bytes) {
  return guarded(device, [&] { checked(device)->context->copy_on_device(dst, src, bytes, true); });
}

kestrel_status kestrel_memset_concurrent(kestrel_device_t* device, kestrel_devptr_t dst, int value,
                                         size_t bytes) {
  return guarded(device, [&] {
    checked(device)->context->fill(dst, static_cast<uint8_t>(static_cast<unsigned>(value) & 0xFFu), bytes,
                                   true);
  });
}

kestrel_status kestrel_mem_get_info(kestrel_device_t* device, size_t* free_bytes, size_t* total_bytes) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(free_bytes, "free_bytes");
    require_out(total_bytes, "total_bytes");
    *free_bytes = d->context->free_bytes();
    *total_bytes = d->context->props().global_mem_bytes;
  });
}

kestrel_status kestrel_module_load(kestrel_device_t* device, const char* path, kestrel_module_t** module) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(module, "module");
    *module = nullptr;
    if (path == nullptr) throw Error(KESTREL_ERROR_INVALID_VALUE, "module path is NULL");
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
      throw Error(KESTREL_ERROR_IO, std::string("module path '") + path + "' is a directory");
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) throw Error(KESTREL_ERROR_IO, std::string("cannot open module file '") + path + "'");
    const std::streamoff size = file.tellg();
    if (size < 0) throw Error(KESTREL_ERROR_IO, std::string("cannot read module file '") + path + "'");
    if (static_cast<uint64_t>(size) > kMaxModuleFileBytes)
      throw Error(KESTREL_ERROR_INVALID_MODULE, std::string("module file '") + path + "' is too large");
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    file.seekg(0);
    if (!file.read(reinterpret_cast<char*>(bytes.data()), size))
      throw Error(KESTREL_ERROR_IO, std::string("cannot read module file '") + path + "'");
    try {
      *module = register_module(d, d->context->load_module(bytes.data(), bytes.size()));
    } catch (const Error& e) {
      throw Error(e.status(), std::string(path) + ": " + e.what());
    }
  });
}

kestrel_status kestrel_module_load_data(kestrel_device_t* device, const void* image, size_t bytes,
                                        kestrel_module_t** module) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(module, "module");
    *module = nullptr;
    if (image == nullptr) throw Error(KESTREL_ERROR_INVALID_VALUE, "module image is NULL");
    *module = register_module(d, d->context->load_module(static_cast<const uint8_t*>(image), bytes));
  });
}

kestrel_status kestrel_module_unload(kestrel_module_t* module) {
  kestrel_device_t* owner = module != nullptr && modules().contains(module) ? module->device : nullptr;
  return guarded(owner, [&] {
    kestrel_module* m = checked(module);
    kestrel_device* d = m->device;
    d->context->unload_module(*m->loaded);
    d->modules.erase(std::find(d->modules.begin(), d->modules.end(), m));
    destroy_module(m);
  });
}

kestrel_status kestrel_module_get_kernel(kestrel_module_t* module, const char* name,
                                         kestrel_kernel_t** kernel) {
  kestrel_device_t* owner = module != nullptr && modules().contains(module) ? module->device : nullptr;
  return guarded(owner, [&] {
    kestrel_module* m = checked(module);
    require_out(kernel, "kernel");
    *kernel = nullptr;
    if (name == nullptr) throw Error(KESTREL_ERROR_INVALID_VALUE, "kernel name is NULL");
    const auto& found = find_unique(m->kernels, name, "kernel",
                                    [](const std::unique_ptr<kestrel_kernel>& k) { return k->info->name; });
    *kernel = found.get();
  });
}

kestrel_status kestrel_module_get_global(kestrel_module_t* module, const char* name, kestrel_devptr_t* ptr,
                                         size_t* bytes) {
  kestrel_device_t* owner = module != nullptr && modules().contains(module) ? module->device : nullptr;
  return guarded(owner, [&] {
    kestrel_module* m = checked(module);
    require_out(ptr, "ptr");
    *ptr = 0;
    if (name == nullptr) throw Error(KESTREL_ERROR_INVALID_VALUE, "global name is NULL");
    const auto& found = find_unique(m->loaded->image.globals, name, "global",
                                    [](const kestrel::runtime::GlobalSymbol& g) { return g.name; });
    *ptr = m->loaded->base + found.address;
    if (bytes != nullptr) *bytes = found.bytes;
  });
}

kestrel_status kestrel_kernel_num_params(kestrel_kernel_t* kernel, uint32_t* count) {
  kestrel_device_t* owner =
      kernel != nullptr && kernels().contains(kernel) ? kernel->module->device : nullptr;
  return guarded(owner, [&] {
    kestrel_kernel* k = checked(kernel);
    require_out(count, "count");
    *count = static_cast<uint32_t>(k->info->params.size());
  });
}

kestrel_status kestrel_kernel_get_param(kestrel_kernel_t* kernel, uint32_t index,
                                        struct kestrel_param_desc* param) {
  kestrel_device_t* owner =
      kernel != nullptr && kernels().contains(kernel) ? kernel->module->device : nullptr;
  return guarded(owner, [&] {
    kestrel_kernel* k = checked(kernel);
    require_out(param, "param");
    if (index >= k->info->params.size())
      throw Error(KESTREL_ERROR_INVALID_VALUE, "kernel '" + k->info->name + "' has no parameter " +
                                                   std::to_string(index) + " (it has " +
                                                   std::to_string(k->info->params.size()) + ")");
    *param = k->info->params[index];
  });
}

kestrel_status kestrel_kernel_get_name(kestrel_kernel_t* kernel, const char** name) {
  kestrel_device_t* owner =
      kernel != nullptr && kernels().contains(kernel) ? kernel->module->device : nullptr;
  return guarded(owner, [&] {
    kestrel_kernel* k = checked(kernel);
    require_out(name, "name");
    *name = k->info->name.c_str();
  });
}

kestrel_status kestrel_launch(kestrel_kernel_t* kernel, kestrel_dim3 grid, kestrel_dim3 block,
                              uint32_t dynamic_shared_bytes, void** args) {
  kestrel_device_t* owner =
      kernel != nullptr && kernels().contains(kernel) ? kernel->module->device : nullptr;
  return guarded(owner, [&] {
    kestrel_kernel* k = checked(kernel);
    DeviceContext& context = *k->module->device->context;
    const LoadedModule& loaded = *k->module->loaded;
    context.launch(loaded, *k->info,
                   kestrel::runtime::plan_launch(context.props(), loaded.image, *k->info, grid, block,
                                                 dynamic_shared_bytes, args));
  });
}

kestrel_status kestrel_launch_advance(kestrel_device_t* device, uint64_t cycles, int* running) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(running, "running");
    *running = d->context->advance(cycles == 0 ? kDefaultAdvanceCycles : cycles) ? 1 : 0;
  });
}

kestrel_status kestrel_synchronize(kestrel_device_t* device) {
  return guarded(device, [&] { checked(device)->context->synchronize(); });
}

kestrel_status kestrel_get_fault(kestrel_device_t* device, kestrel_fault_info* fault) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(fault, "fault");
    *fault = d->context->last_fault();
  });
}

kestrel_status kestrel_get_counters(kestrel_device_t* device, kestrel_counters* counters) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(counters, "counters");
    const kestrel::driver::CounterValues values = d->context->counters();
    for (size_t i = 0; i < values.size(); ++i) counters->value[i] = values[i];
  });
}

kestrel_status kestrel_get_launch_stats(kestrel_device_t* device, kestrel_launch_stats* stats) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(stats, "stats");
    *stats = kestrel::runtime::launch_stats(d->context->last_launch(), d->context->props());
  });
}

kestrel_status kestrel_get_launch_dram_stats(kestrel_device_t* device, kestrel_dram_stats* stats) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(stats, "stats");
    *stats = kestrel::runtime::dram_stats(d->context->last_launch());
  });
}

kestrel_status kestrel_get_launch_memory_stats(kestrel_device_t* device, kestrel_memory_stats* stats) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(stats, "stats");
    *stats = kestrel::runtime::memory_stats(d->context->last_launch());
  });
}

const char* kestrel_counter_name(int counter) {
  switch (counter) {
    case KESTREL_CNT_CYCLES:
      return "cycles";
    case KESTREL_CNT_WARP_INSTRS:
      return "warp_instrs";
    case KESTREL_CNT_THREAD_INSTRS:
      return "thread_instrs";
    case KESTREL_CNT_LOADS:
      return "loads";
    case KESTREL_CNT_STORES:
      return "stores";
    case KESTREL_CNT_BARRIERS:
      return "barriers";
    case KESTREL_CNT_DIVERGED_ISSUES:
      return "diverged_issues";
    case KESTREL_CNT_STALL_SCOREBOARD:
      return "stall_scoreboard";
    case KESTREL_CNT_STALL_MEMORY:
      return "stall_memory";
    case KESTREL_CNT_STALL_BARRIER:
      return "stall_barrier";
    case KESTREL_CNT_STALL_IDLE:
      return "stall_idle";
    case KESTREL_CNT_BLOCKS:
      return "blocks";
    case KESTREL_CNT_MEM_REQUESTS:
      return "mem_requests";
    case KESTREL_CNT_SHARED_ACCESSES:
      return "shared_accesses";
    case KESTREL_CNT_SHARED_PASSES:
      return "shared_passes";
    case KESTREL_CNT_ATOMICS:
      return "atomics";
    default:
      return nullptr;
  }
}

kestrel_status kestrel_get_launch_sm_stats(kestrel_device_t* device, kestrel_sm_stats* sms, uint32_t capacity,
                                           uint32_t* count) {
  return guarded(device, [&] {
    kestrel_device* d = checked(device);
    require_out(count, "count");
    if (capacity != 0) require_out(sms, "sms");
    const kestrel::runtime::LaunchRecord& record = d->context->last_launch();
    const auto available = static_cast<uint32_t>(record.sm_counters.size());
    for (uint32_t s = 0; s < std::min(capacity, available); ++s)
      sms[s] = kestrel::runtime::sm_stats(record, d->context->props(), s);
    *count = available;
  });
}

const char* kestrel_sm_counter_name(int counter) {
  switch (counter) {
    case KESTREL_SM_CNT_ACTIVE_CYCLES:
      return "active_cycles";
    case KESTREL_SM_CNT_WARP_INSTRS:
      return "warp_instrs";
    case KESTREL_SM_CNT_THREAD_INSTRS:
      return "thread_instrs";
    case KESTREL_SM_CNT_STALL_SCOREBOARD:
      return "stall_scoreboard";
    case KESTREL_SM_CNT_STALL_MEMORY:
      return "stall_memory";
    case KESTREL_SM_CNT_STALL_BARRIER:
      return "stall_barrier";
    case KESTREL_SM_CNT_STALL_IDLE:
      return "stall_idle";
    case KESTREL_SM_CNT_BLOCKS:
      return "blocks";
    default:
      return nullptr;
  }
}

const char* kestrel_mem_counter_name(int counter) {
  switch (counter) {
    case KESTREL_MEM_CNT_READS:
      return "reads";
    case KESTREL_MEM_CNT_WRITES:
      return "writes";
    case KESTREL_MEM_CNT_FETCHES:
      return "fetches";
    case KESTREL_MEM_CNT_ATOMICS:
      return "atomics";
    case KESTREL_MEM_CNT_INFLIGHT_CYCLES:
      return "inflight_cycles";
    case KESTREL_MEM_CNT_L2_HITS:
      return "l2_hits";
    case KESTREL_MEM_CNT_L2_MISSES:
      return "l2_misses";
    case KESTREL_MEM_CNT_L2_MERGES:
      return "l2_merges";
    case KESTREL_MEM_CNT_L2_EVICTIONS:
      return "l2_evictions";
    case KESTREL_MEM_CNT_L2_WRITES:
      return "l2_writes";
    case KESTREL_MEM_CNT_DRAM_REQUESTS:
      return "dram_requests";
    case KESTREL_MEM_CNT_CONST_HITS:
      return "const_hits";
    case KESTREL_MEM_CNT_CONST_MISSES:
      return "const_misses";
    case KESTREL_MEM_CNT_CONST_EVICTIONS:
      return "const_evictions";
    case KESTREL_MEM_CNT_L1_HITS:
      return "l1_hits";
    case KESTREL_MEM_CNT_L1_MISSES:
      return "l1_misses";
    case KESTREL_MEM_CNT_L1_EVICTIONS:
      return "l1_evictions";
    case KESTREL_MEM_CNT_TEX_HITS:
      return "tex_hits";
    case KESTREL_MEM_CNT_TEX_MISSES:
      return "tex_misses";
    case KESTREL_MEM_CNT_TEX_DESC_MISSES:
      return "tex_desc_misses";
    default:
      return nullptr;
  }
}

const char* kestrel_fault_kind_name(int kind) { return kestrel::driver::fault_kind_text(kind); }

}  // extern "C"
