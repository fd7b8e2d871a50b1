#include "lockstep.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"

namespace kestrel::lockstep {
namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string fault_text(const model::Fault& f) {
  std::ostringstream s;
  s << "kind " << f.kind << " pc " << hex(f.pc) << " addr " << hex(f.addr) << " block (" << f.block.x << ","
    << f.block.y << "," << f.block.z << ") thread (" << f.thread.x << "," << f.thread.y << "," << f.thread.z
    << ") sm " << f.sm << " warp " << f.warp << " info " << hex(f.info);
  return s.str();
}

uint64_t key(uint32_t hi, uint32_t lo) { return (uint64_t{hi} << 32) | lo; }

// kx.tex writes f rd..rd+3 (docs/isa.md section 2.5).
constexpr unsigned kTexRegisters = 4;

}  // namespace

Checker::Checker(model::Gpu& gpu, const model::LaunchDesc& desc, bool follow_atomics)
    : gpu_(gpu),
      desc_(desc),
      xlen_(gpu.config().xlen),
      lanes_(gpu.config().lanes_per_warp),
      follow_atomics_(follow_atomics) {}

bool Checker::fail(const std::string& message) {
  if (error_.empty()) error_ = message;
  return false;
}

bool Checker::place_block(uint32_t block_index, uint32_t sm, const std::vector<uint32_t>& warp_slots) {
  if (!ok()) return false;
  try {
    gpu_.place_block(block_index, sm, warp_slots);
  } catch (const Error& e) {
    return fail("placing block " + std::to_string(block_index) + " on SM " + std::to_string(sm) +
                ": the model refused: " + e.what());
  }
  placements_[key(sm, block_index)] = warp_slots;
  // The RTL starts the warp's memory-instruction counts again.
  for (uint32_t slot : warp_slots) order_.erase(key(sm, slot));
  return true;
}

uint32_t Checker::instruction_at(uint64_t pc) const {
  uint32_t word = 0;
  try {
    gpu_.read_mem(pc, &word, 4);
  } catch (const Error&) {
    return 0;
  }
  return word;
}

bool Checker::is_cycle_read(uint64_t pc) const {
  const uint32_t word = instruction_at(pc);
  const uint32_t csr = word >> 20;
  const bool csr_op = (word & 0x7F) == 0x73 && ((word >> 12) & 3) != 0;
  return csr_op && (csr == 0xC00 || csr == 0xC01 || csr == 0xC80 || csr == 0xC81);
}

std::string Checker::describe(const RtlRetire& r) const {
  std::ostringstream s;
  s << "sm " << r.sm << " warp slot " << r.warp_slot << " pc " << hex(r.pc) << " mask " << hex(r.mask);
  if (r.rd_we) s << " writes x" << unsigned{r.rd};
  return s.str();
}

bool Checker::match_barrier_record(const RtlRetire& rtl) {
  auto it = pending_.find(key(rtl.sm, rtl.warp_slot));
  if (it == pending_.end() || it->second.empty() || !rtl.rd_we) return false;
  std::vector<PendingWrite>& writes = it->second;
  bool pc_known = false;
  for (const PendingWrite& w : writes) pc_known = pc_known || w.pc == rtl.pc;
  if (!pc_known) return false;
  for (uint32_t lane = 0; lane < lanes_; ++lane) {
    if (((rtl.mask >> lane) & 1) == 0) continue;
    bool found = false;
    for (auto w = writes.begin(); w != writes.end(); ++w) {
      if (w->lane == lane && w->reg == rtl.rd && w->pc == rtl.pc) {
        if (w->value != rtl.rd_data[lane]) {
          return fail("barrier result #" + std::to_string(retired_) + " (" + describe(rtl) + "): lane " +
                      std::to_string(lane) + " x" + std::to_string(rtl.rd) + " rtl " +
                      hex(rtl.rd_data[lane]) + " model " + hex(w->value)),
                 true;
        }
        writes.erase(w);
        found = true;
        break;
      }
    }
    if (!found) {
      return fail("barrier result #" + std::to_string(retired_) + " (" + describe(rtl) + "): lane " +
                  std::to_string(lane) + " has no barrier result in the model"),
             true;
    }
  }
  ++barrier_records_;
  return true;
}

