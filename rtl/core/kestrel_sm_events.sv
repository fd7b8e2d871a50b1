// kestrel_sm_events: the SM's performance events (one cycle's worth,
// counted by kestrel_perf_counters; the model counts the same events,
// docs/microarchitecture.md, "Performance counters") and its busy flag.
module kestrel_sm_events #(
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1
) (
  // from the back end (kestrel_sm_backend)
  input  logic                    fp_busy_i,
  input  logic [6:0]              lsu_ev_atomics_i,
  input  logic                    lsu_ev_shared_access_i,
  input  logic [6:0]              lsu_ev_shared_passes_i,
  input  logic                    lsu_idle_i,
  input  logic                    s1_valid_i,
  input  logic                    s2_valid_i,
  input  logic                    s3_valid_i,
  // from the front end (kestrel_sm_frontend)
  input  logic                    fetch_busy_i,
  input  logic [Warps-1:0]        fetch_want_i,
  input  logic [Lanes-1:0]        imask_i,
  input  kestrel_pkg::sm_issue_t  ipkt_i,
  input  logic                    issue_i,
  input  logic [WarpW-1:0]        iw_i,
  input  logic                    mem_req_valid_i,
  input  logic [Warps-1:0]        sb_hazard_i,
  // from warp management (kestrel_sm_warps)
  input  logic [Warps-1:0]        active_i,
  input  logic [Warps-1:0]        bar_release_i,
  input  logic                    blk_done_i,
  input  logic                    disp_busy_i,
  input  logic [Warps-1:0]        disp_used_i,
  input  logic                    div_inflight_i,
  input  logic [Warps*Lanes-1:0]  exited_i,
  input  logic [Warps-1:0]        grp_valid_i,
  input  logic [Warps-1:0]        long_i,
  input  logic [Warps-1:0]        mem_busy_i,   // loads/stores in flight (the warp may still issue)
  input  logic                    lsu_inflight_i,
  input  logic [Warps*Lanes-1:0]  waiting_i,
  // from the SM's ports
  input  logic                    mem_req_ready_i,
  // to the SM's ports
  output logic                    busy_o,
  output kestrel_pkg::sm_events_t events_o
);
  assign busy_o = (disp_used_i != '0) || disp_busy_i || lsu_inflight_i || !lsu_idle_i || fetch_busy_i
                  || s1_valid_i || s2_valid_i || s3_valid_i || div_inflight_i || fp_busy_i;

  always_comb begin
    events_o = '0;
    events_o.issued = issue_i;
    for (int unsigned l = 0; l < Lanes; l++) events_o.threads = events_o.threads + 7'(imask_i[l] && issue_i);
    // An atomic counts as a load and a store; LR only as a load, SC as a store.
    events_o.load = issue_i && (ipkt_i.dec.cls == kestrel_pkg::ClassLoad
                              || (ipkt_i.dec.cls == kestrel_pkg::ClassAtomic && ipkt_i.dec.funct7[6:2] != kestrel_pkg::AmoSc));
    events_o.store = issue_i && (ipkt_i.dec.cls == kestrel_pkg::ClassStore
                               || (ipkt_i.dec.cls == kestrel_pkg::ClassAtomic && ipkt_i.dec.funct7[6:2] != kestrel_pkg::AmoLr));
    events_o.barrier_release = |(bar_release_i & disp_used_i);
    events_o.diverged = issue_i && imask_i != ~exited_i[32'(iw_i)*Lanes +: Lanes];
    events_o.stall_idle = !issue_i && active_i == '0;
    events_o.stall_scoreboard = !issue_i && |(sb_hazard_i & active_i & grp_valid_i);
    events_o.stall_memory = !issue_i && (|((long_i | mem_busy_i) & active_i) || |(fetch_want_i));
    events_o.stall_barrier = !issue_i && waiting_i != '0;
    events_o.block_done = blk_done_i;
    events_o.mem_request = mem_req_valid_i && mem_req_ready_i;
    events_o.shared_access = lsu_ev_shared_access_i;
    events_o.shared_passes = lsu_ev_shared_passes_i;
    events_o.atomics = lsu_ev_atomics_i;
  end
  logic unused_fields;
  assign unused_fields = ^ipkt_i;
endmodule
