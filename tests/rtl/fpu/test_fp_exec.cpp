// kestrel_fp_exec bench: the SM's FP execute cluster (FMA lanes with their
// own write-back port; divsqrt lanes and SFU lanes fed in turns sharing the
// other) against the functional model's FPU and SFU, warp by warp: random
// units, operations, per-lane rounding modes and operands, random write-back
// stalls on both ports, responses matched by tag (the units finish out of
// order).  Also: one warp-instruction per cycle into the FMA lanes with
// latency `Stages`, and the SFU's turn count.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "Vfp_exec32.h"
#include "Vfp_exec64.h"
#include "fpu.hpp"
#include "fpu_test_support.hpp"
#include "sfu.hpp"

namespace {

namespace fp = kestrel::model::fp;
using namespace kestrel::fpubench;  // LaneOp, Unit, operand helpers
using kestrel::fpubench::hex64;
using kestrel::fpubench::random_float;
using kestrel::fpubench::random_integer;

constexpr unsigned kSfuFunctions = 6;

uint64_t sext32(uint32_t v) { return uint64_t(int64_t(int32_t(v))); }

struct Thread {
  unsigned rm = 0;
  uint32_t a = 0, b = 0, c = 0;
  uint64_t x = 0;  // already sign-extended from Xlen
};

struct Result {
  uint64_t value = 0;  // Xlen bits
  uint32_t flags = 0;
};

struct WarpRequest {
  unsigned unit = kUnitLane;
  unsigned op = 0;
  std::vector<Thread> threads;
};

Result lane_reference(unsigned op, const Thread& t) {
  Result out;
  uint32_t& f = out.flags;
  switch (op) {
    case kAdd:
      out.value = fp::add(t.a, t.b, t.rm, f);
      break;
    case kSub:
      out.value = fp::sub(t.a, t.b, t.rm, f);
      break;
    case kMul:
      out.value = fp::mul(t.a, t.b, t.rm, f);
      break;
    case kMadd:
      out.value = fp::fma(t.a, t.b, t.c, false, false, t.rm, f);
      break;
    case kMsub:
      out.value = fp::fma(t.a, t.b, t.c, false, true, t.rm, f);
      break;
    case kNmsub:
      out.value = fp::fma(t.a, t.b, t.c, true, false, t.rm, f);
      break;
    case kNmadd:
      out.value = fp::fma(t.a, t.b, t.c, true, true, t.rm, f);
      break;
    case kMin:
      out.value = fp::min(t.a, t.b, f);
      break;
    case kMax:
      out.value = fp::max(t.a, t.b, f);
      break;
    case kSgnj:
      out.value = (t.a & 0x7FFFFFFFu) | (t.b & 0x80000000u);
      break;
    case kSgnjn:
      out.value = (t.a & 0x7FFFFFFFu) | (~t.b & 0x80000000u);
      break;
    case kSgnjx:
      out.value = t.a ^ (t.b & 0x80000000u);
      break;
    case kEq:
      out.value = fp::eq(t.a, t.b, f);
      break;
    case kLt:
      out.value = fp::lt(t.a, t.b, f);
      break;
    case kLe:
      out.value = fp::le(t.a, t.b, f);
      break;
    case kClass:
      out.value = fp::classify(t.a);
      break;
    case kMvXW:
      out.value = sext32(t.a);
      break;
    case kMvWX:
      out.value = t.x & 0xFFFFFFFFu;
      break;
    case kCvtWS:
      out.value = fp::to_int(t.a, 32, true, t.rm, f);
      break;
    case kCvtWuS:
      out.value = fp::to_int(t.a, 32, false, t.rm, f);
      break;
    case kCvtLS:
      out.value = fp::to_int(t.a, 64, true, t.rm, f);
      break;
    case kCvtLuS:
      out.value = fp::to_int(t.a, 64, false, t.rm, f);
      break;
    case kCvtSW:
      out.value = fp::from_int(sext32(uint32_t(t.x)), true, t.rm, f);
      break;
    case kCvtSWu:
      out.value = fp::from_int(t.x & 0xFFFFFFFFu, false, t.rm, f);
      break;
    case kCvtSL:
      out.value = fp::from_int(t.x, true, t.rm, f);
      break;
    case kCvtSLu:
      out.value = fp::from_int(t.x, false, t.rm, f);
      break;
    default:
      ADD_FAILURE() << "no such lane op " << op;
      break;
  }
  return out;
}

Result reference(const WarpRequest& w, const Thread& t, unsigned xlen) {
  Result out;
  switch (w.unit) {
    case kUnitLane:
      out = lane_reference(w.op, t);
      break;
    case kUnitDivSqrt:
      out.value = w.op == 0 ? fp::div(t.a, t.b, t.rm, out.flags) : fp::sqrt(t.a, t.rm, out.flags);
      break;
    default:
      out.value = kestrel::model::sfu::evaluate(w.op, t.a);
      break;
  }
  if (xlen == 32) out.value &= 0xFFFFFFFFu;
  return out;
}

// Bit fields of a Verilated port, narrow (integral) or wide (VlWide).
template <class Port>
void put_field(Port& port, unsigned lsb, unsigned width, uint64_t value) {
  if constexpr (std::is_integral_v<Port>) {
    const uint64_t mask = width == 64 ? ~0ull : ((1ull << width) - 1);
    port = Port((uint64_t(port) & ~(mask << lsb)) | ((value & mask) << lsb));
  } else {
    kestrel::fpubench::put_bits(port, lsb, width, value);
  }
}
template <class Port>
uint64_t get_field(const Port& port, unsigned lsb, unsigned width) {
  if constexpr (std::is_integral_v<Port>) {
    const uint64_t mask = width == 64 ? ~0ull : ((1ull << width) - 1);
    return (uint64_t(port) >> lsb) & mask;
  } else {
    return kestrel::fpubench::get_bits(port, lsb, width);
  }
}

template <class Model>
class FpExecHarness {
 public:
  FpExecHarness(unsigned lanes, unsigned xlen) : lanes_(lanes), xlen_(xlen) { bench_.reset(); }

