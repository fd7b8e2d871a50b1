// kestrel_group_sel: the thread-group choice of docs/isa.md section 6 for one
// warp, combinational.  Given every lane's PC and the eligible lanes (not
// exited, not waiting at a barrier), it returns the PC to execute, the
// active mask (eligible lanes at that PC) and the fairness state to commit if
// the group issues:
//
//   m = min PC over E; diverged = some eligible PC != m
//   diverged and fair_count == FairnessPeriod-1:
//       C = {pc > rr_pc} of E (E if empty); p = min C; rr_pc = p; fair_count = 0
//   else p = m; fair_count = diverged ? fair_count + 1 : 0
//
// The SM runs it once per group change; the model runs the same rule, so
// both pick identical groups (lock-step depends on it).
module kestrel_group_sel #(
  parameter int unsigned Lanes = 32,
  localparam int unsigned FairW = $clog2(kestrel_pkg::FairnessPeriod)
) (
  input  logic [Lanes*32-1:0] pcs_i,        // lane i at [32*i +: 32]
  input  logic [Lanes-1:0]    eligible_i,
  input  logic [FairW-1:0]    fair_count_i,
  input  logic [31:0]         rr_pc_i,
  output logic                valid_o,      // some lane is eligible
  output logic [31:0]         pc_o,
  output logic [Lanes-1:0]    mask_o,
  output logic                diverged_o,
  output logic [FairW-1:0]    fair_count_o,
  output logic [31:0]         rr_pc_o
);
  logic [31:0] min_all, min_after;
  logic any_after;
  logic [Lanes-1:0] after_rr, fair_set;
  logic unused_fair_valid;

  kestrel_min_find #(.N(Lanes), .Width(32)) u_min_all (
    .values_i(pcs_i),
    .valid_i (eligible_i),
    .valid_o (valid_o),
    .min_o   (min_all)
  );

  always_comb begin
    for (int unsigned i = 0; i < Lanes; i++) begin
      after_rr[i] = eligible_i[i] && (pcs_i[32*i +: 32] > rr_pc_i);
    end
    any_after = |after_rr;
    fair_set = any_after ? after_rr : eligible_i;
  end

  kestrel_min_find #(.N(Lanes), .Width(32)) u_min_fair (
    .values_i(pcs_i),
    .valid_i (fair_set),
    .valid_o (unused_fair_valid),  // same as valid_o: fair_set is E when C is empty
    .min_o   (min_after)
  );

  always_comb begin
    diverged_o = 1'b0;
    for (int unsigned i = 0; i < Lanes; i++) begin
      if (eligible_i[i] && pcs_i[32*i +: 32] != min_all) diverged_o = 1'b1;
    end
    if (diverged_o && fair_count_i == FairW'(kestrel_pkg::FairnessPeriod - 1)) begin
      pc_o = min_after;
      rr_pc_o = min_after;
      fair_count_o = '0;
    end else begin
      pc_o = min_all;
      rr_pc_o = rr_pc_i;
      fair_count_o = diverged_o ? fair_count_i + 1'b1 : '0;
    end
    for (int unsigned i = 0; i < Lanes; i++) begin
      mask_o[i] = eligible_i[i] && (pcs_i[32*i +: 32] == pc_o);
    end
  end
endmodule
