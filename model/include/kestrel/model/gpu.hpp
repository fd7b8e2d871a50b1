// The Kestrel functional model: the whole GPU at the instruction level, exactly
// as docs/isa.md defines it.  It is the golden reference the RTL is compared
// against (lock-step) and the fast backend the runtime uses when no hardware
// is present (model_transport.hpp).  docs/functional-model.md describes its
// structure and scheduling order.
//
// Lifetime: a Gpu owns its device DRAM and page table for its whole life; a
// launch runs from start() until it is done, faults or is aborted, and the
// next start() clears the fault record and the counters.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kestrel/abi.h"
#include "kestrel/host_regs.h"

namespace kestrel::model {

struct Config {
  unsigned xlen = 64;                 // 64 or 32
  unsigned num_sms = 2;               // 1..255
  unsigned warps_per_sm = 8;          // 1..255 warp slots per SM
  unsigned lanes_per_warp = 32;       // 1, 2, 4, ..., 32
  uint64_t mem_bytes = 256ull << 20;  // device DRAM, whole pages, at KESTREL_GLOBAL_BASE
  uint32_t shared_bytes_per_sm = 64 * 1024;
  uint32_t max_threads_per_block = 1024;
  // Warp-instructions a warp issues before the SM chooses again.
  uint32_t warp_slice = 16;
  // How the SM chooses (enum kestrel_sched_policy, CONFIG2): loose
  // round-robin turns to the next resident warp that can issue; greedy-then-
  // oldest keeps the warp it ran while that can issue, else takes the warp
  // resident longest.  Only the order of warps' slices follows it: the model
  // has no pipeline, so the cycle count is not the RTL's under either policy.
  unsigned sched_policy = 0;
  // Warp-instructions a block may issue while some of its threads wait at a
  // barrier before the watchdog reports BARRIER_DEADLOCK (docs/isa.md sec. 6).
  uint64_t barrier_watchdog = 1ull << 24;
  // Line size used to count KESTREL_CNT_MEM_REQUESTS.
  uint32_t mem_line_bytes = 64;
  // SM clock (CLOCK_KHZ); kx.nanosleep turns nanoseconds into cycles with it.
  uint32_t clock_khz = 100000;
  // Not null: DRAM is this array of mem_bytes that the caller owns and
  // zeroes (a virtual platform's memory, reached through DMI), which others
  // may write between launches; the model then decodes code afresh at every
  // START.  Null: the model allocates its own.
  uint8_t* dram = nullptr;
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

// What the launch descriptor registers of host_regs.h hold.
struct LaunchDesc {
  uint64_t entry_pc = 0;
  uint64_t exit_pc = 0;
  uint64_t gp = 0;
  uint64_t param_addr = 0;
  Dim3 grid;
  Dim3 block;
  uint32_t shared_base = 0;  // 0: the launch has no shared window
  uint32_t shared_static = 0;
  uint32_t shared_dyn = 0;
  uint32_t stack_bytes = 1024;
  // DRAM backing of the local windows (warp slot s's threads at
  // local_backing + s * lanes * stack_bytes, interleaved in granules of
  // KESTREL_LOCAL_INTERLEAVE_BYTES; docs/isa.md section 4).  0 makes the
  // model keep local memory privately.
  uint32_t local_backing = 0;
  uint64_t cycle_budget = 0;  // the watchdog: cycles of this launch (the SM's own count), 0 = unlimited
};

// Why a GPU of `config` refuses to START the launch `d`, or nullptr when it
// starts it: the checks every simulated backend makes (the model and the
// Verilated RTL), so that both refuse the same launches with the same words.
// Grid y and z must fit the descriptor's 16 bits.
const char* launch_refusal(const LaunchDesc& d, const Config& config);

struct Fault {
  kestrel_fault_kind kind = KESTREL_FAULT_NONE;
  uint64_t pc = 0;
  uint64_t addr = 0;
  Dim3 block{0, 0, 0};
  Dim3 thread{0, 0, 0};
  uint32_t sm = 0;
  uint32_t warp = 0;  // warp index within the block
  uint32_t info = 0;  // trap code, or the assert line
};

enum class LaunchState { kIdle, kRunning, kDone, kFault };

// How blocks reach SMs.  kAutomatic: the model dispatches blocks itself (the
// backend mode).  kManual: the lock-step driver places every block with
// place_block() and advances warps with step().
enum class Dispatch { kAutomatic, kManual };

// One register write a retired warp-instruction made.
struct RegWrite {
  uint32_t warp_slot;  // the issuing warp, or a warp released by a barrier
  uint32_t lane;
  bool fp;  // f register (else x register)
  uint8_t reg;
  uint64_t value;  // x registers XLEN wide, f registers 32-bit patterns
};

// GPU-level lock-step (several SMs) follows the RTL's global atomics
// (docs/functional-model.md, "Following the RTL's global atomics"): the RTL
// performs them at the memory side in the order their requests arrive from
// all SMs, which the model, stepping warps in retire order, cannot know.  An
// oracle gives step() the values the RTL's instruction wrote to its
// destination register; a global atomic (AMO, kx.amo*, CAS, float add, LR)
// then takes each such lane's old value from it instead of from the model's
// memory, and an SC its success (0) or failure.  Lanes without a value (rd =
// x0) and everything that is not a global atomic execute from the model's own
// state as always.
struct AtomicOracle {
  uint32_t lanes = 0;            // lanes whose value the RTL reported
  std::vector<uint64_t> values;  // per lane: the destination's value (XLEN bits or an f pattern;
                                 // RV32 pair atomics: the pair's 64 bits, rd+1 high)
};

// One lane's global-memory access of a step() given an oracle: what the
// lock-step checker needs to prove that the RTL's atomics are linearizable
// (verif/lockstep, AtomicChains).  Loads into x registers are reported too
// (kLoad, `old` the value the model read): a plain load of a raced word may
// see what the RTL's memory held before the model stepped the atomic.
struct GlobalAccess {
  enum Kind : uint8_t { kAtomic, kLoadReserved, kStoreConditional, kStore, kLoad };
  Kind kind = kAtomic;
  uint32_t lane = 0;
  uint64_t addr = 0;          // device address, naturally aligned
  uint8_t bytes = 0;          // 1, 2, 4 or 8
  bool observed = false;      // atomic/LR: the value read came from the oracle; SC: the RTL's success
  bool order_free = false;    // the value written does not depend on the value read (swap, store)
  bool writes = false;        // `value` was written (false: LR, failed CAS, failed SC)
  uint64_t prior = 0;         // the model's memory value before the access
  uint64_t old = 0;           // the value read (atomic, LR); SC: the value its LR read
  uint64_t value = 0;         // the value written
  bool sign_extends = false;  // kLoad: the load sign-extends into its register
};

struct Retire {
  bool issued = false;  // false: the warp had no eligible thread
  uint32_t sm = 0;
  uint32_t warp_slot = 0;
  uint64_t pc = 0;
  uint32_t mask = 0;  // lanes that executed the instruction
  std::vector<RegWrite> writes;
  std::vector<GlobalAccess> accesses;  // only from step() with an oracle
};

using Counters = std::array<uint64_t, KESTREL_CNT_COUNT>;
// One SM's counters (enum kestrel_sm_counter): its active cycles (its issue
// slots, the sleeps it waited out included: the cycle count it reached),
// warp- and thread-instructions, the stall classes (0: the model has no
// pipeline, as in Counters) and the blocks it completed.
using SmCounters = std::array<uint64_t, KESTREL_SM_CNT_COUNT>;

// Called with every warp-instruction an automatic launch issues (its record
// and the SM's cycle count after it), for the instruction trace; an empty
// function (the default) costs nothing.
using RetireObserver = std::function<void(const Retire& retire, uint64_t sm_cycle)>;

class Engine;

class Gpu {
 public:
  // Throws kestrel::Error(KESTREL_ERROR_INVALID_VALUE) for a configuration the
  // model cannot build.
  explicit Gpu(const Config& config);
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  const Config& config() const;

