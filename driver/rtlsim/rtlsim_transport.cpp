// The rtlsim backend: the factory that picks the Verilated kestrel_gpu of the
// requested preset and builds its harness (rtlsim_harness.hpp) with the
// backend options of the BackendConfig and the environment.
#include "kestrel/rtlsim/rtlsim_transport.hpp"

#include "kestrel/rtlsim/rtlsim_engine.hpp"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"
#include "rtlsim_harness.hpp"
#include "rtlsim_presets.hpp"

namespace kestrel::rtlsim {
namespace {

using detail::Harness;
using detail::Options;

// The backend options (BackendConfig::options) this backend knows, each with
// the environment variable that gives it when the config does not.
struct Known {
  const char* option;
  const char* env;
};
constexpr Known kKnown[] = {
    {"dram", "KESTREL_RTLSIM_DRAM"},
    {"mem_latency", "KESTREL_RTLSIM_MEM_LATENCY"},
    {"mem_interval", "KESTREL_RTLSIM_MEM_INTERVAL"},
    {"dram_banks", "KESTREL_RTLSIM_DRAM_BANKS"},
    {"dram_row_bytes", "KESTREL_RTLSIM_DRAM_ROW_BYTES"},
    {"dram_activate", "KESTREL_RTLSIM_DRAM_ACTIVATE"},
    {"dram_precharge", "KESTREL_RTLSIM_DRAM_PRECHARGE"},
    {"max_cycles", "KESTREL_RTLSIM_MAX_CYCLES"},
    {"lockstep", "KESTREL_LOCKSTEP"},
    {"lockstep_inject", "KESTREL_LOCKSTEP_INJECT"},
    {"lockstep_inject_atomic", "KESTREL_LOCKSTEP_INJECT_ATOMIC"},
    {"trace", "KESTREL_TRACE"},
    {"trace_window", "KESTREL_TRACE_WINDOW"},
    {"preset", "KESTREL_RTLSIM_PRESET"},
    {"itrace", "KESTREL_ITRACE"},
};

void check_options(const BackendConfig& config) {
  for (const auto& [name, value] : config.options) {
    bool known = false;
    for (const Known& k : kKnown) known = known || name == k.option;
    if (known) continue;
    std::string names;
    for (const Known& k : kKnown) names += std::string(names.empty() ? "" : ", ") + k.option;
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "rtlsim: unknown backend option '" + name + "' (rtlsim knows: " + names + ")");
  }
}

// An option's text: the config's, else its environment variable's, else
// null.  `where` receives how to name it in an error.
const std::string* lookup(const BackendConfig& config, const char* option, std::string& text,
                          std::string& where) {
  if (auto it = config.options.find(option); it != config.options.end()) {
    where = std::string("option ") + option;
    return &it->second;
  }
  for (const Known& k : kKnown) {
    if (std::string(k.option) != option) continue;
    const char* env = std::getenv(k.env);
    if (env == nullptr || *env == '\0') return nullptr;
    where = k.env;
    text = env;
    return &text;
  }
  return nullptr;
}

uint64_t number(const BackendConfig& config, const char* option, uint64_t fallback, uint64_t min_value) {
  std::string text, where;
  const std::string* value = lookup(config, option, text, where);
  if (value == nullptr) return fallback;
  char* end = nullptr;
  const unsigned long long parsed = std::strtoull(value->c_str(), &end, 0);
  if (value->empty() || *end != '\0' || parsed < min_value) {
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "rtlsim: " + where + "='" + *value + "' is not a number >= " + std::to_string(min_value));
  }
  return parsed;
}

bool flag(const BackendConfig& config, const char* option) {
  std::string text, where;
  const std::string* value = lookup(config, option, text, where);
  if (value == nullptr) return false;
  if (*value == "1" || *value == "on" || *value == "yes" || *value == "true") return true;
  if (*value == "0" || *value == "off" || *value == "no" || *value == "false") return false;
  throw Error(KESTREL_ERROR_INVALID_VALUE,
              "rtlsim: " + where + "='" + *value + "' is not 1/0, on/off, yes/no or true/false");
}

std::string text_of(const BackendConfig& config, const char* option) {
  std::string text, where;
  const std::string* value = lookup(config, option, text, where);
  return value == nullptr ? std::string() : *value;
}

