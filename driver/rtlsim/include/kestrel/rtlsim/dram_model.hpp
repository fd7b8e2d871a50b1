// The simulated DRAM behind the GPU's external memory port: its storage and
// its timing (docs/memory-system.md, "The DRAM model").
//
// The port (rtl/top/kestrel_gpu.sv) carries one 64-byte line per request and
// is answered in request order, so the model is an in-order controller with
// an open-page policy in front of `banks` banks: a request waits for its bank,
// pays nothing more when the bank's open row is the one it wants (a row hit),
// `activate` cycles when the bank has no open row (a miss), `precharge +
// activate` when another row is open (a conflict), then `latency` cycles for
// the column access and the data's return.  Requests to different banks
// overlap; the data bus takes one line per `interval` cycles, which is the
// peak bandwidth (64 / interval bytes per cycle).  Refresh, read/write
// turnaround and command-bus limits are not modelled (the docs say so).
//
// Storage is calloc'd, so the operating system backs only the pages a run
// touches: a 256 MiB device costs what its kernels and copies use.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "kestrel/transport.hpp"

namespace kestrel::rtlsim {

struct DramTiming {
  uint64_t latency = 20;   // a row hit's cycles from acceptance to response
  uint64_t interval = 1;   // cycles between two accepted requests (data bus)
  uint64_t banks = 1;      // a power of two
  uint64_t row_bytes = 0;  // bytes of a bank's row buffer, a power of two >= 64; 0: no rows
  uint64_t activate = 0;   // extra cycles to open a row in an idle bank (tRCD)
  uint64_t precharge = 0;  // extra cycles to close another open row first (tRP)
};

// The named timings: "ideal" (the default: latency 20, one line per cycle,
// no banks), "ddr3" (a 16-bit DDR3 board memory at an FPGA's 100 MHz kernel
// clock) and "hbm" (a GPU's HBM scaled to its SM clock).  Throws
// kestrel::Error(KESTREL_ERROR_INVALID_VALUE) for another name.
DramTiming dram_preset(const std::string& name);
// "ideal, ddr3, hbm", for messages and docs.
std::string dram_preset_list();
// Throws kestrel::Error(KESTREL_ERROR_INVALID_VALUE) naming the first field
// a DRAM cannot have (banks not a power of two, a row smaller than a line...).
void check_dram_timing(const DramTiming& timing);

// The timing alone: banks, open rows and the bus's pace, with the counters.
// Storage-free, so a memory with storage of its own (the SystemC platform's
// TLM memory) takes the same timing.
class DramBanks {
 public:
  explicit DramBanks(const DramTiming& timing);

  const DramTiming& timing() const { return timing_; }
  // Whether a request can be accepted at cycle `now` (the data bus's pace).
  bool accepts(uint64_t now) const { return now >= next_accept_; }
  // One line request arriving at `now` at a byte offset of the memory (a
  // write with `bytes_written` enabled bytes): the cycle its response is
  // ready, never before an earlier request's.  A request that arrives before
  // the bus can take it (a memory without backpressure) waits for it.
  uint64_t schedule(uint64_t now, uint64_t offset, bool write, uint64_t bytes_written);
  const DramCounters& counters() const { return counters_; }

 private:
  DramTiming timing_;
  unsigned row_shift_ = 0;           // log2(row_bytes); the bank is the next bits
  unsigned bank_shift_ = 0;          // log2(banks)
  std::vector<uint64_t> bank_free_;  // first cycle a bank takes its next access
  std::vector<int64_t> open_row_;    // -1: no open row
  uint64_t next_accept_ = 0;
  uint64_t last_response_ = 0;
  DramCounters counters_;
};

// The rtlsim backend's DRAM: storage and its timing.
class DramModel {
 public:
  DramModel(uint64_t bytes, const DramTiming& timing);

  uint64_t size() const { return bytes_; }
  uint8_t* data() { return storage_.get(); }
  const uint8_t* data() const { return storage_.get(); }
  const DramTiming& timing() const { return banks_.timing(); }

  // Whether a request can be accepted at cycle `now` (the data bus's pace).
  bool accepts(uint64_t now) const { return banks_.accepts(now); }

  // One line request accepted at `now`, at a line-aligned offset inside the
  // storage (the caller checks): a write stores the bytes of `wdata` whose
  // enable bit is set, a read copies the line into `rdata` (taken at
  // acceptance: the controller is in order).  Returns the cycle of its
  // response, never before an earlier request's.
  uint64_t access(uint64_t now, uint64_t offset, bool write, uint64_t byte_enables, const uint8_t* wdata,
                  uint8_t* rdata);

  const DramCounters& counters() const { return banks_.counters(); }

  // Which pages (KESTREL_PAGE_SIZE) line writes reached since the last
  // forget_writes(), one byte per page, nonzero where one did: lock-step
  // compares those pages of DRAM after a launch, not all of it.
  const uint8_t* pages_written() const { return pages_written_.data(); }
  void forget_writes() { std::fill(pages_written_.begin(), pages_written_.end(), uint8_t{0}); }

 private:
  struct FreeDeleter {
    void operator()(uint8_t* p) const { std::free(p); }
  };

  uint64_t bytes_;
  DramBanks banks_;
  std::unique_ptr<uint8_t, FreeDeleter> storage_;
  std::vector<uint8_t> pages_written_;
};

}  // namespace kestrel::rtlsim
