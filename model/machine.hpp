// The instruction-level interpreter behind Engine (machine.cpp's make_engine).
// Layout chosen for speed (see docs/functional-model.md): registers are
// structure-of-arrays (row = register, column = lane) so each instruction is
// one tight loop over its active lanes; a warp keeps its threads as a short
// sorted list of (pc, lane mask) groups, so a converged warp picks its next PC
// in O(1); instructions come pre-decoded from memory.hpp; a warp issues
// several instructions before the SM moves on.
//
// Machine is a template on the register width, so RV32 and RV64 each get a hot
// loop with no XLEN tests in it.  Private to the model: this header declares
// the class and defines what the hot loop inlines (thread groups, address
// translation, loads and stores, MULH and division); the rest lives in
//   machine.cpp         the Engine API, block dispatch, faults, barriers
//   machine_exec.cpp    the hot loop: issue and the instruction switch
//   machine_simt.cpp    warp-synchronous instructions and collectives
//   machine_memory.cpp  reservations, A-extension and CUDA atomics
//   machine_csr.cpp     CSRs
//   machine_fp.cpp      floating point
//   machine_tex.cpp     texture fetches (kx.tex)
// each of which instantiates its members for both register widths.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "amo.hpp"
#include "decode.hpp"
#include "engine.hpp"
#include "fpu.hpp"
#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "memory.hpp"
#include "sfu.hpp"

namespace kestrel::model::interp {

// Zero-filled memory whose pages cost nothing until a thread touches them:
// the private local windows of a warp (a launch without LOCAL_BACKING), which
// the descriptor may size up to the whole 16 MiB window per thread, i.e.
// 512 MiB for a warp of 32 lanes, of which a kernel touches a few pages.
class ZeroPages {
 public:
  ZeroPages() = default;
  ~ZeroPages();
  ZeroPages(ZeroPages&& other) noexcept;
  ZeroPages& operator=(ZeroPages&& other) noexcept;
  ZeroPages(const ZeroPages&) = delete;
  ZeroPages& operator=(const ZeroPages&) = delete;

  // `bytes` zero bytes (zero again when they were used before); nullptr for
  // 0 bytes.  Throws kestrel::Error(KESTREL_ERROR_OUT_OF_MEMORY) when the
  // host cannot reserve them.
  uint8_t* zeroed(size_t bytes);

 private:
  void release();
  uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
  bool mapped_ = false;  // data_ from mmap (large), else new[] (small)
};

// 128-bit products for MULH on RV64 (a GCC/Clang extension).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

constexpr uint32_t kFairnessPeriod = KESTREL_FAIRNESS_PERIOD;     // docs/isa.md section 6
constexpr uint32_t kSpinYieldIssues = KESTREL_SPIN_YIELD_ISSUES;  // (the contract)
constexpr uint32_t kLocalWindow = KESTREL_LOCAL_LIMIT - KESTREL_LOCAL_BASE;
constexpr unsigned kXRows = 33;  // x0..x31 and the x0 write sink

// CSR numbers: the F extension's, and Zicntr's from abi.h (the contract).
enum : uint32_t {
  kCsrFflags = 0x001,
  kCsrFrm = 0x002,
  kCsrFcsr = 0x003,
  kCsrCycle = KESTREL_CSR_CYCLE,
  kCsrTime = KESTREL_CSR_TIME,
  kCsrInstret = KESTREL_CSR_INSTRET,
  kCsrCycleH = KESTREL_CSR_CYCLEH,
  kCsrTimeH = KESTREL_CSR_TIMEH,
  kCsrInstretH = KESTREL_CSR_INSTRETH,
};

// How an access is checked and tallied: loads need R; stores and atomics
// need W; in shared memory, lanes reading or writing one 32-bit word share a
// bank pass while each lane's atomic takes its own.
enum class Access { kLoad, kStore, kAtomic };

template <class Fn>
inline void for_each_lane(uint32_t mask, Fn&& fn) {
  while (mask != 0) {
    fn(static_cast<uint32_t>(__builtin_ctz(mask)));
    mask &= mask - 1;
  }
}

inline int popcount(uint32_t mask) { return __builtin_popcount(mask); }

// What one warp memory instruction touches: the distinct DRAM lines
// (KESTREL_CNT_MEM_REQUESTS) and, in shared memory, the 32-bit words each
// bank must deliver (KESTREL_CNT_SHARED_PASSES: the passes are the largest
// number of distinct words any one bank holds, docs/functional-model.md).
struct AccessTally {
  uint32_t lines[32];
  uint32_t count = 0;  // distinct lines
  void add_line(uint32_t line) {
    if (count != 0 && lines[count - 1] == line) return;
    for (uint32_t i = 0; i + 1 < count; ++i) {
      if (lines[i] == line) return;
    }
    lines[count++] = line;
  }

