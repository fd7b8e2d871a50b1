// kestrel_sm_retire: the SM's single write-back/retire slot.
//
// One instruction retires per cycle.  The slot goes to, in this order: a
// lane-pipeline F result (its slot was reserved at issue, so stage 3 is then
// empty or faulting), the instruction in stage 3, then the units that finish
// out of the pipe: the LSU, the divider, divsqrt/SFU, and last barrier
// results (written for the waiting lanes of kx.bar.red/count when a barrier
// releases: the lowest warp with some, its lanes with the same rd, kind and
// PC).  The winner drives the retire record (the trace the lock-step checker
// follows), the x or f register write and the x scoreboard's clear.  When a
// unit waits and the next two slots are taken (stage 2, stage 1, or lane
// reservations) issue leaves a bubble (hold_issue_o).  Every retire of a
// model-visible instruction feeds the barrier watchdog (bar_issue_o).
//
// Combinational.  The three unit ports (LSU, divsqrt/SFU, lane pipeline) are
// valid/ready: ready is the grant; the divider and barrier results are
// granted through grant_div_o / grant_drain_o.  Records of drained F
// instructions (issued before a flush: *_live_i low) free the slot without
// retiring.
`include "kestrel_assert.svh"

module kestrel_sm_retire #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned FpuStages = 3,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned RowW = Lanes * Xlen,
  localparam int unsigned CountW = 11,
  localparam int unsigned MetaW = WarpW + 32 + Lanes + 7  // kestrel_sm_fp_track's record
) (
  input  logic                     clk_i,   // assertions only
  input  logic                     rst_ni,
  // stage 3 (and the pipe behind it, for issue bubbles)
  input  logic                     s3_valid_i,
  input  logic [WarpW-1:0]         s3_warp_i,
  input  logic [Lanes-1:0]         s3_mask_i,
  input  kestrel_pkg::sm_wb_t      s3_pkt_i,       // pc, decode, fetch and stage-1 faults
  input  logic [RowW-1:0]          s3_result_i,
  input  logic                     s3_active_i,    // its warp still runs
  input  logic [RowW-1:0]          mul_result_i,
  input  logic                     s2_valid_i,
  input  logic                     s1_valid_i,
  input  logic [2:1]               resv_near_i,    // lane-pipeline reservations of the next two slots
  output logic                     s3_faulting_o,
  // lane pipeline (reserved slot)
  input  logic                     fpl_rsp_valid_i,
  output logic                     fpl_rsp_ready_o,
  input  logic [RowW-1:0]          fpl_result_i,
  input  logic [MetaW-1:0]         fpl_meta_i,
  input  logic                     fpl_live_i,
  // LSU
  input  logic                     lsu_rsp_valid_i,
  output logic                     lsu_rsp_ready_o,
  input  logic [WarpW-1:0]         lsu_rsp_warp_i,
  input  logic [4:0]               lsu_rsp_rd_i,
  input  logic                     lsu_rsp_load_i,
  input  logic                     lsu_rsp_last_i,
  input  logic [Lanes-1:0]         lsu_rsp_mask_i,
  input  logic [RowW-1:0]          lsu_rsp_data_i,
  input  kestrel_pkg::fault_kind_e lsu_rsp_fault_i,
  input  logic [31:0]              lsu_pc_i,
  input  logic                     lsu_fp_i,       // flw: writes f rd
  input  logic                     lsu_inflight_i, // not drained by a flush
  // divider
  input  logic                     div_pending_i,
  input  logic                     div_inflight_i,
  input  logic [WarpW-1:0]         div_warp_i,
  input  logic [31:0]              div_pc_i,
  input  logic [Lanes-1:0]         div_mask_i,
  input  logic [4:0]               div_rd_i,
  input  logic [RowW-1:0]          div_result_i,
  // divsqrt and SFU
  input  logic                     fpx_rsp_valid_i,
  output logic                     fpx_rsp_ready_o,
  input  logic [RowW-1:0]          fpx_result_i,
  input  logic [MetaW-1:0]         fpx_meta_i,
  input  logic                     fpx_live_i,
  // barrier results to write
  input  logic [Warps*Lanes-1:0]   drain_i,
  input  logic [Warps*Lanes*5-1:0] bar_rd_i,
  input  logic [Warps*Lanes*2-1:0] bar_kind_i,
  input  logic [Warps*Lanes*32-1:0] lpc_i,
  input  logic [Warps*WarpW-1:0]   wblk_i,
  input  logic [Warps*CountW-1:0]  bar_res_nonzero_i,
  input  logic [Warps*CountW-1:0]  bar_res_arrived_i,
  // grants
  output logic                     grant_fpl_o,
  output logic                     grant_lsu_o,
  output logic                     grant_div_o,
  output logic                     grant_fp_o,
  output logic                     grant_drain_o,
  output logic                     drain_any_o,
  output logic [WarpW-1:0]         drain_warp_o,
  output logic [Lanes-1:0]         drain_mask_o,
  output logic                     hold_issue_o,
  // retire record and register writes
  output logic                     retire_valid_o,
  output logic [WarpW-1:0]         retire_warp_o,
  output logic [63:0]              retire_pc_o,
  output logic [Lanes-1:0]         retire_mask_o,
  output logic                     retire_rd_we_o,
  output logic                     retire_rd_fp_o,
  output logic [4:0]               retire_rd_o,
  output logic [RowW-1:0]          retire_rd_data_o,
  output logic                     xwe_o,      // x register write
  output logic                     fwe_o,      // f register write
  output logic                     sb_clear_o, // x scoreboard clear
  output logic                     fsb_clear_o, // f-load scoreboard clear (an flw's write-back)
  output logic                     bar_issue_o,
  output logic [WarpW-1:0]         bar_issue_slot_o
);
  logic [WarpW-1:0] fpl_warp, fpx_warp;
  logic [31:0] fpl_pc, fpx_pc;
  logic [Lanes-1:0] fpl_mask, fpx_mask;
  logic [4:0] fpl_rd, fpx_rd;
  logic fpl_rd_fp, fpl_xwe, fpx_rd_fp, fpx_xwe;
  assign {fpl_warp, fpl_pc, fpl_mask, fpl_rd, fpl_rd_fp, fpl_xwe} = fpl_meta_i;
  assign {fpx_warp, fpx_pc, fpx_mask, fpx_rd, fpx_rd_fp, fpx_xwe} = fpx_meta_i;

  // Barrier results to write: the lowest warp with some, its lowest lane and
  // the lanes of that warp with the same rd, kind and PC.
  logic [Warps-1:0] drain_warps;
  logic drain_any;
  logic [WarpW-1:0] drain_w;
  logic [LaneW-1:0] drain_l;
  logic [Lanes-1:0] drain_mask;
  logic [4:0] drain_rd;
  logic [1:0] drain_kind;
  logic [31:0] drain_pc;
  logic [Xlen-1:0] drain_value;
  always_comb begin
    logic [WarpW-1:0] slot;
    logic [CountW-1:0] nz, arr;
    for (int unsigned w = 0; w < Warps; w++) drain_warps[w] = drain_i[w*Lanes +: Lanes] != '0;
    drain_any = |drain_warps;
    drain_w = '0;
    for (int w = Warps - 1; w >= 0; w--) if (drain_warps[w]) drain_w = WarpW'(w);
    drain_l = '0;
    for (int l = Lanes - 1; l >= 0; l--) if (drain_i[32'(drain_w)*Lanes + 32'(l)]) drain_l = LaneW'(l);
    drain_rd = bar_rd_i[(32'(drain_w)*Lanes + 32'(drain_l))*5 +: 5];
    drain_kind = bar_kind_i[(32'(drain_w)*Lanes + 32'(drain_l))*2 +: 2];
    drain_pc = lpc_i[(32'(drain_w)*Lanes + 32'(drain_l))*32 +: 32] - 32'd4;
    for (int unsigned l = 0; l < Lanes; l++) begin
      drain_mask[l] = drain_i[32'(drain_w)*Lanes + l]
                      && bar_rd_i[(32'(drain_w)*Lanes + l)*5 +: 5] == drain_rd
                      && bar_kind_i[(32'(drain_w)*Lanes + l)*2 +: 2] == drain_kind
                      && lpc_i[(32'(drain_w)*Lanes + l)*32 +: 32] == drain_pc + 32'd4;
    end
    slot = wblk_i[32'(drain_w)*WarpW +: WarpW];
    nz = bar_res_nonzero_i[32'(slot)*CountW +: CountW];
    arr = bar_res_arrived_i[32'(slot)*CountW +: CountW];
    if (drain_kind == kestrel_pkg::BarKindCount) drain_value = Xlen'(nz);
    else if (drain_kind == kestrel_pkg::BarKindAnd) drain_value = Xlen'(nz == arr);
    else drain_value = Xlen'(nz != '0);
  end

  logic grant_lsu, grant_div, grant_fp, grant_fpl, grant_drain;
  logic slot_free;
  always_comb begin
    s3_faulting_o = s3_valid_i && (s3_pkt_i.ffault || s3_pkt_i.barfault || s3_pkt_i.dec.cls == kestrel_pkg::ClassIllegal
                                 || s3_pkt_i.dec.cls == kestrel_pkg::ClassTrap);
    // A lane-pipeline result owns its reserved slot: stage 3 is then empty or
    // faulting (a fault retires nothing), since issue kept stage 3 free there.
    grant_fpl = fpl_rsp_valid_i && !(s3_valid_i && !s3_faulting_o);
    slot_free = !s3_valid_i && !fpl_rsp_valid_i;
    grant_lsu = slot_free && lsu_rsp_valid_i;
    grant_div = slot_free && !lsu_rsp_valid_i && div_pending_i;
    grant_fp = slot_free && !lsu_rsp_valid_i && !div_pending_i && fpx_rsp_valid_i;
    grant_drain = slot_free && !lsu_rsp_valid_i && !div_pending_i && !fpx_rsp_valid_i && drain_any;
    lsu_rsp_ready_o = grant_lsu;
    fpx_rsp_ready_o = grant_fp;
    fpl_rsp_ready_o = grant_fpl;
    // Leave a bubble for a waiting unit when the next two slots are taken
    // (stage 2, stage 1 or reservations); with a 1-stage lane pipeline a new
    // lane operation could take the second, so hold then already.
    hold_issue_o = ((lsu_rsp_valid_i && !grant_lsu) || (div_pending_i && !grant_div) || (fpx_rsp_valid_i && !grant_fp)
                  || (drain_any && !grant_drain))
                 && (s2_valid_i || resv_near_i[1]) && (s1_valid_i || resv_near_i[2] || FpuStages < 2);
  end

  logic [RowW-1:0] s3_data;
  assign s3_data = (s3_pkt_i.dec.cls == kestrel_pkg::ClassMul) ? mul_result_i : s3_result_i;

  logic lsu_retire_ok;
  assign lsu_retire_ok = grant_lsu && lsu_inflight_i && lsu_rsp_fault_i == kestrel_pkg::FaultNone;

  always_comb begin
    retire_valid_o = 1'b0;
    retire_warp_o = '0;
    retire_pc_o = '0;
    retire_mask_o = '0;
    retire_rd_we_o = 1'b0;
    retire_rd_o = '0;
    retire_rd_data_o = '0;
    retire_rd_fp_o = 1'b0;
    if (grant_fpl) begin
      retire_valid_o = fpl_live_i;
      retire_warp_o = fpl_warp;
      retire_pc_o = 64'(fpl_pc);
      retire_mask_o = fpl_mask;
      retire_rd_we_o = (fpl_rd_fp || fpl_xwe) && fpl_live_i;
      retire_rd_fp_o = fpl_rd_fp;
      retire_rd_o = fpl_rd;
      retire_rd_data_o = fpl_result_i;
    end else if (s3_valid_i) begin
      // A collective whose lanes all parked goes down the pipe with no lanes
      // (it clears its scoreboard entry) and retires nothing.
      retire_valid_o = !s3_faulting_o && s3_mask_i != '0;
      retire_warp_o = s3_warp_i;
      retire_pc_o = 64'(s3_pkt_i.pc);
      retire_mask_o = s3_mask_i;
      retire_rd_we_o = s3_pkt_i.dec.rd_we && s3_pkt_i.dec.cls != kestrel_pkg::ClassBarrier && !s3_faulting_o;
      retire_rd_o = s3_pkt_i.dec.rd;
      retire_rd_data_o = s3_data;
    end else if (grant_lsu) begin
      retire_valid_o = lsu_retire_ok;
      retire_warp_o = lsu_rsp_warp_i;
      retire_pc_o = 64'(lsu_pc_i);
      retire_mask_o = lsu_rsp_mask_i;
      // flw writes f rd (f0 included); the trace carries its 32-bit pattern.
      retire_rd_fp_o = lsu_fp_i;
      retire_rd_we_o = lsu_rsp_load_i && (lsu_fp_i || lsu_rsp_rd_i != 5'd0) && lsu_retire_ok;
      retire_rd_o = lsu_rsp_rd_i;
      retire_rd_data_o = lsu_rsp_data_i;
      if (lsu_fp_i) begin
        for (int unsigned l = 0; l < Lanes; l++) retire_rd_data_o[l*Xlen +: Xlen] = Xlen'(lsu_rsp_data_i[l*Xlen +: 32]);
      end
    end else if (grant_div) begin
      retire_valid_o = div_inflight_i;
      retire_warp_o = div_warp_i;
      retire_pc_o = 64'(div_pc_i);
      retire_mask_o = div_mask_i;
      retire_rd_we_o = div_rd_i != 5'd0 && div_inflight_i;
      retire_rd_o = div_rd_i;
      retire_rd_data_o = div_result_i;
    end else if (grant_fp) begin
      retire_valid_o = fpx_live_i;
      retire_warp_o = fpx_warp;
      retire_pc_o = 64'(fpx_pc);
      retire_mask_o = fpx_mask;
      retire_rd_we_o = (fpx_rd_fp || fpx_xwe) && fpx_live_i;
      retire_rd_fp_o = fpx_rd_fp;
      retire_rd_o = fpx_rd;
      retire_rd_data_o = fpx_result_i;
    end else if (grant_drain) begin
      retire_valid_o = 1'b1;
      retire_warp_o = drain_w;
      retire_pc_o = 64'(drain_pc);
      retire_mask_o = drain_mask;
      retire_rd_we_o = 1'b1;
      retire_rd_o = drain_rd;
      for (int unsigned l = 0; l < Lanes; l++) retire_rd_data_o[l*Xlen +: Xlen] = drain_value;
    end
    xwe_o = retire_rd_we_o && !retire_rd_fp_o;
    fwe_o = retire_rd_we_o && retire_rd_fp_o;
    // The scoreboard only tracks pipe and unit results; barrier results block
    // their warp instead.
    sb_clear_o = xwe_o && !grant_drain;
    fsb_clear_o = fwe_o && grant_lsu;
  end

  // Every retire of a model-visible instruction feeds the barrier watchdog.
  always_comb begin
    bar_issue_o = 1'b0;
    bar_issue_slot_o = wblk_i[32'(s3_warp_i)*WarpW +: WarpW];
    if (grant_fpl) begin
      bar_issue_o = fpl_live_i;
      bar_issue_slot_o = wblk_i[32'(fpl_warp)*WarpW +: WarpW];
    end else if (s3_valid_i) begin
      bar_issue_o = s3_active_i && !s3_faulting_o && s3_mask_i != '0;
    end else if (grant_lsu) begin
      bar_issue_o = lsu_retire_ok && lsu_rsp_last_i;
      bar_issue_slot_o = wblk_i[32'(lsu_rsp_warp_i)*WarpW +: WarpW];
    end else if (grant_div) begin
      bar_issue_o = div_inflight_i;
      bar_issue_slot_o = wblk_i[32'(div_warp_i)*WarpW +: WarpW];
    end else if (grant_fp) begin
      bar_issue_o = fpx_live_i;
      bar_issue_slot_o = wblk_i[32'(fpx_warp)*WarpW +: WarpW];
    end
  end

  assign grant_fpl_o = grant_fpl;
  assign grant_lsu_o = grant_lsu;
  assign grant_div_o = grant_div;
  assign grant_fp_o = grant_fp;
  assign grant_drain_o = grant_drain;
  assign drain_any_o = drain_any;
  assign drain_warp_o = drain_w;
  assign drain_mask_o = drain_mask;

  // Lint sink: the decode fields that stage 3 does not need here.
  logic unused_s3_pkt;
  assign unused_s3_pkt = ^s3_pkt_i;

  // One owner per slot; a granted unit had something to give; a reserved
  // lane-pipeline result is never refused.
  `KESTREL_ASSERT_ONEHOT0(grant_onehot, {grant_fpl, grant_lsu, grant_div, grant_fp, grant_drain})
  `KESTREL_ASSERT(grant_after_s3, (grant_lsu || grant_div || grant_fp || grant_drain) |-> !s3_valid_i)
  `KESTREL_ASSERT(fpl_never_refused, fpl_rsp_valid_i |-> grant_fpl)
  `KESTREL_ASSERT_KNOWN(lsu_rsp_valid_known, lsu_rsp_valid_i)
  `KESTREL_ASSERT_KNOWN(fpx_rsp_valid_known, fpx_rsp_valid_i)
endmodule