// "start:end" (cycles, end exclusive; either side may be empty).
void parse_window(const std::string& text, Options& options) {
  const auto colon = text.find(':');
  auto number = [&](const std::string& part, uint64_t fallback) -> uint64_t {
    if (part.empty()) return fallback;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(part.c_str(), &end, 0);
    if (*end != '\0' || part[0] == '-') {
      throw Error(KESTREL_ERROR_INVALID_VALUE,
                  "rtlsim: trace window '" + text + "' is not <start>:<end> in cycles");
    }
    return value;
  };
  if (colon == std::string::npos) {
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "rtlsim: trace window '" + text + "' is not <start>:<end> in cycles");
  }
  options.trace_start = number(text.substr(0, colon), 0);
  options.trace_end = number(text.substr(colon + 1), UINT64_MAX);
  if (options.trace_end <= options.trace_start) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: trace window '" + text + "' is empty");
  }
}

}  // namespace

bool trace_built() {
  for (const detail::Preset& p : detail::presets())
    if (p.traced) return true;
  return false;
}

namespace detail {

Options options_from(const BackendConfig& config) {
  check_options(config);
  Options options;
  // A preset first, then each timing option over it.
  const std::string preset = text_of(config, "dram");
  DramTiming& dram = options.dram;
  dram = dram_preset(preset.empty() ? "ideal" : preset);
  dram.latency = number(config, "mem_latency", dram.latency, 1);
  dram.interval = number(config, "mem_interval", dram.interval, 1);
  dram.banks = number(config, "dram_banks", dram.banks, 1);
  dram.row_bytes = number(config, "dram_row_bytes", dram.row_bytes, 0);
  dram.activate = number(config, "dram_activate", dram.activate, 0);
  dram.precharge = number(config, "dram_precharge", dram.precharge, 0);
  check_dram_timing(dram);
  options.max_cycles = number(config, "max_cycles", 0, 1);
  options.lockstep = flag(config, "lockstep");
  options.inject = number(config, "lockstep_inject", 0, 0);
  options.inject_atomic = number(config, "lockstep_inject_atomic", 0, 0);
  options.trace_path = text_of(config, "trace");
  options.itrace_path = text_of(config, "itrace");
  const std::string window = text_of(config, "trace_window");
  if (!window.empty()) parse_window(window, options);
  return options;
}

void check_config(const BackendConfig& config) {
  if (config.mem_bytes == 0 || config.mem_bytes % KESTREL_PAGE_SIZE != 0 ||
      config.mem_bytes > kPageTableCapacity) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: DRAM must be whole 4 KiB pages up to 256 MiB, not " +
                                                 std::to_string(config.mem_bytes) + " bytes");
  }
  if (config.shared_bytes_per_sm != kSharedBytesPerSm) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: the RTL has 64 KiB of shared memory per SM, not " +
                                                 std::to_string(config.shared_bytes_per_sm));
  }
}

}  // namespace detail

namespace {

std::string describe(const detail::Preset& p) {
  return std::string(p.name) + " (rv" + std::to_string(p.xlen) + " " + std::to_string(p.num_sms) + "x" +
         std::to_string(p.warps_per_sm) + "x" + std::to_string(p.lanes_per_warp) + " " +
         sched_policy_name(p.sched_policy) + (p.traced ? ", FST" : "") + ")";
}

std::string built_presets() {
  std::string list;
  for (const detail::Preset& p : detail::presets()) list += (list.empty() ? "" : ", ") + describe(p);
  return list;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const detail::Preset& p : detail::presets()) names.push_back(describe(p));
  return names;
}

