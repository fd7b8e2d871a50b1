// Kestrel's GPU as a TLM-2.0 component, in two builds with the same sockets:
// GpuRtl, cycle-accurate (the Verilated kestrel_gpu clocked from an
// SC_THREAD), and GpuModel, fast (the functional model, no pipeline).
//
//   registers  target socket: the 4 KiB register file of docs/host-interface.md,
//              32-bit reads and writes at word offsets, all bytes enabled.
//              Anything else answers TLM_COMMAND/ADDRESS/BURST/BYTE_ENABLE
//              _ERROR_RESPONSE; a register access the GPU refuses (a START the
//              launch checks reject) answers TLM_GENERIC_ERROR_RESPONSE with
//              an ErrorExtension.
//   memory     initiator socket: where the GPU's device memory is (the
//              platform's memory model, not a private DRAM).
//   irq        high from the end of a launch (completion or fault) to the next
//              START: the completion interrupt.
//
// Timing is loosely timed and quantum-based: while a launch runs, the
// component's thread simulates `quantum_cycles` GPU cycles, then waits their
// time (cycles x clock period); a register access is annotated with the
// cycles it took.  A launch that ends inside a quantum ends for the platform
// (STATUS, irq) when simulated time reaches its end.  An idle GPU costs no
// simulation.
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
  bool dmi = true;  // GpuRtl: use DMI pointers where the memory grants them
};

class GpuComponent : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<GpuComponent> registers;
  tlm_utils::simple_initiator_socket<GpuComponent> memory;
  sc_core::sc_out<bool> irq;

  ~GpuComponent() override;
  // A fresh GPU, for a new device: out of reset, no launch, no failure.
  void reset();
  // Another initiator wrote device memory: a running launch must see it, so
  // the cycle-accurate GPU's L2 drops its lines (mem_changed_i, as rtlsim's
  // copies do; the fast GPU reads memory directly and needs nothing).  The
  // example platform's bus calls it for every write that is not the GPU's
  // own (docs/systemc.md); a platform of the program's own design calls it
  // from its interconnect.
  virtual void memory_written() {}
  const BackendConfig& config() const { return config_; }

 protected:
  GpuComponent(sc_core::sc_module_name name, const BackendConfig& config, const GpuTiming& timing);

  // The device behind the sockets, made anew by restart(); may throw
  // kestrel::Error.
  virtual Transport& device() = 0;
  virtual void restart() = 0;
  // GPU cycles simulated so far (any origin; only differences count).
  virtual uint64_t cycles() = 0;
  virtual bool running() = 0;
  // The memory revoked DMI pointers in [start, end].
  virtual void revoke(uint64_t start, uint64_t end) = 0;

  BackendConfig config_;
  GpuTiming timing_;
  // cycles() when the quantum in progress began: the GPU runs ahead of
  // simulated time by cycles() minus this (its local time offset).
  uint64_t quantum_start_ = 0;

 private:
  SC_HAS_PROCESS(GpuComponent);
  void run();
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { revoke(start, end); }

  sc_core::sc_event launched_;
  bool ending_ = false;  // the launch ended inside the quantum being waited out
  // Why the GPU stopped simulating (a hang past rtlsim's backstop); every
  // later register access answers with it until reset().
  kestrel_status failure_status_ = KESTREL_SUCCESS;
  std::string failure_;
};

// The cycle-accurate GPU.  Every request of the RTL's memory port goes out on
// `memory`: a 64-byte line read, or a write with byte enables, at its device
// address.  Its response comes back ceil(annotated delay / clock period)
// cycles later (at least 1), in order, so a memory annotating L clock periods
// gives exactly rtlsim's timing with mem_latency L.  With DMI on, the GPU
// asks for a pointer and uses it with the DMI latency: the same timing,
// faster.  `config`: geometry and rtlsim options (preset, itrace), as for the
// rtlsim backend; throws kestrel::Error when no preset matches.
class GpuRtl final : public GpuComponent, private rtlsim::LineMemory {
 public:
  GpuRtl(sc_core::sc_module_name name, const BackendConfig& config, const GpuTiming& timing);

  void memory_written() override { engine_->memory_changed(); }

  // Whether line accesses may use DMI from now on (a study of the TLM cost
  // compares both without rebuilding the platform).
  void set_dmi(bool on);
  // Line accesses that went through b_transport and through DMI.
  uint64_t transported_lines() const { return transported_; }
  uint64_t dmi_lines() const { return dmi_lines_; }

 private:
  Transport& device() override { return *engine_; }
  void restart() override;
  uint64_t cycles() override { return engine_->cycles(); }
  bool running() override { return engine_->running(); }
  void revoke(uint64_t start, uint64_t end) override;
  rtlsim::LineAccess access(uint64_t addr, bool write, uint64_t byte_enables, const uint8_t* wdata,
                            uint8_t* rdata) override;
  bool debug_access(uint64_t addr, void* data, size_t bytes, bool write) override;

  std::unique_ptr<rtlsim::Engine> engine_;
  tlm::tlm_dmi dmi_;
  bool dmi_valid_ = false;
  uint64_t transported_ = 0;
  uint64_t dmi_lines_ = 0;
};

// The fast GPU: the functional model working directly on the platform's
// memory through a DMI pointer to all of device memory (it refuses to run
// without one: the model reads memory at every instruction).  Its cycles are
// the model's issue slots (docs/functional-model.md), so simulated time is a
// budget, not the RTL's timing; register accesses take no time.
class GpuModel final : public GpuComponent {
 public:
  GpuModel(sc_core::sc_module_name name, const BackendConfig& config, const GpuTiming& timing);

 private:
  Transport& device() override;
  void restart() override { model_.reset(); }
  uint64_t cycles() override;
  bool running() override;
  void revoke(uint64_t start, uint64_t end) override;

  std::unique_ptr<Transport> model_;  // made at the first access, on the DMI pointer
  uint64_t dram_start_ = 0;           // the range the pointer covers
  uint64_t dram_end_ = 0;
};

}  // namespace kestrel::systemc
