// Per-launch statistics and the KESTREL_STATS file (launch_stats.hpp).
#include "launch_stats.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "device_context.hpp"
#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "kestrel/transport.hpp"
#include "kestrel_contract.hpp"

namespace kestrel::runtime {
namespace {

double ratio(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

kestrel_launch_stats launch_stats(const LaunchRecord& record, const kestrel_device_props& props) {
  kestrel_launch_stats s{};
  s.sequence = record.sequence;
  const std::string name = demangle(record.kernel);
  const size_t length = std::min(name.size(), sizeof s.kernel - 1);
  std::memcpy(s.kernel, name.data(), length);
  s.grid = record.grid;
  s.block = record.block;
  s.dynamic_shared_bytes = record.dynamic_shared_bytes;
  s.fault_kind = record.fault_kind;
  for (size_t i = 0; i < record.counters.size(); ++i) s.counters.value[i] = record.counters[i];
  s.host_seconds = record.host_seconds;
  const auto& c = record.counters;
  const uint64_t cycles = c[KESTREL_CNT_CYCLES];
  const uint64_t warp_instrs = c[KESTREL_CNT_WARP_INSTRS];
  // Stall counters count SM-cycles: each SM adds one per cycle it stalls.
  const uint64_t sm_cycles = cycles * props.num_sms;
  s.ipc = ratio(warp_instrs, cycles);
  s.ipc_per_sm = ratio(warp_instrs, sm_cycles);
  s.lane_utilization = ratio(c[KESTREL_CNT_THREAD_INSTRS], warp_instrs * props.warp_size);
  s.diverged_share = ratio(c[KESTREL_CNT_DIVERGED_ISSUES], warp_instrs);
  s.stall_scoreboard_share = ratio(c[KESTREL_CNT_STALL_SCOREBOARD], sm_cycles);
  s.stall_memory_share = ratio(c[KESTREL_CNT_STALL_MEMORY], sm_cycles);
  s.stall_barrier_share = ratio(c[KESTREL_CNT_STALL_BARRIER], sm_cycles);
  s.stall_idle_share = ratio(c[KESTREL_CNT_STALL_IDLE], sm_cycles);
  s.bank_passes_per_shared_access = ratio(c[KESTREL_CNT_SHARED_PASSES], c[KESTREL_CNT_SHARED_ACCESSES]);
  s.cycles_per_host_second =
      record.host_seconds > 0 ? static_cast<double>(cycles) / record.host_seconds : 0.0;
  return s;
}

DramCounters dram_difference(const DramCounters& before, const DramCounters& after) {
  DramCounters d = after;
  d.reads -= before.reads;
  d.writes -= before.writes;
  d.bytes_read -= before.bytes_read;
  d.bytes_written -= before.bytes_written;
  d.bus_bytes -= before.bus_bytes;
  d.row_hits -= before.row_hits;
  d.row_misses -= before.row_misses;
  d.row_conflicts -= before.row_conflicts;
  d.read_latency_cycles -= before.read_latency_cycles;
  return d;
}

kestrel_dram_stats dram_stats(const LaunchRecord& record) {
  kestrel_dram_stats s{};
  if (!record.dram) return s;
  const DramCounters& d = *record.dram;
  const uint64_t requests = d.reads + d.writes;
  const uint64_t cycles = record.counters[KESTREL_CNT_CYCLES];
  s.modelled = 1;
  s.reads = d.reads;
  s.writes = d.writes;
  s.bytes_read = d.bytes_read;
  s.bytes_written = d.bytes_written;
  s.row_hits = d.row_hits;
  s.row_misses = d.row_misses;
  s.row_conflicts = d.row_conflicts;
  s.row_hit_rate = ratio(d.row_hits, requests);
  s.average_read_latency = ratio(d.read_latency_cycles, d.reads);
  s.bytes_per_cycle = ratio(d.bus_bytes, cycles);
  s.peak_bytes_per_cycle = d.peak_bytes_per_cycle;
  s.bandwidth_utilization = d.peak_bytes_per_cycle > 0 ? s.bytes_per_cycle / d.peak_bytes_per_cycle : 0.0;
  return s;
}

kestrel_memory_stats memory_stats(const LaunchRecord& record) {
  kestrel_memory_stats s{};
  if (!record.memory) return s;
  const driver::MemCounterValues& m = *record.memory;
  s.counted = 1;
  for (size_t i = 0; i < m.size(); ++i) s.value[i] = m[i];
  const uint64_t requests = m[KESTREL_MEM_CNT_READS] + m[KESTREL_MEM_CNT_WRITES] +
                            m[KESTREL_MEM_CNT_FETCHES] + m[KESTREL_MEM_CNT_ATOMICS];
  s.average_latency = ratio(m[KESTREL_MEM_CNT_INFLIGHT_CYCLES], requests);
  s.l2_hit_rate =
      ratio(m[KESTREL_MEM_CNT_L2_HITS],
            m[KESTREL_MEM_CNT_L2_HITS] + m[KESTREL_MEM_CNT_L2_MISSES] + m[KESTREL_MEM_CNT_L2_MERGES]);
  s.const_hit_rate =
      ratio(m[KESTREL_MEM_CNT_CONST_HITS], m[KESTREL_MEM_CNT_CONST_HITS] + m[KESTREL_MEM_CNT_CONST_MISSES]);
  s.l1_hit_rate =
      ratio(m[KESTREL_MEM_CNT_L1_HITS], m[KESTREL_MEM_CNT_L1_HITS] + m[KESTREL_MEM_CNT_L1_MISSES]);
  // A constant-cache or L1 hit is a line read the LSU asked for all the
  // same, so the coalescing measure counts it; it never reaches the
  // crossbar, so it moves no bytes on the memory side and average_latency
  // leaves it out.
  // The texture units' line reads pass the same caches and crossbar; they
  // are not the LSU's.
  s.lines_per_warp_load =
      ratio(m[KESTREL_MEM_CNT_READS] + m[KESTREL_MEM_CNT_CONST_HITS] + m[KESTREL_MEM_CNT_L1_HITS] -
                m[KESTREL_MEM_CNT_TEX_MISSES] - m[KESTREL_MEM_CNT_TEX_DESC_MISSES],
            record.counters[KESTREL_CNT_LOADS]);
  s.tex_hit_rate =
      ratio(m[KESTREL_MEM_CNT_TEX_HITS], m[KESTREL_MEM_CNT_TEX_HITS] + m[KESTREL_MEM_CNT_TEX_MISSES]);
  s.bytes_per_cycle = ratio(requests * kestrel::contract::kLineBytes, record.counters[KESTREL_CNT_CYCLES]);
  return s;
}

kestrel_sm_stats sm_stats(const LaunchRecord& record, const kestrel_device_props& props, uint32_t sm) {
  const driver::SmCounterValues& c = record.sm_counters.at(sm);
  const uint64_t cycles = record.counters[KESTREL_CNT_CYCLES];
  kestrel_sm_stats s{};
  s.sm = sm;
  for (size_t j = 0; j < c.size(); ++j) s.value[j] = c[j];
  s.ipc = ratio(c[KESTREL_SM_CNT_WARP_INSTRS], cycles);
  s.active_share = ratio(c[KESTREL_SM_CNT_ACTIVE_CYCLES], cycles);
  s.lane_utilization =
      ratio(c[KESTREL_SM_CNT_THREAD_INSTRS], c[KESTREL_SM_CNT_WARP_INSTRS] * props.warp_size);
  s.stall_scoreboard_share = ratio(c[KESTREL_SM_CNT_STALL_SCOREBOARD], cycles);
  s.stall_memory_share = ratio(c[KESTREL_SM_CNT_STALL_MEMORY], cycles);
  s.stall_barrier_share = ratio(c[KESTREL_SM_CNT_STALL_BARRIER], cycles);
  s.stall_idle_share = ratio(c[KESTREL_SM_CNT_STALL_IDLE], cycles);
  return s;
}

namespace {

// The per-SM part of a record: one object per SM, and how uneven the SMs'
// work was (the busiest SM's warp-instructions over the mean, 1 = even;
// null unless every SM has figures).
nlohmann::ordered_json per_sm_json(const LaunchRecord& record, const kestrel_device_props& props) {
  if (record.sm_counters.empty()) return nullptr;
  nlohmann::ordered_json sms = nlohmann::ordered_json::array();
  for (uint32_t sm = 0; sm < record.sm_counters.size(); ++sm) {
    const kestrel_sm_stats s = sm_stats(record, props, sm);
    nlohmann::ordered_json json = {{"sm", sm}};
    for (int j = 0; j < static_cast<int>(KESTREL_SM_CNT_COUNT); ++j)
      json[kestrel_sm_counter_name(j)] = s.value[j];
    json["ipc"] = s.ipc;
    json["active_share"] = s.active_share;
    json["lane_utilization"] = s.lane_utilization;
    json["stall_shares"] = {{"scoreboard", s.stall_scoreboard_share},
                            {"memory", s.stall_memory_share},
                            {"barrier", s.stall_barrier_share},
                            {"idle", s.stall_idle_share}};
    sms.push_back(json);
  }
  return sms;
}

// The DRAM model's figures of the launch; null for a backend without one.
nlohmann::ordered_json dram_json(const LaunchRecord& record) {
  if (!record.dram) return nullptr;
  const kestrel_dram_stats s = dram_stats(record);
  return {{"reads", s.reads},
          {"writes", s.writes},
          {"bytes_read", s.bytes_read},
          {"bytes_written", s.bytes_written},
          {"row_hits", s.row_hits},
          {"row_misses", s.row_misses},
          {"row_conflicts", s.row_conflicts},
          {"row_hit_rate", s.row_hit_rate},
          {"average_read_latency", s.average_read_latency},
          {"bytes_per_cycle", s.bytes_per_cycle},
          {"peak_bytes_per_cycle", s.peak_bytes_per_cycle},
          {"bandwidth_utilization", s.bandwidth_utilization}};
}

// The memory side's figures of the launch; null without the counter window.
nlohmann::ordered_json memory_json(const LaunchRecord& record) {
  if (!record.memory) return nullptr;
  const kestrel_memory_stats s = memory_stats(record);
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (int i = 0; i < KESTREL_MEM_CNT_COUNT; ++i) json[kestrel_mem_counter_name(i)] = s.value[i];
  json["average_latency"] = s.average_latency;
  json["l2_hit_rate"] = s.l2_hit_rate;
  json["const_hit_rate"] = s.const_hit_rate;
  json["l1_hit_rate"] = s.l1_hit_rate;
  json["tex_hit_rate"] = s.tex_hit_rate;
  json["lines_per_warp_load"] = s.lines_per_warp_load;
  json["bytes_per_cycle"] = s.bytes_per_cycle;
  return json;
}

nlohmann::ordered_json imbalance_json(const LaunchRecord& record, const kestrel_device_props& props) {
  if (record.sm_counters.empty() || record.sm_counters.size() != props.num_sms) return nullptr;
  uint64_t most = 0, total = 0;
  for (const auto& c : record.sm_counters) {
    most = std::max(most, c[KESTREL_SM_CNT_WARP_INSTRS]);
    total += c[KESTREL_SM_CNT_WARP_INSTRS];
  }
  return total == 0 ? 0.0
                    : static_cast<double>(most) * static_cast<double>(record.sm_counters.size()) /
                          static_cast<double>(total);
}

}  // namespace

std::string launch_json(const LaunchRecord& record, const kestrel_device_props& props) {
  const kestrel_launch_stats s = launch_stats(record, props);
  nlohmann::ordered_json counters = nlohmann::ordered_json::object();
  for (int i = 0; i < KESTREL_CNT_COUNT; ++i) {
    if (const char* name = kestrel_counter_name(i); name != nullptr) counters[name] = record.counters[i];
  }
  const char* fault = kestrel_fault_kind_name(record.fault_kind);
  nlohmann::ordered_json json = {
      {"launch", record.sequence},
      {"kernel", demangle(record.kernel)},
      {"mangled", record.kernel},
      {"grid", {record.grid.x, record.grid.y, record.grid.z}},
      {"block", {record.block.x, record.block.y, record.block.z}},
      {"dynamic_shared_bytes", record.dynamic_shared_bytes},
      {"stack_bytes", record.stack_bytes},
      {"profiler_window", record.profiler_window < 0 ? nlohmann::ordered_json(nullptr)
                                                     : nlohmann::ordered_json(record.profiler_window == 1)},
      {"fault", record.fault_kind == KESTREL_FAULT_NONE || fault == nullptr ? nlohmann::ordered_json(nullptr)
                                                                            : nlohmann::ordered_json(fault)},
      {"device",
       {{"name", props.name},
        {"backend", props.backend},
        {"xlen", props.xlen},
        {"sms", props.num_sms},
        {"warps_per_sm", props.warps_per_sm},
        {"lanes_per_warp", props.warp_size},
        {"scheduler", sched_policy_name(props.sched_policy)},
        {"l2_bytes", props.l2_bytes},
        {"clock_khz", props.clock_khz}}},
      {"host_seconds", record.host_seconds},
      {"counters", counters},
      {"per_sm", per_sm_json(record, props)},
      {"dram", dram_json(record)},
      {"memory", memory_json(record)},
      {"derived",
       {{"ipc", s.ipc},
        {"ipc_per_sm", s.ipc_per_sm},
        {"lane_utilization", s.lane_utilization},
        {"diverged_share", s.diverged_share},
        {"stall_shares",
         {{"scoreboard", s.stall_scoreboard_share},
          {"memory", s.stall_memory_share},
          {"barrier", s.stall_barrier_share},
          {"idle", s.stall_idle_share}}},
        {"bank_passes_per_shared_access", s.bank_passes_per_shared_access},
        {"sm_imbalance", imbalance_json(record, props)},
        {"cycles_per_host_second", s.cycles_per_host_second}}},
  };
  return json.dump();
}

std::shared_ptr<StatsFile> StatsFile::open(const std::string& path) {
  // The files this process writes, so that its devices share each one and
  // only the first truncates it (a process's statistics, as a profiler's).
  static std::mutex registry_mutex;
  static std::map<std::string, std::weak_ptr<StatsFile>> registry;
  static std::map<std::string, bool> started;
  const std::lock_guard<std::mutex> lock(registry_mutex);
  if (auto existing = registry[path].lock()) return existing;
  const bool first = !started[path];
  std::ofstream file(path, first ? std::ios::trunc : std::ios::app);
  if (!file) throw Error(KESTREL_ERROR_INVALID_VALUE, "KESTREL_STATS: cannot write '" + path + "'");
  started[path] = true;
  std::shared_ptr<StatsFile> created(new StatsFile(path));
  registry[path] = created;
  return created;
}

void StatsFile::append(const std::string& line) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::ofstream file(path_, std::ios::app);
  file << line << '\n';
  file.flush();
  if (!file) std::fprintf(stderr, "kestrel: KESTREL_STATS: writing '%s' failed\n", path_.c_str());
}

}  // namespace kestrel::runtime
