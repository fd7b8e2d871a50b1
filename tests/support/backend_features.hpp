// Which device features a backend implements, so that a test of a feature the
// RTL does not have yet is skipped with its reason instead of failing.  The
// list of features missing from the RTL lives in one place, tests/CMakeLists.txt
// (KESTREL_RTL_MISSING_FEATURES), and arrives here as KESTREL_RTL_MISSING, a
// ','-list of <feature>:<issue>; when a feature lands in the RTL its entry is
// deleted there and every test that needs it starts running on rtlsim.
#pragma once

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#if !defined(KESTREL_RTL_MISSING) || !defined(KESTREL_TEST_BACKEND_LIST)
#error \
    "link kestrel_test_support (tests/CMakeLists.txt) for KESTREL_RTL_MISSING and KESTREL_TEST_BACKEND_LIST"
#endif

namespace kestrel::features {

// Device features some kernels need beyond RV32IM/RV64IM and the SIMT core.
enum class Feature {
  kFloat,             // F extension (fadd.s, flw, fcvt, FP CSRs ...)
  kAtomics,           // kx.amocas (atomicCAS, and every atomic the SDK builds from it) and
                      // kx.amofadd.s (float atomicAdd)
  kLrSc,              // lr.w/sc.w (lr.d/sc.d on RV64)
  kPairAtomics,       // RV32's 64-bit register-pair atomics (64-bit atomics in RV32 kernels)
  kAmo,               // A's AMOs (.w; .d on RV64) and kx.amoinc/amodec.w: atomicAdd/Sub/Exch/
                      // Min/Max/And/Or/Xor (32-bit; 64-bit on RV64), atomicInc/Dec; device printf
  kWarpIntrinsics,    // custom-0 funct3 1-3: vote, shuffle, match, reduce, __syncwarp
  kSpecialFunctions,  // custom-0 funct3 5 (kx.sfu): __sinf, __expf, rsqrtf ...
  kNanosleep,         // kx.nanosleep
  kBankCounters,      // counters 13-15: shared accesses, shared bank passes, atomics
};

inline const char* feature_key(Feature feature) {
  switch (feature) {
    case Feature::kFloat:
      return "float";
    case Feature::kAtomics:
      return "atomics";
    case Feature::kLrSc:
      return "lrsc";
    case Feature::kPairAtomics:
      return "pair_atomics";
    case Feature::kAmo:
      return "amo";
    case Feature::kWarpIntrinsics:
      return "warp";
    case Feature::kSpecialFunctions:
      return "sfu";
    case Feature::kNanosleep:
      return "nanosleep";
    case Feature::kBankCounters:
      return "bank_counters";
  }
  return "?";
}

inline const char* feature_description(Feature feature) {
  switch (feature) {
    case Feature::kFloat:
      return "the F extension";
    case Feature::kAtomics:
      return "kx.amocas and kx.amofadd.s";
    case Feature::kLrSc:
      return "LR/SC";
    case Feature::kPairAtomics:
      return "RV32's 64-bit register-pair atomics";
    case Feature::kAmo:
      return "the AMOs (A extension, kx.amoinc/amodec)";
    case Feature::kWarpIntrinsics:
      return "warp vote/shuffle/match/reduce";
    case Feature::kSpecialFunctions:
      return "the special-function unit";
    case Feature::kNanosleep:
      return "kx.nanosleep";
    case Feature::kBankCounters:
      return "the shared-bank and atomic counters";
  }
  return "?";
}

// Empty when `backend` implements `feature`; otherwise the reason to skip,
// "needs <feature> in RTL (issue N)".
inline std::string missing_feature(const std::string& backend, Feature feature) {
  if (backend != "rtlsim") return "";
  std::stringstream entries(KESTREL_RTL_MISSING);
  std::string entry;
  const std::string key = feature_key(feature);
  while (std::getline(entries, entry, ',')) {
    const size_t colon = entry.find(':');
    if (entry.substr(0, colon) == key) {
      const std::string issue = colon == std::string::npos ? "?" : entry.substr(colon + 1);
      return std::string("needs ") + feature_description(feature) + " in RTL (issue " + issue + ")";
    }
  }
  return "";
}

// The backends the kernel tests run on (KESTREL_TEST_BACKENDS, resolved by
// tests/CMakeLists.txt: every built backend unless the cache says otherwise).
// The environment variable of the same name, a ','-list, overrides it when a
// test binary is run by hand, e.g. KESTREL_TEST_BACKENDS=systemc.
inline std::vector<std::string> test_backends() {
  std::vector<std::string> backends;
  const char* from_env = std::getenv("KESTREL_TEST_BACKENDS");
  std::stringstream list(from_env != nullptr && *from_env != '\0' ? from_env : KESTREL_TEST_BACKEND_LIST);
  std::string backend;
  while (std::getline(list, backend, ','))
    if (!backend.empty()) backends.push_back(backend);
  return backends;
}

}  // namespace kestrel::features

// Skips the current test when `backend` lacks any of the listed features.
#define KESTREL_SKIP_WITHOUT(backend, ...)                                                             \
  do {                                                                                                 \
    for (::kestrel::features::Feature kestrel_needed_ : {__VA_ARGS__}) {                               \
      const std::string kestrel_why_ = ::kestrel::features::missing_feature(backend, kestrel_needed_); \
      if (!kestrel_why_.empty()) GTEST_SKIP() << kestrel_why_;                                         \
    }                                                                                                  \
  } while (false)
