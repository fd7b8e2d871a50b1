// kestrel_board_mem: the board's device memory, MemBytes from
// kestrel_pkg::GlobalBase, one line (kestrel_pkg::LineBytes) wide, shared by
// two ports:
// * the GPU's external DRAM port (kestrel_pkg::mem_req_t/mem_rsp_t, line
//   requests with byte enables, answered in order with the request's tag;
//   a line outside the memory is answered with FaultIllegalAddress and not
//   written);
// * the host bridge's word port (kestrel_board_pkg::bmem_req_t, one 32-bit
//   word, answered with the word; the bridge checks ranges beforehand, a
//   word outside the memory reads 0 and is not written).
// One access per two cycles: a request is taken when no response waits, the
// RAM is read (read-first) and written at that edge, and the response is
// the RAM's registered output.  The GPU wins when both ask (the bridge's
// copies are rare and slow: at most one word per UART byte time).  The RAM
// is a synchronous-read array with byte enables and no reset, which FPGA
// tools map to block RAM.
`include "kestrel_assert.svh"

module kestrel_board_mem #(
  parameter int unsigned MemBytes = 64 * 1024,
  localparam int unsigned LineBytes = kestrel_pkg::LineBytes,
  localparam int unsigned Lines = MemBytes / LineBytes,
  localparam int unsigned IdxW = (Lines > 1) ? $clog2(Lines) : 1
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
  `KESTREL_STATIC_ASSERT(whole_lines, MemBytes % LineBytes == 0 && Lines >= 1)

  logic [kestrel_pkg::LineBits-1:0] ram_q [Lines];
  logic [kestrel_pkg::LineBits-1:0] rdata_q;

  // The response register: valid, owner (1: the host), the GPU's tag and
  // fault, the word of the host's line.
  logic rsp_valid_q, rsp_valid_d, rsp_host_q, rsp_host_d;
  logic [7:0] rsp_tag_q, rsp_tag_d;
  logic rsp_fault_q, rsp_fault_d;
  logic [3:0] rsp_word_q, rsp_word_d;

  logic take_gpu, take_host, en;
  logic [31:0] addr, offset;
  logic in_range;
  logic [IdxW-1:0] idx;
  logic [LineBytes-1:0] be;
  logic [kestrel_pkg::LineBits-1:0] wdata;
  logic gpu_write;

  // The atomic fields (amo) are the GPU's own: kestrel_mem_atomic performs
  // atomics before the port, so the memory sees plain reads and writes.
  logic unused_amo;
  assign unused_amo = ^gpu_req_i.amo;

  assign gpu_write = gpu_req_i.kind == kestrel_pkg::MemWrite
                     || (gpu_req_i.kind == kestrel_pkg::MemLocal && gpu_req_i.write);

  always_comb begin
    take_gpu = gpu_req_valid_i && !rsp_valid_q;
    take_host = host_req_valid_i && !rsp_valid_q && !gpu_req_valid_i;
    gpu_req_ready_o = !rsp_valid_q;
    host_req_ready_o = !rsp_valid_q && !gpu_req_valid_i;
    addr = take_gpu ? gpu_req_i.addr : host_req_i.addr;
    offset = addr - kestrel_pkg::GlobalBase;
    in_range = addr >= kestrel_pkg::GlobalBase && offset < MemBytes;
    idx = IdxW'(offset / LineBytes);
    be = '0;
    wdata = '0;
    if (take_gpu) begin
      be = gpu_write ? gpu_req_i.be : '0;
      wdata = gpu_req_i.wdata;
    end else if (host_req_i.write) begin
      be[4*offset[5:2] +: 4] = 4'hF;
      wdata[32*offset[5:2] +: 32] = host_req_i.wdata;
    end
    en = (take_gpu || take_host) && in_range;
    rsp_valid_d = rsp_valid_q;
    rsp_host_d = rsp_host_q;
    rsp_tag_d = rsp_tag_q;
    rsp_fault_d = rsp_fault_q;
    rsp_word_d = rsp_word_q;
    if ((gpu_rsp_valid_o && gpu_rsp_ready_i) || (host_rsp_valid_o && host_rsp_ready_i)) rsp_valid_d = 1'b0;
    if (take_gpu || take_host) begin
      rsp_valid_d = 1'b1;
      rsp_host_d = take_host;
      rsp_tag_d = gpu_req_i.tag;
      rsp_fault_d = !in_range;
      rsp_word_d = offset[5:2];
    end
  end

  // The RAM: read-first, byte enables (no reset: block RAM).
  always_ff @(posedge clk_i) begin
    if (en) begin
      for (int unsigned b = 0; b < LineBytes; b++) begin
        if (be[b]) ram_q[idx][8*b +: 8] <= wdata[8*b +: 8];
      end
      rdata_q <= ram_q[idx];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_valid_q <= 1'b0;
      rsp_host_q <= 1'b0;
      rsp_tag_q <= '0;
      rsp_fault_q <= 1'b0;
      rsp_word_q <= '0;
    end else begin
      rsp_valid_q <= rsp_valid_d;
      rsp_host_q <= rsp_host_d;
      rsp_tag_q <= rsp_tag_d;
      rsp_fault_q <= rsp_fault_d;
      rsp_word_q <= rsp_word_d;
    end
  end

  always_comb begin
    gpu_rsp_valid_o = rsp_valid_q && !rsp_host_q;
    gpu_rsp_o.rdata = rsp_fault_q ? '0 : rdata_q;
    gpu_rsp_o.fault = rsp_fault_q ? kestrel_pkg::FaultIllegalAddress : kestrel_pkg::FaultNone;
    gpu_rsp_o.tag = rsp_tag_q;
    host_rsp_valid_o = rsp_valid_q && rsp_host_q;
    host_rsp_rdata_o = rsp_fault_q ? '0 : rdata_q[32*rsp_word_q +: 32];
  end

  `KESTREL_ASSERT_KNOWN(gpu_req_valid_known, gpu_req_valid_i)
  `KESTREL_ASSERT_KNOWN(host_req_valid_known, host_req_valid_i)
  `KESTREL_ASSERT_HANDSHAKE(gpu_rsp, gpu_rsp_valid_o, gpu_rsp_ready_i, gpu_rsp_o)
  `KESTREL_ASSERT_HANDSHAKE(host_rsp, host_rsp_valid_o, host_rsp_ready_i, host_rsp_rdata_o)
endmodule
