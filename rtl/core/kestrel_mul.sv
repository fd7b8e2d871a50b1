// kestrel_mul: one lane's pipelined M-extension multiplier (mul, mulh, mulhsu,
// mulhu and RV64 mulw).  Latency 2 cycles (operand register, product
// register), one operation per cycle; `en_i` advances the pipeline so the SM
// can stall it together with the rest of its execute stages.  No handshake:
// the SM tracks the valid bits of its execute pipeline.  Datapath registers
// are unreset (they map to DSP pipeline registers).
module kestrel_mul #(
  parameter int unsigned Xlen = 64
) (
  input  logic                 clk_i,
  input  logic                 en_i,
  input  kestrel_pkg::mul_op_e op_i,
  input  logic                 word_i,
  input  logic [Xlen-1:0]      a_i,
  input  logic [Xlen-1:0]      b_i,
  output logic [Xlen-1:0]      result_o
);
  localparam int unsigned ExtW = Xlen + 1;
  localparam int unsigned ProdW = 2 * ExtW;

  logic signed [ExtW-1:0] a_ext_d, b_ext_d, a_ext_q, b_ext_q;
  logic high_q, word_q;
  // The two top bits of the (Xlen+1)^2 product only repeat the sign.
  /* verilator lint_off UNUSEDSIGNAL */
  logic signed [ProdW-1:0] prod_d;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [2*Xlen-1:0] prod_q;
  logic high_q2, word_q2;

  always_comb begin
    // Sign-extend by one bit for signed operands, zero-extend otherwise, so
    // one signed multiplier covers all four forms.
    a_ext_d = (op_i == kestrel_pkg::MulHighU) ? ExtW'({1'b0, a_i}) : ExtW'({a_i[Xlen-1], a_i});
    b_ext_d = (op_i == kestrel_pkg::MulHighU || op_i == kestrel_pkg::MulHighSU)
                  ? ExtW'({1'b0, b_i}) : ExtW'({b_i[Xlen-1], b_i});
    prod_d = a_ext_q * b_ext_q;
  end

  always_ff @(posedge clk_i) begin
    if (en_i) begin
      a_ext_q <= a_ext_d;
      b_ext_q <= b_ext_d;
      high_q <= (op_i != kestrel_pkg::MulLow);
      word_q <= word_i && (Xlen == 64);
      prod_q <= prod_d[2*Xlen-1:0];
      high_q2 <= high_q;
      word_q2 <= word_q;
    end
  end

  always_comb begin
    if (word_q2) result_o = Xlen'({{(Xlen - 32){prod_q[31]}}, prod_q[31:0]});
    else if (high_q2) result_o = prod_q[2*Xlen-1:Xlen];
    else result_o = prod_q[Xlen-1:0];
  end
endmodule
