// kestrel_ram_1r1w: simple dual-port RAM of Depth words of Width bits, one
// read port and one write port on one clock, written so that FPGA tools
// infer block RAM: a synchronous read (rdata_o is the word read at the last
// edge where re_i was high, and holds while re_i is low, like a block RAM's
// output register with its enable), and a write port with Groups write
// enables (each covering Width/Groups bits: byte enables for a data line, way
// enables for a tag row).  A read and a write of the same word in one cycle
// read the old word.  No reset: the contents are unknown until written, and
// the user never reads a word it has not written (it keeps its own valid
// bits).  Throughput: one read and one write per cycle.
`include "kestrel_assert.svh"

module kestrel_ram_1r1w #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 16,
  parameter int unsigned Groups = 1,
  localparam int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned GroupW = Width / Groups
) (
  input  logic              clk_i,
  // read port
  input  logic              re_i,
  input  logic [AddrW-1:0]  raddr_i,
  output logic [Width-1:0]  rdata_o,
  // write port
  input  logic [Groups-1:0] we_i,
  input  logic [AddrW-1:0]  waddr_i,
  input  logic [Width-1:0]  wdata_i
);
  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rdata_q;

  always_ff @(posedge clk_i) begin
    for (int unsigned g = 0; g < Groups; g++) begin
      if (we_i[g]) mem_q[waddr_i][g*GroupW +: GroupW] <= wdata_i[g*GroupW +: GroupW];
    end
    if (re_i) rdata_q <= mem_q[raddr_i];
  end
  assign rdata_o = rdata_q;

  // The write enables cover the word exactly.
  `KESTREL_STATIC_ASSERT(groups_divide_width, Groups * GroupW == Width)
endmodule
