// CUDA atomics and fences end to end, on every backend and XLEN:
//   * kernels/atomics.cu: every function of guide B.12 on global and
//     shared memory against CPU references (final values, old values as
//     multisets, atomicInc/atomicDec wrap, float and double add), contention
//     (every thread on one word gets a distinct old value, guide 4.1), faults;
//   * kernels/atomic_apps.cu: histograms, parallel counters,
//     lock-free stack pushes, an intra-warp spin lock, the guide's B.5 sum,
//     8- and 16-bit atomics that clang makes LR/SC loops;
//   * kernels/bank_conflicts.cu: bank passes per shared-memory access
//     (guide G.3.3 / G.5.3, Figures 17 and 18) from the counters.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "e2e_support.hpp"

namespace kestrel::e2e {
namespace {

// kernels/atomics.cu's cells.
enum IntCell { kAddI, kSubI, kExchI, kMinI, kMaxI, kCasI, kAndI, kOrI, kXorI, kIntCells };
enum UintCell {
  kAddU,
  kSubU,
  kExchU,
  kMinU,
  kMaxU,
  kIncU,
  kDecU,
  kDecAboveU,
  kCasU,
  kAndU,
  kOrU,
  kXorU,
  kUintCells
};
enum UllCell { kAddUll, kExchUll, kMinUll, kMaxUll, kCasUll, kAndUll, kOrUll, kXorUll, kUllCells };
enum LlCell { kMinLl, kMaxLl, kLlCells };
enum FloatCell { kAddF, kExchF, kFloatCells };
enum OldRow { kOldExchI, kOldExchU, kOldExchF, kOldInc, kOldDec, kOldDecAbove, kOldRows };
constexpr uint32_t kWrapLimit = 10;

uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Initial cell values: inc starts above the limit (first step wraps to 0),
// one dec starts at 0 (wraps to the limit), one above the limit.
struct Cells {
  std::vector<int32_t> ints{100, -7, -1, 1 << 30, -(1 << 30), 5, -1, 0, 0x12345678};
  std::vector<uint32_t> uints{1, 1000000, 0, 0xFFFFFFFFu, 0, 15, 0, 20, 3, 0xFFFFFFFFu, 0, 0xCAFEF00Du};
  std::vector<uint64_t> ulls{0xFFFFFFFFull, 0, ~0ull, 0, 7, ~0ull, 0, 0x0123456789ABCDEFull};
  std::vector<int64_t> lls{0, 0};
  std::vector<float> floats{0.25f, -1.0f};
  std::vector<double> doubles{1.0};
  std::vector<uint16_t> shorts{0xFFF0, 7};
};

struct Reference {
  Cells final;
  std::vector<uint32_t> inc_olds, dec_olds, dec_above_olds;
};

uint32_t inc_step(uint32_t old) { return old >= kWrapLimit ? 0 : old + 1; }
uint32_t dec_step(uint32_t old) { return (old == 0 || old > kWrapLimit) ? kWrapLimit : old - 1; }

// The effect of threads 0..n-1 of atomics.cu's apply_all, in thread order
// (every final value checked here is the same in any order).
Reference b12_reference(uint32_t n) {
  Reference r;
  Cells& c = r.final;
  for (uint32_t t = 0; t < n; ++t) {
    c.ints[kAddI] += static_cast<int32_t>(t % 7) - 3;
    c.ints[kSubI] -= static_cast<int32_t>(t % 5);
    c.ints[kExchI] = static_cast<int32_t>(t) + 1;
    const int32_t v = static_cast<int32_t>((t * 37) % 101) - 50;
    c.ints[kMinI] = std::min(c.ints[kMinI], v);
    c.ints[kMaxI] = std::max(c.ints[kMaxI], v);
    c.ints[kCasI] += 1;
    c.ints[kAndI] &= ~(1 << (t % 31));
    c.ints[kOrI] |= 1 << (t % 31);
    c.ints[kXorI] ^= static_cast<int32_t>(t * 2654435761u);

    c.uints[kAddU] += t * 3u + 1u;
    c.uints[kSubU] -= t;
    c.uints[kExchU] = t + 100u;
    const uint32_t spread = (t % 2 ? 0x80000000u : 0u) + t * 7919u;
    c.uints[kMinU] = std::min(c.uints[kMinU], spread);
    c.uints[kMaxU] = std::max(c.uints[kMaxU], spread);
    r.inc_olds.push_back(c.uints[kIncU]);
    c.uints[kIncU] = inc_step(c.uints[kIncU]);
    r.dec_olds.push_back(c.uints[kDecU]);
    c.uints[kDecU] = dec_step(c.uints[kDecU]);
    r.dec_above_olds.push_back(c.uints[kDecAboveU]);
    c.uints[kDecAboveU] = dec_step(c.uints[kDecAboveU]);
    c.uints[kCasU] += 1;
    c.uints[kAndU] &= ~(1u << (t % 32));
    c.uints[kOrU] |= 1u << (t % 32);
    c.uints[kXorU] ^= t * 40503u;

    const uint64_t wide = (uint64_t{t} << 33) | (t * 7u + 1u);
    c.ulls[kAddUll] += wide;
    c.ulls[kExchUll] = wide;
    const uint64_t wide_spread = wide ^ (t % 2 ? 0xF0F0F0F0F0F0F0F0ull : 0x0F0F0F0F0F0F0F0Full);
    c.ulls[kMinUll] = std::min(c.ulls[kMinUll], wide_spread);
    c.ulls[kMaxUll] = std::max(c.ulls[kMaxUll], wide_spread);
    c.ulls[kCasUll] += 1;
    c.ulls[kAndUll] &= ~(1ull << (t % 64));
    c.ulls[kOrUll] |= 1ull << (t % 64);
    c.ulls[kXorUll] ^= wide * 0x9E3779B97F4A7C15ull;

    const int64_t signed_wide = (static_cast<int64_t>(t) - 40) * 3000000000ll;
    c.lls[kMinLl] = std::min<int64_t>(c.lls[kMinLl], signed_wide);
    c.lls[kMaxLl] = std::max<int64_t>(c.lls[kMaxLl], signed_wide);

    c.floats[kAddF] += 0.5f * static_cast<float>(t % 4);
    c.floats[kExchF] = static_cast<float>(t);
    c.doubles[0] += 0.25 * t;
    c.shorts[t % 2] = static_cast<uint16_t>(c.shorts[t % 2] + 1);
  }
  return r;
}

template <typename T>
std::multiset<T> as_multiset(const std::vector<T>& v) {
  return std::multiset<T>(v.begin(), v.end());
}

using AtomicsTest = DeviceTest;

// Runs b12_global (grid of blocks) or b12_shared (one block) and checks
// every cell and the old values.
void run_b12(Device& device, Module& module, bool shared, Dim3 grid, Dim3 block) {
  const uint32_t n = grid.x * block.x;
  const Cells initial;
  DeviceBuffer<int32_t> ints(device, kIntCells);
  DeviceBuffer<uint32_t> uints(device, kUintCells);
  DeviceBuffer<uint64_t> ulls(device, kUllCells);
  DeviceBuffer<int64_t> lls(device, kLlCells);
  DeviceBuffer<float> floats(device, kFloatCells);
  DeviceBuffer<double> doubles(device, 1);
  DeviceBuffer<uint16_t> shorts(device, 2);
  DeviceBuffer<uint32_t> olds(device, kOldRows * n);
  DeviceBuffer<uint64_t> exch_olds(device, n);
  ints.upload(initial.ints);
  uints.upload(initial.uints);
  ulls.upload(initial.ulls);
  lls.upload(initial.lls);
  floats.upload(initial.floats);
  doubles.upload(initial.doubles);
  shorts.upload(initial.shorts);
  module.kernel(shared ? "b12_shared" : "b12_global")
      .launch(grid, block, 0, ints, uints, ulls, lls, floats, doubles, shorts, olds, exch_olds);
  device.synchronize();

  const Reference ref = b12_reference(n);
  const std::vector<int32_t> got_ints = ints.download();
  const std::vector<uint32_t> got_uints = uints.download();
  const std::vector<uint64_t> got_ulls = ulls.download();
  for (int i = 0; i < kIntCells; ++i) {
    if (i == kExchI) continue;  // checked with the old values below
    EXPECT_EQ(got_ints[i], ref.final.ints[i]) << "int cell " << i;
  }
  for (int i = 0; i < kUintCells; ++i) {
    if (i == kExchU) continue;  // checked with the old values below
    EXPECT_EQ(got_uints[i], ref.final.uints[i]) << "unsigned cell " << i;
  }
  for (int i = 0; i < kUllCells; ++i) {
    if (i == kExchUll) continue;  // checked with the old values below
    EXPECT_EQ(got_ulls[i], ref.final.ulls[i]) << "unsigned long long cell " << i;
  }
  EXPECT_EQ(lls.download(), ref.final.lls);
  EXPECT_EQ(floats.download()[kAddF], ref.final.floats[kAddF]);
  EXPECT_EQ(doubles.download()[0], ref.final.doubles[0]);
  EXPECT_EQ(shorts.download(), ref.final.shorts) << "unsigned short CAS on the two halves of one word";

  // Old values: each thread's exchange returned the value of the exchange
  // before it, so the olds plus the final value are the initial value plus
  // every thread's value.
  const std::vector<uint32_t> got_olds = olds.download();
  auto row = [&](OldRow r) {
    return std::vector<uint32_t>(got_olds.begin() + r * n, got_olds.begin() + (r + 1) * n);
  };
  std::vector<uint32_t> exch_i = row(kOldExchI), exch_u = row(kOldExchU), exch_f = row(kOldExchF);
  std::vector<uint32_t> values_i, values_u, values_f;
  values_i.push_back(static_cast<uint32_t>(initial.ints[kExchI]));
  values_u.push_back(initial.uints[kExchU]);
  values_f.push_back(float_bits(initial.floats[kExchF]));
  std::vector<uint64_t> exch_ull = exch_olds.download(), values_ull{initial.ulls[kExchUll]};
  for (uint32_t t = 0; t < n; ++t) {
    values_i.push_back(t + 1);
    values_u.push_back(t + 100u);
    values_f.push_back(float_bits(static_cast<float>(t)));
    values_ull.push_back((uint64_t{t} << 33) | (t * 7u + 1u));
  }
  exch_i.push_back(static_cast<uint32_t>(got_ints[kExchI]));
  exch_u.push_back(got_uints[kExchU]);
  exch_f.push_back(float_bits(floats.download()[kExchF]));
  exch_ull.push_back(got_ulls[kExchUll]);
  EXPECT_EQ(as_multiset(exch_i), as_multiset(values_i));
  EXPECT_EQ(as_multiset(exch_u), as_multiset(values_u));
  EXPECT_EQ(as_multiset(exch_f), as_multiset(values_f));
  EXPECT_EQ(as_multiset(exch_ull), as_multiset(values_ull));
  // atomicInc/atomicDec: the olds are the wrap sequence, in some order.
  EXPECT_EQ(as_multiset(row(kOldInc)), as_multiset(ref.inc_olds));
  EXPECT_EQ(as_multiset(row(kOldDec)), as_multiset(ref.dec_olds));
  EXPECT_EQ(as_multiset(row(kOldDecAbove)), as_multiset(ref.dec_above_olds));
}

TEST_P(AtomicsTest, EveryGuideB12FunctionOnGlobalMemory) {
  KESTREL_NEEDS(Feature::kAtomics, Feature::kFloat);
  KESTREL_NEEDS_64BIT_ATOMICS();
  Module module = load("atomics");
  // The float and double adds are CAS retry loops in software, quadratic in
  // the threads contending: rtlsim runs two blocks of 36 (still racing on
  // two SMs, with partial warps), the model six of 40.
  if (cycle_accurate()) {
    run_b12(device(), module, false, Dim3(2), Dim3(36));
  } else {
    run_b12(device(), module, false, Dim3(6), Dim3(40));
  }
}

TEST_P(AtomicsTest, EveryGuideB12FunctionOnSharedMemory) {
  KESTREL_NEEDS(Feature::kAtomics, Feature::kFloat);
  KESTREL_NEEDS_64BIT_ATOMICS();
  Module module = load("atomics");
  run_b12(device(), module, true, Dim3(1), Dim3(cycle_accurate() ? 72 : 200));
}

TEST_P(AtomicsTest, ThreadsOnOneWordEachGetADistinctOldValue) {
  KESTREL_NEEDS(Feature::kAtomics, Feature::kFloat);
  KESTREL_NEEDS_64BIT_ATOMICS();
  Module module = load("atomics");
  const uint32_t blocks = 3, threads = 96, n = blocks * threads;
  DeviceBuffer<uint32_t> counter(device(), 1), olds(device(), n);
  DeviceBuffer<float> float_counter(device(), 1), float_olds(device(), n);
  DeviceBuffer<uint64_t> wide_olds(device(), n);
  counter.fill_bytes(0);
  float_counter.fill_bytes(0);
  module.kernel("contended_global")
      .launch(Dim3(blocks), Dim3(threads), 0, counter, float_counter, olds, float_olds);
  device().synchronize();
  std::vector<uint32_t> got = olds.download();
  std::sort(got.begin(), got.end());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(got[i], i) << "global: olds are 0 .. n-1, each once";
  std::vector<float> got_f = float_olds.download();
  std::sort(got_f.begin(), got_f.end());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(got_f[i], static_cast<float>(i));
  EXPECT_EQ(counter.download()[0], n);

  module.kernel("contended_shared").launch(Dim3(blocks), Dim3(threads), 0, olds, float_olds, wide_olds);
  device().synchronize();
  got = olds.download();
  got_f = float_olds.download();
  std::vector<uint64_t> got_wide = wide_olds.download();
  for (uint32_t b = 0; b < blocks; ++b) {  // each block has its own shared word
    std::vector<uint32_t> block_olds(got.begin() + b * threads, got.begin() + (b + 1) * threads);
    std::vector<float> block_f(got_f.begin() + b * threads, got_f.begin() + (b + 1) * threads);
    std::vector<uint64_t> block_wide(got_wide.begin() + b * threads, got_wide.begin() + (b + 1) * threads);
    std::sort(block_olds.begin(), block_olds.end());
    std::sort(block_f.begin(), block_f.end());
    std::sort(block_wide.begin(), block_wide.end());
    for (uint32_t i = 0; i < threads; ++i) {
      ASSERT_EQ(block_olds[i], i) << "block " << b;
      ASSERT_EQ(block_f[i], static_cast<float>(i)) << "block " << b;
      ASSERT_EQ(block_wide[i], 0xFFFFFFF0ull + i) << "block " << b;
    }
  }
}

TEST_P(AtomicsTest, MisusedAtomicsFault) {
  KESTREL_NEEDS(Feature::kAtomics);
  Module module = load("atomics");
  DeviceBuffer<uint32_t> data(device(), 4);
  struct Case {
    const char* kernel;
    kestrel_fault_kind kind;
  };
  for (const Case& c : {Case{"misaligned_cas", KESTREL_FAULT_MISALIGNED},
                        Case{"misaligned_short_cas", KESTREL_FAULT_MISALIGNED},
                        Case{"atomic_on_constant", KESTREL_FAULT_WRITE_PROTECT}}) {
    SCOPED_TRACE(c.kernel);
    if (std::string(c.kernel) == "atomic_on_constant") {
      module.kernel(c.kernel).launch(Dim3(1), Dim3(1), 0);
    } else {
      module.kernel(c.kernel).launch(Dim3(1), Dim3(1), 0, data);
    }
    EXPECT_THROW(device().synchronize(), Error);
    EXPECT_EQ(device().fault().kind, c.kind) << device().fault().message;
  }
  EXPECT_EQ(module.read_global<uint32_t>("read_only_word"), 5u);
}

// ---- atomic_apps.cu ------------------------------------------------------------

// The shared-memory histogram keeps most atomics at the banks: far fewer
// global memory requests than the global-only one for the same counts.
TEST_P(AtomicsTest, HistogramsWithSharedAndGlobalAtomics) {
  KESTREL_NEEDS(Feature::kAmo);
  Module module = load("atomic_apps");
  const uint32_t n = 20000;
  std::vector<uint8_t> data(n);
  std::mt19937 random(5);
  std::geometric_distribution<int> skewed(0.05);  // many hits on low bins: contention
  for (uint8_t& d : data) d = static_cast<uint8_t>(std::min(skewed(random), 255));
  std::vector<uint32_t> expected(256, 0);
  for (uint8_t d : data) ++expected[d];
  DeviceBuffer<uint8_t> ddata(device(), n);
  DeviceBuffer<uint32_t> bins(device(), 256);
  ddata.upload(data);
  std::map<std::string, kestrel_counters> figures;
  for (const char* kernel : {"histogram_shared", "histogram_global"}) {
    bins.fill_bytes(0);
    module.kernel(kernel).launch(Dim3(8), Dim3(128), 0, ddata, n, bins);
    device().synchronize();
    EXPECT_EQ(bins.download(), expected) << kernel;
    figures[kernel] = device().counters();
  }
  const kestrel_counters& with_shared = figures["histogram_shared"];
  const kestrel_counters& global_only = figures["histogram_global"];
  EXPECT_GE(with_shared.value[KESTREL_CNT_ATOMICS], n) << "one shared atomic per element at least";
  EXPECT_GT(with_shared.value[KESTREL_CNT_SHARED_ACCESSES], 0u);
  EXPECT_EQ(global_only.value[KESTREL_CNT_SHARED_ACCESSES], 0u);
  EXPECT_LT(with_shared.value[KESTREL_CNT_MEM_REQUESTS], global_only.value[KESTREL_CNT_MEM_REQUESTS]);
  std::cout << "histogram of " << n << " bytes (" << GetParam().backend << " rv" << xlen() << "):\n";
  for (const auto& [kernel, c] : figures) {
    std::cout << "  " << std::setw(17) << kernel << ": cycles " << c.value[KESTREL_CNT_CYCLES] << ", atomics "
              << c.value[KESTREL_CNT_ATOMICS] << ", shared passes/access "
              << (c.value[KESTREL_CNT_SHARED_ACCESSES]
                      ? static_cast<double>(c.value[KESTREL_CNT_SHARED_PASSES]) /
                            c.value[KESTREL_CNT_SHARED_ACCESSES]
                      : 0.0)
              << ", global line requests " << c.value[KESTREL_CNT_MEM_REQUESTS] << "\n";
  }
}

struct Stats {
  uint32_t even;
  int32_t sum;
  int32_t min;
  int32_t max;
  uint64_t argmax_key;
  uint64_t seen_mod_64;
};
static_assert(sizeof(Stats) == 32, "atomic_apps.cu's Stats layout");

TEST_P(AtomicsTest, ParallelCounters) {
  KESTREL_NEEDS(Feature::kAtomics);
  KESTREL_NEEDS_64BIT_ATOMICS();
  Module module = load("atomic_apps");
  const uint32_t n = 3000;
  const uint32_t first_max = n / 3 + 1, second_max = 2 * n / 3 + 1;
  std::vector<int32_t> values(n);
  std::mt19937 random(9);
  for (int32_t& v : values) v = static_cast<int32_t>(random() % 200001) - 100000;
  values[first_max] = 100001;  // the largest value, twice: the first index wins
  values[second_max] = 100001;
  Stats expected{0, 0, values[0], values[0], 0, 0};
  for (uint32_t i = 0; i < n; ++i) {
    const int32_t v = values[i];
    expected.even += (v & 1) == 0;
    expected.sum += v;
    expected.min = std::min(expected.min, v);
    expected.max = std::max(expected.max, v);
    expected.argmax_key = std::max(
        expected.argmax_key, (uint64_t{static_cast<uint32_t>(v + 0x40000000)} << 32) | (0xFFFFFFFFu - i));
    expected.seen_mod_64 |= 1ull << (static_cast<uint32_t>(v) % 64u);
  }
  DeviceBuffer<int32_t> dvalues(device(), n);
  DeviceBuffer<Stats> stats(device(), 1);
  dvalues.upload(values);
  stats.upload({Stats{0, 0, INT32_MAX, INT32_MIN, 0, 0}});
  module.kernel("parallel_counters").launch(Dim3(5), Dim3(96), 0, dvalues, n, stats);
  device().synchronize();
  const Stats got = stats.download()[0];
  EXPECT_EQ(got.even, expected.even);
  EXPECT_EQ(got.sum, expected.sum);
  EXPECT_EQ(got.min, expected.min);
  EXPECT_EQ(got.max, expected.max);
  EXPECT_EQ(got.argmax_key, expected.argmax_key);
  EXPECT_EQ(0xFFFFFFFFu - static_cast<uint32_t>(got.argmax_key), first_max) << "first index of the maximum";
  EXPECT_EQ(got.seen_mod_64, expected.seen_mod_64);
}

// Follows the stack from `head`: every node must appear exactly once.
void expect_every_node_once(uint32_t head, const std::vector<uint32_t>& next, uint32_t n) {
  std::vector<bool> seen(n, false);
  uint32_t count = 0;
  for (uint32_t node = head; node != 0xFFFFFFFFu; node = next[node]) {
    ASSERT_LT(node, n);
    ASSERT_FALSE(seen[node]) << "node " << node << " twice: the list has a cycle";
    seen[node] = true;
    ++count;
  }
  EXPECT_EQ(count, n);
}

TEST_P(AtomicsTest, LockFreeStackPushWithCas) {
  KESTREL_NEEDS(Feature::kAtomics);
  KESTREL_NEEDS_64BIT_ATOMICS();
  Module module = load("atomic_apps");
  const uint32_t blocks = 4, threads = 64, n = blocks * threads;
  DeviceBuffer<uint32_t> head(device(), 1), next(device(), n);
  head.upload({0xFFFFFFFFu});
  module.kernel("stack_push").launch(Dim3(blocks), Dim3(threads), 0, head, next);
  device().synchronize();
  expect_every_node_once(head.download()[0], next.download(), n);

  DeviceBuffer<uint64_t> tagged(device(), 1);
  tagged.upload({0xFFFFFFFFull});
  module.kernel("stack_push_tagged").launch(Dim3(blocks), Dim3(threads), 0, tagged, next);
  device().synchronize();
  const uint64_t top = tagged.download()[0];
  EXPECT_EQ(top >> 32, n) << "one tag step per push";
  expect_every_node_once(static_cast<uint32_t>(top), next.download(), n);
}

TEST_P(AtomicsTest, IntraWarpSpinLockProtectedCounter) {
  KESTREL_NEEDS(Feature::kAtomics);
  Module module = load("atomic_apps");
  // Issue 15's contended lock: every thread of 4 blocks x 64 threads (two
  // warps each, on two SMs) takes the lock in turn.  Spinning warp-mates
  // yield to the holder (docs/isa.md section 6, "Spinning"); before that
  // rule two blocks of 64 threads took 85-95 s on rtlsim, now this takes a
  // few seconds there in lock-step.
  const int rounds = cycle_accurate() ? 1 : 3;
  const unsigned blocks = 4, threads = 64;
  DeviceBuffer<int32_t> lock(device(), 1), counter(device(), 1);
  lock.fill_bytes(0);
  counter.fill_bytes(0);
  module.kernel("spinlock_counter").launch(Dim3(blocks), Dim3(threads), 0, lock, counter, rounds);
  device().synchronize();
  EXPECT_EQ(counter.download()[0], static_cast<int>(blocks * threads) * rounds);
  EXPECT_EQ(lock.download()[0], 0);
}

// A new block's threads hold no reservation: an SC without its own LR fails
// in a warp slot whose previous thread reserved that very word (shared or
// global) and exited (docs/isa.md section 1).  Enough blocks of one warp that
// every warp slot of the GPU is reused several times.
TEST_P(AtomicsTest, NewBlocksInheritNoReservation) {
  KESTREL_NEEDS(Feature::kLrSc);
  Module module = load("atomic_apps");
  const uint32_t blocks = 96, threads = 32;
  DeviceBuffer<int32_t> words(device(), threads), results(device(), blocks * threads);
  words.fill_bytes(0);
  results.fill_bytes(0xFF);
  module.kernel("sc_without_lr").launch(Dim3(blocks), Dim3(threads), 0, words, results);
  device().synchronize();
  const std::vector<int32_t> r = results.download();
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t t = 0; t < threads; ++t)
      ASSERT_EQ(r[b * threads + t], b % 3 == 0 ? 2 : 1) << "block " << b << " thread " << t;
  for (int32_t w : words.download()) EXPECT_EQ(w, 0) << "a failed SC wrote";
}

// 8- and 16-bit atomics become LR/SC loops on their 32-bit word (clang's
// masked expansion; the disassembly holds lr.w/sc.w): contended 16-bit
// counters count every thread exactly once with distinct old values, the
// neighbouring halves and bytes of each word are kept, and 8-bit CAS loops
// reach the maximum, in global and in shared memory (docs/isa.md section 1).
TEST_P(AtomicsTest, NarrowAtomicsAsLrScLoops) {
  KESTREL_NEEDS(Feature::kLrSc);
  Module module = load("atomic_apps");
  const uint32_t blocks = 2, threads = 64, n = blocks * threads;
  DeviceBuffer<uint16_t> halves(device(), 2), olds(device(), n);
  DeviceBuffer<uint8_t> bytes(device(), 4);
  DeviceBuffer<uint32_t> sums(device(), 6);
  halves.upload({1000, 0});
  bytes.fill_bytes(0);
  sums.fill_bytes(0);
  module.kernel("narrow_atomics").launch(Dim3(blocks), Dim3(threads), 0, halves, bytes, olds, sums);
  device().synchronize();
  const std::vector<uint16_t> h = halves.download(), o = olds.download();
  EXPECT_EQ(h[0], 1000 + n / 2);
  EXPECT_EQ(h[1], n / 2);
  std::vector<std::set<uint16_t>> seen(2);
  for (uint32_t t = 0; t < n; ++t)
    EXPECT_TRUE(seen[t % 2].insert(o[t]).second) << "old value twice: " << o[t];
  EXPECT_EQ(*seen[0].begin(), 1000);
  EXPECT_EQ(*seen[0].rbegin(), 1000 + n / 2 - 1);
  EXPECT_EQ(*seen[1].rbegin(), n / 2 - 1);
  std::vector<uint32_t> expect_bytes(4, 0);
  for (uint32_t t = 0; t < n; ++t) {
    const uint32_t want = (t * 37) % 251;
    expect_bytes[t % 4] = std::max(expect_bytes[t % 4], want);
  }
  // Shared bytes are per block; their maxima over blocks equal the global ones.
  const std::vector<uint8_t> b = bytes.download();
  const std::vector<uint32_t> s = sums.download();
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(b[i], expect_bytes[i]) << "byte " << i;
    EXPECT_EQ(s[2 + i], expect_bytes[i]) << "shared byte " << i;
  }
  EXPECT_EQ(s[0], n / 2);
  EXPECT_EQ(s[1], n / 2);
}

