// The instruction-level interpreter.  Layout chosen for speed (see
// docs/functional-model.md): registers are structure-of-arrays (row = register,
// column = lane) so each instruction is one tight loop over its active lanes;
// a warp keeps its threads as a short sorted list of (pc, lane mask) groups,
// so a converged warp picks its next PC in O(1); instructions come pre-decoded
// from memory.hpp; a warp issues several instructions before the SM moves on.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "amo.hpp"
#include "decode.hpp"
#include "engine.hpp"
#include "fpu.hpp"
#include "kestrel/error.hpp"
#include "memory.hpp"
#include "sfu.hpp"

namespace kestrel::model {
namespace {

// 128-bit products for MULH on RV64 (a GCC/Clang extension).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

constexpr uint32_t kFairnessPeriod = 32;  // docs/isa.md section 6
constexpr uint32_t kLocalWindow = KESTREL_LOCAL_LIMIT - KESTREL_LOCAL_BASE;
constexpr unsigned kXRows = 33;  // x0..x31 and the x0 write sink

// CSR numbers beyond abi.h's Kestrel range.
enum : uint32_t {
  kCsrFflags = 0x001,
  kCsrFrm = 0x002,
  kCsrFcsr = 0x003,
  kCsrCycle = 0xC00,
  kCsrTime = 0xC01,
  kCsrInstret = 0xC02,
  kCsrCycleH = 0xC80,
  kCsrTimeH = 0xC81,
  kCsrInstretH = 0xC82,
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

void check_config(const Config& c) {
  auto fail = [](const std::string& why) { throw Error(KESTREL_ERROR_INVALID_VALUE, "model: " + why); };
  if (c.xlen != 32 && c.xlen != 64) fail("xlen must be 32 or 64");
  if (c.lanes_per_warp != 4 && c.lanes_per_warp != 8 && c.lanes_per_warp != 32)
    fail("lanes_per_warp must be 4, 8 or 32");
  if (c.num_sms < 1 || c.num_sms > 255) fail("num_sms must be 1..255");
  if (c.warps_per_sm < 1 || c.warps_per_sm > 255) fail("warps_per_sm must be 1..255");
  if (c.shared_bytes_per_sm % 256 != 0 || c.shared_bytes_per_sm / 256 > 0xFFFF) {
    fail("shared_bytes_per_sm must be a multiple of 256 below 16 MiB");
  }
  if (c.max_threads_per_block < 1 || c.max_threads_per_block > 0xFFFF)
    fail("max_threads_per_block must be 1..65535");
  if (c.warp_slice < 1) fail("warp_slice must be at least 1");
  if (c.barrier_watchdog < 1) fail("barrier_watchdog must be at least 1");
  if (c.mem_line_bytes < 8 || (c.mem_line_bytes & (c.mem_line_bytes - 1)) != 0) {
    fail("mem_line_bytes must be a power of two >= 8");
  }
  if (c.clock_khz < 1) fail("clock_khz must be at least 1");
}

template <class X>
class Machine final : public Engine {
  using SX = std::make_signed_t<X>;
  static constexpr unsigned kXlen = sizeof(X) * 8;

  struct Group {
    uint64_t pc;
    uint32_t mask;
  };

  struct Warp {
    bool resident = false;
    uint32_t block = 0;          // index into Sm::blocks
    uint32_t warp_in_block = 0;  // the warpid CSR
    uint32_t live = 0;           // lanes that have not exited
    uint32_t waiting = 0;        // lanes waiting at a barrier
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
    // instret of lane l = instret[l] + uniform_instret: a converged issue bumps
    // the shared count instead of every lane's.
    uint64_t uniform_instret = 0;
    std::vector<X> x;         // kXRows * lanes
    std::vector<uint32_t> f;  // 32 * lanes
    std::vector<uint8_t> fflags, frm, bar_kind, bar_rd;
    std::vector<uint32_t> sync_mask;   // membermask of each kx.syncwarp waiter
    std::vector<uint64_t> wake_cycle;  // SM cycle at which a sleeping lane wakes
    std::vector<uint64_t> instret;
    std::vector<uint8_t*> local;  // host address of each lane's local window
    std::vector<uint8_t> private_local;
  };

