// kestrel_sm_issue: the SM's issue stage.
//
// Decodes each warp's next instruction (the line-buffer word at its group's
// PC; a fetch fault becomes an illegal-instruction pseudo-op), checks it
// against the x scoreboard (kestrel_scoreboard, RAW/WAW on x registers),
// the f scoreboard of lane-pipeline ops in flight, the busy units (LSU,
// divider, divsqrt, SFU), the lane-pipeline retire-slot reservations and
// the warp's own state (group selected, no control instruction or unit
// instruction outstanding, no barrier results to write), and lets
// kestrel_warp_sched pick one ready warp.  The issuing instruction leaves as
// an issue packet (kestrel_pkg::sm_issue_t) with its warp and lane mask; its
// x operands are read here (register-file read port: the issuing
// instruction, or a1 of a trap / the register pairs' high words for the
// instruction in stage 1, which then holds issue) and its rd marked in the
// scoreboard.
//
// Loads and stores do not block their warp (docs/microarchitecture.md,
// "Memory instructions in flight"): the warp goes on issuing while up to
// MemInFlight of them are in the LSU, and what reads a loaded register waits
// in the scoreboards (x, and the f-load scoreboard here for flw).  Two rules
// keep each warp's retire order one the lock-step checker can replay: an
// instruction that orders memory or leaves the pipe's fixed timing (fences,
// atomics, kx.tex, barriers, exits, warp-synchronous instructions, traps,
// illegal instructions, divides, divsqrt and the SFU) waits until the warp
// has no memory instruction in flight; and a load or store waits until the
// warp's older pipe instructions have retired (two cycles after the last
// one issued), so that every record of a warp carries the count of the
// warp's memory instructions issued before it (kestrel_sm_warp_ctrl).
//
// Latency: combinational from the warps' state to issue_o; one instruction
// per cycle.  No backpressure: stage 1 always takes what issues (the checks
// above keep every later stage free).
`include "kestrel_assert.svh"

module kestrel_sm_issue #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned SchedPolicy = 32'(kestrel_pkg::SchedLooseRoundRobin),  // kestrel_pkg::sched_policy_e
  parameter int unsigned FpuStages = 3,
  parameter int unsigned TexUnit = 1,     // the decoders' (0: kx.tex is illegal)
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic                     flush_i,
  // per warp: the next instruction (kestrel_sm_fetch) and the warp's state
  input  logic [Warps*32-1:0]      word_i,
  input  logic [Warps-1:0]         hit_i,        // word_i holds the PC's instruction
  input  logic [Warps-1:0]         ffault_i,     // fetching the PC faults
  input  logic [Warps*32-1:0]      pc_i,         // the selected group's PC and mask
  input  logic [Warps*Lanes-1:0]   mask_i,
  input  logic [Warps*Lanes*3-1:0] frm_i,        // each thread's frm
  input  logic [Warps-1:0]         active_i,
  input  logic [Warps-1:0]         grp_valid_i,
  input  logic [Warps-1:0]         ctrl_i,       // control instruction in flight
  input  logic [Warps-1:0]         backoff_i,    // spinning warp waiting out its back-off (timing only)
  input  logic [Warps-1:0]         long_i,       // unit instruction in flight
  input  logic [Warps-1:0]         mem_busy_i,   // loads/stores of the warp in the LSU
  input  logic [Warps-1:0]         mem_full_i,   // ... as many as a warp may have
  input  logic [Warps*Lanes-1:0]   drain_i,      // barrier results still to write
  input  logic [Warps*WarpW-1:0]   wblk_i,       // block slot of each warp
  input  logic [Warps-1:0]         release_i,    // barrier of a block slot releases
  input  logic [Warps-1:0]         launch_i,     // warps that start (scheduler)
  // units and stages behind issue
  input  logic                     lsu_busy_i,
  input  logic                     lsu_pair_busy_i, // a register pair must find the LSU's front free
  input  logic                     tex_busy_i,      // the texture unit takes no instruction next cycle
  input  logic                     div_busy_i,
  input  logic                     ds_busy_i,
  input  logic                     sfu_busy_i,
  input  logic [Warps-1:0]         lane_busy_i,  // lane ops of the warp in flight
  input  logic [Warps*32-1:0]      fpend_i,      // f registers they will write
  input  logic                     resv3_i,      // stage 3 in three cycles is reserved
  input  logic                     stop_i,       // a fault: issue nothing more
  input  logic                     hold_i,       // leave a retire-slot bubble
  input  logic                     s1_valid_i,
  input  logic [WarpW-1:0]         s1_warp_i,
  input  kestrel_pkg::decoded_t    s1_dec_i,
  input  logic                     s1_ffault_i,
  // the issuing instruction
  output logic                     issue_o,
  output logic [WarpW-1:0]         issue_warp_o,
  output logic [Lanes-1:0]         issue_mask_o,
  output kestrel_pkg::sm_issue_t   issue_pkt_o,
  output logic                     s1_pair_o,    // stage 1 holds a register-pair atomic
  output logic [Warps-1:0]         sb_hazard_o,  // x scoreboard hazards (events)
  // x register read port
  output logic                     rf_ren_o,
  output logic [WarpW-1:0]         rf_rwarp_o,
  output logic [4:0]               rf_rs1_o,
  output logic [4:0]               rf_rs2_o,
  output logic [4:0]               rf_rs3_o,
  // x scoreboard clear (retire)
  input  logic                     sb_clear_i,
  input  logic [WarpW-1:0]         sb_clear_warp_i,
  input  logic [4:0]               sb_clear_rd_i,
  // f-load scoreboard clear (an LSU write-back of an f register)
  input  logic                     fsb_clear_i,
  input  logic [WarpW-1:0]         fsb_clear_warp_i,
  input  logic [4:0]               fsb_clear_rd_i
);
  // The issuing instruction's decode (x and F fields); the per-warp decodes
  // are kept flat (Yosys 0.23 has no arrays of structs, nor $bits of a type).
  kestrel_pkg::decoded_t idec;
  kestrel_pkg::fp_dec_t ifp;
  localparam int unsigned DecW = $bits(idec);
  localparam int unsigned FpDecW = $bits(ifp);
  logic [Warps-1:0] ready, rel_block;
  logic sched_valid;
  logic [WarpW-1:0] sched_warp;
  logic issue;
  logic [WarpW-1:0] iw;
  logic ifpx;
  logic [31:0] ipc;
  logic [Lanes-1:0] imask;
  logic iffault;
  logic s1_pair;
  logic [4:0] rf_rs1, rf_rs2, rf_rs3;
  logic rf_ren;
  logic [WarpW-1:0] rf_rwarp;

  logic [Warps*DecW-1:0] wdec_flat;
  logic [Warps-1:0] wmem, wdiv, wtex;  // the warp's next instruction goes to the LSU / divider / texture unit
  logic [Warps-1:0] wshfl;       // ... is a shuffle (reads rs3, which the scoreboard does not check)
  logic [Warps-1:0] wpair;       // ... is an RV32 register-pair atomic (reads rs2+1 and rd+1 too)
  // F fields per warp (kestrel_decoder fp_o) and the FP-execute flag.
  logic [Warps*FpDecW-1:0] wfp_flat;
  logic [Warps*2-1:0] wfp_unit;  // their F unit (kestrel_fpu_pkg::fp_unit_e)
  logic [Warps-1:0] fhaz;
  logic [Warps-1:0] wfpx;
  logic [Warps*18-1:0] sb_check;
  logic [Warps-1:0] sb_hazard;
  logic [Warps-1:0] sb_busy;
  logic [Warps-1:0] wdrain;      // the warp's next instruction waits for its memory instructions
  logic [Warps-1:0] fld_haz;     // ... reads or writes an f register a load in flight will write
  logic [Warps*32-1:0] fld_pend; // f registers loads in flight will write, per warp
  logic [Warps*2-1:0] young_q, young_d;  // cycles until the warp's last pipe instruction retired
  logic [Warps-1:0] frm_unsure;  // an active thread's frm is 5..7, or a CSR write may be changing it

  for (genvar g = 0; g < Warps; g++) begin : gen_warp_decode
    logic [17:0] wregs;
    kestrel_decoder #(.Xlen(Xlen), .TexUnit(TexUnit)) u_decoder (
      .instr_i(word_i[g*32 +: 32]),
      .dec_o  (wdec_flat[g*DecW +: DecW]),
      .regs_o (wregs),
      .mem_o  (wmem[g]),
      .div_o  (wdiv[g]),
      .tex_o  (wtex[g]),
      .fpx_o  (wfpx[g]),
      .fp_o   (wfp_flat[g*FpDecW +: FpDecW])
    );
    kestrel_sm_fp_hazard u_fp_hazard (
      .fp_i    (wfp_flat[g*FpDecW +: FpDecW]),
      .fpend_i (fpend_i[g*32 +: 32]),
      .hazard_o(fhaz[g]),
      .unit_o  (wfp_unit[g*2 +: 2])
    );
    assign sb_check[g*18 +: 18] = ffault_i[g] ? 18'd0 : wregs;
    // A CSR instruction of the warp in stage 1 may be writing frm now, so
    // the frm read here may be stale: that counts as unsure too.
    always_comb begin
      frm_unsure[g] = s1_valid_i && s1_warp_i == WarpW'(g) && s1_dec_i.cls == kestrel_pkg::ClassCsr;
      for (int unsigned l = 0; l < Lanes; l++)
        if (mask_i[g*Lanes + l] && frm_i[(g*Lanes + l)*3 +: 3] > 3'd4) frm_unsure[g] = 1'b1;
    end
    kestrel_sm_mem_hazard u_mem_hazard (
      .dec_i         (wdec_flat[g*DecW +: DecW]),
      .fp_i          (wfp_flat[g*FpDecW +: FpDecW]),
      .opcode_i      (word_i[g*32 +: 7]),
      .fpx_i         (wfpx[g]),
      .ffault_i      (ffault_i[g]),
      .frm_unsure_i  (frm_unsure[g]),
      .fload_pend_i  (fld_pend[g*32 +: 32]),
      .drain_o       (wdrain[g]),
      .fload_hazard_o(fld_haz[g])
    );
    assign wshfl[g] = word_i[g*32 +: 7] == kestrel_pkg::OpSimt && word_i[g*32 + 12 +: 3] == 3'd2;
    assign wpair[g] = Xlen == 32 && word_i[g*32 +: 7] == kestrel_pkg::OpAtomic && word_i[g*32 + 12 +: 3] == 3'd3;
  end

  logic sb_set;
  logic [WarpW-1:0] sb_set_warp;
  logic [4:0] sb_set_rd;

  logic [Warps*32-1:0] sb_pend_unused;
  kestrel_scoreboard #(.Warps(Warps), .ClearPorts(1)) u_scoreboard (
    .clk_i, .rst_ni,
    .flush_i     (flush_i),
    .check_i     (sb_check),
    .hazard_o    (sb_hazard),
    .set_i       (sb_set),
    .set_warp_i  (sb_set_warp),
    .set_rd_i    (sb_set_rd),
    .clear_i     (sb_clear_i),
    .clear_warp_i(sb_clear_warp_i),
    .clear_rd_i  (sb_clear_rd_i),
    .busy_o      (sb_busy),
    .pending_o   (sb_pend_unused)
  );

  always_comb begin
    for (int unsigned w = 0; w < Warps; w++) begin
      rel_block[w] = release_i[wblk_i[w*WarpW +: WarpW]];
      ready[w] = active_i[w] && grp_valid_i[w] && !ctrl_i[w] && !backoff_i[w] && !long_i[w] && drain_i[w*Lanes +: Lanes] == '0
                 && !rel_block[w] && (hit_i[w] || ffault_i[w]);
      if (!ffault_i[w]) begin
        if (sb_hazard[w]) ready[w] = 1'b0;
        if (wmem[w] && lsu_busy_i) ready[w] = 1'b0;
        if (wpair[w] && lsu_pair_busy_i) ready[w] = 1'b0;
        if (mem_busy_i[w] && (wdrain[w] || fld_haz[w])) ready[w] = 1'b0;
        if ((wmem[w] || wtex[w]) && (mem_full_i[w] || young_q[w*2 +: 2] != '0)) ready[w] = 1'b0;
        if (wdiv[w] && div_busy_i) ready[w] = 1'b0;
        if (wtex[w] && tex_busy_i) ready[w] = 1'b0;
        // With lane ops outstanding only an independent lane op may follow.
        if (lane_busy_i[w] && (!wfpx[w] || wfp_unit[w*2 +: 2] != kestrel_fpu_pkg::FpUnitLane || fhaz[w]))
          ready[w] = 1'b0;
        if (wfpx[w]) begin
          // The unit must be free when stage 1 hands the instruction over.
          unique case (wfp_unit[w*2 +: 2])
            kestrel_fpu_pkg::FpUnitDivSqrt: if (ds_busy_i) ready[w] = 1'b0;
            kestrel_fpu_pkg::FpUnitSfu: if (sfu_busy_i) ready[w] = 1'b0;
            default: if (FpuStages < 2 && s1_valid_i) ready[w] = 1'b0;  // would meet stage 3
          endcase
        end else if (!wmem[w] && !wdiv[w] && !wtex[w] && resv3_i) begin
          // Stage 3 three cycles from now belongs to a lane-pipeline result.
          ready[w] = 1'b0;
        end
        if ((wshfl[w] || wpair[w]) && sb_busy[w]) ready[w] = 1'b0;
      end
      if (stop_i || hold_i || s1_pair) ready[w] = 1'b0;
    end
  end

  // The f-load scoreboard: flw sets f rd at issue, its LSU write-back clears it.
  logic fsb_set;
  logic [Warps-1:0] fsb_hazard_unused, fsb_busy_unused;
  assign fsb_set = issue && !iffault && wmem[iw] && ifp.load && ifp.rd_we;
  kestrel_scoreboard #(.Warps(Warps), .ClearPorts(1), .HardZero(1'b0)) u_fload_scoreboard (
    .clk_i, .rst_ni,
    .flush_i     (flush_i),
    .check_i     ('0),
    .hazard_o    (fsb_hazard_unused),
    .set_i       (fsb_set),
    .set_warp_i  (iw),
    .set_rd_i    (ifp.rd),
    .clear_i     (fsb_clear_i),
    .clear_warp_i(fsb_clear_warp_i),
    .clear_rd_i  (fsb_clear_rd_i),
    .busy_o      (fsb_busy_unused),
    .pending_o   (fld_pend)
  );

  // A pipe instruction issued at t retires at t+3; a load or store of its
  // warp may issue from then on.
  always_comb begin
    for (int unsigned w = 0; w < Warps; w++) begin
      young_d[w*2 +: 2] = (young_q[w*2 +: 2] != '0) ? young_q[w*2 +: 2] - 2'd1 : 2'd0;
      if (issue && iw == WarpW'(w) && !wmem[w]) young_d[w*2 +: 2] = 2'd2;
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) young_q <= '0;
    else if (flush_i) young_q <= '0;
    else young_q <= young_d;
  end

  kestrel_warp_sched #(.Warps(Warps), .Policy(SchedPolicy)) u_sched (
    .clk_i, .rst_ni,
    .ready_i (ready),
    .launch_i(launch_i),
    .issue_i (issue),
    .valid_o (sched_valid),
    .warp_o  (sched_warp)
  );

  always_comb begin
    issue = sched_valid;
    iw = sched_warp;
    idec = wdec_flat[32'(iw)*DecW +: DecW];
    ipc = pc_i[32'(iw)*32 +: 32];
    imask = mask_i[32'(iw)*Lanes +: Lanes];
    iffault = ffault_i[iw];
    ifpx = wfpx[iw];
    ifp = wfp_flat[32'(iw)*FpDecW +: FpDecW];
    if (iffault) begin
      idec = '0;
      idec.cls = kestrel_pkg::ClassIllegal;
      ifpx = 1'b0;
      ifp = '0;
    end
  end

  // Register read: the issuing instruction's operands, or a1 of a trap in
  // stage 1 (nothing issues after a trap, so the port is free).
  logic trap_a1_read;
  assign trap_a1_read = s1_valid_i && s1_dec_i.cls == kestrel_pkg::ClassTrap && !s1_ffault_i;
  assign s1_pair = Xlen == 32 && s1_valid_i && s1_dec_i.cls == kestrel_pkg::ClassAtomic
                  && s1_dec_i.funct3 == kestrel_pkg::AtomicF3D;
  always_comb begin
    rf_ren = issue || trap_a1_read || s1_pair;
    rf_rwarp = (trap_a1_read || s1_pair) ? s1_warp_i : iw;
    rf_rs1 = trap_a1_read ? 5'd11 : idec.rs1;
    rf_rs2 = trap_a1_read ? 5'd0 : idec.rs2;
    // The third port: a shuffle's rs3, a CAS's compare value (rd, which the
    // scoreboard's WAW check on rd keeps current).
    rf_rs3 = 5'd0;
    if (idec.cls == kestrel_pkg::ClassWarp && idec.funct3 == kestrel_pkg::SimtF3Shuffle) rf_rs3 = idec.funct7[6:2];
    if (idec.cls == kestrel_pkg::ClassAtomic && idec.funct7[6:2] == kestrel_pkg::AmoCas) rf_rs3 = idec.rd;
    if (s1_pair) begin
      // The pairs' high registers; x0 as a pair reads zero in both halves
      // (the decoder has made rd x0 when it was x0, and registers are even).
      rf_rs2 = (s1_dec_i.rs2 == 5'd0) ? 5'd0 : (s1_dec_i.rs2 | 5'd1);
      rf_rs3 = (s1_dec_i.rd == 5'd0) ? 5'd0 : (s1_dec_i.rd | 5'd1);
    end
    sb_set = issue && idec.rd_we && idec.cls != kestrel_pkg::ClassBarrier;
    sb_set_warp = iw;
    sb_set_rd = idec.rd;
  end

  always_comb begin
    issue_pkt_o = '0;
    issue_pkt_o.pc = ipc;
    issue_pkt_o.word = word_i[32'(iw)*32 +: 32];
    issue_pkt_o.ffault = iffault;
    issue_pkt_o.dec = idec;
    issue_pkt_o.fpx = ifpx;
    issue_pkt_o.fp = ifp;
  end
  // Lint sink: of stage 1's decode only class, funct3, rs2 and rd matter here.
  logic unused_s1_dec;
  assign unused_s1_dec = ^s1_dec_i ^ (^fsb_hazard_unused) ^ (^fsb_busy_unused) ^ (^sb_pend_unused);

  assign issue_o = issue;
  assign issue_warp_o = iw;
  assign issue_mask_o = imask;
  assign s1_pair_o = s1_pair;
  assign sb_hazard_o = sb_hazard;
  assign rf_ren_o = rf_ren;
  assign rf_rwarp_o = rf_rwarp;
  assign rf_rs1_o = rf_rs1;
  assign rf_rs2_o = rf_rs2;
  assign rf_rs3_o = rf_rs3;

  // Only a ready warp issues, one at a time, and never behind a fault.
  `KESTREL_ASSERT_KNOWN(issue_known, issue)
  `KESTREL_ASSERT(issue_ready, issue |-> ready[iw])
  `KESTREL_ASSERT(issue_not_stopped, issue |-> !stop_i)
  `KESTREL_ASSERT(issue_active, issue |-> active_i[iw] && grp_valid_i[iw])
endmodule
