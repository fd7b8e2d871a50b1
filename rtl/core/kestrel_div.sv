// kestrel_div: one lane's iterative M-extension divider (div, divu, rem, remu
// and the RV64 *W forms), one quotient bit per cycle: a result Xlen+1 cycles
// after the start (33 for *W is not shortened; every lane of a warp finishes
// together).  Start/busy/done handshake: `start_i` is taken when `busy_o` is
// low; `done_o` pulses with the result for one cycle.  RISC-V corner cases:
// x/0 = all ones, x%0 = x, MIN/-1 = MIN, MIN%-1 = 0.
module kestrel_div #(
  parameter int unsigned Xlen = 64
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 start_i,
  input  kestrel_pkg::div_op_e op_i,
  input  logic                 word_i,
  input  logic [Xlen-1:0]      a_i,
  input  logic [Xlen-1:0]      b_i,
  output logic                 busy_o,
  output logic                 done_o,
  output logic [Xlen-1:0]      result_o
);
  localparam int unsigned CntW = $clog2(Xlen + 1);

  logic busy_q, done_q;
  logic [CntW-1:0] count_q;
  logic [Xlen-1:0] quot_q, rem_q, divisor_q;
  logic neg_quot_q, neg_rem_q, want_rem_q, word_q, by_zero_q;
  logic [Xlen-1:0] dividend_in_q;

  logic is_word, signed_op;
  logic [Xlen-1:0] a_op, b_op, a_abs, b_abs;
  logic a_neg, b_neg;
  logic [Xlen:0] trial;
  logic [Xlen-1:0] rem_shift;
  logic [Xlen-1:0] quot_fix, rem_fix, res_raw;

  always_comb begin
    is_word = word_i && (Xlen == 64);
    signed_op = (op_i == kestrel_pkg::DivSigned) || (op_i == kestrel_pkg::RemSigned);
    // *W forms divide the low words, extended as signed or unsigned.
    if (is_word) begin
      a_op = signed_op ? Xlen'({{(Xlen - 32){a_i[31]}}, a_i[31:0]}) : Xlen'({{(Xlen - 32){1'b0}}, a_i[31:0]});
      b_op = signed_op ? Xlen'({{(Xlen - 32){b_i[31]}}, b_i[31:0]}) : Xlen'({{(Xlen - 32){1'b0}}, b_i[31:0]});
    end else begin
      a_op = a_i;
      b_op = b_i;
    end
    a_neg = signed_op && a_op[Xlen-1];
    b_neg = signed_op && b_op[Xlen-1];
    a_abs = a_neg ? -a_op : a_op;
    b_abs = b_neg ? -b_op : b_op;

    // Restoring division step: shift the next dividend bit into the
    // remainder and subtract the divisor when it fits.
    rem_shift = {rem_q[Xlen-2:0], quot_q[Xlen-1]};
    trial = {rem_q, quot_q[Xlen-1]} - {1'b0, divisor_q};

    quot_fix = neg_quot_q ? -quot_q : quot_q;
    rem_fix = neg_rem_q ? -rem_q : rem_q;
    if (by_zero_q) res_raw = want_rem_q ? dividend_in_q : '1;
    else res_raw = want_rem_q ? rem_fix : quot_fix;
    result_o = word_q ? Xlen'({{(Xlen - 32){res_raw[31]}}, res_raw[31:0]}) : res_raw;
    busy_o = busy_q;
    done_o = done_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      done_q <= 1'b0;
      count_q <= '0;
    end else begin
      done_q <= 1'b0;
      if (start_i && !busy_q) begin
        busy_q <= 1'b1;
        count_q <= CntW'(Xlen);
      end else if (busy_q) begin
        count_q <= count_q - 1'b1;
        if (count_q == CntW'(1)) begin
          busy_q <= 1'b0;
          done_q <= 1'b1;
        end
      end
    end
  end

  // Datapath registers are only meaningful while busy or at done.
  always_ff @(posedge clk_i) begin
    if (start_i && !busy_q) begin
      quot_q <= a_abs;
      rem_q <= '0;
      divisor_q <= b_abs;
      // MIN/-1 needs no special case: |MIN| = MIN as unsigned, the unsigned
      // quotient is MIN and negating it gives MIN again; the remainder is 0.
      neg_quot_q <= a_neg ^ b_neg;
      neg_rem_q <= a_neg;
      want_rem_q <= (op_i == kestrel_pkg::RemSigned) || (op_i == kestrel_pkg::RemUnsigned);
      word_q <= is_word;
      by_zero_q <= (b_op == '0);
      dividend_in_q <= a_op;
    end else if (busy_q) begin
      if (!trial[Xlen]) begin
        rem_q <= trial[Xlen-1:0];
        quot_q <= {quot_q[Xlen-2:0], 1'b1};
      end else begin
        rem_q <= rem_shift;
        quot_q <= {quot_q[Xlen-2:0], 1'b0};
      end
    end
  end
endmodule
