// Lab 06's RTL bench (make check): the tree's kestrel_warp_sched, 8 warps,
// under the three policies side by side on the same inputs: loose
// round-robin (0), greedy-then-oldest (1) and the student's (2).
// lab06_bench.cpp drives it.
module lab06_sched (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic [7:0] ready_i,
  input  logic [7:0] launch_i,
  input  logic       issue_i,
  output logic [2:0] valid_o,      // bit p: policy p has a choice
  output logic [8:0] warp_o        // bits 3p+2..3p: policy p's choice
);
  for (genvar p = 0; p < 3; p++) begin : gen_policy
    kestrel_warp_sched #(.Warps(8), .Policy(p)) u_sched (
      .clk_i, .rst_ni,
      .ready_i, .launch_i, .issue_i,
      .valid_o(valid_o[p]),
      .warp_o (warp_o[3*p +: 3])
    );
  end
endmodule
