// The rtlsim backend's DRAM model (kestrel/rtlsim/dram_model.hpp) against
// cycle figures worked out by hand from its rules (docs/memory-system.md):
// the default timing's fixed latency and pace, row hits, misses and
// conflicts with bank overlap and in-order responses, byte-enabled writes,
// the counters, and the refusal of timings a DRAM cannot have.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

#include "kestrel/error.hpp"
#include "kestrel/rtlsim/dram_model.hpp"

namespace {

using kestrel::rtlsim::DramModel;
using kestrel::rtlsim::DramTiming;

constexpr uint64_t kFull = ~uint64_t{0};

uint64_t read_at(DramModel& dram, uint64_t now, uint64_t offset) {
  std::array<uint8_t, 64> line{};
  return dram.access(now, offset, false, 0, nullptr, line.data());
}

TEST(DramModel, IdealPresetIsAFixedLatencyOneLinePerCycle) {
  DramModel dram(1 << 20, kestrel::rtlsim::dram_preset("ideal"));
  for (uint64_t now = 0; now < 8; ++now) {
    ASSERT_TRUE(dram.accepts(now));
    // Any address, any order: no banks, no rows.
    EXPECT_EQ(read_at(dram, now, (now * 4096 * 7) % (1 << 20)), now + 20) << "request at " << now;
  }
  EXPECT_EQ(dram.counters().row_hits, 8u);
  EXPECT_EQ(dram.counters().read_latency_cycles, 8u * 20);
  EXPECT_DOUBLE_EQ(dram.counters().peak_bytes_per_cycle, 64.0);
}

TEST(DramModel, IntervalPacesAcceptance) {
  DramTiming timing;
  timing.latency = 5;
  timing.interval = 3;
  DramModel dram(1 << 16, timing);
  ASSERT_TRUE(dram.accepts(0));
  EXPECT_EQ(read_at(dram, 0, 0), 5u);
  EXPECT_FALSE(dram.accepts(1));
  EXPECT_FALSE(dram.accepts(2));
  EXPECT_TRUE(dram.accepts(3));
  EXPECT_EQ(read_at(dram, 3, 64), 8u);
  EXPECT_DOUBLE_EQ(dram.counters().peak_bytes_per_cycle, 64.0 / 3);
}

// latency 10, interval 2, 2 banks of 256-byte rows, activate 3, precharge 4:
// offset bits 8 pick the bank, the rest above it the row.
TEST(DramModel, RowHitsMissesAndConflictsOverlapAcrossBanksAndAnswerInOrder) {
  DramTiming timing;
  timing.latency = 10;
  timing.interval = 2;
  timing.banks = 2;
  timing.row_bytes = 256;
  timing.activate = 3;
  timing.precharge = 4;
  DramModel dram(1 << 16, timing);
  // Bank 0, row 0, no open row: a miss, 0 + 3 + 10.
  EXPECT_EQ(read_at(dram, 0, 0), 13u);
  // Bank 0, row 0 again: a hit, but the bank is busy until 0 + 3 + 2.
  EXPECT_EQ(read_at(dram, 2, 64), 15u);
  // Bank 1, row 0: a miss that overlaps bank 0's work, 4 + 3 + 10.
  EXPECT_EQ(read_at(dram, 4, 256), 17u);
  // Bank 0, row 1: a conflict; the bank is free at 5 + 2 = 7: 7 + 4 + 3 + 10.
  EXPECT_EQ(read_at(dram, 6, 512), 24u);
  // Bank 1, row 0: a hit ready at 9 + 10 = 19, answered after the conflict.
  EXPECT_EQ(read_at(dram, 8, 256 + 64), 24u);
  const kestrel::DramCounters& c = dram.counters();
  EXPECT_EQ(c.reads, 5u);
  EXPECT_EQ(c.row_hits, 2u);
  EXPECT_EQ(c.row_misses, 2u);
  EXPECT_EQ(c.row_conflicts, 1u);
  EXPECT_EQ(c.read_latency_cycles, 13u + 13 + 13 + 18 + 16);
  EXPECT_EQ(c.bytes_read, 5u * 64);
  EXPECT_EQ(c.bus_bytes, 5u * 64);
}

TEST(DramModel, WritesStoreEnabledBytesAndReadsSeeThem) {
  DramModel dram(1 << 16, DramTiming{});
  std::array<uint8_t, 64> data{};
  for (unsigned i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(0xA0 + i);
  dram.access(0, 128, true, 0x00000000000000F0ull, data.data(), nullptr);
  std::array<uint8_t, 64> line{};
  dram.access(1, 128, false, 0, nullptr, line.data());
  for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(line[i], i >= 4 && i < 8 ? 0xA0 + i : 0) << "byte " << i;
  dram.access(2, 192, true, kFull, data.data(), nullptr);
  EXPECT_EQ(dram.data()[192 + 63], 0xA0 + 63);
  EXPECT_EQ(dram.counters().writes, 2u);
  EXPECT_EQ(dram.counters().bytes_written, 4u + 64);
  EXPECT_EQ(dram.counters().bus_bytes, 3u * 64);
}

TEST(DramModel, StorageStartsZeroAndIsSparse) {
  // 256 MiB: calloc leaves untouched pages to the operating system, so this
  // costs what is touched, not the size.
  DramModel dram(256u << 20, DramTiming{});
  EXPECT_EQ(dram.size(), 256u << 20);
  std::array<uint8_t, 64> line{};
  line.fill(1);
  dram.access(0, (256u << 20) - 64, false, 0, nullptr, line.data());
  for (uint8_t b : line) EXPECT_EQ(b, 0);
}

TEST(DramModel, PresetsAreValidAndUnknownNamesAreRefused) {
  for (const char* name : {"ideal", "ddr3", "hbm"}) {
    EXPECT_NO_THROW(kestrel::rtlsim::check_dram_timing(kestrel::rtlsim::dram_preset(name))) << name;
  }
  EXPECT_GT(kestrel::rtlsim::dram_preset("hbm").latency, kestrel::rtlsim::dram_preset("ddr3").latency);
  try {
    kestrel::rtlsim::dram_preset("gddr9");
    FAIL() << "an unknown preset was accepted";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE);
    EXPECT_NE(std::string(e.what()).find("ideal, ddr3, hbm"), std::string::npos) << e.what();
  }
}

TEST(DramModel, RefusesTimingsADramCannotHave) {
  const auto refused = [](DramTiming t, const char* what) {
    try {
      kestrel::rtlsim::check_dram_timing(t);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const kestrel::Error& e) {
      EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE) << what;
    }
  };
  DramTiming t;
  t.latency = 0;
  refused(t, "latency 0");
  t = DramTiming{};
  t.interval = 0;
  refused(t, "interval 0");
  t = DramTiming{};
  t.banks = 3;
  refused(t, "3 banks");
  t = DramTiming{};
  t.row_bytes = 32;
  refused(t, "a row smaller than a line");
  t = DramTiming{};
  t.row_bytes = 1000;
  refused(t, "a row that is not a power of two");
  t = DramTiming{};
  t.activate = 5;
  refused(t, "activate without rows");
  EXPECT_THROW(DramModel(1 << 16, t), kestrel::Error);
}

}  // namespace
