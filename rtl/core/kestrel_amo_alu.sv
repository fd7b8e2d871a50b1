// kestrel_amo_alu: the value an atomic read-modify-write leaves in memory,
// combinational.  Shared by the shared-memory banks (kestrel_lsu, one per
// bank) and the memory-side atomic unit (kestrel_mem_atomic).
//
// op is the AMO funct5 (kestrel_pkg::Amo*): add, swap, xor, or, and, signed
// and unsigned min/max on 32 or 64 bits (docs/isa.md section 1), and
// custom-1's inc/dec on 32 bits with CUDA's wrap rule and CAS on 32 or 64
// bits (section 2.2):
//   inc: old >= operand ? 0 : old + 1        dec: (old == 0 || old > operand) ? operand : old - 1
//   cas: operand if old == compare, else nothing is written (write_o low)
// A word operation uses bits 31:0 of old, operand and compare and gives bits
// 31:0 (63:32 are 0).  Any other op leaves the old value (the decoder lets
// none through).  write_o is high unless a CAS's comparison failed: a failed
// CAS writes nothing (docs/isa.md section 2.2).
module kestrel_amo_alu (
  input  logic [4:0]  op_i,
  input  logic        dword_i,
  input  logic [63:0] old_i,
  input  logic [63:0] operand_i,
  input  logic [63:0] compare_i,
  output logic [63:0] new_o,
  output logic        write_o
);
  logic [63:0] a, b, sum;
  logic lt_signed, lt_unsigned;

  always_comb begin
    // Word operands sign-extended: signed compares then work on 64 bits, and
    // unsigned compares too (both sides extended alike keep their order).
    a = dword_i ? old_i : {{32{old_i[31]}}, old_i[31:0]};
    b = dword_i ? operand_i : {{32{operand_i[31]}}, operand_i[31:0]};
    sum = a + b;
    lt_signed = $signed(a) < $signed(b);
    lt_unsigned = a < b;
    write_o = 1'b1;
    unique case (op_i)
      kestrel_pkg::AmoAdd:  new_o = sum;
      kestrel_pkg::AmoSwap: new_o = b;
      kestrel_pkg::AmoXor:  new_o = a ^ b;
      kestrel_pkg::AmoOr:   new_o = a | b;
      kestrel_pkg::AmoAnd:  new_o = a & b;
      kestrel_pkg::AmoMin:  new_o = lt_signed ? a : b;
      kestrel_pkg::AmoMax:  new_o = lt_signed ? b : a;
      kestrel_pkg::AmoMinu: new_o = lt_unsigned ? a : b;
      kestrel_pkg::AmoMaxu: new_o = lt_unsigned ? b : a;
      kestrel_pkg::AmoCas: begin
        write_o = dword_i ? (old_i == compare_i) : (old_i[31:0] == compare_i[31:0]);
        new_o = write_o ? b : a;
      end
      kestrel_pkg::AmoInc:  new_o = lt_unsigned ? {32'd0, a[31:0] + 32'd1} : 64'd0;
      kestrel_pkg::AmoDec:  new_o = (a[31:0] == 32'd0 || !lt_unsigned && a != b) ? {32'd0, b[31:0]}
                                                                                : {32'd0, a[31:0] - 32'd1};
      default:              new_o = old_i;
    endcase
    if (!dword_i) new_o[63:32] = '0;
  end
endmodule
