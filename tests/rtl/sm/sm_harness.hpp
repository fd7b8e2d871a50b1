// SM bench harness: a Verilated kestrel_sm, a C++ global memory (configurable
// latency, page permissions, in-order responses), block dispatch in linear
// order, and lock-step comparison of every retire against the functional
// model (verif/lockstep/).  Templated on the Verilated class so that each
// small configuration (RV64 4 lanes, RV32 8 lanes) shares the code.
#pragma once

#include <verilated.h>

#include "amo_ref.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kestrel/abi.h"
#include "kestrel/model/gpu.hpp"
#include "kestrel/model/rv_assembler.hpp"
#include "kestrel_contract.hpp"
#include "lockstep.hpp"

namespace kestrel::rtlbench {

// ---- packed-struct access for Verilator ports -------------------------------
// Layouts, field accessors and the kestrel_pkg encodings come from the
// generated kestrel_contract.hpp (tools/contract/contract.toml).
using contract::get_bits;
using contract::kMemFetch;
using contract::kMemLocal;
using contract::kMemRead;
using contract::kMemWrite;
using contract::put_bits;

// Device DRAM and page table as the GPU top would present them to one SM.
class MemoryModel {
 public:
  explicit MemoryModel(uint64_t bytes)
      : bytes_(bytes), data_(bytes, 0), perms_(bytes >> KESTREL_PAGE_SHIFT, 0) {}

  void write(uint64_t addr, const void* src, size_t n) {
    check(addr, n);
    std::memcpy(&data_[addr - KESTREL_GLOBAL_BASE], src, n);
  }
  void read(uint64_t addr, void* dst, size_t n) const {
    check(addr, n);
    std::memcpy(dst, &data_[addr - KESTREL_GLOBAL_BASE], n);
  }
  void map(uint64_t addr, uint64_t pages, uint32_t perms) {
    check(addr, pages << KESTREL_PAGE_SHIFT);
    for (uint64_t p = 0; p < pages; ++p)
      perms_[((addr - KESTREL_GLOBAL_BASE) >> KESTREL_PAGE_SHIFT) + p] = perms;
  }
  const std::vector<uint8_t>& bytes() const { return data_; }
  void clear_reservations() { reservations_.clear(); }

  // Serves one line request; returns the fault kind (0 = none).  An atomic
  // (amo_op >= 0, kind MemWrite or MemLocal) is performed here as the GPU
  // top's memory-side unit does: rdata gets the line before it (`compare`:
  // a CAS's compare value).  LR/SC (`thread` names the thread) keep
  // reservations as kestrel_mem_atomic does: an LR is a read whose `be`
  // marks its word, an SC answers 0 (it wrote) or 1 at the word's place.
  unsigned access(unsigned kind, uint32_t addr, const uint8_t* be, const uint8_t* wdata, uint8_t* rdata,
                  int amo_op = -1, uint64_t compare = 0, uint32_t thread = 0, bool held = false) {
    const bool in_dram = addr >= KESTREL_GLOBAL_BASE && addr - KESTREL_GLOBAL_BASE + 64 <= bytes_;
    const uint32_t perm = in_dram ? perms_[(addr - KESTREL_GLOBAL_BASE) >> KESTREL_PAGE_SHIFT] : 0;
    if (kind == kMemFetch && !(perm & KESTREL_PAGE_EXEC)) return KESTREL_FAULT_FETCH;
    if (!in_dram) return KESTREL_FAULT_ILLEGAL_ADDRESS;
    if (kind == kMemRead && !(perm & KESTREL_PAGE_READ)) return KESTREL_FAULT_ILLEGAL_ADDRESS;
    if (kind == kMemWrite && !(perm & KESTREL_PAGE_WRITE))
      return perm != 0 ? KESTREL_FAULT_WRITE_PROTECT : KESTREL_FAULT_ILLEGAL_ADDRESS;
    uint8_t* line = &data_[addr - KESTREL_GLOBAL_BASE];
    if (amo_op == kAmoLr) {
      reservations_.lr(thread, addr, be);
      std::memcpy(rdata, line, 64);
      return 0;
    }
    if (amo_op == kAmoSc) {
      const bool ok = reservations_.sc(thread, held, addr, be);
      unsigned first = 0;
      while (first < 64 && ((be[first / 8] >> (first % 8)) & 1) == 0) ++first;
      if (ok) {
        for (unsigned b = 0; b < 64; ++b)
          if ((be[b / 8] >> (b % 8)) & 1) line[b] = wdata[b];
        reservations_.write(addr, be);
      }
      std::memset(rdata, 0, 64);
      if (first < 64) rdata[first] = ok ? 0 : 1;
      return 0;
    }
    if (amo_op >= 0) {
      std::memcpy(rdata, line, 64);
      if (amo_on_line(static_cast<unsigned>(amo_op), be, wdata, line, compare)) reservations_.write(addr, be);
      return 0;
    }
    const bool writes = kind == kMemWrite || (kind == kMemLocal && be != nullptr);
    if (writes) {
      for (unsigned b = 0; b < 64; ++b)
        if ((be[b / 8] >> (b % 8)) & 1) line[b] = wdata[b];
      reservations_.write(addr, be);
    }
    std::memcpy(rdata, line, 64);
    return 0;
  }

