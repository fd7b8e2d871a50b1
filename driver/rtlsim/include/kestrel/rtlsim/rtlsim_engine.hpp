// The Verilated GPU as a clocked engine for a host that supplies the memory:
// the SystemC component (platform/systemc) puts a TLM initiator behind the
// GPU's external memory port through LineMemory, and reads the cycle count to
// keep its simulated time.  The plain rtlsim backend is the same engine with
// its own DRAM model (rtlsim_transport.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "kestrel/transport.hpp"

namespace kestrel::rtlsim {

// What one line access of the GPU's memory port got.
struct LineAccess {
  uint64_t cycles = 1;  // until the response, at least 1 (0 is taken as 1)
  uint8_t fault = 0;    // enum kestrel_fault_kind; 0 when the access succeeded
};

// The GPU's external memory port (rtl/top/kestrel_gpu.sv): one request of a
// 64-byte line at a time, answered in order.
class LineMemory {
 public:
  virtual ~LineMemory() = default;
  // One access accepted at the engine's current cycle: a write stores the
  // bytes of `wdata` whose bit in `byte_enables` is set; a read fills
  // `rdata` (64 bytes).  `addr` is line-aligned unless the RTL is wrong, which
  // the memory answers with a fault.
  virtual LineAccess access(uint64_t addr, bool write, uint64_t byte_enables, const uint8_t* wdata,
                            uint8_t* rdata) = 0;
  // An untimed access for the host's copies and the instruction trace;
  // false when the range is not memory.
  virtual bool debug_access(uint64_t addr, void* data, size_t bytes, bool write) = 0;
};

class Engine : public Transport {
 public:
  // Clock cycles simulated since reset, register accesses included.
  virtual uint64_t cycles() const = 0;
  // Whether a launch runs (STATUS is RUNNING), without clocking the model.
  virtual bool running() const = 0;
  // Memory changed behind the GPU's back (another initiator wrote it): while
  // a launch runs, the GPU's caches drop their lines at the next clock edge
  // (mem_changed_i), so the kernel reads what was written.
  virtual void memory_changed() = 0;
};

// The preset matching `config` as rtlsim_transport.hpp chooses it, with its
// memory port on `memory` (which must outlive the engine); write_mem and
// read_mem go to memory.debug_access.  The options are rtlsim's but the
// memory timing ones (mem_latency, mem_interval: the memory has its own) and
// lockstep (the checker needs the harness's DRAM), which are refused with
// KESTREL_ERROR_NOT_SUPPORTED.
std::unique_ptr<Engine> make_rtlsim_engine(const BackendConfig& config, LineMemory& memory);

}  // namespace kestrel::rtlsim
