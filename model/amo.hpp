// The arithmetic of Kestrel's atomics (docs/isa.md sections 1 and 2.2): the
// value an atomic of funct5 `op` leaves in memory, given the old value, its
// operand and a CAS's compare value.  One definition for the functional
// model and for the RTL benches' reference memories (tests/rtl/amo_ref.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "decode.hpp"
#include "fpu.hpp"
#include "kestrel/abi.h"

namespace kestrel::model {

// A's AMOs (add, swap, xor, or, and, min, max, minu, maxu), custom-1's CAS,
// inc and dec (CUDA's wrap rules), and float add (words only: the model's
// fadd in round-to-nearest-even, no flags).  T is uint32_t or uint64_t.
template <class T>
T amo_result(unsigned op, T old, T operand, T compare = 0) {
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
    case KESTREL_F5_AMO_CAS:
      return old == compare ? operand : old;
    case KESTREL_F5_AMO_INC:  // atomicInc (B.12.1.6)
      return old >= operand ? 0 : static_cast<T>(old + 1);
    case KESTREL_F5_AMO_DEC:  // atomicDec (B.12.1.7)
      return (old == 0 || old > operand) ? operand : static_cast<T>(old - 1);
    case KESTREL_F5_AMO_FADD: {
      uint32_t flags = 0;  // the memory-side adder keeps no flags
      return static_cast<T>(
          fp::add(static_cast<uint32_t>(old), static_cast<uint32_t>(operand), fp::kRne, flags));
    }
    default:
      return old;
  }
}

// Whether the atomic writes memory: all but a CAS whose comparison failed.
template <class T>
bool amo_writes(unsigned op, T old, T compare) {
  return op != KESTREL_F5_AMO_CAS || old == compare;
}

}  // namespace kestrel::model
