// kestrel::driver::Device speaks the host protocol of kestrel/host_regs.h over
// any Transport: it identifies the device, maps pages, programs and starts
// launches, and reads back status, fault records and counters.  It knows
// nothing about which backend runs behind the Transport.  docs/host-interface.md
// describes the protocol this class implements.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kestrel/host_regs.h"
#include "kestrel/transport.hpp"

namespace kestrel {

// The backend open_transport("") picks: $KESTREL_BACKEND when set, else the
// backend setting of KESTREL_CONFIG / KESTREL_CONFIG_FILE, else "rtlsim" when
// it was built, else "model".
std::string default_backend();

}  // namespace kestrel

namespace kestrel::driver {

// What the ID, VERSION and CONFIG registers say about the device.
struct DeviceInfo {
  uint32_t version = 0;  // major << 16 | minor
  unsigned xlen = 0;
  unsigned lanes_per_warp = 0;
  unsigned warps_per_sm = 0;
  unsigned num_sms = 0;
  uint32_t shared_bytes_per_sm = 0;
  uint32_t max_threads_per_block = 0;  // as CONFIG1 reports it
  uint64_t mem_base = 0;
  uint64_t mem_bytes = 0;
  uint32_t clock_khz = 0;
  // CONFIG2: the SM parameters
  unsigned sched_policy = 0;  // enum kestrel_sched_policy
  unsigned fpu_stages = 0;
  unsigned icache_lines = 0;
  // CONFIG3: the memory system
  uint64_t l2_bytes = 0;  // 0: no L2
  unsigned l2_ways = 0;
  bool mem_counters = false;  // the memory-system counter window exists
  bool texture_unit = false;  // the SMs run kx.tex (docs/isa.md section 2.5)
};

// The launch descriptor registers (KESTREL_REG_ENTRY_LO .. WATCHDOG).
struct LaunchRegs {
  uint64_t entry_pc = 0;
  uint64_t exit_pc = 0;
  uint64_t gp = 0;
  uint64_t param_addr = 0;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t shared_base = 0;
  uint32_t shared_static = 0;
  uint32_t shared_dyn = 0;
  uint32_t stack_bytes = 0;
  uint32_t local_backing = 0;
  uint32_t watchdog = 0;  // launch budget in 2^20-cycle units, 0 = none
};

enum class RunState { idle, running, done, fault };

// The fault record registers, decoded.
struct FaultRecord {
  int32_t kind = 0;  // enum kestrel_fault_kind
  uint64_t pc = 0;
  uint64_t address = 0;
  std::array<uint32_t, 3> block{};
  std::array<uint32_t, 3> thread{};
  uint32_t sm = 0;
  uint32_t warp = 0;
  uint32_t info = 0;
};

using CounterValues = std::array<uint64_t, KESTREL_CNT_COUNT>;
// One SM's counters (enum kestrel_sm_counter), from the per-SM window.
using SmCounterValues = std::array<uint64_t, KESTREL_SM_CNT_COUNT>;
// The memory-system counters (enum kestrel_mem_counter).
using MemCounterValues = std::array<uint64_t, KESTREL_MEM_CNT_COUNT>;

// "illegal address", "barrier deadlock", ...; nullptr for an unknown kind.
const char* fault_kind_text(int32_t kind);

// One line naming the kind, address, pc, block and thread, e.g.
// "illegal address 0x10002000 at pc 0x1234 in block (1,0,0) thread (33,0,0)".
std::string describe_fault(const FaultRecord& fault);

class Device {
 public:
  // Reads and validates ID and CONFIG; throws kestrel::Error
  // (KESTREL_ERROR_NO_DEVICE) when the other side is not a usable Kestrel device.
  explicit Device(std::unique_ptr<Transport> transport);

  const DeviceInfo& info() const { return info_; }
  std::string backend_name() const { return transport_->name(); }

  // Page table.  addr must be page aligned and [addr, addr + pages pages)
  // inside DRAM; perms is a set of KESTREL_PAGE_* bits (0 unmaps).
  void map_pages(uint64_t addr, uint32_t pages, uint32_t perms);
  void unmap_pages(uint64_t addr, uint32_t pages) { map_pages(addr, pages, 0); }

  // DRAM access by device address, bypassing the page table; the range must
  // lie inside DRAM (kestrel::Error KESTREL_ERROR_INVALID_VALUE otherwise).
  void write_mem(uint64_t addr, const void* src, size_t bytes);
  void read_mem(uint64_t addr, void* dst, size_t bytes);

  // Programs the launch registers and writes START.  The device must not be
  // running (KESTREL_ERROR_INVALID_VALUE otherwise).
  void launch(const LaunchRegs& regs);
  // Blocks until the launch in progress (if any) ends, then reports the state.
  RunState wait();
  // Does up to about `cycles` cycles of the launch in progress (simulated
  // backends simulate a slice) and returns whether it still runs.  write_mem
  // and read_mem between two calls overlap the kernel.
  bool advance(uint64_t cycles);
  // Whether advance() returns mid-launch on this backend.
  bool overlaps_copies() const { return transport_->overlaps_copies(); }
  RunState state();
  void abort();

  FaultRecord read_fault();
  CounterValues read_counters();
  // Whether the device has the per-SM counter window (VERSION at least
  // KESTREL_SM_COUNTERS_VERSION), and how many SMs it holds:
  // min(num_sms, KESTREL_SM_COUNTERS_MAX_SMS), 0 without the window.
  unsigned sm_counter_sms() const;
  // SM s's counters at [s], for s below sm_counter_sms(); empty without the
  // window (an older bitstream), never zeros in its place.
  std::vector<SmCounterValues> read_sm_counters();
  // The memory-system counter window (CONFIG3 bit 31); nullopt on a device
  // without it (the functional model, an older bitstream), never zeros.
  std::optional<MemCounterValues> read_mem_counters();
  // The backend's DRAM model counters, cumulative since it was opened; false
  // for a backend without a DRAM model (Transport::dram_counters).
  bool read_dram_counters(DramCounters& out) const { return transport_->dram_counters(out); }

 private:
  uint64_t read_reg64(uint32_t lo_offset);
  void write_reg64(uint32_t lo_offset, uint64_t value);
  void check_dram_range(uint64_t addr, uint64_t bytes, const char* what) const;

  std::unique_ptr<Transport> transport_;
  DeviceInfo info_;
};

}  // namespace kestrel::driver
