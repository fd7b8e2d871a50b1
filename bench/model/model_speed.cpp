// How fast the functional model interprets: thread-instructions per second on
// an ALU-bound kernel, a memory-bound kernel and a floating-point kernel, for
// the default configuration (RV64, 32 lanes) and a few others.  One host core.
// The kernels are hand-assembled (kestrel::model_testing) so the figure does
// not depend on the device compiler.  A Google Benchmark program: its flags
// apply (--benchmark_filter=alu, --benchmark_repetitions=5,
// --benchmark_out=speed.json --benchmark_out_format=json), and after its own
// table it prints the figures in the layout docs/functional-model.md quotes.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "kestrel/model/gpu.hpp"
#include "kestrel/model/rv_assembler.hpp"

namespace {

using namespace kestrel::model;
using namespace kestrel::model::rvasm;

constexpr uint64_t kCode = KESTREL_GLOBAL_BASE;
constexpr uint64_t kExitStub = kCode + 0xF000;
constexpr uint64_t kParams = KESTREL_GLOBAL_BASE + 0x10000;
constexpr uint64_t kArrays = KESTREL_GLOBAL_BASE + 0x100000;
constexpr uint32_t kElements = 1u << 20;  // per array
constexpr int kPasses = 8;                // over the arrays, per launch

// Loads a pointer parameter (the buffer holds 8-byte addresses below 4 GiB;
// RV32 reads their low words).
void load_pointer(Assembler& a, unsigned xlen, Reg rd, int32_t offset) {
  if (xlen == 64) {
    a.ld(rd, a0, offset);
  } else {
    a.lw(rd, a0, offset);
  }
}

// Integer arithmetic in registers only: 8 instructions per iteration.
Assembler alu_kernel(unsigned xlen, int iterations) {
  Assembler a(xlen);
  a.global_index_x(t0, t1, t2);  // global index, total threads
  a.li(t3, iterations);
  a.mv(s2, t0);
  a.li(s3, 0x9E3779B9);
  a.bind("loop");
  a.add(s2, s2, s3);
  a.xor_(s3, s3, s2);
  a.slli(s4, s2, 5);
  a.srli(s5, s3, 3);
  a.sub(s2, s4, s5);
  a.mul(s3, s3, s2);
  a.addi(t3, t3, -1);
  a.bne(t3, zero, "loop");
  a.slli(t4, t0, 2);
  load_pointer(a, xlen, t5, 0);
  a.add(t4, t4, t5);
  a.sw(s2, t4, 0);
  a.kx_exit();
  return a;
}

// c[i] = a[i] * 3 + b[i] over a grid-stride loop: 3 memory operations in 11 instructions.
Assembler memory_kernel(unsigned xlen) {
  Assembler a(xlen);
  a.global_index_x(t0, t1, t2);   // global index, total threads
  load_pointer(a, xlen, s2, 0);   // a
  load_pointer(a, xlen, s3, 8);   // b
  load_pointer(a, xlen, s4, 16);  // c
  a.li(s5, kElements);
  a.mv(s7, t0);
  a.li(s6, kPasses);
  a.bind("pass");
  a.mv(t0, s7);
  a.bind("loop");
  a.slli(t2, t0, 2);
  a.add(t3, s2, t2);
  a.lw(t4, t3, 0);
  a.add(t3, s3, t2);
  a.lw(t5, t3, 0);
  a.slli(t6, t4, 1);
  a.add(t4, t4, t6);
  a.add(t4, t4, t5);
  a.add(t3, s4, t2);
  a.sw(t4, t3, 0);
  a.add(t0, t0, t1);
  a.bltu(t0, s5, "loop");
  a.addi(s6, s6, -1);
  a.bne(s6, zero, "pass");
  a.kx_exit();
  return a;
}

// y[i] = alpha * x[i] + y[i] with a fused multiply-add, grid-stride.
Assembler fp_kernel(unsigned xlen) {
  Assembler a(xlen);
  a.global_index_x(t0, t1, t2);  // global index, total threads
  load_pointer(a, xlen, s2, 0);
  load_pointer(a, xlen, s3, 8);
  a.li(s5, kElements);
  a.li(t2, 0x3FC00000);  // 1.5f
  a.fmv_w_x(f(1), t2);
  a.mv(s7, t0);
  a.li(s6, kPasses);
  a.bind("pass");
  a.mv(t0, s7);
  a.bind("loop");
  a.slli(t2, t0, 2);
  a.add(t3, s2, t2);
  a.flw(f(2), t3, 0);
  a.add(t4, s3, t2);
  a.flw(f(3), t4, 0);
  a.fmadd(f(3), f(1), f(2), f(3), kRne);
  a.fmul(f(4), f(3), f(3), kRne);
  a.fadd(f(3), f(3), f(4), kRne);
  a.fsw(f(3), t4, 0);
  a.add(t0, t0, t1);
  a.bltu(t0, s5, "loop");
  a.addi(s6, s6, -1);
  a.bne(s6, zero, "pass");
  a.kx_exit();
  return a;
}

// One configuration's GPU with a kernel and its data in place; each launch
// starts from the same memory, so every repetition does the same work.
class Bench {
 public:
  Bench(unsigned xlen, unsigned lanes, const Assembler& program, uint32_t blocks, uint32_t threads)
      : gpu_(config(xlen, lanes)), init_(kElements) {
    const std::vector<uint32_t> words = program.finish();
    gpu_.write_mem(kCode, words.data(), words.size() * 4);
    const uint32_t exit_word = 0x0000000B;
    gpu_.write_mem(kExitStub, &exit_word, 4);
    gpu_.map_pages(kCode, 16, KESTREL_PAGE_READ | KESTREL_PAGE_EXEC);
    gpu_.map_pages(kParams, 1, KESTREL_PAGE_READ);
    gpu_.map_pages(kArrays, 3 * kArrayBytes / KESTREL_PAGE_SIZE, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
    const uint64_t params[3] = {kArrays, kArrays + kArrayBytes, kArrays + 2 * kArrayBytes};
    gpu_.write_mem(kParams, params, sizeof params);
    for (uint32_t i = 0; i < kElements; ++i) init_[i] = i * 2654435761u;
    desc_.entry_pc = kCode;
    desc_.exit_pc = kExitStub;
    desc_.param_addr = kParams;
    desc_.grid = Dim3{blocks, 1, 1};
    desc_.block = Dim3{threads, 1, 1};
    desc_.stack_bytes = 1024;
  }

  // The input arrays as the first launch saw them (the kernels write them).
  void reset_memory() {
    gpu_.write_mem(kArrays, init_.data(), kArrayBytes);
    gpu_.write_mem(kArrays + kArrayBytes, init_.data(), kArrayBytes);
  }

  // One launch to completion; the counters are the launch's own.
  const Counters& launch() {
    gpu_.start(desc_);
    gpu_.run();
    if (gpu_.state() != LaunchState::kDone) {
      std::fprintf(stderr, "model_speed: launch faulted (kind %d at pc 0x%llx)\n", gpu_.fault().kind,
                   static_cast<unsigned long long>(gpu_.fault().pc));
      std::exit(1);
    }
    return gpu_.counters();
  }

 private:
  static constexpr uint64_t kArrayBytes = uint64_t{kElements} * 4;
  static Config config(unsigned xlen, unsigned lanes) {
    Config c;
    c.xlen = xlen;
    c.lanes_per_warp = lanes;
    c.warps_per_sm = 64;
    return c;
  }
  Gpu gpu_;
  std::vector<uint32_t> init_;
  LaunchDesc desc_;
};

struct Case {
  const char* kernel;
  unsigned xlen, lanes;
  std::function<Assembler(unsigned)> make;
  uint32_t blocks, threads;
};

// Thread- and warp-instructions and cycles per second of simulated work, as
// Google Benchmark counters (rates over the CPU time of the timed launches);
// thread_instrs is the work of one launch.
void model_speed(benchmark::State& state, const Case& c) {
  Bench bench(c.xlen, c.lanes, c.make(c.xlen), c.blocks, c.threads);
  uint64_t thread_instrs = 0, warp_instrs = 0, cycles = 0;
  for (auto _ : state) {
    state.PauseTiming();
    bench.reset_memory();
    state.ResumeTiming();
    const Counters& counters = bench.launch();
    thread_instrs += counters[KESTREL_CNT_THREAD_INSTRS];
    warp_instrs += counters[KESTREL_CNT_WARP_INSTRS];
    cycles += counters[KESTREL_CNT_CYCLES];
  }
  using benchmark::Counter;
  state.counters["thread_instrs"] = Counter(static_cast<double>(thread_instrs), Counter::kAvgIterations);
  state.counters["thread_instr/s"] = Counter(static_cast<double>(thread_instrs), Counter::kIsRate);
  state.counters["warp_instr/s"] = Counter(static_cast<double>(warp_instrs), Counter::kIsRate);
  state.counters["cycles/s"] = Counter(static_cast<double>(cycles), Counter::kIsRate);
}

// Google Benchmark's table, then the figures in the layout
// docs/functional-model.md quotes (one row per benchmark run; with
// --benchmark_repetitions, one per repetition).
class FiguresReporter : public benchmark::ConsoleReporter {
 public:
  // Colour only on a terminal, as the library's own reporter does.
  FiguresReporter() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs)
      if (run.run_type == Run::RT_Iteration && !run.error_occurred) runs_.push_back(run);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\n%-7s %-5s %-6s %14s %10s %16s %14s\n", "kernel", "xlen", "lanes", "thread-instrs",
                "seconds", "thread-instr/s", "warp-instr/s");
    for (const Run& run : runs_) {
      // The name is <kernel>/rv<xlen>/lanes:<lanes>, as registered in main.
      char kernel[16] = {};
      unsigned xlen = 0, lanes = 0;
      if (std::sscanf(run.run_name.function_name.c_str(), "%15[^/]/rv%u/lanes:%u", kernel, &xlen, &lanes) !=
          3)
        continue;
      const double seconds = run.cpu_accumulated_time / static_cast<double>(run.iterations);
      std::printf("%-7s %-5u %-6u %14.0f %10.3f %14.1f M %12.1f M\n", kernel, xlen, lanes,
                  run.counters.at("thread_instrs").value, seconds,
                  run.counters.at("thread_instr/s").value / 1e6, run.counters.at("warp_instr/s").value / 1e6);
    }
  }

 private:
  std::vector<Run> runs_;
};

}  // namespace