 private:
  void check(uint64_t addr, uint64_t n) const {
    if (addr < KESTREL_GLOBAL_BASE || addr - KESTREL_GLOBAL_BASE + n > bytes_)
      throw std::out_of_range("bench memory: address outside DRAM");
  }
  uint64_t bytes_;
  std::vector<uint8_t> data_;
  std::vector<uint32_t> perms_;
  LineReservations reservations_;
};

struct SmBenchConfig {
  unsigned xlen;
  unsigned lanes;
  unsigned warps;
  uint32_t shared_bytes;
  unsigned watchdog_log2;  // the RTL's BarrierWatchdogLog2
};

// Fixed layout of bench programs (like the model tests' harness).
constexpr uint64_t kCode = KESTREL_GLOBAL_BASE;
constexpr uint64_t kExitStub = kCode + 0xF000;
constexpr uint64_t kData = KESTREL_GLOBAL_BASE + 0x10000;
constexpr uint64_t kReadOnly = KESTREL_GLOBAL_BASE + 0x20000;
constexpr uint64_t kUnmapped = KESTREL_GLOBAL_BASE + 0x30000;
constexpr uint32_t kShared = KESTREL_GLOBAL_BASE + 0x40000;
constexpr uint64_t kLocalBacking = KESTREL_GLOBAL_BASE + 0x50000;
constexpr uint32_t kDataPages = 16;
constexpr uint64_t kMemBytes = 1u << 20;

struct RunResult {
  bool ok = false;  // lock-step held and the launch ended as expected
  std::string error;
  uint64_t cycles = 0;
  uint64_t retired = 0;  // model-visible instructions compared
  uint64_t thread_instrs = 0;
  // Records that retired while an older memory instruction of their warp was
  // still in flight (their mem_seq ahead of the warp's completed count).
  uint64_t retired_ahead = 0;
  bool faulted = false;
  model::Fault fault;
  // The SM's counter events, summed (kestrel_pkg::sm_events_t), and the
  // model's counters for the same launch.
  uint64_t shared_accesses = 0, shared_passes = 0, atomics = 0;
  model::Counters model_counters{};
};

template <class V>
class SmHarness {
 public:
  static constexpr unsigned kRspLatencyDefault = 6;

