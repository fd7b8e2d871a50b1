// kestrel_sm_dispatch: block dispatch into the SM.
//
// Accepts a block (valid/ready, blk_idx_i) when enough warp slots are free
// for the launch's block size and, if the block uses shared memory, a
// shared region is free: the block takes the lowest free warp slots
// (blk_slots_o; its block slot is the first of them) and the lowest free
// region.  It then walks the block's threads one lane per cycle (x fastest,
// then y, then z), writing each lane's thread index (lane_*_o: the lanes
// past the block's thread count start exited); a warp starts (start_o) when
// its last lane is written.  Per block slot it keeps the block's index, its
// warp slots and its shared region, freed when the block completes (done_i).
//
// Latency: a block is accepted in one cycle when resources allow; its warps
// start Lanes, 2*Lanes, ... cycles later.  Throughput: one block at a time
// (blk_ready_o is low while walking).  blk_valid_i/blk_ready_o is a
// valid/ready handshake (AXI rules); the other outputs are per-cycle events.
// A flush (start or abort) frees every slot and stops a walk.
`include "kestrel_assert.svh"

module kestrel_sm_dispatch #(
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned SharedBytes = 64 * 1024,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned CountW = 11,
  localparam int unsigned TidW = 30
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic                     flush_i,
  // the launch: block dimensions and shared bytes per block
  input  logic [9:0]               block_x_i,
  input  logic [9:0]               block_y_i,
  input  logic [9:0]               block_z_i,
  input  logic [31:0]              shared_size_i,
  input  logic                     stall_i,       // a fault: accept nothing
  // block dispatch
  input  logic                     blk_valid_i,
  output logic                     blk_ready_o,
  input  kestrel_pkg::dim3_t       blk_idx_i,
  output logic [Warps-1:0]         blk_slots_o,   // warp slots a block would take
  output logic                     take_o,        // a block is accepted
  output logic [WarpW-1:0]         take_slot_o,   // its block slot
  output logic [CountW-1:0]        threads_o,     // threads per block
  // thread-index walk
  output logic                     busy_o,        // walking a block
  output logic [WarpW-1:0]         lane_warp_o,   // the warp being written
  output logic [LaneW-1:0]         lane_o,
  output logic [TidW-1:0]          lane_tid_o,    // {x, y, z}, 10 bits each
  output logic                     lane_exited_o, // lane beyond the block's threads
  output logic                     start_o,       // lane_warp_o starts (its last lane)
  output logic [WarpW-1:0]         start_slot_o,  // its block slot
  output logic [WarpW-1:0]         start_widx_o,  // its warp index within the block
  // block completion (the block slot's last warp exited)
  input  logic                     done_i,
  input  logic [WarpW-1:0]         done_slot_i,
  // per block slot
  output logic [Warps-1:0]         used_o,        // warp slots allocated
  output logic [Warps-1:0]         resident_o,    // block slots holding a block
  output logic [Warps*64-1:0]      bidx_o,        // block index of each block slot
  output logic [Warps*32-1:0]      bphys_o        // shared region offset of each block slot
);
  logic [Warps-1:0] used_q, used_d;                    // slot allocated to a block (incl. while dispatching)
  logic [Warps*64-1:0] bidx_q, bidx_d;
  logic [Warps*32-1:0] bphys_q, bphys_d;
  logic [Warps-1:0] bregion_used_q, bregion_used_d;   // shared regions, by region index
  logic [Warps*WarpW-1:0] bregion_q, bregion_d;        // region of each block slot
  logic [Warps-1:0] bhas_region_q, bhas_region_d;
  logic [Warps-1:0] bres_q, bres_d;                    // block slot holds a resident block
  logic [Warps*Warps-1:0] bwarps_q, bwarps_d;          // warp slots of each block slot

  // Launch constants.
  logic [31:0] threads, nwarps, rsize;
  always_comb begin
    threads = 32'(block_x_i) * 32'(block_y_i) * 32'(block_z_i);
    nwarps = (threads + 32'(Lanes - 1)) >> $clog2(Lanes);
    rsize = (shared_size_i + 32'd7) & ~32'd7;
  end
  assign threads_o = CountW'(threads);

  // The walker.
  logic disp_busy_q;
  logic [Warps-1:0] disp_left_q;       // allocated warps not yet started
  logic [WarpW-1:0] disp_slot_q;
  logic [WarpW-1:0] disp_k_q;          // warp index within the block being walked
  logic [LaneW-1:0] disp_lane_q;
  logic [9:0] disp_x_q, disp_y_q, disp_z_q;
  logic [CountW-1:0] disp_t_q;

  // Allocation: the lowest free warp slots and the lowest free region.
  logic [Warps-1:0] alloc_mask;
  logic [31:0] free_count;
  logic [Warps-1:0] region_ok;
  logic region_avail;
  logic [WarpW-1:0] region_pick;
  logic [WarpW-1:0] alloc_first;
  logic blk_take;
  always_comb begin
    logic [31:0] taken;
    alloc_mask = '0;
    free_count = '0;
    taken = '0;
    for (int unsigned w = 0; w < Warps; w++) begin
      if (!used_q[w]) begin
        free_count = free_count + 1;
        if (taken < nwarps) begin
          alloc_mask[w] = 1'b1;
          taken = taken + 1;
        end
      end
    end
    alloc_first = '0;
    for (int w = Warps - 1; w >= 0; w--) if (alloc_mask[w]) alloc_first = WarpW'(w);
    region_avail = 1'b0;
    region_pick = '0;
    for (int k = Warps - 1; k >= 0; k--) begin
      region_ok[k] = (64'(k) * 64'(rsize) + 64'(rsize)) <= 64'(SharedBytes);
      if (region_ok[k] && !bregion_used_q[k]) begin
        region_avail = 1'b1;
        region_pick = WarpW'(k);
      end
    end
    blk_ready_o = !disp_busy_q && !stall_i && nwarps != 0 && free_count >= nwarps
                  && (rsize == 0 || region_avail);
    blk_take = blk_valid_i && blk_ready_o;
    blk_slots_o = alloc_mask;
  end
  assign take_o = blk_take;
  assign take_slot_o = alloc_first;

  logic [WarpW-1:0] disp_warp;
  logic disp_lane_last;
  always_comb begin
    disp_warp = '0;
    for (int w = Warps - 1; w >= 0; w--) if (disp_left_q[w]) disp_warp = WarpW'(w);
    disp_lane_last = (disp_lane_q == LaneW'(Lanes - 1));
  end
  assign busy_o = disp_busy_q;
  assign lane_warp_o = disp_warp;
  assign lane_o = disp_lane_q;
  assign lane_tid_o = {disp_x_q, disp_y_q, disp_z_q};
  assign lane_exited_o = 32'(disp_t_q) >= threads;
  assign start_o = disp_busy_q && disp_lane_last;
  assign start_slot_o = disp_slot_q;
  assign start_widx_o = disp_k_q;

  // Block slots: taken with a block, freed when it completes (warp slots
  // stay allocated until the whole block completes).
  always_comb begin
    used_d = used_q;
    bidx_d = bidx_q;
    bphys_d = bphys_q;
    bregion_used_d = bregion_used_q;
    bregion_d = bregion_q;
    bhas_region_d = bhas_region_q;
    bres_d = bres_q;
    bwarps_d = bwarps_q;
    if (blk_take) begin
      used_d = used_q | alloc_mask;
      bres_d[alloc_first] = 1'b1;
      bwarps_d[32'(alloc_first)*Warps +: Warps] = alloc_mask;
      bidx_d[32'(alloc_first)*64 +: 64] = blk_idx_i;
      bhas_region_d[alloc_first] = (rsize != 0);
      bregion_d[32'(alloc_first)*WarpW +: WarpW] = region_pick;
      bphys_d[32'(alloc_first)*32 +: 32] = 32'(region_pick) * rsize;
      if (rsize != 0) bregion_used_d[region_pick] = 1'b1;
    end
    if (done_i) begin
      bres_d[done_slot_i] = 1'b0;
      used_d = used_d & ~bwarps_q[32'(done_slot_i)*Warps +: Warps];
      if (bhas_region_q[done_slot_i]) bregion_used_d[bregion_q[32'(done_slot_i)*WarpW +: WarpW]] = 1'b0;
    end
  end
  assign used_o = used_q;
  assign resident_o = bres_q;
  assign bidx_o = bidx_q;
  assign bphys_o = bphys_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      used_q <= '0;
      bregion_used_q <= '0;
      bhas_region_q <= '0;
      bres_q <= '0;
      bwarps_q <= '0;
      disp_busy_q <= 1'b0;
      disp_left_q <= '0;
    end else if (flush_i) begin
      used_q <= '0;
      bregion_used_q <= '0;
      bres_q <= '0;
      disp_busy_q <= 1'b0;
      disp_left_q <= '0;
    end else begin
      used_q <= used_d;
      bregion_used_q <= bregion_used_d;
      bhas_region_q <= bhas_region_d;
      bres_q <= bres_d;
      bwarps_q <= bwarps_d;
      if (blk_take) begin
        disp_busy_q <= 1'b1;
        disp_left_q <= alloc_mask;
      end else if (disp_busy_q && disp_lane_last) begin
        disp_left_q[disp_warp] <= 1'b0;
        if ((disp_left_q & ~(Warps'(1) << disp_warp)) == '0) disp_busy_q <= 1'b0;
      end
    end
  end

  // Block index, shared region offset and region index: written when a block
  // is taken, read only for block slots that hold one.
  always_ff @(posedge clk_i) begin
    bidx_q <= bidx_d;
    bphys_q <= bphys_d;
    bregion_q <= bregion_d;
  end

  // The walker: thread indices x fastest, then y, then z.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      disp_slot_q <= '0;
      disp_k_q <= '0;
      disp_lane_q <= '0;
      disp_x_q <= '0;
      disp_y_q <= '0;
      disp_z_q <= '0;
      disp_t_q <= '0;
    end else if (blk_take) begin
      disp_slot_q <= alloc_first;
      disp_k_q <= '0;
      disp_lane_q <= '0;
      disp_x_q <= '0;
      disp_y_q <= '0;
      disp_z_q <= '0;
      disp_t_q <= '0;
    end else if (disp_busy_q) begin
      disp_lane_q <= disp_lane_last ? '0 : disp_lane_q + 1'b1;
      if (disp_lane_last) disp_k_q <= disp_k_q + 1'b1;
      disp_t_q <= disp_t_q + 1'b1;
      if (disp_x_q + 10'd1 == block_x_i) begin
        disp_x_q <= '0;
        if (disp_y_q + 10'd1 == block_y_i) begin
          disp_y_q <= '0;
          disp_z_q <= disp_z_q + 10'd1;
        end else begin
          disp_y_q <= disp_y_q + 10'd1;
        end
      end else begin
        disp_x_q <= disp_x_q + 10'd1;
      end
    end
  end

  // The block handshake; a block is taken only into free slots, whole, and
  // never while another is walked.
  `KESTREL_ASSERT_KNOWN(blk_valid_known, blk_valid_i)
  `KESTREL_ASSERT(take_free_slots, blk_take |-> (alloc_mask & used_q) == '0)
  `KESTREL_ASSERT(take_whole_block, blk_take |-> 32'($countones(alloc_mask)) == nwarps)
  `KESTREL_ASSERT(take_not_walking, blk_take |-> !disp_busy_q)
endmodule
