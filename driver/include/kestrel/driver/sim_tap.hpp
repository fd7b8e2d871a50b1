// The tap of a simulated backend: what a backend reports, as it happens, to an
// observer that verification attaches to it, the way Ibex's RVFI port feeds
// its co-simulation.  The rtlsim backend (driver/rtlsim) calls an Observer
// for every host DRAM write and page mapping, each launch's START, every
// block dispatch and retired warp-instruction its RTL taps show, and the end
// of each launch; the observer answers whether what it saw agrees.  The
// backend knows only this interface.  The lock-step checker
// (verif/lockstep/lockstep_observer.cpp) is such an observer, built as a plug-in
// that the backend loads by name (load_observer) when asked to
// (KESTREL_LOCKSTEP=1, option "lockstep"); docs/host-interface.md, "Taps".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kestrel/model/gpu.hpp"
#include "kestrel/transport.hpp"

namespace kestrel::tap {

// Bumped whenever the interface below changes; a plug-in built against
// another version is refused.
constexpr int kVersion = 2;

// A block the hardware placed: its linear index, SM and warp slots in warp
// order.
struct Dispatch {
  uint32_t block_index = 0;
  uint32_t sm = 0;
  std::vector<uint32_t> warp_slots;
};

// One retired warp-instruction (the RTL's retire tap of one SM).
struct Retire {
  uint32_t sm = 0;
  uint32_t warp_slot = 0;
  uint64_t pc = 0;
  uint32_t mask = 0;
  bool rd_we = false;
  bool rd_fp = false;
  uint8_t rd = 0;
  std::vector<uint64_t> rd_data;  // one value per lane of the warp
  // A memory instruction's completion (LSU, kx.tex); how many of the warp's
  // memory instructions precede the record in program order, mod 16 (a
  // warp's later instructions may retire before its loads and stores).
  bool lsu = false;
  uint8_t mem_seq = 0;
};

// The backend's device DRAM (at KESTREL_GLOBAL_BASE), read-only.
struct Dram {
  const uint8_t* bytes = nullptr;
  size_t size = 0;
  // One byte per page (KESTREL_PAGE_SIZE), nonzero where the backend's
  // hardware wrote since the launch's START; null when the backend does not
  // know (then any page may differ).
  const uint8_t* pages_written = nullptr;
};

// What a backend tells an observer when it makes one.
struct ObserverArgs {
  BackendConfig config;  // the backend's geometry
  // The model's barrier watchdog that matches the backend's
  // (model::Config::barrier_watchdog).
  uint64_t barrier_watchdog = 1ull << 24;
  // Fault-injection test hooks of the observer's own input (lock-step: the
  // n-th register-writing retire record, the n-th atomic's), 0 for none.
  uint64_t inject = 0;
  uint64_t inject_atomic = 0;
};

class Observer {
 public:
  virtual ~Observer() = default;

  // The host wrote device DRAM; `during_launch`: while a launch runs (a copy
  // that overlaps the kernel).
  virtual void host_write(uint64_t addr, const void* src, size_t bytes, bool during_launch) = 0;
  // The host mapped pages (the page-map registers' request, as the backend
  // took it).
  virtual void host_map(uint64_t addr, uint32_t pages, uint32_t perms) = 0;
  // START of a launch with the descriptor registers' launch (its instruction
  // budget is the backend's watchdog), after the backend took it.
  virtual void launch_start(const model::LaunchDesc& launch, const Dram& dram) = 0;
  // The host aborted the launch, or the backend gave up on it.
  virtual void launch_abort() = 0;
  // The end of a launch that ran to its end: `fault` is its fault record, or
  // null when it completed.
  virtual void launch_end(const model::Fault* fault, const Dram& dram) = 0;

  // In the launch's cycle order: each dispatch and retire the hardware showed.
  virtual void dispatch(const Dispatch& d) = 0;
  virtual void retire(const Retire& r) = 0;

  // Whether everything so far agrees; a backend stops the launch at the
  // first disagreement and reports failure().
  virtual bool ok() const = 0;
  // The disagreement, one readable paragraph; `cycle`: the backend's cycle.
  virtual std::string failure(uint64_t cycle) const = 0;
};

// Loads the observer plug-in `name` (libkestrel-<name>.so) and makes an
// observer with `args`.  Looked for in the directories of $KESTREL_PLUGIN_PATH
// (colon separated), then beside the build's or the installed libraries
// (<libdir>/kestrel).  Throws kestrel::Error(KESTREL_ERROR_NOT_SUPPORTED)
// naming the places it looked when there is none, or its version differs.
std::unique_ptr<Observer> load_observer(const std::string& name, const ObserverArgs& args);

}  // namespace kestrel::tap

// What an observer plug-in exports (C linkage, so dlsym finds it by name).
extern "C" {
using kestrel_tap_version_fn = int (*)();
using kestrel_tap_make_observer_fn = kestrel::tap::Observer* (*)(const kestrel::tap::ObserverArgs* args);
}
