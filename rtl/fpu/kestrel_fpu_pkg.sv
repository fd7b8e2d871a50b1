// kestrel_fpu_pkg: operations and payload types of the Kestrel floating-point
// units (docs/fpu.md): the pipelined lane (kestrel_fpu_lane), the iterative
// divide/square-root unit (kestrel_fpu_divsqrt) and the special-function unit
// (kestrel_sfu).  Kept apart from kestrel_pkg so that the FP units build and
// lint on their own; the SM qualifies these names (kestrel_fpu_pkg::foo) like
// kestrel_pkg's.
//
// Values travel as IEEE-754 binary32 bit patterns.  Integer operands and
// results are 64 bits wide in every configuration: an Xlen=32 unit reads the
// low half and sign-extends what it writes, so the types do not depend on Xlen.
/* verilator lint_off UNUSEDPARAM */
package kestrel_fpu_pkg;

  // What the benches drive and read too: the rounding modes (round_mode_e),
  // the units' operations (fpu_op_e, divsqrt_op_e, sfu_op_e, fp_unit_e) and
  // their payloads (fpu_req_t, fpu_rsp_t, divsqrt_req_t, sfu_req_t).
  // Generated from tools/contract/contract.toml, as are their C++ layouts in
  // rtl/include/kestrel_contract.hpp (docs/contract.md).
`include "kestrel_fpu_contract.svh"

  // fflags bit positions (RISC-V fcsr.fflags).
  localparam int unsigned FlagNX = 0;  // inexact
  localparam int unsigned FlagUF = 1;  // underflow
  localparam int unsigned FlagOF = 2;  // overflow
  localparam int unsigned FlagDZ = 3;  // divide by zero
  localparam int unsigned FlagNV = 4;  // invalid

  localparam logic [31:0] CanonicalNan = 32'h7FC0_0000;

  // The F extension's CSRs, per thread (docs/isa.md section 3).
  localparam logic [11:0] CsrFflags = 12'h001;
  localparam logic [11:0] CsrFrm = 12'h002;
  localparam logic [11:0] CsrFcsr = 12'h003;

endpackage
/* verilator lint_on UNUSEDPARAM */
