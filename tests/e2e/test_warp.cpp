// kernels/warp.cu on every backend and XLEN: the guide's shuffle
// examples (B.14.5), a block scan on shuffles, ballot-based compaction,
// votes under divergent and partial masks, match and reduce, shuffles of
// every type, bit intrinsics, clock and nanosleep, checked against CPU
// references.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "e2e_support.hpp"

namespace kestrel::e2e {
namespace {

// 128-bit products for the __umul64hi/__mul64hi references (a GCC/Clang extension).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

using WarpTest = DeviceTest;

TEST_P(WarpTest, GuideBroadcast) {
  KESTREL_NEEDS(Feature::kWarpIntrinsics);
  Module module = load("warp");
  DeviceBuffer<int> out(device(), 64);
  module.kernel("broadcast").launch(Dim3(1), Dim3(64), 0, 1234, out);
  device().synchronize();
  for (int v : out.download()) EXPECT_EQ(v, 1234);
}

TEST_P(WarpTest, GuideInclusiveScanOverEightThreadPartitions) {
  KESTREL_NEEDS(Feature::kWarpIntrinsics);
  Module module = load("warp");
  DeviceBuffer<int> out(device(), 32);
  module.kernel("scan8").launch(Dim3(1), Dim3(32), 0, out);
  device().synchronize();
  const std::vector<int> result = out.download();
  for (int lane = 0; lane < 32; ++lane) {
    int expected = 0;
    for (int k = lane & ~7; k <= lane; ++k) expected += 31 - k;
    EXPECT_EQ(result[lane], expected) << "lane " << lane;
  }
}

TEST_P(WarpTest, GuideWarpReduction) {
  KESTREL_NEEDS(Feature::kWarpIntrinsics);
  Module module = load("warp");
  DeviceBuffer<int> out(device(), 32);
  module.kernel("warp_reduce").launch(Dim3(1), Dim3(32), 0, out);
  device().synchronize();
  for (int v : out.download()) EXPECT_EQ(v, 31 * 32 / 2);
}

TEST_P(WarpTest, BlockScanOnShuffles) {
  KESTREL_NEEDS(Feature::kWarpIntrinsics);
  Module module = load("warp");
  const int n = 1000, block = 256;  // the last block is partial, its last warp too
  std::vector<int> in(n);
  std::mt19937 random(7);
  for (int& v : in) v = static_cast<int>(random() % 200) - 100;
  DeviceBuffer<int> din(device(), n), dout(device(), n);
  din.upload(in);
  module.kernel("block_scan").launch(Dim3((n + block - 1) / block), Dim3(block), 0, din, dout, n);
  device().synchronize();
  const std::vector<int> out = dout.download();
  int running = 0;
  for (int i = 0; i < n; ++i) {
    if (i % block == 0) running = 0;
    running += in[i];
    ASSERT_EQ(out[i], running) << "element " << i;
  }
}

TEST_P(WarpTest, BallotStreamCompactionIsStable) {
  KESTREL_NEEDS(Feature::kWarpIntrinsics);
  Module module = load("warp");
  const int n = 200, threads = 224;
  std::vector<int> in(n);
  std::mt19937 random(11);
  for (int& v : in) v = static_cast<int>(random() % 1000);
  DeviceBuffer<int> din(device(), n), dout(device(), n), count(device(), 1);
  din.upload(in);
  module.kernel("compact").launch(Dim3(1), Dim3(threads), 0, din, n, 600, dout, count);
  device().synchronize();
  std::vector<int> expected;
  for (int v : in)
    if (v > 600) expected.push_back(v);
  const int got = count.download()[0];
  ASSERT_EQ(got, static_cast<int>(expected.size()));
  std::vector<int> out = dout.download();
  out.resize(static_cast<size_t>(got));
  EXPECT_EQ(out, expected);
}

TEST_P(WarpTest, VotesUnderDivergentAndPartialMasks) {
  KESTREL_NEEDS(Feature::kWarpIntrinsics);
  Module module = load("warp");
  const int threads = 80;  // the third warp has 16 threads, its lanes 16..31 never exist
  std::vector<int> values(threads);
  std::mt19937 random(3);
  for (int& v : values) v = static_cast<int>(random() % 21) - 5;
  DeviceBuffer<int> dvalues(device(), threads), out(device(), 8 * threads);
  dvalues.upload(values);
  module.kernel("divergent_votes").launch(Dim3(1), Dim3(threads), 0, dvalues, out);
  device().synchronize();
  const std::vector<int> result = out.download();
  for (int t = 0; t < threads; ++t) {
    const int warp_base = t / 32 * 32, lane = t % 32;
    const int live = std::min(32, threads - warp_base);
    uint32_t class_ballot = 0, class_members = 0, positive = 0, late = 0, low_active = 0;
    for (int l = 0; l < live; ++l) {
      const int v = values[warp_base + l];
      if (l % 3 == lane % 3) {
        class_members |= 1u << l;
        if (v & 1) class_ballot |= 1u << l;
      }
      if (v > 0) positive |= 1u << l;
      if ((l & 1) != 0) late |= 1u << l;  // odd lanes' loop sums 0..9 = 45 > 5
      if (l < 10) low_active |= 1u << l;
    }
    const int* r = &result[8 * t];
    EXPECT_EQ(static_cast<uint32_t>(r[0]), class_ballot) << "thread " << t;
    EXPECT_EQ(r[1], class_ballot == class_members ? 1 : 0) << "thread " << t;
    EXPECT_EQ(r[2], class_ballot != 0 ? 1 : 0) << "thread " << t;
    EXPECT_EQ(r[3], class_ballot == 0 || class_ballot == class_members ? 1 : 0) << "thread " << t;
    EXPECT_EQ(static_cast<uint32_t>(r[4]), late) << "thread " << t;
    if (lane < 10) {
      EXPECT_EQ(static_cast<uint32_t>(r[5]), low_active) << "thread " << t;
      EXPECT_EQ(static_cast<uint32_t>(r[6]), positive & low_active) << "thread " << t;
    }
    EXPECT_EQ(static_cast<uint32_t>(r[7]), positive) << "thread " << t;
  }
}

TEST_P(WarpTest, MatchAndReduce) {
  KESTREL_NEEDS(Feature::kWarpIntrinsics);
  Module module = load("warp");
  const int threads = 64;
  std::vector<int> keys(threads), values(threads);
  std::mt19937 random(5);
  for (int t = 0; t < threads; ++t) {
    keys[t] = 100 * static_cast<int>(random() % 4) + (t < 32 ? 7 : 0);
    values[t] = static_cast<int>(random() % 2001) - 1000;
  }
  DeviceBuffer<int> dkeys(device(), threads), dvalues(device(), threads), out(device(), 12 * threads);
  dkeys.upload(keys);
  dvalues.upload(values);
  module.kernel("match_reduce").launch(Dim3(1), Dim3(threads), 0, dkeys, dvalues, out);
  device().synchronize();
  const std::vector<int> result = out.download();
  for (int t = 0; t < threads; ++t) {
    const int base = t / 32 * 32;
    uint32_t same_key = 0, same_wide = 0, even_sum = 0;
    bool all_same_hundreds = true;
    int32_t sum = 0, smin = values[base], smax = values[base];
    uint32_t umin = ~0u, umax = 0, band = ~0u, bor = 0, bxor = 0;
    for (int l = 0; l < 32; ++l) {
      const int k = keys[base + l], v = values[base + l];
      if (k == keys[t]) same_key |= 1u << l;
      if (k == keys[t] && l % 4 == t % 4) same_wide |= 1u << l;
      if (k / 100 != keys[base] / 100) all_same_hundreds = false;
      sum += v;
      smin = std::min(smin, v);
      smax = std::max(smax, v);
      const uint32_t u = static_cast<uint32_t>(v);
      umin = std::min(umin, u);
      umax = std::max(umax, u);
      band &= u;
      bor |= u;
      bxor ^= u;
      if (l % 2 == 0) even_sum += u;
    }
    const int* r = &result[12 * t];
    EXPECT_EQ(static_cast<uint32_t>(r[0]), same_key) << t;
    EXPECT_EQ(static_cast<uint32_t>(r[1]), all_same_hundreds ? 0xFFFFFFFFu : 0u) << t;
    EXPECT_EQ(r[2], all_same_hundreds ? 1 : 0) << t;
    EXPECT_EQ(static_cast<uint32_t>(r[3]), same_wide) << t;
    EXPECT_EQ(r[4], sum) << t;
    EXPECT_EQ(r[5], smin) << t;
    EXPECT_EQ(r[6], smax) << t;
    EXPECT_EQ(static_cast<uint32_t>(r[7]), umin) << t;
    EXPECT_EQ(static_cast<uint32_t>(r[8]), umax) << t;
    EXPECT_EQ(static_cast<uint32_t>(r[9]), band ^ bor) << t;
    EXPECT_EQ(static_cast<uint32_t>(r[10]), bxor) << t;
    EXPECT_EQ(static_cast<uint32_t>(r[11]), t % 2 == 0 ? even_sum : 0u) << t;
  }
}

TEST_P(WarpTest, ShufflesOfEveryType) {
  KESTREL_NEEDS(Feature::kWarpIntrinsics, Feature::kFloat);
  Module module = load("warp");
  DeviceBuffer<long long> wide(device(), 64);
  DeviceBuffer<double> reals(device(), 32);
  DeviceBuffer<float> floats(device(), 32);
  DeviceBuffer<unsigned> words(device(), 32);
  module.kernel("typed_shuffles").launch(Dim3(1), Dim3(32), 0, wide, reals, floats, words);
  device().synchronize();
  const std::vector<long long> w = wide.download();
  const std::vector<double> d = reals.download();
  const std::vector<float> f = floats.download();
  const std::vector<unsigned> u = words.download();
  auto wide_of = [](int t) { return 0x0123456789ABLL * (t + 1) - 7; };
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(w[t], wide_of(t % 16 + 3 < 16 ? t + 3 : t)) << t;
    const int xor_source = t ^ 5;  // stays inside the 16-lane segment
    EXPECT_EQ(d[t], 1.5 * xor_source - 100.25) << t;
    EXPECT_EQ(f[t], 0.5f * static_cast<float>(31 - t)) << t;
    EXPECT_EQ(u[t], 0xF0000000u + static_cast<unsigned>(t >= 2 ? t - 2 : t)) << t;
    EXPECT_EQ(w[32 + t], wide_of(t / 8 * 8 + (t + 1) % 8)) << t;
  }
}

uint32_t brev32(uint32_t x) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}

