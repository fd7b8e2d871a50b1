// Special-function unit bench: kestrel_sfu against the functional model's
// sfu::evaluate bit for bit (edge values and fixed-seed random operands,
// streamed with back-pressure); the kx.sfu instructions through the model's
// interpreter; and the error of the algorithm against the bounds of CUDA's
// fast intrinsics (guide appendix D.2, Table 9; rsqrtf from D.1), measured
// over dense sweeps against the host's double-precision libm.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "Vsfu.h"
#include "fpu.hpp"
#include "fpu_test_support.hpp"
#include "harness.hpp"
#include "kestrel/abi.h"
#include "sfu.hpp"

namespace {

namespace sfu = kestrel::model::sfu;
namespace fp = kestrel::model::fp;
using kestrel::fpubench::as_bits;
using kestrel::fpubench::as_float;
using kestrel::fpubench::hex32;

const char* const kNames[sfu::kFunctionCount] = {"rcp", "rsqrt", "ex2", "lg2", "sin", "cos"};

struct Request {
  unsigned function;
  uint32_t a;
};

class SfuHarness {
 public:
  SfuHarness() { bench_.reset(); }

  unsigned run(const std::vector<Request>& requests, unsigned stall_percent, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::deque<size_t> in_flight;
    size_t issued = 0, retired = 0;
    unsigned mismatches = 0;
    auto& dut = bench_.dut();
    for (uint64_t cycle = 0; retired < requests.size() && cycle < requests.size() * 8 + 100; ++cycle) {
      const bool offer = issued < requests.size() && rng() % 100 >= stall_percent;
      dut.req_valid_i = offer;
      if (offer) {  // kestrel_fpu_pkg::sfu_req_t, through the generated contract layout
        kestrel::contract::SfuReq req;
        req.op = static_cast<uint8_t>(requests[issued].function);
        req.a = requests[issued].a;
        dut.req_i = req.to_bits();
        dut.req_tag_i = uint32_t(issued & 0xFF);
      }
      dut.rsp_ready_i = rng() % 100 >= stall_percent;
      bench_.eval();
      if (dut.rsp_valid_o && dut.rsp_ready_i) {
        const size_t index = in_flight.front();
        in_flight.pop_front();
        const Request& r = requests[index];
        const uint32_t want = sfu::evaluate(r.function, r.a);
        if (dut.rsp_tag_o != (index & 0xFF) || dut.rsp_result_o != want) {
          if (++mismatches <= 8) {
            ADD_FAILURE() << kNames[r.function] << "(" << hex32(r.a) << "): RTL " << hex32(dut.rsp_result_o)
                          << " tag " << unsigned(dut.rsp_tag_o) << ", model " << hex32(want);
          }
        }
        ++retired;
      }
      if (offer && dut.req_ready_o) in_flight.push_back(issued++);
      bench_.tick();
    }
    EXPECT_EQ(retired, requests.size());
    return mismatches;
  }

 private:
  kestrel::fpubench::UnitBench<Vsfu> bench_;
};

// Operands for one function: edge values, random floats, and the range the
// function is used on (angles within a few turns, exponents of 2^x that stay
// finite, positive arguments of log2, rcp and rsqrt).
std::vector<Request> requests_for(unsigned function, uint64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Request> out;
  for (unsigned i = 0; i < kestrel::fpubench::kEdgeFloatCount; ++i)
    out.push_back({function, kestrel::fpubench::kEdgeFloats[i]});
  std::uniform_real_distribution<float> angle(-20.0f, 20.0f), exponent(-160.0f, 140.0f);
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t a = kestrel::fpubench::random_float(rng);
    if (rng() % 2) {
      switch (function) {
        case sfu::kSin:
        case sfu::kCos:
          a = as_bits(angle(rng));
          break;
        case sfu::kEx2:
          a = as_bits(exponent(rng));
          break;
        default:
          a &= 0x7FFFFFFFu;
          break;
      }
    }
    out.push_back({function, a});
  }
  return out;
}

class SfuRtl : public testing::TestWithParam<unsigned> {};

