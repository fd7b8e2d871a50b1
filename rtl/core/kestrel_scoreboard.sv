// kestrel_scoreboard: per-warp pending-write bits for the 32 integer
// registers.  Issue sets the destination of an instruction; each writeback
// port clears one.  The hazard output covers every warp at once (RAW on rs1
// and rs2, WAW on rd) so the scheduler can pick among ready warps in the
// same cycle.  x0 is never pending (HardZero; the f-load scoreboard tracks f0).  Latency: a cleared register is visible
// to the hazard check the cycle after the writeback.
module kestrel_scoreboard #(
  parameter int unsigned Warps = 8,
  parameter int unsigned ClearPorts = 2,
  parameter bit HardZero = 1'b1,  // register 0 is never pending (x0); 0 for the f registers
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        flush_i,
  // hazard check, one entry per warp: {rd_we, rd, rs1_re, rs1, rs2_re, rs2}
  input  logic [Warps*18-1:0]         check_i,
  output logic [Warps-1:0]            hazard_o,
  // issue side
  input  logic                        set_i,
  input  logic [WarpW-1:0]            set_warp_i,
  input  logic [4:0]                  set_rd_i,
  // writeback side
  input  logic [ClearPorts-1:0]       clear_i,
  input  logic [ClearPorts*WarpW-1:0] clear_warp_i,
  input  logic [ClearPorts*5-1:0]     clear_rd_i,
  // any register pending per warp (the warp has results outstanding)
  output logic [Warps-1:0]            busy_o,
  // the pending registers themselves (bit 32*w + r), for checks of other shapes
  output logic [Warps*32-1:0]         pending_o
);
  // Flat: bit 32*w + r is register r of warp w (Yosys 0.23 cannot write a
  // bit of a two-level packed array inside a loop).
  logic [Warps*32-1:0] pending_q, pending_d;

  always_comb begin
    pending_d = pending_q;
    for (int unsigned w = 0; w < Warps; w++) begin
      for (int unsigned r = 0; r < 32; r++) begin
        for (int unsigned p = 0; p < ClearPorts; p++) begin
          if (clear_i[p] && clear_warp_i[p*WarpW +: WarpW] == WarpW'(w) && clear_rd_i[p*5 +: 5] == 5'(r))
            pending_d[32*w + r] = 1'b0;
        end
        if (set_i && set_warp_i == WarpW'(w) && set_rd_i == 5'(r)) pending_d[32*w + r] = 1'b1;
      end
      if (HardZero) pending_d[32*w] = 1'b0;
    end
  end

  always_comb begin
    for (int unsigned w = 0; w < Warps; w++) begin
      // Fields of check_i per warp, low to high: rs2, rs2_re, rs1, rs1_re, rd, rd_we.
      hazard_o[w] = (check_i[w*18 + 5] && pending_q[32*w + 32'(check_i[w*18 +: 5])])
                 || (check_i[w*18 + 11] && pending_q[32*w + 32'(check_i[w*18 + 6 +: 5])])
                 || (check_i[w*18 + 17] && pending_q[32*w + 32'(check_i[w*18 + 12 +: 5])]);
      busy_o[w] = |pending_q[32*w +: 32];
    end
  end

  assign pending_o = pending_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) pending_q <= '0;
    else if (flush_i) pending_q <= '0;
    else pending_q <= pending_d;
  end
endmodule
