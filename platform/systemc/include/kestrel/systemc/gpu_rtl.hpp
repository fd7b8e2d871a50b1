// The cycle-accurate Kestrel GPU as a TLM-2.0 component: the Verilated
// kestrel_gpu (the rtlsim engine, kestrel/rtlsim/rtlsim_engine.hpp) clocked
// from an SC_THREAD.
//
//   registers  target socket: the 4 KiB register file of docs/host-interface.md,
//              32-bit reads and writes at word offsets, all bytes enabled.
//              Anything else answers TLM_COMMAND/ADDRESS/BURST/BYTE_ENABLE
//              _ERROR_RESPONSE; a register access the GPU refuses (a START the
//              launch checks reject) answers TLM_GENERIC_ERROR_RESPONSE with
//              an ErrorExtension.  A register access clocks the GPU until the
//              register port answers; the delay is annotated with those
//              cycles.
//   memory     initiator socket: every request of the GPU's memory port, a
//              64-byte line read or a write with byte enables at its device
//              address.  The response comes back ceil(annotated delay /
//              clock period) cycles later (at least 1), in order, so a memory
//              annotating L clock periods gives exactly rtlsim's timing with
//              mem_latency L.  With DMI on, the component asks for a pointer
//              and then uses it with the DMI latency: same timing, faster.
//   irq        high from the end of a launch (completion or fault) to the next
//              START: the completion interrupt.
//
// Timing: loosely timed.  The GPU's clock runs while a launch runs (the
// thread simulates `quantum` cycles, then waits their time) and while a
// register access waits for its answer; an idle GPU costs no simulation.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <memory>
#include <string>

#include "kestrel/rtlsim/rtlsim_engine.hpp"
#include "kestrel/status.h"
#include "kestrel/transport.hpp"

namespace kestrel::systemc {

struct GpuTiming {
  sc_core::sc_time clock_period = sc_core::sc_time(10, sc_core::SC_NS);  // 100 MHz
  uint64_t quantum_cycles = 1024;                                        // cycles simulated between two waits
  bool dmi = true;  // use DMI pointers where the memory grants them
};

class GpuRtl : public sc_core::sc_module, private rtlsim::LineMemory {
 public:
  tlm_utils::simple_target_socket<GpuRtl> registers;
  tlm_utils::simple_initiator_socket<GpuRtl> memory;
  sc_core::sc_out<bool> irq;

  // `config`: geometry and rtlsim options (preset, itrace), as for the rtlsim
  // backend; throws kestrel::Error when no preset matches.
  GpuRtl(sc_core::sc_module_name name, const BackendConfig& config, const GpuTiming& timing);
  ~GpuRtl() override;

  // A fresh GPU (a new Verilated model out of reset), for a new device.
  void reset();
  const BackendConfig& config() const { return config_; }
  const GpuTiming& timing() const { return timing_; }
  // Whether line accesses may use DMI from now on (a study of the TLM cost
  // can compare both without rebuilding the platform).
  void set_dmi(bool on) {
    timing_.dmi = on;
    dmi_valid_ = dmi_valid_ && on;
  }
  // Clock cycles since the last reset.
  uint64_t cycles() const { return engine_->cycles(); }
  // Line accesses that went through b_transport and through DMI.
  uint64_t transported_lines() const { return transported_; }
  uint64_t dmi_lines() const { return dmi_lines_; }

 private:
  SC_HAS_PROCESS(GpuRtl);
  void run();
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end);
  rtlsim::LineAccess access(uint64_t addr, bool write, uint64_t byte_enables, const uint8_t* wdata,
                            uint8_t* rdata) override;
  bool debug_access(uint64_t addr, void* data, size_t bytes, bool write) override;
  uint64_t to_cycles(const sc_core::sc_time& time) const;
  void fail(tlm::tlm_generic_payload& trans, kestrel_status status, const std::string& message);

  BackendConfig config_;
  GpuTiming timing_;
  std::unique_ptr<rtlsim::Engine> engine_;
  sc_core::sc_event launched_;
  // Why the GPU stopped simulating (a hang past the backstop); every later
  // register access answers with it.
  kestrel_status failure_status_ = KESTREL_SUCCESS;
  std::string failure_;
  tlm::tlm_dmi dmi_;
  bool dmi_valid_ = false;
  uint64_t transported_ = 0;
  uint64_t dmi_lines_ = 0;
};

}  // namespace kestrel::systemc
