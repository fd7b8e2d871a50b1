// kestrel_warp_sched: picks the warp that issues this cycle among the ready
// ones, combinational choice, state updated on `issue_i`.
//   SchedLooseRoundRobin: the first ready warp after the last one issued.
//   SchedGreedyThenOldest: the last issued warp while it stays ready, else the
//   oldest ready warp (launch order, tracked by an age matrix).
// `launch_i` marks a warp as (re)started: it becomes the youngest.
module kestrel_warp_sched #(
  parameter int unsigned Warps = 8,
  parameter int unsigned Policy = 32'(kestrel_pkg::SchedLooseRoundRobin),  // kestrel_pkg::sched_policy_e
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic [Warps-1:0] ready_i,
  input  logic [Warps-1:0] launch_i,
  input  logic             issue_i,      // the chosen warp issued this cycle
  output logic             valid_o,
  output logic [WarpW-1:0] warp_o
);
  logic [WarpW-1:0] last_q;
  logic last_valid_q;
  // Bit Warps*i + j: warp i was launched before warp j.
  logic [Warps*Warps-1:0] older_q;

  logic rr_valid;
  logic [WarpW-1:0] rr_index;
  logic [Warps-1:0] rr_grant, oldest;
  logic unused_rr_grant;

  kestrel_rr_arb #(.N(Warps)) u_rr (
    .clk_i, .rst_ni,
    .req_i    (ready_i),
    .advance_i(issue_i),
    .valid_o  (rr_valid),
    .index_o  (rr_index),
    .grant_o  (rr_grant)
  );
  assign unused_rr_grant = ^rr_grant;

`ifndef SYNTHESIS
  // A new policy (kestrel_pkg::sched_policy_e leaves 2-15 free) is added here.
  if (Policy != 32'(kestrel_pkg::SchedLooseRoundRobin) && Policy != 32'(kestrel_pkg::SchedGreedyThenOldest))
  begin : gen_policy_check
    $error("kestrel_warp_sched: Policy %0d is not a kestrel_pkg::sched_policy_e this unit implements", Policy);
  end
`endif

  always_comb begin
    for (int unsigned i = 0; i < Warps; i++) begin
      oldest[i] = ready_i[i];
      for (int unsigned j = 0; j < Warps; j++) begin
        if (j != i && ready_i[j] && !older_q[Warps*i + j]) oldest[i] = 1'b0;
      end
    end
    valid_o = rr_valid;  // some warp is ready, under either policy
    warp_o = rr_index;
    if (Policy == 32'(kestrel_pkg::SchedGreedyThenOldest)) begin
      if (last_valid_q && ready_i[last_q]) begin
        warp_o = last_q;
      end else begin
        warp_o = '0;
        for (int i = Warps - 1; i >= 0; i--) begin
          if (oldest[i]) warp_o = WarpW'(i);
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_q <= '0;
      last_valid_q <= 1'b0;
      older_q <= '0;
    end else begin
      if (issue_i) begin
        last_q <= warp_o;
        last_valid_q <= 1'b1;
      end
      for (int unsigned i = 0; i < Warps; i++) begin
        if (launch_i[i]) begin
          // A launched warp is younger than every other warp.
          for (int unsigned j = 0; j < Warps; j++) begin
            older_q[Warps*i + j] <= 1'b0;
            if (j != i) older_q[Warps*j + i] <= 1'b1;
          end
        end
      end
    end
  end
endmodule