// Host versions of the bit intrinsics, from the CUDA Math API descriptions.
std::vector<uint32_t> bit_reference(uint32_t x, uint32_t y) {
  const uint64_t wx = (uint64_t{x} << 32) | y, wy = (uint64_t{y} << 32) | (x ^ 0x5A5A);
  auto clz64 = [](uint64_t v) { return v == 0 ? 64u : static_cast<uint32_t>(__builtin_clzll(v)); };
  auto ffs64 = [](uint64_t v) { return static_cast<uint32_t>(__builtin_ffsll(static_cast<long long>(v))); };
  const uint64_t bytes = (uint64_t{y} << 32) | x;
  uint32_t perm = 0;
  for (int i = 0; i < 4; ++i)
    perm |= static_cast<uint32_t>((bytes >> (8 * ((y >> (4 * i)) & 7))) & 0xFF) << (8 * i);
  auto funnel_l = [](uint32_t lo, uint32_t hi, uint32_t s) {
    return static_cast<uint32_t>(((uint64_t{hi} << 32 | lo) << s) >> 32);
  };
  auto funnel_r = [](uint32_t lo, uint32_t hi, uint32_t s) {
    return static_cast<uint32_t>((uint64_t{hi} << 32 | lo) >> s);
  };
  auto s24 = [](uint32_t v) { return static_cast<int64_t>(static_cast<int32_t>(v << 8) >> 8); };
  const UInt128 uprod = static_cast<UInt128>(wx) * wy;
  const Int128 sprod = static_cast<Int128>(static_cast<int64_t>(wx)) * static_cast<int64_t>(wy);
  const int32_t sx = static_cast<int32_t>(x), sy = static_cast<int32_t>(y);
  const uint32_t sad = static_cast<uint32_t>(sx > sy ? int64_t{sx} - sy : int64_t{sy} - sx) + 5u;
  const uint32_t usad = (x > y ? x - y : y - x) + 9u;
  return {static_cast<uint32_t>(__builtin_popcount(x)),
          static_cast<uint32_t>(__builtin_popcountll(wx)),
          x == 0 ? 32u : static_cast<uint32_t>(__builtin_clz(x)),
          clz64(wy),
          static_cast<uint32_t>(__builtin_ffs(static_cast<int>(y))),
          ffs64(wx),
          brev32(x),
          static_cast<uint32_t>(((uint64_t{brev32(static_cast<uint32_t>(wx))} << 32) |
                                 brev32(static_cast<uint32_t>(wx >> 32))) >>
                                16),
          perm,
          funnel_l(x, y, y & 31),
          funnel_l(x, y, std::min(y & 63, 32u)),
          funnel_r(x, y, x & 31),
          funnel_r(x, y, std::min(x & 63, 32u)),
          static_cast<uint32_t>(s24(x) * s24(y)),
          (x & 0xFFFFFF) * (y & 0xFFFFFF),
          static_cast<uint32_t>((uint64_t{x} * y) >> 32),
          static_cast<uint32_t>(static_cast<uint64_t>(int64_t{sx} * sy) >> 32),
          static_cast<uint32_t>(static_cast<uint64_t>(uprod >> 64) >> 7),
          static_cast<uint32_t>(static_cast<uint64_t>(sprod >> 64) >> 3),
          sad ^ usad};
}