TEST_P(SfuRtl, MatchesModelBitForBit) {
  SfuHarness unit;
  const unsigned function = GetParam();
  EXPECT_EQ(
      unit.run(requests_for(function, kestrel::fpubench::random_ops(50000), 40 + function), 15, function),
      0u);
}

std::string function_name(const testing::TestParamInfo<unsigned>& param) { return kNames[param.param]; }

INSTANTIATE_TEST_SUITE_P(Functions, SfuRtl, testing::Range(0u, unsigned(sfu::kFunctionCount)), function_name);

TEST(SfuRtlTiming, OnePerCycleLatencyThree) {
  SfuHarness unit;
  EXPECT_EQ(unit.run(requests_for(sfu::kSin, 1000, 9), 0, 9), 0u);
}

// ---- the kx.sfu instructions in the model's interpreter --------------------
uint32_t kx_sfu(unsigned function, unsigned rd, unsigned rs1, unsigned rs2 = 0) {
  return (function << 25) | (rs2 << 20) | (rs1 << 15) | (KESTREL_F3_SFU << 12) | (rd << 7) | KESTREL_OPC_SIMT;
}

TEST(SfuIsa, EveryFunctionThroughTheInterpreter) {
  using kestrel::model::test::kCode;
  using kestrel::model::test::TestGpu;
  for (unsigned xlen : {32u, 64u}) {
    for (unsigned function = 0; function < sfu::kFunctionCount; ++function) {
      const uint32_t program[] = {
          0x00052087,              // flw f1, 0(a0)
          kx_sfu(function, 2, 1),  // kx.sfu f2, f1
          0x00252227,              // fsw f2, 4(a0)
          0x0000000B,              // kx.exit
      };
      TestGpu g(xlen);
      g.gpu().write_mem(kCode, program, sizeof program);
      g.set_data<float>(0, 0.75f);
      ASSERT_EQ(g.run(), kestrel::model::LaunchState::kDone) << kNames[function];
      EXPECT_EQ(g.data<uint32_t>(4), sfu::evaluate(function, as_bits(0.75f))) << kNames[function];
      EXPECT_EQ(g.gpu().xreg(0, 0, 0, 0), 0u);
    }
  }
}

TEST(SfuIsa, ReservedEncodingsAreIllegal) {
  using kestrel::model::test::kCode;
  using kestrel::model::test::TestGpu;
  for (const uint32_t word : {kx_sfu(6, 2, 1), kx_sfu(0x7F, 2, 1), kx_sfu(sfu::kSin, 2, 1, 3)}) {
    TestGpu g(64);
    g.gpu().write_mem(kCode, &word, 4);
    ASSERT_EQ(g.run(), kestrel::model::LaunchState::kFault);
    EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_ILLEGAL_INSTRUCTION);
  }
}

// ---- error against guide D.2 -------------------------------------------------
float eval(unsigned function, float x) { return as_float(sfu::evaluate(function, as_bits(x))); }

// |approx - exact| in units in the last place of the float nearest `exact`.
double ulp_error(float approx, double exact) {
  const double magnitude = std::fabs(exact);
  const int exponent = magnitude < std::ldexp(1.0, -126) ? -126 : std::ilogb(magnitude);
  return std::fabs(double(approx) - exact) / std::ldexp(1.0, exponent - 23);
}

// The SDK's compositions (sw_kernels/sdk/include/kestrel_fast_math.h), with
// their multiplications rounded to nearest as fmul.s does.
float fmul(float a, float b) {
  uint32_t flags = 0;
  return as_float(fp::mul(as_bits(a), as_bits(b), fp::kRne, flags));
}
float fma(float a, float b, float c) {
  uint32_t flags = 0;
  return as_float(fp::fma(as_bits(a), as_bits(b), as_bits(c), false, false, fp::kRne, flags));
}
// exp(x) = 2^(x log2 e): the product's rounding error (recovered exactly by
// an fma) corrects the ex2 result to first order, which keeps __expf inside
// D.2's bound where ex2 of the rounded product alone exceeds it by 0.12 ulp.
float fast_expf(float x) {
  const float log2e_hi = 1.44269502f, log2e_lo = 1.9259630e-08f, ln2 = 0.693147181f;
  const float hi = fmul(x, log2e_hi);
  const float lo = fma(x, log2e_lo, fma(x, log2e_hi, -hi));
  const float e = eval(sfu::kEx2, hi);
  return fma(e, fmul(lo, ln2), e);
}
float fast_logf(float x) { return fmul(eval(sfu::kLg2, x), 0.693147181f); }
float fast_fdividef(float x, float y) { return fmul(x, eval(sfu::kRcp, y)); }

