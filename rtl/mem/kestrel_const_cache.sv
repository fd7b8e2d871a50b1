// kestrel_const_cache: an SM's constant cache, on the SM's memory port in
// front of the crossbar (docs/memory-system.md, "The constant cache").
//
// It keeps lines of read-only pages: pages mapped readable and not writable,
// which is where a module's __constant__ data and .rodata and the kernel
// parameters live (sw_kernels/crt/kestrel.ld; the runtime's parameter buffer
// is mapped read-only).  Kernels cannot write them (a store or atomic there
// faults WRITE_PROTECT), so a cached line stays current until the host writes
// memory or changes a mapping: inv_i (a launch's start, a host write during a
// launch, a page-table command) drops every line, and a read sent before an
// invalidation fills nothing when it comes back.
//
// Requests: a plain line read (MemRead, not an atomic or LR) of a line the
// cache holds is a hit, answered here and never sent on; every other request
// goes downstream unchanged.  Whether a page is read-only is known only at
// the crossbar's page check, so the response side says it
// (dn_rsp_readonly_i): a plain read answered without a fault from a read-only
// page fills its line (a victim chosen among invalid ways first, else in
// turn per set), unless the line is already held (two misses of one line
// both went to memory).
//
// Order: the SM expects its answers in request order, so an order FIFO
// (Outstanding entries) records per request whether it was a hit; a hit's
// data, read from the data RAM the cycle after it is taken, waits in a FIFO of
// HitDepth lines for its turn behind older reads still in memory.  A hit
// taken in cycle t answers in t+1 when nothing older is outstanding.
//
// Storage: tags and valid bits in flops (Sets x Ways), the lines in a
// kestrel_ram_1r1w of Sets x Ways x 512 bits (block RAM on an FPGA).  The
// events are one-cycle pulses for kestrel_mem_counters.
`include "kestrel_assert.svh"

module kestrel_const_cache #(
  parameter int unsigned Sets = 16,         // a power of two
  parameter int unsigned Ways = 4,          // a power of two
  parameter int unsigned HitDepth = 2,      // hit lines waiting for their turn (a power of two)
  parameter int unsigned Outstanding = 32,  // requests in flight through here (a power of two)
  localparam int unsigned SetBits = $clog2(Sets),
  localparam int unsigned WayBits = $clog2(Ways),
  localparam int unsigned WayW = (Ways > 1) ? WayBits : 1,
  localparam int unsigned LineW = kestrel_pkg::AddrW - kestrel_pkg::LineOffW,
  localparam int unsigned TagW = LineW - SetBits,
  localparam int unsigned Entries = Sets * Ways,
  localparam int unsigned EntryW = (Entries > 1) ? $clog2(Entries) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  inv_i,
  // SM side
  input  logic                  up_req_valid_i,
  output logic                  up_req_ready_o,
  input  kestrel_pkg::mem_req_t up_req_i,
  output logic                  up_rsp_valid_o,
  input  logic                  up_rsp_ready_i,
  output kestrel_pkg::mem_rsp_t up_rsp_o,
  // crossbar side; dn_rsp_readonly_i comes with dn_rsp_i: its page is mapped
  // readable and not writable
  output logic                  dn_req_valid_o,
  input  logic                  dn_req_ready_i,
  output kestrel_pkg::mem_req_t dn_req_o,
  input  logic                  dn_rsp_valid_i,
  output logic                  dn_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t dn_rsp_i,
  input  logic                  dn_rsp_readonly_i,
  // events, one cycle each
  output logic                  ev_hit_o,     // a read answered here
  output logic                  ev_miss_o,    // a read of a read-only page answered by memory
  output logic                  ev_evict_o    // a fill replaced a valid line
);
  `KESTREL_STATIC_ASSERT(sets_pow2, Sets >= 1 && (Sets & (Sets - 1)) == 0)
  `KESTREL_STATIC_ASSERT(ways_pow2, Ways >= 1 && (Ways & (Ways - 1)) == 0)
  `KESTREL_STATIC_ASSERT(hit_depth_pow2, HitDepth >= 1 && (HitDepth & (HitDepth - 1)) == 0)
  `KESTREL_STATIC_ASSERT(outstanding_pow2, Outstanding >= 2 && (Outstanding & (Outstanding - 1)) == 0)

  // One request in flight: hit or sent on, whether it may fill, the
  // invalidation epoch it was taken in, its line and the SM's tag.
  typedef struct packed {
    logic hit;
    logic fill;
    logic epoch;
    logic [LineW-1:0] line;
    logic [kestrel_pkg::MemTagW-1:0] tag;
  } order_t;
  localparam int unsigned OrderW = 3 + LineW + kestrel_pkg::MemTagW;

  logic [Entries-1:0] valid_q, valid_d;
  logic [TagW-1:0] tag_q [Entries];
  logic [Sets*WayW-1:0] victim_q, victim_d;
  logic epoch_q;

  function automatic logic [EntryW-1:0] entry_of(input logic [LineW-1:0] line, input logic [WayW-1:0] way);
    logic [31:0] set;
    set = (Sets > 1) ? 32'(line) % Sets : 32'd0;
    entry_of = EntryW'(set * Ways + ((Ways > 1) ? 32'(way) : 32'd0));
  endfunction

  function automatic logic [TagW-1:0] tag_of(input logic [LineW-1:0] line);
    tag_of = TagW'(line >> SetBits);
  endfunction

  // --- request side: look the line up ----------------------------------------------
  logic [LineW-1:0] req_line;
  logic plain_read, req_hit, take, take_hit;
  logic [WayW-1:0] req_way;
  logic order_ready, order_valid;
  order_t order_in, head;
  logic [$clog2(Outstanding):0] order_count;
  logic [$clog2(HitDepth):0] hits_q, hits_d;  // hits taken and not yet answered
  logic read_pending_q;                        // the RAM's output holds a hit's line
  logic pop;                                   // the oldest request is answered
  logic hitq_ready;

  always_comb begin
    req_line = up_req_i.addr[kestrel_pkg::AddrW-1:kestrel_pkg::LineOffW];
    plain_read = up_req_i.kind == kestrel_pkg::MemRead && !up_req_i.amo.valid;
    req_hit = 1'b0;
    req_way = '0;
    for (int unsigned w = 0; w < Ways; w++) begin
      if (valid_q[entry_of(req_line, WayW'(w))] && tag_q[entry_of(req_line, WayW'(w))] == tag_of(req_line)) begin
        req_hit = plain_read;
        req_way = WayW'(w);
      end
    end
    order_in.hit = req_hit;
    order_in.fill = plain_read && !req_hit;
    order_in.epoch = epoch_q;
    order_in.line = req_line;
    order_in.tag = up_req_i.tag;
  end

  // Apart from the lookup's block, so that no simulator sees a path from the
  // crossbar's ready to its valid.
  assign dn_req_valid_o = up_req_valid_i && !req_hit && order_ready;
  assign dn_req_o = up_req_i;
  assign up_req_ready_o = order_ready && (req_hit ? 32'(hits_q) < HitDepth : dn_req_ready_i);
  assign take = up_req_valid_i && up_req_ready_o;
  assign take_hit = take && req_hit;

  kestrel_fifo #(.Width(OrderW), .Depth(Outstanding)) u_order (
    .clk_i,
    .rst_ni,
    .flush_i    (1'b0),
    .in_valid_i (take),
    .in_ready_o (order_ready),
    .in_data_i  (order_in),
    .out_valid_o(order_valid),
    .out_ready_i(pop),
    .out_data_o (head),
    .count_o    (order_count)
  );
  logic unused_order_count;
  assign unused_order_count = ^order_count;

  // --- the lines ------------------------------------------------------------------
  logic fill;
  logic [EntryW-1:0] fill_entry;
  logic [kestrel_pkg::LineBits-1:0] ram_rdata;

  kestrel_ram_1r1w #(.Width(kestrel_pkg::LineBits), .Depth(Entries)) u_lines (
    .clk_i,
    .re_i   (take_hit),
    .raddr_i(entry_of(req_line, req_way)),
    .rdata_o(ram_rdata),
    .we_i   (fill),
    .waddr_i(fill_entry),
    .wdata_i(dn_rsp_i.rdata)
  );

  // A hit's line goes to the answer at once when it is the oldest request,
  // else into the hit FIFO until its turn.
  logic hitq_valid, hitq_push, direct;
  logic [kestrel_pkg::LineBits-1:0] hitq_data;
  logic [$clog2(HitDepth):0] hitq_count;

  kestrel_fifo #(.Width(kestrel_pkg::LineBits), .Depth(HitDepth)) u_hits (
    .clk_i,
    .rst_ni,
    .flush_i    (1'b0),
    .in_valid_i (hitq_push),
    .in_ready_o (hitq_ready),
    .in_data_i  (ram_rdata),
    .out_valid_o(hitq_valid),
    .out_ready_i(pop && head.hit && hitq_valid),
    .out_data_o (hitq_data),
    .count_o    (hitq_count)
  );
  logic unused_hitq;
  assign unused_hitq = ^{hitq_count, hitq_ready};

  // --- response side ----------------------------------------------------------------
  logic head_present, head_readonly;
  logic [WayW-1:0] victim_way;
  logic victim_found;

  always_comb begin
    up_rsp_o = dn_rsp_i;
    if (order_valid && head.hit) begin
      up_rsp_o.rdata = hitq_valid ? hitq_data : ram_rdata;
      up_rsp_o.fault = kestrel_pkg::FaultNone;
      up_rsp_o.tag = head.tag;
    end
    up_rsp_valid_o = order_valid && (head.hit ? (hitq_valid || read_pending_q) : dn_rsp_valid_i);
    dn_rsp_ready_o = order_valid && !head.hit && up_rsp_ready_i;
    pop = up_rsp_valid_o && up_rsp_ready_i;
    direct = pop && head.hit && !hitq_valid;
    hitq_push = read_pending_q && !direct;
    hits_d = hits_q + ($clog2(HitDepth)+1)'(take_hit) - ($clog2(HitDepth)+1)'(pop && head.hit);

    // A read-only line comes back: fill it unless it is held already or an
    // invalidation came after its read.
    head_readonly = pop && !head.hit && head.fill && dn_rsp_readonly_i && dn_rsp_i.fault == kestrel_pkg::FaultNone;
    head_present = 1'b0;
    victim_found = 1'b0;
    victim_way = victim_q[((Sets > 1) ? 32'(head.line) % Sets : 32'd0) * WayW +: WayW];
    for (int unsigned w = 0; w < Ways; w++) begin
      if (valid_q[entry_of(head.line, WayW'(w))] && tag_q[entry_of(head.line, WayW'(w))] == tag_of(head.line))
        head_present = 1'b1;
    end
    for (int unsigned w = Ways; w > 0; w--) begin
      if (!valid_q[entry_of(head.line, WayW'(w - 1))]) begin
        victim_found = 1'b1;
        victim_way = WayW'(w - 1);
      end
    end
    fill = head_readonly && !head_present && head.epoch == epoch_q && !inv_i;
    fill_entry = entry_of(head.line, victim_way);

    valid_d = valid_q;
    victim_d = victim_q;
    if (fill) begin
      valid_d[fill_entry] = 1'b1;
      if (!victim_found && Ways > 1)
        victim_d[((Sets > 1) ? 32'(head.line) % Sets : 32'd0) * WayW +: WayW] = WayW'(victim_way + 1'b1);
    end
    if (inv_i) valid_d = '0;

    ev_hit_o = take_hit;
    ev_miss_o = head_readonly;
    ev_evict_o = fill && !victim_found;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      victim_q <= '0;
      epoch_q <= 1'b0;
      hits_q <= '0;
      read_pending_q <= 1'b0;
    end else begin
      valid_q <= valid_d;
      victim_q <= victim_d;
      if (inv_i) epoch_q <= ~epoch_q;
      hits_q <= hits_d;
      read_pending_q <= take_hit;
    end
  end

  // Tags need no reset: valid_q guards them.
  always_ff @(posedge clk_i) begin
    if (fill) tag_q[fill_entry] <= tag_of(head.line);
  end

`ifndef SYNTHESIS
  // Memory answers in request order: the head is the request answered.
  always_ff @(posedge clk_i) begin
    if (dn_rsp_valid_i && dn_rsp_ready_o) begin
      assert (dn_rsp_i.tag == head.tag)
      else $error("kestrel_const_cache: response tag %0d, expected %0d", dn_rsp_i.tag, head.tag);
    end
  end
`endif
  `KESTREL_ASSERT_NEVER(hit_fifo_overflow, hitq_push && !hitq_ready)
  `KESTREL_ASSERT_NEVER(rsp_without_request, dn_rsp_valid_i && !order_valid)
  `KESTREL_ASSERT_KNOWN(up_req_valid_known, up_req_valid_i)
  `KESTREL_ASSERT_KNOWN(dn_rsp_valid_known, dn_rsp_valid_i)
  `KESTREL_ASSERT_HANDSHAKE(up_req_handshake, up_req_valid_i, up_req_ready_o, up_req_i)
  `KESTREL_ASSERT_HANDSHAKE(up_rsp_handshake, up_rsp_valid_o, up_rsp_ready_i, up_rsp_o)
endmodule