bool Checker::is_pair_atomic(uint64_t pc) const {
  if (xlen_ != 32) return false;
  const uint32_t word = instruction_at(pc);
  return (word & 0x7F) == 0x2B && ((word >> 12) & 7) == 3;  // custom-1, funct3 3 (docs/isa.md section 2.2)
}

bool Checker::is_load_or_store(uint64_t pc) const {
  const uint32_t word = instruction_at(pc);
  const uint32_t opcode = word & 0x7F;
  return opcode == 0x03 || opcode == 0x07 || opcode == 0x23 ||
         opcode == 0x27;  // LOAD, LOAD-FP, STORE, STORE-FP
}

int Checker::tex_rd(uint64_t pc) const {
  const uint32_t word = instruction_at(pc);
  return (word & 0x7F) == KESTREL_OPC_TEX ? static_cast<int>((word >> 7) & 0x1F) : -1;  // custom-2
}

// The warp's next record after a kx.tex's first: f next_reg of the same
// instruction, lanes and values the model's.
bool Checker::match_tex_record(const RtlRetire& rtl) {
  auto it = tex_owed_.find(key(rtl.sm, rtl.warp_slot));
  OwedTex& owed = it->second;
  const std::string where = "retire #" + std::to_string(retired_) + " (" + describe(rtl) + "): ";
  const std::string reg = "f" + std::to_string(owed.next_reg);
  if (rtl.pc != owed.pc || !rtl.rd_we || !rtl.rd_fp || rtl.rd != owed.next_reg || rtl.mask != owed.mask) {
    return fail(where + "expected " + reg + " of the kx.tex at " + hex(owed.pc) + " (mask " + hex(owed.mask) +
                "), the warp's next record of that instruction");
  }
  const unsigned row = owed.next_reg - owed.first_reg;
  for (uint32_t lane = 0; lane < lanes_; ++lane) {
    if (((rtl.mask >> lane) & 1) == 0) continue;
    if (((owed.written[row] >> lane) & 1) == 0)
      return fail(where + "lane " + std::to_string(lane) + ": the model wrote no " + reg);
    const uint64_t model_value = owed.values[row * lanes_ + lane];
    if (model_value != rtl.rd_data[lane]) {
      return fail(where + "lane " + std::to_string(lane) + " " + reg + ": rtl " + hex(rtl.rd_data[lane]) +
                  " model " + hex(model_value));
    }
  }
  ++barrier_records_;
  if (owed.next_reg == owed.first_reg + owed.written.size() - 1)
    tex_owed_.erase(it);
  else
    ++owed.next_reg;
  return true;
}

bool Checker::retire(const RtlRetire& rtl) {
  if (!ok()) return false;
  ++retired_;
  if (model_faulted_) return true;  // retires after the model's own fault (watchdog) are not comparable
  WarpOrder& order = order_[key(rtl.sm, rtl.warp_slot)];
  if ((rtl.mem_seq & 15u) != order.mem_done) {
    order.held.push_back(rtl);
    return true;
  }
  if (!replay(rtl)) return false;
  while (!order.held.empty() && (order.held.front().mem_seq & 15u) == order.mem_done) {
    const RtlRetire next = order.held.front();
    order.held.pop_front();
    if (!replay(next)) return false;
  }
  return true;
}

bool Checker::replay(const RtlRetire& rtl) {
  const uint64_t warp_key = key(rtl.sm, rtl.warp_slot);
  if (model_faulted_) return true;
  if (!compare(rtl)) return false;
  // A memory instruction counts as executed once its last record is in (a
  // kx.tex's fourth, a pair atomic's second).
  if (rtl.lsu && tex_owed_.count(warp_key) == 0 && pair_low_.count(warp_key) == 0) {
    uint8_t& done = order_[warp_key].mem_done;
    done = static_cast<uint8_t>((done + 1) & 15u);
  }
  return true;
}