  Model& dut() { return bench_.dut(); }
  void tick() { bench_.tick(); }
  void eval() { bench_.eval(); }

  void drive(const WarpRequest& w, unsigned tag) {
    auto& d = dut();
    d.req_unit_i = w.unit;
    d.req_fpu_op_i = w.unit == kUnitLane ? w.op : 0;
    d.req_divsqrt_op_i = w.unit == kUnitDivSqrt ? w.op : 0;
    d.req_sfu_op_i = w.unit == kUnitSfu ? w.op : 0;
    d.req_tag_i = tag;
    // Per-lane ports: lane l's field of fpu_req_t at l times its width.
    namespace req = kestrel::contract::fpu_req;
    for (unsigned l = 0; l < lanes_; ++l) {
      const Thread& t = w.threads[l];
      put_field(d.req_rm_i, l * req::rm.width, req::rm.width, t.rm);
      put_field(d.req_a_i, l * req::a.width, req::a.width, t.a);
      put_field(d.req_b_i, l * req::b.width, req::b.width, t.b);
      put_field(d.req_c_i, l * req::c.width, req::c.width, t.c);
      put_field(d.req_x_i, l * xlen_, xlen_, t.x);
    }
  }

  // Compares the response now on a port (the lane port when `lane_port`) with
  // `w`; returns the mismatches.
  unsigned check(const WarpRequest& w, unsigned tag, bool lane_port) {
    unsigned mismatches = 0;
    auto& d = dut();
    for (unsigned l = 0; l < lanes_; ++l) {
      const Result want = reference(w, w.threads[l], xlen_);
      const uint64_t got = lane_port ? get_field(d.lane_rsp_result_o, l * xlen_, xlen_)
                                     : get_field(d.rsp_result_o, l * xlen_, xlen_);
      constexpr kestrel::contract::Field flags = kestrel::contract::fpu_rsp::flags;
      const uint32_t got_flags =
          uint32_t(lane_port ? get_field(d.lane_rsp_flags_o, l * flags.width, flags.width)
                             : get_field(d.rsp_flags_o, l * flags.width, flags.width));
      if (got != want.value || got_flags != want.flags) {
        if (++mismatches <= 10) {
          ADD_FAILURE() << "tag " << tag << (lane_port ? " (lane port)" : "") << " unit " << w.unit << " op "
                        << w.op << " lane " << l << " rm " << w.threads[l].rm
                        << " a=" << hex64(w.threads[l].a) << " b=" << hex64(w.threads[l].b)
                        << " c=" << hex64(w.threads[l].c) << " x=" << hex64(w.threads[l].x) << ": got "
                        << hex64(got) << " flags " << got_flags << ", want " << hex64(want.value) << " flags "
                        << want.flags;
        }
      }
    }
    return mismatches;
  }

