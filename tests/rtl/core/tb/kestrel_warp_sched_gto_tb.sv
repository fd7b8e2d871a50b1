// Bench wrapper: kestrel_warp_sched with the greedy-then-oldest policy.
// The -G option of the simulator cannot set an enum parameter, so the bench instantiates it.
module kestrel_warp_sched_gto_tb #(
  parameter int unsigned Warps = 4,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic [Warps-1:0] ready_i,
  input  logic [Warps-1:0] launch_i,
  input  logic             issue_i,
  output logic             valid_o,
  output logic [WarpW-1:0] warp_o
);
  kestrel_warp_sched #(.Warps(Warps), .Policy(32'(kestrel_pkg::SchedGreedyThenOldest))) u_sched (.*);
endmodule
