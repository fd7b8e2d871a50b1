// Operand generators and the main() of the FPU benches (GoogleTest plus the
// --ops=N option).
#include "fpu_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <limits>

namespace kestrel::fpubench {
namespace {
uint64_t g_ops_override = 0;
}

uint64_t random_ops(uint64_t ci_default) { return g_ops_override != 0 ? g_ops_override : ci_default; }
void set_random_ops(uint64_t ops) { g_ops_override = ops; }

std::string hex32(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", v);
  return text;
}
std::string hex64(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(v));
  return text;
}

const uint32_t kEdgeFloats[] = {
    0x00000000, 0x80000000,              // +-0
    0x7F800000, 0xFF800000,              // +-inf
    0x7FC00000, 0xFFC00000, 0x7FC12345,  // quiet NaNs, one with a payload
    0x7F800001, 0xFFA00000, 0x7FBFFFFF,  // signaling NaNs
    0x00000001, 0x80000001, 0x00000002,  // smallest subnormals
    0x007FFFFF, 0x807FFFFF, 0x00400000,  // largest subnormals, 2^-127
    0x00800000, 0x80800000, 0x00800001,  // smallest normals
    0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000,  // largest finite, 2^127
    0x3F800000, 0xBF800000, 0x3F7FFFFF,  // 1, -1, just below 1
    0x3F800001, 0x3F000000, 0x3FC00000,  // just above 1, 0.5, 1.5
    0x40200000, 0xC0200000, 0x3EFFFFFF,  // 2.5, -2.5, just below 0.5
    0x4B000000, 0x4B7FFFFF, 0x4B800000,  // 2^23, 2^24 - 1, 2^24
    0x4EFFFFFF, 0x4F000000, 0xCF000000,  // around 2^31
    0x4F800000, 0x5EFFFFFF, 0x5F000000,  // 2^32, around 2^63
    0xDF000000, 0x5F800000, 0xDF000001,  // -2^63, 2^64, below -2^63
    0x34000000, 0x33800000, 0x1F800000,  // 2^-23, 2^-24, 2^-64
};
const unsigned kEdgeFloatCount = sizeof kEdgeFloats / sizeof kEdgeFloats[0];

uint32_t float_with_exponent(std::mt19937_64& rng, int exponent) {
  const uint32_t sign = uint32_t(rng() & 1) << 31;
  const uint32_t fraction = uint32_t(rng()) & 0x7FFFFF;
  if (exponent < -126) return sign | (fraction >> std::min(23, -126 - exponent));  // subnormal
  if (exponent > 127) exponent = 127;
  return sign | (uint32_t(exponent + 127) << 23) | fraction;
}

uint32_t nudge(std::mt19937_64& rng, uint32_t value, unsigned ulps) {
  if ((value & 0x7F800000u) == 0x7F800000u) return value;
  const int64_t step = int64_t(rng() % (2 * ulps + 1)) - int64_t(ulps);
  int64_t magnitude = int64_t(value & 0x7FFFFFFFu) + step;
  if (magnitude < 0) magnitude = 0;
  if (magnitude > 0x7F7FFFFF) magnitude = 0x7F7FFFFF;
  return (value & 0x80000000u) | uint32_t(magnitude);
}

uint32_t random_float(std::mt19937_64& rng) {
  switch (rng() % 10) {
    case 0:
    case 1:
      return kEdgeFloats[rng() % kEdgeFloatCount];
    case 2:
      return (uint32_t(rng() & 1) << 31) | (uint32_t(rng()) & 0x7FFFFF);  // subnormal
    case 3:
      return float_with_exponent(rng, -126 + int(rng() % 4));
    case 4:
      return float_with_exponent(rng, 124 + int(rng() % 4));
    case 5:
      return float_with_exponent(rng, int(rng() % 64) - 32);
    case 6: {  // an integer, as conversions meet them
      const int64_t v = int64_t(rng()) >> (rng() % 64);
      return as_bits(float(v));
    }
    default:
      return uint32_t(rng());
  }
}

uint64_t random_integer(std::mt19937_64& rng) {
  static const uint64_t kCorners[] = {0,
                                      1,
                                      ~0ull,
                                      0x7FFFFFFF,
                                      0x80000000,
                                      0xFFFFFFFF,
                                      0xFFFFFFFF80000000ull,
                                      0x7FFFFFFFFFFFFFFFull,
                                      0x8000000000000000ull,
                                      0x1000001,
                                      0x1000003,
                                      0xFFFFFF7FFFFFFFFFull,
                                      0x20000000000001ull};
  switch (rng() % 4) {
    case 0:
      return kCorners[rng() % (sizeof kCorners / sizeof kCorners[0])];
    case 1:
      return rng() >> (rng() % 64);
    case 2:
      return uint64_t(int64_t(rng()) >> (rng() % 64));
    default:
      return rng();
  }
}

}  // namespace kestrel::fpubench

// --ops=N sets the random operations per operation (the long runs); every
// other argument goes to GoogleTest.
int main(int argc, char** argv) {
  if (const char* env = std::getenv("KESTREL_FPU_OPS"))
    kestrel::fpubench::set_random_ops(std::strtoull(env, nullptr, 10));
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--ops=", 0) == 0) {
      kestrel::fpubench::set_random_ops(std::strtoull(arg.c_str() + 6, nullptr, 10));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
