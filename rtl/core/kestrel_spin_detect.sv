// kestrel_spin_detect: which warps spin (docs/isa.md section 6, "Spinning").
//
// Per warp it remembers the last conditional branch that its issuing
// group's lowest lane took backward (to the branch's own PC or below): the
// PC, the group's lanes and that lane's two operand values.  Taken again
// with the same PC, lanes and values, nothing the branch tests has changed
// since the last iteration (a lock word still held, a flag still clear), so
// the group spins: spin_o, on which kestrel_sm_warp_ctrl lets the groups
// above the branch run first (the model applies the same rule).
//
// A warp whose every eligible lane spins has no group to yield to; it backs
// off instead: no issue for 2^BackoffMinLog2 cycles, doubling with each
// further spin up to 2^BackoffMaxLog2, back to the minimum after any other
// backward branch or a spin that left some lane behind.  The back-off only
// delays the warp (no lane changes state), so results and lock-step are
// untouched; it keeps spinning warps' atomics from queueing at memory ahead
// of the lock holder's release.
`include "kestrel_assert.svh"

module kestrel_spin_detect #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned BackoffMinLog2 = 5,
  parameter int unsigned BackoffMaxLog2 = 10,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned LeftW = BackoffMaxLog2 + 1,
  localparam int unsigned StepW = $clog2(BackoffMaxLog2 + 1)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               flush_i,       // start or abort: forget every warp
  input  logic               start_i,       // warp start_warp_i (re)starts: forget it
  input  logic [WarpW-1:0]   start_warp_i,
  input  logic               branch_i,      // stage 1: a branch whose lowest lane goes back
  input  logic [WarpW-1:0]   warp_i,
  input  logic [31:0]        pc_i,
  input  logic [Lanes-1:0]   mask_i,
  input  logic [2*Xlen-1:0]  ops_i,         // that lane's rs2 and rs1
  input  logic               whole_i,       // every eligible lane of the warp took it
  output logic               spin_o,
  output logic [Warps-1:0]   backoff_o      // warps waiting out a back-off
);
  logic [Warps-1:0] rec_valid_q;
  logic [31:0] rec_pc_q [Warps];
  logic [Lanes-1:0] rec_mask_q [Warps];
  logic [2*Xlen-1:0] rec_ops_q [Warps];
  logic [Warps*StepW-1:0] step_q;  // log2 of each warp's next back-off
  logic [Warps*LeftW-1:0] left_q;  // back-off cycles left
  logic [StepW-1:0] step_w;
  assign step_w = step_q[32'(warp_i)*StepW +: StepW];

  assign spin_o = branch_i && rec_valid_q[warp_i] && rec_pc_q[warp_i] == pc_i && rec_mask_q[warp_i] == mask_i
                  && rec_ops_q[warp_i] == ops_i;

  // The record itself needs no reset: rec_valid_q guards it.
  always_ff @(posedge clk_i) begin
    if (branch_i && !spin_o) begin
      rec_pc_q[warp_i] <= pc_i;
      rec_mask_q[warp_i] <= mask_i;
      rec_ops_q[warp_i] <= ops_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rec_valid_q <= '0;
      step_q <= {Warps{StepW'(BackoffMinLog2)}};
      left_q <= '0;
    end else if (flush_i) begin
      rec_valid_q <= '0;
      step_q <= {Warps{StepW'(BackoffMinLog2)}};
      left_q <= '0;
    end else begin
      for (int unsigned w = 0; w < Warps; w++) begin
        if (left_q[w*LeftW +: LeftW] != '0) left_q[w*LeftW +: LeftW] <= left_q[w*LeftW +: LeftW] - 1'b1;
      end
      if (branch_i) begin
        rec_valid_q[warp_i] <= 1'b1;
        if (spin_o && whole_i) begin
          left_q[32'(warp_i)*LeftW +: LeftW] <= LeftW'(1) << step_w;
          if (step_w != StepW'(BackoffMaxLog2)) step_q[32'(warp_i)*StepW +: StepW] <= step_w + 1'b1;
        end else begin
          step_q[32'(warp_i)*StepW +: StepW] <= StepW'(BackoffMinLog2);
        end
      end
      if (start_i) begin
        rec_valid_q[start_warp_i] <= 1'b0;
        step_q[32'(start_warp_i)*StepW +: StepW] <= StepW'(BackoffMinLog2);
        left_q[32'(start_warp_i)*LeftW +: LeftW] <= '0;
      end
    end
  end

  always_comb begin
    for (int unsigned w = 0; w < Warps; w++) backoff_o[w] = left_q[w*LeftW +: LeftW] != '0;
  end

  `KESTREL_ASSERT(spin_needs_branch, spin_o |-> branch_i)
  `KESTREL_STATIC_ASSERT(backoff_range, BackoffMinLog2 <= BackoffMaxLog2)
  `KESTREL_ASSERT(backoff_bounded, step_w <= StepW'(BackoffMaxLog2))
  `KESTREL_ASSERT_KNOWN(spin_known, spin_o)
endmodule
