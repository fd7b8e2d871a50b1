// STREAM on the Verilated GPU (issue 15's bandwidth benchmark): copy, scale,
// add and triad over float arrays, one SM of 8 warps x 32 lanes (RV64, the
// "bench1" model), behind the rtlsim harness's DRAM model.  For each kernel
// and each DRAM it prints the bandwidth the kernel achieved (the bytes its
// loads and stores name, over the launch's cycles) as a fraction of the
// DRAM's peak, the DRAM's own view (bus bytes per cycle, row-buffer hit
// rate, average read latency) and the SM's memory stall share.
//
// DRAMs: the ddr3 preset's bus (16 bytes per cycle) with its latency set to
// 20, 100 and 300 cycles, then the ddr3 and hbm presets as they are
// (docs/memory-system.md).  The memory system's target is 80 % of peak at
// 300 cycles with 8 warps; figures only, nothing here asserts.  The kernels
// are hand-assembled, like rtlsim_speed's.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_launch.hpp"
#include "kestrel/abi.h"
#include "kestrel/model/rv_assembler.hpp"

namespace {

using namespace kestrel::model::rvasm;
using kestrel::bench::kArrays;
using kestrel::bench::kLanes;
using kestrel::bench::kWarps;
using kestrel::bench::kXlen;

constexpr uint32_t kElements = 32 * 1024;  // floats per array: 128 KiB
constexpr uint64_t kArrayBytes = uint64_t{kElements} * 4;
constexpr float kScalar = 3.0f;

enum class Op { copy, scale, add, triad };

struct Kernel {
  const char* name;
  Op op;
  unsigned arrays_read;  // arrays loaded per element; one is stored
};

// The guide's STREAM forms over arrays a, b, c (parameters 0, 1, 2):
// copy c = a, scale b = q c, add c = a + b, triad a = b + q c; grid-stride,
// `unroll` elements per thread and iteration (i, i + T, ... for T threads):
// with 4, a thread's four loads are independent and in flight together
// (docs/microarchitecture.md, "Memory instructions in flight"), as a
// compiler unrolling the loop would have them.
Assembler stream_kernel(Op op, unsigned unroll) {
  Assembler a(kXlen);
  a.global_index_x(t0, t1, t2);  // global index, total threads
  a.ld(s2, a0, 0);
  a.ld(s3, a0, 8);
  a.ld(s4, a0, 16);
  a.li(s5, kElements);
  uint32_t q_bits;
  std::memcpy(&q_bits, &kScalar, 4);
  a.li(t3, q_bits);
  a.fmv_w_x(f(31), t3);
  a.slli(s6, t1, 2);  // bytes from one of a thread's elements to its next
  a.li(t3, static_cast<int32_t>(unroll));
  a.mul(s7, t1, t3);  // elements per iteration of all threads
  // f(k): element k's first operand, f(8 + k) its second.
  auto load = [&](Reg base, unsigned first_reg) {
    a.add(t3, base, t2);
    for (unsigned k = 0; k < unroll; ++k) {
      if (k > 0) a.add(t3, t3, s6);
      a.flw(f(first_reg + k), t3, 0);
    }
  };
  auto store = [&](Reg base) {
    a.add(t3, base, t2);
    for (unsigned k = 0; k < unroll; ++k) {
      if (k > 0) a.add(t3, t3, s6);
      a.fsw(f(k), t3, 0);
    }
  };
  a.bind("loop");
  a.slli(t2, t0, 2);
  switch (op) {
    case Op::copy:
      load(s2, 0);
      store(s4);
      break;
    case Op::scale:
      load(s4, 0);
      for (unsigned k = 0; k < unroll; ++k) a.fmul(f(k), f(k), f(31), kRne);
      store(s3);
      break;
    case Op::add:
      load(s2, 0);
      load(s3, 8);
      for (unsigned k = 0; k < unroll; ++k) a.fadd(f(k), f(k), f(8 + k), kRne);
      store(s4);
      break;
    case Op::triad:
      load(s3, 0);
      load(s4, 8);
      for (unsigned k = 0; k < unroll; ++k) a.fmadd(f(k), f(8 + k), f(31), f(k), kRne);
      store(s2);
      break;
  }
  a.add(t0, t0, s7);
  a.bltu(t0, s5, "loop");
  a.kx_exit();
  return a;
}

struct Dram {
  std::string label;
  std::map<std::string, std::string> options;
};

struct Figures {
  double stream_fraction = 0;  // the kernel's bytes per cycle over the peak
  double bus_bytes_per_cycle = 0, peak = 0, row_hit_rate = 0, read_latency = 0, stall_memory = 0;
  uint64_t cycles = 0;
};

Figures run(const Kernel& kernel, unsigned unroll, const Dram& dram) {
  const auto harness = kestrel::bench::make_bench1(dram.options);
  kestrel::Transport& gpu = *harness;
  kestrel::bench::map(gpu, kArrays, 3 * kArrayBytes / KESTREL_PAGE_SIZE,
                      KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  std::vector<float> init(kElements);
  for (size_t i = 0; i < init.size(); ++i) init[i] = static_cast<float>(i % 17) * 0.25f;
  for (int array = 0; array < 3; ++array)
    gpu.write_mem(kArrays + array * kArrayBytes, init.data(), kArrayBytes);
  kestrel::DramCounters before, after;
  gpu.dram_counters(before);
  // Enough threads for every warp slot of the SM, each a grid-stride loop.
  kestrel::bench::run_launch(gpu, kestrel::bench::kLayout, stream_kernel(kernel.op, unroll).finish(),
                             {kArrays, kArrays + kArrayBytes, kArrays + 2 * kArrayBytes}, 1, kLanes * kWarps,
                             "rtlsim_stream");
  gpu.dram_counters(after);
  Figures r;
  r.cycles = kestrel::bench::counter(gpu, KESTREL_CNT_CYCLES);
  const double cycles = static_cast<double>(r.cycles);
  const double kernel_bytes = static_cast<double>(kArrayBytes) * (kernel.arrays_read + 1);
  r.peak = after.peak_bytes_per_cycle;
  r.stream_fraction = kernel_bytes / cycles / r.peak;
  r.bus_bytes_per_cycle = static_cast<double>(after.bus_bytes - before.bus_bytes) / cycles;
  const uint64_t requests = after.reads + after.writes - before.reads - before.writes;
  r.row_hit_rate = requests == 0 ? 0 : static_cast<double>(after.row_hits - before.row_hits) / requests;
  const uint64_t reads = after.reads - before.reads;
  r.read_latency =
      reads == 0 ? 0 : static_cast<double>(after.read_latency_cycles - before.read_latency_cycles) / reads;
  r.stall_memory = kestrel::bench::counter(gpu, KESTREL_CNT_STALL_MEMORY) / cycles;
  return r;
}

}  // namespace

int main() {
  const Kernel kernels[] = {
      {"copy", Op::copy, 1}, {"scale", Op::scale, 1}, {"add", Op::add, 2}, {"triad", Op::triad, 2}};
  const Dram drams[] = {
      {"ddr3 bus, latency 20", {{"dram", "ddr3"}, {"mem_latency", "20"}}},
      {"ddr3 bus, latency 100", {{"dram", "ddr3"}, {"mem_latency", "100"}}},
      {"ddr3 bus, latency 300", {{"dram", "ddr3"}, {"mem_latency", "300"}}},
      {"ddr3 preset", {{"dram", "ddr3"}}},
      {"hbm preset", {{"dram", "hbm"}}},
  };
  std::printf(
      "rtlsim_stream: STREAM on the Verilated kestrel_gpu, 1 SM x %u warps x %u lanes, RV%u, %u floats "
      "per array\n",
      kWarps, kLanes, kXlen, kElements);
  std::printf("%-24s %-6s %6s %10s %9s %11s %8s %9s %9s %8s\n", "DRAM", "kernel", "unroll", "cycles",
              "of peak", "bus B/cyc", "peak", "row hits", "read lat", "mem stall");
  for (const unsigned unroll : {1u, 4u, 8u}) {
    for (const Dram& dram : drams) {
      for (const Kernel& kernel : kernels) {
        const Figures r = run(kernel, unroll, dram);
        std::printf("%-24s %-6s %6u %10llu %8.1f%% %11.2f %8.1f %8.1f%% %9.1f %8.1f%%\n", dram.label.c_str(),
                    kernel.name, unroll, static_cast<unsigned long long>(r.cycles), 100.0 * r.stream_fraction,
                    r.bus_bytes_per_cycle, r.peak, 100.0 * r.row_hit_rate, r.read_latency,
                    100.0 * r.stall_memory);
      }
    }
  }
  return 0;
}
