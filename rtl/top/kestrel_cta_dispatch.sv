// kestrel_cta_dispatch: the launch sequencer of the GPU top.  It hands out
// the blocks of a grid in linear order (x fastest, then y, then z) to the
// lowest-numbered SM that is ready, counts blk_done pulses to find the end of
// the grid, and on a fault or a host abort stops dispatching, aborts every SM
// and waits for them to drain before it ends the launch.
//
// Timing: one block every two cycles at most: a cycle that picks the lowest
// ready SM into a register, then the offer to that SM, held until it takes
// the block.  The valid comes from flops only, so nothing combinational runs
// from an SM's ready back into its valid (the SM's issue logic depends on
// blk_valid_i).  An SM's ready only falls after it took a block or on abort.
// `end_o` pulses once per launch, in the cycle after the last SM has gone
// idle (every block done and every memory request answered) and the memory
// side is idle too (mem_busy_i low: the memory-side atomic unit has written
// back its held line), so every store and atomic of the launch has landed.
`include "kestrel_assert.svh"

module kestrel_cta_dispatch #(
  parameter int unsigned NumSms = 2,
  localparam int unsigned SmW = (NumSms > 1) ? $clog2(NumSms) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // launch control
  input  logic                  start_i,        // one cycle: begin a launch of grid_i
  input  logic                  abort_i,        // one cycle: host abort
  input  logic                  fault_i,        // a fault has been recorded this launch
  input  kestrel_pkg::dim3_t    grid_i,         // stable from start_i to end_o
  output logic                  running_o,
  output logic                  sm_abort_o,     // one cycle: every SM drops its blocks
  output logic                  end_o,          // one cycle: the launch is over
  // SM side
  output logic [NumSms-1:0]     blk_valid_o,
  input  logic [NumSms-1:0]     blk_ready_i,
  output kestrel_pkg::dim3_t    blk_idx_o,
  input  logic [NumSms-1:0]     blk_done_i,
  input  logic [NumSms-1:0]     sm_busy_i,
  input  logic                  mem_busy_i,     // the memory side still has writes to make
  // dispatch trace (lock-step): block blk_linear_o went to SM disp_sm_o
  output logic                  disp_valid_o,
  output logic [SmW-1:0]        disp_sm_o,
  output logic [63:0]           disp_linear_o
);
  typedef enum logic [1:0] {
    LaunchIdle = 2'd0,
    LaunchRun = 2'd1,    // dispatching and waiting for blocks
    LaunchDrain = 2'd2   // stopped by a fault or an abort: waiting for SMs to go idle
  } launch_state_e;

  launch_state_e state_q, state_d;
  kestrel_pkg::dim3_t next_q, next_d;   // next block index to hand out
  logic all_sent_q, all_sent_d;         // every block of the grid has been handed out
  logic [63:0] sent_q, sent_d;          // blocks handed out (also the linear index of next_q)
  logic [63:0] done_q, done_d;          // blocks finished
  logic [SmW-1:0] target;
  logic target_valid;
  logic offer_q, offer_d;               // blk_valid_o is raised to target_q
  logic [SmW-1:0] target_q, target_d;
  logic handshake;
  logic [SmW:0] done_now;

  logic [NumSms-1:0] target_onehot;
  kestrel_lowest_set #(.Width(NumSms)) u_target (
    .bits_i(blk_ready_i),
    .valid_o(target_valid),
    .index_o(target),
    .onehot_o(target_onehot)
  );
  // The one-hot form is not needed: the valid is steered by index.
  logic unused_onehot;
  assign unused_onehot = ^target_onehot;

  always_comb begin
    done_now = '0;
    for (int unsigned s = 0; s < NumSms; s++) done_now = done_now + (SmW + 1)'(blk_done_i[s]);
  end

  always_comb begin
    state_d = state_q;
    next_d = next_q;
    all_sent_d = all_sent_q;
    sent_d = sent_q;
    done_d = done_q + 64'(done_now);
    offer_d = offer_q;
    target_d = target_q;
    blk_valid_o = '0;
    sm_abort_o = 1'b0;
    end_o = 1'b0;
    handshake = 1'b0;
    unique case (state_q)
      LaunchIdle: begin
        if (start_i) begin
          state_d = LaunchRun;
          next_d = '0;
          sent_d = '0;
          done_d = '0;
          // A zero dimension means an empty grid (the host refuses those; the
          // hardware simply ends the launch).
          all_sent_d = (grid_i.x == '0) || (grid_i.y == '0) || (grid_i.z == '0);
          offer_d = 1'b0;
        end
      end
      LaunchRun: begin
        if (fault_i || abort_i) begin
          sm_abort_o = 1'b1;
          offer_d = 1'b0;
          state_d = LaunchDrain;
        end else begin
          if (offer_q) blk_valid_o[target_q] = 1'b1;
          if (!offer_q && !all_sent_q && target_valid) begin
            offer_d = 1'b1;
            target_d = target;
          end
          if (offer_q && blk_ready_i[target_q]) begin
            handshake = 1'b1;
            offer_d = 1'b0;
            sent_d = sent_q + 1'b1;
            if (next_q.x + 1'b1 != grid_i.x) begin
              next_d.x = next_q.x + 1'b1;
            end else begin
              next_d.x = '0;
              if (next_q.y + 1'b1 != grid_i.y) begin
                next_d.y = next_q.y + 1'b1;
              end else begin
                next_d.y = '0;
                if (next_q.z + 1'b1 != grid_i.z) next_d.z = next_q.z + 1'b1;
                else all_sent_d = 1'b1;
              end
            end
          end
          if (all_sent_q && done_q == sent_q && sm_busy_i == '0 && !mem_busy_i) begin
            end_o = 1'b1;
            state_d = LaunchIdle;
          end
        end
      end
      LaunchDrain: begin
        if (sm_busy_i == '0 && !mem_busy_i) begin
          end_o = 1'b1;
          state_d = LaunchIdle;
        end
      end
      default: state_d = LaunchIdle;
    endcase
  end

  assign running_o = (state_q != LaunchIdle);
  assign blk_idx_o = next_q;
  assign disp_valid_o = handshake;
  assign disp_sm_o = target_q;
  assign disp_linear_o = sent_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= LaunchIdle;
      next_q <= '0;
      all_sent_q <= 1'b0;
      sent_q <= '0;
      done_q <= '0;
      offer_q <= 1'b0;
      target_q <= '0;
    end else begin
      state_q <= state_d;
      next_q <= next_d;
      all_sent_q <= all_sent_d;
      sent_q <= sent_d;
      done_q <= done_d;
      offer_q <= offer_d;
      target_q <= target_d;
    end
  end

`ifndef SYNTHESIS
  always_comb begin
    if (state_q == LaunchRun) begin
      assert (done_q <= sent_q) else $error("kestrel_cta_dispatch: more blocks done than dispatched");
    end
  end
`endif
  // A block is offered to one SM at a time and stays offered, with its index,
  // until that SM takes it (a fault or abort withdraws it).
  `KESTREL_ASSERT_ONEHOT0(blk_onehot, blk_valid_o)
  `KESTREL_ASSERT(blk_held, (blk_valid_o & ~blk_ready_i) != '0 && !(fault_i || abort_i) |=>
                  fault_i || abort_i || ($stable(blk_valid_o) && $stable(blk_idx_o)))
endmodule
