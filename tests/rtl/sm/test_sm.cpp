// SM bench: kestrel_sm (Verilated, two small configurations) runs programs
// written with the model's assembler while every retired warp-instruction is
// compared against the functional model in lock-step (verif/lockstep/).
// Programs: arithmetic, M, loads/stores of every width, divergence and
// reconvergence, loops, barriers, a spin lock, CSRs, every fault kind,
// atomics and shared-bank passes (with counters 13-15 compared), and
// constrained-random programs with fixed seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "kestrel/model/rv_assembler.hpp"
#include "sm_configs.hpp"
#include "sm_harness.hpp"

namespace kestrel::rtlbench {
namespace {

using namespace kestrel::model::rvasm;
using model::Dim3;

template <class C>
class SmLockstep : public ::testing::Test {
 public:
  SmLockstep() : sm_(std::make_unique<SmHarness<typename C::Model>>(C::config())) {}
  SmHarness<typename C::Model>& sm() { return *sm_; }
  unsigned xlen() const { return C::config().xlen; }
  unsigned lanes() const { return C::config().lanes; }
  Assembler assembler() const { return Assembler(C::config().xlen); }

  // Loads the program, runs it in lock-step and checks that it ended as asked.
  RunResult run(const Assembler& a, Dim3 grid, Dim3 block, bool expect_fault = false) {
    sm().load(a);
    return run_desc(sm().desc(grid, block), expect_fault);
  }
  RunResult run_desc(const model::LaunchDesc& d, bool expect_fault = false) {
    RunResult r = sm().run(d, expect_fault);
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_GT(r.retired, 0u);
    return r;
  }
  // Stores each thread's value of `reg` at a0 + 8 * global thread id, so a
  // program's results end up in memory (compared against the model too).
  void store_result(Assembler& a, Reg reg) {
    a.csrr(t5, KESTREL_CSR_CTAID_X);
    a.csrr(t6, KESTREL_CSR_NTID_X);
    a.mul(t5, t5, t6);
    a.csrr(t6, KESTREL_CSR_TID_X);
    a.add(t5, t5, t6);
    a.slli(t5, t5, 3);
    a.add(t5, t5, a0);
    if (xlen() == 64) {
      a.sd(reg, t5, 0);
    } else {
      a.sw(reg, t5, 0);
    }
  }

