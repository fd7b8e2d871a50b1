// kestrel-demo: adds two vectors with a CUDA kernel on a Kestrel device,
// checks the sum against the CPU and prints the device's performance counters.
// The float kernel is the default; --kernel int adds integer vectors, which
// needs nothing beyond the integer SIMT core (a first check of a new backend).
//
//   kestrel-demo [--backend NAME] [--module PATH] [--n COUNT] [--xlen 32|64] [--kernel float|int]
//
// Exit status: 0 when every element matches, 1 on a mismatch, 2 on an error.
#include <cxxabi.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kestrel/kestrel.hpp"
#include "kestrel/transport.hpp"

namespace {

struct Options {
  std::string backend;
  std::string module_path;
  uint32_t count = 10000;
  uint32_t xlen = 0;
  std::string kernel = "float";  // or "int"
};

void usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [--backend model|rtlsim|fpga] [--module PATH] [--n COUNT] [--xlen 32|64] "
               "[--kernel float|int]\n",
               program);
}

// The module built for this device's XLEN, when the build made one.
std::string built_module(unsigned xlen) {
#ifdef KESTREL_DEMO_MODULE64
  if (xlen == 64) return KESTREL_DEMO_MODULE64;
#endif
#ifdef KESTREL_DEMO_MODULE32
  if (xlen == 32) return KESTREL_DEMO_MODULE32;
#endif
  (void)xlen;
  return "";
}

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--backend" && has_value) {
      options.backend = argv[++i];
    } else if (arg == "--module" && has_value) {
      options.module_path = argv[++i];
    } else if (arg == "--n" && has_value) {
      options.count = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (arg == "--xlen" && has_value) {
      options.xlen = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (arg == "--kernel" && has_value) {
      options.kernel = argv[++i];
      if (options.kernel != "float" && options.kernel != "int") return false;
    } else {
      return false;
    }
  }
  return options.count > 0;
}

std::string demangled(const std::string& name) {
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  const std::string result = status == 0 && text != nullptr ? text : name;
  std::free(text);
  return result;
}

