// kestrel_fp_exec: the SM's floating-point execute cluster (docs/fpu.md,
// "Integrating the units into the SM").  One warp-instruction per request:
// Lanes x kestrel_fpu_lane (pipelined, every F op but fdiv/fsqrt),
// Lanes x kestrel_fpu_divsqrt (iterative) and SfuLanes x kestrel_sfu fed a
// warp in Lanes / SfuLanes turns.
//
// Throughput: the lane pipeline takes one warp-instruction per cycle
// (latency `Stages` while its write-back port is free); divsqrt and SFU take
// one warp at a time each (divsqrt: 1..14 cycles with the default digits per
// cycle; SFU: Lanes / SfuLanes + 3 cycles), and run beside the lane pipeline.
//
// Handshake: valid/ready on every side.  req_ready_o depends on req_unit_i
// (the chosen unit must be free), never on req_valid_i.  Two write-back
// ports: `lane_rsp_*` for the lane pipeline (in request order, fixed latency
// when always taken: the SM reserves its retire slot at issue) and `rsp_*`
// for divsqrt and the SFU, which meet there by round-robin; a presented
// response holds still (payload and tag) until taken.
//
// Operands and results are flat per-lane vectors (lane l at [l*W +: W]):
// Yosys 0.23 shrinks arrays of structs.  rm is per lane because each thread
// has its own frm; the SM resolves rm = 7 and rejects illegal modes first.
module kestrel_fp_exec #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned SfuLanes = 8,        // divides Lanes
  parameter int unsigned Stages = 3,          // kestrel_fpu_lane latency
  parameter int unsigned DivBitsPerCycle = 2, // kestrel_fpu_divsqrt digits per clock
  parameter int unsigned TagW = 8             // warp slot, rd, destination file: the SM's choice
) (
  input  logic                             clk_i,
  input  logic                             rst_ni,
  // issue side
  input  logic                             req_valid_i,
  output logic                             req_ready_o,
  // Operation fields as bits of kestrel_fpu_pkg's enums (the SM carries
  // them flat; Yosys 0.23 has no casts to package enums).
  input  logic [1:0]                       req_unit_i,        // fp_unit_e
  input  logic [4:0]                       req_fpu_op_i,      // fpu_op_e, FpUnitLane
  input  logic                             req_divsqrt_op_i,  // divsqrt_op_e, FpUnitDivSqrt
  input  logic [2:0]                       req_sfu_op_i,      // sfu_op_e, FpUnitSfu
  input  logic [Lanes*3-1:0]               req_rm_i,          // resolved round_mode_e per lane
  input  logic [Lanes*32-1:0]              req_a_i,           // rs1 (f)
  input  logic [Lanes*32-1:0]              req_b_i,           // rs2 (f)
  input  logic [Lanes*32-1:0]              req_c_i,           // rs3 (f)
  input  logic [Lanes*Xlen-1:0]            req_x_i,           // rs1 (x): fmv.w.x, fcvt.s.*
  input  logic [TagW-1:0]                  req_tag_i,
  // writeback side, lane pipeline (in order)
  output logic                             lane_rsp_valid_o,
  input  logic                             lane_rsp_ready_i,
  output logic [Lanes*Xlen-1:0]            lane_rsp_result_o, // f: [31:0], upper bits zero; x: sign-extended
  output logic [Lanes*5-1:0]               lane_rsp_flags_o,  // fflags to OR into each thread's
  output logic [TagW-1:0]                  lane_rsp_tag_o,
  // writeback side, divsqrt and SFU (round-robin)
  output logic                             rsp_valid_o,
  input  logic                             rsp_ready_i,
  output logic [Lanes*Xlen-1:0]            rsp_result_o,      // f: [31:0], upper bits zero; x: sign-extended
  output logic [Lanes*5-1:0]               rsp_flags_o,       // fflags to OR into each thread's
  output logic [TagW-1:0]                  rsp_tag_o
);
  localparam int unsigned Turns = Lanes / SfuLanes;
  localparam int unsigned TurnW = (Turns > 1) ? $clog2(Turns) : 1;

  // ---------------------------------------------------------------------------
  // Issue: one valid per unit, the same for every lane of that unit, so the
  // lanes stay in step and lane 0's handshake signals stand for all.
  // ---------------------------------------------------------------------------
  logic lane_req_valid, lane_req_ready;
  logic ds_req_valid, ds_req_ready;
  logic sfu_accept, sfu_active_q;
  logic [Lanes-1:0] lane_ready_all, ds_ready_all;

  assign lane_req_ready = lane_ready_all[0];
  assign ds_req_ready = ds_ready_all[0];
  assign lane_req_valid = req_valid_i && (req_unit_i == kestrel_fpu_pkg::FpUnitLane);
  assign ds_req_valid = req_valid_i && (req_unit_i == kestrel_fpu_pkg::FpUnitDivSqrt);
  assign sfu_accept = req_valid_i && (req_unit_i == kestrel_fpu_pkg::FpUnitSfu) && !sfu_active_q;

  always_comb begin
    unique case (req_unit_i)
      kestrel_fpu_pkg::FpUnitLane: req_ready_o = lane_req_ready;
      kestrel_fpu_pkg::FpUnitDivSqrt: req_ready_o = ds_req_ready;
      kestrel_fpu_pkg::FpUnitSfu: req_ready_o = !sfu_active_q;
      default: req_ready_o = 1'b0;
    endcase
  end

  // ---------------------------------------------------------------------------
  // Write-back: the lane pipeline has its own port; divsqrt and SFU share one
  // by round-robin (declared early: the units' rsp_ready use it).
  // ---------------------------------------------------------------------------
  localparam int unsigned SrcDivSqrt = 0;
  localparam int unsigned SrcSfu = 1;
  logic [1:0] wb_req;
  logic wb_arb_valid;
  logic wb_arb_index, wb_sel;
  logic [1:0] wb_arb_grant;
  logic wb_take;
  logic wb_locked_q;
  logic wb_locked_index_q;

  logic lane_rsp_valid, ds_rsp_valid, sfu_done_q;
  logic [Lanes-1:0] lane_valid_all, ds_valid_all;
  logic [TagW-1:0] lane_rsp_tag, ds_rsp_tag, sfu_tag_q;
  logic [Lanes*Xlen-1:0] lane_result, ds_result;
  logic [Lanes*5-1:0] lane_flags, ds_flags;
  logic [Lanes*32-1:0] sfu_result_q;

  assign lane_rsp_valid = lane_valid_all[0];
  assign lane_rsp_valid_o = lane_rsp_valid;
  assign lane_rsp_result_o = lane_result;
  assign lane_rsp_flags_o = lane_flags;
  assign lane_rsp_tag_o = lane_rsp_tag;
  // A divsqrt warp is done when every lane is: special operands finish early.
  assign ds_rsp_valid = &ds_valid_all;
  assign wb_req = {sfu_done_q, ds_rsp_valid};

  kestrel_rr_arb #(.N(2)) u_wb_arb (
    .clk_i,
    .rst_ni,
    .req_i(wb_req),
    .advance_i(wb_take),
    .valid_o(wb_arb_valid),
    .index_o(wb_arb_index),
    .grant_o(wb_arb_grant)
  );

  // A response shown but not taken keeps its source: a newcomer nearer the
  // round-robin pointer must not replace it before the handshake.
  assign wb_sel = wb_locked_q ? wb_locked_index_q : wb_arb_index;
  assign rsp_valid_o = wb_locked_q || wb_arb_valid;
  assign wb_take = rsp_valid_o && rsp_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wb_locked_q <= 1'b0;
      wb_locked_index_q <= '0;
    end else begin
      wb_locked_q <= rsp_valid_o && !rsp_ready_i;
      wb_locked_index_q <= wb_sel;
    end
  end

  always_comb begin
    rsp_result_o = ds_result;
    rsp_flags_o = ds_flags;
    rsp_tag_o = ds_rsp_tag;
    if (wb_sel == 1'(SrcSfu)) begin
      for (int unsigned l = 0; l < Lanes; l++) begin
        rsp_result_o[l*Xlen+:Xlen] = Xlen'(sfu_result_q[l*32+:32]);
      end
      rsp_flags_o = '0;  // the SFU raises no flags (docs/fpu.md)
      rsp_tag_o = sfu_tag_q;
    end
  end

  logic lane_rsp_ready, ds_rsp_ready, sfu_rsp_taken;
  assign lane_rsp_ready = lane_rsp_ready_i;
  assign ds_rsp_ready = wb_take && (wb_sel == 1'(SrcDivSqrt));
  assign sfu_rsp_taken = wb_take && (wb_sel == 1'(SrcSfu));

  // ---------------------------------------------------------------------------
  // Per lane: the FMA pipeline and the divide/square-root unit.
  // ---------------------------------------------------------------------------
  // Yosys 0.23 takes no package-typed signals inside generate blocks: the
  // struct ports are driven with concatenations in the structs' field order
  // and read through flat per-lane slices.
  localparam int unsigned RspW = 69;  // $bits(kestrel_fpu_pkg::fpu_rsp_t), checked below
  logic [Lanes*RspW-1:0] lane_rsp_all, ds_rsp_all;

  for (genvar l = 0; l < Lanes; l++) begin : gen_lane
    logic [TagW-1:0] lane_tag, ds_tag;
    logic [63:0] lane_x;
    logic [63:0] lane_rsp_result, ds_rsp_result;

    assign lane_x = 64'($signed(req_x_i[l*Xlen+:Xlen]));

    kestrel_fpu_lane #(
      .Xlen(Xlen),
      .Stages(Stages),
      .TagW(TagW)
    ) u_lane (
      .clk_i,
      .rst_ni,
      .req_valid_i(lane_req_valid),
      .req_ready_o(lane_ready_all[l]),
      // fpu_req_t {op, rm, a, b, c, x}
      .req_i({req_fpu_op_i, req_rm_i[l*3+:3], req_a_i[l*32+:32], req_b_i[l*32+:32], req_c_i[l*32+:32], lane_x}),
      .req_tag_i(req_tag_i),
      .rsp_valid_o(lane_valid_all[l]),
      .rsp_ready_i(lane_rsp_ready),
      .rsp_o(lane_rsp_all[l*RspW+:RspW]),
      .rsp_tag_o(lane_tag)
    );

    kestrel_fpu_divsqrt #(
      .BitsPerCycle(DivBitsPerCycle),
      .TagW(TagW)
    ) u_divsqrt (
      .clk_i,
      .rst_ni,
      .req_valid_i(ds_req_valid),
      .req_ready_o(ds_ready_all[l]),
      // divsqrt_req_t {op, rm, a, b}
      .req_i({req_divsqrt_op_i, req_rm_i[l*3+:3], req_a_i[l*32+:32], req_b_i[l*32+:32]}),
      .req_tag_i(req_tag_i),
      .rsp_valid_o(ds_valid_all[l]),
      .rsp_ready_i(ds_rsp_ready),
      .rsp_o(ds_rsp_all[l*RspW+:RspW]),
      .rsp_tag_o(ds_tag)
    );

    // fpu_rsp_t {result[63:0], flags[4:0]}
    assign lane_rsp_result = lane_rsp_all[l*RspW+5+:64];
    assign ds_rsp_result = ds_rsp_all[l*RspW+5+:64];
    assign lane_result[l*Xlen+:Xlen] = lane_rsp_result[Xlen-1:0];
    assign lane_flags[l*5+:5] = lane_rsp_all[l*RspW+:5];
    assign ds_result[l*Xlen+:Xlen] = ds_rsp_result[Xlen-1:0];
    assign ds_flags[l*5+:5] = ds_rsp_all[l*RspW+:5];
    if (l == 0) begin : gen_tag
      assign lane_rsp_tag = lane_tag;
      assign ds_rsp_tag = ds_tag;
    end else begin : gen_no_tag
      // Every lane carries the same tag; lane 0's is the warp's.
      logic unused_tags;
      assign unused_tags = ^{lane_tag, ds_tag};
    end
    if (Xlen < 64) begin : gen_narrow
      // An Xlen=32 lane sign-extends its x results; the SM keeps Xlen bits.
      logic unused_upper;
      assign unused_upper = ^{lane_rsp_result[63:Xlen], ds_rsp_result[63:Xlen]};
    end
  end

  // ---------------------------------------------------------------------------
  // SFU: a warp is buffered, fed SfuLanes threads per cycle, and its results
  // collected by turn (the SFU tag is the turn); one warp at a time.
  // ---------------------------------------------------------------------------
  logic sfu_feeding_q;
  logic [TurnW-1:0] sfu_turn_q, sfu_got_q;
  logic [2:0] sfu_op_q;
  logic [Lanes*32-1:0] sfu_operand_q;
  logic [SfuLanes-1:0] sfu_ready_all, sfu_valid_all;
  logic [SfuLanes*32-1:0] sfu_group_result;
  logic [TurnW-1:0] sfu_rsp_turn;
  logic sfu_unit_feed, sfu_unit_take;

  assign sfu_unit_feed = sfu_feeding_q && sfu_ready_all[0];
  assign sfu_unit_take = sfu_valid_all[0] && sfu_active_q && !sfu_done_q;

  for (genvar s = 0; s < SfuLanes; s++) begin : gen_sfu
    logic [TurnW-1:0] sfu_tag;
    logic [31:0] sfu_operand;

    assign sfu_operand = sfu_operand_q[(32'(sfu_turn_q) * SfuLanes + s) * 32+:32];

    kestrel_sfu #(.TagW(TurnW)) u_sfu (
      .clk_i,
      .rst_ni,
      .req_valid_i(sfu_feeding_q),
      .req_ready_o(sfu_ready_all[s]),
      .req_i({sfu_op_q, sfu_operand}),  // sfu_req_t {op, a}
      .req_tag_i(sfu_turn_q),
      .rsp_valid_o(sfu_valid_all[s]),
      .rsp_ready_i(sfu_active_q && !sfu_done_q),
      .rsp_result_o(sfu_group_result[s*32+:32]),
      .rsp_tag_o(sfu_tag)
    );
    if (s == 0) begin : gen_turn
      assign sfu_rsp_turn = sfu_tag;
    end else begin : gen_no_turn
      logic unused_tag;
      assign unused_tag = ^sfu_tag;
    end
  end

  // Operand and result buffers: datapath registers, not reset (read only
  // while sfu_active_q, which their loading always precedes).
  logic [Lanes*32-1:0] sfu_result_d;
  always_comb begin
    sfu_result_d = sfu_result_q;
    for (int unsigned t = 0; t < Turns; t++) begin
      if (sfu_unit_take && sfu_rsp_turn == TurnW'(t)) begin
        sfu_result_d[t*SfuLanes*32+:SfuLanes*32] = sfu_group_result;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (sfu_accept) begin
      sfu_operand_q <= req_a_i;
      sfu_op_q <= req_sfu_op_i;
      sfu_tag_q <= req_tag_i;
    end
    sfu_result_q <= sfu_result_d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sfu_active_q <= 1'b0;
      sfu_feeding_q <= 1'b0;
      sfu_done_q <= 1'b0;
      sfu_turn_q <= '0;
      sfu_got_q <= '0;
    end else begin
      if (sfu_accept) begin
        sfu_active_q <= 1'b1;
        sfu_feeding_q <= 1'b1;
        sfu_turn_q <= '0;
        sfu_got_q <= '0;
      end else begin
        if (sfu_unit_feed) begin
          sfu_turn_q <= sfu_turn_q + 1'b1;
          if (sfu_turn_q == TurnW'(Turns - 1)) sfu_feeding_q <= 1'b0;
        end
        if (sfu_unit_take) begin
          sfu_got_q <= sfu_got_q + 1'b1;
          if (sfu_got_q == TurnW'(Turns - 1)) sfu_done_q <= 1'b1;
        end
        if (sfu_rsp_taken) begin
          sfu_active_q <= 1'b0;
          sfu_done_q <= 1'b0;
        end
      end
    end
  end

  logic unused_grant;
  assign unused_grant = ^wb_arb_grant;

`ifndef SYNTHESIS
  if ($bits(kestrel_fpu_pkg::fpu_rsp_t) != RspW) begin : gen_rspw_check
    $error("kestrel_fp_exec: RspW out of date");
  end
  if (Lanes % SfuLanes != 0) begin : gen_sfu_lanes_check
    $error("kestrel_fp_exec: SfuLanes must divide Lanes");
  end
  // A shown response stays, with its payload, until taken (AXI rule).
  logic rsp_stall_q;
  logic [TagW-1:0] rsp_tag_prev_q;
  logic [Lanes*Xlen-1:0] rsp_result_prev_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rsp_stall_q <= 1'b0;
    else rsp_stall_q <= rsp_valid_o && !rsp_ready_i;
  end
  always_ff @(posedge clk_i) begin
    rsp_tag_prev_q <= rsp_tag_o;
    rsp_result_prev_q <= rsp_result_o;
  end
  always_comb begin
    if (rsp_stall_q) begin
      assert (rsp_valid_o && rsp_tag_o == rsp_tag_prev_q && rsp_result_o == rsp_result_prev_q)
      else $error("kestrel_fp_exec: write-back changed while stalled");
    end
    // The lanes of a unit are driven together, so they must agree.
    if (rst_ni) begin
      assert ((lane_ready_all == '0 || lane_ready_all == '1) && (lane_valid_all == '0 || lane_valid_all == '1))
      else $error("kestrel_fp_exec: FMA lanes out of step");
      assert (ds_ready_all == '0 || ds_ready_all == '1)
      else $error("kestrel_fp_exec: divsqrt lanes out of step");
      assert ((sfu_ready_all == '0 || sfu_ready_all == '1) && (sfu_valid_all == '0 || sfu_valid_all == '1))
      else $error("kestrel_fp_exec: SFU lanes out of step");
    end
  end
`endif
endmodule