  struct Block {
    bool active = false;
    uint32_t index = 0;
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
        mem_(c.mem_bytes, c.xlen) {
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

  void start(const LaunchDesc& d, Dispatch dispatch) override {
    if (state_ == LaunchState::kRunning)
      throw Error(KESTREL_ERROR_INVALID_CONFIG, "model: a launch is running");
    auto refuse = [](const std::string& why) { throw Error(KESTREL_ERROR_INVALID_CONFIG, "model: " + why); };
    const uint64_t threads = uint64_t{d.block.x} * d.block.y * d.block.z;
    if (d.grid.x == 0 || d.grid.y == 0 || d.grid.z == 0) refuse("grid dimensions must be non-zero");
    if (threads == 0) refuse("block dimensions must be non-zero");
    if (threads > config_.max_threads_per_block) refuse("block has more threads than the device maximum");
    const uint64_t warps = (threads + lanes_ - 1) / lanes_;
    if (warps > config_.warps_per_sm) refuse("block needs more warps than an SM has");
    const uint64_t shared = uint64_t{d.shared_static} + d.shared_dyn;
    if (shared > config_.shared_bytes_per_sm) refuse("block needs more shared memory than an SM has");
    if (d.shared_base != 0 && uint64_t{d.shared_base} + config_.shared_bytes_per_sm > (1ull << 32)) {
      refuse("shared window does not fit in 32 bits");
    }
    if (d.stack_bytes > kLocalWindow) refuse("stack_bytes exceeds the local window");

    for (Sm& sm : sms_) {
      for (Warp& w : sm.warps) w.resident = false;
      for (Block& b : sm.blocks) b.active = false;
      sm.shared_used = 0;
      sm.free_slots = config_.warps_per_sm;
      sm.cycles = 0;
      sm.next_warp = 0;
    }
    desc_ = d;
    dispatch_ = dispatch;
    threads_per_block_ = static_cast<uint32_t>(threads);
    warps_per_block_ = static_cast<uint32_t>(warps);
    shared_size_ = static_cast<uint32_t>(shared);
    shared_window_ = d.shared_base == 0 ? 0 : config_.shared_bytes_per_sm;
    total_blocks_ = uint64_t{d.grid.x} * d.grid.y * d.grid.z;
    next_block_ = 0;
    blocks_done_ = 0;
    placed_.assign(dispatch == Dispatch::kManual ? total_blocks_ : 0, false);
    reservations_.clear();
    oracle_lr_.clear();
    fault_ = Fault{};
    counters_.fill(0);
    state_ = LaunchState::kRunning;
    if (dispatch_ == Dispatch::kAutomatic) initial_dispatch();
  }

  void run() override { run_for(UINT64_MAX); }

  bool run_for(uint64_t rounds) override {
    if (state_ != LaunchState::kRunning) return false;
    if (dispatch_ == Dispatch::kManual) {
      throw Error(KESTREL_ERROR_INVALID_VALUE, "model: a manually dispatched launch advances with step()");
    }
    for (uint64_t round = 0; round < rounds && state_ == LaunchState::kRunning; ++round) {
      bool issued_any = false;
      for (uint32_t s = 0; s < sms_.size() && state_ == LaunchState::kRunning; ++s) {
        Sm& sm = sms_[s];
        const uint32_t slots = config_.warps_per_sm;
        bool issued = false;
        for (uint32_t k = 0; k < slots; ++k) {
          const uint32_t slot = (sm.next_warp + k) % slots;
          Warp& w = sm.warps[slot];
          if (!w.resident) continue;
          if (w.sleeping != 0) wake_sleepers(w, sm.cycles);
          if (!has_eligible(w)) continue;
          sm.next_warp = (slot + 1) % slots;
          run_warp(s, slot, config_.warp_slice, nullptr);
          issued = true;
          break;
        }
        // An SM whose only runnable threads sleep lets its clock run to the
        // first wake-up, as the idle hardware would.
        if (!issued && skip_idle_cycles(sm)) issued = true;
        issued_any = issued_any || issued;
      }
      if (!issued_any && state_ == LaunchState::kRunning) {
        if (blocks_done_ == total_blocks_) {
          finish();
        } else if (report_warp_sync_deadlock()) {
          return false;
        } else {
          // Every resident thread waits at a barrier that cannot complete; the
          // barrier logic releases such barriers, so this is a model bug guard.
          throw Error(KESTREL_ERROR_LAUNCH_FAULT, "model: no warp can issue but the launch is not done");
        }
      }
    }
    return state_ == LaunchState::kRunning;
  }

  void abort() override {
    if (state_ != LaunchState::kRunning) return;
    for (Sm& sm : sms_) {
      for (Warp& w : sm.warps) w.resident = false;
      for (Block& b : sm.blocks) b.active = false;
    }
    finish();
  }

  void place_block(uint32_t block_index, uint32_t sm_id, const std::vector<uint32_t>& slots) override {
    auto reject = [](const std::string& why) { throw Error(KESTREL_ERROR_INVALID_VALUE, "model: " + why); };
    if (state_ != LaunchState::kRunning || dispatch_ != Dispatch::kManual)
      reject("place_block needs a running manual launch");
    if (block_index >= total_blocks_) reject("block index outside the grid");
    if (placed_[block_index]) reject("block placed twice");
    if (sm_id >= sms_.size()) reject("no such SM");
    if (slots.size() != warps_per_block_) reject("need one warp slot per warp of the block");
    Sm& sm = sms_[sm_id];
    for (size_t i = 0; i < slots.size(); ++i) {
      if (slots[i] >= config_.warps_per_sm || sm.warps[slots[i]].resident)
        reject("warp slot busy or out of range");
      for (size_t j = 0; j < i; ++j) {
        if (slots[i] == slots[j]) reject("warp slot listed twice");
      }
    }
    if (sm.shared_used + shared_size_ > config_.shared_bytes_per_sm)
      reject("SM lacks shared memory for the block");
    placed_[block_index] = true;
    place(sm_id, block_index, slots);
  }

  Retire step(uint32_t sm_id, uint32_t slot, const AtomicOracle* oracle) override {
    if (state_ != LaunchState::kRunning || dispatch_ != Dispatch::kManual) {
      throw Error(KESTREL_ERROR_INVALID_VALUE, "model: step needs a running manual launch");
    }
    if (sm_id >= sms_.size() || slot >= config_.warps_per_sm || !sms_[sm_id].warps[slot].resident) {
      throw Error(KESTREL_ERROR_INVALID_VALUE, "model: step on a warp slot without a resident warp");
    }
    Retire retire;
    retire.sm = sm_id;
    retire.warp_slot = slot;
    if (oracle != nullptr && oracle->values.size() < lanes_)
      throw Error(KESTREL_ERROR_INVALID_VALUE, "model: atomic oracle with fewer values than lanes");
    oracle_ = oracle;
    accesses_ = oracle != nullptr ? &retire.accesses : nullptr;
    try {
      run_warp(sm_id, slot, 1, &retire);
    } catch (...) {
      oracle_ = nullptr;
      accesses_ = nullptr;
      throw;
    }
    oracle_ = nullptr;
    accesses_ = nullptr;
    if (state_ == LaunchState::kRunning && blocks_done_ == total_blocks_) finish();
    // Lock-step asks a warp that issues nothing only for a fault: a
    // warp-synchronous deadlock the RTL raised because nothing could run
    // (docs/isa.md section 6.1), which run() reports the same way.
    if (!retire.issued && state_ == LaunchState::kRunning && !any_warp_can_issue())
      report_warp_sync_deadlock();
    return retire;
  }

  bool warp_resident(uint32_t sm_id, uint32_t slot) const override {
    return sm_id < sms_.size() && slot < config_.warps_per_sm && sms_[sm_id].warps[slot].resident;
  }

  uint64_t xreg(uint32_t sm_id, uint32_t slot, uint32_t lane, unsigned reg) const override {
    const Warp& w = warp_at(sm_id, slot, lane);
    if (reg >= 32) throw Error(KESTREL_ERROR_INVALID_VALUE, "model: no such x register");
    return w.x[reg * lanes_ + lane];
  }
  void set_xreg(uint32_t sm_id, uint32_t slot, uint32_t lane, unsigned reg, uint64_t value) override {
    warp_at(sm_id, slot, lane);  // checks the slot
    if (reg >= 32) throw Error(KESTREL_ERROR_INVALID_VALUE, "model: no such x register");
    if (reg != 0) sms_[sm_id].warps[slot].x[reg * lanes_ + lane] = static_cast<X>(value);
  }
  uint32_t freg(uint32_t sm_id, uint32_t slot, uint32_t lane, unsigned reg) const override {
    const Warp& w = warp_at(sm_id, slot, lane);
    if (reg >= 32) throw Error(KESTREL_ERROR_INVALID_VALUE, "model: no such f register");
    return w.f[reg * lanes_ + lane];
  }
  uint32_t fcsr(uint32_t sm_id, uint32_t slot, uint32_t lane) const override {
    const Warp& w = warp_at(sm_id, slot, lane);
    return (uint32_t{w.frm[lane]} << 5) | w.fflags[lane];
  }
  uint64_t thread_pc(uint32_t sm_id, uint32_t slot, uint32_t lane, bool* exited) const override {
    const Warp& w = warp_at(sm_id, slot, lane);
    for (uint32_t g = 0; g < w.num_groups; ++g) {
      if (w.groups[g].mask & (1u << lane)) {
        if (exited) *exited = false;
        return w.groups[g].pc;
      }
    }
    if (exited) *exited = true;
    return 0;
  }

 private:
  const Warp& warp_at(uint32_t sm_id, uint32_t slot, uint32_t lane) const {
    if (sm_id >= sms_.size() || slot >= config_.warps_per_sm || lane >= lanes_) {
      throw Error(KESTREL_ERROR_INVALID_VALUE, "model: no such thread slot");
    }
    return sms_[sm_id].warps[slot];
  }

  X* xrow(Warp& w, unsigned r) { return w.x.data() + r * lanes_; }
  uint32_t* frow(Warp& w, unsigned r) { return w.f.data() + r * lanes_; }

  // ---- dispatch -------------------------------------------------------------
  bool fits(const Sm& sm) const {
    return sm.free_slots >= warps_per_block_ && sm.shared_used + shared_size_ <= config_.shared_bytes_per_sm;
  }

  void dispatch_one(uint32_t sm_id) {
    Sm& sm = sms_[sm_id];
    std::vector<uint32_t> slots;
    for (uint32_t s = 0; s < config_.warps_per_sm && slots.size() < warps_per_block_; ++s) {
      if (!sm.warps[s].resident) slots.push_back(s);
    }
    place(sm_id, static_cast<uint32_t>(next_block_++), slots);
  }

  // Blocks go out in linear order, one per SM in turn, until no SM has room.
  void initial_dispatch() {
    bool placed = true;
    while (placed && next_block_ < total_blocks_) {
      placed = false;
      for (uint32_t s = 0; s < sms_.size() && next_block_ < total_blocks_; ++s) {
        if (fits(sms_[s])) {
          dispatch_one(s);
          placed = true;
        }
      }
    }
  }

  void place(uint32_t sm_id, uint32_t block_index, const std::vector<uint32_t>& slots) {
    Sm& sm = sms_[sm_id];
    uint32_t bi = 0;
    while (sm.blocks[bi].active) ++bi;  // a free entry exists: each block holds at least one warp slot
    Block& b = sm.blocks[bi];
    b.active = true;
    b.index = block_index;
    b.id.x = block_index % desc_.grid.x;
    b.id.y = (block_index / desc_.grid.x) % desc_.grid.y;
    b.id.z = block_index / (desc_.grid.x * desc_.grid.y);
    b.live = threads_per_block_;
    b.arrived = 0;
    b.predicate_count = 0;
    b.held = 0;
    b.watchdog = 0;
    b.warp_slots = slots;
    b.shared.assign(shared_size_, 0);
    sm.shared_used += shared_size_;
    sm.free_slots -= warps_per_block_;

    for (uint32_t wi = 0; wi < slots.size(); ++wi) {
      Warp& w = sm.warps[slots[wi]];
      w.resident = true;
      w.block = bi;
      w.warp_in_block = wi;
      const uint32_t first_thread = wi * lanes_;
      const uint32_t present = std::min(lanes_, threads_per_block_ - first_thread);
      w.live = present == 32 ? ~0u : (1u << present) - 1;
      w.waiting = 0;
      w.held = 0;
      w.syncwarp_waiting = 0;
      w.sleeping = 0;
      w.num_groups = 1;
      w.groups[0] = Group{desc_.entry_pc, w.live};
      w.fair_count = 0;
      w.rr_pc = 0;
      w.uniform_instret = 0;
      std::fill(w.x.begin(), w.x.end(), X{0});
      std::fill(w.f.begin(), w.f.end(), 0u);
      std::fill(w.fflags.begin(), w.fflags.end(), uint8_t{0});
      std::fill(w.frm.begin(), w.frm.end(), uint8_t{0});
      std::fill(w.instret.begin(), w.instret.end(), uint64_t{0});
      for (uint32_t l = 0; l < lanes_; ++l) {
        xrow(w, 1)[l] = static_cast<X>(desc_.exit_pc);
        xrow(w, 2)[l] = static_cast<X>(KESTREL_LOCAL_BASE + desc_.stack_bytes);
        xrow(w, 3)[l] = static_cast<X>(desc_.gp);
        xrow(w, 10)[l] = static_cast<X>(desc_.param_addr);
      }
      if (desc_.local_backing != 0) {
        for (uint32_t l = 0; l < lanes_; ++l) {
          const uint64_t thread_slot = (uint64_t{sm_id} * config_.warps_per_sm + slots[wi]) * lanes_ + l;
          const uint64_t addr = desc_.local_backing + thread_slot * desc_.stack_bytes;
          w.local[l] =
              mem_.contains(addr, desc_.stack_bytes) ? mem_.dram() + (addr - KESTREL_GLOBAL_BASE) : nullptr;
        }
      } else {
        w.private_local.assign(size_t{lanes_} * desc_.stack_bytes, 0);
        for (uint32_t l = 0; l < lanes_; ++l)
          w.local[l] = w.private_local.data() + size_t{l} * desc_.stack_bytes;
      }
    }
  }

  void complete_block(uint32_t sm_id, Block& b) {
    Sm& sm = sms_[sm_id];
    for (uint32_t slot : b.warp_slots) sm.warps[slot].resident = false;
    sm.free_slots += warps_per_block_;
    sm.shared_used -= shared_size_;
    b.active = false;
    ++blocks_done_;
    ++counters_[KESTREL_CNT_BLOCKS];
    if (dispatch_ == Dispatch::kAutomatic) {
      while (next_block_ < total_blocks_ && fits(sm)) dispatch_one(sm_id);
    }
  }

  void finish() {
    uint64_t cycles = 0;
    for (const Sm& sm : sms_) cycles = std::max(cycles, sm.cycles);
    counters_[KESTREL_CNT_CYCLES] = cycles;
    if (state_ == LaunchState::kRunning) state_ = LaunchState::kDone;
  }

  // ---- faults ---------------------------------------------------------------
  void raise(kestrel_fault_kind kind, uint32_t sm_id, const Warp& w, uint32_t lane, uint64_t pc,
             uint64_t addr, uint32_t info = 0) {
    const Block& b = sms_[sm_id].blocks[w.block];
    const uint32_t t = w.warp_in_block * lanes_ + lane;
    fault_.kind = kind;
    fault_.pc = pc;
    fault_.addr = addr;
    fault_.block = b.id;
    fault_.thread.x = t % desc_.block.x;
    fault_.thread.y = (t / desc_.block.x) % desc_.block.y;
    fault_.thread.z = t / (desc_.block.x * desc_.block.y);
    fault_.sm = sm_id;
    fault_.warp = w.warp_in_block;
    fault_.info = info;
    state_ = LaunchState::kFault;
    uint64_t cycles = 0;
    for (const Sm& sm : sms_) cycles = std::max(cycles, sm.cycles);
    counters_[KESTREL_CNT_CYCLES] = cycles;
  }

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

  // Picks the PC to issue and its active mask by the min-PC + fairness rule.
  static bool select(Warp& w, uint32_t& gi, uint64_t& pc, uint32_t& mask) {
    if (w.num_groups == 1) {
      mask = w.groups[0].mask & ~blocked(w);
      if (mask == 0) return false;
      gi = 0;
      pc = w.groups[0].pc;
      w.fair_count = 0;
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
    if (diverged && w.fair_count == kFairnessPeriod - 1) {
      for (uint32_t g = 0; g < w.num_groups; ++g) {  // groups are sorted: the first above rr_pc is the min
        if ((w.groups[g].mask & ~stopped) != 0 && w.groups[g].pc > w.rr_pc) {
          chosen = g;
          break;
        }
      }
      w.rr_pc = w.groups[chosen].pc;
      w.fair_count = 0;
    } else {
      w.fair_count = diverged ? w.fair_count + 1 : 0;
    }
    gi = chosen;
    pc = w.groups[chosen].pc;
    mask = w.groups[chosen].mask & ~stopped;
    return true;
  }

  static void remove_lanes(Warp& w, uint32_t gi, uint32_t mask) {
    w.groups[gi].mask &= ~mask;
    if (w.groups[gi].mask == 0) {
      for (uint32_t g = gi + 1; g < w.num_groups; ++g) w.groups[g - 1] = w.groups[g];
      --w.num_groups;
    }
  }

  static void insert_lanes(Warp& w, uint64_t pc, uint32_t mask) {
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
  static void move_lanes(Warp& w, uint32_t gi, uint32_t mask, uint64_t target) {
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
  void release_barrier(uint32_t sm_id, Block& b, Retire* rec) {
    Sm& sm = sms_[sm_id];
    for (uint32_t slot : b.warp_slots) {
      Warp& w = sm.warps[slot];
      for_each_lane(w.waiting, [&](uint32_t l) {
        X value;
        switch (w.bar_kind[l]) {
          case kBarCount:
            value = b.predicate_count;
            break;
          case kBarAnd:
            value = b.predicate_count == b.arrived;
            break;
          case kBarOr:
            value = b.predicate_count != 0;
            break;
          default:
            return;
        }
        xrow(w, w.bar_rd[l])[l] = value;
        if (rec && w.bar_rd[l] != kSinkReg)
          rec->writes.push_back(RegWrite{slot, l, false, w.bar_rd[l], value});
      });
      w.waiting = 0;
    }
    b.arrived = 0;
    b.predicate_count = 0;
    b.watchdog = 0;
    ++counters_[KESTREL_CNT_BARRIERS];
  }

  // Names the lowest waiting thread of the block and the PC of the barrier,
  // kx.syncwarp or collective it waits at.
  void barrier_deadlock(uint32_t sm_id, const Block& b) {
    const Sm& sm = sms_[sm_id];
    for (uint32_t slot : b.warp_slots) {
      const Warp& w = sm.warps[slot];
      const uint32_t stuck = w.waiting | w.held;
      if (stuck == 0) continue;
      const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(stuck));
      const bool past_it = ((w.waiting | w.syncwarp_waiting) >> lane) & 1;  // parked lanes sit at their PC
      const uint64_t pc = w.groups[group_of_lane(w, lane)].pc - (past_it ? 4 : 0);
      raise(KESTREL_FAULT_BARRIER_DEADLOCK, sm_id, w, lane, pc, 0);
      return;
    }
  }

  bool any_warp_can_issue() const {
    for (const Sm& sm : sms_) {
      for (const Warp& w : sm.warps) {
        if (w.resident && (has_eligible(w) || w.sleeping != 0)) return true;
      }
    }
    return false;
  }

  // No warp anywhere can issue, yet threads wait on each other inside a warp
  // (a membermask naming a thread that waits at a block barrier or another
  // collective): the launch can never end.
  bool report_warp_sync_deadlock() {
    for (uint32_t s = 0; s < sms_.size(); ++s) {
      for (const Block& b : sms_[s].blocks) {
        if (b.active && b.held != 0) {
          barrier_deadlock(s, b);
          return true;
        }
      }
    }
    return false;
  }

  // ---- warp-synchronous instructions (docs/isa.md section 6.1) ----------------
  // The membermask operand of a collective: rs2, or rs3 for shuffles.  Mask
  // bits beyond the warp's lanes mean nothing.
  const X* mask_row(Warp& w, const Inst& in) { return xrow(w, in.op == Op::kShuffle ? in.rs3 : in.rs2); }

  // Lanes at the collective's PC whose membermask class has converged: every
  // non-exited lane of the mask is at this PC holding the same mask.  `arriving`
  // are the lanes issuing now; lanes parked here earlier join them.  A lane
  // outside its own mask is an illegal instruction (CUDA leaves it undefined).
  bool converged_lanes(uint32_t sm_id, Warp& w, const Inst& in, uint32_t gi, uint64_t pc, uint32_t arriving,
                       uint32_t& ready) {
    const X* masks = mask_row(w, in);
    for (uint32_t m = arriving; m != 0; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      if (((static_cast<uint32_t>(masks[l]) >> l) & 1) == 0) {
        raise(KESTREL_FAULT_ILLEGAL_INSTRUCTION, sm_id, w, l, pc, 0, in.raw);
        return false;
      }
    }
    const uint32_t here = arriving | (w.groups[gi].mask & w.held & ~w.syncwarp_waiting);
    ready = 0;
    for (uint32_t pending = here; pending != 0;) {
      const uint32_t first = static_cast<uint32_t>(__builtin_ctz(pending));
      const uint32_t member_mask = static_cast<uint32_t>(masks[first]) & lane_bits_;
      uint32_t same = 0;
      for_each_lane(pending, [&](uint32_t l) {
        if ((static_cast<uint32_t>(masks[l]) & lane_bits_) == member_mask) same |= 1u << l;
      });
      pending &= ~same;
      if ((member_mask & w.live & ~same) == 0) ready |= same;
    }
    return true;
  }

  void hold(Warp& w, Block& b, uint32_t lanes) {
    w.held |= lanes;
    b.held += static_cast<uint32_t>(popcount(lanes));
  }
  void unhold(Warp& w, Block& b, uint32_t lanes) {
    lanes &= w.held;
    if (lanes == 0) return;
    w.held &= ~lanes;
    w.syncwarp_waiting &= ~lanes;
    b.held -= static_cast<uint32_t>(popcount(lanes));
    b.watchdog = 0;
  }

  // Releases every class of kx.syncwarp waiters whose mask's non-exited lanes
  // all wait at a kx.syncwarp (any one) with the same mask.
  void release_syncwarps(Warp& w, Block& b) {
    uint32_t released = 0;
    for (uint32_t pending = w.syncwarp_waiting; pending != 0;) {
      const uint32_t member_mask = w.sync_mask[static_cast<uint32_t>(__builtin_ctz(pending))];
      uint32_t same = 0;
      for_each_lane(pending, [&](uint32_t l) {
        if (w.sync_mask[l] == member_mask) same |= 1u << l;
      });
      pending &= ~same;
      if ((member_mask & w.live & ~same) == 0) released |= same;
    }
    unhold(w, b, released);
  }

  // A thread's exit may complete a membermask: parked lanes try again (they
  // re-park at once if their mask still waits), syncwarp waiters are rechecked.
  void recheck_after_exit(Warp& w, Block& b) {
    unhold(w, b, w.held & ~w.syncwarp_waiting);
    release_syncwarps(w, b);
  }

  static void wake_sleepers(Warp& w, uint64_t now) {
    for_each_lane(w.sleeping, [&](uint32_t l) {
      if (w.wake_cycle[l] <= now) w.sleeping &= ~(1u << l);
    });
  }

  bool skip_idle_cycles(Sm& sm) {
    uint64_t earliest = std::numeric_limits<uint64_t>::max();
    for (Warp& w : sm.warps) {
      if (!w.resident) continue;
      for_each_lane(w.sleeping, [&](uint32_t l) { earliest = std::min(earliest, w.wake_cycle[l]); });
    }
    if (earliest == std::numeric_limits<uint64_t>::max()) return false;
    sm.cycles = std::max(sm.cycles, earliest);
    return true;
  }

  // 32-bit results are sign-extended to XLEN, as RV64's W instructions do.
  static X sext_word(uint32_t value) { return static_cast<X>(static_cast<SX>(static_cast<int32_t>(value))); }

  // Executes a converged collective for `lanes`: each lane's participants are
  // the non-exited lanes of its membermask, all of which are among `lanes`.
  void exec_collective(Warp& w, const Inst& in, uint32_t lanes) {
    const X* s1 = xrow(w, in.rs1);
    const X* masks = mask_row(w, in);
    X result[32];
    switch (in.op) {
      case Op::kVote: {
        uint32_t true_lanes = 0;
        for_each_lane(lanes, [&](uint32_t l) { true_lanes |= static_cast<uint32_t>(s1[l] != 0) << l; });
        for_each_lane(lanes, [&](uint32_t l) {
          const uint32_t members = static_cast<uint32_t>(masks[l]) & w.live;
          const uint32_t ballot = true_lanes & members;
          switch (in.aux) {
            case KESTREL_F7_VOTE_ALL:
              result[l] = ballot == members;
              break;
            case KESTREL_F7_VOTE_ANY:
              result[l] = ballot != 0;
              break;
            case KESTREL_F7_VOTE_UNI:
              result[l] = ballot == 0 || ballot == members;
              break;
            default:
              result[l] = sext_word(ballot);
              break;
          }
        });
        break;
      }
      case Op::kShuffle: {
        const X* control = xrow(w, in.rs2);
        for_each_lane(lanes, [&](uint32_t l) {
          result[l] = s1[shuffle_source(in.aux, l, static_cast<uint32_t>(control[l]))];
        });
        break;
      }
      case Op::kMatch: {
        const bool word = in.aux == KESTREL_F7_MATCH_ANY_W || in.aux == KESTREL_F7_MATCH_ALL_W;
        const bool all = in.aux == KESTREL_F7_MATCH_ALL_W || in.aux == KESTREL_F7_MATCH_ALL;
        auto key = [&](uint32_t l) { return word ? X{static_cast<uint32_t>(s1[l])} : s1[l]; };
        for_each_lane(lanes, [&](uint32_t l) {
          const uint32_t members = static_cast<uint32_t>(masks[l]) & w.live;
          uint32_t equal = 0;
          for_each_lane(members, [&](uint32_t k) { equal |= static_cast<uint32_t>(key(k) == key(l)) << k; });
          if (all) {
            result[l] = equal == members ? sext_word(members) : X{0};
          } else {
            result[l] = sext_word(equal);
          }
        });
        break;
      }
      default: {  // kReduce
        for_each_lane(lanes, [&](uint32_t l) {
          const uint32_t members = static_cast<uint32_t>(masks[l]) & w.live;
          const uint32_t first = static_cast<uint32_t>(__builtin_ctz(members));
          uint32_t acc = static_cast<uint32_t>(s1[first]);
          for_each_lane(members & (members - 1),
                        [&](uint32_t k) { acc = reduce_step(in.aux, acc, static_cast<uint32_t>(s1[k])); });
          result[l] = sext_word(acc);
        });
        break;
      }
    }
    X* d = xrow(w, in.rd);
    for_each_lane(lanes, [&](uint32_t l) { d[l] = result[l]; });
  }

  static uint32_t reduce_step(uint8_t op, uint32_t a, uint32_t b) {
    switch (op) {
      case KESTREL_F7_REDUCE_ADD:
        return a + b;
      case KESTREL_F7_REDUCE_MIN:
        return static_cast<int32_t>(b) < static_cast<int32_t>(a) ? b : a;
      case KESTREL_F7_REDUCE_MAX:
        return static_cast<int32_t>(b) > static_cast<int32_t>(a) ? b : a;
      case KESTREL_F7_REDUCE_MINU:
        return b < a ? b : a;
      case KESTREL_F7_REDUCE_MAXU:
        return b > a ? b : a;
      case KESTREL_F7_REDUCE_AND:
        return a & b;
      case KESTREL_F7_REDUCE_OR:
        return a | b;
      default:
        return a ^ b;  // KESTREL_F7_REDUCE_XOR
    }
  }

  // The lane a shuffle reads for `lane` (PTX shfl.sync's rule): control bits
  // 4..0 are the lane, delta or xor mask, bits 12..8 the segment mask
  // (32 - width); a source outside the lane's segment, or beyond the warp,
  // leaves the lane its own value.
  uint32_t shuffle_source(uint8_t mode, uint32_t lane, uint32_t control) const {
    const int32_t b = static_cast<int32_t>(control & KESTREL_SHFL_LANE_MASK);
    const int32_t segment = static_cast<int32_t>((control >> KESTREL_SHFL_SEG_SHIFT) & 0x1F);
    const int32_t clamp = mode == KESTREL_SHFL_UP ? 0 : 0x1F;
    const int32_t self = static_cast<int32_t>(lane);
    const int32_t max_lane = (self & segment) | (clamp & ~segment);
    const int32_t min_lane = self & segment;
    int32_t source;
    bool in_range;
    switch (mode) {
      case KESTREL_SHFL_UP:
        source = self - b;
        in_range = source >= max_lane;
        break;
      case KESTREL_SHFL_DOWN:
        source = self + b;
        in_range = source <= max_lane;
        break;
      case KESTREL_SHFL_XOR:
        source = self ^ b;
        in_range = source <= max_lane;
        break;
      default:  // KESTREL_SHFL_IDX
        source = min_lane | (b & ~segment);
        in_range = source <= max_lane;
        break;
    }
    if (!in_range || source < 0 || source >= static_cast<int32_t>(lanes_)) return lane;
    return static_cast<uint32_t>(source);
  }

  // ---- memory ---------------------------------------------------------------
  // Host address of a naturally aligned access of `size` bytes, or nullptr with
  // `kind` set.  Order per docs/isa.md section 4: alignment, then the shared
  // window, the local window, the page table.
  template <unsigned Size, Access A>
  uint8_t* translate(Warp& w, Block& b, uint32_t lane, X addr, kestrel_fault_kind& kind, AccessTally& tally) {
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
    uint32_t offset = a - desc_.shared_base;
    if (offset < shared_window_) {
      if (offset + Size > shared_size_) {
        kind = KESTREL_FAULT_SHARED_BOUNDS;
        return nullptr;
      }
      // Successive 32-bit words of the window sit in successive banks, one
      // bank per lane of a warp (guide G.3.3 / G.5.3).
      for (uint32_t word = offset >> 2; word <= (offset + Size - 1) >> 2; ++word) {
        tally.add_shared_word(word, word & (lanes_ - 1), A == Access::kAtomic);
      }
      return b.shared.data() + offset;
    }
    offset = a - KESTREL_LOCAL_BASE;
    if (offset < kLocalWindow) {
      if (offset + Size > desc_.stack_bytes) {
        kind = KESTREL_FAULT_LOCAL_BOUNDS;
        return nullptr;
      }
      if (w.local[lane] == nullptr) {  // local backing outside DRAM
        kind = KESTREL_FAULT_ILLEGAL_ADDRESS;
        return nullptr;
      }
      return w.local[lane] + offset;
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

  // Any store ends every reservation on the bytes it writes.
  void store_done(const uint8_t* host, uint32_t bytes) {
    if (reservations_.empty()) return;
    reservations_.erase(std::remove_if(reservations_.begin(), reservations_.end(),
                                       [&](const Reservation& r) {
                                         return r.host < host + bytes && host < r.host + r.bytes;
                                       }),
                        reservations_.end());
  }

  static uint64_t thread_key(uint32_t sm_id, uint32_t slot, uint32_t lane) {
    return (uint64_t{sm_id} << 40) | (uint64_t{slot} << 8) | lane;
  }

  void drop_reservations(uint32_t sm_id, uint32_t slot, uint32_t mask) {
    if (reservations_.empty()) return;
    reservations_.erase(std::remove_if(reservations_.begin(), reservations_.end(),
                                       [&](const Reservation& r) {
                                         return (r.thread >> 8) == ((uint64_t{sm_id} << 32) | slot) &&
                                                ((mask >> (r.thread & 0xFF)) & 1) != 0;
                                       }),
                        reservations_.end());
  }

  template <class T>
  static T load_host(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  template <class T>
  static void store_host(uint8_t* p, T v) {
    std::memcpy(p, &v, sizeof v);
  }

  // A translated access that reached device DRAM through the global window
  // (not the shared window, not a local window backed by DRAM).
  bool is_global(X addr, const uint8_t* p) {
    const uint64_t offset = uint64_t{static_cast<uint32_t>(addr)} - KESTREL_GLOBAL_BASE;
    return offset < mem_.size() && p == mem_.dram() + offset;
  }
  // GPU lock-step: the RTL's value of lane l for a global atomic at p, if the
  // oracle has one.
  bool oracle_value(uint32_t l, X addr, const uint8_t* p, uint64_t& value) {
    if (oracle_ == nullptr || ((oracle_->lanes >> l) & 1u) == 0 || !is_global(addr, p)) return false;
    value = oracle_->values[l];
    return true;
  }
  void report_atomic(GlobalAccess::Kind kind, uint32_t l, X addr, uint8_t bytes, bool observed,
                     bool order_free, bool writes, uint64_t prior, uint64_t old, uint64_t value) {
    GlobalAccess a;
    a.kind = kind;
    a.lane = l;
    a.addr = static_cast<uint32_t>(addr);
    a.bytes = bytes;
    a.observed = observed;
    a.order_free = order_free;
    a.writes = writes;
    a.prior = prior;
    a.old = old;
    a.value = value;
    accesses_->push_back(a);
  }

  // Loads of type T (sign or zero extension by T) into an x register row.
  template <class T>
  bool exec_load(uint32_t sm_id, Warp& w, Block& b, const Inst& in, uint64_t pc, uint32_t mask) {
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
  bool exec_store(uint32_t sm_id, Warp& w, Block& b, const Inst& in, uint64_t pc, uint32_t mask,
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

  // AMOs, LR and SC; T is uint32_t (.w) or uint64_t (.d).  Lanes go one after
  // another in lane order, each seeing the previous lane's result.
  template <class T>
  bool exec_atomic(uint32_t sm_id, uint32_t slot, Warp& w, Block& b, const Inst& in, uint64_t pc,
                   uint32_t mask) {
    using S = std::make_signed_t<T>;
    X* d = xrow(w, in.rd);
    const X* base = xrow(w, in.rs1);
    const X* src = xrow(w, in.rs2);
    AccessTally tally;
    kestrel_fault_kind kind = KESTREL_FAULT_NONE;
    const bool is_lr = in.op == Op::kLrW || in.op == Op::kLrD;
    const bool is_sc = in.op == Op::kScW || in.op == Op::kScD;
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      const X addr = base[l];
      uint8_t* p = is_lr   ? translate<sizeof(T), Access::kLoad>(w, b, l, addr, kind, tally)
                   : is_sc ? translate<sizeof(T), Access::kStore>(w, b, l, addr, kind, tally)
                           : translate<sizeof(T), Access::kAtomic>(w, b, l, addr, kind, tally);
      if (p == nullptr) {
        raise(kind, sm_id, w, l, pc, addr);
        return false;
      }
      const uint64_t key = thread_key(sm_id, slot, l);
      const bool report = accesses_ != nullptr && is_global(addr, p);
      uint64_t rtl = 0;
      const bool observed = oracle_value(l, addr, p, rtl);
      const T prior = load_host<T>(p);
      if (is_lr) {
        drop_reservations(sm_id, slot, 1u << l);
        reservations_.push_back(Reservation{key, p, sizeof(T)});
        const T old = observed ? static_cast<T>(rtl) : prior;
        if (report) {
          oracle_lr_[key] = OracleLr{p, sizeof(T), old};
          report_atomic(GlobalAccess::kLoadReserved, l, addr, sizeof(T), observed, false, false, prior, old,
                        old);
        }
        d[l] = static_cast<X>(static_cast<S>(old));
      } else if (is_sc) {
        bool reserved = std::any_of(reservations_.begin(), reservations_.end(), [&](const Reservation& r) {
          return r.thread == key && r.host == p && r.bytes == sizeof(T);
        });
        drop_reservations(sm_id, slot, 1u << l);
        uint64_t lr_value = prior;
        if (report) {
          // GPU lock-step: the RTL's success if it reported one, provided
          // this thread's last LR was to the same word (a success without one
          // is the RTL's error, which the differing rd shows).
          auto lr = oracle_lr_.find(key);
          const bool own = lr != oracle_lr_.end() && lr->second.host == p && lr->second.bytes == sizeof(T);
          if (own) lr_value = lr->second.value;
          if (observed) reserved = own && rtl == 0;
          if (lr != oracle_lr_.end()) oracle_lr_.erase(lr);
        }
        if (reserved) {
          store_host<T>(p, static_cast<T>(src[l]));
          store_done(p, sizeof(T));
        }
        if (report) {
          report_atomic(GlobalAccess::kStoreConditional, l, addr, sizeof(T), observed, false, reserved, prior,
                        lr_value, static_cast<T>(src[l]));
        }
        d[l] = reserved ? 0 : 1;
      } else {
        const T old = observed ? static_cast<T>(rtl) : prior;
        const T operand = static_cast<T>(src[l]);
        const T result = amo_result<T>(in.aux, old, operand);
        store_host<T>(p, result);
        store_done(p, sizeof(T));
        if (report) {
          report_atomic(GlobalAccess::kAtomic, l, addr, sizeof(T), observed, in.aux == kAmoSwap, true, prior,
                        old, result);
        }
        d[l] = static_cast<X>(static_cast<S>(old));
      }
    }
    if (!is_sc) ++counters_[KESTREL_CNT_LOADS];
    if (!is_lr) ++counters_[KESTREL_CNT_STORES];
    if (!is_lr && !is_sc) counters_[KESTREL_CNT_ATOMICS] += static_cast<uint64_t>(popcount(mask));
    count_access(tally);
    return true;
  }

  void count_access(const AccessTally& tally) {
    counters_[KESTREL_CNT_MEM_REQUESTS] += tally.count;
    if (tally.banks_used != 0) {
      ++counters_[KESTREL_CNT_SHARED_ACCESSES];
      counters_[KESTREL_CNT_SHARED_PASSES] += tally.shared_passes();
    }
  }

  // ---- CUDA atomics (custom-1, docs/isa.md section 2.2) ----------------------
  // A 64-bit value on RV32 lives in an even/odd pair (low word in the even
  // register); x0 as a pair reads zero and discards writes, as in Zacas.
  uint64_t read_pair(Warp& w, unsigned reg, uint32_t lane) {
    if (reg == 0 || reg == kSinkReg) return 0;
    return uint64_t{static_cast<uint32_t>(xrow(w, reg)[lane])} |
           uint64_t{static_cast<uint32_t>(xrow(w, reg + 1)[lane])} << 32;
  }
  void write_pair(Warp& w, unsigned reg, uint32_t lane, uint64_t value) {
    if (reg == kSinkReg) return;
    xrow(w, reg)[lane] = static_cast<X>(static_cast<uint32_t>(value));
    xrow(w, reg + 1)[lane] = static_cast<X>(static_cast<uint32_t>(value >> 32));
  }
  // A 64-bit operand: one register on RV64, a pair on RV32.  `reg` is the
  // decoded field, so the CAS compare value of rd = x0 (the sink) reads zero.
  uint64_t read_wide(Warp& w, unsigned reg, uint32_t lane) {
    if constexpr (kXlen == 64) {
      return reg == kSinkReg ? 0 : static_cast<uint64_t>(xrow(w, reg)[lane]);
    } else {
      return read_pair(w, reg, lane);
    }
  }
  void write_wide(Warp& w, unsigned reg, uint32_t lane, uint64_t value) {
    if constexpr (kXlen == 64) {
      xrow(w, reg)[lane] = static_cast<X>(value);
    } else {
      write_pair(w, reg, lane, value);
    }
  }

  // CAS, inc, dec and float add on a word (T = uint32_t); 64-bit CAS and the
  // RV32 pair AMOs (T = uint64_t).  Each lane reads, computes and writes
  // before the next lane, in lane order, as the A extension's AMOs do, so
  // lanes contending for one address each get their own old value.  A CAS
  // whose comparison fails writes nothing (and so ends no reservation).
  template <class T>
  bool exec_cuda_atomic(uint32_t sm_id, Warp& w, Block& b, const Inst& in, uint64_t pc, uint32_t mask) {
    const X* base = xrow(w, in.rs1);
    AccessTally tally;
    kestrel_fault_kind kind = KESTREL_FAULT_NONE;
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      const X addr = base[l];
      uint8_t* p = translate<sizeof(T), Access::kAtomic>(w, b, l, addr, kind, tally);
      if (p == nullptr) {
        raise(kind, sm_id, w, l, pc, addr);
        return false;
      }
      const T prior = load_host<T>(p);
      uint64_t rtl = 0;
      // RV32's pair atomics: the oracle's value is the pair's 64 bits (the
      // lock-step checker joins the RTL's rd and rd+1 records).
      const bool observed = oracle_value(l, addr, p, rtl);
      const T old = observed ? static_cast<T>(rtl) : prior;
      T operand = 0, compare = 0;
      if constexpr (sizeof(T) == 4) {
        if (in.op == Op::kKxAmoFadd) {
          operand = frow(w, in.rs2)[l];
        } else {
          operand = static_cast<uint32_t>(xrow(w, in.rs2)[l]);
          compare = in.rd == kSinkReg ? 0 : static_cast<uint32_t>(xrow(w, in.rd)[l]);
        }
      } else {
        operand = read_wide(w, in.rs2, l);
        compare = read_wide(w, in.rd, l);
      }
      const T result = amo_result<T>(in.aux, old, operand, compare);
      const bool writes = amo_writes<T>(in.aux, old, compare);
      if constexpr (sizeof(T) == 4) {
        if (in.op == Op::kKxAmoFadd) {
          frow(w, in.rd)[l] = old;
        } else {
          xrow(w, in.rd)[l] = sext_word(old);
        }
      } else {
        write_wide(w, in.rd, l, old);
      }
      if (writes) {
        store_host<T>(p, result);
        store_done(p, sizeof(T));
      }
      if (accesses_ != nullptr && is_global(addr, p)) {
        report_atomic(GlobalAccess::kAtomic, l, addr, sizeof(T), observed, false, writes, prior, old,
                      writes ? result : old);
      }
    }
    ++counters_[KESTREL_CNT_LOADS];
    ++counters_[KESTREL_CNT_STORES];
    counters_[KESTREL_CNT_ATOMICS] += static_cast<uint64_t>(popcount(mask));
    count_access(tally);
    return true;
  }

  // ---- CSRs -----------------------------------------------------------------
  static bool csr_exists(uint32_t csr) {
    switch (csr) {
      case kCsrFflags:
      case kCsrFrm:
      case kCsrFcsr:
      case kCsrCycle:
      case kCsrTime:
      case kCsrInstret:
        return true;
      case kCsrCycleH:
      case kCsrTimeH:
      case kCsrInstretH:
        return kXlen == 32;
      default:
        return csr >= KESTREL_CSR_TID_X && csr <= KESTREL_CSR_DYN_SHARED;
    }
  }
  static bool csr_writable(uint32_t csr) { return csr == kCsrFflags || csr == kCsrFrm || csr == kCsrFcsr; }

  uint64_t csr_read(uint32_t sm_id, const Warp& w, const Block& b, uint32_t lane, uint32_t csr,
                    uint32_t mask) const {
    const uint32_t t = w.warp_in_block * lanes_ + lane;
    const uint64_t instret = w.instret[lane] + w.uniform_instret - 1;  // this instruction is already counted
    const uint64_t cycle = sms_[sm_id].cycles - 1;
    switch (csr) {
      case kCsrFflags:
        return w.fflags[lane];
      case kCsrFrm:
        return w.frm[lane];
      case kCsrFcsr:
        return (uint32_t{w.frm[lane]} << 5) | w.fflags[lane];
      case kCsrCycle:
      case kCsrTime:
        return cycle;
      case kCsrInstret:
        return instret;
      case kCsrCycleH:
      case kCsrTimeH:
        return cycle >> 32;
      case kCsrInstretH:
        return instret >> 32;
      case KESTREL_CSR_TID_X:
        return t % desc_.block.x;
      case KESTREL_CSR_TID_Y:
        return (t / desc_.block.x) % desc_.block.y;
      case KESTREL_CSR_TID_Z:
        return t / (desc_.block.x * desc_.block.y);
      case KESTREL_CSR_CTAID_X:
        return b.id.x;
      case KESTREL_CSR_CTAID_Y:
        return b.id.y;
      case KESTREL_CSR_CTAID_Z:
        return b.id.z;
      case KESTREL_CSR_NTID_X:
        return desc_.block.x;
      case KESTREL_CSR_NTID_Y:
        return desc_.block.y;
      case KESTREL_CSR_NTID_Z:
        return desc_.block.z;
      case KESTREL_CSR_NCTAID_X:
        return desc_.grid.x;
      case KESTREL_CSR_NCTAID_Y:
        return desc_.grid.y;
      case KESTREL_CSR_NCTAID_Z:
        return desc_.grid.z;
      case KESTREL_CSR_LANEID:
        return lane;
      case KESTREL_CSR_WARPID:
        return w.warp_in_block;
      case KESTREL_CSR_SMID:
        return sm_id;
      case KESTREL_CSR_WARPSIZE:
        return lanes_;
      case KESTREL_CSR_ACTIVEMASK:
        return mask;
      case KESTREL_CSR_SHARED_BASE:
        return desc_.shared_base;
      case KESTREL_CSR_SHARED_SIZE:
        return shared_size_;
      default:
        return uint64_t{desc_.shared_base} + desc_.shared_static;  // KESTREL_CSR_DYN_SHARED
    }
  }

  static void csr_write(Warp& w, uint32_t lane, uint32_t csr, uint64_t value) {
    switch (csr) {
      case kCsrFflags:
        w.fflags[lane] = value & 0x1F;
        break;
      case kCsrFrm:
        w.frm[lane] = value & 7;
        break;
      default:
        w.fflags[lane] = value & 0x1F;
        w.frm[lane] = (value >> 5) & 7;
        break;
    }
  }

  bool exec_csr(uint32_t sm_id, Warp& w, Block& b, const Inst& in, uint64_t pc, uint32_t mask) {
    const uint32_t csr = static_cast<uint32_t>(in.imm);
    const bool immediate = in.op == Op::kCsrrwi || in.op == Op::kCsrrsi || in.op == Op::kCsrrci;
    const bool writes = in.op == Op::kCsrrw || in.op == Op::kCsrrwi || in.rs1 != 0;
    if (!csr_exists(csr) || (writes && !csr_writable(csr))) {
      raise(KESTREL_FAULT_ILLEGAL_INSTRUCTION, sm_id, w, static_cast<uint32_t>(__builtin_ctz(mask)), pc, 0,
            in.raw);
      return false;
    }
    X* d = xrow(w, in.rd);
    const X* s = xrow(w, in.rs1);
    for_each_lane(mask, [&](uint32_t l) {
      const uint64_t operand = immediate ? in.rs1 : static_cast<uint64_t>(s[l]);
      const uint64_t old = csr_read(sm_id, w, b, l, csr, mask);
      d[l] = static_cast<X>(old);
      if (!writes) return;
      switch (in.op) {
        case Op::kCsrrw:
        case Op::kCsrrwi:
          csr_write(w, l, csr, operand);
          break;
        case Op::kCsrrs:
        case Op::kCsrrsi:
          csr_write(w, l, csr, old | operand);
          break;
        default:
          csr_write(w, l, csr, old & ~operand);
          break;
      }
    });
    return true;
  }

  // ---- floating point -------------------------------------------------------
  // Resolves the rounding mode of each lane; an invalid mode (reserved static
  // values are rejected by the decoder, frm may hold 5..7) is illegal.
  template <class Fn>
  bool fp_lanes(uint32_t sm_id, Warp& w, const Inst& in, uint64_t pc, uint32_t mask, Fn&& fn) {
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      const unsigned rm = in.rm == kDynamicRm ? w.frm[l] : in.rm;
      if (rm > fp::kRmm) {
        raise(KESTREL_FAULT_ILLEGAL_INSTRUCTION, sm_id, w, l, pc, 0, in.raw);
        return false;
      }
      uint32_t flags = 0;
      fn(l, rm, flags);
      w.fflags[l] |= static_cast<uint8_t>(flags);
    }
    return true;
  }

  bool exec_fp(uint32_t sm_id, Warp& w, const Inst& in, uint64_t pc, uint32_t mask) {
    uint32_t* fd = frow(w, in.rd);
    const uint32_t* a = frow(w, in.rs1);
    const uint32_t* b = frow(w, in.rs2);
    const uint32_t* c = frow(w, in.rs3);
    X* xd = xrow(w, in.rd);
    const X* xs = xrow(w, in.rs1);
    auto sext32 = [](uint32_t v) { return static_cast<X>(static_cast<SX>(static_cast<int32_t>(v))); };
    switch (in.op) {
      case Op::kSfu:  // no rounding mode, no fflags
        for_each_lane(mask, [&](uint32_t l) { fd[l] = sfu::evaluate(in.aux, a[l]); });
        return true;
      case Op::kFadd:
        return fp_lanes(sm_id, w, in, pc, mask,
                        [&](uint32_t l, unsigned rm, uint32_t& f) { fd[l] = fp::add(a[l], b[l], rm, f); });
      case Op::kFsub:
        return fp_lanes(sm_id, w, in, pc, mask,
                        [&](uint32_t l, unsigned rm, uint32_t& f) { fd[l] = fp::sub(a[l], b[l], rm, f); });
      case Op::kFmul:
        return fp_lanes(sm_id, w, in, pc, mask,
                        [&](uint32_t l, unsigned rm, uint32_t& f) { fd[l] = fp::mul(a[l], b[l], rm, f); });
      case Op::kFdiv:
        return fp_lanes(sm_id, w, in, pc, mask,
                        [&](uint32_t l, unsigned rm, uint32_t& f) { fd[l] = fp::div(a[l], b[l], rm, f); });
      case Op::kFsqrt:
        return fp_lanes(sm_id, w, in, pc, mask,
                        [&](uint32_t l, unsigned rm, uint32_t& f) { fd[l] = fp::sqrt(a[l], rm, f); });
      case Op::kFmadd:
      case Op::kFmsub:
      case Op::kFnmsub:
      case Op::kFnmadd: {
        const bool negate_product = in.op == Op::kFnmsub || in.op == Op::kFnmadd;
        const bool negate_addend = in.op == Op::kFmsub || in.op == Op::kFnmadd;
        return fp_lanes(sm_id, w, in, pc, mask, [&](uint32_t l, unsigned rm, uint32_t& f) {
          fd[l] = fp::fma(a[l], b[l], c[l], negate_product, negate_addend, rm, f);
        });
      }
      case Op::kFcvtWS:
      case Op::kFcvtWuS:
      case Op::kFcvtLS:
      case Op::kFcvtLuS: {
        const unsigned bits = (in.op == Op::kFcvtLS || in.op == Op::kFcvtLuS) ? 64 : 32;
        const bool is_signed = in.op == Op::kFcvtWS || in.op == Op::kFcvtLS;
        return fp_lanes(sm_id, w, in, pc, mask, [&](uint32_t l, unsigned rm, uint32_t& f) {
          xd[l] = static_cast<X>(fp::to_int(a[l], bits, is_signed, rm, f));
        });
      }
      case Op::kFcvtSW:
      case Op::kFcvtSWu:
      case Op::kFcvtSL:
      case Op::kFcvtSLu: {
        return fp_lanes(sm_id, w, in, pc, mask, [&](uint32_t l, unsigned rm, uint32_t& f) {
          const uint64_t v = static_cast<uint64_t>(xs[l]);
          uint64_t value = v;
          bool is_signed = true;
          switch (in.op) {
            case Op::kFcvtSW:
              value = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
              break;
            case Op::kFcvtSWu:
              value = v & 0xFFFFFFFFu;
              is_signed = false;
              break;
            case Op::kFcvtSLu:
              is_signed = false;
              break;
            default:
              break;
          }
          fd[l] = fp::from_int(value, is_signed, rm, f);
        });
      }
      default:
        break;
    }
    // Operations without rounding.
    for_each_lane(mask, [&](uint32_t l) {
      uint32_t flags = 0;
      switch (in.op) {
        case Op::kFsgnj:
          fd[l] = (a[l] & 0x7FFFFFFFu) | (b[l] & 0x80000000u);
          break;
        case Op::kFsgnjn:
          fd[l] = (a[l] & 0x7FFFFFFFu) | (~b[l] & 0x80000000u);
          break;
        case Op::kFsgnjx:
          fd[l] = a[l] ^ (b[l] & 0x80000000u);
          break;
        case Op::kFmin:
          fd[l] = fp::min(a[l], b[l], flags);
          break;
        case Op::kFmax:
          fd[l] = fp::max(a[l], b[l], flags);
          break;
        case Op::kFeq:
          xd[l] = fp::eq(a[l], b[l], flags);
          break;
        case Op::kFlt:
          xd[l] = fp::lt(a[l], b[l], flags);
          break;
        case Op::kFle:
          xd[l] = fp::le(a[l], b[l], flags);
          break;
        case Op::kFclass:
          xd[l] = fp::classify(a[l]);
          break;
        case Op::kFmvXW:
          xd[l] = sext32(a[l]);
          break;
        default:
          fd[l] = static_cast<uint32_t>(xs[l]);
          break;  // kFmvWX
      }
      w.fflags[l] |= static_cast<uint8_t>(flags);
    });
    return true;
  }

  // ---- the hot loop ---------------------------------------------------------
  // Issues up to `limit` warp-instructions of one warp.  With `rec` (lock-step)
  // it also records the issue and its register writes.
  void run_warp(uint32_t sm_id, uint32_t slot, uint32_t limit, Retire* rec) {
    Sm& sm = sms_[sm_id];
    Warp& w = sm.warps[slot];
    Block& blk = sm.blocks[w.block];
    const uint64_t budget = desc_.instruction_budget;
    for (uint32_t issued = 0; issued < limit;) {
      uint32_t gi, mask;
      uint64_t pc;
      if (w.sleeping != 0) wake_sleepers(w, sm.cycles);
      if (!select(w, gi, pc, mask)) return;
      const uint32_t lowest = static_cast<uint32_t>(__builtin_ctz(mask));
      if (budget != 0 && counters_[KESTREL_CNT_WARP_INSTRS] >= budget) {
        raise(KESTREL_FAULT_TIMEOUT, sm_id, w, lowest, pc, 0);
        return;
      }
      const Inst* fetched = mem_.fetch(pc);
      if (fetched == nullptr) {
        raise(KESTREL_FAULT_FETCH, sm_id, w, lowest, pc, pc);
        return;
      }
      const Inst in = *fetched;  // a copy: a store may drop the decoded page
      if (is_warp_collective(in.op)) {
        // Lanes whose membermask has not converged park here without issuing;
        // lanes parked earlier whose mask now has converged execute with these.
        uint32_t ready;
        if (!converged_lanes(sm_id, w, in, gi, pc, mask, ready)) return;
        hold(w, blk, mask & ~ready);
        if (ready == 0) continue;
        unhold(w, blk, ready);
        mask = ready;
      }
      ++issued;
      if (rec) {
        rec->issued = true;
        rec->pc = pc;
        rec->mask = mask;
      }
      ++sm.cycles;
      ++counters_[KESTREL_CNT_WARP_INSTRS];
      counters_[KESTREL_CNT_THREAD_INSTRS] += static_cast<uint64_t>(popcount(mask));
      if (mask == w.live) {
        ++w.uniform_instret;
      } else {
        ++counters_[KESTREL_CNT_DIVERGED_ISSUES];
        for_each_lane(mask, [&](uint32_t l) { ++w.instret[l]; });
      }
      if (!execute(sm_id, slot, w, blk, in, gi, pc, mask, rec)) return;
      if (rec) record_writes(slot, w, in, mask, rec);
      if ((blk.arrived != 0 || blk.held != 0) && ++blk.watchdog >= config_.barrier_watchdog) {
        barrier_deadlock(sm_id, blk);
        return;
      }
    }
  }

  void record_writes(uint32_t slot, Warp& w, const Inst& in, uint32_t mask, Retire* rec) {
    if (in.op == Op::kBarrier) return;  // written when the barrier releases
    if (writes_freg(in.op)) {
      const uint32_t* row = frow(w, in.rd);
      for_each_lane(mask, [&](uint32_t l) { rec->writes.push_back(RegWrite{slot, l, true, in.rd, row[l]}); });
    } else if (writes_xreg(in.op) && in.rd != kSinkReg) {
      const X* row = xrow(w, in.rd);
      for_each_lane(mask, [&](uint32_t l) {
        rec->writes.push_back(RegWrite{slot, l, false, in.rd, static_cast<uint64_t>(row[l])});
      });
      if (kXlen == 32 && (in.op == Op::kKxCasD || in.op == Op::kKxAmoPair)) {  // the pair's high word
        const uint8_t high = static_cast<uint8_t>(in.rd + 1);
        const X* high_row = xrow(w, high);
        for_each_lane(mask, [&](uint32_t l) {
          rec->writes.push_back(RegWrite{slot, l, false, high, static_cast<uint64_t>(high_row[l])});
        });
      }
    }
  }

  // Executes one instruction for the lanes in `mask` (group gi at pc) and
  // moves them on.  Returns false when the warp must stop issuing: the launch
  // faulted, or the warp's threads have all exited.
  bool execute(uint32_t sm_id, uint32_t slot, Warp& w, Block& blk, const Inst& in, uint32_t gi, uint64_t pc,
               uint32_t mask, Retire* rec) {
    X* d = xrow(w, in.rd);
    const X* s1 = xrow(w, in.rs1);
    const X* s2 = xrow(w, in.rs2);
    const X imm = static_cast<X>(static_cast<SX>(in.imm));
    const uint64_t next = pc + 4;
    auto alu = [&](auto&& fn) { for_each_lane(mask, [&](uint32_t l) { d[l] = fn(s1[l], s2[l]); }); };
    auto alu_imm = [&](auto&& fn) { for_each_lane(mask, [&](uint32_t l) { d[l] = fn(s1[l]); }); };
    auto sext_w = [](uint64_t v) { return static_cast<X>(static_cast<SX>(static_cast<int32_t>(v))); };
    auto branch = [&](auto&& taken_if) {
      uint32_t taken = 0;
      for_each_lane(mask, [&](uint32_t l) { taken |= static_cast<uint32_t>(taken_if(s1[l], s2[l])) << l; });
      const uint64_t target = static_cast<X>(pc + static_cast<uint64_t>(static_cast<int64_t>(in.imm)));
      if (taken == mask) {
        move_lanes(w, gi, mask, target);
      } else if (taken == 0) {
        move_lanes(w, gi, mask, next);
      } else {
        remove_lanes(w, gi, mask);
        insert_lanes(w, next, mask & ~taken);
        insert_lanes(w, target, taken);
      }
    };

    switch (in.op) {
      case Op::kLui:
        alu_imm([&](X) { return imm; });
        break;
      case Op::kAuipc:
        alu_imm([&](X) { return static_cast<X>(pc) + imm; });
        break;
      case Op::kAddi:
        alu_imm([&](X a) { return static_cast<X>(a + imm); });
        break;
      case Op::kSlti:
        alu_imm([&](X a) { return X{static_cast<SX>(a) < static_cast<SX>(imm)}; });
        break;
      case Op::kSltiu:
        alu_imm([&](X a) { return X{a < imm}; });
        break;
      case Op::kXori:
        alu_imm([&](X a) { return a ^ imm; });
        break;
      case Op::kOri:
        alu_imm([&](X a) { return a | imm; });
        break;
      case Op::kAndi:
        alu_imm([&](X a) { return a & imm; });
        break;
      case Op::kSlli:
        alu_imm([&](X a) { return static_cast<X>(a << in.imm); });
        break;
      case Op::kSrli:
        alu_imm([&](X a) { return static_cast<X>(a >> in.imm); });
        break;
      case Op::kSrai:
        alu_imm([&](X a) { return static_cast<X>(static_cast<SX>(a) >> in.imm); });
        break;
      case Op::kAdd:
        alu([](X a, X b) { return static_cast<X>(a + b); });
        break;
      case Op::kSub:
        alu([](X a, X b) { return static_cast<X>(a - b); });
        break;
      case Op::kSll:
        alu([](X a, X b) { return static_cast<X>(a << (b & (kXlen - 1))); });
        break;
      case Op::kSlt:
        alu([](X a, X b) { return X{static_cast<SX>(a) < static_cast<SX>(b)}; });
        break;
      case Op::kSltu:
        alu([](X a, X b) { return X{a < b}; });
        break;
      case Op::kXor:
        alu([](X a, X b) { return a ^ b; });
        break;
      case Op::kSrl:
        alu([](X a, X b) { return static_cast<X>(a >> (b & (kXlen - 1))); });
        break;
      case Op::kSra:
        alu([](X a, X b) { return static_cast<X>(static_cast<SX>(a) >> (b & (kXlen - 1))); });
        break;
      case Op::kOr:
        alu([](X a, X b) { return a | b; });
        break;
      case Op::kAnd:
        alu([](X a, X b) { return a & b; });
        break;
      case Op::kAddiw:
        alu_imm([&](X a) { return sext_w(static_cast<uint32_t>(a + imm)); });
        break;
      case Op::kSlliw:
        alu_imm([&](X a) { return sext_w(static_cast<uint32_t>(a) << in.imm); });
        break;
      case Op::kSrliw:
        alu_imm([&](X a) { return sext_w(static_cast<uint32_t>(a) >> in.imm); });
        break;
      case Op::kSraiw:
        alu_imm([&](X a) { return sext_w(static_cast<uint32_t>(static_cast<int32_t>(a) >> in.imm)); });
        break;
      case Op::kAddw:
        alu([&](X a, X b) { return sext_w(static_cast<uint32_t>(a + b)); });
        break;
      case Op::kSubw:
        alu([&](X a, X b) { return sext_w(static_cast<uint32_t>(a - b)); });
        break;
      case Op::kSllw:
        alu([&](X a, X b) { return sext_w(static_cast<uint32_t>(a) << (b & 31)); });
        break;
      case Op::kSrlw:
        alu([&](X a, X b) { return sext_w(static_cast<uint32_t>(a) >> (b & 31)); });
        break;
      case Op::kSraw:
        alu([&](X a, X b) { return sext_w(static_cast<uint32_t>(static_cast<int32_t>(a) >> (b & 31))); });
        break;
      case Op::kMul:
        alu([](X a, X b) { return static_cast<X>(a * b); });
        break;
      case Op::kMulh:
        alu([](X a, X b) { return mulh(a, b, true, true); });
        break;
      case Op::kMulhsu:
        alu([](X a, X b) { return mulh(a, b, true, false); });
        break;
      case Op::kMulhu:
        alu([](X a, X b) { return mulh(a, b, false, false); });
        break;
      case Op::kDiv:
        alu([](X a, X b) { return divide<SX>(a, b, false); });
        break;
      case Op::kDivu:
        alu([](X a, X b) { return divide<X>(a, b, false); });
        break;
      case Op::kRem:
        alu([](X a, X b) { return divide<SX>(a, b, true); });
        break;
      case Op::kRemu:
        alu([](X a, X b) { return divide<X>(a, b, true); });
        break;
      case Op::kMulw:
        alu([&](X a, X b) { return sext_w(static_cast<uint32_t>(a) * static_cast<uint32_t>(b)); });
        break;
      case Op::kDivw:
        alu([&](X a, X b) {
          return sext_w(divide<int32_t>(static_cast<uint32_t>(a), static_cast<uint32_t>(b), false));
        });
        break;
      case Op::kDivuw:
        alu([&](X a, X b) {
          return sext_w(divide<uint32_t>(static_cast<uint32_t>(a), static_cast<uint32_t>(b), false));
        });
        break;
      case Op::kRemw:
        alu([&](X a, X b) {
          return sext_w(divide<int32_t>(static_cast<uint32_t>(a), static_cast<uint32_t>(b), true));
        });
        break;
      case Op::kRemuw:
        alu([&](X a, X b) {
          return sext_w(divide<uint32_t>(static_cast<uint32_t>(a), static_cast<uint32_t>(b), true));
        });
        break;

      case Op::kBeq:
        branch([](X a, X b) { return a == b; });
        return true;
      case Op::kBne:
        branch([](X a, X b) { return a != b; });
        return true;
      case Op::kBlt:
        branch([](X a, X b) { return static_cast<SX>(a) < static_cast<SX>(b); });
        return true;
      case Op::kBge:
        branch([](X a, X b) { return static_cast<SX>(a) >= static_cast<SX>(b); });
        return true;
      case Op::kBltu:
        branch([](X a, X b) { return a < b; });
        return true;
      case Op::kBgeu:
        branch([](X a, X b) { return a >= b; });
        return true;
      case Op::kJal: {
        for_each_lane(mask, [&](uint32_t l) { d[l] = static_cast<X>(next); });
        move_lanes(w, gi, mask, static_cast<X>(pc + static_cast<uint64_t>(static_cast<int64_t>(in.imm))));
        return true;
      }
      case Op::kJalr: {
        X targets[32];
        for_each_lane(mask, [&](uint32_t l) { targets[l] = static_cast<X>((s1[l] + imm) & ~X{1}); });
        for_each_lane(mask, [&](uint32_t l) { d[l] = static_cast<X>(next); });
        const X first = targets[__builtin_ctz(mask)];
        bool same = true;
        for_each_lane(mask, [&](uint32_t l) { same = same && targets[l] == first; });
        if (same) {
          move_lanes(w, gi, mask, first);
        } else {
          remove_lanes(w, gi, mask);
          for_each_lane(mask, [&](uint32_t l) { insert_lanes(w, targets[l], 1u << l); });
        }
        return true;
      }

      case Op::kLb:
        if (!exec_load<int8_t>(sm_id, w, blk, in, pc, mask)) return false;
        break;
      case Op::kLh:
        if (!exec_load<int16_t>(sm_id, w, blk, in, pc, mask)) return false;
        break;
      case Op::kLw:
        if (!exec_load<int32_t>(sm_id, w, blk, in, pc, mask)) return false;
        break;
      case Op::kLd:
        if (!exec_load<int64_t>(sm_id, w, blk, in, pc, mask)) return false;
        break;
      case Op::kLbu:
        if (!exec_load<uint8_t>(sm_id, w, blk, in, pc, mask)) return false;
        break;
      case Op::kLhu:
        if (!exec_load<uint16_t>(sm_id, w, blk, in, pc, mask)) return false;
        break;
      case Op::kLwu:
        if (!exec_load<uint32_t>(sm_id, w, blk, in, pc, mask)) return false;
        break;
      case Op::kSb:
        if (!exec_store<uint8_t>(sm_id, w, blk, in, pc, mask, s2)) return false;
        break;
      case Op::kSh:
        if (!exec_store<uint16_t>(sm_id, w, blk, in, pc, mask, s2)) return false;
        break;
      case Op::kSw:
        if (!exec_store<uint32_t>(sm_id, w, blk, in, pc, mask, s2)) return false;
        break;
      case Op::kSd:
        if (!exec_store<uint64_t>(sm_id, w, blk, in, pc, mask, s2)) return false;
        break;
      case Op::kFlw: {
        // Loads into the f register file: the bit pattern as it is.
        uint32_t* fd = frow(w, in.rd);
        AccessTally tally;
        kestrel_fault_kind kind = KESTREL_FAULT_NONE;
        for (uint32_t m = mask; m != 0; m &= m - 1) {
          const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
          const X addr = s1[l] + imm;
          const uint8_t* p = translate<4, Access::kLoad>(w, blk, l, addr, kind, tally);
          if (p == nullptr) {
            raise(kind, sm_id, w, l, pc, addr);
            return false;
          }
          fd[l] = load_host<uint32_t>(p);
        }
        ++counters_[KESTREL_CNT_LOADS];
        count_access(tally);
        break;
      }
      case Op::kFsw:
        if (!exec_store<uint32_t>(sm_id, w, blk, in, pc, mask, frow(w, in.rs2))) return false;
        break;
      case Op::kLrW:
      case Op::kScW:
      case Op::kAmoW:
        if (!exec_atomic<uint32_t>(sm_id, slot, w, blk, in, pc, mask)) return false;
        break;
      case Op::kLrD:
      case Op::kScD:
      case Op::kAmoD:
        if (!exec_atomic<uint64_t>(sm_id, slot, w, blk, in, pc, mask)) return false;
        break;
      case Op::kKxAmoW:
      case Op::kKxAmoFadd:
        if (!exec_cuda_atomic<uint32_t>(sm_id, w, blk, in, pc, mask)) return false;
        break;
      case Op::kKxCasD:
      case Op::kKxAmoPair:
        if (!exec_cuda_atomic<uint64_t>(sm_id, w, blk, in, pc, mask)) return false;
        break;

      case Op::kFence:
      case Op::kSimtFence:
        break;
      case Op::kNanosleep:
        // Lock-step follows the RTL's issue order, so only the model's own
        // scheduling (automatic dispatch) lets sleeping threads stand aside.
        if (dispatch_ == Dispatch::kAutomatic) {
          const uint64_t now = sms_[sm_id].cycles;
          for_each_lane(mask, [&](uint32_t l) {
            const uint64_t ns = std::min<uint64_t>(static_cast<uint32_t>(s1[l]), KESTREL_NANOSLEEP_MAX_NS);
            const uint64_t cycles = (ns * config_.clock_khz + 999999) / 1000000;
            if (cycles == 0) return;
            w.wake_cycle[l] = now + cycles;
            w.sleeping |= 1u << l;
          });
        }
        break;
      case Op::kVote:
      case Op::kShuffle:
      case Op::kMatch:
      case Op::kReduce:
        exec_collective(w, in, mask);
        break;
      case Op::kSyncwarp: {
        for (uint32_t m = mask; m != 0; m &= m - 1) {
          const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
          const uint32_t member_mask = static_cast<uint32_t>(s2[l]);
          if (((member_mask >> l) & 1) == 0) {
            raise(KESTREL_FAULT_ILLEGAL_INSTRUCTION, sm_id, w, l, pc, 0, in.raw);
            return false;
          }
          w.sync_mask[l] = member_mask & lane_bits_;
        }
        // Like a block barrier: the lanes retire it and wait at the next PC.
        hold(w, blk, mask);
        w.syncwarp_waiting |= mask;
        move_lanes(w, gi, mask, next);
        release_syncwarps(w, blk);
        return true;
      }
      case Op::kCsrrw:
      case Op::kCsrrs:
      case Op::kCsrrc:
      case Op::kCsrrwi:
      case Op::kCsrrsi:
      case Op::kCsrrci:
        if (!exec_csr(sm_id, w, blk, in, pc, mask)) return false;
        break;

      case Op::kExit: {
        remove_lanes(w, gi, mask);
        w.live &= ~mask;
        blk.live -= static_cast<uint32_t>(popcount(mask));
        drop_reservations(sm_id, slot, mask);
        if (blk.live == 0) {
          complete_block(sm_id, blk);  // may place a new block in this very slot: stop issuing
          return false;
        }
        if (blk.arrived != 0 && blk.arrived == blk.live) {
          release_barrier(sm_id, blk, rec);  // exited threads count as arrived
        }
        recheck_after_exit(w, blk);
        if (w.live == 0) return false;
        return true;
      }
      case Op::kBarrier: {
        uint32_t predicates = 0;
        for (uint32_t m = mask; m != 0; m &= m - 1) {
          const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
          if (in.aux == kBarSync && s1[l] != 0) {  // only barrier 0 exists
            raise(KESTREL_FAULT_ILLEGAL_INSTRUCTION, sm_id, w, l, pc, 0, in.raw);
            return false;
          }
          predicates += s1[l] != 0;
          w.bar_kind[l] = in.aux;
          w.bar_rd[l] = in.rd;
        }
        w.waiting |= mask;
        blk.arrived += static_cast<uint32_t>(popcount(mask));
        blk.predicate_count += predicates;
        move_lanes(w, gi, mask, next);
        if (blk.arrived == blk.live) release_barrier(sm_id, blk, rec);
        return true;
      }
      case Op::kTrap: {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(mask));
        const uint64_t code = static_cast<uint64_t>(s1[l]);
        if (code == KESTREL_TRAP_ASSERT) {
          raise(KESTREL_FAULT_ASSERT, sm_id, w, l, pc, static_cast<uint64_t>(xrow(w, 11)[l]),
                static_cast<uint32_t>(xrow(w, 12)[l]));
        } else {
          raise(KESTREL_FAULT_TRAP, sm_id, w, l, pc, 0, static_cast<uint32_t>(code));
        }
        return false;
      }
      case Op::kIllegal:
      case Op::kCount:
        raise(KESTREL_FAULT_ILLEGAL_INSTRUCTION, sm_id, w, static_cast<uint32_t>(__builtin_ctz(mask)), pc, 0,
              in.raw);
        return false;
      default:
        if (!exec_fp(sm_id, w, in, pc, mask)) return false;
        break;
    }
    move_lanes(w, gi, mask, next);
    return true;
  }

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
  uint32_t lane_bits_;  // a mask bit for every lane of a warp
  DeviceMemory mem_;
  std::vector<Sm> sms_;
  LaunchDesc desc_;
  Dispatch dispatch_ = Dispatch::kAutomatic;
  LaunchState state_ = LaunchState::kIdle;
  Fault fault_;
  Counters counters_{};
  uint32_t threads_per_block_ = 0;
  uint32_t warps_per_block_ = 0;
  uint32_t shared_size_ = 0;
  uint32_t shared_window_ = 0;
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

}  // namespace

std::unique_ptr<Engine> make_engine(const Config& config) {
  check_config(config);
  if (config.xlen == 32) return std::make_unique<Machine<uint32_t>>(config);
  return std::make_unique<Machine<uint64_t>>(config);
}

}  // namespace kestrel::model
