// Single-precision arithmetic with RISC-V F semantics on the host FPU: rounding
// modes through <cfenv>, exception flags read back per operation, canonical
// NaN results, and the RISC-V rules the host does not share (fmin/fmax NaN
// handling, saturating float-to-int conversion, round-to-nearest-max-magnitude
// which x86 lacks).  Values travel as bit patterns so that no host operation
// touches them outside the guarded regions.
#pragma once

#include <cstdint>

namespace kestrel::model::fp {

// fflags bits.
constexpr uint32_t kInexact = 1, kUnderflow = 2, kOverflow = 4, kDivByZero = 8, kInvalid = 16;
constexpr uint32_t kCanonicalNan = 0x7FC00000u;

// Resolved rounding modes (the rm field; 7 = dynamic is resolved by the caller).
enum Rounding : unsigned { kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4 };

uint32_t add(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags);
uint32_t sub(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags);
uint32_t mul(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags);
uint32_t div(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags);
uint32_t sqrt(uint32_t a, unsigned rm, uint32_t& flags);
// a * b + c with one rounding; the four R4 forms negate the product and/or c.
uint32_t fma(uint32_t a, uint32_t b, uint32_t c, bool negate_product, bool negate_addend, unsigned rm,
             uint32_t& flags);

uint32_t min(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t max(uint32_t a, uint32_t b, uint32_t& flags);
bool eq(uint32_t a, uint32_t b, uint32_t& flags);
bool lt(uint32_t a, uint32_t b, uint32_t& flags);
bool le(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t classify(uint32_t a);

// float -> integer of `bits` (32 or 64) with RISC-V saturation: NaN and
// too-large values give the maximum, too-small ones the minimum, with the
// invalid flag.  The result is the integer's bit pattern, sign-extended from
// `bits` (so fcvt.wu.s on RV64 gives the sign-extended 32-bit value).
uint64_t to_int(uint32_t a, unsigned bits, bool is_signed, unsigned rm, uint32_t& flags);
// integer -> float; `value` holds the integer zero- or sign-extended to 64 bits.
uint32_t from_int(uint64_t value, bool is_signed, unsigned rm, uint32_t& flags);

inline bool is_nan(uint32_t a) { return (a & 0x7FFFFFFFu) > 0x7F800000u; }
inline bool is_signaling_nan(uint32_t a) { return is_nan(a) && (a & 0x00400000u) == 0; }

}  // namespace kestrel::model::fp
