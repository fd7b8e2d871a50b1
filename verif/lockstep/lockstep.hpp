// Lock-step comparison of an RTL streaming multiprocessor (or a whole GPU of
// them) against the functional model.  The RTL side reports every retired
// warp-instruction in retire order; the checker steps the model's warp the
// same way (Gpu::step in Dispatch::kManual) and compares PC, thread mask and
// register writes, and at the end the first fault.  It knows the two places
// where the RTL and the model report the same architectural effect at
// different times (docs/microarchitecture.md, "Lock-step"):
//
// * Barrier results (kx.bar.count/and/or rd): the model writes them in the
//   record of the instruction that completed the barrier; the RTL writes them
//   later as separate retire records at the barrier's PC ("barrier-result
//   records").  The checker keeps the model's writes until the RTL's
//   barrier-result record for that warp arrives.
// * RV32 register-pair atomics: the RTL retires them as two records of the
//   warp, rd with the low words and then rd+1 with the high words; the
//   checker joins them (the model steps once, with 64-bit oracle values) and
//   matches the model's rd+1 write like a barrier result (counted among the
//   barrier-result records).
// * Texture fetches (kx.tex): the RTL retires one as four records of its
//   warp at the instruction's PC, each with the instruction's lane mask and
//   an f register: f rd (component x), then f rd+1, f rd+2 and f rd+3;
//   records of other warps may come between them.  The first steps the
//   model, which writes all four registers at once; the checker keeps the
//   model's writes of f rd+1..rd+3 until the warp's next records match them
//   in that order (counted among the barrier-result records).  A faulting
//   kx.tex retires nothing (the fault path).
// * Loads and stores in flight (docs/microarchitecture.md, "Memory
//   instructions in flight"): a warp goes on issuing past its loads and
//   stores, so its later instructions may retire before them.  Every RTL
//   record carries how many of its warp's memory instructions precede it in
//   program order (mod 16); memory instructions complete in program order.
//   The checker steps the model for a record only when the model has
//   executed exactly that many of the warp's memory instructions, and holds
//   the others back until then, so the model executes each warp in program
//   order and each memory instruction where the RTL performed it.
// * cycle/time CSR reads: the model counts issued instructions, the RTL clock
//   cycles; those values are not compared, and the model takes the RTL's
//   value into its register so that what is computed from it agrees.
//
// * Global atomics of several SMs (GPU lock-step, `follow_atomics`): the RTL
//   performs them at the memory side in the order their requests arrive, the
//   model steps them in retire order.  The model takes each lane's old value
//   from the RTL's record (model::AtomicOracle), and at the end of the launch
//   AtomicChains proves that the RTL's atomics on each word are linearizable
//   from the word's first value to its final value in the RTL's DRAM, which
//   the model then takes over (atomic_chains.hpp says what that sees).  A
//   plain x-register load whose value differs from the model's takes the
//   RTL's value provisionally: at the end the word (or the word around a
//   narrower load) must be one the atomics follow and the value one its
//   order passes through (a spin on a flag another SM's atomic sets, the
//   byte a narrow CAS loop reads before its LR); otherwise the load's
//   mismatch is reported.
//
// Used by the SM tests (tests/rtl/sm) and the rtlsim backend's lock-step mode.
// Mismatches are reported as readable text, never thrown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "atomic_chains.hpp"
#include "kestrel/model/gpu.hpp"

namespace kestrel::lockstep {

// One retire record from the RTL.
struct RtlRetire {
  uint32_t sm = 0;
  uint32_t warp_slot = 0;
  uint64_t pc = 0;
  uint32_t mask = 0;
  bool rd_we = false;
  bool rd_fp = false;
  uint8_t rd = 0;
  std::vector<uint64_t> rd_data;  // one value per lane (lanes of the warp)
  // The record is a memory instruction's completion (LSU or kx.tex); the
  // number of the warp's memory instructions before it in program order,
  // mod 16 (retire_mem_seq_o).
  bool lsu = false;
  uint8_t mem_seq = 0;
};

class Checker {
 public:
  // `gpu` must have been started with `desc` in Dispatch::kManual.
  // `follow_atomics`: global atomics take their old values from the RTL and
  // are checked by AtomicChains (GPU lock-step of several SMs); without it the
  // model performs them on its own memory and compares the results (one SM,
  // whose atomics reach memory in retire order).
  Checker(model::Gpu& gpu, const model::LaunchDesc& desc, bool follow_atomics = false);

