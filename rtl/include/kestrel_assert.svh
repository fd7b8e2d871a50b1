// kestrel_assert.svh: assertion macros for Kestrel RTL (one line per property).
//
// `include "kestrel_assert.svh" at the top of a unit (outside the module; the
// include path is rtl/include: Verilator -I, Yosys read_verilog -I).  Every
// macro is a concurrent assertion sampled at the rising edge of `clk_i` and
// disabled while `rst_ni` is low, so a unit needs those two ports (the _CLK
// forms name another clock and reset).  Each takes a unique label `name`
// (a plain identifier; the handshake macros add suffixes to it) that appears
// in the failure message.
//
// Active where the simulator is given `--assert` (Verilator: every bench and
// the rtlsim models, see rtl/KestrelRtl.cmake; a failure stops the
// simulation with "Verilog $stop", which fails the test).  Empty under
// SYNTHESIS, which Yosys defines by default and rtl_synth.sh passes too, so
// synthesis never sees them.
//
//   `KESTREL_ASSERT(name, prop)              prop holds every cycle out of reset
//                                            (prop may use |-> and |=>)
//   `KESTREL_ASSERT_KNOWN(name, sig)         sig is never X/Z out of reset
//   `KESTREL_ASSERT_KNOWN_IF(name, sig, en)  sig is known whenever en is
//   `KESTREL_ASSERT_ONEHOT0(name, sig)       at most one bit of sig is set
//   `KESTREL_ASSERT_HANDSHAKE(name, valid, ready, payload)
//                                            the valid/ready rule of AXI: valid is
//                                            known; once valid is up without ready,
//                                            valid stays up and payload stays
//                                            stable into the next cycle
//   `KESTREL_ASSERT_HANDSHAKE_IF(name, valid, ready, payload, keep)
//                                            the same while keep holds: a
//                                            producer may withdraw when keep is
//                                            low in either cycle (a flush)
//   `KESTREL_ASSERT_NEVER(name, cond)        cond never holds out of reset
//   `KESTREL_ASSERT_CLK(name, prop, clk, rst_n)   KESTREL_ASSERT on another clock/reset
//   `KESTREL_STATIC_ASSERT(name, cond)       elaboration-time check of parameters
//
// A two-state simulator such as Verilator never sees X ($isunknown is
// always 0), so the KNOWN forms check nothing there; they document the rule
// and catch X in a four-state simulator.
`ifndef KESTREL_ASSERT_SVH
`define KESTREL_ASSERT_SVH

`ifndef SYNTHESIS

// (Verilator counts the reset in `disable iff` as a synchronous use of a
// net the unit's flops reset asynchronously, SYNCASYNCNET: waived here.)
`define KESTREL_ASSERT_CLK(__name, __prop, __clk, __rst_n) \
  /* verilator lint_off SYNCASYNCNET */ \
  __name: assert property (@(posedge __clk) disable iff (!(__rst_n)) (__prop)) \
    else $error("assertion %s failed", `"__name`"); \
  /* verilator lint_on SYNCASYNCNET */

`define KESTREL_ASSERT(__name, __prop) \
  `KESTREL_ASSERT_CLK(__name, __prop, clk_i, rst_ni)

`define KESTREL_ASSERT_NEVER(__name, __cond) \
  `KESTREL_ASSERT(__name, !(__cond))

`define KESTREL_ASSERT_KNOWN(__name, __sig) \
  `KESTREL_ASSERT(__name, !$isunknown(__sig))

`define KESTREL_ASSERT_KNOWN_IF(__name, __sig, __en) \
  `KESTREL_ASSERT(__name, (__en) |-> !$isunknown(__sig))

`define KESTREL_ASSERT_ONEHOT0(__name, __sig) \
  `KESTREL_ASSERT(__name, $onehot0(__sig))

`define KESTREL_ASSERT_HANDSHAKE_IF(__name, __valid, __ready, __payload, __keep) \
  `KESTREL_ASSERT_KNOWN(__name``_valid_known, __valid) \
  `KESTREL_ASSERT(__name``_valid_held, (__valid) && !(__ready) && (__keep) |=> !(__keep) || (__valid)) \
  `KESTREL_ASSERT(__name``_payload_stable, \
                  (__valid) && !(__ready) && (__keep) |=> !(__keep) || $stable(__payload))

`define KESTREL_ASSERT_HANDSHAKE(__name, __valid, __ready, __payload) \
  `KESTREL_ASSERT_HANDSHAKE_IF(__name, __valid, __ready, __payload, 1'b1)

`define KESTREL_STATIC_ASSERT(__name, __cond) \
  if (!(__cond)) begin : __name \
    $error("static assertion %s failed", `"__name`"); \
  end

`else  // SYNTHESIS

`define KESTREL_ASSERT_CLK(__name, __prop, __clk, __rst_n)
`define KESTREL_ASSERT(__name, __prop)
`define KESTREL_ASSERT_NEVER(__name, __cond)
`define KESTREL_ASSERT_KNOWN(__name, __sig)
`define KESTREL_ASSERT_KNOWN_IF(__name, __sig, __en)
`define KESTREL_ASSERT_ONEHOT0(__name, __sig)
`define KESTREL_ASSERT_HANDSHAKE_IF(__name, __valid, __ready, __payload, __keep)
`define KESTREL_ASSERT_HANDSHAKE(__name, __valid, __ready, __payload)
`define KESTREL_STATIC_ASSERT(__name, __cond)

`endif  // SYNTHESIS

`endif  // KESTREL_ASSERT_SVH