  // Banks touched; for each, the first word it delivers and how many passes
  // it needs.  Further distinct words (conflicts, the slow case) go to
  // `conflict_words` so a repeated word is recognised as a broadcast.
  uint32_t banks_used = 0;
  uint32_t bank_first_word[32];
  uint32_t bank_passes[32];
  uint32_t conflict_words[64];
  uint32_t conflict_count = 0;
  // `serial`: an atomic, which the bank performs once per lane even on one word.
  void add_shared_word(uint32_t word, uint32_t bank, bool serial) {
    const uint32_t bit = 1u << bank;
    if ((banks_used & bit) == 0) {
      banks_used |= bit;
      bank_first_word[bank] = word;
      bank_passes[bank] = 1;
      return;
    }
    if (serial) {
      ++bank_passes[bank];
      return;
    }
    if (bank_first_word[bank] == word) return;
    for (uint32_t i = 0; i < conflict_count; ++i) {
      if (conflict_words[i] == word) return;  // equal words are in the same bank
    }
    conflict_words[conflict_count++] = word;
    ++bank_passes[bank];
  }
  uint32_t shared_passes() const {
    uint32_t passes = 0;
    for (uint32_t m = banks_used; m != 0; m &= m - 1) {
      passes = std::max(passes, bank_passes[__builtin_ctz(m)]);
    }
    return passes;
  }
};

// Hidden: nothing outside libkestrel's own objects names the class, and a
// member that could be interposed (default visibility under -fPIC) would not
// be inlined into its callers in the same file.
template <class X>
class [[gnu::visibility("hidden")]] Machine final : public Engine {
  using SX = std::make_signed_t<X>;
  static constexpr unsigned kXlen = sizeof(X) * 8;

  struct Group {
    uint64_t pc;
    uint32_t mask;
  };

  struct Warp {
    bool resident = false;
    uint64_t resident_since = 0;  // dispatch order (greedy-then-oldest)
    uint32_t block = 0;           // index into Sm::blocks
    uint32_t warp_in_block = 0;   // the warpid CSR
    uint32_t live = 0;            // lanes that have not exited
    uint32_t waiting = 0;         // lanes waiting at a barrier
    // Warp-synchronous waits (docs/isa.md section 6.1): lanes parked at a
    // collective whose membermask has not converged (PC still at it), and
    // lanes past a kx.syncwarp waiting for their mask (a subset of held).
    uint32_t held = 0;
    uint32_t syncwarp_waiting = 0;
    uint32_t sleeping = 0;  // lanes in kx.nanosleep until wake_cycle
    uint32_t num_groups = 0;
    Group groups[32];  // sorted by pc, pcs distinct, masks disjoint, union = live
    uint32_t fair_count = 0;
    uint64_t rr_pc = 0;
    // Spinning (docs/isa.md section 6): the last backward branch its lowest
    // lane took, and the issues left for the groups above a spinning one.
    bool spin_valid = false;
    uint64_t spin_pc = 0;
    uint32_t spin_mask = 0;
    X spin_rs1 = 0, spin_rs2 = 0;
    uint32_t yield_left = 0;
    uint64_t yield_pc = 0;
    // instret of lane l = instret[l] + uniform_instret: a converged issue bumps
    // the shared count instead of every lane's.
    uint64_t uniform_instret = 0;
    std::vector<X> x;         // kXRows * lanes
    std::vector<uint32_t> f;  // 32 * lanes
    std::vector<uint8_t> fflags, frm, bar_kind, bar_rd;
    std::vector<uint32_t> sync_mask;   // membermask of each kx.syncwarp waiter
    std::vector<uint64_t> wake_cycle;  // SM cycle at which a sleeping lane wakes
    std::vector<uint64_t> instret;
    std::vector<uint8_t*> local;  // host address of each lane's first local granule
    ZeroPages private_local;      // the local windows without LOCAL_BACKING
  };

  struct Block {
    bool active = false;
    uint64_t index = 0;
    Dim3 id;
    uint32_t live = 0;  // threads not exited
    uint32_t arrived = 0;
    uint32_t predicate_count = 0;
    uint32_t held = 0;  // threads in warp-synchronous waits (Warp::held)
    uint64_t watchdog = 0;
    std::vector<uint32_t> warp_slots;
    std::vector<uint8_t> shared;
  };