  // A block the RTL placed: its linear index, SM and warp slots in warp order.
  bool place_block(uint32_t block_index, uint32_t sm, const std::vector<uint32_t>& warp_slots);
  // Compares one RTL retire record; false on the first mismatch (see error()).
  bool retire(const RtlRetire& rtl);
  // The RTL's first fault of the launch: steps the faulting warp in the model
  // (unless the model faulted already) and compares the fault records.
  bool fault(const model::Fault& rtl_fault);
  // End of a launch without fault: the model must be done and no barrier
  // result may be left unwritten.
  bool finish();
  // With follow_atomics, after finish(): the followed words must chain to the
  // RTL's final values (`rtl_value(addr, bytes)` reads the RTL's DRAM), which
  // the model then takes, so that the DRAM comparison that follows sees the
  // same there.  After a fault the model just takes them (no check).
  bool finish_atomics(const std::function<uint64_t(uint64_t addr, unsigned bytes)>& rtl_value, bool faulted);
  const AtomicChains& atomic_chains() const { return chains_; }
  // Plain loads of raced words whose RTL value the model took (GPU lock-step).
  uint64_t raced_loads() const { return raced_loads_.size(); }

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  uint64_t retired() const { return retired_; }
  uint64_t barrier_records() const { return barrier_records_; }
  // Model-visible instructions compared (retires minus barrier-result records).
  uint64_t compared() const { return retired_ - barrier_records_; }
  // Cycle/time CSR reads whose RTL value the model took over.
  uint64_t cycle_reads() const { return cycle_reads_; }

 private:
  struct PendingWrite {
    uint32_t lane;
    uint8_t reg;
    uint64_t pc;  // the barrier instruction
    uint64_t value;
  };
  bool fail(const std::string& message);
  // The instruction word at pc; 0 (no instruction: all-zero is illegal)
  // where the model's memory has none.
  uint32_t instruction_at(uint64_t pc) const;
  bool is_cycle_read(uint64_t pc) const;
  bool is_pair_atomic(uint64_t pc) const;
  bool is_load_or_store(uint64_t pc) const;
  // The f rd of the kx.tex at pc, or -1 when pc holds no kx.tex.
  int tex_rd(uint64_t pc) const;
  bool match_tex_record(const RtlRetire& rtl);
  // Steps the model for one RTL record and compares; `wide_values`: an RV32
  // pair atomic's 64-bit destination values (the oracle's), else null.
  bool step_and_compare(const RtlRetire& rtl, const std::vector<uint64_t>* wide_values);
  std::string describe(const RtlRetire& rtl) const;
  bool match_barrier_record(const RtlRetire& rtl);
  // One record whose older memory instructions the model has executed:
  // compare() it and count it if it completes a memory instruction.
  bool replay(const RtlRetire& rtl);
  bool compare(const RtlRetire& rtl);
  bool raced_load(const model::Retire& m, const model::RegWrite& w, uint64_t rtl_value,
                  const std::string& where);
  uint32_t slot_of(uint32_t sm, uint32_t block_index, uint32_t warp) const;

  model::Gpu& gpu_;
  model::LaunchDesc desc_;
  unsigned xlen_;
  unsigned lanes_;
  std::map<uint64_t, std::vector<uint32_t>> placements_;   // key: sm << 32 | block index
  std::map<uint64_t, std::vector<PendingWrite>> pending_;  // key: sm << 32 | warp slot
  std::map<uint64_t, RtlRetire> pair_low_;                 // a pair atomic's first record, same key
  // A kx.tex's records still owed after its first: the model's writes of
  // f first_reg.. (rd+1..rd+3), the next one due being f next_reg; same key.
  struct OwedTex {
    uint64_t pc = 0;
    uint32_t mask = 0;
    uint8_t first_reg = 0;
    uint8_t next_reg = 0;
    std::vector<uint32_t> written;  // per register: the lanes the model wrote
    std::vector<uint64_t> values;   // per register, lane by lane
  };
  std::map<uint64_t, OwedTex> tex_owed_;
  // Per warp (same key): the memory instructions the model has executed, mod
  // 16, and the records that retired ahead of an older memory instruction,
  // in retire order.
  struct WarpOrder {
    uint8_t mem_done = 0;
    std::deque<RtlRetire> held;
  };
  std::map<uint64_t, WarpOrder> order_;
  // A plain load whose value the RTL read differently from the model (GPU
  // lock-step): accepted only if, at the end, it is a value of a followed
  // word's chain; `message` is the mismatch reported otherwise.
  struct RacedLoad {
    uint64_t addr;
    unsigned bytes;
    uint64_t value;
    std::string message;
  };
  bool follow_atomics_;
  std::vector<RacedLoad> raced_loads_;
  model::AtomicOracle oracle_;
  AtomicChains chains_;
  bool model_faulted_ = false;
  uint64_t retired_ = 0;
  uint64_t barrier_records_ = 0;
  uint64_t cycle_reads_ = 0;
  std::string error_;
};

// Device DRAM after a launch without fault, the model's against the
// hardware's `size` bytes at KESTREL_GLOBAL_BASE: the first byte that
// differs, as a readable sentence, or "" when none does.  Host copies reach
// both sides, so only the pages the launch could have written are compared:
// those the hardware wrote (`pages_written`, one byte per page, nonzero where
// it wrote) and those the model could write (mapped writable).
// `pages_written` null compares every page.
std::string dram_difference(const model::Gpu& model, const uint8_t* hardware, size_t size,
                            const uint8_t* pages_written);

}  // namespace kestrel::lockstep
