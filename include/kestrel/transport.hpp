// The host protocol as a C++ interface.  Every backend (functional model,
// Verilated RTL, FPGA board over USB) is a Transport: it exposes the register
// map of host_regs.h and a window onto device DRAM.  Everything above it
// (driver/device.cpp, the runtime) speaks only this interface, so nothing above
// the driver knows which backend runs.  docs/host-interface.md describes the
// protocol; the USB backend carries the same four operations as packets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace kestrel {

// Parameters a backend is built with.  A backend reports the values it really
// uses through the CONFIG registers; these are requests.
struct BackendConfig {
  unsigned xlen = 64;  // 64 (default, host-compatible layout) or 32
  unsigned num_sms = 2;
  unsigned warps_per_sm = 8;
  unsigned lanes_per_warp = 32;  // 32 by default; 4 and 8 are supported
  uint64_t mem_bytes = 256ull << 20;
  uint32_t shared_bytes_per_sm = 64 * 1024;
  uint32_t max_threads_per_block = 1024;
  unsigned sched_policy = 0;  // enum kestrel_sched_policy (host_regs.h): KESTREL_SCHED_LRR
  // Options of the one backend opened, by name: the backend checks them and
  // refuses a name it does not know (kestrel::Error
  // KESTREL_ERROR_INVALID_VALUE naming the ones it knows).  An option given
  // here wins over the environment variable of the same meaning.  The
  // rtlsim backend's (trace, lockstep, ...) are listed in
  // kestrel/rtlsim/rtlsim_transport.hpp; the model backend takes none.
  std::map<std::string, std::string> options;
};

// "lrr", "gto", or "policy N" for BackendConfig::sched_policy.
inline std::string sched_policy_name(unsigned policy) {
  if (policy == 0) return "lrr";
  if (policy == 1) return "gto";
  return "policy " + std::to_string(policy);
}

// What the memory behind the GPU did, counted since the backend was opened:
// the simulated backends' DRAM model (docs/memory-system.md).  The runtime
// takes the difference over a launch for its statistics.
struct DramCounters {
  uint64_t reads = 0;                // line reads served
  uint64_t writes = 0;               // line writes served
  uint64_t bytes_read = 0;           // whole lines read
  uint64_t bytes_written = 0;        // bytes whose byte enable was set
  uint64_t bus_bytes = 0;            // what the data bus carried: every request's whole line
  uint64_t row_hits = 0;             // the bank's open row was the one wanted
  uint64_t row_misses = 0;           // the bank had no open row
  uint64_t row_conflicts = 0;        // another row was open and had to close
  uint64_t read_latency_cycles = 0;  // sum over reads of cycles from acceptance to response
  double peak_bytes_per_cycle = 0;   // what the data bus can move
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::string name() const = 0;

  // Register access (host_regs.h).  Writing START to CONTROL begins a launch.
  virtual uint32_t read_reg(uint32_t offset) = 0;
  virtual void write_reg(uint32_t offset, uint32_t value) = 0;

  // Device DRAM access by device address, bypassing the page table (the host
  // may write pages the kernel may not).  Addresses outside DRAM throw
  // kestrel::Error(KESTREL_ERROR_INVALID_VALUE).
  virtual void write_mem(uint64_t addr, const void* src, size_t bytes) = 0;
  virtual void read_mem(uint64_t addr, void* dst, size_t bytes) = 0;

  // Returns once STATUS is no longer RUNNING.  Simulated backends do the
  // simulation work here.
  virtual void wait_idle() = 0;

  // Does up to about `cycles` device cycles of the launch in progress and
  // returns whether it still runs.  Between two calls the host may use
  // write_mem/read_mem (copies that overlap the kernel; races with the kernel
  // on the same bytes are the caller's, as on CUDA).  Simulated backends
  // simulate a slice here; a backend that cannot stop mid-launch runs it to
  // its end, which is what this default does.
  virtual bool advance(uint64_t cycles) {
    (void)cycles;
    wait_idle();
    return false;
  }
  // Whether advance() returns mid-launch, i.e. copies can overlap a kernel.
  virtual bool overlaps_copies() const { return false; }

  // The DRAM model's counters; false (and `out` untouched) for a backend
  // without one (the functional model, a board).
  virtual bool dram_counters(DramCounters& out) const {
    (void)out;
    return false;
  }
};

// Factory: "model" (functional model) is always available; "rtlsim" and "fpga"
// when built.  Throws kestrel::Error(KESTREL_ERROR_NO_DEVICE) for an unknown or
// unavailable backend.
std::unique_ptr<Transport> open_transport(const std::string& backend, const BackendConfig& config);

}  // namespace kestrel
