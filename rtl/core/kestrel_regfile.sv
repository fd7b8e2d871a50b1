// kestrel_regfile: the integer registers of every thread of an SM, arranged
// as one row of Lanes*Xlen bits per (warp, register).  Three read ports (rs1,
// rs2, rs3: a whole warp's operands per cycle; rs3 is the membermask of a
// shuffle, R4 format) and one write port with a per-lane write mask.  Each
// read port has its own copy of the storage, all written by the write port:
// the replication that gives a 1-write/3-read RAM from FPGA block RAMs.  Reads are synchronous (data the cycle after `ren_i`,
// held while `ren_i` is low, as a RAM output register does).
//
// Thread start state without a clearing pass: a per-lane `written` bit per
// (warp, register), cleared when the warp launches, makes an unwritten
// register read as its start value (ra, sp, gp, a0 from the launch, 0 for the
// rest, docs/isa.md section 5).  x0 always reads 0 and ignores writes.
module kestrel_regfile #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned RowW = Lanes * Xlen
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // start values of ra, sp, gp and a0 for this launch
  input  logic [Xlen-1:0]  init_ra_i,
  input  logic [Xlen-1:0]  init_sp_i,
  input  logic [Xlen-1:0]  init_gp_i,
  input  logic [Xlen-1:0]  init_a0_i,
  // warp launch: its registers return to the start state
  input  logic             launch_i,
  input  logic [WarpW-1:0] launch_warp_i,
  // read side
  input  logic             ren_i,
  input  logic [WarpW-1:0] rwarp_i,
  input  logic [4:0]       rs1_i,
  input  logic [4:0]       rs2_i,
  input  logic [4:0]       rs3_i,
  output logic [RowW-1:0]  rs1_data_o,
  output logic [RowW-1:0]  rs2_data_o,
  output logic [RowW-1:0]  rs3_data_o,
  // write side
  input  logic             we_i,
  input  logic [WarpW-1:0] wwarp_i,
  input  logic [4:0]       rd_i,
  input  logic [Lanes-1:0] wmask_i,
  input  logic [RowW-1:0]  wdata_i
);
  localparam int unsigned Rows = Warps * 32;
  localparam int unsigned RowAddrW = WarpW + 5;

  // Storage: unreset RAM (maps to block RAM); only written rows are ever used.
  logic [RowW-1:0] bank_a [Rows];
  logic [RowW-1:0] bank_b [Rows];
  logic [RowW-1:0] bank_c [Rows];
  // Row r's lane bits at [r*Lanes +: Lanes] (flat for Yosys 0.23).
  logic [Rows*Lanes-1:0] written_q;

  logic [RowW-1:0] ram_a_q, ram_b_q, ram_c_q;
  logic [Lanes-1:0] written_a_q, written_b_q, written_c_q;
  logic [4:0] rs1_q, rs2_q, rs3_q;
  logic [RowAddrW-1:0] waddr, raddr_a, raddr_b, raddr_c;

  assign waddr = {wwarp_i, rd_i};
  assign raddr_a = {rwarp_i, rs1_i};
  assign raddr_b = {rwarp_i, rs2_i};
  assign raddr_c = {rwarp_i, rs3_i};

  always_ff @(posedge clk_i) begin
    if (we_i && rd_i != 5'd0) begin
      for (int unsigned l = 0; l < Lanes; l++) begin
        if (wmask_i[l]) begin
          bank_a[waddr][l*Xlen +: Xlen] <= wdata_i[l*Xlen +: Xlen];
          bank_b[waddr][l*Xlen +: Xlen] <= wdata_i[l*Xlen +: Xlen];
          bank_c[waddr][l*Xlen +: Xlen] <= wdata_i[l*Xlen +: Xlen];
        end
      end
    end
    if (ren_i) begin
      ram_a_q <= bank_a[raddr_a];
      ram_b_q <= bank_b[raddr_b];
      ram_c_q <= bank_c[raddr_c];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      written_q <= '0;
      written_a_q <= '0;
      written_b_q <= '0;
      written_c_q <= '0;
      rs1_q <= '0;
      rs2_q <= '0;
      rs3_q <= '0;
    end else begin
      if (we_i && rd_i != 5'd0) written_q[32'(waddr)*Lanes +: Lanes] <= written_q[32'(waddr)*Lanes +: Lanes] | wmask_i;
      if (launch_i) begin
        for (int unsigned r = 0; r < 32; r++) written_q[32'({launch_warp_i, 5'(r)})*Lanes +: Lanes] <= '0;
      end
      if (ren_i) begin
        written_a_q <= written_q[32'(raddr_a)*Lanes +: Lanes];
        written_b_q <= written_q[32'(raddr_b)*Lanes +: Lanes];
        written_c_q <= written_q[32'(raddr_c)*Lanes +: Lanes];
        rs1_q <= rs1_i;
        rs2_q <= rs2_i;
        rs3_q <= rs3_i;
      end
    end
  end

  function automatic logic [Xlen-1:0] start_value(input logic [4:0] r, input logic [Xlen-1:0] ra,
                                                  input logic [Xlen-1:0] sp, input logic [Xlen-1:0] gp,
                                                  input logic [Xlen-1:0] a0);
    unique case (r)
      5'd1:    start_value = ra;
      5'd2:    start_value = sp;
      5'd3:    start_value = gp;
      5'd10:   start_value = a0;
      default: start_value = '0;
    endcase
  endfunction

  logic [Xlen-1:0] start_a, start_b, start_c;
  always_comb begin
    start_a = start_value(rs1_q, init_ra_i, init_sp_i, init_gp_i, init_a0_i);
    start_b = start_value(rs2_q, init_ra_i, init_sp_i, init_gp_i, init_a0_i);
    start_c = start_value(rs3_q, init_ra_i, init_sp_i, init_gp_i, init_a0_i);
    for (int unsigned l = 0; l < Lanes; l++) begin
      if (rs1_q == 5'd0) rs1_data_o[l*Xlen +: Xlen] = '0;
      else rs1_data_o[l*Xlen +: Xlen] = written_a_q[l] ? ram_a_q[l*Xlen +: Xlen] : start_a;
      if (rs2_q == 5'd0) rs2_data_o[l*Xlen +: Xlen] = '0;
      else rs2_data_o[l*Xlen +: Xlen] = written_b_q[l] ? ram_b_q[l*Xlen +: Xlen] : start_b;
      if (rs3_q == 5'd0) rs3_data_o[l*Xlen +: Xlen] = '0;
      else rs3_data_o[l*Xlen +: Xlen] = written_c_q[l] ? ram_c_q[l*Xlen +: Xlen] : start_c;
    end
  end
endmodule