  explicit SmHarness(const SmBenchConfig& cfg) : cfg_(cfg), mem_(kMemBytes) {
    context_ = std::make_unique<VerilatedContext>();
    context_->randReset(0);
    dut_ = std::make_unique<V>(context_.get());
    model::Config mc;
    mc.xlen = cfg.xlen;
    mc.num_sms = 1;
    mc.warps_per_sm = cfg.warps;
    mc.lanes_per_warp = cfg.lanes;
    mc.mem_bytes = kMemBytes;
    mc.shared_bytes_per_sm = cfg.shared_bytes;
    // The RTL watchdog starts counting with the retire after the first
    // arrival; the model counts the arrival too.
    mc.barrier_watchdog = (uint64_t{1} << cfg.watchdog_log2) + 1;
    gpu_ = std::make_unique<model::Gpu>(mc);
    map(kCode, 16, KESTREL_PAGE_READ | KESTREL_PAGE_EXEC);
    map(kData, kDataPages, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
    map(kReadOnly, 1, KESTREL_PAGE_READ);
    const uint32_t exit_word = 0x0000000B;  // kx.exit
    write(kExitStub, &exit_word, 4);
    // A falling edge of rst_ni (signals start at 0), so the resets apply.
    dut_->clk_i = 0;
    dut_->rst_ni = 1;
    dut_->eval();
    dut_->rst_ni = 0;
    dut_->eval();
    dut_->rst_ni = 1;
    dut_->eval();
  }
  ~SmHarness() { dut_->final(); }
  SmHarness(const SmHarness&) = delete;
  SmHarness& operator=(const SmHarness&) = delete;

  model::Gpu& gpu() { return *gpu_; }
  V& dut() { return *dut_; }
  const SmBenchConfig& config() const { return cfg_; }

  // Memory is written to both the bench memory and the model.
  void write(uint64_t addr, const void* src, size_t n) {
    mem_.write(addr, src, n);
    gpu_->write_mem(addr, src, n);
  }
  void map(uint64_t addr, uint64_t pages, uint32_t perms) {
    mem_.map(addr, pages, perms);
    gpu_->map_pages(addr, pages, perms);
  }
  void load(const model::rvasm::Assembler& a, uint64_t at = kCode) {
    const std::vector<uint32_t> words = a.finish();
    write(at, words.data(), words.size() * 4);
  }
  void set_latency(unsigned min_latency, unsigned max_latency) {
    min_latency_ = min_latency;
    max_latency_ = max_latency;
  }
  void set_backpressure(unsigned percent) { backpressure_ = percent; }

  model::LaunchDesc desc(model::Dim3 grid, model::Dim3 block) const {
    model::LaunchDesc d;
    d.entry_pc = kCode;
    d.exit_pc = kExitStub;
    d.param_addr = kData;
    d.grid = grid;
    d.block = block;
    d.stack_bytes = 256;
    d.local_backing = kLocalBacking;
    return d;
  }

  // Runs a launch in lock-step to its end or first fault.  expect_fault: the
  // launch must fault (compared with the model), else it must complete.
  RunResult run(const model::LaunchDesc& d, bool expect_fault = false, uint64_t max_cycles = 2'000'000) {
    RunResult res;
    gpu_->start(d, model::Dispatch::kManual);
    lockstep::Checker checker(*gpu_, d);
    set_launch(d);
    const uint32_t total_blocks = d.grid.x * d.grid.y * d.grid.z;
    uint32_t next_block = 0, done_blocks = 0;
    uint64_t fault_seen_at = 0;
    bool fault_seen = false;
    std::vector<uint8_t> mem_done(cfg_.warps, 0);  // per warp slot: memory instructions completed, mod 16
    uint64_t cycle = 0;
    mem_.clear_reservations();  // launch start ends every reservation
    dut_->start_i = 1;
    tick();
    dut_->start_i = 0;
    for (; cycle < max_cycles; ++cycle) {
      // ---- inputs for this cycle ----
      dut_->blk_valid_i = next_block < total_blocks && !fault_seen;
      if (dut_->blk_valid_i) {
        const uint32_t bx = next_block % d.grid.x;
        const uint32_t by = (next_block / d.grid.x) % d.grid.y;
        const uint32_t bz = next_block / (d.grid.x * d.grid.y);
        contract::Dim3 idx;
        idx.x = bx;
        idx.y = static_cast<uint16_t>(by);
        idx.z = static_cast<uint16_t>(bz);
        dut_->blk_idx_i = idx.to_bits();
      }
      drive_memory_inputs(cycle);
      dut_->eval();
      // ---- outputs sampled before the edge ----
      if (dut_->blk_valid_i && dut_->blk_ready_o) {
        std::vector<uint32_t> slots;
        for (unsigned w = 0; w < cfg_.warps; ++w)
          if ((static_cast<uint64_t>(dut_->blk_slots_o) >> w) & 1) slots.push_back(w);
        checker.place_block(next_block, 0, slots);
        for (uint32_t slot : slots) mem_done[slot] = 0;
        ++next_block;
      }
      if (dut_->retire_valid_o) {
        lockstep::RtlRetire r = read_retire();
        if (trace_) {
          std::fprintf(stderr, "cycle %llu retire warp %u pc 0x%llx mask 0x%x%s mem_seq %u",
                       static_cast<unsigned long long>(cycle), r.warp_slot,
                       static_cast<unsigned long long>(r.pc), r.mask, r.lsu ? " lsu" : "", r.mem_seq);
          if (r.rd_we) {
            std::fprintf(stderr, " x%u =", r.rd);
            for (uint64_t v : r.rd_data) std::fprintf(stderr, " %llx", static_cast<unsigned long long>(v));
          }
          std::fprintf(stderr, "\n");
        }
        res.thread_instrs += static_cast<uint64_t>(__builtin_popcount(r.mask));
        if (r.warp_slot < mem_done.size()) {
          // A memory instruction's records (a pair atomic has two) carry its
          // own place; any other record the count of memory instructions
          // issued before it.
          if (r.lsu)
            mem_done[r.warp_slot] = static_cast<uint8_t>((r.mem_seq + 1) & 15u);
          else if (r.mem_seq != mem_done[r.warp_slot])
            ++res.retired_ahead;
        }
        checker.retire(r);
      }
      if (dut_->blk_done_o) ++done_blocks;
      // sm_events_t, LSB first: atomics[6:0], shared_passes[13:7], shared_access[14].
      const uint64_t events = static_cast<uint64_t>(dut_->events_o);
      res.atomics += events & 0x7F;
      res.shared_passes += (events >> 7) & 0x7F;
      res.shared_accesses += (events >> 14) & 1;
      sample_memory_outputs(cycle);
      tick();
      if (!checker.ok()) break;
      if (dut_->fault_valid_o && !fault_seen) {
        fault_seen = true;
        fault_seen_at = cycle;
      }
      // After a fault, in-flight instructions still retire; give them time.
      if (fault_seen && cycle - fault_seen_at > 400) break;
      if (!fault_seen && next_block == total_blocks && done_blocks == total_blocks && !dut_->busy_o) break;
    }
    res.cycles = cycle;
    if (checker.ok()) {
      if (fault_seen) {
        res.faulted = true;
        res.fault = read_fault();
        checker.fault(res.fault);
        if (checker.ok() && !expect_fault)
          res.error = "unexpected fault, kind " + std::to_string(res.fault.kind);
      } else if (cycle >= max_cycles) {
        res.error = "the launch did not finish in " + std::to_string(max_cycles) + " cycles";
      } else {
        checker.finish();
        if (checker.ok() && expect_fault) res.error = "the launch completed without the expected fault";
        if (checker.ok() && res.error.empty()) compare_memory(res);
        res.model_counters = gpu_->counters();
        if (checker.ok() && res.error.empty()) compare_counters(res);
      }
    }
    if (!checker.ok()) res.error = checker.error();
    res.retired = checker.compared();
    res.ok = res.error.empty();
    if (!res.ok) {
      // A launch left behind (mismatch or time-out) is aborted in both.
      dut_->abort_i = 1;
      tick();
      dut_->abort_i = 0;
      if (gpu_->state() == model::LaunchState::kRunning) gpu_->abort();
    }
    return res;
  }

  // Value of x register `reg` of a finished launch's thread, as the model has it.
  uint64_t model_mem64(uint64_t addr) const {
    uint64_t v = 0;
    gpu_->read_mem(addr, &v, 8);
    return v;
  }
  uint32_t bench_mem32(uint64_t addr) const {
    uint32_t v = 0;
    mem_.read(addr, &v, 4);
    return v;
  }

 private:
  struct Pending {
    uint64_t ready_cycle;
    uint32_t tag;
    unsigned fault;
    uint8_t data[64];
  };

  void tick() {
    dut_->clk_i = 0;
    dut_->eval();
    dut_->clk_i = 1;
    dut_->eval();
    context_->timeInc(1);
  }

  void set_launch(const model::LaunchDesc& d) {
    contract::Launch l;
    l.entry_pc = d.entry_pc;
    l.exit_pc = d.exit_pc;
    l.gp = d.gp;
    l.param = d.param_addr;
    l.grid_x = d.grid.x;
    l.grid_y = static_cast<uint16_t>(d.grid.y);
    l.grid_z = static_cast<uint16_t>(d.grid.z);
    l.block_x = static_cast<uint16_t>(d.block.x);
    l.block_y = static_cast<uint16_t>(d.block.y);
    l.block_z = static_cast<uint16_t>(d.block.z);
    l.shared_base = d.shared_base;
    l.shared_size = d.shared_static + d.shared_dyn;
    l.shared_static = d.shared_static;
    l.stack_bytes = d.stack_bytes;
    l.local_backing = d.local_backing;
    l.pack(dut_->launch_i.data());
    dut_->sm_id_i = 0;
  }

  void drive_memory_inputs(uint64_t cycle) {
    dut_->mem_req_ready_i = (rng_() % 100) >= backpressure_;
    dut_->mem_rsp_valid_i = !responses_.empty() && responses_.front().ready_cycle <= cycle;
    if (dut_->mem_rsp_valid_i) {
      const Pending& p = responses_.front();
      contract::MemRsp rsp;
      std::copy(std::begin(p.data), std::end(p.data), rsp.rdata.begin());
      rsp.fault = static_cast<uint8_t>(p.fault);
      rsp.tag = static_cast<uint8_t>(p.tag);
      rsp.pack(dut_->mem_rsp_i.data());
    }
  }

  void sample_memory_outputs(uint64_t cycle) {
    if (dut_->mem_rsp_valid_i && dut_->mem_rsp_ready_o) responses_.pop_front();
    if (dut_->mem_req_valid_o && dut_->mem_req_ready_i) {
      const contract::MemReq req = contract::MemReq::unpack(dut_->mem_req_o.data());
      Pending p{};
      const unsigned kind = req.kind;
      const bool write = req.write;
      const uint32_t addr = req.addr;
      uint8_t be[8], wdata[64];
      for (unsigned b = 0; b < 8; ++b) be[b] = static_cast<uint8_t>(req.be >> (8 * b));
      std::copy(req.wdata.begin(), req.wdata.end(), std::begin(wdata));
      p.tag = req.tag;
      const int amo_op = req.amo_valid ? static_cast<int>(req.amo_op) : -1;
      const uint32_t thread = uint32_t{req.amo_warp} << 8 | req.amo_lane;
      p.fault = mem_.access(kind, addr, (kind == kMemLocal && !write && amo_op != kAmoLr) ? nullptr : be,
                            wdata, p.data, amo_op, req.amo_cmp, thread, req.amo_held);
      const unsigned span = max_latency_ > min_latency_ ? max_latency_ - min_latency_ + 1 : 1;
      uint64_t ready = cycle + min_latency_ + rng_() % span;
      // In order: never before the previous response.
      if (!responses_.empty()) ready = std::max(ready, responses_.back().ready_cycle);
      p.ready_cycle = ready;
      responses_.push_back(p);
    }
  }

  lockstep::RtlRetire read_retire() {
    lockstep::RtlRetire r;
    r.sm = 0;
    r.warp_slot = dut_->retire_warp_o;
    r.pc = dut_->retire_pc_o;
    r.mask = static_cast<uint32_t>(dut_->retire_mask_o);
    r.rd_we = dut_->retire_rd_we_o;
    r.rd_fp = dut_->retire_rd_fp_o;
    r.rd = dut_->retire_rd_o;
    r.lsu = dut_->retire_lsu_o;
    r.mem_seq = dut_->retire_mem_seq_o;
    // Lanes x Xlen bits: Verilator's VlWide above 64 bits, a plain integer
    // up to 64 (one lane, or two RV32 lanes).
    const auto& port = dut_->retire_rd_data_o;
    uint32_t narrow[2] = {};
    const uint32_t* w = narrow;
    if constexpr (std::is_integral_v<std::decay_t<decltype(port)>>) {
      const uint64_t bits = port;
      narrow[0] = static_cast<uint32_t>(bits);
      narrow[1] = static_cast<uint32_t>(bits >> 32);
    } else {
      w = port.data();
    }
    for (unsigned l = 0; l < cfg_.lanes; ++l) r.rd_data.push_back(get_bits(w, l * cfg_.xlen, cfg_.xlen));
    return r;
  }

  model::Fault read_fault() {
    const contract::Fault c = contract::Fault::unpack(dut_->fault_o.data());
    model::Fault f;
    f.kind = static_cast<kestrel_fault_kind>(c.kind);
    f.pc = c.pc;
    f.addr = c.addr;
    f.block = {c.block_x, c.block_y, c.block_z};
    f.thread = {c.thread_x, c.thread_y, c.thread_z};
    f.sm = c.sm;
    f.warp = c.warp;
    f.info = c.info;
    return f;
  }

  // Counters 13-15 count the same in the SM as in the model.
  static void compare_counters(RunResult& res) {
    const struct {
      const char* name;
      uint64_t rtl, model;
    } rows[] = {
        {"shared accesses", res.shared_accesses, res.model_counters[KESTREL_CNT_SHARED_ACCESSES]},
        {"shared passes", res.shared_passes, res.model_counters[KESTREL_CNT_SHARED_PASSES]},
        {"atomics", res.atomics, res.model_counters[KESTREL_CNT_ATOMICS]},
    };
    for (const auto& r : rows) {
      if (r.rtl != r.model && res.error.empty())
        res.error = std::string("counter ") + r.name + ": RTL " + std::to_string(r.rtl) + ", model " +
                    std::to_string(r.model);
    }
  }

  void compare_memory(RunResult& res) const {
    std::vector<uint8_t> model_bytes(kMemBytes);
    gpu_->read_mem(KESTREL_GLOBAL_BASE, model_bytes.data(), kMemBytes);
    const std::vector<uint8_t>& rtl = mem_.bytes();
    for (uint64_t i = 0; i < kMemBytes; ++i) {
      if (rtl[i] != model_bytes[i]) {
        res.error = "memory differs at " + std::to_string(KESTREL_GLOBAL_BASE + i) + ": rtl " +
                    std::to_string(rtl[i]) + " model " + std::to_string(model_bytes[i]);
        return;
      }
    }
  }

  SmBenchConfig cfg_;
  MemoryModel mem_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<V> dut_;
  std::unique_ptr<model::Gpu> gpu_;
  std::deque<Pending> responses_;
  std::mt19937 rng_{12345};
  unsigned min_latency_ = kRspLatencyDefault;
  unsigned max_latency_ = kRspLatencyDefault;
  unsigned backpressure_ = 0;
  // KESTREL_SM_TRACE=1 prints every retire record (debugging a mismatch).
  bool trace_ = std::getenv("KESTREL_SM_TRACE") != nullptr;
};

}  // namespace kestrel::rtlbench
