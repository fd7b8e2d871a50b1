// kestrel_barrier: block-wide barriers (kx.bar.*) counting threads, one
// counter set per resident block slot.  A block's barrier completes when
// every live (non-exited) thread has arrived; exits count as arrivals for
// the current and every later barrier.  On completion `release_o` pulses for
// the slot and the reduction results (count of arrivals with a non-zero
// operand, and the number of arrivals) are held until the next completion, so
// released threads can read them as they pass (see the SM's pass step).
// The watchdog faults a slot whose barrier stays incomplete, or whose threads
// stay in warp-synchronous waits (held_i, docs/isa.md section 6.1), while the
// block issues 2^WatchdogLog2 warp-instructions; progress_i (a warp-
// synchronous wait ended) restarts it, as a barrier completion does.  All updates take effect in one
// cycle; arrivals, exits and issues of several warps of one block may
// coincide.
module kestrel_barrier #(
  parameter int unsigned Slots = 8,
  parameter int unsigned WatchdogLog2 = kestrel_pkg::BarrierWatchdogLog2,
  localparam int unsigned SlotW = (Slots > 1) ? $clog2(Slots) : 1,
  localparam int unsigned CountW = 11  // up to 1024 threads per block
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic                     flush_i,
  // block start: the slot's live thread count
  input  logic                     start_i,
  input  logic [SlotW-1:0]         start_slot_i,
  input  logic [CountW-1:0]        start_threads_i,
  // arrival of one group at a barrier instruction
  input  logic                     arrive_i,
  input  logic [SlotW-1:0]         arrive_slot_i,
  input  logic [CountW-1:0]        arrive_count_i,
  input  logic [CountW-1:0]        arrive_nonzero_i,
  // threads exiting
  input  logic                     exit_i,
  input  logic [SlotW-1:0]         exit_slot_i,
  input  logic [CountW-1:0]        exit_count_i,
  // a warp-instruction issued by a warp of this slot (watchdog)
  input  logic                     issue_i,
  input  logic [SlotW-1:0]         issue_slot_i,
  // warp-synchronous waits: some thread of the slot waits; one ended
  input  logic [Slots-1:0]         held_i,
  input  logic [Slots-1:0]         progress_i,
  // results
  output logic [Slots-1:0]         release_o,
  output logic [Slots*CountW-1:0]  result_nonzero_o,   // per slot, of the last completed barrier
  output logic [Slots*CountW-1:0]  result_arrived_o,
  output logic [Slots-1:0]         waiting_o,          // some thread of the slot waits
  output logic [Slots-1:0]         deadlock_o
);
  // Per-slot counters, flattened (slot s at [s*CountW +: CountW]): Yosys 0.23
  // mis-reads arrays of a typedef'd vector written element by element.
  logic [Slots*CountW-1:0] live_q, arrived_q, nonzero_q, res_nonzero_q, res_arrived_q;
  logic [Slots*CountW-1:0] live_d, arrived_d, nonzero_d;
  logic [Slots-1:0] done_d;
  logic [WatchdogLog2:0] watchdog_q [Slots];

  always_comb begin
    for (int unsigned s = 0; s < Slots; s++) begin
      live_d[s*CountW +: CountW] = live_q[s*CountW +: CountW];
      arrived_d[s*CountW +: CountW] = arrived_q[s*CountW +: CountW];
      nonzero_d[s*CountW +: CountW] = nonzero_q[s*CountW +: CountW];
      if (start_i && start_slot_i == SlotW'(s)) begin
        live_d[s*CountW +: CountW] = start_threads_i;
        arrived_d[s*CountW +: CountW] = '0;
        nonzero_d[s*CountW +: CountW] = '0;
      end
      if (exit_i && exit_slot_i == SlotW'(s)) live_d[s*CountW +: CountW] = live_d[s*CountW +: CountW] - exit_count_i;
      if (arrive_i && arrive_slot_i == SlotW'(s)) begin
        arrived_d[s*CountW +: CountW] = arrived_d[s*CountW +: CountW] + arrive_count_i;
        nonzero_d[s*CountW +: CountW] = nonzero_d[s*CountW +: CountW] + arrive_nonzero_i;
      end
      // Complete once everyone still alive has arrived.  A barrier with no
      // arrivals never completes (there is nothing to release).
      done_d[s] = (arrived_d[s*CountW +: CountW] != '0) && (arrived_d[s*CountW +: CountW] >= live_d[s*CountW +: CountW]);
      release_o[s] = done_d[s];
      result_nonzero_o[s*CountW +: CountW] = res_nonzero_q[s*CountW +: CountW];
      result_arrived_o[s*CountW +: CountW] = res_arrived_q[s*CountW +: CountW];
      waiting_o[s] = (arrived_q[s*CountW +: CountW] != '0);
      deadlock_o[s] = watchdog_q[s][WatchdogLog2];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      live_q <= '0;
      arrived_q <= '0;
      nonzero_q <= '0;
      res_nonzero_q <= '0;
      res_arrived_q <= '0;
      for (int unsigned s = 0; s < Slots; s++) watchdog_q[s] <= '0;
    end else if (flush_i) begin
      live_q <= '0;
      arrived_q <= '0;
      nonzero_q <= '0;
      for (int unsigned s = 0; s < Slots; s++) watchdog_q[s] <= '0;
    end else begin
      live_q <= live_d;
      for (int unsigned s = 0; s < Slots; s++) begin
        if (done_d[s]) begin
          res_nonzero_q[s*CountW +: CountW] <= nonzero_d[s*CountW +: CountW];
          res_arrived_q[s*CountW +: CountW] <= arrived_d[s*CountW +: CountW];
          arrived_q[s*CountW +: CountW] <= '0;
          nonzero_q[s*CountW +: CountW] <= '0;
          watchdog_q[s] <= '0;
        end else begin
          arrived_q[s*CountW +: CountW] <= arrived_d[s*CountW +: CountW];
          nonzero_q[s*CountW +: CountW] <= nonzero_d[s*CountW +: CountW];
          if (start_i && start_slot_i == SlotW'(s)) watchdog_q[s] <= '0;
          else if (progress_i[s]) watchdog_q[s] <= '0;
          else if (issue_i && issue_slot_i == SlotW'(s) && (arrived_q[s*CountW +: CountW] != '0 || held_i[s])
                   && !deadlock_o[s])
            watchdog_q[s] <= watchdog_q[s] + 1'b1;
        end
      end
    end
  end
endmodule
