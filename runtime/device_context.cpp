#include "device_context.hpp"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kestrel/error.hpp"
#include "printf_fifo.hpp"
#include "source_lines.hpp"
#include "stack_layout.hpp"

namespace kestrel::runtime {
namespace {

constexpr uint64_t kPage = KESTREL_PAGE_SIZE;
constexpr uint32_t kMaxParamBytes = 4096;    // guide B.1.4
constexpr uint32_t kMaxGridX = 0x7FFFFFFFu;  // guide appendix G, compute capability 3.0+
constexpr uint32_t kMaxGridYZ = 65535;
constexpr uint32_t kMaxBlockZ = 64;
constexpr size_t kCopyChunk = 1u << 20;
constexpr uint64_t kMinPrintfFifo = 4096;
constexpr uint64_t kMaxPrintfFifo = 1ull << 30;
// CUDA prints printf output on stdout and assert messages on stderr
// (observed on an H100, tests/cuda/reference/nvidia/assert_message.*).
constexpr int kPrintfStream = 1;
constexpr int kAssertStream = 2;
constexpr int kDiagnosticStream = 2;

uint64_t pages_for(uint64_t bytes) { return (bytes + kPage - 1) / kPage; }

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

std::string dims(const kestrel_dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

void copy_text(char* dst, size_t capacity, const std::string& text) {
  const size_t n = std::min(capacity - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

}  // namespace

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) {
    std::free(text);
    return mangled;
  }
  std::string result(text);
  std::free(text);
  return result;
}

std::string base_name(const std::string& mangled) {
  std::string name = demangle(mangled);
  if (name == mangled) return name;
  // Drop the parameter list: the last balanced (...) group.
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')') ++depth;
      if (name[i] == '(' && --depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  // Drop template arguments at the end, then the return type that a template
  // instance's demangling carries before the name ("void scale<float>").
  if (!name.empty() && name.back() == '>') {
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] == '>') ++depth;
      if (name[i] == '<' && --depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    const char c = name[i];
    if (c == '>' || c == ')') ++depth;
    if (c == '<' || c == '(') --depth;
    if (c == ' ' && depth == 0) return name.substr(i + 1);
  }
  return name;
}

std::vector<uint8_t> marshal_params(const KernelInfo& kernel, unsigned xlen, void** args) {
  std::vector<uint8_t> buffer(kernel.param_bytes, 0);
  if (!kernel.params.empty() && args == nullptr)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "kernel '" + kernel.name + "' takes " +
                                                 std::to_string(kernel.params.size()) +
                                                 " parameters but args is NULL");
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const kestrel_param_desc& p = kernel.params[i];
    if (args[i] == nullptr)
      throw Error(KESTREL_ERROR_INVALID_VALUE,
                  "args[" + std::to_string(i) + "] of kernel '" + kernel.name + "' is NULL");
    if (p.kind == KESTREL_PARAM_POINTER) {
      uint64_t host_value = 0;
      std::memcpy(&host_value, args[i], sizeof host_value);
      if (xlen == 32) {
        if (host_value > 0xFFFFFFFFu)
          throw Error(KESTREL_ERROR_INVALID_VALUE, "pointer parameter " + std::to_string(i) + " of kernel '" +
                                                       kernel.name + "' is " + hex(host_value) +
                                                       ", which does not fit an RV32 device pointer");
        const uint32_t narrow = static_cast<uint32_t>(host_value);
        std::memcpy(buffer.data() + p.offset, &narrow, sizeof narrow);
      } else {
        std::memcpy(buffer.data() + p.offset, &host_value, sizeof host_value);
      }
    } else {
      std::memcpy(buffer.data() + p.offset, args[i], p.size);
    }
  }
  return buffer;
}

