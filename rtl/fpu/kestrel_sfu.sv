// kestrel_sfu: one lane of the special-function unit, CUDA's fast
// intrinsics in hardware (guide appendix D.2): rcp, rsqrt, ex2, lg2, sin and
// cos of a binary32 value, by table lookup (128 segments per function,
// kestrel_sfu_table) and quadratic interpolation in fixed point, rounded to
// nearest even by kestrel_fpu_round.  Subnormal results are kept; no fflags
// are raised.  model/sfu.cpp is the bit-exact C++ twin; docs/fpu.md
// gives the algorithm and its measured error against D.2's bounds.
//
// Pipelined: one operation per cycle, latency 3 cycles (S1 operand
// preparation and range reduction | S2 table and interpolation | S3 rounding).
// Handshake as kestrel_fpu_lane: valid/ready, the whole pipeline stalls when
// its last stage is full and rsp_ready_i is low.  An SM has fewer SFU lanes
// than warp lanes and feeds a warp through them in turns (docs/fpu.md).
module kestrel_sfu #(
  parameter int unsigned TagW = 8
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  // issue side
  input  logic                        req_valid_i,
  output logic                        req_ready_o,
  input  kestrel_fpu_pkg::sfu_req_t   req_i,
  input  logic [TagW-1:0]             req_tag_i,
  // writeback side
  output logic                        rsp_valid_o,
  input  logic                        rsp_ready_i,
  output logic [31:0]                 rsp_result_o,
  output logic [TagW-1:0]             rsp_tag_o
);
  // Rows of the coefficient table (gen_sfu_tables.py's order).
  localparam logic [2:0] TabRcp = 3'd0;
  localparam logic [2:0] TabRsqrtEven = 3'd1;
  localparam logic [2:0] TabRsqrtOdd = 3'd2;
  localparam logic [2:0] TabEx2 = 3'd3;
  localparam logic [2:0] TabLg2 = 3'd4;
  localparam logic [2:0] TabSinQuarter = 3'd5;
  localparam logic [2:0] TabCosQuarter = 3'd6;
  // 2^37 / (2 pi), rounded: turns per radian for the sin/cos range reduction.
  localparam logic [34:0] TurnsPerRadian = 35'd21874088818;
  localparam int unsigned MagW = 40;
  // Interpolated values carry 30 fraction bits (gen_sfu_tables.py).
  localparam int unsigned OutFracBits = 30;
  localparam logic signed [12:0] OutFracBitsS = 13'(OutFracBits);

  typedef struct packed {
    logic special;              // result decided in S1
    logic [31:0] special_result;
    logic [2:0] table_sel;
    logic [6:0] index;
    logic [22:0] position;      // place inside the segment, t * 2^23
    logic add_exponent;         // lg2: the result is exponent + log2(significand)
    logic signed [12:0] exponent;
    logic negate;               // rcp of a negative value, sin/cos in quadrants 2 and 3
    logic signed [12:0] exp_lsb;
  } s1_t;

  typedef struct packed {
    logic special;
    logic [31:0] special_result;
    logic sign;
    logic [MagW-1:0] mag;
    logic signed [12:0] exp_lsb;
  } s2_t;

  logic advance;
  s1_t s1_d, s1_q;
  s2_t s2_d, s2_q;
  logic s1_valid_q, s2_valid_q, out_valid_q;
  logic [TagW-1:0] s1_tag_q, s2_tag_q, out_tag_q;
  logic [31:0] out_d, out_q;

  assign advance = !out_valid_q || rsp_ready_i;
  assign req_ready_o = advance;
  assign rsp_valid_o = out_valid_q;
  assign rsp_result_o = out_q;
  assign rsp_tag_o = out_tag_q;

  // ---------------------------------------------------------------------------
  // S1: classify, normalize, fixed-point argument, table and segment.
  // ---------------------------------------------------------------------------
  logic a_sign, a_nan, a_inf, a_zero;
  logic [23:0] sig_raw;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [23:0] sig_norm;          // bit 23 is the hidden one: only the fraction indexes the table
  logic [45:0] square;            // t^2 keeps its upper 23 bits, as the model does
  /* verilator lint_on UNUSEDSIGNAL */
  logic signed [12:0] exp_raw, exp_norm;
  logic [4:0] lz;
  logic signed [12:0] ex2_shift, turn_shift;
  logic [37:0] ex2_mag;
  logic signed [39:0] ex2_fixed;
  logic [58:0] turn_product;
  logic [31:0] turns;
  logic [1:0] quadrant;

  always_comb begin
    s1_d = '0;
    a_sign = req_i.a[31];
    a_nan = (req_i.a[30:23] == 8'hFF) && (req_i.a[22:0] != '0);
    a_inf = (req_i.a[30:0] == 31'h7F80_0000);
    a_zero = (req_i.a[30:0] == '0);
    sig_raw = {req_i.a[30:23] != 8'd0, req_i.a[22:0]};
    exp_raw = (req_i.a[30:23] == 8'd0) ? -13'sd126 : 13'(req_i.a[30:23]) - 13'sd127;
    lz = 5'd0;
    for (int unsigned i = 0; i < 24; i++) begin
      if (sig_raw[i]) lz = 5'(23 - i);
    end
    sig_norm = sig_raw << lz;
    exp_norm = exp_raw - 13'(lz);

    // ex2: x with 30 fraction bits, truncated; 2^x = 2^floor(x) * 2^frac(x).
    ex2_shift = exp_raw + 13'sd7;
    ex2_mag = (ex2_shift >= 0) ? (38'(sig_raw) << ex2_shift) : (38'(sig_raw) >> (-ex2_shift));
    ex2_fixed = a_sign ? -$signed({2'b00, ex2_mag}) : $signed({2'b00, ex2_mag});

    // sin/cos: the angle in turns, 32 fraction bits, modulo one turn.
    turn_product = 59'(sig_raw) * 59'(TurnsPerRadian);
    turn_shift = exp_raw - 13'sd28;
    turns = '0;
    if (turn_shift >= 0) begin
      if (turn_shift < 13'sd32) turns = 32'(turn_product << turn_shift);
    end else if (-turn_shift < 13'sd64) begin
      turns = 32'(turn_product >> (-turn_shift));
    end
    if (a_sign) turns = -turns;
    quadrant = turns[31:30] + ((req_i.op == kestrel_fpu_pkg::SfuCos) ? 2'd1 : 2'd0);

    s1_d.index = sig_norm[22:16];
    s1_d.position = {sig_norm[15:0], 7'd0};
    s1_d.exponent = exp_norm;
    s1_d.special_result = kestrel_fpu_pkg::CanonicalNan;
    unique case (req_i.op)
      kestrel_fpu_pkg::SfuRcp: begin
        s1_d.special = a_nan || a_inf || a_zero;
        if (a_inf) s1_d.special_result = {a_sign, 31'd0};
        else if (a_zero) s1_d.special_result = {a_sign, 31'h7F80_0000};
        s1_d.table_sel = TabRcp;
        s1_d.negate = a_sign;
        s1_d.exp_lsb = -OutFracBitsS - exp_norm;
      end
      kestrel_fpu_pkg::SfuRsqrt: begin
        s1_d.special = a_nan || a_inf || a_zero || a_sign;
        if (a_zero) s1_d.special_result = {a_sign, 31'h7F80_0000};
        else if (a_inf && !a_sign) s1_d.special_result = 32'd0;
        // An odd exponent moves a factor 2 into the table's argument.
        s1_d.table_sel = exp_norm[0] ? TabRsqrtOdd : TabRsqrtEven;
        s1_d.exp_lsb = -OutFracBitsS - (exp_norm >>> 1);
      end
      kestrel_fpu_pkg::SfuEx2: begin
        s1_d.special = a_nan || a_inf || (exp_raw >= 13'sd8);
        if (!a_nan) s1_d.special_result = a_sign ? 32'd0 : 32'h7F80_0000;
        s1_d.table_sel = TabEx2;
        s1_d.index = ex2_fixed[29:23];
        s1_d.position = ex2_fixed[22:0];
        s1_d.exp_lsb = 13'($signed(ex2_fixed[39:30])) - OutFracBitsS;
      end
      kestrel_fpu_pkg::SfuLg2: begin
        s1_d.special = a_nan || a_inf || a_zero || a_sign;
        if (a_zero) s1_d.special_result = 32'hFF80_0000;
        else if (a_inf && !a_sign) s1_d.special_result = 32'h7F80_0000;
        s1_d.table_sel = TabLg2;
        s1_d.add_exponent = 1'b1;
        s1_d.exp_lsb = -OutFracBitsS;
      end
      default: begin  // sin, cos
        s1_d.special = a_nan || a_inf;
        s1_d.table_sel = quadrant[0] ? TabCosQuarter : TabSinQuarter;
        s1_d.index = turns[29:23];
        s1_d.position = turns[22:0];
        s1_d.negate = quadrant[1];
        s1_d.exp_lsb = -OutFracBitsS;
      end
    endcase
  end

  // ---------------------------------------------------------------------------
  // S2: coefficients, c0 + c1 t + c2 t^2, the fixed-point result.
  // ---------------------------------------------------------------------------
  logic signed [32:0] c0;
  logic signed [24:0] c1;
  logic signed [17:0] c2;
  logic signed [47:0] linear_term;
  logic signed [40:0] square_term;
  logic signed [MagW-1:0] linear_scaled, square_scaled, interpolated, with_exponent;

  kestrel_sfu_table u_table (
    .func_i(s1_q.table_sel),
    .index_i(s1_q.index),
    .c0_o(c0),
    .c1_o(c1),
    .c2_o(c2)
  );

  always_comb begin
    square = 46'(s1_q.position) * 46'(s1_q.position);
    // |c1| < 2^24 and t < 2^23: the product fits 48 bits.
    linear_term = 48'(c1) * $signed({25'd0, s1_q.position});
    square_term = 41'(c2) * $signed({18'd0, square[45:23]});  // |c2| < 2^17: fits 41 bits
    linear_scaled = MagW'(linear_term >>> 23);
    square_scaled = MagW'(square_term >>> 23);
    interpolated = MagW'(c0) + linear_scaled + square_scaled;
    // Where the function touches zero the quadratic may dip just below it.
    if (interpolated < 0) interpolated = '0;
    with_exponent = interpolated;
    if (s1_q.add_exponent) with_exponent = interpolated + (MagW'(s1_q.exponent) <<< OutFracBits);
    s2_d.special = s1_q.special;
    s2_d.special_result = s1_q.special_result;
    s2_d.exp_lsb = s1_q.exp_lsb;
    s2_d.sign = s1_q.negate ^ with_exponent[MagW-1];
    s2_d.mag = with_exponent[MagW-1] ? MagW'(-with_exponent) : MagW'(with_exponent);
  end

  // ---------------------------------------------------------------------------
  // S3: round to the nearest float.
  // ---------------------------------------------------------------------------
  logic [31:0] rounded;
  logic [4:0] rounded_flags_unused;  // the SFU raises no fflags

  kestrel_fpu_round #(.Width(MagW)) u_round (
    .sign_i(s2_q.sign),
    .mag_i(s2_q.mag),
    .exp_lsb_i(s2_q.exp_lsb),
    .rm_i(kestrel_fpu_pkg::RoundNearestEven),
    .zero_sign_i(1'b0),
    .result_o(rounded),
    .flags_o(rounded_flags_unused)
  );

  assign out_d = s2_q.special ? s2_q.special_result : rounded;

  // ---------------------------------------------------------------------------
  // Pipeline registers: valid bits reset, payloads not (datapath flops).
  // ---------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
      s2_valid_q <= 1'b0;
      out_valid_q <= 1'b0;
    end else if (advance) begin
      s1_valid_q <= req_valid_i;
      s2_valid_q <= s1_valid_q;
      out_valid_q <= s2_valid_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (advance) begin
      s1_q <= s1_d;
      s1_tag_q <= req_tag_i;
      s2_q <= s2_d;
      s2_tag_q <= s1_tag_q;
      out_q <= out_d;
      out_tag_q <= s2_tag_q;
    end
  end
endmodule
