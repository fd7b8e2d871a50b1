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
// instruction, as in the model).  A warp with a memory, divide, divsqrt or
// SFU instruction outstanding issues nothing else until it retires; one with
// lane-pipeline operations outstanding issues only further independent ones
// (f-register scoreboard), which retire in order.  So every warp retires in
// issue order (what lock-step needs); other warps keep issuing.
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
// Units (docs/microarchitecture.md, "SM units"): kestrel_sm_dispatch (block
// allocation, thread-index walk), kestrel_sm_fetch (line buffers, I-cache,
// memory-port arbitration), kestrel_sm_issue (decode, scoreboards, hazards,
// scheduler), kestrel_sm_exec (stage 1), kestrel_sm_fp_track (F hand-over,
// f scoreboard, reservations), kestrel_sm_retire (the retire slot),
// kestrel_sm_faults (fault records, deadlock), kestrel_sm_warp_ctrl (per-warp
// and per-lane state and its next-state logic), kestrel_sm_pipe (the stage
// 1..3 registers, stage 1's hand-over to the LSU, divider and fp_exec, their
// records); the register files, LSU, kestrel_fp_exec and barrier unit.  This
// module wires them; stage payloads are kestrel_pkg's SM stage packets.
//
// Boundary: docs/microarchitecture.md, "SM boundary" (valid/ready block
// dispatch and memory port, kestrel_pkg payloads).
module kestrel_sm #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned SharedBytes = 64 * 1024,
  parameter kestrel_pkg::sched_policy_e SchedPolicy = kestrel_pkg::SchedLooseRoundRobin,
  // Barrier watchdog: block retires while threads wait (docs/isa.md section 6).
  parameter int unsigned BarrierWatchdogLog2 = kestrel_pkg::BarrierWatchdogLog2,
  // Instruction cache lines (64 bytes each, direct mapped), a power of two.
  parameter int unsigned ICacheLines = 16,
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
  // retire trace
  output logic                     retire_valid_o,
  output logic [WarpW-1:0]         retire_warp_o,
  output logic [63:0]              retire_pc_o,
  output logic [Lanes-1:0]         retire_mask_o,
  output logic                     retire_rd_we_o,
  output logic                     retire_rd_fp_o,
  output logic [4:0]               retire_rd_o,
  output logic [Lanes*Xlen-1:0]    retire_rd_data_o
);
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1;
  localparam int unsigned RowW = Lanes * Xlen;
  localparam int unsigned CountW = 11;
  localparam int unsigned TidW = 30;


  // ===========================================================================
  // Warp control state (kestrel_sm_warp_ctrl; flat vectors: warp w's field at
  // [w*W +: W]) and launch-wide flags
  // ===========================================================================
  localparam int unsigned SleepW = 48;
  logic [Warps-1:0] active_q, grp_valid_q, ctrl_q, long_q;
  logic [Warps*WarpW-1:0] wblk_q, widx_q;        // block slot, warp index in the block
  logic [Warps*Lanes*32-1:0] lpc_q;              // per-lane PC
  logic [Warps*Lanes-1:0] exited_q, waiting_q, drain_q, held_q, swait_q, grp_mask_q;
  logic [Warps*Lanes*5-1:0] bar_rd_q, fflags_q;
  logic [Warps*Lanes*2-1:0] bar_kind_q;
  logic [Warps*Lanes*3-1:0] frm_q;
  logic [Warps*32-1:0] grp_pc_q;
  logic [Warps*Lanes*TidW-1:0] tid_q;
  logic [Lanes*64-1:0] issue_instret;
  logic fault_valid_q, stop_q;
  kestrel_pkg::fault_t fault_q;
  logic [63:0] cycle_q;
  logic lsu_inflight_q, div_inflight_q, div_pending_q;

  // start: a new launch; abort: drop every resident block.
  logic flush;
  assign flush = start_i || abort_i;
  logic [Xlen-1:0] init_sp;
  assign init_sp = Xlen'(kestrel_pkg::LocalBase) + Xlen'(launch_i.stack_bytes);

  // ===========================================================================
  // Block dispatch: warp slots, shared regions, the thread-index walk
  // ===========================================================================
  logic disp_take, disp_busy, disp_lane_exited, disp_warp_done;
  logic [WarpW-1:0] disp_take_slot, disp_warp, disp_start_slot, disp_start_widx;
  logic [CountW-1:0] disp_threads;
  logic [LaneW-1:0] disp_lane;
  logic [TidW-1:0] disp_tid;
  logic [Warps-1:0] disp_used, disp_resident;
  logic [Warps*64-1:0] disp_bidx;
  logic [Warps*32-1:0] disp_bphys;
  logic blk_done;
  logic [WarpW-1:0] blk_done_slot;
  kestrel_sm_dispatch #(.Lanes(Lanes), .Warps(Warps), .SharedBytes(SharedBytes)) u_dispatch (
    .clk_i, .rst_ni,
    .flush_i      (flush),
    .block_x_i    (launch_i.block.x),
    .block_y_i    (launch_i.block.y),
    .block_z_i    (launch_i.block.z),
    .shared_size_i(launch_i.shared_size),
    .stall_i      (fault_valid_q || stop_q),
    .blk_valid_i,
    .blk_ready_o,
    .blk_idx_i,
    .blk_slots_o,
    .take_o       (disp_take),
    .take_slot_o  (disp_take_slot),
    .threads_o    (disp_threads),
    .busy_o       (disp_busy),
    .lane_warp_o  (disp_warp),
    .lane_o       (disp_lane),
    .lane_tid_o   (disp_tid),
    .lane_exited_o(disp_lane_exited),
    .start_o      (disp_warp_done),
    .start_slot_o (disp_start_slot),
    .start_widx_o (disp_start_widx),
    .done_i       (blk_done),
    .done_slot_i  (blk_done_slot),
    .used_o       (disp_used),
    .resident_o   (disp_resident),
    .bidx_o       (disp_bidx),
    .bphys_o      (disp_bphys)
  );
  // ===========================================================================
  // Register file
  // ===========================================================================
  logic rf_ren;
  logic [WarpW-1:0] rf_rwarp;
  logic [4:0] rf_rs1, rf_rs2, rf_rs3;
  logic [RowW-1:0] rf_rs1_data, rf_rs2_data, rf_rs3_data;
  logic rf_we;
  logic [WarpW-1:0] rf_wwarp;
  logic [4:0] rf_rd;
  logic [Lanes-1:0] rf_wmask;
  logic [RowW-1:0] rf_wdata;

  kestrel_regfile #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps)) u_regfile (
    .clk_i, .rst_ni,
    .init_ra_i    (launch_i.exit_pc[Xlen-1:0]),
    .init_sp_i    (init_sp),
    .init_gp_i    (launch_i.gp[Xlen-1:0]),
    .init_a0_i    (launch_i.param[Xlen-1:0]),
    .launch_i     (disp_warp_done),
    .launch_warp_i(disp_warp),
    .ren_i        (rf_ren),
    .rwarp_i      (rf_rwarp),
    .rs1_i        (rf_rs1),
    .rs2_i        (rf_rs2),
    .rs3_i        (rf_rs3),
    .rs1_data_o   (rf_rs1_data),
    .rs2_data_o   (rf_rs2_data),
    .rs3_data_o   (rf_rs3_data),
    .we_i         (rf_we),
    .wwarp_i      (rf_wwarp),
    .rd_i         (rf_rd),
    .wmask_i      (rf_wmask),
    .wdata_i      (rf_wdata)
  );

  // ===========================================================================
  // Per-warp view of the next instruction: line-buffer word, decode, hazards
  // ===========================================================================
  logic [Warps-1:0] lb_hit, fetch_fault_w;
  logic [Warps*32-1:0] wword;
  // Per warp: lane-pipeline ops in flight and the f registers they will
  // write (kestrel_sm_fp_track); x scoreboard hazards and clears.
  logic [Warps-1:0] lane_busy;
  logic [Warps*32-1:0] fpend;
  logic [Warps-1:0] sb_hazard;
  logic sb_clear;
  logic [WarpW-1:0] sb_clear_warp;
  logic [4:0] sb_clear_rd;

  // ===========================================================================
  // Barrier unit (one slot per possible block: block slot = first warp slot)
  // ===========================================================================
  logic bar_arrive, bar_exit, bar_issue;
  logic [WarpW-1:0] bar_arrive_slot, bar_exit_slot, bar_issue_slot;
  logic [CountW-1:0] bar_arrive_count, bar_arrive_nonzero, bar_exit_count;
  logic [Warps-1:0] bar_release, bar_waiting, bar_deadlock;
  logic [Warps*CountW-1:0] bar_res_nonzero, bar_res_arrived;
  logic [Warps-1:0] slot_held, slot_progress;

  kestrel_barrier #(.Slots(Warps), .WatchdogLog2(BarrierWatchdogLog2)) u_barrier (
    .clk_i, .rst_ni,
    .flush_i         (flush),
    .start_i         (disp_take),
    .start_slot_i    (disp_take_slot),
    .start_threads_i (disp_threads),
    .arrive_i        (bar_arrive),
    .arrive_slot_i   (bar_arrive_slot),
    .arrive_count_i  (bar_arrive_count),
    .arrive_nonzero_i(bar_arrive_nonzero),
    .exit_i          (bar_exit),
    .exit_slot_i     (bar_exit_slot),
    .exit_count_i    (bar_exit_count),
    .issue_i         (bar_issue),
    .issue_slot_i    (bar_issue_slot),
    .held_i          (slot_held),
    .progress_i      (slot_progress),
    .release_o       (bar_release),
    .result_nonzero_o(bar_res_nonzero),
    .result_arrived_o(bar_res_arrived),
    .waiting_o       (bar_waiting),
    .deadlock_o      (bar_deadlock)
  );

  // ===========================================================================
  // Issue stage
  // ===========================================================================
  // Stage 1..3 (kestrel_sm_pipe): stage 1's instruction, stage 3's, and the
  // records of the LSU and divider instructions out.
  logic s1_valid, s2_valid, s3_valid;
  logic [WarpW-1:0] s1_warp, s3_warp;
  logic [Lanes-1:0] s1_mask, s3_mask;
  kestrel_pkg::sm_issue_t s1_pkt;
  kestrel_pkg::sm_wb_t s3_pkt;
  logic [Lanes*64-1:0] s1_instret;
  logic [RowW-1:0] s3_result;
  logic [Lanes-1:0] s3_nonzero;
  logic [LaneW-1:0] s3_flane;
  logic [63:0] s3_a1;
  logic s3_faulting;
  logic [31:0] lsu_pc;
  logic lsu_fp;
  logic [WarpW-1:0] div_warp;
  logic [31:0] div_pc;
  logic [Lanes-1:0] div_mask;
  logic [4:0] div_rd;
  // Retire-slot grants (kestrel_sm_retire).
  logic grant_lsu, grant_div, grant_fp, grant_fpl, grant_drain;
  logic drain_any;
  logic [WarpW-1:0] drain_w;
  logic [Lanes-1:0] drain_mask;
  logic s1_coll;                                 // stage 1 holds a vote, shuffle, match or reduce

  // Stage 1 holds an RV32 register-pair atomic: the register file reads its
  // high words (rs2+1, rd+1) this cycle, so nothing issues.
  logic s1_pair;
  // F instructions in kestrel_fp_exec: one warp-instruction per cycle into
  // the lane pipeline (its records in a FIFO, in order), one in divsqrt, one
  // in the SFU (a record each; the fp_exec tag says which).
  // Record: {warp, pc, mask, rd, rd is f, rd is x}.
  localparam int unsigned FpMetaW = WarpW + 32 + Lanes + 7;
  logic ds_busy, sfu_busy;                             // out, or in stage 1
  // Retire-slot reservations of the lane pipeline: bit k is the slot k cycles
  // from now (an operation issued now is written back 1 + FpuStages cycles on).
  logic [FpuStages:0] resv;
  logic [3:0] resv_near;                               // bits 0..3 of resv, zero beyond
  logic fp_busy;                                       // F instructions out

  logic hold_issue;
  logic issue;
  logic [WarpW-1:0] iw;
  logic [Lanes-1:0] imask;
  logic [Warps-1:0] sched_launch;

  kestrel_pkg::sm_issue_t ipkt;
  kestrel_sm_issue #(
    .Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .SchedPolicy(SchedPolicy), .FpuStages(FpuStages)
  ) u_issue (
    .clk_i, .rst_ni,
    .flush_i        (flush),
    .word_i         (wword),
    .hit_i          (lb_hit),
    .ffault_i       (fetch_fault_w),
    .pc_i           (grp_pc_q),
    .mask_i         (grp_mask_q),
    .active_i       (active_q),
    .grp_valid_i    (grp_valid_q),
    .ctrl_i         (ctrl_q),
    .long_i         (long_q),
    .drain_i        (drain_q),
    .wblk_i         (wblk_q),
    .release_i      (bar_release),
    .launch_i       (sched_launch),
    .lsu_busy_i     (lsu_inflight_q),
    .div_busy_i     (div_inflight_q),
    .ds_busy_i      (ds_busy),
    .sfu_busy_i     (sfu_busy),
    .lane_busy_i    (lane_busy),
    .fpend_i        (fpend),
    .resv3_i        (resv_near[3]),
    .stop_i         (stop_q || fault_valid_q),
    .hold_i         (hold_issue),
    .s1_valid_i     (s1_valid),
    .s1_warp_i      (s1_warp),
    .s1_dec_i       (s1_pkt.dec),
    .s1_ffault_i    (s1_pkt.ffault),
    .issue_o        (issue),
    .issue_warp_o   (iw),
    .issue_mask_o   (imask),
    .issue_pkt_o    (ipkt),
    .s1_pair_o      (s1_pair),
    .sb_hazard_o    (sb_hazard),
    .rf_ren_o       (rf_ren),
    .rf_rwarp_o     (rf_rwarp),
    .rf_rs1_o       (rf_rs1),
    .rf_rs2_o       (rf_rs2),
    .rf_rs3_o       (rf_rs3),
    .sb_clear_i     (sb_clear),
    .sb_clear_warp_i(sb_clear_warp),
    .sb_clear_rd_i  (sb_clear_rd)
  );

  // f registers: read with the x registers at issue (data in stage 1),
  // written by FP and flw retires.  A warp with flw, divsqrt or SFU in flight
  // issues nothing else until it retires; one with lane ops in flight only
  // lane ops clear of the f scoreboard (fpend_q).  So fflags are final when a
  // later csrr reads them.
  logic frf_we;
  logic [Lanes*32-1:0] frf_rs1_data, frf_rs2_data, frf_rs3_data, frf_wdata;
  kestrel_fp_regfile #(.Lanes(Lanes), .Warps(Warps)) u_fp_regfile (
    .clk_i, .rst_ni,
    .launch_i     (disp_warp_done),
    .launch_warp_i(disp_warp),
    .ren_i        (issue),
    .rwarp_i      (iw),
    .rs1_i        (ipkt.fp.rs1),
    .rs2_i        (ipkt.fp.rs2),
    .rs3_i        (ipkt.fp.rs3),
    .rs1_data_o   (frf_rs1_data),
    .rs2_data_o   (frf_rs2_data),
    .rs3_data_o   (frf_rs3_data),
    .we_i         (frf_we),
    .wwarp_i      (retire_warp_o),
    .rd_i         (retire_rd_o),
    .wmask_i      (retire_mask_o),
    .wdata_i      (frf_wdata)
  );

  // ===========================================================================
  // Stage 1: execute (ALU, branches, CSRs, warp-synchronous instructions,
  // rounding modes, LSU operands; multiplier and divider lanes)
  // ===========================================================================
  logic [RowW-1:0] s1_alu, s1_result;
  logic [Lanes-1:0] s1_nonzero;
  logic [Lanes*32-1:0] s1_target;
  logic [LaneW-1:0] s1_low;
  logic s1_barfault;
  logic [LaneW-1:0] s1_barfault_lane;
  logic s1_sleep;
  logic [SleepW-1:0] s1_sleep_amount;
  logic [Lanes-1:0] s1_ready;
  logic s1_wsfault;
  logic [LaneW-1:0] s1_wsfault_lane;
  logic [Lanes*3-1:0] s1_rm;
  logic s1_rmfault;
  logic [LaneW-1:0] s1_rmfault_lane;
  logic [RowW-1:0] mul_result, div_result;
  logic div_start;
  logic [Lanes-1:0] div_done;
  kestrel_pkg::mem_size_e s1_mem_size;
  logic [RowW-1:0] lsu_wdata;
  logic [Lanes*32-1:0] lsu_wdata_hi, lsu_cmp_hi, lsu_local_base;
  kestrel_sm_exec #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .ClockKhz(ClockKhz)) u_exec (
    .clk_i, .rst_ni, .sm_id_i, .launch_i,
    .cycle_i         (cycle_q),
    .valid_i         (s1_valid),
    .warp_i          (s1_warp),
    .mask_i          (s1_mask),
    .pkt_i           (s1_pkt),
    .instret_i       (s1_instret),
    .rs1_i           (rf_rs1_data),
    .rs2_i           (rf_rs2_data),
    .rs3_i           (rf_rs3_data),
    .frs2_i          (frf_rs2_data),
    .tid_i           (tid_q[32'(s1_warp)*Lanes*TidW +: Lanes*TidW]),
    .bidx_i          (disp_bidx[32'(wblk_q[32'(s1_warp)*WarpW +: WarpW])*64 +: 64]),
    .widx_i          (widx_q[32'(s1_warp)*WarpW +: WarpW]),
    .exited_i        (exited_q[32'(s1_warp)*Lanes +: Lanes]),
    .held_i          (held_q[32'(s1_warp)*Lanes +: Lanes]),
    .swait_i         (swait_q[32'(s1_warp)*Lanes +: Lanes]),
    .lpc_i           (lpc_q[32'(s1_warp)*Lanes*32 +: Lanes*32]),
    .fflags_i        (fflags_q[32'(s1_warp)*Lanes*5 +: Lanes*5]),
    .frm_i           (frm_q[32'(s1_warp)*Lanes*3 +: Lanes*3]),
    .alu_o           (s1_alu),
    .result_o        (s1_result),
    .target_o        (s1_target),
    .nonzero_o       (s1_nonzero),
    .low_o           (s1_low),
    .barfault_o      (s1_barfault),
    .barfault_lane_o (s1_barfault_lane),
    .coll_o          (s1_coll),
    .sleep_o         (s1_sleep),
    .sleep_amount_o  (s1_sleep_amount),
    .ready_o         (s1_ready),
    .wsfault_o       (s1_wsfault),
    .wsfault_lane_o  (s1_wsfault_lane),
    .rm_o            (s1_rm),
    .rmfault_o       (s1_rmfault),
    .rmfault_lane_o  (s1_rmfault_lane),
    .mul_result_o    (mul_result),
    .div_start_o     (div_start),
    .div_done_o      (div_done),
    .div_result_o    (div_result),
    .mem_size_o      (s1_mem_size),
    .lsu_wdata_o     (lsu_wdata),
    .lsu_wdata_hi_o  (lsu_wdata_hi),
    .lsu_cmp_hi_o    (lsu_cmp_hi),
    .lsu_local_base_o(lsu_local_base)
  );


  // Two write-back ports: fpl_* the lane pipeline (always taken: its slot is
  // reserved), fpx_* divsqrt and the SFU.
  logic fpx_req_valid, fpx_req_ready, fpx_rsp_valid, fpx_rsp_ready;
  logic fpl_rsp_valid, fpl_rsp_ready;
  logic [RowW-1:0] fpx_result, fpl_result;
  logic [Lanes*5-1:0] fpx_flags, fpl_flags;
  logic fpx_rsp_tag, fpl_rsp_tag;
  logic [1:0] s1_fp_unit;
  assign s1_fp_unit = s1_pkt.fp.unit;
  assign resv_near = 4'(resv);
  kestrel_fp_exec #(
    .Xlen(Xlen), .Lanes(Lanes), .SfuLanes(SfuLanes), .Stages(FpuStages), .TagW(1)
  ) u_fp_exec (
    .clk_i, .rst_ni,
    .req_valid_i     (fpx_req_valid),
    .req_ready_o     (fpx_req_ready),
    .req_unit_i      (s1_fp_unit),
    .req_fpu_op_i    (s1_pkt.fp.fpu_op),
    .req_divsqrt_op_i(s1_pkt.fp.divsqrt_op),
    .req_sfu_op_i    (s1_pkt.fp.sfu_op),
    .req_rm_i        (s1_rm),
    .req_a_i         (frf_rs1_data),
    .req_b_i         (frf_rs2_data),
    .req_c_i         (frf_rs3_data),
    .req_x_i         (rf_rs1_data),
    .req_tag_i       (s1_fp_unit == kestrel_fpu_pkg::FpUnitSfu),  // long port: which record
    .lane_rsp_valid_o (fpl_rsp_valid),
    .lane_rsp_ready_i (fpl_rsp_ready),
    .lane_rsp_result_o(fpl_result),
    .lane_rsp_flags_o (fpl_flags),
    .lane_rsp_tag_o   (fpl_rsp_tag),
    .rsp_valid_o     (fpx_rsp_valid),
    .rsp_ready_i     (fpx_rsp_ready),
    .rsp_result_o    (fpx_result),
    .rsp_flags_o     (fpx_flags),
    .rsp_tag_o       (fpx_rsp_tag)
  );

  // ===========================================================================
  // LSU
  // ===========================================================================
  logic lsu_req_valid, lsu_req_ready;
  logic lsu_rsp_valid, lsu_rsp_ready, lsu_rsp_load, lsu_rsp_last;
  logic [WarpW-1:0] lsu_rsp_warp;
  logic [4:0] lsu_rsp_rd;
  logic [Lanes-1:0] lsu_rsp_mask;
  logic [RowW-1:0] lsu_rsp_data;
  kestrel_pkg::fault_kind_e lsu_rsp_fault;
  logic [LaneW-1:0] lsu_rsp_fault_lane;
  logic [Xlen-1:0] lsu_rsp_fault_addr;
  logic lsu_mem_req_valid, lsu_mem_req_ready, lsu_mem_rsp_valid, lsu_mem_rsp_ready;
  kestrel_pkg::mem_req_t lsu_mem_req;
  logic lsu_ev_shared_access;
  logic [6:0] lsu_ev_shared_passes, lsu_ev_atomics;

  kestrel_lsu #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .SharedBytes(SharedBytes)) u_lsu (
    .clk_i, .rst_ni,
    .flush_i          (start_i),
    .slot_start_i     (disp_take ? blk_slots_o : '0),
    .shared_base_i    (launch_i.shared_base),
    .shared_window_i  ((launch_i.shared_base != '0) ? 32'(SharedBytes) : 32'd0),
    .shared_size_i    (launch_i.shared_size),
    .stack_bytes_i    (launch_i.stack_bytes),
    .req_valid_i      (lsu_req_valid),
    .req_ready_o      (lsu_req_ready),
    .req_warp_i       (s1_warp),
    .req_rd_i         (s1_pkt.fp.load ? s1_pkt.fp.rd : s1_pkt.dec.rd),
    .req_store_i      (s1_pkt.dec.cls == kestrel_pkg::ClassStore),
    .req_amo_i        (s1_pkt.dec.cls == kestrel_pkg::ClassAtomic),
    .req_amo_op_i     (s1_pkt.dec.funct7[6:2]),
    .req_size_i       (s1_mem_size),
    .req_unsigned_i   (s1_pkt.dec.funct3[2]),
    .req_mask_i       (s1_mask),
    .req_addr_i       (s1_alu),
    .req_wdata_i      (lsu_wdata),
    .req_cmp_i        (rf_rs3_data),
    .req_pair_i       (s1_pair),
    .req_wdata_hi_i   (lsu_wdata_hi),
    .req_cmp_hi_i     (lsu_cmp_hi),
    .req_shared_phys_i(disp_bphys[32'(wblk_q[32'(s1_warp)*WarpW +: WarpW])*32 +: 32]),
    .req_local_base_i (lsu_local_base),
    .rsp_valid_o      (lsu_rsp_valid),
    .rsp_ready_i      (lsu_rsp_ready),
    .rsp_warp_o       (lsu_rsp_warp),
    .rsp_rd_o         (lsu_rsp_rd),
    .rsp_load_o       (lsu_rsp_load),
    .rsp_last_o       (lsu_rsp_last),
    .rsp_mask_o       (lsu_rsp_mask),
    .rsp_data_o       (lsu_rsp_data),
    .rsp_fault_o      (lsu_rsp_fault),
    .rsp_fault_lane_o (lsu_rsp_fault_lane),
    .rsp_fault_addr_o (lsu_rsp_fault_addr),
    .mem_req_valid_o  (lsu_mem_req_valid),
    .mem_req_ready_i  (lsu_mem_req_ready),
    .mem_req_o        (lsu_mem_req),
    .ev_shared_access_o(lsu_ev_shared_access),
    .ev_shared_passes_o(lsu_ev_shared_passes),
    .ev_atomics_o     (lsu_ev_atomics),
    .mem_rsp_valid_i  (lsu_mem_rsp_valid),
    .mem_rsp_ready_o  (lsu_mem_rsp_ready),
    .mem_rsp_i        (mem_rsp_i)
  );

  // ===========================================================================
  // Fetch: per-warp line buffers, I-cache, and the memory port (shared with
  // the LSU)
  // ===========================================================================
  logic [Warps-1:0] fetch_want;
  logic fetch_busy;
  kestrel_sm_fetch #(.Warps(Warps), .ICacheLines(ICacheLines)) u_fetch (
    .clk_i, .rst_ni,
    .start_i,
    .flush_i        (flush),
    .want_i         (active_q & grp_valid_q),
    .pc_i           (grp_pc_q),
    .inval_i        (disp_warp_done),
    .inval_warp_i   (disp_warp),
    .hit_o          (lb_hit),
    .fault_o        (fetch_fault_w),
    .word_o         (wword),
    .fetch_want_o   (fetch_want),
    .busy_o         (fetch_busy),
    .lsu_req_valid_i(lsu_mem_req_valid),
    .lsu_req_ready_o(lsu_mem_req_ready),
    .lsu_req_i      (lsu_mem_req),
    .lsu_rsp_valid_o(lsu_mem_rsp_valid),
    .lsu_rsp_ready_i(lsu_mem_rsp_ready),
    .mem_req_valid_o,
    .mem_req_ready_i,
    .mem_req_o,
    .mem_rsp_valid_i,
    .mem_rsp_ready_o,
    .mem_rsp_i
  );

  // The F write-backs: their records, and whether they retire (not drained).
  logic [FpMetaW-1:0] fpl_meta, fpx_meta, s1_fp_meta;
  logic [WarpW-1:0] fpl_warp, fpx_warp;
  logic [Lanes-1:0] fpl_mask, fpx_mask;
  logic fpl_live, fpx_live;
  kestrel_sm_fp_track #(.Lanes(Lanes), .Warps(Warps), .Stages(FpuStages)) u_fp_track (
    .clk_i, .rst_ni,
    .flush_i        (flush),
    .fpend_o        (fpend),
    .lane_busy_o    (lane_busy),
    .issue_i        (issue),
    .issue_warp_i   (iw),
    .issue_fpx_i    (ipkt.fpx),
    .issue_fp_i     (ipkt.fp),
    .resv_o         (resv),
    .ds_busy_o      (ds_busy),
    .sfu_busy_o     (sfu_busy),
    .s1_valid_i     (s1_valid),
    .s1_fpx_i       (s1_pkt.fpx),
    .s1_rmfault_i   (s1_rmfault),
    .s1_unit_i      (s1_fp_unit),
    .s1_warp_i      (s1_warp),
    .s1_meta_i      (s1_fp_meta),
    .fpx_req_valid_i(fpx_req_valid),
    .fpx_req_ready_i(fpx_req_ready),
    .fpl_rsp_valid_i(fpl_rsp_valid),
    .fpl_grant_i    (grant_fpl),
    .fpl_meta_o     (fpl_meta),
    .fpl_live_o     (fpl_live),
    .fpx_grant_i    (grant_fp),
    .fpx_rsp_tag_i  (fpx_rsp_tag),
    .fpx_meta_o     (fpx_meta),
    .fpx_live_o     (fpx_live),
    .busy_o         (fp_busy)
  );
  // Record fields used here (fflags accrue at write-back): warp and mask.
  assign fpl_warp = fpl_meta[FpMetaW-1 -: WarpW];
  assign fpl_mask = fpl_meta[7 +: Lanes];
  assign fpx_warp = fpx_meta[FpMetaW-1 -: WarpW];
  assign fpx_mask = fpx_meta[7 +: Lanes];

  // ===========================================================================
  // Retire slot: a reserved lane-pipeline result, else stage 3, else the LSU,
  // the divider, divsqrt/SFU, barrier results
  // ===========================================================================
  kestrel_sm_retire #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .FpuStages(FpuStages)) u_retire (
    .clk_i, .rst_ni,
    .s3_valid_i       (s3_valid),
    .s3_warp_i        (s3_warp),
    .s3_mask_i        (s3_mask),
    .s3_pkt_i         (s3_pkt),
    .s3_result_i      (s3_result),
    .s3_active_i      (active_q[s3_warp]),
    .mul_result_i     (mul_result),
    .s2_valid_i       (s2_valid),
    .s1_valid_i       (s1_valid),
    .resv_near_i      (resv_near[2:1]),
    .s3_faulting_o    (s3_faulting),
    .fpl_rsp_valid_i  (fpl_rsp_valid),
    .fpl_rsp_ready_o  (fpl_rsp_ready),
    .fpl_result_i     (fpl_result),
    .fpl_meta_i       (fpl_meta),
    .fpl_live_i       (fpl_live),
    .lsu_rsp_valid_i  (lsu_rsp_valid),
    .lsu_rsp_ready_o  (lsu_rsp_ready),
    .lsu_rsp_warp_i   (lsu_rsp_warp),
    .lsu_rsp_rd_i     (lsu_rsp_rd),
    .lsu_rsp_load_i   (lsu_rsp_load),
    .lsu_rsp_last_i   (lsu_rsp_last),
    .lsu_rsp_mask_i   (lsu_rsp_mask),
    .lsu_rsp_data_i   (lsu_rsp_data),
    .lsu_rsp_fault_i  (lsu_rsp_fault),
    .lsu_pc_i         (lsu_pc),
    .lsu_fp_i         (lsu_fp),
    .lsu_inflight_i   (lsu_inflight_q),
    .div_pending_i    (div_pending_q),
    .div_inflight_i   (div_inflight_q),
    .div_warp_i       (div_warp),
    .div_pc_i         (div_pc),
    .div_mask_i       (div_mask),
    .div_rd_i         (div_rd),
    .div_result_i     (div_result),
    .fpx_rsp_valid_i  (fpx_rsp_valid),
    .fpx_rsp_ready_o  (fpx_rsp_ready),
    .fpx_result_i     (fpx_result),
    .fpx_meta_i       (fpx_meta),
    .fpx_live_i       (fpx_live),
    .drain_i          (drain_q),
    .bar_rd_i         (bar_rd_q),
    .bar_kind_i       (bar_kind_q),
    .lpc_i            (lpc_q),
    .wblk_i           (wblk_q),
    .bar_res_nonzero_i(bar_res_nonzero),
    .bar_res_arrived_i(bar_res_arrived),
    .grant_fpl_o      (grant_fpl),
    .grant_lsu_o      (grant_lsu),
    .grant_div_o      (grant_div),
    .grant_fp_o       (grant_fp),
    .grant_drain_o    (grant_drain),
    .drain_any_o      (drain_any),
    .drain_warp_o     (drain_w),
    .drain_mask_o     (drain_mask),
    .hold_issue_o     (hold_issue),
    .retire_valid_o,
    .retire_warp_o,
    .retire_pc_o,
    .retire_mask_o,
    .retire_rd_we_o,
    .retire_rd_fp_o,
    .retire_rd_o,
    .retire_rd_data_o,
    .xwe_o            (rf_we),
    .fwe_o            (frf_we),
    .sb_clear_o       (sb_clear),
    .bar_issue_o      (bar_issue),
    .bar_issue_slot_o (bar_issue_slot)
  );
  assign rf_wwarp = retire_warp_o;
  assign rf_rd = retire_rd_o;
  assign rf_wmask = retire_mask_o;
  assign rf_wdata = retire_rd_data_o;
  assign sb_clear_warp = retire_warp_o;
  assign sb_clear_rd = retire_rd_o;
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) frf_wdata[l*32 +: 32] = retire_rd_data_o[l*Xlen +: 32];
  end

  // ===========================================================================
  // Warp control: lane PCs, groups, exits, barriers, syncwarp, sleep, faults
  // ===========================================================================
  kestrel_sm_warp_ctrl #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps)) u_warp_ctrl (
    .clk_i, .rst_ni, .start_i,
    .flush_i             (flush),
    .entry_pc_i          (launch_i.entry_pc[31:0]),
    .disp_busy_i         (disp_busy),
    .disp_warp_i         (disp_warp),
    .disp_lane_i         (disp_lane),
    .disp_tid_i          (disp_tid),
    .disp_lane_exited_i  (disp_lane_exited),
    .disp_start_i        (disp_warp_done),
    .disp_start_slot_i   (disp_start_slot),
    .disp_start_widx_i   (disp_start_widx),
    .issue_i             (issue),
    .issue_warp_i        (iw),
    .issue_mask_i        (imask),
    .issue_pkt_i         (ipkt),
    .s1_valid_i          (s1_valid),
    .s1_warp_i           (s1_warp),
    .s1_mask_i           (s1_mask),
    .s1_pkt_i            (s1_pkt),
    .s1_rs1_i            (rf_rs1_data),
    .s1_target_i         (s1_target),
    .s1_barfault_i       (s1_barfault),
    .s1_wsfault_i        (s1_wsfault),
    .s1_rmfault_i        (s1_rmfault),
    .s1_sleep_i          (s1_sleep),
    .s1_sleep_amount_i   (s1_sleep_amount),
    .s1_coll_i           (s1_coll),
    .s1_ready_i          (s1_ready),
    .s3_valid_i          (s3_valid),
    .s3_warp_i           (s3_warp),
    .s3_mask_i           (s3_mask),
    .s3_pkt_i            (s3_pkt),
    .s3_result_i         (s3_result),
    .s3_nonzero_i        (s3_nonzero),
    .s3_faulting_i       (s3_faulting),
    .pipe_fault_i        (pipe_fault),
    .lsu_fault_i         (lsu_fault),
    .dl_fault_i          (dl_fault),
    .dl_any_i            (dl_any),
    .grant_lsu_i         (grant_lsu),
    .lsu_rsp_last_i      (lsu_rsp_last),
    .lsu_rsp_warp_i      (lsu_rsp_warp),
    .lsu_rsp_fault_i     (lsu_rsp_fault),
    .div_done_i          (div_done[0]),
    .grant_div_i         (grant_div),
    .div_warp_i          (div_warp),
    .grant_drain_i       (grant_drain),
    .drain_warp_i        (drain_w),
    .drain_mask_i        (drain_mask),
    .grant_fpl_i         (grant_fpl),
    .fpl_live_i          (fpl_live),
    .fpl_warp_i          (fpl_warp),
    .fpl_flags_i         (fpl_flags),
    .fpl_mask_i          (fpl_mask),
    .grant_fp_i          (grant_fp),
    .fpx_live_i          (fpx_live),
    .fpx_warp_i          (fpx_warp),
    .fpx_flags_i         (fpx_flags),
    .fpx_mask_i          (fpx_mask),
    .bar_release_i       (bar_release),
    .bar_arrive_o        (bar_arrive),
    .bar_arrive_slot_o   (bar_arrive_slot),
    .bar_arrive_count_o  (bar_arrive_count),
    .bar_arrive_nonzero_o(bar_arrive_nonzero),
    .bar_exit_o          (bar_exit),
    .bar_exit_slot_o     (bar_exit_slot),
    .bar_exit_count_o    (bar_exit_count),
    .slot_progress_o     (slot_progress),
    .active_o            (active_q),
    .wblk_o              (wblk_q),
    .widx_o              (widx_q),
    .lpc_o               (lpc_q),
    .exited_o            (exited_q),
    .waiting_o           (waiting_q),
    .drain_o             (drain_q),
    .held_o              (held_q),
    .swait_o             (swait_q),
    .bar_rd_o            (bar_rd_q),
    .bar_kind_o          (bar_kind_q),
    .grp_valid_o         (grp_valid_q),
    .grp_pc_o            (grp_pc_q),
    .grp_mask_o          (grp_mask_q),
    .ctrl_o              (ctrl_q),
    .long_o              (long_q),
    .tid_o               (tid_q),
    .fflags_o            (fflags_q),
    .frm_o               (frm_q),
    .issue_instret_o     (issue_instret),
    .sched_launch_o      (sched_launch),
    .blk_done_o          (blk_done),
    .blk_done_slot_o     (blk_done_slot),
    .fault_valid_o       (fault_valid_q),
    .fault_o             (fault_q),
    .stop_o              (stop_q),
    .cycle_o             (cycle_q),
    .lsu_inflight_o      (lsu_inflight_q),
    .div_inflight_o      (div_inflight_q),
    .div_pending_o       (div_pending_q)
  );


  // Lint sinks: outputs and fields this SM does not need.
  logic unused_sinks;
  assign unused_sinks = (^bar_waiting) ^ (^div_done[Lanes-1:1]) ^ fpl_rsp_tag ^ resv_near[0]
                            ^ s1_pkt.fp.rs1_re ^ (^s1_pkt.fp.rs1) ^ (^s1_pkt.fp.rs2) ^ (^s1_pkt.fp.rs3);

  // ===========================================================================
  // Faults: warp-synchronous deadlock and the fault records
  // ===========================================================================
  logic dl_any;
  kestrel_pkg::fault_t pipe_fault, lsu_fault, dl_fault;
  kestrel_sm_faults #(.Lanes(Lanes), .Warps(Warps)) u_faults (
    .clk_i, .rst_ni, .sm_id_i,
    .active_i        (active_q),
    .exited_i        (exited_q),
    .waiting_i       (waiting_q),
    .held_i          (held_q),
    .swait_i         (swait_q),
    .ctrl_i          (ctrl_q),
    .long_i          (long_q),
    .wblk_i          (wblk_q),
    .widx_i          (widx_q),
    .lpc_i           (lpc_q),
    .tid_i           (tid_q),
    .bidx_i          (disp_bidx),
    .resident_i      (disp_resident),
    .bar_deadlock_i  (bar_deadlock),
    .busy_i          (s1_valid || s2_valid || s3_valid || disp_busy || disp_take || drain_any
                      || lsu_inflight_q || div_inflight_q || fp_busy),
    .s3_warp_i       (s3_warp),
    .s3_pkt_i        (s3_pkt),
    .s3_flane_i      (s3_flane),
    .s3_a1_i         (s3_a1),
    .lsu_warp_i      (lsu_rsp_warp),
    .lsu_pc_i        (lsu_pc),
    .lsu_fault_i     (lsu_rsp_fault),
    .lsu_fault_lane_i(lsu_rsp_fault_lane),
    .lsu_fault_addr_i(64'(lsu_rsp_fault_addr)),
    .slot_held_o     (slot_held),
    .dl_any_o        (dl_any),
    .pipe_fault_o    (pipe_fault),
    .lsu_fault_o     (lsu_fault),
    .dl_fault_o      (dl_fault)
  );



  // ===========================================================================
  // Stage 1..3 registers and stage 1's hand-over to the LSU, divider and
  // kestrel_fp_exec
  // ===========================================================================
  kestrel_sm_pipe #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps)) u_pipe (
    .clk_i, .rst_ni,
    .flush_i           (flush),
    .issue_i           (issue),
    .issue_warp_i      (iw),
    .issue_mask_i      (imask),
    .issue_pkt_i       (ipkt),
    .issue_instret_i   (issue_instret),
    .s1_valid_o        (s1_valid),
    .s1_warp_o         (s1_warp),
    .s1_mask_o         (s1_mask),
    .s1_pkt_o          (s1_pkt),
    .s1_instret_o      (s1_instret),
    .rf_rs1_i          (rf_rs1_data),
    .rf_rs2_i          (rf_rs2_data),
    .s1_result_i       (s1_result),
    .s1_nonzero_i      (s1_nonzero),
    .s1_low_i          (s1_low),
    .s1_coll_i         (s1_coll),
    .s1_ready_i        (s1_ready),
    .s1_barfault_i     (s1_barfault),
    .s1_barfault_lane_i(s1_barfault_lane),
    .s1_wsfault_i      (s1_wsfault),
    .s1_wsfault_lane_i (s1_wsfault_lane),
    .s1_rmfault_i      (s1_rmfault),
    .s1_rmfault_lane_i (s1_rmfault_lane),
    .lsu_req_valid_o   (lsu_req_valid),
    .lsu_req_ready_i   (lsu_req_ready),
    .div_start_i       (div_start),
    .fpx_req_valid_o   (fpx_req_valid),
    .fpx_meta_o        (s1_fp_meta),
    .lsu_pc_o          (lsu_pc),
    .lsu_fp_o          (lsu_fp),
    .div_warp_o        (div_warp),
    .div_pc_o          (div_pc),
    .div_mask_o        (div_mask),
    .div_rd_o          (div_rd),
    .s2_valid_o        (s2_valid),
    .s3_valid_o        (s3_valid),
    .s3_warp_o         (s3_warp),
    .s3_mask_o         (s3_mask),
    .s3_pkt_o          (s3_pkt),
    .s3_result_o       (s3_result),
    .s3_nonzero_o      (s3_nonzero),
    .s3_flane_o        (s3_flane),
    .s3_a1_o           (s3_a1)
  );

  // ===========================================================================
  // Outputs
  // ===========================================================================
  assign blk_done_o = blk_done;
  assign fault_valid_o = fault_valid_q;
  assign fault_o = fault_q;
  assign busy_o = (disp_used != '0) || disp_busy || lsu_inflight_q || !lsu_req_ready || fetch_busy
                  || s1_valid || s2_valid || s3_valid || div_inflight_q || fp_busy;

  always_comb begin
    events_o = '0;
    events_o.issued = issue;
    for (int unsigned l = 0; l < Lanes; l++) events_o.threads = events_o.threads + 7'(imask[l] && issue);
    // An atomic counts as a load and a store, as in the model.
    // An atomic counts as a load and a store; LR only as a load, SC as a store.
    events_o.load = issue && (ipkt.dec.cls == kestrel_pkg::ClassLoad
                              || (ipkt.dec.cls == kestrel_pkg::ClassAtomic && ipkt.dec.funct7[6:2] != kestrel_pkg::AmoSc));
    events_o.store = issue && (ipkt.dec.cls == kestrel_pkg::ClassStore
                               || (ipkt.dec.cls == kestrel_pkg::ClassAtomic && ipkt.dec.funct7[6:2] != kestrel_pkg::AmoLr));
    events_o.barrier_release = |(bar_release & disp_used);
    events_o.diverged = issue && imask != ~exited_q[32'(iw)*Lanes +: Lanes];
    events_o.stall_idle = !issue && active_q == '0;
    events_o.stall_scoreboard = !issue && |(sb_hazard & active_q & grp_valid_q);
    events_o.stall_memory = !issue && (|(long_q & active_q) || |(fetch_want));
    events_o.stall_barrier = !issue && waiting_q != '0;
    events_o.block_done = blk_done;
    events_o.mem_request = mem_req_valid_o && mem_req_ready_i;
    events_o.shared_access = lsu_ev_shared_access;
    events_o.shared_passes = lsu_ev_shared_passes;
    events_o.atomics = lsu_ev_atomics;
  end
endmodule