DeviceContext::DeviceContext(std::unique_ptr<Transport> transport, const std::string& backend,
                             const driver::RunConfig& run)
    : device_(std::move(transport)), pages_(device_.info().mem_base, device_.info().mem_bytes, kPage) {
  const driver::DeviceInfo& info = device_.info();
  const std::string backend_name = backend.empty() ? device_.backend_name() : backend;
  copy_text(props_.backend, sizeof props_.backend, backend_name);
  copy_text(props_.name, sizeof props_.name,
            "kestrel-" + backend_name + " rv" + std::to_string(info.xlen) + " " +
                std::to_string(info.num_sms) + "x" + std::to_string(info.warps_per_sm) + "x" +
                std::to_string(info.lanes_per_warp));
  watchdog_units_ = watchdog_from_environment(run);
  if (run.stack_bytes) stack_bytes_ = *run.stack_bytes;
  const char* stats_env = std::getenv("KESTREL_STATS");
  const std::string stats_path = stats_env != nullptr && *stats_env != '\0' ? stats_env : run.stats_path;
  if (!stats_path.empty()) stats_ = StatsFile::open(stats_path);
  progress_seconds_ = progress_from_environment(run);
  props_.xlen = info.xlen;
  props_.num_sms = info.num_sms;
  props_.warps_per_sm = info.warps_per_sm;
  props_.warp_size = info.lanes_per_warp;
  // A block's warps must all be resident on one SM at once.
  props_.max_threads_per_block =
      std::min(info.max_threads_per_block, info.warps_per_sm * info.lanes_per_warp);
  // Per-dimension limits follow CONFIG1 as CUDA's maxThreadsDim does; the
  // thread and warp counts are checked separately at launch.
  props_.max_block_dim[0] = info.max_threads_per_block;
  props_.max_block_dim[1] = info.max_threads_per_block;
  props_.max_block_dim[2] = std::min(info.max_threads_per_block, kMaxBlockZ);
  props_.max_grid_dim[0] = kMaxGridX;
  props_.max_grid_dim[1] = kMaxGridYZ;
  props_.max_grid_dim[2] = kMaxGridYZ;
  props_.shared_mem_per_block = info.shared_bytes_per_sm;
  props_.max_param_bytes = kMaxParamBytes;
  props_.clock_khz = info.clock_khz;
  props_.global_mem_bytes = info.mem_bytes;
  props_.copy_engines = device_.overlaps_copies() ? 1 : 0;
  props_.sched_policy = info.sched_policy;
  props_.fpu_stages = info.fpu_stages;
  props_.icache_lines = info.icache_lines;
  props_.l2_bytes = info.l2_bytes;
  props_.l2_ways = info.l2_ways;
  param_buffer_ = allocate_region(kMaxParamBytes, kMaxParamBytes, RegionKind::params, KESTREL_PAGE_READ);
}

DeviceContext::~DeviceContext() {
  // Nothing may run on pages this context is about to forget.
  try {
    if (in_flight_) {
      device_.abort();
      device_.wait();
    }
  } catch (const std::exception&) {
    // The device goes away with this context; a transport error now changes nothing.
  }
}

uint64_t DeviceContext::allocate_region(uint64_t bytes, uint64_t reserve_bytes, RegionKind kind,
                                        uint32_t perms) {
  const uint64_t pages = pages_for(std::max<uint64_t>(reserve_bytes, 1));
  const std::optional<uint64_t> addr = pages_.allocate(pages);
  if (!addr) {
    throw Error(KESTREL_ERROR_OUT_OF_MEMORY, "out of device memory: " + std::to_string(pages) +
                                                 " pages wanted, " + std::to_string(pages_.free_pages()) +
                                                 " free, largest run " +
                                                 std::to_string(pages_.largest_free_run()));
  }
  try {
    if (perms != 0) device_.map_pages(*addr, static_cast<uint32_t>(pages), perms);
  } catch (...) {
    pages_.release(*addr, pages);
    throw;
  }
  regions_.emplace(*addr, Region{bytes, pages, kind});
  return *addr;
}

void DeviceContext::release_region(uint64_t addr) {
  const auto it = regions_.find(addr);
  if (it == regions_.end()) throw Error(KESTREL_ERROR_INVALID_HANDLE, "no region at " + hex(addr));
  const Region region = it->second;
  regions_.erase(it);
  pages_.release(addr, region.pages);
  device_.unmap_pages(addr, static_cast<uint32_t>(region.pages));
}

uint64_t DeviceContext::allocate(size_t bytes) {
  if (bytes == 0) throw Error(KESTREL_ERROR_INVALID_VALUE, "allocation of 0 bytes");
  if (bytes > props_.global_mem_bytes)
    throw Error(KESTREL_ERROR_OUT_OF_MEMORY,
                "allocation of " + std::to_string(bytes) + " bytes exceeds the " +
                    std::to_string(props_.global_mem_bytes) + "-byte device memory");
  // Code may still run on pages being remapped; CUDA's cudaMalloc also
  // synchronizes with the device.
  retire_launch();
  return allocate_region(bytes, bytes, RegionKind::user, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
}

void DeviceContext::release(uint64_t ptr) {
  const auto it = regions_.find(ptr);
  if (it == regions_.end() || it->second.kind != RegionKind::user) {
    throw Error(KESTREL_ERROR_INVALID_HANDLE,
                "free of " + hex(ptr) + ", which is not the start of a live allocation (double free?)");
  }
  retire_launch();
  release_region(ptr);
}

void DeviceContext::set_allocation_origin(uint64_t offset) {
  pages_.set_origin(device_.info().mem_base + std::min<uint64_t>(offset, props_.global_mem_bytes));
}

void DeviceContext::check_host_buffer(const void* host, size_t bytes, const char* what) const {
  if (host == nullptr) throw Error(KESTREL_ERROR_INVALID_VALUE, std::string(what) + " pointer is NULL");
  const auto address = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(host));
  const uint64_t end = bytes > UINT64_MAX - address ? UINT64_MAX : address + bytes;
  // The region starting below `end` nearest to it is the only one that can
  // overlap [address, end) without another starting inside the range.
  auto it = regions_.lower_bound(end);
  if (it == regions_.begin()) return;
  --it;
  if (it->first + it->second.pages * KESTREL_PAGE_SIZE <= address) return;
  throw Error(KESTREL_ERROR_INVALID_VALUE, std::string(what) + " " + hex(address) + " (" +
                                               std::to_string(bytes) +
                                               " bytes) is a device address, in the region at " +
                                               hex(it->first) + ": pass host memory, or copy on the device");
}

