// kestrel_warp_conv: membermask convergence of docs/isa.md section 6.1 for
// one warp, combinational.  here_i are the lanes at the instruction (issuing
// now, or parked or waiting there earlier); masks_i[l] is lane l's
// membermask (bits of lanes the warp lacks already cleared).  Lanes with
// equal masks form a class; a class is complete when every live lane of its
// mask is in the class.  ready_o are the lanes of the complete classes.
//
// The SM uses it for the collectives (vote, shuffle, match, reduce) in stage
// 1 and for kx.syncwarp waiters when a syncwarp or an exit retires.
module kestrel_warp_conv #(
  parameter int unsigned Lanes = 32
) (
  input  logic [Lanes-1:0]       here_i,
  input  logic [Lanes*Lanes-1:0] masks_i,   // lane l's membermask at [l*Lanes +: Lanes]
  input  logic [Lanes-1:0]       live_i,    // lanes that have not exited
  output logic [Lanes-1:0]       ready_o
);
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      logic [Lanes-1:0] same;
      for (int unsigned k = 0; k < Lanes; k++) begin
        same[k] = here_i[k] && masks_i[k*Lanes +: Lanes] == masks_i[l*Lanes +: Lanes];
      end
      ready_o[l] = here_i[l] && (masks_i[l*Lanes +: Lanes] & live_i & ~same) == '0;
    end
  end
endmodule