// Guide B.5 with many blocks on a 4-SM device, launched twice: the last
// block's reset of `count` makes the second launch work too.
TEST_P(AtomicsTest, GuideB5LastBlockSumsThePartialSums) {
  // On rtlsim the blocks of two SMs race for `count`: GPU-level lock-step
  // follows the RTL's order of the atomicIncs (docs/microarchitecture.md).
  KESTREL_NEEDS(Feature::kAmo, Feature::kFloat);
  DeviceConfig config{};
  config.xlen = xlen();
  // Several SMs: four on the model, the two of the RTL presets on rtlsim.
  config.num_sms = GetParam().backend == "rtlsim" ? 2 : 4;
  Device four_sms = Device::open(GetParam().backend, &config);
  Module module = Module::load(
      four_sms, std::string(KESTREL_E2E_MODULE_DIR) + "/atomic_apps_rv" + std::to_string(xlen()) + ".kmod");
  const uint32_t n = 50000, blocks = 48, threads = 128;
  std::vector<float> array(n);
  for (uint32_t i = 0; i < n; ++i) array[i] = static_cast<float>(i % 17) - 8.0f;  // integer sums: exact
  DeviceBuffer<float> darray(four_sms, n), result(four_sms, blocks + 1);
  DeviceBuffer<uint32_t> sms(four_sms, blocks);
  darray.upload(array);
  for (int launch = 0; launch < 2; ++launch) {
    result.fill_bytes(0);
    module.kernel("sum").launch(Dim3(blocks), Dim3(threads), 0, darray, n, result, sms);
    four_sms.synchronize();
    const std::vector<float> got = result.download();
    for (uint32_t b = 0; b < blocks; ++b) {
      float partial = 0.0f;
      for (uint32_t i = b * threads; i < n; i += blocks * threads)
        for (uint32_t k = i; k < std::min(i + threads, n); ++k) partial += array[k];
      EXPECT_EQ(got[b], partial) << "launch " << launch << " block " << b;
    }
    EXPECT_EQ(got[blocks], std::accumulate(array.begin(), array.end(), 0.0f)) << "launch " << launch;
    EXPECT_EQ(module.read_global<uint32_t>("count"), 0u);
  }
  const std::vector<uint32_t> where = sms.download();
  EXPECT_EQ(std::set<uint32_t>(where.begin(), where.end()).size(), config.num_sms)
      << "blocks ran on every SM";
}

