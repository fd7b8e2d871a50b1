// kestrel_sm_mem_hazard (through the decoder, tb/kestrel_sm_mem_hazard_tb.sv):
// which instructions wait for their warp's loads and stores in flight
// (docs/microarchitecture.md, "Memory instructions in flight"), and the
// f-load scoreboard's hazards of F operations and fsw.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "Vsm_mem_hazard.h"
#include "kestrel/abi.h"
#include "kestrel/model/rv_assembler.hpp"
#include "rtl_test.hpp"

namespace {

using kestrel::rtlbench::Bench;
using namespace kestrel::model::rvasm;

uint32_t word_of(const std::function<void(Assembler&)>& emit) {
  Assembler a(64);
  emit(a);
  const std::vector<uint32_t> words = a.finish();
  return words.front();
}

struct Case {
  const char* name;
  std::function<void(Assembler&)> emit;
};

bool drains(Bench<Vsm_mem_hazard>& bench, uint32_t word, bool ffault = false, bool frm_unsure = false) {
  bench->instr_i = word;
  bench->ffault_i = ffault;
  bench->frm_unsure_i = frm_unsure;
  bench->fload_pend_i = 0;
  bench.eval();
  return bench->drain_o;
}

TEST(RtlSmMemHazard, PipeInstructionsLoadsAndStoresGoOn) {
  Bench<Vsm_mem_hazard> bench;
  const std::vector<Case> cases = {
      {"addi", [](Assembler& a) { a.addi(t0, t1, 5); }},
      {"mul", [](Assembler& a) { a.mul(t0, t1, t2); }},
      {"beq", [](Assembler& a) { a.word(0x00628063); }},  // beq t0, t1, 0
      {"jal", [](Assembler& a) { a.word(0x008000EF); }},  // jal ra, 8
      {"jalr", [](Assembler& a) { a.jalr(ra, t0, 0); }},
      {"csrr cycle", [](Assembler& a) { a.csrr(t0, 0xC00); }},
      {"lw", [](Assembler& a) { a.lw(t0, t1, 8); }},
      {"sd", [](Assembler& a) { a.sd(t0, t1, 8); }},
      {"flw", [](Assembler& a) { a.flw(f(1), t1, 0); }},
      {"fsw", [](Assembler& a) { a.fsw(f(1), t1, 0); }},
      {"fadd", [](Assembler& a) { a.fadd(f(1), f(2), f(3)); }},
      {"fmadd", [](Assembler& a) { a.fmadd(f(1), f(2), f(3), f(4)); }},
  };
  for (const Case& c : cases) EXPECT_FALSE(drains(bench, word_of(c.emit))) << c.name;
}

TEST(RtlSmMemHazard, OrderingAndUnitInstructionsWaitForTheWarpsMemory) {
  Bench<Vsm_mem_hazard> bench;
  const std::vector<Case> cases = {
      {"fence", [](Assembler& a) { a.fence(); }},
      {"kx.fence.block", [](Assembler& a) { a.kx_fence_block(); }},
      {"amoadd.w", [](Assembler& a) { a.amo(0x00, 4, t0, t1, t2); }},
      {"lr.w", [](Assembler& a) { a.lr(4, t0, t1); }},
      {"kx.bar.sync", [](Assembler& a) { a.kx_bar_sync(); }},
      {"kx.exit", [](Assembler& a) { a.kx_exit(); }},
      {"div", [](Assembler& a) { a.div(t0, t1, t2); }},
      {"fdiv", [](Assembler& a) { a.fdiv(f(1), f(2), f(3)); }},
      {"vote", [](Assembler& a) { a.kx_vote_all(t0, t1, t2); }},
      {"kx.tex", [](Assembler& a) { a.kx_tex(KESTREL_TEX_FORM_2D, f(4), t0, zero, f(8)); }},
      {"illegal", [](Assembler& a) { a.word(0); }},
  };
  for (const Case& c : cases) EXPECT_TRUE(drains(bench, word_of(c.emit))) << c.name;
  // A fetch fault becomes an illegal-instruction pseudo-op: it waits too.
  EXPECT_TRUE(drains(bench, word_of([](Assembler& a) { a.addi(t0, t1, 5); }), true));
}

// An F operation that may fault on its rounding mode waits, so that a load
// in flight of its warp that faults is reported first, as the model does
// (its oldest instruction faults first): a static rm of 5 or 6, or the
// dynamic rm while an active thread's frm is 5..7 or may be being written.
TEST(RtlSmMemHazard, RoundingModeFaultsWaitForTheWarpsMemory) {
  Bench<Vsm_mem_hazard> bench;
  const uint32_t dynamic = word_of([](Assembler& a) { a.fadd(f(1), f(2), f(3)); });
  const uint32_t nearest = word_of([](Assembler& a) { a.fadd(f(1), f(2), f(3), kRne); });
  const uint32_t reserved = word_of([](Assembler& a) { a.fadd(f(1), f(2), f(3), Rm(5)); });
  EXPECT_FALSE(drains(bench, dynamic));
  EXPECT_TRUE(drains(bench, dynamic, false, true));
  EXPECT_FALSE(drains(bench, nearest, false, true));
  EXPECT_TRUE(drains(bench, reserved));
  // Not an F operation: frm does not matter.
  EXPECT_FALSE(drains(bench, word_of([](Assembler& a) { a.addi(t0, t1, 5); }), false, true));
}

TEST(RtlSmMemHazard, FloatLoadsInFlightHoldTheirReaders) {
  Bench<Vsm_mem_hazard> bench;
  struct FCase {
    const char* name;
    std::function<void(Assembler&)> emit;
    bool hazard;  // with an flw of f1 in flight
  };
  const std::vector<FCase> cases = {
      {"fadd reads f1", [](Assembler& a) { a.fadd(f(2), f(1), f(3)); }, true},
      {"fadd reads f1 as rs2", [](Assembler& a) { a.fadd(f(2), f(3), f(1)); }, true},
      {"fmadd reads f1 as rs3", [](Assembler& a) { a.fmadd(f(2), f(3), f(4), f(1)); }, true},
      {"fadd writes f1", [](Assembler& a) { a.fadd(f(1), f(3), f(4)); }, true},
      {"fmv.x.w reads f1", [](Assembler& a) { a.fmv_x_w(t0, f(1)); }, true},
      {"fcvt.s.w writes f1", [](Assembler& a) { a.fcvt_s_w(f(1), t0); }, true},
      {"fsw stores f1", [](Assembler& a) { a.fsw(f(1), t0, 0); }, true},
      {"fadd of others", [](Assembler& a) { a.fadd(f(2), f(3), f(4)); }, false},
      {"fsqrt of f3 (rs2 unused)", [](Assembler& a) { a.fsqrt(f(2), f(3)); }, false},
      {"fsw stores f2", [](Assembler& a) { a.fsw(f(2), t0, 0); }, false},
      {"flw of f1 again", [](Assembler& a) { a.flw(f(1), t0, 0); }, false},
      {"lw into x1", [](Assembler& a) { a.lw(ra, t0, 0); }, false},
  };
  for (const FCase& c : cases) {
    bench->instr_i = word_of(c.emit);
    bench->ffault_i = 0;
    bench->frm_unsure_i = 0;
    bench->fload_pend_i = 1u << 1;
    bench.eval();
    EXPECT_EQ(bool(bench->fload_hazard_o), c.hazard) << c.name;
    bench->fload_pend_i = 0;
    bench.eval();
    EXPECT_FALSE(bench->fload_hazard_o) << c.name << " with nothing in flight";
  }
  // f0 is an ordinary register.
  bench->instr_i = word_of([](Assembler& a) { a.fadd(f(2), f(0), f(3)); });
  bench->fload_pend_i = 1u;
  bench.eval();
  EXPECT_TRUE(bench->fload_hazard_o);
}

}  // namespace
