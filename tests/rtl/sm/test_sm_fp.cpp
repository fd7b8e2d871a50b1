// SM bench, F extension: kestrel_sm runs floating-point programs in lock-step
// with the functional model (every retired warp-instruction's f or x register
// writes compared, memory compared at the end).  Programs: every F operation
// class with static rounding modes, dynamic rounding modes from per-thread
// frm, fflags/frm/fcsr reads and writes, flw/fsw, kx.sfu, divergence mixed
// with FP (long fdiv/fsqrt on one path), and the illegal-instruction faults
// of a reserved static rm and of a dynamic rm with frm = 5..7 (guide
// appendix D.1's IEEE rounding; docs/isa.md section 3 for the CSRs).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "kestrel/model/rv_assembler.hpp"
#include "sm_configs.hpp"
#include "sm_harness.hpp"

namespace kestrel::rtlbench {
namespace {

using namespace kestrel::model::rvasm;
using model::Dim3;

constexpr uint32_t kCsrFflags = 0x001, kCsrFrm = 0x002, kCsrFcsr = 0x003;

template <class C>
class SmFpLockstep : public ::testing::Test {
 public:
  SmFpLockstep() : sm_(std::make_unique<SmHarness<typename C::Model>>(C::config())) {}
  unsigned xlen() const { return C::config().xlen; }
  Assembler assembler() const { return Assembler(C::config().xlen); }

  unsigned lanes() const { return C::config().lanes; }
  unsigned warps() const { return C::config().warps; }

  void set_latency(unsigned cycles) { sm_->set_latency(cycles, cycles); }

  RunResult run(const Assembler& a, Dim3 grid, Dim3 block, bool expect_fault = false) {
    sm_->load(a);
    RunResult r = sm_->run(sm_->desc(grid, block), expect_fault);
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_GT(r.retired, 0u);
    return r;
  }

  // f = the bit pattern `bits` (through t6).
  static void fli(Assembler& a, FReg f, uint32_t bits) {
    a.li(t6, static_cast<int32_t>(bits));
    a.fmv_w_x(f, t6);
  }
  // t5 = a0 + 4 * (global thread id + slot * 256): a word per thread and slot.
  static void result_address(Assembler& a, unsigned slot) {
    a.csrr(t5, KESTREL_CSR_CTAID_X);
    a.csrr(t6, KESTREL_CSR_NTID_X);
    a.mul(t5, t5, t6);
    a.csrr(t6, KESTREL_CSR_TID_X);
    a.add(t5, t5, t6);
    a.addi(t5, t5, static_cast<int32_t>(slot * 256));
    a.slli(t5, t5, 2);
    a.add(t5, t5, a0);
  }
  static void kx_sfu(Assembler& a, unsigned function, FReg d, FReg s) {
    a.r_type(KESTREL_OPC_SIMT, KESTREL_F3_SFU, function, d.n, s.n, 0);
  }
  // Per-thread operands: f1 = tid - 3 (exact), f2 = 1/3 rounded by the op,
  // f3 = a value with a long fraction, f4 = a small subnormal-prone value.
  static void thread_operands(Assembler& a) {
    a.csrr(t0, KESTREL_CSR_TID_X);
    a.addi(t1, t0, -3);
    a.fcvt_s_w(f(1), t1, kRne);
    a.li(t2, 3);
    a.fcvt_s_w(f(2), t2, kRne);
    fli(a, f(9), 0x3F800000u);  // 1.0
    a.fdiv(f(2), f(9), f(2), kRne);
    a.li(t2, 0x01234567);
    a.add(t2, t2, t0);
    a.fcvt_s_w(f(3), t2, kRtz);  // inexact
    fli(a, f(4), 0x00C00000u);   // 2^-126 * 1.5
    a.fcvt_s_w(f(5), t0, kRne);
    a.fmul(f(4), f(4), f(5), kRne);
  }

