// kestrel_board_stub: stand-in for kestrel_board (rtl/board, the board top with
// the UART packet bridge) in the bitstream flow, with the same ports and
// parameters.  kestrel_board's memory is a two-port block-RAM line memory;
// on the UP5K device memory must be the single-port SPRAM, which needs an
// arbiter between the bridge's and the GPU's ports that is not written yet
// (docs/fpga.md, "The board top in the bitstream flow").
//
// It is NOT a host link: its host port is a bare shift register that shifts
// uart_rx_i in every cycle and presents a register request whenever its top
// bit is set, and uart_tx_o is the parity of the last register read.  It
// exists only so that synthesis keeps every part of the GPU (all of it
// reaches the register read data or the memory), and it gives the same
// utilization figures as the real board top less the bridge's few hundred LUTs.
// Device memory is kestrel_spram_mem (the UP5K's SPRAM).
module kestrel_board_stub #(
  parameter int unsigned Xlen = 32,
  parameter int unsigned Lanes = 2,
  parameter int unsigned Warps = 2,
  parameter int unsigned NumSms = 1,
  parameter int unsigned SharedBytes = 256,
  parameter int unsigned MemBytes = 128 * 1024,
  parameter int unsigned ICacheLines = 2,
  parameter int unsigned MemOutstanding = 4,
  parameter int unsigned FpuStages = 3,
  parameter int unsigned ClkHz = 24_000_000,
  parameter int unsigned BaudRate = 115_200,
  localparam int unsigned ReqW = 1 + 45  // valid + kestrel_pkg::reg_req_t
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic uart_rx_i,
  output logic uart_tx_o
);
  logic [ReqW-1:0] shift_q;
  logic req_ready, rsp_valid;
  logic [31:0] rsp_rdata;
  logic tx_q;

  logic mem_req_valid, mem_req_ready, mem_rsp_valid, mem_rsp_ready;
  kestrel_pkg::mem_req_t mem_req;
  kestrel_pkg::mem_rsp_t mem_rsp;
  logic unused;
  // The lock-step taps and the memory's host port are not used on the board.
  localparam int unsigned SmW = (NumSms > 1) ? $clog2(NumSms) : 1;
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1;
  logic tap_irq, tap_running, tap_disp_valid;
  logic [SmW-1:0] tap_disp_sm;
  logic [63:0] tap_disp_linear;
  logic [Warps-1:0] tap_disp_slots;
  logic [NumSms-1:0] tap_retire_valid, tap_retire_rd_we, tap_retire_rd_fp;
  logic [NumSms*WarpW-1:0] tap_retire_warp;
  logic [NumSms*64-1:0] tap_retire_pc;
  logic [NumSms*Lanes-1:0] tap_retire_mask;
  logic [NumSms*5-1:0] tap_retire_rd;
  logic [NumSms*Lanes*Xlen-1:0] tap_retire_rd_data;
  logic [63:0] h_rdata;
  logic mem_idle;

  kestrel_gpu #(
    .Xlen(Xlen),
    .Lanes(Lanes),
    .Warps(Warps),
    .NumSms(NumSms),
    .SharedBytes(SharedBytes),
    .MemBytes(MemBytes),
    .ClockKhz(ClkHz / 1000),
    .MemOutstanding(MemOutstanding),
    .ICacheLines(ICacheLines),
    .FpuStages(FpuStages),
    .L2Sets(0)
  ) u_gpu (
    .clk_i,
    .rst_ni,
    .dram_kb_i(32'(MemBytes / 1024)),
    .reg_req_valid_i(shift_q[ReqW-1]),
    .reg_req_ready_o(req_ready),
    .reg_req_i(shift_q[ReqW-2:0]),
    .reg_rsp_valid_o(rsp_valid),
    .reg_rsp_ready_i(1'b1),
    .reg_rsp_rdata_o(rsp_rdata),
    .mem_req_valid_o(mem_req_valid),
    .mem_req_ready_i(mem_req_ready),
    .mem_req_o(mem_req),
    .mem_rsp_valid_i(mem_rsp_valid),
    .mem_rsp_ready_o(mem_rsp_ready),
    .mem_rsp_i(mem_rsp),
    .irq_o(tap_irq),
    .running_o(tap_running),
    .disp_valid_o(tap_disp_valid),
    .disp_sm_o(tap_disp_sm),
    .disp_linear_o(tap_disp_linear),
    .disp_slots_o(tap_disp_slots),
    .retire_valid_o(tap_retire_valid),
    .retire_warp_o(tap_retire_warp),
    .retire_pc_o(tap_retire_pc),
    .retire_mask_o(tap_retire_mask),
    .retire_rd_we_o(tap_retire_rd_we),
    .retire_rd_fp_o(tap_retire_rd_fp),
    .retire_rd_o(tap_retire_rd),
    .retire_rd_data_o(tap_retire_rd_data)
  );

  kestrel_spram_mem #(.Bytes(MemBytes)) u_mem (
    .clk_i,
    .rst_ni,
    .mem_req_valid_i(mem_req_valid),
    .mem_req_ready_o(mem_req_ready),
    .mem_req_i(mem_req),
    .mem_rsp_valid_o(mem_rsp_valid),
    .mem_rsp_ready_i(mem_rsp_ready),
    .mem_rsp_o(mem_rsp),
    .h_valid_i(1'b0),
    .h_write_i(1'b0),
    .h_addr_i('0),
    .h_wdata_i('0),
    .h_be_i('0),
    .h_rdata_o(h_rdata),
    .idle_o(mem_idle)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      shift_q <= '0;
      tx_q <= 1'b1;
    end else begin
      // A request leaves the register when taken; bits keep shifting in.
      if (shift_q[ReqW-1] && req_ready) shift_q <= {1'b0, shift_q[ReqW-3:0], uart_rx_i};
      else if (!shift_q[ReqW-1]) shift_q <= {shift_q[ReqW-2:0], uart_rx_i};
      if (rsp_valid) tx_q <= ^rsp_rdata;
    end
  end
  assign uart_tx_o = tx_q;
  assign unused = ^{BaudRate, tap_irq, tap_running, tap_disp_valid, tap_disp_sm, tap_disp_linear,
                    tap_disp_slots, tap_retire_valid, tap_retire_rd_we, tap_retire_rd_fp, tap_retire_warp,
                    tap_retire_pc, tap_retire_mask, tap_retire_rd, tap_retire_rd_data, h_rdata, mem_idle};
endmodule
