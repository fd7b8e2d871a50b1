// kestrel_decoder: one 32-bit instruction word to a kestrel_pkg::decoded_t,
// combinational.  Accepts exactly the encodings the functional model's
// decoder accepts for RV64I/RV32I, M, Zicsr (reads of the CSRs of docs/isa.md
// section 3) and the SIMT control instructions (exit, barriers, trap,
// fences, kx.nanosleep), the warp-synchronous instructions (custom-0
// funct3 1..3 as ClassWarp; funct7 keeps the shuffle mode in bits 1:0 and
// its rs3 in bits 6:2), and F with kx.sfu through kestrel_fp_decoder: flw/fsw as loads and
// stores, the other F instructions as ClassAlu with fpx_o set (the SM sends
// them to kestrel_fp_exec; fp_o carries their fields), and the FP CSRs
// (fflags, frm, fcsr: read and written per thread).  Everything else is
// ClassIllegal.  The A extension's AMOs and LR/SC (.w, and .d on RV64) and custom-1's
// kx.amoinc.w/kx.amodec.w, kx.amocas.w/.d and kx.amofadd.s are
// ClassAtomic (the LSU performs them; a CAS also reads rd, the compare value,
// through the SM's third register read port; kx.amofadd.s reads f rs2 and
// writes f rd, flagged in fp_o as both an FP load and an FP store, with no x
// register but rs1).  RV32's register-pair forms (custom-1 funct3 3: the A
// operations and CAS on even rd/rs2) are ClassAtomic with funct3 3 too.
// Writes of every other CSR (all are read-only) are illegal.  kx.tex
// (custom-2, docs/isa.md section 2.5) is ClassTex: x rs1 (the object) and
// rs2 (the layer) as x reads, the form in funct3, and in fp_o its f register
// groups: rd (the first of four written) and rs1..rs3 = the coordinates
// f[rs3], f[rs3+1], f[rs3+2] (read through the three f read ports).
//
// In decoded_t an F instruction's rd/rs1 name x registers only (rd_we and
// rs1_re clear for f operands), so the x scoreboard and register read work
// unchanged; the f fields travel in fp_o.
module kestrel_decoder #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned TexUnit = 1   // 0: no texture unit, kx.tex is illegal
) (
  input  logic [31:0]            instr_i,
  output kestrel_pkg::decoded_t  dec_o,
  // the same fields flat, for the SM's per-warp hazard and unit checks:
  // {rd_we, rd, rs1_re, rs1, rs2_re, rs2} (kestrel_scoreboard's check format)
  output logic [17:0]            regs_o,
  output logic                   mem_o,      // goes to the LSU
  output logic                   div_o,      // goes to the divider
  output logic                   tex_o,      // goes to the texture unit
  output logic                   fpx_o,      // goes to kestrel_fp_exec
  // F fields (kestrel_pkg::fp_dec_t)
  output kestrel_pkg::fp_dec_t   fp_o
);
  localparam bit Rv64 = (Xlen == 64);

  logic [6:0] opcode, funct7;
  logic [2:0] funct3;
  logic [4:0] rd, rs1, rs2;
  logic [63:0] imm_i, imm_s, imm_b, imm_u, imm_j;
  logic [11:0] csr;
  logic legal;
  logic fp_csr;
  logic amo_fadd;  // kx.amofadd.s: f rs2 in, f rd out
  logic pairs_even;  // RV32 register pairs start at even registers (always true on RV64)
  logic [4:0] tex_rs3;  // kx.tex: the first coordinate's f register

  // F decode (its own unit so that the FP encodings are benched on their own).
  logic fp_legal, fp_load, fp_store, fp_rm_used, fp_rd_we, fp_rd_fp, fp_rs1_re, fp_rs1_fp;
  logic fp_rs2_re, fp_rs3_re;
  kestrel_fpu_pkg::fp_unit_e fp_unit;
  kestrel_fpu_pkg::fpu_op_e fp_fpu_op;
  kestrel_fpu_pkg::divsqrt_op_e fp_divsqrt_op;
  kestrel_fpu_pkg::sfu_op_e fp_sfu_op;
  logic [2:0] fp_rm;
  logic [63:0] fp_imm;
  logic [4:0] fp_rd, fp_rs1, fp_rs2, fp_rs3;
  kestrel_fp_decoder #(.Xlen(Xlen)) u_fp_decoder (
    .instr_i     (instr_i),
    .fp_o        (fp_legal),
    .load_o      (fp_load),
    .store_o     (fp_store),
    .unit_o      (fp_unit),
    .fpu_op_o    (fp_fpu_op),
    .divsqrt_op_o(fp_divsqrt_op),
    .sfu_op_o    (fp_sfu_op),
    .rm_o        (fp_rm),
    .rm_used_o   (fp_rm_used),
    .imm_o       (fp_imm),
    .rd_we_o     (fp_rd_we),
    .rd_fp_o     (fp_rd_fp),
    .rd_o        (fp_rd),
    .rs1_re_o    (fp_rs1_re),
    .rs1_fp_o    (fp_rs1_fp),
    .rs1_o       (fp_rs1),
    .rs2_re_o    (fp_rs2_re),
    .rs2_o       (fp_rs2),
    .rs3_re_o    (fp_rs3_re),
    .rs3_o       (fp_rs3)
  );
  logic unused_fp;
  assign unused_fp = fp_rm_used ^ fp_rs2_re ^ fp_rs3_re;

  function automatic logic csr_readable(input logic [11:0] c);
    csr_readable = 1'b0;
    if (c == kestrel_pkg::CsrCycle || c == kestrel_pkg::CsrTime || c == kestrel_pkg::CsrInstret) csr_readable = 1'b1;
    if (!Rv64 && (c == kestrel_pkg::CsrCycleH || c == kestrel_pkg::CsrTimeH || c == kestrel_pkg::CsrInstretH))
      csr_readable = 1'b1;
    if (c >= kestrel_pkg::CsrTidX && c <= kestrel_pkg::CsrDynShared) csr_readable = 1'b1;
  endfunction

  always_comb begin
    opcode = instr_i[6:0];
    funct3 = instr_i[14:12];
    funct7 = instr_i[31:25];
    rd = instr_i[11:7];
    rs1 = instr_i[19:15];
    rs2 = instr_i[24:20];
    csr = instr_i[31:20];
    imm_i = {{52{instr_i[31]}}, instr_i[31:20]};
    imm_s = {{52{instr_i[31]}}, instr_i[31:25], instr_i[11:7]};
    imm_b = {{51{instr_i[31]}}, instr_i[31], instr_i[7], instr_i[30:25], instr_i[11:8], 1'b0};
    imm_u = {{32{instr_i[31]}}, instr_i[31:12], 12'b0};
    imm_j = {{43{instr_i[31]}}, instr_i[31], instr_i[19:12], instr_i[20], instr_i[30:21], 1'b0};

    dec_o = '0;
    amo_fadd = 1'b0;
    tex_rs3 = instr_i[31:27];
    pairs_even = Rv64 || (rd[0] == 1'b0 && rs2[0] == 1'b0);
    dec_o.cls = kestrel_pkg::ClassAlu;
    dec_o.alu_op = kestrel_pkg::AluAdd;
    dec_o.rd = rd;
    dec_o.rs1 = rs1;
    dec_o.rs2 = rs2;
    dec_o.funct3 = funct3;
    dec_o.funct7 = funct7;
    dec_o.csr = csr;
    legal = 1'b0;
    fp_csr = 1'b0;

    unique case (opcode)
      kestrel_pkg::OpLui: begin
        legal = 1'b1;
        dec_o.alu_op = kestrel_pkg::AluPassB;
        dec_o.src_b_imm = 1'b1;
        dec_o.imm = imm_u;
        dec_o.rd_we = 1'b1;
      end
      kestrel_pkg::OpAuipc: begin
        legal = 1'b1;
        dec_o.src_a_pc = 1'b1;
        dec_o.src_b_imm = 1'b1;
        dec_o.imm = imm_u;
        dec_o.rd_we = 1'b1;
      end
      kestrel_pkg::OpJal: begin
        legal = 1'b1;
        dec_o.cls = kestrel_pkg::ClassJal;
        dec_o.imm = imm_j;
        dec_o.rd_we = 1'b1;
      end
      kestrel_pkg::OpJalr: begin
        legal = (funct3 == 3'd0);
        dec_o.cls = kestrel_pkg::ClassJalr;
        dec_o.imm = imm_i;
        dec_o.rd_we = 1'b1;
        dec_o.rs1_re = 1'b1;
      end
      kestrel_pkg::OpBranch: begin
        legal = (funct3 != 3'd2) && (funct3 != 3'd3);
        dec_o.cls = kestrel_pkg::ClassBranch;
        dec_o.imm = imm_b;
        dec_o.rs1_re = 1'b1;
        dec_o.rs2_re = 1'b1;
      end
      kestrel_pkg::OpLoad: begin
        legal = (funct3 != 3'd7) && (Rv64 || (funct3 != 3'd3 && funct3 != 3'd6));
        dec_o.cls = kestrel_pkg::ClassLoad;
        dec_o.src_b_imm = 1'b1;  // the ALU adds the address
        dec_o.imm = imm_i;
        dec_o.rd_we = 1'b1;
        dec_o.rs1_re = 1'b1;
      end
      kestrel_pkg::OpStore: begin
        legal = (funct3[2] == 1'b0) && (Rv64 || funct3 != 3'd3);
        dec_o.cls = kestrel_pkg::ClassStore;
        dec_o.src_b_imm = 1'b1;
        dec_o.imm = imm_s;
        dec_o.rs1_re = 1'b1;
        dec_o.rs2_re = 1'b1;
      end
      kestrel_pkg::OpAmo, kestrel_pkg::OpAtomic: begin
        // AMOs (A, section 1) and custom-1's CAS/inc/dec (section 2.2):
        // address rs1 (the ALU adds a zero immediate), operand rs2, old value
        // to rd (a CAS's compare value is rd too).  funct3 2 is a word, 3 a
        // doubleword: A's .d on RV64; custom-1's CAS .d on both, and on RV32
        // the A operations as register-pair forms (even rd and rs2; the SM
        // reads rs2+1 and rd+1 and writes rd+1 too).  LR/SC like A's AMOs
        // (LR needs rs2 = 0 and reads no rs2; SC's rd gets 0 or 1).
        dec_o.cls = kestrel_pkg::ClassAtomic;
        dec_o.src_b_imm = 1'b1;
        dec_o.imm = '0;
        dec_o.rd_we = 1'b1;
        dec_o.rs1_re = 1'b1;
        dec_o.rs2_re = 1'b1;
        if (opcode == kestrel_pkg::OpAmo) begin
          unique case (funct7[6:2])
            kestrel_pkg::AmoAdd, kestrel_pkg::AmoSwap, kestrel_pkg::AmoXor, kestrel_pkg::AmoOr, kestrel_pkg::AmoAnd,
            kestrel_pkg::AmoMin, kestrel_pkg::AmoMax, kestrel_pkg::AmoMinu, kestrel_pkg::AmoMaxu:
              legal = (funct3 == 3'd2) || (Rv64 && funct3 == 3'd3);
            kestrel_pkg::AmoLr: begin
              legal = ((funct3 == 3'd2) || (Rv64 && funct3 == 3'd3)) && rs2 == 5'd0;
              dec_o.rs2_re = 1'b0;
            end
            kestrel_pkg::AmoSc: legal = (funct3 == 3'd2) || (Rv64 && funct3 == 3'd3);
            default: legal = 1'b0;
          endcase
        end else begin
          unique case (funct7[6:2])
            kestrel_pkg::AmoInc, kestrel_pkg::AmoDec: legal = (funct3 == 3'd2);
            kestrel_pkg::AmoCas: legal = (funct3 == 3'd2) || (funct3 == 3'd3 && pairs_even);
            kestrel_pkg::AmoAdd, kestrel_pkg::AmoSwap, kestrel_pkg::AmoXor, kestrel_pkg::AmoOr, kestrel_pkg::AmoAnd,
            kestrel_pkg::AmoMin, kestrel_pkg::AmoMax, kestrel_pkg::AmoMinu, kestrel_pkg::AmoMaxu:
              legal = !Rv64 && funct3 == 3'd3 && pairs_even;
            kestrel_pkg::AmoFadd: begin
              legal = (funct3 == 3'd2);
              amo_fadd = legal;
              dec_o.rd_we = 1'b0;   // fd and fs2 are f registers
              dec_o.rs2_re = 1'b0;
            end
            default: legal = 1'b0;
          endcase
        end
      end
      kestrel_pkg::OpImm: begin
        dec_o.src_b_imm = 1'b1;
        dec_o.imm = imm_i;
        dec_o.rd_we = 1'b1;
        dec_o.rs1_re = 1'b1;
        legal = 1'b1;
        unique case (funct3)
          3'd0: dec_o.alu_op = kestrel_pkg::AluAdd;
          3'd2: dec_o.alu_op = kestrel_pkg::AluSlt;
          3'd3: dec_o.alu_op = kestrel_pkg::AluSltu;
          3'd4: dec_o.alu_op = kestrel_pkg::AluXor;
          3'd6: dec_o.alu_op = kestrel_pkg::AluOr;
          3'd7: dec_o.alu_op = kestrel_pkg::AluAnd;
          3'd1: begin
            dec_o.alu_op = kestrel_pkg::AluSll;
            // The shift amount is 6 bits on RV64, 5 on RV32; the bits above it must be 0.
            legal = Rv64 ? (instr_i[31:26] == 6'd0) : (instr_i[31:25] == 7'd0);
          end
          default: begin  // 5: srli / srai
            dec_o.alu_op = instr_i[30] ? kestrel_pkg::AluSra : kestrel_pkg::AluSrl;
            legal = Rv64 ? (instr_i[31:26] == 6'd0 || instr_i[31:26] == 6'h10)
                         : (instr_i[31:25] == 7'd0 || instr_i[31:25] == 7'h20);
          end
        endcase
      end
      kestrel_pkg::OpImm32: begin
        dec_o.word = 1'b1;
        dec_o.src_b_imm = 1'b1;
        dec_o.imm = imm_i;
        dec_o.rd_we = 1'b1;
        dec_o.rs1_re = 1'b1;
        unique case (funct3)
          3'd0: legal = Rv64;
          3'd1: begin
            dec_o.alu_op = kestrel_pkg::AluSll;
            legal = Rv64 && funct7 == 7'h00;
          end
          3'd5: begin
            dec_o.alu_op = instr_i[30] ? kestrel_pkg::AluSra : kestrel_pkg::AluSrl;
            legal = Rv64 && (funct7 == 7'h00 || funct7 == 7'h20);
          end
          default: legal = 1'b0;
        endcase
      end
      kestrel_pkg::OpReg, kestrel_pkg::OpReg32: begin
        dec_o.word = (opcode == kestrel_pkg::OpReg32);
        dec_o.rd_we = 1'b1;
        dec_o.rs1_re = 1'b1;
        dec_o.rs2_re = 1'b1;
        if (funct7 == 7'h01) begin
          dec_o.cls = funct3[2] ? kestrel_pkg::ClassDiv : kestrel_pkg::ClassMul;
          legal = (opcode == kestrel_pkg::OpReg) || (Rv64 && (funct3 == 3'd0 || funct3[2]));
        end else if (funct7 == 7'h00) begin
          unique case (funct3)
            3'd0: dec_o.alu_op = kestrel_pkg::AluAdd;
            3'd1: dec_o.alu_op = kestrel_pkg::AluSll;
            3'd2: dec_o.alu_op = kestrel_pkg::AluSlt;
            3'd3: dec_o.alu_op = kestrel_pkg::AluSltu;
            3'd4: dec_o.alu_op = kestrel_pkg::AluXor;
            3'd5: dec_o.alu_op = kestrel_pkg::AluSrl;
            3'd6: dec_o.alu_op = kestrel_pkg::AluOr;
            default: dec_o.alu_op = kestrel_pkg::AluAnd;
          endcase
          legal = (opcode == kestrel_pkg::OpReg) || (Rv64 && (funct3 == 3'd0 || funct3 == 3'd1 || funct3 == 3'd5));
        end else if (funct7 == 7'h20) begin
          dec_o.alu_op = (funct3 == 3'd0) ? kestrel_pkg::AluSub : kestrel_pkg::AluSra;
          legal = (funct3 == 3'd0 || funct3 == 3'd5) && (opcode == kestrel_pkg::OpReg || Rv64);
        end
      end
      kestrel_pkg::OpMiscMem: begin
        // fence orders nothing here: every warp's memory operations complete
        // before its next instruction issues.  fence.i (funct3 1) is illegal.
        legal = (funct3 == 3'd0);
        dec_o.rd_we = 1'b0;
      end
      kestrel_pkg::OpSystem: begin
        dec_o.cls = kestrel_pkg::ClassCsr;
        dec_o.imm = {59'd0, rs1};  // csr*i immediate
        dec_o.rd_we = 1'b1;
        // csrrw[i] always writes; csrrs/c[i] write unless the source is x0 / 0.
        dec_o.csr_writes = (funct3[1:0] == 2'b01) || (rs1 != 5'd0);
        // fflags, frm and fcsr are per-thread state the instruction may write.
        fp_csr = (csr == kestrel_fpu_pkg::CsrFflags) || (csr == kestrel_fpu_pkg::CsrFrm)
                 || (csr == kestrel_fpu_pkg::CsrFcsr);
        dec_o.rs1_re = fp_csr && !funct3[2];
        legal = (funct3 != 3'd0) && (funct3 != 3'd4) && (fp_csr || (csr_readable(csr) && !dec_o.csr_writes));
      end
      kestrel_pkg::OpSimt: begin
        if (funct3 == kestrel_pkg::SimtF3Control) begin
          unique case (funct7)
            kestrel_pkg::SimtExit: begin
              legal = 1'b1;
              dec_o.cls = kestrel_pkg::ClassExit;
            end
            kestrel_pkg::SimtBarSync, kestrel_pkg::SimtBarCount, kestrel_pkg::SimtBarAnd, kestrel_pkg::SimtBarOr: begin
              legal = 1'b1;
              dec_o.cls = kestrel_pkg::ClassBarrier;
              dec_o.rs1_re = 1'b1;
              dec_o.rd_we = (funct7 != kestrel_pkg::SimtBarSync);
            end
            kestrel_pkg::SimtTrap: begin
              legal = 1'b1;
              dec_o.cls = kestrel_pkg::ClassTrap;
              dec_o.rs1_re = 1'b1;
              dec_o.rs2_re = 1'b1;
              dec_o.rs2 = 5'd12;  // a2: the assert line
            end
            kestrel_pkg::SimtNanosleep: begin
              legal = 1'b1;
              dec_o.cls = kestrel_pkg::ClassWarp;
              dec_o.rs1_re = 1'b1;
            end
            kestrel_pkg::SimtFenceBlock, kestrel_pkg::SimtFenceDevice, kestrel_pkg::SimtFenceSystem: begin
              legal = 1'b1;
            end
            default: legal = 1'b0;
          endcase
        end else if (funct3 == kestrel_pkg::SimtF3Vote || funct3 == kestrel_pkg::SimtF3Shuffle
                     || funct3 == kestrel_pkg::SimtF3Match) begin
          // Votes and kx.syncwarp (funct7 0..4), shuffles (R4: any funct7),
          // match (0..3) and reduce (8..15); rs2 is the membermask or the
          // shuffle control word.
          legal = (funct3 == kestrel_pkg::SimtF3Vote) ? (funct7 <= kestrel_pkg::SimtSyncwarp)
                : (funct3 == kestrel_pkg::SimtF3Shuffle) ? 1'b1
                : (funct7 <= kestrel_pkg::SimtMatchAll
                   || (funct7 >= kestrel_pkg::SimtReduceAdd && funct7 <= kestrel_pkg::SimtReduceXor));
          dec_o.cls = kestrel_pkg::ClassWarp;
          dec_o.rs1_re = !(funct3 == kestrel_pkg::SimtF3Vote && funct7 == kestrel_pkg::SimtSyncwarp);
          dec_o.rs2_re = 1'b1;
          dec_o.rd_we = !(funct3 == kestrel_pkg::SimtF3Vote && funct7 == kestrel_pkg::SimtSyncwarp);
        end
      end
      kestrel_pkg::OpTex: begin
        legal = TexUnit != 0 && funct3 <= kestrel_pkg::TexForm1dFetch && instr_i[26:25] == kestrel_pkg::TexOpFetch
                && rd <= 5'd28 && tex_rs3 <= 5'd29;
        dec_o.cls = kestrel_pkg::ClassTex;
        dec_o.rs1_re = 1'b1;
        dec_o.rs2_re = 1'b1;
      end
      default: legal = 1'b0;
    endcase

    if (fp_legal) begin
      legal = 1'b1;
      dec_o.cls = fp_load ? kestrel_pkg::ClassLoad : fp_store ? kestrel_pkg::ClassStore : kestrel_pkg::ClassAlu;
      dec_o.alu_op = kestrel_pkg::AluAdd;  // flw/fsw address: rs1 + imm
      dec_o.src_b_imm = 1'b1;
      dec_o.imm = fp_imm;
      dec_o.word = 1'b0;
      dec_o.rd_we = fp_rd_we && !fp_rd_fp;
      dec_o.rs1_re = fp_rs1_re && !fp_rs1_fp;
      dec_o.rs2_re = 1'b0;
    end

    // Unused register fields must not create false hazards.
    if (!dec_o.rs1_re) dec_o.rs1 = 5'd0;
    if (!dec_o.rs2_re) dec_o.rs2 = 5'd0;
    if (!legal) begin
      dec_o.cls = kestrel_pkg::ClassIllegal;
      dec_o.rd_we = 1'b0;
      dec_o.rs1_re = 1'b0;
      dec_o.rs2_re = 1'b0;
      dec_o.rs1 = 5'd0;
      dec_o.rs2 = 5'd0;
    end
    if (dec_o.rd == 5'd0) dec_o.rd_we = 1'b0;
    if (!dec_o.rd_we) dec_o.rd = 5'd0;
    regs_o = {dec_o.rd_we, dec_o.rd, dec_o.rs1_re, dec_o.rs1, dec_o.rs2_re, dec_o.rs2};
    mem_o = (dec_o.cls == kestrel_pkg::ClassLoad) || (dec_o.cls == kestrel_pkg::ClassStore)
            || (dec_o.cls == kestrel_pkg::ClassAtomic);
    div_o = (dec_o.cls == kestrel_pkg::ClassDiv);
    tex_o = (dec_o.cls == kestrel_pkg::ClassTex);
    fpx_o = fp_legal && !fp_load && !fp_store;
    fp_o.load = fp_load;
    fp_o.store = fp_store;
    fp_o.unit = fp_unit;
    fp_o.fpu_op = fp_fpu_op;
    fp_o.divsqrt_op = fp_divsqrt_op;
    fp_o.sfu_op = fp_sfu_op;
    fp_o.rm = fp_rm;
    fp_o.rd_we = fp_rd_we && fp_rd_fp;
    fp_o.rd = fp_rd;
    fp_o.rs1_re = fp_rs1_re && fp_rs1_fp;
    fp_o.rs1 = fp_rs1;
    fp_o.rs2 = fp_rs2;
    fp_o.rs3 = fp_rs3;
    if (amo_fadd) begin
      // The LSU takes f rs2 as its operand (an FP store's data) and writes
      // the old value to f rd (an FP load's destination).
      fp_o = '0;
      fp_o.load = 1'b1;
      fp_o.store = 1'b1;
      fp_o.rd_we = 1'b1;
      fp_o.rd = rd;
      fp_o.rs2 = rs2;
    end
    if (tex_o) begin
      // f rd..rd+3 are written through the retire slot (four records), not
      // by an F unit: rd_we stays clear; the coordinates are read like a
      // fused operation's three operands.
      fp_o = '0;
      fp_o.rd = rd;
      fp_o.rs1 = tex_rs3;
      fp_o.rs2 = tex_rs3 + 5'd1;
      fp_o.rs3 = tex_rs3 + 5'd2;
    end
  end
endmodule