void report(const char* what, double measured, double bound) {
  std::printf("  %-34s max %.4g (D.2 bound %.4g)\n", what, measured, bound);
  testing::Test::RecordProperty(what, std::to_string(measured));
}

TEST(SfuAccuracy, SinCosAbsoluteErrorOnMinusPiToPi) {
  double sin_max = 0, cos_max = 0;
  const int steps = 1 << 22;
  for (int i = 0; i <= steps; ++i) {
    const float x = float(-M_PI + 2 * M_PI * double(i) / steps);
    sin_max = std::max(sin_max, std::fabs(double(eval(sfu::kSin, x)) - std::sin(double(x))));
    cos_max = std::max(cos_max, std::fabs(double(eval(sfu::kCos, x)) - std::cos(double(x))));
  }
  report("__sinf abs error, [-pi, pi]", sin_max, std::exp2(-21.41));
  report("__cosf abs error, [-pi, pi]", cos_max, std::exp2(-21.19));
  EXPECT_LE(sin_max, std::exp2(-21.41));
  EXPECT_LE(cos_max, std::exp2(-21.19));
}

TEST(SfuAccuracy, Exp2AndExpf) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> range(-125.0, 127.99);
  double ex2_max = 0, expf_excess = -100;
  for (int i = 0; i < 2000000; ++i) {
    const float x = float(range(rng));
    ex2_max = std::max(ex2_max, ulp_error(eval(sfu::kEx2, x), std::exp2(double(x))));
    const float y = float(range(rng) * 0.69);  // keeps exp(y) normal: |y| < 87
    if (std::fabs(y) < 87.0f) {
      const double bound = 2 + std::floor(std::fabs(1.16 * y));
      expf_excess = std::max(expf_excess, ulp_error(fast_expf(y), std::exp(double(y))) - bound);
    }
  }
  report("ex2 (exp2f fast) ulp", ex2_max, 2);
  report("__expf ulp minus (2+floor|1.16x|)", expf_excess, 0);
  EXPECT_LE(ex2_max, 2.0);
  EXPECT_LE(expf_excess, 0.0);
}

TEST(SfuAccuracy, Log2AndLogf) {
  double lg2_abs = 0, logf_abs = 0, lg2_ulp = 0, logf_ulp = 0;
  // Every float in [0.5, 2).
  for (uint32_t b = as_bits(0.5f); b < as_bits(2.0f); ++b) {
    const float x = as_float(b);
    lg2_abs = std::max(lg2_abs, std::fabs(double(eval(sfu::kLg2, x)) - std::log2(double(x))));
    logf_abs = std::max(logf_abs, std::fabs(double(fast_logf(x)) - std::log(double(x))));
  }
  std::mt19937_64 rng(12);
  for (int i = 0; i < 2000000; ++i) {
    const float x = as_float(uint32_t(rng() % 0x7F7FFFFF) + 1);  // positive, finite
    if (x >= 0.5f && x <= 2.0f) continue;
    lg2_ulp = std::max(lg2_ulp, ulp_error(eval(sfu::kLg2, x), std::log2(double(x))));
    logf_ulp = std::max(logf_ulp, ulp_error(fast_logf(x), std::log(double(x))));
  }
  report("__log2f abs error, [0.5, 2]", lg2_abs, std::exp2(-22));
  report("__log2f ulp elsewhere", lg2_ulp, 2);
  report("__logf abs error, [0.5, 2]", logf_abs, std::exp2(-21.41));
  report("__logf ulp elsewhere", logf_ulp, 3);
  EXPECT_LE(lg2_abs, std::exp2(-22));
  EXPECT_LE(lg2_ulp, 2.0);
  EXPECT_LE(logf_abs, std::exp2(-21.41));
  EXPECT_LE(logf_ulp, 3.0);
}