  struct Sm {
    std::vector<Warp> warps;
    std::vector<Block> blocks;
    uint32_t shared_used = 0;
    uint32_t free_slots = 0;
    uint64_t cycles = 0;
    uint32_t next_warp = 0;
    uint64_t dispatches = 0;  // warps made resident so far (their ages)
    // This launch's per-SM counters (SmCounters; cycles is the active cycles)
    uint64_t warp_instrs = 0;
    uint64_t thread_instrs = 0;
    uint64_t blocks_done = 0;
  };

  struct Reservation {
    uint64_t thread;
    const uint8_t* host;
    uint32_t bytes;
  };
  // A thread's last LR in GPU lock-step: what its SC pairs with when the RTL
  // reports the SC's success (the model's own reservations follow its retire
  // order, not the memory's).
  struct OracleLr {
    const uint8_t* host;
    uint32_t bytes;
    uint64_t value;
  };

 public:
  explicit Machine(const Config& c)
      : config_(c),
        lanes_(c.lanes_per_warp),
        lane_bits_(c.lanes_per_warp == 32 ? ~0u : (1u << c.lanes_per_warp) - 1),
        shared_banks_(std::max(c.lanes_per_warp, 2u)),
        mem_(c.mem_bytes, c.xlen, c.dram) {
    sms_.resize(c.num_sms);
    for (Sm& sm : sms_) {
      sm.warps.resize(c.warps_per_sm);
      sm.blocks.resize(c.warps_per_sm);
      sm.free_slots = c.warps_per_sm;
      for (Warp& w : sm.warps) {
        w.x.assign(kXRows * lanes_, 0);
        w.f.assign(32 * lanes_, 0);
        w.fflags.assign(lanes_, 0);
        w.frm.assign(lanes_, 0);
        w.bar_kind.assign(lanes_, 0);
        w.bar_rd.assign(lanes_, 0);
        w.sync_mask.assign(lanes_, 0);
        w.wake_cycle.assign(lanes_, 0);
        w.instret.assign(lanes_, 0);
        w.local.assign(lanes_, nullptr);
      }
    }
    counters_.fill(0);
  }

  const Config& config() const override { return config_; }
  void write_mem(uint64_t addr, const void* src, size_t bytes) override { mem_.write(addr, src, bytes); }
  void read_mem(uint64_t addr, void* dst, size_t bytes) const override { mem_.read(addr, dst, bytes); }
  void map_pages(uint64_t addr, uint64_t pages, uint32_t perms) override { mem_.map(addr, pages, perms); }
  uint32_t page_perms(uint64_t addr) const override { return mem_.perms(addr); }
  LaunchState state() const override { return state_; }
  const Fault& fault() const override { return fault_; }
  const Counters& counters() const override { return counters_; }
  SmCounters sm_counters(uint32_t sm_id) const override {
    const Sm& sm = sms_.at(sm_id);
    SmCounters c{};
    c[KESTREL_SM_CNT_ACTIVE_CYCLES] = sm.cycles;
    c[KESTREL_SM_CNT_WARP_INSTRS] = sm.warp_instrs;
    c[KESTREL_SM_CNT_THREAD_INSTRS] = sm.thread_instrs;
    c[KESTREL_SM_CNT_BLOCKS] = sm.blocks_done;
    return c;
  }

  void start(const LaunchDesc& d, Dispatch dispatch) override;

  void run() override { run_for(UINT64_MAX); }

  bool run_for(uint64_t rounds) override;
  void set_retire_observer(RetireObserver observer) override { retire_observer_ = std::move(observer); }
  void abort() override;
  void place_block(uint32_t block_index, uint32_t sm_id, const std::vector<uint32_t>& slots) override;
  Retire step(uint32_t sm_id, uint32_t slot, const AtomicOracle* oracle) override;

  bool warp_resident(uint32_t sm_id, uint32_t slot) const override {
    return sm_id < sms_.size() && slot < config_.warps_per_sm && sms_[sm_id].warps[slot].resident;
  }

  uint64_t xreg(uint32_t sm_id, uint32_t slot, uint32_t lane, unsigned reg) const override;
  void set_xreg(uint32_t sm_id, uint32_t slot, uint32_t lane, unsigned reg, uint64_t value) override;
  uint32_t freg(uint32_t sm_id, uint32_t slot, uint32_t lane, unsigned reg) const override;
  uint32_t fcsr(uint32_t sm_id, uint32_t slot, uint32_t lane) const override;
  uint64_t thread_pc(uint32_t sm_id, uint32_t slot, uint32_t lane, bool* exited) const override;

