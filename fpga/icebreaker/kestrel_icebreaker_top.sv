// kestrel_icebreaker_top: the iCEBreaker (iCE40UP5K) pin-level top: the PLL
// (12 MHz to the GPU clock), a reset from power-up, the PLL lock and the user
// button, the board top (kestrel_board: host bridge, GPU, device memory in the
// four SPRAMs behind the bridge/GPU arbiter) on the FT2232H's UART, and the
// LEDs (green: out of reset, red: a launch running).
// The GPU preset comes in as parameters (fpga/Makefile sets them).
module kestrel_icebreaker_top #(
  parameter int unsigned Xlen = 32,
  parameter int unsigned Lanes = 1,
  parameter int unsigned Warps = 2,
  parameter int unsigned NumSms = 1,
  parameter int unsigned SharedBytes = 256,
  parameter int unsigned MemBytes = 128 * 1024,
  parameter int unsigned ICacheLines = 2,
  // No texture unit: its filter alone is some ten UP5Ks (docs/fpga.md).
  parameter int unsigned TexUnit = 0,
  parameter int unsigned MemOutstanding = 4,
  parameter int unsigned FpuStages = 3,
  parameter int unsigned SfuLanes = (Lanes < 4) ? Lanes : 4,
  parameter int unsigned ClkHz = 24_000_000,
  // the host link's bit rate: the fpga backend's default (3 MBd, the
  // FT2232H's fastest UART rate; docs/host-protocol.md), 8 cycles a bit at 24 MHz
  parameter int unsigned BaudRate = 3_000_000
) (
  input  logic clk_12m_i,
  input  logic btn_ni,
  input  logic uart_rx_i,
  output logic uart_tx_o,
  output logic led_red_no,
  output logic led_green_no
);
  logic clk, locked;
  kestrel_ice40_pll u_pll (
    .pad_clk_i(clk_12m_i),
    .clk_o(clk),
    .locked_o(locked)
  );

  // Reset: held for 2^8 cycles after the PLL locks and while the button is down.
  logic [8:0] por_q;
  logic [1:0] btn_q;
  logic rst_n;
  always_ff @(posedge clk) begin
    btn_q <= {btn_q[0], btn_ni};
    if (!locked || !btn_q[1]) por_q <= '0;
    else if (!por_q[8]) por_q <= por_q + 1'b1;
  end
  assign rst_n = por_q[8];

  logic running;
  kestrel_board #(
    .Xlen(Xlen),
    .Lanes(Lanes),
    .Warps(Warps),
    .NumSms(NumSms),
    .SharedBytes(SharedBytes),
    .ICacheLines(ICacheLines),
    .TexUnit(TexUnit),
    .FpuStages(FpuStages),
    .SfuLanes(SfuLanes),
    .MemOutstanding(MemOutstanding),
    .MemBytes(MemBytes),
    .MemKind(kestrel_board_pkg::MemSinglePort),
    .ClkHz(ClkHz),
    .BaudRate(BaudRate)
  ) u_board (
    .clk_i(clk),
    .rst_ni(rst_n),
    .uart_rx_i,
    .uart_tx_o,
    .led_o(running)
  );

  assign led_green_no = !rst_n;
  assign led_red_no = !running;
endmodule