 private:
  unsigned lanes_;
  unsigned xlen_;
  kestrel::fpubench::UnitBench<Model> bench_;
};

WarpRequest random_warp(std::mt19937_64& rng, unsigned lanes, unsigned xlen) {
  WarpRequest w;
  const unsigned pick = unsigned(rng() % 10);
  w.unit = pick < 6 ? kUnitLane : (pick < 8 ? kUnitDivSqrt : kUnitSfu);
  if (w.unit == kUnitLane) {
    do {
      w.op = unsigned(rng() % kLaneOpCount);
      // RV32 decoders reject the l/lu conversions.
    } while (xlen == 32 && (w.op == kCvtLS || w.op == kCvtLuS || w.op == kCvtSL || w.op == kCvtSLu));
  } else {
    w.op = unsigned(rng() % (w.unit == kUnitDivSqrt ? 2 : kSfuFunctions));
  }
  for (unsigned l = 0; l < lanes; ++l) {
    Thread t;
    t.rm = unsigned(rng() % 5);
    t.a = random_float(rng);
    t.b = random_float(rng);
    t.c = random_float(rng);
    t.x = random_integer(rng);
    if (xlen == 32) t.x = sext32(uint32_t(t.x));
    w.threads.push_back(t);
  }
  return w;
}

// Streams `count` random warps with random issue gaps and write-back stalls;
// every response must match its request and arrive exactly once.
template <class Model>
void run_random(unsigned lanes, unsigned xlen, unsigned count, unsigned stall_percent, uint64_t seed) {
  FpExecHarness<Model> h(lanes, xlen);
  std::mt19937_64 rng(seed);
  std::map<unsigned, WarpRequest> outstanding;
  unsigned issued = 0, retired = 0, mismatches = 0, tag = 0;
  WarpRequest next = random_warp(rng, lanes, xlen);
  uint64_t cycles = 0;
  auto& d = h.dut();
  while (retired < count && cycles < uint64_t(count) * 64 + 1000) {
    // A tag is in flight at most once (8 bits, far more than the units hold).
    const bool want_issue = issued < count && rng() % 4 != 0 && outstanding.count(tag) == 0;
    d.req_valid_i = want_issue;
    h.drive(next, tag);
    d.rsp_ready_i = (rng() % 100) >= stall_percent;
    d.lane_rsp_ready_i = (rng() % 100) >= stall_percent;
    h.eval();
    const bool issue = want_issue && d.req_ready_o;
    for (const bool lane_port : {true, false}) {
      if (lane_port ? !(d.lane_rsp_valid_o && d.lane_rsp_ready_i) : !(d.rsp_valid_o && d.rsp_ready_i))
        continue;
      const unsigned rtag = lane_port ? d.lane_rsp_tag_o : d.rsp_tag_o;
      auto it = outstanding.find(rtag);
      if (it == outstanding.end()) {
        ADD_FAILURE() << "response with unknown tag " << rtag << " at cycle " << cycles;
        return;
      }
      EXPECT_EQ(it->second.unit == kUnitLane, lane_port) << "tag " << rtag << " on the wrong port";
      mismatches += h.check(it->second, rtag, lane_port);
      outstanding.erase(it);
      ++retired;
    }
    if (issue) {
      outstanding.emplace(tag, next);
      tag = (tag + 1) & 0xFF;
      ++issued;
      next = random_warp(rng, lanes, xlen);
    }
    h.tick();
    ++cycles;
  }
  EXPECT_EQ(retired, count) << "responses missing after " << cycles << " cycles";
  EXPECT_EQ(mismatches, 0u);
}

TEST(FpExec, RandomWarpsRv64) {
  run_random<Vfp_exec64>(4, 64, unsigned(kestrel::fpubench::random_ops(4000)), 20, 11);
}
TEST(FpExec, RandomWarpsRv64NoStall) { run_random<Vfp_exec64>(4, 64, 2000, 0, 12); }
TEST(FpExec, RandomWarpsRv32) {
  run_random<Vfp_exec32>(4, 32, unsigned(kestrel::fpubench::random_ops(4000)), 30, 13);
}

// FMA lanes: a warp-instruction every cycle, each answered `Stages` (3)
// cycles after its handshake, in order.
TEST(FpExec, LanePipelineOnePerCycle) {
  FpExecHarness<Vfp_exec64> h(4, 64);
  std::mt19937_64 rng(5);
  auto& d = h.dut();
  constexpr unsigned kWarps = 64, kStages = 3;
  std::vector<WarpRequest> warps;
  std::vector<uint64_t> issued_at, answered_at;
  d.lane_rsp_ready_i = 1;
  d.rsp_ready_i = 1;
  for (uint64_t cycle = 0; answered_at.size() < kWarps && cycle < 200; ++cycle) {
    if (warps.size() < kWarps) {
      WarpRequest w;
      do {
        w = random_warp(rng, 4, 64);
      } while (w.unit != kUnitLane);
      warps.push_back(w);
    }
    d.req_valid_i = issued_at.size() < kWarps;
    if (d.req_valid_i) h.drive(warps[issued_at.size()], unsigned(issued_at.size()));
    h.eval();
    EXPECT_FALSE(d.rsp_valid_o) << "lane result on the divsqrt/SFU port";
    if (d.lane_rsp_valid_o) {
      EXPECT_EQ(d.lane_rsp_tag_o, answered_at.size()) << "out of order";
      EXPECT_EQ(h.check(warps[answered_at.size()], d.lane_rsp_tag_o, true), 0u);
      answered_at.push_back(cycle);
    }
    if (d.req_valid_i) {
      EXPECT_TRUE(d.req_ready_o) << "FMA lanes stalled at cycle " << cycle;
      issued_at.push_back(cycle);
    }
    h.tick();
  }
  ASSERT_EQ(answered_at.size(), kWarps);
  for (unsigned i = 0; i < kWarps; ++i) EXPECT_EQ(answered_at[i] - issued_at[i], kStages) << "warp " << i;
}

// SFU: 4 lanes through 2 SFU lanes in 2 turns; a second SFU warp waits
// until the first is written back.  Latency: 2 turns + 3 SFU stages + 1
// for the collecting register.
TEST(FpExec, SfuWarpInTurns) {
  FpExecHarness<Vfp_exec64> h(4, 64);
  std::mt19937_64 rng(6);
  auto& d = h.dut();
  WarpRequest w;
  do {
    w = random_warp(rng, 4, 64);
  } while (w.unit != kUnitSfu);
  d.rsp_ready_i = 1;
  d.lane_rsp_ready_i = 1;
  d.req_valid_i = 1;
  h.drive(w, 7);
  h.eval();
  ASSERT_TRUE(d.req_ready_o);
  h.tick();
  h.eval();
  EXPECT_FALSE(d.req_ready_o) << "second SFU warp accepted while the first is in flight";
  d.req_valid_i = 0;
  unsigned cycles = 1;
  for (h.eval(); !d.rsp_valid_o && cycles < 50; ++cycles) {
    h.tick();
    h.eval();
  }
  EXPECT_EQ(cycles, 2u + 3u + 1u);
  EXPECT_EQ(d.rsp_tag_o, 7u);
  EXPECT_FALSE(d.lane_rsp_valid_o);
  EXPECT_EQ(h.check(w, 7, false), 0u);
  h.tick();
  h.eval();
  EXPECT_FALSE(d.rsp_valid_o);
  EXPECT_TRUE(d.req_ready_o);
}

}  // namespace