TEST(SfuAccuracy, ReciprocalAndFdividef) {
  double rcp_max = 0, div_max = 0;
  for (uint32_t b = as_bits(1.0f); b < as_bits(2.0f); ++b) {  // every significand
    const float x = as_float(b);
    rcp_max = std::max(rcp_max, ulp_error(eval(sfu::kRcp, x), 1.0 / double(x)));
  }
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> exponent(-126.0, 126.0);
  for (int i = 0; i < 2000000; ++i) {
    const float y = float(std::exp2(exponent(rng))) * (rng() % 2 ? 1 : -1);
    const float x = float(std::exp2(exponent(rng) * 0.5));
    const double exact = double(x) / double(y);
    if (std::fabs(exact) < std::ldexp(1.0, -126) || std::fabs(exact) > 3.4e38)
      continue;  // D.2 is about normal results
    div_max = std::max(div_max, ulp_error(fast_fdividef(x, y), exact));
  }
  report("rcp ulp", rcp_max, 1);
  report("__fdividef ulp, y in [2^-126, 2^126]", div_max, 2);
  EXPECT_LE(rcp_max, 1.0);
  EXPECT_LE(div_max, 2.0);
}

TEST(SfuAccuracy, ReciprocalSquareRoot) {
  double max = 0;
  for (uint32_t b = as_bits(1.0f); b < as_bits(4.0f); ++b) {  // both exponent parities
    const float x = as_float(b);
    max = std::max(max, ulp_error(eval(sfu::kRsqrt, x), 1.0 / std::sqrt(double(x))));
  }
  report("rsqrtf ulp", max, 2);
  EXPECT_LE(max, 2.0);
}

TEST(SfuAccuracy, SpecialValues) {
  const float inf = INFINITY;
  EXPECT_EQ(eval(sfu::kRcp, 0.0f), inf);
  EXPECT_EQ(eval(sfu::kRcp, -0.0f), -inf);
  EXPECT_EQ(as_bits(eval(sfu::kRcp, -inf)), 0x80000000u);
  EXPECT_EQ(eval(sfu::kRcp, 1.0f), 1.0f);
  EXPECT_EQ(eval(sfu::kRsqrt, 4.0f), 0.5f);
  EXPECT_EQ(as_bits(eval(sfu::kRsqrt, -1.0f)), fp::kCanonicalNan);
  EXPECT_EQ(eval(sfu::kRsqrt, inf), 0.0f);
  EXPECT_EQ(eval(sfu::kEx2, 0.0f), 1.0f);
  EXPECT_EQ(eval(sfu::kEx2, 10.0f), 1024.0f);
  EXPECT_EQ(eval(sfu::kEx2, -inf), 0.0f);
  EXPECT_EQ(eval(sfu::kEx2, 128.0f), inf);
  EXPECT_EQ(eval(sfu::kEx2, -140.0f), std::ldexp(1.0f, -140));  // subnormal results are kept
  EXPECT_EQ(eval(sfu::kLg2, 1.0f), 0.0f);
  EXPECT_EQ(eval(sfu::kLg2, 8.0f), 3.0f);
  EXPECT_EQ(eval(sfu::kLg2, 0.0f), -inf);
  EXPECT_EQ(as_bits(eval(sfu::kLg2, -2.0f)), fp::kCanonicalNan);
  EXPECT_EQ(as_bits(eval(sfu::kSin, inf)), fp::kCanonicalNan);
  EXPECT_EQ(eval(sfu::kCos, 0.0f), 1.0f);
  EXPECT_EQ(as_bits(eval(sfu::kCos, as_float(0x7FC12345))), fp::kCanonicalNan);
}

}  // namespace
