// The rtlsim harness: one class, templated on the Verilated kestrel_gpu of a
// preset, that owns the model and its VerilatedContext, drives the host
// register port, answers the external memory port from a C++ DRAM model
// (kestrel/rtlsim/dram_model.hpp: latency, bandwidth, banks and rows), and on
// request
//
// * reports to a tap observer (kestrel/driver/sim_tap.hpp) every host DRAM
//   write and page mapping, each launch's START and end (fault record,
//   device DRAM), and every block dispatch and retired warp-instruction the
//   RTL shows on its lock-step taps; the first disagreement the observer
//   finds aborts the launch and wait_idle() throws it as text.  Lock-step
//   with the functional model is such an observer, a plug-in that
//   verification builds (verif/lockstep) and the harness loads by name;
// * writes an FST waveform of the whole run or of a cycle window (only in a
//   preset Verilated with --trace-fst: the `trace` preset of every build, or
//   every preset with KESTREL_RTLSIM_TRACE; `Traced` says which).
//
// Host DRAM accesses (write_mem/read_mem) go to the DRAM model directly,
// between clock cycles, so a copy made between two advance() calls overlaps
// the running kernel as a board's copy engine would (docs/host-interface.md);
// such a write raises the GPU's mem_changed_i for the next cycle, so that
// its L2 drops the lines the copy may have changed.
// Private to driver/rtlsim and the rtlsim benches.
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "kestrel/abi.h"
#include "kestrel/driver/sim_tap.hpp"
#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"
#include "kestrel/model/gpu.hpp"
#include "kestrel/model/host_registers.hpp"
#include "kestrel/model/itrace.hpp"
#include "kestrel/rtlsim/dram_model.hpp"
#include "kestrel/rtlsim/rtlsim_engine.hpp"
#include "kestrel/transport.hpp"
#include "kestrel_contract.hpp"