 private:
  std::unique_ptr<SmHarness<typename C::Model>> sm_;
};

TYPED_TEST_SUITE(SmLockstep, SmConfigs, SmConfigNames);

TYPED_TEST(SmLockstep, StraightLineArithmetic) {
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.addi(t1, t0, 5);
  a.slli(t2, t1, 3);
  a.sub(t3, t2, t0);
  a.xori(t4, t3, 0x55);
  a.li(s0, 0x12345678);
  a.add(s1, s0, t4);
  a.sra(s2, s1, t0);
  a.sltu(s3, t0, t1);
  a.slt(s4, s1, t0);
  a.lui(s5, 0xFFFFF);
  a.auipc(s6, 3);
  a.or_(s7, s5, s6);
  a.and_(s8, s7, s1);
  this->store_result(a, s8);
  a.ret();
  this->run(a, Dim3{2, 1, 1}, Dim3{8, 1, 1});
}

TYPED_TEST(SmLockstep, MultiplyAndDivide) {
  // Per-lane operands around the corners: 0, 1, -1, MIN, and tid-dependent values.
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(s0, -7);
  a.li(s1, 3);
  a.addi(s2, t0, -2);  // -2 .. lanes-3: includes 0 and -1
  a.li(s3, 1);
  a.slli(s3, s3, this->xlen() - 1);  // MIN
  a.mul(t1, s0, s2);
  a.mulh(t2, s0, s3);
  a.mulhsu(t3, s2, s0);
  a.mulhu(t4, s2, s0);
  a.add(s4, t1, t2);
  a.add(s4, s4, t3);
  a.add(s4, s4, t4);
  a.div(t1, s0, s2);  // by zero and by -1 on some lanes
  a.divu(t2, s3, s2);
  a.rem(t3, s0, s2);
  a.remu(t4, s3, s2);
  a.div(t6, s3, s2);  // MIN / -1 on one lane
  a.add(s4, s4, t1);
  a.add(s4, s4, t2);
  a.add(s4, s4, t3);
  a.add(s4, s4, t4);
  a.add(s4, s4, t6);
  if (this->xlen() == 64) {
    a.mulw(t1, s0, s2);
    a.divw(t2, s3, s1);
    a.divuw(t3, s0, s2);
    a.remw(t4, s0, s2);
    a.remuw(t6, s3, s1);
    a.add(s4, s4, t1);
    a.add(s4, s4, t2);
    a.add(s4, s4, t3);
    a.add(s4, s4, t4);
    a.add(s4, s4, t6);
  }
  this->store_result(a, s4);
  a.ret();
  this->run(a, Dim3{2, 1, 1}, Dim3{this->lanes(), 1, 1});
}

TYPED_TEST(SmLockstep, WordOpsAndShifts) {
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(s0, 0x7FFFFFF0);
  a.add(s0, s0, t0);
  a.slli(s1, s0, 1);
  a.srli(s2, s1, 3);
  a.srai(s3, s1, 2);
  a.sll(s4, s0, t0);
  a.srl(s5, s3, t0);
  a.slti(s6, s3, -1);
  a.sltiu(s7, s3, 5);
  a.ori(s8, s7, 0x7F0);
  a.andi(s9, s8, -16);
  a.add(s10, s1, s2);
  a.add(s10, s10, s3);
  a.add(s10, s10, s4);
  a.add(s10, s10, s5);
  a.add(s10, s10, s6);
  a.add(s10, s10, s9);
  if (this->xlen() == 64) {
    a.addiw(t1, s0, 0x20);
    a.slliw(t2, s0, 4);
    a.srliw(t3, s1, 5);
    a.sraiw(t4, s1, 7);
    a.addw(t6, s0, s1);
    a.subw(s11, s0, s1);
    a.sllw(a1, s0, t0);
    a.srlw(a2, s1, t0);
    a.sraw(a3, s1, t0);
    for (Reg r : {t1, t2, t3, t4, t6, s11, a1, a2, a3}) a.add(s10, s10, r);
  }
  this->store_result(a, s10);
  a.ret();
  this->run(a, Dim3{1, 1, 1}, Dim3{this->lanes(), 1, 1});
}

TYPED_TEST(SmLockstep, LoadsAndStoresOfEveryWidth) {
  // Each thread writes bytes, halves, words (and doublewords) with sign bits
  // set, reads them back signed and unsigned, through global memory, shared
  // memory and its stack.
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.csrr(t1, KESTREL_CSR_CTAID_X);
  a.csrr(t2, KESTREL_CSR_NTID_X);
  a.mul(t1, t1, t2);
  a.add(t0, t0, t1);  // global thread id
  a.slli(t1, t0, 4);
  a.add(s0, a0, t1);  // 16 bytes per thread in global memory
  a.li(s1, -0x1234567);
  a.add(s1, s1, t0);
  a.sb(s1, s0, 0);
  a.sh(s1, s0, 2);
  a.sw(s1, s0, 4);
  if (this->xlen() == 64) a.sd(s1, s0, 8);
  a.lb(s2, s0, 0);
  a.lbu(s3, s0, 0);
  a.lh(s4, s0, 2);
  a.lhu(s5, s0, 2);
  a.lw(s6, s0, 4);
  a.add(s7, s2, s3);
  a.add(s7, s7, s4);
  a.add(s7, s7, s5);
  a.add(s7, s7, s6);
  if (this->xlen() == 64) {
    a.lwu(s8, s0, 4);
    a.ld(s9, s0, 8);
    a.add(s7, s7, s8);
    a.add(s7, s7, s9);
  }
  // shared memory: thread t writes its id at shared[4 t], reads its neighbour's
  a.csrr(s10, KESTREL_CSR_SHARED_BASE);
  a.csrr(t1, KESTREL_CSR_TID_X);
  a.slli(t2, t1, 2);
  a.add(t2, t2, s10);
  a.sw(s7, t2, 0);
  a.sh(s1, t2, 64);
  a.sb(s1, t2, 128);
  a.kx_bar_sync();
  a.addi(t3, t1, 1);
  a.csrr(t4, KESTREL_CSR_NTID_X);
  a.remu(t3, t3, t4);
  a.slli(t3, t3, 2);
  a.add(t3, t3, s10);
  a.lw(t6, t3, 0);
  a.lh(s11, t3, 64);
  a.lbu(a1, t3, 128);
  a.add(s7, s7, t6);
  a.add(s7, s7, s11);
  a.add(s7, s7, a1);
  // the stack (local memory)
  a.addi(sp, sp, -16);
  a.sw(s7, sp, 0);
  a.sh(t0, sp, 4);
  a.lw(a2, sp, 0);
  a.lhu(a3, sp, 4);
  a.add(s7, a2, a3);
  a.addi(sp, sp, 16);
  this->store_result(a, s7);
  a.ret();
  this->sm().load(a);
  model::LaunchDesc d = this->sm().desc(Dim3{3, 1, 1}, Dim3{2 * this->lanes() - 1, 1, 1});
  d.shared_base = kShared;
  d.shared_static = 192;
  this->run_desc(d);
}

// Loads and stores in flight (docs/microarchitecture.md, "Memory
// instructions in flight"): a warp issues its four independent loads (x and
// f) back to back and goes on past them, so the later instructions retire
// ahead of the loads and the four latencies overlap; the same loads chained
// through their addresses pay each latency in turn.  Lock-step holds for
// both (the checker replays each warp in program order), and what reads a
// loaded register waits for it: integer adds, an F add and an fsw of a
// loaded f register.
TYPED_TEST(SmLockstep, LoadsInFlightOverlapAndRetireAheadOfThem) {
  constexpr unsigned kLatency = 40;
  constexpr int kStride = 512;  // the four loads' distance (bytes): distinct lines
  const unsigned threads = 4 * this->lanes();
  std::vector<uint32_t> data(4 * kStride / 4 + threads);
  for (size_t i = 0; i < data.size(); ++i) data[i] = 0x3F800000u + static_cast<uint32_t>(i * 0x1357);
  this->sm().write(kData + 0x4000, data.data(), data.size() * 4);
  this->sm().set_latency(kLatency, kLatency);
  auto program = [&](bool chained) {
    Assembler a = this->assembler();
    a.csrr(t0, KESTREL_CSR_TID_X);
    a.slli(t0, t0, 2);
    a.li(t1, 0x4000);
    a.add(t0, t0, t1);
    a.add(s0, a0, t0);  // this thread's word in the loads' region
    a.lw(s1, s0, 0);
    if (chained) {
      a.andi(t2, s1, 0);  // zero, but only once s1 is in
      a.add(s0, s0, t2);
    }
    a.lw(s2, s0, kStride);
    if (chained) {
      a.andi(t2, s2, 0);
      a.add(s0, s0, t2);
    }
    a.flw(f(1), s0, 2 * kStride);
    if (chained) {
      a.fmv_x_w(t2, f(1));
      a.andi(t2, t2, 0);
      a.add(s0, s0, t2);
    }
    a.flw(f(2), s0, 3 * kStride);
    // Independent of the loads: retires ahead of them.
    a.addi(s3, t0, 5);
    a.xori(s3, s3, 0x55);
    a.add(s4, s1, s2);  // waits for both loads
    a.fadd(f(3), f(1), f(2));
    a.fsw(f(2), s0, -kStride);  // fsw of a loaded f register: waits for it
    a.fmv_x_w(s5, f(3));
    a.add(s4, s4, s5);
    a.add(s4, s4, s3);
    this->store_result(a, s4);
    a.ret();
    return a;
  };
  RunResult overlapped = this->run(program(false), Dim3{1, 1, 1}, Dim3{threads, 1, 1});
  RunResult chained = this->run(program(true), Dim3{1, 1, 1}, Dim3{threads, 1, 1});
  std::printf(
      "four loads per warp at latency %u: %llu cycles independent, %llu chained; %llu records retired "
      "ahead\n",
      kLatency, static_cast<unsigned long long>(overlapped.cycles),
      static_cast<unsigned long long>(chained.cycles),
      static_cast<unsigned long long>(overlapped.retired_ahead));
  EXPECT_GT(overlapped.retired_ahead, 0u);
  // Three of the four latencies hidden, less what the warps' own turns cost.
  EXPECT_LT(overlapped.cycles + 2 * kLatency, chained.cycles);
}

// Every AMO the RTL performs (A's .w and, on RV64, .d; custom-1 inc/dec),
// on global memory (the harness's memory plays the memory-side unit) and on
// shared memory (at the LSU's banks): lanes contending for one word each get
// their own old value, in lane order, and the counters (shared accesses,
// passes, atomics) match the model's.
TYPED_TEST(SmLockstep, AtomicsOnGlobalAndSharedMemory) {
  Assembler a = this->assembler();
  const bool rv64 = this->xlen() == 64;
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.csrr(t1, KESTREL_CSR_CTAID_X);
  a.csrr(t2, KESTREL_CSR_NTID_X);
  a.mul(t1, t1, t2);
  a.add(s9, t0, t1);     // global thread id
  a.addi(s0, a0, 1024);  // global atomic words
  a.csrr(s10, KESTREL_CSR_SHARED_BASE);
  // Shared words 0..63 start at 0: thread t clears words t, t + ntid, ...
  a.addi(t1, t0, 0);
  a.li(t3, 64);
  a.bind("clear");
  a.slli(t4, t1, 2);
  a.add(t4, t4, s10);
  a.sw(zero, t4, 0);
  a.add(t1, t1, t2);
  a.blt(t1, t3, "clear");
  a.kx_bar_sync();
  a.li(s7, 0);
  a.li(t3, 1);
  a.slli(t4, s9, 1);
  a.addi(t4, t4, -7);  // 2 gtid - 7: negative for the low threads
  a.li(t5, 5);         // inc/dec limit
  // Global: one contended word per operation.
  const unsigned ops[] = {0x00, 0x01, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x18, 0x1C};
  int off = 0;
  for (unsigned op : ops) {
    a.addi(t6, s0, off);
    a.amo(op, 4, s1, t6, op == 0x00 ? t3 : t4);
    a.add(s7, s7, s1);
    off += 4;
  }
  a.addi(t6, s0, off);
  a.kx_amoinc_w(s1, t6, t5);
  a.add(s7, s7, s1);
  a.addi(t6, s0, off + 4);
  a.kx_amodec_w(s1, t6, t5);
  a.add(s7, s7, s1);
  if (rv64) {
    a.slli(t2, t4, 40);
    a.or_(t2, t2, t4);
    for (unsigned op : {0x00u, 0x10u, 0x18u, 0x1Cu, 0x04u}) {
      a.addi(t6, s0, 64 + static_cast<int>(op) * 2);
      a.amo(op, 8, s1, t6, t2);
      a.add(s7, s7, s1);
    }
  }
  // Shared: four threads per word (words 0..3), then one word per thread
  // (words 16..30), then a 64-bit word per pair of threads (words 48..63).
  a.andi(t1, t0, 3);
  a.slli(t1, t1, 2);
  a.add(t1, t1, s10);
  for (unsigned op : {0x00u, 0x14u, 0x18u, 0x04u}) {
    a.amo(op, 4, s1, t1, op == 0x00 ? t3 : t4);
    a.add(s7, s7, s1);
  }
  a.kx_amoinc_w(s1, t1, t5);
  a.add(s7, s7, s1);
  a.slli(t1, t0, 2);
  a.add(t1, t1, s10);
  a.addi(t1, t1, 64);
  a.amo(0x01, 4, s1, t1, t4);  // swap into word 16 + t: no conflict
  a.add(s7, s7, s1);
  a.amo(0x01, 4, s1, t1, t3);
  a.add(s7, s7, s1);
  a.lw(s2, t1, 0);
  a.add(s7, s7, s2);
  if (rv64) {
    a.srli(t1, t0, 1);
    a.slli(t1, t1, 3);
    a.add(t1, t1, s10);
    a.addi(t1, t1, 192);
    a.amo(0x00, 8, s1, t1, t2);
    a.add(s7, s7, s1);
    a.amo(0x10, 8, s1, t1, t2);
    a.add(s7, s7, s1);
    a.ld(s2, t1, 0);
    a.add(s7, s7, s2);
    a.sd(s7, t1, 0);
  }
  a.kx_bar_sync();
  a.lw(s2, s10, 0);  // broadcast read of word 0
  a.add(s7, s7, s2);
  this->store_result(a, s7);
  a.ret();
  this->sm().load(a);
  model::LaunchDesc d = this->sm().desc(Dim3{2, 1, 1}, Dim3{2 * this->lanes() - 1, 1, 1});
  d.shared_base = kShared;
  d.shared_static = 256;
  const RunResult r = this->run_desc(d);
  EXPECT_GT(r.atomics, 0u);
  EXPECT_EQ(r.atomics, r.model_counters[KESTREL_CNT_ATOMICS]);
  EXPECT_EQ(r.shared_passes, r.model_counters[KESTREL_CNT_SHARED_PASSES]);
  // Two blocks, 2 * lanes - 1 threads each: the contended add saw every thread.
  EXPECT_EQ(this->sm().bench_mem32(kData + 1024), 2 * (2 * this->lanes() - 1));
}

// kx.amocas.w (and .d on RV64), docs/isa.md section 2.2: a CAS retry loop
// (atomicAdd built from atomicCAS, guide B.12) on a global and a shared
// word: lanes of a warp contend, the lowest lane wins each round and the
// others retry with the value they got back.  Then the corner cases: a
// failed comparison writes nothing, rd = x0 compares with zero, a word's old
// value comes back sign-extended and only bits 31:0 of rd are compared.
TYPED_TEST(SmLockstep, CompareAndSwapOnGlobalAndSharedMemory) {
  Assembler a = this->assembler();
  const bool rv64 = this->xlen() == 64;
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.csrr(s10, KESTREL_CSR_SHARED_BASE);
  a.addi(s0, a0, 1024);  // global counters: word at +0, doubleword at +8
  a.bne(t0, zero, "cleared");
  a.sw(zero, s10, 0);
  a.sw(zero, s10, 8);
  a.sw(zero, s10, 12);
  a.bind("cleared");
  a.kx_bar_sync();
  a.li(s7, 0);
  // Each thread adds tid + 1 to four counters through CAS loops.
  a.addi(t3, t0, 1);
  for (int target = 0; target < 2; ++target) {
    const Reg base = target == 0 ? s0 : s10;
    const std::string w = "w" + std::to_string(target), d = "d" + std::to_string(target);
    a.lw(t1, base, 0);
    a.bind(w);
    a.add(t2, t1, t3);
    a.addi(t4, t1, 0);             // compare value
    a.kx_amocas(4, t4, base, t2);  // t4 = old
    a.xor_(t5, t4, t1);
    a.addi(t1, t4, 0);
    a.add(s7, s7, t4);
    a.bne(t5, zero, w);
    if (rv64) {
      a.ld(t1, base, 8);
      a.bind(d);
      a.add(t2, t1, t3);
      a.slli(t6, t3, 40);
      a.add(t2, t2, t6);  // the upper half changes too
      a.addi(t4, t1, 0);
      a.addi(t6, base, 8);
      a.kx_amocas(8, t4, t6, t2);
      a.xor_(t5, t4, t1);
      a.addi(t1, t4, 0);
      a.add(s7, s7, t4);
      a.bne(t5, zero, d);
    }
  }
  // Corner cases on a per-thread global word at a0 + 2048 + 8 tid.
  a.slli(t1, t0, 3);
  a.add(t1, t1, a0);
  a.addi(t1, t1, 2047);
  a.addi(t1, t1, 1);
  a.li(t2, -5);  // 0xFFFFFFFB
  a.sw(t2, t1, 0);
  a.li(t4, 7);
  a.kx_amocas(4, t4, t1, t3);  // fails: memory stays -5, t4 = -5 (sign-extended)
  a.add(s7, s7, t4);
  a.lw(t5, t1, 0);
  a.add(s7, s7, t5);
  a.kx_amocas(4, zero, t1, t3);  // x0 compares with 0: fails, writes nothing
  a.lw(t5, t1, 0);
  a.add(s7, s7, t5);
  if (rv64) {
    a.li(t4, 0x12345678FFFFFFFBll);  // bits 63:32 of rd are ignored by .w
  } else {
    a.li(t4, -5);
  }
  a.kx_amocas(4, t4, t1, t3);  // succeeds: memory = tid + 1
  a.add(s7, s7, t4);
  a.lw(t5, t1, 0);
  a.add(s7, s7, t5);
  a.sw(zero, t1, 0);
  a.kx_amocas(4, zero, t1, t0);  // x0 compares with 0: succeeds, memory = tid
  a.lw(t5, t1, 0);
  a.add(s7, s7, t5);
  a.kx_bar_sync();
  a.lw(t5, s10, 0);
  a.add(s7, s7, t5);
  this->store_result(a, s7);
  a.ret();
  this->sm().load(a);
  const unsigned n = 2 * this->lanes() - 1;
  model::LaunchDesc desc = this->sm().desc(Dim3{1, 1, 1}, Dim3{n, 1, 1});
  desc.shared_base = kShared;
  desc.shared_static = 64;
  const RunResult r = this->run_desc(desc);
  EXPECT_EQ(r.atomics, r.model_counters[KESTREL_CNT_ATOMICS]);
  EXPECT_EQ(r.shared_passes, r.model_counters[KESTREL_CNT_SHARED_PASSES]);
  EXPECT_EQ(this->sm().bench_mem32(kData + 1024), n * (n + 1) / 2);
  if (rv64) {
    uint64_t expect = 0;
    for (uint64_t t = 1; t <= n; ++t) expect += t + (t << 40);
    EXPECT_EQ(this->sm().bench_mem32(kData + 1032) | uint64_t{this->sm().bench_mem32(kData + 1036)} << 32,
              expect);
  }
}

// 64-bit atomics (guide B.12: atomicAdd/Exch/Min/Max/And/Or/Xor/CAS on
// unsigned long long): A's .d AMOs and kx.amocas.d on RV64; on RV32 the
// register-pair forms (docs/isa.md section 2.2: custom-1 funct3 3, value in
// an even/odd pair, rd+1 written too).  Every thread applies each operation
// to a global and a shared doubleword with a value whose high half carries
// the sign, then adds its value through a CAS retry loop (with a carry
// between the halves on RV32).  Corner cases: rd = x0 discards the old value
// and leaves x1 alone (the program returns through ra), rs2 = x0 reads zero.
TYPED_TEST(SmLockstep, SixtyFourBitAtomicsOnGlobalAndSharedMemory) {
  Assembler a = this->assembler();
  const bool rv64 = this->xlen() == 64;
  const auto amo_d = [&](unsigned funct5, Reg rd, Reg addr, Reg src) {
    if (rv64) {
      a.amo(funct5, 8, rd, addr, src);
    } else {
      a.kx_amo(funct5, 8, rd, addr, src);
    }
  };
  static constexpr unsigned kOps[] = {0x00, 0x01, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x18, 0x1C};
  constexpr int kWords = 11;  // the nine AMOs, the CAS counter, the corner-case word
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.csrr(s10, KESTREL_CSR_SHARED_BASE);
  a.addi(s0, a0, 1024);
  a.bne(t0, zero, "cleared");
  for (int i = 0; i < kWords; ++i) {
    for (int half = 0; half < 2; ++half) {
      a.sw(zero, s0, 8 * i + 4 * half);
      a.sw(zero, s10, 8 * i + 4 * half);
    }
  }
  a.bind("cleared");
  a.kx_bar_sync();
  a.li(s7, 0);
  // v = hi:lo, lo = tid * 0x3C6EF35F + 0x9E3779B9, hi = +-(tid + 1) (odd
  // threads negative): in a2 (RV64) or the pair a2/a3 (RV32).
  a.li(t1, 0x3C6EF35F);
  a.mul(a2, t0, t1);
  a.li(t1, 0x9E3779B9);
  a.add(a2, a2, t1);
  a.addi(a3, t0, 1);
  a.andi(t1, t0, 1);
  a.beq(t1, zero, "positive");
  a.sub(a3, zero, a3);
  a.bind("positive");
  if (rv64) {
    a.slli(a2, a2, 32);
    a.srli(a2, a2, 32);
    a.slli(a3, a3, 32);
    a.or_(a2, a2, a3);
  }
  for (int target = 0; target < 2; ++target) {
    const Reg base = target == 0 ? s0 : s10;
    for (int i = 0; i < 9; ++i) {
      a.addi(t2, base, 8 * i);
      amo_d(kOps[i], a4, t2, a2);  // a4 (and a5 on RV32) = old
      a.add(s7, s7, a4);
      if (!rv64) a.xor_(s7, s7, a5);
    }
    // atomicAdd through a CAS loop on word 9.
    const std::string loop = "cas" + std::to_string(target);
    a.addi(t2, base, 72);
    if (rv64) {
      a.ld(a4, t2, 0);
      a.bind(loop);
      a.add(a6, a4, a2);
      a.addi(s2, a4, 0);
      a.kx_amocas(8, a4, t2, a6);
      a.add(s7, s7, a4);
      a.bne(a4, s2, loop);
    } else {
      a.lw(a4, t2, 0);
      a.lw(a5, t2, 4);
      a.bind(loop);
      a.add(a6, a4, a2);
      a.sltu(t3, a6, a4);  // carry into the high word
      a.add(a7, a5, a3);
      a.add(a7, a7, t3);
      a.addi(s2, a4, 0);
      a.addi(s3, a5, 0);
      a.kx_amocas(8, a4, t2, a6);  // compare a4/a5, new a6/a7
      a.add(s7, s7, a5);
      a.xor_(t3, a4, s2);
      a.xor_(t4, a5, s3);
      a.or_(t3, t3, t4);
      a.bne(t3, zero, loop);
    }
    // Corner cases on word 10.
    a.addi(t2, base, 80);
    amo_d(0x00, zero, t2, a2);  // old value discarded; x1 (ra) untouched
    amo_d(0x00, a4, t2, zero);  // adds zero, a4 = the sum so far
    a.add(s7, s7, a4);
    a.kx_amocas(8, zero, t2, a2);  // compares with zero: fails unless the word is 0
  }
  a.kx_bar_sync();
  // Thread 0 copies the shared words next to the global ones (a0 + 1024 + 88).
  a.bne(t0, zero, "copied");
  for (int i = 0; i < 2 * kWords; ++i) {
    a.lw(t1, s10, 4 * i);
    a.sw(t1, s0, 8 * kWords + 4 * i);
  }
  a.bind("copied");
  this->store_result(a, s7);
  a.ret();
  this->sm().load(a);
  const unsigned n = 2 * this->lanes() - 1;
  model::LaunchDesc desc = this->sm().desc(Dim3{1, 1, 1}, Dim3{n, 1, 1});
  desc.shared_base = kShared;
  desc.shared_static = 8 * kWords;
  const RunResult r = this->run_desc(desc);
  EXPECT_EQ(r.atomics, r.model_counters[KESTREL_CNT_ATOMICS]);
  EXPECT_EQ(r.shared_passes, r.model_counters[KESTREL_CNT_SHARED_PASSES]);
  // What every order of the threads leaves (the swap's winner depends on it).
  uint64_t sum = 0, all_or = 0, all_and = 0, all_xor = 0, umin = 0, umax = 0;
  int64_t smin = 0, smax = 0;
  for (uint32_t t = 0; t < n; ++t) {
    const uint32_t lo = t * 0x3C6EF35Fu + 0x9E3779B9u;
    const int32_t hi = (t & 1) ? -static_cast<int32_t>(t + 1) : static_cast<int32_t>(t + 1);
    const uint64_t v = uint64_t{static_cast<uint32_t>(hi)} << 32 | lo;
    sum += v;
    all_or |= v;
    all_xor ^= v;
    smin = std::min(smin, static_cast<int64_t>(v));
    smax = std::max(smax, static_cast<int64_t>(v));
    umin = std::min(umin, v);
    umax = std::max(umax, v);
  }
  auto word = [&](int target, int i) {
    const uint64_t addr = kData + 1024 + (target == 0 ? 8 * i : 8 * kWords + 8 * i);
    return uint64_t{this->sm().bench_mem32(addr)} | uint64_t{this->sm().bench_mem32(addr + 4)} << 32;
  };
  for (int target = 0; target < 2; ++target) {
    SCOPED_TRACE(target == 0 ? "global" : "shared");
    EXPECT_EQ(word(target, 0), sum);
    EXPECT_EQ(word(target, 2), all_xor);
    EXPECT_EQ(word(target, 3), all_or);
    EXPECT_EQ(word(target, 4), all_and);  // anded with the initial 0
    EXPECT_EQ(static_cast<int64_t>(word(target, 5)), smin);
    EXPECT_EQ(static_cast<int64_t>(word(target, 6)), smax);
    EXPECT_EQ(word(target, 7), umin);
    EXPECT_EQ(word(target, 8), umax);
    EXPECT_EQ(word(target, 9), sum);
    EXPECT_EQ(word(target, 10), sum);  // the rd = x0 adds landed; the CAS never matched
  }
}

// LR/SC (docs/isa.md section 1): an atomic add as an LR/SC retry loop on a
// global and a shared word (and doublewords on RV64), every thread of two
// warps contending: in each round the lowest lane of a warp whose SC comes
// first wins and the SC ends the others' reservations (they get rd = 1 and
// retry).  Then per-thread rules: an SC without an LR fails and writes
// nothing; the thread's own store ends its reservation; an SC to another
// word or of another size than the LR's fails; an LR on shared memory moves
// the reservation away from global memory (and back); lane 0's store to a
// word ends the other lanes' reservations on it; LR/SC on the stack (local
// memory) succeed.  The sum of every rd goes to the result.
TYPED_TEST(SmLockstep, LoadReservedStoreConditional) {
  Assembler a = this->assembler();
  const bool rv64 = this->xlen() == 64;
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.csrr(s10, KESTREL_CSR_SHARED_BASE);
  a.addi(s0, a0, 1024);  // global counters: word at +0, doubleword at +8
  a.bne(t0, zero, "cleared");
  a.sw(zero, s10, 0);
  a.sw(zero, s10, 8);
  a.sw(zero, s10, 12);
  a.bind("cleared");
  a.kx_bar_sync();
  a.li(s7, 0);
  a.addi(t3, t0, 1);
  for (int target = 0; target < 2; ++target) {
    const Reg base = target == 0 ? s0 : s10;
    const std::string w = "w" + std::to_string(target), d = "d" + std::to_string(target);
    a.bind(w);
    a.lr(4, t1, base);
    a.add(s7, s7, t1);
    a.add(t2, t1, t3);
    a.sc(4, t4, base, t2);
    a.add(s7, s7, t4);
    a.bne(t4, zero, w);
    if (rv64) {
      a.addi(t6, base, 8);
      a.bind(d);
      a.lr(8, t1, t6);
      a.add(s7, s7, t1);
      a.slli(t2, t3, 40);
      a.add(t2, t2, t3);
      a.add(t2, t2, t1);  // the upper half changes too
      a.sc(8, t4, t6, t2);
      a.add(s7, s7, t4);
      a.bne(t4, zero, d);
    }
  }
  // Per-thread rules on a global word at a0 + 2048 + 8 tid (t1) and its
  // shared word at shared + 64 + 8 tid (s11).
  a.slli(t1, t0, 3);
  a.add(t1, t1, a0);
  a.addi(t1, t1, 2047);
  a.addi(t1, t1, 1);
  a.slli(s11, t0, 3);
  a.add(s11, s11, s10);
  a.addi(s11, s11, 64);
  a.li(t2, -5);
  a.sw(t2, t1, 0);
  a.sc(4, t4, t1, t3);  // no LR: fails, writes nothing
  a.add(s7, s7, t4);
  a.lr(4, t4, t1);  // -5, sign-extended
  a.add(s7, s7, t4);
  a.sw(t3, t1, 0);  // own store ends the reservation
  a.sc(4, t4, t1, t0);
  a.add(s7, s7, t4);
  a.lr(4, t4, t1);
  a.addi(t5, t1, 4);
  a.sc(4, t4, t5, t0);  // another word: fails
  a.add(s7, s7, t4);
  a.sc(4, t4, t1, t0);  // the failed SC dropped the reservation
  a.add(s7, s7, t4);
  if (rv64) {
    a.lr(4, t4, t1);
    a.sc(8, t4, t1, t0);  // another size: fails
    a.add(s7, s7, t4);
  }
  a.lr(4, t4, t1);
  a.lr(4, t5, s11);     // the reservation moves to shared memory
  a.sc(4, t4, t1, t0);  // fails
  a.add(s7, s7, t4);
  a.lr(4, t5, s11);
  a.lr(4, t4, t1);       // and back to global memory
  a.sc(4, t5, s11, t0);  // fails, and drops the global one too
  a.add(s7, s7, t5);
  a.sc(4, t4, t1, t0);
  a.add(s7, s7, t4);
  a.lr(4, t4, t1);
  a.sc(4, t4, t1, t0);  // succeeds: memory = tid
  a.add(s7, s7, t4);
  a.lw(t5, t1, 0);
  a.add(s7, s7, t5);
  // Lanes reserve one shared word; lane 0 stores to it; every SC fails.
  a.lr(4, t4, s10);
  a.bne(t0, zero, "no_store");
  a.sw(t0, s10, 0);
  a.bind("no_store");
  a.sc(4, t4, s10, t3);
  a.add(s7, s7, t4);
  // Local memory.
  a.addi(sp, sp, -16);
  a.sw(t3, sp, 8);
  a.lr(4, t4, sp);
  a.add(s7, s7, t4);
  a.addi(t5, sp, 8);
  a.lr(4, t4, t5);
  a.add(t4, t4, t3);
  a.sc(4, t6, t5, t4);
  a.add(s7, s7, t6);
  a.lw(t4, sp, 8);
  a.add(s7, s7, t4);
  a.addi(sp, sp, 16);
  a.kx_bar_sync();
  a.lw(t5, s10, 0);
  a.add(s7, s7, t5);
  this->store_result(a, s7);
  a.ret();
  this->sm().load(a);
  const unsigned n = 2 * this->lanes() - 1;
  model::LaunchDesc desc = this->sm().desc(Dim3{1, 1, 1}, Dim3{n, 1, 1});
  desc.shared_base = kShared;
  desc.shared_static = 64 + 8 * n;
  const RunResult r = this->run_desc(desc);
  EXPECT_EQ(r.atomics, 0u);
  EXPECT_EQ(r.shared_passes, r.model_counters[KESTREL_CNT_SHARED_PASSES]);
  EXPECT_EQ(this->sm().bench_mem32(kData + 1024), n * (n + 1) / 2);
  if (rv64) {
    uint64_t expect = 0;
    for (uint64_t t = 1; t <= n; ++t) expect += t + (t << 40);
    EXPECT_EQ(this->sm().bench_mem32(kData + 1032) | uint64_t{this->sm().bench_mem32(kData + 1036)} << 32,
              expect);
  }
}

// kx.amofadd.s (docs/isa.md section 2.2) on a global and a shared word that
// every thread adds to (lanes in lane order, each getting the sum before its
// own add), then per-thread words with special operands: NaN results become
// the canonical NaN, inf + -inf is NaN, subnormals are kept, an exact zero
// sum is +0, and frm (set to round-up here) does not change the rounding.
TYPED_TEST(SmLockstep, FloatAddOnGlobalAndSharedMemory) {
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.csrr(s10, KESTREL_CSR_SHARED_BASE);
  a.addi(s0, a0, 1024);
  a.csrrwi(zero, 0x002, 3);  // frm = RUP: kx.amofadd.s still rounds to nearest even
  a.bne(t0, zero, "cleared");
  a.sw(zero, s10, 0);
  a.bind("cleared");
  a.kx_bar_sync();
  // f1 = 1 + tid / 3 (inexact), added to a global and a shared accumulator.
  a.fcvt_s_w(f(1), t0, kRne);
  a.li(t1, 3);
  a.fcvt_s_w(f(2), t1, kRne);
  a.fdiv(f(1), f(1), f(2), kRne);
  a.li(t1, 0x3F800000);
  a.fmv_w_x(f(3), t1);
  a.fadd(f(1), f(1), f(3), kRne);
  a.kx_amofadd_s(f(4), s0, f(1));
  a.kx_amofadd_s(f(5), s10, f(1));
  a.fadd(f(6), f(4), f(5), kRne);
  // Per-thread words at a0 + 2048 + 4 tid (the harness's memory-side adder)
  // and at shared + 16 + 4 tid (the LSU's adder): special operand pairs by tid.
  static const uint32_t kOld[] = {0x7F800000u, 0x7FC00001u, 0x00000001u, 0x3F800000u,
                                  0x80000000u, 0x7F7FFFFFu, 0x00800000u, 0xFF800001u};
  static const uint32_t kAdd[] = {0xFF800000u, 0x3F800000u, 0x00000003u, 0xBF800000u,
                                  0x80000000u, 0x7F7FFFFFu, 0x80000001u, 0x7F800000u};
  a.slli(t1, t0, 2);
  a.add(t1, t1, a0);
  a.addi(t1, t1, 2047);
  a.addi(t1, t1, 1);
  a.slli(t6, t0, 2);
  a.add(t6, t6, s10);
  a.andi(t2, t0, 7);
  for (unsigned i = 0; i < 8; ++i) {
    const std::string next = "next" + std::to_string(i);
    a.li(t3, static_cast<int32_t>(i));
    a.bne(t2, t3, next);
    a.li(t4, static_cast<int32_t>(kOld[i]));
    a.sw(t4, t1, 0);
    a.sw(t4, t6, 16);
    a.li(t4, static_cast<int32_t>(kAdd[i]));
    a.fmv_w_x(f(7), t4);
    a.bind(next);
  }
  a.kx_amofadd_s(f(8), t1, f(7));
  a.flw(f(9), t1, 0);
  a.fmv_x_w(s7, f(9));
  a.fmv_x_w(t3, f(8));
  a.add(s7, s7, t3);
  a.addi(t6, t6, 16);
  a.kx_amofadd_s(f(10), t6, f(7));
  a.flw(f(11), t6, 0);
  a.fmv_x_w(t3, f(11));
  a.add(s7, s7, t3);
  a.fmv_x_w(t3, f(10));
  a.add(s7, s7, t3);
  a.fmv_x_w(t3, f(6));
  a.add(s7, s7, t3);
  a.csrr(t3, 0x001);  // fflags: the fdiv's and fadds' flags only
  a.add(s7, s7, t3);
  a.kx_bar_sync();
  a.lw(t3, s10, 0);
  a.add(s7, s7, t3);
  this->store_result(a, s7);
  a.ret();
  this->sm().load(a);
  const unsigned n = 2 * this->lanes() - 1;
  model::LaunchDesc desc = this->sm().desc(Dim3{1, 1, 1}, Dim3{n, 1, 1});
  desc.shared_base = kShared;
  desc.shared_static = 128;
  const RunResult r = this->run_desc(desc);
  EXPECT_EQ(r.atomics, r.model_counters[KESTREL_CNT_ATOMICS]);
  EXPECT_EQ(r.shared_passes, r.model_counters[KESTREL_CNT_SHARED_PASSES]);
  EXPECT_NE(this->sm().bench_mem32(kData + 1024), 0u);
}

// Shared-memory bank passes (docs/isa.md section 2.3) for the guide's
// Figure 17/18 patterns at this configuration's width, from the SM's counter
// events, which the harness also compares with the model's counters: one
// warp, one load per pattern.
TYPED_TEST(SmLockstep, SharedBankPassesPerPattern) {
  const unsigned lanes = this->lanes();
  struct Pattern {
    const char* name;
    int stride_words;  // word = lane * stride (0: every lane on word 3)
    unsigned size;     // access bytes
    unsigned passes;
  };
  const Pattern patterns[] = {
      {"stride 1", 1, 4, 1},        {"stride 2", 2, 4, 2},
      {"stride 3", 3, 4, 1},        {"stride lanes", static_cast<int>(lanes), 4, lanes},
      {"broadcast", 0, 4, 1},       {"bytes stride 1", 1, 1, 1},
      {"halves stride 1", 1, 2, 1},
  };
  for (const Pattern& p : patterns) {
    Assembler a = this->assembler();
    a.csrr(t0, KESTREL_CSR_TID_X);
    a.csrr(s10, KESTREL_CSR_SHARED_BASE);
    if (p.stride_words == 0) {
      a.li(t1, 12);
    } else {
      a.li(t2, p.stride_words * static_cast<int>(p.size));
      a.mul(t1, t0, t2);
    }
    a.add(t1, t1, s10);
    if (p.size == 1) {
      a.sb(t0, t1, 0);
      a.lbu(s1, t1, 0);
    } else if (p.size == 2) {
      a.sh(t0, t1, 0);
      a.lhu(s1, t1, 0);
    } else {
      a.sw(t0, t1, 0);
      a.lw(s1, t1, 0);
    }
    this->store_result(a, s1);
    a.ret();
    this->sm().load(a);
    model::LaunchDesc d = this->sm().desc(Dim3{1, 1, 1}, Dim3{lanes, 1, 1});
    d.shared_base = kShared;
    d.shared_static = 1024;
    const RunResult r = this->run_desc(d);
    EXPECT_EQ(r.shared_accesses, 2u) << p.name;
    // The store and the load alike; a warp of one lane always takes one pass.
    EXPECT_EQ(r.shared_passes, 2u * std::min(p.passes, lanes)) << p.name;
  }
}

TYPED_TEST(SmLockstep, DivergenceAndReconvergence) {
  // Nested if/else on thread-id bits and a loop whose trip count is the
  // thread id: lanes split and meet again at the join points.
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(s0, 0);
  a.andi(t1, t0, 1);
  a.beq(t1, zero, "even");
  a.addi(s0, s0, 100);
  a.andi(t2, t0, 2);
  a.bne(t2, zero, "odd_high");
  a.addi(s0, s0, 10);
  a.j("join");
  a.bind("odd_high");
  a.addi(s0, s0, 20);
  a.j("join");
  a.bind("even");
  a.addi(s0, s0, 1);
  a.bind("join");
  a.mv(t3, t0);
  a.bind("loop");
  a.beq(t3, zero, "loop_done");
  a.add(s0, s0, t3);
  a.addi(t3, t3, -1);
  a.j("loop");
  a.bind("loop_done");
  // indirect jump with per-lane targets (jalr through a computed address)
  a.auipc(t4, 0);
  a.andi(t1, t0, 1);
  a.slli(t1, t1, 3);
  a.add(t4, t4, t1);
  a.jalr(ra, t4, 20);
  a.addi(s0, s0, 1000);  // even lanes land here
  a.addi(s0, s0, 3000);  // odd lanes land here
  this->store_result(a, s0);
  a.li(ra, static_cast<int64_t>(kExitStub));
  a.ret();
  this->run(a, Dim3{2, 1, 1}, Dim3{this->lanes() + 3, 1, 1});
}

TYPED_TEST(SmLockstep, BarriersCountThreadsAcrossDivergentWarpsAndExits) {
  // Threads with tid % 3 == 0 exit early; the rest split between two barrier
  // instructions (both count), then bar.count/and/or give the block-wide
  // results, twice in a loop.
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(t1, 3);
  a.rem(t2, t0, t1);
  a.bne(t2, zero, "stay");
  a.kx_exit();
  a.bind("stay");
  a.li(s1, 2);
  a.li(s0, 0);
  a.bind("round");
  a.andi(t3, t0, 1);
  a.beq(t3, zero, "bar_even");
  a.kx_bar_count(s2, t3);
  a.j("after");
  a.bind("bar_even");
  a.kx_bar_sync();
  a.li(s2, 7);
  a.bind("after");
  a.add(s0, s0, s2);
  a.andi(t4, t0, 4);
  a.kx_bar_and(s3, t4);
  a.kx_bar_or(s4, t4);
  a.add(s0, s0, s3);
  a.add(s0, s0, s4);
  a.slli(s0, s0, 2);
  a.addi(s1, s1, -1);
  a.bne(s1, zero, "round");
  this->store_result(a, s0);
  a.ret();
  this->run(a, Dim3{2, 1, 1}, Dim3{3 * this->lanes() - 2, 1, 1});
}

TYPED_TEST(SmLockstep, IntraWarpSpinLockNeedsFairness) {
  // Turn-taking without atomics: thread t spins until the turn word holds t,
  // then adds to a sum and passes the turn on.  The spinning lanes sit at a
  // lower PC than the lane holding the turn, so only the fairness step of
  // docs/isa.md section 6 lets the holder run.
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.addi(s0, a0, 512);  // turn word
  a.addi(s1, a0, 520);  // sum
  a.bind("spin");
  a.lw(t1, s0, 0);
  a.bne(t1, t0, "spin");
  a.lw(t2, s1, 0);
  a.add(t2, t2, t0);
  a.addi(t2, t2, 1);
  a.sw(t2, s1, 0);
  a.addi(t1, t1, 1);
  a.fence();
  a.sw(t1, s0, 0);
  a.ret();
  this->run(a, Dim3{1, 1, 1}, Dim3{this->lanes(), 1, 1});
  EXPECT_EQ(this->sm().bench_mem32(kData + 520), this->lanes() * (this->lanes() + 1) / 2);
}

TYPED_TEST(SmLockstep, CsrsOfEveryKind) {
  Assembler a = this->assembler();
  a.li(s0, 0);
  for (uint32_t csr = KESTREL_CSR_TID_X; csr <= KESTREL_CSR_DYN_SHARED; ++csr) {
    a.csrr(t1, csr);
    a.slli(s0, s0, 3);
    a.xor_(s0, s0, t1);
  }
  a.csrr(t2, 0xC02);  // instret
  a.add(s0, s0, t2);
  a.andi(t3, t2, 1);
  a.beq(t3, zero, "skip");  // diverged issues count per lane
  a.addi(s0, s0, 1);
  a.bind("skip");
  a.csrrs(t4, 0xC02, zero);
  a.add(s0, s0, t4);
  if (this->xlen() == 32) {
    a.csrr(t6, 0xC82);  // instreth
    a.add(s0, s0, t6);
  }
  a.csrr(t6, 0xC00);  // cycle: differs from the model (not compared), not used further
  a.csrrsi(t6, 0xC01, 0);
  this->store_result(a, s0);
  a.ret();
  this->sm().load(a);
  model::LaunchDesc d = this->sm().desc(Dim3{2, 2, 2}, Dim3{3, 2, 2});
  d.shared_base = kShared;
  d.shared_static = 32;
  d.shared_dyn = 64;
  this->run_desc(d);
}

TYPED_TEST(SmLockstep, MoreBlocksThanFitWaitForFreeSlots) {
  // 12 blocks of two warps each on a 4-warp SM with 256 bytes of shared
  // memory each: at most two resident at once (warps), and exit order decides
  // where the next block goes.
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.csrr(t1, KESTREL_CSR_CTAID_X);
  a.mv(t2, t1);
  a.bind("work");  // block-dependent amount of work
  a.beq(t2, zero, "done");
  a.addi(t2, t2, -1);
  a.add(t0, t0, t1);
  a.j("work");
  a.bind("done");
  this->store_result(a, t0);
  a.ret();
  this->sm().load(a);
  model::LaunchDesc d = this->sm().desc(Dim3{4, 3, 1}, Dim3{this->lanes() + 1, 1, 1});
  d.shared_base = kShared;
  d.shared_static = 256;
  this->run_desc(d);
}

// ---- faults ------------------------------------------------------------------

template <class T>
void expect_fault(T* test, const Assembler& a, kestrel_fault_kind kind, model::LaunchDesc* custom = nullptr) {
  test->sm().load(a);
  model::LaunchDesc d = custom ? *custom : test->sm().desc(Dim3{2, 1, 1}, Dim3{test->lanes() + 2, 1, 1});
  RunResult r = test->sm().run(d, true);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.faulted);
  EXPECT_EQ(r.fault.kind, kind);
}

TYPED_TEST(SmLockstep, FaultIllegalInstruction) {
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.andi(t1, t0, 1);
  a.beq(t1, zero, "fine");
  a.word(0x00000000);  // odd lanes: no such instruction
  a.bind("fine");
  a.ret();
  expect_fault(this, a, KESTREL_FAULT_ILLEGAL_INSTRUCTION);
}

TYPED_TEST(SmLockstep, FaultCsrWriteIsIllegal) {
  Assembler a = this->assembler();
  a.li(t0, 1);
  a.csrrw(t1, KESTREL_CSR_TID_X, t0);
  a.ret();
  expect_fault(this, a, KESTREL_FAULT_ILLEGAL_INSTRUCTION);
}

TYPED_TEST(SmLockstep, FaultMisalignedLowestLane) {
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.slli(t1, t0, 2);
  a.add(t1, t1, a0);
  a.andi(t2, t0, 2);
  a.add(t1, t1, t2);  // lanes 2, 3, 6, 7 ... misaligned
  a.lw(t3, t1, 0);
  a.ret();
  expect_fault(this, a, KESTREL_FAULT_MISALIGNED);
}

// An RV32 pair atomic at an address that is 4 but not 8 aligned faults
// MISALIGNED in the lowest such lane, writing no register (docs/isa.md
// section 2.2: the faults of a store).
TYPED_TEST(SmLockstep, FaultMisalignedSixtyFourBitAtomic) {
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.slli(t1, t0, 3);
  a.add(t1, t1, a0);
  a.andi(t2, t0, 2);
  a.slli(t2, t2, 1);
  a.add(t1, t1, t2);  // lanes 2, 3, 6, 7 ... 4 bytes off
  a.li(a2, 1);
  if (this->xlen() == 64) {
    a.amo(0x00, 8, a4, t1, a2);
  } else {
    a.kx_amo(0x00, 8, a4, t1, a2);
  }
  a.ret();
  expect_fault(this, a, KESTREL_FAULT_MISALIGNED);
}

TYPED_TEST(SmLockstep, FaultIllegalAddressUnmappedAndNull) {
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.slli(t1, t0, 6);
  a.li(t2, static_cast<int64_t>(kUnmapped) - 128);
  a.add(t1, t1, t2);  // lanes 0, 1 mapped data? no: below kUnmapped is read-only page space
  a.lw(t3, t1, 0);
  a.li(t4, 0x100);
  a.lw(t3, t4, 0);  // the null guard
  a.ret();
  expect_fault(this, a, KESTREL_FAULT_ILLEGAL_ADDRESS);
}

TYPED_TEST(SmLockstep, FaultWriteProtect) {
  Assembler a = this->assembler();
  a.li(t1, static_cast<int64_t>(kReadOnly));
  a.lw(t2, t1, 0);  // reading is fine
  a.sw(t2, t1, 4);
  a.ret();
  expect_fault(this, a, KESTREL_FAULT_WRITE_PROTECT);
}

TYPED_TEST(SmLockstep, FaultSharedBounds) {
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.slli(t0, t0, 4);
  a.csrr(t1, KESTREL_CSR_SHARED_BASE);
  a.add(t1, t1, t0);
  a.sw(t0, t1, 0);  // 16 bytes per thread, 64 bytes of shared memory: threads >= 4 fault
  a.ret();
  model::LaunchDesc d = this->sm().desc(Dim3{1, 1, 1}, Dim3{std::max(this->lanes() + 1, 5u), 1, 1});
  d.shared_base = kShared;
  d.shared_static = 64;
  expect_fault(this, a, KESTREL_FAULT_SHARED_BOUNDS, &d);
}

TYPED_TEST(SmLockstep, FaultLocalBounds) {
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.slli(t0, t0, 3);
  a.add(t1, sp, t0);
  a.lw(t2, t1, -16);  // lane 2 and up read past the stack top
  a.ret();
  expect_fault(this, a, KESTREL_FAULT_LOCAL_BOUNDS);
}

TYPED_TEST(SmLockstep, FaultFetchOutsideCodeAndMisaligned) {
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.andi(t1, t0, 1);
  a.bne(t1, zero, "to_data");
  a.auipc(t2, 0);
  a.jalr(zero, t2, 6);  // even lanes: a 2-byte aligned target
  a.bind("to_data");
  a.jalr(zero, a0, 0);  // odd lanes: data is not executable
  expect_fault(this, a, KESTREL_FAULT_FETCH);
}

TYPED_TEST(SmLockstep, FaultTrapAndAssert) {
  {
    Assembler a = this->assembler();
    a.csrr(t0, KESTREL_CSR_TID_X);
    a.addi(t0, t0, 5);
    a.kx_trap(t0);
    expect_fault(this, a, KESTREL_FAULT_TRAP);
  }
  {
    Assembler a = this->assembler();
    a.csrr(t0, KESTREL_CSR_TID_X);
    a.li(t1, 1);
    a.li(a1, 0x10002000);
    a.addi(a2, t0, 77);
    a.bne(t0, t1, "ok");
    a.kx_trap(t1);  // only thread 1 asserts
    a.bind("ok");
    a.ret();
    expect_fault(this, a, KESTREL_FAULT_ASSERT);
  }
}

TYPED_TEST(SmLockstep, FaultBarrierDeadlock) {
  // Thread 1 spins forever while its block waits at a barrier.
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(t1, 1);
  a.bne(t0, t1, "bar");
  a.bind("forever");
  a.j("forever");
  a.bind("bar");
  a.kx_bar_sync();
  a.ret();
  expect_fault(this, a, KESTREL_FAULT_BARRIER_DEADLOCK);
}

TYPED_TEST(SmLockstep, FaultBarrierWithNonZeroId) {
  Assembler a = this->assembler();
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.kx_bar_sync(t0);  // lane 0 passes id 0, lane 1 id 1: illegal
  a.ret();
  expect_fault(this, a, KESTREL_FAULT_ILLEGAL_INSTRUCTION);
}

// ---- figures for docs/microarchitecture.md -------------------------------------
TYPED_TEST(SmLockstep, AluBoundIpcWithAllWarpsBusy) {
  // Every warp slot holds a warp running a 16-instruction integer loop body
  // (four independent chains, so each warp has work for the pipe's depth).
  Assembler a = this->assembler();
  a.csrr(s0, KESTREL_CSR_TID_X);
  a.li(s1, 200);
  a.mv(s2, s0);
  a.addi(s3, s0, 1);
  a.addi(s4, s0, 2);
  a.addi(s5, s0, 3);
  a.bind("loop");
  for (int i = 0; i < 3; ++i) {
    a.add(s2, s2, s3);
    a.xor_(s3, s3, s4);
    a.addi(s4, s4, 7);
    a.slli(s5, s5, 1);
    a.sub(s2, s2, s5);
  }
  a.addi(s1, s1, -1);
  a.bne(s1, zero, "loop");
  a.add(s2, s2, s3);
  a.add(s2, s2, s4);
  a.add(s2, s2, s5);
  this->store_result(a, s2);
  a.ret();
  this->sm().load(a);
  const auto begin = std::chrono::steady_clock::now();
  RunResult r = this->run_desc(this->sm().desc(Dim3{1, 1, 1}, Dim3{4 * this->lanes(), 1, 1}));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  const double ipc = static_cast<double>(r.retired) / static_cast<double>(r.cycles);
  std::printf(
      "ALU-bound: %llu warp-instructions in %llu cycles, IPC %.3f; %.0f simulated cycles/s with lock-step\n",
      static_cast<unsigned long long>(r.retired), static_cast<unsigned long long>(r.cycles), ipc,
      static_cast<double>(r.cycles) / seconds);
  EXPECT_GE(ipc, 0.9);
}

// ---- constrained-random programs ---------------------------------------------
// Straight code, if/else on data bits (divergent), bounded loops with per-thread
// trip counts, loads, stores and atomics (A's AMOs and LR/SC, kx.amoinc/amodec,
// kx.amocas, RV32's register-pair forms) of every width to a shared scratch
// area and to shared memory, barriers of every kind
// (also inside divergent code: exits and bounded loops guarantee they
// complete), rare early exits, the F
// extension: every lane-pipeline operation with static and dynamic rounding
// modes (frm rewritten per thread along the way), conversions both ways,
// moves, compares, fclass, fdiv/fsqrt, kx.sfu, flw/fsw, kx.amofadd.s, fflags/fcsr reads
// and writes, on operands seeded with special values (zeros, infinities,
// NaNs, subnormals), and warp-synchronous instructions (vote, shuffle, match,
// reduce) over the lanes converged at that point (__activemask(), or its
// parity halves) with random operands and shuffle control words.  Every
// program ends by storing its data registers and f0..f7; lock-step compares
// each retire (x and f writes) and the final memory.
class RandomProgram {
 public:
  RandomProgram(unsigned xlen, uint32_t seed) : xlen_(xlen), rng_(seed), a_(xlen) {}

