// kestrel_lsu: the SM's load/store unit.  Takes warp memory instructions
// (valid/ready), checks every active lane's address, coalesces the lanes into
// line-sized requests and answers with one writeback (loads) or completion
// (stores) per instruction, or with the fault of the lowest faulting lane.
//
// Instructions in flight (docs/microarchitecture.md, "Load/store unit"): the
// unit has Slots instruction slots.  The front takes one instruction at a
// time into a free slot, checks it, makes its shared-memory passes and sends
// its line requests; in the cycle of its last pass or request it takes the
// next instruction, while the lines are still outstanding, so accesses
// without bank conflicts go through at one warp instruction per cycle.  An
// instruction the front cannot take yet waits in a queue of two (the SM's
// stage 1 hands one over every cycle it offers one; req_full_o tells the
// issue stage when a third could find no room).  Up to OutstandingLines
// line requests of any slots are in flight; each remembers its slot, so a
// response (the memory answers in request order) fills its own slot's lanes.
// Slots are taken and completed in a ring, so instructions complete (and
// retire) in the order the front took them, which is the order memory and
// the shared banks performed them in: the retire order is an order in which
// the SM's accesses happened, as lock-step with the functional model needs.
// A slot completes once its front work is over and its lines are all back.
//
// Per lane, in docs/isa.md order (the functional model's order too):
// alignment (MISALIGNED), bits 63..32 on RV64 (ILLEGAL_ADDRESS), the shared
// window and a guard of SharedGuard bytes on each side (SHARED_BOUNDS outside
// the block's size), the local window and the guard below it (LOCAL_BOUNDS
// outside stack_bytes), else global memory, whose page check the memory side
// answers per line (ILLEGAL_ADDRESS, WRITE_PROTECT).
//
// Coalescing: each cycle the lowest pending lane picks a target.  Global and
// local memory: every pending lane with the same target and line joins it and
// the line becomes a request on the memory port, up to OutstandingLines in
// flight, answered in order.  Requests are issued in lowest-lane order, so
// the first failing response belongs to the lowest lane that can fail the
// page check; lanes above a lane that failed its own checks are never sent.
// Overlapping stores of one instruction: the highest lane's bytes win.
//
// Shared memory (docs/isa.md section 2.3, guide G.3.3/G.5.3) is Lanes banks
// (two with one lane) of 32-bit words, word w of the SM's shared RAM in bank w
// mod Banks, each bank one synchronous-read RAM.  A pass serves, in every bank
// at once, the word the bank's lowest pending lane wants, and every pending
// lane on that word (a broadcast for reads; for writes each byte takes the
// highest lane's value); so an access takes exactly as many passes, one per
// cycle, as the largest number of distinct words one bank must deliver.  A
// 64-bit access uses an even/odd bank pair, served together.  Atomics: a bank
// serves one lane per pass (lanes on one word go one after another in lane
// order, each getting its own old value); an atomic pass takes two cycles, the
// read and then the modify-write through one kestrel_amo_alu per bank (a CAS
// whose comparison failed writes nothing back).  kx.amofadd.s has one adder
// (kestrel_amo_fadd) for all banks: its pass writes the banks back one after
// another, so it takes 1 + (banks in the pass) cycles; passes are counted as
// for every atomic.
//
// Atomics on global and local memory go one lane per request, in lane order,
// as a mem_req_t with `amo` set (a CAS's compare value in amo.cmp); the memory
// side (kestrel_mem_atomic) does the read-modify-write and answers with the
// old line.
//
// RV32's 64-bit register-pair atomics (docs/isa.md section 2.2): the
// request carries the low words (rs2, and rd for a CAS); the high words
// (rs2+1, rd+1) arrive on req_wdata_hi_i/req_cmp_hi_i in the cycle after the
// request is taken (the SM reads them in a second register-file cycle), and
// nothing is sent before they are in.  So a pair never waits in the queue:
// the SM issues one only when req_front_free_o says the front will take it
// at once.  The old 64-bit values come back in two
// completion beats: rd with the low words (rsp_last_o low), then rd+1 with the
// high words (rsp_last_o high); a fault or rd = x0 is one beat.
//
// LR/SC (docs/isa.md section 1).  A thread's reservation lives where its
// latest LR went: shared memory's here, one entry per thread slot (Warps x
// Lanes: valid, bank, row, doubleword), global and local memory's at the
// memory side (kestrel_mem_atomic, which the LR and SC requests name their
// warp and lane to; `gres` here says a thread's latest LR/SC was such an LR,
// else its memory-side SC is sent with amo.held = 0 and fails there).  An LR
// or SC on shared memory makes the passes of a load or a store (the model's
// pass count); an LR sets the served lanes' entries; in an SC pass each
// bank's lowest served lane holding a reservation on exactly its word and
// size writes (lane order: its write ends the others'), every served lane
// gets rd = 0 (wrote) or 1 and loses its entry.  Every bank write (store
// pass, atomic write-back, successful SC) ends the entries on a word it
// writes: each entry looks at its own bank's (and pair's) write, in a loop of
// the flop process that runs only in a cycle with a bank write.  Global and
// local LR/SC go one lane per request like the atomics, and clear the lane's
// shared entry.  A warp slot that takes a new block (slot_start_i) ends its
// threads' shared entries and `gres`: a new thread holds no reservation.
//
// Events, at the completion without a fault: shared_access (the instruction
// touched shared memory), shared_passes (the passes it took) and atomics (its
// active lanes, for an atomic) - the model's counters 13-15.
`include "kestrel_assert.svh"

module kestrel_lsu #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned SharedBytes = 64 * 1024,
  parameter int unsigned Slots = 4,              // instructions in flight
  parameter int unsigned OutstandingLines = 16,  // line requests in flight (a power of two)
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        flush_i,
  input  logic [Warps-1:0]            slot_start_i,      // warp slots taking a new block: their threads' reservations end
  // launch constants
  input  logic [31:0]                 shared_base_i,
  input  logic [31:0]                 shared_window_i,   // window length: 0 when the launch has none
  input  logic [31:0]                 shared_size_i,
  input  logic [31:0]                 stack_bytes_i,
  // instruction side
  input  logic                        req_valid_i,
  output logic                        req_ready_o,
  output logic                        req_full_o,        // an instruction offered next cycle might find no room
  output logic                        req_front_free_o,  // one offered next cycle goes straight to the front
  output logic                        idle_o,            // no instruction in the queue, the front or a slot
  input  logic [WarpW-1:0]            req_warp_i,
  input  logic [31:0]                 req_pc_i,          // carried to the completion
  input  logic                        req_fp_i,          // flw: rd is an f register (carried)
  input  logic [4:0]                  req_rd_i,
  input  logic                        req_store_i,
  input  logic                        req_amo_i,         // atomic: old value to rd, like a load
  input  logic [4:0]                  req_amo_op_i,      // its funct5 (kestrel_pkg::Amo*)
  input  kestrel_pkg::mem_size_e      req_size_i,
  input  logic                        req_unsigned_i,
  input  logic [Lanes-1:0]            req_mask_i,
  input  logic [Lanes*Xlen-1:0]       req_addr_i,
  input  logic [Lanes*Xlen-1:0]       req_wdata_i,
  input  logic [Lanes*Xlen-1:0]       req_cmp_i,         // a CAS's compare values (the lanes' rd)
  input  logic                        req_pair_i,        // RV32 register-pair atomic (64-bit values)
  input  logic [Lanes*32-1:0]         req_wdata_hi_i,    // pair: rs2+1, the cycle after the request
  input  logic [Lanes*32-1:0]         req_cmp_hi_i,      // pair: rd+1, the cycle after the request
  input  logic [31:0]                 req_shared_phys_i, // block's region in the SM shared RAM
  input  logic [31:0]                 req_local_base_i,  // the warp's local backing in DRAM
  // completion side
  output logic                        rsp_valid_o,
  input  logic                        rsp_ready_i,
  output logic [WarpW-1:0]            rsp_warp_o,
  output logic [31:0]                 rsp_pc_o,
  output logic                        rsp_fp_o,
  output logic [4:0]                  rsp_rd_o,
  output logic                        rsp_load_o,
  output logic                        rsp_last_o,        // low only on a pair's first beat
  output logic [Lanes-1:0]            rsp_mask_o,
  output logic [Lanes*Xlen-1:0]       rsp_data_o,
  output kestrel_pkg::fault_kind_e    rsp_fault_o,
  output logic [LaneW-1:0]            rsp_fault_lane_o,
  output logic [Xlen-1:0]             rsp_fault_addr_o,
  // counter events (one cycle, at the completion handshake)
  output logic                        ev_shared_access_o,
  output logic [6:0]                  ev_shared_passes_o,
  output logic [6:0]                  ev_atomics_o,
  // global memory side
  output logic                        mem_req_valid_o,
  input  logic                        mem_req_ready_i,
  output kestrel_pkg::mem_req_t       mem_req_o,
  input  logic                        mem_rsp_valid_i,
  output logic                        mem_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t       mem_rsp_i
);
  localparam int unsigned LineBytes = kestrel_pkg::LineBytes;
  localparam int unsigned LineBits = kestrel_pkg::LineBits;
  localparam int unsigned OffW = kestrel_pkg::LineOffW;
  // Shared memory's banks: one per lane, but at least two, since a 64-bit
  // access (RV64's doublewords, RV32's register pairs) is an even/odd bank
  // pair served in one pass.  With one lane every access is one pass either
  // way (the model's pass count does not depend on the bank count then).
  localparam int unsigned Banks = (Lanes > 1) ? Lanes : 2;
  localparam int unsigned BankW = $clog2(Banks);
  localparam int unsigned BankRows = SharedBytes / (4 * Banks);
  localparam int unsigned RowW = (BankRows > 1) ? $clog2(BankRows) : 1;
  localparam int unsigned SlotW = (Slots > 1) ? $clog2(Slots) : 1;
  localparam int unsigned LinesW = $clog2(OutstandingLines + 1);

  typedef enum logic [1:0] {TargetShared, TargetLocal, TargetGlobal} target_e;

  // ---- the queue in front of the front ----------------------------------------
  // An offered instruction goes straight to the front when the front takes
  // one this cycle and nobody waits; otherwise it waits here, in order.  The
  // taken instruction (t_*) is the queue's head, or the offered one.
  kestrel_pkg::mem_size_e t_size;
  // (The size's width from a signal: Yosys 0.23 takes no $bits of a type.)
  localparam int unsigned ReqW = WarpW + 32 + 1 + 5 + 1 + 1 + 5 + $bits(t_size) + 1 + Lanes + 3 * Lanes * Xlen + 1
                                 + 32 + 32;
  logic take_ok, take_queued, take_offered;
  logic q_valid, q_in_ready;
  logic [1:0] q_count;
  logic [ReqW-1:0] q_head, offered_req;
  logic [WarpW-1:0] t_warp;
  logic [31:0] t_pc, t_shared_phys, t_local_base;
  logic t_fp, t_store, t_amo, t_unsigned, t_pair;
  logic [4:0] t_rd, t_amo_op;
  logic [Lanes-1:0] t_mask;
  logic [Lanes*Xlen-1:0] t_addr, t_wdata, t_cmp;
  assign offered_req = {req_warp_i, req_pc_i, req_fp_i, req_rd_i, req_store_i, req_amo_i, req_amo_op_i, req_size_i,
                        req_unsigned_i, req_mask_i, req_addr_i, req_wdata_i, req_cmp_i, req_pair_i,
                        req_shared_phys_i, req_local_base_i};
  assign {t_warp, t_pc, t_fp, t_rd, t_store, t_amo, t_amo_op, t_size, t_unsigned, t_mask, t_addr, t_wdata, t_cmp,
          t_pair, t_shared_phys, t_local_base} = q_valid ? q_head : offered_req;
  assign take_queued = take_ok && q_valid;
  assign take_offered = take_ok && !q_valid && req_valid_i;
  kestrel_fifo #(.Width(ReqW), .Depth(2)) u_queue (
    .clk_i, .rst_ni, .flush_i,
    .in_valid_i (req_valid_i && !take_offered),
    .in_ready_o (q_in_ready),
    .in_data_i  (offered_req),
    .out_valid_o(q_valid),
    .out_ready_i(take_ok),
    .out_data_o (q_head),
    .count_o    (q_count)
  );
  assign req_ready_o = take_offered || q_in_ready;
  // The issue stage decides a cycle ahead: the instruction it issues now is
  // offered next cycle, when the queue may hold what it holds now plus the
  // one offered now (if the front takes nothing meanwhile).
  assign req_full_o = 2'(q_count) + 2'(req_valid_i) >= 2'd2;

  // ---- the front's instruction registers -------------------------------------
  logic busy_q;
  logic [SlotW-1:0] front_slot_q;
  logic [WarpW-1:0] warp_q;
  logic store_q, unsigned_q, amo_q;
  logic lr, sc, serial, wr_pass;
  logic [4:0] amo_op_q;
  kestrel_pkg::mem_size_e size_q;
  logic [Lanes-1:0] mask_q;
  logic [Lanes*Xlen-1:0] addr_q, wdata_q, cmp_q;
  logic [31:0] shared_phys_q;
  logic [31:0] local_base_q;
  logic [Lanes-1:0] pending_q;
  kestrel_pkg::fault_kind_e front_fault;  // the front slot's first failing line
  logic [6:0] passes_q;
  // RV32 register pairs: the high words in, the old values' high words out.
  localparam bit Rv32 = (Xlen == 32);
  localparam logic [31:0] LocalGranuleMask = 32'(kestrel_pkg::LocalInterleaveBytes - 1);
  logic pair_q, hi_wait_q;
  logic [Lanes*32-1:0] wdata_hi_q, cmp_hi_q;
  // Each lane's operand and compare value as 64 bits: XLEN wide, or a pair.
  logic [Lanes*64-1:0] wdata64, cmp64;
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      wdata64[l*64 +: 64] = Rv32 ? {pair_q ? wdata_hi_q[l*32 +: 32] : 32'd0, wdata_q[l*Xlen +: 32]}
                                 : 64'(wdata_q[l*Xlen +: Xlen]);
      cmp64[l*64 +: 64] = Rv32 ? {pair_q ? cmp_hi_q[l*32 +: 32] : 32'd0, cmp_q[l*Xlen +: 32]}
                               : 64'(cmp_q[l*Xlen +: Xlen]);
    end
  end

  // ---- per-lane classification (from the registered instruction) -----------
  logic [Lanes-1:0] lane_fault;
  kestrel_pkg::fault_kind_e lane_kind [Lanes];
  target_e lane_target [Lanes];
  logic [31:0] lane_phys [Lanes];
  logic [3:0] size_bytes;

  // LR and SC are atomics to the SM (rd written) but take load/store passes;
  // the other atomics go one lane per bank (`serial`) with a write-back.
  assign lr = amo_q && amo_op_q == kestrel_pkg::AmoLr;
  assign sc = amo_q && amo_op_q == kestrel_pkg::AmoSc;
  assign serial = amo_q && !lr && !sc;
  assign wr_pass = store_q || sc;

  // The window and its two guards; none when the launch has no window.
  logic [31:0] shared_span;
  assign shared_span = (shared_window_i == '0) ? '0 : shared_window_i + 2 * kestrel_pkg::SharedGuard;

  always_comb begin
    unique case (size_q)
      kestrel_pkg::SizeByte:   size_bytes = 4'd1;
      kestrel_pkg::SizeHalf:   size_bytes = 4'd2;
      kestrel_pkg::SizeWord:   size_bytes = 4'd4;
      default:                 size_bytes = 4'd8;
    endcase
    for (int unsigned l = 0; l < Lanes; l++) begin
      logic [Xlen-1:0] a;
      logic [31:0] a32, shared_off, local_off;
      a = addr_q[l*Xlen +: Xlen];
      a32 = a[31:0];
      // Below a window the offsets wrap, so the bounds compare in 33 bits.
      shared_off = a32 - shared_base_i;
      local_off = a32 - kestrel_pkg::LocalBase;
      lane_kind[l] = kestrel_pkg::FaultNone;
      lane_target[l] = TargetGlobal;
      lane_phys[l] = a32;
      if ((a32[3:0] & (size_bytes - 4'd1)) != 4'd0) begin
        lane_kind[l] = kestrel_pkg::FaultMisaligned;
      end else if (Xlen > 32 && (a >> 32) != '0) begin
        lane_kind[l] = kestrel_pkg::FaultIllegalAddress;
      end else if (a32 - (shared_base_i - kestrel_pkg::SharedGuard) < shared_span) begin
        lane_target[l] = TargetShared;
        lane_phys[l] = shared_phys_q + shared_off;
        if ({1'b0, shared_off} + 33'(size_bytes) > {1'b0, shared_size_i})
          lane_kind[l] = kestrel_pkg::FaultSharedBounds;
      end else if (a32 >= kestrel_pkg::LocalGuardBase && a32 < kestrel_pkg::LocalLimit) begin
        lane_target[l] = TargetLocal;
        // The warp's threads are interleaved granule by granule
        // (docs/isa.md section 4), so lanes at one offset are contiguous.
        lane_phys[l] = local_base_q
                       + (local_off & ~LocalGranuleMask) * 32'(Lanes)
                       + 32'(l) * kestrel_pkg::LocalInterleaveBytes
                       + (local_off & LocalGranuleMask);
        if ({1'b0, local_off} + 33'(size_bytes) > {1'b0, stack_bytes_i})
          lane_kind[l] = kestrel_pkg::FaultLocalBounds;
      end
      lane_fault[l] = mask_q[l] && (lane_kind[l] != kestrel_pkg::FaultNone);
    end
  end

  // Lowest lane that failed its own checks; lanes from it upward are never
  // sent (a lower lane may still fail the page check and win).
  logic class_fault;
  logic [LaneW-1:0] class_lane;
  logic [Lanes-1:0] class_onehot, below_class;
  kestrel_lowest_set #(.Width(Lanes)) u_class_lane (
    .bits_i  (lane_fault),
    .valid_o (class_fault),
    .index_o (class_lane),
    .onehot_o(class_onehot)
  );
  assign below_class = class_fault ? (class_onehot - 1'b1) : '1;

  // The lanes still to serve: never a lane at or above the first failing one.
  logic [Lanes-1:0] pending_eff;
  assign pending_eff = pending_q & below_class;

  // ---- line selection (global and local memory) ------------------------------
  logic lead_valid;
  logic [LaneW-1:0] lead;
  logic [Lanes-1:0] lead_onehot, group;
  logic [31:0] line_addr;
  target_e lead_target;
  kestrel_lowest_set #(.Width(Lanes)) u_lead (
    .bits_i  (pending_eff),
    .valid_o (lead_valid),
    .index_o (lead),
    .onehot_o(lead_onehot)
  );

  logic [LineBytes-1:0] line_be;
  logic [LineBits-1:0] line_wdata;
  always_comb begin
    lead_target = lane_target[lead];
    line_addr = {lane_phys[lead][31:OffW], {OffW{1'b0}}};
    // An atomic goes alone: one lane per request, in lane order.
    for (int unsigned l = 0; l < Lanes; l++) begin
      group[l] = pending_eff[l] && lane_target[l] == lead_target
                 && lane_phys[l][31:OffW] == line_addr[31:OffW] && (!amo_q || lead_onehot[l]);
    end
    if (lead_onehot == '0) group = '0;  // no pending lane: nothing selected
    // Store bytes, built per line byte: byte j takes the highest lane of the
    // group whose access covers it (ascending order, later lanes win).  An
    // aligned access never leaves its 8-byte word, so only the lane's word
    // index and byte offset inside the word are compared.
    line_be = '0;
    line_wdata = '0;
    for (int unsigned j = 0; j < LineBytes; j++) begin
      for (int unsigned l = 0; l < Lanes; l++) begin
        logic [2:0] byte_in_word;
        byte_in_word = 3'(j) - lane_phys[l][2:0];
        if (group[l] && lane_phys[l][OffW-1:3] == (OffW-3)'(j / 8) && 3'(j) >= lane_phys[l][2:0]
            && 4'(byte_in_word) < size_bytes) begin
          line_be[j] = 1'b1;
          line_wdata[j*8 +: 8] = wdata64[l*64 + 32'(byte_in_word)*8 +: 8];
        end
      end
    end
  end

  // ---- shared memory banks ------------------------------------------------------
  // Lane l's word of the SM's shared RAM: bank (its low word's bank, even for
  // a 64-bit access) and row.  Block regions start at multiples of 8 bytes,
  // so the physical banks are the window's banks rotated by a constant: the
  // same conflicts, pair alignment and pass counts as the model's window
  // banks.
  logic [BankW-1:0] lane_bank [Lanes];
  logic [RowW-1:0] lane_row [Lanes];
  logic [Lanes-1:0] sh_pend, served, writer;
  logic [Banks-1:0] sel_valid, win_valid;
  logic [Banks*RowW-1:0] sel_row;
  logic [Banks*LaneW-1:0] sel_lane, win_lane;
  logic dword;
  assign dword = (size_q == kestrel_pkg::SizeDouble);

  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      lane_bank[l] = lane_phys[l][2 +: BankW];
      lane_row[l] = lane_phys[l][2 + BankW +: RowW];
      sh_pend[l] = pending_eff[l] && lane_target[l] == TargetShared;
    end
  end

  // ---- LR/SC reservations ---------------------------------------------------
  // Shared memory's, one per thread slot (warp * Lanes + lane): valid, bank,
  // row, doubleword; flags reset and flushed at launch start, the word
  // unreset (meaningful only while valid).  gres_q: the thread's latest
  // LR/SC was an LR on global or local memory.
  localparam int unsigned Threads = Warps * Lanes;
  logic [Threads-1:0] sres_valid_q, sres_dword_q, gres_q;
  logic [BankW-1:0] sres_bank_q [Threads];
  logic [RowW-1:0] sres_row_q [Threads];
  // An SC lane that holds a reservation on exactly its shared word and size.
  logic [Lanes-1:0] held;
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      logic [$clog2(Threads)-1:0] e;
      e = $clog2(Threads)'(32'(warp_q) * Lanes + l);
      held[l] = sc && sres_valid_q[e] && sres_bank_q[e] == lane_bank[l] && sres_row_q[e] == lane_row[l]
                && sres_dword_q[e] == dword;
    end
  end

  always_comb begin
    // Each bank's lowest pending lane picks the word (row) the bank delivers;
    // an SC's writer is the bank's lowest lane on that word that holds its
    // reservation.
    sel_valid = '0;
    sel_row = '0;
    sel_lane = '0;
    win_valid = '0;
    win_lane = '0;
    for (int unsigned b = 0; b < Banks; b++) begin
      for (int unsigned l = 0; l < Lanes; l++) begin
        if (sh_pend[l] && lane_bank[l] == BankW'(b)) begin
          if (!sel_valid[b]) begin
            sel_valid[b] = 1'b1;
            sel_row[b*RowW +: RowW] = lane_row[l];
            sel_lane[b*LaneW +: LaneW] = LaneW'(l);
          end
          if (!win_valid[b] && held[l] && lane_row[l] == sel_row[b*RowW +: RowW]) begin
            win_valid[b] = 1'b1;
            win_lane[b*LaneW +: LaneW] = LaneW'(l);
          end
        end
      end
    end
    // Served this pass: every pending lane on its bank's word; for an atomic
    // only the bank's lowest lane.  Writers: the served lanes of a store, an
    // SC's winners.
    for (int unsigned l = 0; l < Lanes; l++) begin
      served[l] = sh_pend[l] && lane_row[l] == sel_row[32'(lane_bank[l])*RowW +: RowW]
                  && (!serial || sel_lane[32'(lane_bank[l])*LaneW +: LaneW] == LaneW'(l));
      writer[l] = served[l] && (!sc || (win_valid[lane_bank[l]]
                                        && win_lane[32'(lane_bank[l])*LaneW +: LaneW] == LaneW'(l)));
    end
  end

  // ---- instruction slots --------------------------------------------------------
  // What the completion needs, written when the front takes the instruction
  // (its data and faults as they come in).  Unreset storage: a slot is read
  // only while `used`.  slot_off_q: each lane's byte offset in its line, for
  // the responses (written while the front works on the slot, so before any
  // of its lines can come back).
  logic [Slots-1:0] used_q, handed_q;
  logic [LinesW-1:0] lines_q [Slots];
  logic [WarpW-1:0] slot_warp_q [Slots];
  logic [31:0] slot_pc_q [Slots];
  logic [4:0] slot_rd_q [Slots];
  logic [Slots-1:0] slot_fp_q, slot_store_q, slot_serial_q, slot_pair_q, slot_unsigned_q;
  kestrel_pkg::mem_size_e slot_size_q [Slots];
  logic [Lanes-1:0] slot_mask_q [Slots];
  logic [Lanes*OffW-1:0] slot_off_q [Slots];
  logic [Lanes*Xlen-1:0] slot_data_q [Slots];
  logic [Lanes*32-1:0] slot_data_hi_q [Slots];
  logic [6:0] slot_passes_q [Slots];
  // The first failing line (page check), and the lowest lane that failed its
  // own checks (known when the front hands the slot over).
  kestrel_pkg::fault_kind_e slot_pf_q [Slots], slot_cf_q [Slots];
  logic [LaneW-1:0] slot_pf_lane_q [Slots], slot_cf_lane_q [Slots];
  logic [Xlen-1:0] slot_pf_addr_q [Slots], slot_cf_addr_q [Slots];

  assign front_fault = slot_pf_q[front_slot_q];

  // ---- outstanding global/local lines -----------------------------------------
  // Each entry: the slot, the lead lane's address (a failing line's fault
  // address) and the lanes the line serves.
  localparam int unsigned OutW = SlotW + Xlen + Lanes;
  logic outq_push_ready, outq_valid;
  logic [OutW-1:0] outq_head;
  logic [SlotW-1:0] outq_slot;
  logic [Xlen-1:0] outq_addr;
  logic [Lanes-1:0] outq_mask;
  logic [$clog2(OutstandingLines):0] unused_outq_count;
  logic issuing, shared_go, mem_go;
  logic shared_rd_q, rmw_q;
  logic [Lanes-1:0] served_q;
  // A read pass's context, for its data in the next cycle: the slot and each
  // lane's bank and byte, the size and extension.
  logic [SlotW-1:0] read_slot_q;
  logic [BankW-1:0] read_bank_q [Lanes];
  logic [1:0] read_byte_q [Lanes];
  logic read_dword_q, read_unsigned_q;
  kestrel_pkg::mem_size_e read_size_q;

  // No new pass or request while an atomic pass writes its banks back.
  assign issuing = busy_q && lead_valid && front_fault == kestrel_pkg::FaultNone && !rmw_q && !hi_wait_q;
  assign shared_go = issuing && lead_target == TargetShared;
  assign mem_go = issuing && lead_target != TargetShared && outq_push_ready;

  // Bank ports: a pass reads every bank it uses (and writes the store bytes);
  // an atomic pass's second cycle writes the new values.
  logic [Banks-1:0] bank_en, bank_rd;
  logic [Banks*4-1:0] bank_be;
  logic [Banks*RowW-1:0] bank_addr;
  logic [Banks*32-1:0] bank_wdata, bank_rdata_q;
  logic [Banks-1:0] rmw_on_q;
  logic [Banks*RowW-1:0] rmw_row_q;
  logic [Banks*LaneW-1:0] rmw_lane_q;
  logic [Banks*64-1:0] amo_new;
  logic [Banks-1:0] amo_write;
  // kx.amofadd.s: the banks of the pass still to write back, the one written
  // this cycle, and its sum.
  logic fadd;
  logic [Banks-1:0] rmw_left_q, fadd_onehot;
  logic [BankW-1:0] fadd_bank;
  logic [LaneW-1:0] fadd_owner;
  logic unused_fadd_valid;
  logic [31:0] fadd_sum;
  assign fadd = serial && amo_op_q == kestrel_pkg::AmoFadd;
  kestrel_lowest_set #(.Width(Banks)) u_fadd_bank (
    .bits_i  (rmw_left_q),
    .valid_o (unused_fadd_valid),
    .index_o (fadd_bank),
    .onehot_o(fadd_onehot)
  );
  assign fadd_owner = rmw_lane_q[32'(fadd_bank)*LaneW +: LaneW];
  kestrel_amo_fadd u_amo_fadd (
    .old_i   (bank_rdata_q[32'(fadd_bank)*32 +: 32]),
    .addend_i(wdata_q[32'(fadd_owner)*Xlen +: 32]),
    .sum_o   (fadd_sum)
  );

  for (genvar b = 0; b < Banks; b++) begin : gen_amo_alu
    // A 64-bit atomic uses the pair's even bank's lane and both words.
    localparam int unsigned Even = b & ~1;
    logic [LaneW-1:0] owner;
    logic [63:0] old_v, operand, compare;
    always_comb begin
      owner = rmw_lane_q[(dword ? Even : b)*LaneW +: LaneW];
      old_v = dword ? {bank_rdata_q[(Even + 1)*32 +: 32], bank_rdata_q[Even*32 +: 32]}
                    : {32'd0, bank_rdata_q[b*32 +: 32]};
      operand = wdata64[32'(owner)*64 +: 64];
      compare = cmp64[32'(owner)*64 +: 64];
    end
    kestrel_amo_alu u_amo_alu (
      .op_i     (amo_op_q),
      .dword_i  (dword),
      .old_i    (old_v),
      .operand_i(operand),
      .compare_i(compare),
      .new_o    (amo_new[b*64 +: 64]),
      .write_o  (amo_write[b])
    );
  end

  logic covers;
  logic [2:0] src_byte;
  always_comb begin
    covers = 1'b0;
    src_byte = '0;
    bank_en = '0;
    bank_rd = '0;
    bank_be = '0;
    bank_addr = '0;
    bank_wdata = '0;
    for (int unsigned b = 0; b < Banks; b++) begin
      // A 64-bit access's odd bank follows its even bank.
      int unsigned home;
      home = (dword && (b % 2) == 1) ? b - 1 : b;
      if (rmw_q) begin
        // A 64-bit CAS's odd bank follows the even bank's comparison; a
        // float add writes one bank per cycle.
        bank_en[b] = rmw_on_q[b] && amo_write[home] && (!fadd || fadd_onehot[b]);
        bank_addr[b*RowW +: RowW] = rmw_row_q[b*RowW +: RowW];
        bank_be[b*4 +: 4] = 4'hF;
        bank_wdata[b*32 +: 32] = fadd ? fadd_sum
                               : (dword && (b % 2) == 1) ? amo_new[b*64 + 32 +: 32] : amo_new[b*64 +: 32];
      end else if (shared_go) begin
        bank_en[b] = sel_valid[home];
        bank_rd[b] = !wr_pass;
        bank_addr[b*RowW +: RowW] = sel_row[home*RowW +: RowW];
        if (wr_pass) begin
          // Each byte takes the highest served lane that covers it.
          for (int unsigned l = 0; l < Lanes; l++) begin
            for (int unsigned k = 0; k < 4; k++) begin
              covers = 1'b0;
              src_byte = '0;
              if (dword) begin
                covers = (lane_bank[l] >> 1) == (BankW'(b) >> 1);
                src_byte = 3'((b % 2) * 4 + k);
              end else begin
                covers = lane_bank[l] == BankW'(b) && 3'(k) >= {1'b0, lane_phys[l][1:0]}
                         && 3'(k) < {1'b0, lane_phys[l][1:0]} + size_bytes[2:0];
                src_byte = 3'(k) - {1'b0, lane_phys[l][1:0]};
              end
              if (writer[l] && covers) begin
                bank_be[b*4 + k] = 1'b1;
                bank_wdata[b*32 + k*8 +: 8] = wdata64[l*64 + 32'(src_byte)*8 +: 8];
              end
            end
          end
        end
      end
    end
  end

  // The banks: unreset RAM (block RAM), contents undefined at block start by
  // the ISA; a synchronous read port and a byte-enabled write port.
  for (genvar b = 0; b < Banks; b++) begin : gen_bank
    logic [31:0] ram [BankRows];
    always_ff @(posedge clk_i) begin
      if (bank_en[b]) begin
        for (int unsigned k = 0; k < 4; k++) begin
          if (bank_be[b*4 + k]) ram[bank_addr[b*RowW +: RowW]][k*8 +: 8] <= bank_wdata[b*32 + k*8 +: 8];
        end
        if (bank_rd[b]) bank_rdata_q[b*32 +: 32] <= ram[bank_addr[b*RowW +: RowW]];
      end
    end
  end

  assign mem_req_valid_o = mem_go;
  always_comb begin
    mem_req_o.amo.sm = '0;  // the GPU top fills in the SM
    mem_req_o.amo.warp = 8'(warp_q);
    mem_req_o.amo.lane = 8'(lead);
    mem_req_o.amo.held = gres_q[32'(warp_q) * Lanes + 32'(lead)];
    mem_req_o.amo.valid = amo_q;
    mem_req_o.amo.op = amo_op_q;
    mem_req_o.amo.cmp = cmp64[32'(lead)*64 +: 64];
    // An LR is a read (the page needs R) that marks its word in `be`.
    mem_req_o.kind = (lead_target == TargetLocal) ? kestrel_pkg::MemLocal
                   : (store_q || (amo_q && !lr)) ? kestrel_pkg::MemWrite : kestrel_pkg::MemRead;
    mem_req_o.write = store_q || (amo_q && !lr);
    mem_req_o.addr = line_addr;
    mem_req_o.be = (store_q || amo_q) ? line_be : '0;
    mem_req_o.wdata = line_wdata;
    mem_req_o.tag = '0;
  end

  kestrel_fifo #(.Width(OutW), .Depth(OutstandingLines)) u_outstanding (
    .clk_i, .rst_ni, .flush_i,
    .in_valid_i (mem_go && mem_req_ready_i),
    .in_ready_o (outq_push_ready),
    .in_data_i  ({front_slot_q, addr_q[32'(lead)*Xlen +: Xlen], group}),
    .out_valid_o(outq_valid),
    .out_ready_i(mem_rsp_valid_i),
    .out_data_o (outq_head),
    .count_o    (unused_outq_count)
  );
  assign {outq_slot, outq_addr, outq_mask} = outq_head;
  assign mem_rsp_ready_o = outq_valid;
  // The SM routes responses by tag before they reach the LSU.
  logic [kestrel_pkg::MemTagW-1:0] unused_rsp_tag;
  assign unused_rsp_tag = mem_rsp_i.tag;

  // ---- load data extraction ---------------------------------------------------
  // On RV32 the upper half of `raw` is never used (no 64-bit loads).
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [Xlen-1:0] extend(input logic [63:0] raw, input kestrel_pkg::mem_size_e size,
                                             input logic is_unsigned);
  /* verilator lint_on UNUSEDSIGNAL */
    unique case (size)
      kestrel_pkg::SizeByte: extend = is_unsigned ? Xlen'(raw[7:0]) : Xlen'({{56{raw[7]}}, raw[7:0]});
      kestrel_pkg::SizeHalf: extend = is_unsigned ? Xlen'(raw[15:0]) : Xlen'({{48{raw[15]}}, raw[15:0]});
      kestrel_pkg::SizeWord: extend = is_unsigned ? Xlen'(raw[31:0]) : Xlen'({{32{raw[31]}}, raw[31:0]});
      default:               extend = Xlen'(raw);
    endcase
  endfunction
  // Global data: the lane's aligned 8-byte word of the line, then its bytes.
  function automatic logic [63:0] line_bytes(input logic [LineBits-1:0] line, input logic [OffW-1:0] off);
    logic [63:0] dw;
    dw = line[32'(off[OffW-1:3]) * 64 +: 64];
    line_bytes = dw >> (32'(off[2:0]) * 8);
  endfunction

  // old with the bits of new where mask is set.
  function automatic logic [Lanes*Xlen-1:0] merge_bits(input logic [Lanes*Xlen-1:0] old_bits,
                                                       input logic [Lanes*Xlen-1:0] new_bits,
                                                       input logic [Lanes*Xlen-1:0] mask);
    merge_bits = (old_bits & ~mask) | (new_bits & mask);
  endfunction
  function automatic logic [Lanes*32-1:0] merge_hi(input logic [Lanes*32-1:0] old_bits,
                                                   input logic [Lanes*32-1:0] new_bits,
                                                   input logic [Lanes*32-1:0] mask);
    merge_hi = (old_bits & ~mask) | (new_bits & mask);
  endfunction

  // Per lane, this cycle: the shared-memory result of the previous cycle's
  // read pass (for read_slot_q: the front may have moved on), a shared SC's
  // rd (for the front slot) and the head line's response for its slot.  No
  // two of them serve the same lane of one slot.
  logic [Lanes-1:0] sh_we, sc_we, line_we;
  logic [Lanes*Xlen-1:0] sh_val, sc_val, line_val;
  logic [Lanes*32-1:0] sh_hi, line_hi;
  // The same enables as bit masks over a slot's data (one slot's write is
  // then a few merges, not a loop over its lanes: with Slots x Lanes loop
  // bodies Verilator would no longer unroll the slots' storage).
  logic [Lanes*Xlen-1:0] sh_bits, sc_bits, line_bits;
  logic [Lanes*32-1:0] sh_hi_bits, line_hi_bits;
  logic rsp_take;
  logic [63:0] pair, raw;
  logic [Lanes*OffW-1:0] lane_off;
  always_comb begin
    pair = '0;
    raw = '0;
    rsp_take = mem_rsp_valid_i && outq_valid;
    for (int unsigned l = 0; l < Lanes; l++) begin
      lane_off[l*OffW +: OffW] = lane_phys[l][OffW-1:0];
      // Shared data: the lane's bank word (and the odd bank's for 64 bits).
      pair = {read_dword_q ? bank_rdata_q[32'(read_bank_q[l]) * 32 + 32 +: 32] : 32'd0,
              bank_rdata_q[32'(read_bank_q[l])*32 +: 32]};
      raw = pair >> (32'(read_byte_q[l]) * 8);
      sh_we[l] = shared_rd_q && served_q[l];
      sh_val[l*Xlen +: Xlen] = extend(raw, read_size_q, read_unsigned_q);
      sh_hi[l*32 +: 32] = raw[63:32];  // a pair's high word (RV32)
      // A shared SC's rd: 0 if the lane wrote, else 1.
      sc_we[l] = shared_go && sc && served[l];
      sc_val[l*Xlen +: Xlen] = Xlen'(!writer[l]);
      raw = line_bytes(mem_rsp_i.rdata, slot_off_q[outq_slot][l*OffW +: OffW]);
      line_we[l] = rsp_take && outq_mask[l];
      line_val[l*Xlen +: Xlen] = extend(raw, slot_size_q[outq_slot], slot_unsigned_q[outq_slot]);
      line_hi[l*32 +: 32] = raw[63:32];
    end
    for (int unsigned l = 0; l < Lanes; l++) begin
      sh_bits[l*Xlen +: Xlen] = {Xlen{sh_we[l]}};
      sc_bits[l*Xlen +: Xlen] = {Xlen{sc_we[l]}};
      line_bits[l*Xlen +: Xlen] = {Xlen{line_we[l]}};
      sh_hi_bits[l*32 +: 32] = {32{sh_we[l]}};
      line_hi_bits[l*32 +: 32] = {32{line_we[l]}};
    end
  end

  // First failing response in request order = lowest lane that failed paging.
  logic [LaneW-1:0] rsp_lead;
  logic unused_rsp_lead_valid;
  logic [Lanes-1:0] unused_rsp_lead_onehot;
  kestrel_lowest_set #(.Width(Lanes)) u_rsp_lead (
    .bits_i  (outq_mask),
    .valid_o (unused_rsp_lead_valid),
    .index_o (rsp_lead),
    .onehot_o(unused_rsp_lead_onehot)
  );

  // ---- the front --------------------------------------------------------------------
  // The next slot of the ring for the next instruction.  The front is
  // finished with its instruction in the cycle it serves or sends the last
  // lane (or once a line failed), unless an atomic pass's write-back follows,
  // and takes the next one in that cycle.  It hands the slot over then, or a
  // cycle later when that last pass read the banks: the read data reaches the
  // slot in the next cycle (read_slot_q).
  logic accept, finished, late_hand_q;
  logic [SlotW-1:0] free_slot;
  logic [Lanes-1:0] pending_next;
  always_comb begin
    pending_next = pending_eff;
    if (shared_go) pending_next = pending_eff & ~served;
    else if (mem_go && mem_req_ready_i) pending_next = pending_eff & ~group;
  end
  assign finished = busy_q && (pending_next == '0 || front_fault != kestrel_pkg::FaultNone)
                    && !(shared_go && serial) && !rmw_q && !hi_wait_q;
  assign take_ok = (!busy_q || finished) && !used_q[free_slot];
  assign accept = take_queued || take_offered;
  // The front may be free while slots still wait for lines: the SM is busy
  // (an abort's launch end waits) until every slot has completed.
  assign idle_o = !busy_q && used_q == '0 && !q_valid;
  // Nothing offered now or waiting, and the front and its next slot free: an
  // instruction offered next cycle goes straight to the front.
  assign req_front_free_o = !busy_q && !q_valid && !req_valid_i && !used_q[free_slot];

  // ---- the completion ---------------------------------------------------------------
  // out_slot_q: the oldest slot, on the completion port (valid a cycle after
  // its front work is over and its lines are all back).
  logic out_valid_q, beat_q, out_take;
  logic [SlotW-1:0] out_slot_q, next_out;
  logic [Slots-1:0] handed_d;
  logic [LinesW-1:0] lines_d [Slots];
  assign out_take = out_valid_q && rsp_ready_i && rsp_last_o;
  // Slots - 1 wraps to 0 when Slots is a power of two; otherwise explicitly.
  function automatic logic [SlotW-1:0] ring_next(input logic [SlotW-1:0] s);
    ring_next = (32'(s) == Slots - 1) ? '0 : s + SlotW'(1);
  endfunction
  assign next_out = out_take ? ring_next(out_slot_q) : out_slot_q;
  always_comb begin
    for (int unsigned s = 0; s < Slots; s++) begin
      lines_d[s] = lines_q[s];
      if (mem_go && mem_req_ready_i && front_slot_q == SlotW'(s)) lines_d[s] = lines_d[s] + LinesW'(1);
      if (rsp_take && outq_slot == SlotW'(s)) lines_d[s] = lines_d[s] - LinesW'(1);
      handed_d[s] = handed_q[s] || (finished && front_slot_q == SlotW'(s) && !(shared_go && !wr_pass))
                    || (late_hand_q && read_slot_q == SlotW'(s));
      if (out_take && out_slot_q == SlotW'(s)) handed_d[s] = 1'b0;
    end
  end
  logic [SlotW-1:0] alloc_q;
  assign free_slot = alloc_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      front_slot_q <= '0;
      alloc_q <= '0;
      used_q <= '0;
      handed_q <= '0;
      for (int unsigned s = 0; s < Slots; s++) lines_q[s] <= '0;
      out_valid_q <= 1'b0;
      out_slot_q <= '0;
      pending_q <= '0;
      shared_rd_q <= 1'b0;
      rmw_q <= 1'b0;
      passes_q <= '0;
      hi_wait_q <= 1'b0;
      late_hand_q <= 1'b0;
      beat_q <= 1'b0;
    end else if (flush_i) begin
      busy_q <= 1'b0;
      alloc_q <= '0;
      out_slot_q <= '0;
      used_q <= '0;
      handed_q <= '0;
      for (int unsigned s = 0; s < Slots; s++) lines_q[s] <= '0;
      out_valid_q <= 1'b0;
      pending_q <= '0;
      shared_rd_q <= 1'b0;
      rmw_q <= 1'b0;
      passes_q <= '0;
      hi_wait_q <= 1'b0;
      late_hand_q <= 1'b0;
      beat_q <= 1'b0;
    end else begin
      hi_wait_q <= Rv32 && take_offered && req_pair_i;
      shared_rd_q <= shared_go && !wr_pass;
      late_hand_q <= finished && shared_go && !wr_pass;
      // A float add's pass stays in the write-back until its last bank.
      rmw_q <= (shared_go && serial) || (rmw_q && fadd && (rmw_left_q & ~fadd_onehot) != '0);
      for (int unsigned s = 0; s < Slots; s++) lines_q[s] <= lines_d[s];
      handed_q <= handed_d;
      if (out_take) used_q[out_slot_q] <= 1'b0;
      if (accept) begin
        busy_q <= 1'b1;
        front_slot_q <= free_slot;
        alloc_q <= ring_next(alloc_q);
        used_q[free_slot] <= 1'b1;
        pending_q <= t_mask;  // trimmed below the first failing lane next cycle
        passes_q <= '0;
      end else if (busy_q) begin
        pending_q <= pending_next;
        if (shared_go) passes_q <= passes_q + 7'd1;
        if (finished) busy_q <= 1'b0;
      end
      out_slot_q <= next_out;
      out_valid_q <= handed_d[next_out] && lines_d[next_out] == '0;
      if (out_valid_q && rsp_ready_i) beat_q <= !rsp_last_o;  // a pair's high words next
    end
  end

  // The front's registers: loaded on acceptance, no reset needed.
  always_ff @(posedge clk_i) begin
    if (accept) begin
      warp_q <= t_warp;
      store_q <= t_store;
      amo_q <= t_amo;
      amo_op_q <= t_amo_op;
      unsigned_q <= t_unsigned;
      size_q <= t_size;
      mask_q <= t_mask;
      addr_q <= t_addr;
      wdata_q <= t_wdata;
      cmp_q <= t_cmp;
      shared_phys_q <= t_shared_phys;
      local_base_q <= t_local_base;
      pair_q <= Rv32 && t_pair;
    end
    if (hi_wait_q) begin
      wdata_hi_q <= req_wdata_hi_i;
      cmp_hi_q <= req_cmp_hi_i;
    end
    served_q <= served;
    if (shared_go) begin
      read_slot_q <= front_slot_q;
      read_dword_q <= dword;
      read_size_q <= size_q;
      read_unsigned_q <= unsigned_q;
      for (int unsigned l = 0; l < Lanes; l++) begin
        read_bank_q[l] <= lane_bank[l];
        read_byte_q[l] <= lane_phys[l][1:0];
      end
      for (int unsigned b = 0; b < Banks; b++) begin
        int unsigned home;
        home = (dword && (b % 2) == 1) ? b - 1 : b;
        rmw_on_q[b] <= sel_valid[home];
        rmw_row_q[b*RowW +: RowW] <= sel_row[home*RowW +: RowW];
      end
      rmw_lane_q <= sel_lane;
    end
    rmw_left_q <= shared_go ? (fadd ? sel_valid : '0) : (rmw_left_q & ~fadd_onehot);
  end

  // The slots' storage.  A taken instruction's slot starts with zero data and
  // no fault; the front and the responses fill in their lanes.
  always_ff @(posedge clk_i) begin
    for (int unsigned s = 0; s < Slots; s++) begin
      if (accept && free_slot == SlotW'(s)) begin
        slot_warp_q[s] <= t_warp;
        slot_pc_q[s] <= t_pc;
        slot_rd_q[s] <= t_rd;
        slot_fp_q[s] <= t_fp;
        slot_store_q[s] <= t_store;
        slot_serial_q[s] <= t_amo && t_amo_op != kestrel_pkg::AmoLr && t_amo_op != kestrel_pkg::AmoSc;
        slot_pair_q[s] <= Rv32 && t_pair;
        slot_unsigned_q[s] <= t_unsigned;
        slot_size_q[s] <= t_size;
        slot_mask_q[s] <= t_mask;
        slot_data_q[s] <= '0;
        slot_data_hi_q[s] <= '0;
        slot_pf_q[s] <= kestrel_pkg::FaultNone;
        slot_pf_lane_q[s] <= '0;
        slot_pf_addr_q[s] <= '0;
      end else begin
        // The shared results, then the head line's (never the same lane).
        if ((read_slot_q == SlotW'(s) && sh_we != '0) || (front_slot_q == SlotW'(s) && sc_we != '0)
            || (outq_slot == SlotW'(s) && line_we != '0)) begin
          slot_data_q[s] <= merge_bits(merge_bits(merge_bits(slot_data_q[s], sh_val,
                                                             (read_slot_q == SlotW'(s)) ? sh_bits : '0),
                                                  sc_val, (front_slot_q == SlotW'(s)) ? sc_bits : '0),
                                       line_val, (outq_slot == SlotW'(s)) ? line_bits : '0);
          slot_data_hi_q[s] <= merge_hi(merge_hi(slot_data_hi_q[s], sh_hi,
                                                 (read_slot_q == SlotW'(s)) ? sh_hi_bits : '0),
                                        line_hi, (outq_slot == SlotW'(s)) ? line_hi_bits : '0);
        end
        if (rsp_take && outq_slot == SlotW'(s) && mem_rsp_i.fault != kestrel_pkg::FaultNone
            && slot_pf_q[s] == kestrel_pkg::FaultNone) begin
          slot_pf_q[s] <= mem_rsp_i.fault;
          slot_pf_lane_q[s] <= rsp_lead;
          slot_pf_addr_q[s] <= outq_addr;
        end
      end
      if (busy_q && front_slot_q == SlotW'(s)) begin
        slot_off_q[s] <= lane_off;
        slot_passes_q[s] <= passes_q + 7'(shared_go);
        slot_cf_q[s] <= class_fault ? lane_kind[class_lane] : kestrel_pkg::FaultNone;
        slot_cf_lane_q[s] <= class_lane;
        slot_cf_addr_q[s] <= addr_q[32'(class_lane)*Xlen +: Xlen];
      end
    end
  end

  // Reservation flags.  A bank write ends the entries on a word it writes
  // (each entry checks its own bank, and for a doubleword the pair's odd
  // bank); then the lanes an LR/SC serves this cycle update their own.
  logic [Banks-1:0] bank_we;
  logic mem_lrsc;
  always_comb begin
    for (int unsigned b = 0; b < Banks; b++) bank_we[b] = bank_en[b] && bank_be[b*4 +: 4] != '0;
  end
  assign mem_lrsc = mem_go && mem_req_ready_i && (lr || sc);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sres_valid_q <= '0;
      gres_q <= '0;
    end else if (flush_i) begin
      sres_valid_q <= '0;
      gres_q <= '0;
    end else begin
      if (bank_we != '0) begin
        for (int unsigned e = 0; e < Threads; e++) begin
          if ((bank_we[sres_bank_q[e]] && bank_addr[32'(sres_bank_q[e])*RowW +: RowW] == sres_row_q[e])
              || (sres_dword_q[e] && bank_we[sres_bank_q[e] | BankW'(1)]
                  && bank_addr[(32'(sres_bank_q[e]) | 32'd1) * RowW +: RowW] == sres_row_q[e]))
            sres_valid_q[e] <= 1'b0;
        end
      end
      if (shared_go && (lr || sc)) begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          if (served[l]) begin
            sres_valid_q[32'(warp_q) * Lanes + l] <= lr;
            gres_q[32'(warp_q) * Lanes + l] <= 1'b0;
          end
        end
      end
      if (mem_lrsc) begin
        sres_valid_q[32'(warp_q) * Lanes + 32'(lead)] <= 1'b0;
        gres_q[32'(warp_q) * Lanes + 32'(lead)] <= lr;
      end
      // A new block's threads hold no reservation (the slot is free, so no
      // access of its own is in flight): the shared entries end, and `gres`
      // clear sends their memory-side SC unheld.
      for (int unsigned w = 0; w < Warps; w++) begin
        if (slot_start_i[w]) begin
          sres_valid_q[w*Lanes +: Lanes] <= '0;
          gres_q[w*Lanes +: Lanes] <= '0;
        end
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (shared_go && lr) begin
      for (int unsigned l = 0; l < Lanes; l++) begin
        if (served[l]) begin
          sres_bank_q[32'(warp_q) * Lanes + l] <= lane_bank[l];
          sres_row_q[32'(warp_q) * Lanes + l] <= lane_row[l];
          sres_dword_q[32'(warp_q) * Lanes + l] <= dword;
        end
      end
    end
  end

  // ---- completion -----------------------------------------------------------------
  logic [6:0] active_lanes;
  always_comb begin
    rsp_valid_o = out_valid_q;
    rsp_warp_o = slot_warp_q[out_slot_q];
    rsp_pc_o = slot_pc_q[out_slot_q];
    rsp_fp_o = slot_fp_q[out_slot_q];
    rsp_load_o = !slot_store_q[out_slot_q];
    rsp_mask_o = slot_mask_q[out_slot_q];
    rsp_last_o = 1'b1;
    rsp_rd_o = slot_rd_q[out_slot_q];
    rsp_data_o = slot_data_q[out_slot_q];
    rsp_fault_o = kestrel_pkg::FaultNone;
    rsp_fault_lane_o = '0;
    rsp_fault_addr_o = '0;
    if (slot_pf_q[out_slot_q] != kestrel_pkg::FaultNone) begin
      rsp_fault_o = slot_pf_q[out_slot_q];
      rsp_fault_lane_o = slot_pf_lane_q[out_slot_q];
      rsp_fault_addr_o = slot_pf_addr_q[out_slot_q];
    end else if (slot_cf_q[out_slot_q] != kestrel_pkg::FaultNone) begin
      rsp_fault_o = slot_cf_q[out_slot_q];
      rsp_fault_lane_o = slot_cf_lane_q[out_slot_q];
      rsp_fault_addr_o = slot_cf_addr_q[out_slot_q];
    end
    // A pair's first beat: rd and the low words; the second: rd+1 (rd is
    // even) and the high words.
    if (Rv32 && slot_pair_q[out_slot_q] && rsp_rd_o != 5'd0 && rsp_fault_o == kestrel_pkg::FaultNone) begin
      rsp_last_o = beat_q;
      if (beat_q) begin
        rsp_rd_o = rsp_rd_o | 5'd1;
        for (int unsigned l = 0; l < Lanes; l++)
          rsp_data_o[l*Xlen +: Xlen] = Xlen'(slot_data_hi_q[out_slot_q][l*32 +: 32]);
      end
    end
  end

  // Counter events of a completion without a fault (a faulting instruction
  // counts nothing, as in the model).
  always_comb begin
    active_lanes = '0;
    for (int unsigned l = 0; l < Lanes; l++) active_lanes = active_lanes + 7'(rsp_mask_o[l]);
    ev_shared_access_o = 1'b0;
    ev_shared_passes_o = '0;
    ev_atomics_o = '0;
    if (out_take && rsp_fault_o == kestrel_pkg::FaultNone) begin
      ev_shared_access_o = slot_passes_q[out_slot_q] != '0;
      ev_shared_passes_o = slot_passes_q[out_slot_q];
      ev_atomics_o = slot_serial_q[out_slot_q] ? active_lanes : '0;
    end
  end

  // ---- handshake rules (kestrel_assert.svh) -------------------------------------
  // The line request and the completion hold until taken (a flush may
  // withdraw them); a response comes only for an outstanding line.  The
  // completion's data (Lanes*Xlen bits, 2,048 in the default preset) is left
  // out of the stability check: Verilator 5.006 copies the sampled value of a
  // signal that wide in a loop whose counter it never declares when the model
  // is the whole GPU (gpu_default failed to compile); the data comes from a
  // slot that only its own responses write, and all of them are in.
  `KESTREL_ASSERT_HANDSHAKE_IF(mem_req, mem_req_valid_o, mem_req_ready_i, mem_req_o, !flush_i)
  `KESTREL_ASSERT_HANDSHAKE_IF(rsp, rsp_valid_o, rsp_ready_i,
                               {rsp_warp_o, rsp_pc_o, rsp_fp_o, rsp_rd_o, rsp_load_o, rsp_last_o, rsp_mask_o,
                                rsp_fault_o, rsp_fault_lane_o, rsp_fault_addr_o}, !flush_i)
  `KESTREL_ASSERT_KNOWN(req_valid_known, req_valid_i)
  // A register pair is offered only to a free front (req_front_free_o; the
  // SM's stage 1 also offers nothing where req_full_o says there is no room).
  `KESTREL_ASSERT(pair_goes_straight, (req_valid_i && req_pair_i) |-> take_offered)
  `KESTREL_ASSERT_KNOWN(mem_rsp_valid_known, mem_rsp_valid_i)
  // A response belongs to a slot still in use.
  `KESTREL_ASSERT(rsp_slot_used, (mem_rsp_valid_i && outq_valid) |-> used_q[outq_slot])
endmodule
