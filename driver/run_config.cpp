// KESTREL_CONFIG and KESTREL_CONFIG_FILE (kestrel/driver/run_config.hpp).
#include "kestrel/driver/run_config.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"

namespace kestrel::driver {
namespace {

constexpr const char* kKeys =
    "backend, xlen, sms, warps, lanes, mem_mib, scheduler, watchdog_mcycles, stack_bytes, stats, progress, "
    "itrace, "
    "<backend>.<option>";

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

class Setting {
 public:
  Setting(std::string where, std::string key, std::string value)
      : where_(std::move(where)), key_(std::move(key)), value_(std::move(value)) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(KESTREL_ERROR_INVALID_VALUE, where_ + ": '" + key_ + "=" + value_ + "': " + why);
  }

  uint64_t number(uint64_t min_value, uint64_t max_value) const {
    char* end = nullptr;
    errno = 0;
    const unsigned long long parsed = std::strtoull(value_.c_str(), &end, 0);
    if (value_.empty() || *end != '\0' || errno != 0 || value_[0] == '-' || value_[0] == '+' ||
        parsed < min_value || parsed > max_value)
      fail("not a number from " + std::to_string(min_value) + " to " + std::to_string(max_value));
    return parsed;
  }

  // Seconds, decimals allowed, from 0 to a day.
  double seconds() const {
    char* end = nullptr;
    errno = 0;
    const double parsed = std::strtod(value_.c_str(), &end);
    if (value_.empty() || *end != '\0' || errno != 0 || !(parsed >= 0 && parsed <= 86400))
      fail("not a number of seconds from 0 to 86400");
    return parsed;
  }

  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }

 private:
  std::string where_, key_, value_;
};

void apply(const Setting& s, RunConfig& config) {
  const std::string& key = s.key();
  if (key == "backend") {
    if (s.value().empty()) s.fail("empty backend name");
    config.backend = s.value();
  } else if (key == "xlen") {
    const uint64_t xlen = s.number(32, 64);
    if (xlen != 32 && xlen != 64) s.fail("xlen is 32 or 64");
    config.device.xlen = static_cast<unsigned>(xlen);
    config.has_xlen = true;
  } else if (key == "sms") {
    config.device.num_sms = static_cast<unsigned>(s.number(1, 255));
    config.has_sms = true;
  } else if (key == "warps") {
    config.device.warps_per_sm = static_cast<unsigned>(s.number(1, 255));
    config.has_warps = true;
  } else if (key == "lanes") {
    const uint64_t lanes = s.number(1, 32);
    if ((lanes & (lanes - 1)) != 0) s.fail("lanes per warp is a power of two of at most 32");
    config.device.lanes_per_warp = static_cast<unsigned>(lanes);
    config.has_lanes = true;
  } else if (key == "mem_mib") {
    config.device.mem_bytes = s.number(1, (KESTREL_GLOBAL_LIMIT - KESTREL_GLOBAL_BASE) >> 20) << 20;
    config.has_mem = true;
  } else if (key == "scheduler") {
    if (s.value() == "lrr") {
      config.device.sched_policy = KESTREL_SCHED_LRR;
    } else if (s.value() == "gto") {
      config.device.sched_policy = KESTREL_SCHED_GTO;
    } else if (!s.value().empty() && s.value().find_first_not_of("0123456789") == std::string::npos) {
      config.device.sched_policy = static_cast<unsigned>(s.number(0, 15));
    } else {
      s.fail("the scheduler is lrr, gto or a policy number 0-15 (CONFIG2[3:0])");
    }
    config.has_scheduler = true;
  } else if (key == "watchdog_mcycles") {
    config.watchdog_mcycles = static_cast<uint32_t>(s.number(0, 0xFFFFFFFFu));
  } else if (key == "stack_bytes") {
    const uint64_t bytes = s.number(16, KESTREL_LOCAL_LIMIT - KESTREL_LOCAL_BASE);
    if (bytes % 16 != 0) s.fail("the stack size is a multiple of 16 bytes");
    config.stack_bytes = static_cast<uint32_t>(bytes);
  } else if (key == "progress") {
    config.progress_seconds = s.seconds();
  } else if (key == "itrace") {
    if (s.value().empty()) s.fail("empty file name");
    config.itrace_path = s.value();
  } else if (key == "stats") {
    if (s.value().empty()) s.fail("empty file name");
    config.stats_path = s.value();
  } else if (const auto dot = key.find('.'); dot != std::string::npos && dot > 0 && dot + 1 < key.size()) {
    config.backend_options[key.substr(0, dot)][key.substr(dot + 1)] = s.value();
  } else {
    s.fail(std::string("unknown key (known: ") + kKeys + ")");
  }
}

}  // namespace

void parse_run_config(const std::string& text, const std::string& origin, RunConfig& config) {
  std::istringstream lines(text);
  std::string line;
  for (unsigned number = 1; std::getline(lines, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream items(line);
    std::string item;
    while (std::getline(items, item, ',')) {
      item = trim(item);
      if (item.empty()) continue;
      const std::string where =
          text.find('\n') == std::string::npos ? origin : origin + ":" + std::to_string(number);
      const auto equals = item.find('=');
      if (equals == std::string::npos)
        throw Error(KESTREL_ERROR_INVALID_VALUE, where + ": '" + item + "' is not key=value");
      apply(Setting(where, trim(item.substr(0, equals)), trim(item.substr(equals + 1))), config);
    }
  }
}

RunConfig run_config_from_environment() {
  RunConfig config;
  if (const char* path = std::getenv("KESTREL_CONFIG_FILE"); path != nullptr && *path != '\0') {
    std::ifstream file(path);
    if (!file)
      throw Error(KESTREL_ERROR_INVALID_VALUE,
                  std::string("KESTREL_CONFIG_FILE: cannot read '") + path + "'");
    std::stringstream text;
    text << file.rdbuf();
    parse_run_config(text.str() + "\n", path, config);
  }
  if (const char* text = std::getenv("KESTREL_CONFIG"); text != nullptr && *text != '\0')
    parse_run_config(text, "KESTREL_CONFIG", config);
  if (const char* path = std::getenv("KESTREL_ITRACE"); path != nullptr && *path != '\0')
    config.itrace_path = path;
  return config;
}

}  // namespace kestrel::driver