  Assembler build() {
    a_.csrr(s0, KESTREL_CSR_TID_X);
    a_.csrr(s1, KESTREL_CSR_CTAID_X);
    a_.li(s2, static_cast<int64_t>(rng_()));
    a_.add(s2, s2, s0);
    a_.li(s3, -static_cast<int64_t>(rng_() % 1000));
    a_.xor_(s4, s2, s1);
    a_.csrr(t2, KESTREL_CSR_SHARED_BASE);  // t2: shared base (never written again)
    // Shared memory starts undefined (docs/isa.md section 4; the RTL keeps the
    // previous block's bytes): the block clears its 256 bytes first.
    a_.csrr(t5, KESTREL_CSR_NTID_X);
    a_.slli(t5, t5, xlen_ == 64 ? 3 : 2);
    a_.slli(t6, s0, xlen_ == 64 ? 3 : 2);
    a_.li(t1, 256);
    a_.bind("clear");
    a_.bge(t6, t1, "cleared");
    a_.add(t0, t6, t2);
    if (xlen_ == 64)
      a_.sd(zero, t0, 0);
    else
      a_.sw(zero, t0, 0);
    a_.add(t6, t6, t5);
    a_.j("clear");
    a_.bind("cleared");
    a_.kx_bar_sync();
    // f0..f9: per-thread values, special patterns, conversions.
    for (unsigned i = 0; i < 10; ++i) {
      static const uint32_t kSpecial[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                          0x7F800001u, 0x00000001u, 0x807FFFFFu, 0x7F7FFFFFu, 0x3F800000u,
                                          0x4B000000u, 0xCF000000u, 0x00800000u, 0x3EAAAAABu};
      switch (rng_() % 3) {
        case 0:
          a_.fcvt_s_w(f(i), data_reg(), kRne);
          break;
        case 1:
          a_.li(t0, static_cast<int32_t>(kSpecial[rng_() % 14]));
          a_.fmv_w_x(f(i), t0);
          break;
        default:
          a_.fmv_w_x(f(i), data_reg());  // raw bits of a data register
          break;
      }
    }
    body(0, 14 + rng_() % 16);
    // results: 8 registers at a0 + 4096 + 64 * global thread id
    a_.csrr(t5, KESTREL_CSR_NTID_X);
    a_.mul(t5, t5, s1);
    a_.add(t5, t5, s0);
    a_.slli(t5, t5, 6);
    a_.add(t5, t5, a0);
    a_.li(t6, 4096);
    a_.add(t5, t5, t6);
    const Reg regs[] = {s2, s3, s4, s5, s6, s7, s8, s9};
    for (unsigned i = 0; i < 8; ++i) {
      if (xlen_ == 64)
        a_.sd(regs[i], t5, static_cast<int32_t>(8 * i));
      else
        a_.sw(regs[i], t5, static_cast<int32_t>(8 * i));
    }
    // f0..f7 at a0 + 0x8000 + 32 * global thread id.
    a_.sub(t5, t5, a0);
    a_.srli(t5, t5, 1);
    a_.add(t5, t5, a0);
    a_.li(t6, 0x8000 - 2048);
    a_.add(t5, t5, t6);
    for (unsigned i = 0; i < 8; ++i) a_.fsw(f(i), t5, static_cast<int32_t>(4 * i));
    a_.ret();
    return a_;
  }

