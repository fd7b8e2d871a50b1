// The runtime's state for one open device: the driver Device, the DRAM
// allocator and its regions, loaded modules and the launch in flight.  All
// methods throw kestrel::Error; the C API (c_api.cpp) turns that into status
// codes and the device's last-error message.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kestrel/driver/device.hpp"
#include "kestrel/driver/run_config.hpp"
#include "kestrel/kestrel.h"
#include "kestrel/runtime/module_image.hpp"
#include "launch_stats.hpp"
#include "page_allocator.hpp"

namespace kestrel::runtime {

// A launch whose configuration has been checked against a device and whose
// parameter buffer is marshalled: only plan_launch makes one, so every launch
// (C API or CUDA) is validated exactly once, with one set of messages.
class LaunchPlan {
 public:
  const kestrel_dim3& grid() const { return grid_; }
  const kestrel_dim3& block() const { return block_; }
  uint32_t dynamic_shared_bytes() const { return dynamic_shared_bytes_; }
  const std::vector<uint8_t>& params() const { return params_; }

 private:
  friend LaunchPlan plan_launch(const kestrel_device_props& props, const ModuleImage& image,
                                const KernelInfo& kernel, const kestrel_dim3& grid, const kestrel_dim3& block,
                                uint64_t dynamic_shared_bytes, void** args);
  LaunchPlan() = default;
  kestrel_dim3 grid_{};
  kestrel_dim3 block_{};
  uint32_t dynamic_shared_bytes_ = 0;
  std::vector<uint8_t> params_;
};

// Checks a launch of `kernel` (of `image`) on a device with `props` and
// marshals its arguments (marshal_params).  Throws kestrel::Error:
// KESTREL_ERROR_INVALID_CONFIG for the grid, block, shared memory or
// parameter size, KESTREL_ERROR_INVALID_VALUE for the arguments.  Needs no
// device: the CUDA layer plans on the calling thread and launches later.
LaunchPlan plan_launch(const kestrel_device_props& props, const ModuleImage& image, const KernelInfo& kernel,
                       const kestrel_dim3& grid, const kestrel_dim3& block, uint64_t dynamic_shared_bytes,
                       void** args);

// A module placed in device DRAM.
struct LoadedModule {
  ModuleImage image;
  uint64_t base = 0;            // load address of link-time address 0
  uint64_t reserved_bytes = 0;  // image + shared window, whole pages
  // Link-time address of the module's device heap pointer (KESTREL_HEAP_SYMBOL),
  // 0 when its code never calls malloc or free.
  uint64_t heap_slot = 0;
  // Link-time address of the module's printf FIFO pointer (KESTREL_PRINTF_SYMBOL),
  // 0 when its code never calls printf.
  uint64_t printf_slot = 0;
};

class DeviceContext {
 public:
  // `run`: the settings of KESTREL_CONFIG and the open call that are the
  // runtime's (watchdog, stack size, statistics file); the backend took its
  // own when it was opened.
  DeviceContext(std::unique_ptr<Transport> transport, const std::string& backend,
                const driver::RunConfig& run = {});
  ~DeviceContext();
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  const kestrel_device_props& props() const { return props_; }
  // The SMs run kx.tex (CONFIG3; the iCE40 board preset has no texture unit).
  bool has_texture_unit() const { return device_.info().texture_unit; }

  uint64_t allocate(size_t bytes);
  void release(uint64_t ptr);
  // Later allocations and module placements look first at or above
  // mem_base + `offset` (PageAllocator::set_origin): the CUDA layer gives
  // each of its devices its own origin, so that their addresses differ.
  void set_allocation_origin(uint64_t offset);
  // Copies wait for the launch in flight unless `concurrent`: then they run
  // while it runs (the copy engine), between two advance() slices.
  void copy_to_device(uint64_t dst, const void* src, size_t bytes, bool concurrent = false);
  void copy_to_host(void* dst, uint64_t src, size_t bytes, bool concurrent = false);
  void copy_on_device(uint64_t dst, uint64_t src, size_t bytes, bool concurrent = false);
  void fill(uint64_t dst, uint8_t value, size_t bytes, bool concurrent = false);
  uint64_t free_bytes() const { return pages_.free_pages() * KESTREL_PAGE_SIZE; }