 private:
  const Warp& warp_at(uint32_t sm_id, uint32_t slot, uint32_t lane) const {
    if (sm_id >= sms_.size() || slot >= config_.warps_per_sm || lane >= lanes_) {
      throw Error(KESTREL_ERROR_INVALID_VALUE, "model: no such thread slot");
    }
    return sms_[sm_id].warps[slot];
  }

  X* xrow(Warp & w, unsigned r) { return w.x.data() + r * lanes_; }
  uint32_t* frow(Warp & w, unsigned r) { return w.f.data() + r * lanes_; }

  // ---- dispatch -------------------------------------------------------------
  bool fits(const Sm& sm) const;
  void dispatch_one(uint32_t sm_id);
  void initial_dispatch();
  // block_index is linear (x fastest) over up to 2^31 x 2^16 x 2^16 blocks.
  void place(uint32_t sm_id, uint64_t block_index, const std::vector<uint32_t>& slots);
  void complete_block(uint32_t sm_id, Block & b);
  void finish();

  // ---- faults ---------------------------------------------------------------
  void raise(kestrel_fault_kind kind, uint32_t sm_id, const Warp& w, uint32_t lane, uint64_t pc,
             uint64_t addr, uint32_t info = 0);

  // ---- thread groups (docs/isa.md section 6) --------------------------------
  // Lanes that may not issue: at a barrier, in a warp-synchronous wait, asleep.
  static uint32_t blocked(const Warp& w) { return w.waiting | w.held | w.sleeping; }

  static bool has_eligible(const Warp& w) {
    const uint32_t stopped = blocked(w);
    for (uint32_t g = 0; g < w.num_groups; ++g) {
      if (w.groups[g].mask & ~stopped) return true;
    }
    return false;
  }

  // The lowest group above `pc` with an eligible lane (groups are sorted by
  // PC), or -1.
  static int first_eligible_above(const Warp& w, uint32_t stopped, uint64_t pc) {
    for (uint32_t g = 0; g < w.num_groups; ++g) {
      if ((w.groups[g].mask & ~stopped) != 0 && w.groups[g].pc > pc) return static_cast<int>(g);
    }
    return -1;
  }

  // Picks the PC to issue and its active mask by the min-PC + yield +
  // fairness rule.
  static bool select(Warp & w, uint32_t & gi, uint64_t & pc, uint32_t & mask) {
    if (w.num_groups == 1) {
      mask = w.groups[0].mask & ~blocked(w);
      if (mask == 0) return false;
      gi = 0;
      pc = w.groups[0].pc;
      w.fair_count = 0;
      w.yield_left = 0;
      return true;
    }
    const uint32_t stopped = blocked(w);
    int first = -1;
    bool diverged = false;
    for (uint32_t g = 0; g < w.num_groups; ++g) {
      if ((w.groups[g].mask & ~stopped) == 0) continue;
      if (first < 0) {
        first = static_cast<int>(g);
      } else {
        diverged = true;
        break;
      }
    }
    if (first < 0) return false;
    uint32_t chosen = static_cast<uint32_t>(first);
    const int above_yield = diverged && w.yield_left != 0 ? first_eligible_above(w, stopped, w.yield_pc) : -1;
    if (above_yield >= 0) {
      chosen = static_cast<uint32_t>(above_yield);
      --w.yield_left;  // the fairness state waits
    } else {
      w.yield_left = 0;
      if (diverged && w.fair_count == kFairnessPeriod - 1) {
        const int above_rr = first_eligible_above(w, stopped, w.rr_pc);
        if (above_rr >= 0) chosen = static_cast<uint32_t>(above_rr);
        w.rr_pc = w.groups[chosen].pc;
        w.fair_count = 0;
      } else {
        w.fair_count = diverged ? w.fair_count + 1 : 0;
      }
    }
    gi = chosen;
    pc = w.groups[chosen].pc;
    mask = w.groups[chosen].mask & ~stopped;
    return true;
  }

  // A branch its group's lowest lane took backward (to its own PC or
  // below), with that lane's operand values: taken again with the same
  // lanes and values, nothing the branch tests has changed, so the group
  // spins and the warp yields to the groups above it.
  static void note_backward_branch(Warp & w, uint64_t pc, uint32_t mask, X rs1, X rs2) {
    if (w.spin_valid && w.spin_pc == pc && w.spin_mask == mask && w.spin_rs1 == rs1 && w.spin_rs2 == rs2) {
      w.yield_left = kSpinYieldIssues;
      w.yield_pc = pc;
      return;
    }
    w.spin_valid = true;
    w.spin_pc = pc;
    w.spin_mask = mask;
    w.spin_rs1 = rs1;
    w.spin_rs2 = rs2;
  }

