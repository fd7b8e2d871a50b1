// kestrel_fp_decoder: the F-extension and kx.sfu part of instruction decode,
// combinational, beside kestrel_decoder (which reports these encodings
// illegal until the SM executes them).  Accepts exactly the encodings the
// functional model's decoder accepts (model/decode.cpp): flw, fsw, the
// four fused multiply-adds, OP-FP with fmt = S, and kx.sfu (custom-0 funct3 5,
// rs2 = 0, funct7 = function); on RV32 the l/lu conversions are illegal.
// Reserved static rounding modes (5, 6) make an instruction illegal; rm = 7
// is passed on as dynamic for the SM to resolve per thread from frm.
//
// Outputs are flat (Yosys 0.23 reads no struct members in the SM's per-warp
// loops): the register fields with the file each one names, and the unit.
module kestrel_fp_decoder #(
  parameter int unsigned Xlen = 64
) (
  input  logic [31:0]                   instr_i,
  output logic                          fp_o,          // a legal F or kx.sfu instruction
  output logic                          load_o,        // flw: LSU, 32-bit load into f rd
  output logic                          store_o,       // fsw: LSU, f rs2 stored
  output kestrel_fpu_pkg::fp_unit_e     unit_o,        // the kestrel_fp_exec unit (not loads/stores)
  output kestrel_fpu_pkg::fpu_op_e      fpu_op_o,
  output kestrel_fpu_pkg::divsqrt_op_e  divsqrt_op_o,
  output kestrel_fpu_pkg::sfu_op_e      sfu_op_o,
  output logic [2:0]                    rm_o,          // static mode, or 7: dynamic (frm)
  output logic                          rm_used_o,     // the operation rounds (rm_o matters)
  output logic [63:0]                   imm_o,         // flw/fsw offset
  // registers: {we/re, file is f, index}
  output logic                          rd_we_o,
  output logic                          rd_fp_o,
  output logic [4:0]                    rd_o,
  output logic                          rs1_re_o,
  output logic                          rs1_fp_o,
  output logic [4:0]                    rs1_o,
  output logic                          rs2_re_o,      // always an f register
  output logic [4:0]                    rs2_o,
  output logic                          rs3_re_o,      // always an f register
  output logic [4:0]                    rs3_o
);
  localparam bit Rv64 = (Xlen == 64);
  localparam logic [6:0] OpLoadFp = 7'h07;
  localparam logic [6:0] OpStoreFp = 7'h27;
  localparam logic [6:0] OpMadd = 7'h43;
  localparam logic [6:0] OpMsub = 7'h47;
  localparam logic [6:0] OpNmsub = 7'h4B;
  localparam logic [6:0] OpNmadd = 7'h4F;
  localparam logic [6:0] OpFp = 7'h53;

  logic [6:0] opcode, funct7;
  logic [2:0] funct3;
  logic [4:0] rs2_field;
  logic static_rm_ok, legal;

  always_comb begin
    opcode = instr_i[6:0];
    funct3 = instr_i[14:12];
    funct7 = instr_i[31:25];
    rs2_field = instr_i[24:20];
    static_rm_ok = (funct3 != 3'd5) && (funct3 != 3'd6);

    legal = 1'b0;
    load_o = 1'b0;
    store_o = 1'b0;
    unit_o = kestrel_fpu_pkg::FpUnitLane;
    fpu_op_o = kestrel_fpu_pkg::FpuAdd;
    divsqrt_op_o = kestrel_fpu_pkg::DivSqrtDiv;
    sfu_op_o = kestrel_fpu_pkg::SfuRcp;
    rm_o = funct3;
    rm_used_o = 1'b0;
    imm_o = {{52{instr_i[31]}}, instr_i[31:20]};
    rd_o = instr_i[11:7];
    rs1_o = instr_i[19:15];
    rs2_o = rs2_field;
    rs3_o = instr_i[31:27];
    // The common shape: f rd = op(f rs1, f rs2).
    rd_we_o = 1'b1;
    rd_fp_o = 1'b1;
    rs1_re_o = 1'b1;
    rs1_fp_o = 1'b1;
    rs2_re_o = 1'b1;
    rs3_re_o = 1'b0;

    unique case (opcode)
      OpLoadFp: begin
        legal = (funct3 == 3'd2);
        load_o = 1'b1;
        rs1_fp_o = 1'b0;
        rs2_re_o = 1'b0;
      end
      OpStoreFp: begin
        legal = (funct3 == 3'd2);
        store_o = 1'b1;
        imm_o = {{52{instr_i[31]}}, instr_i[31:25], instr_i[11:7]};
        rd_we_o = 1'b0;
        rs1_fp_o = 1'b0;
      end
      OpMadd, OpMsub, OpNmsub, OpNmadd: begin
        legal = (instr_i[26:25] == 2'b00) && static_rm_ok;  // fmt = S
        rm_used_o = 1'b1;
        rs3_re_o = 1'b1;
        unique case (opcode[3:2])
          2'd0: fpu_op_o = kestrel_fpu_pkg::FpuMadd;
          2'd1: fpu_op_o = kestrel_fpu_pkg::FpuMsub;
          2'd2: fpu_op_o = kestrel_fpu_pkg::FpuNmsub;
          default: fpu_op_o = kestrel_fpu_pkg::FpuNmadd;
        endcase
      end
      OpFp: begin
        unique case (funct7)
          7'h00, 7'h04, 7'h08: begin
            legal = static_rm_ok;
            rm_used_o = 1'b1;
            fpu_op_o = (funct7 == 7'h00) ? kestrel_fpu_pkg::FpuAdd
                     : (funct7 == 7'h04) ? kestrel_fpu_pkg::FpuSub : kestrel_fpu_pkg::FpuMul;
          end
          7'h0C: begin
            legal = static_rm_ok;
            rm_used_o = 1'b1;
            unit_o = kestrel_fpu_pkg::FpUnitDivSqrt;
            divsqrt_op_o = kestrel_fpu_pkg::DivSqrtDiv;
          end
          7'h2C: begin
            legal = static_rm_ok && rs2_field == 5'd0;
            rm_used_o = 1'b1;
            unit_o = kestrel_fpu_pkg::FpUnitDivSqrt;
            divsqrt_op_o = kestrel_fpu_pkg::DivSqrtSqrt;
            rs2_re_o = 1'b0;
          end
          7'h10: begin
            legal = (funct3 <= 3'd2);
            fpu_op_o = (funct3 == 3'd0) ? kestrel_fpu_pkg::FpuSgnj
                     : (funct3 == 3'd1) ? kestrel_fpu_pkg::FpuSgnjn : kestrel_fpu_pkg::FpuSgnjx;
          end
          7'h14: begin
            legal = (funct3 <= 3'd1);
            fpu_op_o = (funct3 == 3'd0) ? kestrel_fpu_pkg::FpuMin : kestrel_fpu_pkg::FpuMax;
          end
          7'h50: begin
            legal = (funct3 <= 3'd2);
            rd_fp_o = 1'b0;
            fpu_op_o = (funct3 == 3'd2) ? kestrel_fpu_pkg::FpuEq
                     : (funct3 == 3'd1) ? kestrel_fpu_pkg::FpuLt : kestrel_fpu_pkg::FpuLe;
          end
          7'h60: begin  // fcvt.{w,wu,l,lu}.s: x rd
            legal = static_rm_ok && (rs2_field <= 5'd1 || (Rv64 && rs2_field <= 5'd3));
            rm_used_o = 1'b1;
            rd_fp_o = 1'b0;
            rs2_re_o = 1'b0;
            unique case (rs2_field[1:0])
              2'd0: fpu_op_o = kestrel_fpu_pkg::FpuCvtWS;
              2'd1: fpu_op_o = kestrel_fpu_pkg::FpuCvtWuS;
              2'd2: fpu_op_o = kestrel_fpu_pkg::FpuCvtLS;
              default: fpu_op_o = kestrel_fpu_pkg::FpuCvtLuS;
            endcase
          end
          7'h68: begin  // fcvt.s.{w,wu,l,lu}: x rs1
            legal = static_rm_ok && (rs2_field <= 5'd1 || (Rv64 && rs2_field <= 5'd3));
            rm_used_o = 1'b1;
            rs1_fp_o = 1'b0;
            rs2_re_o = 1'b0;
            unique case (rs2_field[1:0])
              2'd0: fpu_op_o = kestrel_fpu_pkg::FpuCvtSW;
              2'd1: fpu_op_o = kestrel_fpu_pkg::FpuCvtSWu;
              2'd2: fpu_op_o = kestrel_fpu_pkg::FpuCvtSL;
              default: fpu_op_o = kestrel_fpu_pkg::FpuCvtSLu;
            endcase
          end
          7'h70: begin  // fmv.x.w, fclass.s: x rd
            legal = rs2_field == 5'd0 && funct3 <= 3'd1;
            rd_fp_o = 1'b0;
            rs2_re_o = 1'b0;
            fpu_op_o = (funct3 == 3'd0) ? kestrel_fpu_pkg::FpuMvXW : kestrel_fpu_pkg::FpuClass;
          end
          7'h78: begin  // fmv.w.x: x rs1
            legal = rs2_field == 5'd0 && funct3 == 3'd0;
            rs1_fp_o = 1'b0;
            rs2_re_o = 1'b0;
            fpu_op_o = kestrel_fpu_pkg::FpuMvWX;
          end
          default: legal = 1'b0;
        endcase
      end
      kestrel_pkg::OpSimt: begin
        legal = (funct3 == kestrel_pkg::SimtF3Sfu) && rs2_field == 5'd0 && funct7 <= kestrel_pkg::SimtSfuCos;
        unit_o = kestrel_fpu_pkg::FpUnitSfu;
        unique case (funct7[2:0])
          3'd0: sfu_op_o = kestrel_fpu_pkg::SfuRcp;
          3'd1: sfu_op_o = kestrel_fpu_pkg::SfuRsqrt;
          3'd2: sfu_op_o = kestrel_fpu_pkg::SfuEx2;
          3'd3: sfu_op_o = kestrel_fpu_pkg::SfuLg2;
          3'd4: sfu_op_o = kestrel_fpu_pkg::SfuSin;
          default: sfu_op_o = kestrel_fpu_pkg::SfuCos;
        endcase
        rs2_re_o = 1'b0;
      end
      default: legal = 1'b0;
    endcase

    if (!rm_used_o) rm_o = 3'd0;
    // x0 as a destination is a sink; f0 is an ordinary register.
    if (!rd_fp_o && rd_o == 5'd0) rd_we_o = 1'b0;
    if (!legal) begin
      load_o = 1'b0;
      store_o = 1'b0;
      rd_we_o = 1'b0;
      rs1_re_o = 1'b0;
      rs2_re_o = 1'b0;
      rs3_re_o = 1'b0;
    end
    // Unused register fields must not create false hazards.
    if (!rd_we_o) begin
      rd_o = 5'd0;
      rd_fp_o = 1'b0;
    end
    if (!rs1_re_o) begin
      rs1_o = 5'd0;
      rs1_fp_o = 1'b0;
    end
    if (!rs2_re_o) rs2_o = 5'd0;
    if (!rs3_re_o) rs3_o = 5'd0;
    fp_o = legal;
  end
endmodule