 private:
  Reg data_reg() {
    static const Reg regs[] = {s0, s1, s2, s3, s4, s5, s6, s7, s8, s9};
    return regs[rng_() % 10];
  }
  Reg dest_reg() {
    static const Reg regs[] = {s2, s3, s4, s5, s6, s7, s8, s9};
    return regs[rng_() % 8];
  }
  std::string label() { return "L" + std::to_string(labels_++); }

  void alu() {
    const Reg d = dest_reg(), x = data_reg(), y = data_reg();
    switch (rng_() % 20) {
      case 0:
        a_.add(d, x, y);
        break;
      case 1:
        a_.sub(d, x, y);
        break;
      case 2:
        a_.xor_(d, x, y);
        break;
      case 3:
        a_.or_(d, x, y);
        break;
      case 4:
        a_.and_(d, x, y);
        break;
      case 5:
        a_.sll(d, x, y);
        break;
      case 6:
        a_.srl(d, x, y);
        break;
      case 7:
        a_.sra(d, x, y);
        break;
      case 8:
        a_.slt(d, x, y);
        break;
      case 9:
        a_.sltu(d, x, y);
        break;
      case 10:
        a_.addi(d, x, static_cast<int32_t>(rng_() % 4096) - 2048);
        break;
      case 11:
        a_.srai(d, x, rng_() % xlen_);
        break;
      case 12:
        a_.slli(d, x, rng_() % xlen_);
        break;
      case 13:
        a_.mul(d, x, y);
        break;
      case 14:
        a_.mulh(d, x, y);
        break;
      case 15:
        a_.mulhu(d, x, y);
        break;
      case 16:
        a_.div(d, x, y);
        break;
      case 17:
        a_.remu(d, x, y);
        break;
      case 18:
        a_.lui(d, rng_() & 0xFFFFF);
        break;
      default:
        if (xlen_ == 64)
          a_.addw(d, x, y);
        else
          a_.xori(d, x, static_cast<int32_t>(rng_() % 2048));
        break;
    }
  }