  static void remove_lanes(Warp & w, uint32_t gi, uint32_t mask) {
    w.groups[gi].mask &= ~mask;
    if (w.groups[gi].mask == 0) {
      for (uint32_t g = gi + 1; g < w.num_groups; ++g) w.groups[g - 1] = w.groups[g];
      --w.num_groups;
    }
  }

  static void insert_lanes(Warp & w, uint64_t pc, uint32_t mask) {
    uint32_t pos = 0;
    while (pos < w.num_groups && w.groups[pos].pc < pc) ++pos;
    if (pos < w.num_groups && w.groups[pos].pc == pc) {
      w.groups[pos].mask |= mask;
      return;
    }
    for (uint32_t g = w.num_groups; g > pos; --g) w.groups[g] = w.groups[g - 1];
    w.groups[pos] = Group{pc, mask};
    ++w.num_groups;
  }

  // Moves the lanes in `mask` (all in group gi) to `target`.
  static void move_lanes(Warp & w, uint32_t gi, uint32_t mask, uint64_t target) {
    Group& g = w.groups[gi];
    if (g.mask == mask && (gi == 0 || w.groups[gi - 1].pc < target) &&
        (gi + 1 == w.num_groups || w.groups[gi + 1].pc > target)) {
      g.pc = target;
      return;
    }
    remove_lanes(w, gi, mask);
    insert_lanes(w, target, mask);
  }

  static uint32_t group_of_lane(const Warp& w, uint32_t lane) {
    for (uint32_t g = 0; g < w.num_groups; ++g) {
      if (w.groups[g].mask & (1u << lane)) return g;
    }
    return 0;
  }

  // ---- barriers -------------------------------------------------------------
  void release_barrier(uint32_t sm_id, Block & b, Retire * rec);
  void barrier_deadlock(uint32_t sm_id, const Block& b);
  bool any_warp_can_issue() const;
  bool report_warp_sync_deadlock();

  // ---- warp-synchronous instructions (docs/isa.md section 6.1) ----------------
  // The membermask operand of a collective: rs2, or rs3 for shuffles.  Mask
  // bits beyond the warp's lanes mean nothing.
  const X* mask_row(Warp & w, const Inst& in) { return xrow(w, in.op == Op::kShuffle ? in.rs3 : in.rs2); }

  bool converged_lanes(uint32_t sm_id, Warp & w, const Inst& in, uint32_t gi, uint64_t pc, uint32_t arriving,
                       uint32_t& ready);

  void hold(Warp & w, Block & b, uint32_t lanes) {
    w.held |= lanes;
    b.held += static_cast<uint32_t>(popcount(lanes));
  }
  void unhold(Warp & w, Block & b, uint32_t lanes) {
    lanes &= w.held;
    if (lanes == 0) return;
    w.held &= ~lanes;
    w.syncwarp_waiting &= ~lanes;
    b.held -= static_cast<uint32_t>(popcount(lanes));
    b.watchdog = 0;
  }

  void release_syncwarps(Warp & w, Block & b);
  void recheck_after_exit(Warp & w, Block & b);

  static void wake_sleepers(Warp & w, uint64_t now) {
    for_each_lane(w.sleeping, [&](uint32_t l) {
      if (w.wake_cycle[l] <= now) w.sleeping &= ~(1u << l);
    });
  }

  bool skip_idle_cycles(Sm & sm);

  // 32-bit results are sign-extended to XLEN, as RV64's W instructions do.
  static X sext_word(uint32_t value) { return static_cast<X>(static_cast<SX>(static_cast<int32_t>(value))); }

  void exec_collective(Warp & w, const Inst& in, uint32_t lanes);
  static uint32_t reduce_step(uint8_t op, uint32_t a, uint32_t b);
  uint32_t shuffle_source(uint8_t mode, uint32_t lane, uint32_t control) const;

