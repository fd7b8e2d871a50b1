// A loosely-timed TLM-2.0 memory: the device DRAM of the example platform
// (platform.hpp).  Byte-addressed from 0 (the bus subtracts the window's
// base).  Two timings:
// * fixed: every access is annotated with one latency, and direct memory
//   interface (DMI) pointers are granted for reads and writes with the same
//   latency, so initiators that use them see the same timing;
// * DRAM: rtlsim's DRAM model (kestrel/rtlsim/dram_model.hpp: banks, open
//   rows, the bus's pace) times each access, one 64-byte line at a time, in
//   GPU clock periods from the access's local time; no DMI, since a DMI
//   access would bypass the timing.
// Storage is calloc'd: the operating system backs the pages a run touches.
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>

#include "kestrel/rtlsim/dram_model.hpp"
#include "kestrel/transport.hpp"

namespace kestrel::systemc {

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  // `latency`: the annotation of every access (b_transport and DMI); with
  // `dram`, a DRAM model of that timing, in cycles of `clock_period`, times
  // the accesses instead.
  Memory(sc_core::sc_module_name name, uint64_t bytes, sc_core::sc_time latency,
         const std::optional<rtlsim::DramTiming>& dram = std::nullopt,
         sc_core::sc_time clock_period = sc_core::SC_ZERO_TIME);

  uint64_t size() const { return bytes_; }
  sc_core::sc_time latency() const { return latency_; }
  // The DRAM model's counters, false for the fixed timing.
  bool dram_counters(DramCounters& out) const;
  // Zeroes the memory and revokes every DMI pointer (a fresh device); the
  // DRAM model's counters go on.
  void clear();

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  // TLM_OK_RESPONSE, or the error the payload earns (address, burst, byte
  // enables, command); on success copies the data.
  tlm::tlm_response_status access(tlm::tlm_generic_payload& trans);

  struct FreeDeleter {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char, FreeDeleter> allocate() const;

  uint64_t bytes_;
  std::unique_ptr<unsigned char, FreeDeleter> storage_;
  sc_core::sc_time latency_;
  std::optional<rtlsim::DramBanks> dram_;  // the DRAM timing, when chosen
  sc_core::sc_time clock_period_;          // its cycle
};

}  // namespace kestrel::systemc