void DeviceContext::check_accessible(uint64_t ptr, size_t bytes, const char* what) const {
  auto it = regions_.upper_bound(ptr);
  if (it == regions_.begin()) {
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                std::string(what) + " " + hex(ptr) + " is not in any allocation");
  }
  --it;
  const uint64_t start = it->first;
  const Region& region = it->second;
  if (region.kind != RegionKind::user && region.kind != RegionKind::module) {
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                std::string(what) + " " + hex(ptr) + " is runtime-internal memory");
  }
  if (ptr >= start + region.bytes) {
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                std::string(what) + " " + hex(ptr) + " is not in any allocation");
  }
  if (bytes > start + region.bytes - ptr) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, std::string(what) + " range " + hex(ptr) + " + " +
                                                 std::to_string(bytes) + " bytes runs past the end of its " +
                                                 std::to_string(region.bytes) + "-byte allocation at " +
                                                 hex(start));
  }
}

void DeviceContext::copy_to_device(uint64_t dst, const void* src, size_t bytes, bool concurrent) {
  if (bytes == 0) return;
  check_accessible(dst, bytes, "destination");
  check_host_buffer(src, bytes, "host source");
  if (!concurrent) retire_launch();
  device_.write_mem(dst, src, bytes);
}

void DeviceContext::copy_to_host(void* dst, uint64_t src, size_t bytes, bool concurrent) {
  if (bytes == 0) return;
  check_accessible(src, bytes, "source");
  check_host_buffer(dst, bytes, "host destination");
  if (!concurrent) retire_launch();
  device_.read_mem(src, dst, bytes);
}

void DeviceContext::copy_on_device(uint64_t dst, uint64_t src, size_t bytes, bool concurrent) {
  if (bytes == 0) return;
  check_accessible(src, bytes, "source");
  check_accessible(dst, bytes, "destination");
  if (!concurrent) retire_launch();
  std::vector<uint8_t> staging(std::min(bytes, kCopyChunk));
  // Overlapping ranges behave like memmove: copy from the far end when the
  // destination lies above the source.
  const bool backwards = dst > src && dst < src + bytes;
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(kCopyChunk, bytes - done);
    const size_t at = backwards ? bytes - done - n : done;
    device_.read_mem(src + at, staging.data(), n);
    device_.write_mem(dst + at, staging.data(), n);
    done += n;
  }
}

void DeviceContext::fill(uint64_t dst, uint8_t value, size_t bytes, bool concurrent) {
  if (bytes == 0) return;
  check_accessible(dst, bytes, "destination");
  if (!concurrent) retire_launch();
  const std::vector<uint8_t> pattern(std::min(bytes, kCopyChunk), value);
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(kCopyChunk, bytes - done);
    device_.write_mem(dst + done, pattern.data(), n);
    done += n;
  }
}

std::unique_ptr<LoadedModule> DeviceContext::load_module(const uint8_t* data, size_t size) {
  return load_module(parse_module(data, size, props_.xlen));
}

std::unique_ptr<LoadedModule> DeviceContext::load_module(const ModuleImage& parsed) {
  if (parsed.xlen != props_.xlen)
    throw Error(KESTREL_ERROR_INVALID_MODULE,
                "invalid module: ELF class is " +
                    std::string(parsed.xlen == 64 ? "ELF64 (RV64)" : "ELF32 (RV32)") +
                    " but the device is RV" + std::to_string(props_.xlen));
  auto module = std::make_unique<LoadedModule>();
  module->image = parsed;
  ModuleImage& image = module->image;
  for (const GlobalSymbol& global : image.globals) {
    if (global.name != KESTREL_PRINTF_SYMBOL && global.name != KESTREL_HEAP_SYMBOL) continue;
    if (global.bytes != props_.xlen / 8)
      throw Error(KESTREL_ERROR_INVALID_MODULE,
                  global.name + " is " + std::to_string(global.bytes) + " bytes, not a pointer");
    (global.name == KESTREL_HEAP_SYMBOL ? module->heap_slot : module->printf_slot) = global.address;
  }
  if (image.static_shared_bytes() > props_.shared_mem_per_block) {
    throw Error(KESTREL_ERROR_INVALID_MODULE, "module needs " + std::to_string(image.static_shared_bytes()) +
                                                  " bytes of static shared memory, the device has " +
                                                  std::to_string(props_.shared_mem_per_block) + " per block");
  }
  // The shared window reserves address space for the largest block the
  // device allows and the guard past it (the one below is in the image's
  // layout); these pages are never mapped and the hardware checks them as
  // shared memory, so no index from a shared array reaches another allocation.
  const uint64_t image_bytes = image.bytes.size();
  module->reserved_bytes =
      pages_for(std::max<uint64_t>(image_bytes,
                                   image.shared_start + props_.shared_mem_per_block + KESTREL_SHARED_GUARD)) *
      kPage;
  if (module->reserved_bytes > props_.global_mem_bytes) {
    throw Error(KESTREL_ERROR_OUT_OF_MEMORY, "module needs " + std::to_string(module->reserved_bytes) +
                                                 " bytes, more than the device memory");
  }
  retire_launch();
  module->base = allocate_region(image_bytes, module->reserved_bytes, RegionKind::module, 0);
  if (module->base + module->reserved_bytes > 0xFFFFFFFFull) {
    release_region(module->base);
    throw Error(KESTREL_ERROR_OUT_OF_MEMORY, "module would lie above 4 GiB");
  }
  try {
    const unsigned word = props_.xlen / 8;
    std::vector<uint8_t> placed = image.bytes;
    for (uint64_t offset : image.relocations) {
      uint64_t value = 0;
      std::memcpy(&value, placed.data() + offset, word);
      value += module->base;
      std::memcpy(placed.data() + offset, &value, word);
    }
    device_.write_mem(module->base, placed.data(), placed.size());
    for (const PageRun& run : image.page_runs)
      device_.map_pages(module->base + run.first_page * kPage, static_cast<uint32_t>(run.pages), run.perms);
  } catch (...) {
    release_region(module->base);
    throw;
  }
  return module;
}

