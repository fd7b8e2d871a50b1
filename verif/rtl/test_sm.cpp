// SM bench: kestrel_sm (Verilated, two small configurations) runs programs
// written with the model's assembler while every retired warp-instruction is
// compared against the functional model in lock-step (verif/lockstep/).
// Programs: arithmetic, M, loads/stores of every width, divergence and
// reconvergence, loops, barriers, a spin lock, CSRs, every fault kind, and
// constrained-random programs with fixed seeds.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "Vsm32.h"
#include "Vsm64.h"
#include "kestrel/model/rv_assembler.hpp"
#include "sm_harness.hpp"

namespace kestrel::rtlbench {
namespace {

using namespace kestrel::model::rvasm;
using model::Dim3;

struct Rv64Config {
  using Model = Vsm64;
  static SmBenchConfig config() { return {64, 4, 4, 1024, 8}; }
};
struct Rv32Config {
  using Model = Vsm32;
  static SmBenchConfig config() { return {32, 8, 4, 1024, 8}; }
};

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

using Configs = ::testing::Types<Rv64Config, Rv32Config>;
class ConfigNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, Rv64Config> ? "rv64_4lanes" : "rv32_8lanes";
  }
};
TYPED_TEST_SUITE(SmLockstep, Configs, ConfigNames);

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
  a.sw(t0, t1, 0);  // 16 bytes per thread, 64 bytes of shared memory: lanes >= 4 fault
  a.ret();
  model::LaunchDesc d = this->sm().desc(Dim3{1, 1, 1}, Dim3{this->lanes() + 1, 1, 1});
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

}  // namespace
}  // namespace kestrel::rtlbench