  // ---- memory ---------------------------------------------------------------
  // Host address of a naturally aligned access of `size` bytes, or nullptr with
  // `kind` set.  Order per docs/isa.md section 4: alignment, then the shared
  // window, the local window, the page table.
  template <unsigned Size, Access A>
  uint8_t* translate(Warp & w, Block & b, uint32_t lane, X addr, kestrel_fault_kind & kind,
                     AccessTally & tally) {
    if ((addr & (Size - 1)) != 0) {
      kind = KESTREL_FAULT_MISALIGNED;
      return nullptr;
    }
    if constexpr (kXlen == 64) {
      if ((static_cast<uint64_t>(addr) >> 32) != 0) {
        kind = KESTREL_FAULT_ILLEGAL_ADDRESS;
        return nullptr;
      }
    }
    const uint32_t a = static_cast<uint32_t>(addr);
    // The shared window with a guard on each side: an index just below or
    // past the block's shared memory faults instead of reaching the module's
    // globals or the next allocation.  Below the window `offset` wraps, so the
    // size check is done in 64 bits.
    uint32_t offset = a - desc_.shared_base;
    if (a - (desc_.shared_base - KESTREL_SHARED_GUARD) < shared_span_) {
      if (uint64_t{offset} + Size > shared_size_) {
        kind = KESTREL_FAULT_SHARED_BOUNDS;
        return nullptr;
      }
      // Successive 32-bit words of the window sit in successive banks, one
      // bank per lane of a warp (guide G.3.3 / G.5.3), but at least two: a
      // 64-bit access is an even/odd bank pair, one pass (as kestrel_lsu).
      for (uint32_t word = offset >> 2; word <= (offset + Size - 1) >> 2; ++word) {
        tally.add_shared_word(word, word & (shared_banks_ - 1), A == Access::kAtomic);
      }
      return b.shared.data() + offset;
    }
    // The local window and the guard below it, where a stack overflow lands.
    offset = a - KESTREL_LOCAL_BASE;
    if (a - KESTREL_LOCAL_GUARD_BASE < KESTREL_LOCAL_LIMIT - KESTREL_LOCAL_GUARD_BASE) {
      if (uint64_t{offset} + Size > desc_.stack_bytes) {
        kind = KESTREL_FAULT_LOCAL_BOUNDS;
        return nullptr;
      }
      if (w.local[lane] == nullptr) {  // local backing outside DRAM
        kind = KESTREL_FAULT_ILLEGAL_ADDRESS;
        return nullptr;
      }
      // The lanes' granules interleave (docs/isa.md section 4); an aligned
      // access of at most 8 bytes stays inside one granule.
      constexpr uint32_t kGranule = KESTREL_LOCAL_INTERLEAVE_BYTES;
      static_assert(Size <= kGranule, "a local access wider than the interleave granule");
      return w.local[lane] + size_t{offset / kGranule} * kGranule * lanes_ + offset % kGranule;
    }
    offset = a - KESTREL_GLOBAL_BASE;
    if (offset < mem_.size()) {
      const uint8_t perms = mem_.page_perms_at(offset);
      if constexpr (A == Access::kLoad) {
        if ((perms & KESTREL_PAGE_READ) == 0) {
          kind = KESTREL_FAULT_ILLEGAL_ADDRESS;
          return nullptr;
        }
      } else {
        if ((perms & KESTREL_PAGE_WRITE) == 0) {
          kind = perms != 0 ? KESTREL_FAULT_WRITE_PROTECT : KESTREL_FAULT_ILLEGAL_ADDRESS;
          return nullptr;
        }
        if (perms & KESTREL_PAGE_EXEC) mem_.note_store(offset);
      }
      tally.add_line(offset / config_.mem_line_bytes);
      return mem_.dram() + offset;
    }
    kind = KESTREL_FAULT_ILLEGAL_ADDRESS;
    return nullptr;
  }

  void store_done(const uint8_t* host, uint32_t bytes);

  static uint64_t thread_key(uint32_t sm_id, uint32_t slot, uint32_t lane) {
    return (uint64_t{sm_id} << 40) | (uint64_t{slot} << 8) | lane;
  }

  void drop_reservations(uint32_t sm_id, uint32_t slot, uint32_t mask);