  void memory() {
    // Address: a0 (or the shared base) + (reg & 0x3F8), then an aligned offset.
    const bool shared = rng_() % 3 == 0;
    a_.andi(t6, data_reg(), 0x3F0);
    if (shared) a_.andi(t6, t6, 0xF0);  // 256 bytes of shared memory
    a_.add(t6, t6, shared ? t2 : a0);
    const unsigned size_log2 = rng_() % (xlen_ == 64 ? 4 : 3);
    const int32_t off = static_cast<int32_t>((rng_() % (16u >> size_log2)) << size_log2) % 16;
    const Reg d = dest_reg(), v = data_reg();
    if (rng_() % 4 == 0) {
      // An atomic on a word or a doubleword: A's AMOs and LR/SC, custom-1's
      // inc/dec (words) and CAS, on global or shared memory.  A doubleword on
      // RV32 is a register-pair form (docs/isa.md section 2.2): even rd and
      // rs2, rd+1 written too.
      static const unsigned ops[] = {0x00, 0x01, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x18, 0x1C};
      const bool dword = rng_() % 2 != 0;
      const bool pair = dword && xlen_ == 32;
      const Reg dd = pair ? static_cast<Reg>(d & ~1u) : d;
      const Reg vv = pair ? static_cast<Reg>(v & ~1u) : v;
      a_.addi(t6, t6, dword ? off & ~7 : off & ~3);
      const unsigned pick = static_cast<unsigned>(rng_() % 16);
      if (pick >= 13) {
        // LR alone, LR then SC (lanes on one word compete; other warps'
        // stores may end the reservation in between) or SC alone; .d on RV64.
        const unsigned width = dword && xlen_ == 64 ? 8 : 4;
        if (pick != 15) a_.lr(width, d, t6);
        if (pick != 13) a_.sc(width, d, t6, v);
      } else if (pick < 9) {
        if (pair)
          a_.kx_amo(ops[pick], 8, dd, t6, vv);
        else
          a_.amo(ops[pick], dword ? 8 : 4, dd, t6, vv);
      } else if (pick == 9 && !dword) {
        a_.kx_amoinc_w(dd, t6, vv);
      } else if (pick == 10 && !dword) {
        a_.kx_amodec_w(dd, t6, vv);
      } else {
        // CAS: rd is the compare value; loading the word first makes the
        // lowest lane on each word succeed, a random rd mostly fails.
        if (pick != 12) {
          if (pair) {
            a_.lw(dd, t6, 0);
            a_.lw(static_cast<Reg>(dd + 1), t6, 4);
          } else if (dword) {
            a_.ld(dd, t6, 0);
          } else {
            a_.lw(dd, t6, 0);
          }
        }
        a_.kx_amocas(dword ? 8 : 4, dd, t6, vv);
      }
    } else if (rng_() % 2) {
      switch (size_log2) {
        case 0:
          a_.sb(v, t6, off);
          break;
        case 1:
          a_.sh(v, t6, off);
          break;
        case 2:
          a_.sw(v, t6, off);
          break;
        default:
          a_.sd(v, t6, off);
          break;
      }
    } else {
      const bool is_unsigned = rng_() % 2;
      switch (size_log2) {
        case 0:
          is_unsigned ? a_.lbu(d, t6, off) : a_.lb(d, t6, off);
          break;
        case 1:
          is_unsigned ? a_.lhu(d, t6, off) : a_.lh(d, t6, off);
          break;
        case 2:
          (is_unsigned && xlen_ == 64) ? a_.lwu(d, t6, off) : a_.lw(d, t6, off);
          break;
        default:
          a_.ld(d, t6, off);
          break;
      }
    }
  }

