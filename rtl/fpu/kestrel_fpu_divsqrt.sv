// kestrel_fpu_divsqrt: fdiv.s and fsqrt.s for one lane, by restoring
// digit recurrence (radix 2, `BitsPerCycle` digits per clock), correctly
// rounded in all five modes with RISC-V flags (kestrel_fpu_round).
//
// Throughput and latency: one operation at a time.  A request is accepted
// when the unit is idle; its response is valid 26 / BitsPerCycle + 1 cycles
// later (14 with the default 2), or 1 cycle later for NaN, infinity, zero
// and division-by-zero operands, and stays valid until taken.  The unit sits
// beside kestrel_fpu_lane, so a warp's division occupies only these units:
// the lane pipeline keeps issuing other warps' FP work meanwhile.
//
// Handshake: valid/ready on both sides; req_ready_o depends on state only.
module kestrel_fpu_divsqrt #(
  parameter int unsigned BitsPerCycle = 2,  // a divisor of 26: 1, 2 (default), 13 or 26 digits per clock
  parameter int unsigned TagW = 8
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // issue side
  input  logic                          req_valid_i,
  output logic                          req_ready_o,
  input  kestrel_fpu_pkg::divsqrt_req_t req_i,
  input  logic [TagW-1:0]               req_tag_i,
  // writeback side
  output logic                          rsp_valid_o,
  input  logic                          rsp_ready_i,
  output kestrel_fpu_pkg::fpu_rsp_t     rsp_o,
  output logic [TagW-1:0]               rsp_tag_o
);
  localparam int unsigned Digits = 26;  // quotient/root bits: 24 + guard + one for a quotient below 1
  localparam int unsigned Steps = (Digits + BitsPerCycle - 1) / BitsPerCycle;
  localparam int unsigned CountW = $clog2(Steps + 1);

  typedef enum logic [1:0] {
    StIdle = 2'd0,
    StBusy = 2'd1,
    StDone = 2'd2
  } state_e;

  function automatic logic is_nan(input logic [30:0] v);
    is_nan = (v[30:23] == 8'hFF) && (v[22:0] != '0);
  endfunction
  function automatic logic is_inf(input logic [30:0] v);
    is_inf = (v == 31'h7F80_0000);
  endfunction
  function automatic logic is_zero(input logic [30:0] v);
    is_zero = (v == '0);
  endfunction
  // Significand normalized to bit 23 and its exponent (subnormals included).
  function automatic logic [23:0] norm_sig(input logic [30:0] v);
    norm_sig = {v[30:23] != 8'd0, v[22:0]};
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

  // Control state (reset) and datapath state (not reset: read only in
  // StBusy/StDone, which a request always passes through first).
  state_e state_q, state_d;
  logic [CountW-1:0] count_q, count_d;
  kestrel_fpu_pkg::divsqrt_op_e op_q, op_d;
  logic [2:0] rm_q, rm_d;
  logic sign_q, sign_d;
  logic signed [12:0] exp_q, exp_d;       // exponent of the {digits, sticky} LSB
  logic special_q, special_d;
  logic [31:0] special_result_q, special_result_d;
  logic [4:0] special_flags_q, special_flags_d;
  logic [28:0] rem_q, rem_d;               // partial remainder (a square root's reaches 2^28)
  logic [25:0] digits_q, digits_d;         // quotient or root so far
  logic [23:0] divisor_q, divisor_d;
  logic [51:0] radicand_q, radicand_d;     // sqrt: radicand bits still to bring down, two per digit
  logic [TagW-1:0] tag_q, tag_d;

  logic a_nan, b_nan, a_snan, b_snan, a_inf, b_inf, a_zero, b_zero;
  logic signed [12:0] exp_a, exp_b, half_exp;
  logic [24:0] sqrt_operand;
  logic [28:0] trial;

  assign req_ready_o = (state_q == StIdle);
  assign rsp_valid_o = (state_q == StDone);
  assign rsp_tag_o = tag_q;

  always_comb begin
    state_d = state_q;
    count_d = count_q;
    op_d = op_q;
    rm_d = rm_q;
    sign_d = sign_q;
    exp_d = exp_q;
    special_d = special_q;
    special_result_d = special_result_q;
    special_flags_d = special_flags_q;
    rem_d = rem_q;
    digits_d = digits_q;
    divisor_d = divisor_q;
    radicand_d = radicand_q;
    tag_d = tag_q;

    a_nan = is_nan(req_i.a[30:0]);
    b_nan = is_nan(req_i.b[30:0]);
    a_snan = a_nan && !req_i.a[22];
    b_snan = b_nan && !req_i.b[22];
    a_inf = is_inf(req_i.a[30:0]);
    b_inf = is_inf(req_i.b[30:0]);
    a_zero = is_zero(req_i.a[30:0]);
    b_zero = is_zero(req_i.b[30:0]);
    exp_a = norm_exp(req_i.a[30:0]);
    exp_b = norm_exp(req_i.b[30:0]);
    half_exp = exp_a >>> 1;
    sqrt_operand = exp_a[0] ? {norm_sig(req_i.a[30:0]), 1'b0} : {1'b0, norm_sig(req_i.a[30:0])};
    trial = '0;

    unique case (state_q)
      StIdle: begin
        if (req_valid_i) begin
          op_d = req_i.op;
          rm_d = req_i.rm;
          tag_d = req_tag_i;
          count_d = '0;
          digits_d = '0;
          special_d = 1'b1;
          special_flags_d = '0;
          special_result_d = kestrel_fpu_pkg::CanonicalNan;
          state_d = StDone;
          if (req_i.op == kestrel_fpu_pkg::DivSqrtDiv) begin
            sign_d = req_i.a[31] ^ req_i.b[31];
            special_flags_d[kestrel_fpu_pkg::FlagNV] = a_snan || b_snan || (a_inf && b_inf) || (a_zero && b_zero);
            if (a_nan || b_nan || (a_inf && b_inf) || (a_zero && b_zero)) ;  // canonical NaN
            else if (a_inf || b_zero) begin
              special_result_d = {sign_d, 31'h7F80_0000};
              special_flags_d[kestrel_fpu_pkg::FlagDZ] = b_zero && !a_inf;
            end else if (a_zero || b_inf) special_result_d = {sign_d, 31'd0};
            else begin
              special_d = 1'b0;
              state_d = StBusy;
              // q = a / b in [1/2, 2): the first digit has weight 2^0.
              exp_d = exp_a - exp_b - 13'sd26;
              rem_d = 29'(norm_sig(req_i.a[30:0]));
              divisor_d = norm_sig(req_i.b[30:0]);
            end
          end else begin
            sign_d = req_i.a[31];
            special_flags_d[kestrel_fpu_pkg::FlagNV] = a_snan || (req_i.a[31] && !a_nan && !a_zero);
            if (a_nan || (req_i.a[31] && !a_zero)) ;  // canonical NaN
            else if (a_zero || a_inf) special_result_d = req_i.a;  // sqrt(+-0) = +-0, sqrt(+inf) = +inf
            else begin
              special_d = 1'b0;
              state_d = StBusy;
              // An odd exponent moves one factor of 2 into the radicand, so the
              // root of a radicand in [1, 4) has its first digit at 2^0.
              exp_d = half_exp - 13'sd26;
              rem_d = '0;
              radicand_d = {sqrt_operand, 27'd0};
            end
          end
        end
      end
      StBusy: begin
        for (int unsigned i = 0; i < BitsPerCycle; i++) begin
          if (op_q == kestrel_fpu_pkg::DivSqrtDiv) begin
            // Restoring division: subtract the divisor where it fits.
            if (rem_d >= {5'd0, divisor_q}) begin
              rem_d = rem_d - {5'd0, divisor_q};
              digits_d = {digits_d[24:0], 1'b1};
            end else begin
              digits_d = {digits_d[24:0], 1'b0};
            end
            rem_d = rem_d << 1;
          end else begin
            // Digit-by-digit square root: bring down two radicand bits, try
            // 4 * root + 1.
            rem_d = {rem_d[26:0], radicand_d[51:50]};
            radicand_d = radicand_d << 2;
            trial = 29'({digits_d, 2'b01});
            if (rem_d >= trial) begin
              rem_d = rem_d - trial;
              digits_d = {digits_d[24:0], 1'b1};
            end else begin
              digits_d = {digits_d[24:0], 1'b0};
            end
          end
        end
        count_d = count_q + CountW'(1);
        if (count_d == CountW'(Steps)) state_d = StDone;
      end
      StDone: begin
        if (rsp_ready_i) state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  // The rounded result is formed from the held digits while the response
  // waits, so it needs no register of its own.
  logic [31:0] rounded;
  logic [4:0] rounded_flags;
  kestrel_fpu_round #(.Width(Digits + 1)) u_round (
    .sign_i(sign_q),
    .mag_i({digits_q, rem_q != '0}),
    .exp_lsb_i(exp_q),
    .rm_i(rm_q),
    .zero_sign_i(sign_q),
    .result_o(rounded),
    .flags_o(rounded_flags)
  );

  always_comb begin
    rsp_o.result = {32'd0, special_q ? special_result_q : rounded};
    rsp_o.flags = special_q ? special_flags_q : rounded_flags;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      count_q <= '0;
    end else begin
      state_q <= state_d;
      count_q <= count_d;
    end
  end

  always_ff @(posedge clk_i) begin
    op_q <= op_d;
    rm_q <= rm_d;
    sign_q <= sign_d;
    exp_q <= exp_d;
    special_q <= special_d;
    special_result_q <= special_result_d;
    special_flags_q <= special_flags_d;
    rem_q <= rem_d;
    digits_q <= digits_d;
    divisor_q <= divisor_d;
    radicand_q <= radicand_d;
    tag_q <= tag_d;
  end
endmodule