  template <class T>
  static T load_host(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  template <class T>
  static void store_host(uint8_t * p, T v) {
    std::memcpy(p, &v, sizeof v);
  }

  // A translated access that reached device DRAM through the global window
  // (not the shared window, not a local window backed by DRAM).
  bool is_global(X addr, const uint8_t* p) {
    const uint64_t offset = uint64_t{static_cast<uint32_t>(addr)} - KESTREL_GLOBAL_BASE;
    return offset < mem_.size() && p == mem_.dram() + offset;
  }
  bool oracle_value(uint32_t l, X addr, const uint8_t* p, uint64_t& value);
  void report_atomic(GlobalAccess::Kind kind, uint32_t l, X addr, uint8_t bytes, bool observed,
                     bool order_free, bool writes, uint64_t prior, uint64_t old, uint64_t value);

  // Loads of type T (sign or zero extension by T) into an x register row.
  template <class T>
  bool exec_load(uint32_t sm_id, Warp & w, Block & b, const Inst& in, uint64_t pc, uint32_t mask) {
    X* d = xrow(w, in.rd);
    const X* base = xrow(w, in.rs1);
    const X imm = static_cast<X>(static_cast<SX>(in.imm));
    AccessTally tally;
    kestrel_fault_kind kind = KESTREL_FAULT_NONE;
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      const X addr = base[l] + imm;
      const uint8_t* p = translate<sizeof(T), Access::kLoad>(w, b, l, addr, kind, tally);
      if (p == nullptr) {
        raise(kind, sm_id, w, l, pc, addr);
        return false;
      }
      d[l] = static_cast<X>(static_cast<std::conditional_t<std::is_signed_v<T>, SX, X>>(load_host<T>(p)));
      if (accesses_ != nullptr && is_global(addr, p)) {
        GlobalAccess a;
        a.kind = GlobalAccess::kLoad;
        a.lane = l;
        a.addr = static_cast<uint32_t>(addr);
        a.bytes = sizeof(T);
        a.old = static_cast<std::make_unsigned_t<T>>(load_host<T>(p));
        a.prior = a.old;
        a.sign_extends = std::is_signed_v<T>;
        accesses_->push_back(a);
      }
    }
    ++counters_[KESTREL_CNT_LOADS];
    count_access(tally);
    return true;
  }

  template <class T, class Row>
  bool exec_store(uint32_t sm_id, Warp & w, Block & b, const Inst& in, uint64_t pc, uint32_t mask,
                  const Row* src) {
    const X* base = xrow(w, in.rs1);
    const X imm = static_cast<X>(static_cast<SX>(in.imm));
    AccessTally tally;
    kestrel_fault_kind kind = KESTREL_FAULT_NONE;
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      const X addr = base[l] + imm;
      uint8_t* p = translate<sizeof(T), Access::kStore>(w, b, l, addr, kind, tally);
      if (p == nullptr) {
        raise(kind, sm_id, w, l, pc, addr);
        return false;
      }
      store_host<T>(p, static_cast<T>(src[l]));
      store_done(p, sizeof(T));
      if (accesses_ != nullptr && is_global(addr, p)) {
        GlobalAccess a;
        a.kind = GlobalAccess::kStore;
        a.lane = l;
        a.addr = static_cast<uint32_t>(addr);
        a.bytes = sizeof(T);
        a.order_free = true;
        a.writes = true;
        a.value = static_cast<T>(src[l]);
        accesses_->push_back(a);
      }
    }
    ++counters_[KESTREL_CNT_STORES];
    count_access(tally);
    return true;
  }

  template <class T>
  bool exec_atomic(uint32_t sm_id, uint32_t slot, Warp & w, Block & b, const Inst& in, uint64_t pc,
                   uint32_t mask);

  void count_access(const AccessTally& tally) {
    counters_[KESTREL_CNT_MEM_REQUESTS] += tally.count;
    if (tally.banks_used != 0) {
      ++counters_[KESTREL_CNT_SHARED_ACCESSES];
      counters_[KESTREL_CNT_SHARED_PASSES] += tally.shared_passes();
    }
  }

  // ---- CUDA atomics (custom-1, docs/isa.md section 2.2) ----------------------
  uint64_t read_pair(Warp & w, unsigned reg, uint32_t lane);
  void write_pair(Warp & w, unsigned reg, uint32_t lane, uint64_t value);
  uint64_t read_wide(Warp & w, unsigned reg, uint32_t lane);
  void write_wide(Warp & w, unsigned reg, uint32_t lane, uint64_t value);
  template <class T>
  bool exec_cuda_atomic(uint32_t sm_id, Warp & w, Block & b, const Inst& in, uint64_t pc, uint32_t mask);

  // ---- texture fetches (kx.tex, docs/isa.md section 2.5; machine_tex.cpp) ------
  // The host address of the 64-byte line `line` (a multiple of 64) when the
  // texture unit may read it (device DRAM, a page with R), else nullptr.
  const uint8_t* tex_line(uint32_t line);
  bool exec_tex(uint32_t sm_id, Warp & w, const Inst& in, uint64_t pc, uint32_t mask);

  // ---- CSRs -----------------------------------------------------------------
  static bool csr_exists(uint32_t csr);
  static bool csr_writable(uint32_t csr) { return csr == kCsrFflags || csr == kCsrFrm || csr == kCsrFcsr; }

