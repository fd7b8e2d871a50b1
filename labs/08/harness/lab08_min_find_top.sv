// lab08_min_find_top: kestrel_min_find (rtl/prim/kestrel_min_find.sv) of N
// 32-bit PCs between the shell's registers, for nextpnr's Fmax.
module lab08_min_find_top #(
  parameter int unsigned N = 8
) (
  input  logic clk_i,
  input  logic din_i,
  input  logic load_i,
  output logic dout_o
);
  localparam int unsigned InW = N * 32 + N;
  localparam int unsigned OutW = 33;
  logic [InW-1:0] unit_in;
  logic [OutW-1:0] unit_out;

  lab08_shell #(.InW(InW), .OutW(OutW)) u_shell (
    .clk_i, .din_i, .load_i, .dout_o, .unit_in_o(unit_in), .unit_out_i(unit_out)
  );
  kestrel_min_find #(.N(N), .Width(32)) u_unit (
    .values_i(unit_in[N*32-1:0]),
    .valid_i (unit_in[N*32 +: N]),
    .valid_o (unit_out[32]),
    .min_o   (unit_out[31:0])
  );
endmodule