bool Checker::compare(const RtlRetire& rtl) {
  const uint64_t warp_key = key(rtl.sm, rtl.warp_slot);
  if (rtl.rd_data.size() < lanes_)
    return fail("retire record with " + std::to_string(rtl.rd_data.size()) + " lanes");
  // An RV32 register-pair atomic retires as two records of its warp: rd with
  // the low words, then rd+1 with the high words.  The model steps when both
  // are in, so that an oracle gets the 64-bit old values.
  // A kx.tex retires as four records of its warp (f rd, rd+1, rd+2, rd+3);
  // the first stepped the model.
  if (tex_owed_.count(warp_key) != 0) return match_tex_record(rtl);
  auto low = pair_low_.find(warp_key);
  if (low != pair_low_.end()) {
    const RtlRetire first = low->second;
    pair_low_.erase(low);
    if (rtl.pc != first.pc || !rtl.rd_we || rtl.rd_fp || rtl.rd != first.rd + 1 || rtl.mask != first.mask) {
      return fail("retire #" + std::to_string(retired_) + " (" + describe(rtl) +
                  "): expected the high word x" + std::to_string(first.rd + 1) + " of the pair atomic at " +
                  hex(first.pc) + " (mask " + hex(first.mask) + ")");
    }
    std::vector<uint64_t> wide(lanes_);
    for (uint32_t lane = 0; lane < lanes_; ++lane)
      wide[lane] = (first.rd_data[lane] & 0xFFFFFFFFu) | (rtl.rd_data[lane] & 0xFFFFFFFFu) << 32;
    if (!step_and_compare(first, &wide)) return false;
    if (!match_barrier_record(rtl)) {
      return fail("retire #" + std::to_string(retired_) + " (" + describe(rtl) +
                  "): the model wrote no high word for this pair atomic");
    }
    return ok();
  }
  if (match_barrier_record(rtl)) return ok();
  if (rtl.rd_we && !rtl.rd_fp && is_pair_atomic(rtl.pc)) {
    pair_low_[warp_key] = rtl;
    return true;
  }
  return step_and_compare(rtl, nullptr);
}

