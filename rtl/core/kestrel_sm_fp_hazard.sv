// kestrel_sm_fp_hazard: the f-scoreboard check of one warp's next
// instruction (kestrel_sm_issue has one per warp): the instruction reads or
// writes an f register that a lane-pipeline operation in flight will write
// (f rs1 when read, rs2 for the two-operand operations, rs3 for the fused
// ones, f rd).  Also passes on the instruction's F unit.
//
// Combinational; no handshake.  (Its own module so that the F fields are
// read from a struct port: Yosys 0.23 has no struct-typed signals inside
// generate blocks or loops.)
module kestrel_sm_fp_hazard (
  input  kestrel_pkg::fp_dec_t fp_i,
  input  logic [31:0]          fpend_i,   // f registers the warp's lane ops will write
  output logic                 hazard_o,
  output logic [1:0]           unit_o     // kestrel_fpu_pkg::fp_unit_e
);
  assign hazard_o = (fp_i.rs1_re && fpend_i[fp_i.rs1])
                 || (fp_i.fpu_op <= kestrel_fpu_pkg::FpuLe && fpend_i[fp_i.rs2])
                 || (fp_i.fpu_op >= kestrel_fpu_pkg::FpuMadd && fp_i.fpu_op <= kestrel_fpu_pkg::FpuNmadd
                     && fpend_i[fp_i.rs3])
                 || (fp_i.rd_we && fpend_i[fp_i.rd]);
  assign unit_o = fp_i.unit;

  // Lint sink: the fields the check does not look at.
  logic unused_fields;
  assign unused_fields = fp_i.load ^ fp_i.store ^ fp_i.divsqrt_op ^ (^fp_i.sfu_op) ^ (^fp_i.rm);
endmodule
