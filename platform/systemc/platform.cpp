#include "kestrel/systemc/platform.hpp"

#include "kestrel/abi.h"

namespace kestrel::systemc {

// ---- Platform --------------------------------------------------------------

Platform::Platform(sc_core::sc_module_name name, const BackendConfig& config, const PlatformTiming& timing,
                   GpuKind kind)
    : sc_core::sc_module(name),
      memory("memory", config.mem_bytes,
             timing.gpu.clock_period * static_cast<double>(timing.memory_latency_cycles), timing.dram,
             timing.gpu.clock_period),
      bus("bus", KESTREL_GLOBAL_BASE, config.mem_bytes),
      host("host", timing.gpu.clock_period, kRegisterBase),
      irq_("irq") {
  if (kind == GpuKind::kCycleAccurate)
    gpu_ = std::make_unique<GpuRtl>("gpu", config, timing.gpu);
  else
    gpu_ = std::make_unique<GpuModel>("gpu", config, timing.gpu);
  // The bus numbers its initiators in binding order: the host 0, the GPU 1.
  host.socket.bind(bus.initiators);
  gpu_->memory.bind(bus.initiators);
  constexpr int kGpuInitiator = 1;
  bus.watch_memory_writes([this](int initiator) {
    if (initiator != kGpuInitiator) gpu_->memory_written();
  });
  bus.memory.bind(memory.socket);
  bus.registers.bind(gpu_->registers);
  gpu_->irq(irq_);
  host.irq(irq_);
}

void Platform::reset() {
  gpu_->reset();
  memory.clear();
  irq_.write(false);
}

}  // namespace kestrel::systemc
