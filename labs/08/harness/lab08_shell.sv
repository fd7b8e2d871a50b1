// lab08_shell: registers around a unit under test, so that nextpnr can time
// it (README.md, "Fmax: a combinational unit between two registers").  The
// unit's InW input bits come from a shift register fed by one pin (`din_i`,
// one bit a cycle); its OutW output bits are captured by a register that
// shifts out on one pin (`dout_o`) when `load_i` is low.  Every path through
// the unit therefore starts and ends at a flip-flop of one clock, and the
// design needs four pins, whatever the unit's width.
module lab08_shell #(
  parameter int unsigned InW = 8,
  parameter int unsigned OutW = 8
) (
  input  logic            clk_i,
  input  logic            din_i,
  input  logic            load_i,
  output logic            dout_o,
  output logic [InW-1:0]  unit_in_o,   // to the unit's inputs
  input  logic [OutW-1:0] unit_out_i   // from the unit's outputs
);
  logic [InW-1:0] in_q;
  logic [OutW-1:0] out_q;

  always_ff @(posedge clk_i) begin
    in_q <= {in_q[InW-2:0], din_i};
    out_q <= load_i ? unit_out_i : {out_q[OutW-2:0], 1'b0};
  end
  assign unit_in_o = in_q;
  assign dout_o = out_q[OutW-1];
endmodule