  uint64_t csr_read(uint32_t sm_id, const Warp& w, const Block& b, uint32_t lane, uint32_t csr, uint32_t mask)
      const;
  static void csr_write(Warp & w, uint32_t lane, uint32_t csr, uint64_t value);
  bool exec_csr(uint32_t sm_id, Warp & w, Block & b, const Inst& in, uint64_t pc, uint32_t mask);

  // ---- floating point -------------------------------------------------------
  template <class Fn>
  bool fp_lanes(uint32_t sm_id, Warp & w, const Inst& in, uint64_t pc, uint32_t mask, Fn&& fn);
  bool exec_fp(uint32_t sm_id, Warp & w, const Inst& in, uint64_t pc, uint32_t mask);

  // ---- the hot loop ---------------------------------------------------------
  // The slot whose warp runs the SM's next slice under Config::sched_policy,
  // or warps_per_sm when no resident warp can issue.
  uint32_t choose_warp(Sm & sm);
  void run_observed_slice(uint32_t sm_id, uint32_t slot);
  void run_warp(uint32_t sm_id, uint32_t slot, uint32_t limit, Retire * rec);
  void record_writes(uint32_t slot, Warp & w, const Inst& in, uint32_t mask, Retire* rec);
  bool execute(uint32_t sm_id, uint32_t slot, Warp & w, Block & blk, const Inst& in, uint32_t gi, uint64_t pc,
               uint32_t mask, Retire* rec);

  static X mulh(X a, X b, bool a_signed, bool b_signed) {
    if constexpr (kXlen == 64) {
      const Int128 wa = a_signed ? static_cast<Int128>(static_cast<int64_t>(a)) : static_cast<Int128>(a);
      const Int128 wb = b_signed ? static_cast<Int128>(static_cast<int64_t>(b)) : static_cast<Int128>(b);
      if (!a_signed && !b_signed) {
        return static_cast<X>((static_cast<UInt128>(a) * b) >> 64);
      }
      return static_cast<X>(static_cast<UInt128>(wa * wb) >> 64);
    } else {
      const int64_t wa = a_signed ? static_cast<int64_t>(static_cast<int32_t>(a)) : static_cast<int64_t>(a);
      const int64_t wb = b_signed ? static_cast<int64_t>(static_cast<int32_t>(b)) : static_cast<int64_t>(b);
      return static_cast<X>((static_cast<uint64_t>(wa) * static_cast<uint64_t>(wb)) >>
                            32);  // wraps, never overflows
    }
  }

  // RISC-V division: by zero gives all ones (quotient) or the dividend
  // (remainder); the signed overflow MIN / -1 gives MIN and remainder 0.
  template <class T>
  static T divide(std::make_unsigned_t<T> ua, std::make_unsigned_t<T> ub, bool remainder) {
    const T a = static_cast<T>(ua), b = static_cast<T>(ub);
    if (b == 0) return remainder ? a : static_cast<T>(-1);
    if constexpr (std::is_signed_v<T>) {
      if (a == std::numeric_limits<T>::min() && b == -1) return remainder ? 0 : a;
    }
    return remainder ? static_cast<T>(a % b) : static_cast<T>(a / b);
  }

  Config config_;
  uint32_t lanes_;
  uint32_t lane_bits_;     // a mask bit for every lane of a warp
  uint32_t shared_banks_;  // shared memory's banks: one per lane, at least two
  DeviceMemory mem_;
  std::vector<Sm> sms_;
  LaunchDesc desc_;
  Dispatch dispatch_ = Dispatch::kAutomatic;
  RetireObserver retire_observer_;  // the instruction trace, when set
  LaunchState state_ = LaunchState::kIdle;
  Fault fault_;
  Counters counters_{};
  uint32_t threads_per_block_ = 0;
  uint32_t warps_per_block_ = 0;
  uint32_t shared_size_ = 0;
  uint32_t shared_span_ = 0;  // the window and its two guards; 0: no window
  uint64_t total_blocks_ = 0;
  uint64_t next_block_ = 0;
  uint64_t blocks_done_ = 0;
  std::vector<bool> placed_;
  std::vector<Reservation> reservations_;
  // GPU lock-step (step() with an oracle): the RTL's values for this step,
  // the step's global accesses, and each thread's last LR.
  const AtomicOracle* oracle_ = nullptr;
  std::vector<GlobalAccess>* accesses_ = nullptr;
  std::unordered_map<uint64_t, OracleLr> oracle_lr_;
};

}  // namespace kestrel::model::interp
