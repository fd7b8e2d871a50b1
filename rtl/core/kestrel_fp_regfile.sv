// kestrel_fp_regfile: the f registers of every thread of an SM (F extension,
// binary32 patterns), one row of Lanes*32 bits per (warp, register).  Three
// read ports (rs1, rs2, rs3: the fused multiply-adds read three operands; a
// whole warp's operands per port and cycle) and one write port with a per-lane
// write mask.  Each read port has its own copy of the storage, all written by
// the write port: a 1-write/3-read RAM from FPGA block RAMs.  Reads are
// synchronous (data the cycle after `ren_i`, held while `ren_i` is low) and
// see the state before a write of the same cycle, as kestrel_regfile's do.
//
// A launched warp's f registers read 0 (the functional model's start state)
// without a clearing pass: a per-lane `written` bit per (warp, register),
// cleared at launch.  Unlike x0, f0 is an ordinary register.
module kestrel_fp_regfile #(
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned RowW = Lanes * 32
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // warp launch: its registers return to 0
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

  // Storage: unreset RAM (maps to block RAM); an unwritten row is never used.
  logic [RowW-1:0] bank_a [Rows];
  logic [RowW-1:0] bank_b [Rows];
  logic [RowW-1:0] bank_c [Rows];
  // Row r's lane bits at [r*Lanes +: Lanes] (flat for Yosys 0.23).
  logic [Rows*Lanes-1:0] written_q;

  logic [RowW-1:0] ram_a_q, ram_b_q, ram_c_q;
  logic [Lanes-1:0] written_a_q, written_b_q, written_c_q;
  logic [RowAddrW-1:0] waddr, raddr_a, raddr_b, raddr_c;

  assign waddr = {wwarp_i, rd_i};
  assign raddr_a = {rwarp_i, rs1_i};
  assign raddr_b = {rwarp_i, rs2_i};
  assign raddr_c = {rwarp_i, rs3_i};

  always_ff @(posedge clk_i) begin
    if (we_i) begin
      for (int unsigned l = 0; l < Lanes; l++) begin
        if (wmask_i[l]) begin
          bank_a[waddr][l*32 +: 32] <= wdata_i[l*32 +: 32];
          bank_b[waddr][l*32 +: 32] <= wdata_i[l*32 +: 32];
          bank_c[waddr][l*32 +: 32] <= wdata_i[l*32 +: 32];
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
    end else begin
      if (we_i) written_q[32'(waddr)*Lanes +: Lanes] <= written_q[32'(waddr)*Lanes +: Lanes] | wmask_i;
      if (launch_i) begin
        for (int unsigned r = 0; r < 32; r++) written_q[32'({launch_warp_i, 5'(r)})*Lanes +: Lanes] <= '0;
      end
      if (ren_i) begin
        written_a_q <= written_q[32'(raddr_a)*Lanes +: Lanes];
        written_b_q <= written_q[32'(raddr_b)*Lanes +: Lanes];
        written_c_q <= written_q[32'(raddr_c)*Lanes +: Lanes];
      end
    end
  end

  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      rs1_data_o[l*32 +: 32] = written_a_q[l] ? ram_a_q[l*32 +: 32] : 32'd0;
      rs2_data_o[l*32 +: 32] = written_b_q[l] ? ram_b_q[l*32 +: 32] : 32'd0;
      rs3_data_o[l*32 +: 32] = written_c_q[l] ? ram_c_q[l*32 +: 32] : 32'd0;
    end
  end
endmodule
