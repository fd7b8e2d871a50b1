#include "kestrel/systemc/bus.hpp"

namespace kestrel::systemc {

Bus::Bus(sc_core::sc_module_name name, uint64_t memory_base, uint64_t memory_bytes)
    : sc_core::sc_module(name),
      initiators("initiators"),
      memory("memory"),
      registers("registers"),
      memory_base_(memory_base),
      memory_bytes_(memory_bytes) {
  initiators.register_b_transport(this, &Bus::b_transport);
  initiators.register_transport_dbg(this, &Bus::transport_dbg);
  initiators.register_get_direct_mem_ptr(this, &Bus::get_direct_mem_ptr);
  memory.register_invalidate_direct_mem_ptr(this, &Bus::invalidate_memory);
}

Bus::Route Bus::route(uint64_t address) const {
  if (address >= memory_base_ && address - memory_base_ < memory_bytes_)
    return {const_cast<tlm_utils::simple_initiator_socket<Bus>*>(&memory), memory_base_};
  if (address >= kRegisterBase && address - kRegisterBase < kRegisterBytes)
    return {const_cast<tlm_utils::simple_initiator_socket<Bus>*>(&registers), kRegisterBase};
  return {};
}

void Bus::b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t address = trans.get_address();
  const Route r = route(address);
  if (r.socket == nullptr) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  trans.set_address(address - r.base);
  (*r.socket)->b_transport(trans, delay);
  trans.set_address(address);
  written(id, trans, r, trans.is_response_ok());
}

void Bus::written(int id, const tlm::tlm_generic_payload& trans, const Route& r, bool done) const {
  if (done && write_watcher_ && r.socket == &memory && trans.is_write()) write_watcher_(id);
}

unsigned Bus::transport_dbg(int id, tlm::tlm_generic_payload& trans) {
  const uint64_t address = trans.get_address();
  const Route r = route(address);
  if (r.socket == nullptr) return 0;
  trans.set_address(address - r.base);
  const unsigned done = (*r.socket)->transport_dbg(trans);
  trans.set_address(address);
  // A debug transaction has no response status: what it moved counts.
  written(id, trans, r, done != 0);
  return done;
}

bool Bus::get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  (void)id;
  const uint64_t address = trans.get_address();
  const Route r = route(address);
  // Registers have side effects: only memory hands out pointers.
  if (r.socket != &memory) return false;
  trans.set_address(address - r.base);
  const bool granted = memory->get_direct_mem_ptr(trans, dmi);
  trans.set_address(address);
  if (!granted) return false;
  dmi.set_start_address(dmi.get_start_address() + r.base);
  dmi.set_end_address(dmi.get_end_address() + r.base);
  return true;
}

void Bus::invalidate_memory(sc_dt::uint64 start, sc_dt::uint64 end) {
  for (unsigned i = 0; i < initiators.size(); ++i)
    initiators[i]->invalidate_direct_mem_ptr(start + memory_base_, end + memory_base_);
}

}  // namespace kestrel::systemc
