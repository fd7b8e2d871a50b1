// Per-launch statistics (docs/runtime.md, "Statistics"): the record the
// runtime keeps of each retired launch, the figures derived from its
// counters, and the JSON Lines file KESTREL_STATS names, one record per
// launch from any program, CUDA ones included.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kestrel/driver/device.hpp"
#include "kestrel/kestrel.h"

namespace kestrel::runtime {

struct LaunchRecord {
  uint64_t sequence = 0;  // the device's launches so far, this one included
  std::string kernel;     // mangled name
  kestrel_dim3 grid{};
  kestrel_dim3 block{};
  uint32_t dynamic_shared_bytes = 0;
  uint32_t stack_bytes = 0;
  int32_t fault_kind = KESTREL_FAULT_NONE;
  driver::CounterValues counters{};
  // SM s's counters at [s] (the first KESTREL_SM_COUNTERS_MAX_SMS SMs);
  // empty when the device has no per-SM counters.
  std::vector<driver::SmCounterValues> sm_counters;
  double host_seconds = 0;  // wall time from the launch to its retirement
  // Inside the CUDA profiler window (cudaProfilerStart/Stop): 1 or 0; -1
  // for a launch of the C/C++ API, which has no such window.
  int profiler_window = -1;
  // What the backend's DRAM model did during the launch (the counters'
  // difference over it); absent for a backend without one.
  std::optional<DramCounters> dram;
  // The memory-system counters; absent on a device without the window.
  std::optional<driver::MemCounterValues> memory;
};

// What a DRAM model did between two readings of its counters.
DramCounters dram_difference(const DramCounters& before, const DramCounters& after);

// The record's DRAM figures in the C API's form; all zero without a DRAM
// model (kestrel_dram_stats::modelled is then 0).
kestrel_dram_stats dram_stats(const LaunchRecord& record);

// The record's memory-system figures in the C API's form; counted = 0 and
// zeros without the memory counter window.
kestrel_memory_stats memory_stats(const LaunchRecord& record);

// The record and its derived figures in the C API's form.
kestrel_launch_stats launch_stats(const LaunchRecord& record, const kestrel_device_props& props);

// SM s's figures of the record (s < record.sm_counters.size()).
kestrel_sm_stats sm_stats(const LaunchRecord& record, const kestrel_device_props& props, uint32_t sm);

// One JSON object (a line of the statistics file): the launch, the device's
// configuration, every counter by name and the derived figures.
std::string launch_json(const LaunchRecord& record, const kestrel_device_props& props);

// The statistics file of one path, shared by every device of the process
// that writes to it: the first to open it in the process starts it afresh,
// the others append, and each record is one line written whole.
class StatsFile {
 public:
  static std::shared_ptr<StatsFile> open(const std::string& path);
  void append(const std::string& line);
  const std::string& path() const { return path_; }

 private:
  explicit StatsFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::mutex mutex_;
};

}  // namespace kestrel::runtime
