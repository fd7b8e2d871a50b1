// Lab 05's RTL bench (make check): the SM's decoder and one lane's ALU, as
// stage 1 uses them (rtl/core/kestrel_sm_exec.sv): operand a is rs1 (or the
// PC), operand b is rs2 or the immediate.  lab05_bench.cpp drives it.
module lab05_exec (
  input  logic [31:0] instr_i,
  input  logic [63:0] rs1_i,
  input  logic [63:0] rs2_i,
  output logic [3:0]  cls_o,
  output logic        rd_we_o,
  output logic        rs1_re_o,
  output logic        rs2_re_o,
  output logic [63:0] result_o
);
  kestrel_pkg::decoded_t dec;
  logic [17:0] regs;
  logic mem, div, tex, fpx;
  kestrel_pkg::fp_dec_t fp;
  logic taken;

  kestrel_decoder #(.Xlen(64)) u_decoder (
    .instr_i(instr_i), .dec_o(dec), .regs_o(regs), .mem_o(mem), .div_o(div), .tex_o(tex), .fpx_o(fpx),
    .fp_o(fp)
  );
  kestrel_alu #(.Xlen(64)) u_alu (
    .op_i       (dec.alu_op),
    .word_i     (dec.word),
    .a_i        (rs1_i),
    .b_i        (dec.src_b_imm ? dec.imm : rs2_i),
    .result_o   (result_o),
    .branch_op_i(kestrel_pkg::BrEq),
    .taken_o    (taken)
  );

  assign cls_o = dec.cls;
  assign rd_we_o = dec.rd_we;
  assign rs1_re_o = dec.rs1_re;
  assign rs2_re_o = dec.rs2_re;

  logic unused;
  assign unused = ^{dec, regs, mem, div, tex, fpx, fp, taken};
endmodule
