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
  localparam int unsigned FairW = $clog2(kestrel_pkg::FairnessPeriod);
  localparam int unsigned LineBits = kestrel_pkg::LineBits;
  localparam int unsigned OffW = kestrel_pkg::LineOffW;
  localparam int unsigned TagW = 32 - OffW;
  localparam int unsigned IcIdxW = (ICacheLines > 1) ? $clog2(ICacheLines) : 1;
  localparam int unsigned CountW = 11;
  localparam int unsigned TidW = 30;
  // Memory tags: bit 0 says who asked.
  localparam logic [kestrel_pkg::MemTagW-1:0] TagLsu = '0;
  localparam logic [kestrel_pkg::MemTagW-1:0] TagFetch = kestrel_pkg::MemTagW'(1);

  // Barrier kinds as stored per waiting lane.
  localparam logic [1:0] BarKindSync = 2'd0;
  localparam logic [1:0] BarKindCount = 2'd1;
  localparam logic [1:0] BarKindAnd = 2'd2;
  localparam logic [1:0] BarKindOr = 2'd3;

  // ===========================================================================
  // Per-warp and per-block state (flat vectors: warp w's field at [w*W +: W]).
  // ===========================================================================
  logic [Warps-1:0] used_q, used_d;            // slot allocated to a block (incl. while dispatching)
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
  localparam int unsigned SleepW = 48;
  localparam logic [SleepW-1:0] SleepPerCycle = SleepW'(1_000_000);
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
  logic [Warps-1:0] resel_q, resel_d;          // group must be recomputed
  logic [Warps-1:0] ctrl_q, ctrl_d;            // control instruction in flight: lane PCs not final
  logic [Warps-1:0] long_q, long_d;            // LSU or divider instruction outstanding
  logic [Warps*Lanes*64-1:0] instret_q, instret_d;
  logic [Warps*Lanes*TidW-1:0] tid_q, tid_d;
  // line buffers
  logic [Warps-1:0] lb_valid_q, lb_valid_d, lb_fault_q, lb_fault_d;
  logic [Warps*TagW-1:0] lb_tag_q, lb_tag_d;
  logic [Warps*LineBits-1:0] lb_data_q, lb_data_d;
  // per block slot
  logic [Warps*64-1:0] bidx_q, bidx_d;
  logic [Warps*32-1:0] bphys_q, bphys_d;
  logic [Warps-1:0] bregion_used_q, bregion_used_d;   // shared regions, by region index
  logic [Warps*WarpW-1:0] bregion_q, bregion_d;        // region of each block slot
  logic [Warps-1:0] bhas_region_q, bhas_region_d;
  logic [Warps-1:0] bres_q, bres_d;                    // block slot holds a resident block
  logic [Warps*Warps-1:0] bwarps_q, bwarps_d;          // warp slots of each block slot

  // launch-wide
  logic fault_valid_q, fault_valid_d;
  kestrel_pkg::fault_t fault_q, fault_d;
  logic stop_q, stop_d;            // a faulting instruction issued: issue nothing more
  logic [63:0] cycle_q;

  // ===========================================================================
  // Launch constants
  // ===========================================================================
  logic [31:0] threads;
  logic [31:0] nwarps;
  logic [31:0] rsize;
  logic [Xlen-1:0] init_sp;
  always_comb begin
    threads = 32'(launch_i.block.x) * 32'(launch_i.block.y) * 32'(launch_i.block.z);
    nwarps = (threads + 32'(Lanes - 1)) >> $clog2(Lanes);
    rsize = (launch_i.shared_size + 32'd7) & ~32'd7;
    init_sp = Xlen'(kestrel_pkg::LocalBase) + Xlen'(launch_i.stack_bytes);
  end

  // ===========================================================================
  // Block dispatch: allocate warps and a shared region, then walk the block's
  // threads one lane per cycle writing thread indices; each warp starts when
  // its lanes are written.
  // ===========================================================================
  logic disp_busy_q;
  logic [Warps-1:0] disp_left_q;       // allocated warps not yet started
  logic [WarpW-1:0] disp_slot_q;
  logic [WarpW-1:0] disp_k_q;          // warp index within the block being walked
  logic [LaneW-1:0] disp_lane_q;
  logic [9:0] disp_x_q, disp_y_q, disp_z_q;
  logic [CountW-1:0] disp_t_q;

  logic [Warps-1:0] alloc_mask;
  logic [31:0] free_count;
  logic [Warps-1:0] region_ok;
  logic region_avail;
  logic [WarpW-1:0] region_pick;
  logic [WarpW-1:0] alloc_first;
  logic blk_take;
  always_comb begin
    logic [31:0] taken;
    alloc_mask = '0;
    free_count = '0;
    taken = '0;
    for (int unsigned w = 0; w < Warps; w++) begin
      if (!used_q[w]) begin
        free_count = free_count + 1;
        if (taken < nwarps) begin
          alloc_mask[w] = 1'b1;
          taken = taken + 1;
        end
      end
    end
    alloc_first = '0;
    for (int w = Warps - 1; w >= 0; w--) if (alloc_mask[w]) alloc_first = WarpW'(w);
    region_avail = 1'b0;
    region_pick = '0;
    for (int k = Warps - 1; k >= 0; k--) begin
      region_ok[k] = (64'(k) * 64'(rsize) + 64'(rsize)) <= 64'(SharedBytes);
      if (region_ok[k] && !bregion_used_q[k]) begin
        region_avail = 1'b1;
        region_pick = WarpW'(k);
      end
    end
    blk_ready_o = !disp_busy_q && !fault_valid_q && !stop_q && nwarps != 0 && free_count >= nwarps
                  && (rsize == 0 || region_avail);
    blk_take = blk_valid_i && blk_ready_o;
    blk_slots_o = alloc_mask;
  end

  logic [WarpW-1:0] disp_warp;
  logic disp_lane_last, disp_warp_done;
  always_comb begin
    disp_warp = '0;
    for (int w = Warps - 1; w >= 0; w--) if (disp_left_q[w]) disp_warp = WarpW'(w);
    disp_lane_last = (disp_lane_q == LaneW'(Lanes - 1));
    disp_warp_done = disp_busy_q && disp_lane_last;
  end

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
  logic [31:0] wword [Warps];
  // Width of kestrel_pkg::decoded_t (Yosys 0.23 takes no $bits of a package type).
  localparam int unsigned DecW = 116;
`ifndef SYNTHESIS
  if (DecW != $bits(kestrel_pkg::decoded_t)) begin : gen_decw_check
    $error("kestrel_sm: DecW must equal $bits(kestrel_pkg::decoded_t)");
  end
`endif
  logic [Warps*DecW-1:0] wdec_flat;
  logic [Warps-1:0] wmem, wdiv;  // the warp's next instruction goes to the LSU / divider
  logic [Warps-1:0] wshfl;       // ... is a shuffle (reads rs3, which the scoreboard does not check)
  logic [Warps-1:0] wpair;       // ... is an RV32 register-pair atomic (reads rs2+1 and rd+1 too)
  // F fields per warp (kestrel_decoder fp_o) and the FP-execute flag.
  localparam int unsigned FpDecW = 38;
  localparam int unsigned FpDecLoad = 37;
  localparam int unsigned FpDecStore = 36;
  localparam int unsigned FpDecUnit = 34;     // 2 bits
  localparam int unsigned FpDecFpuOp = 29;    // 5 bits
  localparam int unsigned FpDecDivSqrt = 28;
  localparam int unsigned FpDecSfuOp = 25;    // 3 bits
  localparam int unsigned FpDecRm = 22;       // 3 bits
  localparam int unsigned FpDecRdWe = 21;     // writes f rd
  localparam int unsigned FpDecRd = 16;       // 5 bits
  localparam int unsigned FpDecRs1Re = 15;    // reads f rs1 (unused: the f file is read anyway)
  localparam int unsigned FpDecRs1 = 10;
  localparam int unsigned FpDecRs2 = 5;
  localparam int unsigned FpDecRs3 = 0;
  logic [Warps*FpDecW-1:0] wfp_flat;
  logic [Warps-1:0] wfpx;
  logic [Warps*18-1:0] sb_check;
  logic [Warps-1:0] sb_hazard;
  logic [Warps-1:0] sb_busy;

  for (genvar g = 0; g < Warps; g++) begin : gen_warp_decode
    logic [31:0] pc;
    logic [17:0] wregs;
    assign pc = grp_pc_q[g*32 +: 32];
    assign lb_hit[g] = lb_valid_q[g] && lb_tag_q[g*TagW +: TagW] == pc[31:OffW];
    assign fetch_fault_w[g] = (pc[1:0] != 2'b00) || (lb_hit[g] && lb_fault_q[g]);
    assign wword[g] = lb_data_q[g*LineBits + 32*32'(pc[OffW-1:2]) +: 32];
    kestrel_decoder #(.Xlen(Xlen)) u_decoder (
      .instr_i(wword[g]),
      .dec_o  (wdec_flat[g*DecW +: DecW]),
      .regs_o (wregs),
      .mem_o  (wmem[g]),
      .div_o  (wdiv[g]),
      .fpx_o  (wfpx[g]),
      .fp_o   (wfp_flat[g*FpDecW +: FpDecW])
    );
    assign sb_check[g*18 +: 18] = fetch_fault_w[g] ? 18'd0 : wregs;
    assign wshfl[g] = wword[g][6:0] == kestrel_pkg::OpSimt && wword[g][14:12] == 3'd2;
    assign wpair[g] = Xlen == 32 && wword[g][6:0] == kestrel_pkg::OpAtomic && wword[g][14:12] == 3'd3;
  end


  logic sb_set;
  logic [WarpW-1:0] sb_set_warp;
  logic [4:0] sb_set_rd;
  logic sb_clear;
  logic [WarpW-1:0] sb_clear_warp;
  logic [4:0] sb_clear_rd;
  logic flush;
  assign flush = start_i || abort_i;

  kestrel_scoreboard #(.Warps(Warps), .ClearPorts(1)) u_scoreboard (
    .clk_i, .rst_ni,
    .flush_i     (flush),
    .check_i     (sb_check),
    .hazard_o    (sb_hazard),
    .set_i       (sb_set),
    .set_warp_i  (sb_set_warp),
    .set_rd_i    (sb_set_rd),
    .clear_i     (sb_clear),
    .clear_warp_i(sb_clear_warp),
    .clear_rd_i  (sb_clear_rd),
    .busy_o      (sb_busy)
  );

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
    .start_i         (blk_take),
    .start_slot_i    (alloc_first),
    .start_threads_i (CountW'(threads)),
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
  // Pipeline registers (stage 1..3).
  logic s1_valid_q, s2_valid_q, s3_valid_q;
  logic [WarpW-1:0] s1_warp_q, s2_warp_q, s3_warp_q;
  logic [31:0] s1_pc_q, s2_pc_q, s3_pc_q;
  logic [Lanes-1:0] s1_mask_q, s2_mask_q, s3_mask_q;
  kestrel_pkg::decoded_t s1_dec_q, s2_dec_q, s3_dec_q;
  logic [31:0] s1_word_q, s2_word_q, s3_word_q;
  logic s1_ffault_q, s2_ffault_q, s3_ffault_q;  // fetch fault pseudo-instruction
  logic [Lanes*64-1:0] s1_instret_q;
  logic [RowW-1:0] s2_result_q, s3_result_q;
  logic [Lanes-1:0] s2_nonzero_q, s3_nonzero_q;  // barrier operand != 0
  logic s2_barfault_q, s3_barfault_q;            // kx.bar.sync with a non-zero id
  logic [LaneW-1:0] s2_flane_q, s3_flane_q;      // fault lane
  logic [63:0] s2_code_q, s3_code_q;             // trap code (rs1), later the assert line (a2)
  logic [63:0] s2_line_q, s3_line_q;
  logic [63:0] s3_a1_q;
  logic s3_faulting;
  logic s1_coll;                                 // stage 1 holds a vote, shuffle, match or reduce
  logic [RowW-1:0] xbar_result;

  logic lsu_inflight_q, lsu_inflight_d;
  // Stage 1 holds an RV32 register-pair atomic: the register file reads its
  // high words (rs2+1, rd+1) this cycle, so nothing issues.
  logic s1_pair;
  logic div_inflight_q, div_inflight_d;
  logic div_pending_q, div_pending_d;            // divider finished, waiting for the retire slot
  logic [WarpW-1:0] div_warp_q;
  logic [31:0] div_pc_q;
  logic [Lanes-1:0] div_mask_q;
  logic [4:0] div_rd_q;
  // F instructions in kestrel_fp_exec: one warp-instruction per cycle into
  // the lane pipeline (its records in a FIFO, in order), one in divsqrt, one
  // in the SFU (a record each; the fp_exec tag says which).
  // Record: {warp, pc, mask, rd, rd is f, rd is x}.
  localparam int unsigned FpMetaW = WarpW + 32 + Lanes + 7;
  localparam int unsigned FplDepth = 2 ** $clog2(FpuStages + 1);  // lane ops between hand-over and write-back
  localparam int unsigned FplCntW = $clog2(FplDepth) + 1;
  logic ds_sent_q, ds_sent_d, sfu_sent_q, sfu_sent_d;  // the divsqrt / SFU instruction is out
  logic ds_drop_q, ds_drop_d, sfu_drop_q, sfu_drop_d;  // ... sent before a flush: drained, not retired
  logic [FpMetaW-1:0] ds_meta_q, sfu_meta_q;
  logic ds_busy, sfu_busy;                             // out, or in stage 1
  logic [FplCntW-1:0] fpl_drop_q, fpl_drop_d;          // lane ops still to drain after a flush
  // Per warp: lane-pipeline ops issued and not written back, and the f
  // registers they will write (the f scoreboard; f rs/rd of a further lane
  // op are checked against it).
  logic [Warps*FplCntW-1:0] lcnt_q, lcnt_d;
  logic [Warps*32-1:0] fpend_q, fpend_d;
  logic [Warps-1:0] fhaz;
  // Retire-slot reservations of the lane pipeline: bit k is the slot k cycles
  // from now (an operation issued now is written back 1 + FpuStages cycles on).
  logic [FpuStages:0] resv_q, resv_d;
  logic [3:0] resv_near;                               // bits 0..3 of resv_q, zero beyond
  logic [Warps*Lanes*5-1:0] fflags_q, fflags_d;  // per thread
  logic [Warps*Lanes*3-1:0] frm_q, frm_d;
  logic lsu_fp_q;                                // the LSU instruction is flw/fsw
  logic s1_fpx_q;
  logic [FpDecW-1:0] s1_fp_q;

  logic [Warps-1:0] ready, rel_block;
  logic hold_issue;
  logic sched_valid;
  logic [WarpW-1:0] sched_warp;
  logic issue;
  logic [WarpW-1:0] iw;
  kestrel_pkg::decoded_t idec;
  logic ifpx;
  logic [FpDecW-1:0] ifp;
  logic [31:0] ipc;
  logic [Lanes-1:0] imask;
  logic iffault;
  logic [Warps-1:0] sched_launch;

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
  function automatic logic is_mem(input kestrel_pkg::exec_class_e c);
    is_mem = (c == kestrel_pkg::ClassLoad) || (c == kestrel_pkg::ClassStore) || (c == kestrel_pkg::ClassAtomic);
  endfunction

  always_comb begin
    for (int unsigned w = 0; w < Warps; w++) begin
      rel_block[w] = bar_release[wblk_q[w*WarpW +: WarpW]];
      ready[w] = active_q[w] && grp_valid_q[w] && !ctrl_q[w] && !long_q[w] && drain_q[w*Lanes +: Lanes] == '0
                 && !rel_block[w] && (lb_hit[w] || fetch_fault_w[w]);
      if (!fetch_fault_w[w]) begin
        if (sb_hazard[w]) ready[w] = 1'b0;
        if (wmem[w] && lsu_inflight_q) ready[w] = 1'b0;
        if (wdiv[w] && div_inflight_q) ready[w] = 1'b0;
        // With lane ops outstanding only an independent lane op may follow.
        if (lcnt_q[w*FplCntW +: FplCntW] != '0
            && (!wfpx[w] || wfp_flat[w*FpDecW + FpDecUnit +: 2] != kestrel_fpu_pkg::FpUnitLane || fhaz[w]))
          ready[w] = 1'b0;
        if (wfpx[w]) begin
          // The unit must be free when stage 1 hands the instruction over.
          unique case (wfp_flat[w*FpDecW + FpDecUnit +: 2])
            kestrel_fpu_pkg::FpUnitDivSqrt: if (ds_busy) ready[w] = 1'b0;
            kestrel_fpu_pkg::FpUnitSfu: if (sfu_busy) ready[w] = 1'b0;
            default: if (FpuStages < 2 && s1_valid_q) ready[w] = 1'b0;  // would meet stage 3
          endcase
        end else if (!wmem[w] && !wdiv[w] && resv_near[3]) begin
          // Stage 3 three cycles from now belongs to a lane-pipeline result.
          ready[w] = 1'b0;
        end
        if ((wshfl[w] || wpair[w]) && sb_busy[w]) ready[w] = 1'b0;
      end
      if (stop_q || fault_valid_q || hold_issue || s1_pair) ready[w] = 1'b0;
    end
  end

  // f scoreboard check of each warp's next instruction: f rs1 when read, rs2
  // for the two-operand operations, rs3 for the fused ones, f rd.
  always_comb begin
    for (int unsigned w = 0; w < Warps; w++) begin
      logic [FpDecW-1:0] f;
      logic [4:0] op;
      f = wfp_flat[w*FpDecW +: FpDecW];
      op = f[FpDecFpuOp +: 5];
      fhaz[w] = (f[FpDecRs1Re] && fpend_q[w*32 + 32'(f[FpDecRs1 +: 5])])
             || (op <= kestrel_fpu_pkg::FpuLe && fpend_q[w*32 + 32'(f[FpDecRs2 +: 5])])
             || (op >= kestrel_fpu_pkg::FpuMadd && op <= kestrel_fpu_pkg::FpuNmadd
                 && fpend_q[w*32 + 32'(f[FpDecRs3 +: 5])])
             || (f[FpDecRdWe] && fpend_q[w*32 + 32'(f[FpDecRd +: 5])]);
    end
  end

  kestrel_warp_sched #(.Warps(Warps), .Policy(SchedPolicy)) u_sched (
    .clk_i, .rst_ni,
    .ready_i (ready),
    .launch_i(sched_launch),
    .issue_i (issue),
    .valid_o (sched_valid),
    .warp_o  (sched_warp)
  );

  always_comb begin
    issue = sched_valid;
    iw = sched_warp;
    idec = wdec_flat[32'(iw)*DecW +: DecW];
    ipc = grp_pc_q[32'(iw)*32 +: 32];
    imask = grp_mask_q[32'(iw)*Lanes +: Lanes];
    iffault = fetch_fault_w[iw];
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
  assign trap_a1_read = s1_valid_q && s1_dec_q.cls == kestrel_pkg::ClassTrap && !s1_ffault_q;
  assign s1_pair = Xlen == 32 && s1_valid_q && s1_dec_q.cls == kestrel_pkg::ClassAtomic && s1_dec_q.funct3 == 3'd3;
  always_comb begin
    rf_ren = issue || trap_a1_read || s1_pair;
    rf_rwarp = (trap_a1_read || s1_pair) ? s1_warp_q : iw;
    rf_rs1 = trap_a1_read ? 5'd11 : idec.rs1;
    rf_rs2 = trap_a1_read ? 5'd0 : idec.rs2;
    // The third port: a shuffle's rs3, a CAS's compare value (rd, which the
    // scoreboard's WAW check on rd keeps current).
    rf_rs3 = 5'd0;
    if (idec.cls == kestrel_pkg::ClassWarp && idec.funct3 == 3'd2) rf_rs3 = idec.funct7[6:2];
    if (idec.cls == kestrel_pkg::ClassAtomic && idec.funct7[6:2] == kestrel_pkg::AmoCas) rf_rs3 = idec.rd;
    if (s1_pair) begin
      // The pairs' high registers; x0 as a pair reads zero in both halves
      // (the decoder has made rd x0 when it was x0, and registers are even).
      rf_rs2 = (s1_dec_q.rs2 == 5'd0) ? 5'd0 : (s1_dec_q.rs2 | 5'd1);
      rf_rs3 = (s1_dec_q.rd == 5'd0) ? 5'd0 : (s1_dec_q.rd | 5'd1);
    end
    sb_set = issue && idec.rd_we && idec.cls != kestrel_pkg::ClassBarrier;
    sb_set_warp = iw;
    sb_set_rd = idec.rd;
  end

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
    .rs1_i        (ifp[FpDecRs1 +: 5]),
    .rs2_i        (ifp[FpDecRs2 +: 5]),
    .rs3_i        (ifp[FpDecRs3 +: 5]),
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
  // Stage 1: operands, ALU, branches, CSRs, LSU/divider start
  // ===========================================================================
  logic [RowW-1:0] s1_a, s1_b, s1_alu, s1_result;
  logic [Lanes-1:0] s1_taken, s1_nonzero;
  logic [Lanes*32-1:0] s1_target;
  logic [TidW*Lanes-1:0] s1_tid;
  logic [63:0] s1_bidx;
  logic [LaneW-1:0] s1_low;
  logic [Lanes-1:0] unused_s1_low_onehot;
  logic unused_s1_low_valid;
  logic s1_barfault;
  logic [LaneW-1:0] s1_barfault_lane;

  kestrel_lowest_set #(.Width(Lanes)) u_s1_low (
    .bits_i(s1_mask_q), .valid_o(unused_s1_low_valid), .index_o(s1_low), .onehot_o(unused_s1_low_onehot)
  );

  // funct3 fields to the units' enums (Yosys 0.23 has no casts to package types).
  kestrel_pkg::branch_op_e s1_branch_op;
  kestrel_pkg::mul_op_e s1_mul_op;
  kestrel_pkg::div_op_e s1_div_op;
  kestrel_pkg::mem_size_e s1_mem_size;
  always_comb begin
    unique case (s1_dec_q.funct3)
      3'd0: s1_branch_op = kestrel_pkg::BrEq;
      3'd1: s1_branch_op = kestrel_pkg::BrNe;
      3'd4: s1_branch_op = kestrel_pkg::BrLt;
      3'd5: s1_branch_op = kestrel_pkg::BrGe;
      3'd6: s1_branch_op = kestrel_pkg::BrLtu;
      default: s1_branch_op = kestrel_pkg::BrGeu;
    endcase
    unique case (s1_dec_q.funct3[1:0])
      2'd0: begin
        s1_mul_op = kestrel_pkg::MulLow;
        s1_div_op = kestrel_pkg::DivSigned;
        s1_mem_size = kestrel_pkg::SizeByte;
      end
      2'd1: begin
        s1_mul_op = kestrel_pkg::MulHigh;
        s1_div_op = kestrel_pkg::DivUnsigned;
        s1_mem_size = kestrel_pkg::SizeHalf;
      end
      2'd2: begin
        s1_mul_op = kestrel_pkg::MulHighSU;
        s1_div_op = kestrel_pkg::RemSigned;
        s1_mem_size = kestrel_pkg::SizeWord;
      end
      default: begin
        s1_mul_op = kestrel_pkg::MulHighU;
        s1_div_op = kestrel_pkg::RemUnsigned;
        s1_mem_size = kestrel_pkg::SizeDouble;
      end
    endcase
  end

  for (genvar l = 0; l < Lanes; l++) begin : gen_lane_alu
    kestrel_alu #(.Xlen(Xlen)) u_alu (
      .op_i       (s1_dec_q.alu_op),
      .word_i     (s1_dec_q.word),
      .a_i        (s1_a[l*Xlen +: Xlen]),
      .b_i        (s1_b[l*Xlen +: Xlen]),
      .result_o   (s1_alu[l*Xlen +: Xlen]),
      .branch_op_i(s1_branch_op),
      .taken_o    (s1_taken[l])
    );
  end

  // CSR values: one warp-wide value, and the per-lane ones (thread index,
  // lane id, instret) picked per lane below.
  assign s1_tid = tid_q[32'(s1_warp_q)*Lanes*TidW +: Lanes*TidW];
  assign s1_bidx = bidx_q[32'(wblk_q[32'(s1_warp_q)*WarpW +: WarpW])*64 +: 64];
  logic [63:0] csr_uniform;
  logic [WarpW-1:0] s1_widx;
  always_comb begin
    s1_widx = widx_q[32'(s1_warp_q)*WarpW +: WarpW];
    unique case (s1_dec_q.csr)
      kestrel_pkg::CsrCycle, kestrel_pkg::CsrTime: csr_uniform = cycle_q;
      kestrel_pkg::CsrCycleH, kestrel_pkg::CsrTimeH: csr_uniform = {32'd0, cycle_q[63:32]};
      kestrel_pkg::CsrCtaidX: csr_uniform = 64'(s1_bidx[63:32]);
      kestrel_pkg::CsrCtaidY: csr_uniform = 64'(s1_bidx[31:16]);
      kestrel_pkg::CsrCtaidZ: csr_uniform = 64'(s1_bidx[15:0]);
      kestrel_pkg::CsrNtidX: csr_uniform = 64'(launch_i.block.x);
      kestrel_pkg::CsrNtidY: csr_uniform = 64'(launch_i.block.y);
      kestrel_pkg::CsrNtidZ: csr_uniform = 64'(launch_i.block.z);
      kestrel_pkg::CsrNctaidX: csr_uniform = 64'(launch_i.grid.x);
      kestrel_pkg::CsrNctaidY: csr_uniform = 64'(launch_i.grid.y);
      kestrel_pkg::CsrNctaidZ: csr_uniform = 64'(launch_i.grid.z);
      kestrel_pkg::CsrWarpId: csr_uniform = 64'(s1_widx);
      kestrel_pkg::CsrSmId: csr_uniform = 64'(sm_id_i);
      kestrel_pkg::CsrWarpSize: csr_uniform = 64'(Lanes);
      kestrel_pkg::CsrActiveMask: csr_uniform = 64'(s1_mask_q);
      kestrel_pkg::CsrSharedBase: csr_uniform = 64'(launch_i.shared_base);
      kestrel_pkg::CsrSharedSize: csr_uniform = 64'(launch_i.shared_size);
      default: csr_uniform = 64'(launch_i.shared_base) + 64'(launch_i.shared_static);  // CsrDynShared
    endcase
  end

  logic [RowW-1:0] s1_csr;
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      logic [63:0] v, instret;
      logic [TidW-1:0] tid;
      tid = s1_tid[l*TidW +: TidW];
      instret = s1_instret_q[l*64 +: 64];
      unique case (s1_dec_q.csr)
        kestrel_pkg::CsrInstret: v = instret;
        kestrel_pkg::CsrInstretH: v = {32'd0, instret[63:32]};
        kestrel_pkg::CsrTidX: v = 64'(tid[29:20]);
        kestrel_pkg::CsrTidY: v = 64'(tid[19:10]);
        kestrel_pkg::CsrTidZ: v = 64'(tid[9:0]);
        kestrel_pkg::CsrLaneId: v = 64'(l);
        kestrel_fpu_pkg::CsrFflags: v = 64'(fflags_q[(32'(s1_warp_q)*Lanes + l)*5 +: 5]);
        kestrel_fpu_pkg::CsrFrm: v = 64'(frm_q[(32'(s1_warp_q)*Lanes + l)*3 +: 3]);
        kestrel_fpu_pkg::CsrFcsr:
          v = 64'({frm_q[(32'(s1_warp_q)*Lanes + l)*3 +: 3], fflags_q[(32'(s1_warp_q)*Lanes + l)*5 +: 5]});
        default: v = csr_uniform;
      endcase
      s1_csr[l*Xlen +: Xlen] = v[Xlen-1:0];
    end
  end

  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      s1_a[l*Xlen +: Xlen] = s1_dec_q.src_a_pc ? Xlen'(s1_pc_q) : rf_rs1_data[l*Xlen +: Xlen];
      s1_b[l*Xlen +: Xlen] = s1_dec_q.src_b_imm ? s1_dec_q.imm[Xlen-1:0] : rf_rs2_data[l*Xlen +: Xlen];
    end
  end

  always_comb begin
    s1_barfault = 1'b0;
    s1_barfault_lane = '0;
    for (int l = Lanes - 1; l >= 0; l--) begin
      logic [Xlen-1:0] rs1v, link;
      rs1v = rf_rs1_data[l*Xlen +: Xlen];
      s1_nonzero[l] = (rs1v != '0);
      link = Xlen'(s1_pc_q) + Xlen'(4);
      // Lane PCs are 32 bits: every device address is (docs/isa.md section 4).
      unique case (s1_dec_q.cls)
        kestrel_pkg::ClassJal: s1_target[l*32 +: 32] = s1_pc_q + s1_dec_q.imm[31:0];
        kestrel_pkg::ClassJalr: s1_target[l*32 +: 32] = (rs1v[31:0] + s1_dec_q.imm[31:0]) & ~32'd1;
        default: s1_target[l*32 +: 32] = s1_taken[l] ? s1_pc_q + s1_dec_q.imm[31:0] : s1_pc_q + 32'd4;
      endcase
      unique case (s1_dec_q.cls)
        kestrel_pkg::ClassJal, kestrel_pkg::ClassJalr: s1_result[l*Xlen +: Xlen] = link;
        kestrel_pkg::ClassCsr: s1_result[l*Xlen +: Xlen] = s1_csr[l*Xlen +: Xlen];
        // kx.syncwarp carries its membermasks to stage 3.
        kestrel_pkg::ClassWarp: s1_result[l*Xlen +: Xlen] = s1_coll ? xbar_result[l*Xlen +: Xlen]
                                                                     : rf_rs2_data[l*Xlen +: Xlen];
        default: s1_result[l*Xlen +: Xlen] = s1_alu[l*Xlen +: Xlen];
      endcase
      if (s1_mask_q[l] && rs1v != '0 && s1_dec_q.cls == kestrel_pkg::ClassBarrier
          && s1_dec_q.funct7 == kestrel_pkg::SimtBarSync) begin
        s1_barfault = 1'b1;
        s1_barfault_lane = LaneW'(l);
      end
    end
  end

  // ===========================================================================
  // Stage 1: warp-synchronous instructions (docs/isa.md section 6.1)
  // ===========================================================================
  // Each lane's membermask (rs3 for shuffles, else rs2; bits of lanes this
  // warp lacks dropped).  An issuing lane outside its own mask is an illegal
  // instruction (lowest such lane).  The lanes parked at this PC earlier join
  // the issuing ones; the complete classes (s1_ready) execute.
  logic s1_sync, s1_sleep;
  logic [Lanes*Lanes-1:0] s1_masks, s1_members;
  logic [Lanes-1:0] s1_live, s1_parked, s1_here, s1_ready;
  logic s1_wsfault;
  logic [LaneW-1:0] s1_wsfault_lane;
  always_comb begin
    logic [RowW-1:0] row;
    s1_coll = s1_valid_q && !s1_ffault_q && is_coll(s1_dec_q.cls, s1_dec_q.funct3, s1_dec_q.funct7);
    s1_sync = s1_valid_q && !s1_ffault_q && s1_dec_q.cls == kestrel_pkg::ClassWarp && s1_dec_q.funct3 == 3'd1
              && s1_dec_q.funct7 == kestrel_pkg::SimtSyncwarp;
    s1_sleep = s1_valid_q && !s1_ffault_q && s1_dec_q.cls == kestrel_pkg::ClassWarp && s1_dec_q.funct3 == 3'd0;
    row = (s1_dec_q.funct3 == 3'd2) ? rf_rs3_data : rf_rs2_data;
    s1_live = ~exited_q[32'(s1_warp_q)*Lanes +: Lanes];
    s1_wsfault = 1'b0;
    s1_wsfault_lane = '0;
    for (int l = Lanes - 1; l >= 0; l--) begin
      s1_masks[l*Lanes +: Lanes] = row[l*Xlen +: Lanes];
      s1_members[l*Lanes +: Lanes] = row[l*Xlen +: Lanes] & s1_live;
      s1_parked[l] = held_q[32'(s1_warp_q)*Lanes + 32'(l)] && !swait_q[32'(s1_warp_q)*Lanes + 32'(l)]
                     && lpc_q[(32'(s1_warp_q)*Lanes + 32'(l))*32 +: 32] == s1_pc_q;
      if ((s1_coll || s1_sync) && s1_mask_q[l] && !row[l*Xlen + l]) begin
        s1_wsfault = 1'b1;
        s1_wsfault_lane = LaneW'(l);
      end
    end
    s1_here = s1_mask_q | s1_parked;
  end

  kestrel_warp_conv #(.Lanes(Lanes)) u_conv_s1 (
    .here_i (s1_here),
    .masks_i(s1_masks),
    .live_i (s1_live),
    .ready_o(s1_ready)
  );

  kestrel_warp_xbar #(.Xlen(Xlen), .Lanes(Lanes)) u_warp_xbar (
    .funct3_i (s1_dec_q.funct3[1:0]),
    .funct7_i (s1_dec_q.funct7[3:0]),
    .active_i (s1_ready),
    .members_i(s1_members),
    .value_i  (rf_rs1_data),
    .control_i(rf_rs2_data),
    .result_o (xbar_result)
  );

  // kx.nanosleep: the longest request of the issuing lanes (at most
  // KESTREL_NANOSLEEP_MAX_NS) in units of ns * kHz.
  localparam logic [31:0] NanosleepMaxNs = 32'd1_000_000;
  logic [SleepW-1:0] s1_sleep_amount;
  always_comb begin
    logic [31:0] ns, longest;
    longest = '0;
    for (int unsigned l = 0; l < Lanes; l++) begin
      ns = rf_rs1_data[l*Xlen +: 32];
      if (ns > NanosleepMaxNs) ns = NanosleepMaxNs;
      if (s1_mask_q[l] && ns > longest) longest = ns;
    end
    s1_sleep_amount = SleepW'(longest) * SleepW'(ClockKhz);
  end

  // ===========================================================================
  // Stage 3: kx.syncwarp waiters of the retiring warp after its syncwarp or
  // exit: released when every live lane of their mask waits with that mask.
  // ===========================================================================
  logic s3_sync, s3_exit;
  logic [Lanes-1:0] s3_swait, s3_live, s3_release;
  logic [Lanes*Lanes-1:0] s3_smask;
  always_comb begin
    s3_sync = s3_valid_q && !s3_faulting && active_q[s3_warp_q] && s3_dec_q.cls == kestrel_pkg::ClassWarp
              && s3_dec_q.funct3 == 3'd1 && s3_dec_q.funct7 == kestrel_pkg::SimtSyncwarp;
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

  // F: rounding modes resolved per thread (rm = 7 takes the thread's frm);
  // an active thread whose frm holds 5..7 makes the instruction illegal, at
  // the lowest such lane, as the model's per-lane check does.
  logic [Lanes*3-1:0] s1_rm;
  logic s1_rmfault;
  logic [LaneW-1:0] s1_rmfault_lane;
  always_comb begin
    s1_rmfault = 1'b0;
    s1_rmfault_lane = '0;
    for (int l = Lanes - 1; l >= 0; l--) begin
      logic [2:0] rm;
      rm = s1_fp_q[FpDecRm +: 3];
      if (rm == 3'd7) rm = frm_q[(32'(s1_warp_q)*Lanes + 32'(l))*3 +: 3];
      s1_rm[l*3 +: 3] = rm;
      if (s1_fpx_q && s1_mask_q[l] && rm > 3'd4) begin
        s1_rmfault = 1'b1;
        s1_rmfault_lane = LaneW'(l);
      end
    end
  end

  // Two write-back ports: fpl_* the lane pipeline (always taken: its slot is
  // reserved), fpx_* divsqrt and the SFU.
  logic fpx_req_valid, fpx_req_ready, fpx_rsp_valid, fpx_rsp_ready;
  logic fpl_rsp_valid, fpl_rsp_ready;
  logic [RowW-1:0] fpx_result, fpl_result;
  logic [Lanes*5-1:0] fpx_flags, fpl_flags;
  logic fpx_rsp_tag, fpl_rsp_tag;
  logic [1:0] s1_fp_unit;
  assign s1_fp_unit = s1_fp_q[FpDecUnit +: 2];
  assign fpx_req_valid = s1_valid_q && s1_fpx_q && !s1_rmfault;
  assign ds_busy = ds_sent_q || (s1_valid_q && s1_fpx_q && s1_fp_unit == kestrel_fpu_pkg::FpUnitDivSqrt);
  assign sfu_busy = sfu_sent_q || (s1_valid_q && s1_fpx_q && s1_fp_unit == kestrel_fpu_pkg::FpUnitSfu);
  assign resv_near = 4'(resv_q);
  kestrel_fp_exec #(
    .Xlen(Xlen), .Lanes(Lanes), .SfuLanes(SfuLanes), .Stages(FpuStages), .TagW(1)
  ) u_fp_exec (
    .clk_i, .rst_ni,
    .req_valid_i     (fpx_req_valid),
    .req_ready_o     (fpx_req_ready),
    .req_unit_i      (s1_fp_unit),
    .req_fpu_op_i    (s1_fp_q[FpDecFpuOp +: 5]),
    .req_divsqrt_op_i(s1_fp_q[FpDecDivSqrt]),
    .req_sfu_op_i    (s1_fp_q[FpDecSfuOp +: 3]),
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

  // Multiplier lanes: stage 1 registers operands, stage 2 the product, the
  // result is read in stage 3.  The pipe never stalls, so they always run.
  logic [RowW-1:0] mul_result;
  for (genvar l = 0; l < Lanes; l++) begin : gen_lane_mul
    kestrel_mul #(.Xlen(Xlen)) u_mul (
      .clk_i,
      .en_i    (1'b1),
      .op_i    (s1_mul_op),
      .word_i  (s1_dec_q.word),
      .a_i     (rf_rs1_data[l*Xlen +: Xlen]),
      .b_i     (rf_rs2_data[l*Xlen +: Xlen]),
      .result_o(mul_result[l*Xlen +: Xlen])
    );
  end

  // Divider lanes: one warp-instruction at a time.
  logic div_start;
  logic [Lanes-1:0] div_done;
  logic [RowW-1:0] div_result;
  assign div_start = s1_valid_q && s1_dec_q.cls == kestrel_pkg::ClassDiv;
  for (genvar l = 0; l < Lanes; l++) begin : gen_lane_div
    logic unused_busy;
    kestrel_div #(.Xlen(Xlen)) u_div (
      .clk_i, .rst_ni,
      .start_i (div_start),
      .op_i    (s1_div_op),
      .word_i  (s1_dec_q.word),
      .a_i     (rf_rs1_data[l*Xlen +: Xlen]),
      .b_i     (rf_rs2_data[l*Xlen +: Xlen]),
      .busy_o  (unused_busy),
      .done_o  (div_done[l]),
      .result_o(div_result[l*Xlen +: Xlen])
    );
  end

  // ===========================================================================
  // LSU
  // ===========================================================================
  logic lsu_req_valid, lsu_req_ready;
  logic s1_unit;
  assign s1_unit = is_mem(s1_dec_q.cls) || s1_dec_q.cls == kestrel_pkg::ClassDiv || (s1_fpx_q && !s1_rmfault);
  logic [Lanes*32-1:0] lsu_local_base;
  logic [31:0] lsu_warp_base;
  logic lsu_rsp_valid, lsu_rsp_ready, lsu_rsp_load, lsu_rsp_last;
  logic [Lanes*32-1:0] lsu_wdata_hi, lsu_cmp_hi;
  logic [WarpW-1:0] lsu_rsp_warp;
  logic [4:0] lsu_rsp_rd;
  logic [Lanes-1:0] lsu_rsp_mask;
  logic [RowW-1:0] lsu_rsp_data;
  kestrel_pkg::fault_kind_e lsu_rsp_fault;
  logic [LaneW-1:0] lsu_rsp_fault_lane;
  logic [Xlen-1:0] lsu_rsp_fault_addr;
  logic lsu_mem_req_valid, lsu_mem_req_ready, lsu_mem_rsp_valid, lsu_mem_rsp_ready;
  kestrel_pkg::mem_req_t lsu_mem_req;
  logic [31:0] lsu_pc_q;
  logic lsu_ev_shared_access;
  logic [6:0] lsu_ev_shared_passes, lsu_ev_atomics;

  assign lsu_req_valid = s1_valid_q && is_mem(s1_dec_q.cls);
  // fsw stores f rs2 (the low 32 bits of each lane's data are stored); kx.amofadd.s
  // takes it as its operand (both flagged FpDecStore).
  logic [RowW-1:0] lsu_wdata;
  always_comb begin
    lsu_wdata = rf_rs2_data;
    if (s1_fp_q[FpDecStore]) begin
      for (int unsigned l = 0; l < Lanes; l++) lsu_wdata[l*Xlen +: Xlen] = Xlen'(frf_rs2_data[l*32 +: 32]);
    end
  end
  // A register pair's high words, read in the cycle after the request.
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      lsu_wdata_hi[l*32 +: 32] = rf_rs2_data[l*Xlen +: 32];
      lsu_cmp_hi[l*32 +: 32] = rf_rs3_data[l*Xlen +: 32];
    end
  end
  always_comb begin
    // Thread slot s = (sm * Warps + warp) * Lanes + lane backs its local window
    // at local_backing + s * stack_bytes (docs/functional-model.md).
    lsu_warp_base = launch_i.local_backing
                  + (32'(sm_id_i) * 32'(Warps) + 32'(s1_warp_q)) * 32'(Lanes) * launch_i.stack_bytes;
    for (int unsigned l = 0; l < Lanes; l++) begin
      lsu_local_base[l*32 +: 32] = lsu_warp_base + 32'(l) * launch_i.stack_bytes;
    end
  end

  kestrel_lsu #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .SharedBytes(SharedBytes)) u_lsu (
    .clk_i, .rst_ni,
    .flush_i          (start_i),
    .slot_start_i     (blk_take ? alloc_mask : '0),
    .shared_base_i    (launch_i.shared_base),
    .shared_window_i  ((launch_i.shared_base != '0) ? 32'(SharedBytes) : 32'd0),
    .shared_size_i    (launch_i.shared_size),
    .stack_bytes_i    (launch_i.stack_bytes),
    .req_valid_i      (lsu_req_valid),
    .req_ready_o      (lsu_req_ready),
    .req_warp_i       (s1_warp_q),
    .req_rd_i         (s1_fp_q[FpDecLoad] ? s1_fp_q[FpDecRd +: 5] : s1_dec_q.rd),
    .req_store_i      (s1_dec_q.cls == kestrel_pkg::ClassStore),
    .req_amo_i        (s1_dec_q.cls == kestrel_pkg::ClassAtomic),
    .req_amo_op_i     (s1_dec_q.funct7[6:2]),
    .req_size_i       (s1_mem_size),
    .req_unsigned_i   (s1_dec_q.funct3[2]),
    .req_mask_i       (s1_mask_q),
    .req_addr_i       (s1_alu),
    .req_wdata_i      (lsu_wdata),
    .req_cmp_i        (rf_rs3_data),
    .req_pair_i       (s1_pair),
    .req_wdata_hi_i   (lsu_wdata_hi),
    .req_cmp_hi_i     (lsu_cmp_hi),
    .req_shared_phys_i(bphys_q[32'(wblk_q[32'(s1_warp_q)*WarpW +: WarpW])*32 +: 32]),
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
  // Fetch: per-warp line buffers filled from a direct-mapped I-cache
  // ===========================================================================
  typedef enum logic [1:0] {FetchIdle, FetchFill, FetchReq, FetchWait} fetch_state_e;
  fetch_state_e fst_q, fst_d;
  logic [WarpW-1:0] fwarp_q, fwarp_d;
  logic [TagW-1:0] fline_q, fline_d;
  logic [ICacheLines-1:0] ic_valid_q, ic_valid_d;
  logic [ICacheLines*TagW-1:0] ic_tag_q, ic_tag_d;
  // Unreset RAM (block RAM): only lines marked valid are read.
  logic [LineBits-1:0] ic_data [ICacheLines];
  logic [LineBits-1:0] ic_rdata_q;
  logic ic_write;
  logic [IcIdxW-1:0] ic_widx;

  logic [Warps-1:0] fetch_want;
  logic fetch_any;
  logic [WarpW-1:0] fetch_pick;
  logic [TagW-1:0] fetch_line;
  logic [IcIdxW-1:0] fetch_idx;
  logic fetch_hit;
  logic fetch_mem_valid, fetch_mem_ready, fetch_rsp_valid;

  always_comb begin
    for (int unsigned w = 0; w < Warps; w++) begin
      fetch_want[w] = active_q[w] && grp_valid_q[w] && !lb_hit[w] && grp_pc_q[w*32 +: 2] == 2'b00;
    end
    fetch_any = |fetch_want;
    fetch_pick = '0;
    for (int w = Warps - 1; w >= 0; w--) if (fetch_want[w]) fetch_pick = WarpW'(w);
    fetch_line = grp_pc_q[32'(fetch_pick)*32 + OffW +: TagW];
    fetch_idx = fetch_line[IcIdxW-1:0];
    fetch_hit = ic_valid_q[fetch_idx] && ic_tag_q[32'(fetch_idx)*TagW +: TagW] == fetch_line;
    fetch_mem_valid = (fst_q == FetchReq);
  end

  always_ff @(posedge clk_i) begin
    if (ic_write) ic_data[ic_widx] <= mem_rsp_i.rdata;
    if (fst_q == FetchIdle) ic_rdata_q <= ic_data[fetch_idx];
  end

  // ===========================================================================
  // Memory port: LSU and fetch share it; a request shown stays until taken.
  // ===========================================================================
  logic mem_lock_q, mem_owner_fetch_q;
  logic owner_fetch;
  always_comb begin
    if (mem_lock_q) owner_fetch = mem_owner_fetch_q;
    else owner_fetch = fetch_mem_valid && !lsu_mem_req_valid;
    mem_req_valid_o = owner_fetch ? fetch_mem_valid : lsu_mem_req_valid;
    if (owner_fetch) begin
      mem_req_o = '0;
      mem_req_o.kind = kestrel_pkg::MemFetch;
      mem_req_o.addr = {fline_q, {OffW{1'b0}}};
      mem_req_o.tag = TagFetch;
    end else begin
      mem_req_o = lsu_mem_req;
      mem_req_o.tag = TagLsu;
    end
    lsu_mem_req_ready = !owner_fetch && mem_req_ready_i;
    fetch_mem_ready = owner_fetch && mem_req_ready_i;
    fetch_rsp_valid = mem_rsp_valid_i && mem_rsp_i.tag[0];
    lsu_mem_rsp_valid = mem_rsp_valid_i && !mem_rsp_i.tag[0];
    mem_rsp_ready_o = mem_rsp_i.tag[0] ? (fst_q == FetchWait) : lsu_mem_rsp_ready;
  end

  // ===========================================================================
  // Retire slot: stage 3, else the LSU, else the divider, else barrier results
  // ===========================================================================
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
    for (int unsigned w = 0; w < Warps; w++) drain_warps[w] = drain_q[w*Lanes +: Lanes] != '0;
    drain_any = |drain_warps;
    drain_w = '0;
    for (int w = Warps - 1; w >= 0; w--) if (drain_warps[w]) drain_w = WarpW'(w);
    drain_l = '0;
    for (int l = Lanes - 1; l >= 0; l--) if (drain_q[32'(drain_w)*Lanes + 32'(l)]) drain_l = LaneW'(l);
    drain_rd = bar_rd_q[(32'(drain_w)*Lanes + 32'(drain_l))*5 +: 5];
    drain_kind = bar_kind_q[(32'(drain_w)*Lanes + 32'(drain_l))*2 +: 2];
    drain_pc = lpc_q[(32'(drain_w)*Lanes + 32'(drain_l))*32 +: 32] - 32'd4;
    for (int unsigned l = 0; l < Lanes; l++) begin
      drain_mask[l] = drain_q[32'(drain_w)*Lanes + l]
                      && bar_rd_q[(32'(drain_w)*Lanes + l)*5 +: 5] == drain_rd
                      && bar_kind_q[(32'(drain_w)*Lanes + l)*2 +: 2] == drain_kind
                      && lpc_q[(32'(drain_w)*Lanes + l)*32 +: 32] == drain_pc + 32'd4;
    end
    slot = wblk_q[32'(drain_w)*WarpW +: WarpW];
    nz = bar_res_nonzero[32'(slot)*CountW +: CountW];
    arr = bar_res_arrived[32'(slot)*CountW +: CountW];
    if (drain_kind == BarKindCount) drain_value = Xlen'(nz);
    else if (drain_kind == BarKindAnd) drain_value = Xlen'(nz == arr);
    else drain_value = Xlen'(nz != '0);
  end

  logic grant_lsu, grant_div, grant_fp, grant_fpl, grant_drain;
  logic slot_free;
  always_comb begin
    s3_faulting = s3_valid_q && (s3_ffault_q || s3_barfault_q || s3_dec_q.cls == kestrel_pkg::ClassIllegal
                                 || s3_dec_q.cls == kestrel_pkg::ClassTrap);
    // A lane-pipeline result owns its reserved slot: stage 3 is then empty or
    // faulting (a fault retires nothing), since issue kept stage 3 free there.
    grant_fpl = fpl_rsp_valid && !(s3_valid_q && !s3_faulting);
    slot_free = !s3_valid_q && !fpl_rsp_valid;
    grant_lsu = slot_free && lsu_rsp_valid;
    grant_div = slot_free && !lsu_rsp_valid && div_pending_q;
    grant_fp = slot_free && !lsu_rsp_valid && !div_pending_q && fpx_rsp_valid;
    grant_drain = slot_free && !lsu_rsp_valid && !div_pending_q && !fpx_rsp_valid && drain_any;
    lsu_rsp_ready = grant_lsu;
    fpx_rsp_ready = grant_fp;
    fpl_rsp_ready = grant_fpl;
    // Leave a bubble for a waiting unit when the next two slots are taken
    // (stage 2, stage 1 or reservations); with a 1-stage lane pipeline a new
    // lane operation could take the second, so hold then already.
    hold_issue = ((lsu_rsp_valid && !grant_lsu) || (div_pending_q && !grant_div) || (fpx_rsp_valid && !grant_fp)
                  || (drain_any && !grant_drain))
                 && (s2_valid_q || resv_near[1]) && (s1_valid_q || resv_near[2] || FpuStages < 2);
  end

  // The F write-backs: their records, and whether they retire (not drained).
  logic fpl_meta_valid, fpl_meta_room, fpl_push;
  logic [FpMetaW-1:0] fpl_meta, fpx_meta, s1_fp_meta;
  logic [FplCntW-1:0] fpl_count;
  logic [WarpW-1:0] fpl_warp, fpx_warp;
  logic [31:0] fpl_pc, fpx_pc;
  logic [Lanes-1:0] fpl_mask, fpx_mask;
  logic [4:0] fpl_rd, fpx_rd;
  logic fpl_rd_fp, fpl_xwe, fpx_rd_fp, fpx_xwe;
  logic fpl_live, fpx_live;
  assign s1_fp_meta = {s1_warp_q, s1_pc_q, s1_mask_q, s1_fp_q[FpDecRdWe] ? s1_fp_q[FpDecRd +: 5] : s1_dec_q.rd,
                       s1_fp_q[FpDecRdWe], s1_dec_q.rd_we};
  assign fpl_push = fpx_req_valid && fpx_req_ready && s1_fp_unit == kestrel_fpu_pkg::FpUnitLane;
  kestrel_fifo #(.Width(FpMetaW), .Depth(FplDepth)) u_fpl_meta (
    .clk_i, .rst_ni,
    .flush_i    (1'b0),  // lane ops handed over before a flush still come back
    .in_valid_i (fpl_push),
    .in_ready_o (fpl_meta_room),  // FplDepth covers every lane op in flight
    .in_data_i  (s1_fp_meta),
    .out_valid_o(fpl_meta_valid),
    .out_ready_i(grant_fpl),
    .out_data_o (fpl_meta),
    .count_o    (fpl_count)
  );
  assign fpx_meta = fpx_rsp_tag ? sfu_meta_q : ds_meta_q;
  assign {fpl_warp, fpl_pc, fpl_mask, fpl_rd, fpl_rd_fp, fpl_xwe} = fpl_meta;
  assign {fpx_warp, fpx_pc, fpx_mask, fpx_rd, fpx_rd_fp, fpx_xwe} = fpx_meta;
  assign fpl_live = fpl_drop_q == '0;
  assign fpx_live = fpx_rsp_tag ? !sfu_drop_q : !ds_drop_q;

  logic [RowW-1:0] s3_data;
  assign s3_data = (s3_dec_q.cls == kestrel_pkg::ClassMul) ? mul_result : s3_result_q;

  logic lsu_retire_ok;
  assign lsu_retire_ok = grant_lsu && lsu_inflight_q && lsu_rsp_fault == kestrel_pkg::FaultNone;

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
      retire_valid_o = fpl_live;
      retire_warp_o = fpl_warp;
      retire_pc_o = 64'(fpl_pc);
      retire_mask_o = fpl_mask;
      retire_rd_we_o = (fpl_rd_fp || fpl_xwe) && fpl_live;
      retire_rd_fp_o = fpl_rd_fp;
      retire_rd_o = fpl_rd;
      retire_rd_data_o = fpl_result;
    end else if (s3_valid_q) begin
      // A collective whose lanes all parked goes down the pipe with no lanes
      // (it clears its scoreboard entry) and retires nothing.
      retire_valid_o = !s3_faulting && s3_mask_q != '0;
      retire_warp_o = s3_warp_q;
      retire_pc_o = 64'(s3_pc_q);
      retire_mask_o = s3_mask_q;
      retire_rd_we_o = s3_dec_q.rd_we && s3_dec_q.cls != kestrel_pkg::ClassBarrier && !s3_faulting;
      retire_rd_o = s3_dec_q.rd;
      retire_rd_data_o = s3_data;
    end else if (grant_lsu) begin
      retire_valid_o = lsu_retire_ok;
      retire_warp_o = lsu_rsp_warp;
      retire_pc_o = 64'(lsu_pc_q);
      retire_mask_o = lsu_rsp_mask;
      // flw writes f rd (f0 included); the trace carries its 32-bit pattern.
      retire_rd_fp_o = lsu_fp_q;
      retire_rd_we_o = lsu_rsp_load && (lsu_fp_q || lsu_rsp_rd != 5'd0) && lsu_retire_ok;
      retire_rd_o = lsu_rsp_rd;
      retire_rd_data_o = lsu_rsp_data;
      if (lsu_fp_q) begin
        for (int unsigned l = 0; l < Lanes; l++) retire_rd_data_o[l*Xlen +: Xlen] = Xlen'(lsu_rsp_data[l*Xlen +: 32]);
      end
    end else if (grant_div) begin
      retire_valid_o = div_inflight_q;
      retire_warp_o = div_warp_q;
      retire_pc_o = 64'(div_pc_q);
      retire_mask_o = div_mask_q;
      retire_rd_we_o = div_rd_q != 5'd0 && div_inflight_q;
      retire_rd_o = div_rd_q;
      retire_rd_data_o = div_result;
    end else if (grant_fp) begin
      retire_valid_o = fpx_live;
      retire_warp_o = fpx_warp;
      retire_pc_o = 64'(fpx_pc);
      retire_mask_o = fpx_mask;
      retire_rd_we_o = (fpx_rd_fp || fpx_xwe) && fpx_live;
      retire_rd_fp_o = fpx_rd_fp;
      retire_rd_o = fpx_rd;
      retire_rd_data_o = fpx_result;
    end else if (grant_drain) begin
      retire_valid_o = 1'b1;
      retire_warp_o = drain_w;
      retire_pc_o = 64'(drain_pc);
      retire_mask_o = drain_mask;
      retire_rd_we_o = 1'b1;
      retire_rd_o = drain_rd;
      for (int unsigned l = 0; l < Lanes; l++) retire_rd_data_o[l*Xlen +: Xlen] = drain_value;
    end
    rf_we = retire_rd_we_o && !retire_rd_fp_o;
    frf_we = retire_rd_we_o && retire_rd_fp_o;
    for (int unsigned l = 0; l < Lanes; l++) frf_wdata[l*32 +: 32] = retire_rd_data_o[l*Xlen +: 32];
    rf_wwarp = retire_warp_o;
    rf_rd = retire_rd_o;
    rf_wmask = retire_mask_o;
    rf_wdata = retire_rd_data_o;
    // The scoreboard only tracks pipe and unit results; barrier results block
    // their warp instead.
    sb_clear = rf_we && !grant_drain;
    sb_clear_warp = retire_warp_o;
    sb_clear_rd = retire_rd_o;
  end

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
  always_comb begin
    for (int unsigned w = 0; w < Warps; w++) sel_want[w] = active_q[w] && resel_q[w] && !ctrl_q[w];
    sel_any = |sel_want;
    sel_w = '0;
    for (int w = Warps - 1; w >= 0; w--) if (sel_want[w]) sel_w = WarpW'(w);
  end

  // Lint sinks: outputs and fields this SM does not need.
  logic unused_gs_diverged;
  assign unused_gs_diverged = gs_diverged ^ (^bar_waiting) ^ (^div_done[Lanes-1:1]) ^ (^s3_line_q[63:32])
                            ^ (^s3_dec_q) ^ fpl_rsp_tag ^ resv_near[0] ^ fpl_meta_room;
  kestrel_group_sel #(.Lanes(Lanes)) u_group_sel (
    .pcs_i       (lpc_q[32'(sel_w)*Lanes*32 +: Lanes*32]),
    .eligible_i  (~exited_q[32'(sel_w)*Lanes +: Lanes] & ~waiting_q[32'(sel_w)*Lanes +: Lanes]
                  & ~held_q[32'(sel_w)*Lanes +: Lanes] & ~sleep_q[32'(sel_w)*Lanes +: Lanes]),
    .fair_count_i(fair_q[32'(sel_w)*FairW +: FairW]),
    .rr_pc_i     (rr_q[32'(sel_w)*32 +: 32]),
    .valid_o     (gs_valid),
    .pc_o        (gs_pc),
    .mask_o      (gs_mask),
    .diverged_o  (gs_diverged),
    .fair_count_o(gs_fair),
    .rr_pc_o     (gs_rr)
  );

  // ===========================================================================
  // Faults
  // ===========================================================================
  logic [WarpW-1:0] dl_slot;
  logic dl_any;
  logic [WarpW-1:0] dl_warp;
  logic [LaneW-1:0] dl_lane;
  logic [31:0] dl_pc;
  // Warp-synchronous deadlock (docs/isa.md section 6.1): threads wait on
  // each other inside a warp and nothing of the SM can run any more (no
  // eligible or sleeping lane, nothing in flight, no block arriving): the
  // fault is raised at once instead of after the watchdog.
  logic sync_dead;
  always_comb begin
    logic runnable;
    slot_held = '0;
    runnable = 1'b0;
    for (int unsigned w = 0; w < Warps; w++) begin
      if (active_q[w] && held_q[w*Lanes +: Lanes] != '0) slot_held[wblk_q[w*WarpW +: WarpW]] = 1'b1;
      if (active_q[w] && (~exited_q[w*Lanes +: Lanes] & ~waiting_q[w*Lanes +: Lanes] & ~held_q[w*Lanes +: Lanes]) != '0)
        runnable = 1'b1;
      if (active_q[w] && (ctrl_q[w] || long_q[w])) runnable = 1'b1;
    end
    sync_dead = (slot_held & bres_q) != '0 && !runnable && !s1_valid_q && !s2_valid_q && !s3_valid_q
                && !disp_busy_q && !blk_take && !drain_any && !lsu_inflight_q && !div_inflight_q && fpl_count == '0
                && !ds_sent_q && !sfu_sent_q;
  end

  always_comb begin
    logic [Warps-1:0] stuck_slots;
    dl_any = 1'b0;
    dl_slot = '0;
    stuck_slots = sync_dead ? (slot_held & bres_q) : (bar_deadlock & bres_q);
    for (int s = Warps - 1; s >= 0; s--) begin
      if (stuck_slots[s]) begin
        dl_any = 1'b1;
        dl_slot = WarpW'(s);
      end
    end
    // The lowest waiting thread of the block (at a barrier, a kx.syncwarp or
    // parked at a collective): warps of a block hold ascending slots in warp
    // order.  Parked lanes sit at the collective's PC, the others past theirs.
    dl_warp = '0;
    for (int w = Warps - 1; w >= 0; w--) begin
      if (active_q[w] && wblk_q[w*WarpW +: WarpW] == dl_slot
          && (waiting_q[w*Lanes +: Lanes] | held_q[w*Lanes +: Lanes]) != '0) dl_warp = WarpW'(w);
    end
    dl_lane = '0;
    for (int l = Lanes - 1; l >= 0; l--) begin
      if (waiting_q[32'(dl_warp)*Lanes + 32'(l)] || held_q[32'(dl_warp)*Lanes + 32'(l)]) dl_lane = LaneW'(l);
    end
    dl_pc = lpc_q[(32'(dl_warp)*Lanes + 32'(dl_lane))*32 +: 32];
    if (waiting_q[32'(dl_warp)*Lanes + 32'(dl_lane)] || swait_q[32'(dl_warp)*Lanes + 32'(dl_lane)])
      dl_pc = dl_pc - 32'd4;
  end

  // Fault records of the three sources, built every cycle; the first one of
  // the launch is kept.
  kestrel_pkg::fault_t pipe_fault, lsu_fault, dl_fault;
  always_comb begin
    logic [WarpW-1:0] w3, slot3;
    w3 = s3_warp_q;
    slot3 = wblk_q[32'(w3)*WarpW +: WarpW];
    pipe_fault.pc = 64'(s3_pc_q);
    pipe_fault.block = bidx_q[32'(slot3)*64 +: 64];
    pipe_fault.thread = tid_q[(32'(w3)*Lanes + 32'(s3_flane_q))*TidW +: TidW];
    pipe_fault.sm = sm_id_i;
    pipe_fault.warp = 8'(widx_q[32'(w3)*WarpW +: WarpW]);
    if (s3_ffault_q) begin
      pipe_fault.kind = kestrel_pkg::FaultFetch;
      pipe_fault.addr = 64'(s3_pc_q);
      pipe_fault.info = '0;
    end else if (s3_dec_q.cls == kestrel_pkg::ClassTrap && s3_code_q == 64'(1)) begin
      pipe_fault.kind = kestrel_pkg::FaultAssert;
      pipe_fault.addr = s3_a1_q;
      pipe_fault.info = s3_line_q[31:0];
    end else if (s3_dec_q.cls == kestrel_pkg::ClassTrap) begin
      pipe_fault.kind = kestrel_pkg::FaultTrap;
      pipe_fault.addr = '0;
      pipe_fault.info = s3_code_q[31:0];
    end else begin
      pipe_fault.kind = kestrel_pkg::FaultIllegalInstruction;
      pipe_fault.addr = '0;
      pipe_fault.info = s3_word_q;
    end
  end
  always_comb begin
    logic [WarpW-1:0] slot;
    slot = wblk_q[32'(lsu_rsp_warp)*WarpW +: WarpW];
    lsu_fault.kind = lsu_rsp_fault;
    lsu_fault.pc = 64'(lsu_pc_q);
    lsu_fault.addr = 64'(lsu_rsp_fault_addr);
    lsu_fault.block = bidx_q[32'(slot)*64 +: 64];
    lsu_fault.thread = tid_q[(32'(lsu_rsp_warp)*Lanes + 32'(lsu_rsp_fault_lane))*TidW +: TidW];
    lsu_fault.sm = sm_id_i;
    lsu_fault.warp = 8'(widx_q[32'(lsu_rsp_warp)*WarpW +: WarpW]);
    lsu_fault.info = '0;
    dl_fault.kind = kestrel_pkg::FaultBarrierDeadlock;
    dl_fault.pc = 64'(dl_pc);
    dl_fault.addr = '0;
    dl_fault.block = bidx_q[32'(dl_slot)*64 +: 64];
    dl_fault.thread = tid_q[(32'(dl_warp)*Lanes + 32'(dl_lane))*TidW +: TidW];
    dl_fault.sm = sm_id_i;
    dl_fault.warp = 8'(widx_q[32'(dl_warp)*WarpW +: WarpW]);
    dl_fault.info = '0;
  end

  logic blk_done;
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
    bar_issue = 1'b0;
    bar_issue_slot = bar_arrive_slot;
    if (grant_fpl) begin
      bar_issue = fpl_live;
      bar_issue_slot = wblk_q[32'(fpl_warp)*WarpW +: WarpW];
    end else if (s3_valid_q) begin
      bar_issue = active_q[w3] && !s3_faulting && s3_mask_q != '0;
    end else if (grant_lsu) begin
      bar_issue = lsu_retire_ok && lsu_rsp_last;
      bar_issue_slot = wblk_q[32'(lsu_rsp_warp)*WarpW +: WarpW];
    end else if (grant_div) begin
      bar_issue = div_inflight_q;
      bar_issue_slot = wblk_q[32'(div_warp_q)*WarpW +: WarpW];
    end else if (grant_fp) begin
      bar_issue = fpx_live;
      bar_issue_slot = wblk_q[32'(fpx_warp)*WarpW +: WarpW];
    end
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
    used_d = used_q;
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
    resel_d = resel_q;
    ctrl_d = ctrl_q;
    long_d = long_q;
    instret_d = instret_q;
    tid_d = tid_q;
    lb_valid_d = lb_valid_q;
    lb_fault_d = lb_fault_q;
    lb_tag_d = lb_tag_q;
    lb_data_d = lb_data_q;
    bidx_d = bidx_q;
    bphys_d = bphys_q;
    bregion_used_d = bregion_used_q;
    bregion_d = bregion_q;
    bhas_region_d = bhas_region_q;
    bres_d = bres_q;
    bwarps_d = bwarps_q;
    fault_valid_d = fault_valid_q;
    fault_d = fault_q;
    stop_d = stop_q;
    lsu_inflight_d = lsu_inflight_q;
    div_inflight_d = div_inflight_q;
    div_pending_d = div_pending_q;
    fflags_d = fflags_q;
    frm_d = frm_q;
    fst_d = fst_q;
    fwarp_d = fwarp_q;
    fline_d = fline_q;
    ic_valid_d = ic_valid_q;
    ic_tag_d = ic_tag_q;
    ic_write = 1'b0;
    ic_widx = fline_q[IcIdxW-1:0];
    sched_launch = '0;
    blk_done = 1'b0;

    // ---- dispatch -----------------------------------------------------------
    if (blk_take) begin
      used_d = used_q | alloc_mask;
      bres_d[alloc_first] = 1'b1;
      bwarps_d[32'(alloc_first)*Warps +: Warps] = alloc_mask;
      bidx_d[32'(alloc_first)*64 +: 64] = blk_idx_i;
      bhas_region_d[alloc_first] = (rsize != 0);
      bregion_d[32'(alloc_first)*WarpW +: WarpW] = region_pick;
      bphys_d[32'(alloc_first)*32 +: 32] = 32'(region_pick) * rsize;
      if (rsize != 0) bregion_used_d[region_pick] = 1'b1;
    end
    if (disp_busy_q) begin
      tid_d[(32'(disp_warp)*Lanes + 32'(disp_lane_q))*TidW +: TidW] = {disp_x_q, disp_y_q, disp_z_q};
      exited_d[32'(disp_warp)*Lanes + 32'(disp_lane_q)] = (32'(disp_t_q) >= threads);
      if (disp_lane_last) begin
        active_d[disp_warp] = 1'b1;
        wblk_d[32'(disp_warp)*WarpW +: WarpW] = disp_slot_q;
        widx_d[32'(disp_warp)*WarpW +: WarpW] = disp_k_q;
        for (int unsigned l = 0; l < Lanes; l++) lpc_d[(32'(disp_warp)*Lanes + l)*32 +: 32] = launch_i.entry_pc[31:0];
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
        fair_d[32'(disp_warp)*FairW +: FairW] = '0;
        rr_d[32'(disp_warp)*32 +: 32] = '0;
        instret_d[32'(disp_warp)*Lanes*64 +: Lanes*64] = '0;
        fflags_d[32'(disp_warp)*Lanes*5 +: Lanes*5] = '0;
        frm_d[32'(disp_warp)*Lanes*3 +: Lanes*3] = '0;
        sched_launch[disp_warp] = 1'b1;
      end
    end

    // ---- fetch --------------------------------------------------------------
    unique case (fst_q)
      FetchIdle: begin
        if (fetch_any) begin
          fwarp_d = fetch_pick;
          fline_d = fetch_line;
          fst_d = fetch_hit ? FetchFill : FetchReq;
        end
      end
      FetchFill: begin
        lb_valid_d[fwarp_q] = 1'b1;
        lb_fault_d[fwarp_q] = 1'b0;
        lb_tag_d[32'(fwarp_q)*TagW +: TagW] = fline_q;
        lb_data_d[32'(fwarp_q)*LineBits +: LineBits] = ic_rdata_q;
        fst_d = FetchIdle;
      end
      FetchReq: if (fetch_mem_ready) fst_d = FetchWait;
      default: begin  // FetchWait
        if (fetch_rsp_valid) begin
          lb_valid_d[fwarp_q] = 1'b1;
          lb_tag_d[32'(fwarp_q)*TagW +: TagW] = fline_q;
          lb_data_d[32'(fwarp_q)*LineBits +: LineBits] = mem_rsp_i.rdata;
          lb_fault_d[fwarp_q] = (mem_rsp_i.fault != kestrel_pkg::FaultNone);
          if (mem_rsp_i.fault == kestrel_pkg::FaultNone) begin
            ic_write = 1'b1;
            ic_valid_d[fline_q[IcIdxW-1:0]] = 1'b1;
            ic_tag_d[32'(fline_q[IcIdxW-1:0])*TagW +: TagW] = fline_q;
          end
          fst_d = FetchIdle;
        end
      end
    endcase

    // ---- group selection ----------------------------------------------------
    if (sel_any) begin
      resel_d[sel_w] = 1'b0;
      grp_valid_d[sel_w] = gs_valid;
      grp_pc_d[32'(sel_w)*32 +: 32] = gs_pc;
      grp_mask_d[32'(sel_w)*Lanes +: Lanes] = gs_mask;
      grp_fair_d[32'(sel_w)*FairW +: FairW] = gs_fair;
      grp_rr_d[32'(sel_w)*32 +: 32] = gs_rr;
    end

    // ---- issue --------------------------------------------------------------
    if (issue) begin
      fair_d[32'(iw)*FairW +: FairW] = grp_fair_q[32'(iw)*FairW +: FairW];
      rr_d[32'(iw)*32 +: 32] = grp_rr_q[32'(iw)*32 +: 32];
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
        end else begin
          grp_valid_d[iw] = 1'b0;
          resel_d[iw] = 1'b1;
        end
      end
      if (is_mem(idec.cls) || idec.cls == kestrel_pkg::ClassDiv) long_d[iw] = 1'b1;
      if (is_mem(idec.cls)) lsu_inflight_d = 1'b1;
      if (idec.cls == kestrel_pkg::ClassDiv) div_inflight_d = 1'b1;
      if (ifpx && ifp[FpDecUnit +: 2] != kestrel_fpu_pkg::FpUnitLane) long_d[iw] = 1'b1;
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
          if (!any_left) begin
            // Warp slots stay allocated until the whole block completes.
            blk_done = 1'b1;
            bres_d[slot3] = 1'b0;
            used_d = used_d & ~bwarps_q[32'(slot3)*Warps +: Warps];
            if (bhas_region_q[slot3]) bregion_used_d[bregion_q[32'(slot3)*WarpW +: WarpW]] = 1'b0;
          end
        end
      end else if (s3_dec_q.cls == kestrel_pkg::ClassBarrier) begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          if (s3_mask_q[l]) begin
            lpc_d[(32'(w3)*Lanes + l)*32 +: 32] = s3_pc_q + 32'd4;
            bar_rd_d[(32'(w3)*Lanes + l)*5 +: 5] = s3_dec_q.rd;
            unique case (s3_dec_q.funct7)
              kestrel_pkg::SimtBarCount: bar_kind_d[(32'(w3)*Lanes + l)*2 +: 2] = BarKindCount;
              kestrel_pkg::SimtBarAnd: bar_kind_d[(32'(w3)*Lanes + l)*2 +: 2] = BarKindAnd;
              kestrel_pkg::SimtBarOr: bar_kind_d[(32'(w3)*Lanes + l)*2 +: 2] = BarKindOr;
              default: bar_kind_d[(32'(w3)*Lanes + l)*2 +: 2] = BarKindSync;
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
      lsu_inflight_d = 1'b0;
      if (lsu_inflight_q) begin
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
          if (waiting_d[w*Lanes + l] && bar_kind_d[(w*Lanes + l)*2 +: 2] != BarKindSync
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

    // ---- line buffers of warps that start ----------------------------------------
    if (disp_busy_q && disp_lane_last) lb_valid_d[disp_warp] = 1'b0;
  end

  assign blk_done_o = blk_done;

  // ===========================================================================
  // Flops
  // ===========================================================================
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      used_q <= '0;
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
      lb_valid_q <= '0;
      lb_fault_q <= '0;
      bregion_used_q <= '0;
      bhas_region_q <= '0;
      bres_q <= '0;
      bwarps_q <= '0;
      fault_valid_q <= 1'b0;
      fault_q <= '0;
      stop_q <= 1'b0;
      cycle_q <= '0;
      lsu_inflight_q <= 1'b0;
      div_inflight_q <= 1'b0;
      div_pending_q <= 1'b0;
      fst_q <= FetchIdle;
      ic_valid_q <= '0;
      s1_valid_q <= 1'b0;
      s2_valid_q <= 1'b0;
      s3_valid_q <= 1'b0;
      disp_busy_q <= 1'b0;
      disp_left_q <= '0;
      mem_lock_q <= 1'b0;
      mem_owner_fetch_q <= 1'b0;
    end else if (flush) begin
      // start: a new launch; abort: drop every resident block.  Units with a
      // memory request in flight (fetch, LSU) finish it; their results are dropped.
      used_q <= '0;
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
      lb_valid_q <= '0;
      bregion_used_q <= '0;
      bres_q <= '0;
      s1_valid_q <= 1'b0;
      s2_valid_q <= 1'b0;
      s3_valid_q <= 1'b0;
      disp_busy_q <= 1'b0;
      disp_left_q <= '0;
      lsu_inflight_q <= 1'b0;
      div_inflight_q <= 1'b0;
      div_pending_q <= 1'b0;
      if (start_i) begin
        fault_valid_q <= 1'b0;
        fault_q <= '0;
        stop_q <= 1'b0;
        cycle_q <= '0;
        ic_valid_q <= '0;
      end else begin
        stop_q <= 1'b1;
        cycle_q <= cycle_q + 64'd1;
      end
      fst_q <= fst_d;
      mem_lock_q <= mem_req_valid_o && !mem_req_ready_i;
      mem_owner_fetch_q <= owner_fetch;
    end else begin
      used_q <= used_d;
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
      lb_valid_q <= lb_valid_d;
      lb_fault_q <= lb_fault_d;
      bregion_used_q <= bregion_used_d;
      bhas_region_q <= bhas_region_d;
      bres_q <= bres_d;
      bwarps_q <= bwarps_d;
      fault_valid_q <= fault_valid_d;
      fault_q <= fault_d;
      stop_q <= stop_d;
      cycle_q <= cycle_q + 64'd1;
      lsu_inflight_q <= lsu_inflight_d;
      div_inflight_q <= div_inflight_d;
      div_pending_q <= div_pending_d;
      fst_q <= fst_d;
      ic_valid_q <= ic_valid_d;
      s1_valid_q <= issue;
      // LSU and divider instructions leave the pipe in stage 1.
      s2_valid_q <= s1_valid_q && !s1_unit;
      s3_valid_q <= s2_valid_q;
      mem_lock_q <= mem_req_valid_o && !mem_req_ready_i;
      mem_owner_fetch_q <= owner_fetch;
      if (blk_take) begin
        disp_busy_q <= 1'b1;
        disp_left_q <= alloc_mask;
      end else if (disp_busy_q && disp_lane_last) begin
        disp_left_q[disp_warp] <= 1'b0;
        if ((disp_left_q & ~(Warps'(1) << disp_warp)) == '0) disp_busy_q <= 1'b0;
      end
    end
  end

  // Datapath and bookkeeping registers whose reset value never matters: each
  // is written before it is read (documented per group).
  always_ff @(posedge clk_i) begin
    lpc_q <= lpc_d;
    bar_rd_q <= bar_rd_d;
    bar_kind_q <= bar_kind_d;
    smask_q <= smask_d;  // read only for lanes in swait_q
    grp_pc_q <= grp_pc_d;
    grp_mask_q <= grp_mask_d;
    grp_fair_q <= grp_fair_d;
    grp_rr_q <= grp_rr_d;
    instret_q <= instret_d;
    tid_q <= tid_d;
    lb_tag_q <= lb_tag_d;
    lb_data_q <= lb_data_d;
    bidx_q <= bidx_d;
    bphys_q <= bphys_d;
    bregion_q <= bregion_d;
    ic_tag_q <= ic_tag_d;
    fwarp_q <= fwarp_d;
    fline_q <= fline_d;
    // pipeline
    s1_warp_q <= iw;
    s1_pc_q <= ipc;
    s1_mask_q <= imask;
    s1_dec_q <= idec;
    s1_word_q <= wword[iw];
    s1_ffault_q <= iffault;
    s1_instret_q <= instret_q[32'(iw)*Lanes*64 +: Lanes*64];
    s1_fpx_q <= ifpx;
    s1_fp_q <= ifp;
    s2_warp_q <= s1_warp_q;
    s2_pc_q <= s1_pc_q;
    s2_mask_q <= (s1_coll && !s1_wsfault) ? s1_ready : s1_mask_q;
    s2_dec_q <= s1_dec_q;
    s2_word_q <= s1_word_q;
    s2_ffault_q <= s1_ffault_q;
    s2_result_q <= s1_result;
    s2_nonzero_q <= s1_nonzero;
    s2_barfault_q <= s1_barfault || (s1_fpx_q && s1_rmfault) || s1_wsfault;
    s2_flane_q <= s1_barfault ? s1_barfault_lane : (s1_fpx_q && s1_rmfault) ? s1_rmfault_lane
                : s1_wsfault ? s1_wsfault_lane : s1_low;
    s2_code_q <= 64'(rf_rs1_data[32'(s1_low)*Xlen +: Xlen]);
    s2_line_q <= 64'(rf_rs2_data[32'(s1_low)*Xlen +: Xlen]);
    s3_warp_q <= s2_warp_q;
    s3_pc_q <= s2_pc_q;
    s3_mask_q <= s2_mask_q;
    s3_dec_q <= s2_dec_q;
    s3_word_q <= s2_word_q;
    s3_ffault_q <= s2_ffault_q;
    s3_result_q <= s2_result_q;
    s3_nonzero_q <= s2_nonzero_q;
    s3_barfault_q <= s2_barfault_q;
    s3_flane_q <= s2_flane_q;
    s3_code_q <= s2_code_q;
    s3_line_q <= s2_line_q;
    // a1 of a trap was read in stage 1 and arrives with stage 2.
    s3_a1_q <= 64'(rf_rs1_data[32'(s2_flane_q)*Xlen +: Xlen]);
    if (lsu_req_valid && lsu_req_ready) begin
      lsu_pc_q <= s1_pc_q;
      lsu_fp_q <= s1_fp_q[FpDecLoad];
    end
    fflags_q <= fflags_d;
    frm_q <= frm_d;
    // Records of the divsqrt and SFU instructions handed over (read at
    // write-back only while ds_sent_q / sfu_sent_q say they are valid).
    if (fpx_req_valid && fpx_req_ready && s1_fp_unit == kestrel_fpu_pkg::FpUnitDivSqrt) ds_meta_q <= s1_fp_meta;
    if (fpx_req_valid && fpx_req_ready && s1_fp_unit == kestrel_fpu_pkg::FpUnitSfu) sfu_meta_q <= s1_fp_meta;
    if (div_start) begin
      div_warp_q <= s1_warp_q;
      div_pc_q <= s1_pc_q;
      div_mask_q <= s1_mask_q;
      div_rd_q <= s1_dec_q.rd;
    end
  end

  // F instructions in flight.  Those handed to kestrel_fp_exec before a
  // flush still come back and are drained without retiring (fpl_drop_q counts
  // the lane ops, ds_drop_q / sfu_drop_q mark the others).  Reservations run
  // on across a flush too: the lane pipeline still delivers.  The per-warp
  // lane-op counts and f scoreboard start again empty (the warps are gone).
  always_comb begin
    logic [FplCntW-1:0] in_fifo;
    in_fifo = fpl_count + FplCntW'(fpl_push) - FplCntW'(grant_fpl);
    ds_sent_d = ds_sent_q;
    sfu_sent_d = sfu_sent_q;
    ds_drop_d = ds_drop_q;
    sfu_drop_d = sfu_drop_q;
    fpl_drop_d = fpl_drop_q;
    lcnt_d = lcnt_q;
    fpend_d = fpend_q;
    if (grant_fpl && fpl_drop_q != '0) fpl_drop_d = fpl_drop_q - 1'b1;
    if (grant_fpl && fpl_live) begin
      lcnt_d[32'(fpl_warp)*FplCntW +: FplCntW] = lcnt_d[32'(fpl_warp)*FplCntW +: FplCntW] - 1'b1;
      if (fpl_rd_fp) fpend_d[32'(fpl_warp)*32 + 32'(fpl_rd)] = 1'b0;
    end
    if (grant_fp) begin
      if (fpx_rsp_tag) begin
        sfu_sent_d = 1'b0;
        sfu_drop_d = 1'b0;
      end else begin
        ds_sent_d = 1'b0;
        ds_drop_d = 1'b0;
      end
    end
    if (fpx_req_valid && fpx_req_ready) begin
      if (s1_fp_unit == kestrel_fpu_pkg::FpUnitDivSqrt) ds_sent_d = 1'b1;
      if (s1_fp_unit == kestrel_fpu_pkg::FpUnitSfu) sfu_sent_d = 1'b1;
    end
    // A lane op faulting in stage 1 (rm) never reaches the pipeline.
    if (s1_valid_q && s1_fpx_q && s1_rmfault && s1_fp_unit == kestrel_fpu_pkg::FpUnitLane) begin
      lcnt_d[32'(s1_warp_q)*FplCntW +: FplCntW] = lcnt_d[32'(s1_warp_q)*FplCntW +: FplCntW] - 1'b1;
    end
    if (issue && ifpx && ifp[FpDecUnit +: 2] == kestrel_fpu_pkg::FpUnitLane) begin
      lcnt_d[32'(iw)*FplCntW +: FplCntW] = lcnt_d[32'(iw)*FplCntW +: FplCntW] + 1'b1;
      if (ifp[FpDecRdWe]) fpend_d[32'(iw)*32 + 32'(ifp[FpDecRd +: 5])] = 1'b1;
    end
    if (flush) begin
      fpl_drop_d = in_fifo;
      ds_drop_d = ds_sent_d;
      sfu_drop_d = sfu_sent_d;
      lcnt_d = '0;
      fpend_d = '0;
    end
    resv_d = {1'b0, resv_q[FpuStages:1]};
    if (issue && ifpx && ifp[FpDecUnit +: 2] == kestrel_fpu_pkg::FpUnitLane) resv_d[FpuStages] = 1'b1;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ds_sent_q <= 1'b0;
      sfu_sent_q <= 1'b0;
      ds_drop_q <= 1'b0;
      sfu_drop_q <= 1'b0;
      fpl_drop_q <= '0;
      lcnt_q <= '0;
      fpend_q <= '0;
      resv_q <= '0;
    end else begin
      ds_sent_q <= ds_sent_d;
      sfu_sent_q <= sfu_sent_d;
      ds_drop_q <= ds_drop_d;
      sfu_drop_q <= sfu_drop_d;
      fpl_drop_q <= fpl_drop_d;
      lcnt_q <= lcnt_d;
      fpend_q <= fpend_d;
      resv_q <= resv_d;
    end
  end

  // The dispatch walker: thread indices x fastest, then y, then z.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      disp_slot_q <= '0;
      disp_k_q <= '0;
      disp_lane_q <= '0;
      disp_x_q <= '0;
      disp_y_q <= '0;
      disp_z_q <= '0;
      disp_t_q <= '0;
    end else if (blk_take) begin
      disp_slot_q <= alloc_first;
      disp_k_q <= '0;
      disp_lane_q <= '0;
      disp_x_q <= '0;
      disp_y_q <= '0;
      disp_z_q <= '0;
      disp_t_q <= '0;
    end else if (disp_busy_q) begin
      disp_lane_q <= disp_lane_last ? '0 : disp_lane_q + 1'b1;
      if (disp_lane_last) disp_k_q <= disp_k_q + 1'b1;
      disp_t_q <= disp_t_q + 1'b1;
      if (disp_x_q + 10'd1 == launch_i.block.x) begin
        disp_x_q <= '0;
        if (disp_y_q + 10'd1 == launch_i.block.y) begin
          disp_y_q <= '0;
          disp_z_q <= disp_z_q + 10'd1;
        end else begin
          disp_y_q <= disp_y_q + 10'd1;
        end
      end else begin
        disp_x_q <= disp_x_q + 10'd1;
      end
    end
  end

  // ===========================================================================
  // Outputs
  // ===========================================================================
  assign fault_valid_o = fault_valid_q;
  assign fault_o = fault_q;
  assign busy_o = (used_q != '0) || disp_busy_q || lsu_inflight_q || !lsu_req_ready || fst_q != FetchIdle
                  || s1_valid_q || s2_valid_q || s3_valid_q || div_inflight_q || fpl_count != '0 || ds_sent_q || sfu_sent_q;

  always_comb begin
    events_o = '0;
    events_o.issued = issue;
    for (int unsigned l = 0; l < Lanes; l++) events_o.threads = events_o.threads + 7'(imask[l] && issue);
    // An atomic counts as a load and a store, as in the model.
    // An atomic counts as a load and a store; LR only as a load, SC as a store.
    events_o.load = issue && (idec.cls == kestrel_pkg::ClassLoad
                              || (idec.cls == kestrel_pkg::ClassAtomic && idec.funct7[6:2] != kestrel_pkg::AmoSc));
    events_o.store = issue && (idec.cls == kestrel_pkg::ClassStore
                               || (idec.cls == kestrel_pkg::ClassAtomic && idec.funct7[6:2] != kestrel_pkg::AmoLr));
    events_o.barrier_release = |(bar_release & used_q);
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

`ifndef SYNTHESIS
  // One retire per cycle by construction; a memory request stays stable until taken.
  logic mem_hold_q;
  kestrel_pkg::mem_req_t mem_req_prev_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) mem_hold_q <= 1'b0;
    else mem_hold_q <= mem_req_valid_o && !mem_req_ready_i;
  end
  always_ff @(posedge clk_i) mem_req_prev_q <= mem_req_o;
  always_comb begin
    if (mem_hold_q) begin
      assert (mem_req_valid_o && mem_req_o == mem_req_prev_q) else $error("kestrel_sm: memory request changed before it was taken");
    end
    // Issue kept the F units free and the lane pipeline's slots reserved.
    if (rst_ni) begin
      assert (!fpx_req_valid || fpx_req_ready) else $error("kestrel_sm: F unit busy when stage 1 hands over");
      assert (!fpl_push || fpl_meta_room) else $error("kestrel_sm: lane-op record FIFO full");
      assert (!fpl_rsp_valid || (resv_q[0] && grant_fpl && fpl_meta_valid))
      else $error("kestrel_sm: lane-pipeline result without its slot or record");
    end
  end
`endif
endmodule