// ---- bank_conflicts.cu ---------------------------------------------------------

struct Pattern {
  const char* name;
  const char* kernel;
  std::vector<uint32_t> index;  // per thread of a 64-thread block (two warps)
  double passes;                // expected bank passes per warp access
};

std::vector<uint32_t> per_lane(uint32_t threads, uint32_t lanes,
                               const std::function<uint32_t(uint32_t)>& of_lane) {
  std::vector<uint32_t> index(threads);
  for (uint32_t t = 0; t < threads; ++t) index[t] = of_lane(t % lanes);  // every warp alike
  return index;
}

TEST_P(AtomicsTest, SharedMemoryBankPassesFromTheCounters) {
  KESTREL_NEEDS(Feature::kAmo, Feature::kBankCounters);
  Module module = load("bank_conflicts");
  const uint32_t threads = 64, lanes = device().props().warp_size, warps = threads / lanes;
  ASSERT_EQ(lanes, 32u) << "the guide's figures are for 32 banks";
  std::vector<uint32_t> permutation(lanes);
  std::iota(permutation.begin(), permutation.end(), 0u);
  std::shuffle(permutation.begin(), permutation.end(), std::mt19937(3));
  const std::vector<Pattern> patterns = {
      {"stride 1 (Figure 17 left)", "shared_reads", per_lane(threads, lanes, [](uint32_t l) { return l; }),
       1},
      {"stride 2 (Figure 17 middle)", "shared_reads",
       per_lane(threads, lanes, [](uint32_t l) { return 2 * l; }), 2},
      {"stride 3 (Figure 17 right)", "shared_reads",
       per_lane(threads, lanes, [](uint32_t l) { return 3 * l; }), 1},
      {"stride 32", "shared_reads", per_lane(threads, lanes, [](uint32_t l) { return 32 * l; }), 32},
      {"random permutation (Figure 18 left)", "shared_reads",
       per_lane(threads, lanes, [&](uint32_t l) { return permutation[l]; }), 1},
      {"lanes 3, 4, 6, 7, 9 on word 5 (Figure 18 middle)", "shared_reads",
       per_lane(threads, lanes,
                [](uint32_t l) { return (l == 3 || l == 4 || l == 6 || l == 7 || l == 9) ? 5 : l; }),
       1},
      {"groups of 4 lanes per word (Figure 18 right)", "shared_reads",
       per_lane(threads, lanes, [](uint32_t l) { return (l / 4) * 5; }), 1},
      {"16 lanes on one word", "shared_reads",
       per_lane(threads, lanes, [](uint32_t l) { return l < 16 ? 3 : l; }), 1},
      {"two words in each of 16 banks", "shared_reads",
       per_lane(threads, lanes, [](uint32_t l) { return (l % 16) + 32 * (l / 16); }), 2},
      {"broadcast", "shared_reads", per_lane(threads, lanes, [](uint32_t) { return 7; }), 1},
      {"bytes, stride 1", "shared_byte_reads", per_lane(threads, lanes, [](uint32_t l) { return l; }), 1},
      {"bytes, stride 4 words", "shared_byte_reads",
       per_lane(threads, lanes, [](uint32_t l) { return 16 * l; }), 4},
      {"atomics, distinct banks", "shared_atomics", per_lane(threads, lanes, [](uint32_t l) { return l; }),
       1},
      {"atomics, one word", "shared_atomics", per_lane(threads, lanes, [](uint32_t) { return 0; }), 32},
  };
  const int reps = 10;
  DeviceBuffer<uint32_t> index(device(), threads), out(device(), threads);
  std::cout << "shared-memory bank passes per warp access (" << GetParam().backend << " rv" << xlen()
            << "):\n";
  for (const Pattern& p : patterns) {
    index.upload(p.index);
    uint64_t accesses[2], passes[2];
    for (int run = 0; run < 2; ++run) {
      module.kernel(p.kernel).launch(Dim3(1), Dim3(threads), 0, index, run == 0 ? 0 : reps, out);
      device().synchronize();
      const kestrel_counters c = device().counters();
      accesses[run] = c.value[KESTREL_CNT_SHARED_ACCESSES];
      passes[run] = c.value[KESTREL_CNT_SHARED_PASSES];
    }
    const uint64_t measured_accesses = accesses[1] - accesses[0];
    const double per_access =
        static_cast<double>(passes[1] - passes[0]) / static_cast<double>(measured_accesses);
    EXPECT_EQ(measured_accesses, uint64_t{reps} * warps) << p.name;
    EXPECT_EQ(per_access, p.passes) << p.name;
    std::cout << "  " << std::left << std::setw(50) << p.name << std::right << per_access << "\n";
  }
}

