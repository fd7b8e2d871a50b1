// kestrel_fpu_round: normalizes an exact (or sticky-bit terminated) binary
// magnitude and rounds it to IEEE-754 binary32, combinational.  Every Kestrel
// FP unit that produces a rounded float ends here, so there is one place that
// knows the RISC-V rules: five rounding modes, subnormal results (never
// flushed), tininess detected after rounding, the overflow result of each
// mode, and the NX/UF/OF flags.
//
// The value is (-1)^sign_i * mag_i * 2^exp_lsb_i.  A producer that had to drop
// low-order bits ORs them into mag_i[0] (the sticky bit); that is exact enough
// as long as at least two bits separate bit 0 from the rounding position,
// which every caller guarantees by construction (see docs/fpu.md).
module kestrel_fpu_round #(
  parameter int unsigned Width = 77  // magnitude bits, at least 26
) (
  input  logic                            sign_i,
  input  logic [Width-1:0]                mag_i,
  input  logic signed [12:0]              exp_lsb_i,  // exponent of mag_i[0]
  input  logic [2:0]                      rm_i,       // kestrel_fpu_pkg::round_mode_e
  input  logic                            zero_sign_i, // sign of an exact zero result
  output logic [31:0]                     result_o,
  output logic [4:0]                      flags_o      // NX, UF, OF only
);
  localparam int unsigned LzW = $clog2(Width + 1);
  localparam int unsigned ShW = LzW + 1;
  // Signed copies: one unsigned operand would make a whole comparison unsigned.
  localparam logic signed [13:0] WidthS = 14'(Width);

  // Leading zeros of mag_i (Width when it is zero).
  function automatic logic [LzW-1:0] leading_zeros(input logic [Width-1:0] value);
    leading_zeros = LzW'(Width);
    for (int unsigned bit_index = 0; bit_index < Width; bit_index++) begin
      if (value[bit_index]) leading_zeros = LzW'(Width - 1 - bit_index);
    end
  endfunction

  // Rounding increment for a truncated magnitude with its last kept bit,
  // the first dropped bit (guard) and the OR of the rest (sticky).
  function automatic logic round_up(input logic [2:0] rm, input logic sign,
                                    input logic lsb, input logic guard, input logic sticky);
    unique case (rm)
      kestrel_fpu_pkg::RoundNearestEven: round_up = guard & (sticky | lsb);
      kestrel_fpu_pkg::RoundTowardZero:  round_up = 1'b0;
      kestrel_fpu_pkg::RoundDown:        round_up = (guard | sticky) & sign;
      kestrel_fpu_pkg::RoundUp:          round_up = (guard | sticky) & ~sign;
      kestrel_fpu_pkg::RoundNearestMax:  round_up = guard;
      default:                           round_up = guard & (sticky | lsb);
    endcase
  endfunction

  logic [LzW-1:0] lz;
  logic is_zero, normal, overflow, tiny, inexact, inc, tiny_rounds_to_normal;
  logic signed [13:0] exp_top, max_left, lz_s;
  logic [ShW-1:0] shift;
  logic [Width-1:0] norm, lost_mask;
  logic right_sticky, guard, sticky;
  logic [23:0] mant;
  logic [7:0] exp_field_m1;
  logic [30:0] packed_sum;

  always_comb begin
    lz = leading_zeros(mag_i);
    is_zero = (mag_i == '0);
    // Exponent of the leading one, and how far left the magnitude may move
    // before its last kept bit would fall below 2^-149 (the subnormal LSB).
    lz_s = 14'(lz);
    exp_top = $signed({exp_lsb_i[12], exp_lsb_i}) + WidthS - 14'sd1 - lz_s;
    max_left = $signed({exp_lsb_i[12], exp_lsb_i}) + WidthS + 14'sd125;
    normal = (max_left >= lz_s);

    norm = '0;
    right_sticky = 1'b0;
    lost_mask = '0;
    shift = '0;
    if (normal) begin
      shift = ShW'(lz);
      norm = mag_i << shift;
    end else if (max_left >= 0) begin
      shift = ShW'(max_left);
      norm = mag_i << shift;
    end else begin
      // Far below the subnormal range: shift right, keeping what falls out as sticky.
      shift = (-max_left > WidthS) ? ShW'(Width) : ShW'(-max_left);
      norm = mag_i >> shift;
      lost_mask = ~({Width{1'b1}} << shift);
      right_sticky = |(mag_i & lost_mask);
    end

    mant = norm[Width-1 -: 24];
    guard = norm[Width-25];
    sticky = right_sticky | (|norm[Width-26:0]);
    inexact = guard | sticky;
    inc = round_up(rm_i, sign_i, mant[0], guard, sticky);

    // Tininess after rounding: the value rounded to 24 bits with an unbounded
    // exponent is below 2^-126.  Only a leading one at 2^-127 can round up to
    // 2^-126; its 24 normalized bits sit one position lower in `norm`.
    tiny_rounds_to_normal = (&norm[Width-2 -: 24]) &
        round_up(rm_i, sign_i, norm[Width-25], norm[Width-26],
                 right_sticky | (|norm[Width-27:0]));
    tiny = !normal && !(exp_top == -14'sd127 && tiny_rounds_to_normal);

    // Packing adds the rounding increment to {exponent - 1, hidden bit,
    // fraction}: a carry out of the fraction bumps the exponent, which also
    // turns the largest subnormal into the smallest normal.
    exp_field_m1 = normal ? 8'(exp_top + 14'sd126) : 8'd0;
    packed_sum = {exp_field_m1, 23'd0} + {7'd0, mant} + 31'(inc);
    overflow = normal && ((exp_top > 14'sd127) || (packed_sum[30:23] == 8'hFF));

    result_o = {sign_i, packed_sum[30:0]};
    flags_o = '0;
    flags_o[kestrel_fpu_pkg::FlagNX] = inexact;
    flags_o[kestrel_fpu_pkg::FlagUF] = tiny & inexact;
    if (is_zero) begin
      result_o = {zero_sign_i, 31'd0};
      flags_o = '0;
    end else if (overflow) begin
      flags_o[kestrel_fpu_pkg::FlagOF] = 1'b1;
      flags_o[kestrel_fpu_pkg::FlagNX] = 1'b1;
      flags_o[kestrel_fpu_pkg::FlagUF] = 1'b0;
      unique case (rm_i)
        kestrel_fpu_pkg::RoundTowardZero: result_o = {sign_i, 31'h7F7F_FFFF};
        kestrel_fpu_pkg::RoundDown:       result_o = sign_i ? 32'hFF80_0000 : 32'h7F7F_FFFF;
        kestrel_fpu_pkg::RoundUp:         result_o = sign_i ? 32'hFF7F_FFFF : 32'h7F80_0000;
        default:                          result_o = {sign_i, 31'h7F80_0000};
      endcase
    end
  end
endmodule
