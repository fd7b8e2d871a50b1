// kestrel_sm_mem_hazard: what one warp's next instruction must wait for
// while loads and stores of the warp are in flight (kestrel_sm_issue has one
// per warp; docs/microarchitecture.md, "Memory instructions in flight").
//
// drain_o: the instruction orders memory or leaves the pipe's fixed timing
// (fences, atomics, kx.tex, barriers, exits, warp-synchronous instructions,
// traps, illegal instructions and fetch faults, divides, divsqrt and the
// SFU), or it may fault where a load or store in flight could fault first
// (an F operation with a static rm of 5 or 6, or rm = 7 while frm_unsure_i:
// an active thread's frm is 5..7, or may be changing), so it waits until
// the warp has no memory instruction in flight.  The first fault a warp
// reports is then its oldest one's, as in the functional model.
// Loads, stores, the integer pipe's instructions and the F lane-pipeline
// operations go on.
// fload_hazard_o: it reads or writes an f register that an flw in flight
// will write (an F operation's operands and rd, an fsw's data).  A later
// flw of the same register needs no wait: the LSU completes a warp's
// instructions in order.
//
// Combinational; no handshake.  (Its own module so that the decode is read
// from struct ports: Yosys 0.23 has no struct-typed signals inside generate
// blocks or loops.)
module kestrel_sm_mem_hazard (
  input  kestrel_pkg::decoded_t dec_i,
  input  kestrel_pkg::fp_dec_t  fp_i,
  input  logic [6:0]            opcode_i,
  input  logic                  fpx_i,        // goes to kestrel_fp_exec
  input  logic                  ffault_i,     // fetching it faults
  input  logic                  frm_unsure_i, // an active thread's frm is 5..7 or may be being written
  input  logic [31:0]           fload_pend_i, // f registers flw in flight will write
  output logic                  drain_o,
  output logic                  fload_hazard_o
);
  logic fpx_hazard;
  logic [1:0] fp_unit;
  kestrel_sm_fp_hazard u_fp_hazard (
    .fp_i    (fp_i),
    .fpend_i (fload_pend_i),
    .hazard_o(fpx_hazard),
    .unit_o  (fp_unit)
  );

  always_comb begin
    unique case (dec_i.cls)
      // fence and the kx fences (custom-0) are ALU-class no-ops otherwise
      kestrel_pkg::ClassAlu: drain_o = opcode_i == kestrel_pkg::OpMiscMem || opcode_i == kestrel_pkg::OpSimt;
      kestrel_pkg::ClassMul, kestrel_pkg::ClassBranch, kestrel_pkg::ClassJal, kestrel_pkg::ClassJalr,
      kestrel_pkg::ClassCsr, kestrel_pkg::ClassLoad, kestrel_pkg::ClassStore: drain_o = 1'b0;
      default: drain_o = 1'b1;
    endcase
    if (fpx_i && fp_unit != kestrel_fpu_pkg::FpUnitLane) drain_o = 1'b1;
    if (ffault_i || (fpx_i && ((fp_i.rm == 3'd7) ? frm_unsure_i : fp_i.rm > 3'd4))) drain_o = 1'b1;
    fload_hazard_o = fpx_i ? fpx_hazard : (fp_i.store && fload_pend_i[fp_i.rs2]);
  end

  // Lint sink: of the x decode only the class matters here.
  logic unused_dec;
  assign unused_dec = ^{dec_i.alu_op, dec_i.word, dec_i.src_a_pc, dec_i.src_b_imm, dec_i.rd, dec_i.rs1, dec_i.rs2,
                        dec_i.rd_we, dec_i.rs1_re, dec_i.rs2_re, dec_i.imm, dec_i.funct3, dec_i.funct7, dec_i.csr,
                        dec_i.csr_writes};
endmodule
