// How fast the Verilated GPU simulates, and the IPC the RTL reaches: one SM
// of 8 warps x 32 lanes (RV64, the "bench1" model, built only for this bench)
// behind the rtlsim harness, driven through its registers like the runtime
// drives it.  Prints simulated cycles per second, thread-instructions per
// second, IPC (warp-instructions per cycle) and lane utilization for
//   alu        integer arithmetic in registers, one block of 8 warps
//   sgemm      C = A x B, 64 x 64 floats, one thread per element (FMA loop)
//   memory     c[i] = 3 a[i] + b[i] over a grid-stride loop
//   divergence four paths chosen by lane % 4, re-converging every iteration
// and the alu kernel again in lock-step with the functional model (its
// slowdown).  Figures only: nothing here asserts on time.  The kernels are
// hand-assembled (kestrel::model_testing) so they do not depend on the
// device compiler.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench_launch.hpp"
#include "kestrel/abi.h"
#include "kestrel/host_regs.h"
#include "kestrel/model/rv_assembler.hpp"

namespace {

using namespace kestrel::model::rvasm;
using kestrel::bench::kArrays;
using kestrel::bench::kLanes;
using kestrel::bench::kWarps;
using kestrel::bench::kXlen;

constexpr uint64_t kArrayBytes = 1u << 20;  // each of three arrays
constexpr uint32_t kSgemmN = 64;

// Integer arithmetic in registers only: 8 instructions per iteration.
Assembler alu_kernel(int iterations) {
  Assembler a(kXlen);
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
  a.ld(t5, a0, 0);
  a.add(t4, t4, t5);
  a.sw(s2, t4, 0);
  a.kx_exit();
  return a;
}

// c[i] = a[i] * 3 + b[i], grid-stride over `elements`: 3 memory operations
// in 11 instructions.
Assembler memory_kernel(uint32_t elements) {
  Assembler a(kXlen);
  a.global_index_x(t0, t1, t2);  // global index, total threads
  a.ld(s2, a0, 0);
  a.ld(s3, a0, 8);
  a.ld(s4, a0, 16);
  a.li(s5, elements);
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
  a.kx_exit();
  return a;
}

// C[row][col] = sum_k A[row][k] * B[k][col], one thread per element, N x N.
Assembler sgemm_kernel(uint32_t n) {
  Assembler a(kXlen);
  a.global_index_x(t0, t1, t2);  // global index, total threads
  a.ld(s2, a0, 0);               // A
  a.ld(s3, a0, 8);               // B
  a.ld(s4, a0, 16);              // C
  a.li(t2, n);
  a.divu(s5, t0, t2);  // row
  a.remu(s6, t0, t2);  // col
  a.mul(t3, s5, t2);
  a.slli(t3, t3, 2);
  a.add(t3, s2, t3);  // &A[row][0]
  a.slli(t4, s6, 2);
  a.add(t4, s3, t4);  // &B[0][col]
  a.slli(t5, t2, 2);  // row stride in bytes
  a.mv(t6, t2);       // k counter
  a.fmv_w_x(f(0), zero);
  a.bind("k");
  a.flw(f(1), t3, 0);
  a.flw(f(2), t4, 0);
  a.fmadd(f(0), f(1), f(2), f(0), kRne);
  a.addi(t3, t3, 4);
  a.add(t4, t4, t5);
  a.addi(t6, t6, -1);
  a.bne(t6, zero, "k");
  a.slli(t3, t0, 2);
  a.add(t3, s4, t3);
  a.fsw(f(0), t3, 0);
  a.kx_exit();
  return a;
}

// Four paths by lane % 4 (different lengths), then re-convergence; repeated.
Assembler divergence_kernel(int iterations) {
  Assembler a(kXlen);
  a.global_index_x(t0, t1, t2);  // global index, total threads
  a.li(t3, iterations);
  a.andi(s2, t0, 3);
  a.li(s3, 1);
  a.li(s4, 2);
  a.mv(s5, t0);
  a.bind("loop");
  a.beq(s2, zero, "p0");
  a.beq(s2, s3, "p1");
  a.beq(s2, s4, "p2");
  a.addi(s5, s5, 7);  // path 3
  a.xor_(s5, s5, t3);
  a.j("join");
  a.bind("p2");
  a.slli(s6, s5, 1);
  a.add(s5, s5, s6);
  a.addi(s5, s5, 3);
  a.j("join");
  a.bind("p1");
  a.mul(s5, s5, s5);
  a.j("join");
  a.bind("p0");
  a.sub(s5, zero, s5);
  a.addi(s5, s5, 1);
  a.xori(s5, s5, 0x55);
  a.srli(s6, s5, 2);
  a.add(s5, s5, s6);
  a.bind("join");
  a.addi(t3, t3, -1);
  a.bne(t3, zero, "loop");
  a.slli(t4, t0, 2);
  a.ld(t5, a0, 0);
  a.add(t4, t4, t5);
  a.sw(s5, t4, 0);
  a.kx_exit();
  return a;
}

struct Result {
  double seconds = 0;
  uint64_t cycles = 0, warp_instrs = 0, thread_instrs = 0, mem_requests = 0;
};

using kestrel::bench::counter;

Result run(const Assembler& program, uint32_t blocks, uint32_t threads, bool lockstep) {
  std::map<std::string, std::string> options;
  if (lockstep) options["lockstep"] = "1";
  const auto harness = kestrel::bench::make_bench1(options);
  kestrel::Transport& gpu = *harness;
  kestrel::bench::map(gpu, kArrays, 3 * kArrayBytes / KESTREL_PAGE_SIZE,
                      KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  std::vector<float> init(kArrayBytes / 4);
  for (size_t i = 0; i < init.size(); ++i) init[i] = static_cast<float>(i % 17) * 0.25f;
  gpu.write_mem(kArrays, init.data(), kArrayBytes);
  gpu.write_mem(kArrays + kArrayBytes, init.data(), kArrayBytes);
  const auto begin = std::chrono::steady_clock::now();
  kestrel::bench::run_launch(gpu, kestrel::bench::kLayout, program.finish(),
                             {kArrays, kArrays + kArrayBytes, kArrays + 2 * kArrayBytes}, blocks, threads,
                             "rtlsim_speed");
  const auto end = std::chrono::steady_clock::now();
  Result r;
  r.seconds = std::chrono::duration<double>(end - begin).count();
  r.cycles = counter(gpu, KESTREL_CNT_CYCLES);
  r.warp_instrs = counter(gpu, KESTREL_CNT_WARP_INSTRS);
  r.thread_instrs = counter(gpu, KESTREL_CNT_THREAD_INSTRS);
  r.mem_requests = counter(gpu, KESTREL_CNT_MEM_REQUESTS);
  return r;
}

}  // namespace

int main() {
  struct Case {
    const char* name;
    std::function<Assembler()> make;
    uint32_t blocks, threads;
    bool lockstep;
  };
  const uint32_t sgemm_threads = kSgemmN * kSgemmN;
  const Case cases[] = {
      {"alu", [] { return alu_kernel(2000); }, 1, kLanes * kWarps, false},
      {"sgemm", [] { return sgemm_kernel(kSgemmN); }, sgemm_threads / 256, 256, false},
      {"memory", [] { return memory_kernel(64 * 1024); }, 4, 256, false},
      {"divergence", [] { return divergence_kernel(500); }, 1, kLanes * kWarps, false},
      {"alu+lockstep", [] { return alu_kernel(2000); }, 1, kLanes * kWarps, true},
  };
  std::printf(
      "rtlsim_speed: Verilated kestrel_gpu, 1 SM x %u warps x %u lanes, RV%u, memory latency %s cycles\n",
      kWarps, kLanes, kXlen,
      std::getenv("KESTREL_RTLSIM_MEM_LATENCY") ? std::getenv("KESTREL_RTLSIM_MEM_LATENCY") : "20");
  std::printf("%-13s %10s %10s %12s %8s %12s %15s %6s %9s\n", "kernel", "cycles", "warp-ins", "thread-ins",
              "seconds", "cycles/s", "thread-ins/s", "IPC", "lane-util");
  run(alu_kernel(20), 1, kLanes * kWarps, false);  // warm-up: page faults, caches
  double alu_seconds = 0;
  for (const Case& c : cases) {
    const Result r = run(c.make(), c.blocks, c.threads, c.lockstep);
    if (std::string(c.name) == "alu") alu_seconds = r.seconds;
    std::printf("%-13s %10llu %10llu %12llu %8.2f %10.1f K %13.2f M %6.3f %8.1f%%\n", c.name,
                static_cast<unsigned long long>(r.cycles), static_cast<unsigned long long>(r.warp_instrs),
                static_cast<unsigned long long>(r.thread_instrs), r.seconds, r.cycles / r.seconds / 1e3,
                r.thread_instrs / r.seconds / 1e6, static_cast<double>(r.warp_instrs) / r.cycles,
                100.0 * r.thread_instrs / (static_cast<double>(r.warp_instrs) * kLanes));
    if (c.lockstep && alu_seconds > 0)
      std::printf("  lock-step slowdown on alu: %.2fx\n", r.seconds / alu_seconds);
  }
  return 0;
}
