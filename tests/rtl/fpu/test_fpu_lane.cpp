// kestrel_fpu_lane bench: every operation of the F extension except
// fdiv/fsqrt, RTL against the functional model's FPU (model/fpu.cpp)
// bit for bit, result and fflags: directed edge values under all five
// rounding modes, then fixed-seed random operands per operation, streamed one
// per cycle with random back-pressure so that ordering and stalls are checked
// on the way.  Two builds: RV64 with the default 3 stages, RV32 with 1.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "Vfpu_lane32.h"
#include "Vfpu_lane64.h"
#include "fpu.hpp"
#include "fpu_test_support.hpp"

namespace {

namespace fp = kestrel::model::fp;
using namespace kestrel::fpubench;  // LaneOp and its codes
using kestrel::fpubench::as_bits;
using kestrel::fpubench::as_float;
using kestrel::fpubench::hex32;
using kestrel::fpubench::hex64;

const char* const kOpNames[kLaneOpCount] = {
    "fadd",      "fsub",     "fmul",      "fmadd",    "fmsub",    "fnmsub",    "fnmadd",
    "fmin",      "fmax",     "fsgnj",     "fsgnjn",   "fsgnjx",   "feq",       "flt",
    "fle",       "fclass",   "fmv.x.w",   "fmv.w.x",  "fcvt.w.s", "fcvt.wu.s", "fcvt.l.s",
    "fcvt.lu.s", "fcvt.s.w", "fcvt.s.wu", "fcvt.s.l", "fcvt.s.lu"};

bool is_fused(unsigned op) { return op >= kMadd && op <= kNmadd; }
bool reads_x(unsigned op) { return op == kMvWX || (op >= kCvtSW && op <= kCvtSLu); }

struct Request {
  unsigned op = 0;
  unsigned rm = 0;
  uint32_t a = 0, b = 0, c = 0;
  uint64_t x = 0;
};

struct Response {
  uint64_t result = 0;
  uint32_t flags = 0;
  bool operator==(const Response& o) const { return result == o.result && flags == o.flags; }
};

uint64_t sext32(uint32_t v) { return uint64_t(int64_t(int32_t(v))); }

// The model's answer, in the lane's response format.
Response reference(const Request& r) {
  Response out;
  uint32_t f = 0;
  switch (r.op) {
    case kAdd:
      out.result = fp::add(r.a, r.b, r.rm, f);
      break;
    case kSub:
      out.result = fp::sub(r.a, r.b, r.rm, f);
      break;
    case kMul:
      out.result = fp::mul(r.a, r.b, r.rm, f);
      break;
    case kMadd:
      out.result = fp::fma(r.a, r.b, r.c, false, false, r.rm, f);
      break;
    case kMsub:
      out.result = fp::fma(r.a, r.b, r.c, false, true, r.rm, f);
      break;
    case kNmsub:
      out.result = fp::fma(r.a, r.b, r.c, true, false, r.rm, f);
      break;
    case kNmadd:
      out.result = fp::fma(r.a, r.b, r.c, true, true, r.rm, f);
      break;
    case kMin:
      out.result = fp::min(r.a, r.b, f);
      break;
    case kMax:
      out.result = fp::max(r.a, r.b, f);
      break;
    case kSgnj:
      out.result = (r.a & 0x7FFFFFFFu) | (r.b & 0x80000000u);
      break;
    case kSgnjn:
      out.result = (r.a & 0x7FFFFFFFu) | (~r.b & 0x80000000u);
      break;
    case kSgnjx:
      out.result = r.a ^ (r.b & 0x80000000u);
      break;
    case kEq:
      out.result = fp::eq(r.a, r.b, f);
      break;
    case kLt:
      out.result = fp::lt(r.a, r.b, f);
      break;
    case kLe:
      out.result = fp::le(r.a, r.b, f);
      break;
    case kClass:
      out.result = fp::classify(r.a);
      break;
    case kMvXW:
      out.result = sext32(r.a);
      break;
    case kMvWX:
      out.result = r.x & 0xFFFFFFFFu;
      break;
    case kCvtWS:
      out.result = fp::to_int(r.a, 32, true, r.rm, f);
      break;
    case kCvtWuS:
      out.result = fp::to_int(r.a, 32, false, r.rm, f);
      break;
    case kCvtLS:
      out.result = fp::to_int(r.a, 64, true, r.rm, f);
      break;
    case kCvtLuS:
      out.result = fp::to_int(r.a, 64, false, r.rm, f);
      break;
    case kCvtSW:
      out.result = fp::from_int(sext32(uint32_t(r.x)), true, r.rm, f);
      break;
    case kCvtSWu:
      out.result = fp::from_int(r.x & 0xFFFFFFFFu, false, r.rm, f);
      break;
    case kCvtSL:
      out.result = fp::from_int(r.x, true, r.rm, f);
      break;
    case kCvtSLu:
      out.result = fp::from_int(r.x, false, r.rm, f);
      break;
    default:
      break;
  }
  out.flags = f;
  return out;
}

std::string describe(const Request& r) {
  std::string s = std::string(kOpNames[r.op]) + " rm=" + std::to_string(r.rm) + " a=" + hex32(r.a);
  s += " b=" + hex32(r.b);
  if (is_fused(r.op)) s += " c=" + hex32(r.c);
  if (reads_x(r.op)) s += " x=" + hex64(r.x);
  return s;
}

// Drives one Verilated lane: a stream of requests in, responses checked in
// order against the model.  `stall_percent` of the cycles hold rsp_ready low
// and as many leave req_valid low, so bubbles and back-pressure mix.
template <class Model>
class LaneHarness {
 public:
  LaneHarness() { bench_.reset(); }