// Contended vs uncontended global atomics: the same number of atomics; the
// counters give the cycles they took (bench/atomics_bench prints both cases).
TEST_P(AtomicsTest, ContendedAndUncontendedGlobalAtomicsCount) {
  KESTREL_NEEDS(Feature::kAmo);
  Module module = load("bank_conflicts");
  const uint32_t threads = 64;
  const int reps = 8;
  DeviceBuffer<uint32_t> words(device(), threads), index(device(), threads);
  for (bool contended : {false, true}) {
    std::vector<uint32_t> at(threads);
    for (uint32_t t = 0; t < threads; ++t) at[t] = contended ? 0 : t;
    index.upload(at);
    words.fill_bytes(0);
    module.kernel("global_atomics").launch(Dim3(1), Dim3(threads), 0, words, index, reps);
    device().synchronize();
    const kestrel_counters c = device().counters();
    EXPECT_EQ(c.value[KESTREL_CNT_ATOMICS], uint64_t{threads} * reps);
    const std::vector<uint32_t> got = words.download();
    if (contended) {
      EXPECT_EQ(got[0], threads * reps);
    } else {
      for (uint32_t v : got) EXPECT_EQ(v, static_cast<uint32_t>(reps));
    }
    std::cout << (contended ? "contended" : "uncontended")
              << " global atomics: " << c.value[KESTREL_CNT_ATOMICS] << " atomics in "
              << c.value[KESTREL_CNT_CYCLES] << " cycles, " << c.value[KESTREL_CNT_MEM_REQUESTS]
              << " line requests\n";
  }
}

