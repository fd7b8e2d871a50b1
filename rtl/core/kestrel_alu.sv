// kestrel_alu: one lane's integer ALU (RV64I or RV32I by Xlen), combinational.
// Computes the arithmetic/logic result of `op_i` and, independently, the
// branch condition `branch_op_i` on the same operands.  `word_i` selects the
// RV64 *W forms (32-bit operation, result sign-extended); it is ignored when
// Xlen is 32.
module kestrel_alu #(
  parameter int unsigned Xlen = 64
) (
  input  kestrel_pkg::alu_op_e    op_i,
  input  logic                    word_i,
  input  logic [Xlen-1:0]         a_i,
  input  logic [Xlen-1:0]         b_i,
  output logic [Xlen-1:0]         result_o,
  input  kestrel_pkg::branch_op_e branch_op_i,
  output logic                    taken_o
);
  localparam int unsigned ShW = $clog2(Xlen);

  logic [Xlen-1:0] sum, diff, full;
  logic [31:0] word_a, word_res;
  logic [ShW-1:0] shamt;
  logic [4:0] shamt_w;
  logic is_word;
  logic lt_signed, lt_unsigned;

  always_comb begin
    is_word = word_i && (Xlen == 64);
    shamt = b_i[ShW-1:0];
    shamt_w = b_i[4:0];
    sum = a_i + b_i;
    diff = a_i - b_i;
    lt_signed = $signed(a_i) < $signed(b_i);
    lt_unsigned = a_i < b_i;
    word_a = a_i[31:0];

    full = '0;
    unique case (op_i)
      kestrel_pkg::AluAdd:   full = sum;
      kestrel_pkg::AluSub:   full = diff;
      kestrel_pkg::AluSll:   full = a_i << shamt;
      kestrel_pkg::AluSlt:   full = Xlen'(lt_signed);
      kestrel_pkg::AluSltu:  full = Xlen'(lt_unsigned);
      kestrel_pkg::AluXor:   full = a_i ^ b_i;
      kestrel_pkg::AluSrl:   full = a_i >> shamt;
      kestrel_pkg::AluSra:   full = Xlen'($signed(a_i) >>> shamt);
      kestrel_pkg::AluOr:    full = a_i | b_i;
      kestrel_pkg::AluAnd:   full = a_i & b_i;
      kestrel_pkg::AluPassB: full = b_i;
      default:               full = '0;
    endcase

    // RV64 *W forms: only add, sub and the shifts exist; shifts use 5-bit
    // amounts on the low word.
    word_res = full[31:0];
    unique case (op_i)
      kestrel_pkg::AluSll: word_res = word_a << shamt_w;
      kestrel_pkg::AluSrl: word_res = word_a >> shamt_w;
      kestrel_pkg::AluSra: word_res = 32'($signed(word_a) >>> shamt_w);
      default:             word_res = full[31:0];
    endcase
    result_o = is_word ? Xlen'({{(Xlen - 32){word_res[31]}}, word_res}) : full;

    taken_o = 1'b0;
    unique case (branch_op_i)
      kestrel_pkg::BrEq:  taken_o = (a_i == b_i);
      kestrel_pkg::BrNe:  taken_o = (a_i != b_i);
      kestrel_pkg::BrLt:  taken_o = lt_signed;
      kestrel_pkg::BrGe:  taken_o = !lt_signed;
      kestrel_pkg::BrLtu: taken_o = lt_unsigned;
      kestrel_pkg::BrGeu: taken_o = !lt_unsigned;
      default:            taken_o = 1'b0;
    endcase
  end
endmodule
