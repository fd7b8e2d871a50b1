// kestrel_amo_fadd: the single-precision add of kx.amofadd.s (docs/isa.md
// section 2.2), combinational: old_i + addend_i rounded to nearest even
// whatever frm holds, the canonical NaN (0x7FC00000) for every NaN result,
// subnormal operands and results kept, no flags (CUDA has none and the adder
// sits beside the memory).  One instance sits in the LSU (shared by the
// banks, one lane at a time) and one in the memory-side atomic unit.
//
// The larger magnitude's significand is kept with four extra low bits, the
// smaller one is shifted right to its exponent with the shifted-out bits ORed
// into bit 0 (sticky); their sum or difference is exact where it matters and
// kestrel_fpu_round (the FPU's rounding unit) normalizes and rounds it.
module kestrel_amo_fadd (
  input  logic [31:0] old_i,
  input  logic [31:0] addend_i,
  output logic [31:0] sum_o
);
  localparam int unsigned Extra = 4;                // bits below the significand
  localparam int unsigned SigW = 24 + Extra;        // an aligned significand
  localparam int unsigned MagW = SigW + 1;          // the sum's carry

  logic a_nan, b_nan, a_inf, b_inf;
  logic swap;
  logic [31:0] hi, lo;
  logic [7:0] hi_e, lo_e;
  logic [23:0] hi_sig, lo_sig;
  logic [7:0] diff;
  logic [SigW-1:0] hi_al, lo_al, lo_sh, lost_mask;
  logic lo_sticky;
  logic [MagW-1:0] mag;
  logic signed [12:0] exp_lsb;
  logic [31:0] rounded;
  logic [4:0] unused_flags;

  always_comb begin
    a_nan = old_i[30:23] == 8'hFF && old_i[22:0] != '0;
    b_nan = addend_i[30:23] == 8'hFF && addend_i[22:0] != '0;
    a_inf = old_i[30:23] == 8'hFF && old_i[22:0] == '0;
    b_inf = addend_i[30:23] == 8'hFF && addend_i[22:0] == '0;
    // Order by magnitude: the exponent and fraction fields compare as one.
    swap = addend_i[30:0] > old_i[30:0];
    hi = swap ? addend_i : old_i;
    lo = swap ? old_i : addend_i;
    // Subnormals: no hidden bit, exponent 1.
    hi_e = (hi[30:23] == 8'd0) ? 8'd1 : hi[30:23];
    lo_e = (lo[30:23] == 8'd0) ? 8'd1 : lo[30:23];
    hi_sig = {hi[30:23] != 8'd0, hi[22:0]};
    lo_sig = {lo[30:23] != 8'd0, lo[22:0]};
    diff = hi_e - lo_e;
    hi_al = {hi_sig, {Extra{1'b0}}};
    lo_al = {lo_sig, {Extra{1'b0}}};
    // Right shift with sticky; a shift of SigW or more leaves only the sticky.
    lost_mask = '0;
    if (diff >= 8'(SigW)) begin
      lo_sh = '0;
      lo_sticky = lo_sig != '0;
    end else begin
      lo_sh = lo_al >> diff;
      lost_mask = ~({SigW{1'b1}} << diff);
      lo_sticky = (lo_al & lost_mask) != '0;
    end
    lo_sh[0] = lo_sh[0] | lo_sticky;
    mag = (hi[31] == lo[31]) ? {1'b0, hi_al} + {1'b0, lo_sh} : {1'b0, hi_al} - {1'b0, lo_sh};
    // value = mag * 2^(hi_e - 127 - 23 - Extra)
    exp_lsb = 13'(hi_e) - 13'sd150 - 13'(Extra);
  end

  kestrel_fpu_round #(.Width(MagW)) u_round (
    .sign_i     (hi[31]),
    .mag_i      (mag),
    .exp_lsb_i  (exp_lsb),
    .rm_i       (kestrel_fpu_pkg::RoundNearestEven),
    .zero_sign_i(old_i[31] & addend_i[31]),  // an exact zero is -0 only for -0 + -0 (RNE)
    .result_o   (rounded),
    .flags_o    (unused_flags)
  );

  always_comb begin
    sum_o = rounded;
    if (a_nan || b_nan || (a_inf && b_inf && old_i[31] != addend_i[31])) begin
      sum_o = 32'h7FC0_0000;
    end else if (a_inf || b_inf) begin
      sum_o = a_inf ? old_i : addend_i;
    end
  end
endmodule