void DeviceContext::unload_module(LoadedModule& module) {
  retire_launch();
  release_region(module.base);
  module.base = 0;
}

LaunchPlan plan_launch(const kestrel_device_props& props, const ModuleImage& image, const KernelInfo& kernel,
                       const kestrel_dim3& grid, const kestrel_dim3& block, uint64_t dynamic_shared_bytes,
                       void** args) {
  auto reject = [&](const std::string& why) {
    throw Error(KESTREL_ERROR_INVALID_CONFIG, "launch of '" + demangle(kernel.name) + "': " + why);
  };
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) reject("grid " + dims(grid) + " has a zero dimension");
  if (block.x == 0 || block.y == 0 || block.z == 0) reject("block " + dims(block) + " has a zero dimension");
  if (grid.x > props.max_grid_dim[0] || grid.y > props.max_grid_dim[1] || grid.z > props.max_grid_dim[2])
    reject("grid " + dims(grid) + " exceeds the maximum (" + std::to_string(props.max_grid_dim[0]) + "," +
           std::to_string(props.max_grid_dim[1]) + "," + std::to_string(props.max_grid_dim[2]) + ")");
  if (block.x > props.max_block_dim[0] || block.y > props.max_block_dim[1] ||
      block.z > props.max_block_dim[2])
    reject("block " + dims(block) + " exceeds the maximum block dimensions (" +
           std::to_string(props.max_block_dim[0]) + "," + std::to_string(props.max_block_dim[1]) + "," +
           std::to_string(props.max_block_dim[2]) + ")");
  // max_block_dim[0] is the hardware's thread limit (CONFIG1); a block's
  // warps must also fit one SM, which max_threads_per_block folds in.
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (threads > props.max_block_dim[0])
    reject("block " + dims(block) + " has " + std::to_string(threads) + " threads, the device allows " +
           std::to_string(props.max_block_dim[0]));
  const uint64_t warps = (threads + props.warp_size - 1) / props.warp_size;
  if (warps > props.warps_per_sm)
    reject("block " + dims(block) + " needs " + std::to_string(warps) + " warps of " +
           std::to_string(props.warp_size) + " lanes, an SM holds " + std::to_string(props.warps_per_sm));
  const uint64_t shared = image.static_shared_bytes() + dynamic_shared_bytes;
  if (dynamic_shared_bytes > props.shared_mem_per_block || shared > props.shared_mem_per_block)
    reject(std::to_string(image.static_shared_bytes()) + " static + " + std::to_string(dynamic_shared_bytes) +
           " dynamic shared bytes exceed the " + std::to_string(props.shared_mem_per_block) +
           " bytes per block");
  if (kernel.param_bytes > kMaxParamBytes)
    reject("parameter buffer of " + std::to_string(kernel.param_bytes) + " bytes exceeds 4096");
  LaunchPlan plan;
  plan.grid_ = grid;
  plan.block_ = block;
  plan.dynamic_shared_bytes_ = static_cast<uint32_t>(dynamic_shared_bytes);
  plan.params_ = marshal_params(kernel, props.xlen, args);
  return plan;
}

// Stack bytes a thread of `kernel` gets beyond the stack limit, so that its
// parameters never eat into the limit the user set (on CUDA they live in
// their own space, guide E.2.9.3).  The trampoline inlines the kernel, which
// reads its parameters from the parameter buffer (sw_kernels/sdk/
// kestrel_entry.h), but what the calling convention would have put on the
// stack can still land in the frame: a kernel's own copy of a by-value
// aggregate of more than 2*XLEN bits that it writes or indexes, and spills of
// parameter values loaded early.  The reserve bounds both by the memory those
// parameters would take under the calling convention; parameters that fit the
// eight argument registers need none, as before.
namespace {
uint32_t parameter_stack_reserve(const KernelInfo& kernel, unsigned xlen) {
  const uint32_t word = xlen / 8;
  uint32_t words = 0;
  uint32_t copies = 0;
  for (const kestrel_param_desc& param : kernel.params) {
    if (param.kind == KESTREL_PARAM_VALUE && param.size > 2 * word) {
      copies += (param.size + 15) / 16 * 16;
      words += 1;  // the copy's address
    } else {
      words += (param.size + word - 1) / word;
    }
  }
  if (words <= 8 && copies == 0) return 0;
  return (copies + words * word + 15) / 16 * 16;
}
}  // namespace