TEST_P(WarpTest, BitIntrinsics) {
  Module module = load("warp");
  const int threads = 64;
  std::vector<uint32_t> a(threads), b(threads);
  std::mt19937 random(17);
  for (int t = 0; t < threads; ++t) {
    a[t] = static_cast<uint32_t>(random());
    b[t] = static_cast<uint32_t>(random());
  }
  a[0] = 0;  // clz/ffs of zero
  b[1] = 0;
  a[2] = 0x80000000u;
  b[2] = 0x7FFFFFFFu;
  DeviceBuffer<uint32_t> da(device(), threads), db(device(), threads), out(device(), 20 * threads);
  da.upload(a);
  db.upload(b);
  module.kernel("bit_intrinsics").launch(Dim3(1), Dim3(threads), 0, da, db, out);
  device().synchronize();
  const std::vector<uint32_t> result = out.download();
  for (int t = 0; t < threads; ++t) {
    const std::vector<uint32_t> expected = bit_reference(a[t], b[t]);
    for (int k = 0; k < 20; ++k)
      EXPECT_EQ(result[20 * t + k], expected[k]) << "thread " << t << " intrinsic " << k;
  }
}

TEST_P(WarpTest, ClockIsMonotonic) {
  Module module = load("warp");
  DeviceBuffer<long long> out(device(), 3 * 64);
  module.kernel("clock_monotonic").launch(Dim3(1), Dim3(64), 0, out);
  device().synchronize();
  const std::vector<long long> r = out.download();
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ(r[3 * t], 0) << "clock64 went backwards in thread " << t;
    EXPECT_GT(r[3 * t + 1], 50) << "fifty reads take at least fifty cycles";
    EXPECT_GT(r[3 * t + 2], 0);
  }
}

TEST_P(WarpTest, NanosleepLetsTheOtherWarpRun) {
  KESTREL_NEEDS(Feature::kNanosleep);
  Module module = load("warp");
  DeviceBuffer<int> counter(device(), 1), seen(device(), 64);
  DeviceBuffer<long long> slept(device(), 64);
  counter.fill_bytes(0);
  module.kernel("sleep_and_count").launch(Dim3(1), Dim3(64), 0, counter, slept, seen);
  device().synchronize();
  const kestrel_device_props props = device().props();
  const long long wanted_cycles = 500000LL * props.clock_khz / 1000000;
  const std::vector<long long> s = slept.download();
  const std::vector<int> c = seen.download();
  for (int t = 0; t < 32; ++t) {
    EXPECT_GE(s[t], wanted_cycles) << "thread " << t;
    EXPECT_EQ(c[t], 200) << "the counting warp finished while warp 0 slept";
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, WarpTest, testing::ValuesIn(all_targets()), target_name);

}  // namespace
}  // namespace kestrel::e2e
