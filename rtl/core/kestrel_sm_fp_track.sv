// kestrel_sm_fp_track: the SM's bookkeeping of F instructions handed to
// kestrel_fp_exec.
//
// Lane-pipeline operations (FMA, add, compares, conversions, ...) stream at
// one warp-instruction per cycle: each reserves the retire slot 1 + Stages
// cycles after its issue (resv_o, bit k = the slot k cycles from now), and
// its record {warp, pc, mask, rd, rd is f, rd is x} waits in a FIFO for its
// result (in order).  Per warp it counts the lane ops in flight (lane_busy_o)
// and keeps the f scoreboard of the registers they will write (fpend_o: the
// issue stage checks each warp's next instruction against it).  divsqrt
// and the SFU take one instruction each (ds_busy_o / sfu_busy_o while it is
// in stage 1 or out), their records held here and chosen by the response
// tag.  After a flush, instructions already handed over still come back and
// are drained without retiring (*_live_o low); the per-warp counts and the
// f scoreboard start again empty.
//
// Combinational outputs; state updates at the clock edge.  The hand-over
// (fpx_req_valid_i/fpx_req_ready_i) is kestrel_fp_exec's valid/ready request;
// the two write-backs are granted by the retire slot (fpl_grant_i, fpx_grant_i).
`include "kestrel_assert.svh"

module kestrel_sm_fp_track #(
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned Stages = 3,  // lane pipeline depth (kestrel_fp_exec)
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned MetaW = WarpW + 32 + Lanes + 7
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic                    flush_i,
  // issue: the f scoreboard and the instruction issuing
  output logic [Warps*32-1:0]     fpend_o,      // f registers lane ops will write, per warp
  output logic [Warps-1:0]        lane_busy_o,  // lane ops of the warp in flight
  input  logic                    issue_i,
  input  logic [WarpW-1:0]        issue_warp_i,
  input  logic                    issue_fpx_i,
  input  kestrel_pkg::fp_dec_t    issue_fp_i,
  output logic [Stages:0]         resv_o,       // retire-slot reservations
  output logic                    ds_busy_o,
  output logic                    sfu_busy_o,
  // stage 1: the hand-over to kestrel_fp_exec
  input  logic                    s1_valid_i,
  input  logic                    s1_fpx_i,
  input  logic                    s1_rmfault_i,  // faults instead (rounding mode)
  input  logic [1:0]              s1_unit_i,
  input  logic [WarpW-1:0]        s1_warp_i,
  input  logic [MetaW-1:0]        s1_meta_i,
  input  logic                    fpx_req_valid_i,
  input  logic                    fpx_req_ready_i,
  // write-back: lane pipeline (its reserved slot) and divsqrt/SFU
  input  logic                    fpl_rsp_valid_i,
  input  logic                    fpl_grant_i,
  output logic [MetaW-1:0]        fpl_meta_o,
  output logic                    fpl_live_o,
  input  logic                    fpx_grant_i,
  input  logic                    fpx_rsp_tag_i,  // 1: SFU, 0: divsqrt
  output logic [MetaW-1:0]        fpx_meta_o,
  output logic                    fpx_live_o,
  output logic                    busy_o          // F instructions out
);
  localparam int unsigned Depth = 2 ** $clog2(Stages + 1);  // lane ops between hand-over and write-back
  localparam int unsigned CntW = $clog2(Depth) + 1;

  logic ds_sent_q, ds_sent_d, sfu_sent_q, sfu_sent_d;  // the divsqrt / SFU instruction is out
  logic ds_drop_q, ds_drop_d, sfu_drop_q, sfu_drop_d;  // ... sent before a flush: drained, not retired
  logic [MetaW-1:0] ds_meta_q, sfu_meta_q;
  logic [CntW-1:0] fpl_drop_q, fpl_drop_d;             // lane ops still to drain after a flush
  logic [Warps*CntW-1:0] lcnt_q, lcnt_d;
  logic [Warps*32-1:0] fpend_q, fpend_d;
  logic [Stages:0] resv_q, resv_d;

  always_comb begin
    for (int unsigned w = 0; w < Warps; w++) lane_busy_o[w] = lcnt_q[w*CntW +: CntW] != '0;
  end
  assign fpend_o = fpend_q;

  assign ds_busy_o = ds_sent_q || (s1_valid_i && s1_fpx_i && s1_unit_i == kestrel_fpu_pkg::FpUnitDivSqrt);
  assign sfu_busy_o = sfu_sent_q || (s1_valid_i && s1_fpx_i && s1_unit_i == kestrel_fpu_pkg::FpUnitSfu);
  assign resv_o = resv_q;

  // Lane-op records, in order.
  logic fpl_push, fpl_meta_valid, fpl_meta_room;
  logic [CntW-1:0] fpl_count;
  assign fpl_push = fpx_req_valid_i && fpx_req_ready_i && s1_unit_i == kestrel_fpu_pkg::FpUnitLane;
  kestrel_fifo #(.Width(MetaW), .Depth(Depth)) u_fpl_meta (
    .clk_i, .rst_ni,
    .flush_i    (1'b0),  // lane ops handed over before a flush still come back
    .in_valid_i (fpl_push),
    .in_ready_o (fpl_meta_room),  // Depth covers every lane op in flight
    .in_data_i  (s1_meta_i),
    .out_valid_o(fpl_meta_valid),
    .out_ready_i(fpl_grant_i),
    .out_data_o (fpl_meta_o),
    .count_o    (fpl_count)
  );
  assign fpx_meta_o = fpx_rsp_tag_i ? sfu_meta_q : ds_meta_q;
  assign fpl_live_o = fpl_drop_q == '0;
  assign fpx_live_o = fpx_rsp_tag_i ? !sfu_drop_q : !ds_drop_q;
  assign busy_o = fpl_count != '0 || ds_sent_q || sfu_sent_q;

  // Record fields used here: the lane op's warp and whether it writes f rd.
  logic [WarpW-1:0] fpl_warp;
  logic [4:0] fpl_rd;
  logic fpl_rd_fp;
  assign fpl_warp = fpl_meta_o[MetaW-1 -: WarpW];
  assign fpl_rd = fpl_meta_o[6:2];
  assign fpl_rd_fp = fpl_meta_o[1];
  // Lint sink: of the issuing instruction's F fields only unit, rd_we and rd count here.
  logic unused_issue_fp;
  assign unused_issue_fp = issue_fp_i.load ^ issue_fp_i.store ^ (^issue_fp_i.fpu_op) ^ issue_fp_i.divsqrt_op
                         ^ (^issue_fp_i.sfu_op) ^ (^issue_fp_i.rm) ^ issue_fp_i.rs1_re ^ (^issue_fp_i.rs1)
                         ^ (^issue_fp_i.rs2) ^ (^issue_fp_i.rs3);

  always_comb begin
    logic [CntW-1:0] in_fifo;
    in_fifo = fpl_count + CntW'(fpl_push) - CntW'(fpl_grant_i);
    ds_sent_d = ds_sent_q;
    sfu_sent_d = sfu_sent_q;
    ds_drop_d = ds_drop_q;
    sfu_drop_d = sfu_drop_q;
    fpl_drop_d = fpl_drop_q;
    lcnt_d = lcnt_q;
    fpend_d = fpend_q;
    if (fpl_grant_i && fpl_drop_q != '0) fpl_drop_d = fpl_drop_q - 1'b1;
    if (fpl_grant_i && fpl_live_o) begin
      lcnt_d[32'(fpl_warp)*CntW +: CntW] = lcnt_d[32'(fpl_warp)*CntW +: CntW] - 1'b1;
      if (fpl_rd_fp) fpend_d[32'(fpl_warp)*32 + 32'(fpl_rd)] = 1'b0;
    end
    if (fpx_grant_i) begin
      if (fpx_rsp_tag_i) begin
        sfu_sent_d = 1'b0;
        sfu_drop_d = 1'b0;
      end else begin
        ds_sent_d = 1'b0;
        ds_drop_d = 1'b0;
      end
    end
    if (fpx_req_valid_i && fpx_req_ready_i) begin
      if (s1_unit_i == kestrel_fpu_pkg::FpUnitDivSqrt) ds_sent_d = 1'b1;
      if (s1_unit_i == kestrel_fpu_pkg::FpUnitSfu) sfu_sent_d = 1'b1;
    end
    // A lane op faulting in stage 1 (rm) never reaches the pipeline.
    if (s1_valid_i && s1_fpx_i && s1_rmfault_i && s1_unit_i == kestrel_fpu_pkg::FpUnitLane) begin
      lcnt_d[32'(s1_warp_i)*CntW +: CntW] = lcnt_d[32'(s1_warp_i)*CntW +: CntW] - 1'b1;
    end
    if (issue_i && issue_fpx_i && issue_fp_i.unit == kestrel_fpu_pkg::FpUnitLane) begin
      lcnt_d[32'(issue_warp_i)*CntW +: CntW] = lcnt_d[32'(issue_warp_i)*CntW +: CntW] + 1'b1;
      if (issue_fp_i.rd_we) fpend_d[32'(issue_warp_i)*32 + 32'(issue_fp_i.rd)] = 1'b1;
    end
    if (flush_i) begin
      fpl_drop_d = in_fifo;
      ds_drop_d = ds_sent_d;
      sfu_drop_d = sfu_sent_d;
      lcnt_d = '0;
      fpend_d = '0;
    end
    // Reservations run on across a flush: the lane pipeline still delivers.
    resv_d = {1'b0, resv_q[Stages:1]};
    if (issue_i && issue_fpx_i && issue_fp_i.unit == kestrel_fpu_pkg::FpUnitLane) resv_d[Stages] = 1'b1;
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

  // Records of the divsqrt and SFU instructions handed over (read at
  // write-back only while ds_sent_q / sfu_sent_q say they are valid).
  always_ff @(posedge clk_i) begin
    if (fpx_req_valid_i && fpx_req_ready_i && s1_unit_i == kestrel_fpu_pkg::FpUnitDivSqrt) ds_meta_q <= s1_meta_i;
    if (fpx_req_valid_i && fpx_req_ready_i && s1_unit_i == kestrel_fpu_pkg::FpUnitSfu) sfu_meta_q <= s1_meta_i;
  end

  // Issue kept the F units free and the lane pipeline's slots reserved.
  `KESTREL_ASSERT(fpx_req_taken, fpx_req_valid_i |-> fpx_req_ready_i)
  `KESTREL_ASSERT(fpl_record_room, fpl_push |-> fpl_meta_room)
  `KESTREL_ASSERT(fpl_rsp_slot, fpl_rsp_valid_i |-> resv_q[0] && fpl_grant_i && fpl_meta_valid)
  `KESTREL_ASSERT(fpl_grant_valid, fpl_grant_i |-> fpl_rsp_valid_i)
  `KESTREL_ASSERT(fpx_grant_sent, fpx_grant_i |-> (fpx_rsp_tag_i ? sfu_sent_q : ds_sent_q))
  `KESTREL_ASSERT_KNOWN(issue_known, issue_i)
endmodule