namespace kestrel::rtlsim::detail {

constexpr uint64_t kPageTableCapacity = 256ull << 20;  // kestrel_gpu MemBytes
constexpr uint32_t kSharedBytesPerSm = 64 * 1024;      // kestrel_gpu SharedBytes
constexpr uint32_t kLineBytes = contract::kLineBytes;
// The model's barrier watchdog for the RTL's kestrel_pkg::BarrierWatchdogLog2
// (24): the RTL starts counting with the retire after the first arrival, the
// model counts the arrival too.
constexpr uint64_t kBarrierWatchdog = (uint64_t{1} << 24) + 1;

// The layouts of kestrel_pkg's mem_req_t, mem_rsp_t and reg_req_t come from
// the generated kestrel_contract.hpp (tools/contract/contract.toml).
namespace mem_req = contract::mem_req;
namespace mem_rsp = contract::mem_rsp;

inline uint64_t reg_request(bool write, uint32_t offset, uint32_t value) {
  contract::RegReq r;
  r.write = write;
  r.addr = static_cast<uint16_t>(offset & 0xFFF);
  r.wdata = value;
  return r.to_bits();
}

// A field of a Verilated port of any width: CData/SData/IData/QData or VlWide.
template <typename T>
uint64_t port_bits(const T& port, unsigned lsb, unsigned width) {
  if constexpr (std::is_integral_v<T>) {
    const uint64_t value = static_cast<uint64_t>(port) >> lsb;
    return width >= 64 ? value : value & ((uint64_t{1} << width) - 1);
  } else {
    return contract::get_bits(port.data(), lsb, width);
  }
}

inline std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

// What a harness is asked to do beyond the BackendConfig geometry: memory
// timing, lock-step, tracing (options_from() fills it from the config and the
// environment).
struct Options {
  // The DRAM model's timing: option dram (a preset), then mem_latency,
  // mem_interval, dram_banks, dram_row_bytes, dram_activate, dram_precharge.
  DramTiming dram;
  uint64_t max_cycles = 0;          // KESTREL_RTLSIM_MAX_CYCLES; 0: the watchdog's budget and a margin
  bool lockstep = false;            // option "lockstep" or KESTREL_LOCKSTEP=1
  std::string trace_path;           // option "trace" or KESTREL_TRACE
  std::string itrace_path;          // option "itrace": the instruction trace (kestrel/model/itrace.hpp)
  uint64_t trace_start = 0;         // first cycle dumped
  uint64_t trace_end = UINT64_MAX;  // first cycle no longer dumped
  // Test hook (KESTREL_LOCKSTEP_INJECT=n), passed to the lock-step observer
  // (tap::ObserverArgs): the n-th retire record that writes
  // a register reaches the checker with one bit of its first active lane
  // flipped, a fault injected into the checker's input to prove that a
  // mismatch is caught and reported.  0: none.
  uint64_t inject = 0;
  // Test hook (KESTREL_LOCKSTEP_INJECT_ATOMIC=n): the same for the n-th
  // retire record of an atomic (A extension or custom-1 opcode) that writes a
  // register: the old value the RTL returned to its first active lane is
  // wrong, which GPU lock-step must catch although it takes the old values
  // of global atomics from the RTL.  0: none.
  uint64_t inject_atomic = 0;
};

// Options from the config's backend options and the environment
// (rtlsim_transport.cpp); throws kestrel::Error for an unknown option, a
// malformed value or a trace request in a build without tracing.
Options options_from(const BackendConfig& config);
// Throws kestrel::Error for a DRAM or shared-memory size the RTL cannot have.
void check_config(const BackendConfig& config);

// `memory`: where the GPU's memory port goes; null for the harness's own DRAM
// model (Options::dram), which is then also what write_mem and read_mem
// reach.  `Traced`: the model was Verilated with --trace-fst
// (only then are the FST writer's symbols used, so untraced builds need not
// link it).
template <typename Model, bool Traced = false>
class Harness final : public Engine {
 public:
  Harness(const BackendConfig& config, const Options& options, LineMemory* memory)
      : config_(config),
        options_(options),
        context_(std::make_unique<VerilatedContext>()),
        memory_(memory),
        dram_(memory == nullptr ? config.mem_bytes : 0, memory == nullptr ? options.dram : DramTiming{}) {
    context_->randReset(0);
    if constexpr (Traced) {
      if (!options_.trace_path.empty()) context_->traceEverOn(true);
    } else if (!options_.trace_path.empty()) {
      throw Error(KESTREL_ERROR_NOT_SUPPORTED, "rtlsim: this preset was built without waveform tracing");
    }
    model_ = std::make_unique<Model>(context_.get(), "kestrel_gpu");
    if constexpr (Traced) {
      if (!options_.trace_path.empty()) {
        trace_ = TracePtr(new VerilatedFstC, [](VerilatedFstC* t) { delete t; });
        model_->trace(trace_.get(), 99);
        trace_->open(options_.trace_path.c_str());
        if (!trace_->isOpen()) {
          throw Error(KESTREL_ERROR_IO, "rtlsim: cannot open the trace file '" + options_.trace_path + "'");
        }
      }
    }
    if (!options_.itrace_path.empty())
      itrace_ = std::make_unique<model::InstructionTrace>(options_.itrace_path, config.xlen);
    if (options_.lockstep) {
      tap::ObserverArgs args;
      args.config = config;
      args.barrier_watchdog = kBarrierWatchdog;
      args.inject = options_.inject;
      args.inject_atomic = options_.inject_atomic;
      observer_ = tap::load_observer("lockstep", args);
    }
    model_->dram_kb_i = static_cast<uint32_t>(config.mem_bytes / 1024);
    model_->mem_changed_i = 0;
    model_->reg_req_valid_i = 0;
    model_->reg_rsp_ready_i = 1;
    model_->mem_req_ready_i = 0;
    model_->mem_rsp_valid_i = 0;
    model_->clk_i = 0;
    // A falling edge of rst_ni: the signals start at 0 (randReset(0)), and
    // without an edge the asynchronous resets would never be applied, so a
    // flop whose reset value is not 0 would start wrong in simulation only.
    model_->rst_ni = 1;
    model_->eval();
    model_->rst_ni = 0;
    model_->eval();
    model_->rst_ni = 1;
    model_->eval();
    // The page table's clearing pass runs after reset; register requests wait
    // for it (req_ready), so nothing else is needed here.
  }
  ~Harness() override {
    // Verilator 5.006 erases a model's scopes from the thread's current
    // context (Verilated::threadContextp), which is the context constructed
    // last on this thread: another harness's, perhaps destroyed already (two
    // devices open, the second closed first hung here on its freed mutex).
    // Ours while the model goes, none afterwards.
    Verilated::threadContextp(context_.get());
    if constexpr (Traced) {
      if (trace_) trace_->close();
    }
    model_->final();
    model_.reset();
    Verilated::threadContextp(nullptr);
  }
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  std::string name() const override { return "rtlsim"; }

