// kestrel_tex_axis: the addressing of one texture axis, combinational
// (texture_math.hpp texel_coordinate, linear_taps and resolve; CUDA C
// Programming Guide v8.0, appendix F.1 and F.2).
//
// The coordinate becomes a signed fixed-point value u with 21 fractional
// bits.  Normalized coordinates are truncated to 21 fractional bits
// (t = floor(x * 2^21)) and scaled by the extent; only the low bit of the
// integer part q = floor(t / 2^21) matters once |q| >= 2 (wrap repeats every
// extent, mirror every two; clamp and border see an index outside the
// texture either way), so q is kept as itself in [-1, 1] and as +-2 or +-3
// of the same parity beyond, and u stays within [-3N, 4N).  Unnormalized
// coordinates keep their integer part saturated to +-2^20; wrap and mirror
// act as clamp for them.  NaN reads as 0.  Point sampling takes floor(u);
// linear filtering clamps u to the texel centres [0.5, N - 0.5] in clamp
// mode, then takes floor(u - 0.5) and the 1.8 fixed-point fraction rounded
// half up.  Each tap is then wrapped, mirrored, clamped or put on the border.
`include "kestrel_assert.svh"

module kestrel_tex_axis (
  input  logic [31:0]                                    coord_i,  // binary32 bits
  input  logic                                           normalized_i,
  input  logic                                           linear_i,
  input  logic [1:0]                                     mode_i,   // kestrel_tex_pkg::tex_addr_mode_e
  input  logic [kestrel_tex_pkg::TexExtentBits-1:0]      extent_i,
  output kestrel_tex_pkg::tex_axis_taps_t                taps_o
);

  localparam int unsigned FracBits = 21;
  localparam int unsigned TWidth = 48;  // floor(x * 2^21), |x| < 2^26
  localparam int unsigned UWidth = 44;  // u: 21 integer bits beyond the sign, 21 fractional
  localparam int unsigned IWidth = 23;  // signed tap indices before resolution
  // 1e12 x N >= 2^52 from N = 4504 on.
  localparam logic [kestrel_tex_pkg::TexExtentBits-1:0] HugeExtent = 4504;

  // --- floor(x * 2^21), saturated ------------------------------------------
  logic                     sign;
  logic [7:0]               biased;
  logic [23:0]              mantissa;
  logic signed [9:0]        shift;  // x * 2^21 = mantissa * 2^shift
  logic [TWidth-1:0]        magnitude;
  logic                     inexact;
  logic signed [TWidth-1:0] t;

  always_comb begin
    sign = coord_i[31];
    biased = coord_i[30:23];
    mantissa = {biased != 8'd0, coord_i[22:0]};
    shift = $signed({2'b00, (biased == 8'd0) ? 8'd1 : biased}) - 10'sd129;
    magnitude = '0;
    inexact = 1'b0;
    if (shift >= 0) begin
      // Beyond 2^25 a float is an even integer; 2^25 stands for all of them
      // (and for the +-1e12 the reference clamps to, also even).
      magnitude = (shift > 10'sd22) ? (TWidth'(1) << 46) : (TWidth'(mantissa) << shift[4:0]);
    end else if (shift > -10'sd25) begin
      magnitude = TWidth'(mantissa) >> (-shift);
      inexact = (mantissa & ~(24'hffffff << (-shift))) != 24'd0;
    end else begin
      inexact = mantissa != 24'd0;
    end
    if (biased == 8'hff && coord_i[22:0] != 23'd0) begin
      t = '0;  // NaN
    end else if (sign) begin
      t = -$signed(magnitude + TWidth'(inexact));
    end else begin
      t = $signed(magnitude);
    end
  end

  // --- u in texel units ----------------------------------------------------
  localparam logic signed [UWidth-1:0] UnnormMax = (UWidth'(1) << 41) - (UWidth'(1) << FracBits);
  localparam logic signed [UWidth-1:0] UnnormMin = -(UWidth'(1) << 41);
  logic signed [TWidth-FracBits-1:0] q;       // integer part of the coordinate
  logic signed [2:0]                 q_kept;  // normalized: q, parity kept beyond +-1
  logic signed [21:0]                q_scaled;
  logic [37:0]                       fraction_scaled;
  logic signed [UWidth-1:0]          u_norm, u_unnorm, u, extent_fixed;
  logic                              wrap_mode, mirror_mode, border_mode, clamp_mode;

  always_comb begin
    q = t[TWidth-1:FracBits];
    if (q >= 2) begin
      q_kept = t[FracBits] ? 3'sd3 : 3'sd2;
    end else if (q <= -2) begin
      q_kept = t[FracBits] ? -3'sd3 : -3'sd2;
    end else begin
      q_kept = q[2:0];
    end
    q_scaled = q_kept * $signed({4'b0000, extent_i});  // |q_kept x N| < 2^20
    fraction_scaled = 38'(t[FracBits-1:0]) * 38'(extent_i);
    u_norm = ({{(UWidth - 22) {q_scaled[21]}}, q_scaled} <<< FracBits) + $signed(UWidth'(fraction_scaled));
    // (The fraction stays: the weight of a tap beyond the texture is kept.)
    if (q > $signed(27'(UnnormMax >>> FracBits))) begin
      u_unnorm = UnnormMax | UWidth'(t[FracBits-1:0]);
    end else if (q < $signed(27'(UnnormMin >>> FracBits))) begin
      u_unnorm = UnnormMin | UWidth'(t[FracBits-1:0]);
    end else begin
      u_unnorm = t[UWidth-1:0];
    end
    u = normalized_i ? u_norm : u_unnorm;
    extent_fixed = $signed(UWidth'(extent_i) << FracBits);
    // With unnormalized coordinates wrap and mirror act as clamp.
    wrap_mode = normalized_i && mode_i == kestrel_tex_pkg::TexAddrWrap;
    mirror_mode = normalized_i && mode_i == kestrel_tex_pkg::TexAddrMirror;
    border_mode = mode_i == kestrel_tex_pkg::TexAddrBorder;
    clamp_mode = !wrap_mode && !mirror_mode && !border_mode;
  end

  // --- u - 0.5 as the reference's double arithmetic has it -----------------
  // At |u| >= 2^52 (normalized, |x| x N >= 2^52, |x| clamped to 1e12 first)
  // the double u - 0.5 rounds back to u (u is then an even integer: a tie
  // goes to u, and above 2^53 the half is below half an ulp): the lower tap
  // is u itself with weight 0.
  logic [41:0] span;  // |x|'s significand x N
  logic [5:0]  span_lead;
  logic        huge;
  always_comb begin
    span = 42'(mantissa) * 42'(extent_i);
    span_lead = '0;
    for (int p = 0; p < 42; p++) if (span[p]) span_lead = 6'(p);
    if (biased == 8'hff && coord_i[22:0] != 23'd0) huge = 1'b0;  // NaN reads as 0
    else if (coord_i[30:0] > 31'h5368d4a5) huge = extent_i >= HugeExtent;  // beyond 1e12: 1e12 x N
    else huge = $signed({4'd0, span_lead}) >= 10'sd202 - $signed({2'b00, biased});
    huge = huge && normalized_i;
  end

  // --- the two taps ----------------------------------------------------------
  localparam logic signed [UWidth-1:0] Half = UWidth'(1) << (FracBits - 1);
  logic signed [UWidth-1:0] centred, below;
  logic signed [IWidth-1:0] index0, index1;
  logic [8:0]               fraction;  // 9 fractional bits of u - 0.5

  always_comb begin
    centred = u;
    if (linear_i && clamp_mode) begin
      if (u < Half) centred = Half;
      else if (u > extent_fixed - Half) centred = extent_fixed - Half;
    end
    below = (linear_i && !(huge && !clamp_mode)) ? centred - Half : centred;  // clamp mode: u is a centre
    index0 = IWidth'(below >>> FracBits);
    index1 = index0 + IWidth'(1);
    fraction = below[FracBits-1 -: 9];
    taps_o.weight = linear_i ? kestrel_tex_pkg::TexWeightBits'((10'(fraction) + 10'd1) >> 1) : '0;
  end

  // --- resolution of each tap ------------------------------------------------
  function automatic logic [kestrel_tex_pkg::TexIndexBits:0] resolve(input logic signed [IWidth-1:0] i,
                                                    input logic [kestrel_tex_pkg::TexExtentBits-1:0] n,
                                                    input logic wrap, input logic mirror,
                                                    input logic border);
    logic signed [IWidth-1:0] size, m;
    logic outside;
    size = $signed(IWidth'(n));
    outside = i < 0 || i >= size;
    m = i;
    if (wrap) begin
      // i lies in [-3N - 1, 4N]: four steps each way reach [0, N).
      for (int k = 0; k < 4; k++) begin
        if (m < 0) m = m + size;
        if (m >= size) m = m - size;
      end
    end else if (mirror) begin
      for (int k = 0; k < 2; k++) begin
        if (m < 0) m = m + 2 * size;
        if (m >= 2 * size) m = m - 2 * size;
      end
      if (m >= size) m = 2 * size - 1 - m;
    end else if (border) begin
      if (outside) m = '0;
    end else begin
      if (i < 0) m = '0;
      else if (i >= size) m = size - 1;
    end
    resolve = {border && outside, m[kestrel_tex_pkg::TexIndexBits-1:0]};
  endfunction

  always_comb begin
    {taps_o.border0, taps_o.index0} = resolve(index0, extent_i, wrap_mode, mirror_mode, border_mode);
    {taps_o.border1, taps_o.index1} = resolve(index1, extent_i, wrap_mode, mirror_mode, border_mode);
  end
endmodule
