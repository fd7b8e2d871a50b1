// kestrel_sm_tex: kx.tex in the SM (docs/isa.md section 2.5).  Takes the
// instruction from stage 1 with its operands, runs it through the texture
// unit (kestrel_tex_unit) and answers through the LSU's retire port, which it
// shares: the LSU's responses pass through unchanged while no texture answer
// is being written.
//
// A warp's lanes may name different objects.  The unit fetches one object
// at a time, so the instruction runs in passes: the lowest pending lane's
// object with every pending lane that names it; later passes merge their
// values into the unit's (tex_fetch_req_t.merge).  Every pass runs, and the
// fault kept is the lowest lane's, so that the fault reported is the first
// thread's in lane order whatever the objects' order (a lane's own fault
// does not depend on the other lanes).
//
// The answer: with a fault (a read's, or the unit's refusal as FaultTexture
// with the object as the address), one beat with it; else four beats of the
// warp at the instruction's PC with the full lane mask, f rd .. rd+3, the
// components x, y, z, w, the last marked (the retire trace shows four
// records; docs/microarchitecture.md, "Lock-step").  Once the first beat is
// shown the port stays the texture unit's until the last is taken; it takes
// the port only while the LSU shows nothing, so an LSU pair's two beats
// stay together too.
//
// One instruction at a time: busy_o from the hand-over until the last beat
// is taken.  start_i empties the unit's caches (each launch; texture reads
// need not see the same launch's stores, guide 3.2.11.4).
`include "kestrel_assert.svh"

module kestrel_sm_tex #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned Sets = 16,        // texel cache sets
  parameter int unsigned Ways = 4,         // texel cache ways
  parameter int unsigned DescEntries = 4,  // descriptor cache lines
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned RowW = Lanes * Xlen
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       start_i,
  // stage 1's hand-over (taken whenever offered: issue waits for !busy_o)
  input  logic                       req_valid_i,
  output logic                       req_ready_o,
  input  logic [WarpW-1:0]           req_warp_i,
  input  logic [31:0]                req_pc_i,
  input  logic [Lanes-1:0]           req_mask_i,
  input  logic [2:0]                 req_form_i,   // funct3: kestrel_pkg::TexForm*
  input  logic [4:0]                 req_rd_i,     // f rd, the first of four
  input  logic [RowW-1:0]            req_obj_i,    // x rs1 per lane: the object
  input  logic [RowW-1:0]            req_layer_i,  // x rs2 per lane: the layer
  input  logic [Lanes*32-1:0]        req_x_i,      // f rs3, rs3+1, rs3+2 per lane
  input  logic [Lanes*32-1:0]        req_y_i,
  input  logic [Lanes*32-1:0]        req_z_i,
  output logic                       busy_o,
  // the LSU's response port, passed on
  input  logic                       lsu_rsp_valid_i,
  output logic                       lsu_rsp_ready_o,
  input  logic [WarpW-1:0]           lsu_rsp_warp_i,
  input  logic [31:0]                lsu_rsp_pc_i,
  input  logic                       lsu_rsp_fp_i,
  input  logic [4:0]                 lsu_rsp_rd_i,
  input  logic                       lsu_rsp_load_i,
  input  logic                       lsu_rsp_last_i,
  input  logic [Lanes-1:0]           lsu_rsp_mask_i,
  input  logic [RowW-1:0]            lsu_rsp_data_i,
  input  kestrel_pkg::fault_kind_e   lsu_rsp_fault_i,
  input  logic [LaneW-1:0]           lsu_rsp_fault_lane_i,
  input  logic [Xlen-1:0]            lsu_rsp_fault_addr_i,
  // the merged response port (to kestrel_sm_retire and warp management)
  output logic                       rsp_valid_o,
  input  logic                       rsp_ready_i,
  output logic [WarpW-1:0]           rsp_warp_o,
  output logic [31:0]                rsp_pc_o,
  output logic                       rsp_fp_o,
  output logic [4:0]                 rsp_rd_o,
  output logic                       rsp_load_o,
  output logic                       rsp_last_o,
  output logic [Lanes-1:0]           rsp_mask_o,
  output logic [RowW-1:0]            rsp_data_o,
  output kestrel_pkg::fault_kind_e   rsp_fault_o,
  output logic [LaneW-1:0]           rsp_fault_lane_o,
  output logic [Xlen-1:0]            rsp_fault_addr_o,
  // the texture unit's memory port (line reads)
  output logic                       mem_req_valid_o,
  input  logic                       mem_req_ready_i,
  output kestrel_pkg::mem_req_t      mem_req_o,
  input  logic                       mem_rsp_valid_i,
  output logic                       mem_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t      mem_rsp_i,
  // the unit's cache events (kestrel_tex_unit ev_*_o)
  output logic                       ev_tex_hit_o,
  output logic                       ev_tex_miss_o,
  output logic                       ev_desc_miss_o
);
  localparam int unsigned CoordBits = kestrel_tex_pkg::TexCoordBits;
  `KESTREL_STATIC_ASSERT(warps_fit, Warps <= 256)

  typedef enum logic [1:0] {
    StIdle,
    StPass,     // a pass's request to the unit
    StWait,     // its response
    StAnswer    // the beats to the retire port
  } state_e;

  state_e state_q, state_d;
  logic [WarpW-1:0]        warp_q;
  logic [31:0]             pc_q;
  logic [Lanes-1:0]        mask_q;
  logic [2:0]              form_q;
  logic [4:0]              rd_q;
  logic [Lanes*32-1:0]     obj_q;
  logic [Lanes*CoordBits-1:0] coord_q;
  logic [Lanes-1:0]        pending_q, pending_d;
  logic                    merge_q, merge_d;       // a pass after the first
  logic                    fault_valid_q, fault_valid_d;
  kestrel_pkg::fault_kind_e fault_kind_q, fault_kind_d;
  logic [LaneW-1:0]        fault_lane_q, fault_lane_d;
  logic [31:0]             fault_addr_q, fault_addr_d;
  logic [1:0]              beat_q, beat_d;

  logic take;
  assign req_ready_o = state_q == StIdle;
  assign take = req_valid_i && req_ready_o;
  assign busy_o = state_q != StIdle;

  // --- the pass: the lowest pending lane's object and the lanes naming it ----------
  logic [31:0]      pass_obj;
  logic [Lanes-1:0] pass_mask;
  always_comb begin
    pass_obj = '0;
    for (int l = Lanes - 1; l >= 0; l--) begin
      if (pending_q[l]) pass_obj = obj_q[32*l +: 32];
    end
    for (int l = 0; l < Lanes; l++) pass_mask[l] = pending_q[l] && obj_q[32*l +: 32] == pass_obj;
  end

  // --- the unit ----------------------------------------------------------------------
  kestrel_tex_pkg::tex_fetch_req_t unit_req;
  kestrel_tex_pkg::tex_fetch_rsp_t unit_rsp;
  logic                            unit_req_valid, unit_req_ready, unit_rsp_valid, unit_rsp_ready;
  logic [Lanes-1:0]                unit_rsp_mask;
  logic [Lanes*128-1:0]            unit_rsp_value;

  always_comb begin
    unit_req.merge = merge_q;
    unit_req.warp = 8'(warp_q);
    unit_req.desc_addr = pass_obj;
    // funct3 to the unit's form (the decoder allows 0..5 only).
    unit_req.form.layered = form_q == kestrel_pkg::TexForm1dLayered || form_q == kestrel_pkg::TexForm2dLayered;
    unique case (form_q)
      kestrel_pkg::TexForm1d, kestrel_pkg::TexForm1dLayered: unit_req.form.dim = kestrel_tex_pkg::TexDim1D;
      kestrel_pkg::TexForm3d:                                unit_req.form.dim = kestrel_tex_pkg::TexDim3D;
      kestrel_pkg::TexForm1dFetch:                           unit_req.form.dim = kestrel_tex_pkg::TexDimIndexed;
      default:                                               unit_req.form.dim = kestrel_tex_pkg::TexDim2D;
    endcase
  end
  assign unit_req_valid = state_q == StPass;

  kestrel_tex_unit #(
    .Lanes(Lanes), .Sets(Sets), .Ways(Ways), .DescEntries(DescEntries)
  ) u_unit (
    .clk_i, .rst_ni,
    .flush_i        (start_i),
    .req_valid_i    (unit_req_valid),
    .req_ready_o    (unit_req_ready),
    .req_i          (unit_req),
    .req_mask_i     (pass_mask),
    .req_coord_i    (coord_q),
    .rsp_valid_o    (unit_rsp_valid),
    .rsp_ready_i    (unit_rsp_ready),
    .rsp_o          (unit_rsp),
    .rsp_mask_o     (unit_rsp_mask),
    .rsp_value_o    (unit_rsp_value),
    .mem_req_valid_o,
    .mem_req_ready_i,
    .mem_req_o,
    .mem_rsp_valid_i,
    .mem_rsp_ready_o,
    .mem_rsp_i,
    .ev_tex_hit_o,
    .ev_tex_miss_o,
    .ev_desc_miss_o
  );

  // The pass's fault, if any, as the instruction would report it.
  logic                     pass_fault;
  kestrel_pkg::fault_kind_e pass_kind;
  logic [LaneW-1:0]         pass_lane;
  always_comb begin
    pass_fault = unit_rsp.status != kestrel_tex_pkg::TexStatusOk;
    // The unit's faults: a misaligned object, or a read's (a plain read
    // faults only as an illegal address); its refusals are FaultTexture.
    if (unit_rsp.status != kestrel_tex_pkg::TexStatusFault) pass_kind = kestrel_pkg::FaultTexture;
    else if (unit_rsp.fault == 4'(kestrel_pkg::FaultMisaligned)) pass_kind = kestrel_pkg::FaultMisaligned;
    else pass_kind = kestrel_pkg::FaultIllegalAddress;
    pass_lane = LaneW'(unit_rsp.fault_lane);
  end

  // --- control -------------------------------------------------------------------------
  logic answer_shown;   // the texture unit drives the response port
  logic beat_taken;
  logic own_q;          // shown and not yet taken: the port stays ours
  assign answer_shown = state_q == StAnswer && (beat_q != '0 || own_q || !lsu_rsp_valid_i);
  assign beat_taken = answer_shown && rsp_ready_i;
  assign unit_rsp_ready = (state_q == StWait && pending_q != '0)
                          || (beat_taken && (fault_valid_q || beat_q == 2'd3));

  always_comb begin
    state_d = state_q;
    pending_d = pending_q;
    merge_d = merge_q;
    fault_valid_d = fault_valid_q;
    fault_kind_d = fault_kind_q;
    fault_lane_d = fault_lane_q;
    fault_addr_d = fault_addr_q;
    beat_d = beat_q;
    unique case (state_q)
      StIdle: begin
        if (take) begin
          pending_d = req_mask_i;
          merge_d = 1'b0;
          fault_valid_d = 1'b0;
          beat_d = '0;
          state_d = (req_mask_i == '0) ? StAnswer : StPass;
        end
      end
      StPass: begin
        if (unit_req_ready) begin
          pending_d = pending_q & ~pass_mask;
          state_d = StWait;
        end
      end
      StWait: begin
        if (unit_rsp_valid) begin
          if (pass_fault && (!fault_valid_q || pass_lane < fault_lane_q)) begin
            fault_valid_d = 1'b1;
            fault_kind_d = pass_kind;
            fault_lane_d = pass_lane;
            fault_addr_d = unit_rsp.fault_addr;
          end
          merge_d = 1'b1;
          // The last pass's response stays while its values are written.
          state_d = (pending_q != '0) ? StPass : StAnswer;
        end
      end
      StAnswer: begin
        if (beat_taken) begin
          beat_d = beat_q + 2'd1;
          if (fault_valid_q || beat_q == 2'd3 || mask_q == '0) state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      pending_q <= '0;
      merge_q <= 1'b0;
      fault_valid_q <= 1'b0;
      fault_kind_q <= kestrel_pkg::FaultNone;
      fault_lane_q <= '0;
      fault_addr_q <= '0;
      beat_q <= '0;
      own_q <= 1'b0;
    end else begin
      own_q <= answer_shown && !rsp_ready_i;
      state_q <= state_d;
      pending_q <= pending_d;
      merge_q <= merge_d;
      fault_valid_q <= fault_valid_d;
      fault_kind_q <= fault_kind_d;
      fault_lane_q <= fault_lane_d;
      fault_addr_q <= fault_addr_d;
      beat_q <= beat_d;
    end
  end

  // The instruction's operands: written at the hand-over, read until its
  // last beat.
  always_ff @(posedge clk_i) begin
    if (take) begin
      warp_q <= req_warp_i;
      pc_q <= req_pc_i;
      mask_q <= req_mask_i;
      form_q <= req_form_i;
      rd_q <= req_rd_i;
      for (int l = 0; l < Lanes; l++) begin
        obj_q[32*l +: 32] <= req_obj_i[Xlen*l +: 32];
        // tex_coord_t: {layer, z, y, x}
        coord_q[CoordBits*l +: CoordBits] <= {req_layer_i[Xlen*l +: 32], req_z_i[32*l +: 32],
                                              req_y_i[32*l +: 32], req_x_i[32*l +: 32]};
      end
    end
  end

  // --- the response port ---------------------------------------------------------------
  always_comb begin
    if (answer_shown) begin
      rsp_valid_o = 1'b1;
      rsp_warp_o = warp_q;
      rsp_pc_o = pc_q;
      rsp_fp_o = 1'b1;
      rsp_rd_o = rd_q + 5'(beat_q);
      rsp_load_o = !fault_valid_q && mask_q != '0;
      rsp_last_o = fault_valid_q || beat_q == 2'd3 || mask_q == '0;
      rsp_mask_o = mask_q;
      rsp_data_o = '0;
      for (int l = 0; l < Lanes; l++) rsp_data_o[Xlen*l +: 32] = unit_rsp_value[128*l + 32*beat_q +: 32];
      rsp_fault_o = fault_valid_q ? fault_kind_q : kestrel_pkg::FaultNone;
      rsp_fault_lane_o = fault_lane_q;
      rsp_fault_addr_o = Xlen'(fault_addr_q);
    end else begin
      rsp_valid_o = lsu_rsp_valid_i;
      rsp_warp_o = lsu_rsp_warp_i;
      rsp_pc_o = lsu_rsp_pc_i;
      rsp_fp_o = lsu_rsp_fp_i;
      rsp_rd_o = lsu_rsp_rd_i;
      rsp_load_o = lsu_rsp_load_i;
      rsp_last_o = lsu_rsp_last_i;
      rsp_mask_o = lsu_rsp_mask_i;
      rsp_data_o = lsu_rsp_data_i;
      rsp_fault_o = lsu_rsp_fault_i;
      rsp_fault_lane_o = lsu_rsp_fault_lane_i;
      rsp_fault_addr_o = lsu_rsp_fault_addr_i;
    end
  end
  assign lsu_rsp_ready_o = !answer_shown && rsp_ready_i;

  // The unit's response mask is the last pass's; the instruction's is kept here.
  logic [Lanes-1:0] unused_rsp_mask;
  assign unused_rsp_mask = unit_rsp_mask;
  logic [7:0] unused_rsp_warp;
  assign unused_rsp_warp = unit_rsp.warp;

  `KESTREL_ASSERT_KNOWN(req_valid_known, req_valid_i)
  `KESTREL_ASSERT(req_taken, req_valid_i |-> req_ready_o)
  `KESTREL_ASSERT_HANDSHAKE(rsp, rsp_valid_o, rsp_ready_i,
                            {rsp_warp_o, rsp_pc_o, rsp_rd_o, rsp_last_o, rsp_mask_o, rsp_fault_o})
  // Writing the values, the last pass's response is still held.
  `KESTREL_ASSERT(values_held, answer_shown && !fault_valid_q && mask_q != '0 |-> unit_rsp_valid)
endmodule