  uint32_t read_reg(uint32_t offset) override {
    check_offset(offset);
    model_->reg_req_valid_i = 1;
    model_->reg_req_i = reg_request(false, offset, 0);
    wait_request_taken();
    for (uint64_t guard = 0; guard < kRegisterGuard; ++guard) {
      settle();
      const bool answered = model_->reg_rsp_valid_o;
      const uint32_t value = model_->reg_rsp_rdata_o;
      rise();
      if (answered) return value;
    }
    throw Error(KESTREL_ERROR_IO, "rtlsim: register " + hex(offset) + " read got no response");
  }

  void write_reg(uint32_t offset, uint32_t value) override {
    check_offset(offset);
    const bool start = offset == KESTREL_REG_CONTROL && (value & KESTREL_CTRL_START) != 0;
    const bool abort = offset == KESTREL_REG_CONTROL && (value & KESTREL_CTRL_ABORT) != 0;
    if (start && !abort) {
      validate_launch();
      launch_cycles_ = 0;
      dram_.forget_writes();  // empty when memory_ is the memory
    }
    if (observer_ && observed_ && (start || abort)) finish_observed(abort);
    if (observer_ || itrace_) mirror_reg(offset, value);
    model_->reg_req_valid_i = 1;
    model_->reg_req_i = reg_request(true, offset, value);
    wait_request_taken();
    if (observer_ && start && !abort) {
      observer_->launch_start(regs_.launch(), tap::Dram{dram_.data(), dram_.size()});
      observed_ = true;
    }
    if (itrace_ && start && !abort) itrace_->launch(regs_.launch());
  }

  void write_mem(uint64_t addr, const void* src, size_t bytes) override {
    if (src == nullptr && bytes != 0)
      throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: write_mem from a null pointer");
    if (memory_ != nullptr) {
      external_debug(addr, const_cast<void*>(src), bytes, true);
      if (bytes != 0) memory_changed();
      return;
    }
    uint8_t* const at = dram_at(addr, bytes);
    // An empty copy (src may then be null, which memcpy must not be given)
    // writes nothing: the observer is not told, the launch stays followed.
    if (bytes == 0) return;
    std::memcpy(at, src, bytes);
    memory_changed();
    if (observer_) {
      // A copy that overlaps the kernel (advance()) ends what the observer
      // can follow of the launch (lock-step: it runs unchecked).
      const bool during_launch = observed_ && model_->running_o;
      if (during_launch) observed_ = false;
      observer_->host_write(addr, src, bytes, during_launch);
    }
  }
  void read_mem(uint64_t addr, void* dst, size_t bytes) override {
    if (dst == nullptr && bytes != 0)
      throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: read_mem into a null pointer");
    if (memory_ != nullptr) {
      external_debug(addr, dst, bytes, false);
      return;
    }
    const uint8_t* const at = dram_at(addr, bytes);
    if (bytes != 0) std::memcpy(dst, at, bytes);  // dst may be null when empty
  }

  void wait_idle() override {
    while (model_->running_o) {
      launch_cycle();
      if (observer_ && !observer_->ok()) break;
    }
    if (observed_) finish_observed(false);
  }

  // Host DRAM accesses between two calls land between clock cycles, so a
  // copy can overlap the kernel (docs/host-interface.md).
  bool overlaps_copies() const override { return true; }

  bool dram_counters(DramCounters& out) const override {
    if (memory_ != nullptr) return false;
    out = dram_.counters();
    return true;
  }

  bool advance(uint64_t cycles) override {
    for (uint64_t i = 0; i < cycles && model_->running_o; ++i) {
      launch_cycle();
      if (observer_ && !observer_->ok()) break;
    }
    const bool mismatch = observer_ && !observer_->ok();
    if (observed_ && (mismatch || !model_->running_o)) finish_observed(false);
    return model_->running_o;
  }