bool Checker::step_and_compare(const RtlRetire& rtl, const std::vector<uint64_t>* wide_values) {
  auto pend = pending_.find(key(rtl.sm, rtl.warp_slot));
  if (pend != pending_.end() && !pend->second.empty()) {
    const PendingWrite& w = pend->second.front();
    return fail("retire #" + std::to_string(retired_) + " (" + describe(rtl) +
                "): warp still owes the result of " + "the barrier at " + hex(w.pc) + " (lane " +
                std::to_string(w.lane) + " x" + std::to_string(w.reg) + ")");
  }
  if (!gpu_.warp_resident(rtl.sm, rtl.warp_slot)) {
    return fail("retire #" + std::to_string(retired_) + " (" + describe(rtl) +
                "): no such warp in the model");
  }
  model::Retire m;
  try {
    if (follow_atomics_) {
      oracle_.lanes = rtl.rd_we ? rtl.mask : 0;
      oracle_.values = wide_values != nullptr ? *wide_values : rtl.rd_data;
      m = gpu_.step(rtl.sm, rtl.warp_slot, oracle_);
      chains_.add(m.accesses);
    } else {
      m = gpu_.step(rtl.sm, rtl.warp_slot);
    }
  } catch (const Error& e) {
    return fail("retire #" + std::to_string(retired_) + " (" + describe(rtl) +
                "): model step failed: " + e.what());
  }
  const std::string where = "retire #" + std::to_string(retired_) + " (" + describe(rtl) + "): ";
  if (!m.issued) return fail(where + "the model's warp has no eligible thread");
  if (gpu_.state() == model::LaunchState::kFault) {
    // The model faulted while executing this instruction.  Only the barrier
    // watchdog does that after retiring it; anything else the RTL must have
    // reported as a fault instead of a retire.
    if (gpu_.fault().kind != KESTREL_FAULT_BARRIER_DEADLOCK) {
      return fail(where + "the model faulted on this instruction: " + fault_text(gpu_.fault()));
    }
    model_faulted_ = true;
  }
  if (m.pc != rtl.pc) return fail(where + "pc differs: model " + hex(m.pc));
  if (m.mask != rtl.mask) return fail(where + "mask differs: model " + hex(m.mask));
  const bool skip_values = is_cycle_read(rtl.pc);
  // A kx.tex's first record is f rd; the model's f rd+1..rd+3 are owed by
  // the warp's next three records.
  const int tex = tex_rd(rtl.pc);
  OwedTex owed;
  if (tex >= 0) {
    if (!rtl.rd_we || !rtl.rd_fp || rtl.rd != tex)
      return fail(where + "the first record of a kx.tex must write its f" + std::to_string(tex));
    owed.pc = rtl.pc;
    owed.mask = rtl.mask;
    owed.first_reg = owed.next_reg = static_cast<uint8_t>(tex + 1);
    owed.written.assign(kTexRegisters - 1, 0);
    owed.values.assign((kTexRegisters - 1) * lanes_, 0);
  }
  uint32_t own_lanes = 0;
  uint32_t raced_lanes = 0;  // loads that take the RTL's value (follow_atomics_)
  for (const model::RegWrite& w : m.writes) {
    const bool own = w.warp_slot == rtl.warp_slot && rtl.rd_we && w.reg == rtl.rd && w.fp == rtl.rd_fp &&
                     ((rtl.mask >> w.lane) & 1) && ((own_lanes >> w.lane) & 1) == 0;
    if (!own) {
      const unsigned row = static_cast<unsigned>(w.reg) - owed.first_reg;
      if (tex >= 0 && w.fp && w.warp_slot == rtl.warp_slot && w.reg >= owed.first_reg &&
          row < owed.written.size()) {
        owed.written[row] |= 1u << w.lane;
        owed.values[row * lanes_ + w.lane] = w.value;
        continue;
      }
      // A barrier result the RTL writes later: remember it with the PC of the
      // barrier its lane waited at (the lane now sits one instruction past it).
      if (w.fp) return fail(where + "model wrote an f register");
      bool exited = false;
      const uint64_t lane_pc = gpu_.thread_pc(rtl.sm, w.warp_slot, w.lane, &exited);
      pending_[key(rtl.sm, w.warp_slot)].push_back(PendingWrite{w.lane, w.reg, lane_pc - 4, w.value});
      continue;
    }
    own_lanes |= 1u << w.lane;
    if (!skip_values && w.value != rtl.rd_data[w.lane]) {
      if (follow_atomics_ && !w.fp && raced_load(m, w, rtl.rd_data[w.lane], where)) {
        raced_lanes |= 1u << w.lane;
        continue;
      }
      return fail(where + "lane " + std::to_string(w.lane) + (w.fp ? " f" : " x") + std::to_string(w.reg) +
                  ": rtl " + hex(rtl.rd_data[w.lane]) + " model " + hex(w.value));
    }
  }
  if (rtl.rd_we && own_lanes != rtl.mask) {
    return fail(where + "the RTL wrote " + (rtl.rd_fp ? "f" : "x") + std::to_string(rtl.rd) + " for lanes " +
                hex(rtl.mask) + ", the model for " + hex(own_lanes));
  }
  if (tex >= 0) tex_owed_[key(rtl.sm, rtl.warp_slot)] = owed;
  for (uint32_t lane = 0; lane < lanes_; ++lane) {
    if ((raced_lanes >> lane) & 1u) gpu_.set_xreg(rtl.sm, rtl.warp_slot, lane, rtl.rd, rtl.rd_data[lane]);
  }
  if (skip_values && rtl.rd_we && !rtl.rd_fp) {
    // The model continues with the RTL's cycle count, so that values computed
    // from it (clock64() differences, timed loops) agree afterwards.
    for (uint32_t lane = 0; lane < lanes_; ++lane) {
      if ((own_lanes >> lane) & 1u) gpu_.set_xreg(rtl.sm, rtl.warp_slot, lane, rtl.rd, rtl.rd_data[lane]);
    }
    ++cycle_reads_;
  }
  return true;
}

