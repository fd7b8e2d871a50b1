// kestrel_sm_frontend: the SM's front end.  Per-warp line buffers, the
// I-cache and the memory port shared with the LSU (kestrel_sm_fetch); decode,
// scoreboards, hazards and the warp scheduler (kestrel_sm_issue); the x and f
// register files, read at issue and written by the retire slot
// (docs/microarchitecture.md, "SM units").  Composition only.
module kestrel_sm_frontend #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned SchedPolicy = 32'(kestrel_pkg::SchedLooseRoundRobin),  // kestrel_pkg::sched_policy_e
  parameter int unsigned ICacheLines = 16,
  parameter int unsigned FpuStages = 3,
  parameter int unsigned TexUnit = 1,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned RowW = Lanes * Xlen
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // from the back end (kestrel_sm_backend)
  input  logic                   ds_busy_i,
  input  logic [Warps*32-1:0]    fpend_i,
  input  logic                   frf_we_i,
  input  logic                   hold_issue_i,
  input  logic [Warps-1:0]       lane_busy_i,
  input  kestrel_pkg::mem_req_t  lsu_mem_req_i,
  input  logic                   lsu_mem_req_valid_i,
  input  logic                   lsu_mem_rsp_ready_i,
  input  logic                   tex_busy_i,      // the texture unit takes no instruction next cycle
  input  kestrel_pkg::mem_req_t  tex_mem_req_i,
  input  logic                   tex_mem_req_valid_i,
  input  logic                   tex_mem_rsp_ready_i,
  input  logic                   resv3_i,
  input  logic [Lanes-1:0]       retire_mask_i,
  input  logic [Lanes*Xlen-1:0]  retire_rd_data_i,
  input  logic [4:0]             retire_rd_i,
  input  logic [WarpW-1:0]       retire_warp_i,
  input  logic                   rf_we_i,
  input  kestrel_pkg::sm_issue_t s1_pkt_i,
  input  logic                   s1_valid_i,
  input  logic [WarpW-1:0]       s1_warp_i,
  input  logic                   sb_clear_i,
  input  logic                   fsb_clear_i,     // an LSU write-back of an f register
  input  logic                   sfu_busy_i,
  // from warp management (kestrel_sm_warps)
  input  logic [Warps-1:0]       active_i,
  input  logic [Warps-1:0]       bar_release_i,
  input  logic [Warps-1:0]       ctrl_i,
  input  logic [Warps-1:0]       backoff_i,      // warps waiting out a spin back-off
  input  logic [WarpW-1:0]       disp_warp_i,
  input  logic                   disp_warp_done_i,
  input  logic                   div_inflight_i,
  input  logic [Warps*Lanes-1:0] drain_i,
  input  logic                   fault_valid_i,
  input  logic [Warps*Lanes-1:0] grp_mask_i,
  input  logic [Warps*Lanes*3-1:0] frm_i,        // each thread's frm
  input  logic [Warps*32-1:0]    grp_pc_i,
  input  logic [Warps-1:0]       grp_valid_i,
  input  logic [Warps-1:0]       long_i,
  input  logic [Warps-1:0]       mem_busy_i,      // loads/stores of the warp in flight
  input  logic [Warps-1:0]       mem_full_i,
  input  logic                   lsu_busy_i,      // the LSU takes no instruction next cycle
  input  logic                   lsu_pair_busy_i, // ... no register-pair atomic
  input  logic [Warps-1:0]       sched_launch_i,
  input  logic                   stop_i,
  input  logic [Warps*WarpW-1:0] wblk_i,
  // from the SM's ports
  input  kestrel_pkg::launch_t   launch_i,
  input  logic                   mem_req_ready_i,
  input  kestrel_pkg::mem_rsp_t  mem_rsp_i,
  input  logic                   mem_rsp_valid_i,
  input  logic                   start_i,
  // from kestrel_sm
  input  logic                   flush_i,
  input  logic [Xlen-1:0]        init_sp_i,
  // to the back end (kestrel_sm_backend)
  output logic [Lanes*32-1:0]    frf_rs1_data_o,
  output logic [Lanes*32-1:0]    frf_rs2_data_o,
  output logic [Lanes*32-1:0]    frf_rs3_data_o,
  output logic                   lsu_mem_req_ready_o,
  output logic                   lsu_mem_rsp_valid_o,
  output logic                   tex_mem_req_ready_o,
  output logic                   tex_mem_rsp_valid_o,
  output logic [RowW-1:0]        rf_rs2_data_o,
  output logic [RowW-1:0]        rf_rs3_data_o,
  output logic                   s1_pair_o,
  // to kestrel_sm_events
  output logic                   fetch_busy_o,
  output logic [Warps-1:0]       fetch_want_o,
  output logic [Warps-1:0]       sb_hazard_o,
  // to several units
  output logic [Lanes-1:0]       imask_o,
  output kestrel_pkg::sm_issue_t ipkt_o,
  output logic                   issue_o,
  output logic [WarpW-1:0]       iw_o,
  output logic                   mem_req_valid_o,
  output logic [RowW-1:0]        rf_rs1_data_o,
  // to the SM's ports
  output kestrel_pkg::mem_req_t  mem_req_o,
  output logic                   mem_rsp_ready_o
);
  // Wires between the units.
  logic rf_ren;
  logic [WarpW-1:0] rf_rwarp;
  logic [4:0] rf_rs1, rf_rs2, rf_rs3;
  logic [WarpW-1:0] rf_wwarp;
  logic [4:0] rf_rd;
  logic [Lanes-1:0] rf_wmask;
  logic [RowW-1:0] rf_wdata;
  logic [Warps-1:0] lb_hit, fetch_fault_w;
  logic [Warps*32-1:0] wword;
  logic [WarpW-1:0] sb_clear_warp;
  logic [4:0] sb_clear_rd;
  logic [Lanes*32-1:0] frf_wdata;

  kestrel_regfile #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps)) u_regfile (
    .clk_i, .rst_ni,
    .init_ra_i    (launch_i.exit_pc[Xlen-1:0]),
    .init_sp_i    (init_sp_i),
    .init_gp_i    (launch_i.gp[Xlen-1:0]),
    .init_a0_i    (launch_i.param[Xlen-1:0]),
    .launch_i     (disp_warp_done_i),
    .launch_warp_i(disp_warp_i),
    .ren_i        (rf_ren),
    .rwarp_i      (rf_rwarp),
    .rs1_i        (rf_rs1),
    .rs2_i        (rf_rs2),
    .rs3_i        (rf_rs3),
    .rs1_data_o   (rf_rs1_data_o),
    .rs2_data_o   (rf_rs2_data_o),
    .rs3_data_o   (rf_rs3_data_o),
    .we_i         (rf_we_i),
    .wwarp_i      (rf_wwarp),
    .rd_i         (rf_rd),
    .wmask_i      (rf_wmask),
    .wdata_i      (rf_wdata)
  );
  kestrel_sm_issue #(
    .Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .SchedPolicy(SchedPolicy), .FpuStages(FpuStages), .TexUnit(TexUnit)
  ) u_issue (
    .clk_i, .rst_ni,
    .flush_i        (flush_i),
    .word_i         (wword),
    .hit_i          (lb_hit),
    .ffault_i       (fetch_fault_w),
    .pc_i           (grp_pc_i),
    .mask_i         (grp_mask_i),
    .frm_i          (frm_i),
    .active_i       (active_i),
    .grp_valid_i    (grp_valid_i),
    .ctrl_i         (ctrl_i),
    .backoff_i      (backoff_i),
    .long_i         (long_i),
    .mem_busy_i     (mem_busy_i),
    .mem_full_i     (mem_full_i),
    .drain_i        (drain_i),
    .wblk_i         (wblk_i),
    .release_i      (bar_release_i),
    .launch_i       (sched_launch_i),
    .lsu_busy_i     (lsu_busy_i),
    .lsu_pair_busy_i(lsu_pair_busy_i),
    .tex_busy_i     (tex_busy_i),
    .div_busy_i     (div_inflight_i),
    .ds_busy_i      (ds_busy_i),
    .sfu_busy_i     (sfu_busy_i),
    .lane_busy_i    (lane_busy_i),
    .fpend_i        (fpend_i),
    .resv3_i        (resv3_i),
    .stop_i         (stop_i || fault_valid_i),
    .hold_i         (hold_issue_i),
    .s1_valid_i     (s1_valid_i),
    .s1_warp_i      (s1_warp_i),
    .s1_dec_i       (s1_pkt_i.dec),
    .s1_ffault_i    (s1_pkt_i.ffault),
    .issue_o        (issue_o),
    .issue_warp_o   (iw_o),
    .issue_mask_o   (imask_o),
    .issue_pkt_o    (ipkt_o),
    .s1_pair_o      (s1_pair_o),
    .sb_hazard_o    (sb_hazard_o),
    .rf_ren_o       (rf_ren),
    .rf_rwarp_o     (rf_rwarp),
    .rf_rs1_o       (rf_rs1),
    .rf_rs2_o       (rf_rs2),
    .rf_rs3_o       (rf_rs3),
    .sb_clear_i     (sb_clear_i),
    .sb_clear_warp_i(sb_clear_warp),
    .sb_clear_rd_i  (sb_clear_rd),
    .fsb_clear_i     (fsb_clear_i),
    .fsb_clear_warp_i(sb_clear_warp),
    .fsb_clear_rd_i  (sb_clear_rd)
  );
  kestrel_fp_regfile #(.Lanes(Lanes), .Warps(Warps)) u_fp_regfile (
    .clk_i, .rst_ni,
    .launch_i     (disp_warp_done_i),
    .launch_warp_i(disp_warp_i),
    .ren_i        (issue_o),
    .rwarp_i      (iw_o),
    .rs1_i        (ipkt_o.fp.rs1),
    .rs2_i        (ipkt_o.fp.rs2),
    .rs3_i        (ipkt_o.fp.rs3),
    .rs1_data_o   (frf_rs1_data_o),
    .rs2_data_o   (frf_rs2_data_o),
    .rs3_data_o   (frf_rs3_data_o),
    .we_i         (frf_we_i),
    .wwarp_i      (retire_warp_i),
    .rd_i         (retire_rd_i),
    .wmask_i      (retire_mask_i),
    .wdata_i      (frf_wdata)
  );
  kestrel_sm_fetch #(.Warps(Warps), .ICacheLines(ICacheLines)) u_fetch (
    .clk_i, .rst_ni,
    .start_i,
    .flush_i        (flush_i),
    .want_i         (active_i & grp_valid_i),
    .pc_i           (grp_pc_i),
    .inval_i        (disp_warp_done_i),
    .inval_warp_i   (disp_warp_i),
    .hit_o          (lb_hit),
    .fault_o        (fetch_fault_w),
    .word_o         (wword),
    .fetch_want_o   (fetch_want_o),
    .busy_o         (fetch_busy_o),
    .lsu_req_valid_i(lsu_mem_req_valid_i),
    .lsu_req_ready_o(lsu_mem_req_ready_o),
    .lsu_req_i      (lsu_mem_req_i),
    .lsu_rsp_valid_o(lsu_mem_rsp_valid_o),
    .lsu_rsp_ready_i(lsu_mem_rsp_ready_i),
    .tex_req_valid_i(tex_mem_req_valid_i),
    .tex_req_ready_o(tex_mem_req_ready_o),
    .tex_req_i      (tex_mem_req_i),
    .tex_rsp_valid_o(tex_mem_rsp_valid_o),
    .tex_rsp_ready_i(tex_mem_rsp_ready_i),
    .mem_req_valid_o,
    .mem_req_ready_i,
    .mem_req_o,
    .mem_rsp_valid_i,
    .mem_rsp_ready_o,
    .mem_rsp_i
  );
  assign rf_wwarp = retire_warp_i;
  assign rf_rd = retire_rd_i;
  assign rf_wmask = retire_mask_i;
  assign rf_wdata = retire_rd_data_i;
  assign sb_clear_warp = retire_warp_i;
  assign sb_clear_rd = retire_rd_i;
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) frf_wdata[l*32 +: 32] = retire_rd_data_i[l*Xlen +: 32];
  end
  logic unused_fields;
  assign unused_fields = ^{launch_i, s1_pkt_i};
endmodule