  // Parses (parse_module) and places a module; the second form places an
  // image parsed earlier, so that a caller that keeps images parses each once.
  std::unique_ptr<LoadedModule> load_module(const uint8_t* data, size_t size);
  std::unique_ptr<LoadedModule> load_module(const ModuleImage& image);
  void unload_module(LoadedModule& module);

  // Starts `plan` (made by plan_launch for this device and module.image).
  void launch(const LoadedModule& module, const KernelInfo& kernel, const LaunchPlan& plan);
  void synchronize();
  // Runs about `cycles` cycles of the launch in flight; false once none runs
  // (the launch ended and was retired: synchronize() reports its fault).
  bool advance(uint64_t cycles);
  const kestrel_fault_info& last_fault() const { return last_fault_; }
  driver::CounterValues counters();
  // The record of the latest launch (waits for it); KESTREL_ERROR_NOT_FOUND
  // before the first.
  const LaunchRecord& last_launch();
  // Whether later launches are inside the CUDA layer's profiler window
  // (cudaProfilerStart/Stop), which their statistics record.
  void set_profiler_window(bool inside) { profiler_window_ = inside ? 1 : 0; }
  // The KESTREL_STATS file this device writes, or "" for none.
  std::string stats_path() const { return stats_ ? stats_->path() : std::string(); }

  uint32_t stack_bytes() const { return stack_bytes_; }
  void set_stack_bytes(uint64_t bytes);
  uint32_t watchdog_units() const { return watchdog_units_; }
  void set_watchdog_units(uint64_t units);
  // The launch watchdog's default: 16 x 2^20 cycles, under ten minutes of
  // rtlsim and seconds of the model (docs/runtime.md).
  static constexpr uint32_t kDefaultWatchdogMcycles = 16;
  // KESTREL_WATCHDOG_MCYCLES, else the watchdog_mcycles setting of `run`
  // (KESTREL_CONFIG), else the default.
  static uint32_t watchdog_from_environment(const driver::RunConfig& run);
  // The heartbeat period in seconds (KESTREL_PROGRESS, docs/runtime.md).
  static double progress_from_environment(const driver::RunConfig& run);
  uint64_t printf_fifo_bytes() const { return printf_fifo_bytes_; }
  // The device heap's size (guide B.18.1): settable until the first launch
  // of a module that uses the heap creates it.
  uint64_t heap_bytes() const { return heap_bytes_; }
  void set_heap_bytes(uint64_t bytes);
  void set_printf_fifo_bytes(uint64_t bytes);
  void set_output(kestrel_output_fn fn, void* user);

 private:
  enum class RegionKind { user, module, params, local_backing, printf_fifo, heap };
  struct Region {
    uint64_t bytes;  // bytes the owner may touch (user: as requested)
    uint64_t pages;
    RegionKind kind;
  };

  uint64_t allocate_region(uint64_t bytes, uint64_t reserve_bytes, RegionKind kind, uint32_t perms);
  void release_region(uint64_t addr);
  // The user or module region holding [ptr, ptr + bytes); throws naming `what`.
  void check_accessible(uint64_t ptr, size_t bytes, const char* what) const;
  // A copy's host buffer [host, host + bytes): not null and not overlapping
  // any region of this device (a device address passed as a host pointer
  // would crash the copy); throws naming `what`.
  void check_host_buffer(const void* host, size_t bytes, const char* what) const;
  // Backing for `per_thread` stack bytes in every thread slot of the device.
  void ensure_local_backing(uint32_t per_thread);
  // Allocates the printf FIFO (of printf_fifo_bytes_) if needed and points
  // `module`'s FIFO variable at it.
  void prepare_printf(const LoadedModule& module);
  // Creates the device heap (of heap_bytes_) if needed and points `module`'s
  // heap variable at it.
  void prepare_heap(const LoadedModule& module);
  // Formats the records of the launch just retired, hands them to the output
  // function and empties the FIFO for the next launch.  `faulted`: the launch
  // ended in a fault, which explains records left unfinished.
  void drain_printf(bool faulted);
  void emit(int stream, const std::string& text);
  // Waits for the launch in flight; a fault becomes pending_fault_.
  void retire_launch();

