// kestrel_sm_pipe: the SM's stage 1..3 registers and the hand-over of
// stage 1's long instructions (docs/microarchitecture.md, "SM pipeline").
//
// Stage 1 takes the issuing instruction (issue_i, its warp, mask and
// kestrel_pkg::sm_issue_t packet) every cycle; kestrel_sm_exec computes on
// it combinationally and this unit registers what it made of it into stage 2
// (kestrel_pkg::sm_wb_t write-back packet, result rows, the fault lane), and
// stage 2 into stage 3.  Memory, divide and kestrel_fp_exec instructions
// (other than one that faults on its rounding mode) leave the pipe in stage
// 1: lsu_req_valid_o and fpx_req_valid_o hand them over, and their records
// (the LSU instruction's PC and whether it writes an f register; the
// divider's warp, PC, mask and rd) are kept here until they retire.
//
// Latency: one cycle per stage; nothing stalls (the issue stage issues only
// what stage 1 can hand over, so the LSU and kestrel_fp_exec take a request
// the cycle it is offered).  flush_i (a launch start or abort) empties the
// stages; the data registers are unreset (each is read only while its stage
// is valid, or while its record's instruction is out).
`include "kestrel_assert.svh"

module kestrel_sm_pipe #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned RowW = Lanes * Xlen,
  localparam int unsigned FpMetaW = WarpW + 32 + Lanes + 7
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic                    flush_i,
  // issue side
  input  logic                    issue_i,
  input  logic [WarpW-1:0]        issue_warp_i,
  input  logic [Lanes-1:0]        issue_mask_i,
  input  kestrel_pkg::sm_issue_t  issue_pkt_i,
  input  logic [Lanes*64-1:0]     issue_instret_i,
  // stage 1: the instruction, and what kestrel_sm_exec made of it
  output logic                    s1_valid_o,
  output logic [WarpW-1:0]        s1_warp_o,
  output logic [Lanes-1:0]        s1_mask_o,
  output kestrel_pkg::sm_issue_t  s1_pkt_o,
  output logic [Lanes*64-1:0]     s1_instret_o,
  input  logic [RowW-1:0]         rf_rs1_i,       // register-file rows read for stage 1
  input  logic [RowW-1:0]         rf_rs2_i,
  input  logic [RowW-1:0]         s1_result_i,
  input  logic [Lanes-1:0]        s1_nonzero_i,   // barrier operand != 0
  input  logic [LaneW-1:0]        s1_low_i,       // lowest issuing lane
  input  logic                    s1_coll_i,      // vote, shuffle, match or reduce
  input  logic [Lanes-1:0]        s1_ready_i,     // its lanes that go on (the rest park)
  input  logic                    s1_barfault_i,
  input  logic [LaneW-1:0]        s1_barfault_lane_i,
  input  logic                    s1_wsfault_i,
  input  logic [LaneW-1:0]        s1_wsfault_lane_i,
  input  logic                    s1_rmfault_i,
  input  logic [LaneW-1:0]        s1_rmfault_lane_i,
  // stage 1 hand-over: LSU, divider, kestrel_fp_exec (with its record)
  output logic                    lsu_req_valid_o,
  input  logic                    lsu_req_ready_i,
  output logic                    tex_req_valid_o,   // kx.tex to the texture unit (kestrel_sm_tex)
  input  logic                    tex_req_ready_i,
  input  logic                    div_start_i,
  output logic                    fpx_req_valid_o,
  output logic [FpMetaW-1:0]      fpx_meta_o,     // {warp, pc, mask, rd, rd is f, rd is x}
  // records of the instructions out
  output logic [WarpW-1:0]        div_warp_o,
  output logic [31:0]             div_pc_o,
  output logic [Lanes-1:0]        div_mask_o,
  output logic [4:0]              div_rd_o,
  // stages 2 and 3
  output logic                    s2_valid_o,
  output logic                    s3_valid_o,
  output logic [WarpW-1:0]        s3_warp_o,
  output logic [Lanes-1:0]        s3_mask_o,
  output kestrel_pkg::sm_wb_t     s3_pkt_o,
  output logic [RowW-1:0]         s3_result_o,
  output logic [Lanes-1:0]        s3_nonzero_o,
  output logic [LaneW-1:0]        s3_flane_o,     // fault lane
  output logic [63:0]             s3_a1_o         // a1 of the fault lane (a trap's address)
);
  function automatic logic is_mem(input kestrel_pkg::exec_class_e c);
    is_mem = (c == kestrel_pkg::ClassLoad) || (c == kestrel_pkg::ClassStore) || (c == kestrel_pkg::ClassAtomic);
  endfunction

  logic s1_valid_q, s2_valid_q, s3_valid_q;
  logic [WarpW-1:0] s1_warp_q, s2_warp_q, s3_warp_q;
  logic [Lanes-1:0] s1_mask_q, s2_mask_q, s3_mask_q;
  kestrel_pkg::sm_issue_t s1_q;
  kestrel_pkg::sm_wb_t s2_q, s3_q, s2_d;
  logic [Lanes*64-1:0] s1_instret_q;
  logic [RowW-1:0] s2_result_q, s3_result_q;
  logic [Lanes-1:0] s2_nonzero_q, s3_nonzero_q;
  logic [LaneW-1:0] s2_flane_q, s3_flane_q;
  logic [63:0] s3_a1_q;
  logic [WarpW-1:0] div_warp_q;
  logic [31:0] div_pc_q;
  logic [Lanes-1:0] div_mask_q;
  logic [4:0] div_rd_q;

  // Stage 1's hand-over.  LSU and divider instructions, and F instructions
  // for kestrel_fp_exec, leave the pipe here.
  logic s1_unit;
  assign s1_unit = is_mem(s1_q.dec.cls) || s1_q.dec.cls == kestrel_pkg::ClassDiv
                   || s1_q.dec.cls == kestrel_pkg::ClassTex || (s1_q.fpx && !s1_rmfault_i);
  assign lsu_req_valid_o = s1_valid_q && is_mem(s1_q.dec.cls);
  assign tex_req_valid_o = s1_valid_q && s1_q.dec.cls == kestrel_pkg::ClassTex;
  assign fpx_req_valid_o = s1_valid_q && s1_q.fpx && !s1_rmfault_i;
  assign fpx_meta_o = {s1_warp_q, s1_q.pc, s1_mask_q, s1_q.fp.rd_we ? s1_q.fp.rd : s1_q.dec.rd,
                       s1_q.fp.rd_we, s1_q.dec.rd_we};

  // Stage 2's packet: a stage-1 fault, its lane, the trap code and line.
  always_comb begin
    s2_d.pc = s1_q.pc;
    s2_d.word = s1_q.word;
    s2_d.ffault = s1_q.ffault;
    s2_d.dec = s1_q.dec;
    s2_d.barfault = s1_barfault_i || (s1_q.fpx && s1_rmfault_i) || s1_wsfault_i;
    s2_d.code = 64'(rf_rs1_i[32'(s1_low_i)*Xlen +: Xlen]);
    s2_d.line = 64'(rf_rs2_i[32'(s1_low_i)*Xlen +: Xlen]);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
      s2_valid_q <= 1'b0;
      s3_valid_q <= 1'b0;
    end else if (flush_i) begin
      s1_valid_q <= 1'b0;
      s2_valid_q <= 1'b0;
      s3_valid_q <= 1'b0;
    end else begin
      s1_valid_q <= issue_i;
      s2_valid_q <= s1_valid_q && !s1_unit;
      s3_valid_q <= s2_valid_q;
    end
  end

  // Data registers whose reset value never matters: each is read only while
  // its stage is valid (records: while their instruction is out).
  always_ff @(posedge clk_i) begin
    s1_warp_q <= issue_warp_i;
    s1_mask_q <= issue_mask_i;
    s1_q <= issue_pkt_i;
    s1_instret_q <= issue_instret_i;
    s2_warp_q <= s1_warp_q;
    s2_mask_q <= (s1_coll_i && !s1_wsfault_i) ? s1_ready_i : s1_mask_q;
    s2_q <= s2_d;
    s2_result_q <= s1_result_i;
    s2_nonzero_q <= s1_nonzero_i;
    s2_flane_q <= s1_barfault_i ? s1_barfault_lane_i : (s1_q.fpx && s1_rmfault_i) ? s1_rmfault_lane_i
                : s1_wsfault_i ? s1_wsfault_lane_i : s1_low_i;
    s3_warp_q <= s2_warp_q;
    s3_mask_q <= s2_mask_q;
    s3_q <= s2_q;
    s3_result_q <= s2_result_q;
    s3_nonzero_q <= s2_nonzero_q;
    s3_flane_q <= s2_flane_q;
    // a1 of a trap was read in stage 1 and arrives with stage 2.
    s3_a1_q <= 64'(rf_rs1_i[32'(s2_flane_q)*Xlen +: Xlen]);
    if (div_start_i) begin
      div_warp_q <= s1_warp_q;
      div_pc_q <= s1_q.pc;
      div_mask_q <= s1_mask_q;
      div_rd_q <= s1_q.dec.rd;
    end
  end

  assign s1_valid_o = s1_valid_q;
  assign s1_warp_o = s1_warp_q;
  assign s1_mask_o = s1_mask_q;
  assign s1_pkt_o = s1_q;
  assign s1_instret_o = s1_instret_q;
  assign s2_valid_o = s2_valid_q;
  assign s3_valid_o = s3_valid_q;
  assign s3_warp_o = s3_warp_q;
  assign s3_mask_o = s3_mask_q;
  assign s3_pkt_o = s3_q;
  assign s3_result_o = s3_result_q;
  assign s3_nonzero_o = s3_nonzero_q;
  assign s3_flane_o = s3_flane_q;
  assign s3_a1_o = s3_a1_q;
  assign div_warp_o = div_warp_q;
  assign div_pc_o = div_pc_q;
  assign div_mask_o = div_mask_q;
  assign div_rd_o = div_rd_q;

  // Boundary: the stages never stall, so a hand-over is taken when offered,
  // and an instruction leaves stage 1 for one unit at most.
  `KESTREL_ASSERT_KNOWN(issue_known, issue_i)
  `KESTREL_ASSERT_KNOWN(s1_valid_known, s1_valid_q)
  `KESTREL_ASSERT(lsu_req_taken, lsu_req_valid_o |-> lsu_req_ready_i)
  `KESTREL_ASSERT(tex_req_taken, tex_req_valid_o |-> tex_req_ready_i)
  `KESTREL_ASSERT(div_start_valid, div_start_i |-> s1_valid_q && !lsu_req_valid_o)
  `KESTREL_ASSERT_ONEHOT0(handover_onehot, {lsu_req_valid_o, tex_req_valid_o, div_start_i, fpx_req_valid_o})
endmodule
