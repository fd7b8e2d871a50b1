// The interpreter's hot loop: a warp issues up to a slice of instructions,
// each executed for its active lanes by one switch (machine.hpp).
#include "machine.hpp"

namespace kestrel::model::interp {

// Issues up to `limit` warp-instructions of one warp.  With `rec` (lock-step)
// it also records the issue and its register writes.
template <class X>
void Machine<X>::run_warp(uint32_t sm_id, uint32_t slot, uint32_t limit, Retire* rec) {
  Sm& sm = sms_[sm_id];
  Warp& w = sm.warps[slot];
  Block& blk = sm.blocks[w.block];
  const uint64_t budget = desc_.cycle_budget;
  for (uint32_t issued = 0; issued < limit;) {
    uint32_t gi, mask;
    uint64_t pc;
    if (w.sleeping != 0) wake_sleepers(w, sm.cycles);
    if (!select(w, gi, pc, mask)) return;
    const uint32_t lowest = static_cast<uint32_t>(__builtin_ctz(mask));
    if (budget != 0 && sm.cycles >= budget) {
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
    ++sm.warp_instrs;
    const auto threads = static_cast<uint64_t>(popcount(mask));
    sm.thread_instrs += threads;
    ++counters_[KESTREL_CNT_WARP_INSTRS];
    counters_[KESTREL_CNT_THREAD_INSTRS] += threads;
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

template <class X>
void Machine<X>::record_writes(uint32_t slot, Warp& w, const Inst& in, uint32_t mask, Retire* rec) {
  if (in.op == Op::kBarrier) return;  // written when the barrier releases
  if (writes_freg(in.op)) {
    // kx.tex writes f rd..rd+3: register by register, lanes ascending.
    const unsigned count = in.op == Op::kTex ? kTexResults : 1;
    for (unsigned i = 0; i < count; ++i) {
      const uint8_t reg = static_cast<uint8_t>(in.rd + i);
      const uint32_t* row = frow(w, reg);
      for_each_lane(mask, [&](uint32_t l) { rec->writes.push_back(RegWrite{slot, l, true, reg, row[l]}); });
    }
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
template <class X>
bool Machine<X>::execute(uint32_t sm_id, uint32_t slot, Warp& w, Block& blk, const Inst& in, uint32_t gi,
                         uint64_t pc, uint32_t mask, Retire* rec) {
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
    const uint32_t lead = static_cast<uint32_t>(__builtin_ctz(mask));
    if (((taken >> lead) & 1u) != 0 && target <= pc) note_backward_branch(w, pc, mask, s1[lead], s2[lead]);
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
    case Op::kTex:
      if (!exec_tex(sm_id, w, in, pc, mask)) return false;
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

// The register widths make_engine builds.
template void Machine<uint32_t>::run_warp(uint32_t sm_id, uint32_t slot, uint32_t limit, Retire* rec);
template void Machine<uint32_t>::record_writes(uint32_t slot, Warp& w, const Inst& in, uint32_t mask,
                                               Retire* rec);
template bool Machine<uint32_t>::execute(uint32_t sm_id, uint32_t slot, Warp& w, Block& blk, const Inst& in,
                                         uint32_t gi, uint64_t pc, uint32_t mask, Retire* rec);
template void Machine<uint64_t>::run_warp(uint32_t sm_id, uint32_t slot, uint32_t limit, Retire* rec);
template void Machine<uint64_t>::record_writes(uint32_t slot, Warp& w, const Inst& in, uint32_t mask,
                                               Retire* rec);
template bool Machine<uint64_t>::execute(uint32_t sm_id, uint32_t slot, Warp& w, Block& blk, const Inst& in,
                                         uint32_t gi, uint64_t pc, uint32_t mask, Retire* rec);

}  // namespace kestrel::model::interp
