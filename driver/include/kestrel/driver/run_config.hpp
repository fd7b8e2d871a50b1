// Run-time configuration of every Kestrel device a process opens, CUDA
// programs included, without a code change (docs/configuration.md):
//
//   KESTREL_CONFIG_FILE=path   a file of settings, one key=value per line
//                              (or several separated by commas), '#' starts
//                              a comment
//   KESTREL_CONFIG="sms=4,warps=16,scheduler=gto"
//                              the same settings inline; they win over the
//                              file's
//
// Keys: backend, xlen, sms, warps, lanes, mem_mib, scheduler (lrr, gto or a
// policy number), watchdog_mcycles, stack_bytes, stats (a JSON file of
// per-launch statistics), progress (seconds between heartbeat lines on
// stderr during a launch, 0 = none), itrace (the instruction trace file;
// KESTREL_ITRACE wins), and <backend>.<option> for an option of one
// backend (rtlsim.mem_latency=100), given to that backend only when it is
// the one opened.  Every value is checked here; a bad one is a
// kestrel::Error(KESTREL_ERROR_INVALID_VALUE) naming the setting and where it
// came from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "kestrel/transport.hpp"

namespace kestrel::driver {

struct RunConfig {
  std::string backend;   // "" when not set
  BackendConfig device;  // the defaults where not set; options: see backend_options
  std::map<std::string, std::map<std::string, std::string>> backend_options;  // by backend name
  std::optional<uint32_t> watchdog_mcycles;
  std::optional<uint32_t> stack_bytes;
  std::string stats_path;                  // "" when not set
  std::string itrace_path;                 // the instruction trace (KESTREL_ITRACE wins), "" when not set
  std::optional<double> progress_seconds;  // heartbeat period, 0 = none
  // Which fields were set, for layering one configuration over another.
  bool has_xlen = false, has_sms = false, has_warps = false, has_lanes = false, has_mem = false,
       has_scheduler = false;
};

// Applies the settings of `text` to `config`; `origin` names the text in
// errors ("KESTREL_CONFIG", a file name).  Throws kestrel::Error.
void parse_run_config(const std::string& text, const std::string& origin, RunConfig& config);

// KESTREL_CONFIG_FILE's settings, then KESTREL_CONFIG's, over the defaults.
RunConfig run_config_from_environment();

}  // namespace kestrel::driver
