// The example platform's interconnect: any number of initiators (the host,
// the GPU's memory port) reach two windows, device memory at
// KESTREL_GLOBAL_BASE and the GPU's 4 KiB register file at kRegisterBase.  A
// target sees addresses relative to its window; DMI ranges are translated
// both ways.  An address in no window answers TLM_ADDRESS_ERROR_RESPONSE.
// A watcher may be told of every write that reaches memory through the bus
// (b_transport or debug), with the index of the initiator that made it: the
// platform keeps the GPU's caches coherent with the other initiators' writes
// that way.  Writes through a DMI pointer bypass the bus and are not seen.
#pragma once

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <functional>
#include <utility>

namespace kestrel::systemc {

// Where the platform puts the GPU's register file (docs/systemc.md).
constexpr uint64_t kRegisterBase = 0xF0000000u;
constexpr uint64_t kRegisterBytes = 0x1000;

class Bus : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Bus> initiators;
  tlm_utils::simple_initiator_socket<Bus> memory;
  tlm_utils::simple_initiator_socket<Bus> registers;

  Bus(sc_core::sc_module_name name, uint64_t memory_base, uint64_t memory_bytes);

  // Called after each write to memory that the bus carried, with the
  // initiator's index (the order in which initiators were bound, from 0).
  using WriteWatcher = std::function<void(int initiator)>;
  void watch_memory_writes(WriteWatcher watcher) { write_watcher_ = std::move(watcher); }

 private:
  struct Route {
    tlm_utils::simple_initiator_socket<Bus>* socket = nullptr;
    uint64_t base = 0;
  };
  // The window of `address`, or a null socket.
  Route route(uint64_t address) const;

  void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  void invalidate_memory(sc_dt::uint64 start, sc_dt::uint64 end);

  // Tells the watcher of a write `trans` made to memory through the bus, if
  // `done` (it succeeded).
  void written(int id, const tlm::tlm_generic_payload& trans, const Route& r, bool done) const;

  uint64_t memory_base_;
  uint64_t memory_bytes_;
  WriteWatcher write_watcher_;
};

}  // namespace kestrel::systemc
