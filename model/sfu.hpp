// The special-function unit's operations (kx.sfu, docs/isa.md section 2,
// docs/fpu.md): CUDA's fast approximations of 1/x, 1/sqrt(x), 2^x, log2(x),
// sin(x) and cos(x).  The same fixed-point algorithm as rtl/fpu/kestrel_sfu.sv
// (table + quadratic interpolation, same coefficient table), so the model
// and the RTL agree bit for bit and lock-step can compare them.  The
// operations round to nearest even, keep subnormal results, and raise no
// fflags.
#pragma once

#include <cstdint>

namespace kestrel::model::sfu {

// kx.sfu funct7 values (abi.h KESTREL_F7_SFU_*).
enum Function : unsigned { kRcp = 0, kRsqrt = 1, kEx2 = 2, kLg2 = 3, kSin = 4, kCos = 5, kFunctionCount = 6 };

// The result bits of `function` on the float with bits `a`; `function` must be
// below kFunctionCount.
uint32_t evaluate(unsigned function, uint32_t a);

}  // namespace kestrel::model::sfu