  // Keeps `record` as the latest launch's and writes it to the statistics file.
  void record_launch(const LaunchRecord& record);

  driver::Device device_;
  kestrel_device_props props_{};
  PageAllocator pages_;
  std::map<uint64_t, Region> regions_;  // by base address

  uint32_t stack_bytes_ = 1024;                        // docs/isa.md section 4 default
  uint32_t watchdog_units_ = kDefaultWatchdogMcycles;  // see docs/runtime.md
  uint64_t param_buffer_ = 0;                          // one read-only page, rewritten per launch
  uint64_t local_backing_ = 0;
  uint64_t local_backing_bytes_ = 0;
  uint64_t printf_fifo_bytes_ = KESTREL_PRINTF_DEFAULT_BYTES;
  uint64_t printf_fifo_ = 0;  // the FIFO region, 0 until a module with printf is launched
  uint64_t heap_bytes_ = KESTREL_HEAP_DEFAULT_BYTES;
  uint64_t heap_ = 0;                   // the heap region, 0 until a module that uses the heap is launched
  uint64_t printf_fifo_allocated_ = 0;  // its size
  kestrel_output_fn output_fn_ = nullptr;
  void* output_user_ = nullptr;

  struct InFlight {
    std::string kernel_name;
    uint64_t module_base;
    uint64_t module_bytes;
    std::shared_ptr<const std::vector<uint8_t>> debug_elf;  // ModuleImage::debug_elf
    bool uses_printf;
    uint32_t watchdog_units;
    LaunchRecord record;  // counters, fault and time filled in at retirement
    std::chrono::steady_clock::time_point started;
    // What the thread stack (record.stack_bytes) was made of, for the
    // message of a stack overflow.
    uint32_t stack_limit;
    uint32_t kernel_stack_need;
    uint32_t parameter_reserve;
    uint32_t l2_spread;  // added to keep the warps' frames in different L2 sets
  };
  // Waits for `launch` to end, printing a heartbeat line to stderr every
  // progress_seconds_ (KESTREL_PROGRESS) while it runs.
  driver::RunState wait_for(const InFlight& launch);
  std::optional<InFlight> in_flight_;
  std::optional<kestrel_fault_info> pending_fault_;
  uint64_t launches_ = 0;
  std::optional<LaunchRecord> last_launch_;
  std::shared_ptr<StatsFile> stats_;  // null without KESTREL_STATS
  double progress_seconds_ = 0;       // heartbeat period, 0 = none
  int profiler_window_ = -1;          // LaunchRecord::profiler_window of later launches
  kestrel_fault_info last_fault_{};
};

// Parameter buffer in CUDA layout for `kernel` from CUDA-style args (args[i]
// points at the host value of parameter i; a pointer's host value is 8 bytes
// and is narrowed to 4 on an RV32 device).  Throws KESTREL_ERROR_INVALID_VALUE.
std::vector<uint8_t> marshal_params(const KernelInfo& kernel, unsigned xlen, void** args);

// The context behind an open C API device handle (c_api.cpp), for the CUDA
// layer, which opens and closes its devices through the C API and runs
// everything else here.  Throws KESTREL_ERROR_INVALID_HANDLE for a handle
// that is not open.
DeviceContext& context_of(kestrel_device_t* device);

// "vector_add" for "_Z10vector_addPKfS0_Pfi", "ns::scale" for a function in a
// namespace; the demangled signature without return type and parameters.
std::string base_name(const std::string& mangled);
// The demangled form, or the name itself when it is not a mangled name.
std::string demangle(const std::string& mangled);

}  // namespace kestrel::runtime
