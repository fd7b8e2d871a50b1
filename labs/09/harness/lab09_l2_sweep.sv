// Lab 09's sweep (README.md): the tree's kestrel_l2_cache at Configs
// parameter points side by side, each with its own ports, so that a single
// build (one Verilation, one C++ compile) covers the whole sweep and the harness
// (lab09_replay.cpp) replays a trace on every point at once.  The points are
// listed here once: sets_o, ways_o and mshrs_o tell the harness what each
// instance is.  QueueDepth is the GPU's (kestrel_gpu: twice the crossbar's
// 16 requests), so that a read of a line being filled can enter while the
// fill is out (a merge) as it can in the GPU.
module lab09_l2_sweep #(
  parameter int unsigned Configs = 9  // at most 32: the harness's valid bits are one integer
) (
  input  logic                                clk_i,
  input  logic                                rst_ni,
  output logic [7:0]                          configs_o,
  output logic [Configs-1:0][15:0]            sets_o,
  output logic [Configs-1:0][15:0]            ways_o,
  output logic [Configs-1:0][15:0]            mshrs_o,
  input  logic [Configs-1:0]                  in_req_valid_i,
  output logic [Configs-1:0]                  in_req_ready_o,
  input  kestrel_pkg::mem_req_t [Configs-1:0] in_req_i,
  output logic [Configs-1:0]                  in_rsp_valid_o,
  input  logic [Configs-1:0]                  in_rsp_ready_i,
  output kestrel_pkg::mem_rsp_t [Configs-1:0] in_rsp_o,
  output logic [Configs-1:0]                  ext_req_valid_o,
  input  logic [Configs-1:0]                  ext_req_ready_i,
  output kestrel_pkg::mem_req_t [Configs-1:0] ext_req_o,
  input  logic [Configs-1:0]                  ext_rsp_valid_i,
  output logic [Configs-1:0]                  ext_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t [Configs-1:0] ext_rsp_i,
  output logic [Configs-1:0]                  ev_hit_o,
  output logic [Configs-1:0]                  ev_miss_o,
  output logic [Configs-1:0]                  ev_merge_o,
  output logic [Configs-1:0]                  ev_evict_o,
  output logic [Configs-1:0]                  ev_write_o
);
  // The points, smallest first: index i is bits [16*i +: 16].  1 KiB to
  // 128 KiB (the GPU's size and ways, 256 x 8, here with 8 MSHRs; the
  // GPU's has 16); 64 x 4 also with one MSHR, for the fills in flight.
  localparam logic [Configs-1:0][15:0] Sets  = {16'd256, 16'd256, 16'd64, 16'd64, 16'd256, 16'd64, 16'd64, 16'd16, 16'd16};
  localparam logic [Configs-1:0][15:0] Ways  = {16'd8,   16'd4,   16'd4,  16'd4,  16'd1,   16'd2,  16'd1,  16'd4,  16'd1};
  localparam logic [Configs-1:0][15:0] Mshrs = {16'd8,   16'd4,   16'd1,  16'd4,  16'd4,   16'd4,  16'd4,  16'd4,  16'd4};

  assign configs_o = 8'(Configs);
  assign sets_o = Sets;
  assign ways_o = Ways;
  assign mshrs_o = Mshrs;

  for (genvar i = 0; i < Configs; i++) begin : gen_point
    // No invalidate: the harness resets between traces.
    /* verilator lint_off PINCONNECTEMPTY */
    kestrel_l2_cache #(
      .Sets(int'(Sets[i])), .Ways(int'(Ways[i])), .Mshrs(int'(Mshrs[i])), .QueueDepth(32)
    ) u_l2 (
      .clk_i          (clk_i),
      .rst_ni         (rst_ni),
      .inv_i          (1'b0),
      .inv_busy_o     (),
      .in_req_valid_i (in_req_valid_i[i]),
      .in_req_ready_o (in_req_ready_o[i]),
      .in_req_i       (in_req_i[i]),
      .in_rsp_valid_o (in_rsp_valid_o[i]),
      .in_rsp_ready_i (in_rsp_ready_i[i]),
      .in_rsp_o       (in_rsp_o[i]),
      .ext_req_valid_o(ext_req_valid_o[i]),
      .ext_req_ready_i(ext_req_ready_i[i]),
      .ext_req_o      (ext_req_o[i]),
      .ext_rsp_valid_i(ext_rsp_valid_i[i]),
      .ext_rsp_ready_o(ext_rsp_ready_o[i]),
      .ext_rsp_i      (ext_rsp_i[i]),
      .ev_hit_o       (ev_hit_o[i]),
      .ev_miss_o      (ev_miss_o[i]),
      .ev_merge_o     (ev_merge_o[i]),
      .ev_evict_o     (ev_evict_o[i]),
      .ev_write_o     (ev_write_o[i])
    );
    /* verilator lint_on PINCONNECTEMPTY */
  end
endmodule
