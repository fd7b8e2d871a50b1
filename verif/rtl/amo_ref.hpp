// C++ reference of an atomic read-modify-write (kestrel_amo_alu): the value
// an AMO of funct5 `op` leaves in memory, for the benches of the LSU's
// shared-memory banks, the memory-side atomic unit and the SM harness's
// memory (docs/isa.md sections 1 and 2.2).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace kestrel::rtlbench {

enum AmoOp : unsigned {
  kAmoAdd = 0x00,
  kAmoSwap = 0x01,
  kAmoXor = 0x04,
  kAmoInc = 0x06,
  kAmoDec = 0x07,
  kAmoOr = 0x08,
  kAmoAnd = 0x0C,
  kAmoMin = 0x10,
  kAmoMax = 0x14,
  kAmoMinu = 0x18,
  kAmoMaxu = 0x1C,
};

template <class T>
T amo_apply(unsigned op, T old, T operand) {
  using S = std::make_signed_t<T>;
  switch (op) {
    case kAmoAdd:
      return static_cast<T>(old + operand);
    case kAmoSwap:
      return operand;
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
    default:
      return old;
  }
}

// Performs one atomic on a 64-byte line: the word is the bytes `be` marks
// (4 or 8 of them, naturally aligned), the operand sits at the same place in
// `wdata`.
inline void amo_on_line(unsigned op, const uint8_t be[8], const uint8_t* wdata, uint8_t* line) {
  unsigned first = 64, count = 0;
  for (unsigned b = 0; b < 64; ++b) {
    if ((be[b / 8] >> (b % 8)) & 1) {
      if (first == 64) first = b;
      ++count;
    }
  }
  if (first == 64) return;
  if (count == 8) {
    uint64_t old, operand;
    std::memcpy(&old, line + first, 8);
    std::memcpy(&operand, wdata + first, 8);
    const uint64_t next = amo_apply<uint64_t>(op, old, operand);
    std::memcpy(line + first, &next, 8);
  } else {
    uint32_t old, operand;
    std::memcpy(&old, line + first, 4);
    std::memcpy(&operand, wdata + first, 4);
    const uint32_t next = amo_apply<uint32_t>(op, old, operand);
    std::memcpy(line + first, &next, 4);
  }
}

}  // namespace kestrel::rtlbench