// Device malloc/free (guide B.18): a lock-free heap over 64-bit CAS.  A full
// heap gives NULL and freed blocks come back; the heap's size is set before
// the first launch that uses it and is fixed after (B.18.1).
TEST_P(AtomicsTest, DeviceMallocExhaustionAndFixedHeapSize) {
  KESTREL_NEEDS(Feature::kAtomics, Feature::kAmo);
  KESTREL_NEEDS_64BIT_ATOMICS();
  EXPECT_EQ(device().limit(KESTREL_LIMIT_HEAP_BYTES), uint64_t{KESTREL_HEAP_DEFAULT_BYTES});
  const uint64_t heap_bytes = 64 * 1024;
  device().set_limit(KESTREL_LIMIT_HEAP_BYTES, heap_bytes);
  Module module = load("heap");
  const unsigned slots = 128;
  DeviceBuffer<uint32_t> counters(device(), 4);
  DeviceBuffer<uint64_t> keep(device(), slots);  // pointers, XLEN wide
  const Kernel fill = module.kernel("fill_heap"), free_all = module.kernel("free_all");
  // 1000 bytes and the 16-byte header take a 1 KiB block: exactly 64 fit,
  // and after freeing them the same 64 come back.
  for (int pass = 0; pass < 2; ++pass) {
    counters.fill_bytes(0);
    fill.launch(Dim3(2), Dim3(32), 0, 1000u, counters, keep, slots);
    device().synchronize();
    const uint32_t got = counters.download()[0];
    EXPECT_EQ(got, heap_bytes / 1024) << "pass " << pass;
    free_all.launch(Dim3(2), Dim3(32), 0, keep, got);
    device().synchronize();
  }
  try {
    device().set_limit(KESTREL_LIMIT_HEAP_BYTES, 1 << 20);
    ADD_FAILURE() << "the heap's size changed after a launch used it";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), KESTREL_ERROR_INVALID_VALUE);
    EXPECT_NE(std::string(error.what()).find("fixed"), std::string::npos) << error.what();
  }
  EXPECT_EQ(device().limit(KESTREL_LIMIT_HEAP_BYTES), heap_bytes);
}

