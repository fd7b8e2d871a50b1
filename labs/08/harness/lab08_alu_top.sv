// lab08_alu_top: kestrel_alu (rtl/core/kestrel_alu.sv) between the shell's
// registers, for nextpnr's Fmax.  Inputs: op, word, a, b, branch op.
module lab08_alu_top #(
  parameter int unsigned Xlen = 64
) (
  input  logic clk_i,
  input  logic din_i,
  input  logic load_i,
  output logic dout_o
);
  // The widths of kestrel_pkg::alu_op_e and branch_op_e (rtl/include/kestrel_contract.svh).
  localparam int unsigned OpW = 4;
  localparam int unsigned BrW = 3;
  localparam int unsigned InW = OpW + 1 + 2 * Xlen + BrW;
  localparam int unsigned OutW = Xlen + 1;
  logic [InW-1:0] unit_in;
  logic [OutW-1:0] unit_out;

  lab08_shell #(.InW(InW), .OutW(OutW)) u_shell (
    .clk_i, .din_i, .load_i, .dout_o, .unit_in_o(unit_in), .unit_out_i(unit_out)
  );
  kestrel_alu #(.Xlen(Xlen)) u_unit (
    .op_i       (unit_in[OpW-1:0]),
    .word_i     (unit_in[OpW]),
    .a_i        (unit_in[OpW+1 +: Xlen]),
    .b_i        (unit_in[OpW+1+Xlen +: Xlen]),
    .branch_op_i(unit_in[OpW+1+2*Xlen +: BrW]),
    .result_o   (unit_out[Xlen-1:0]),
    .taken_o    (unit_out[Xlen])
  );
endmodule
