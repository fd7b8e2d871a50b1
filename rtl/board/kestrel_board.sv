// kestrel_board: the board top.  The host bridge (kestrel_host_bridge: the
// UART link of docs/host-protocol.md), the GPU (kestrel_gpu, with the
// geometry parameters of the board's preset) and the board memory (MemBytes
// of device memory shared by the GPU's DRAM port and the bridge), and
// nothing else.  led_o shows a launch running.  MemKind picks the memory
// (kestrel_board_pkg): MemSinglePort, kestrel_board_mem_1p (one single-port
// RAM behind an arbiter: the iCE40 UP5K's SPRAM; what the bitstream flow and
// the fpga-sim backend build), or MemTwoPort, kestrel_board_mem (a two-port
// block-RAM line memory).
`include "kestrel_assert.svh"

module kestrel_board #(
  // kestrel_gpu's geometry (docs/configuration.md)
  parameter int unsigned Xlen = 32,
  parameter int unsigned Lanes = 4,
  parameter int unsigned Warps = 4,
  parameter int unsigned NumSms = 1,
  parameter int unsigned SharedBytes = 64 * 1024,
  parameter int unsigned SchedPolicy = 0,
  parameter int unsigned ICacheLines = 16,
  parameter int unsigned TexUnit = 1,      // kestrel_gpu's: 0 leaves the texture units out
  parameter int unsigned FpuStages = 3,
  parameter int unsigned SfuLanes = (Lanes < 4) ? Lanes : 4,
  parameter int unsigned MemOutstanding = 16,
  // One load or store in flight per warp and 16 LSU lines: the smallest LSU
  // (kestrel_gpu's MemInFlight, LsuLines), as the board's memory is near.
  parameter int unsigned MemInFlight = 1,
  parameter int unsigned LsuLines = 16,
  // no L2 on a board: its memory is on-chip RAM as fast as an L2 would be
  parameter int unsigned L2Sets = 0,
  // nor constant or L1 data caches, for the same reason (and their area)
  parameter int unsigned ConstCacheSets = 0,
  parameter int unsigned L1Sets = 0,
  // device memory and the link
  parameter int unsigned MemBytes = 64 * 1024,
  parameter int unsigned MemKind = kestrel_board_pkg::MemSinglePort,
  parameter int unsigned ClkHz = 12_000_000,
  parameter int unsigned BaudRate = 3_000_000,
  parameter int unsigned MaxWords = 64
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic uart_rx_i,
  output logic uart_tx_o,
  output logic led_o
);
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1;
  localparam int unsigned SmW = (NumSms > 1) ? $clog2(NumSms) : 1;

  logic reg_req_valid, reg_req_ready, reg_rsp_valid, reg_rsp_ready;
  kestrel_pkg::reg_req_t reg_req;
  logic [31:0] reg_rsp_rdata;
  logic host_req_valid, host_req_ready, host_rsp_valid, host_rsp_ready;
  kestrel_board_pkg::bmem_req_t host_req;
  logic [31:0] host_rsp_rdata;
  logic gpu_req_valid, gpu_req_ready, gpu_rsp_valid, gpu_rsp_ready;
  kestrel_pkg::mem_req_t gpu_req;
  kestrel_pkg::mem_rsp_t gpu_rsp;

  kestrel_host_bridge #(
    .ClkHz(ClkHz),
    .BaudRate(BaudRate),
    .MemBytes(MemBytes),
    .MaxWords(MaxWords)
  ) u_bridge (
    .clk_i,
    .rst_ni,
    .uart_rx_i,
    .uart_tx_o,
    .reg_req_valid_o(reg_req_valid),
    .reg_req_ready_i(reg_req_ready),
    .reg_req_o(reg_req),
    .reg_rsp_valid_i(reg_rsp_valid),
    .reg_rsp_ready_o(reg_rsp_ready),
    .reg_rsp_rdata_i(reg_rsp_rdata),
    .mem_req_valid_o(host_req_valid),
    .mem_req_ready_i(host_req_ready),
    .mem_req_o(host_req),
    .mem_rsp_valid_i(host_rsp_valid),
    .mem_rsp_ready_o(host_rsp_ready),
    .mem_rsp_rdata_i(host_rsp_rdata)
  );

  // The lock-step taps have no use on the board.
  /* verilator lint_off PINCONNECTEMPTY */
  kestrel_gpu #(
    .Xlen(Xlen),
    .Lanes(Lanes),
    .Warps(Warps),
    .NumSms(NumSms),
    .SharedBytes(SharedBytes),
    .MemBytes(MemBytes),
    .ClockKhz(ClkHz / 1000),
    .MemOutstanding(MemOutstanding),
    .SchedPolicy(SchedPolicy),
    .ICacheLines(ICacheLines),
    .TexUnit(TexUnit),
    .FpuStages(FpuStages),
    .SfuLanes(SfuLanes),
    .MemInFlight(MemInFlight),
    .LsuLines(LsuLines),
    .L2Sets(L2Sets),
    .ConstCacheSets(ConstCacheSets),
    .L1Sets(L1Sets)
  ) u_gpu (
    .clk_i,
    .rst_ni,
    .dram_kb_i(32'(MemBytes / 1024)),
    .mem_changed_i(1'b0),  // no L2 or SM caches on the board
    .reg_req_valid_i(reg_req_valid),
    .reg_req_ready_o(reg_req_ready),
    .reg_req_i(reg_req),
    .reg_rsp_valid_o(reg_rsp_valid),
    .reg_rsp_ready_i(reg_rsp_ready),
    .reg_rsp_rdata_o(reg_rsp_rdata),
    .mem_req_valid_o(gpu_req_valid),
    .mem_req_ready_i(gpu_req_ready),
    .mem_req_o(gpu_req),
    .mem_rsp_valid_i(gpu_rsp_valid),
    .mem_rsp_ready_o(gpu_rsp_ready),
    .mem_rsp_i(gpu_rsp),
    .irq_o(),
    .running_o(led_o),
    .disp_valid_o(),
    .disp_sm_o(),
    .disp_linear_o(),
    .disp_slots_o(),
    .retire_valid_o(),
    .retire_warp_o(),
    .retire_pc_o(),
    .retire_mask_o(),
    .retire_rd_we_o(),
    .retire_rd_fp_o(),
    .retire_rd_o(),
    .retire_rd_data_o(),
    .retire_lsu_o(),
    .retire_mem_seq_o()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  if (MemKind == kestrel_board_pkg::MemTwoPort) begin : gen_mem_two_port
    kestrel_board_mem #(.MemBytes(MemBytes)) u_mem (
      .clk_i,
      .rst_ni,
      .gpu_req_valid_i(gpu_req_valid),
      .gpu_req_ready_o(gpu_req_ready),
      .gpu_req_i(gpu_req),
      .gpu_rsp_valid_o(gpu_rsp_valid),
      .gpu_rsp_ready_i(gpu_rsp_ready),
      .gpu_rsp_o(gpu_rsp),
      .host_req_valid_i(host_req_valid),
      .host_req_ready_o(host_req_ready),
      .host_req_i(host_req),
      .host_rsp_valid_o(host_rsp_valid),
      .host_rsp_ready_i(host_rsp_ready),
      .host_rsp_rdata_o(host_rsp_rdata)
    );
  end else begin : gen_mem_single_port
    kestrel_board_mem_1p #(.MemBytes(MemBytes)) u_mem (
      .clk_i,
      .rst_ni,
      .gpu_req_valid_i(gpu_req_valid),
      .gpu_req_ready_o(gpu_req_ready),
      .gpu_req_i(gpu_req),
      .gpu_rsp_valid_o(gpu_rsp_valid),
      .gpu_rsp_ready_i(gpu_rsp_ready),
      .gpu_rsp_o(gpu_rsp),
      .host_req_valid_i(host_req_valid),
      .host_req_ready_o(host_req_ready),
      .host_req_i(host_req),
      .host_rsp_valid_o(host_rsp_valid),
      .host_rsp_ready_i(host_rsp_ready),
      .host_rsp_rdata_o(host_rsp_rdata)
    );
  end
  `KESTREL_STATIC_ASSERT(known_mem_kind,
                         MemKind == kestrel_board_pkg::MemTwoPort || MemKind == kestrel_board_pkg::MemSinglePort)

  logic unused;
  assign unused = ^{WarpW, SmW};
endmodule