  uint64_t cycles() const override { return now_; }
  bool running() const override { return model_->running_o; }
  void memory_changed() override {
    if (model_->running_o) model_->mem_changed_i = 1;  // taken at the next rising edge
  }

 private:
  static constexpr uint64_t kRegisterGuard = 1u << 20;   // cycles a register access may wait
  static constexpr uint64_t kBackstopMargin = 1u << 16;  // cycles past the watchdog's budget

  // The descriptor and page-map registers as the host wrote them (the RTL's
  // own are not read back without clocking it): the launch and mappings the
  // observer is told of.  Descriptor writes while a launch runs are ignored,
  // as the RTL ignores them.
  void mirror_reg(uint32_t offset, uint32_t value) {
    if (model::HostRegisters::is_descriptor(offset) && model_->running_o) return;
    if (regs_.write(offset, value) && offset == KESTREL_REG_MAP_PERMS && observer_) {
      const model::HostRegisters::MapRequest map = regs_.map_request();
      observer_->host_map(map.addr, map.pages, map.perms);
    }
  }

  // One cycle of the launch in progress, however many wait_idle/advance
  // calls it takes.  The RTL's own watchdog (WATCHDOG << 20 cycles) ends a
  // launch that runs too long with a TIMEOUT fault, as on every backend; this
  // backstop only catches a launch that outlives it (a hardware hang), or
  // KESTREL_RTLSIM_MAX_CYCLES when given.
  void launch_cycle() {
    const uint64_t watchdog = uint64_t{regs_.watchdog()} << 20;
    const uint64_t limit = options_.max_cycles != 0 ? options_.max_cycles
                           : watchdog != 0          ? watchdog + kBackstopMargin
                                                    : UINT64_MAX;
    if (launch_cycles_++ >= limit) {
      throw Error(KESTREL_ERROR_TIMEOUT,
                  "rtlsim: the launch still runs after " + std::to_string(limit) + " cycles (" +
                      (options_.max_cycles != 0 ? std::string("KESTREL_RTLSIM_MAX_CYCLES")
                                                : "the RTL did not raise its watchdog fault") +
                      ")");
    }
    cycle();
  }

  static void check_offset(uint32_t offset) {
    if (offset % 4 != 0 || offset >= 0x1000) {
      throw Error(KESTREL_ERROR_INVALID_VALUE,
                  "rtlsim: register offset " + hex(offset) + " is not a word of the 4 KiB register map");
    }
  }

  void external_debug(uint64_t addr, void* data, size_t bytes, bool write) {
    if (!memory_->debug_access(addr, data, bytes, write)) {
      throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: DRAM access " + hex(addr) + " + " +
                                                   std::to_string(bytes) + " is outside device memory");
    }
  }

