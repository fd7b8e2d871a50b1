// An example virtual platform with Kestrel in it, composed module by module
// as another platform would: device memory with its own latency, the bus,
// the cycle-accurate GPU and the host port, at a clock of its choosing.  The host program is ordinary Kestrel
// runtime code; the "systemc" backend turns its calls into transactions on the platform (docs/systemc.md).
//
//   kestrel-systemc-platform [--n COUNT] [--clock-mhz F] [--mem-latency CYCLES] [--module PATH]
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <systemc>
#include <vector>

#include "kestrel/abi.h"
#include "kestrel/kestrel.hpp"
#include "kestrel/systemc/platform.hpp"

namespace {

struct Options {
  uint32_t count = 4096;
  double clock_mhz = 200;
  uint64_t mem_latency = 100;
  std::string module_path =
#ifdef KESTREL_EXAMPLE_MODULE
      KESTREL_EXAMPLE_MODULE;
#else
      "";
#endif
};

bool parse(int argc, char** argv, Options& options) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--n")
      options.count = static_cast<uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (arg == "--clock-mhz")
      options.clock_mhz = std::strtod(argv[i + 1], nullptr);
    else if (arg == "--mem-latency")
      options.mem_latency = std::strtoull(argv[i + 1], nullptr, 10);
    else if (arg == "--module")
      options.module_path = argv[i + 1];
    else
      return false;
  }
  return argc % 2 == 1 && options.count > 0 && options.clock_mhz > 0 && options.mem_latency > 0 &&
         !options.module_path.empty();
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  Options options;
  if (!parse(argc, argv, options)) {
    std::fprintf(stderr, "usage: %s [--n COUNT] [--clock-mhz F] [--mem-latency CYCLES] [--module PATH]\n",
                 argv[0]);
    return 2;
  }
  try {
    // The platform, composed by hand as another virtual platform would:
    // its memory, its interconnect, Kestrel's GPU and a host port on it,
    // and the GPU's interrupt wired to the host.
    kestrel::BackendConfig config;  // RV64, 2 SMs x 8 warps x 32 lanes
    config.mem_bytes = 64u << 20;
    kestrel::systemc::GpuTiming gpu_timing;
    gpu_timing.clock_period = sc_core::sc_time(1e3 / options.clock_mhz, sc_core::SC_NS);
    kestrel::systemc::Memory memory("memory", config.mem_bytes,
                                    gpu_timing.clock_period * static_cast<double>(options.mem_latency));
    kestrel::systemc::Bus bus("bus", KESTREL_GLOBAL_BASE, config.mem_bytes);
    kestrel::systemc::GpuRtl gpu("gpu", config, gpu_timing);
    kestrel::systemc::HostPort host("host", gpu_timing.clock_period, kestrel::systemc::kRegisterBase);
    sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS> irq("irq");
    host.socket.bind(bus.initiators);
    gpu.memory.bind(bus.initiators);
    bus.memory.bind(memory.socket);
    bus.registers.bind(gpu.registers);
    gpu.irq(irq);
    host.irq(irq);
    // The runtime's device is this platform's GPU, driven through `host`.
    kestrel::systemc::use_host(host, {});

    kestrel::Device device = kestrel::Device::open("systemc");
    kestrel::Module module = kestrel::Module::load(device, options.module_path);
    const kestrel::Kernel kernel = module.kernel("vector_add_int");
    const uint32_t n = options.count;
    std::vector<int> a(n), b(n);
    for (uint32_t i = 0; i < n; ++i) {
      a[i] = 3 * static_cast<int>(i) - 5000;
      b[i] = 1000 - static_cast<int>(i % 977) * 7;
    }
    kestrel::DeviceBuffer<int> da(device, n), db(device, n), dc(device, n);
    da.upload(a);
    db.upload(b);
    const sc_core::sc_time started = sc_core::sc_time_stamp();
    kernel.launch(kestrel::Dim3((n + 255) / 256), kestrel::Dim3(256), 0, da, db, dc, static_cast<int>(n));
    device.synchronize();
    const sc_core::sc_time took = sc_core::sc_time_stamp() - started;
    const std::vector<int> c = dc.download();
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; ++i) wrong += c[i] != a[i] + b[i];

    const kestrel_launch_stats stats = device.launch_stats();
    std::printf("Kestrel on a SystemC TLM-2.0 platform\n");
    std::printf("  GPU clock        %.1f MHz, memory latency %" PRIu64 " cycles (%s)\n", options.clock_mhz,
                options.mem_latency, memory.latency().to_string().c_str());
    std::printf("  kernel           vector_add_int over %u elements\n", n);
    std::printf("  GPU cycles       %" PRIu64 " (IPC %.3f)\n", stats.counters.value[KESTREL_CNT_CYCLES],
                stats.ipc);
    std::printf("  simulated time   %s for launch and synchronize, %s in all\n", took.to_string().c_str(),
                sc_core::sc_time_stamp().to_string().c_str());
    std::printf("  GPU line accesses %" PRIu64 " through DMI, %" PRIu64 " through b_transport\n",
                gpu.dmi_lines(), gpu.transported_lines());
    if (wrong != 0) {
      std::printf("result: %u of %u elements differ from the CPU\n", wrong, n);
      return 1;
    }
    std::printf("result: all %u elements match the CPU\n", n);
    return 0;
  } catch (const kestrel::Error& e) {
    std::fprintf(stderr, "kestrel-systemc-platform: %s\n", e.what());
    return 2;
  }
}
