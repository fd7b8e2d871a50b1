// kestrel_fpu_lane: one SIMT lane's single-precision F-extension unit, every
// operation but fdiv/fsqrt (kestrel_fpu_divsqrt).  Pipelined: one operation
// per cycle, every operation takes exactly `Stages` cycles from the request
// handshake to the response, so results leave in issue order.
//
// Datapath: add, sub and mul are fused multiply-adds with a constant operand
// (b = 1.0, or an addend of zero), so every rounded arithmetic result comes
// from one FMA and one rounding (kestrel_fpu_round):
//   S1  unpack, special values, subnormal operands normalized, 24x24 product,
//       alignment distance; the non-arithmetic operations (min/max, compares,
//       sign injection, class, moves, float-to-integer) finish here
//   S2  addend aligned against the product (sticky kept), add or subtract
//   S3  normalize, round, pack, flags
// Register cuts: after S1 when Stages >= 3, after S2 when Stages >= 2, and
// max(1, Stages - 2) registers after S3 (the extra ones for retiming).
//
// Handshake: valid/ready on both sides.  The pipeline advances as a whole
// when its last stage is empty or delivering (rsp_ready_i), so req_ready_o is
// that condition and does not depend on req_valid_i.  The SM drives all lanes
// of a warp with the same valid, so the lanes stay in step (docs/fpu.md).
module kestrel_fpu_lane #(
  parameter int unsigned Xlen = 64,    // 32: the l/lu conversions act as w/wu (the decoder rejects them)
  parameter int unsigned Stages = 3,   // latency in cycles, 1 or more
  parameter int unsigned TagW = 8      // request tag carried to the response
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  // issue side
  input  logic                        req_valid_i,
  output logic                        req_ready_o,
  input  kestrel_fpu_pkg::fpu_req_t   req_i,
  input  logic [TagW-1:0]             req_tag_i,
  // writeback side
  output logic                        rsp_valid_o,
  input  logic                        rsp_ready_i,
  output kestrel_fpu_pkg::fpu_rsp_t   rsp_o,
  output logic [TagW-1:0]             rsp_tag_o
);
  localparam int unsigned OutRegs = (Stages > 2) ? Stages - 2 : 1;
  localparam int unsigned WinW = 77;  // addend headroom 26 + product 48 + 3 guard bits
  localparam logic [31:0] One = 32'h3F80_0000;
  // Signed, so that comparisons with signed exponents stay signed.
  localparam logic signed [12:0] XlenMax = 13'(Xlen - 1);
  localparam logic [Xlen:0] XlenHalfRange = (Xlen + 1)'(1) << (Xlen - 1);  // 2^(Xlen-1)

  // ---------------------------------------------------------------------------
  // Stage payloads.
  // ---------------------------------------------------------------------------
  typedef struct packed {
    logic arith;                     // result comes from the rounder
    logic from_int;                  // fcvt.s.*: the window holds the integer
    logic special;                   // NaN or infinity decided in S1
    logic [63:0] early_result;       // special or non-arithmetic result
    logic [4:0] early_flags;
    logic [2:0] rm;                  // kestrel_fpu_pkg::round_mode_e (Yosys 0.23 cannot nest package types here)
    logic prod_sign;
    logic addend_sign;
    logic [47:0] product;
    logic [23:0] addend_sig;
    logic [6:0] addend_shift;        // right shift of the addend from the top of the window
    logic addend_frame;              // the product collapsed to a sticky bit
    logic prod_sticky;
    logic signed [12:0] exp_lsb;     // exponent of window bit 0
    logic [63:0] int_mag;            // fcvt.s.*: |integer|
    logic int_sign;
  } s1_t;

  typedef struct packed {
    logic arith;
    logic special;
    logic [63:0] early_result;
    logic [4:0] early_flags;
    logic [2:0] rm;
    logic sign;
    logic zero_sign;
    logic [WinW-1:0] mag;
    logic signed [12:0] exp_lsb;
  } s2_t;

  // Pipeline control: one enable for every register.
  logic advance;
  logic s1_valid_d, s2_valid_d;
  s1_t s1_d;
  s2_t s2_d;
  logic [OutRegs-1:0] out_valid_q;
  kestrel_fpu_pkg::fpu_rsp_t out_d;
  // The output registers as flat vectors, newest first: Yosys 0.23 shrinks
  // arrays of structs (packed or not) to one bit per element.
  localparam int unsigned RspW = 69;  // $bits(kestrel_fpu_pkg::fpu_rsp_t), checked below
  logic [OutRegs*RspW-1:0] out_q;
  logic [TagW-1:0] tag_s1_d, tag_s2_d;
  logic [OutRegs*TagW-1:0] out_tag_q;

  assign advance = !out_valid_q[OutRegs-1] || rsp_ready_i;
  assign req_ready_o = advance;
  assign rsp_valid_o = out_valid_q[OutRegs-1];
  assign rsp_o = out_q[OutRegs*RspW-1 -: RspW];
  assign rsp_tag_o = out_tag_q[OutRegs*TagW-1 -: TagW];

  // ---------------------------------------------------------------------------
  // Helpers.
  // ---------------------------------------------------------------------------
  function automatic logic is_nan(input logic [30:0] v);
    is_nan = (v[30:23] == 8'hFF) && (v[22:0] != '0);
  endfunction
  function automatic logic is_snan(input logic [30:0] v);
    is_snan = is_nan(v) && !v[22];
  endfunction
  function automatic logic is_inf(input logic [30:0] v);
    is_inf = (v == 31'h7F80_0000);
  endfunction
  function automatic logic is_zero(input logic [30:0] v);
    is_zero = (v == '0);
  endfunction

  // a < b for non-NaN operands (IEEE order, -0 == +0).
  function automatic logic less(input logic [31:0] a, input logic [31:0] b);
    if (is_zero(a[30:0]) && is_zero(b[30:0])) less = 1'b0;
    else if (a[31] != b[31]) less = a[31];
    else if (a[31]) less = (a[30:0] > b[30:0]);
    else less = (a[30:0] < b[30:0]);
  endfunction

  // Significand with hidden bit, shifted so that bit 23 is set (subnormals
  // normalized), and its unbiased exponent.  Zero gives zero.
  function automatic logic [23:0] norm_sig(input logic [30:0] v);
    logic [23:0] sig;
    sig = {v[30:23] != 8'd0, v[22:0]};
    norm_sig = sig;
    for (int unsigned i = 0; i < 23; i++) begin
      if (!norm_sig[23]) norm_sig = norm_sig << 1;
    end
  endfunction
  function automatic logic signed [12:0] norm_exp(input logic [30:0] v);
    logic [4:0] lz;
    lz = 5'd0;
    for (int unsigned i = 0; i < 23; i++) begin
      if (v[i]) lz = 5'(22 - i);
    end
    if (v[30:23] != 8'd0) norm_exp = 13'(v[30:23]) - 13'sd127;
    else norm_exp = -13'sd127 - 13'(lz);
  endfunction

  // ---------------------------------------------------------------------------
  // S1: unpack, specials, product, alignment; non-arithmetic operations.
  // ---------------------------------------------------------------------------
  logic [31:0] op_a, op_b, op_c;
  logic negate_product, negate_addend, fused;
  logic nan_any, snan_any, prod_zero, prod_inf, addend_zero, inf_times_zero, invalid;
  logic signed [12:0] exp_prod, exp_addend, distance;
  logic a_nan, b_nan, a_lt_b, b_lt_a, both_zero;
  logic [63:0] misc_result;
  logic [4:0] misc_flags;
  // float -> integer
  logic to_int, to_int_signed, to_int_wide;
  logic [Xlen+23:0] int_fixed;
  logic [Xlen:0] int_rounded;
  logic signed [12:0] a_exp;
  logic int_guard, int_sticky, int_inc, int_in_range;
  logic [63:0] int_value, int_saturated, int_result;
  // integer -> float
  logic [63:0] from_int_value;
  logic from_int_signed;

  always_comb begin
    s1_d = '0;
    s1_d.rm = req_i.rm;

    // Operands of the fused datapath.
    op_a = req_i.a;
    op_b = req_i.b;
    op_c = req_i.c;
    negate_product = 1'b0;
    negate_addend = 1'b0;
    fused = 1'b1;
    unique case (req_i.op)
      kestrel_fpu_pkg::FpuAdd: begin op_b = One; op_c = req_i.b; end
      kestrel_fpu_pkg::FpuSub: begin op_b = One; op_c = req_i.b; negate_addend = 1'b1; end
      // A zero addend of the product's own sign leaves every product exact,
      // zero included, in every rounding mode.
      kestrel_fpu_pkg::FpuMul: op_c = {req_i.a[31] ^ req_i.b[31], 31'd0};
      kestrel_fpu_pkg::FpuMadd: ;
      kestrel_fpu_pkg::FpuMsub: negate_addend = 1'b1;
      kestrel_fpu_pkg::FpuNmsub: negate_product = 1'b1;
      kestrel_fpu_pkg::FpuNmadd: begin negate_product = 1'b1; negate_addend = 1'b1; end
      default: fused = 1'b0;
    endcase

    s1_d.prod_sign = op_a[31] ^ op_b[31] ^ negate_product;
    s1_d.addend_sign = op_c[31] ^ negate_addend;
    nan_any = is_nan(op_a[30:0]) || is_nan(op_b[30:0]) || is_nan(op_c[30:0]);
    snan_any = is_snan(op_a[30:0]) || is_snan(op_b[30:0]) || is_snan(op_c[30:0]);
    prod_zero = is_zero(op_a[30:0]) || is_zero(op_b[30:0]);
    inf_times_zero = (is_inf(op_a[30:0]) && is_zero(op_b[30:0])) || (is_zero(op_a[30:0]) && is_inf(op_b[30:0]));
    prod_inf = (is_inf(op_a[30:0]) || is_inf(op_b[30:0])) && !is_nan(op_a[30:0]) && !is_nan(op_b[30:0]) && !prod_zero;
    addend_zero = is_zero(op_c[30:0]);
    invalid = snan_any || inf_times_zero ||
              (prod_inf && is_inf(op_c[30:0]) && (s1_d.prod_sign != s1_d.addend_sign));

    s1_d.product = norm_sig(op_a[30:0]) * norm_sig(op_b[30:0]);
    exp_prod = norm_exp(op_a[30:0]) + norm_exp(op_b[30:0]);
    exp_addend = (op_c[30:23] == 8'd0) ? -13'sd126 : 13'(op_c[30:23]) - 13'sd127;
    s1_d.addend_sig = {op_c[30:23] != 8'd0, op_c[22:0]};
    // Bit distance from the product's LSB up to the addend's LSB.  Beyond 50
    // the whole product lies at least two bits below the addend's last bit.
    distance = exp_addend - exp_prod + 13'sd23;
    s1_d.addend_frame = prod_zero || (!addend_zero && distance > 13'sd50);
    s1_d.prod_sticky = !prod_zero;
    if (s1_d.addend_frame) begin
      s1_d.addend_shift = 7'd0;
      s1_d.exp_lsb = exp_addend - 13'sd76;
    end else begin
      s1_d.addend_shift = (distance < -13'sd27) ? 7'd77 : 7'(13'sd50 - distance);
      s1_d.exp_lsb = exp_prod - 13'sd49;
    end

    // Non-arithmetic operations.
    a_nan = is_nan(req_i.a[30:0]);
    b_nan = is_nan(req_i.b[30:0]);
    a_lt_b = less(req_i.a, req_i.b);
    b_lt_a = less(req_i.b, req_i.a);
    both_zero = is_zero(req_i.a[30:0]) && is_zero(req_i.b[30:0]);
    misc_result = '0;
    misc_flags = '0;
    unique case (req_i.op)
      kestrel_fpu_pkg::FpuMin, kestrel_fpu_pkg::FpuMax: begin
        misc_flags[kestrel_fpu_pkg::FlagNV] = is_snan(req_i.a[30:0]) || is_snan(req_i.b[30:0]);
        if (a_nan && b_nan) misc_result[31:0] = kestrel_fpu_pkg::CanonicalNan;
        else if (a_nan) misc_result[31:0] = req_i.b;
        else if (b_nan) misc_result[31:0] = req_i.a;
        else if (both_zero)  // -0 is below +0 for fmin/fmax
          misc_result[31:0] = (req_i.op == kestrel_fpu_pkg::FpuMin) ?
              {req_i.a[31] | req_i.b[31], 31'd0} : {req_i.a[31] & req_i.b[31], 31'd0};
        else if (req_i.op == kestrel_fpu_pkg::FpuMin) misc_result[31:0] = a_lt_b ? req_i.a : req_i.b;
        else misc_result[31:0] = b_lt_a ? req_i.a : req_i.b;
      end
      kestrel_fpu_pkg::FpuSgnj:  misc_result[31:0] = {req_i.b[31], req_i.a[30:0]};
      kestrel_fpu_pkg::FpuSgnjn: misc_result[31:0] = {~req_i.b[31], req_i.a[30:0]};
      kestrel_fpu_pkg::FpuSgnjx: misc_result[31:0] = {req_i.a[31] ^ req_i.b[31], req_i.a[30:0]};
      kestrel_fpu_pkg::FpuEq: begin
        // feq is a quiet comparison: only signaling NaNs are invalid.
        misc_flags[kestrel_fpu_pkg::FlagNV] = is_snan(req_i.a[30:0]) || is_snan(req_i.b[30:0]);
        misc_result[0] = !a_nan && !b_nan && ((req_i.a == req_i.b) || both_zero);
      end
      kestrel_fpu_pkg::FpuLt, kestrel_fpu_pkg::FpuLe: begin
        // flt/fle signal on every NaN.
        misc_flags[kestrel_fpu_pkg::FlagNV] = a_nan || b_nan;
        misc_result[0] = !a_nan && !b_nan &&
            (a_lt_b || (req_i.op == kestrel_fpu_pkg::FpuLe && !b_lt_a));
      end
      kestrel_fpu_pkg::FpuClass: begin
        if (is_inf(req_i.a[30:0])) misc_result[req_i.a[31] ? 0 : 7] = 1'b1;
        else if (a_nan) misc_result[req_i.a[22] ? 9 : 8] = 1'b1;
        else if (is_zero(req_i.a[30:0])) misc_result[req_i.a[31] ? 3 : 4] = 1'b1;
        else if (req_i.a[30:23] == 8'd0) misc_result[req_i.a[31] ? 2 : 5] = 1'b1;
        else misc_result[req_i.a[31] ? 1 : 6] = 1'b1;
      end
      kestrel_fpu_pkg::FpuMvXW: misc_result = {{32{req_i.a[31]}}, req_i.a};
      kestrel_fpu_pkg::FpuMvWX: misc_result[31:0] = req_i.x[31:0];
      default: ;
    endcase

    // Float to integer: the significand as a fixed-point number with 24
    // fraction bits (guard + sticky), rounded, then range-checked.
    to_int = (req_i.op == kestrel_fpu_pkg::FpuCvtWS) || (req_i.op == kestrel_fpu_pkg::FpuCvtWuS) ||
             (req_i.op == kestrel_fpu_pkg::FpuCvtLS) || (req_i.op == kestrel_fpu_pkg::FpuCvtLuS);
    to_int_signed = (req_i.op == kestrel_fpu_pkg::FpuCvtWS) || (req_i.op == kestrel_fpu_pkg::FpuCvtLS);
    to_int_wide = (Xlen == 64) &&
                  ((req_i.op == kestrel_fpu_pkg::FpuCvtLS) || (req_i.op == kestrel_fpu_pkg::FpuCvtLuS));
    a_exp = (req_i.a[30:23] == 8'd0) ? -13'sd126 : 13'(req_i.a[30:23]) - 13'sd127;
    int_fixed = '0;
    if (a_exp >= -13'sd1 && a_exp <= XlenMax)
      int_fixed = (Xlen + 24)'({req_i.a[30:23] != 8'd0, req_i.a[22:0]}) << (a_exp + 13'sd1);
    int_guard = int_fixed[23];
    int_sticky = (|int_fixed[22:0]) || (a_exp < -13'sd1 && !is_zero(req_i.a[30:0]));
    unique case (req_i.rm)
      kestrel_fpu_pkg::RoundNearestEven: int_inc = int_guard & (int_sticky | int_fixed[24]);
      kestrel_fpu_pkg::RoundTowardZero:  int_inc = 1'b0;
      kestrel_fpu_pkg::RoundDown:        int_inc = (int_guard | int_sticky) & req_i.a[31];
      kestrel_fpu_pkg::RoundUp:          int_inc = (int_guard | int_sticky) & ~req_i.a[31];
      kestrel_fpu_pkg::RoundNearestMax:  int_inc = int_guard;
      default:                           int_inc = int_guard & (int_sticky | int_fixed[24]);
    endcase
    int_rounded = {1'b0, int_fixed[Xlen+23:24]} + (Xlen + 1)'(int_inc);
    if (a_nan || is_inf(req_i.a[30:0]) || a_exp > XlenMax) int_in_range = 1'b0;
    else if (to_int_wide) begin
      if (to_int_signed)
        int_in_range = req_i.a[31] ? (int_rounded <= XlenHalfRange) : (int_rounded < XlenHalfRange);
      else int_in_range = req_i.a[31] ? (int_rounded == '0) : !int_rounded[Xlen];
    end else begin
      if (to_int_signed)
        int_in_range = req_i.a[31] ? (int_rounded <= (Xlen + 1)'(33'h0_8000_0000))
                                   : (int_rounded < (Xlen + 1)'(33'h0_8000_0000));
      else int_in_range = req_i.a[31] ? (int_rounded == '0) : (int_rounded < (Xlen + 1)'(33'h1_0000_0000));
    end
    int_value = 64'(int_rounded[Xlen-1:0]);
    if (req_i.a[31]) int_value = -int_value;
    // Out of range: NaN and positive values saturate to the maximum, negative
    // ones to the minimum, as RISC-V defines.
    if (to_int_wide)
      int_saturated = (a_nan || !req_i.a[31]) ? (to_int_signed ? 64'h7FFF_FFFF_FFFF_FFFF : '1)
                                              : (to_int_signed ? 64'h8000_0000_0000_0000 : '0);
    else
      int_saturated = (a_nan || !req_i.a[31]) ? (to_int_signed ? 64'h7FFF_FFFF : 64'hFFFF_FFFF)
                                              : (to_int_signed ? 64'h8000_0000 : '0);
    int_result = int_in_range ? int_value : int_saturated;
    if (!to_int_wide) int_result = {{32{int_result[31]}}, int_result[31:0]};
    if (to_int) begin
      misc_result = int_result;
      misc_flags[kestrel_fpu_pkg::FlagNV] = !int_in_range;
      misc_flags[kestrel_fpu_pkg::FlagNX] = int_in_range && (int_guard || int_sticky);
    end

    // Integer to float: the magnitude goes through the rounder.
    s1_d.from_int = (req_i.op == kestrel_fpu_pkg::FpuCvtSW) || (req_i.op == kestrel_fpu_pkg::FpuCvtSWu) ||
                    (req_i.op == kestrel_fpu_pkg::FpuCvtSL) || (req_i.op == kestrel_fpu_pkg::FpuCvtSLu);
    from_int_signed = (req_i.op == kestrel_fpu_pkg::FpuCvtSW) || (req_i.op == kestrel_fpu_pkg::FpuCvtSL);
    if ((Xlen == 64) && ((req_i.op == kestrel_fpu_pkg::FpuCvtSL) || (req_i.op == kestrel_fpu_pkg::FpuCvtSLu)))
      from_int_value = req_i.x;
    else if (from_int_signed) from_int_value = {{32{req_i.x[31]}}, req_i.x[31:0]};
    else from_int_value = {32'd0, req_i.x[31:0]};
    s1_d.int_sign = from_int_signed && from_int_value[63];
    s1_d.int_mag = s1_d.int_sign ? -from_int_value : from_int_value;
    if (s1_d.from_int) s1_d.exp_lsb = '0;

    // What leaves S1 decided.
    s1_d.arith = fused || s1_d.from_int;
    s1_d.special = fused && (nan_any || invalid || prod_inf || is_inf(op_c[30:0]));
    if (fused) begin
      s1_d.early_flags = '0;
      s1_d.early_flags[kestrel_fpu_pkg::FlagNV] = invalid;
      if (nan_any || invalid) s1_d.early_result = {32'd0, kestrel_fpu_pkg::CanonicalNan};
      else if (prod_inf) s1_d.early_result = {32'd0, s1_d.prod_sign, 31'h7F80_0000};
      else s1_d.early_result = {32'd0, s1_d.addend_sign, 31'h7F80_0000};
    end else begin
      s1_d.early_result = misc_result;
      s1_d.early_flags = misc_flags;
    end
  end

  // ---------------------------------------------------------------------------
  // S2: align the addend, add or subtract.
  // ---------------------------------------------------------------------------
  logic [WinW-1:0] addend_win, addend_lost, prod_win;
  logic [WinW:0] sum;
  logic addend_sticky, effective_sub;
  s1_t s2_in;

  always_comb begin
    s2_d = '0;
    s2_d.arith = s2_in.arith;
    s2_d.special = s2_in.special;
    s2_d.early_result = s2_in.early_result;
    s2_d.early_flags = s2_in.early_flags;
    s2_d.rm = s2_in.rm;
    s2_d.exp_lsb = s2_in.exp_lsb;

    addend_win = {s2_in.addend_sig, 53'd0} >> s2_in.addend_shift;
    addend_lost = {s2_in.addend_sig, 53'd0} & ~({WinW{1'b1}} << s2_in.addend_shift);
    addend_sticky = |addend_lost;
    addend_win[0] = addend_win[0] | addend_sticky;
    prod_win = s2_in.addend_frame ? WinW'(s2_in.prod_sticky) : {26'd0, s2_in.product, 3'd0};
    effective_sub = s2_in.prod_sign != s2_in.addend_sign;
    if (effective_sub) begin
      sum = {1'b0, prod_win} - {1'b0, addend_win};
      s2_d.sign = sum[WinW] ? s2_in.addend_sign : s2_in.prod_sign;
      if (sum[WinW]) sum = -sum;
    end else begin
      sum = {1'b0, prod_win} + {1'b0, addend_win};
      s2_d.sign = s2_in.prod_sign;
    end
    s2_d.mag = sum[WinW-1:0];
    // An exact zero sum: like signs keep theirs, unlike ones give +0 except
    // when rounding down (IEEE 754 section 6.3).
    s2_d.zero_sign = effective_sub ? (s2_in.rm == kestrel_fpu_pkg::RoundDown) : s2_in.prod_sign;
    if (s2_in.from_int) begin
      s2_d.mag = WinW'(s2_in.int_mag);
      s2_d.sign = s2_in.int_sign;
      s2_d.zero_sign = 1'b0;
    end
  end

  // ---------------------------------------------------------------------------
  // S3: round and select the result.
  // ---------------------------------------------------------------------------
  s2_t s3_in;
  logic [31:0] rounded;
  logic [4:0] rounded_flags;

  kestrel_fpu_round #(.Width(WinW)) u_round (
    .sign_i(s3_in.sign),
    .mag_i(s3_in.mag),
    .exp_lsb_i(s3_in.exp_lsb),
    .rm_i(s3_in.rm),
    .zero_sign_i(s3_in.zero_sign),
    .result_o(rounded),
    .flags_o(rounded_flags)
  );

  always_comb begin
    if (s3_in.arith && !s3_in.special) begin
      out_d.result = {32'd0, rounded};
      out_d.flags = rounded_flags;
    end else begin
      out_d.result = s3_in.early_result;
      out_d.flags = s3_in.early_flags;
    end
  end

  // ---------------------------------------------------------------------------
  // Pipeline registers.  Valid bits reset; payloads do not (datapath flops map
  // better to FPGA fabric without a reset, and a payload is only read with
  // its valid bit).
  // ---------------------------------------------------------------------------
  logic s3_valid;
  logic [TagW-1:0] s3_tag;

  always_comb begin
    s1_valid_d = req_valid_i;
    tag_s1_d = req_tag_i;
  end

  if (Stages >= 3) begin : gen_cut_s1
    logic s1_valid_q;
    s1_t s1_q;
    logic [TagW-1:0] tag_s1_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) s1_valid_q <= 1'b0;
      else if (advance) s1_valid_q <= s1_valid_d;
    end
    always_ff @(posedge clk_i) begin
      if (advance) begin
        s1_q <= s1_d;
        tag_s1_q <= tag_s1_d;
      end
    end
    assign s2_in = s1_q;
    assign s2_valid_d = s1_valid_q;
    assign tag_s2_d = tag_s1_q;
  end else begin : gen_no_cut_s1
    assign s2_in = s1_d;
    assign s2_valid_d = s1_valid_d;
    assign tag_s2_d = tag_s1_d;
  end

  if (Stages >= 2) begin : gen_cut_s2
    logic s2_valid_q;
    s2_t s2_q;
    logic [TagW-1:0] tag_s2_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) s2_valid_q <= 1'b0;
      else if (advance) s2_valid_q <= s2_valid_d;
    end
    always_ff @(posedge clk_i) begin
      if (advance) begin
        s2_q <= s2_d;
        tag_s2_q <= tag_s2_d;
      end
    end
    assign s3_in = s2_q;
    assign s3_valid = s2_valid_q;
    assign s3_tag = tag_s2_q;
  end else begin : gen_no_cut_s2
    assign s3_in = s2_d;
    assign s3_valid = s2_valid_d;
    assign s3_tag = tag_s2_d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) out_valid_q <= '0;
    else if (advance) out_valid_q <= (out_valid_q << 1) | OutRegs'(s3_valid);
  end
  always_ff @(posedge clk_i) begin
    if (advance) begin
      out_q <= (out_q << RspW) | (OutRegs * RspW)'(out_d);
      out_tag_q <= (out_tag_q << TagW) | (OutRegs * TagW)'(s3_tag);
    end
  end

`ifndef SYNTHESIS
  if ($bits(kestrel_fpu_pkg::fpu_rsp_t) != RspW) $error("kestrel_fpu_lane: RspW out of date");
  // A response held back by the writeback side keeps its payload (AXI rule).
  logic rsp_stall_q;
  kestrel_fpu_pkg::fpu_rsp_t rsp_held_q;
  logic [TagW-1:0] rsp_tag_held_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rsp_stall_q <= 1'b0;
    else rsp_stall_q <= rsp_valid_o && !rsp_ready_i;
  end
  always_ff @(posedge clk_i) begin
    rsp_held_q <= rsp_o;
    rsp_tag_held_q <= rsp_tag_o;
  end
  always_comb begin
    if (rsp_stall_q) begin
      assert (rsp_valid_o && rsp_o == rsp_held_q && rsp_tag_o == rsp_tag_held_q)
      else $error("kestrel_fpu_lane: response changed while stalled");
    end
  end
`endif
endmodule
