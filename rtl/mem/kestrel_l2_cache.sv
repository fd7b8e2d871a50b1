// kestrel_l2_cache: a shared, set-associative, non-blocking L2 cache of
// 64-byte lines (kestrel_pkg::LineBytes) on the memory protocol
// (kestrel_pkg::mem_req_t / mem_rsp_t) on both sides, so that it can sit
// between kestrel_mem_atomic and the external DRAM port without changing
// either.  The DRAM port answers in request order; so does this unit.
//
// Organisation.  Sets x Ways lines (Ways = 1: direct mapped), true LRU per
// set (an age per way), the tags in one RAM row per set (one write enable per
// way) and the lines in one RAM (one write enable per byte), both
// kestrel_ram_1r1w (block RAM: synchronous read, one write port).  Valid
// bits, ages and the MSHRs are flops.
//
// Pipeline.  Lookup: a request taken from upstream reads its set's tags; in
// the next cycle it is decided against the valid bits and the MSHRs, and
// enters the response queue (QueueDepth entries, kestrel_fifo, in request
// order), sending its DRAM request at the same time where it needs one.  The
// head of the queue answers upstream: a hit reads the data RAM (one cycle)
// and answers from it; anything that went to DRAM is answered with DRAM's
// response, passed through.  The data RAM is read and written only at the
// head, in request order, so a hit queued behind a miss, a write or a fill
// sees exactly the line as those before it left it; the tags, valid bits and
// ages change at lookup, ahead of the data.
//
// - Read (MemRead, MemFetch, MemLocal with write clear) that hits: answered
//   from the line at its turn (event hit).  A read whose line is still being
//   filled merges into that fill's MSHR: no second DRAM read (event merge);
//   if the fill faults it is answered with that fault.
// - Read that misses: takes an MSHR (at most Mshrs fills in flight; a miss
//   waits for a free one), allocates a way (the lowest invalid one, else the
//   least recently used; a miss waits while that way's own fill is in
//   flight), sends the read to DRAM (event miss; event evict where the way
//   held a valid line).  The response fills the line at its turn and passes
//   through.  A faulting fill allocates nothing: the way is invalidated and
//   the fault passes through.
// - Write (MemWrite, MemLocal with write set): write-through.  Every write
//   goes to DRAM (event write) and is answered with DRAM's response; a write
//   that hits also merges its enabled bytes into the line when its response
//   arrives without a fault.  DRAM is therefore always current: the host
//   reads DRAM directly between launches and sees every write without a
//   flush.  (A GPU's L2 is usually write-back; that, with a flush at the end
//   of a launch, is the later step.)
// - A write of a whole line (every byte enabled) that misses allocates the
//   line as a read miss would (an MSHR and a way; event evict where the way
//   held a valid line) without reading DRAM: its own bytes are the line, in
//   the data RAM once DRAM has answered the write.  That is what a warp's
//   spill to local memory writes (granules interleaved across lanes, docs/
//   isa.md section 4), so the reload that follows hits.  Until the answer
//   the way is pending like a fill: a read of the line merges and is
//   answered with the write's fault, and a faulting write leaves the way
//   invalid.  A partial write that misses allocates nothing.
// - Anything else (atomics: mem_amo_t valid) invalidates its line if present
//   and passes through to DRAM in order; the next read of the line fetches
//   the result.  (Behind kestrel_mem_atomic no request carries an atomic:
//   its read and write-back of the line are plain requests.)
// - Invalidate (inv_i, a one-cycle pulse; the runtime raises it at each
//   launch start so that host writes between launches are seen): no request
//   is taken while inv_busy_o is high; once the lookup stage is empty (its
//   one request may wait there for DRAM, a free MSHR or queue room) every
//   valid bit clears in one cycle, so inv_busy_o is high for one cycle on an
//   idle cache.  Fills in flight complete but stay invalid.  A request taken
//   in the cycle of the pulse counts as before it.
//
// Events (ev_*_o): one-cycle pulses, registered, at most one of each per
// cycle, for the GPU's counters to add (as kestrel_sm_events' events are):
// read hits, read misses (fills sent), merges, evictions, write-throughs.
//
// Throughput: one request per cycle into the lookup (a bubble after a miss
// that allocates in the set of the next request: the tag write and read
// would meet); one response per cycle; a hit alone takes four cycles (taken
// with its tag read, lookup, data RAM read, answer), a miss sends its DRAM
// read in the cycle after it is taken and passes DRAM's response through in
// the cycle it arrives.  Handshakes are valid/ready on all four sides.
`include "kestrel_assert.svh"

module kestrel_l2_cache #(
  parameter int unsigned Sets = 64,       // power of two, at least 2
  parameter int unsigned Ways = 4,        // power of two; 1: direct mapped
  parameter int unsigned Mshrs = 4,       // line fills in flight to DRAM
  parameter int unsigned QueueDepth = 8   // requests answered in order (power of two)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // invalidate every line (launch start)
  input  logic                   inv_i,
  output logic                   inv_busy_o,
  // upstream (kestrel_mem_atomic's external side)
  input  logic                   in_req_valid_i,
  output logic                   in_req_ready_o,
  input  kestrel_pkg::mem_req_t  in_req_i,
  output logic                   in_rsp_valid_o,
  input  logic                   in_rsp_ready_i,
  output kestrel_pkg::mem_rsp_t  in_rsp_o,
  // downstream (the external DRAM port, in order)
  output logic                   ext_req_valid_o,
  input  logic                   ext_req_ready_i,
  output kestrel_pkg::mem_req_t  ext_req_o,
  input  logic                   ext_rsp_valid_i,
  output logic                   ext_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t  ext_rsp_i,
  // events (registered one-cycle pulses)
  output logic                   ev_hit_o,
  output logic                   ev_miss_o,
  output logic                   ev_merge_o,
  output logic                   ev_evict_o,
  output logic                   ev_write_o
);
  localparam int unsigned LineBytes = kestrel_pkg::LineBytes;
  localparam int unsigned LineBits = kestrel_pkg::LineBits;
  localparam int unsigned AddrW = kestrel_pkg::AddrW;
  localparam int unsigned OffW = kestrel_pkg::LineOffW;
  localparam int unsigned SetW = $clog2(Sets);
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1;
  localparam int unsigned TagW = AddrW - OffW - SetW;
  localparam int unsigned Lines = Sets * Ways;
  localparam int unsigned LineW = $clog2(Lines);
  localparam int unsigned MshrW = (Mshrs > 1) ? $clog2(Mshrs) : 1;

  // A response-queue entry: where its answer comes from and what it does to
  // the line when it gets there.
  typedef struct packed {
    logic from_ram;  // a read hit: answered from the data RAM
    logic merged;    // ... on a line being filled: with that fill's fault
    logic fill;      // a read miss: DRAM's response fills the line
    logic wmerge;    // a write hit or allocation: its bytes go into the line
    logic walloc;    // a whole-line write that allocated: holds an MSHR
    logic [SetW-1:0] set_idx;
    logic [WayW-1:0] way_idx;
    logic [MshrW-1:0] mshr;
    logic [7:0] tag;
    logic [LineBytes-1:0] be;
    logic [LineBits-1:0] wdata;
  } entry_t;
  localparam int unsigned EntryW = 5 + SetW + WayW + MshrW + 8 + LineBytes + LineBits;

  // The line of a set and way in the data RAM, the valid bits and the ages.
  function automatic logic [LineW-1:0] line_idx(input logic [SetW-1:0] set, input logic [WayW-1:0] way);
    line_idx = LineW'(32'(set) * Ways + 32'(way));
  endfunction

  // ---- state ---------------------------------------------------------------
  logic [Lines-1:0] valid_q;
  // The age of each line in its set (0: most recently used); the ages of a
  // set are a permutation of 0..Ways-1, way w starting at w.  Stored as age
  // XOR way, so that the reset state is all zeros: the Verilated benches and
  // backends start with rst_ni already low, so their reset never sees a
  // falling edge and only all-zero reset values hold there.
  logic [Lines*WayW-1:0] age_q;
  logic [Mshrs-1:0] mshr_valid_q;
  logic [SetW-1:0] mshr_set_q [Mshrs];
  logic [WayW-1:0] mshr_way_q [Mshrs];
  kestrel_pkg::fault_kind_e mshr_fault_q [Mshrs];  // the fault of the MSHR's last fill
  logic inv_q;
  // lookup stage: the request whose tags are being read
  logic s2_valid_q;
  kestrel_pkg::mem_req_t s2_req_q;
  // answer stage: a hit whose line the data RAM is giving
  logic b_valid_q;
  kestrel_pkg::fault_kind_e b_fault_q;
  logic [7:0] b_tag_q;

  // ---- tag RAM -------------------------------------------------------------
  logic tag_re;
  logic [Ways-1:0] tag_we;
  logic [Ways*TagW-1:0] tag_rdata;
  logic [SetW-1:0] in_set, s2_set;
  logic [TagW-1:0] s2_tag;
  assign in_set = in_req_i.addr[OffW +: SetW];
  assign s2_set = s2_req_q.addr[OffW +: SetW];
  assign s2_tag = s2_req_q.addr[AddrW-1 -: TagW];
  kestrel_ram_1r1w #(.Width(Ways * TagW), .Depth(Sets), .Groups(Ways)) u_tags (
    .clk_i  (clk_i),
    .re_i   (tag_re),
    .raddr_i(in_set),
    .rdata_o(tag_rdata),
    .we_i   (tag_we),
    .waddr_i(s2_set),
    .wdata_i({Ways{s2_tag}})
  );

  // ---- lookup decision -----------------------------------------------------
  logic s2_amo, s2_write, s2_read;
  assign s2_amo = s2_req_q.amo.valid;
  assign s2_write = !s2_amo && (s2_req_q.kind == kestrel_pkg::MemWrite
                                || (s2_req_q.kind == kestrel_pkg::MemLocal && s2_req_q.write));
  assign s2_read = !s2_amo && !s2_write;

  logic [Ways-1:0] way_valid, way_match, way_pending;
  logic [MshrW-1:0] way_mshr [Ways];
  logic [WayW-1:0] way_age [Ways];
  logic hit, victim_found;
  logic [WayW-1:0] hit_way, victim;
  always_comb begin
    hit_way = '0;
    victim = '0;
    victim_found = 1'b0;
    for (int unsigned w = 0; w < Ways; w++) begin
      way_valid[w] = valid_q[line_idx(s2_set, WayW'(w))];
      way_age[w] = age_q[32'(line_idx(s2_set, WayW'(w))) * WayW +: WayW] ^ WayW'(w);
      way_match[w] = way_valid[w] && tag_rdata[w*TagW +: TagW] == s2_tag;
      way_pending[w] = 1'b0;
      way_mshr[w] = '0;
      for (int unsigned m = 0; m < Mshrs; m++) begin
        if (mshr_valid_q[m] && mshr_set_q[m] == s2_set && mshr_way_q[m] == WayW'(w)) begin
          way_pending[w] = 1'b1;
          way_mshr[w] = MshrW'(m);
        end
      end
    end
    for (int w = Ways - 1; w >= 0; w--) begin
      if (way_match[w]) hit_way = WayW'(w);
      if (!way_valid[w]) begin
        victim = WayW'(w);
        victim_found = 1'b1;
      end
    end
    // Every way valid: the least recently used one.
    if (!victim_found) begin
      for (int unsigned w = 0; w < Ways; w++) begin
        if (way_age[w] == WayW'(Ways - 1)) victim = WayW'(w);
      end
    end
  end
  assign hit = |way_match;

  logic mshr_free;
  logic [MshrW-1:0] free_mshr;
  always_comb begin
    free_mshr = '0;
    for (int m = Mshrs - 1; m >= 0; m--) begin
      if (!mshr_valid_q[m]) free_mshr = MshrW'(m);
    end
  end
  assign mshr_free = !(&mshr_valid_q);

  // What the request in the lookup stage does, and whether it can go now.
  // alloc: a read miss takes a way and an MSHR for its fill; walloc: a
  // whole-line write miss takes them for its own bytes (no DRAM read).
  logic alloc, walloc, takes_way, need_ext, can_go, done, rq_in_ready;
  assign alloc = s2_read && !hit;
  assign walloc = s2_write && !hit && (&s2_req_q.be);
  assign takes_way = alloc || walloc;
  assign need_ext = !(s2_read && hit);
  assign can_go = rq_in_ready && (!takes_way || (mshr_free && !way_pending[victim]));
  assign done = s2_valid_q && can_go && (!need_ext || ext_req_ready_i);
  // The request goes out as it came (its kind and tag: DRAM echoes the tag).
  assign ext_req_valid_o = s2_valid_q && need_ext && can_go;
  assign ext_req_o = s2_req_q;

  // The way it uses (LRU), and the tag write of an allocation.
  logic touch;
  logic [WayW-1:0] touch_way;
  assign touch = done && !s2_amo && (takes_way || hit);
  assign touch_way = takes_way ? victim : hit_way;
  assign tag_we = (done && takes_way) ? Ways'(1) << victim : '0;
  logic [WayW-1:0] age_new [Ways];
  always_comb begin
    for (int unsigned w = 0; w < Ways; w++) begin
      if (WayW'(w) == touch_way) age_new[w] = '0;
      else if (way_age[w] < way_age[touch_way]) age_new[w] = way_age[w] + 1'b1;
      else age_new[w] = way_age[w];
    end
  end

  // A new request enters the lookup stage when it is empty or emptying,
  // except into the set whose tags an allocation writes in this cycle.
  assign in_req_ready_o = !inv_q && (!s2_valid_q || (done && !(takes_way && in_set == s2_set)));
  assign tag_re = in_req_valid_i && in_req_ready_o;

  // ---- response queue ------------------------------------------------------
  entry_t rq_in, head;
  logic [EntryW-1:0] head_bits;
  logic head_valid, rq_pop;
  always_comb begin
    rq_in = '0;
    rq_in.from_ram = s2_read && hit;
    rq_in.merged = s2_read && hit && way_pending[hit_way];
    rq_in.fill = alloc;
    rq_in.wmerge = s2_write && (hit || walloc);
    rq_in.walloc = walloc;
    rq_in.set_idx = s2_set;
    rq_in.way_idx = takes_way ? victim : hit_way;
    rq_in.mshr = takes_way ? free_mshr : way_mshr[hit_way];
    rq_in.tag = s2_req_q.tag;
    if (s2_write) begin
      rq_in.be = s2_req_q.be;
      rq_in.wdata = s2_req_q.wdata;
    end
  end
  assign head = head_bits;

  // (The count output is not needed: ready says whether there is room.)
  /* verilator lint_off PINCONNECTEMPTY */
  kestrel_fifo #(.Width(EntryW), .Depth(QueueDepth)) u_queue (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .flush_i    (1'b0),
    .in_valid_i (done),
    .in_ready_o (rq_in_ready),
    .in_data_i  (rq_in),
    .out_valid_o(head_valid),
    .out_ready_i(rq_pop),
    .out_data_o (head_bits),
    .count_o    ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ---- answer stage --------------------------------------------------------
  // A hit is read from the data RAM into the answer stage (the RAM's output
  // holds while the answer waits); a DRAM response passes straight through
  // once the answer stage is empty.
  logic data_re, b_load, dram_done;
  logic [LineBytes-1:0] data_we;
  logic [LineBits-1:0] data_wdata, data_rdata;
  logic [LineW-1:0] head_line;
  assign head_line = line_idx(head.set_idx, head.way_idx);
  always_comb begin
    rq_pop = 1'b0;
    data_re = 1'b0;
    b_load = 1'b0;
    dram_done = 1'b0;
    ext_rsp_ready_o = 1'b0;
    in_rsp_valid_o = 1'b0;
    in_rsp_o = ext_rsp_i;
    if (b_valid_q) begin
      in_rsp_valid_o = 1'b1;
      in_rsp_o.rdata = data_rdata;
      in_rsp_o.fault = b_fault_q;
      in_rsp_o.tag = b_tag_q;
    end else if (head_valid && !head.from_ram) begin
      in_rsp_valid_o = ext_rsp_valid_i;
      ext_rsp_ready_o = in_rsp_ready_i;
      dram_done = ext_rsp_valid_i && in_rsp_ready_i;
      rq_pop = dram_done;
    end
    if (head_valid && head.from_ram && (!b_valid_q || in_rsp_ready_i)) begin
      data_re = 1'b1;
      b_load = 1'b1;
      rq_pop = 1'b1;
    end
    // A fill writes the whole line, a write hit its bytes, once DRAM has
    // answered them without a fault.
    data_we = '0;
    data_wdata = head.wdata;
    if (dram_done && ext_rsp_i.fault == kestrel_pkg::FaultNone) begin
      if (head.fill) begin
        data_we = '1;
        data_wdata = ext_rsp_i.rdata;
      end else if (head.wmerge) begin
        data_we = head.be;
      end
    end
  end
  // The DRAM answer that ends an MSHR: a fill's, or a whole-line write's.
  logic fill_done;
  assign fill_done = dram_done && (head.fill || head.walloc);

  kestrel_ram_1r1w #(.Width(LineBits), .Depth(Lines), .Groups(LineBytes)) u_data (
    .clk_i  (clk_i),
    .re_i   (data_re),
    .raddr_i(head_line),
    .rdata_o(data_rdata),
    .we_i   (data_we),
    .waddr_i(head_line),
    .wdata_i(data_wdata)
  );

  assign inv_busy_o = inv_q;

  // ---- flops ---------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      age_q <= '0;
      mshr_valid_q <= '0;
      inv_q <= 1'b0;
      s2_valid_q <= 1'b0;
      b_valid_q <= 1'b0;
      {ev_hit_o, ev_miss_o, ev_merge_o, ev_evict_o, ev_write_o} <= '0;
    end else begin
      if (inv_i) inv_q <= 1'b1;
      if (inv_q && !s2_valid_q) begin
        // Every line invalid; the fills in flight complete invalid.
        valid_q <= '0;
        inv_q <= 1'b0;
      end
      if (done && takes_way) valid_q[line_idx(s2_set, victim)] <= 1'b1;
      if (done && s2_amo && hit) valid_q[line_idx(s2_set, hit_way)] <= 1'b0;
      // A fill or whole-line write that faults allocates nothing.
      if (fill_done && ext_rsp_i.fault != kestrel_pkg::FaultNone) valid_q[head_line] <= 1'b0;
      if (touch) begin
        for (int unsigned w = 0; w < Ways; w++) age_q[32'(line_idx(s2_set, WayW'(w))) * WayW +: WayW] <= age_new[w] ^ WayW'(w);
      end
      if (done && takes_way) mshr_valid_q[free_mshr] <= 1'b1;
      if (fill_done) mshr_valid_q[head.mshr] <= 1'b0;
      if (tag_re) s2_valid_q <= 1'b1;
      else if (done) s2_valid_q <= 1'b0;
      if (b_load) b_valid_q <= 1'b1;
      else if (in_rsp_ready_i) b_valid_q <= 1'b0;
      ev_hit_o <= done && s2_read && hit && !way_pending[hit_way];
      ev_merge_o <= done && s2_read && hit && way_pending[hit_way];
      ev_miss_o <= done && alloc;
      ev_evict_o <= done && takes_way && way_valid[victim];
      ev_write_o <= done && s2_write;
    end
  end

  // Datapath registers, loaded when used, meaningful only while their valid
  // bit (or the MSHR's) is set: no reset.
  always_ff @(posedge clk_i) begin
    if (tag_re) s2_req_q <= in_req_i;
    if (done && takes_way) begin
      mshr_set_q[free_mshr] <= s2_set;
      mshr_way_q[free_mshr] <= victim;
    end
    if (fill_done) mshr_fault_q[head.mshr] <= ext_rsp_i.fault;
    if (b_load) begin
      b_fault_q <= head.merged ? mshr_fault_q[head.mshr] : kestrel_pkg::FaultNone;
      b_tag_q <= head.tag;
    end
  end

  // ---- assertions ----------------------------------------------------------
  `KESTREL_STATIC_ASSERT(sets_pow2, Sets >= 2 && (Sets & (Sets - 1)) == 0)
  `KESTREL_STATIC_ASSERT(ways_pow2, Ways >= 1 && (Ways & (Ways - 1)) == 0)
  `KESTREL_STATIC_ASSERT(mshrs_some, Mshrs >= 1)
  // Both boundaries: what this unit offers holds until taken (the DRAM
  // request is the lookup register, the answer the answer stage or DRAM's
  // held response), and DRAM's responses hold likewise.  (The upstream
  // request is not held to the rule: kestrel_mem_atomic passes
  // kestrel_mem_xbar's offer through, which may change to another SM's
  // request while one waits; this unit takes whatever is offered when it
  // is ready.)
  `KESTREL_ASSERT_HANDSHAKE(in_rsp, in_rsp_valid_o, in_rsp_ready_i, in_rsp_o)
  `KESTREL_ASSERT_HANDSHAKE(ext_req, ext_req_valid_o, ext_req_ready_i, ext_req_o)
  `KESTREL_ASSERT_HANDSHAKE(ext_rsp, ext_rsp_valid_i, ext_rsp_ready_o, ext_rsp_i)
  `KESTREL_ASSERT_KNOWN(in_req_valid_known, in_req_valid_i)
  // A line is in at most one way of its set.
  `KESTREL_ASSERT(one_way_per_line, s2_valid_q |-> $onehot0(way_match))
  // DRAM answers in order: the response is the head entry's.
  `KESTREL_ASSERT(dram_in_order, dram_done |-> ext_rsp_i.tag == head.tag)
  // A DRAM response never arrives with nothing in flight to DRAM.
  `KESTREL_ASSERT(dram_expected, ext_rsp_valid_i |-> head_valid)
endmodule