  // Device DRAM by device address, bypassing the page table.  Throws
  // kestrel::Error(KESTREL_ERROR_INVALID_VALUE) outside DRAM.
  void write_mem(uint64_t addr, const void* src, size_t bytes);
  void read_mem(uint64_t addr, void* dst, size_t bytes) const;
  // Sets the permissions (KESTREL_PAGE_*) of `pages` pages from the page-aligned
  // `addr`; 0 unmaps.  Throws for a range outside DRAM or unaligned addr.
  void map_pages(uint64_t addr, uint64_t pages, uint32_t perms);
  uint32_t page_perms(uint64_t addr) const;

  // Starts a launch.  The driver validates launches; a configuration the model
  // cannot run anyway (a block needing more warps or shared memory than an SM
  // has, zero dimensions) throws kestrel::Error(KESTREL_ERROR_INVALID_CONFIG),
  // as does starting while a launch runs.
  void start(const LaunchDesc& desc, Dispatch dispatch = Dispatch::kAutomatic);
  // Runs the launch to its end (automatic dispatch).
  void run();
  // Runs at most `rounds` scheduling rounds of the launch (in each round every
  // SM issues one warp slice of up to Config::warp_slice instructions) and
  // returns whether it still runs.  Between two calls the host may read and
  // write DRAM: this is how the driver overlaps copies with a kernel.
  bool run_for(uint64_t rounds);
  // Sees every warp-instruction of later automatic launches (the
  // instruction trace); an empty function stops it.
  void set_retire_observer(RetireObserver observer);
  void abort();
  LaunchState state() const;
  const Fault& fault() const;
  const Counters& counters() const;
  // SM `sm`'s counters of the latest launch (sm < num_sms).
  SmCounters sm_counters(uint32_t sm) const;