  FReg fdata() { return f(rng_() % 10); }
  // A rounding mode: one of the five static ones or dynamic (frm).
  Rm rm() {
    static const Rm modes[] = {kRne, kRtz, kRdn, kRup, kRmm, kDyn, kDyn};
    return modes[rng_() % 7];
  }

  void fp() {
    const FReg d = fdata(), x = fdata(), y = fdata(), z = fdata();
    const Reg xd = dest_reg();
    switch (rng_() % 24) {
      case 0:
        a_.fadd(d, x, y, rm());
        break;
      case 1:
        a_.fsub(d, x, y, rm());
        break;
      case 2:
        a_.fmul(d, x, y, rm());
        break;
      case 3:
        a_.fmadd(d, x, y, z, rm());
        break;
      case 4:
        a_.fmsub(d, x, y, z, rm());
        break;
      case 5:
        a_.fnmsub(d, x, y, z, rm());
        break;
      case 6:
        a_.fnmadd(d, x, y, z, rm());
        break;
      case 7:
        rng_() % 2 ? a_.fmin(d, x, y) : a_.fmax(d, x, y);
        break;
      case 8:
        switch (rng_() % 3) {
          case 0:
            a_.fsgnj(d, x, y);
            break;
          case 1:
            a_.fsgnjn(d, x, y);
            break;
          default:
            a_.fsgnjx(d, x, y);
            break;
        }
        break;
      case 9:
        switch (rng_() % 3) {
          case 0:
            a_.feq(xd, x, y);
            break;
          case 1:
            a_.flt(xd, x, y);
            break;
          default:
            a_.fle(xd, x, y);
            break;
        }
        break;
      case 10:
        rng_() % 2 ? a_.fclass(xd, x) : a_.fmv_x_w(xd, x);
        break;
      case 11:
        a_.fmv_w_x(d, data_reg());
        break;
      case 12:
        switch (rng_() % (xlen_ == 64 ? 4 : 2)) {
          case 0:
            a_.fcvt_w_s(xd, x, rm());
            break;
          case 1:
            a_.fcvt_wu_s(xd, x, rm());
            break;
          case 2:
            a_.fcvt_l_s(xd, x, rm());
            break;
          default:
            a_.fcvt_lu_s(xd, x, rm());
            break;
        }
        break;
      case 13:
        switch (rng_() % (xlen_ == 64 ? 4 : 2)) {
          case 0:
            a_.fcvt_s_w(d, data_reg(), rm());
            break;
          case 1:
            a_.fcvt_s_wu(d, data_reg(), rm());
            break;
          case 2:
            a_.fcvt_s_l(d, data_reg(), rm());
            break;
          default:
            a_.fcvt_s_lu(d, data_reg(), rm());
            break;
        }
        break;
      case 14:
        a_.fdiv(d, x, y, rm());
        break;
      case 15:
        a_.fsqrt(d, x, rm());
        break;
      case 16:
        // kx.sfu rcp, rsqrt, ex2, lg2, sin, cos
        a_.r_type(KESTREL_OPC_SIMT, KESTREL_F3_SFU, KESTREL_F7_SFU_RCP + rng_() % 6, d.n, x.n, 0);
        break;
      case 17:
      case 18: {
        // flw / fsw / kx.amofadd.s on the scratch area or shared memory
        const bool shared = rng_() % 3 == 0;
        a_.andi(t6, data_reg(), 0x3F0);
        if (shared) a_.andi(t6, t6, 0xF0);
        a_.add(t6, t6, shared ? t2 : a0);
        const int32_t off = static_cast<int32_t>(4 * (rng_() % 4));
        const unsigned pick = static_cast<unsigned>(rng_() % 3);
        if (pick == 0) {
          a_.fsw(x, t6, off);
        } else if (pick == 1) {
          a_.flw(d, t6, off);
        } else {
          a_.addi(t6, t6, off);
          a_.kx_amofadd_s(d, t6, x);
        }
        break;
      }
      case 19:
        // frm per thread from data (0..3), or RMM for all
        if (rng_() % 2) {
          a_.andi(t0, data_reg(), 3);
          a_.csrrw(rng_() % 2 ? xd : zero, 0x002, t0);
        } else {
          a_.csrrwi(zero, 0x002, 4);
        }
        break;
      case 20:
        a_.csrr(xd, rng_() % 2 ? 0x001 : 0x003);  // fflags / fcsr
        break;
      case 21:
        a_.csrrci(xd, 0x001, rng_() % 32);  // clear some flags
        break;
      default:
        // a short dependent chain: back-to-back lane ops of one warp
        a_.fmadd(d, x, y, z, rm());
        a_.fmul(x, d, d, rm());
        a_.fadd(d, d, x, rm());
        break;
    }
  }

