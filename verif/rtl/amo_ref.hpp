// C++ reference of an atomic read-modify-write (kestrel_amo_alu): the value
// an AMO of funct5 `op` leaves in memory, for the benches of the LSU's
// shared-memory banks, the memory-side atomic unit and the SM harness's
// memory (docs/isa.md sections 1 and 2.2).  A CAS (op 0x05) leaves the
// operand if the old value equals `compare`, else the old value, and a failed
// CAS writes nothing (amo_writes).  A float add (op 0x09, words only) is the
// functional model's fadd in round-to-nearest-even, flags dropped (the
// benches that include this link kestrel::model and see verif/model).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <type_traits>

#include "fpu.hpp"

namespace kestrel::rtlbench {

enum AmoOp : unsigned {
  kAmoAdd = 0x00,
  kAmoSwap = 0x01,
  kAmoLr = 0x02,
  kAmoSc = 0x03,
  kAmoXor = 0x04,
  kAmoCas = 0x05,
  kAmoInc = 0x06,
  kAmoDec = 0x07,
  kAmoOr = 0x08,
  kAmoFadd = 0x09,
  kAmoAnd = 0x0C,
  kAmoMin = 0x10,
  kAmoMax = 0x14,
  kAmoMinu = 0x18,
  kAmoMaxu = 0x1C,
};

template <class T>
bool amo_writes(unsigned op, T old, T compare) {
  return op != kAmoCas || old == compare;
}

template <class T>
T amo_apply(unsigned op, T old, T operand, T compare = 0) {
  using S = std::make_signed_t<T>;
  switch (op) {
    case kAmoAdd:
      return static_cast<T>(old + operand);
    case kAmoSwap:
      return operand;
    case kAmoCas:
      return old == compare ? operand : old;
    case kAmoXor:
      return old ^ operand;
    case kAmoOr:
      return old | operand;
    case kAmoAnd:
      return old & operand;
    case kAmoMin:
      return static_cast<S>(old) < static_cast<S>(operand) ? old : operand;
    case kAmoMax:
      return static_cast<S>(old) > static_cast<S>(operand) ? old : operand;
    case kAmoMinu:
      return old < operand ? old : operand;
    case kAmoMaxu:
      return old > operand ? old : operand;
    case kAmoInc:  // CUDA's atomicInc (32-bit only)
      return old >= operand ? 0 : static_cast<T>(old + 1);
    case kAmoDec:  // CUDA's atomicDec
      return (old == 0 || old > operand) ? operand : static_cast<T>(old - 1);
    case kAmoFadd: {  // kx.amofadd.s (32-bit only)
      uint32_t flags = 0;
      return static_cast<T>(
          model::fp::add(static_cast<uint32_t>(old), static_cast<uint32_t>(operand), model::fp::kRne, flags));
    }
    default:
      return old;
  }
}

// Performs one atomic on a 64-byte line: the word is the bytes `be` marks
// (4 or 8 of them, naturally aligned), the operand sits at the same place in
// `wdata`; `compare` is a CAS's compare value (its low half for a word).
// Returns whether the atomic wrote (false only for a failed CAS).
inline bool amo_on_line(unsigned op, const uint8_t be[8], const uint8_t* wdata, uint8_t* line,
                        uint64_t compare = 0) {
  unsigned first = 64, count = 0;
  for (unsigned b = 0; b < 64; ++b) {
    if ((be[b / 8] >> (b % 8)) & 1) {
      if (first == 64) first = b;
      ++count;
    }
  }
  if (first == 64) return false;
  if (count == 8) {
    uint64_t old, operand;
    std::memcpy(&old, line + first, 8);
    std::memcpy(&operand, wdata + first, 8);
    const uint64_t next = amo_apply<uint64_t>(op, old, operand, compare);
    std::memcpy(line + first, &next, 8);
    return amo_writes<uint64_t>(op, old, compare);
  }
  {
    uint32_t old, operand;
    std::memcpy(&old, line + first, 4);
    std::memcpy(&operand, wdata + first, 4);
    const uint32_t next = amo_apply<uint32_t>(op, old, operand, static_cast<uint32_t>(compare));
    std::memcpy(line + first, &next, 4);
    return amo_writes<uint32_t>(op, old, static_cast<uint32_t>(compare));
  }
}

// LR/SC reservations as kestrel_mem_atomic keeps them: one per thread, on the
// bytes (a naturally aligned word or doubleword) an LR's byte enables mark in
// a line; every write ends the reservations on bytes it writes; an SC
// succeeds only with `held` and its thread's reservation on exactly its bytes,
// and always ends that reservation (docs/isa.md section 1).
class LineReservations {
 public:
  static uint64_t mask_of(const uint8_t be[8]) {
    uint64_t m = 0;
    for (unsigned b = 0; b < 8; ++b) m |= uint64_t{be[b]} << (8 * b);
    return m;
  }
  void clear() { res_.clear(); }
  void lr(uint32_t thread, uint32_t line, const uint8_t be[8]) { res_[thread] = Entry{line, mask_of(be)}; }
  bool sc(uint32_t thread, bool held, uint32_t line, const uint8_t be[8]) {
    auto it = res_.find(thread);
    const bool ok = held && it != res_.end() && it->second.line == line && it->second.mask == mask_of(be);
    if (it != res_.end()) res_.erase(it);
    return ok;
  }
  void write(uint32_t line, const uint8_t be[8]) {
    const uint64_t m = mask_of(be);
    for (auto it = res_.begin(); it != res_.end();) {
      if (it->second.line == line && (it->second.mask & m) != 0)
        it = res_.erase(it);
      else
        ++it;
    }
  }

 private:
  struct Entry {
    uint32_t line;
    uint64_t mask;
  };
  std::map<uint32_t, Entry> res_;
};

}  // namespace kestrel::rtlbench