void print_counters(const kestrel::Device& device, const kestrel_device_props& props) {
  const kestrel_launch_stats stats = device.launch_stats();
  const auto value = [&](int counter) { return stats.counters.value[counter]; };
  std::printf("\nperformance counters (%s)\n", props.backend);
  for (int i = 0; i < KESTREL_CNT_COUNT; ++i) {
    const char* name = kestrel_counter_name(i);
    if (name != nullptr) std::printf("  %-18s %12" PRIu64 "\n", name, value(i));
  }
  std::printf("\nderived\n");
  if (value(KESTREL_CNT_CYCLES) > 0) {
    std::printf("  %-34s %8.3f\n", "IPC (warp-instructions per cycle)", stats.ipc);
    std::printf("  %-34s %8.3f\n", "IPC per SM", stats.ipc_per_sm);
    std::printf("  stall cycles by reason (share of %" PRIu64 " SM-cycles)\n",
                value(KESTREL_CNT_CYCLES) * props.num_sms);
    const struct {
      const char* reason;
      int counter;
      double share;
    } stalls[] = {
        {"scoreboard (operand not ready)", KESTREL_CNT_STALL_SCOREBOARD, stats.stall_scoreboard_share},
        {"memory (load/store unit busy)", KESTREL_CNT_STALL_MEMORY, stats.stall_memory_share},
        {"barrier", KESTREL_CNT_STALL_BARRIER, stats.stall_barrier_share},
        {"idle (no warp ready)", KESTREL_CNT_STALL_IDLE, stats.stall_idle_share}};
    for (const auto& stall : stalls)
      std::printf("    %-32s %12" PRIu64 " %7.1f%%\n", stall.reason, value(stall.counter),
                  100.0 * stall.share);
  }
  if (value(KESTREL_CNT_WARP_INSTRS) > 0) {
    std::printf("  %-34s %7.1f%%\n", "lane utilization", 100.0 * stats.lane_utilization);
    std::printf("  %-34s %7.1f%%\n", "diverged issues", 100.0 * stats.diverged_share);
  }
  if (stats.host_seconds > 0)
    std::printf("  %-34s %8.3f s (%.0f cycles/s)\n", "simulation time", stats.host_seconds,
                stats.cycles_per_host_second);
  // The memory side (crossbar to DRAM port), where the device counts it.
  const kestrel_memory_stats memory = device.launch_memory_stats();
  if (memory.counted) {
    const auto mem = [&](int counter) { return memory.value[counter]; };
    std::printf("\nmemory side (docs/memory-system.md, \"Memory-system counters\")\n");
    std::printf("  %-34s %8" PRIu64 " / %" PRIu64 " / %" PRIu64 " / %" PRIu64 "\n",
                "line reads / writes / fetches / atomics", mem(KESTREL_MEM_CNT_READS),
                mem(KESTREL_MEM_CNT_WRITES), mem(KESTREL_MEM_CNT_FETCHES), mem(KESTREL_MEM_CNT_ATOMICS));
    std::printf("  %-34s %8.2f\n", "line reads per warp-level load", memory.lines_per_warp_load);
    std::printf("  %-34s %8.1f cycles\n", "average request latency", memory.average_latency);
    if (props.l2_bytes != 0)
      std::printf("  %-34s %7.1f%% (%" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64 " merged; %" PRIu64
                  " KiB %u-way)\n",
                  "L2 read hit rate", 100.0 * memory.l2_hit_rate, mem(KESTREL_MEM_CNT_L2_HITS),
                  mem(KESTREL_MEM_CNT_L2_MISSES), mem(KESTREL_MEM_CNT_L2_MERGES), props.l2_bytes / 1024,
                  props.l2_ways);
    // Reads of read-only pages (parameters, __constant__ data, .rodata): the
    // SMs' constant caches answer the hits before the crossbar.
    std::printf("  %-34s %7.1f%% (%" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64 " evictions)\n",
                "constant cache hit rate", 100.0 * memory.const_hit_rate, mem(KESTREL_MEM_CNT_CONST_HITS),
                mem(KESTREL_MEM_CNT_CONST_MISSES), mem(KESTREL_MEM_CNT_CONST_EVICTIONS));
    // Plain reads of writable global pages: the SMs' L1 data caches answer
    // the hits before the crossbar; a write anywhere drops the line in all.
    std::printf("  %-34s %7.1f%% (%" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64 " evictions)\n",
                "L1 data cache hit rate", 100.0 * memory.l1_hit_rate, mem(KESTREL_MEM_CNT_L1_HITS),
                mem(KESTREL_MEM_CNT_L1_MISSES), mem(KESTREL_MEM_CNT_L1_EVICTIONS));
    // Texel taps of kx.tex (none in this kernel): the texture units' caches.
    if (mem(KESTREL_MEM_CNT_TEX_HITS) + mem(KESTREL_MEM_CNT_TEX_MISSES) != 0)
      std::printf("  %-34s %7.1f%% (%" PRIu64 " taps hit, %" PRIu64 " lines read)\n",
                  "texture cache hit rate", 100.0 * memory.tex_hit_rate, mem(KESTREL_MEM_CNT_TEX_HITS),
                  mem(KESTREL_MEM_CNT_TEX_MISSES));
  }
  // The DRAM model's side of the launch, where the backend has one.
  const kestrel_dram_stats dram = device.launch_dram_stats();
  if (dram.modelled) {
    std::printf("\nDRAM (the backend's model; docs/memory-system.md)\n");
    std::printf("  %-34s %8" PRIu64 " / %" PRIu64 "\n", "line reads / writes", dram.reads, dram.writes);
    std::printf("  %-34s %8.2f of %.2f (%.1f%%)\n", "bytes per cycle", dram.bytes_per_cycle,
                dram.peak_bytes_per_cycle, 100.0 * dram.bandwidth_utilization);
    std::printf("  %-34s %8.1f cycles\n", "average read latency", dram.average_read_latency);
    std::printf("  %-34s %7.1f%% (%" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64 " conflicts)\n",
                "row-buffer hit rate", 100.0 * dram.row_hit_rate, dram.row_hits, dram.row_misses,
                dram.row_conflicts);
  }
  // Each SM's part (the per-SM counters), where the device has them.
  const std::vector<kestrel_sm_stats> sms = device.launch_sm_stats();
  if (sms.empty()) {
    std::printf("\nper SM: the device has no per-SM counters\n");
    return;
  }
  std::printf("\nper SM%s\n", sms.size() < props.num_sms ? " (the first ones; the window holds 48)" : "");
  std::printf("  %4s %7s %12s %7s %7s %10s %10s\n", "SM", "blocks", "warp_instrs", "IPC", "active", "memory",
              "idle");
  for (const kestrel_sm_stats& sm : sms) {
    std::printf("  %4u %7" PRIu64 " %12" PRIu64 " %7.3f %6.1f%% %9.1f%% %9.1f%%\n", sm.sm,
                sm.value[KESTREL_SM_CNT_BLOCKS], sm.value[KESTREL_SM_CNT_WARP_INSTRS], sm.ipc,
                100.0 * sm.active_share, 100.0 * sm.stall_memory_share, 100.0 * sm.stall_idle_share);
  }
}

