// Reservations, the A extension's AMOs, LR and SC, and the CUDA atomics
// (docs/isa.md sections 2.2 and 4; machine.hpp).  Loads, stores and address
// translation are inline in machine.hpp for the hot loop.
#include "machine.hpp"

namespace kestrel::model::interp {

// Any store ends every reservation on the bytes it writes.
template <class X>
void Machine<X>::store_done(const uint8_t* host, uint32_t bytes) {
  if (reservations_.empty()) return;
  reservations_.erase(
      std::remove_if(reservations_.begin(), reservations_.end(),
                     [&](const Reservation& r) { return r.host < host + bytes && host < r.host + r.bytes; }),
      reservations_.end());
}

template <class X>
void Machine<X>::drop_reservations(uint32_t sm_id, uint32_t slot, uint32_t mask) {
  if (reservations_.empty()) return;
  reservations_.erase(std::remove_if(reservations_.begin(), reservations_.end(),
                                     [&](const Reservation& r) {
                                       return (r.thread >> 8) == ((uint64_t{sm_id} << 32) | slot) &&
                                              ((mask >> (r.thread & 0xFF)) & 1) != 0;
                                     }),
                      reservations_.end());
}

// GPU lock-step: the RTL's value of lane l for a global atomic at p, if the
// oracle has one.
template <class X>
bool Machine<X>::oracle_value(uint32_t l, X addr, const uint8_t* p, uint64_t& value) {
  if (oracle_ == nullptr || ((oracle_->lanes >> l) & 1u) == 0 || !is_global(addr, p)) return false;
  value = oracle_->values[l];
  return true;
}

template <class X>
void Machine<X>::report_atomic(GlobalAccess::Kind kind, uint32_t l, X addr, uint8_t bytes, bool observed,
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

// AMOs, LR and SC; T is uint32_t (.w) or uint64_t (.d).  Lanes go one after
// another in lane order, each seeing the previous lane's result.
template <class X>
template <class T>
bool Machine<X>::exec_atomic(uint32_t sm_id, uint32_t slot, Warp& w, Block& b, const Inst& in, uint64_t pc,
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

// A 64-bit value on RV32 lives in an even/odd pair (low word in the even
// register); x0 as a pair reads zero and discards writes, as in Zacas.
template <class X>
uint64_t Machine<X>::read_pair(Warp& w, unsigned reg, uint32_t lane) {
  if (reg == 0 || reg == kSinkReg) return 0;
  return uint64_t{static_cast<uint32_t>(xrow(w, reg)[lane])} |
         uint64_t{static_cast<uint32_t>(xrow(w, reg + 1)[lane])} << 32;
}

template <class X>
void Machine<X>::write_pair(Warp& w, unsigned reg, uint32_t lane, uint64_t value) {
  if (reg == kSinkReg) return;
  xrow(w, reg)[lane] = static_cast<X>(static_cast<uint32_t>(value));
  xrow(w, reg + 1)[lane] = static_cast<X>(static_cast<uint32_t>(value >> 32));
}

// A 64-bit operand: one register on RV64, a pair on RV32.  `reg` is the
// decoded field, so the CAS compare value of rd = x0 (the sink) reads zero.
template <class X>
uint64_t Machine<X>::read_wide(Warp& w, unsigned reg, uint32_t lane) {
  if constexpr (kXlen == 64) {
    return reg == kSinkReg ? 0 : static_cast<uint64_t>(xrow(w, reg)[lane]);
  } else {
    return read_pair(w, reg, lane);
  }
}

template <class X>
void Machine<X>::write_wide(Warp& w, unsigned reg, uint32_t lane, uint64_t value) {
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
template <class X>
template <class T>
bool Machine<X>::exec_cuda_atomic(uint32_t sm_id, Warp& w, Block& b, const Inst& in, uint64_t pc,
                                  uint32_t mask) {
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

// The register widths make_engine builds.
template void Machine<uint32_t>::store_done(const uint8_t* host, uint32_t bytes);
template void Machine<uint32_t>::drop_reservations(uint32_t sm_id, uint32_t slot, uint32_t mask);
template bool Machine<uint32_t>::oracle_value(uint32_t l, uint32_t addr, const uint8_t* p, uint64_t& value);
template void Machine<uint32_t>::report_atomic(GlobalAccess::Kind kind, uint32_t l, uint32_t addr,
                                               uint8_t bytes, bool observed, bool order_free, bool writes,
                                               uint64_t prior, uint64_t old, uint64_t value);
template uint64_t Machine<uint32_t>::read_pair(Warp& w, unsigned reg, uint32_t lane);
template void Machine<uint32_t>::write_pair(Warp& w, unsigned reg, uint32_t lane, uint64_t value);
template uint64_t Machine<uint32_t>::read_wide(Warp& w, unsigned reg, uint32_t lane);
template void Machine<uint32_t>::write_wide(Warp& w, unsigned reg, uint32_t lane, uint64_t value);
template void Machine<uint64_t>::store_done(const uint8_t* host, uint32_t bytes);
template void Machine<uint64_t>::drop_reservations(uint32_t sm_id, uint32_t slot, uint32_t mask);
template bool Machine<uint64_t>::oracle_value(uint32_t l, uint64_t addr, const uint8_t* p, uint64_t& value);
template void Machine<uint64_t>::report_atomic(GlobalAccess::Kind kind, uint32_t l, uint64_t addr,
                                               uint8_t bytes, bool observed, bool order_free, bool writes,
                                               uint64_t prior, uint64_t old, uint64_t value);
template uint64_t Machine<uint64_t>::read_pair(Warp& w, unsigned reg, uint32_t lane);
template void Machine<uint64_t>::write_pair(Warp& w, unsigned reg, uint32_t lane, uint64_t value);
template uint64_t Machine<uint64_t>::read_wide(Warp& w, unsigned reg, uint32_t lane);
template void Machine<uint64_t>::write_wide(Warp& w, unsigned reg, uint32_t lane, uint64_t value);
template bool Machine<uint32_t>::exec_atomic<uint32_t>(uint32_t, uint32_t, Warp&, Block&, const Inst&,
                                                       uint64_t, uint32_t);
template bool Machine<uint32_t>::exec_atomic<uint64_t>(uint32_t, uint32_t, Warp&, Block&, const Inst&,
                                                       uint64_t, uint32_t);
template bool Machine<uint32_t>::exec_cuda_atomic<uint32_t>(uint32_t, Warp&, Block&, const Inst&, uint64_t,
                                                            uint32_t);
template bool Machine<uint32_t>::exec_cuda_atomic<uint64_t>(uint32_t, Warp&, Block&, const Inst&, uint64_t,
                                                            uint32_t);
template bool Machine<uint64_t>::exec_atomic<uint32_t>(uint32_t, uint32_t, Warp&, Block&, const Inst&,
                                                       uint64_t, uint32_t);
template bool Machine<uint64_t>::exec_atomic<uint64_t>(uint32_t, uint32_t, Warp&, Block&, const Inst&,
                                                       uint64_t, uint32_t);
template bool Machine<uint64_t>::exec_cuda_atomic<uint32_t>(uint32_t, Warp&, Block&, const Inst&, uint64_t,
                                                            uint32_t);
template bool Machine<uint64_t>::exec_cuda_atomic<uint64_t>(uint32_t, Warp&, Block&, const Inst&, uint64_t,
                                                            uint32_t);

}  // namespace kestrel::model::interp
