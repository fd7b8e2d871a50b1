// kestrel_perf_counters: the sixteen 64-bit performance counters of the host
// register map (host_regs.h enum kestrel_counter), each the sum over all SMs
// of one field of kestrel_pkg::sm_events_t per cycle (13-15: shared
// accesses, shared bank passes and atomics, from the SMs' LSUs).
//
// Per SM (the window at KESTREL_REG_SM_COUNTERS, enum kestrel_sm_counter),
// for the first CntSms SMs: each SM's own count of the events the global
// counters sum (warp- and thread-instructions, the four stall classes,
// blocks completed), and its active cycles, those in which it holds work
// (`sm_busy_i`).  So the per-SM counts of an event sum to its global counter
// whenever every SM has a window slot (NumSms <= KESTREL_SM_COUNTERS_MAX_SMS).
//
// Timing: the counters add each cycle while `enable_i` is high (the launch
// runs), `clear_i` (START) zeroes them, and otherwise they hold, so after the
// end of a launch the host reads its figures at leisure.  The watchdog check
// compares the cycle count with the launch budget: `over_budget_o` is high
// from the cycle in which the launch has run WATCHDOG << 20 cycles, whether
// or not an SM issues then (a kernel that spins, sleeps or waits forever ends
// the same way); the functional model counts its own cycles to the same
// budget (docs/isa.md section 7).
module kestrel_perf_counters #(
  parameter int unsigned NumSms = 2,
  localparam int unsigned Counters = 16,
  // $bits(kestrel_pkg::sm_events_t), spelled out for Yosys 0.23
  localparam int unsigned EventsW = 33,
  localparam int unsigned SmCounters = 32'(kestrel_pkg::SmCntCount),
  localparam int unsigned MaxSms = 32'(kestrel_pkg::SmCountersMaxSms),
  localparam int unsigned CntSms = (NumSms < MaxSms) ? NumSms : MaxSms
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  input  logic                      clear_i,
  input  logic                      enable_i,
  input  logic [NumSms*EventsW-1:0] events_i,     // SM s at [s*EventsW +: EventsW]
  input  logic [NumSms-1:0]         sm_busy_i,    // SM s holds work
  input  logic [31:0]               budget_i,     // WATCHDOG register, 0 = none
  output logic                      over_budget_o,
  output logic [Counters*64-1:0]    counters_o,   // counter i at [i*64 +: 64]
  // SM s's counter j (kestrel_sm_counter) at [(s*SmCounters + j)*64 +: 64]
  output logic [CntSms*SmCounters*64-1:0] sm_counters_o
);
  logic [63:0] count_q [Counters];
  logic [63:0] add [Counters];
  kestrel_pkg::sm_events_t ev;

  always_comb begin
    for (int unsigned c = 0; c < Counters; c++) add[c] = '0;
    add[0] = 64'd1;  // KESTREL_CNT_CYCLES
    for (int unsigned s = 0; s < NumSms; s++) begin
      ev = events_i[s*EventsW +: EventsW];
      add[1] = add[1] + 64'(ev.issued);
      add[2] = add[2] + 64'(ev.threads);
      add[3] = add[3] + 64'(ev.load);
      add[4] = add[4] + 64'(ev.store);
      add[5] = add[5] + 64'(ev.barrier_release);
      add[6] = add[6] + 64'(ev.diverged);
      add[7] = add[7] + 64'(ev.stall_scoreboard);
      add[8] = add[8] + 64'(ev.stall_memory);
      add[9] = add[9] + 64'(ev.stall_barrier);
      add[10] = add[10] + 64'(ev.stall_idle);
      add[11] = add[11] + 64'(ev.block_done);
      add[12] = add[12] + 64'(ev.mem_request);
      add[13] = add[13] + 64'(ev.shared_access);
      add[14] = add[14] + 64'(ev.shared_passes);
      add[15] = add[15] + 64'(ev.atomics);
    end
    over_budget_o = enable_i && budget_i != '0 && count_q[0] >= {12'd0, budget_i, 20'd0};
    for (int unsigned c = 0; c < Counters; c++) counters_o[c*64 +: 64] = count_q[c];
  end

  logic unused_busy, unused_fields;  // SMs beyond the window's CntSms; events only the global counters count
  assign unused_busy = ^sm_busy_i;
  assign unused_fields = ^sev;

  // Per-SM counts.  SM s's increment of its counter j is the field of its
  // events (or its busy flag) at sm_add[(s*SmCounters + j)*7 +: 7], at most
  // 32 (thread-instructions) per cycle.  A struct at module level, as `ev`
  // above: Yosys 0.23 does not resolve one declared in a generate block.
  logic [CntSms*SmCounters*7-1:0] sm_add;
  kestrel_pkg::sm_events_t sev;
  always_comb begin
    sm_add = '0;
    for (int unsigned s = 0; s < CntSms; s++) begin
      sev = events_i[s*EventsW +: EventsW];
      sm_add[(s*SmCounters + 0)*7 +: 7] = {6'd0, sm_busy_i[s]};  // SmCntActiveCycles
      sm_add[(s*SmCounters + 1)*7 +: 7] = {6'd0, sev.issued};     // SmCntWarpInstrs
      sm_add[(s*SmCounters + 2)*7 +: 7] = sev.threads;            // SmCntThreadInstrs
      sm_add[(s*SmCounters + 3)*7 +: 7] = {6'd0, sev.stall_scoreboard};
      sm_add[(s*SmCounters + 4)*7 +: 7] = {6'd0, sev.stall_memory};
      sm_add[(s*SmCounters + 5)*7 +: 7] = {6'd0, sev.stall_barrier};
      sm_add[(s*SmCounters + 6)*7 +: 7] = {6'd0, sev.stall_idle};
      sm_add[(s*SmCounters + 7)*7 +: 7] = {6'd0, sev.block_done};  // SmCntBlocks
    end
  end

  for (genvar k = 0; k < CntSms * SmCounters; k++) begin : gen_sm_counter
    logic [63:0] q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) q <= '0;
      else if (clear_i) q <= '0;
      else if (enable_i) q <= q + 64'(sm_add[k*7 +: 7]);
    end
    assign sm_counters_o[k*64 +: 64] = q;
  end

  // Reset written out per counter: Verilator 5.006 cannot loop a delayed
  // assignment over an unpacked array.
  for (genvar c = 0; c < Counters; c++) begin : gen_counter
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) count_q[c] <= '0;
      else if (clear_i) count_q[c] <= '0;
      else if (enable_i) count_q[c] <= count_q[c] + add[c];
    end
  end
endmodule