  // Returns the number of mismatches (the first few are reported).
  unsigned run(const std::vector<Request>& requests, unsigned stall_percent, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::deque<size_t> in_flight;
    size_t issued = 0, retired = 0;
    unsigned mismatches = 0;
    uint64_t cycles = 0;
    const uint64_t cycle_limit = requests.size() * 8 + 1000;
    while (retired < requests.size() && cycles++ < cycle_limit) {
      auto& dut = bench_.dut();
      const bool offer = issued < requests.size() && rng() % 100 >= stall_percent;
      dut.req_valid_i = offer;
      if (offer) pack(requests[issued], uint32_t(issued & 0xFF));
      dut.rsp_ready_i = rng() % 100 >= stall_percent;
      bench_.eval();
      if (dut.rsp_valid_o && dut.rsp_ready_i) {
        if (in_flight.empty()) {
          ADD_FAILURE() << "response without a request";
          return mismatches + 1;
        }
        const size_t index = in_flight.front();
        in_flight.pop_front();
        const auto rsp = kestrel::contract::FpuRsp::unpack(dut.rsp_o.data());
        const Response got{rsp.result, rsp.flags};
        const Response want = reference(requests[index]);
        if (dut.rsp_tag_o != (index & 0xFF)) {
          ADD_FAILURE() << "tag " << unsigned(dut.rsp_tag_o) << " for request " << index;
          ++mismatches;
        } else if (!(got == want)) {
          if (++mismatches <= 8) {
            ADD_FAILURE() << describe(requests[index]) << ": RTL " << hex64(got.result) << " flags "
                          << got.flags << ", model " << hex64(want.result) << " flags " << want.flags;
          }
        }
        ++retired;
      }
      if (offer && dut.req_ready_o) in_flight.push_back(issued++);
      bench_.tick();
    }
    EXPECT_EQ(retired, requests.size()) << "pipeline stopped after " << cycles << " cycles";
    return mismatches;
  }

  // Cycles from issue to response when the writeback side never stalls.
  unsigned latency() {
    auto& dut = bench_.dut();
    dut.rsp_ready_i = 1;
    dut.req_valid_i = 1;
    pack(Request{kAdd, 0, 0x3F800000, 0x3F800000, 0, 0}, 0x5A);
    bench_.eval();
    bench_.tick();
    dut.req_valid_i = 0;
    unsigned cycles = 1;
    for (bench_.eval(); !dut.rsp_valid_o && cycles < 64; ++cycles) {
      bench_.tick();
      bench_.eval();
    }
    EXPECT_EQ(dut.rsp_tag_o, 0x5A);
    EXPECT_EQ(kestrel::contract::FpuRsp::unpack(dut.rsp_o.data()).result, 0x40000000u);
    bench_.tick();
    return cycles;
  }

 private:
  // kestrel_fpu_pkg::fpu_req_t, through the generated contract layout.
  void pack(const Request& r, uint32_t tag) {
    kestrel::contract::FpuReq req;
    req.op = static_cast<uint8_t>(r.op);
    req.rm = static_cast<uint8_t>(r.rm);
    req.a = r.a;
    req.b = r.b;
    req.c = r.c;
    req.x = r.x;
    req.pack(bench_.dut().req_i.data());
    bench_.dut().req_tag_i = tag;
  }

