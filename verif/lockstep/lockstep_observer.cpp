// Lock-step as a tap observer (kestrel/driver/sim_tap.hpp): the functional
// model runs beside a simulated backend, sees the same DRAM writes, page
// mappings and launches, and is stepped warp by warp in the order the
// backend's retire tap reports; every dispatch and retired warp-instruction
// is compared (Checker), and at the end of a launch the fault record or the
// model's completion and device DRAM.  Built as the plug-in
// libkestrel-lockstep.so, which the rtlsim backend loads for KESTREL_LOCKSTEP=1
// (docs/host-interface.md, "Taps").
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kestrel/abi.h"
#include "kestrel/driver/sim_tap.hpp"
#include "kestrel/error.hpp"
#include "kestrel/model/gpu.hpp"
#include "kestrel/model/model_transport.hpp"
#include "lockstep.hpp"

namespace kestrel::lockstep {
namespace {

class LockstepObserver final : public tap::Observer {
 public:
  explicit LockstepObserver(const tap::ObserverArgs& args) : args_(args), gpu_(model_config(args)) {}

  void host_write(uint64_t addr, const void* src, size_t bytes, bool during_launch) override {
    if (active_ && during_launch) {
      // A copy that overlaps the kernel reaches the backend's loads at the
      // cycle it is made but the model's at their retire, so the launch
      // cannot be compared from here on: it runs unchecked, and the model
      // takes all of DRAM from the backend before the next launch.
      active_ = false;
      gpu_.abort();
      resync_ = true;
    }
    if (!resync_) gpu_.write_mem(addr, src, bytes);
  }

  void host_map(uint64_t addr, uint32_t pages, uint32_t perms) override {
    // The RTL page table ignores a range outside DRAM the same way the model
    // refuses it; only a mapping both accept matters afterwards.
    try {
      gpu_.map_pages(addr, pages, perms);
    } catch (const Error&) {
    }
  }

  void launch_start(const model::LaunchDesc& launch, const tap::Dram& dram) override {
    if (resync_) {
      gpu_.write_mem(KESTREL_GLOBAL_BASE, dram.bytes, dram.size);
      resync_ = false;
    }
    model::LaunchDesc d = launch;
    // The watchdog is the backend's (its cycle count); the model's own
    // cycles would stop a warp step at a different point.
    d.cycle_budget = 0;
    gpu_.start(d, model::Dispatch::kManual);
    // Several SMs race for global atomics at the memory side: the checker
    // follows the backend's order (lockstep.hpp).  One SM's reach memory in
    // retire order, so the model performs them itself.
    checker_ = std::make_unique<Checker>(gpu_, d, gpu_.config().num_sms > 1);
    active_ = true;
    error_.clear();
  }

  void launch_abort() override {
    active_ = false;
    gpu_.abort();
  }

  void launch_end(const model::Fault* fault, const tap::Dram& dram) override {
    if (!active_) return;
    active_ = false;
    Checker& checker = *checker_;
    if (!checker.ok()) return;
    if (fault != nullptr) {
      // A watchdog TIMEOUT names no thread: the budget is counted by the
      // backend's counters only (the model ran without one).
      if (fault->kind != KESTREL_FAULT_TIMEOUT) checker.fault(*fault);
      // DRAM is not compared after a fault (warps of other SMs may have gone
      // on past the model's point): the model takes the backend's DRAM
      // before the next launch.
      resync_ = true;
      return;
    }
    checker.finish();
    if (checker.ok()) {
      checker.finish_atomics(
          [&dram](uint64_t addr, unsigned bytes) {
            uint64_t value = 0;
            std::memcpy(&value, dram.bytes + (addr - KESTREL_GLOBAL_BASE), bytes);
            return value;
          },
          false);
    }
    if (checker.ok()) compare_dram(dram);
  }

  void dispatch(const tap::Dispatch& d) override {
    if (!active_ || !checker_->ok()) return;
    checker_->place_block(d.block_index, d.sm, d.warp_slots);
  }

  void retire(const tap::Retire& r) override {
    if (!active_ || !checker_->ok()) return;
    RtlRetire rtl;
    rtl.sm = r.sm;
    rtl.warp_slot = r.warp_slot;
    rtl.pc = r.pc;
    rtl.mask = r.mask;
    rtl.rd_we = r.rd_we;
    rtl.rd_fp = r.rd_fp;
    rtl.rd = r.rd;
    rtl.rd_data = r.rd_data;
    rtl.lsu = r.lsu;
    rtl.mem_seq = r.mem_seq;
    if (rtl.rd_we) {
      if (++writes_seen_ == args_.inject && rtl.mask != 0) flip_first_lane(rtl);  // must be seen as wrong
      if (args_.inject_atomic != 0 && is_atomic(rtl.pc) && ++atomics_seen_ == args_.inject_atomic &&
          rtl.mask != 0) {
        flip_first_lane(rtl);  // a wrong old value: the atomic chain check must catch it
      }
    }
    checker_->retire(rtl);
  }

  bool ok() const override { return error_.empty() && (!checker_ || checker_->ok()); }

  std::string failure(uint64_t cycle) const override {
    const std::string diff = checker_ && !checker_->ok() ? checker_->error() : error_;
    const uint64_t compared = checker_ ? checker_->compared() : 0;
    return "lock-step mismatch (RTL vs functional model) after " + std::to_string(compared) +
           " instructions at cycle " + std::to_string(cycle) + ": " + diff;
  }

 private:
  static model::Config model_config(const tap::ObserverArgs& args) {
    model::Config m = model::model_config(args.config);
    m.barrier_watchdog = args.barrier_watchdog;
    return m;
  }

  void flip_first_lane(RtlRetire& rtl) const {
    unsigned lane = 0;
    while (((rtl.mask >> lane) & 1u) == 0) ++lane;
    rtl.rd_data[lane] ^= 1;
  }

  // Whether the instruction at `pc` has the A extension's or custom-1's
  // opcode (the atomics of docs/isa.md section 2.2); the model's DRAM holds
  // the same code as the backend's.
  bool is_atomic(uint64_t pc) const {
    if (pc < KESTREL_GLOBAL_BASE || pc - KESTREL_GLOBAL_BASE + 4 > gpu_.config().mem_bytes) return false;
    uint8_t first = 0;
    gpu_.read_mem(pc, &first, 1);
    const unsigned opcode = first & 0x7Fu;
    return opcode == 0x2F || opcode == 0x2B;
  }

  // Device DRAM must be the same on both sides after a launch without fault
  // (stores write no register, so the retire records do not show them).
  void compare_dram(const tap::Dram& dram) {
    error_ = dram_difference(gpu_, dram.bytes, dram.size, dram.pages_written);
  }

  tap::ObserverArgs args_;
  model::Gpu gpu_;
  std::unique_ptr<Checker> checker_;
  bool active_ = false;        // a launch is being checked
  bool resync_ = false;        // DRAM changed under an unchecked launch: copy it at the next START
  uint64_t writes_seen_ = 0;   // register-writing retire records, for ObserverArgs::inject
  uint64_t atomics_seen_ = 0;  // register-writing atomic retire records, for ObserverArgs::inject_atomic
  std::string error_;          // a mismatch found outside the checker (DRAM)
};

}  // namespace
}  // namespace kestrel::lockstep

extern "C" {

__attribute__((visibility("default"))) int kestrel_tap_version() { return kestrel::tap::kVersion; }

__attribute__((visibility("default"))) kestrel::tap::Observer* kestrel_tap_make_observer(
    const kestrel::tap::ObserverArgs* args) {
  return new kestrel::lockstep::LockstepObserver(*args);
}

}  // extern "C"
