// The interface Gpu forwards to.  The interpreter behind it is a template on
// the register width (machine.hpp), so RV32 and RV64 each get a hot loop with
// no XLEN tests in it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "kestrel/model/gpu.hpp"

namespace kestrel::model {

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const Config& config() const = 0;
  virtual void write_mem(uint64_t addr, const void* src, size_t bytes) = 0;
  virtual void read_mem(uint64_t addr, void* dst, size_t bytes) const = 0;
  virtual void map_pages(uint64_t addr, uint64_t pages, uint32_t perms) = 0;
  virtual uint32_t page_perms(uint64_t addr) const = 0;
  virtual void start(const LaunchDesc& desc, Dispatch dispatch) = 0;
  virtual void run() = 0;
  virtual bool run_for(uint64_t rounds) = 0;
  virtual void set_retire_observer(RetireObserver observer) = 0;
  virtual void abort() = 0;
  virtual LaunchState state() const = 0;
  virtual const Fault& fault() const = 0;
  virtual const Counters& counters() const = 0;
  virtual SmCounters sm_counters(uint32_t sm) const = 0;
  virtual void place_block(uint32_t block_index, uint32_t sm, const std::vector<uint32_t>& warp_slots) = 0;
  // `oracle`: null, or the RTL's values for GPU lock-step (gpu.hpp).
  virtual Retire step(uint32_t sm, uint32_t warp_slot, const AtomicOracle* oracle) = 0;
  virtual bool warp_resident(uint32_t sm, uint32_t warp_slot) const = 0;
  virtual uint64_t xreg(uint32_t sm, uint32_t warp_slot, uint32_t lane, unsigned reg) const = 0;
  virtual void set_xreg(uint32_t sm, uint32_t warp_slot, uint32_t lane, unsigned reg, uint64_t value) = 0;
  virtual uint32_t freg(uint32_t sm, uint32_t warp_slot, uint32_t lane, unsigned reg) const = 0;
  virtual uint32_t fcsr(uint32_t sm, uint32_t warp_slot, uint32_t lane) const = 0;
  virtual uint64_t thread_pc(uint32_t sm, uint32_t warp_slot, uint32_t lane, bool* exited) const = 0;
};

// Throws kestrel::Error(KESTREL_ERROR_INVALID_VALUE) for an unbuildable config.
std::unique_ptr<Engine> make_engine(const Config& config);

}  // namespace kestrel::model
