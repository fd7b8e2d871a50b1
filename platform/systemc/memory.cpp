#include "kestrel/systemc/memory.hpp"

#include <cstring>

namespace kestrel::systemc {

Memory::Memory(sc_core::sc_module_name name, uint64_t bytes, sc_core::sc_time latency)
    : sc_core::sc_module(name), socket("socket"), storage_(bytes, 0), latency_(latency) {
  socket.register_b_transport(this, &Memory::b_transport);
  socket.register_transport_dbg(this, &Memory::transport_dbg);
  socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
}

void Memory::clear() {
  std::fill(storage_.begin(), storage_.end(), 0);
  socket->invalidate_direct_mem_ptr(0, storage_.size() - 1);
}

tlm::tlm_response_status Memory::access(tlm::tlm_generic_payload& trans) {
  const uint64_t addr = trans.get_address();
  const unsigned length = trans.get_data_length();
  unsigned char* data = trans.get_data_ptr();
  const tlm::tlm_command command = trans.get_command();
  if (command != tlm::TLM_READ_COMMAND && command != tlm::TLM_WRITE_COMMAND)
    return tlm::TLM_COMMAND_ERROR_RESPONSE;
  if (addr >= storage_.size() || length > storage_.size() - addr) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  if (data == nullptr || (trans.get_streaming_width() != 0 && trans.get_streaming_width() < length))
    return tlm::TLM_BURST_ERROR_RESPONSE;
  const unsigned char* enables = trans.get_byte_enable_ptr();
  const unsigned enable_length = trans.get_byte_enable_length();
  if (enables != nullptr && enable_length == 0) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  unsigned char* bytes = storage_.data() + addr;
  for (unsigned i = 0; i < length; ++i) {
    if (enables != nullptr && enables[i % enable_length] != TLM_BYTE_ENABLED) continue;
    if (command == tlm::TLM_READ_COMMAND)
      data[i] = bytes[i];
    else
      bytes[i] = data[i];
  }
  return tlm::TLM_OK_RESPONSE;
}

void Memory::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const tlm::tlm_response_status status = access(trans);
  trans.set_response_status(status);
  if (status != tlm::TLM_OK_RESPONSE) return;
  delay += latency_;
  trans.set_dmi_allowed(true);
}

unsigned Memory::transport_dbg(tlm::tlm_generic_payload& trans) {
  const uint64_t addr = trans.get_address();
  if (addr >= storage_.size()) return 0;
  const uint64_t room = storage_.size() - addr;
  const unsigned length =
      trans.get_data_length() < room ? trans.get_data_length() : static_cast<unsigned>(room);
  if (trans.is_read())
    std::memcpy(trans.get_data_ptr(), storage_.data() + addr, length);
  else if (trans.is_write())
    std::memcpy(storage_.data() + addr, trans.get_data_ptr(), length);
  else
    return 0;
  return length;
}

bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  (void)trans;
  dmi.set_dmi_ptr(storage_.data());
  dmi.set_start_address(0);
  dmi.set_end_address(storage_.size() - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(latency_);
  dmi.set_write_latency(latency_);
  return true;
}

}  // namespace kestrel::systemc
