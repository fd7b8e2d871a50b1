#include "kestrel/systemc/memory.hpp"

#include <cmath>
#include <cstring>

#include "kestrel/error.hpp"

namespace kestrel::systemc {

Memory::Memory(sc_core::sc_module_name name, uint64_t bytes, sc_core::sc_time latency,
               const std::optional<rtlsim::DramTiming>& dram, sc_core::sc_time clock_period)
    : sc_core::sc_module(name),
      socket("socket"),
      bytes_(bytes),
      storage_(allocate()),
      latency_(latency),
      clock_period_(clock_period) {
  if (dram) {
    if (clock_period == sc_core::SC_ZERO_TIME)
      throw Error(KESTREL_ERROR_INVALID_VALUE, "systemc: a DRAM-timed memory needs a clock period");
    dram_.emplace(*dram);
  }
  socket.register_b_transport(this, &Memory::b_transport);
  socket.register_transport_dbg(this, &Memory::transport_dbg);
  socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
}

std::unique_ptr<unsigned char, Memory::FreeDeleter> Memory::allocate() const {
  std::unique_ptr<unsigned char, FreeDeleter> storage(
      static_cast<unsigned char*>(std::calloc(bytes_ + 1, 1)));
  if (!storage) throw Error(KESTREL_ERROR_OUT_OF_MEMORY, "systemc: cannot allocate the platform's memory");
  return storage;
}

bool Memory::dram_counters(DramCounters& out) const {
  if (!dram_) return false;
  out = dram_->counters();
  return true;
}

void Memory::clear() {
  // Initiators drop their pointers first; then fresh zero pages replace the
  // storage rather than zeros written over every byte.
  socket->invalidate_direct_mem_ptr(0, bytes_ - 1);
  storage_ = allocate();
}

tlm::tlm_response_status Memory::access(tlm::tlm_generic_payload& trans) {
  const uint64_t addr = trans.get_address();
  const unsigned length = trans.get_data_length();
  unsigned char* data = trans.get_data_ptr();
  const tlm::tlm_command command = trans.get_command();
  if (command != tlm::TLM_READ_COMMAND && command != tlm::TLM_WRITE_COMMAND)
    return tlm::TLM_COMMAND_ERROR_RESPONSE;
  if (addr >= bytes_ || length > bytes_ - addr) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  if (data == nullptr || (trans.get_streaming_width() != 0 && trans.get_streaming_width() < length))
    return tlm::TLM_BURST_ERROR_RESPONSE;
  const unsigned char* enables = trans.get_byte_enable_ptr();
  const unsigned enable_length = trans.get_byte_enable_length();
  if (enables != nullptr && enable_length == 0) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  unsigned char* bytes = storage_.get() + addr;
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
  if (!dram_) {
    delay += latency_;
    trans.set_dmi_allowed(true);
    return;
  }
  // The DRAM model times every 64-byte line the access covers, from the
  // cycle of the initiator's local time; the response is the last line's.
  const double period = clock_period_.to_seconds();
  const auto now =
      static_cast<uint64_t>(std::ceil((sc_core::sc_time_stamp() + delay).to_seconds() / period - 1e-9));
  const uint64_t first = trans.get_address() / 64,
                 last = (trans.get_address() + trans.get_data_length() - 1) / 64;
  const bool write = trans.is_write();
  uint64_t response = now;
  for (uint64_t line = first; line <= last; ++line) {
    const uint64_t begin = std::max<uint64_t>(line * 64, trans.get_address());
    const uint64_t end = std::min<uint64_t>((line + 1) * 64, trans.get_address() + trans.get_data_length());
    uint64_t enabled = 0;
    if (write) {
      const unsigned char* enables = trans.get_byte_enable_ptr();
      const unsigned enable_length = trans.get_byte_enable_length();
      for (uint64_t i = begin; i < end; ++i) {
        const uint64_t index = i - trans.get_address();
        enabled += enables == nullptr || enables[index % enable_length] == TLM_BYTE_ENABLED;
      }
    }
    response = dram_->schedule(now, line * 64, write, enabled);
  }
  delay += clock_period_ * static_cast<double>(response - now);
  trans.set_dmi_allowed(false);
}

unsigned Memory::transport_dbg(tlm::tlm_generic_payload& trans) {
  const uint64_t addr = trans.get_address();
  if (addr >= bytes_) return 0;
  const uint64_t room = bytes_ - addr;
  const unsigned length =
      trans.get_data_length() < room ? trans.get_data_length() : static_cast<unsigned>(room);
  if (trans.is_read())
    std::memcpy(trans.get_data_ptr(), storage_.get() + addr, length);
  else if (trans.is_write())
    std::memcpy(storage_.get() + addr, trans.get_data_ptr(), length);
  else
    return 0;
  return length;
}

bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  (void)trans;
  if (dram_) return false;  // every access is timed by the DRAM model
  dmi.set_dmi_ptr(storage_.get());
  dmi.set_start_address(0);
  dmi.set_end_address(bytes_ - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(latency_);
  dmi.set_write_latency(latency_);
  return true;
}

}  // namespace kestrel::systemc
