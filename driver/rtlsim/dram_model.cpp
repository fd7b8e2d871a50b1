// The simulated DRAM's timing and storage (kestrel/rtlsim/dram_model.hpp).
#include "kestrel/rtlsim/dram_model.hpp"

#include <algorithm>
#include <bitset>
#include <cstring>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "kestrel_contract.hpp"

namespace kestrel::rtlsim {
namespace {

constexpr uint64_t kLineBytes = contract::kLineBytes;

struct Preset {
  const char* name;
  DramTiming timing;
};

// Cycle figures are of the GPU's clock; docs/memory-system.md derives each.
constexpr Preset kPresets[] = {
    // What the port had before banks were modelled: the default, so that
    // cycle counts of earlier runs stay comparable.
    {"ideal", DramTiming{20, 1, 1, 0, 0, 0}},
    // A 16-bit DDR3-800 part (1.6 GB/s) under a soft controller, kernel clock
    // 100 MHz: 16 bytes per cycle, about 24 cycles of controller and CAS
    // latency, 8 banks of 2 KiB rows, tRCD = tRP = 13.75 ns (2 cycles).
    {"ddr3", DramTiming{24, 4, 8, 2048, 2, 2}},
    // An H100's HBM3 share per SM (3.35 TB/s over 132 SMs at 1.755 GHz, about
    // 14.5 bytes per cycle) for the two SMs of the default GPU: 32 bytes per
    // cycle; about 250 cycles from the memory controller's queue to data, 16
    // banks of 1 KiB rows, tRCD = tRP = 14 ns (25 cycles).
    {"hbm", DramTiming{250, 2, 16, 1024, 25, 25}},
};

bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

unsigned log2_of(uint64_t v) {
  unsigned n = 0;
  while ((uint64_t{1} << n) < v) ++n;
  return n;
}

}  // namespace

DramTiming dram_preset(const std::string& name) {
  for (const Preset& p : kPresets) {
    if (name == p.name) return p.timing;
  }
  throw Error(KESTREL_ERROR_INVALID_VALUE,
              "rtlsim: unknown DRAM preset '" + name + "' (known: " + dram_preset_list() + ")");
}

std::string dram_preset_list() {
  std::string names;
  for (const Preset& p : kPresets) names += std::string(names.empty() ? "" : ", ") + p.name;
  return names;
}

void check_dram_timing(const DramTiming& t) {
  const auto fail = [](const std::string& what) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: DRAM timing: " + what);
  };
  if (t.latency == 0) fail("latency must be at least 1 cycle");
  if (t.interval == 0) fail("interval must be at least 1 cycle");
  if (!power_of_two(t.banks) || t.banks > 1024) fail("banks must be a power of two up to 1024");
  if (t.row_bytes != 0 &&
      (!power_of_two(t.row_bytes) || t.row_bytes < kLineBytes || t.row_bytes > (uint64_t{1} << 20)))
    fail("row_bytes must be 0 (no rows) or a power of two from one line (64 bytes) to 1 MiB");
  if (t.latency > (uint64_t{1} << 20) || t.interval > (uint64_t{1} << 20) ||
      t.activate > (uint64_t{1} << 20) || t.precharge > (uint64_t{1} << 20))
    fail("latency, interval, activate and precharge must be at most 2^20 cycles");
  if (t.row_bytes == 0 && (t.activate != 0 || t.precharge != 0))
    fail("activate and precharge need rows (row_bytes)");
}

DramBanks::DramBanks(const DramTiming& timing)
    : timing_(timing), bank_free_(timing.banks, 0), open_row_(timing.banks, -1) {
  check_dram_timing(timing);
  row_shift_ = timing.row_bytes == 0 ? 0 : log2_of(timing.row_bytes);
  bank_shift_ = log2_of(timing.banks);
  counters_.peak_bytes_per_cycle = static_cast<double>(kLineBytes) / static_cast<double>(timing.interval);
}

uint64_t DramBanks::schedule(uint64_t now, uint64_t offset, bool write, uint64_t bytes_written) {
  const uint64_t arrival = std::max(now, next_accept_);
  next_accept_ = arrival + timing_.interval;
  // Without rows every access is a hit on bank 0.
  uint64_t bank = 0;
  int64_t row = 0;
  if (timing_.row_bytes != 0) {
    bank = (offset >> row_shift_) & (timing_.banks - 1);
    row = static_cast<int64_t>(offset >> row_shift_ >> bank_shift_);
  }
  const uint64_t start = std::max(arrival, bank_free_[bank]);
  uint64_t opening = 0;
  if (timing_.row_bytes == 0 || open_row_[bank] == row) {
    ++counters_.row_hits;
  } else if (open_row_[bank] < 0) {
    ++counters_.row_misses;
    opening = timing_.activate;
  } else {
    ++counters_.row_conflicts;
    opening = timing_.precharge + timing_.activate;
  }
  open_row_[bank] = row;
  // The bank takes its next column access once this one's burst is out.
  bank_free_[bank] = start + opening + timing_.interval;
  const uint64_t response = std::max(start + opening + timing_.latency, last_response_);
  last_response_ = response;

  counters_.bus_bytes += kLineBytes;
  if (write) {
    ++counters_.writes;
    counters_.bytes_written += bytes_written;
  } else {
    ++counters_.reads;
    counters_.bytes_read += kLineBytes;
    counters_.read_latency_cycles += response - now;
  }
  return response;
}

DramModel::DramModel(uint64_t bytes, const DramTiming& timing)
    : bytes_(bytes),
      banks_(timing),
      storage_(static_cast<uint8_t*>(std::calloc(bytes == 0 ? 1 : bytes, 1))),
      pages_written_((bytes + KESTREL_PAGE_SIZE - 1) / KESTREL_PAGE_SIZE) {
  if (!storage_) throw Error(KESTREL_ERROR_OUT_OF_MEMORY, "rtlsim: cannot allocate device DRAM");
}

uint64_t DramModel::access(uint64_t now, uint64_t offset, bool write, uint64_t byte_enables,
                           const uint8_t* wdata, uint8_t* rdata) {
  uint8_t* const line = storage_.get() + offset;
  if (write) {
    for (unsigned i = 0; i < kLineBytes; ++i) {
      if ((byte_enables >> i) & 1u) line[i] = wdata[i];
    }
    if (byte_enables != 0) pages_written_[offset >> KESTREL_PAGE_SHIFT] = 1;
  } else {
    std::memcpy(rdata, line, kLineBytes);
  }
  return banks_.schedule(now, offset, write, write ? std::bitset<64>(byte_enables).count() : 0);
}

}  // namespace kestrel::rtlsim
