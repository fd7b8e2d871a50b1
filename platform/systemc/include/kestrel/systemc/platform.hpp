// The example virtual platform (docs/systemc.md): device memory, the bus,
// the cycle-accurate GPU and the host's port, with the GPU's completion
// interrupt wired to the host.
//
//   HostPort --+                         +--> Memory (KESTREL_GLOBAL_BASE)
//              +--> Bus.initiators  Bus -+
//   gpu.memory ----+                     +--> gpu.registers (kRegisterBase)
//   gpu.irq ---------------------------------> HostPort.irq
//
// The GPU is the cycle-accurate GpuRtl or the fast GpuModel
// (gpu_component.hpp), with the same sockets.
//
// The driver's "systemc" backend (make_systemc_transport) runs the CUDA
// runtime on a Platform: every Transport operation becomes transactions that
// the host port issues from its SC_THREAD while the caller runs the SystemC
// scheduler (sc_start) until the operation is done.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "kestrel/systemc/bus.hpp"
#include "kestrel/systemc/gpu_component.hpp"
#include "kestrel/systemc/host_port.hpp"
#include "kestrel/systemc/memory.hpp"
#include "kestrel/transport.hpp"

namespace kestrel::systemc {

struct PlatformTiming {
  GpuTiming gpu;
  uint64_t memory_latency_cycles = 20;  // the memory's annotation, in GPU clock periods
  // A DRAM model times the memory instead (option dram: docs/memory-system.md).
  std::optional<rtlsim::DramTiming> dram;
};

enum class GpuKind { kCycleAccurate, kFast };

class Platform : public sc_core::sc_module {
 public:
  Memory memory;
  Bus bus;
  HostPort host;

  Platform(sc_core::sc_module_name name, const BackendConfig& config, const PlatformTiming& timing,
           GpuKind kind = GpuKind::kCycleAccurate);

  GpuComponent& gpu() { return *gpu_; }
  // The cycle-accurate GPU, or null when the platform has the fast one.
  GpuRtl* gpu_rtl() { return dynamic_cast<GpuRtl*>(gpu_.get()); }

  // A fresh device: the GPU out of reset, memory zeroed, the interrupt low.
  void reset();

 private:
  std::unique_ptr<GpuComponent> gpu_;
  sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS> irq_;
};

// The driver backend "systemc": a Transport on the platform that
// use_platform() named, or on one built from `config` and its backend
// options (gpu=rtl|model, clock_mhz, mem_latency, quantum, dmi, and the GPU's
// preset, max_cycles and itrace).  SystemC elaborates one design per process, so the
// process has one platform and one device open on it at a time; a second open
// while one is open, or an open whose geometry differs from the platform's,
// throws kestrel::Error(KESTREL_ERROR_NOT_SUPPORTED).
std::unique_ptr<Transport> make_systemc_transport(const BackendConfig& config);

// Makes `platform` (built by the program, e.g. with its own memory timing)
// the one the "systemc" backend opens devices on.  It must outlive them.
void use_platform(Platform& platform);

// The same for a platform of the program's own design: the backend drives
// `host`, which the program bound to its interconnect, and calls `reset`
// (may be empty) before every device but the first.
void use_host(HostPort& host, std::function<void()> reset);

}  // namespace kestrel::systemc
