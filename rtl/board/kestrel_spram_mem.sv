// kestrel_spram_mem: a single-port line memory (kestrel_pkg::mem_req_t /
// mem_rsp_t): Bytes of RAM as 64-bit words, written so that Yosys'
// synth_ice40 -spram maps it to the UP5K's four SB_SPRAM256KA (16 K x 16 bits
// each: 128 KiB as 16 K x 64), and Verilator simulates the same array.  A line
// (LineBytes = 64) moves in eight beats of one word, starting when the
// request is offered (its payload must stay stable until taken: the AXI rule);
// requests are answered in order, one at a time, with the tag echoed, nine
// cycles or more apart.  Addresses beyond Bytes wrap (the GPU's page table
// and the host bridge, both with MemBytes = Bytes, never let one through), so
// no response faults.  The request is taken (mem_req_ready_o) when its last
// beat is done, so its write data need not be copied; a read's line is
// gathered in a register and offered as the response.  On the board it sits
// behind kestrel_req_arb, which shares it between the GPU and the host bridge
// (kestrel_board_mem_1p).
`include "kestrel_assert.svh"

module kestrel_spram_mem #(
  parameter int unsigned Bytes = 128 * 1024,
  localparam int unsigned Words = Bytes / 8,
  localparam int unsigned WordAw = $clog2(Words)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // line port (the requester: kestrel_gpu, or kestrel_req_arb)
  input  logic                  mem_req_valid_i,
  output logic                  mem_req_ready_o,
  input  kestrel_pkg::mem_req_t mem_req_i,
  output logic                  mem_rsp_valid_o,
  input  logic                  mem_rsp_ready_i,
  output kestrel_pkg::mem_rsp_t mem_rsp_o
);
  localparam int unsigned Beats = kestrel_pkg::LineBytes / 8;
  localparam int unsigned BeatW = $clog2(Beats);

  logic [63:0] ram [Words];
  logic [63:0] rdata_q;
  logic        en;
  logic        we;
  logic [WordAw-1:0] addr;
  logic [63:0] wdata;
  logic [7:0]  be;

  logic rd_pending_q, rsp_valid_q;
  logic [BeatW-1:0] beat_q, rd_beat_q;
  logic [511:0] line_q;
  logic [7:0] tag_q;

  // One beat of the offered request per cycle while no response waits.  A
  // write is MemWrite, or MemLocal with `write` (as kestrel_board_mem).
  logic beat, write;
  assign beat = mem_req_valid_i && !rsp_valid_q;
  assign write = mem_req_i.kind == kestrel_pkg::MemWrite
                 || (mem_req_i.kind == kestrel_pkg::MemLocal && mem_req_i.write);
  always_comb begin
    en = beat;
    we = write;
    addr = WordAw'({mem_req_i.addr[31:kestrel_pkg::LineOffW], beat_q});
    wdata = mem_req_i.wdata[32'(beat_q) * 64 +: 64];
    be = mem_req_i.be[32'(beat_q) * 8 +: 8];
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      if (we) begin
        for (int unsigned b = 0; b < 8; b++) begin
          if (be[b]) ram[addr][b*8 +: 8] <= wdata[b*8 +: 8];
        end
      end else begin
        rdata_q <= ram[addr];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      beat_q <= '0;
      rd_pending_q <= 1'b0;
      rd_beat_q <= '0;
      rsp_valid_q <= 1'b0;
      line_q <= '0;
      tag_q <= '0;
    end else begin
      rd_pending_q <= beat && !write;
      rd_beat_q <= beat_q;
      if (rd_pending_q) line_q[32'(rd_beat_q) * 64 +: 64] <= rdata_q;
      if (beat) begin
        beat_q <= beat_q + 1'b1;
        if (beat_q == BeatW'(Beats - 1)) begin
          rsp_valid_q <= 1'b1;
          tag_q <= mem_req_i.tag;
        end
      end
      if (mem_rsp_valid_o && mem_rsp_ready_i) rsp_valid_q <= 1'b0;
    end
  end

  // Ready at the last beat, whatever valid says (a valid request stays until
  // taken, and beats advance only while it is valid): the GPU's valid may
  // depend on ready.  The response waits for the last beat's read data (one
  // cycle after it).
  assign mem_req_ready_o = !rsp_valid_q && beat_q == BeatW'(Beats - 1);
  assign mem_rsp_valid_o = rsp_valid_q && !rd_pending_q;
  assign mem_rsp_o.rdata = line_q;
  assign mem_rsp_o.fault = kestrel_pkg::FaultNone;
  assign mem_rsp_o.tag = tag_q;

  // The atomic fields are the GPU's business (kestrel_mem_atomic has
  // performed atomics before the port); the low address bits are zero.
  logic unused_req;
  assign unused_req = ^{mem_req_i.amo, mem_req_i.addr[kestrel_pkg::LineOffW-1:0]};

  `KESTREL_ASSERT_HANDSHAKE(mem_req, mem_req_valid_i, mem_req_ready_o, mem_req_i)
  `KESTREL_ASSERT_HANDSHAKE(mem_rsp, mem_rsp_valid_o, mem_rsp_ready_i, mem_rsp_o)
endmodule
