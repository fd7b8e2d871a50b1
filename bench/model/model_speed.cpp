// How fast the functional model interprets: thread-instructions per second on
// an ALU-bound kernel, a memory-bound kernel and a floating-point kernel, for
// the default configuration (RV64, 32 lanes) and a few others.  One host core.
// The kernels are hand-assembled (kestrel::model_testing) so the figure does
// not depend on the device compiler.
#include <chrono>
#include <cstdio>
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

// global index in t0, total threads in t1
void global_index(Assembler& a) {
  a.csrr(t0, KESTREL_CSR_CTAID_X);
  a.csrr(t1, KESTREL_CSR_NTID_X);
  a.mul(t0, t0, t1);
  a.csrr(t2, KESTREL_CSR_TID_X);
  a.add(t0, t0, t2);
  a.csrr(t2, KESTREL_CSR_NCTAID_X);
  a.mul(t1, t1, t2);
}

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
  global_index(a);
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
  global_index(a);
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
  global_index(a);
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

struct Measurement {
  double seconds;
  uint64_t thread_instrs;
  uint64_t warp_instrs;
};

Measurement run(unsigned xlen, unsigned lanes, const Assembler& program, uint32_t blocks, uint32_t threads) {
  Config c;
  c.xlen = xlen;
  c.lanes_per_warp = lanes;
  c.warps_per_sm = 64;
  Gpu gpu(c);
  const std::vector<uint32_t> words = program.finish();
  gpu.write_mem(kCode, words.data(), words.size() * 4);
  const uint32_t exit_word = 0x0000000B;
  gpu.write_mem(kExitStub, &exit_word, 4);
  gpu.map_pages(kCode, 16, KESTREL_PAGE_READ | KESTREL_PAGE_EXEC);
  gpu.map_pages(kParams, 1, KESTREL_PAGE_READ);
  const uint64_t array_bytes = uint64_t{kElements} * 4;
  gpu.map_pages(kArrays, 3 * array_bytes / KESTREL_PAGE_SIZE, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  const uint64_t params[3] = {kArrays, kArrays + array_bytes, kArrays + 2 * array_bytes};
  gpu.write_mem(kParams, params, sizeof params);
  std::vector<uint32_t> init(kElements);
  for (uint32_t i = 0; i < kElements; ++i) init[i] = i * 2654435761u;
  gpu.write_mem(kArrays, init.data(), array_bytes);
  gpu.write_mem(kArrays + array_bytes, init.data(), array_bytes);

  LaunchDesc d;
  d.entry_pc = kCode;
  d.exit_pc = kExitStub;
  d.param_addr = kParams;
  d.grid = Dim3{blocks, 1, 1};
  d.block = Dim3{threads, 1, 1};
  d.stack_bytes = 1024;
  const auto begin = std::chrono::steady_clock::now();
  gpu.start(d);
  gpu.run();
  const auto end = std::chrono::steady_clock::now();
  if (gpu.state() != LaunchState::kDone) {
    std::fprintf(stderr, "model_speed: launch faulted (kind %d at pc 0x%llx)\n", gpu.fault().kind,
                 static_cast<unsigned long long>(gpu.fault().pc));
    std::exit(1);
  }
  return Measurement{std::chrono::duration<double>(end - begin).count(),
                     gpu.counters()[KESTREL_CNT_THREAD_INSTRS], gpu.counters()[KESTREL_CNT_WARP_INSTRS]};
}

}  // namespace

int main() {
  struct Case {
    const char* kernel;
    unsigned xlen, lanes;
    std::function<Assembler(unsigned)> make;
    uint32_t blocks, threads;
  };
  const Case cases[] = {
      {"alu", 64, 32, [](unsigned x) { return alu_kernel(x, 4000); }, 64, 256},
      {"alu", 32, 32, [](unsigned x) { return alu_kernel(x, 4000); }, 64, 256},
      {"alu", 64, 8, [](unsigned x) { return alu_kernel(x, 1000); }, 64, 256},
      {"alu", 64, 4, [](unsigned x) { return alu_kernel(x, 1000); }, 64, 256},
      {"memory", 64, 32, memory_kernel, 64, 256},
      {"memory", 32, 32, memory_kernel, 64, 256},
      {"memory", 64, 8, memory_kernel, 64, 256},
      {"fp", 64, 32, fp_kernel, 64, 256},
  };
  std::printf("%-7s %-5s %-6s %14s %10s %16s %14s\n", "kernel", "xlen", "lanes", "thread-instrs", "seconds",
              "thread-instr/s", "warp-instr/s");
  for (const Case& c : cases) {
    const Measurement m = run(c.xlen, c.lanes, c.make(c.xlen), c.blocks, c.threads);
    std::printf("%-7s %-5u %-6u %14llu %10.3f %14.1f M %12.1f M\n", c.kernel, c.xlen, c.lanes,
                static_cast<unsigned long long>(m.thread_instrs), m.seconds,
                m.thread_instrs / m.seconds / 1e6, m.warp_instrs / m.seconds / 1e6);
  }
  return 0;
}
