// kestrel_sm_warp_ctrl: the SM's per-warp and per-lane control state and the
// next-state logic that joins the pipeline to it.
//
// Per warp: resident (active), block slot and index in the block, the issue
// group (PC, lanes, fairness state; recomputed by kestrel_group_sel when
// resel), a control instruction in flight (lane PCs not final), a long
// instruction outstanding (LSU, divider, divsqrt, SFU).  Per lane: PC,
// exited, waiting at a block barrier (and the barrier result still to write),
// held at a collective or past a kx.syncwarp (with its membermask), asleep
// (kx.nanosleep; the time left per warp), thread index, instret, fflags, frm.
// Launch-wide: the first fault, stop (a faulting instruction issued), the
// cycle counter, the LSU/divider busy flags.
//
// Who writes what, in priority order within a cycle (later wins): block
// dispatch (warp start), group selection, issue (lane PCs of non-control
// instructions, instret, long), kx.nanosleep wake-ups, stage 1 (branch
// targets, sleep, collectives, fflags/frm CSR writes), stage 3 (exits,
// barrier arrivals, kx.syncwarp, faults), retire grants (LSU, divider,
// barrier results, F write-backs and their fflags), barrier releases, the
// watchdog.  It also drives the barrier unit's arrivals and exits (stage 3)
// and the block completion (the last warp of a block exits).
//
// No handshake: every input is a one-cycle event or a stage register of the
// SM (docs/microarchitecture.md, "SM units").
`include "kestrel_assert.svh"

module kestrel_sm_warp_ctrl #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned MemInFlight = 4,  // loads/stores in the LSU per warp (at most 15)
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned RowW = Lanes * Xlen,
  localparam int unsigned CountW = 11,
  localparam int unsigned TidW = 30,
  localparam int unsigned SleepW = 48,
  localparam int unsigned MemQW = $clog2(MemInFlight + 1)
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          start_i,          // a new launch (flush_i too)
  input  logic                          flush_i,          // start or abort: drop every block
  input  logic [31:0]                   entry_pc_i,
  // block dispatch (kestrel_sm_dispatch)
  input  logic                          disp_busy_i,
  input  logic                          disp_take_i,      // a block is accepted ...
  input  logic [WarpW-1:0]              disp_take_slot_i, // ... into this block slot; its walk follows
  input  logic [WarpW-1:0]              disp_warp_i,
  input  logic [LaneW-1:0]              disp_lane_i,
  input  logic [TidW-1:0]               disp_tid_i,
  input  logic                          disp_lane_exited_i,
  input  logic                          disp_start_i,     // warp disp_warp_i starts
  input  logic [WarpW-1:0]              disp_start_slot_i,
  input  logic [WarpW-1:0]              disp_start_widx_i,
  // issue (kestrel_sm_issue)
  input  logic                          issue_i,
  input  logic [WarpW-1:0]              issue_warp_i,
  input  logic [Lanes-1:0]              issue_mask_i,
  input  kestrel_pkg::sm_issue_t        issue_pkt_i,
  // stage 1 (its registers and kestrel_sm_exec)
  input  logic                          s1_valid_i,
  input  logic [WarpW-1:0]              s1_warp_i,
  input  logic [Lanes-1:0]              s1_mask_i,
  input  kestrel_pkg::sm_issue_t        s1_pkt_i,
  input  logic [RowW-1:0]               s1_rs1_i,
  input  logic [Lanes*32-1:0]           s1_target_i,
  input  logic [2*Xlen-1:0]             s1_lead_ops_i,    // the lowest lane's rs2 and rs1
  input  logic                          s1_barfault_i,
  input  logic                          s1_wsfault_i,
  input  logic                          s1_rmfault_i,
  input  logic                          s1_sleep_i,
  input  logic [SleepW-1:0]             s1_sleep_amount_i,
  input  logic                          s1_coll_i,
  input  logic [Lanes-1:0]              s1_ready_i,
  // stage 3
  input  logic                          s3_valid_i,
  input  logic [WarpW-1:0]              s3_warp_i,
  input  logic [Lanes-1:0]              s3_mask_i,
  input  kestrel_pkg::sm_wb_t           s3_pkt_i,
  input  logic [RowW-1:0]               s3_result_i,
  input  logic [Lanes-1:0]              s3_nonzero_i,
  input  logic                          s3_faulting_i,
  // fault records (kestrel_sm_faults)
  input  kestrel_pkg::fault_t           pipe_fault_i,
  input  kestrel_pkg::fault_t           lsu_fault_i,
  input  kestrel_pkg::fault_t           dl_fault_i,
  input  logic                          dl_any_i,
  // retire slot (kestrel_sm_retire) and the units retiring through it
  input  logic                          grant_lsu_i,
  input  logic                          lsu_rsp_last_i,
  input  logic [WarpW-1:0]              lsu_rsp_warp_i,
  input  kestrel_pkg::fault_kind_e      lsu_rsp_fault_i,
  input  logic                          div_done_i,
  input  logic                          grant_div_i,
  input  logic [WarpW-1:0]              div_warp_i,
  input  logic                          grant_drain_i,
  input  logic [WarpW-1:0]              drain_warp_i,
  input  logic [Lanes-1:0]              drain_mask_i,
  input  logic                          grant_fpl_i,
  input  logic                          fpl_live_i,
  input  logic [WarpW-1:0]              fpl_warp_i,
  input  logic [Lanes*5-1:0]            fpl_flags_i,
  input  logic [Lanes-1:0]              fpl_mask_i,
  input  logic                          grant_fp_i,
  input  logic                          fpx_live_i,
  input  logic [WarpW-1:0]              fpx_warp_i,
  input  logic [Lanes*5-1:0]            fpx_flags_i,
  input  logic [Lanes-1:0]              fpx_mask_i,
  // barrier unit
  input  logic [Warps-1:0]              bar_release_i,
  output logic                          bar_arrive_o,
  output logic [WarpW-1:0]              bar_arrive_slot_o,
  output logic [CountW-1:0]             bar_arrive_count_o,
  output logic [CountW-1:0]             bar_arrive_nonzero_o,
  output logic                          bar_exit_o,
  output logic [WarpW-1:0]              bar_exit_slot_o,
  output logic [CountW-1:0]             bar_exit_count_o,
  output logic [Warps-1:0]              slot_progress_o,
  // state (flat vectors: warp w's field at [w*W +: W])
  output logic [Warps-1:0]              active_o,
  output logic [Warps*WarpW-1:0]        wblk_o,
  output logic [Warps*WarpW-1:0]        widx_o,
  output logic [Warps*Lanes*32-1:0]     lpc_o,
  output logic [Warps*Lanes-1:0]        exited_o,
  output logic [Warps*Lanes-1:0]        waiting_o,
  output logic [Warps*Lanes-1:0]        drain_o,
  output logic [Warps*Lanes-1:0]        held_o,
  output logic [Warps*Lanes-1:0]        swait_o,
  output logic [Warps*Lanes*5-1:0]      bar_rd_o,
  output logic [Warps*Lanes*2-1:0]      bar_kind_o,
  output logic [Warps-1:0]              grp_valid_o,
  output logic [Warps*32-1:0]           grp_pc_o,
  output logic [Warps*Lanes-1:0]        grp_mask_o,
  output logic [Warps-1:0]              ctrl_o,
  output logic [Warps-1:0]              backoff_o,        // spinning warps backing off
  output logic [Warps-1:0]              long_o,
  output logic [Warps-1:0]              mem_busy_o,       // memory instructions of the warp in flight
  output logic [Warps-1:0]              mem_full_o,       // ... MemInFlight of them
  // the retiring record's place among its warp's memory instructions
  input  logic [WarpW-1:0]              retire_warp_i,
  output logic [3:0]                    retire_mem_seq_o,
  output logic [Warps*Lanes*TidW-1:0]   tid_o,
  output logic [Warps*Lanes*5-1:0]      fflags_o,
  output logic [Warps*Lanes*3-1:0]      frm_o,
  output logic [Lanes*64-1:0]           issue_instret_o,  // instret of the issuing warp's lanes
  output logic [Warps-1:0]              sched_launch_o,
  output logic                          blk_done_o,       // the last warp of a block exited
  output logic [WarpW-1:0]              blk_done_slot_o,
  // launch-wide
  output logic                          fault_valid_o,
  output kestrel_pkg::fault_t           fault_o,
  output logic                          stop_o,
  output logic [63:0]                   cycle_o,
  output logic                          lsu_inflight_o,
  output logic                          div_inflight_o,
  output logic                          div_pending_o
);
  localparam int unsigned FairW = $clog2(kestrel_pkg::FairnessPeriod);
  localparam int unsigned YieldW = $clog2(kestrel_pkg::SpinYieldIssues + 1);
  localparam logic [SleepW-1:0] SleepPerCycle = SleepW'(1_000_000);

  // The moved logic keeps the SM's names: inputs under them here.
  logic flush;
  logic disp_busy, disp_lane_exited, disp_warp_done;
  logic [WarpW-1:0] disp_warp, disp_start_slot, disp_start_widx;
  logic [LaneW-1:0] disp_lane;
  logic [TidW-1:0] disp_tid;
  logic issue, iffault, ifpx;
  logic [WarpW-1:0] iw;
  logic [Lanes-1:0] imask;
  logic [31:0] ipc;
  kestrel_pkg::decoded_t idec;
  kestrel_pkg::fp_dec_t ifp;
  logic s1_valid_q, s1_ffault_q, s1_fpx_q, s3_valid_q;
  logic [WarpW-1:0] s1_warp_q, s3_warp_q;
  logic [31:0] s1_pc_q, s3_pc_q;
  logic [Lanes-1:0] s1_mask_q, s3_mask_q, s3_nonzero_q;
  kestrel_pkg::decoded_t s1_dec_q, s3_dec_q;
  logic [RowW-1:0] rf_rs1_data, s3_result_q;
  assign flush = flush_i;
  assign disp_busy = disp_busy_i;
  assign disp_warp = disp_warp_i;
  assign disp_lane = disp_lane_i;
  assign disp_tid = disp_tid_i;
  assign disp_lane_exited = disp_lane_exited_i;
  assign disp_warp_done = disp_start_i;
  assign disp_start_slot = disp_start_slot_i;
  assign disp_start_widx = disp_start_widx_i;
  assign issue = issue_i;
  assign iw = issue_warp_i;
  assign imask = issue_mask_i;
  assign ipc = issue_pkt_i.pc;
  assign iffault = issue_pkt_i.ffault;
  assign idec = issue_pkt_i.dec;
  assign ifpx = issue_pkt_i.fpx;
  assign ifp = issue_pkt_i.fp;
  assign s1_valid_q = s1_valid_i;
  assign s1_warp_q = s1_warp_i;
  assign s1_pc_q = s1_pkt_i.pc;
  assign s1_mask_q = s1_mask_i;
  assign s1_dec_q = s1_pkt_i.dec;
  assign s1_ffault_q = s1_pkt_i.ffault;
  assign s1_fpx_q = s1_pkt_i.fpx;
  assign rf_rs1_data = s1_rs1_i;
  assign s3_valid_q = s3_valid_i;
  assign s3_warp_q = s3_warp_i;
  assign s3_pc_q = s3_pkt_i.pc;
  assign s3_mask_q = s3_mask_i;
  assign s3_dec_q = s3_pkt_i.dec;
  assign s3_result_q = s3_result_i;
  assign s3_nonzero_q = s3_nonzero_i;
  logic [Lanes*32-1:0] s1_target;
  logic s1_barfault, s1_wsfault, s1_rmfault, s1_sleep, s1_coll, s3_faulting;
  logic [SleepW-1:0] s1_sleep_amount;
  logic [Lanes-1:0] s1_ready;
  assign s1_target = s1_target_i;
  assign s1_barfault = s1_barfault_i;
  assign s1_wsfault = s1_wsfault_i;
  assign s1_rmfault = s1_rmfault_i;
  assign s1_sleep = s1_sleep_i;
  assign s1_sleep_amount = s1_sleep_amount_i;
  assign s1_coll = s1_coll_i;
  assign s1_ready = s1_ready_i;
  assign s3_faulting = s3_faulting_i;
  kestrel_pkg::fault_t pipe_fault, lsu_fault, dl_fault;
  logic dl_any;
  assign pipe_fault = pipe_fault_i;
  assign lsu_fault = lsu_fault_i;
  assign dl_fault = dl_fault_i;
  assign dl_any = dl_any_i;
  logic grant_lsu, lsu_rsp_last, grant_div, grant_drain, grant_fpl, fpl_live, grant_fp, fpx_live;
  logic [WarpW-1:0] lsu_rsp_warp, div_warp_q, drain_w, fpl_warp, fpx_warp;
  kestrel_pkg::fault_kind_e lsu_rsp_fault;
  logic [0:0] div_done;
  logic [Lanes-1:0] drain_mask, fpl_mask, fpx_mask;
  logic [Lanes*5-1:0] fpl_flags, fpx_flags;
  logic [Warps-1:0] bar_release;
  assign grant_lsu = grant_lsu_i;
  assign lsu_rsp_last = lsu_rsp_last_i;
  assign lsu_rsp_warp = lsu_rsp_warp_i;
  assign lsu_rsp_fault = lsu_rsp_fault_i;
  assign div_done = div_done_i;
  assign grant_div = grant_div_i;
  assign div_warp_q = div_warp_i;
  assign grant_drain = grant_drain_i;
  assign drain_w = drain_warp_i;
  assign drain_mask = drain_mask_i;
  assign grant_fpl = grant_fpl_i;
  assign fpl_live = fpl_live_i;
  assign fpl_warp = fpl_warp_i;
  assign fpl_flags = fpl_flags_i;
  assign fpl_mask = fpl_mask_i;
  assign grant_fp = grant_fp_i;
  assign fpx_live = fpx_live_i;
  assign fpx_warp = fpx_warp_i;
  assign fpx_flags = fpx_flags_i;
  assign fpx_mask = fpx_mask_i;
  assign bar_release = bar_release_i;
  logic blk_done;
  logic [Warps-1:0] sched_launch, slot_progress;
  logic bar_arrive, bar_exit;
  logic [WarpW-1:0] bar_arrive_slot, bar_exit_slot;
  logic [CountW-1:0] bar_arrive_count, bar_arrive_nonzero, bar_exit_count;

  logic [Warps-1:0] active_q, active_d;        // warp runs
  logic [Warps*WarpW-1:0] wblk_q, wblk_d;      // block slot of the warp (its block's first warp slot)
  logic [Warps*WarpW-1:0] widx_q, widx_d;      // warp index within its block
  logic [Warps*Lanes*32-1:0] lpc_q, lpc_d;     // per-lane PC (next instruction)
  logic [Warps*Lanes-1:0] exited_q, exited_d;
  logic [Warps*Lanes-1:0] waiting_q, waiting_d;  // at a block barrier
  logic [Warps*Lanes-1:0] drain_q, drain_d;      // barrier result still to write
  // Warp-synchronous waits: held = parked at a collective (PC at it) or past
  // a kx.syncwarp waiting for its mask (swait, with that mask in smask).
  logic [Warps*Lanes-1:0] held_q, held_d;
  logic [Warps*Lanes-1:0] swait_q, swait_d;
  logic [Warps*Lanes*Lanes-1:0] smask_q, smask_d;
  // kx.nanosleep: sleeping lanes and, per warp, the time left in units of
  // ns * kHz (a cycle takes 10^6 of them).
  logic [Warps*Lanes-1:0] sleep_q, sleep_d;
  logic [Warps*SleepW-1:0] sleep_left_q, sleep_left_d;
  logic [Warps*Lanes*5-1:0] bar_rd_q, bar_rd_d;
  logic [Warps*Lanes*2-1:0] bar_kind_q, bar_kind_d;
  logic [Warps-1:0] grp_valid_q, grp_valid_d;
  logic [Warps*32-1:0] grp_pc_q, grp_pc_d;
  logic [Warps*Lanes-1:0] grp_mask_q, grp_mask_d;
  logic [Warps*FairW-1:0] grp_fair_q, grp_fair_d;  // fairness state committed if the group issues
  logic [Warps*32-1:0] grp_rr_q, grp_rr_d;
  logic [Warps*FairW-1:0] fair_q, fair_d;
  logic [Warps*32-1:0] rr_q, rr_d;
  // Spinning (kestrel_spin_detect): issues left for the groups above a
  // spinning branch, its PC, and what the current group commits.
  logic [Warps*YieldW-1:0] yield_q, yield_d, grp_yield_q, grp_yield_d;
  logic [Warps*32-1:0] yield_pc_q, yield_pc_d;
  logic [Warps-1:0] resel_q, resel_d;          // group must be recomputed
  // The block slot whose threads the dispatcher walks (while disp_busy_i): a
  // warp of it that exits before its later warps have started leaves the
  // block incomplete.
  logic [WarpW-1:0] walk_slot_q;
  logic [Warps-1:0] ctrl_q, ctrl_d;            // control instruction in flight: lane PCs not final
  logic [Warps-1:0] long_q, long_d;            // LSU or divider instruction outstanding
  logic [Warps*Lanes*64-1:0] instret_q, instret_d;
  logic [Warps*Lanes*TidW-1:0] tid_q, tid_d;
  // launch-wide
  logic fault_valid_q, fault_valid_d;
  kestrel_pkg::fault_t fault_q, fault_d;
  logic stop_q, stop_d;            // a faulting instruction issued: issue nothing more
  logic [63:0] cycle_q;
  logic [Warps*Lanes*5-1:0] fflags_q, fflags_d;  // per thread
  logic [Warps*Lanes*3-1:0] frm_q, frm_d;
  // Memory instructions (the LSU's and kx.tex) per warp: in flight, and
  // modulo 16 issued and completed; a retire record carries how many of its
  // warp's precede it in program order (retire_mem_seq_o): a memory
  // instruction's own completion count, any other record's issue count (a
  // load or store never issues before its warp's older pipe instructions
  // retired, kestrel_sm_issue, so none younger is counted).
  logic [Warps*MemQW-1:0] memq_q, memq_d;
  logic [Warps*4-1:0] mem_issued_q, mem_issued_d, mem_done_q, mem_done_d;
  logic div_inflight_q, div_inflight_d;
  logic div_pending_q, div_pending_d;            // divider finished, waiting for the retire slot

  function automatic logic is_control(input kestrel_pkg::exec_class_e c);
    is_control = (c == kestrel_pkg::ClassBranch) || (c == kestrel_pkg::ClassJal) || (c == kestrel_pkg::ClassJalr)
              || (c == kestrel_pkg::ClassExit) || (c == kestrel_pkg::ClassBarrier) || (c == kestrel_pkg::ClassTrap)
              || (c == kestrel_pkg::ClassIllegal) || (c == kestrel_pkg::ClassWarp);
  endfunction
  // Votes, shuffles, match and reduce: wait for their membermask, retire the
  // complete classes (kx.syncwarp and kx.nanosleep are ClassWarp too).
  function automatic logic is_coll(input kestrel_pkg::exec_class_e c, input logic [2:0] f3, input logic [6:0] f7);
    is_coll = (c == kestrel_pkg::ClassWarp) && f3 != 3'd0 && !(f3 == 3'd1 && f7 == kestrel_pkg::SimtSyncwarp);
  endfunction
  function automatic logic is_mem_class(input kestrel_pkg::exec_class_e c);
    // kx.tex answers through the LSU's retire port too (kestrel_sm_tex).
    is_mem_class = (c == kestrel_pkg::ClassLoad) || (c == kestrel_pkg::ClassStore) || (c == kestrel_pkg::ClassAtomic)
                   || (c == kestrel_pkg::ClassTex);
  endfunction

  // ===========================================================================
  // Group selection: one warp per cycle
  // ===========================================================================
  logic [Warps-1:0] sel_want;
  logic sel_any;
  logic [WarpW-1:0] sel_w;
  logic gs_valid, gs_diverged;
  logic [31:0] gs_pc, gs_rr;
  logic [Lanes-1:0] gs_mask;
  logic [FairW-1:0] gs_fair;
  logic [YieldW-1:0] gs_yield;
  always_comb begin
    for (int unsigned w = 0; w < Warps; w++) sel_want[w] = active_q[w] && resel_q[w] && !ctrl_q[w];
    sel_any = |sel_want;
    sel_w = '0;
    for (int w = Warps - 1; w >= 0; w--) if (sel_want[w]) sel_w = WarpW'(w);
  end
  kestrel_group_sel #(.Lanes(Lanes)) u_group_sel (
    .pcs_i       (lpc_q[32'(sel_w)*Lanes*32 +: Lanes*32]),
    .eligible_i  (~exited_q[32'(sel_w)*Lanes +: Lanes] & ~waiting_q[32'(sel_w)*Lanes +: Lanes]
                  & ~held_q[32'(sel_w)*Lanes +: Lanes] & ~sleep_q[32'(sel_w)*Lanes +: Lanes]),
    .fair_count_i(fair_q[32'(sel_w)*FairW +: FairW]),
    .rr_pc_i     (rr_q[32'(sel_w)*32 +: 32]),
    .yield_left_i(yield_q[32'(sel_w)*YieldW +: YieldW]),
    .yield_pc_i  (yield_pc_q[32'(sel_w)*32 +: 32]),
    .valid_o     (gs_valid),
    .pc_o        (gs_pc),
    .mask_o      (gs_mask),
    .diverged_o  (gs_diverged),
    .fair_count_o(gs_fair),
    .rr_pc_o     (gs_rr),
    .yield_left_o(gs_yield)
  );

  // ===========================================================================
  // Spinning: stage 1's conditional branch whose lowest lane goes backward
  // (taken lanes go to pc + imm, the others to pc + 4).
  // ===========================================================================
  logic [Lanes-1:0] s1_back, s1_lead, s1_elig;
  logic s1_spin_branch, s1_spin_whole, s1_spin;
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) s1_back[l] = s1_mask_q[l] && s1_target[l*32 +: 32] <= s1_pc_q;
    s1_lead = s1_mask_q & (~s1_mask_q + 1'b1);
    s1_elig = ~exited_q[32'(s1_warp_q)*Lanes +: Lanes] & ~waiting_q[32'(s1_warp_q)*Lanes +: Lanes]
            & ~held_q[32'(s1_warp_q)*Lanes +: Lanes] & ~sleep_q[32'(s1_warp_q)*Lanes +: Lanes];
    s1_spin_branch = s1_valid_q && !s1_ffault_q && active_q[s1_warp_q] && s1_dec_q.cls == kestrel_pkg::ClassBranch
                     && (s1_back & s1_lead) != '0;
    s1_spin_whole = s1_back == s1_elig;
  end

  kestrel_spin_detect #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps)) u_spin_detect (
    .clk_i, .rst_ni,
    .flush_i     (flush),
    .start_i     (disp_warp_done),
    .start_warp_i(disp_warp),
    .branch_i    (s1_spin_branch),
    .warp_i      (s1_warp_q),
    .pc_i        (s1_pc_q),
    .mask_i      (s1_mask_q),
    .ops_i       (s1_lead_ops_i),
    .whole_i     (s1_spin_whole),
    .spin_o      (s1_spin),
    .backoff_o   (backoff_o)
  );

  // ===========================================================================
  // Stage 3: kx.syncwarp waiters of the retiring warp after its syncwarp or
  // exit: released when every live lane of their mask waits with that mask.
  // ===========================================================================
  logic s3_sync, s3_exit;
  logic [Lanes-1:0] s3_swait, s3_live, s3_release;
  logic [Lanes*Lanes-1:0] s3_smask;
  always_comb begin
    s3_sync = s3_valid_q && !s3_faulting && active_q[s3_warp_q] && s3_dec_q.cls == kestrel_pkg::ClassWarp
              && s3_dec_q.funct3 == kestrel_pkg::SimtF3Vote && s3_dec_q.funct7 == kestrel_pkg::SimtSyncwarp;
    s3_exit = s3_valid_q && !s3_faulting && active_q[s3_warp_q] && s3_dec_q.cls == kestrel_pkg::ClassExit;
    s3_swait = swait_q[32'(s3_warp_q)*Lanes +: Lanes] | (s3_sync ? s3_mask_q : '0);
    s3_live = ~(exited_q[32'(s3_warp_q)*Lanes +: Lanes] | (s3_exit ? s3_mask_q : '0));
    for (int unsigned l = 0; l < Lanes; l++) begin
      s3_smask[l*Lanes +: Lanes] = (s3_sync && s3_mask_q[l]) ? s3_result_q[l*Xlen +: Lanes]
                                                            : smask_q[(32'(s3_warp_q)*Lanes + l)*Lanes +: Lanes];
    end
  end

  kestrel_warp_conv #(.Lanes(Lanes)) u_conv_s3 (
    .here_i (s3_swait),
    .masks_i(s3_smask),
    .live_i (s3_live),
    .ready_o(s3_release)
  );

  logic [Lanes-1:0] s3_exit_live;
  // ===========================================================================
  // Barrier unit inputs: arrivals and exits retire in stage 3; every retire of
  // a model-visible instruction feeds the watchdog.
  // ===========================================================================
  always_comb begin
    logic [WarpW-1:0] w3;
    w3 = s3_warp_q;
    s3_exit_live = ~(exited_q[32'(w3)*Lanes +: Lanes] | s3_mask_q);
    bar_arrive = s3_valid_q && active_q[w3] && !s3_faulting && s3_dec_q.cls == kestrel_pkg::ClassBarrier;
    bar_exit = s3_valid_q && active_q[w3] && !s3_faulting && s3_dec_q.cls == kestrel_pkg::ClassExit;
    bar_arrive_slot = wblk_q[32'(w3)*WarpW +: WarpW];
    bar_exit_slot = bar_arrive_slot;
    bar_arrive_count = '0;
    bar_arrive_nonzero = '0;
    for (int unsigned l = 0; l < Lanes; l++) begin
      bar_arrive_count = bar_arrive_count + CountW'(s3_mask_q[l]);
      bar_arrive_nonzero = bar_arrive_nonzero + CountW'(s3_mask_q[l] && s3_nonzero_q[l]);
    end
    bar_exit_count = bar_arrive_count;
  end

  // ===========================================================================
  // Next state
  // ===========================================================================
  always_comb begin
    logic [WarpW-1:0] w3, slot3;
    logic [Lanes-1:0] elig;
    logic any_left;

    elig = '0;
    any_left = 1'b0;
    active_d = active_q;
    wblk_d = wblk_q;
    widx_d = widx_q;
    lpc_d = lpc_q;
    exited_d = exited_q;
    waiting_d = waiting_q;
    drain_d = drain_q;
    held_d = held_q;
    swait_d = swait_q;
    smask_d = smask_q;
    sleep_d = sleep_q;
    sleep_left_d = sleep_left_q;
    slot_progress = '0;
    bar_rd_d = bar_rd_q;
    bar_kind_d = bar_kind_q;
    grp_valid_d = grp_valid_q;
    grp_pc_d = grp_pc_q;
    grp_mask_d = grp_mask_q;
    grp_fair_d = grp_fair_q;
    grp_rr_d = grp_rr_q;
    fair_d = fair_q;
    rr_d = rr_q;
    grp_yield_d = grp_yield_q;
    yield_d = yield_q;
    yield_pc_d = yield_pc_q;
    resel_d = resel_q;
    ctrl_d = ctrl_q;
    long_d = long_q;
    instret_d = instret_q;
    tid_d = tid_q;
    fault_valid_d = fault_valid_q;
    fault_d = fault_q;
    stop_d = stop_q;
    memq_d = memq_q;
    mem_issued_d = mem_issued_q;
    mem_done_d = mem_done_q;
    div_inflight_d = div_inflight_q;
    div_pending_d = div_pending_q;
    fflags_d = fflags_q;
    frm_d = frm_q;
    sched_launch = '0;
    blk_done = 1'b0;

    // ---- dispatch -----------------------------------------------------------
    if (disp_busy) begin
      tid_d[(32'(disp_warp)*Lanes + 32'(disp_lane))*TidW +: TidW] = disp_tid;
      exited_d[32'(disp_warp)*Lanes + 32'(disp_lane)] = disp_lane_exited;
      if (disp_warp_done) begin
        active_d[disp_warp] = 1'b1;
        wblk_d[32'(disp_warp)*WarpW +: WarpW] = disp_start_slot;
        widx_d[32'(disp_warp)*WarpW +: WarpW] = disp_start_widx;
        for (int unsigned l = 0; l < Lanes; l++) lpc_d[(32'(disp_warp)*Lanes + l)*32 +: 32] = entry_pc_i;
        waiting_d[32'(disp_warp)*Lanes +: Lanes] = '0;
        drain_d[32'(disp_warp)*Lanes +: Lanes] = '0;
        held_d[32'(disp_warp)*Lanes +: Lanes] = '0;
        swait_d[32'(disp_warp)*Lanes +: Lanes] = '0;
        sleep_d[32'(disp_warp)*Lanes +: Lanes] = '0;
        sleep_left_d[32'(disp_warp)*SleepW +: SleepW] = '0;
        grp_valid_d[disp_warp] = 1'b0;
        resel_d[disp_warp] = 1'b1;
        ctrl_d[disp_warp] = 1'b0;
        long_d[disp_warp] = 1'b0;
        mem_issued_d[32'(disp_warp)*4 +: 4] = '0;
        mem_done_d[32'(disp_warp)*4 +: 4] = '0;
        fair_d[32'(disp_warp)*FairW +: FairW] = '0;
        rr_d[32'(disp_warp)*32 +: 32] = '0;
        yield_d[32'(disp_warp)*YieldW +: YieldW] = '0;
        yield_pc_d[32'(disp_warp)*32 +: 32] = '0;
        instret_d[32'(disp_warp)*Lanes*64 +: Lanes*64] = '0;
        fflags_d[32'(disp_warp)*Lanes*5 +: Lanes*5] = '0;
        frm_d[32'(disp_warp)*Lanes*3 +: Lanes*3] = '0;
        sched_launch[disp_warp] = 1'b1;
      end
    end

    // ---- group selection ----------------------------------------------------
    if (sel_any) begin
      resel_d[sel_w] = 1'b0;
      grp_valid_d[sel_w] = gs_valid;
      grp_pc_d[32'(sel_w)*32 +: 32] = gs_pc;
      grp_mask_d[32'(sel_w)*Lanes +: Lanes] = gs_mask;
      grp_fair_d[32'(sel_w)*FairW +: FairW] = gs_fair;
      grp_rr_d[32'(sel_w)*32 +: 32] = gs_rr;
      grp_yield_d[32'(sel_w)*YieldW +: YieldW] = gs_yield;
    end

    // ---- issue --------------------------------------------------------------
    if (issue) begin
      fair_d[32'(iw)*FairW +: FairW] = grp_fair_q[32'(iw)*FairW +: FairW];
      rr_d[32'(iw)*32 +: 32] = grp_rr_q[32'(iw)*32 +: 32];
      yield_d[32'(iw)*YieldW +: YieldW] = grp_yield_q[32'(iw)*YieldW +: YieldW];
      // A collective counts for the lanes that execute it (stage 1).
      for (int unsigned l = 0; l < Lanes; l++) begin
        if (imask[l] && !is_coll(idec.cls, idec.funct3, idec.funct7))
          instret_d[(32'(iw)*Lanes + l)*64 +: 64] = instret_q[(32'(iw)*Lanes + l)*64 +: 64] + 64'd1;
      end
      elig = ~exited_q[32'(iw)*Lanes +: Lanes] & ~waiting_q[32'(iw)*Lanes +: Lanes]
           & ~held_q[32'(iw)*Lanes +: Lanes] & ~sleep_q[32'(iw)*Lanes +: Lanes];
      if (is_control(idec.cls)) begin
        grp_valid_d[iw] = 1'b0;
        ctrl_d[iw] = 1'b1;
      end else begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          if (imask[l]) lpc_d[(32'(iw)*Lanes + l)*32 +: 32] = ipc + 32'd4;
        end
        if (imask == elig) begin
          // Converged: the rule picks the same lanes at PC+4, not diverged.
          grp_pc_d[32'(iw)*32 +: 32] = ipc + 32'd4;
          grp_fair_d[32'(iw)*FairW +: FairW] = '0;
          grp_yield_d[32'(iw)*YieldW +: YieldW] = '0;
        end else begin
          grp_valid_d[iw] = 1'b0;
          resel_d[iw] = 1'b1;
        end
      end
      // Loads and stores leave the warp free to issue; atomics and kx.tex
      // (issued with no memory instruction in flight) hold it like divides.
      if (idec.cls == kestrel_pkg::ClassAtomic || idec.cls == kestrel_pkg::ClassTex
          || idec.cls == kestrel_pkg::ClassDiv) long_d[iw] = 1'b1;
      if (is_mem_class(idec.cls)) begin
        memq_d[32'(iw)*MemQW +: MemQW] = memq_q[32'(iw)*MemQW +: MemQW] + MemQW'(1);
        mem_issued_d[32'(iw)*4 +: 4] = mem_issued_q[32'(iw)*4 +: 4] + 4'd1;
      end
      if (idec.cls == kestrel_pkg::ClassDiv) div_inflight_d = 1'b1;
      if (ifpx && ifp.unit != kestrel_fpu_pkg::FpUnitLane) long_d[iw] = 1'b1;
      if (iffault || idec.cls == kestrel_pkg::ClassIllegal || idec.cls == kestrel_pkg::ClassTrap) stop_d = 1'b1;
    end

    // ---- kx.nanosleep: sleepers wake when their warp's time has run out ---------
    for (int unsigned w = 0; w < Warps; w++) begin
      if (sleep_q[w*Lanes +: Lanes] != '0) begin
        if (sleep_left_q[w*SleepW +: SleepW] <= SleepPerCycle) begin
          sleep_d[w*Lanes +: Lanes] = '0;
          sleep_left_d[w*SleepW +: SleepW] = '0;
          grp_valid_d[w] = 1'b0;
          resel_d[w] = 1'b1;
        end else begin
          sleep_left_d[w*SleepW +: SleepW] = sleep_left_q[w*SleepW +: SleepW] - SleepPerCycle;
        end
      end
    end

    // ---- stage 1: branch resolution -------------------------------------------
    if (s1_valid_q) begin
      if (s1_dec_q.cls == kestrel_pkg::ClassBranch || s1_dec_q.cls == kestrel_pkg::ClassJal
          || s1_dec_q.cls == kestrel_pkg::ClassJalr) begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          if (s1_mask_q[l]) lpc_d[(32'(s1_warp_q)*Lanes + l)*32 +: 32] = s1_target[l*32 +: 32];
        end
        ctrl_d[s1_warp_q] = 1'b0;
        resel_d[s1_warp_q] = 1'b1;
      end
      if (s1_spin) begin
        yield_d[32'(s1_warp_q)*YieldW +: YieldW] = YieldW'(kestrel_pkg::SpinYieldIssues);
        yield_pc_d[32'(s1_warp_q)*32 +: 32] = s1_pc_q;
      end
      if (s1_barfault || s1_wsfault) stop_d = 1'b1;
      // Votes, shuffles, match, reduce: the complete classes move on, the
      // other issuing lanes park; previously parked lanes that complete end
      // their wait (the watchdog restarts).
      if (s1_sleep) begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          if (s1_mask_q[l]) lpc_d[(32'(s1_warp_q)*Lanes + l)*32 +: 32] = s1_pc_q + 32'd4;
        end
        if (s1_sleep_amount != '0) begin
          if (sleep_d[32'(s1_warp_q)*Lanes +: Lanes] == '0
              || sleep_left_d[32'(s1_warp_q)*SleepW +: SleepW] < s1_sleep_amount)
            sleep_left_d[32'(s1_warp_q)*SleepW +: SleepW] = s1_sleep_amount;
          sleep_d[32'(s1_warp_q)*Lanes +: Lanes] = sleep_d[32'(s1_warp_q)*Lanes +: Lanes] | s1_mask_q;
        end
        ctrl_d[s1_warp_q] = 1'b0;
        resel_d[s1_warp_q] = 1'b1;
      end
      if (s1_coll && !s1_wsfault) begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          if (s1_ready[l]) begin
            lpc_d[(32'(s1_warp_q)*Lanes + l)*32 +: 32] = s1_pc_q + 32'd4;
            instret_d[(32'(s1_warp_q)*Lanes + l)*64 +: 64] = instret_q[(32'(s1_warp_q)*Lanes + l)*64 +: 64] + 64'd1;
          end
        end
        held_d[32'(s1_warp_q)*Lanes +: Lanes] = (held_q[32'(s1_warp_q)*Lanes +: Lanes] | s1_mask_q) & ~s1_ready;
        if ((held_q[32'(s1_warp_q)*Lanes +: Lanes] & s1_ready) != '0)
          slot_progress[wblk_q[32'(s1_warp_q)*WarpW +: WarpW]] = 1'b1;
        ctrl_d[s1_warp_q] = 1'b0;
        resel_d[s1_warp_q] = 1'b1;
      end
      if (s1_fpx_q && s1_rmfault) begin
        // Faults in stage 3 like an illegal instruction; nothing went to the FPU.
        stop_d = 1'b1;
      end
      // fflags, frm, fcsr: read above, written here for each active thread
      // (csrrw/csrrs/csrrc, register or immediate operand).
      if (s1_dec_q.cls == kestrel_pkg::ClassCsr && !s1_ffault_q
          && (s1_dec_q.csr == kestrel_fpu_pkg::CsrFflags || s1_dec_q.csr == kestrel_fpu_pkg::CsrFrm
              || s1_dec_q.csr == kestrel_fpu_pkg::CsrFcsr)) begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          logic [7:0] old_value, operand, new_value;
          old_value = {frm_q[(32'(s1_warp_q)*Lanes + l)*3 +: 3], fflags_q[(32'(s1_warp_q)*Lanes + l)*5 +: 5]};
          if (s1_dec_q.csr == kestrel_fpu_pkg::CsrFrm) old_value = {5'd0, old_value[7:5]};
          if (s1_dec_q.csr == kestrel_fpu_pkg::CsrFflags) old_value = {3'd0, old_value[4:0]};
          operand = s1_dec_q.funct3[2] ? {3'd0, s1_dec_q.imm[4:0]} : rf_rs1_data[l*Xlen +: 8];
          unique case (s1_dec_q.funct3[1:0])
            2'd1: new_value = operand;
            2'd2: new_value = old_value | operand;
            default: new_value = old_value & ~operand;
          endcase
          if (s1_mask_q[l]) begin
            unique case (s1_dec_q.csr)
              kestrel_fpu_pkg::CsrFflags: fflags_d[(32'(s1_warp_q)*Lanes + l)*5 +: 5] = new_value[4:0];
              kestrel_fpu_pkg::CsrFrm: frm_d[(32'(s1_warp_q)*Lanes + l)*3 +: 3] = new_value[2:0];
              default: begin
                fflags_d[(32'(s1_warp_q)*Lanes + l)*5 +: 5] = new_value[4:0];
                frm_d[(32'(s1_warp_q)*Lanes + l)*3 +: 3] = new_value[7:5];
              end
            endcase
          end
        end
      end
    end

    // ---- stage 3: exits, barrier arrivals, faults -----------------------------
    w3 = s3_warp_q;
    slot3 = wblk_q[32'(w3)*WarpW +: WarpW];
    if (s3_valid_q && active_q[w3]) begin
      if (s3_faulting) begin
        if (fault_valid_d == 1'b0) begin
          fault_valid_d = 1'b1;
          fault_d = pipe_fault;
        end
      end else if (s3_dec_q.cls == kestrel_pkg::ClassExit) begin
        exited_d[32'(w3)*Lanes +: Lanes] = exited_q[32'(w3)*Lanes +: Lanes] | s3_mask_q;
        ctrl_d[w3] = 1'b0;
        resel_d[w3] = 1'b1;
        if (s3_exit_live == '0) begin
          active_d[w3] = 1'b0;
          any_left = 1'b0;
          for (int unsigned w = 0; w < Warps; w++) begin
            if (w != 32'(w3) && active_q[w] && wblk_q[w*WarpW +: WarpW] == slot3) any_left = 1'b1;
          end
          // Warps of the block still to start: the block is not done either.
          if (disp_busy && walk_slot_q == slot3) any_left = 1'b1;
          if (!any_left) begin
            // Warp slots stay allocated until the whole block completes.
            blk_done = 1'b1;
          end
        end
      end else if (s3_dec_q.cls == kestrel_pkg::ClassBarrier) begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          if (s3_mask_q[l]) begin
            lpc_d[(32'(w3)*Lanes + l)*32 +: 32] = s3_pc_q + 32'd4;
            bar_rd_d[(32'(w3)*Lanes + l)*5 +: 5] = s3_dec_q.rd;
            unique case (s3_dec_q.funct7)
              kestrel_pkg::SimtBarCount: bar_kind_d[(32'(w3)*Lanes + l)*2 +: 2] = kestrel_pkg::BarKindCount;
              kestrel_pkg::SimtBarAnd: bar_kind_d[(32'(w3)*Lanes + l)*2 +: 2] = kestrel_pkg::BarKindAnd;
              kestrel_pkg::SimtBarOr: bar_kind_d[(32'(w3)*Lanes + l)*2 +: 2] = kestrel_pkg::BarKindOr;
              default: bar_kind_d[(32'(w3)*Lanes + l)*2 +: 2] = kestrel_pkg::BarKindSync;
            endcase
          end
        end
        waiting_d[32'(w3)*Lanes +: Lanes] = waiting_q[32'(w3)*Lanes +: Lanes] | s3_mask_q;
        ctrl_d[w3] = 1'b0;
        resel_d[w3] = 1'b1;
      end else if (s3_sync) begin
        // kx.syncwarp: like a block barrier, the lanes retire it and wait at
        // the next PC for their membermask.
        for (int unsigned l = 0; l < Lanes; l++) begin
          if (s3_mask_q[l]) lpc_d[(32'(w3)*Lanes + l)*32 +: 32] = s3_pc_q + 32'd4;
        end
        smask_d[32'(w3)*Lanes*Lanes +: Lanes*Lanes] = s3_smask;
        held_d[32'(w3)*Lanes +: Lanes] = held_d[32'(w3)*Lanes +: Lanes] | s3_mask_q;
        ctrl_d[w3] = 1'b0;
        resel_d[w3] = 1'b1;
      end
      // An exit may complete a membermask: parked lanes try again (they
      // re-park at once if their mask still waits); syncwarp waiters whose
      // mask is complete go on.
      if (s3_sync || s3_exit) begin
        logic [Lanes-1:0] parked;
        parked = s3_exit ? (held_q[32'(w3)*Lanes +: Lanes] & ~swait_q[32'(w3)*Lanes +: Lanes]) : '0;
        held_d[32'(w3)*Lanes +: Lanes] = held_d[32'(w3)*Lanes +: Lanes] & ~parked & ~s3_release;
        swait_d[32'(w3)*Lanes +: Lanes] = s3_swait & ~s3_release;
        if ((parked | s3_release) != '0) begin
          slot_progress[slot3] = 1'b1;
          grp_valid_d[w3] = 1'b0;
          resel_d[w3] = 1'b1;
        end
      end
    end

    // ---- LSU, divider and barrier-result retires -----------------------------
    // A pair's first beat writes rd only; the instruction ends with the second.
    if (grant_lsu && lsu_rsp_last) begin
      if (memq_q[32'(lsu_rsp_warp)*MemQW +: MemQW] != '0) begin
        // memq_d: an issue of the same warp in this cycle has counted already.
        memq_d[32'(lsu_rsp_warp)*MemQW +: MemQW] = memq_d[32'(lsu_rsp_warp)*MemQW +: MemQW] - MemQW'(1);
        mem_done_d[32'(lsu_rsp_warp)*4 +: 4] = mem_done_q[32'(lsu_rsp_warp)*4 +: 4] + 4'd1;
        long_d[lsu_rsp_warp] = 1'b0;
        if (lsu_rsp_fault != kestrel_pkg::FaultNone && !fault_valid_d) begin
          fault_valid_d = 1'b1;
          fault_d = lsu_fault;
        end
      end
    end
    if (div_done[0]) div_pending_d = 1'b1;
    if (grant_div) begin
      div_pending_d = 1'b0;
      div_inflight_d = 1'b0;
      if (div_inflight_q) begin
        long_d[div_warp_q] = 1'b0;
      end
    end
    if (grant_drain) begin
      drain_d[32'(drain_w)*Lanes +: Lanes] = drain_q[32'(drain_w)*Lanes +: Lanes] & ~drain_mask;
    end
    if ((grant_fpl && fpl_live) || (grant_fp && fpx_live)) begin
      logic [WarpW-1:0] fw;
      logic [Lanes*5-1:0] flags;
      logic [Lanes-1:0] fmask;
      fw = grant_fpl ? fpl_warp : fpx_warp;
      flags = grant_fpl ? fpl_flags : fpx_flags;
      fmask = grant_fpl ? fpl_mask : fpx_mask;
      if (!grant_fpl) long_d[fw] = 1'b0;
      // fflags accrue per thread at write-back, in each warp's issue order.
      for (int unsigned l = 0; l < Lanes; l++) begin
        if (fmask[l]) begin
          fflags_d[(32'(fw)*Lanes + l)*5 +: 5] = fflags_q[(32'(fw)*Lanes + l)*5 +: 5] | flags[l*5 +: 5];
        end
      end
    end

    // ---- barrier release: waiting lanes go on, results to write ---------------
    for (int unsigned w = 0; w < Warps; w++) begin
      if (active_q[w] && bar_release[wblk_q[w*WarpW +: WarpW]]) begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          if (waiting_d[w*Lanes + l] && bar_kind_d[(w*Lanes + l)*2 +: 2] != kestrel_pkg::BarKindSync
              && bar_rd_d[(w*Lanes + l)*5 +: 5] != 5'd0)
            drain_d[w*Lanes + l] = 1'b1;
        end
        if (waiting_d[w*Lanes +: Lanes] != '0) begin
          grp_valid_d[w] = 1'b0;
          resel_d[w] = 1'b1;
        end
        waiting_d[w*Lanes +: Lanes] = '0;
      end
    end

    // ---- barrier watchdog ------------------------------------------------------
    if (dl_any && !fault_valid_d) begin
      fault_valid_d = 1'b1;
      fault_d = dl_fault;
    end
    if (fault_valid_d) stop_d = 1'b1;
  end


  // ===========================================================================
  // Flops
  // ===========================================================================
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= '0;
      wblk_q <= '0;
      widx_q <= '0;
      exited_q <= '0;
      waiting_q <= '0;
      drain_q <= '0;
      held_q <= '0;
      swait_q <= '0;
      sleep_q <= '0;
      sleep_left_q <= '0;
      grp_valid_q <= '0;
      resel_q <= '0;
      ctrl_q <= '0;
      long_q <= '0;
      fair_q <= '0;
      rr_q <= '0;
      yield_q <= '0;
      yield_pc_q <= '0;
      fault_valid_q <= 1'b0;
      fault_q <= '0;
      stop_q <= 1'b0;
      cycle_q <= '0;
      memq_q <= '0;
      mem_issued_q <= '0;
      mem_done_q <= '0;
      div_inflight_q <= 1'b0;
      div_pending_q <= 1'b0;
    end else if (flush) begin
      // start: a new launch; abort: drop every resident block.  Units with a
      // memory request in flight (fetch, LSU) finish it; their results are dropped.
      active_q <= '0;
      exited_q <= '0;
      waiting_q <= '0;
      drain_q <= '0;
      held_q <= '0;
      swait_q <= '0;
      sleep_q <= '0;
      sleep_left_q <= '0;
      grp_valid_q <= '0;
      resel_q <= '0;
      ctrl_q <= '0;
      long_q <= '0;
      memq_q <= '0;
      mem_issued_q <= '0;
      mem_done_q <= '0;
      div_inflight_q <= 1'b0;
      div_pending_q <= 1'b0;
      if (start_i) begin
        fault_valid_q <= 1'b0;
        fault_q <= '0;
        stop_q <= 1'b0;
        cycle_q <= '0;
      end else begin
        stop_q <= 1'b1;
        cycle_q <= cycle_q + 64'd1;
      end
    end else begin
      active_q <= active_d;
      wblk_q <= wblk_d;
      widx_q <= widx_d;
      exited_q <= exited_d;
      waiting_q <= waiting_d;
      drain_q <= drain_d;
      held_q <= held_d;
      swait_q <= swait_d;
      sleep_q <= sleep_d;
      sleep_left_q <= sleep_left_d;
      grp_valid_q <= grp_valid_d;
      resel_q <= resel_d;
      ctrl_q <= ctrl_d;
      long_q <= long_d;
      fair_q <= fair_d;
      rr_q <= rr_d;
      yield_q <= yield_d;
      yield_pc_q <= yield_pc_d;
      fault_valid_q <= fault_valid_d;
      fault_q <= fault_d;
      stop_q <= stop_d;
      cycle_q <= cycle_q + 64'd1;
      memq_q <= memq_d;
      mem_issued_q <= mem_issued_d;
      mem_done_q <= mem_done_d;
      div_inflight_q <= div_inflight_d;
      div_pending_q <= div_pending_d;
    end
  end


  // Bookkeeping registers whose reset value never matters: each is written
  // before it is read (lanes get their PC at warp start, smask is read only
  // for lanes in swait_q, the group only when grp_valid_q, the walked block
  // slot only while the dispatcher walks, after its take).
  always_ff @(posedge clk_i) begin
    if (disp_take_i) walk_slot_q <= disp_take_slot_i;
    lpc_q <= lpc_d;
    bar_rd_q <= bar_rd_d;
    bar_kind_q <= bar_kind_d;
    smask_q <= smask_d;  // read only for lanes in swait_q
    grp_pc_q <= grp_pc_d;
    grp_mask_q <= grp_mask_d;
    grp_fair_q <= grp_fair_d;
    grp_rr_q <= grp_rr_d;
    grp_yield_q <= grp_yield_d;
    instret_q <= instret_d;
    tid_q <= tid_d;
    fflags_q <= fflags_d;
    frm_q <= frm_d;
  end

  // ===========================================================================
  // Outputs
  // ===========================================================================
  assign active_o = active_q;
  assign wblk_o = wblk_q;
  assign widx_o = widx_q;
  assign lpc_o = lpc_q;
  assign exited_o = exited_q;
  assign waiting_o = waiting_q;
  assign drain_o = drain_q;
  assign held_o = held_q;
  assign swait_o = swait_q;
  assign bar_rd_o = bar_rd_q;
  assign bar_kind_o = bar_kind_q;
  assign grp_valid_o = grp_valid_q;
  assign grp_pc_o = grp_pc_q;
  assign grp_mask_o = grp_mask_q;
  assign ctrl_o = ctrl_q;
  assign long_o = long_q;
  assign tid_o = tid_q;
  assign fflags_o = fflags_q;
  assign frm_o = frm_q;
  assign issue_instret_o = instret_q[32'(iw)*Lanes*64 +: Lanes*64];
  assign sched_launch_o = sched_launch;
  assign blk_done_o = blk_done;
  assign blk_done_slot_o = wblk_q[32'(s3_warp_q)*WarpW +: WarpW];
  assign slot_progress_o = slot_progress;
  assign bar_arrive_o = bar_arrive;
  assign bar_arrive_slot_o = bar_arrive_slot;
  assign bar_arrive_count_o = bar_arrive_count;
  assign bar_arrive_nonzero_o = bar_arrive_nonzero;
  assign bar_exit_o = bar_exit;
  assign bar_exit_slot_o = bar_exit_slot;
  assign bar_exit_count_o = bar_exit_count;
  assign fault_valid_o = fault_valid_q;
  assign fault_o = fault_q;
  assign stop_o = stop_q;
  assign cycle_o = cycle_q;
  assign lsu_inflight_o = memq_q != '0;
  for (genvar g = 0; g < Warps; g++) begin : gen_mem_state
    assign mem_busy_o[g] = memq_q[g*MemQW +: MemQW] != '0;
    assign mem_full_o[g] = memq_q[g*MemQW +: MemQW] == MemQW'(MemInFlight);
  end
  assign retire_mem_seq_o = grant_lsu_i ? mem_done_q[32'(lsu_rsp_warp_i)*4 +: 4]
                                        : mem_issued_q[32'(retire_warp_i)*4 +: 4];
  assign div_inflight_o = div_inflight_q;
  assign div_pending_o = div_pending_q;

  // ===========================================================================
  // Assertions
  // ===========================================================================
  // Dispatch starts a warp only in a free slot; issue, stage 1 and stage 3
  // name resident warps (stage 3 may hold a warp dropped by a flush only
  // after reset, never while valid).
  `KESTREL_ASSERT(start_free, disp_start_i |-> !active_q[disp_warp_i])
  `KESTREL_ASSERT(issue_active, issue_i |-> active_q[issue_warp_i])
  `KESTREL_ASSERT(mem_in_flight_bound,
                  issue_i && !iffault && is_mem_class(idec.cls) |-> !mem_full_o[issue_warp_i])
  `KESTREL_ASSERT(issue_lanes, issue_i |-> (issue_mask_i & exited_q[32'(issue_warp_i)*Lanes +: Lanes]) == '0)
  `KESTREL_ASSERT_KNOWN(issue_known, issue_i)
  `KESTREL_ASSERT_KNOWN(s1_valid_known, s1_valid_i)
  `KESTREL_ASSERT_KNOWN(s3_valid_known, s3_valid_i)
  `KESTREL_ASSERT_KNOWN_IF(s3_warp_known, s3_warp_i, s3_valid_i)
  // One retire-slot grant at a time.
  `KESTREL_ASSERT_ONEHOT0(grants_onehot, {grant_lsu_i, grant_div_i, grant_drain_i, grant_fpl_i, grant_fp_i})
  `KESTREL_ASSERT_KNOWN(fault_valid_known, fault_valid_q)
  `KESTREL_ASSERT(fault_stops, fault_valid_q && !flush_i |=> stop_q || flush_i)
  `KESTREL_ASSERT(blk_done_active, blk_done |-> s3_valid_q && active_q[s3_warp_q])

  // Lint sinks: fields the control state does not read.
  logic unused_fields;
  assign unused_fields = ^{issue_pkt_i.word, s1_pkt_i.word, s1_pkt_i.fp, s3_pkt_i, ifp, idec, s1_dec_q, rf_rs1_data, s3_dec_q, s3_result_q, gs_diverged};
endmodule