  void barrier() {
    switch (rng_() % 4) {
      case 0:
        a_.kx_bar_sync();
        break;
      case 1:
        a_.kx_bar_count(dest_reg(), data_reg());
        break;
      case 2:
        a_.kx_bar_and(dest_reg(), data_reg());
        break;
      default:
        a_.kx_bar_or(dest_reg(), data_reg());
        break;
    }
  }

  void body(unsigned depth, unsigned items) {
    for (unsigned i = 0; i < items; ++i) {
      const unsigned pick = rng_() % 100;
      if (pick < 32) {
        alu();
      } else if (pick < 45) {
        fp();
      } else if (pick < 65) {
        memory();
      } else if (pick < 73) {
        barrier();
      } else if (pick < 85 && depth < 2) {
        // if/else on one data bit
        const std::string other = label(), join = label();
        a_.andi(t0, data_reg(), 1 << (rng_() % 4));
        if (rng_() % 2)
          a_.beq(t0, zero, other);
        else
          a_.bne(t0, zero, other);
        body(depth + 1, 1 + rng_() % 5);
        a_.j(join);
        a_.bind(other);
        body(depth + 1, rng_() % 5);
        a_.bind(join);
      } else if (pick < 95 && depth < 2) {
        // a loop of 1..4 trips per thread; the counter is private to the depth
        const Reg counter = depth == 0 ? t3 : t4;
        const std::string top = label();
        a_.andi(counter, data_reg(), 3);
        a_.addi(counter, counter, 1);
        a_.bind(top);
        body(depth + 1, 1 + rng_() % 4);
        a_.addi(counter, counter, -1);
        a_.bne(counter, zero, top);
      } else if (pick < 97) {
        const std::string stay = label();
        a_.andi(t0, data_reg(), 7);
        a_.bne(t0, zero, stay);
        a_.kx_exit();
        a_.bind(stay);
      } else if (pick < 98) {
        a_.csrr(dest_reg(), 0xC02);  // instret
      } else {
        collective();
      }
    }
  }

