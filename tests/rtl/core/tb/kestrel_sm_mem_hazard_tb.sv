// Bench wrapper: kestrel_sm_mem_hazard behind the decoder that feeds it in
// kestrel_sm_issue, so the bench hands in instruction words.
module kestrel_sm_mem_hazard_tb (
  input  logic [31:0] instr_i,
  input  logic        ffault_i,
  input  logic        frm_unsure_i,
  input  logic [31:0] fload_pend_i,
  output logic        drain_o,
  output logic        fload_hazard_o
);
  kestrel_pkg::decoded_t dec;
  kestrel_pkg::fp_dec_t fp;
  logic [17:0] regs;
  logic mem, div, tex, fpx;
  kestrel_decoder #(.Xlen(64), .TexUnit(1)) u_decoder (
    .instr_i(instr_i), .dec_o(dec), .regs_o(regs), .mem_o(mem), .div_o(div), .tex_o(tex), .fpx_o(fpx), .fp_o(fp)
  );
  kestrel_sm_mem_hazard u_mem_hazard (
    .dec_i(dec), .fp_i(fp), .opcode_i(instr_i[6:0]), .fpx_i(fpx), .ffault_i(ffault_i), .frm_unsure_i(frm_unsure_i),
    .fload_pend_i(fload_pend_i), .drain_o(drain_o), .fload_hazard_o(fload_hazard_o)
  );
  logic unused;
  assign unused = ^{regs, mem, div, tex};
endmodule
