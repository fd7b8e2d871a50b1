// A loosely-timed TLM-2.0 memory: the device DRAM of the example platform
// (platform.hpp).  Byte-addressed from 0 (the bus subtracts the window's
// base); every access is annotated with a fixed latency, and direct memory
// interface (DMI) pointers are granted for reads and writes with the same
// latency, so initiators that use them see the same timing.
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <vector>

namespace kestrel::systemc {

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  // `latency`: the annotation of every access (b_transport and DMI).
  Memory(sc_core::sc_module_name name, uint64_t bytes, sc_core::sc_time latency);

  uint64_t size() const { return storage_.size(); }
  sc_core::sc_time latency() const { return latency_; }
  // Zeroes the memory and revokes every DMI pointer (a fresh device).
  void clear();

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  // TLM_OK_RESPONSE, or the error the payload earns (address, burst, byte
  // enables, command); on success copies the data.
  tlm::tlm_response_status access(tlm::tlm_generic_payload& trans);

  std::vector<unsigned char> storage_;
  sc_core::sc_time latency_;
};

}  // namespace kestrel::systemc
