// The host side of a platform with Kestrel in it: register and memory
// transactions on the platform's interconnect, the GPU's interrupt, and the
// bridge between the caller's thread and the simulation, through which the
// driver backend "systemc" runs the Kestrel runtime (platform.hpp).
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>

namespace kestrel::systemc {

// The host side: register and memory transactions on the bus, the
// interrupt, and the bridge between the caller's thread and the simulation.
class HostPort : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<HostPort> socket;
  sc_core::sc_in<bool> irq;

  // `register_base`: where the interconnect puts the GPU's register file;
  // memory transactions use device addresses as they are.  `clock_period`:
  // the GPU's, for advance().
  HostPort(sc_core::sc_module_name name, sc_core::sc_time clock_period, uint64_t register_base);

  // Runs `operation` in the host's SC_THREAD, driving the simulation
  // (sc_start) until it returns; rethrows what it threw.  Call from outside
  // the simulation only.
  void call(const std::function<void()>& operation);

  // For operations (inside call()): blocking transactions, each followed by
  // a wait for its annotated delay.  Errors throw kestrel::Error, with the
  // component's ErrorExtension text when it gives one.
  uint32_t read_reg(uint32_t offset);
  void write_reg(uint32_t offset, uint32_t value);
  void write_mem(uint64_t addr, const void* src, size_t bytes);
  void read_mem(uint64_t addr, void* dst, size_t bytes);
  // Waits for the interrupt (or returns at once when no launch runs).
  void wait_idle();
  // Waits up to `cycles` GPU clock periods or the interrupt; whether the
  // launch still runs.
  bool advance(uint64_t cycles);

 private:
  SC_HAS_PROCESS(HostPort);
  void serve();
  void transport(tlm::tlm_command command, uint64_t addr, void* data, size_t bytes, const char* what);

  sc_core::sc_time clock_period_;
  uint64_t register_base_;
  std::function<void()> pending_;
  std::exception_ptr thrown_;
  bool done_ = false;
};

}  // namespace kestrel::systemc