void DeviceContext::ensure_local_backing(uint32_t per_thread) {
  const driver::DeviceInfo& info = device_.info();
  const uint64_t slots = uint64_t{info.num_sms} * info.warps_per_sm * info.lanes_per_warp;
  const uint64_t wanted = slots * per_thread;
  if (local_backing_ != 0 && local_backing_bytes_ == wanted) return;
  if (local_backing_ != 0) {
    release_region(local_backing_);
    local_backing_ = 0;
  }
  // The hardware reaches the backing only through the local window, which is
  // bounds-checked per thread, so its pages stay unmapped: a stray global
  // pointer cannot corrupt a stack.
  local_backing_ = allocate_region(wanted, wanted, RegionKind::local_backing, 0);
  local_backing_bytes_ = wanted;
}

void DeviceContext::launch(const LoadedModule& module, const KernelInfo& kernel, const LaunchPlan& plan) {
  const std::vector<uint8_t>& params = plan.params();
  const kestrel_dim3& grid = plan.grid();
  const kestrel_dim3& block = plan.block();
  retire_launch();
  if (pending_fault_) {
    throw Error(KESTREL_ERROR_LAUNCH_FAULT,
                std::string("an earlier launch faulted and was not yet reported by kestrel_synchronize: ") +
                    pending_fault_->message);
  }
  // The kernel's own frames (as kestrel-cc measured them, section
  // .kestrel.stack) are reserved whatever the limit: on CUDA the compiler
  // sizes a kernel's frame and the limit covers only what it cannot see
  // (recursion, calls through pointers; guide 5.3.2 and B.21).
  const uint64_t window = KESTREL_LOCAL_LIMIT - KESTREL_LOCAL_BASE;
  const uint32_t parameter_reserve = parameter_stack_reserve(kernel, props_.xlen);
  const uint64_t wanted = std::max<uint64_t>(stack_bytes_, kernel.stack_bytes) + parameter_reserve;
  const uint32_t needed_stack = static_cast<uint32_t>(std::min<uint64_t>((wanted + 15) / 16 * 16, window));
  // The frames sit at each window's top: spread the warps' windows over
  // the L2's sets (stack_layout.hpp).
  const uint64_t l2_set_period = props_.l2_ways == 0 ? 0 : props_.l2_bytes / props_.l2_ways;
  const uint32_t thread_stack = spread_stack_bytes(needed_stack, kernel.stack_bytes + parameter_reserve,
                                                   props_.warp_size, l2_set_period, window);
  ensure_local_backing(thread_stack);
  if (module.printf_slot != 0) prepare_printf(module);
  if (module.heap_slot != 0) prepare_heap(module);
  device_.write_mem(param_buffer_, params.data(), params.size());

  driver::LaunchRegs regs;
  regs.entry_pc = module.base + kernel.entry;
  regs.exit_pc = module.base + module.image.exit_pc;
  regs.gp = module.image.gp == 0 ? 0 : module.base + module.image.gp;
  regs.param_addr = param_buffer_;
  regs.grid = {grid.x, grid.y, grid.z};
  regs.block = {block.x, block.y, block.z};
  regs.shared_base = static_cast<uint32_t>(module.base + module.image.shared_start);
  regs.shared_static = static_cast<uint32_t>(module.image.static_shared_bytes());
  regs.shared_dyn = plan.dynamic_shared_bytes();
  regs.stack_bytes = thread_stack;
  regs.local_backing = static_cast<uint32_t>(local_backing_);
  regs.watchdog = watchdog_units_;
  last_fault_ = kestrel_fault_info{};
  // The DRAM counters run from the backend's start: the launch's share is
  // the difference (retire_launch).
  DramCounters dram_before;
  const bool has_dram = device_.read_dram_counters(dram_before);
  device_.launch(regs);
  LaunchRecord record;
  if (has_dram) record.dram = dram_before;
  record.sequence = ++launches_;
  record.kernel = kernel.name;
  record.grid = grid;
  record.block = block;
  record.dynamic_shared_bytes = plan.dynamic_shared_bytes();
  record.stack_bytes = thread_stack;
  record.profiler_window = profiler_window_;
  in_flight_ = InFlight{kernel.name,
                        module.base,
                        module.image.bytes.size(),
                        module.image.debug_elf,
                        module.printf_slot != 0,
                        watchdog_units_,
                        record,
                        std::chrono::steady_clock::now(),
                        stack_bytes_,
                        kernel.stack_bytes,
                        parameter_reserve,
                        thread_stack - needed_stack};
}

