// kestrel_fifo: synchronous FIFO of Depth entries of Width bits.
// Valid/ready on both sides; data out is the head entry (zero latency from a
// registered array), so `out_valid_o` never depends on `out_ready_i`.  Depth
// must be a power of two.  Throughput: one push and one pop per cycle.
`include "kestrel_assert.svh"

module kestrel_fifo #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             flush_i,
  // push side
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  // pop side
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o,
  // occupancy
  output logic [$clog2(Depth):0] count_o
);
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1;

  // Storage is unreset: it maps to distributed RAM, and no entry is read
  // before it has been written.
  logic [Width-1:0] mem_q [Depth];
  logic [PtrW-1:0] rd_ptr_q, wr_ptr_q;
  logic [$clog2(Depth):0] count_q;
  logic push, pop;

  assign in_ready_o = (count_q != ($clog2(Depth)+1)'(Depth));
  assign out_valid_o = (count_q != '0);
  assign out_data_o = mem_q[rd_ptr_q];
  assign count_o = count_q;
  assign push = in_valid_i && in_ready_o;
  assign pop = out_valid_o && out_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_ptr_q <= '0;
      wr_ptr_q <= '0;
      count_q <= '0;
    end else if (flush_i) begin
      rd_ptr_q <= '0;
      wr_ptr_q <= '0;
      count_q <= '0;
    end else begin
      if (push) wr_ptr_q <= (Depth > 1) ? wr_ptr_q + 1'b1 : '0;
      if (pop) rd_ptr_q <= (Depth > 1) ? rd_ptr_q + 1'b1 : '0;
      if (push && !pop) count_q <= count_q + 1'b1;
      else if (pop && !push) count_q <= count_q - 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (push) mem_q[wr_ptr_q] <= in_data_i;
  end

  // The pusher keeps valid and payload while it waits (AXI rule; a flush in
  // either cycle releases it); the head stays put until popped or flushed.
  `KESTREL_ASSERT(push_held, in_valid_i && !in_ready_o && !flush_i |=>
                  flush_i || (in_valid_i && $stable(in_data_i)))
  `KESTREL_ASSERT_HANDSHAKE_IF(pop, out_valid_o, out_ready_i, out_data_o, !flush_i)
  `KESTREL_ASSERT(count_in_range, count_q <= ($clog2(Depth)+1)'(Depth))
endmodule