// A plain x-register load by this lane whose RTL value differs from the
// model's: kept for finish_atomics() if the RTL's register value is the
// load's correct extension of a value (of a followed word or a part of one).
bool Checker::raced_load(const model::Retire& m, const model::RegWrite& w, uint64_t rtl_value,
                         const std::string& where) {
  for (const model::GlobalAccess& a : m.accesses) {
    if (a.kind != model::GlobalAccess::kLoad || a.lane != w.lane) continue;
    const unsigned bits = 8 * a.bytes;
    const uint64_t low = bits >= 64 ? rtl_value : rtl_value & ((uint64_t{1} << bits) - 1);
    uint64_t extended = low;
    if (a.sign_extends && bits < 64 && ((low >> (bits - 1)) & 1u)) extended |= ~uint64_t{0} << bits;
    if (xlen_ < 64) extended &= (uint64_t{1} << xlen_) - 1;
    if (extended != rtl_value) return false;
    raced_loads_.push_back(RacedLoad{a.addr, a.bytes, low,
                                     where + "lane " + std::to_string(w.lane) + " x" + std::to_string(w.reg) +
                                         ": rtl " + hex(rtl_value) + " model " + hex(w.value)});
    return true;
  }
  return false;
}

uint32_t Checker::slot_of(uint32_t sm, uint32_t block_index, uint32_t warp) const {
  auto it = placements_.find(key(sm, block_index));
  if (it == placements_.end() || warp >= it->second.size()) return UINT32_MAX;
  return it->second[warp];
}

bool Checker::fault(const model::Fault& rtl) {
  if (!ok()) return false;
  // A load that took the RTL's value cannot be proven after a fault (the
  // atomics' chains are not checked then).
  if (!raced_loads_.empty()) return fail(raced_loads_.front().message);
  if (!model_faulted_) {
    const uint32_t index =
        rtl.block.x + rtl.block.y * desc_.grid.x + rtl.block.z * desc_.grid.x * desc_.grid.y;
    const uint32_t slot = slot_of(rtl.sm, index, rtl.warp);
    if (slot == UINT32_MAX) return fail("rtl fault names a warp that was never placed: " + fault_text(rtl));
    auto pend = pending_.find(key(rtl.sm, slot));
    if (pend != pending_.end() && !pend->second.empty()) {
      return fail("rtl faulted in a warp that still owes barrier results: " + fault_text(rtl));
    }
    auto owed = tex_owed_.find(key(rtl.sm, slot));
    if (owed != tex_owed_.end()) {
      return fail("rtl faulted in a warp that still owes f" + std::to_string(owed->second.next_reg) +
                  " of the kx.tex at " + hex(owed->second.pc) + ": " + fault_text(rtl));
    }
    // The faulting instruction may be younger than memory instructions still
    // in flight and records held behind them: the model executes those
    // first (uncompared; the launch ends here), then must fault.
    std::deque<RtlRetire>& held = order_[key(rtl.sm, slot)].held;
    for (;;) {
      model::Retire m;
      try {
        m = gpu_.step(rtl.sm, slot);
      } catch (const Error& e) {
        return fail(std::string("stepping the faulting warp: ") + e.what());
      }
      if (gpu_.state() == model::LaunchState::kFault) break;
      const bool held_record = m.issued && !held.empty() && held.front().pc == m.pc;
      if (held_record) {
        held.pop_front();
      } else if (!m.issued || !is_load_or_store(m.pc)) {
        return fail("rtl fault " + fault_text(rtl) + " but the model executed that instruction without one");
      }
    }
  }
  const model::Fault& m = gpu_.fault();
  const bool same = m.kind == rtl.kind && m.pc == rtl.pc && m.addr == rtl.addr && m.block.x == rtl.block.x &&
                    m.block.y == rtl.block.y && m.block.z == rtl.block.z && m.thread.x == rtl.thread.x &&
                    m.thread.y == rtl.thread.y && m.thread.z == rtl.thread.z && m.sm == rtl.sm &&
                    m.warp == rtl.warp && m.info == rtl.info;
  if (!same) return fail("fault differs:\n  rtl   " + fault_text(rtl) + "\n  model " + fault_text(m));
  return true;
}

