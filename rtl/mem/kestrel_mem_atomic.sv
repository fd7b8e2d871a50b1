// kestrel_mem_atomic: the memory-side atomic unit, between the memory
// crossbar (after the page check) and the external DRAM port.  Ordinary
// requests and their responses pass straight through.  A request with `amo`
// set (kestrel_pkg::mem_amo_t: one naturally aligned 4- or 8-byte word,
// marked by `be`, operand in `wdata`, a CAS's compare value in `amo.cmp`) is
// performed here as a read-modify-write of its line: the unit waits until
// every earlier request has been answered, reads the line, computes the new
// word (kestrel_amo_alu, or kestrel_amo_fadd for kx.amofadd.s) and answers
// the atomic with the line as it was before (the old value), with the
// request's tag.  No other request passes while an atomic is in progress, so
// every atomic of every SM is performed whole, in the order the crossbar took
// them (docs/isa.md section 2.2).
//
// The held line.  After an atomic the unit keeps its line (the line register
// with the new word merged in, and the bytes written since the read marked
// dirty) instead of writing it back at once: atomics on the same line and of
// the same kind (global or local) that follow are performed on the held copy
// without going to memory, which is what makes a warp's lanes on one word
// (each lane is one request, in lane order) or on one line cost two cycles
// each instead of a read and a write each.  The hold ends, writing the dirty
// bytes back in one write (nothing if a failed CAS was all there was), before
// anything else passes: any other request (loads and stores, LR/SC, an
// atomic on another line), a cycle with no request at all, or HoldLimit
// atomics performed on the held copy (so atomics that never pause still let
// memory see their line).  The write-back is posted: requests pass again in
// the next cycle, and its response, which the in-order memory gives before
// theirs, is absorbed where it arrives (the next atomic's read goes out
// behind it without waiting).  busy_o stays high while a line is held, an
// atomic is in progress or a write-back is unanswered: the launch does not
// end before the write-back has landed (the host reaches DRAM directly
// between launches).
//
// LR/SC (docs/isa.md section 1): one reservation per thread of the GPU
// (NumSms x Warps x Lanes entries: valid, line, word, doubleword), cleared
// at launch start (clear_i).  An LR (op AmoLr, a read whose `be` marks its
// word) passes through like a read and sets its thread's entry as it goes
// out.  Every write that goes out to DRAM (pass-through stores, the held
// line's write-back, a successful SC) ends every reservation on a 4-byte word
// it writes: the per-entry comparison sits in a loop of the flop process, run
// only in a cycle that sends a write.  An atomic's write reaches the
// reservations with the write-back, which is soon enough: an LR or SC is
// never performed while a line is held.  An SC is an atomic: after the drain
// it succeeds if its `held` is set and its thread's entry is valid on exactly
// its word and size; it drops that entry either way, writes its operand only
// on success (no read, and the line is not held), and is answered with 0
// (success) or 1 at the word's place of an otherwise zero line.
//
// Throughput: pass-through one request and one response per cycle.  An
// atomic that starts a hold takes the drain, the memory's read latency and
// two cycles; each further atomic on the held line two cycles; the hold's end
// one cycle.  An SC takes the write latency plus three cycles (a failed one
// two cycles after the drain).  An LR costs what a read does.  Handshakes are
// valid/ready on all four sides; the external payload of a pass-through
// request is the input's (stable while it waits, by the input's rule).
`include "kestrel_assert.svh"

module kestrel_mem_atomic #(
  parameter int unsigned Outstanding = 16,
  // atomics performed on a held line before it is written back regardless
  parameter int unsigned HoldLimit = 64,
  // the GPU's threads, one reservation each
  parameter int unsigned NumSms = kestrel_pkg::DefaultSms,
  parameter int unsigned Warps = kestrel_pkg::DefaultWarps,
  parameter int unsigned Lanes = kestrel_pkg::DefaultLanes
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   clear_i,         // launch start: every reservation ends
  output logic                   busy_o,          // an atomic in progress, a line held or its write-back unanswered
  // crossbar side
  input  logic                   in_req_valid_i,
  output logic                   in_req_ready_o,
  input  kestrel_pkg::mem_req_t  in_req_i,
  output logic                   in_rsp_valid_o,
  input  logic                   in_rsp_ready_i,
  output kestrel_pkg::mem_rsp_t  in_rsp_o,
  // external DRAM port
  output logic                   ext_req_valid_o,
  input  logic                   ext_req_ready_i,
  output kestrel_pkg::mem_req_t  ext_req_o,
  input  logic                   ext_rsp_valid_i,
  output logic                   ext_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t  ext_rsp_i
);
  localparam int unsigned LineBytes = kestrel_pkg::LineBytes;
  localparam int unsigned OffW = kestrel_pkg::LineOffW;
  localparam int unsigned CountW = $clog2(Outstanding + 1) + 1;
  localparam int unsigned Entries = NumSms * Warps * Lanes;
  localparam int unsigned LineW = kestrel_pkg::AddrW - OffW;
  localparam int unsigned WordW = OffW - 2;  // 4-byte words of a line
  localparam int unsigned HoldW = $clog2(HoldLimit + 1);

  typedef enum logic [2:0] {Pass, Drain, Read, ReadWait, Write, WriteWait, Answer, Flush} state_e;
  state_e state_q, state_d;

  kestrel_pkg::mem_req_t amo_q;
  logic [kestrel_pkg::LineBits-1:0] line_q;
  // The held line: valid, its address and kind, the bytes written since it
  // was read, and the atomics performed on it since.
  logic hold_q;
  logic hold_local_q;
  logic [LineW-1:0] hold_line_q;
  logic [LineBytes-1:0] dirty_q;
  logic [HoldW-1:0] hits_q;
  // A write-back has gone out and its response is still to come.
  logic wb_pending_q;
  kestrel_pkg::fault_kind_e fault_q;
  logic [CountW-1:0] pending_q, pending_d;  // pass-through requests not yet answered

  // The atomic's word: the lowest enabled byte gives its offset, the number
  // of enabled bytes its size.
  logic [OffW-1:0] off;
  logic dword;
  logic [63:0] old_v, operand, alu_v, new_v, old_dw, op_dw;
  logic [31:0] fadd_v;
  logic write_v;
  always_comb begin
    off = '0;
    for (int b = LineBytes - 1; b >= 0; b--) begin
      if (amo_q.be[b]) off = OffW'(b);
    end
    dword = !off[2] && amo_q.be[{off[OffW-1:3], 3'b100}];
    old_dw = line_q[32'(off[OffW-1:3]) * 64 +: 64];
    op_dw = amo_q.wdata[32'(off[OffW-1:3]) * 64 +: 64];
    old_v = off[2] ? {32'd0, old_dw[63:32]} : old_dw;
    operand = off[2] ? {32'd0, op_dw[63:32]} : op_dw;
  end

  // Aligned words: the two low offset bits are always 0.
  logic [1:0] unused_off;
  assign unused_off = off[1:0];

  kestrel_amo_alu u_alu (
    .op_i     (amo_q.amo.op),
    .dword_i  (dword),
    .old_i    (old_v),
    .operand_i(operand),
    .compare_i(amo_q.amo.cmp),
    .new_o    (alu_v),
    .write_o  (write_v)
  );
  // kx.amofadd.s: the unit's one single-precision adder.
  kestrel_amo_fadd u_fadd (
    .old_i   (old_v[31:0]),
    .addend_i(operand[31:0]),
    .sum_o   (fadd_v)
  );
  logic sc, write_new;
  assign sc = amo_q.amo.op == kestrel_pkg::AmoSc;
  // An SC that gets to the write-back writes its operand.
  assign new_v = sc ? operand : (amo_q.amo.op == kestrel_pkg::AmoFadd) ? {32'd0, fadd_v} : alu_v;
  assign write_new = sc || write_v;

  // The new word at its place in a line, and the held line with it merged in.
  logic [kestrel_pkg::LineBits-1:0] new_line, merged_line;
  always_comb begin
    new_line = '0;
    new_line[32'(off[OffW-1:3]) * 64 +: 64] = off[2] ? {new_v[31:0], 32'd0} : new_v;
    for (int unsigned b = 0; b < LineBytes; b++) begin
      merged_line[b*8 +: 8] = amo_q.be[b] ? new_line[b*8 +: 8] : line_q[b*8 +: 8];
    end
  end

  // An atomic (not LR/SC) on the held line, of the line's kind, within the
  // hold's limit, is performed on the held copy.
  logic in_local, in_lrsc, hit;
  assign in_local = in_req_i.kind == kestrel_pkg::MemLocal;
  assign in_lrsc = in_req_i.amo.op == kestrel_pkg::AmoLr || in_req_i.amo.op == kestrel_pkg::AmoSc;
  assign hit = hold_q && in_req_i.amo.valid && !in_lrsc && in_local == hold_local_q
               && in_req_i.addr[kestrel_pkg::AddrW-1:OffW] == hold_line_q && 32'(hits_q) < HoldLimit;

  // The unit's own request in this state: the atomic's read, an SC's write,
  // the held line's write-back.
  logic amo_local, own_local, own_write;
  logic [LineW-1:0] amo_line;
  kestrel_pkg::mem_req_t own_req;
  assign amo_local = amo_q.kind == kestrel_pkg::MemLocal;
  assign amo_line = amo_q.addr[kestrel_pkg::AddrW-1:OffW];
  always_comb begin
    own_req = '0;
    own_req.tag = amo_q.tag;
    own_local = amo_local;
    own_write = 1'b0;
    own_req.addr = {amo_line, OffW'(0)};
    if (state_q == Flush) begin
      own_local = hold_local_q;
      own_write = 1'b1;
      own_req.addr = {hold_line_q, OffW'(0)};
      own_req.be = dirty_q;
      own_req.wdata = line_q;
    end else if (state_q == Write) begin
      own_write = 1'b1;
      own_req.be = amo_q.be;
      own_req.wdata = new_line;
    end
    own_req.write = own_write;
    if (own_local) own_req.kind = kestrel_pkg::MemLocal;
    else if (own_write) own_req.kind = kestrel_pkg::MemWrite;
    else own_req.kind = kestrel_pkg::MemRead;
  end
  // Line addresses are line aligned (the offset bits are always 0), and an
  // atomic's kind says what its `write` would.
  logic [OffW:0] unused_amo_bits;
  assign unused_amo_bits = {amo_q.addr[OffW-1:0], amo_q.write};

  // ---- LR/SC reservations ---------------------------------------------------
  // Thread index of an LR/SC: (sm * Warps + warp) * Lanes + lane; a thread
  // outside the configuration reserves nothing and never succeeds.
  function automatic int unsigned thread_idx(input logic [7:0] sm, input logic [7:0] warp,
                                             input logic [7:0] lane);
    if (32'(sm) < NumSms && 32'(warp) < Warps && 32'(lane) < Lanes)
      thread_idx = (32'(sm) * Warps + 32'(warp)) * Lanes + 32'(lane);
    else
      thread_idx = Entries;
  endfunction
  // The word of an LR/SC: its lowest enabled byte, and a doubleword if the
  // next word is enabled too.
  function automatic logic [WordW:0] word_of(input logic [LineBytes-1:0] be);
    /* verilator lint_off UNUSEDSIGNAL */  // o[1:0]: aligned words
    logic [OffW-1:0] o;
    /* verilator lint_on UNUSEDSIGNAL */
    o = '0;
    for (int b = LineBytes - 1; b >= 0; b--) begin
      if (be[b]) o = OffW'(b);
    end
    word_of = {o[OffW-1:2], !o[2] && be[{o[OffW-1:3], 3'b100}]};
  endfunction

  logic [Entries-1:0] res_valid_q, res_dword_q;
  logic [LineW-1:0] res_line_q [Entries];
  logic [WordW-1:0] res_word_q [Entries];

  // The write going out this cycle, if any, and the 4-byte words it touches.
  logic wr_fire, lr_fire, sc_decide, sc_ok;
  logic [LineBytes/4-1:0] wr_words;
  always_comb begin
    wr_fire = ext_req_valid_o && ext_req_ready_i
              && (ext_req_o.kind == kestrel_pkg::MemWrite || (ext_req_o.kind == kestrel_pkg::MemLocal && ext_req_o.write));
    for (int unsigned w = 0; w < LineBytes / 4; w++) wr_words[w] = |ext_req_o.be[w*4 +: 4];
  end
  assign lr_fire = state_q == Pass && !hold_q && in_req_valid_i && in_req_i.amo.valid && in_req_i.amo.op == kestrel_pkg::AmoLr
                   && ext_req_ready_i;
  // An SC decides at the end of its drain.
  assign sc_decide = state_q == Drain && pending_q == '0 && sc;
  int unsigned lr_idx, sc_idx;
  assign lr_idx = thread_idx(in_req_i.amo.sm, in_req_i.amo.warp, in_req_i.amo.lane);
  assign sc_idx = thread_idx(amo_q.amo.sm, amo_q.amo.warp, amo_q.amo.lane);
  always_comb begin
    sc_ok = 1'b0;
    if (amo_q.amo.held && sc_idx < Entries) begin
      sc_ok = res_valid_q[sc_idx] && res_line_q[sc_idx] == amo_q.addr[kestrel_pkg::AddrW-1:OffW]
              && res_word_q[sc_idx] == off[OffW-1:2] && res_dword_q[sc_idx] == dword;
    end
  end

  always_comb begin
    state_d = state_q;
    pending_d = pending_q;
    in_req_ready_o = 1'b0;
    ext_req_valid_o = 1'b0;
    ext_req_o = in_req_i;
    ext_rsp_ready_o = 1'b0;
    in_rsp_valid_o = 1'b0;
    in_rsp_o = ext_rsp_i;
    unique case (state_q)
      Pass, Drain: begin
        // Responses of ordinary requests go straight back (none is pending
        // while a line is held: its first atomic drained them), after the
        // posted write-back's, which the memory answers first (in order).
        if (wb_pending_q) begin
          ext_rsp_ready_o = 1'b1;
        end else begin
          in_rsp_valid_o = ext_rsp_valid_i;
          ext_rsp_ready_o = in_rsp_ready_i;
          if (ext_rsp_valid_i && in_rsp_ready_i) pending_d = pending_d - 1'b1;
        end
        if (state_q == Pass && hold_q) begin
          // A hit is taken into amo_q and performed on the held copy;
          // anything else, or nothing, ends the hold first.
          in_req_ready_o = hit;
          state_d = (in_req_valid_i && hit) ? Answer : Flush;
        end else if (state_q == Pass) begin
          if (in_req_i.amo.valid && in_req_i.amo.op == kestrel_pkg::AmoLr) begin
            // An LR goes out as the read it is (its entry is set as it goes).
            ext_req_valid_o = in_req_valid_i;
            ext_req_o.amo = '0;
            ext_req_o.be = '0;
            in_req_ready_o = ext_req_ready_i;
            if (in_req_valid_i && ext_req_ready_i) pending_d = pending_d + 1'b1;
          end else if (in_req_i.amo.valid) begin
            in_req_ready_o = 1'b1;  // taken into amo_q
            if (in_req_valid_i) state_d = Drain;
          end else begin
            ext_req_valid_o = in_req_valid_i;
            in_req_ready_o = ext_req_ready_i;
            if (in_req_valid_i && ext_req_ready_i) pending_d = pending_d + 1'b1;
          end
        end else if (pending_q == '0) begin
          // An SC reads nothing: it writes if it holds its reservation.
          state_d = !sc ? Read : sc_ok ? Write : Answer;
        end
      end
      Read: begin
        ext_req_valid_o = 1'b1;
        ext_req_o = own_req;
        if (ext_req_ready_i) state_d = ReadWait;
      end
      ReadWait: begin  // after the posted write-back's response, if that is still to come
        ext_rsp_ready_o = 1'b1;
        if (ext_rsp_valid_i && !wb_pending_q) state_d = Answer;
      end
      Write: begin  // a successful SC
        ext_req_valid_o = 1'b1;
        ext_req_o = own_req;
        if (ext_req_ready_i) state_d = WriteWait;
      end
      WriteWait: begin
        ext_rsp_ready_o = 1'b1;
        if (ext_rsp_valid_i && !wb_pending_q) state_d = Answer;
      end
      Flush: begin
        // The held line's dirty bytes in one posted write (its response is
        // absorbed where it arrives); a clean hold just ends.
        ext_req_valid_o = dirty_q != '0;
        ext_req_o = own_req;
        if (dirty_q == '0 || ext_req_ready_i) state_d = Pass;
      end
      default: begin  // Answer
        in_rsp_valid_o = 1'b1;
        in_rsp_o.rdata = line_q;
        in_rsp_o.fault = fault_q;
        in_rsp_o.tag = amo_q.tag;
        if (in_rsp_ready_i) state_d = Pass;
      end
    endcase
  end

  // An atomic answered without a fault (not an SC) leaves its line held.
  logic performed;
  assign performed = state_q == Answer && in_rsp_ready_i && !sc && fault_q == kestrel_pkg::FaultNone;
  assign busy_o = state_q != Pass || hold_q || wb_pending_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= Pass;
      pending_q <= '0;
      fault_q <= kestrel_pkg::FaultNone;
      hold_q <= 1'b0;
      dirty_q <= '0;
      hits_q <= '0;
      wb_pending_q <= 1'b0;
    end else begin
      state_q <= state_d;
      pending_q <= pending_d;
      if (state_q == ReadWait && ext_rsp_valid_i && !wb_pending_q) fault_q <= ext_rsp_i.fault;
      if (sc_decide) fault_q <= kestrel_pkg::FaultNone;
      if (performed) begin
        hold_q <= 1'b1;
        dirty_q <= (hold_q ? dirty_q : '0) | (write_new ? amo_q.be : '0);
      end
      if (state_q == Pass && hold_q && in_req_valid_i && hit) hits_q <= hits_q + 1'b1;
      if (performed && !hold_q) hits_q <= '0;
      if (state_q == Flush && state_d == Pass) begin
        hold_q <= 1'b0;
        dirty_q <= '0;
      end
      // The write-back's response is the next one the memory gives.
      if (state_q == Flush && ext_req_valid_o && ext_req_ready_i) wb_pending_q <= 1'b1;
      else if (wb_pending_q && ext_rsp_valid_i && ext_rsp_ready_o) wb_pending_q <= 1'b0;
    end
  end

  // Reservation flags: reset, cleared at launch start; a write that goes out
  // ends every entry on a word it writes (an SC's own entry ends at its
  // decision); an LR sets its thread's entry.  Only one request goes out per
  // cycle, so an LR and a write never meet in one cycle.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      res_valid_q <= '0;
    end else if (clear_i) begin
      res_valid_q <= '0;
    end else begin
      if (wr_fire) begin
        for (int unsigned e = 0; e < Entries; e++) begin
          if (res_line_q[e] == ext_req_o.addr[kestrel_pkg::AddrW-1:OffW]
              && (wr_words[res_word_q[e]] || (res_dword_q[e] && wr_words[res_word_q[e] | WordW'(1)])))
            res_valid_q[e] <= 1'b0;
        end
      end
      if (sc_decide && sc_idx < Entries) res_valid_q[sc_idx] <= 1'b0;
      if (lr_fire && lr_idx < Entries) res_valid_q[lr_idx] <= 1'b1;
    end
  end

  // Reserved words: datapath registers, meaningful only while valid, no reset.
  always_ff @(posedge clk_i) begin
    if (lr_fire && lr_idx < Entries) begin
      {res_line_q[lr_idx], res_word_q[lr_idx], res_dword_q[lr_idx]} <= {in_req_i.addr[kestrel_pkg::AddrW-1:OffW],
                                                                         word_of(in_req_i.be)};
    end
  end

  // The atomic, its line and the held line's address: datapath registers,
  // loaded when used, no reset.
  always_ff @(posedge clk_i) begin
    if (state_q == Pass && in_req_valid_i && in_req_i.amo.valid && in_req_ready_o) amo_q <= in_req_i;
    if (state_q == ReadWait && ext_rsp_valid_i && !wb_pending_q) line_q <= ext_rsp_i.rdata;
    if (performed && write_new) line_q <= merged_line;
    if (performed && !hold_q) {hold_local_q, hold_line_q} <= {amo_local, amo_line};
    // An SC's answer: 0 (success) or 1 at its word's place.
    if (sc_decide) line_q <= kestrel_pkg::LineBits'(!sc_ok) << (32'(off) * 8);
  end

  // A response to the requester holds until taken.  (A passed-through
  // request is as stable as the requester keeps it: kestrel_mem_xbar may
  // offer another SM's request while one waits, so ext_req is not held to
  // the rule here.)
  `KESTREL_ASSERT_HANDSHAKE(in_rsp, in_rsp_valid_o, in_rsp_ready_i, in_rsp_o)
  `KESTREL_ASSERT_KNOWN(ext_req_valid_known, ext_req_valid_o)
  `KESTREL_ASSERT_KNOWN(in_req_valid_known, in_req_valid_i)
  `KESTREL_ASSERT_KNOWN(ext_rsp_valid_known, ext_rsp_valid_i)
endmodule
