// kestrel_sm_cache: a cache on an SM's memory port, in front of the crossbar
// (docs/memory-system.md, "The constant cache" and "The L1 data cache").
// Each SM has two, in series, keeping disjoint lines:
//
// * Writable = 0, the constant cache: lines of read-only pages (mapped
//   readable and not writable), which is where a module's __constant__ data
//   and .rodata and the kernel parameters live (sw_kernels/crt/kestrel.ld;
//   the runtime maps the parameter buffer read-only).  Kernels cannot write
//   them (a store or atomic there faults WRITE_PROTECT), so only the host
//   changes them.
// * Writable = 1, the L1 data cache: lines of writable global pages.
//   Write-evict: a write or atomic of this SM drops its line as it passes,
//   and every write or atomic the crossbar takes, from any SM, is snooped
//   (snoop_valid_i, snoop_line_i) and drops the line in every SM; a read of
//   that line still in flight fills nothing when it comes back.  The
//   crossbar is the one point where global memory's order is decided, so a
//   line held here is never older than the crossbar's view of it.
//
// Both: inv_i (a launch's start, a host write during a launch, a page-table
// command rewriting permissions) drops every line and every fill in flight.
// Whether a page is read-only is known only at the crossbar's page check,
// which each response carries (dn_rsp_readonly_i): a plain line read
// (MemRead, not an atomic or LR) answered without a fault fills its line if
// the page is of this cache's kind and the line is not held already (a
// victim among invalid ways first, else the set's ways in turn).  A plain
// read of a held line is a hit: answered here, never sent on.  Everything
// else goes downstream unchanged.
//
// Order: the SM expects its answers in request order, so an order queue
// (Outstanding entries) records per request whether it hit and whether it
// may still fill; a hit's line, read from the data RAM the cycle after it is
// taken, waits in a FIFO of HitDepth lines for its turn behind older reads
// still in memory.  A hit taken in cycle t answers in t+1 when nothing
// older is outstanding.  A miss passes through in the same cycle.
//
// Storage: tags and valid bits in flops (Sets x Ways), the lines in a
// kestrel_ram_1r1w of Sets x Ways x 512 bits (block RAM on an FPGA).  The
// events are one-cycle pulses for kestrel_mem_counters.
`include "kestrel_assert.svh"

module kestrel_sm_cache #(
  parameter bit          Writable = 1'b0,   // 0: read-only pages' lines; 1: writable pages'
  parameter int unsigned Sets = 16,         // a power of two
  parameter int unsigned Ways = 4,          // a power of two
  parameter int unsigned HitDepth = 2,      // hit lines waiting for their turn (a power of two)
  parameter int unsigned Outstanding = 32,  // requests in flight through here (a power of two)
  localparam int unsigned SetBits = $clog2(Sets),
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned LineW = kestrel_pkg::AddrW - kestrel_pkg::LineOffW,
  localparam int unsigned TagW = LineW - SetBits,
  localparam int unsigned Entries = Sets * Ways,
  localparam int unsigned EntryW = (Entries > 1) ? $clog2(Entries) : 1,
  localparam int unsigned PtrW = $clog2(Outstanding)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  inv_i,
  // a write or atomic the crossbar takes (Writable only)
  input  logic                  snoop_valid_i,
  input  logic [LineW-1:0]      snoop_line_i,
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
  output logic                  up_rsp_readonly_o,  // the same for the SM side (a hit's: its kind)
  // events, one cycle each
  output logic                  ev_hit_o,     // a read answered here
  output logic                  ev_miss_o,    // a read of this cache's kind of page answered by memory
  output logic                  ev_evict_o    // a fill replaced a valid line
);
  `KESTREL_STATIC_ASSERT(sets_pow2, Sets >= 1 && (Sets & (Sets - 1)) == 0)
  `KESTREL_STATIC_ASSERT(ways_pow2, Ways >= 1 && (Ways & (Ways - 1)) == 0)
  `KESTREL_STATIC_ASSERT(hit_depth_pow2, HitDepth >= 1 && (HitDepth & (HitDepth - 1)) == 0)
  `KESTREL_STATIC_ASSERT(outstanding_pow2, Outstanding >= 2 && (Outstanding & (Outstanding - 1)) == 0)

  logic [Entries-1:0] valid_q, valid_d;
  logic [TagW-1:0] tag_q [Entries];
  logic [Sets*WayW-1:0] victim_q, victim_d;

  function automatic logic [31:0] set_of(input logic [LineW-1:0] line);
    set_of = (Sets > 1) ? 32'(line) % Sets : 32'd0;
  endfunction

  function automatic logic [EntryW-1:0] entry_of(input logic [LineW-1:0] line, input logic [WayW-1:0] way);
    entry_of = EntryW'(set_of(line) * Ways + ((Ways > 1) ? 32'(way) : 32'd0));
  endfunction

  function automatic logic [TagW-1:0] tag_of(input logic [LineW-1:0] line);
    tag_of = TagW'(line >> SetBits);
  endfunction

  // --- the order queue: per request, hit or sent on, a plain read, may it
  // still fill, its line and tag ------------------------------------------------
  logic [Outstanding-1:0] q_hit_q, q_read_q, q_fill_q, q_fill_d;
  logic [LineW-1:0] q_line_q [Outstanding];
  logic [kestrel_pkg::MemTagW-1:0] q_tag_q [Outstanding];
  logic [PtrW-1:0] q_head_q, q_tail_q;
  logic [PtrW:0] q_count_q;
  logic order_ready, order_valid;
  logic head_hit, head_read, head_fill;
  logic [LineW-1:0] head_line;
  logic [kestrel_pkg::MemTagW-1:0] head_tag;

  assign order_ready = q_count_q != (PtrW+1)'(Outstanding);
  assign order_valid = q_count_q != '0;
  assign head_hit = q_hit_q[q_head_q];
  assign head_read = q_read_q[q_head_q];
  assign head_fill = q_fill_q[q_head_q];
  assign head_line = q_line_q[q_head_q];
  assign head_tag = q_tag_q[q_head_q];

  // --- request side: look the line up ----------------------------------------------
  logic [LineW-1:0] req_line;
  logic plain_read, req_writes, req_hit, req_held, take, take_hit;
  logic [WayW-1:0] req_way;
  logic [$clog2(HitDepth):0] hits_q, hits_d;  // hits taken and not yet answered
  logic read_pending_q;                        // the RAM's output holds a hit's line
  logic pop;                                   // the oldest request is answered
  logic hitq_ready;

  always_comb begin
    req_line = up_req_i.addr[kestrel_pkg::AddrW-1:kestrel_pkg::LineOffW];
    plain_read = up_req_i.kind == kestrel_pkg::MemRead && !up_req_i.amo.valid;
    req_writes = up_req_i.kind == kestrel_pkg::MemWrite || up_req_i.amo.valid;
    req_held = 1'b0;
    req_way = '0;
    for (int unsigned w = 0; w < Ways; w++) begin
      if (valid_q[entry_of(req_line, WayW'(w))] && tag_q[entry_of(req_line, WayW'(w))] == tag_of(req_line)) begin
        req_held = 1'b1;
        req_way = WayW'(w);
      end
    end
    req_hit = plain_read && req_held;
  end

  // Apart from the lookup's block, so that no simulator sees a path from the
  // crossbar's ready to its valid.
  assign dn_req_valid_o = up_req_valid_i && !req_hit && order_ready;
  assign dn_req_o = up_req_i;
  assign up_req_ready_o = order_ready && (req_hit ? 32'(hits_q) < HitDepth : dn_req_ready_i);
  assign take = up_req_valid_i && up_req_ready_o;
  assign take_hit = take && req_hit;

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
    .out_ready_i(pop && head_hit && hitq_valid),
    .out_data_o (hitq_data),
    .count_o    (hitq_count)
  );
  logic unused_hitq;
  assign unused_hitq = ^{hitq_count, hitq_ready};

  // --- response side ----------------------------------------------------------------
  logic head_kind, head_present, snoop_head, evict_now;
  logic [WayW-1:0] victim_way;
  logic victim_found;
  logic [LineW-1:0] evict_line;   // this SM's write or atomic, passing (Writable)

  always_comb begin
    up_rsp_o = dn_rsp_i;
    if (order_valid && head_hit) begin
      up_rsp_o.rdata = hitq_valid ? hitq_data : ram_rdata;
      up_rsp_o.fault = kestrel_pkg::FaultNone;
      up_rsp_o.tag = head_tag;
    end
    up_rsp_readonly_o = head_hit ? !Writable : dn_rsp_readonly_i;
    up_rsp_valid_o = order_valid && (head_hit ? (hitq_valid || read_pending_q) : dn_rsp_valid_i);
    dn_rsp_ready_o = order_valid && !head_hit && up_rsp_ready_i;
    pop = up_rsp_valid_o && up_rsp_ready_i;
    direct = pop && head_hit && !hitq_valid;
    hitq_push = read_pending_q && !direct;
    hits_d = hits_q + ($clog2(HitDepth)+1)'(take_hit) - ($clog2(HitDepth)+1)'(pop && head_hit);

    // A plain read of this cache's kind of page comes back without a fault:
    // it fills unless its line is held already, or a write (snooped or this
    // SM's) or an invalidation came while it was in flight or comes now.
    evict_now = Writable && take && req_writes;
    evict_line = req_line;
    snoop_head = Writable && ((snoop_valid_i && snoop_line_i == head_line) || (evict_now && evict_line == head_line));
    head_kind = pop && !head_hit && head_read && dn_rsp_i.fault == kestrel_pkg::FaultNone
                && (dn_rsp_readonly_i != Writable);
    head_present = 1'b0;
    victim_found = 1'b0;
    victim_way = victim_q[set_of(head_line) * WayW +: WayW];
    for (int unsigned w = 0; w < Ways; w++) begin
      if (valid_q[entry_of(head_line, WayW'(w))] && tag_q[entry_of(head_line, WayW'(w))] == tag_of(head_line))
        head_present = 1'b1;
    end
    for (int unsigned w = Ways; w > 0; w--) begin
      if (!valid_q[entry_of(head_line, WayW'(w - 1))]) begin
        victim_found = 1'b1;
        victim_way = WayW'(w - 1);
      end
    end
    // Nor while a request for the line waits to go on: it was a miss when
    // offered, and its valid toward the crossbar must hold until taken.
    fill = head_kind && head_fill && !head_present && !snoop_head && !inv_i
           && !(up_req_valid_i && !req_hit && req_line == head_line);
    fill_entry = entry_of(head_line, victim_way);

    valid_d = valid_q;
    victim_d = victim_q;
    if (fill) begin
      valid_d[fill_entry] = 1'b1;
      if (!victim_found && Ways > 1) victim_d[set_of(head_line) * WayW +: WayW] = WayW'(victim_way + 1'b1);
    end
    // Writes drop their line (Writable: read-only lines are never written),
    // unless a fill takes its place in this cycle.
    for (int unsigned w = 0; w < Ways; w++) begin
      if (Writable && snoop_valid_i && tag_q[entry_of(snoop_line_i, WayW'(w))] == tag_of(snoop_line_i)
          && !(fill && fill_entry == entry_of(snoop_line_i, WayW'(w))))
        valid_d[entry_of(snoop_line_i, WayW'(w))] = 1'b0;
      if (evict_now && req_held && req_way == WayW'(w) && !(fill && fill_entry == entry_of(req_line, WayW'(w))))
        valid_d[entry_of(req_line, WayW'(w))] = 1'b0;
    end
    if (inv_i) valid_d = '0;

    // Reads in flight of a line written now fill nothing.
    q_fill_d = q_fill_q;
    for (int unsigned i = 0; i < Outstanding; i++) begin
      if (Writable && ((snoop_valid_i && q_line_q[i] == snoop_line_i) || (evict_now && q_line_q[i] == evict_line)))
        q_fill_d[i] = 1'b0;
    end
    if (inv_i) q_fill_d = '0;
    // A read taken as a write of its line is snooped may have been performed
    // before it: it fills nothing either.
    if (take) q_fill_d[q_tail_q] = plain_read && !req_hit && !inv_i && !(Writable && snoop_valid_i && snoop_line_i == req_line);

    ev_hit_o = take_hit;
    ev_miss_o = head_kind;
    ev_evict_o = fill && !victim_found;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      victim_q <= '0;
      hits_q <= '0;
      read_pending_q <= 1'b0;
      q_head_q <= '0;
      q_tail_q <= '0;
      q_count_q <= '0;
      q_fill_q <= '0;
      q_hit_q <= '0;
      q_read_q <= '0;
    end else begin
      valid_q <= valid_d;
      victim_q <= victim_d;
      hits_q <= hits_d;
      read_pending_q <= take_hit;
      q_fill_q <= q_fill_d;
      if (take) begin
        q_hit_q[q_tail_q] <= req_hit;
        q_read_q[q_tail_q] <= plain_read;
        q_tail_q <= q_tail_q + 1'b1;
      end
      if (pop) q_head_q <= q_head_q + 1'b1;
      q_count_q <= q_count_q + (PtrW+1)'(take) - (PtrW+1)'(pop);
    end
  end

  // Tags and queued lines need no reset: valid_q and the queue's count guard them.
  always_ff @(posedge clk_i) begin
    if (fill) tag_q[fill_entry] <= tag_of(head_line);
    if (take) begin
      q_line_q[q_tail_q] <= req_line;
      q_tag_q[q_tail_q] <= up_req_i.tag;
    end
  end

`ifndef SYNTHESIS
  // Memory answers in request order: the head is the request answered.
  always_ff @(posedge clk_i) begin
    if (dn_rsp_valid_i && dn_rsp_ready_o) begin
      assert (dn_rsp_i.tag == head_tag)
      else $error("kestrel_sm_cache: response tag %0d, expected %0d", dn_rsp_i.tag, head_tag);
    end
  end
`endif
  `KESTREL_ASSERT_NEVER(hit_fifo_overflow, hitq_push && !hitq_ready)
  `KESTREL_ASSERT_NEVER(rsp_without_request, dn_rsp_valid_i && !order_valid)
  `KESTREL_ASSERT_KNOWN(up_req_valid_known, up_req_valid_i)
  `KESTREL_ASSERT_KNOWN(dn_rsp_valid_known, dn_rsp_valid_i)
  `KESTREL_ASSERT_KNOWN(snoop_valid_known, snoop_valid_i)
  `KESTREL_ASSERT_HANDSHAKE(up_req_handshake, up_req_valid_i, up_req_ready_o, up_req_i)
  `KESTREL_ASSERT_HANDSHAKE(up_rsp_handshake, up_rsp_valid_o, up_rsp_ready_i, up_rsp_o)
  `KESTREL_ASSERT_HANDSHAKE(dn_req_handshake, dn_req_valid_o, dn_req_ready_i, dn_req_o)
endmodule
