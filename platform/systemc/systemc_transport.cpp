// The driver backend "systemc": the runtime's Transport operations as host
// transactions on the example platform (platform.hpp).
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "kestrel/error.hpp"
#include "kestrel/systemc/platform.hpp"

namespace kestrel::systemc {
namespace {

// The process's platform (SystemC elaborates one design per process) and
// whether a device is open on it.  Never destroyed: SystemC's simulation
// context, which the modules belong to, lives until the process ends.
struct Registry {
  HostPort* host = nullptr;
  const Memory* memory = nullptr;  // the platform's, for the DRAM counters; null for a user's platform
  std::function<void()> reset;     // before every device but the first
  bool owned = false;              // built by make_systemc_transport, from `config`
  BackendConfig config;            // what it was built from
  bool used = false;               // a device was open on it: the next one resets it
  bool open = false;
};

Registry& registry() {
  static Registry r;
  return r;
}

class PlatformTransport final : public Transport {
 public:
  PlatformTransport(HostPort& host, const Memory* memory) : host_(host), memory_(memory) {}
  ~PlatformTransport() override { registry().open = false; }
  PlatformTransport(const PlatformTransport&) = delete;
  PlatformTransport& operator=(const PlatformTransport&) = delete;

  std::string name() const override { return "systemc"; }
  uint32_t read_reg(uint32_t offset) override {
    uint32_t value = 0;
    host_.call([&] { value = host_.read_reg(offset); });
    return value;
  }
  void write_reg(uint32_t offset, uint32_t value) override {
    host_.call([&] { host_.write_reg(offset, value); });
  }
  void write_mem(uint64_t addr, const void* src, size_t bytes) override {
    host_.call([&] { host_.write_mem(addr, src, bytes); });
  }
  void read_mem(uint64_t addr, void* dst, size_t bytes) override {
    host_.call([&] { host_.read_mem(addr, dst, bytes); });
  }
  void wait_idle() override {
    host_.call([&] { host_.wait_idle(); });
  }
  bool advance(uint64_t cycles) override {
    bool running = false;
    host_.call([&] { running = host_.advance(cycles); });
    return running;
  }
  bool overlaps_copies() const override { return true; }
  bool dram_counters(DramCounters& out) const override {
    return memory_ != nullptr && memory_->dram_counters(out);
  }

 private:
  HostPort& host_;
  const Memory* memory_;
};

uint64_t number_option(const BackendConfig& config, const char* name, uint64_t fallback) {
  const auto it = config.options.find(name);
  if (it == config.options.end()) return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(it->second.c_str(), &end, 0);
  if (it->second.empty() || *end != '\0' || it->second[0] == '-' || value == 0) {
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "systemc: option " + std::string(name) + "='" + it->second + "' is not a number above 0");
  }
  return value;
}

// The platform's timing from the backend options, and the options left for
// the GPU's rtlsim engine.
PlatformTiming timing_from(const BackendConfig& config, BackendConfig& engine_config) {
  static const char* const kOwn[] = {"gpu", "clock_mhz", "mem_latency", "quantum", "dmi", "dram"};
  static const char* const kEngine[] = {"preset", "itrace", "max_cycles"};
  engine_config = config;
  engine_config.options.clear();
  for (const auto& [name, value] : config.options) {
    bool own = false, engine = false;
    for (const char* o : kOwn) own = own || name == o;
    for (const char* e : kEngine) engine = engine || name == e;
    if (engine) engine_config.options[name] = value;
    if (!own && !engine) {
      throw Error(KESTREL_ERROR_INVALID_VALUE, "systemc: unknown backend option '" + name +
                                                   "' (systemc knows: gpu, clock_mhz, mem_latency, quantum, "
                                                   "dmi, dram, preset, itrace, max_cycles)");
    }
  }
  PlatformTiming timing;
  timing.gpu.clock_period =
      sc_core::sc_time(1e3 / static_cast<double>(number_option(config, "clock_mhz", 100)), sc_core::SC_NS);
  timing.memory_latency_cycles = number_option(config, "mem_latency", 20);
  if (const auto it = config.options.find("dram"); it != config.options.end()) {
    // rtlsim's DRAM model and presets; mem_latency, when given, over the preset's.
    rtlsim::DramTiming dram = rtlsim::dram_preset(it->second);
    dram.latency = number_option(config, "mem_latency", dram.latency);
    rtlsim::check_dram_timing(dram);
    timing.dram = dram;  // the memory then grants no DMI pointer: every access is timed
  }
  timing.gpu.quantum_cycles = number_option(config, "quantum", 1024);
  if (const auto it = config.options.find("dmi"); it != config.options.end()) {
    if (it->second == "1" || it->second == "on") {
      timing.gpu.dmi = true;
    } else if (it->second == "0" || it->second == "off") {
      timing.gpu.dmi = false;
    } else {
      throw Error(KESTREL_ERROR_INVALID_VALUE,
                  "systemc: option dmi='" + it->second + "' is not 1/0 or on/off");
    }
  }
  return timing;
}

bool same_config(const BackendConfig& a, const BackendConfig& b) {
  return a.xlen == b.xlen && a.num_sms == b.num_sms && a.warps_per_sm == b.warps_per_sm &&
         a.lanes_per_warp == b.lanes_per_warp && a.mem_bytes == b.mem_bytes &&
         a.sched_policy == b.sched_policy && a.options == b.options;
}

}  // namespace

