// kestrel_fpu_divsqrt bench: fdiv.s and fsqrt.s, RTL against the functional
// model's FPU bit for bit (result and fflags) on edge values under all five
// rounding modes and on fixed-seed random operands, with random write-back
// stalls.  Two builds: 2 digits per cycle (the default) and 1.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "Vfpu_divsqrt1.h"
#include "Vfpu_divsqrt2.h"
#include "fpu.hpp"
#include "fpu_test_support.hpp"

namespace {

namespace fp = kestrel::model::fp;
using kestrel::fpubench::hex32;

enum Op : unsigned { kDiv = 0, kSqrt = 1 };

struct Request {
  unsigned op = kDiv;
  unsigned rm = 0;
  uint32_t a = 0, b = 0;
};

struct Response {
  uint32_t result = 0;
  uint32_t flags = 0;
};

Response reference(const Request& r) {
  Response out;
  out.result = r.op == kDiv ? fp::div(r.a, r.b, r.rm, out.flags) : fp::sqrt(r.a, r.rm, out.flags);
  return out;
}

std::string describe(const Request& r) {
  return std::string(r.op == kDiv ? "fdiv" : "fsqrt") + " rm=" + std::to_string(r.rm) + " a=" + hex32(r.a) +
         (r.op == kDiv ? " b=" + hex32(r.b) : "");
}

template <class Model>
class DivSqrtHarness {
 public:
  DivSqrtHarness() { bench_.reset(); }

  // Runs every request to completion; returns the number of mismatches and
  // records the longest issue-to-response time seen.
  unsigned run(const std::vector<Request>& requests, unsigned stall_percent, uint64_t seed) {
    std::mt19937_64 rng(seed);
    unsigned mismatches = 0;
    auto& dut = bench_.dut();
    for (size_t i = 0; i < requests.size(); ++i) {
      const Request& r = requests[i];
      // kestrel_fpu_pkg::divsqrt_req_t, through the generated contract layout.
      kestrel::contract::DivSqrtReq req;
      req.op = r.op != 0;
      req.rm = static_cast<uint8_t>(r.rm);
      req.a = r.a;
      req.b = r.b;
      req.pack(dut.req_i.data());
      dut.req_tag_i = uint32_t(i & 0xFF);
      dut.req_valid_i = 1;
      dut.rsp_ready_i = 0;
      bench_.eval();
      if (!dut.req_ready_o) {
        ADD_FAILURE() << "unit not idle before request " << i;
        return mismatches + 1;
      }
      bench_.tick();
      dut.req_valid_i = 0;
      unsigned cycles = 1;
      for (bench_.eval(); !dut.rsp_valid_o && cycles < 100; ++cycles) {
        if (dut.req_ready_o) {
          ADD_FAILURE() << "ready while busy";
          return mismatches + 1;
        }
        bench_.tick();
        bench_.eval();
      }
      longest_ = std::max(longest_, cycles);
      // Hold the response back for a while: it must not change.
      const auto first_rsp = kestrel::contract::FpuRsp::unpack(dut.rsp_o.data());
      const Response first{uint32_t(first_rsp.result), first_rsp.flags};
      while (rng() % 100 < stall_percent) {
        bench_.tick();
        bench_.eval();
        if (!dut.rsp_valid_o ||
            uint32_t(kestrel::contract::FpuRsp::unpack(dut.rsp_o.data()).result) != first.result) {
          ADD_FAILURE() << "response changed while stalled";
          return mismatches + 1;
        }
      }
      dut.rsp_ready_i = 1;
      bench_.eval();
      const Response want = reference(r);
      if (dut.rsp_tag_o != (i & 0xFF) ||
          (kestrel::contract::FpuRsp::unpack(dut.rsp_o.data()).result >> 32) != 0) {
        ADD_FAILURE() << "bad tag or upper result bits for request " << i;
        ++mismatches;
      } else if (first.result != want.result || first.flags != want.flags) {
        if (++mismatches <= 8) {
          ADD_FAILURE() << describe(r) << ": RTL " << hex32(first.result) << " flags " << first.flags
                        << ", model " << hex32(want.result) << " flags " << want.flags;
        }
      }
      bench_.tick();
      dut.rsp_ready_i = 0;
    }
    return mismatches;
  }

  unsigned longest() const { return longest_; }

