// kestrel_sm: one streaming multiprocessor.  Warps of resident blocks issue
// one warp-instruction per cycle at most, chosen among ready warps by
// kestrel_warp_sched; within a warp the thread group follows docs/isa.md
// section 6 exactly (kestrel_group_sel), so the functional model can follow
// the SM instruction by instruction (lock-step, verif/lockstep/).
//
// Pipeline (docs/microarchitecture.md, "SM pipeline"):
//   issue  (I)  group + per-warp line buffer + decode + scoreboard; register read
//   stage 1     operands; ALU, branch resolution per lane (new lane PCs), CSR
//               values, LSU request, divider start, multiplier input stage
//   stage 2     multiplier product
//   stage 3     writeback and retire; exits, barrier arrivals, faults
// The LSU, the divider and barrier results (written when a barrier releases)
// take the single writeback/retire slot when stage 3 is empty; issue leaves a
// bubble for them when needed.  F instructions other than flw/fsw leave the
// pipe in stage 1 for kestrel_fp_exec and retire from there: lane-pipeline
// operations (FMA, add, compares, conversions, ...) stream at one
// warp-instruction per cycle, each reserving its retire slot at issue (the
// lane pipeline has a fixed latency and the first claim on the slot after
// stage 3); divsqrt and SFU take one warp each and retire like divides.
// rm = 7 is resolved per thread from frm in stage 1 (frm 5..7: illegal
// instruction, as in the model).  A warp with an atomic, kx.tex, divide,
// divsqrt or SFU instruction outstanding issues nothing else until it
// retires; one with lane-pipeline operations outstanding issues only further
// independent ones (f-register scoreboard), which retire in order.  Loads and
// stores do not block their warp: up to MemInFlight of them per warp are in
// the LSU while the warp issues what does not need their results (x
// scoreboard, f-load scoreboard), so a warp's later instructions may retire
// before them; every retire record carries the number of its warp's memory
// instructions before it, which lock-step replays in program order
// (kestrel_sm_issue, kestrel_sm_mem_hazard; docs/microarchitecture.md,
// "Memory instructions in flight").  Other warps keep issuing.
//
// Warp-synchronous instructions (docs/isa.md section 6.1) are control
// instructions: votes, shuffles, match and reduce read every lane's
// membermask in stage 1, where kestrel_warp_conv finds the complete classes
// among the issuing lanes and those parked at the same PC, the lanes of
// incomplete classes park (held, not eligible) and the complete ones go
// through kestrel_warp_xbar and retire in stage 3 (a fully parked issue
// retires nothing).  kx.syncwarp waiters are released in stage 3 (its own
// retire or an exit); kx.nanosleep puts the issuing lanes to sleep for the
// requested time (per warp: the latest wake-up of its sleepers wins).
//
// Blocks (docs/microarchitecture.md, "SM units"), each a composition of
// units: kestrel_sm_warps (block dispatch, the per-warp and per-lane control
// state, barriers, fault records), kestrel_sm_frontend (fetch, I-cache and
// the memory port, decode, scoreboards and scheduler, the x and f register
// files), kestrel_sm_backend (stage 1..3 registers, execute, the F units,
// the LSU, the retire slot) and kestrel_sm_events (performance events, busy).
// This module only wires them; stage payloads are kestrel_pkg's SM stage
// packets.
//
// Boundary: docs/microarchitecture.md, "SM boundary" (valid/ready block
// dispatch and memory port, kestrel_pkg payloads).
module kestrel_sm #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned SharedBytes = 64 * 1024,
  parameter int unsigned SchedPolicy = 32'(kestrel_pkg::SchedLooseRoundRobin),  // kestrel_pkg::sched_policy_e
  // Barrier watchdog: block retires while threads wait (docs/isa.md section 6).
  parameter int unsigned BarrierWatchdogLog2 = kestrel_pkg::BarrierWatchdogLog2,
  // Instruction cache lines (64 bytes each, direct mapped), a power of two.
  parameter int unsigned ICacheLines = 16,
  parameter int unsigned TexUnit = 1,      // 1: a texture unit (kx.tex); 0: kx.tex is illegal
  // Loads and stores in flight per warp (1..15; docs/microarchitecture.md,
  // "Memory instructions in flight") and line requests in flight in the LSU.
  parameter int unsigned MemInFlight = 4,
  parameter int unsigned LsuLines = 32,
  // F extension: SFU lanes (a divisor of Lanes; a warp goes through them in
  // turns) and the FMA pipeline depth (docs/fpu.md).
  parameter int unsigned SfuLanes = (Lanes < 4) ? Lanes : 4,
  parameter int unsigned FpuStages = 3,
  // SM clock (kHz): kx.nanosleep converts nanoseconds to cycles with it.
  parameter int unsigned ClockKhz = 100_000,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic [7:0]               sm_id_i,
  // launch
  input  kestrel_pkg::launch_t     launch_i,
  input  logic                     start_i,
  input  logic                     abort_i,
  // block dispatch
  input  logic                     blk_valid_i,
  output logic                     blk_ready_o,
  input  kestrel_pkg::dim3_t       blk_idx_i,
  output logic [Warps-1:0]         blk_slots_o,
  output logic                     blk_done_o,
  // global memory
  output logic                     mem_req_valid_o,
  input  logic                     mem_req_ready_i,
  output kestrel_pkg::mem_req_t    mem_req_o,
  input  logic                     mem_rsp_valid_i,
  output logic                     mem_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t    mem_rsp_i,
  // first fault of the launch
  output logic                     fault_valid_o,
  output kestrel_pkg::fault_t      fault_o,
  output logic                     busy_o,
  output kestrel_pkg::sm_events_t  events_o,
  // the texture unit's cache events (the memory counter window; 0 without one)
  output logic                     ev_tex_hit_o,
  output logic                     ev_tex_miss_o,
  output logic                     ev_desc_miss_o,
  // retire trace
  output logic                     retire_valid_o,
  output logic [WarpW-1:0]         retire_warp_o,
  output logic [63:0]              retire_pc_o,
  output logic [Lanes-1:0]         retire_mask_o,
  output logic                     retire_rd_we_o,
  output logic                     retire_rd_fp_o,
  output logic [4:0]               retire_rd_o,
  output logic [Lanes*Xlen-1:0]    retire_rd_data_o,
  output logic                     retire_lsu_o,       // the record is a memory instruction's (LSU, kx.tex)
  output logic [3:0]               retire_mem_seq_o    // its warp's memory instructions before it, mod 16
);
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1;
  localparam int unsigned RowW = Lanes * Xlen;
  localparam int unsigned CountW = 11;
  localparam int unsigned TidW = 30;
  localparam int unsigned SleepW = 48;

  // Wires between the blocks, named after the state or event they carry.
  logic [Warps-1:0] active, grp_valid, ctrl, long;
  logic [Warps*WarpW-1:0] wblk, widx;
  logic [Warps*Lanes*32-1:0] lpc;
  logic [Warps*Lanes-1:0] exited, waiting, drain, held, swait, grp_mask;
  logic [Warps*Lanes*5-1:0] bar_rd, fflags;
  logic [Warps*Lanes*2-1:0] bar_kind;
  logic [Warps*Lanes*3-1:0] frm;
  logic [Warps*32-1:0] grp_pc;
  logic [Warps*Lanes*TidW-1:0] tid;
  logic [Lanes*64-1:0] issue_instret;
  logic fault_valid, stop;
  kestrel_pkg::fault_t fault;
  logic [63:0] cycle;
  logic lsu_inflight, div_inflight, div_pending;
  logic flush;
  logic [Xlen-1:0] init_sp;
  logic disp_take, disp_busy, disp_warp_done;
  logic [WarpW-1:0] disp_warp;
  logic [Warps-1:0] disp_used;
  logic [Warps*64-1:0] disp_bidx;
  logic [Warps*32-1:0] disp_bphys;
  logic blk_done;
  logic [RowW-1:0] rf_rs1_data, rf_rs2_data, rf_rs3_data;
  logic rf_we;
  logic [Warps-1:0] lane_busy;
  logic [Warps*32-1:0] fpend;
  logic [Warps-1:0] sb_hazard;
  logic sb_clear, fsb_clear;
  logic [Warps-1:0] mem_busy, mem_full;
  logic bar_issue;
  logic [WarpW-1:0] bar_issue_slot;
  logic [Warps-1:0] bar_release;
  logic [Warps*CountW-1:0] bar_res_nonzero, bar_res_arrived;
  logic s1_valid, s2_valid, s3_valid;
  logic [WarpW-1:0] s1_warp, s3_warp;
  logic [Lanes-1:0] s1_mask, s3_mask;
  kestrel_pkg::sm_issue_t s1_pkt;
  kestrel_pkg::sm_wb_t s3_pkt;
  logic [RowW-1:0] s3_result;
  logic [Lanes-1:0] s3_nonzero;
  logic [LaneW-1:0] s3_flane;
  logic [63:0] s3_a1;
  logic s3_faulting;
  logic [31:0] lsu_pc;
  logic [WarpW-1:0] div_warp;
  logic grant_lsu, grant_div, grant_fp, grant_fpl, grant_drain;
  logic drain_any;
  logic [WarpW-1:0] drain_w;
  logic [Lanes-1:0] drain_mask;
  logic s1_coll;
  logic s1_pair;
  logic ds_busy, sfu_busy;
  logic resv3;
  logic fp_busy;
  logic hold_issue;
  logic issue;
  logic [WarpW-1:0] iw;
  logic [Lanes-1:0] imask;
  logic [Warps-1:0] sched_launch;
  kestrel_pkg::sm_issue_t ipkt;
  logic frf_we;
  logic [Lanes*32-1:0] frf_rs1_data, frf_rs2_data, frf_rs3_data;
  logic [Lanes*32-1:0] s1_target;
  logic [2*Xlen-1:0] s1_lead_ops;
  logic [Warps-1:0] backoff;
  logic s1_barfault;
  logic s1_sleep;
  logic [SleepW-1:0] s1_sleep_amount;
  logic [Lanes-1:0] s1_ready;
  logic s1_wsfault;
  logic s1_rmfault;
  logic div_done;
  logic [Lanes*5-1:0] fpx_flags, fpl_flags;
  logic lsu_idle, lsu_busy, lsu_pair_busy;
  logic lsu_rsp_last;
  logic [WarpW-1:0] lsu_rsp_warp;
  kestrel_pkg::fault_kind_e lsu_rsp_fault;
  logic [LaneW-1:0] lsu_rsp_fault_lane;
  logic [Xlen-1:0] lsu_rsp_fault_addr;
  logic lsu_mem_req_valid, lsu_mem_req_ready, lsu_mem_rsp_valid, lsu_mem_rsp_ready;
  kestrel_pkg::mem_req_t lsu_mem_req;
  logic tex_busy;
  logic tex_mem_req_valid, tex_mem_req_ready, tex_mem_rsp_valid, tex_mem_rsp_ready;
  kestrel_pkg::mem_req_t tex_mem_req;
  logic lsu_ev_shared_access;
  logic [6:0] lsu_ev_shared_passes, lsu_ev_atomics;
  logic [Warps-1:0] fetch_want;
  logic fetch_busy;
  logic [WarpW-1:0] fpl_warp, fpx_warp;
  logic [Lanes-1:0] fpl_mask, fpx_mask;
  logic fpl_live, fpx_live;
  assign flush = start_i || abort_i;
  assign init_sp = Xlen'(kestrel_pkg::LocalBase) + Xlen'(launch_i.stack_bytes);

  // ===========================================================================
  // Outputs
  // ===========================================================================
  assign blk_done_o = blk_done;
  assign fault_valid_o = fault_valid;
  assign fault_o = fault;
  assign retire_lsu_o = grant_lsu;

  kestrel_sm_warps #(
    .Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .SharedBytes(SharedBytes), .BarrierWatchdogLog2(BarrierWatchdogLog2),
    .MemInFlight(MemInFlight)
  ) u_warps (
    .clk_i, .rst_ni,
    // from the back end (kestrel_sm_backend)
    .bar_issue_i(bar_issue), .bar_issue_slot_i(bar_issue_slot), .div_done_i(div_done),
    .div_warp_i(div_warp), .drain_any_i(drain_any), .drain_mask_i(drain_mask), .drain_w_i(drain_w),
    .fp_busy_i(fp_busy), .fpl_flags_i(fpl_flags), .fpl_live_i(fpl_live), .fpl_mask_i(fpl_mask),
    .fpl_warp_i(fpl_warp), .fpx_flags_i(fpx_flags), .fpx_live_i(fpx_live), .fpx_mask_i(fpx_mask),
    .fpx_warp_i(fpx_warp), .grant_div_i(grant_div), .grant_drain_i(grant_drain),
    .grant_fp_i(grant_fp), .grant_fpl_i(grant_fpl), .grant_lsu_i(grant_lsu), .lsu_pc_i(lsu_pc),
    .lsu_rsp_fault_i(lsu_rsp_fault), .lsu_rsp_fault_addr_i(lsu_rsp_fault_addr),
    .lsu_rsp_fault_lane_i(lsu_rsp_fault_lane), .lsu_rsp_last_i(lsu_rsp_last),
    .lsu_rsp_warp_i(lsu_rsp_warp), .s1_barfault_i(s1_barfault), .s1_coll_i(s1_coll),
    .s1_mask_i(s1_mask), .s1_pkt_i(s1_pkt), .s1_ready_i(s1_ready), .s1_rmfault_i(s1_rmfault),
    .s1_sleep_i(s1_sleep), .s1_sleep_amount_i(s1_sleep_amount), .s1_target_i(s1_target),
    .s1_lead_ops_i(s1_lead_ops),
    .s1_valid_i(s1_valid), .s1_warp_i(s1_warp), .s1_wsfault_i(s1_wsfault), .s2_valid_i(s2_valid),
    .s3_a1_i(s3_a1), .s3_faulting_i(s3_faulting), .s3_flane_i(s3_flane), .s3_mask_i(s3_mask),
    .s3_nonzero_i(s3_nonzero), .s3_pkt_i(s3_pkt), .s3_result_i(s3_result), .s3_valid_i(s3_valid),
    .s3_warp_i(s3_warp),
    // from the front end (kestrel_sm_frontend)
    .imask_i(imask), .ipkt_i(ipkt), .issue_i(issue), .iw_i(iw), .rf_rs1_data_i(rf_rs1_data),
    // the retire record (kestrel_sm_backend)
    .retire_warp_i(retire_warp_o),
    // from the SM's ports
    .blk_idx_i, .blk_valid_i, .launch_i, .sm_id_i, .start_i,
    // from kestrel_sm
    .flush_i(flush),
    // to the back end (kestrel_sm_backend)
    .bar_kind_o(bar_kind), .bar_rd_o(bar_rd), .bar_res_arrived_o(bar_res_arrived),
    .bar_res_nonzero_o(bar_res_nonzero), .cycle_o(cycle), .disp_bidx_o(disp_bidx),
    .disp_bphys_o(disp_bphys), .disp_take_o(disp_take), .div_pending_o(div_pending),
    .fflags_o(fflags), .frm_o(frm), .held_o(held), .issue_instret_o(issue_instret), .lpc_o(lpc),
    .swait_o(swait), .tid_o(tid), .widx_o(widx),
    // to kestrel_sm_events
    .disp_busy_o(disp_busy), .disp_used_o(disp_used), .waiting_o(waiting),
    // to the front end (kestrel_sm_frontend)
    .backoff_o(backoff), .ctrl_o(ctrl), .disp_warp_o(disp_warp), .disp_warp_done_o(disp_warp_done),
    .grp_mask_o(grp_mask), .grp_pc_o(grp_pc), .sched_launch_o(sched_launch), .stop_o(stop),
    // to several units
    .active_o(active), .bar_release_o(bar_release), .blk_done_o(blk_done), .blk_slots_o,
    .div_inflight_o(div_inflight), .drain_o(drain), .exited_o(exited), .fault_valid_o(fault_valid),
    .grp_valid_o(grp_valid), .long_o(long), .lsu_inflight_o(lsu_inflight), .wblk_o(wblk),
    .mem_busy_o(mem_busy), .mem_full_o(mem_full),
    // to the SM's ports
    .blk_ready_o, .retire_mem_seq_o,
    // to kestrel_sm
    .fault_o(fault)
  );

  kestrel_sm_frontend #(
    .Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .SchedPolicy(SchedPolicy), .ICacheLines(ICacheLines), .FpuStages(FpuStages),
    .TexUnit(TexUnit)
  ) u_frontend (
    .clk_i, .rst_ni,
    // from the back end (kestrel_sm_backend)
    .ds_busy_i(ds_busy), .fpend_i(fpend), .frf_we_i(frf_we), .hold_issue_i(hold_issue),
    .lane_busy_i(lane_busy), .lsu_mem_req_i(lsu_mem_req), .lsu_mem_req_valid_i(lsu_mem_req_valid),
    .lsu_mem_rsp_ready_i(lsu_mem_rsp_ready), .resv3_i(resv3), .retire_mask_i(retire_mask_o),
    .tex_busy_i(tex_busy), .tex_mem_req_i(tex_mem_req), .tex_mem_req_valid_i(tex_mem_req_valid),
    .tex_mem_rsp_ready_i(tex_mem_rsp_ready),
    .retire_rd_data_i(retire_rd_data_o), .retire_rd_i(retire_rd_o), .retire_warp_i(retire_warp_o),
    .rf_we_i(rf_we), .s1_pkt_i(s1_pkt), .s1_valid_i(s1_valid), .s1_warp_i(s1_warp),
    .sb_clear_i(sb_clear), .fsb_clear_i(fsb_clear), .sfu_busy_i(sfu_busy),
    // from warp management (kestrel_sm_warps)
    .active_i(active), .backoff_i(backoff), .bar_release_i(bar_release), .ctrl_i(ctrl), .disp_warp_i(disp_warp),
    .disp_warp_done_i(disp_warp_done), .div_inflight_i(div_inflight), .drain_i(drain),
    .fault_valid_i(fault_valid), .grp_mask_i(grp_mask), .frm_i(frm), .grp_pc_i(grp_pc), .grp_valid_i(grp_valid),
    .long_i(long), .mem_busy_i(mem_busy), .mem_full_i(mem_full), .lsu_busy_i(lsu_busy),
    .lsu_pair_busy_i(lsu_pair_busy),
    .sched_launch_i(sched_launch), .stop_i(stop),
    .wblk_i(wblk),
    // from the SM's ports
    .launch_i, .mem_req_ready_i, .mem_rsp_i, .mem_rsp_valid_i, .start_i,
    // from kestrel_sm
    .flush_i(flush), .init_sp_i(init_sp),
    // to the back end (kestrel_sm_backend)
    .frf_rs1_data_o(frf_rs1_data), .frf_rs2_data_o(frf_rs2_data), .frf_rs3_data_o(frf_rs3_data),
    .lsu_mem_req_ready_o(lsu_mem_req_ready), .lsu_mem_rsp_valid_o(lsu_mem_rsp_valid),
    .tex_mem_req_ready_o(tex_mem_req_ready), .tex_mem_rsp_valid_o(tex_mem_rsp_valid),
    .rf_rs2_data_o(rf_rs2_data), .rf_rs3_data_o(rf_rs3_data), .s1_pair_o(s1_pair),
    // to kestrel_sm_events
    .fetch_busy_o(fetch_busy), .fetch_want_o(fetch_want), .sb_hazard_o(sb_hazard),
    // to several units
    .imask_o(imask), .ipkt_o(ipkt), .issue_o(issue), .iw_o(iw), .mem_req_valid_o,
    .rf_rs1_data_o(rf_rs1_data),
    // to the SM's ports
    .mem_req_o, .mem_rsp_ready_o
  );

  kestrel_sm_backend #(
    .Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .SharedBytes(SharedBytes), .SfuLanes(SfuLanes), .FpuStages(FpuStages), .ClockKhz(ClockKhz),
    .TexUnit(TexUnit), .LsuSlots(Warps * MemInFlight), .LsuLines(LsuLines)
  ) u_backend (
    .clk_i, .rst_ni,
    // from the front end (kestrel_sm_frontend)
    .frf_rs1_data_i(frf_rs1_data), .frf_rs2_data_i(frf_rs2_data), .frf_rs3_data_i(frf_rs3_data),
    .imask_i(imask), .ipkt_i(ipkt), .issue_i(issue), .iw_i(iw),
    .lsu_mem_req_ready_i(lsu_mem_req_ready), .lsu_mem_rsp_valid_i(lsu_mem_rsp_valid),
    .tex_mem_req_ready_i(tex_mem_req_ready), .tex_mem_rsp_valid_i(tex_mem_rsp_valid),
    .rf_rs1_data_i(rf_rs1_data), .rf_rs2_data_i(rf_rs2_data), .rf_rs3_data_i(rf_rs3_data),
    .s1_pair_i(s1_pair),
    // from warp management (kestrel_sm_warps)
    .active_i(active), .bar_kind_i(bar_kind), .bar_rd_i(bar_rd),
    .bar_res_arrived_i(bar_res_arrived), .bar_res_nonzero_i(bar_res_nonzero),
    .blk_slots_i(blk_slots_o), .cycle_i(cycle), .disp_bidx_i(disp_bidx), .disp_bphys_i(disp_bphys),
    .disp_take_i(disp_take), .div_inflight_i(div_inflight), .div_pending_i(div_pending),
    .drain_i(drain), .exited_i(exited), .fflags_i(fflags), .frm_i(frm), .held_i(held),
    .issue_instret_i(issue_instret), .lpc_i(lpc), .lsu_inflight_i(lsu_inflight), .swait_i(swait),
    .tid_i(tid), .wblk_i(wblk), .widx_i(widx),
    // from the SM's ports
    .launch_i, .mem_rsp_i, .sm_id_i, .start_i,
    // from kestrel_sm
    .flush_i(flush),
    // to kestrel_sm_events
    .lsu_ev_atomics_o(lsu_ev_atomics), .lsu_ev_shared_access_o(lsu_ev_shared_access),
    .lsu_ev_shared_passes_o(lsu_ev_shared_passes), .lsu_idle_o(lsu_idle), .lsu_busy_o(lsu_busy),
    .lsu_pair_busy_o(lsu_pair_busy),
    // to the front end (kestrel_sm_frontend)
    .ds_busy_o(ds_busy), .fpend_o(fpend), .frf_we_o(frf_we), .hold_issue_o(hold_issue),
    .lane_busy_o(lane_busy), .lsu_mem_req_o(lsu_mem_req), .lsu_mem_req_valid_o(lsu_mem_req_valid),
    .lsu_mem_rsp_ready_o(lsu_mem_rsp_ready), .resv3_o(resv3), .rf_we_o(rf_we),
    .tex_busy_o(tex_busy), .tex_mem_req_o(tex_mem_req), .tex_mem_req_valid_o(tex_mem_req_valid),
    .tex_mem_rsp_ready_o(tex_mem_rsp_ready),
    .ev_tex_hit_o, .ev_tex_miss_o, .ev_desc_miss_o,
    .sb_clear_o(sb_clear), .fsb_clear_o(fsb_clear), .sfu_busy_o(sfu_busy),
    // to warp management (kestrel_sm_warps)
    .bar_issue_o(bar_issue), .bar_issue_slot_o(bar_issue_slot), .div_done_o(div_done),
    .div_warp_o(div_warp), .drain_any_o(drain_any), .drain_mask_o(drain_mask), .drain_w_o(drain_w),
    .fpl_flags_o(fpl_flags), .fpl_live_o(fpl_live), .fpl_mask_o(fpl_mask), .fpl_warp_o(fpl_warp),
    .fpx_flags_o(fpx_flags), .fpx_live_o(fpx_live), .fpx_mask_o(fpx_mask), .fpx_warp_o(fpx_warp),
    .grant_div_o(grant_div), .grant_drain_o(grant_drain), .grant_fp_o(grant_fp),
    .grant_fpl_o(grant_fpl), .grant_lsu_o(grant_lsu), .lsu_pc_o(lsu_pc),
    .lsu_rsp_fault_o(lsu_rsp_fault), .lsu_rsp_fault_addr_o(lsu_rsp_fault_addr),
    .lsu_rsp_fault_lane_o(lsu_rsp_fault_lane), .lsu_rsp_last_o(lsu_rsp_last),
    .lsu_rsp_warp_o(lsu_rsp_warp), .s1_barfault_o(s1_barfault), .s1_coll_o(s1_coll),
    .s1_mask_o(s1_mask), .s1_ready_o(s1_ready), .s1_rmfault_o(s1_rmfault), .s1_sleep_o(s1_sleep),
    .s1_sleep_amount_o(s1_sleep_amount), .s1_target_o(s1_target), .s1_lead_ops_o(s1_lead_ops), .s1_wsfault_o(s1_wsfault),
    .s3_a1_o(s3_a1), .s3_faulting_o(s3_faulting), .s3_flane_o(s3_flane), .s3_mask_o(s3_mask),
    .s3_nonzero_o(s3_nonzero), .s3_pkt_o(s3_pkt), .s3_result_o(s3_result), .s3_warp_o(s3_warp),
    // to several units
    .fp_busy_o(fp_busy), .retire_mask_o, .retire_rd_data_o, .retire_rd_o, .retire_warp_o,
    .s1_pkt_o(s1_pkt), .s1_valid_o(s1_valid), .s1_warp_o(s1_warp), .s2_valid_o(s2_valid),
    .s3_valid_o(s3_valid),
    // to the SM's ports
    .retire_pc_o, .retire_rd_fp_o, .retire_rd_we_o, .retire_valid_o
  );

  kestrel_sm_events #(
    .Lanes(Lanes), .Warps(Warps)
  ) u_events (
    // from the back end (kestrel_sm_backend)
    .fp_busy_i(fp_busy), .lsu_ev_atomics_i(lsu_ev_atomics),
    .lsu_ev_shared_access_i(lsu_ev_shared_access), .lsu_ev_shared_passes_i(lsu_ev_shared_passes),
    .lsu_idle_i(lsu_idle), .s1_valid_i(s1_valid), .s2_valid_i(s2_valid),
    .s3_valid_i(s3_valid),
    // from the front end (kestrel_sm_frontend)
    .fetch_busy_i(fetch_busy), .fetch_want_i(fetch_want), .imask_i(imask), .ipkt_i(ipkt),
    .issue_i(issue), .iw_i(iw), .mem_req_valid_i(mem_req_valid_o), .sb_hazard_i(sb_hazard),
    // from warp management (kestrel_sm_warps)
    .active_i(active), .bar_release_i(bar_release), .blk_done_i(blk_done), .disp_busy_i(disp_busy),
    .disp_used_i(disp_used), .div_inflight_i(div_inflight), .exited_i(exited),
    .grp_valid_i(grp_valid), .long_i(long), .mem_busy_i(mem_busy), .lsu_inflight_i(lsu_inflight),
    .waiting_i(waiting),
    // from the SM's ports
    .mem_req_ready_i,
    // to the SM's ports
    .busy_o, .events_o
  );
endmodule