  uint8_t* dram_at(uint64_t addr, size_t bytes) {
    if (addr < KESTREL_GLOBAL_BASE || addr - KESTREL_GLOBAL_BASE > dram_.size() ||
        bytes > dram_.size() - (addr - KESTREL_GLOBAL_BASE)) {
      throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: DRAM access " + hex(addr) + " + " +
                                                   std::to_string(bytes) + " is outside device DRAM");
    }
    return dram_.data() + (addr - KESTREL_GLOBAL_BASE);
  }

  // Holds the request until the register port takes it.
  void wait_request_taken() {
    for (uint64_t guard = 0; guard < kRegisterGuard; ++guard) {
      settle();
      const bool taken = model_->reg_req_ready_o;
      rise();
      if (taken) {
        model_->reg_req_valid_i = 0;
        return;
      }
    }
    model_->reg_req_valid_i = 0;
    throw Error(KESTREL_ERROR_IO, "rtlsim: the register port did not take a request");
  }

  // The model's checks at START (model::launch_refusal) on the registers the
  // RTL holds, so that both backends refuse the same launches the same way.
  void validate_launch() {
    if (model_->running_o) throw Error(KESTREL_ERROR_INVALID_CONFIG, "rtlsim: a launch is running");
    model::LaunchDesc d;
    d.grid =
        model::Dim3{read_reg(KESTREL_REG_GRID_X), read_reg(KESTREL_REG_GRID_Y), read_reg(KESTREL_REG_GRID_Z)};
    d.block = model::Dim3{read_reg(KESTREL_REG_BLOCK_X), read_reg(KESTREL_REG_BLOCK_Y),
                          read_reg(KESTREL_REG_BLOCK_Z)};
    d.shared_base = read_reg(KESTREL_REG_SHARED_BASE);
    d.shared_static = read_reg(KESTREL_REG_SHARED_STATIC);
    d.shared_dyn = read_reg(KESTREL_REG_SHARED_DYN);
    d.stack_bytes = read_reg(KESTREL_REG_STACK_BYTES);
    model::Config limits;
    limits.lanes_per_warp = config_.lanes_per_warp;
    limits.warps_per_sm = config_.warps_per_sm;
    limits.shared_bytes_per_sm = kSharedBytesPerSm;
    limits.max_threads_per_block = read_reg(KESTREL_REG_CONFIG1) >> 16;
    if (const char* why = model::launch_refusal(d, limits))
      throw Error(KESTREL_ERROR_INVALID_CONFIG, std::string("rtlsim: ") + why);
  }

  // ---- the tap ----------------------------------------------------------------

  // Called between settle() and rise(): the taps show this cycle's dispatch and
  // retires, which take effect at the coming edge.
  void sample_taps() {
    const bool observing = observed_ && observer_->ok();
    if (!observing && !itrace_) return;
    if (observing && model_->disp_valid_o) {
      tap::Dispatch d;
      d.block_index = static_cast<uint32_t>(port_bits(model_->disp_linear_o, 0, 64));
      d.sm = static_cast<uint32_t>(port_bits(model_->disp_sm_o, 0, 8));
      const uint64_t slots_bits = port_bits(model_->disp_slots_o, 0, config_.warps_per_sm);
      for (uint32_t w = 0; w < config_.warps_per_sm; ++w)
        if ((slots_bits >> w) & 1u) d.warp_slots.push_back(w);
      observer_->dispatch(d);
    }
    const unsigned lanes = config_.lanes_per_warp;
    const unsigned xlen = config_.xlen;
    const unsigned warp_bits = config_.warps_per_sm > 1 ? ceil_log2(config_.warps_per_sm) : 1;
    for (uint32_t sm = 0; sm < config_.num_sms && (!observing || observer_->ok()); ++sm) {
      if (port_bits(model_->retire_valid_o, sm, 1) == 0) continue;
      tap::Retire r;
      r.sm = sm;
      r.warp_slot = static_cast<uint32_t>(port_bits(model_->retire_warp_o, sm * warp_bits, warp_bits));
      r.pc = port_bits(model_->retire_pc_o, sm * 64, 64);
      r.mask = static_cast<uint32_t>(port_bits(model_->retire_mask_o, sm * lanes, lanes));
      r.rd_we = port_bits(model_->retire_rd_we_o, sm, 1) != 0;
      r.rd_fp = port_bits(model_->retire_rd_fp_o, sm, 1) != 0;
      r.rd = static_cast<uint8_t>(port_bits(model_->retire_rd_o, sm * 5, 5));
      r.lsu = port_bits(model_->retire_lsu_o, sm, 1) != 0;
      r.mem_seq = static_cast<uint8_t>(port_bits(model_->retire_mem_seq_o, sm * 4, 4));
      r.rd_data.resize(lanes);
      if (r.rd_we) {
        for (unsigned lane = 0; lane < lanes; ++lane)
          r.rd_data[lane] = port_bits(model_->retire_rd_data_o, (sm * lanes + lane) * xlen, xlen);
      }
      if (observing) observer_->retire(r);
      if (itrace_) trace_retire(r);
    }
  }

  // The instruction trace's line for one retire record: the instruction word
  // from DRAM (code is read-only while a kernel runs), the write per lane.
  void trace_retire(const tap::Retire& r) {
    uint32_t word = 0;
    if (memory_ != nullptr)
      memory_->debug_access(r.pc, &word, sizeof word, false);
    else if (r.pc >= KESTREL_GLOBAL_BASE && r.pc - KESTREL_GLOBAL_BASE + sizeof word <= dram_.size())
      std::memcpy(&word, dram_.data() + (r.pc - KESTREL_GLOBAL_BASE), sizeof word);
    std::vector<model::RegWrite> writes;
    if (r.rd_we) {
      for (uint32_t lane = 0; lane < config_.lanes_per_warp; ++lane)
        if ((r.mask >> lane) & 1u) writes.push_back({r.warp_slot, lane, r.rd_fp, r.rd, r.rd_data[lane]});
    }
    itrace_->retire(launch_cycles_, r.sm, r.warp_slot, r.pc, r.mask, word, writes);
  }

  static unsigned ceil_log2(unsigned v) {
    unsigned bits = 0;
    while ((1u << bits) < v) ++bits;
    return bits;
  }

  // The end of an observed launch: tell the observer how it ended (the fault
  // record, or completion, and DRAM); abort the RTL's launch when the
  // observer disagrees and throw its report.  `aborted`: the host aborted the
  // launch.
  void finish_observed(bool aborted) {
    observed_ = false;  // the register reads below must not sample the taps
    if (aborted) {
      observer_->launch_abort();
      return;
    }
    if (observer_->ok() && !model_->running_o) {
      const tap::Dram dram{dram_.data(), dram_.size(), dram_.pages_written()};
      if (read_reg(KESTREL_REG_STATUS) == KESTREL_STATUS_FAULT) {
        model::Fault f;
        f.kind = static_cast<kestrel_fault_kind>(read_reg(KESTREL_REG_FAULT_KIND));
        f.pc = read_reg(KESTREL_REG_FAULT_PC_LO) | (uint64_t{read_reg(KESTREL_REG_FAULT_PC_HI)} << 32);
        f.addr = read_reg(KESTREL_REG_FAULT_ADDR_LO) | (uint64_t{read_reg(KESTREL_REG_FAULT_ADDR_HI)} << 32);
        f.block = model::Dim3{read_reg(KESTREL_REG_FAULT_BLOCK_X), read_reg(KESTREL_REG_FAULT_BLOCK_Y),
                              read_reg(KESTREL_REG_FAULT_BLOCK_Z)};
        f.thread = model::Dim3{read_reg(KESTREL_REG_FAULT_THREAD_X), read_reg(KESTREL_REG_FAULT_THREAD_Y),
                               read_reg(KESTREL_REG_FAULT_THREAD_Z)};
        f.sm = read_reg(KESTREL_REG_FAULT_SM);
        f.warp = read_reg(KESTREL_REG_FAULT_WARP);
        f.info = read_reg(KESTREL_REG_FAULT_INFO);
        observer_->launch_end(&f, dram);
      } else {
        observer_->launch_end(nullptr, dram);
      }
    }
    if (observer_->ok()) return;
    if (model_->running_o) {
      // Stop the RTL's launch so that the device stays usable.
      model_->reg_req_valid_i = 1;
      model_->reg_req_i = reg_request(true, KESTREL_REG_CONTROL, KESTREL_CTRL_ABORT);
      wait_request_taken();
      for (uint64_t guard = 0; guard < kRegisterGuard && model_->running_o; ++guard) cycle();
    }
    const std::string message = "rtlsim " + observer_->failure(now_);
    observer_->launch_abort();
    std::fprintf(stderr, "kestrel: %s\n", message.c_str());
    throw Error(KESTREL_ERROR_IO, message);
  }

  // ---- clocking ---------------------------------------------------------------

  // One clock cycle: settle() drives the memory model's side of the port and
  // evaluates the low half with the caller's inputs, so that handshakes can be
  // sampled; rise() takes the memory handshakes and clocks the rising edge.
  void cycle() {
    settle();
    rise();
  }

  void settle() {
    model_->clk_i = 0;
    drive_memory();
    model_->eval();
    dump(2 * now_);
  }

  void rise() {
    if (observer_ || itrace_) sample_taps();
    sample_memory();
    model_->clk_i = 1;
    model_->eval();
    model_->mem_changed_i = 0;  // a one-cycle pulse
    dump(2 * now_ + 1);
    context_->timeInc(1);
    ++now_;
  }

  void dump(uint64_t time) {
    if constexpr (Traced) {
      if (trace_ && now_ >= options_.trace_start && now_ < options_.trace_end) trace_->dump(time);
    } else {
      (void)time;
    }
  }

  void drive_memory() {
    const bool room = queue_.size() < kMaxQueued;
    model_->mem_req_ready_i = room && (memory_ != nullptr || dram_.accepts(now_));
    const bool respond = !queue_.empty() && queue_.front().ready_at <= now_;
    model_->mem_rsp_valid_i = respond;
    if (respond) {
      const Pending& p = queue_.front();
      uint32_t* words = model_->mem_rsp_i.data();
      std::memset(words, 0, sizeof(uint32_t) * mem_rsp::kWords);
      contract::put(words, mem_rsp::tag, p.tag);
      contract::put(words, mem_rsp::fault, p.fault);
      for (unsigned i = 0; i < kLineBytes; ++i) contract::put_byte(words, mem_rsp::rdata, i, p.rdata[i]);
    }
  }

  void sample_memory() {
    if (model_->mem_rsp_valid_i && model_->mem_rsp_ready_o) queue_.pop_front();
    if (model_->mem_req_valid_o && model_->mem_req_ready_i) {
      const uint32_t* words = model_->mem_req_o.data();
      const uint32_t addr = static_cast<uint32_t>(contract::get(words, mem_req::addr));
      const uint64_t kind = contract::get(words, mem_req::kind);
      const bool write = kind == contract::kMemWrite ||
                         (kind == contract::kMemLocal && contract::get(words, mem_req::write) != 0);
      Pending p{};
      p.tag = static_cast<uint8_t>(contract::get(words, mem_req::tag));
      const uint64_t be = write ? contract::get(words, mem_req::be) : 0;
      uint8_t wdata[kLineBytes];
      if (write) {
        for (unsigned i = 0; i < kLineBytes; ++i) wdata[i] = contract::get_byte(words, mem_req::wdata, i);
      }
      if (memory_ != nullptr) {
        // The response follows the external memory's own timing.
        const LineAccess access = memory_->access(addr, write, be, wdata, p.rdata);
        p.ready_at = now_ + (access.cycles == 0 ? 1 : access.cycles);
        p.fault = access.fault;
      } else {
        // The page check keeps requests inside DRAM; a request outside it
        // means the RTL let one through, which the response reports as a
        // fault.
        const uint64_t offset = uint64_t{addr} - KESTREL_GLOBAL_BASE;
        if (addr < KESTREL_GLOBAL_BASE || offset + kLineBytes > dram_.size() || addr % kLineBytes != 0) {
          p.fault = KESTREL_FAULT_ILLEGAL_ADDRESS;
          p.ready_at = now_ + 1;
        } else {
          p.ready_at = dram_.access(now_, offset, write, be, wdata, p.rdata);
        }
      }
      // The port answers in request order: never before an earlier response.
      if (!queue_.empty()) p.ready_at = std::max(p.ready_at, queue_.back().ready_at);
      queue_.push_back(p);
    }
  }

  struct Pending {
    uint64_t ready_at;
    uint8_t tag;
    uint8_t fault;
    uint8_t rdata[kLineBytes];
  };
  static constexpr size_t kMaxQueued = 64;

  BackendConfig config_;
  Options options_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Model> model_;
  LineMemory* memory_;  // null: dram_ is the memory
  using TracePtr = std::unique_ptr<VerilatedFstC, void (*)(VerilatedFstC*)>;
  TracePtr trace_{nullptr, nullptr};         // null unless asked for (Options::trace_path), Traced only
  std::unique_ptr<tap::Observer> observer_;  // null unless asked for (Options::lockstep)
  std::unique_ptr<model::InstructionTrace> itrace_;  // null unless asked for (Options::itrace_path)
  bool observed_ = false;                            // the observer follows the launch in progress
  model::HostRegisters regs_;                        // what the host wrote (mirror_reg)
  DramModel dram_;                                   // empty when memory_ is the memory
  std::deque<Pending> queue_;
  uint64_t now_ = 0;
  uint64_t launch_cycles_ = 0;  // cycles simulated for the launch in progress
};

}  // namespace kestrel::rtlsim::detail