void DeviceContext::retire_launch() {
  if (!in_flight_) return;
  const InFlight launch = *in_flight_;
  in_flight_.reset();
  const driver::RunState state = wait_for(launch);
  LaunchRecord stats = launch.record;
  stats.host_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - launch.started).count();
  stats.counters = device_.read_counters();
  stats.sm_counters = device_.read_sm_counters();
  stats.memory = device_.read_mem_counters();
  if (DramCounters after; stats.dram && device_.read_dram_counters(after)) {
    stats.dram = dram_difference(*stats.dram, after);
  } else {
    stats.dram.reset();
  }
  // The output printed before a fault comes first, as on CUDA.
  if (launch.uses_printf) drain_printf(state == driver::RunState::fault);
  if (state != driver::RunState::fault) {
    record_launch(stats);
    return;
  }

  const driver::FaultRecord record = device_.read_fault();
  stats.fault_kind = record.kind;
  record_launch(stats);
  kestrel_fault_info fault{};
  fault.kind = record.kind;
  fault.pc = record.pc;
  fault.address = record.address;
  fault.block = kestrel_dim3{record.block[0], record.block[1], record.block[2]};
  fault.thread = kestrel_dim3{record.thread[0], record.thread[1], record.thread[2]};
  fault.sm = record.sm;
  fault.warp = record.warp;
  fault.info = record.info;
  std::string message = driver::describe_fault(record) + " in kernel '" + demangle(launch.kernel_name) + "'";
  if (record.kind == KESTREL_FAULT_TIMEOUT) {
    // The same watchdog on every backend: simulated cycles from START.
    message =
        "launch timed out after " + std::to_string(uint64_t{launch.watchdog_units} << 20) +
        " cycles, kernel '" + demangle(launch.kernel_name) +
        "' (the watchdog: " + std::to_string(launch.watchdog_units) +
        " x 2^20 cycles, set with KESTREL_WATCHDOG_MCYCLES or KESTREL_LIMIT_WATCHDOG_MCYCLES; 0 = none)";
    if (record.pc != 0) message += "; last issue " + driver::describe_fault(record);
  }
  if (record.pc >= launch.module_base && record.pc < launch.module_base + launch.module_bytes) {
    const uint64_t offset = record.pc - launch.module_base;
    message += " (module offset " + hex(offset) + ")";
    // With debug information (kestrel-cc -g): " at kernel.cu:42 (kernel)".
    if (launch.debug_elf) message += describe_source(find_source(*launch.debug_elf, offset));
  }
  if (record.kind == KESTREL_FAULT_LOCAL_BOUNDS && record.address < KESTREL_LOCAL_BASE) {
    // The stack overflowed (docs/isa.md section 5): say what it was made of
    // and what the limit is for.
    message += "; stack " + std::to_string(launch.record.stack_bytes) + " bytes per thread = max(limit " +
               std::to_string(launch.stack_limit) + ", kernel's own frames " +
               std::to_string(launch.kernel_stack_need) + ") + " + std::to_string(launch.parameter_reserve) +
               " for parameters" +
               (launch.l2_spread != 0 ? " (+ " + std::to_string(launch.l2_spread) +
                                            " to keep the warps' stacks in different L2 sets)"
                                      : std::string()) +
               "; recursion and calls through pointers need a larger cudaLimitStackSize";
  }
  copy_text(fault.message, sizeof fault.message, message);
  pending_fault_ = fault;
}

driver::RunState DeviceContext::wait_for(const InFlight& launch) {
  if (progress_seconds_ <= 0) return device_.wait();
  // Slices short enough that a line comes close to its time on rtlsim.
  constexpr uint64_t kSliceCycles = 16384;
  const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(progress_seconds_));
  auto next = launch.started + period;
  const kestrel_dim3& grid = launch.record.grid;
  const uint64_t blocks = uint64_t{grid.x} * grid.y * grid.z;
  while (device_.advance(kSliceCycles)) {
    const auto now = std::chrono::steady_clock::now();
    if (now < next) continue;
    next = now + period;
    const driver::CounterValues c = device_.read_counters();
    const double seconds = std::chrono::duration<double>(now - launch.started).count();
    const uint64_t cycles = c[KESTREL_CNT_CYCLES];
    std::fprintf(
        stderr,
        "kestrel: %s '%s' after %.1f s: %" PRIu64 " cycles, blocks %" PRIu64 "/%" PRIu64
        ", IPC %.3f, %.0f cycles/s\n",
        props_.name, demangle(launch.kernel_name).c_str(), seconds, cycles, c[KESTREL_CNT_BLOCKS], blocks,
        cycles == 0 ? 0.0 : static_cast<double>(c[KESTREL_CNT_WARP_INSTRS]) / static_cast<double>(cycles),
        seconds > 0 ? static_cast<double>(cycles) / seconds : 0.0);
    std::fflush(stderr);
  }
  return device_.wait();
}

void DeviceContext::record_launch(const LaunchRecord& record) {
  last_launch_ = record;
  if (stats_) stats_->append(launch_json(record, props_));
}