 private:
  std::unique_ptr<SmHarness<typename C::Model>> sm_;
};

TYPED_TEST_SUITE(SmFpLockstep, SmConfigs, SmConfigNames);

TYPED_TEST(SmFpLockstep, EveryOperationClassStaticRounding) {
  Assembler a = this->assembler();
  this->thread_operands(a);
  // Arithmetic in each static mode: the fused forms, add/sub/mul, div, sqrt.
  const Rm modes[] = {kRne, kRtz, kRdn, kRup, kRmm};
  for (Rm rm : modes) {
    a.fadd(f(10), f(2), f(3), rm);
    a.fsub(f(11), f(1), f(2), rm);
    a.fmul(f(12), f(2), f(3), rm);
    a.fmadd(f(13), f(2), f(3), f(1), rm);
    a.fmsub(f(14), f(2), f(3), f(1), rm);
    a.fnmsub(f(15), f(2), f(3), f(1), rm);
    a.fnmadd(f(16), f(2), f(3), f(1), rm);
    a.fdiv(f(17), f(3), f(2), rm);
    a.fsqrt(f(18), f(3), rm);
    a.fmul(f(19), f(4), f(2), rm);  // tiny: underflow
    a.fcvt_w_s(s0, f(12), rm);
    a.fcvt_wu_s(s1, f(11), rm);
    a.fcvt_s_wu(f(20), s1, rm);
    if (this->xlen() == 64) {
      a.fcvt_l_s(s2, f(17), rm);
      a.fcvt_lu_s(s3, f(11), rm);
      a.fcvt_s_l(f(21), s2, rm);
      a.fcvt_s_lu(f(22), s3, rm);
    }
    a.csrr(s4, kCsrFflags);
  }
  // Sign injection, min/max (with a NaN), compares, class, moves.
  this->fli(a, f(6), 0x7FC00001u);  // quiet NaN with payload
  this->fli(a, f(7), 0xFF800000u);  // -inf
  this->fli(a, f(8), 0x80000000u);  // -0
  a.fsgnj(f(23), f(1), f(7));
  a.fsgnjn(f(24), f(2), f(8));
  a.fsgnjx(f(25), f(7), f(1));
  a.fmin(f(26), f(1), f(6));
  a.fmax(f(27), f(8), f(0));
  a.feq(s5, f(1), f(5));
  a.flt(s6, f(1), f(6));  // invalid: NaN
  a.fle(s7, f(8), f(0));
  a.fclass(s8, f(1));
  a.fclass(s9, f(7));
  a.fmv_x_w(s10, f(3));
  a.fsub(f(28), f(7), f(7), kRne);  // inf - inf: invalid, canonical NaN
  a.fdiv(f(29), f(1), f(8), kRne);  // x / -0: divide by zero (lane 3: 0/0 invalid)
  a.fcvt_w_s(s11, f(7), kRtz);      // -inf: invalid, minimum
  a.csrr(t3, kCsrFcsr);
  // Results to memory through fsw as well.
  this->result_address(a, 0);
  a.fsw(f(17), t5, 0);
  this->result_address(a, 1);
  a.fsw(f(29), t5, 0);
  a.ret();
  this->run(a, Dim3{2, 1, 1}, Dim3{8, 1, 1});
}

TYPED_TEST(SmFpLockstep, DynamicRoundingAndFpCsrs) {
  Assembler a = this->assembler();
  this->thread_operands(a);
  // frm = tid % 5 per thread, through each CSR form.
  a.li(t1, 5);
  a.remu(t2, t0, t1);
  a.csrrw(s0, kCsrFrm, t2);  // old frm (0) to s0
  a.fadd(f(10), f(2), f(3));
  a.fdiv(f(11), f(3), f(2));
  a.fsqrt(f(12), f(2));
  a.fmadd(f(13), f(2), f(3), f(1));
  a.fcvt_w_s(s1, f(11));
  a.fcvt_s_w(f(14), t2);
  a.csrr(s2, kCsrFcsr);
  a.csrrci(s3, kCsrFflags, 0x1);   // clear NX, read the old flags
  a.csrrsi(s4, kCsrFflags, 0x10);  // set NV
  a.csrrwi(s5, kCsrFrm, 3);        // everybody RUP
  a.fmul(f(15), f(2), f(3));
  a.li(t3, 0x65);  // fcsr: frm = RUP, flags NX and OF
  a.csrrw(s6, kCsrFcsr, t3);
  a.fsub(f(16), f(2), f(3));
  a.csrrc(s7, kCsrFcsr, t0);   // clear bits by tid
  a.csrrs(s8, kCsrFrm, zero);  // read only
  a.csrr(s9, kCsrFflags);
  a.ret();
  this->run(a, Dim3{2, 1, 1}, Dim3{8, 1, 1});
}

TYPED_TEST(SmFpLockstep, LoadsStoresAndSfu) {
  Assembler a = this->assembler();
  this->thread_operands(a);
  // Store per-thread values, load them back from a neighbour's slot.
  this->result_address(a, 2);
  a.fsw(f(3), t5, 0);
  a.fsw(f(0), t5, 4 * 128);  // f0 is an ordinary register (0.0)
  a.flw(f(0), t5, 0);
  a.flw(f(10), t5, 4 * 128);
  a.fadd(f(11), f(0), f(10), kRne);
  a.flw(f(12), t5, -4 * 512);  // slot 0 (written by nobody: zero)
  // The special functions on in-range and special arguments.
  this->fli(a, f(5), 0x3FC90FDBu);  // pi / 2
  a.fmul(f(5), f(5), f(2), kRne);
  for (unsigned fn = KESTREL_F7_SFU_RCP; fn <= KESTREL_F7_SFU_COS; ++fn) {
    this->kx_sfu(a, fn, f(16 + fn), f(1));
    this->kx_sfu(a, fn, f(24 + fn), f(5));
  }
  this->result_address(a, 3);
  a.fsw(f(19), t5, 0);
  a.ret();
  this->run(a, Dim3{2, 1, 1}, Dim3{8, 1, 1});
}

TYPED_TEST(SmFpLockstep, DivergenceWithFp) {
  Assembler a = this->assembler();
  this->thread_operands(a);
  a.andi(t1, t0, 1);
  a.beq(t1, zero, "even");
  // odd lanes: long divide/sqrt chain and an SFU op
  a.fdiv(f(10), f(3), f(1), kRne);
  a.fsqrt(f(11), f(10), kRdn);
  this->kx_sfu(a, KESTREL_F7_SFU_LG2, f(12), f(11));
  a.j("join");
  a.bind("even");
  a.fmadd(f(10), f(1), f(2), f(3), kRup);
  a.fcvt_w_s(s0, f(10), kRtz);
  a.fmv_w_x(f(11), s0);
  a.bind("join");
  a.fadd(f(13), f(10), f(11), kRne);
  a.feq(s1, f(13), f(13));
  a.csrr(s2, kCsrFflags);
  // A loop with FP inside: sum tid copies of 1/3.
  a.fmv_w_x(f(14), zero);
  a.mv(t2, t0);
  a.bind("loop");
  a.beq(t2, zero, "done");
  a.fadd(f(14), f(14), f(2), kRne);
  a.addi(t2, t2, -1);
  a.j("loop");
  a.bind("done");
  this->result_address(a, 4);
  a.fsw(f(14), t5, 0);
  a.ret();
  this->run(a, Dim3{3, 1, 1}, Dim3{12, 1, 1});
}

TYPED_TEST(SmFpLockstep, ReservedStaticRoundingModeIsIllegal) {
  Assembler a = this->assembler();
  this->thread_operands(a);
  a.fop(0x00, 5, 10, 2, 3);  // fadd.s with rm = 5
  a.ret();
  this->run(a, Dim3{1, 1, 1}, Dim3{4, 1, 1}, true);
}

TYPED_TEST(SmFpLockstep, DynamicRoundingModeFromBadFrmIsIllegal) {
  Assembler a = this->assembler();
  this->thread_operands(a);
  // Thread 2 sets frm = 6; its lane faults on the next dynamic-rm operation,
  // a static-rm one before it still runs.
  a.li(t1, 2);
  a.bne(t0, t1, "skip");
  a.csrrwi(zero, kCsrFrm, 6);
  a.bind("skip");
  a.fadd(f(10), f(2), f(3), kRne);
  a.fsgnj(f(11), f(2), f(3));  // no rounding: frm not consulted
  a.fadd(f(12), f(2), f(3));
  a.ret();
  this->run(a, Dim3{1, 1, 1}, Dim3{4, 1, 1}, true);
}

// A load that faults is still in flight when a younger dynamic-rm operation
// of its warp would fault on frm = 6: the model reports the load's fault
// (the older instruction), and so must the SM, whose F operation waits for
// the warp's memory while its frm is invalid (kestrel_sm_mem_hazard).  With
// a memory latency of 40 cycles the F operation would otherwise fault long
// before the load's answer comes back.
TYPED_TEST(SmFpLockstep, LoadFaultInFlightComesBeforeALaterRoundingModeFault) {
  this->set_latency(40);
  Assembler a = this->assembler();
  this->thread_operands(a);
  a.csrrwi(zero, kCsrFrm, 6);
  a.li(t1, static_cast<int64_t>(kestrel::rtlbench::kUnmapped));
  a.lw(t2, t1, 0);
  a.fadd(f(10), f(2), f(3));
  a.ret();
  this->run(a, Dim3{1, 1, 1}, Dim3{4, 1, 1}, true);
}

// Back-to-back lane-pipeline operations of one warp: dependent (the f
// scoreboard holds the consumer until the producer's write-back), x results
// read at once (x scoreboard), WAW on an f register, fsw and flw right after
// FMAs, fflags/fcsr read right after a stream of flag-raising operations (they
// must see all of them), a divide between lane operations, an SFU op reading a
// lane result.  One warp, so nothing hides a missing interlock.
TYPED_TEST(SmFpLockstep, BackToBackLaneOpsOfOneWarp) {
  Assembler a = this->assembler();
  this->thread_operands(a);
  a.fmadd(f(10), f(2), f(3), f(1));  // chain: each reads the previous
  a.fmadd(f(10), f(10), f(2), f(1));
  a.fmul(f(11), f(10), f(2), kRup);
  a.fadd(f(12), f(2), f(3), kRdn);  // independent: streams
  a.fsub(f(13), f(3), f(2), kRtz);
  a.fmul(f(12), f(13), f(4), kRne);  // WAW on f12 (tiny: underflow flags)
  a.fcvt_w_s(s0, f(11), kRtz);       // x result ...
  a.addi(s1, s0, 1);                 // ... read at once
  a.feq(s2, f(12), f(12));
  a.fmv_w_x(f(14), s2);
  a.fclass(s3, f(14));
  a.csrr(s4, kCsrFflags);  // sees every flag above
  a.fmadd(f(15), f(14), f(12), f(10));
  a.fsgnjn(f(16), f(15), f(15));
  a.fdiv(f(17), f(16), f(2));  // long op in the stream
  a.fadd(f(18), f(17), f(16));
  this->kx_sfu(a, KESTREL_F7_SFU_RSQRT, f(19), f(18));
  a.fmul(f(20), f(19), f(19));
  a.csrr(s5, kCsrFcsr);
  this->result_address(a, 5);
  a.fsw(f(20), t5, 0);  // store right after the producer
  a.flw(f(21), t5, 0);
  a.fadd(f(22), f(21), f(21));
  a.fmv_x_w(s6, f(22));
  a.csrrw(s7, kCsrFflags, zero);  // write right after a stream
  a.fsub(f(23), f(22), f(21));
  a.csrr(s8, kCsrFflags);
  a.ret();
  this->run(a, Dim3{1, 1, 1}, Dim3{this->lanes(), 1, 1});
  this->run(a, Dim3{2, 1, 1}, Dim3{2 * this->lanes(), 1, 1});
}

// ---- figures for docs/fpu.md -------------------------------------------------
// An FMA-bound loop: 16 fmadd.s per iteration in eight independent chains
// (dynamic rm, as compilers emit), plus the loop counter and branch.
// Lane-pipeline ops of all warps, and independent ones of one warp, stream at
// one per cycle.
TYPED_TEST(SmFpLockstep, FmaBoundIpcWithAllWarpsBusy) {
  Assembler a = this->assembler();
  this->thread_operands(a);
  for (unsigned c = 0; c < 8; ++c) a.fmv_w_x(f(10 + c), t0);
  a.li(s1, 100);
  a.bind("loop");
  for (unsigned i = 0; i < 16; ++i) a.fmadd(f(10 + i % 8), f(1), f(2), f(10 + i % 8));
  a.addi(s1, s1, -1);
  a.bne(s1, zero, "loop");
  for (unsigned c = 1; c < 8; ++c) a.fadd(f(10), f(10), f(10 + c));
  this->result_address(a, 6);
  a.fsw(f(10), t5, 0);
  a.ret();
  // Every warp slot busy, then one warp alone: its 16 FMAs stream back to back
  // through the f scoreboard, but the loop's addi and bne wait for them to
  // write back (in-order retire per warp), about 14 cycles per iteration.
  for (const unsigned warps : {this->warps(), 1u}) {
    const auto begin = std::chrono::steady_clock::now();
    RunResult r = this->run(a, Dim3{1, 1, 1}, Dim3{warps * this->lanes(), 1, 1});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    const double ipc = static_cast<double>(r.retired) / static_cast<double>(r.cycles);
    std::printf(
        "FMA-bound, %u warp(s): %llu warp-instructions in %llu cycles, IPC %.3f; %.0f simulated cycles/s\n",
        warps, static_cast<unsigned long long>(r.retired), static_cast<unsigned long long>(r.cycles), ipc,
        static_cast<double>(r.cycles) / seconds);
    // Cycles are deterministic; the bounds sit just below the measured
    // figures (docs/fpu.md).
    EXPECT_GE(ipc, warps > 1 ? 0.9 : 0.5);
  }
}

}  // namespace
}  // namespace kestrel::rtlbench