namespace {

std::unique_ptr<Engine> make_engine(const BackendConfig& config, const Options& options, LineMemory* memory) {
  const std::string wanted = text_of(config, "preset");
  // A waveform needs a preset Verilated with tracing (`trace`, or every one
  // with -DKESTREL_RTLSIM_TRACE=ON).
  const bool tracing = !options.trace_path.empty();
  std::string traced;
  for (const detail::Preset& p : detail::presets())
    if (p.traced) traced += (traced.empty() ? "" : ", ") + describe(p);
  for (const detail::Preset& p : detail::presets()) {
    if (tracing && !p.traced) {
      if (wanted == p.name) {
        throw Error(KESTREL_ERROR_NOT_SUPPORTED,
                    "rtlsim: preset '" + wanted +
                        "' is built without waveform tracing (traced: " + (traced.empty() ? "none" : traced) +
                        "; -DKESTREL_RTLSIM_TRACE=ON traces every preset)");
      }
      continue;
    }
    if (!wanted.empty()) {
      if (wanted != p.name) continue;
      // The preset's geometry replaces the requested one.
      BackendConfig chosen = config;
      chosen.xlen = p.xlen;
      chosen.lanes_per_warp = p.lanes_per_warp;
      chosen.warps_per_sm = p.warps_per_sm;
      chosen.num_sms = p.num_sms;
      chosen.sched_policy = p.sched_policy;
      return p.make(chosen, options, memory);
    }
    if (config.xlen == p.xlen && config.lanes_per_warp == p.lanes_per_warp &&
        config.warps_per_sm == p.warps_per_sm && config.num_sms == p.num_sms &&
        config.sched_policy == p.sched_policy)
      return p.make(config, options, memory);
  }
  if (!wanted.empty()) {
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "rtlsim: no preset named '" + wanted + "' in this build (built: " + built_presets() + ")");
  }
  if (tracing) {
    throw Error(KESTREL_ERROR_NOT_SUPPORTED,
                "rtlsim: no preset with waveform tracing has the geometry rv" + std::to_string(config.xlen) +
                    " " + std::to_string(config.num_sms) + "x" + std::to_string(config.warps_per_sm) + "x" +
                    std::to_string(config.lanes_per_warp) +
                    " (traced: " + (traced.empty() ? "none" : traced) +
                    "; ask for it with rtlsim.preset=trace, or configure with -DKESTREL_RTLSIM_TRACE=ON to "
                    "trace every preset); asked to trace to '" +
                    options.trace_path + "'");
  }
  throw Error(KESTREL_ERROR_INVALID_VALUE,
              "rtlsim: no RTL build for rv" + std::to_string(config.xlen) + " " +
                  std::to_string(config.num_sms) + "x" + std::to_string(config.warps_per_sm) + "x" +
                  std::to_string(config.lanes_per_warp) + " " + sched_policy_name(config.sched_policy) +
                  " (SMs x warps x lanes; built: " + built_presets() +
                  "; build another with -DKESTREL_RTLSIM_PRESETS=name:Xlen=..,NumSms=..,Warps=..,Lanes=..,"
                  "SchedPolicy=.., docs/configuration.md)");
}

}  // namespace

std::unique_ptr<Transport> make_rtlsim_transport(const BackendConfig& config) {
  detail::check_config(config);
  return make_engine(config, detail::options_from(config), nullptr);
}

std::unique_ptr<Engine> make_rtlsim_engine(const BackendConfig& config, LineMemory& memory) {
  detail::check_config(config);
  for (const char* timing : {"dram", "mem_latency", "mem_interval", "dram_banks", "dram_row_bytes",
                             "dram_activate", "dram_precharge"}) {
    if (config.options.count(timing) != 0) {
      throw Error(KESTREL_ERROR_NOT_SUPPORTED, std::string("rtlsim engine: option ") + timing +
                                                   " does not apply: the memory is the platform's, with its "
                                                   "own timing");
    }
  }
  const Options options = detail::options_from(config);
  if (options.lockstep) {
    throw Error(
        KESTREL_ERROR_NOT_SUPPORTED,
        "rtlsim engine: lock-step needs rtlsim's own DRAM; it does not run on a GPU whose memory is the "
        "platform's (run the program on rtlsim for lock-step)");
  }
  return make_engine(config, options, &memory);
}

}  // namespace kestrel::rtlsim

#if defined(__SANITIZE_ADDRESS__)
// A model whose submodules are kept (rtl/verilator/simulation.vlt) names
// them through Verilated::catName, which keeps one buffer per thread and
// never frees it: when the thread that built a model ends (the CUDA
// runtime's device thread), LeakSanitizer reports that buffer.  It is
// Verilator's, bounded, and not a leak of ours.
extern "C" __attribute__((visibility("default"))) const char* __lsan_default_suppressions() {
  return "leak:Verilated::catName\n";
}
#endif
