// kestrel_tex_norm_to_float: +-m / (2^b - 1) correctly rounded to binary32
// (to nearest even), combinational, for b = 7, 8, 15 or 16 and m <= 2^b - 1:
// the normalized-integer reads of texture_math.hpp (normalized_exact,
// fixed16_to_float; CUDA C Programming Guide v8.0, 3.2.11.1).  The quotient
// needs no divider: m / (2^b - 1) is the b-bit digit m repeated forever
// (0.mmmm... in base 2^b), so its bits are known, it is never exact below
// m = 2^b - 1 (the tail is never zero: a sticky bit of 1, hence no ties) and
// rounding looks at one guard bit only.  m >= 2^b - 1 gives +-1.0 (m above
// the scale is outside the unit's range: docs/isa.md section 12).
module kestrel_tex_norm_to_float (
  input  logic        negative_i,
  input  logic [15:0] magnitude_i,
  input  logic [4:0]  digit_bits_i,  // b: 7, 8, 15 or 16
  output logic [31:0] value_o        // binary32 bits
);
  logic [15:0] scale;
  logic [63:0] fraction;
  // Only the top 25 bits of the normalized fraction and, of the rounded
  // significand, the carry and the 23 stored bits (not the hidden one) are
  // read: the rest is known.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [63:0] normalized;
  logic [24:0] rounded;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [5:0]  leading_zeros;
  logic [7:0]  exponent;

  always_comb begin
    scale = 16'((17'd1 << digit_bits_i) - 17'd1);
    fraction = '0;
    for (int p = 0; p < 64; p++) begin
      unique case (digit_bits_i)
        5'd7:    fraction[63-p] = magnitude_i[6 - (p % 7)];
        5'd8:    fraction[63-p] = magnitude_i[7 - (p % 8)];
        5'd15:   fraction[63-p] = magnitude_i[14 - (p % 15)];
        default: fraction[63-p] = magnitude_i[15 - (p % 16)];
      endcase
    end
    leading_zeros = '0;
    for (int p = 0; p < 16; p++) begin  // the highest set bit wins
      if (fraction[48+p]) leading_zeros = 6'(15 - p);
    end
    normalized = fraction << leading_zeros;
    // 24 significant bits and the guard bit; the tail is never zero.
    rounded = {1'b0, normalized[63:40]} + 25'(normalized[39]);
    exponent = 8'd126 - 8'(leading_zeros) + 8'(rounded[24]);
    if (magnitude_i == 16'd0) begin
      value_o = 32'd0;
    end else if (magnitude_i >= scale) begin
      value_o = {negative_i, 31'h3f800000};
    end else begin
      value_o = {negative_i, exponent, rounded[24] ? 23'd0 : rounded[22:0]};
    end
  end
endmodule
