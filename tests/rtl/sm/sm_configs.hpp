// The two SM configurations rtl_test_sm is Verilated with (sm64 and sm32 in
// tests/rtl/sm/CMakeLists.txt): every SM lock-step suite runs on both, so that
// both XLENs and two lane counts see each program.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "Vsm32.h"
#include "Vsm64.h"
#include "sm_harness.hpp"

namespace kestrel::rtlbench {

struct SmRv64Config {
  using Model = Vsm64;
  static SmBenchConfig config() { return {64, 4, 4, 1024, 12}; }
};
struct SmRv32Config {
  using Model = Vsm32;
  static SmBenchConfig config() { return {32, 8, 4, 1024, 12}; }
};

using SmConfigs = ::testing::Types<SmRv64Config, SmRv32Config>;

// Test-name suffixes for TYPED_TEST_SUITE(..., SmConfigs, SmConfigNames).
class SmConfigNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, SmRv64Config> ? "rv64_4lanes" : "rv32_8lanes";
  }
};

}  // namespace kestrel::rtlbench
