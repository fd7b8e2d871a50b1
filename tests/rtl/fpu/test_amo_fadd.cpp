// kestrel_amo_fadd bench: the adder of kx.amofadd.s (docs/isa.md section
// 2.2) against the functional model's fadd rounded to nearest even, bit for
// bit (the canonical NaN for every NaN result, subnormals kept): every pair
// of edge values, then fixed-seed random operands, including pairs of close
// magnitude (cancellation) and of far-apart exponents (sticky bits).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "Vamo_fadd.h"
#include "fpu.hpp"
#include "fpu_test_support.hpp"

namespace {

namespace fp = kestrel::model::fp;
using kestrel::fpubench::hex32;

class AmoFadd : public ::testing::Test {
 protected:
  // Whether the RTL matched the model (the first ten mismatches are printed).
  bool check(uint32_t old, uint32_t addend) {
    dut_.old_i = old;
    dut_.addend_i = addend;
    dut_.eval();
    uint32_t flags = 0;
    const uint32_t expect = fp::add(old, addend, fp::kRne, flags);
    if (dut_.sum_o == expect) return true;
    if (++failures_ <= 10)
      ADD_FAILURE() << hex32(old) << " + " << hex32(addend) << ": rtl " << hex32(dut_.sum_o) << " model "
                    << hex32(expect);
    return false;
  }
  unsigned failures_ = 0;

 private:
  Vamo_fadd dut_;
};

TEST_F(AmoFadd, EdgeValuePairsMatchModel) {
  using kestrel::fpubench::kEdgeFloatCount;
  using kestrel::fpubench::kEdgeFloats;
  for (unsigned i = 0; i < kEdgeFloatCount; ++i)
    for (unsigned j = 0; j < kEdgeFloatCount; ++j) check(kEdgeFloats[i], kEdgeFloats[j]);
  EXPECT_EQ(failures_, 0u);
}

TEST_F(AmoFadd, RandomOperandsMatchModel) {
  std::mt19937_64 rng(91);
  const uint64_t count = kestrel::fpubench::random_ops(200000);
  for (uint64_t n = 0; n < count; ++n) {
    const uint32_t a = kestrel::fpubench::random_float(rng);
    uint32_t b = kestrel::fpubench::random_float(rng);
    switch (rng() % 4) {
      case 0:  // close magnitudes, either sign: cancellation
        b = kestrel::fpubench::nudge(rng, a, 1 + rng() % 4) ^ (rng() % 2 ? 0x80000000u : 0u);
        break;
      case 1: {  // exponents a few to 30 apart: guard and sticky bits
        const int e = int((a >> 23) & 0xFF) - 127 - int(rng() % 31);
        if (e >= -126 && e <= 127) b = kestrel::fpubench::float_with_exponent(rng, e);
        break;
      }
      default:
        break;
    }
    check(a, b);
  }
  EXPECT_EQ(failures_, 0u);
}

}  // namespace
