// kestrel_warp_xbar: the SM's lane crossbar for the warp-synchronous
// instructions of docs/isa.md sections 2.1 and 6.1 (custom-0 funct3 1, 2, 3):
// votes and ballot, shuffles (idx, up, down, xor with the segment mask),
// match any/all (32-bit and XLEN-bit keys) and reductions (add, signed and
// unsigned min/max, and, or, xor over the low 32 bits).
//
// Combinational: one warp-instruction per cycle; the SM evaluates it in
// stage 1 (operands straight from the register file) and registers the
// result into stage 2, so the crossbar adds no cycle to the pipe.
//
// active_i are the lanes executing (the complete membermask classes);
// members_i[l] is lane l's participant set (its membermask without exited
// lanes; every participant of an active lane is active).  Lanes outside
// active_i get 0.  Every 32-bit result is sign-extended to Xlen; a shuffle
// moves all Xlen bits.  A shuffle reads the source lane's value whether or
// not that lane participates (docs/isa.md: its register as it is now).
module kestrel_warp_xbar #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  localparam int unsigned RowW = Lanes * Xlen,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1
) (
  input  logic [1:0]             funct3_i,   // 1 vote, 2 shuffle, 3 match/reduce
  input  logic [3:0]             funct7_i,   // low bits of funct7 (shuffle: bits 1:0 the mode)
  input  logic [Lanes-1:0]       active_i,
  input  logic [Lanes*Lanes-1:0] members_i,  // lane l's participants at [l*Lanes +: Lanes]
  input  logic [RowW-1:0]        value_i,    // rs1 of every lane
  input  logic [RowW-1:0]        control_i,  // rs2 of every lane (shuffle control word)
  output logic [RowW-1:0]        result_o
);
  localparam logic [1:0] F3Vote = 2'd1;
  localparam logic [1:0] F3Shuffle = 2'd2;
  localparam logic [1:0] ShflUp = 2'd1;
  localparam logic [1:0] ShflDown = 2'd2;
  localparam logic [1:0] ShflXor = 2'd3;

  function automatic logic [Xlen-1:0] sext32(input logic [31:0] v);
    sext32 = Xlen'({{32{v[31]}}, v});
  endfunction

  // Shuffle source lane of `lane` (PTX shfl.sync with the clamp implied by
  // the mode); an out-of-segment source or one beyond the warp gives `lane`.
  // control: {segment mask, lane/delta/xor mask} (control word bits 12..8, 4..0).
  function automatic logic [LaneW-1:0] shfl_source(input logic [1:0] mode, input logic [4:0] lane,
                                                   input logic [9:0] control);
    logic signed [7:0] b, s, self, clamp, lmax, lmin, j;
    logic ok;
    b = 8'(control[4:0]);
    s = 8'(control[9:5]);
    self = 8'(lane);
    clamp = (mode == ShflUp) ? 8'sd0 : 8'sd31;
    lmax = (self & s) | (clamp & ~s);
    lmin = self & s;
    unique case (mode)
      ShflUp: begin
        j = self - b;
        ok = j >= lmax;
      end
      ShflDown: begin
        j = self + b;
        ok = j <= lmax;
      end
      ShflXor: begin
        j = self ^ b;
        ok = j <= lmax;
      end
      default: begin  // idx
        j = lmin | (b & ~s);
        ok = j <= lmax;
      end
    endcase
    if (ok && j >= 8'sd0 && j < 8'(Lanes)) shfl_source = LaneW'(j);
    else shfl_source = LaneW'(lane);
  endfunction

  function automatic logic [31:0] reduce_step(input logic [6:0] op, input logic [31:0] a, input logic [31:0] b);
    unique case (op)
      kestrel_pkg::SimtReduceAdd: reduce_step = a + b;
      kestrel_pkg::SimtReduceMin: reduce_step = ($signed(b) < $signed(a)) ? b : a;
      kestrel_pkg::SimtReduceMax: reduce_step = ($signed(b) > $signed(a)) ? b : a;
      kestrel_pkg::SimtReduceMinu: reduce_step = (b < a) ? b : a;
      kestrel_pkg::SimtReduceMaxu: reduce_step = (b > a) ? b : a;
      kestrel_pkg::SimtReduceAnd: reduce_step = a & b;
      kestrel_pkg::SimtReduceOr: reduce_step = a | b;
      default: reduce_step = a ^ b;
    endcase
  endfunction

  // Identity of each reduction, so lanes outside the participants fold away.
  function automatic logic [31:0] reduce_identity(input logic [6:0] op);
    unique case (op)
      kestrel_pkg::SimtReduceMin: reduce_identity = 32'h7FFF_FFFF;
      kestrel_pkg::SimtReduceMax: reduce_identity = 32'h8000_0000;
      kestrel_pkg::SimtReduceMinu, kestrel_pkg::SimtReduceAnd: reduce_identity = 32'hFFFF_FFFF;
      default: reduce_identity = 32'h0000_0000;
    endcase
  endfunction

  logic [Lanes-1:0] nonzero;
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) nonzero[l] = value_i[l*Xlen +: Xlen] != '0;
  end

  // match keys: the low 32 bits (funct7 bit 1 clear) or all Xlen bits.
  logic [Lanes*Lanes-1:0] equal;  // equal[l*Lanes + k]: lanes l and k hold the same key
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      for (int unsigned k = 0; k < Lanes; k++) begin
        if (funct7_i[1]) equal[l*Lanes + k] = value_i[l*Xlen +: Xlen] == value_i[k*Xlen +: Xlen];
        else equal[l*Lanes + k] = value_i[l*Xlen +: 32] == value_i[k*Xlen +: 32];
      end
    end
  end

  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      logic [Lanes-1:0] members, ballot, same;
      logic [31:0] acc;
      logic [LaneW-1:0] src;
      logic [Xlen-1:0] r;
      members = members_i[l*Lanes +: Lanes];
      ballot = nonzero & members;
      same = equal[l*Lanes +: Lanes] & members;
      acc = reduce_identity(7'(funct7_i));
      for (int unsigned k = 0; k < Lanes; k++) begin
        if (members[k]) acc = reduce_step(7'(funct7_i), acc, value_i[k*Xlen +: 32]);
      end
      src = shfl_source(funct7_i[1:0], 5'(l), {control_i[l*Xlen + 8 +: 5], control_i[l*Xlen +: 5]});
      if (funct3_i == F3Vote) begin
        unique case (funct7_i[1:0])
          2'd0: r = Xlen'(ballot == members);
          2'd1: r = Xlen'(ballot != '0);
          2'd2: r = Xlen'(ballot == '0 || ballot == members);
          default: r = sext32(32'(ballot));
        endcase
      end else if (funct3_i == F3Shuffle) begin
        r = value_i[32'(src)*Xlen +: Xlen];
      end else if (!funct7_i[3]) begin  // match
        if (funct7_i[0]) r = (same == members) ? sext32(32'(members)) : '0;
        else r = sext32(32'(same));
      end else begin
        r = sext32(acc);
      end
      result_o[l*Xlen +: Xlen] = active_i[l] ? r : '0;
    end
  end
endmodule
