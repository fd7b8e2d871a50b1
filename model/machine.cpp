// The interpreter's Engine API, block dispatch, faults and barriers
// (machine.hpp describes the whole).
#include "machine.hpp"

#include <sys/mman.h>

#include <memory>
#include <utility>

namespace kestrel::model {

const char* launch_refusal(const LaunchDesc& d, const Config& config) {
  const uint64_t threads = uint64_t{d.block.x} * d.block.y * d.block.z;
  if (d.grid.x == 0 || d.grid.y == 0 || d.grid.z == 0) return "grid dimensions must be non-zero";
  if (d.grid.y > 0xFFFF || d.grid.z > 0xFFFF) return "grid y and z must be below 65536";
  if (threads == 0) return "block dimensions must be non-zero";
  if (threads > config.max_threads_per_block) return "block has more threads than the device maximum";
  if ((threads + config.lanes_per_warp - 1) / config.lanes_per_warp > config.warps_per_sm)
    return "block needs more warps than an SM has";
  if (uint64_t{d.shared_static} + d.shared_dyn > config.shared_bytes_per_sm)
    return "block needs more shared memory than an SM has";
  if (d.shared_base != 0 &&
      (d.shared_base < KESTREL_SHARED_GUARD ||
       uint64_t{d.shared_base} + config.shared_bytes_per_sm + KESTREL_SHARED_GUARD > (1ull << 32)))
    return "shared window and its guards do not fit in 32 bits";
  if (d.stack_bytes > interp::kLocalWindow) return "stack_bytes exceeds the local window";
  if (d.stack_bytes % KESTREL_LOCAL_INTERLEAVE_BYTES != 0)
    return "stack_bytes must be a multiple of the local interleave granule (8 bytes)";
  return nullptr;
}

namespace interp {

namespace {
// Below this a warp's local windows are zeroed with memset; above it, the
// pages are mapped on demand (a fresh placement drops the touched ones).
constexpr size_t kEagerLocalBytes = size_t{64} << 10;
}  // namespace

ZeroPages::~ZeroPages() { release(); }

ZeroPages::ZeroPages(ZeroPages&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      mapped_(std::exchange(other.mapped_, false)) {}

ZeroPages& ZeroPages::operator=(ZeroPages&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    mapped_ = std::exchange(other.mapped_, false);
  }
  return *this;
}

void ZeroPages::release() {
  if (data_ != nullptr) {
    if (mapped_)
      munmap(data_, bytes_);
    else
      delete[] data_;
  }
  data_ = nullptr;
  bytes_ = 0;
  mapped_ = false;
}

uint8_t* ZeroPages::zeroed(size_t bytes) {
  if (bytes == 0) return nullptr;
  if (bytes == bytes_) {
    // Anonymous private pages read as zero again after MADV_DONTNEED.
    if (!mapped_)
      std::memset(data_, 0, bytes_);
    else if (madvise(data_, bytes_, MADV_DONTNEED) != 0)
      std::memset(data_, 0, bytes_);
    return data_;
  }
  release();
  if (bytes <= kEagerLocalBytes) {
    data_ = new uint8_t[bytes]();
  } else {
    void* p =
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      throw Error(KESTREL_ERROR_OUT_OF_MEMORY,
                  "model: cannot reserve " + std::to_string(bytes) + " bytes of local memory");
    data_ = static_cast<uint8_t*>(p);
    mapped_ = true;
  }
  bytes_ = bytes;
  return data_;
}

template <class X>
void Machine<X>::start(const LaunchDesc& d, Dispatch dispatch) {
  if (state_ == LaunchState::kRunning)
    throw Error(KESTREL_ERROR_INVALID_CONFIG, "model: a launch is running");
  if (const char* why = launch_refusal(d, config_))
    throw Error(KESTREL_ERROR_INVALID_CONFIG, std::string("model: ") + why);
  if (config_.dram != nullptr) mem_.drop_all_decoded();
  const uint64_t threads = uint64_t{d.block.x} * d.block.y * d.block.z;
  const uint64_t warps = (threads + lanes_ - 1) / lanes_;
  const uint64_t shared = uint64_t{d.shared_static} + d.shared_dyn;

  for (Sm& sm : sms_) {
    for (Warp& w : sm.warps) w.resident = false;
    for (Block& b : sm.blocks) b.active = false;
    sm.shared_used = 0;
    sm.free_slots = config_.warps_per_sm;
    sm.cycles = 0;
    sm.next_warp = 0;
    sm.warp_instrs = 0;
    sm.thread_instrs = 0;
    sm.blocks_done = 0;
  }
  desc_ = d;
  dispatch_ = dispatch;
  threads_per_block_ = static_cast<uint32_t>(threads);
  warps_per_block_ = static_cast<uint32_t>(warps);
  shared_size_ = static_cast<uint32_t>(shared);
  shared_span_ = d.shared_base == 0 ? 0 : config_.shared_bytes_per_sm + 2 * KESTREL_SHARED_GUARD;
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

template <class X>
bool Machine<X>::run_for(uint64_t rounds) {
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
      const uint32_t slot = choose_warp(sm);
      if (slot < slots) {
        if (retire_observer_) {
          run_observed_slice(s, slot);
        } else {
          run_warp(s, slot, config_.warp_slice, nullptr);
        }
        issued = true;
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

// The same slice as run_warp(s, slot, warp_slice), one instruction at a time
// so that the observer sees each.
template <class X>
void Machine<X>::run_observed_slice(uint32_t sm_id, uint32_t slot) {
  for (uint32_t i = 0; i < config_.warp_slice && state_ == LaunchState::kRunning; ++i) {
    Retire retire;
    retire.sm = sm_id;
    retire.warp_slot = slot;
    run_warp(sm_id, slot, 1, &retire);
    if (!retire.issued) return;
    retire_observer_(retire, sms_[sm_id].cycles);
  }
}

template <class X>
uint32_t Machine<X>::choose_warp(Sm& sm) {
  const uint32_t slots = config_.warps_per_sm;
  const bool greedy = config_.sched_policy == KESTREL_SCHED_GTO;
  uint32_t chosen = slots;
  for (uint32_t k = 0; k < slots; ++k) {
    const uint32_t slot = (sm.next_warp + k) % slots;
    Warp& w = sm.warps[slot];
    if (!w.resident) continue;
    if (w.sleeping != 0) wake_sleepers(w, sm.cycles);
    if (!has_eligible(w)) continue;
    // Round-robin takes the first from next_warp on; greedy-then-oldest
    // starts at the warp it ran last and otherwise wants the oldest.
    if (!greedy) {
      chosen = slot;
      break;
    }
    if (k == 0) return slot;
    if (chosen == slots || w.resident_since < sm.warps[chosen].resident_since) chosen = slot;
  }
  if (chosen < slots) sm.next_warp = greedy ? chosen : (chosen + 1) % slots;
  return chosen;
}

template <class X>
void Machine<X>::abort() {
  if (state_ != LaunchState::kRunning) return;
  for (Sm& sm : sms_) {
    for (Warp& w : sm.warps) w.resident = false;
    for (Block& b : sm.blocks) b.active = false;
  }
  finish();
}

template <class X>
void Machine<X>::place_block(uint32_t block_index, uint32_t sm_id, const std::vector<uint32_t>& slots) {
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

template <class X>
Retire Machine<X>::step(uint32_t sm_id, uint32_t slot, const AtomicOracle* oracle) {
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
  if (!retire.issued && state_ == LaunchState::kRunning && !any_warp_can_issue()) report_warp_sync_deadlock();
  return retire;
}

template <class X>
uint64_t Machine<X>::xreg(uint32_t sm_id, uint32_t slot, uint32_t lane, unsigned reg) const {
  const Warp& w = warp_at(sm_id, slot, lane);
  if (reg >= 32) throw Error(KESTREL_ERROR_INVALID_VALUE, "model: no such x register");
  return w.x[reg * lanes_ + lane];
}

template <class X>
void Machine<X>::set_xreg(uint32_t sm_id, uint32_t slot, uint32_t lane, unsigned reg, uint64_t value) {
  warp_at(sm_id, slot, lane);  // checks the slot
  if (reg >= 32) throw Error(KESTREL_ERROR_INVALID_VALUE, "model: no such x register");
  if (reg != 0) sms_[sm_id].warps[slot].x[reg * lanes_ + lane] = static_cast<X>(value);
}

template <class X>
uint32_t Machine<X>::freg(uint32_t sm_id, uint32_t slot, uint32_t lane, unsigned reg) const {
  const Warp& w = warp_at(sm_id, slot, lane);
  if (reg >= 32) throw Error(KESTREL_ERROR_INVALID_VALUE, "model: no such f register");
  return w.f[reg * lanes_ + lane];
}

template <class X>
uint32_t Machine<X>::fcsr(uint32_t sm_id, uint32_t slot, uint32_t lane) const {
  const Warp& w = warp_at(sm_id, slot, lane);
  return (uint32_t{w.frm[lane]} << 5) | w.fflags[lane];
}

template <class X>
uint64_t Machine<X>::thread_pc(uint32_t sm_id, uint32_t slot, uint32_t lane, bool* exited) const {
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

// ---- dispatch ---------------------------------------------------------------
template <class X>
bool Machine<X>::fits(const Sm& sm) const {
  return sm.free_slots >= warps_per_block_ && sm.shared_used + shared_size_ <= config_.shared_bytes_per_sm;
}

template <class X>
void Machine<X>::dispatch_one(uint32_t sm_id) {
  Sm& sm = sms_[sm_id];
  std::vector<uint32_t> slots;
  for (uint32_t s = 0; s < config_.warps_per_sm && slots.size() < warps_per_block_; ++s) {
    if (!sm.warps[s].resident) slots.push_back(s);
  }
  place(sm_id, next_block_++, slots);
}

// Blocks go out in linear order, one per SM in turn, until no SM has room.
template <class X>
void Machine<X>::initial_dispatch() {
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

template <class X>
void Machine<X>::place(uint32_t sm_id, uint64_t block_index, const std::vector<uint32_t>& slots) {
  Sm& sm = sms_[sm_id];
  uint32_t bi = 0;
  while (sm.blocks[bi].active) ++bi;  // a free entry exists: each block holds at least one warp slot
  Block& b = sm.blocks[bi];
  b.active = true;
  b.index = block_index;
  // In 64 bits: grid.x * grid.y may pass 2^32 (a 32-bit product wrapped to
  // 0 and divided by it).
  b.id.x = static_cast<uint32_t>(block_index % desc_.grid.x);
  b.id.y = static_cast<uint32_t>(block_index / desc_.grid.x % desc_.grid.y);
  b.id.z = static_cast<uint32_t>(block_index / (uint64_t{desc_.grid.x} * desc_.grid.y));
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
    w.resident_since = sm.dispatches++;
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
    w.spin_valid = false;
    w.yield_left = 0;
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
    // A warp's local windows share one region, its lanes interleaved
    // granule by granule (docs/isa.md section 4): lane l's granule g is at
    // region + (g * lanes + l) * KESTREL_LOCAL_INTERLEAVE_BYTES.
    const size_t warp_local_bytes = size_t{lanes_} * desc_.stack_bytes;
    uint8_t* region = nullptr;
    if (desc_.local_backing != 0) {
      const uint64_t warp_slot = uint64_t{sm_id} * config_.warps_per_sm + slots[wi];
      const uint64_t addr = desc_.local_backing + warp_slot * warp_local_bytes;
      if (mem_.contains(addr, warp_local_bytes)) region = mem_.dram() + (addr - KESTREL_GLOBAL_BASE);
    } else {
      region = w.private_local.zeroed(warp_local_bytes);
    }
    for (uint32_t l = 0; l < lanes_; ++l)
      w.local[l] = region == nullptr ? nullptr : region + size_t{l} * KESTREL_LOCAL_INTERLEAVE_BYTES;
  }
}

template <class X>
void Machine<X>::complete_block(uint32_t sm_id, Block& b) {
  Sm& sm = sms_[sm_id];
  for (uint32_t slot : b.warp_slots) sm.warps[slot].resident = false;
  sm.free_slots += warps_per_block_;
  sm.shared_used -= shared_size_;
  b.active = false;
  ++blocks_done_;
  ++counters_[KESTREL_CNT_BLOCKS];
  ++sm.blocks_done;
  if (dispatch_ == Dispatch::kAutomatic) {
    while (next_block_ < total_blocks_ && fits(sm)) dispatch_one(sm_id);
  }
}

template <class X>
void Machine<X>::finish() {
  uint64_t cycles = 0;
  for (const Sm& sm : sms_) cycles = std::max(cycles, sm.cycles);
  counters_[KESTREL_CNT_CYCLES] = cycles;
  if (state_ == LaunchState::kRunning) state_ = LaunchState::kDone;
}

// ---- faults -----------------------------------------------------------------
template <class X>
void Machine<X>::raise(kestrel_fault_kind kind, uint32_t sm_id, const Warp& w, uint32_t lane, uint64_t pc,
                       uint64_t addr, uint32_t info) {
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

// ---- barriers ---------------------------------------------------------------
template <class X>
void Machine<X>::release_barrier(uint32_t sm_id, Block& b, Retire* rec) {
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
      if (rec && w.bar_rd[l] != kSinkReg) rec->writes.push_back(RegWrite{slot, l, false, w.bar_rd[l], value});
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
template <class X>
void Machine<X>::barrier_deadlock(uint32_t sm_id, const Block& b) {
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

template <class X>
bool Machine<X>::any_warp_can_issue() const {
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
template <class X>
bool Machine<X>::report_warp_sync_deadlock() {
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

template <class X>
bool Machine<X>::skip_idle_cycles(Sm& sm) {
  uint64_t earliest = std::numeric_limits<uint64_t>::max();
  for (Warp& w : sm.warps) {
    if (!w.resident) continue;
    for_each_lane(w.sleeping, [&](uint32_t l) { earliest = std::min(earliest, w.wake_cycle[l]); });
  }
  if (earliest == std::numeric_limits<uint64_t>::max()) return false;
  sm.cycles = std::max(sm.cycles, earliest);
  return true;
}

template class Machine<uint32_t>;
template class Machine<uint64_t>;

}  // namespace interp

namespace {

void check_config(const Config& c) {
  auto fail = [](const std::string& why) { throw Error(KESTREL_ERROR_INVALID_VALUE, "model: " + why); };
  if (c.xlen != 32 && c.xlen != 64) fail("xlen must be 32 or 64");
  if (c.lanes_per_warp < 1 || c.lanes_per_warp > 32 || (c.lanes_per_warp & (c.lanes_per_warp - 1)) != 0)
    fail("lanes_per_warp must be a power of two of at most 32");
  if (c.num_sms < 1 || c.num_sms > 255) fail("num_sms must be 1..255");
  if (c.warps_per_sm < 1 || c.warps_per_sm > 255) fail("warps_per_sm must be 1..255");
  if (c.shared_bytes_per_sm % 256 != 0 || c.shared_bytes_per_sm / 256 > 0xFFFF) {
    fail("shared_bytes_per_sm must be a multiple of 256 below 16 MiB");
  }
  if (c.max_threads_per_block < 1 || c.max_threads_per_block > 0xFFFF)
    fail("max_threads_per_block must be 1..65535");
  if (c.warp_slice < 1) fail("warp_slice must be at least 1");
  if (c.sched_policy != KESTREL_SCHED_LRR && c.sched_policy != KESTREL_SCHED_GTO)
    fail("sched_policy " + std::to_string(c.sched_policy) + " is not LRR (0) or GTO (1)");
  if (c.barrier_watchdog < 1) fail("barrier_watchdog must be at least 1");
  if (c.mem_line_bytes < 8 || (c.mem_line_bytes & (c.mem_line_bytes - 1)) != 0) {
    fail("mem_line_bytes must be a power of two >= 8");
  }
  if (c.clock_khz < 1) fail("clock_khz must be at least 1");
}

}  // namespace

std::unique_ptr<Engine> make_engine(const Config& config) {
  check_config(config);
  if (config.xlen == 32) return std::make_unique<interp::Machine<uint32_t>>(config);
  return std::make_unique<interp::Machine<uint64_t>>(config);
}

}  // namespace kestrel::model
