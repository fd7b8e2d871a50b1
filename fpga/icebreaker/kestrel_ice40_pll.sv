// kestrel_ice40_pll: the iCEBreaker's 12 MHz oscillator (pin 35, a PLL pad)
// to the GPU clock through the UP5K's PLL.  Default divider: 12 MHz x 64 / 2^5
// = 24 MHz (icepll -i 12 -o 24: DIVR 0, DIVF 63, DIVQ 5, filter range 1).
// Outside synthesis (Verilator lint, simulation) the input passes through.
module kestrel_ice40_pll #(
  parameter logic [3:0] DivR = 4'd0,
  parameter logic [6:0] DivF = 7'd63,
  parameter logic [2:0] DivQ = 3'd5,
  parameter logic [2:0] FilterRange = 3'd1
) (
  input  logic pad_clk_i,
  output logic clk_o,
  output logic locked_o
);
`ifdef SYNTHESIS
  SB_PLL40_PAD #(
    .FEEDBACK_PATH("SIMPLE"),
    .DIVR(DivR),
    .DIVF(DivF),
    .DIVQ(DivQ),
    .FILTER_RANGE(FilterRange)
  ) u_pll (
    .PACKAGEPIN(pad_clk_i),
    .PLLOUTCORE(),
    .PLLOUTGLOBAL(clk_o),
    .EXTFEEDBACK(1'b0),
    .DYNAMICDELAY(8'd0),
    .LOCK(locked_o),
    .BYPASS(1'b0),
    .RESETB(1'b1),
    .LATCHINPUTVALUE(1'b0),
    .SDO(),
    .SDI(1'b0),
    .SCLK(1'b0)
  );
`else
  logic unused_div;
  assign unused_div = ^{DivR, DivF, DivQ, FilterRange};
  assign clk_o = pad_clk_i;
  assign locked_o = 1'b1;
`endif
endmodule