  // ---- lock-step interface (Dispatch::kManual) ----
  // Places block `block_index` (linear, x fastest) on `sm`, its warps in
  // `warp_slots` (one per warp of the block, in warp order).  Throws
  // kestrel::Error(KESTREL_ERROR_INVALID_VALUE) if a slot is busy, the block was
  // placed before, or the SM lacks shared memory.
  void place_block(uint32_t block_index, uint32_t sm, const std::vector<uint32_t>& warp_slots);
  // Issues one warp-instruction of the chosen warp by the scheduling rule of
  // docs/isa.md section 6.  issued is false when the warp has no eligible
  // thread (all exited or waiting at a barrier).
  Retire step(uint32_t sm, uint32_t warp_slot);
  // The same, with the RTL's destination values for the global atomics of
  // the step (AtomicOracle) and the step's global stores and atomics listed
  // in Retire::accesses.
  Retire step(uint32_t sm, uint32_t warp_slot, const AtomicOracle& oracle);
  bool warp_resident(uint32_t sm, uint32_t warp_slot) const;
  // Architectural state of one thread slot, for comparisons.
  uint64_t xreg(uint32_t sm, uint32_t warp_slot, uint32_t lane, unsigned reg) const;
  uint32_t freg(uint32_t sm, uint32_t warp_slot, uint32_t lane, unsigned reg) const;
  // Overwrites an x register (x0 stays zero): lock-step gives the model the
  // RTL's value of a read that legitimately differs (cycle and time CSRs).
  void set_xreg(uint32_t sm, uint32_t warp_slot, uint32_t lane, unsigned reg, uint64_t value);
  uint32_t fcsr(uint32_t sm, uint32_t warp_slot, uint32_t lane) const;
  // The next PC of a live thread; threads that exited report exited = true.
  uint64_t thread_pc(uint32_t sm, uint32_t warp_slot, uint32_t lane, bool* exited) const;

 private:
  std::unique_ptr<Engine> engine_;
};

}  // namespace kestrel::model
