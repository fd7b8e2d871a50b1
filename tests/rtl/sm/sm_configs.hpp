// The SM configurations rtl_test_sm is Verilated with (tests/rtl/sm/
// CMakeLists.txt): every SM lock-step suite runs on each, so that both XLENs
// and several lane counts see each program.  rtl_test_sm runs sm64 (RV64,
// 4 lanes x 4 warps) and sm32 (RV32, 8 lanes x 4 warps); rtl_test_sm_1lane,
// built from the same sources with KESTREL_SM_ONE_LANE, runs sm32x1 (RV32,
// 1 lane x 16 warps: the FPGA board preset's one lane, with warp slots for
// the suites' blocks of up to 12 threads).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "sm_harness.hpp"

#ifdef KESTREL_SM_ONE_LANE
#include "Vsm32x1.h"
#else
#include "Vsm32.h"
#include "Vsm64.h"
#endif

namespace kestrel::rtlbench {

#ifdef KESTREL_SM_ONE_LANE
struct SmRv32OneLaneConfig {
  using Model = Vsm32x1;
  static SmBenchConfig config() { return {32, 1, 16, 1024, 12}; }
  static constexpr const char* kName = "rv32_1lane";
};
using SmConfigs = ::testing::Types<SmRv32OneLaneConfig>;
#else
struct SmRv64Config {
  using Model = Vsm64;
  static SmBenchConfig config() { return {64, 4, 4, 1024, 12}; }
  static constexpr const char* kName = "rv64_4lanes";
};
struct SmRv32Config {
  using Model = Vsm32;
  static SmBenchConfig config() { return {32, 8, 4, 1024, 12}; }
  static constexpr const char* kName = "rv32_8lanes";
};
using SmConfigs = ::testing::Types<SmRv64Config, SmRv32Config>;
#endif

// Test-name suffixes for TYPED_TEST_SUITE(..., SmConfigs, SmConfigNames).
class SmConfigNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return T::kName;
  }
};

}  // namespace kestrel::rtlbench