  // A collective over the converged lanes: the mask is read right before it
  // (no label in between, so the same lanes arrive), all of them or the half
  // of them with this lane's parity; each class is complete at once.
  void collective() {
    a_.csrr(t0, KESTREL_CSR_ACTIVEMASK);
    if (rng_() % 2) {
      a_.csrr(t1, KESTREL_CSR_LANEID);
      a_.andi(t1, t1, 1);
      a_.li(t6, 0x55555555);
      a_.sll(t6, t6, t1);
      a_.and_(t0, t0, t6);
    }
    const Reg d = dest_reg(), v = data_reg();
    switch (rng_() % 4) {
      case 0:
        a_.r_type(KESTREL_OPC_SIMT, KESTREL_F3_VOTE, rng_() % 4, d, v, t0);
        break;
      case 1:
        a_.kx_shfl(rng_() % 4, d, v, data_reg(), t0);
        break;
      case 2:
        a_.kx_match(rng_() % 4, d, v, t0);
        break;
      default:
        a_.kx_reduce(KESTREL_F7_REDUCE_ADD + rng_() % 8, d, v, t0);
        break;
    }
  }

  unsigned xlen_;
  std::mt19937 rng_;
  Assembler a_;
  unsigned labels_ = 0;
};

TYPED_TEST(SmLockstep, RandomPrograms) {
  // The CMake option sets the CTest count; KESTREL_SM_RANDOM_COUNT=n overrides it for a soak.
  const char* count_env = std::getenv("KESTREL_SM_RANDOM_COUNT");
  const unsigned count =
      count_env ? static_cast<unsigned>(std::strtoul(count_env, nullptr, 10)) : KESTREL_SM_RANDOM_PROGRAMS;
  uint64_t retired = 0, ahead = 0;
  // KESTREL_SM_SEED=n runs program n alone (reproducing a failure).
  const char* only = std::getenv("KESTREL_SM_SEED");
  const uint32_t first = only ? static_cast<uint32_t>(std::strtoul(only, nullptr, 10)) : 1;
  const uint32_t last = only ? first : count;
  for (uint32_t seed = first; seed <= last; ++seed) {
    std::mt19937 launch_rng(seed * 7919u);  // launch shape and memory timing
    RandomProgram program(this->xlen(), seed);
    this->sm().load(program.build());
    this->sm().set_latency(1 + launch_rng() % 4, 4 + launch_rng() % 24);
    this->sm().set_backpressure(launch_rng() % 30);
    const unsigned max_threads = this->lanes() * 4;
    const uint32_t blocks = 1 + static_cast<uint32_t>(launch_rng() % 3);
    const uint32_t threads = 1 + static_cast<uint32_t>(launch_rng() % max_threads);
    model::LaunchDesc d = this->sm().desc(Dim3{blocks, 1, 1}, Dim3{threads, 1, 1});
    d.shared_base = kShared;
    d.shared_static = 256;
    RunResult r = this->sm().run(d);
    ASSERT_TRUE(r.ok) << "seed " << seed << ": " << r.error;
    retired += r.retired;
    ahead += r.retired_ahead;
  }
  std::printf(
      "%u random programs, %llu warp-instructions compared, %llu retired ahead of an older load or store\n",
      count, static_cast<unsigned long long>(retired), static_cast<unsigned long long>(ahead));
  // The programs' loads and stores are followed by independent work often
  // enough that some retire out of order: the checker's replay is exercised.
  if (count >= 10) {
    EXPECT_GT(ahead, 0u);
  }
}

}  // namespace
}  // namespace kestrel::rtlbench