int main(int argc, char** argv) {
  static const Case cases[] = {
      {"alu", 64, 32, [](unsigned x) { return alu_kernel(x, 4000); }, 64, 256},
      {"alu", 32, 32, [](unsigned x) { return alu_kernel(x, 4000); }, 64, 256},
      {"alu", 64, 8, [](unsigned x) { return alu_kernel(x, 1000); }, 64, 256},
      {"alu", 64, 4, [](unsigned x) { return alu_kernel(x, 1000); }, 64, 256},
      {"memory", 64, 32, memory_kernel, 64, 256},
      {"memory", 32, 32, memory_kernel, 64, 256},
      {"memory", 64, 8, memory_kernel, 64, 256},
      {"fp", 64, 32, fp_kernel, 64, 256},
  };
  for (const Case& c : cases) {
    const std::string name =
        std::string(c.kernel) + "/rv" + std::to_string(c.xlen) + "/lanes:" + std::to_string(c.lanes);
    // CPU time, which the rates are over: the model runs on the calling
    // thread, and on a shared machine wall-clock time also counts other
    // processes' turns.  A launch takes 0.1-1 s, so one or two iterations
    // reach the library's minimum time.
    benchmark::RegisterBenchmark(name.c_str(), model_speed, c)->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  FiguresReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