// Many threads of many warps allocate, fill, check and free at once; calloc
// and realloc; then a foreign pointer's free() faults.
TEST_P(AtomicsTest, DeviceMallocUnderContention) {
  KESTREL_NEEDS(Feature::kAtomics, Feature::kAmo);
  KESTREL_NEEDS_64BIT_ATOMICS();
  device().set_limit(KESTREL_LIMIT_HEAP_BYTES, 1 << 20);
  Module fresh = load("heap");
  DeviceBuffer<uint32_t> errors(device(), 4);
  errors.fill_bytes(0);
  const int blocks = cycle_accurate() ? 2 : 4, rounds = cycle_accurate() ? 1 : 3;
  fresh.kernel("churn").launch(Dim3(blocks), Dim3(64), 0, rounds, errors);
  device().synchronize();
  const std::vector<uint32_t> e = errors.download();
  EXPECT_EQ(e[0], 0u) << "wrong bytes";
  EXPECT_EQ(e[1], 0u) << "failed allocations";
  EXPECT_EQ(e[2], 0u) << "misaligned pointers";

  DeviceBuffer<int> ok(device(), 64);
  fresh.kernel("calloc_realloc").launch(Dim3(1), Dim3(64), 0, ok);
  device().synchronize();
  EXPECT_EQ(ok.download(), std::vector<int>(64, 1));

  // free() of a pointer malloc did not return stops the launch.
  DeviceBuffer<int> global(device(), 8);
  fresh.kernel("free_foreign").launch(Dim3(1), Dim3(1), 0, global);
  try {
    device().synchronize();
    ADD_FAILURE() << "a foreign free did not fault";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), KESTREL_ERROR_LAUNCH_FAULT);
    EXPECT_NE(std::string(error.what()).find("device free() of a pointer malloc() did not return"),
              std::string::npos)
        << error.what();
  }
}

INSTANTIATE_TEST_SUITE_P(AllTargets, AtomicsTest, testing::ValuesIn(all_targets()), target_name);

}  // namespace
}  // namespace kestrel::e2e
