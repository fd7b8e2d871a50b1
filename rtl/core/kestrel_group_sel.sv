// kestrel_group_sel: the thread-group choice of docs/isa.md section 6 for one
// warp, combinational.  Given every lane's PC and the eligible lanes (not
// exited, not waiting at a barrier), it returns the PC to execute, the
// active mask (eligible lanes at that PC) and the yield and fairness state
// to commit if the group issues:
//
//   m = min PC over E; diverged = some eligible PC != m
//   diverged and yield_left > 0 and Y = {pc > yield_pc} of E not empty:
//       p = min Y; yield_left -= 1 (fairness state unchanged)
//   otherwise yield_left = 0 and
//     diverged and fair_count == FairnessPeriod-1:
//       C = {pc > rr_pc} of E (E if empty); p = min C; rr_pc = p; fair_count = 0
//     else p = m; fair_count = diverged ? fair_count + 1 : 0
//
// The SM runs it once per group change; the model runs the same rule, so
// both pick identical groups (lock-step depends on it).  The yield and the
// fairness step never coincide, so one second minimum serves both.
module kestrel_group_sel #(
  parameter int unsigned Lanes = 32,
  localparam int unsigned FairW = $clog2(kestrel_pkg::FairnessPeriod),
  localparam int unsigned YieldW = $clog2(kestrel_pkg::SpinYieldIssues + 1)
) (
  input  logic [Lanes*32-1:0] pcs_i,        // lane i at [32*i +: 32]
  input  logic [Lanes-1:0]    eligible_i,
  input  logic [FairW-1:0]    fair_count_i,
  input  logic [31:0]         rr_pc_i,
  input  logic [YieldW-1:0]   yield_left_i,
  input  logic [31:0]         yield_pc_i,
  output logic                valid_o,      // some lane is eligible
  output logic [31:0]         pc_o,
  output logic [Lanes-1:0]    mask_o,
  output logic                diverged_o,
  output logic [FairW-1:0]    fair_count_o,
  output logic [31:0]         rr_pc_o,
  output logic [YieldW-1:0]   yield_left_o
);
  logic [31:0] min_all, min_after;
  logic any_after, any_above_yield, yielding;
  logic [Lanes-1:0] after_rr, above_yield, second_set;
  logic unused_second_valid;

  kestrel_min_find #(.N(Lanes), .Width(32)) u_min_all (
    .values_i(pcs_i),
    .valid_i (eligible_i),
    .valid_o (valid_o),
    .min_o   (min_all)
  );

  always_comb begin
    diverged_o = 1'b0;
    for (int unsigned i = 0; i < Lanes; i++) begin
      after_rr[i] = eligible_i[i] && (pcs_i[32*i +: 32] > rr_pc_i);
      above_yield[i] = eligible_i[i] && (pcs_i[32*i +: 32] > yield_pc_i);
      if (eligible_i[i] && pcs_i[32*i +: 32] != min_all) diverged_o = 1'b1;
    end
    any_after = |after_rr;
    any_above_yield = |above_yield;
    yielding = diverged_o && yield_left_i != '0 && any_above_yield;
    second_set = yielding ? above_yield : any_after ? after_rr : eligible_i;
  end

  kestrel_min_find #(.N(Lanes), .Width(32)) u_min_second (
    .values_i(pcs_i),
    .valid_i (second_set),
    .valid_o (unused_second_valid),  // same as valid_o: second_set is E when neither Y nor C applies
    .min_o   (min_after)
  );

  always_comb begin
    if (yielding) begin
      pc_o = min_after;
      rr_pc_o = rr_pc_i;
      fair_count_o = fair_count_i;
      yield_left_o = yield_left_i - 1'b1;
    end else if (diverged_o && fair_count_i == FairW'(kestrel_pkg::FairnessPeriod - 1)) begin
      pc_o = min_after;
      rr_pc_o = min_after;
      fair_count_o = '0;
      yield_left_o = '0;
    end else begin
      pc_o = min_all;
      rr_pc_o = rr_pc_i;
      fair_count_o = diverged_o ? fair_count_i + 1'b1 : '0;
      yield_left_o = '0;
    end
    for (int unsigned i = 0; i < Lanes; i++) begin
      mask_o[i] = eligible_i[i] && (pcs_i[32*i +: 32] == pc_o);
    end
  end
endmodule