const LaunchRecord& DeviceContext::last_launch() {
  retire_launch();
  if (!last_launch_) throw Error(KESTREL_ERROR_NOT_FOUND, "no launch on this device yet");
  return *last_launch_;
}

bool DeviceContext::advance(uint64_t cycles) {
  if (!in_flight_) return false;
  if (device_.advance(cycles)) return true;
  retire_launch();
  return false;
}

void DeviceContext::synchronize() {
  retire_launch();
  if (!pending_fault_) return;
  last_fault_ = *pending_fault_;
  pending_fault_.reset();
  throw Error(last_fault_.kind == KESTREL_FAULT_TIMEOUT ? KESTREL_ERROR_TIMEOUT : KESTREL_ERROR_LAUNCH_FAULT,
              last_fault_.message);
}

driver::CounterValues DeviceContext::counters() {
  retire_launch();
  return device_.read_counters();
}

void DeviceContext::set_stack_bytes(uint64_t bytes) {
  const uint64_t window = KESTREL_LOCAL_LIMIT - KESTREL_LOCAL_BASE;
  if (bytes == 0 || bytes % 16 != 0 || bytes > window)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "stack size " + std::to_string(bytes) +
                                                 " must be a non-zero multiple of 16 of at most " +
                                                 std::to_string(window) + " bytes");
  retire_launch();
  stack_bytes_ = static_cast<uint32_t>(bytes);
}

void DeviceContext::set_printf_fifo_bytes(uint64_t bytes) {
  const uint64_t most = std::min(kMaxPrintfFifo, props_.global_mem_bytes / 2);
  if (bytes < kMinPrintfFifo || bytes > most)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "printf FIFO size " + std::to_string(bytes) + " must be " +
                                                 std::to_string(kMinPrintfFifo) + " to " +
                                                 std::to_string(most) + " bytes");
  retire_launch();
  if (printf_fifo_ != 0) {
    release_region(printf_fifo_);
    printf_fifo_ = 0;
  }
  printf_fifo_bytes_ = bytes;
}

void DeviceContext::set_output(kestrel_output_fn fn, void* user) {
  output_fn_ = fn;
  output_user_ = user;
}

void DeviceContext::emit(int stream, const std::string& text) {
  if (text.empty()) return;
  if (output_fn_ != nullptr) {
    output_fn_(output_user_, stream, text.data(), text.size());
    return;
  }
  FILE* file = stream == 2 ? stderr : stdout;
  std::fwrite(text.data(), 1, text.size(), file);
  std::fflush(file);
}

void DeviceContext::prepare_printf(const LoadedModule& module) {
  if (printf_fifo_ == 0) {
    printf_fifo_ = allocate_region(printf_fifo_bytes_, printf_fifo_bytes_, RegionKind::printf_fifo,
                                   KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
    printf_fifo_allocated_ = printf_fifo_bytes_;
    // Records are committed by a word written last, so the record space must
    // start out zero; drain_printf() clears what each launch used.
    const std::vector<uint8_t> zeros(std::min<uint64_t>(printf_fifo_allocated_, kCopyChunk), 0);
    for (uint64_t done = 0; done < printf_fifo_allocated_;) {
      const uint64_t n = std::min<uint64_t>(kCopyChunk, printf_fifo_allocated_ - done);
      device_.write_mem(printf_fifo_ + done, zeros.data(), n);
      done += n;
    }
    const uint32_t header[4] = {
        0, static_cast<uint32_t>(printf_fifo_allocated_ - KESTREL_PRINTF_HEADER_BYTES), 0, 0};
    device_.write_mem(printf_fifo_, header, sizeof header);
  }
  const uint64_t address = printf_fifo_;  // little-endian: the first XLEN/8 bytes are the pointer
  device_.write_mem(module.base + module.printf_slot, &address, props_.xlen / 8);
}

void DeviceContext::prepare_heap(const LoadedModule& module) {
  if (heap_ == 0) {
    const uint64_t bytes = KESTREL_HEAP_HEADER_BYTES + heap_bytes_;
    heap_ = allocate_region(bytes, bytes, RegionKind::heap, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
    uint64_t header[KESTREL_HEAP_HEADER_BYTES / 8] = {};
    header[KESTREL_HEAP_TOP_WORD] = KESTREL_HEAP_HEADER_BYTES;
    header[KESTREL_HEAP_END_WORD] = bytes;
    device_.write_mem(heap_, header, sizeof header);
  }
  const uint64_t address = heap_;  // little-endian: the first XLEN/8 bytes are the pointer
  device_.write_mem(module.base + module.heap_slot, &address, props_.xlen / 8);
}

void DeviceContext::set_heap_bytes(uint64_t bytes) {
  retire_launch();
  if (heap_ != 0)
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "the device heap of " + std::to_string(heap_bytes_) +
                    " bytes exists since a launch used malloc or free; its size is fixed until the device is "
                    "reset (guide B.18.1)");
  const uint64_t most =
      std::min<uint64_t>(KESTREL_HEAP_MAX_BYTES, props_.global_mem_bytes) - KESTREL_HEAP_HEADER_BYTES;
  if (bytes > most)
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "device heap size " + std::to_string(bytes) + " exceeds " + std::to_string(most) + " bytes");
  heap_bytes_ = bytes;
}

