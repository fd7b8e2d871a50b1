#include "kestrel/systemc/host_port.hpp"

#include <cstdio>
#include <string>
#include <utility>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"
#include "kestrel/systemc/error_extension.hpp"

namespace kestrel::systemc {

HostPort::HostPort(sc_core::sc_module_name name, sc_core::sc_time clock_period, uint64_t register_base)
    : sc_core::sc_module(name),
      socket("socket"),
      irq("irq"),
      clock_period_(clock_period),
      register_base_(register_base) {
  SC_THREAD(serve);
}

void HostPort::serve() {
  for (;;) {
    if (pending_) {
      try {
        pending_();
      } catch (...) {
        thrown_ = std::current_exception();
      }
      pending_ = nullptr;
      done_ = true;
    }
    sc_core::sc_pause();
    wait(sc_core::SC_ZERO_TIME);
  }
}

void HostPort::call(const std::function<void()>& operation) {
  pending_ = operation;
  done_ = false;
  thrown_ = nullptr;
  while (!done_) {
    sc_core::sc_start();
    if (!done_ && !sc_core::sc_pending_activity()) {
      pending_ = nullptr;
      throw Error(
          KESTREL_ERROR_IO,
          "systemc: the platform has nothing left to simulate while the host waits (no interrupt came)");
    }
  }
  if (thrown_) std::rethrow_exception(std::exchange(thrown_, nullptr));
}

void HostPort::transport(tlm::tlm_command command, uint64_t addr, void* data, size_t bytes,
                         const char* what) {
  tlm::tlm_generic_payload trans;
  ErrorExtension why;
  trans.set_extension(&why);
  trans.set_command(command);
  trans.set_address(addr);
  trans.set_data_ptr(static_cast<unsigned char*>(data));
  trans.set_data_length(static_cast<unsigned>(bytes));
  trans.set_streaming_width(static_cast<unsigned>(bytes));
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket->b_transport(trans, delay);
  trans.clear_extension(&why);
  wait(delay);
  if (trans.is_response_ok()) return;
  if (why.status != KESTREL_SUCCESS) throw Error(why.status, why.message);
  char where[32];
  std::snprintf(where, sizeof where, "0x%llx", static_cast<unsigned long long>(addr));
  throw Error(KESTREL_ERROR_INVALID_VALUE, std::string("systemc: ") + what + " " + where + " + " +
                                               std::to_string(bytes) + " answered " +
                                               trans.get_response_string());
}

uint32_t HostPort::read_reg(uint32_t offset) {
  uint32_t value = 0;
  transport(tlm::TLM_READ_COMMAND, register_base_ + offset, &value, 4, "register read");
  return value;
}

void HostPort::write_reg(uint32_t offset, uint32_t value) {
  transport(tlm::TLM_WRITE_COMMAND, register_base_ + offset, &value, 4, "register write");
}

void HostPort::write_mem(uint64_t addr, const void* src, size_t bytes) {
  if (src == nullptr && bytes != 0)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "systemc: write_mem from a null pointer");
  if (addr < KESTREL_GLOBAL_BASE)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "systemc: write_mem below device memory");
  if (bytes != 0) transport(tlm::TLM_WRITE_COMMAND, addr, const_cast<void*>(src), bytes, "memory write");
}

void HostPort::read_mem(uint64_t addr, void* dst, size_t bytes) {
  if (dst == nullptr && bytes != 0)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "systemc: read_mem into a null pointer");
  if (addr < KESTREL_GLOBAL_BASE)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "systemc: read_mem below device memory");
  if (bytes != 0) transport(tlm::TLM_READ_COMMAND, addr, dst, bytes, "memory read");
}

void HostPort::wait_idle() {
  if (read_reg(KESTREL_REG_STATUS) != KESTREL_STATUS_RUNNING) return;
  while (!irq.read()) wait(irq.posedge_event());
}

bool HostPort::advance(uint64_t cycles) {
  if (!irq.read()) wait(clock_period_ * static_cast<double>(cycles), irq.posedge_event());
  return read_reg(KESTREL_REG_STATUS) == KESTREL_STATUS_RUNNING;
}

}  // namespace kestrel::systemc
