// Shared scaffolding of the FPU benches: bit fields of the Verilated per-lane
// ports (the struct ports are packed with the generated contract layouts),
// float operands that hit IEEE-754 corners far more often than uniform bits
// do, and the per-operation random count (CI default, or --ops=N / the
// KESTREL_FPU_OPS environment variable for the long runs of docs/fpu.md).
#pragma once

#include <verilated.h>

#include "kestrel_contract.hpp"
#include "rtl_test.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

namespace kestrel::fpubench {

namespace contract = kestrel::contract;

// kestrel_fpu_pkg::fpu_op_e: the lane's operation codes, short names for the
// generated contract's (rtl/include/kestrel_contract.hpp, kFpu*).
enum LaneOp : unsigned {
  kAdd = contract::kFpuAdd,
  kSub = contract::kFpuSub,
  kMul = contract::kFpuMul,
  kMadd = contract::kFpuMadd,
  kMsub = contract::kFpuMsub,
  kNmsub = contract::kFpuNmsub,
  kNmadd = contract::kFpuNmadd,
  kMin = contract::kFpuMin,
  kMax = contract::kFpuMax,
  kSgnj = contract::kFpuSgnj,
  kSgnjn = contract::kFpuSgnjn,
  kSgnjx = contract::kFpuSgnjx,
  kEq = contract::kFpuEq,
  kLt = contract::kFpuLt,
  kLe = contract::kFpuLe,
  kClass = contract::kFpuClass,
  kMvXW = contract::kFpuMvXW,
  kMvWX = contract::kFpuMvWX,
  kCvtWS = contract::kFpuCvtWS,
  kCvtWuS = contract::kFpuCvtWuS,
  kCvtLS = contract::kFpuCvtLS,
  kCvtLuS = contract::kFpuCvtLuS,
  kCvtSW = contract::kFpuCvtSW,
  kCvtSWu = contract::kFpuCvtSWu,
  kCvtSL = contract::kFpuCvtSL,
  kCvtSLu = contract::kFpuCvtSLu,
  kLaneOpCount = contract::kFpuOpAll.size()
};

// The FP execute cluster's units (kestrel_fpu_pkg::fp_unit_e, kestrel_fp_exec's unit select).
enum Unit : unsigned {
  kUnitLane = contract::kFpUnitLane,
  kUnitDivSqrt = contract::kFpUnitDivSqrt,
  kUnitSfu = contract::kFpUnitSfu
};

// rtlbench::Bench, made safe for several live models per thread: Verilator
// 5.006 unregisters a model's scopes (assertions create them) through the
// thread's *current* context, which is the last model constructed, so it is
// pointed back at this model's own context before the model goes away.
template <class Model>
class UnitBench : public kestrel::rtlbench::Bench<Model> {
 public:
  UnitBench() = default;
  ~UnitBench() { Verilated::threadContextp(this->dut().contextp()); }
  UnitBench(const UnitBench&) = delete;
  UnitBench& operator=(const UnitBench&) = delete;
};

// Random operations per operation: `ci_default` unless overridden.
uint64_t random_ops(uint64_t ci_default);
void set_random_ops(uint64_t ops);

// Bit fields of a Verilated wide port (VlWide<N>, 32-bit words, LSB first).
template <class Wide>
void put_bits(Wide& wide, unsigned lsb, unsigned width, uint64_t value) {
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = lsb + i;
    const uint32_t mask = 1u << (bit % 32);
    if ((value >> i) & 1) {
      wide[bit / 32] |= mask;
    } else {
      wide[bit / 32] &= ~mask;
    }
  }
}

template <class Wide>
uint64_t get_bits(const Wide& wide, unsigned lsb, unsigned width) {
  uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = lsb + i;
    value |= uint64_t((wide[bit / 32] >> (bit % 32)) & 1) << i;
  }
  return value;
}

inline float as_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline uint32_t as_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

std::string hex32(uint32_t v);
std::string hex64(uint64_t v);

// Values every bench walks through: zeros, infinities, quiet and signaling
// NaNs with payloads, subnormal and normal boundaries, values around 1 and
// around the integer conversion limits.
extern const uint32_t kEdgeFloats[];
extern const unsigned kEdgeFloatCount;

// A float that is an edge value, a subnormal, a value near the bottom or top
// of the exponent range, an integer, or random bits.
uint32_t random_float(std::mt19937_64& rng);
// A float whose exponent is `exponent` (unbiased, -126..127) and random fraction and sign.
uint32_t float_with_exponent(std::mt19937_64& rng, int exponent);
// `value` moved by up to `ulps` units in the last place (either way), staying finite.
uint32_t nudge(std::mt19937_64& rng, uint32_t value, unsigned ulps);
// An integer of random bit length, or a conversion corner.
uint64_t random_integer(std::mt19937_64& rng);

}  // namespace kestrel::fpubench
