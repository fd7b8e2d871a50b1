// kestrel_sm_backend: the SM's back end.  The stage 1..3 registers
// (kestrel_sm_pipe), stage 1's execute (kestrel_sm_exec: ALU, branches, CSRs,
// collectives, multiplier and divider lanes), the F units (kestrel_fp_exec)
// and their records (kestrel_sm_fp_track), the LSU, the texture unit
// (kestrel_sm_tex) and the single retire slot
// (kestrel_sm_retire) (docs/microarchitecture.md, "SM units").  Composition
// only.
module kestrel_sm_backend #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned SharedBytes = 64 * 1024,
  parameter int unsigned SfuLanes = (Lanes < 4) ? Lanes : 4,
  parameter int unsigned FpuStages = 3,
  parameter int unsigned ClockKhz = 100_000,
  parameter int unsigned TexUnit = 1,          // 1: kx.tex runs in a texture unit; 0: none
  parameter int unsigned LsuSlots = 8,         // memory instructions in the LSU
  parameter int unsigned LsuLines = 16,        // line requests in flight (a power of two)
  parameter int unsigned TexSets = 16,         // the texture unit's texel cache sets
  parameter int unsigned TexWays = 4,          // ... ways
  parameter int unsigned TexDescEntries = 4,   // ... and descriptor cache lines
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned RowW = Lanes * Xlen,
  localparam int unsigned CountW = 11,
  localparam int unsigned TidW = 30,
  localparam int unsigned SleepW = 48,
  localparam int unsigned FpMetaW = WarpW + 32 + Lanes + 7
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  // from the front end (kestrel_sm_frontend)
  input  logic [Lanes*32-1:0]        frf_rs1_data_i,
  input  logic [Lanes*32-1:0]        frf_rs2_data_i,
  input  logic [Lanes*32-1:0]        frf_rs3_data_i,
  input  logic [Lanes-1:0]           imask_i,
  input  kestrel_pkg::sm_issue_t     ipkt_i,
  input  logic                       issue_i,
  input  logic [WarpW-1:0]           iw_i,
  input  logic                       lsu_mem_req_ready_i,
  input  logic                       lsu_mem_rsp_valid_i,
  input  logic                       tex_mem_req_ready_i,
  input  logic                       tex_mem_rsp_valid_i,
  input  logic [RowW-1:0]            rf_rs1_data_i,
  input  logic [RowW-1:0]            rf_rs2_data_i,
  input  logic [RowW-1:0]            rf_rs3_data_i,
  input  logic                       s1_pair_i,
  // from warp management (kestrel_sm_warps)
  input  logic [Warps-1:0]           active_i,
  input  logic [Warps*Lanes*2-1:0]   bar_kind_i,
  input  logic [Warps*Lanes*5-1:0]   bar_rd_i,
  input  logic [Warps*CountW-1:0]    bar_res_arrived_i,
  input  logic [Warps*CountW-1:0]    bar_res_nonzero_i,
  input  logic [Warps-1:0]           blk_slots_i,
  input  logic [63:0]                cycle_i,
  input  logic [Warps*64-1:0]        disp_bidx_i,
  input  logic [Warps*32-1:0]        disp_bphys_i,
  input  logic                       disp_take_i,
  input  logic                       div_inflight_i,
  input  logic                       div_pending_i,
  input  logic [Warps*Lanes-1:0]     drain_i,
  input  logic [Warps*Lanes-1:0]     exited_i,
  input  logic [Warps*Lanes*5-1:0]   fflags_i,
  input  logic [Warps*Lanes*3-1:0]   frm_i,
  input  logic [Warps*Lanes-1:0]     held_i,
  input  logic [Lanes*64-1:0]        issue_instret_i,
  input  logic [Warps*Lanes*32-1:0]  lpc_i,
  input  logic                       lsu_inflight_i,
  input  logic [Warps*Lanes-1:0]     swait_i,
  input  logic [Warps*Lanes*TidW-1:0] tid_i,
  input  logic [Warps*WarpW-1:0]     wblk_i,
  input  logic [Warps*WarpW-1:0]     widx_i,
  // from the SM's ports
  input  kestrel_pkg::launch_t       launch_i,
  input  kestrel_pkg::mem_rsp_t      mem_rsp_i,
  input  logic [7:0]                 sm_id_i,
  input  logic                       start_i,
  // from kestrel_sm
  input  logic                       flush_i,
  // to kestrel_sm_events
  output logic [6:0]                 lsu_ev_atomics_o,
  output logic                       lsu_ev_shared_access_o,
  output logic [6:0]                 lsu_ev_shared_passes_o,
  output logic                       lsu_idle_o,        // no memory instruction in the LSU
  output logic                       lsu_busy_o,        // issue no memory instruction this cycle
  output logic                       lsu_pair_busy_o,   // issue no register-pair atomic this cycle
  // to the front end (kestrel_sm_frontend)
  output logic                       ds_busy_o,
  output logic [Warps*32-1:0]        fpend_o,
  output logic                       frf_we_o,
  output logic                       hold_issue_o,
  output logic [Warps-1:0]           lane_busy_o,
  output kestrel_pkg::mem_req_t      lsu_mem_req_o,
  output logic                       lsu_mem_req_valid_o,
  output logic                       lsu_mem_rsp_ready_o,
  output logic                       tex_busy_o,        // issue no kx.tex this cycle
  output kestrel_pkg::mem_req_t      tex_mem_req_o,
  output logic                       tex_mem_req_valid_o,
  output logic                       tex_mem_rsp_ready_o,
  // to kestrel_sm: the texture unit's cache events
  output logic                       ev_tex_hit_o,
  output logic                       ev_tex_miss_o,
  output logic                       ev_desc_miss_o,
  output logic                       resv3_o,
  output logic                       rf_we_o,
  output logic                       sb_clear_o,
  output logic                       fsb_clear_o,       // the LSU wrote an f register (flw)
  output logic                       sfu_busy_o,
  // to warp management (kestrel_sm_warps)
  output logic                       bar_issue_o,
  output logic [WarpW-1:0]           bar_issue_slot_o,
  output logic                       div_done_o,
  output logic [WarpW-1:0]           div_warp_o,
  output logic                       drain_any_o,
  output logic [Lanes-1:0]           drain_mask_o,
  output logic [WarpW-1:0]           drain_w_o,
  output logic [Lanes*5-1:0]         fpl_flags_o,
  output logic                       fpl_live_o,
  output logic [Lanes-1:0]           fpl_mask_o,
  output logic [WarpW-1:0]           fpl_warp_o,
  output logic [Lanes*5-1:0]         fpx_flags_o,
  output logic                       fpx_live_o,
  output logic [Lanes-1:0]           fpx_mask_o,
  output logic [WarpW-1:0]           fpx_warp_o,
  output logic                       grant_div_o,
  output logic                       grant_drain_o,
  output logic                       grant_fp_o,
  output logic                       grant_fpl_o,
  output logic                       grant_lsu_o,
  output logic [31:0]                lsu_pc_o,
  output kestrel_pkg::fault_kind_e   lsu_rsp_fault_o,
  output logic [Xlen-1:0]            lsu_rsp_fault_addr_o,
  output logic [LaneW-1:0]           lsu_rsp_fault_lane_o,
  output logic                       lsu_rsp_last_o,
  output logic [WarpW-1:0]           lsu_rsp_warp_o,
  output logic                       s1_barfault_o,
  output logic                       s1_coll_o,
  output logic [Lanes-1:0]           s1_mask_o,
  output logic [Lanes-1:0]           s1_ready_o,
  output logic                       s1_rmfault_o,
  output logic                       s1_sleep_o,
  output logic [SleepW-1:0]          s1_sleep_amount_o,
  output logic [Lanes*32-1:0]        s1_target_o,
  output logic [2*Xlen-1:0]          s1_lead_ops_o,
  output logic                       s1_wsfault_o,
  output logic [63:0]                s3_a1_o,
  output logic                       s3_faulting_o,
  output logic [LaneW-1:0]           s3_flane_o,
  output logic [Lanes-1:0]           s3_mask_o,
  output logic [Lanes-1:0]           s3_nonzero_o,
  output kestrel_pkg::sm_wb_t        s3_pkt_o,
  output logic [RowW-1:0]            s3_result_o,
  output logic [WarpW-1:0]           s3_warp_o,
  // to several units
  output logic                       fp_busy_o,
  output logic [Lanes-1:0]           retire_mask_o,
  output logic [Lanes*Xlen-1:0]      retire_rd_data_o,
  output logic [4:0]                 retire_rd_o,
  output logic [WarpW-1:0]           retire_warp_o,
  output kestrel_pkg::sm_issue_t     s1_pkt_o,
  output logic                       s1_valid_o,
  output logic [WarpW-1:0]           s1_warp_o,
  output logic                       s2_valid_o,
  output logic                       s3_valid_o,
  // to the SM's ports
  output logic [63:0]                retire_pc_o,
  output logic                       retire_rd_fp_o,
  output logic                       retire_rd_we_o,
  output logic                       retire_valid_o
);
  // Wires between the units.
  logic [Lanes*64-1:0] s1_instret;
  logic lsu_fp;
  logic [31:0] div_pc;
  logic [Lanes-1:0] div_mask;
  logic [4:0] div_rd;
  logic [FpuStages:0] resv;
  logic [RowW-1:0] s1_alu, s1_result;
  logic [Lanes-1:0] s1_nonzero;
  logic [LaneW-1:0] s1_low;
  logic [LaneW-1:0] s1_barfault_lane;
  logic [LaneW-1:0] s1_wsfault_lane;
  logic [Lanes*3-1:0] s1_rm;
  logic [LaneW-1:0] s1_rmfault_lane;
  logic [RowW-1:0] mul_result, div_result;
  logic div_start;
  kestrel_pkg::mem_size_e s1_mem_size;
  logic [RowW-1:0] lsu_wdata;
  logic [Lanes*32-1:0] lsu_wdata_hi, lsu_cmp_hi;
  logic [31:0] lsu_local_base;
  logic fpx_req_valid, fpx_req_ready, fpx_rsp_valid, fpx_rsp_ready;
  logic fpl_rsp_valid, fpl_rsp_ready;
  logic [RowW-1:0] fpx_result, fpl_result;
  logic fpx_rsp_tag, fpl_rsp_tag;
  logic [1:0] s1_fp_unit;
  logic [4:0] lsu_rsp_rd;
  logic [Lanes-1:0] lsu_rsp_mask;
  logic [RowW-1:0] lsu_rsp_data;
  logic [FpMetaW-1:0] fpl_meta, fpx_meta, s1_fp_meta;
  logic lsu_req_valid, lsu_req_ready, lsu_req_full, lsu_front_free;
  // An instruction issued now reaches the LSU next cycle, which must take it
  // (into its front or its queue); a register pair must go straight to the
  // front, which reads the pair's high words in the cycle after.
  assign lsu_busy_o = lsu_req_full;
  assign lsu_pair_busy_o = !lsu_front_free;
  // The same for kx.tex: one instruction at a time in the texture unit.
  logic tex_req_valid, tex_req_ready, tex_unit_busy;
  assign tex_busy_o = tex_req_valid || tex_unit_busy;
  // The LSU's own response port, before kestrel_sm_tex merges the texture
  // unit's answers into it.
  logic ldst_rsp_valid, ldst_rsp_ready, ldst_rsp_fp, ldst_rsp_load, ldst_rsp_last;
  logic [WarpW-1:0] ldst_rsp_warp;
  logic [31:0] ldst_rsp_pc;
  logic [4:0] ldst_rsp_rd;
  logic [Lanes-1:0] ldst_rsp_mask;
  logic [RowW-1:0] ldst_rsp_data;
  kestrel_pkg::fault_kind_e ldst_rsp_fault;
  logic [LaneW-1:0] ldst_rsp_fault_lane;
  logic [Xlen-1:0] ldst_rsp_fault_addr;
  logic lsu_rsp_load;
  logic lsu_rsp_ready;
  logic lsu_rsp_valid;
  logic unused_sinks;
  logic [3:0] resv_near;                         // bits 0..3 of resv, zero beyond
  logic [Lanes-1:0] div_done;
  assign div_done_o = div_done[0];

  kestrel_sm_exec #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .ClockKhz(ClockKhz)) u_exec (
    .clk_i, .rst_ni, .sm_id_i, .launch_i,
    .cycle_i         (cycle_i),
    .valid_i         (s1_valid_o),
    .warp_i          (s1_warp_o),
    .mask_i          (s1_mask_o),
    .pkt_i           (s1_pkt_o),
    .instret_i       (s1_instret),
    .rs1_i           (rf_rs1_data_i),
    .rs2_i           (rf_rs2_data_i),
    .rs3_i           (rf_rs3_data_i),
    .frs2_i          (frf_rs2_data_i),
    .tid_i           (tid_i[32'(s1_warp_o)*Lanes*TidW +: Lanes*TidW]),
    .bidx_i          (disp_bidx_i[32'(wblk_i[32'(s1_warp_o)*WarpW +: WarpW])*64 +: 64]),
    .widx_i          (widx_i[32'(s1_warp_o)*WarpW +: WarpW]),
    .exited_i        (exited_i[32'(s1_warp_o)*Lanes +: Lanes]),
    .held_i          (held_i[32'(s1_warp_o)*Lanes +: Lanes]),
    .swait_i         (swait_i[32'(s1_warp_o)*Lanes +: Lanes]),
    .lpc_i           (lpc_i[32'(s1_warp_o)*Lanes*32 +: Lanes*32]),
    .fflags_i        (fflags_i[32'(s1_warp_o)*Lanes*5 +: Lanes*5]),
    .frm_i           (frm_i[32'(s1_warp_o)*Lanes*3 +: Lanes*3]),
    .alu_o           (s1_alu),
    .result_o        (s1_result),
    .target_o        (s1_target_o),
    .lead_ops_o      (s1_lead_ops_o),
    .nonzero_o       (s1_nonzero),
    .low_o           (s1_low),
    .barfault_o      (s1_barfault_o),
    .barfault_lane_o (s1_barfault_lane),
    .coll_o          (s1_coll_o),
    .sleep_o         (s1_sleep_o),
    .sleep_amount_o  (s1_sleep_amount_o),
    .ready_o         (s1_ready_o),
    .wsfault_o       (s1_wsfault_o),
    .wsfault_lane_o  (s1_wsfault_lane),
    .rm_o            (s1_rm),
    .rmfault_o       (s1_rmfault_o),
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
  assign s1_fp_unit = s1_pkt_o.fp.unit;
  assign resv_near = 4'(resv);
  assign resv3_o = resv_near[3];
  kestrel_fp_exec #(
    .Xlen(Xlen), .Lanes(Lanes), .SfuLanes(SfuLanes), .Stages(FpuStages), .TagW(1)
  ) u_fp_exec (
    .clk_i, .rst_ni,
    .req_valid_i     (fpx_req_valid),
    .req_ready_o     (fpx_req_ready),
    .req_unit_i      (s1_fp_unit),
    .req_fpu_op_i    (s1_pkt_o.fp.fpu_op),
    .req_divsqrt_op_i(s1_pkt_o.fp.divsqrt_op),
    .req_sfu_op_i    (s1_pkt_o.fp.sfu_op),
    .req_rm_i        (s1_rm),
    .req_a_i         (frf_rs1_data_i),
    .req_b_i         (frf_rs2_data_i),
    .req_c_i         (frf_rs3_data_i),
    .req_x_i         (rf_rs1_data_i),
    .req_tag_i       (s1_fp_unit == kestrel_fpu_pkg::FpUnitSfu),  // long port: which record
    .lane_rsp_valid_o (fpl_rsp_valid),
    .lane_rsp_ready_i (fpl_rsp_ready),
    .lane_rsp_result_o(fpl_result),
    .lane_rsp_flags_o (fpl_flags_o),
    .lane_rsp_tag_o   (fpl_rsp_tag),
    .rsp_valid_o     (fpx_rsp_valid),
    .rsp_ready_i     (fpx_rsp_ready),
    .rsp_result_o    (fpx_result),
    .rsp_flags_o     (fpx_flags_o),
    .rsp_tag_o       (fpx_rsp_tag)
  );

  // LsuSlots = Warps x MemInFlight: a slot for every memory instruction the
  // warps may have in flight.
  kestrel_lsu #(
    .Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .SharedBytes(SharedBytes), .Slots(LsuSlots), .OutstandingLines(LsuLines)
  ) u_lsu (
    .clk_i, .rst_ni,
    .flush_i          (start_i),
    .slot_start_i     (disp_take_i ? blk_slots_i : '0),
    .shared_base_i    (launch_i.shared_base),
    .shared_window_i  ((launch_i.shared_base != '0) ? 32'(SharedBytes) : 32'd0),
    .shared_size_i    (launch_i.shared_size),
    .stack_bytes_i    (launch_i.stack_bytes),
    .req_valid_i      (lsu_req_valid),
    .req_ready_o      (lsu_req_ready),
    .req_full_o       (lsu_req_full),
    .req_front_free_o (lsu_front_free),
    .idle_o           (lsu_idle_o),
    .req_warp_i       (s1_warp_o),
    .req_pc_i         (s1_pkt_o.pc),
    .req_fp_i         (s1_pkt_o.fp.load),
    .req_rd_i         (s1_pkt_o.fp.load ? s1_pkt_o.fp.rd : s1_pkt_o.dec.rd),
    .req_store_i      (s1_pkt_o.dec.cls == kestrel_pkg::ClassStore),
    .req_amo_i        (s1_pkt_o.dec.cls == kestrel_pkg::ClassAtomic),
    .req_amo_op_i     (s1_pkt_o.dec.funct7[6:2]),
    .req_size_i       (s1_mem_size),
    .req_unsigned_i   (s1_pkt_o.dec.funct3[2]),
    .req_mask_i       (s1_mask_o),
    .req_addr_i       (s1_alu),
    .req_wdata_i      (lsu_wdata),
    .req_cmp_i        (rf_rs3_data_i),
    .req_pair_i       (s1_pair_i),
    .req_wdata_hi_i   (lsu_wdata_hi),
    .req_cmp_hi_i     (lsu_cmp_hi),
    .req_shared_phys_i(disp_bphys_i[32'(wblk_i[32'(s1_warp_o)*WarpW +: WarpW])*32 +: 32]),
    .req_local_base_i (lsu_local_base),
    .rsp_valid_o      (ldst_rsp_valid),
    .rsp_ready_i      (ldst_rsp_ready),
    .rsp_warp_o       (ldst_rsp_warp),
    .rsp_pc_o         (ldst_rsp_pc),
    .rsp_fp_o         (ldst_rsp_fp),
    .rsp_rd_o         (ldst_rsp_rd),
    .rsp_load_o       (ldst_rsp_load),
    .rsp_last_o       (ldst_rsp_last),
    .rsp_mask_o       (ldst_rsp_mask),
    .rsp_data_o       (ldst_rsp_data),
    .rsp_fault_o      (ldst_rsp_fault),
    .rsp_fault_lane_o (ldst_rsp_fault_lane),
    .rsp_fault_addr_o (ldst_rsp_fault_addr),
    .mem_req_valid_o  (lsu_mem_req_valid_o),
    .mem_req_ready_i  (lsu_mem_req_ready_i),
    .mem_req_o        (lsu_mem_req_o),
    .ev_shared_access_o(lsu_ev_shared_access_o),
    .ev_shared_passes_o(lsu_ev_shared_passes_o),
    .ev_atomics_o     (lsu_ev_atomics_o),
    .mem_rsp_valid_i  (lsu_mem_rsp_valid_i),
    .mem_rsp_ready_o  (lsu_mem_rsp_ready_o),
    .mem_rsp_i        (mem_rsp_i)
  );
  // kx.tex: the texture unit, answering through the LSU's retire port;
  // without one (TexUnit = 0) the decoder makes kx.tex illegal and the LSU's
  // responses go straight on.
  if (TexUnit != 0) begin : gen_tex
    kestrel_sm_tex #(
      .Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .Sets(TexSets), .Ways(TexWays), .DescEntries(TexDescEntries)
    ) u_tex (
      .clk_i, .rst_ni, .start_i,
      .req_valid_i         (tex_req_valid),
      .req_ready_o         (tex_req_ready),
      .req_warp_i          (s1_warp_o),
      .req_pc_i            (s1_pkt_o.pc),
      .req_mask_i          (s1_mask_o),
      .req_form_i          (s1_pkt_o.dec.funct3),
      .req_rd_i            (s1_pkt_o.fp.rd),
      .req_obj_i           (rf_rs1_data_i),
      .req_layer_i         (rf_rs2_data_i),
      .req_x_i             (frf_rs1_data_i),
      .req_y_i             (frf_rs2_data_i),
      .req_z_i             (frf_rs3_data_i),
      .busy_o              (tex_unit_busy),
      .lsu_rsp_valid_i     (ldst_rsp_valid),
      .lsu_rsp_ready_o     (ldst_rsp_ready),
      .lsu_rsp_warp_i      (ldst_rsp_warp),
      .lsu_rsp_pc_i        (ldst_rsp_pc),
      .lsu_rsp_fp_i        (ldst_rsp_fp),
      .lsu_rsp_rd_i        (ldst_rsp_rd),
      .lsu_rsp_load_i      (ldst_rsp_load),
      .lsu_rsp_last_i      (ldst_rsp_last),
      .lsu_rsp_mask_i      (ldst_rsp_mask),
      .lsu_rsp_data_i      (ldst_rsp_data),
      .lsu_rsp_fault_i     (ldst_rsp_fault),
      .lsu_rsp_fault_lane_i(ldst_rsp_fault_lane),
      .lsu_rsp_fault_addr_i(ldst_rsp_fault_addr),
      .rsp_valid_o         (lsu_rsp_valid),
      .rsp_ready_i         (lsu_rsp_ready),
      .rsp_warp_o          (lsu_rsp_warp_o),
      .rsp_pc_o            (lsu_pc_o),
      .rsp_fp_o            (lsu_fp),
      .rsp_rd_o            (lsu_rsp_rd),
      .rsp_load_o          (lsu_rsp_load),
      .rsp_last_o          (lsu_rsp_last_o),
      .rsp_mask_o          (lsu_rsp_mask),
      .rsp_data_o          (lsu_rsp_data),
      .rsp_fault_o         (lsu_rsp_fault_o),
      .rsp_fault_lane_o    (lsu_rsp_fault_lane_o),
      .rsp_fault_addr_o    (lsu_rsp_fault_addr_o),
      .mem_req_valid_o     (tex_mem_req_valid_o),
      .mem_req_ready_i     (tex_mem_req_ready_i),
      .mem_req_o           (tex_mem_req_o),
      .mem_rsp_valid_i     (tex_mem_rsp_valid_i),
      .mem_rsp_ready_o     (tex_mem_rsp_ready_o),
      .mem_rsp_i           (mem_rsp_i),
      .ev_tex_hit_o,
      .ev_tex_miss_o,
      .ev_desc_miss_o
    );
  end else begin : gen_no_tex
    assign tex_req_ready = 1'b1;
    assign tex_unit_busy = 1'b0;
    assign lsu_rsp_valid = ldst_rsp_valid;
    assign ldst_rsp_ready = lsu_rsp_ready;
    assign lsu_rsp_warp_o = ldst_rsp_warp;
    assign lsu_pc_o = ldst_rsp_pc;
    assign lsu_fp = ldst_rsp_fp;
    assign lsu_rsp_rd = ldst_rsp_rd;
    assign lsu_rsp_load = ldst_rsp_load;
    assign lsu_rsp_last_o = ldst_rsp_last;
    assign lsu_rsp_mask = ldst_rsp_mask;
    assign lsu_rsp_data = ldst_rsp_data;
    assign lsu_rsp_fault_o = ldst_rsp_fault;
    assign lsu_rsp_fault_lane_o = ldst_rsp_fault_lane;
    assign lsu_rsp_fault_addr_o = ldst_rsp_fault_addr;
    assign tex_mem_req_valid_o = 1'b0;
    assign tex_mem_req_o = '0;
    assign tex_mem_rsp_ready_o = 1'b0;
    assign ev_tex_hit_o = 1'b0;
    assign ev_tex_miss_o = 1'b0;
    assign ev_desc_miss_o = 1'b0;
    logic unused_tex;
    assign unused_tex = ^{tex_mem_req_ready_i, tex_mem_rsp_valid_i};
  end
  kestrel_sm_fp_track #(.Lanes(Lanes), .Warps(Warps), .Stages(FpuStages)) u_fp_track (
    .clk_i, .rst_ni,
    .flush_i        (flush_i),
    .fpend_o        (fpend_o),
    .lane_busy_o    (lane_busy_o),
    .issue_i        (issue_i),
    .issue_warp_i   (iw_i),
    .issue_fpx_i    (ipkt_i.fpx),
    .issue_fp_i     (ipkt_i.fp),
    .resv_o         (resv),
    .ds_busy_o      (ds_busy_o),
    .sfu_busy_o     (sfu_busy_o),
    .s1_valid_i     (s1_valid_o),
    .s1_fpx_i       (s1_pkt_o.fpx),
    .s1_rmfault_i   (s1_rmfault_o),
    .s1_unit_i      (s1_fp_unit),
    .s1_warp_i      (s1_warp_o),
    .s1_meta_i      (s1_fp_meta),
    .fpx_req_valid_i(fpx_req_valid),
    .fpx_req_ready_i(fpx_req_ready),
    .fpl_rsp_valid_i(fpl_rsp_valid),
    .fpl_grant_i    (grant_fpl_o),
    .fpl_meta_o     (fpl_meta),
    .fpl_live_o     (fpl_live_o),
    .fpx_grant_i    (grant_fp_o),
    .fpx_rsp_tag_i  (fpx_rsp_tag),
    .fpx_meta_o     (fpx_meta),
    .fpx_live_o     (fpx_live_o),
    .busy_o         (fp_busy_o)
  );
  // Record fields used here (fflags accrue at write-back): warp and mask.
  assign fpl_warp_o = fpl_meta[FpMetaW-1 -: WarpW];
  assign fpl_mask_o = fpl_meta[7 +: Lanes];
  assign fpx_warp_o = fpx_meta[FpMetaW-1 -: WarpW];
  assign fpx_mask_o = fpx_meta[7 +: Lanes];

  // ===========================================================================
  // Retire slot: a reserved lane-pipeline result, else stage 3, else the LSU,
  // the divider, divsqrt/SFU, barrier results
  // ===========================================================================
  kestrel_sm_retire #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps), .FpuStages(FpuStages)) u_retire (
    .clk_i, .rst_ni,
    .s3_valid_i       (s3_valid_o),
    .s3_warp_i        (s3_warp_o),
    .s3_mask_i        (s3_mask_o),
    .s3_pkt_i         (s3_pkt_o),
    .s3_result_i      (s3_result_o),
    .s3_active_i      (active_i[s3_warp_o]),
    .mul_result_i     (mul_result),
    .s2_valid_i       (s2_valid_o),
    .s1_valid_i       (s1_valid_o),
    .resv_near_i      (resv_near[2:1]),
    .s3_faulting_o    (s3_faulting_o),
    .fpl_rsp_valid_i  (fpl_rsp_valid),
    .fpl_rsp_ready_o  (fpl_rsp_ready),
    .fpl_result_i     (fpl_result),
    .fpl_meta_i       (fpl_meta),
    .fpl_live_i       (fpl_live_o),
    .lsu_rsp_valid_i  (lsu_rsp_valid),
    .lsu_rsp_ready_o  (lsu_rsp_ready),
    .lsu_rsp_warp_i   (lsu_rsp_warp_o),
    .lsu_rsp_rd_i     (lsu_rsp_rd),
    .lsu_rsp_load_i   (lsu_rsp_load),
    .lsu_rsp_last_i   (lsu_rsp_last_o),
    .lsu_rsp_mask_i   (lsu_rsp_mask),
    .lsu_rsp_data_i   (lsu_rsp_data),
    .lsu_rsp_fault_i  (lsu_rsp_fault_o),
    .lsu_pc_i         (lsu_pc_o),
    .lsu_fp_i         (lsu_fp),
    .lsu_inflight_i   (lsu_inflight_i),
    .div_pending_i    (div_pending_i),
    .div_inflight_i   (div_inflight_i),
    .div_warp_i       (div_warp_o),
    .div_pc_i         (div_pc),
    .div_mask_i       (div_mask),
    .div_rd_i         (div_rd),
    .div_result_i     (div_result),
    .fpx_rsp_valid_i  (fpx_rsp_valid),
    .fpx_rsp_ready_o  (fpx_rsp_ready),
    .fpx_result_i     (fpx_result),
    .fpx_meta_i       (fpx_meta),
    .fpx_live_i       (fpx_live_o),
    .drain_i          (drain_i),
    .bar_rd_i         (bar_rd_i),
    .bar_kind_i       (bar_kind_i),
    .lpc_i            (lpc_i),
    .wblk_i           (wblk_i),
    .bar_res_nonzero_i(bar_res_nonzero_i),
    .bar_res_arrived_i(bar_res_arrived_i),
    .grant_fpl_o      (grant_fpl_o),
    .grant_lsu_o      (grant_lsu_o),
    .grant_div_o      (grant_div_o),
    .grant_fp_o       (grant_fp_o),
    .grant_drain_o    (grant_drain_o),
    .drain_any_o      (drain_any_o),
    .drain_warp_o     (drain_w_o),
    .drain_mask_o     (drain_mask_o),
    .hold_issue_o     (hold_issue_o),
    .retire_valid_o,
    .retire_warp_o,
    .retire_pc_o,
    .retire_mask_o,
    .retire_rd_we_o,
    .retire_rd_fp_o,
    .retire_rd_o,
    .retire_rd_data_o,
    .xwe_o            (rf_we_o),
    .fwe_o            (frf_we_o),
    .sb_clear_o       (sb_clear_o),
    .fsb_clear_o      (fsb_clear_o),
    .bar_issue_o      (bar_issue_o),
    .bar_issue_slot_o (bar_issue_slot_o)
  );
  // The divider lanes finish together: lane 0's done stands for all (with
  // one lane there are no others to sink).
  logic unused_div_done_rest;
  if (Lanes > 1) begin : gen_div_done_rest
    assign unused_div_done_rest = ^div_done[Lanes-1:1];
  end else begin : gen_no_div_done_rest
    assign unused_div_done_rest = 1'b0;
  end
  assign unused_sinks = unused_div_done_rest ^ fpl_rsp_tag ^ resv_near[0]
                            ^ s1_pkt_o.fp.rs1_re ^ (^s1_pkt_o.fp.rs1) ^ (^s1_pkt_o.fp.rs2) ^ (^s1_pkt_o.fp.rs3);



  // ===========================================================================
  // Stage 1..3 registers and stage 1's hand-over to the LSU, divider and
  // kestrel_fp_exec
  // ===========================================================================
  kestrel_sm_pipe #(.Xlen(Xlen), .Lanes(Lanes), .Warps(Warps)) u_pipe (
    .clk_i, .rst_ni,
    .flush_i           (flush_i),
    .issue_i           (issue_i),
    .issue_warp_i      (iw_i),
    .issue_mask_i      (imask_i),
    .issue_pkt_i       (ipkt_i),
    .issue_instret_i   (issue_instret_i),
    .s1_valid_o        (s1_valid_o),
    .s1_warp_o         (s1_warp_o),
    .s1_mask_o         (s1_mask_o),
    .s1_pkt_o          (s1_pkt_o),
    .s1_instret_o      (s1_instret),
    .rf_rs1_i          (rf_rs1_data_i),
    .rf_rs2_i          (rf_rs2_data_i),
    .s1_result_i       (s1_result),
    .s1_nonzero_i      (s1_nonzero),
    .s1_low_i          (s1_low),
    .s1_coll_i         (s1_coll_o),
    .s1_ready_i        (s1_ready_o),
    .s1_barfault_i     (s1_barfault_o),
    .s1_barfault_lane_i(s1_barfault_lane),
    .s1_wsfault_i      (s1_wsfault_o),
    .s1_wsfault_lane_i (s1_wsfault_lane),
    .s1_rmfault_i      (s1_rmfault_o),
    .s1_rmfault_lane_i (s1_rmfault_lane),
    .lsu_req_valid_o   (lsu_req_valid),
    .lsu_req_ready_i   (lsu_req_ready),
    .tex_req_valid_o   (tex_req_valid),
    .tex_req_ready_i   (tex_req_ready),
    .div_start_i       (div_start),
    .fpx_req_valid_o   (fpx_req_valid),
    .fpx_meta_o        (s1_fp_meta),
    .div_warp_o        (div_warp_o),
    .div_pc_o          (div_pc),
    .div_mask_o        (div_mask),
    .div_rd_o          (div_rd),
    .s2_valid_o        (s2_valid_o),
    .s3_valid_o        (s3_valid_o),
    .s3_warp_o         (s3_warp_o),
    .s3_mask_o         (s3_mask_o),
    .s3_pkt_o          (s3_pkt_o),
    .s3_result_o       (s3_result_o),
    .s3_nonzero_o      (s3_nonzero_o),
    .s3_flane_o        (s3_flane_o),
    .s3_a1_o           (s3_a1_o)
  );
endmodule
