// kestrel_board_mem_1p: the board's device memory on one single-port RAM,
// with kestrel_board_mem's ports, for FPGAs whose large RAM has one port
// (the iCE40 UP5K's SPRAM):
// * the GPU's line port (kestrel_pkg::mem_req_t/mem_rsp_t) and the host
//   bridge's word port (kestrel_board_pkg::bmem_req_t, made a line request
//   with the word's four byte enables; the word's index rides in the tag and
//   picks the word out of the response line) share the RAM through
//   kestrel_req_arb: round robin, each port's responses in its order;
// * the RAM is kestrel_spram_mem: MemBytes as 64-bit words, a line in eight
//   beats, one request at a time (about ten cycles a line).
// Unlike kestrel_board_mem, an address outside the memory wraps instead of
// faulting: the GPU's page table and the bridge (both given MemBytes) never
// let one through.  Valid/ready on every port, responses in order.
`include "kestrel_assert.svh"

module kestrel_board_mem_1p #(
  parameter int unsigned MemBytes = 128 * 1024
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // the GPU's line port
  input  logic                          gpu_req_valid_i,
  output logic                          gpu_req_ready_o,
  input  kestrel_pkg::mem_req_t         gpu_req_i,
  output logic                          gpu_rsp_valid_o,
  input  logic                          gpu_rsp_ready_i,
  output kestrel_pkg::mem_rsp_t         gpu_rsp_o,
  // the host bridge's word port
  input  logic                          host_req_valid_i,
  output logic                          host_req_ready_o,
  input  kestrel_board_pkg::bmem_req_t  host_req_i,
  output logic                          host_rsp_valid_o,
  input  logic                          host_rsp_ready_i,
  output logic [31:0]                   host_rsp_rdata_o
);
  // $bits of mem_req_t and mem_rsp_t, spelled out for Yosys 0.23 (as
  // kestrel_gpu's; checked below in simulation)
  localparam int unsigned ReqW = 95 + 2 + 1 + kestrel_pkg::AddrW + kestrel_pkg::LineBytes
                                 + kestrel_pkg::LineBits + kestrel_pkg::MemTagW;
  localparam int unsigned RspW = kestrel_pkg::LineBits + 4 + kestrel_pkg::MemTagW;
`ifndef SYNTHESIS
  if (ReqW != $bits(kestrel_pkg::mem_req_t) || RspW != $bits(kestrel_pkg::mem_rsp_t)) begin : gen_width_check
    $error("kestrel_board_mem_1p: ReqW/RspW must equal the $bits of mem_req_t/mem_rsp_t");
  end
`endif
  localparam int unsigned WordIdxW = kestrel_pkg::LineOffW - 2;

  // The bridge's word as a line request.
  kestrel_pkg::mem_req_t host_line_req;
  logic [WordIdxW-1:0] host_word;
  assign host_word = host_req_i.addr[kestrel_pkg::LineOffW-1:2];
  always_comb begin
    host_line_req = '0;
    host_line_req.kind = host_req_i.write ? kestrel_pkg::MemWrite : kestrel_pkg::MemRead;
    host_line_req.write = host_req_i.write;
    host_line_req.addr = {host_req_i.addr[31:kestrel_pkg::LineOffW], kestrel_pkg::LineOffW'(0)};
    if (host_req_i.write) host_line_req.be[4*host_word +: 4] = 4'hF;
    host_line_req.wdata[32*host_word +: 32] = host_req_i.wdata;
    host_line_req.tag = 8'(host_word);
  end
  logic [1:0] unused_host_addr;
  assign unused_host_addr = host_req_i.addr[1:0];

  // Requester 0 the GPU, 1 the bridge.
  logic [1:0] arb_req_valid, arb_req_ready, arb_rsp_valid, arb_rsp_ready;
  logic mem_req_valid, mem_req_ready, mem_rsp_valid, mem_rsp_ready;
  kestrel_pkg::mem_req_t mem_req;
  kestrel_pkg::mem_rsp_t mem_rsp, rsp;

  assign arb_req_valid = {host_req_valid_i, gpu_req_valid_i};
  assign gpu_req_ready_o = arb_req_ready[0];
  assign host_req_ready_o = arb_req_ready[1];
  assign arb_rsp_ready = {host_rsp_ready_i, gpu_rsp_ready_i};

  kestrel_req_arb #(
    .N(2),
    .ReqW(ReqW),
    .RspW(RspW),
    .Outstanding(2)
  ) u_arb (
    .clk_i,
    .rst_ni,
    .req_valid_i(arb_req_valid),
    .req_ready_o(arb_req_ready),
    .req_i({host_line_req, gpu_req_i}),
    .rsp_valid_o(arb_rsp_valid),
    .rsp_ready_i(arb_rsp_ready),
    .rsp_o(rsp),
    .mem_req_valid_o(mem_req_valid),
    .mem_req_ready_i(mem_req_ready),
    .mem_req_o(mem_req),
    .mem_rsp_valid_i(mem_rsp_valid),
    .mem_rsp_ready_o(mem_rsp_ready),
    .mem_rsp_i(mem_rsp)
  );

  kestrel_spram_mem #(.Bytes(MemBytes)) u_ram (
    .clk_i,
    .rst_ni,
    .mem_req_valid_i(mem_req_valid),
    .mem_req_ready_o(mem_req_ready),
    .mem_req_i(mem_req),
    .mem_rsp_valid_o(mem_rsp_valid),
    .mem_rsp_ready_i(mem_rsp_ready),
    .mem_rsp_o(mem_rsp)
  );

  assign gpu_rsp_valid_o = arb_rsp_valid[0];
  assign gpu_rsp_o = rsp;
  assign host_rsp_valid_o = arb_rsp_valid[1];
  assign host_rsp_rdata_o = rsp.rdata[32*rsp.tag[WordIdxW-1:0] +: 32];

  `KESTREL_STATIC_ASSERT(whole_words, MemBytes % 8 == 0 && (MemBytes & (MemBytes - 1)) == 0)
endmodule
