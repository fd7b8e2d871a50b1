// kestrel_tex_channel: one result component of a texture fetch from up to
// eight taps, combinational (texture_math.hpp point() and linear(); CUDA C
// Programming Guide v8.0, 3.2.11.1 and appendix F).
//
// Point: tap 0's channel as the element type (sign- or zero-extended), a
// float (half converted exactly), or a normalized integer v / scale rounded
// once; on the border the border colour (converted toward zero to an integer
// for element-type reads).  Linear: floats are summed exactly (each weight
// x value is exact; the terms are kept in a 32-bit window below the largest
// term's leading bit, subnormals count as zeros of their sign) and rounded
// once to nearest, ties away from zero, to binary32 or, for half textures,
// to half precision; normalized integers are blended as 16-bit fixed point
// (unorm16 / snorm16), rounded half up to 16 bits and converted to float.
// Components beyond the format's channels are 0, and 1 for w.
module kestrel_tex_channel (
  input  kestrel_tex_pkg::tex_format_t                                         fmt_i,
  input  logic [1:0]                                                           channel_i,
  input  logic [31:0]                                                          border_color_i,
  input  logic [kestrel_tex_pkg::TexTaps*kestrel_tex_pkg::TexWeightBits-1:0]   weight_i,  // tap 0 lowest
  input  logic [kestrel_tex_pkg::TexTaps-1:0]                                  border_i,
  input  logic [kestrel_tex_pkg::TexTaps*32-1:0]                               raw_i,  // per tap the channel's bits, low aligned
  output logic [31:0]                                                          value_o
);

  localparam logic [31:0] QuietNaN = 32'h7fc00000;
  localparam logic [31:0] Infinity = 32'h7f800000;
  localparam logic [31:0] OneFloat = 32'h3f800000;

  // half to binary32, exactly (NaNs become the quiet NaN of their sign).
  function automatic logic [31:0] half_to_float(input logic [15:0] h);
    logic [4:0] lead;
    logic [31:0] r;
    lead = '0;
    for (int p = 0; p < 10; p++) if (h[p]) lead = 5'(p);
    if (h[14:10] == 5'h1f) r = {h[15], h[9:0] != 10'd0 ? QuietNaN[30:0] : Infinity[30:0]};
    else if (h[14:10] != 5'd0) r = {h[15], 8'(h[14:10]) + 8'd112, h[9:0], 13'd0};
    else if (h[9:0] == 10'd0) r = {h[15], 31'd0};
    else r = {h[15], 8'(lead) + 8'd103, 23'((33'(h[9:0]) << (5'd23 - lead)) & 33'h7fffff)};
    half_to_float = r;
  endfunction

  // Leading-bit position (0 when v is 0).
  function automatic logic [5:0] leading_bit(input logic [37:0] v);
    logic [5:0] r;
    r = '0;
    for (int p = 0; p < 38; p++) if (v[p]) r = 6'(p);
    leading_bit = r;
  endfunction

  logic [31:0] raw [kestrel_tex_pkg::TexTaps];
  logic [kestrel_tex_pkg::TexWeightBits-1:0] weight [kestrel_tex_pkg::TexTaps];
  always_comb begin
    for (int n = 0; n < kestrel_tex_pkg::TexTaps; n++) begin
      raw[n] = raw_i[32*n +: 32];
      weight[n] = weight_i[kestrel_tex_pkg::TexWeightBits*n +: kestrel_tex_pkg::TexWeightBits];
    end
  end

  // --- the format ------------------------------------------------------------
  logic        is_float, is_signed, returns_float, present;
  logic [4:0]  digit_bits;   // a normalized format's scale is 2^digit_bits - 1
  logic [31:0] element;      // tap 0's channel, sign- or zero-extended
  logic [31:0] texel_float;  // tap 0's channel as binary32

  always_comb begin
    is_float = fmt_i.kind == kestrel_tex_pkg::TexKindFloat;
    is_signed = fmt_i.kind == kestrel_tex_pkg::TexKindSigned;
    returns_float = is_float || fmt_i.normalized_float;
    unique case (fmt_i.channels)
      kestrel_tex_pkg::TexChannels1: present = channel_i == 2'd0;
      kestrel_tex_pkg::TexChannels2: present = channel_i <= 2'd1;
      default:      present = 1'b1;
    endcase
    digit_bits = (fmt_i.bits == kestrel_tex_pkg::TexBits8 ? 5'd8 : 5'd16) - 5'(is_signed);
    element = raw[0];
    if (fmt_i.bits == kestrel_tex_pkg::TexBits8) element = is_signed ? {{24{raw[0][7]}}, raw[0][7:0]} : {24'd0, raw[0][7:0]};
    if (fmt_i.bits == kestrel_tex_pkg::TexBits16) element = is_signed ? {{16{raw[0][15]}}, raw[0][15:0]} : {16'd0, raw[0][15:0]};
    texel_float = fmt_i.bits == kestrel_tex_pkg::TexBits16 ? half_to_float(raw[0][15:0]) : raw[0];
  end

  // --- point: the border colour as an integer (toward zero, the low 32 bits
  // of the 64-bit conversion; NaN, infinities and |x| >= 2^63 give 0) -------
  logic [31:0] border_integer;
  logic [31:0] border_magnitude;
  always_comb begin
    border_magnitude = '0;
    if (border_color_i[30:23] >= 8'd127 && border_color_i[30:23] < 8'd190) begin
      border_magnitude = border_color_i[30:23] >= 8'd150
                             ? 32'({1'b1, border_color_i[22:0]}) << (border_color_i[30:23] - 8'd150)
                             : 32'({1'b1, border_color_i[22:0]}) >> (8'd150 - border_color_i[30:23]);
    end
    border_integer = border_color_i[31] ? -border_magnitude : border_magnitude;
  end

  // --- point: a normalized integer v / scale, v clamped to -scale -------------
  logic [31:0] point_normalized;
  logic        point_negative;
  logic [15:0] point_magnitude;
  always_comb begin
    point_negative = is_signed && element[31];
    point_magnitude = point_negative ? 16'(-element) : element[15:0];
  end
  kestrel_tex_norm_to_float u_point_norm (
    .negative_i  (point_negative),
    .magnitude_i (point_magnitude),
    .digit_bits_i(digit_bits),
    .value_o     (point_normalized)
  );

  // --- linear, normalized integers: 16-bit fixed point -----------------------
  // Texels become unorm16 (v x 257 for 8 bits) or snorm16 (v x 32767 / 127
  // rounded half away from zero for 8 bits, which is 258|v| + (|v| >= 64));
  // the border colour becomes round_half_up(c x scale), computed from
  // floor(2 c x scale) (exact for |c| < 2^15; the unit is exact for |c| <= 1).
  logic signed [31:0] fixed [kestrel_tex_pkg::TexTaps];
  logic signed [31:0] border_fixed;
  logic signed [40:0] border_twice;  // floor(2 c x scale)
  logic [39:0]        border_product;
  logic signed [8:0]  shift_b;
  logic [5:0]         border_shift;
  logic [40:0]        border_floor;
  logic               border_inexact;
  logic signed [35:0] blend_sum;
  logic signed [27:0] blend_q;
  logic               blend_negative;
  logic [15:0]        blend_magnitude;
  logic [31:0]        blend_value;

  always_comb begin
    border_product = 40'({border_color_i[30:23] != 8'd0, border_color_i[22:0]}) *
                     (is_signed ? 40'd32767 : 40'd65535);
    shift_b = $signed({1'b0, border_color_i[30:23] == 8'd0 ? 8'd1 : border_color_i[30:23]}) - 9'sd149;
    // |c| >= 2^22 (shift_b >= 0) is far outside the unit's range: taken as
    // the product itself.
    border_shift = shift_b >= 0 ? 6'd0 : shift_b < -9'sd40 ? 6'd40 : 6'(-shift_b);
    border_floor = 41'(border_product) >> border_shift;
    border_inexact = (border_product & ~(40'hff_ffff_ffff << border_shift)) != 40'd0;
    border_twice = border_color_i[31] ? -$signed(border_floor + 41'(border_inexact)) : $signed(border_floor);
    border_fixed = 32'((border_twice + 41'sd1) >>> 1);
    blend_sum = '0;
    for (int n = 0; n < kestrel_tex_pkg::TexTaps; n++) begin
      logic [31:0] v;
      logic [15:0] magnitude;
      logic [31:0] snorm;
      v = raw[n];
      if (fmt_i.bits == kestrel_tex_pkg::TexBits8) v = is_signed ? {{24{raw[n][7]}}, raw[n][7:0]} : {24'd0, raw[n][7:0]};
      if (fmt_i.bits == kestrel_tex_pkg::TexBits16) v = is_signed ? {{16{raw[n][15]}}, raw[n][15:0]} : {16'd0, raw[n][15:0]};
      magnitude = v[31] ? 16'(-v) : v[15:0];
      snorm = (32'(magnitude) << 8) + (32'(magnitude) << 1) + 32'(magnitude >= 16'd64);
      if (border_i[n]) fixed[n] = border_fixed;
      else if (fmt_i.bits == kestrel_tex_pkg::TexBits16) fixed[n] = $signed(v);
      else if (!is_signed) fixed[n] = $signed((v << 8) + v);
      else fixed[n] = v[31] ? -$signed(snorm) : $signed(snorm);
      blend_sum = blend_sum + 36'($signed({1'b0, weight[n]})) * 36'(fixed[n]);
    end
    blend_q = 28'((blend_sum + 36'sd128) >>> 8);
    if (is_signed && blend_q < -28'sd32767) blend_q = -28'sd32767;
    blend_negative = blend_q < 0;
    blend_magnitude = blend_negative ? 16'(-blend_q) : blend_q[15:0];
  end
  kestrel_tex_norm_to_float u_blend_norm (
    .negative_i  (blend_negative),
    .magnitude_i (blend_magnitude),
    .digit_bits_i(is_signed ? 5'd15 : 5'd16),
    .value_o     (blend_value)
  );

  // --- linear, floats: the exact weighted sum (texture_math.hpp ExactSum) ------
  // A term weight x mantissa (< 2^33) sits at bit position shift =
  // biased exponent + 2 of an accumulator whose bit 0 weighs 2^-160; `top`
  // is the highest leading bit of all terms.  Each term keeps its bits at or
  // above top - 32 and is summed relative to that position.
  logic [31:0]        term_bits [kestrel_tex_pkg::TexTaps];
  logic               term_live [kestrel_tex_pkg::TexTaps];
  logic [32:0]        product [kestrel_tex_pkg::TexTaps];
  logic signed [10:0] lead [kestrel_tex_pkg::TexTaps];
  logic signed [10:0] top;
  logic               any_nan, any_pos_inf, any_neg_inf, all_negative_zero;
  logic signed [38:0] acc;
  logic [37:0]        acc_magnitude;
  logic signed [10:0] top_abs, lsb_abs, lsb_rel, exponent;
  logic [37:0]        kept;
  logic [5:0]         kept_lead;
  logic [38:0]        shifted;  // the kept bits above the round bit
  // The significand's leading bit is placed at bit 40; bits 39:17 are stored.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [63:0]        significand;
  /* verilator lint_on UNUSEDSIGNAL */
  logic               round_bit, sum_negative;
  logic [31:0]        sum_value, float_value;
  logic [4:0]         precision;
  logic signed [10:0] min_exponent, max_exponent;

  always_comb begin
    precision = fmt_i.bits == kestrel_tex_pkg::TexBits16 ? 5'd11 : 5'd24;
    min_exponent = fmt_i.bits == kestrel_tex_pkg::TexBits16 ? -11'sd14 : -11'sd126;
    max_exponent = fmt_i.bits == kestrel_tex_pkg::TexBits16 ? 11'sd15 : 11'sd127;
    any_nan = 1'b0;
    any_pos_inf = 1'b0;
    any_neg_inf = 1'b0;
    all_negative_zero = 1'b1;
    top = '0;
    for (int n = 0; n < kestrel_tex_pkg::TexTaps; n++) begin
      logic [31:0] u;
      u = border_i[n] ? border_color_i : fmt_i.bits == kestrel_tex_pkg::TexBits16 ? half_to_float(raw[n][15:0]) : raw[n];
      if (u[30:23] == 8'd0) u = {u[31], 31'd0};  // subnormals count as zeros
      term_bits[n] = u;
      term_live[n] = weight[n] != '0 && u[30:23] != 8'd0 && u[30:23] != 8'hff;
      product[n] = 33'(weight[n]) * 33'({1'b1, u[22:0]});
      lead[n] = $signed({3'b000, u[30:23]}) + 11'sd2 + $signed({5'd0, leading_bit(38'(product[n]))});
      if (weight[n] != '0) begin
        if (u[30:0] == 31'd0) begin
          all_negative_zero = all_negative_zero && u[31];
        end else begin
          all_negative_zero = 1'b0;
          if (u[30:23] == 8'hff) begin
            if (u[22:0] != 23'd0) any_nan = 1'b1;
            else if (u[31]) any_neg_inf = 1'b1;
            else any_pos_inf = 1'b1;
          end
        end
      end
      if (term_live[n] && lead[n] > top) top = lead[n];
    end
    // One right shift per term (and a single adder with the sign as carry
    // in): a live term's leading bit is at most 9 below top - 32 + 32 (its
    // product has at least 24 bits), so drop >= -9.
    acc = '0;
    for (int n = 0; n < kestrel_tex_pkg::TexTaps; n++) begin
      logic signed [10:0] drop;
      logic [38:0] rel;
      drop = top - 11'sd32 - ($signed({3'b000, term_bits[n][30:23]}) + 11'sd2) + 11'sd9;
      rel = (!term_live[n] || drop > 11'sd41 || drop < 0) ? '0 : 39'({product[n], 9'd0} >> drop[5:0]);
      if (term_live[n] && term_bits[n][31]) rel = ~rel;
      acc = acc + $signed(rel) + 39'(term_live[n] && term_bits[n][31]);
    end
    sum_negative = acc < 0;
    acc_magnitude = sum_negative ? 38'(-acc) : 38'(acc);
    top_abs = $signed({5'd0, leading_bit(acc_magnitude)}) + top - 11'sd32;
    lsb_abs = top_abs - $signed({6'd0, precision}) + 11'sd1;
    if (lsb_abs < 11'sd161 + min_exponent - $signed({6'd0, precision}))
      lsb_abs = 11'sd161 + min_exponent - $signed({6'd0, precision});
    // lsb_rel >= lead(M) - (precision - 1) >= -23: one right shift of M
    // padded by 24 zeros gives the kept bits and the round bit below them.
    lsb_rel = lsb_abs - (top - 11'sd32);
    shifted = (lsb_rel > 11'sd39) ? '0 : 39'({acc_magnitude, 24'd0} >> (lsb_rel + 11'sd23));
    round_bit = shifted[0];
    kept = shifted[38:1] + 38'(round_bit);
    kept_lead = leading_bit(kept);
    significand = 64'(kept) << (6'd40 - kept_lead);  // kept < 2^25: its leading bit to bit 40
    exponent = $signed({5'd0, kept_lead}) + lsb_abs - 11'sd160;
    if (exponent >= -11'sd126) begin
      float_value = {sum_negative, 8'(exponent + 11'sd127), significand[39:17]};
    end else begin
      float_value = {sum_negative, 31'(kept)};  // binary32 subnormal: lsb_abs is 2^-149's position
    end
    if (any_nan || (any_pos_inf && any_neg_inf)) sum_value = QuietNaN;
    else if (any_pos_inf) sum_value = Infinity;
    else if (any_neg_inf) sum_value = {1'b1, Infinity[30:0]};
    else if (acc_magnitude == '0) sum_value = {all_negative_zero, 31'd0};
    else if (kept == '0) sum_value = {sum_negative, 31'd0};
    else if (exponent > max_exponent) sum_value = {sum_negative, Infinity[30:0]};
    else sum_value = float_value;
  end

  // --- the component ---------------------------------------------------------
  always_comb begin
    if (!present) begin
      value_o = channel_i == 2'd3 ? (returns_float ? OneFloat : 32'd1) : 32'd0;
    end else if (!fmt_i.linear) begin
      if (border_i[0]) value_o = returns_float ? border_color_i : border_integer;
      else if (is_float) value_o = texel_float;
      else if (fmt_i.normalized_float) value_o = point_normalized;
      else value_o = element;
    end else begin
      value_o = is_float ? sum_value : blend_value;
    end
  end
endmodule