  kestrel::fpubench::UnitBench<Model> bench_;
};

// Edge values against each other, under every rounding mode.  The fused forms
// take the addend from a shorter list to keep the cube small.
std::vector<Request> directed_requests(unsigned op) {
  using kestrel::fpubench::kEdgeFloatCount;
  using kestrel::fpubench::kEdgeFloats;
  static const uint32_t kAddends[] = {0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001,
                                      0x00000001, 0x80800000, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0x34000000};
  std::vector<Request> out;
  std::mt19937_64 rng(op);
  for (unsigned rm = 0; rm < 5; ++rm) {
    if (reads_x(op)) {
      for (unsigned i = 0; i < 400; ++i)
        out.push_back({op, rm, 0, 0, 0, kestrel::fpubench::random_integer(rng)});
      continue;
    }
    for (unsigned i = 0; i < kEdgeFloatCount; ++i) {
      for (unsigned j = 0; j < kEdgeFloatCount; ++j) {
        if (!is_fused(op)) {
          out.push_back({op, rm, kEdgeFloats[i], kEdgeFloats[j], 0, 0});
          continue;
        }
        for (uint32_t c : kAddends) out.push_back({op, rm, kEdgeFloats[i], kEdgeFloats[j], c, 0});
      }
    }
  }
  return out;
}

// Random operands, with a share of the cases that stress rounding: sums that
// cancel (b near -a, c near -a*b), products near the underflow and overflow
// thresholds, and ties.
std::vector<Request> random_requests(unsigned op, uint64_t count, uint64_t seed) {
  using kestrel::fpubench::float_with_exponent;
  using kestrel::fpubench::nudge;
  using kestrel::fpubench::random_float;
  std::mt19937_64 rng(seed);
  std::vector<Request> out;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    Request r{op,
              unsigned(rng() % 5),
              random_float(rng),
              random_float(rng),
              random_float(rng),
              kestrel::fpubench::random_integer(rng)};
    switch (rng() % 8) {
      case 0:  // cancellation
        if (op == kAdd) r.b = nudge(rng, r.a ^ 0x80000000u, 4);
        if (op == kSub) r.b = nudge(rng, r.a, 4);
        if (is_fused(op)) r.c = nudge(rng, as_bits(-(as_float(r.a) * as_float(r.b))), 3);
        break;
      case 1: {  // a product at the bottom of the range (tininess, subnormal results)
        const int ea = int(rng() % 120) - 60;
        r.a = float_with_exponent(rng, ea);
        r.b = float_with_exponent(rng, -126 - ea + int(rng() % 5) - 3);
        if (is_fused(op) && rng() % 2) r.c = float_with_exponent(rng, -126 - int(rng() % 4));
        break;
      }
      case 2: {  // a product at the top of the range
        const int ea = int(rng() % 120) - 60;
        r.a = float_with_exponent(rng, ea);
        r.b = float_with_exponent(rng, 127 - ea + int(rng() % 3) - 1);
        break;
      }
      case 3:  // few significant bits: exact results and ties
        r.a &= 0xFFFF0000u;
        r.b &= 0xFFFFC000u;
        r.c &= 0xFF000000u;
        break;
      default:
        break;
    }
    out.push_back(r);
  }
  return out;
}

template <class Model>
void check_directed(unsigned op) {
  LaneHarness<Model> lane;
  EXPECT_EQ(lane.run(directed_requests(op), 10, op), 0u) << kOpNames[op];
}

template <class Model>
void check_random(unsigned op, uint64_t count) {
  LaneHarness<Model> lane;
  const uint64_t n = kestrel::fpubench::random_ops(count);
  EXPECT_EQ(lane.run(random_requests(op, n, 1000 + op), 20, 77 + op), 0u) << kOpNames[op];
}

class Lane64 : public testing::TestWithParam<unsigned> {};
class Lane32 : public testing::TestWithParam<unsigned> {};

TEST_P(Lane64, DirectedEdgeCases) { check_directed<Vfpu_lane64>(GetParam()); }
TEST_P(Lane64, Random) { check_random<Vfpu_lane64>(GetParam(), 50000); }
TEST_P(Lane32, DirectedEdgeCases) { check_directed<Vfpu_lane32>(GetParam()); }
TEST_P(Lane32, Random) { check_random<Vfpu_lane32>(GetParam(), 10000); }

std::string op_name(const testing::TestParamInfo<unsigned>& info) {
  std::string name = kOpNames[info.param];
  for (char& ch : name) {
    if (ch == '.') ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Ops, Lane64, testing::Range(0u, unsigned(kLaneOpCount)), op_name);
// RV32 has no l/lu conversions (the decoder rejects them).
INSTANTIATE_TEST_SUITE_P(Ops, Lane32,
                         testing::Values(kAdd, kSub, kMul, kMadd, kMsub, kNmsub, kNmadd, kMin, kMax, kSgnj,
                                         kSgnjn, kSgnjx, kEq, kLt, kLe, kClass, kMvXW, kMvWX, kCvtWS, kCvtWuS,
                                         kCvtSW, kCvtSWu),
                         op_name);

TEST(FpuLaneTiming, LatencyIsStagesParameter) {
  LaneHarness<Vfpu_lane64> lane64;
  EXPECT_EQ(lane64.latency(), 3u);
  LaneHarness<Vfpu_lane32> lane32;
  EXPECT_EQ(lane32.latency(), 1u);
}

// One operation per cycle: a long stream with no stalls retires in
// (count + latency) cycles.
TEST(FpuLaneTiming, OneOperationPerCycle) {
  LaneHarness<Vfpu_lane64> lane;
  const auto requests = random_requests(kMadd, 2000, 5);
  EXPECT_EQ(lane.run(requests, 0, 1), 0u);
}

}  // namespace