void DeviceContext::drain_printf(bool faulted) {
  if (printf_fifo_ == 0) return;
  uint32_t header[4];
  device_.read_mem(printf_fifo_, header, sizeof header);
  const uint64_t capacity = printf_fifo_allocated_ - KESTREL_PRINTF_HEADER_BYTES;
  const uint64_t used = std::min<uint64_t>(header[KESTREL_PRINTF_HEAD_WORD], capacity);
  const uint32_t dropped = header[KESTREL_PRINTF_DROPPED_WORD];
  std::vector<uint8_t> records(used);
  if (used != 0) device_.read_mem(printf_fifo_ + KESTREL_PRINTF_HEADER_BYTES, records.data(), used);

  const PrintfParse parse = parse_printf_records(records.data(), records.size());
  std::string pending;
  int pending_stream = kPrintfStream;
  for (const PrintfRecord& record : parse.records) {
    const int stream = (record.flags & KESTREL_PRINTF_FLAG_ASSERT) ? kAssertStream : kPrintfStream;
    if (stream != pending_stream) {
      emit(pending_stream, pending);
      pending.clear();
      pending_stream = stream;
    }
    pending += format_printf(record.format, record.args, props_.xlen);
  }
  emit(pending_stream, pending);
  if (dropped != 0)
    emit(kDiagnosticStream, "kestrel: " + std::to_string(dropped) +
                                " device printf record(s) did not fit the " +
                                std::to_string(printf_fifo_allocated_) +
                                "-byte printf FIFO and were dropped (cudaLimitPrintfFifoSize)\n");
  // A full FIFO leaves the space the first dropped record reserved at its
  // end unwritten (zero): the parse stops there, but nothing beyond the
  // dropped records is lost.
  bool lost = parse.incomplete != 0 || parse.truncated;
  if (lost && parse.incomplete == 0 && header[KESTREL_PRINTF_HEAD_WORD] > capacity) {
    lost = std::any_of(records.begin() + static_cast<std::ptrdiff_t>(parse.parsed_bytes), records.end(),
                       [](uint8_t byte) { return byte != 0; });
  }
  if (lost && faulted)
    emit(kDiagnosticStream, "kestrel: device printf output of the faulted launch is incomplete\n");
  else if (lost)
    emit(
        kDiagnosticStream,
        "kestrel: device printf output is incomplete: the printf FIFO holds a malformed or unfinished record "
        "(did the kernel store into it?)\n");

  if (used != 0) {
    const std::vector<uint8_t> zeros(used, 0);
    device_.write_mem(printf_fifo_ + KESTREL_PRINTF_HEADER_BYTES, zeros.data(), used);
  }
  header[KESTREL_PRINTF_HEAD_WORD] = 0;
  header[KESTREL_PRINTF_DROPPED_WORD] = 0;
  device_.write_mem(printf_fifo_, header, sizeof header);
}

void DeviceContext::set_watchdog_units(uint64_t units) {
  if (units > 0xFFFFFFFFu)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "watchdog budget of " + std::to_string(units) +
                                                 " x 2^20 cycles is too large (at most 4294967295)");
  watchdog_units_ = static_cast<uint32_t>(units);
}

// KESTREL_PROGRESS=N: a heartbeat every N seconds, 0 none; unset, the
// progress setting of KESTREL_CONFIG, else every 5 s when stderr is a
// terminal (someone watches) and none otherwise (logs stay quiet).
double DeviceContext::progress_from_environment(const driver::RunConfig& run) {
  constexpr double kTerminalPeriod = 5;
  const char* text = std::getenv("KESTREL_PROGRESS");
  if (text == nullptr || *text == '\0') {
    if (run.progress_seconds) return *run.progress_seconds;
    return isatty(STDERR_FILENO) != 0 ? kTerminalPeriod : 0;
  }
  driver::RunConfig parsed;
  driver::parse_run_config(std::string("progress=") + text, "KESTREL_PROGRESS", parsed);
  return *parsed.progress_seconds;
}

// KESTREL_WATCHDOG_MCYCLES gives every device of the process, CUDA programs
// included, its watchdog without a code change.
uint32_t DeviceContext::watchdog_from_environment(const driver::RunConfig& run) {
  const char* text = std::getenv("KESTREL_WATCHDOG_MCYCLES");
  if (text == nullptr || *text == '\0') return run.watchdog_mcycles.value_or(kDefaultWatchdogMcycles);
  char* end = nullptr;
  errno = 0;
  const unsigned long long units = std::strtoull(text, &end, 10);
  if (*end != '\0' || errno != 0 || units > 0xFFFFFFFFu || *text == '-' || *text == '+')
    throw Error(KESTREL_ERROR_INVALID_VALUE, std::string("KESTREL_WATCHDOG_MCYCLES='") + text +
                                                 "' is not a number of 2^20-cycle units from 0 (no "
                                                 "watchdog) to 4294967295");
  return static_cast<uint32_t>(units);
}

}  // namespace kestrel::runtime