bool Checker::finish() {
  if (!ok()) return false;
  for (const auto& [k, order] : order_) {
    if (order.held.empty()) continue;
    const RtlRetire& r = order.held.front();
    return fail("warp slot " + std::to_string(k & 0xFFFFFFFF) + " retired " + describe(r) + " after " +
                std::to_string(r.mem_seq) + " of its memory instructions, but only " +
                std::to_string(order.mem_done) + " (mod 16) completed");
  }
  for (const auto& [k, first] : pair_low_) {
    return fail("warp slot " + std::to_string(k & 0xFFFFFFFF) + " never wrote the high word x" +
                std::to_string(first.rd + 1) + " of its pair atomic at " + hex(first.pc));
  }
  for (const auto& [k, owed] : tex_owed_) {
    return fail("warp slot " + std::to_string(k & 0xFFFFFFFF) + " never retired f" +
                std::to_string(owed.next_reg) + " of its kx.tex at " + hex(owed.pc));
  }
  for (const auto& [k, writes] : pending_) {
    if (!writes.empty()) {
      return fail("warp slot " + std::to_string(k & 0xFFFFFFFF) + " never wrote its barrier result x" +
                  std::to_string(writes.front().reg) + " (barrier at " + hex(writes.front().pc) + ")");
    }
  }
  if (gpu_.state() != model::LaunchState::kDone) {
    return fail(gpu_.state() == model::LaunchState::kFault
                    ? "the model faulted: " + fault_text(gpu_.fault())
                    : std::string("the model's launch has not finished"));
  }
  return true;
}

bool Checker::finish_atomics(const std::function<uint64_t(uint64_t addr, unsigned bytes)>& rtl_value,
                             bool faulted) {
  if (!ok() || !follow_atomics_) return ok();
  if (faulted && !raced_loads_.empty()) return fail(raced_loads_.front().message);
  for (const RacedLoad& load : raced_loads_) {
    if (!chains_.observe(load.addr, load.bytes, load.value)) {
      return fail(load.message +
                  " (a load whose value differs from the model's, of a word no global atomic "
                  "with an RTL value works on)");
    }
  }
  if (!faulted && !chains_.check(rtl_value)) return fail(chains_.error());
  for (const auto& [addr, bytes] : chains_.followed_words()) {
    const uint64_t value = rtl_value(addr, bytes);
    gpu_.write_mem(addr, &value, bytes);  // little-endian host: the low bytes
  }
  return true;
}

std::string dram_difference(const model::Gpu& model, const uint8_t* hardware, size_t size,
                            const uint8_t* pages_written) {
  // The rest of DRAM (256 MiB by default, most of it never touched) is
  // neither read nor compared: reading it costs a page fault per page on
  // each side.
  const size_t pages = (size + KESTREL_PAGE_SIZE - 1) / KESTREL_PAGE_SIZE;
  std::vector<uint8_t> model_bytes(KESTREL_PAGE_SIZE);
  for (size_t page = 0; page < pages; ++page) {
    const uint64_t at = uint64_t{page} * KESTREL_PAGE_SIZE;
    const bool hardware_wrote = pages_written == nullptr || pages_written[page] != 0;
    if (!hardware_wrote && (model.page_perms(KESTREL_GLOBAL_BASE + at) & KESTREL_PAGE_WRITE) == 0) continue;
    const size_t n = std::min<size_t>(KESTREL_PAGE_SIZE, size - at);
    model.read_mem(KESTREL_GLOBAL_BASE + at, model_bytes.data(), n);
    if (std::memcmp(model_bytes.data(), hardware + at, n) == 0) continue;
    size_t i = 0;
    while (model_bytes[i] == hardware[at + i]) ++i;
    return "device DRAM differs at " + hex(KESTREL_GLOBAL_BASE + at + i) + ": rtl " + hex(hardware[at + i]) +
           " model " + hex(model_bytes[i]);
  }
  return "";
}

}  // namespace kestrel::lockstep