void use_host(HostPort& host, std::function<void()> reset) {
  Registry& r = registry();
  if (r.open) {
    throw Error(KESTREL_ERROR_NOT_SUPPORTED, "systemc: a device is open on the current platform");
  }
  r.host = &host;
  r.memory = nullptr;
  r.reset = std::move(reset);
  r.owned = false;
  r.used = false;
}

void use_platform(Platform& platform) {
  use_host(platform.host, [&platform] { platform.reset(); });
  registry().memory = &platform.memory;
}

std::unique_ptr<Transport> make_systemc_transport(const BackendConfig& config) {
  Registry& r = registry();
  if (r.open) {
    throw Error(
        KESTREL_ERROR_NOT_SUPPORTED,
        "systemc: a device is already open on this process's platform; SystemC elaborates one design per "
        "process, so one systemc device can be open at a time");
  }
  BackendConfig engine_config;
  const PlatformTiming timing = timing_from(config, engine_config);
  GpuKind kind = GpuKind::kCycleAccurate;
  if (const auto it = config.options.find("gpu"); it != config.options.end()) {
    if (it->second == "model") {
      kind = GpuKind::kFast;
      if (timing.dram) {
        throw Error(
            KESTREL_ERROR_INVALID_VALUE,
            "systemc: option dram needs the cycle-accurate GPU (gpu=rtl): the fast GPU works on a DMI "
            "pointer, which a DRAM-timed memory does not grant");
      }
      // The functional model takes the instruction trace only.
      for (const char* rtl_only : {"preset", "max_cycles"}) {
        if (engine_config.options.erase(rtl_only) != 0) {
          throw Error(KESTREL_ERROR_INVALID_VALUE, std::string("systemc: option ") + rtl_only +
                                                       " is the cycle-accurate GPU's, not gpu=model's");
        }
      }
    } else if (it->second != "rtl") {
      throw Error(KESTREL_ERROR_INVALID_VALUE,
                  "systemc: option gpu='" + it->second + "' is not rtl or model");
    }
  }
  if (r.host == nullptr) {
    // The banner SystemC prints at its first elaboration would land in every
    // program's output; a user who sets the variable keeps their choice.
    setenv("SYSC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    Platform* platform = new Platform("kestrel", engine_config, timing, kind);
    r.host = &platform->host;
    r.memory = &platform->memory;
    r.reset = [platform] { platform->reset(); };
    r.owned = true;
    r.config = config;
  } else if (r.owned && !same_config(r.config, config)) {
    throw Error(KESTREL_ERROR_NOT_SUPPORTED,
                "systemc: this process's platform was elaborated for another configuration; SystemC cannot "
                "elaborate a second one in the same process");
  } else if (r.used && r.reset) {
    r.reset();
  }
  r.used = true;
  auto transport = std::make_unique<PlatformTransport>(*r.host, r.memory);
  r.open = true;
  return transport;
}

}  // namespace kestrel::systemc

// libsystemc's own main() calls sc_main(); programs that link the backend
// have their own main, so this definition only satisfies the linker.  A
// program that defines sc_main (platform/systemc/example) replaces it.
__attribute__((weak, visibility("default"))) int sc_main(int argc, char* argv[]) {
  (void)argc;
  (void)argv;
  return 1;
}
