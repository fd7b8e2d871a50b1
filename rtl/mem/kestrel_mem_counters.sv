// kestrel_mem_counters: the memory-system counter window of the host
// register map (KESTREL_REG_MEM_COUNTERS, enum kestrel_mem_counter).
//
// It watches the one place every SM's line request passes on its way to
// memory: the crossbar's memory side, after the page check.  Each request
// taken there is counted by what it is (an atomic, an instruction fetch, a
// write, else a read); the requests taken and not yet answered are added up
// every cycle, so that the host divides that sum by the requests to get
// their mean latency through the memory side (Little's law) without a
// per-request timestamp.  The L2's events and the DRAM port's requests are
// counted beside them; with no L2 those inputs stay low.  So are the SMs'
// constant-cache and L1 data-cache events (kestrel_sm_cache, one pulse per
// SM per cycle, summed): hits never reach the crossbar, misses are reads
// counted above too.  The SMs' texture units' events likewise
// (kestrel_tex_unit: texel taps their caches answered, texel and descriptor
// lines they read).
//
// Timing as kestrel_perf_counters: add while `enable_i` (the launch runs),
// zero on `clear_i` (START), hold otherwise.
`include "kestrel_assert.svh"

module kestrel_mem_counters #(
  parameter int unsigned NumSms = 2,
  localparam int unsigned Counters = 32'(kestrel_pkg::MemCntCount)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   clear_i,
  input  logic                   enable_i,
  // a request enters the memory side this cycle, and what it is
  input  logic                   req_taken_i,
  input  kestrel_pkg::mem_kind_e req_kind_i,
  input  logic                   req_write_i,   // MemLocal: a write
  input  logic                   req_atomic_i,
  // a response leaves it
  input  logic                   rsp_taken_i,
  // the L2's event pulses (kestrel_l2_cache ev_*_o)
  input  logic                   l2_hit_i,
  input  logic                   l2_miss_i,
  input  logic                   l2_merge_i,
  input  logic                   l2_evict_i,
  input  logic                   l2_write_i,
  // a request is taken by the DRAM port
  input  logic                   dram_req_taken_i,
  // the SMs' constant caches' event pulses (kestrel_sm_cache ev_*_o)
  input  logic [NumSms-1:0]      const_hit_i,
  input  logic [NumSms-1:0]      const_miss_i,
  input  logic [NumSms-1:0]      const_evict_i,
  // and their L1 data caches'
  input  logic [NumSms-1:0]      l1_hit_i,
  input  logic [NumSms-1:0]      l1_miss_i,
  input  logic [NumSms-1:0]      l1_evict_i,
  // and their texture units' (kestrel_tex_unit ev_*_o)
  input  logic [NumSms-1:0]      tex_hit_i,
  input  logic [NumSms-1:0]      tex_miss_i,
  input  logic [NumSms-1:0]      tex_desc_miss_i,
  output logic [Counters*64-1:0] counters_o        // counter i at [i*64 +: 64]
);
  // At most 2^16 - 1 requests are ever in the memory side (the crossbar's
  // and the atomic unit's queues are far smaller).
  logic [15:0] inflight_q;
  logic [Counters-1:0] event_now;
  // The SMs' cache events of this cycle, one count per kind (NumSms pulses each).
  localparam int unsigned SmEvents = 9;
  localparam int unsigned SmCountW = $clog2(NumSms + 1);
  logic [SmEvents*NumSms-1:0] sm_event;
  logic [SmEvents*SmCountW-1:0] sm_count;
  assign sm_event = {tex_desc_miss_i, tex_miss_i, tex_hit_i, l1_evict_i, l1_miss_i, l1_hit_i,
                     const_evict_i, const_miss_i, const_hit_i};
  for (genvar e = 0; e < SmEvents; e++) begin : gen_sm_event
    kestrel_popcount #(.Width(NumSms)) u_count (
      .bits_i (sm_event[e*NumSms +: NumSms]),
      .count_o(sm_count[e*SmCountW +: SmCountW])
    );
  end
  logic is_write;

  always_comb begin
    is_write = req_kind_i == kestrel_pkg::MemWrite || (req_kind_i == kestrel_pkg::MemLocal && req_write_i);
    event_now = '0;
    event_now[kestrel_pkg::MemCntAtomics] = req_taken_i && req_atomic_i;
    event_now[kestrel_pkg::MemCntFetches] = req_taken_i && !req_atomic_i && req_kind_i == kestrel_pkg::MemFetch;
    event_now[kestrel_pkg::MemCntWrites] = req_taken_i && !req_atomic_i && is_write;
    event_now[kestrel_pkg::MemCntReads] =
        req_taken_i && !req_atomic_i && !is_write && req_kind_i != kestrel_pkg::MemFetch;
    event_now[kestrel_pkg::MemCntL2Hits] = l2_hit_i;
    event_now[kestrel_pkg::MemCntL2Misses] = l2_miss_i;
    event_now[kestrel_pkg::MemCntL2Merges] = l2_merge_i;
    event_now[kestrel_pkg::MemCntL2Evictions] = l2_evict_i;
    event_now[kestrel_pkg::MemCntL2Writes] = l2_write_i;
    event_now[kestrel_pkg::MemCntDramRequests] = dram_req_taken_i;
  end

  // In flight across launches too: a request of an aborted launch may still
  // be answered after the next START.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) inflight_q <= '0;
    else inflight_q <= inflight_q + 16'(req_taken_i) - 16'(rsp_taken_i);
  end

  for (genvar c = 0; c < Counters; c++) begin : gen_counter
    logic [63:0] q;
    logic [63:0] add;
    always_comb begin
      unique case (c)
        32'(kestrel_pkg::MemCntInflightCycles): add = 64'(inflight_q);
        32'(kestrel_pkg::MemCntConstHits): add = 64'(sm_count[0*SmCountW +: SmCountW]);
        32'(kestrel_pkg::MemCntConstMisses): add = 64'(sm_count[1*SmCountW +: SmCountW]);
        32'(kestrel_pkg::MemCntConstEvictions): add = 64'(sm_count[2*SmCountW +: SmCountW]);
        32'(kestrel_pkg::MemCntL1Hits): add = 64'(sm_count[3*SmCountW +: SmCountW]);
        32'(kestrel_pkg::MemCntL1Misses): add = 64'(sm_count[4*SmCountW +: SmCountW]);
        32'(kestrel_pkg::MemCntL1Evictions): add = 64'(sm_count[5*SmCountW +: SmCountW]);
        32'(kestrel_pkg::MemCntTexHits): add = 64'(sm_count[6*SmCountW +: SmCountW]);
        32'(kestrel_pkg::MemCntTexMisses): add = 64'(sm_count[7*SmCountW +: SmCountW]);
        32'(kestrel_pkg::MemCntTexDescMisses): add = 64'(sm_count[8*SmCountW +: SmCountW]);
        default: add = 64'(event_now[c]);
      endcase
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) q <= '0;
      else if (clear_i) q <= '0;
      else if (enable_i) q <= q + add;
    end
    assign counters_o[c*64 +: 64] = q;
  end

  `KESTREL_STATIC_ASSERT(sms_fit, NumSms >= 1 && NumSms < 256)
  `KESTREL_ASSERT(inflight_no_underflow, !(rsp_taken_i && !req_taken_i && inflight_q == '0))
endmodule