 private:
  kestrel::fpubench::UnitBench<Model> bench_;
  unsigned longest_ = 0;
};

std::vector<Request> directed_requests(unsigned op) {
  using kestrel::fpubench::kEdgeFloatCount;
  using kestrel::fpubench::kEdgeFloats;
  std::vector<Request> out;
  for (unsigned rm = 0; rm < 5; ++rm) {
    for (unsigned i = 0; i < kEdgeFloatCount; ++i) {
      if (op == kSqrt) {
        out.push_back({op, rm, kEdgeFloats[i], 0});
        continue;
      }
      for (unsigned j = 0; j < kEdgeFloatCount; ++j) out.push_back({op, rm, kEdgeFloats[i], kEdgeFloats[j]});
    }
  }
  return out;
}

// Random operands plus quotients at the ends of the exponent range, exact
// quotients and roots (ties and exactness), and squares of floats.
std::vector<Request> random_requests(unsigned op, uint64_t count, uint64_t seed) {
  using kestrel::fpubench::as_bits;
  using kestrel::fpubench::as_float;
  using kestrel::fpubench::float_with_exponent;
  using kestrel::fpubench::random_float;
  std::mt19937_64 rng(seed);
  std::vector<Request> out;
  for (uint64_t i = 0; i < count; ++i) {
    Request r{op, unsigned(rng() % 5), random_float(rng), random_float(rng)};
    switch (rng() % 6) {
      case 0: {  // quotient near the subnormal range or overflow
        const int eb = int(rng() % 200) - 100;
        r.a = float_with_exponent(rng,
                                  rng() % 2 ? eb - 126 + int(rng() % 5) - 2 : eb + 127 + int(rng() % 3) - 1);
        r.b = float_with_exponent(rng, eb);
        break;
      }
      case 1: {  // a = q * b with a short q: exact quotients; sqrt of a square
        const uint32_t q = as_bits(float(int(rng() % 4096) - 2048));
        r.b = random_float(rng) & 0xFFFFF000u;
        r.a = as_bits(as_float(q) * as_float(r.b));
        if (op == kSqrt) r.a = as_bits(as_float(r.b) * as_float(r.b));
        break;
      }
      default:
        break;
    }
    if (op == kSqrt && rng() % 4 != 0) r.a &= 0x7FFFFFFFu;  // mostly non-negative radicands
    out.push_back(r);
  }
  return out;
}

TEST(FpuDivSqrt, DivideEdgeCases) {
  DivSqrtHarness<Vfpu_divsqrt2> unit;
  EXPECT_EQ(unit.run(directed_requests(kDiv), 20, 1), 0u);
}

TEST(FpuDivSqrt, SqrtEdgeCases) {
  DivSqrtHarness<Vfpu_divsqrt2> unit;
  EXPECT_EQ(unit.run(directed_requests(kSqrt), 20, 2), 0u);
}

TEST(FpuDivSqrt, DivideRandom) {
  DivSqrtHarness<Vfpu_divsqrt2> unit;
  EXPECT_EQ(unit.run(random_requests(kDiv, kestrel::fpubench::random_ops(30000), 3), 10, 3), 0u);
}

TEST(FpuDivSqrt, SqrtRandom) {
  DivSqrtHarness<Vfpu_divsqrt2> unit;
  EXPECT_EQ(unit.run(random_requests(kSqrt, kestrel::fpubench::random_ops(30000), 4), 10, 4), 0u);
}

TEST(FpuDivSqrt, OneDigitPerCycleBuild) {
  DivSqrtHarness<Vfpu_divsqrt1> unit;
  EXPECT_EQ(unit.run(random_requests(kDiv, kestrel::fpubench::random_ops(5000), 5), 10, 5), 0u);
  EXPECT_EQ(unit.run(random_requests(kSqrt, kestrel::fpubench::random_ops(5000), 6), 10, 6), 0u);
  EXPECT_EQ(unit.longest(), 27u);  // 26 digits + the rounding cycle
}

TEST(FpuDivSqrt, LatencyOfTwoDigitsPerCycle) {
  DivSqrtHarness<Vfpu_divsqrt2> unit;
  EXPECT_EQ(unit.run({{kDiv, 0, 0x40490FDB, 0x402DF854}, {kSqrt, 0, 0x40000000, 0}}, 0, 7), 0u);
  EXPECT_EQ(unit.longest(), 14u);
}

}  // namespace