// The CPU's answer and the device's, element by element; returns the number
// of elements that differ.
template <typename T>
uint32_t compare(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c) {
  uint32_t mismatches = 0;
  const uint32_t n = static_cast<uint32_t>(c.size());
  for (uint32_t i = 0; i < n; ++i) {
    const T expected = static_cast<T>(a[i] + b[i]);
    if (std::memcmp(&c[i], &expected, sizeof expected) != 0) {
      if (mismatches < 8)
        std::printf("  MISMATCH c[%u] = %g, expected %g\n", i, static_cast<double>(c[i]),
                    static_cast<double>(expected));
      ++mismatches;
    }
  }
  for (uint32_t i : {0u, 1u, n / 2, n - 1})
    std::printf("  c[%u] = %g + %g = %g\n", i, static_cast<double>(a[i]), static_cast<double>(b[i]),
                static_cast<double>(c[i]));
  return mismatches;
}

// Uploads a and b, launches `kernel` over n elements and checks c.
template <typename T>
uint32_t add_vectors(kestrel::Device& device, const kestrel::Kernel& kernel, uint32_t block,
                     const std::vector<T>& a, const std::vector<T>& b) {
  const uint32_t n = static_cast<uint32_t>(a.size());
  kestrel::DeviceBuffer<T> device_a(device, n), device_b(device, n), device_c(device, n);
  device_a.upload(a);
  device_b.upload(b);
  device_c.fill_bytes(0xFF);  // NaN or -1 everywhere: an element the kernel skips cannot pass
  const uint32_t grid = (n + block - 1) / block;
  std::printf("  launch         %u elements, grid %u, block %u\n\n", n, grid, block);
  kernel.launch(kestrel::Dim3(grid), kestrel::Dim3(block), 0, device_a, device_b, device_c,
                static_cast<int>(n));
  device.synchronize();
  return compare(a, b, device_c.download());
}

int run(const Options& options) {
  kestrel::DeviceConfig config{};
  config.xlen = options.xlen;
  kestrel::Device device = kestrel::Device::open(options.backend, &config);
  const kestrel_device_props props = device.props();
  const bool use_float = options.kernel == "float";
  std::printf("Kestrel demo: %s vector addition c = a + b\n\n", use_float ? "float" : "integer");
  std::printf("  backend        %s\n", props.backend);
  std::printf("  device         %s\n", props.name);
  std::printf("  configuration  RV%u, %u SMs x %u warps x %u lanes, %u max threads/block\n", props.xlen,
              props.num_sms, props.warps_per_sm, props.warp_size, props.max_threads_per_block);
  std::printf("  memory         %" PRIu64 " MiB DRAM, %u KiB shared per block, clock %u kHz\n",
              props.global_mem_bytes >> 20, props.shared_mem_per_block / 1024, props.clock_khz);
  std::printf("  SM             %s warp scheduler, %u-stage FMA pipeline, %u-line I-cache\n",
              kestrel::sched_policy_name(props.sched_policy).c_str(), props.fpu_stages, props.icache_lines);
  if (props.l2_bytes != 0)
    std::printf("  L2             %" PRIu64 " KiB, %u-way, shared by the SMs\n", props.l2_bytes / 1024,
                props.l2_ways);
  const std::string module_path =
      options.module_path.empty() ? built_module(props.xlen) : options.module_path;
  if (module_path.empty()) {
    throw kestrel::Error(
        KESTREL_ERROR_NOT_FOUND,
        "this build has no vector_add module for RV" + std::to_string(props.xlen) +
            " (no device toolchain or sw_kernels/examples/vector_add.cu); pass --module PATH");
  }
  std::printf("  module         %s\n", module_path.c_str());

  kestrel::Module module = kestrel::Module::load(device, module_path);
  const kestrel::Kernel kernel = module.kernel(use_float ? "vector_add" : "vector_add_int");
  std::printf("  kernel         %s\n", demangled(kernel.name()).c_str());
  const uint32_t n = options.count;
  const uint32_t block = props.max_threads_per_block < 256 ? props.max_threads_per_block : 256;
  uint32_t mismatches = 0;
  if (use_float) {
    std::vector<float> a(n), b(n);
    for (uint32_t i = 0; i < n; ++i) {
      a[i] = 0.5f * static_cast<float>(i);
      b[i] = 1000.0f - 2.0f * static_cast<float>(i);
    }
    mismatches = add_vectors(device, kernel, block, a, b);
  } else {
    std::vector<int> a(n), b(n);
    for (uint32_t i = 0; i < n; ++i) {
      a[i] = 3 * static_cast<int>(i) - 5000;
      b[i] = 1000 - static_cast<int>(i % 977) * 7;
    }
    mismatches = add_vectors(device, kernel, block, a, b);
  }
  if (mismatches == 0) {
    std::printf("\nresult: all %u elements match the CPU\n", n);
  } else {
    std::printf("\nresult: %u of %u elements differ from the CPU\n", mismatches, n);
  }
  print_counters(device, props);
  return mismatches == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) {
    usage(argv[0]);
    return 2;
  }
  try {
    return run(options);
  } catch (const kestrel::Error& e) {
    std::fprintf(stderr, "kestrel-demo: %s (%s)\n", e.what(), kestrel_strerror(e.status()));
    return 2;
  }
}
