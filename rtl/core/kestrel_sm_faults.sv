// kestrel_sm_faults: the SM's fault sources.
//
// Builds, every cycle, the fault record of each source (kestrel_pkg::fault_t,
// the first of a launch is kept by the SM): the instruction in stage 3
// (fetch fault, illegal instruction, trap, assert: code in a0, file in a1,
// line in a2), the LSU's response (access faults), and a deadlock: a block
// slot whose barrier watchdog fired, or a warp-synchronous deadlock (docs/
// isa.md section 6.1: threads wait on each other inside a warp, at a
// collective or a kx.syncwarp, and nothing in the SM can run any more), raised
// at once.  A deadlock names the lowest waiting thread of the block; parked
// lanes sit at the collective's PC, the others past theirs.
//
// Combinational; no handshake (the SM samples the records with its fault
// flags).  slot_held_o feeds the barrier unit's watchdog (a block with lanes
// parked at a collective waits, too).
`include "kestrel_assert.svh"

module kestrel_sm_faults #(
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned TidW = 30
) (
  input  logic                      clk_i,   // assertions only
  input  logic                      rst_ni,
  input  logic [7:0]                sm_id_i,
  // per warp and lane
  input  logic [Warps-1:0]          active_i,
  input  logic [Warps*Lanes-1:0]    exited_i,
  input  logic [Warps*Lanes-1:0]    waiting_i,  // at a block barrier
  input  logic [Warps*Lanes-1:0]    held_i,     // parked at a collective or a kx.syncwarp
  input  logic [Warps*Lanes-1:0]    swait_i,    // ... past a kx.syncwarp
  input  logic [Warps-1:0]          ctrl_i,
  input  logic [Warps-1:0]          long_i,
  input  logic [Warps*WarpW-1:0]    wblk_i,
  input  logic [Warps*WarpW-1:0]    widx_i,
  input  logic [Warps*Lanes*32-1:0] lpc_i,
  input  logic [Warps*Lanes*TidW-1:0] tid_i,
  // per block slot
  input  logic [Warps*64-1:0]       bidx_i,
  input  logic [Warps-1:0]          resident_i,
  input  logic [Warps-1:0]          bar_deadlock_i,  // barrier watchdog
  input  logic                      busy_i,          // something in flight or arriving
  // stage 3
  input  logic [WarpW-1:0]          s3_warp_i,
  input  kestrel_pkg::sm_wb_t       s3_pkt_i,
  input  logic [LaneW-1:0]          s3_flane_i,
  input  logic [63:0]               s3_a1_i,
  // LSU response
  input  logic [WarpW-1:0]          lsu_warp_i,
  input  logic [31:0]               lsu_pc_i,
  input  kestrel_pkg::fault_kind_e  lsu_fault_i,
  input  logic [LaneW-1:0]          lsu_fault_lane_i,
  input  logic [63:0]               lsu_fault_addr_i,
  // results
  output logic [Warps-1:0]          slot_held_o,
  output logic                      dl_any_o,
  output kestrel_pkg::fault_t       pipe_fault_o,
  output kestrel_pkg::fault_t       lsu_fault_o,
  output kestrel_pkg::fault_t       dl_fault_o
);
  logic dl_any;
  logic [WarpW-1:0] dl_slot;
  logic [WarpW-1:0] dl_warp;
  logic [LaneW-1:0] dl_lane;
  logic [31:0] dl_pc;
  // Warp-synchronous deadlock (docs/isa.md section 6.1): threads wait on
  // each other inside a warp and nothing of the SM can run any more (no
  // eligible or sleeping lane, nothing in flight, no block arriving): the
  // fault is raised at once instead of after the watchdog.
  logic sync_dead;
  always_comb begin
    logic runnable;
    slot_held_o = '0;
    runnable = 1'b0;
    for (int unsigned w = 0; w < Warps; w++) begin
      if (active_i[w] && held_i[w*Lanes +: Lanes] != '0) slot_held_o[wblk_i[w*WarpW +: WarpW]] = 1'b1;
      if (active_i[w] && (~exited_i[w*Lanes +: Lanes] & ~waiting_i[w*Lanes +: Lanes] & ~held_i[w*Lanes +: Lanes]) != '0)
        runnable = 1'b1;
      if (active_i[w] && (ctrl_i[w] || long_i[w])) runnable = 1'b1;
    end
    sync_dead = (slot_held_o & resident_i) != '0 && !runnable && !busy_i;
  end

  always_comb begin
    logic [Warps-1:0] stuck_slots;
    dl_any = 1'b0;
    dl_slot = '0;
    stuck_slots = sync_dead ? (slot_held_o & resident_i) : (bar_deadlock_i & resident_i);
    for (int s = Warps - 1; s >= 0; s--) begin
      if (stuck_slots[s]) begin
        dl_any = 1'b1;
        dl_slot = WarpW'(s);
      end
    end
    // The lowest waiting thread of the block (at a barrier, a kx.syncwarp or
    // parked at a collective): warps of a block hold ascending slots in warp
    // order.  Parked lanes sit at the collective's PC, the others past theirs.
    dl_warp = '0;
    for (int w = Warps - 1; w >= 0; w--) begin
      if (active_i[w] && wblk_i[w*WarpW +: WarpW] == dl_slot
          && (waiting_i[w*Lanes +: Lanes] | held_i[w*Lanes +: Lanes]) != '0) dl_warp = WarpW'(w);
    end
    dl_lane = '0;
    for (int l = Lanes - 1; l >= 0; l--) begin
      if (waiting_i[32'(dl_warp)*Lanes + 32'(l)] || held_i[32'(dl_warp)*Lanes + 32'(l)]) dl_lane = LaneW'(l);
    end
    dl_pc = lpc_i[(32'(dl_warp)*Lanes + 32'(dl_lane))*32 +: 32];
    if (waiting_i[32'(dl_warp)*Lanes + 32'(dl_lane)] || swait_i[32'(dl_warp)*Lanes + 32'(dl_lane)])
      dl_pc = dl_pc - 32'd4;
  end

  // Fault records of the three sources, built every cycle; the first one of
  // the launch is kept.
  logic s3_trap;
  assign s3_trap = s3_pkt_i.dec.cls == kestrel_pkg::ClassTrap;
  always_comb begin
    logic [WarpW-1:0] w3, slot3;
    w3 = s3_warp_i;
    slot3 = wblk_i[32'(w3)*WarpW +: WarpW];
    pipe_fault_o.pc = 64'(s3_pkt_i.pc);
    pipe_fault_o.block = bidx_i[32'(slot3)*64 +: 64];
    pipe_fault_o.thread = tid_i[(32'(w3)*Lanes + 32'(s3_flane_i))*TidW +: TidW];
    pipe_fault_o.sm = sm_id_i;
    pipe_fault_o.warp = 8'(widx_i[32'(w3)*WarpW +: WarpW]);
    if (s3_pkt_i.ffault) begin
      pipe_fault_o.kind = kestrel_pkg::FaultFetch;
      pipe_fault_o.addr = 64'(s3_pkt_i.pc);
      pipe_fault_o.info = '0;
    end else if (s3_trap && s3_pkt_i.code == 64'(1)) begin
      pipe_fault_o.kind = kestrel_pkg::FaultAssert;
      pipe_fault_o.addr = s3_a1_i;
      pipe_fault_o.info = s3_pkt_i.line[31:0];
    end else if (s3_trap) begin
      pipe_fault_o.kind = kestrel_pkg::FaultTrap;
      pipe_fault_o.addr = '0;
      pipe_fault_o.info = s3_pkt_i.code[31:0];
    end else begin
      pipe_fault_o.kind = kestrel_pkg::FaultIllegalInstruction;
      pipe_fault_o.addr = '0;
      pipe_fault_o.info = s3_pkt_i.word;
    end
  end
  always_comb begin
    logic [WarpW-1:0] slot;
    slot = wblk_i[32'(lsu_warp_i)*WarpW +: WarpW];
    lsu_fault_o.kind = lsu_fault_i;
    lsu_fault_o.pc = 64'(lsu_pc_i);
    lsu_fault_o.addr = lsu_fault_addr_i;
    lsu_fault_o.block = bidx_i[32'(slot)*64 +: 64];
    lsu_fault_o.thread = tid_i[(32'(lsu_warp_i)*Lanes + 32'(lsu_fault_lane_i))*TidW +: TidW];
    lsu_fault_o.sm = sm_id_i;
    lsu_fault_o.warp = 8'(widx_i[32'(lsu_warp_i)*WarpW +: WarpW]);
    lsu_fault_o.info = '0;
    dl_fault_o.kind = kestrel_pkg::FaultBarrierDeadlock;
    dl_fault_o.pc = 64'(dl_pc);
    dl_fault_o.addr = '0;
    dl_fault_o.block = bidx_i[32'(dl_slot)*64 +: 64];
    dl_fault_o.thread = tid_i[(32'(dl_warp)*Lanes + 32'(dl_lane))*TidW +: TidW];
    dl_fault_o.sm = sm_id_i;
    dl_fault_o.warp = 8'(widx_i[32'(dl_warp)*WarpW +: WarpW]);
    dl_fault_o.info = '0;
  end

  assign dl_any_o = dl_any;

  // Lint sink: packet fields a fault record does not take.
  logic unused_s3_pkt;
  assign unused_s3_pkt = ^s3_pkt_i;

  // A deadlock names a resident block; the LSU reports a fault only with a kind.
  `KESTREL_ASSERT(dl_resident, dl_any |-> resident_i[dl_slot])
  `KESTREL_ASSERT_KNOWN(dl_any_known, dl_any)
endmodule
