// kestrel_tex_cache: a read-only, set-associative cache of 64-byte memory
// lines for the texture unit (kestrel_tex_unit): its texel cache (Sets x
// Ways) and its descriptor cache (one set of a few ways, keyed by the
// descriptor's address).  It holds no miss logic: the owner looks a line
// up, and on a miss reads the line from memory itself and fills it here.
//
// Lookup: combinational tag compare (hit_o in the cycle of lookup_i); a hit
// reads the line from the data RAM, rdata_o valid in the next cycle (the
// RAM's synchronous read) and held until the next hit.  Fill: writes the set's
// round-robin victim way in one cycle; a lookup in the following cycle
// sees it.  flush_i invalidates every line (a kernel boundary: the cache is
// not coherent with stores, as CUDA's texture cache is not, guide 3.2.11.4).
//
// Tags are the full 26-bit line address (so one module serves any Sets,
// including 1): Sets x Ways x 27 flops.  Data: kestrel_ram_1r1w of Sets x
// Ways lines of 512 bits, which FPGA tools map to block RAM.
`include "kestrel_assert.svh"

module kestrel_tex_cache #(
  parameter int unsigned Sets = 16,  // a power of two, 1 or more
  parameter int unsigned Ways = 4,   // a power of two, 2 or more
  localparam int unsigned LineW = 32 - kestrel_pkg::LineOffW,  // a line's address bits
  localparam int unsigned SetW = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW = $clog2(Ways),
  localparam int unsigned IdxW = (Sets * Ways > 1) ? $clog2(Sets * Ways) : 1
) (
  input  logic                            clk_i,
  input  logic                            rst_ni,
  input  logic                            flush_i,
  // lookup side
  input  logic                            lookup_i,
  input  logic [LineW-1:0]                lookup_line_i,
  output logic                            hit_o,
  output logic [kestrel_pkg::LineBits-1:0] rdata_o,
  // fill side
  input  logic                            fill_i,
  input  logic [LineW-1:0]                fill_line_i,
  input  logic [kestrel_pkg::LineBits-1:0] fill_data_i
);
  `KESTREL_STATIC_ASSERT(sets_pow2, Sets >= 1 && (Sets & (Sets - 1)) == 0)
  `KESTREL_STATIC_ASSERT(ways_pow2, Ways >= 2 && (Ways & (Ways - 1)) == 0)

  logic [Sets*Ways-1:0]  valid_q;
  logic [LineW-1:0]      tag_q [Sets*Ways];
  logic [WayW-1:0]       victim_q [Sets];

  // --- lookup ------------------------------------------------------------------
  logic [SetW-1:0] lookup_set;
  logic [WayW-1:0] hit_way;
  logic            hit;

  always_comb begin
    lookup_set = (Sets > 1) ? SetW'(lookup_line_i) : '0;  // the line's low bits
    hit = 1'b0;
    hit_way = '0;
    for (int unsigned w = 0; w < Ways; w++) begin
      if (valid_q[32'(lookup_set) * Ways + w] && tag_q[32'(lookup_set) * Ways + w] == lookup_line_i) begin
        hit = 1'b1;
        hit_way = WayW'(w);
      end
    end
  end
  assign hit_o = hit;

  // --- fill ----------------------------------------------------------------------
  logic [SetW-1:0] fill_set;
  logic [IdxW-1:0] fill_idx;
  assign fill_set = (Sets > 1) ? SetW'(fill_line_i) : '0;
  assign fill_idx = IdxW'(32'(fill_set) * Ways + 32'(victim_q[fill_set]));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      for (int unsigned s = 0; s < Sets; s++) victim_q[s] <= '0;
    end else if (flush_i) begin
      valid_q <= '0;
    end else if (fill_i) begin
      valid_q[fill_idx] <= 1'b1;
      victim_q[fill_set] <= victim_q[fill_set] + WayW'(1);
    end
  end

  // Tags need no reset: a tag is only compared where its valid bit is set.
  always_ff @(posedge clk_i) begin
    if (fill_i) tag_q[fill_idx] <= fill_line_i;
  end

  kestrel_ram_1r1w #(
    .Width(kestrel_pkg::LineBits),
    .Depth(Sets * Ways)
  ) u_data (
    .clk_i  (clk_i),
    .re_i   (lookup_i && hit),
    .raddr_i(IdxW'(32'(lookup_set) * Ways + 32'(hit_way))),
    .rdata_o(rdata_o),
    .we_i   (fill_i),
    .waddr_i(fill_idx),
    .wdata_i(fill_data_i)
  );

  // A line is filled only after its lookup missed: never twice in a set.
  logic fill_present;
  always_comb begin
    fill_present = 1'b0;
    for (int unsigned w = 0; w < Ways; w++) begin
      if (valid_q[32'(fill_set) * Ways + w] && tag_q[32'(fill_set) * Ways + w] == fill_line_i) fill_present = 1'b1;
    end
  end
  `KESTREL_ASSERT_NEVER(fill_twice, fill_i && !flush_i && fill_present)
  `KESTREL_ASSERT_KNOWN(lookup_known, lookup_i)
  `KESTREL_ASSERT_KNOWN(fill_known, fill_i)
endmodule
