// Shared pieces of the end-to-end kernel tests: which backends and XLENs to
// run on, opening a device per test, finding the modules kestrel-cc built from
// kernels/, and CPU references for the kernels whose results are not a
// one-liner.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "backend_features.hpp"
#include "kestrel/kestrel.hpp"

namespace kestrel::e2e {

struct Target {
  std::string backend;  // "model" or "rtlsim"
  unsigned xlen = 64;
};

// Every backend the kernel tests run on (kestrel::features::test_backends:
// KESTREL_TEST_BACKENDS) with both XLENs.
inline std::vector<Target> all_targets() {
  std::vector<Target> targets;
  for (const std::string& backend : kestrel::features::test_backends())
    for (unsigned xlen : {64u, 32u}) targets.push_back({backend, xlen});
  return targets;
}

// Names the target in test output instead of dumping its bytes.
inline void PrintTo(const Target& target, std::ostream* os) { *os << target.backend << " rv" << target.xlen; }

inline std::string target_name(const testing::TestParamInfo<Target>& info) {
  return info.param.backend + "_rv" + std::to_string(info.param.xlen);
}

using kestrel::features::Feature;

// First statement of a test that needs device features beyond the integer
// SIMT core: skips it, with the reason, on a backend that lacks one.
#define KESTREL_NEEDS(...) KESTREL_SKIP_WITHOUT(GetParam().backend, __VA_ARGS__)

// For a kernel with 64-bit atomics: on RV32 they are register-pair atomics.
#define KESTREL_NEEDS_64BIT_ATOMICS()                                \
  do {                                                               \
    if (GetParam().xlen == 32) KESTREL_NEEDS(Feature::kPairAtomics); \
  } while (false)

// A device of the requested backend and XLEN, defaults otherwise.
class DeviceTest : public testing::TestWithParam<Target> {
 protected:
  void SetUp() override {
    DeviceConfig config{};
    config.xlen = GetParam().xlen;
    device_ = std::make_unique<Device>(Device::open(GetParam().backend, &config));
  }
  Device& device() { return *device_; }
  unsigned xlen() const { return GetParam().xlen; }
  // The Verilated RTL simulates some 10^3 times slower than the functional
  // model: tests whose cost is in repetition, not in coverage, do less there.
  bool cycle_accurate() const { return GetParam().backend == "rtlsim"; }
  // kernels/<name>.cu built for this test's XLEN.
  Module load(const std::string& name) {
    return Module::load(*device_, std::string(KESTREL_E2E_MODULE_DIR) + "/" + name + "_rv" +
                                      std::to_string(xlen()) + ".kmod");
  }

 private:
  std::unique_ptr<Device> device_;
};

// kernels/divergence.cu, on the host.
inline int collatz_steps(unsigned int x) {
  int steps = 0;
  while (x != 1) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}
inline int divergent_loops_reference(int v) {
  int acc = 0;
  for (int k = 0; k < v; ++k) {
    if (k % 3 == 0) continue;
    if (k > 40) break;
    if (v & 1) {
      acc += collatz_steps(static_cast<unsigned int>(k + 1));
    } else {
      for (int j = 0; j < k % 5; ++j) acc -= j;
    }
  }
  return acc;
}

// kernels/recursion.cu, on the host.
inline int fib_reference(int n) { return n < 2 ? n : fib_reference(n - 1) + fib_reference(n - 2); }
inline int tree_sum_reference(const std::vector<int>& values, size_t node) {
  if (node >= values.size()) return 0;
  return values[node] + tree_sum_reference(values, 2 * node + 1) + tree_sum_reference(values, 2 * node + 2);
}

}  // namespace kestrel::e2e
