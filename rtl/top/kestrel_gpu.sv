// kestrel_gpu: the whole Kestrel GPU: NumSms streaming multiprocessors
// (kestrel_sm), the launch sequencer and CTA dispatcher, the memory crossbar
// with the page check, the page table, the host register block and the
// performance counters.  docs/microarchitecture.md ("GPU top") describes it.
//
// Ports:
// * host register port: valid/ready requests (kestrel_pkg::reg_req_t), one
//   valid/ready response per read (include/kestrel/host_regs.h map);
// * external DRAM port: line-sized kestrel_pkg::mem_req_t/mem_rsp_t after the
//   page check, the memory-side atomics and the L2 (where L2Sets > 0); the
//   memory must answer in request order and echo the tag.
//   Host accesses to DRAM (write_mem/read_mem) do not pass through the GPU:
//   the harness or board reaches its memory directly, and raises
//   mem_changed_i for a cycle after each write made while a launch runs (a
//   copy overlapping the kernel), so that the L2 drops the lines it holds;
// * irq_o: one cycle at the end of every launch (STATUS has left RUNNING);
// * lock-step taps: the dispatch of each block (SM, linear index, warp slots)
//   and each SM's retire record, SM s at [s*W +: W].
module kestrel_gpu #(
  parameter int unsigned Xlen = kestrel_pkg::DefaultXlen,
  parameter int unsigned Lanes = kestrel_pkg::DefaultLanes,
  parameter int unsigned Warps = kestrel_pkg::DefaultWarps,
  parameter int unsigned NumSms = kestrel_pkg::DefaultSms,
  parameter int unsigned SharedBytes = 64 * 1024,
  parameter int unsigned MemBytes = 256 * 1024 * 1024,
  parameter int unsigned ClockKhz = 100_000,
  parameter int unsigned MemOutstanding = 32,
  // SM parameters (kestrel_sm), reported in CONFIG2: the warp scheduler
  // policy (a kestrel_pkg::sched_policy_e value, as an int so that
  // `verilator -G` and Yosys take it), the I-cache lines and the FMA
  // pipeline depth
  parameter int unsigned SchedPolicy = 0,
  parameter int unsigned ICacheLines = 16,
  parameter int unsigned FpuStages = 3,
  // 1: every SM has a texture unit (kx.tex; kestrel_sm_tex), 0: none (kx.tex
  // is an illegal instruction; the runtime then fetches in software).
  parameter int unsigned TexUnit = 1,
  // The SFU lanes of each SM (a divisor of Lanes; kestrel_sm's default).
  // Timing only (a warp goes through them in Lanes / SfuLanes turns): no
  // result depends on it, so CONFIG2 does not report it.
  parameter int unsigned SfuLanes = (Lanes < 4) ? Lanes : 4,
  // Loads and stores in flight per warp (1..15) and line requests in flight
  // in each SM's LSU (kestrel_sm).  Timing only: no result depends on them.
  parameter int unsigned MemInFlight = 4,
  parameter int unsigned LsuLines = 32,
  // The shared L2 (kestrel_l2_cache) in front of the DRAM port: L2Sets x
  // L2Ways lines of 64 bytes, L2Mshrs line fills in flight; L2Sets = 0
  // leaves it out (the board preset).  Reported in CONFIG3.
  parameter int unsigned L2Sets = 256,
  parameter int unsigned L2Ways = 8,
  parameter int unsigned L2Mshrs = 32,
  // Each SM's two caches on its memory port (kestrel_sm_cache): the
  // constant cache, ConstCacheSets x ConstCacheWays lines of read-only pages
  // (kernel parameters, __constant__ data, .rodata), and the L1 data cache,
  // L1Sets x L1Ways lines of writable global pages (write-evict, snooped at
  // the crossbar); 0 sets leaves one out (the board preset: both).  Timing
  // only: no result depends on them.
  parameter int unsigned ConstCacheSets = 16,
  parameter int unsigned ConstCacheWays = 4,
  parameter int unsigned L1Sets = 64,
  parameter int unsigned L1Ways = 4,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned SmW = (NumSms > 1) ? $clog2(NumSms) : 1,
  // $bits of kestrel_pkg structs, spelled out for Yosys 0.23 (fault_t checked below)
  localparam int unsigned ReqW = 95 + 2 + 1 + kestrel_pkg::AddrW + kestrel_pkg::LineBytes
                                 + kestrel_pkg::LineBits + kestrel_pkg::MemTagW,
  localparam int unsigned RspW = kestrel_pkg::LineBits + 4 + kestrel_pkg::MemTagW,
  localparam int unsigned EventsW = 33,
  localparam int unsigned FaultW = 4 + 64 + 64 + (32 + 16 + 16) + 30 + 8 + 8 + 32
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // DRAM present in KiB (a strap: the board's or harness's memory size); the
  // page table covers at most MemBytes
  input  logic [31:0]                   dram_kb_i,
  // one cycle: DRAM was written from outside during a launch
  input  logic                          mem_changed_i,
  // host register port
  input  logic                          reg_req_valid_i,
  output logic                          reg_req_ready_o,
  input  kestrel_pkg::reg_req_t         reg_req_i,
  output logic                          reg_rsp_valid_o,
  input  logic                          reg_rsp_ready_i,
  output logic [31:0]                   reg_rsp_rdata_o,
  // external DRAM port
  output logic                          mem_req_valid_o,
  input  logic                          mem_req_ready_i,
  output kestrel_pkg::mem_req_t         mem_req_o,
  input  logic                          mem_rsp_valid_i,
  output logic                          mem_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t         mem_rsp_i,
  // end of launch
  output logic                          irq_o,
  output logic                          running_o,
  // lock-step taps: block dispatch
  output logic                          disp_valid_o,
  output logic [SmW-1:0]                disp_sm_o,
  output logic [63:0]                   disp_linear_o,
  output logic [Warps-1:0]              disp_slots_o,
  // lock-step taps: retire records of every SM
  output logic [NumSms-1:0]             retire_valid_o,
  output logic [NumSms*WarpW-1:0]       retire_warp_o,
  output logic [NumSms*64-1:0]          retire_pc_o,
  output logic [NumSms*Lanes-1:0]       retire_mask_o,
  output logic [NumSms-1:0]             retire_rd_we_o,
  output logic [NumSms-1:0]             retire_rd_fp_o,
  output logic [NumSms*5-1:0]           retire_rd_o,
  output logic [NumSms*Lanes*Xlen-1:0]  retire_rd_data_o,
  output logic [NumSms-1:0]             retire_lsu_o,
  output logic [NumSms*4-1:0]           retire_mem_seq_o
);
  kestrel_pkg::launch_t launch;
  logic [31:0] watchdog;
  logic start, host_abort, sm_abort, launch_end, running;
  logic [16*64-1:0] counters;
  localparam int unsigned CntSms =
      (NumSms < 32'(kestrel_pkg::SmCountersMaxSms)) ? NumSms : 32'(kestrel_pkg::SmCountersMaxSms);
  logic [CntSms*8*64-1:0] sm_counters;
  logic over_budget;

  // SM-side vectors
  logic [NumSms-1:0] blk_valid, blk_ready, blk_done, sm_busy;
  kestrel_pkg::dim3_t blk_idx;
  logic [NumSms*Warps-1:0] blk_slots;
  logic [NumSms-1:0] sm_req_valid, sm_req_ready, sm_rsp_valid, sm_rsp_ready;
  logic [NumSms*ReqW-1:0] sm_req;
  logic [NumSms*RspW-1:0] sm_rsp;
  logic [NumSms-1:0] sm_fault_valid;
  logic [NumSms*FaultW-1:0] sm_fault;
`ifndef SYNTHESIS
  if (FaultW != $bits(kestrel_pkg::fault_t)) begin : gen_faultw_check
    $error("kestrel_gpu: FaultW must equal $bits(kestrel_pkg::fault_t)");
  end
`endif
  logic [NumSms*EventsW-1:0] sm_events;
  // The SMs' caches: responses' read-only flag, invalidation, the crossbar's
  // snoop of writes, events.
  logic sm_rsp_readonly, cache_inv, snoop_valid;
  logic [kestrel_pkg::AddrW-kestrel_pkg::LineOffW-1:0] snoop_line;
  logic [NumSms-1:0] const_hit, const_miss, const_evict, l1_hit, l1_miss, l1_evict;
  logic [NumSms-1:0] tex_hit, tex_miss, tex_desc_miss;  // the SMs' texture units

  // ---------------------------------------------------------------------------
  // Streaming multiprocessors.
  // ---------------------------------------------------------------------------
  for (genvar s = 0; s < NumSms; s++) begin : gen_sm
    kestrel_pkg::mem_req_t req;
    kestrel_pkg::fault_t fault;
    kestrel_pkg::sm_events_t events;
    kestrel_pkg::mem_rsp_t rsp;
    logic req_valid, req_ready, rsp_valid, rsp_ready;
    logic [ReqW-1:0] req_bits;
    logic [RspW-1:0] rsp_bits;
    // between the registered stages and the crossbar: the constant cache
    // (near), then the L1 data cache (mid)
    logic near_req_valid, near_req_ready, near_rsp_valid, near_rsp_ready;
    logic [ReqW-1:0] near_req;
    logic [RspW-1:0] near_rsp;
    logic mid_req_valid, mid_req_ready, mid_rsp_valid, mid_rsp_ready, mid_rsp_readonly;
    logic [ReqW-1:0] mid_req;
    logic [RspW-1:0] mid_rsp;
    kestrel_sm #(
      .Xlen(Xlen),
      .Lanes(Lanes),
      .Warps(Warps),
      .SharedBytes(SharedBytes),
      .SchedPolicy(SchedPolicy),
      .ICacheLines(ICacheLines),
      .TexUnit(TexUnit),
      .SfuLanes(SfuLanes),
      .FpuStages(FpuStages),
      .MemInFlight(MemInFlight),
      .LsuLines(LsuLines),
      .ClockKhz(ClockKhz)
    ) u_sm (
      .clk_i,
      .rst_ni,
      .sm_id_i(8'(s)),
      .launch_i(launch),
      .start_i(start),
      .abort_i(sm_abort),
      .blk_valid_i(blk_valid[s]),
      .blk_ready_o(blk_ready[s]),
      .blk_idx_i(blk_idx),
      .blk_slots_o(blk_slots[s*Warps +: Warps]),
      .blk_done_o(blk_done[s]),
      .mem_req_valid_o(req_valid),
      .mem_req_ready_i(req_ready),
      .mem_req_o(req),
      .mem_rsp_valid_i(rsp_valid),
      .mem_rsp_ready_o(rsp_ready),
      .mem_rsp_i(rsp),
      .fault_valid_o(sm_fault_valid[s]),
      .fault_o(fault),
      .busy_o(sm_busy[s]),
      .events_o(events),
      .retire_valid_o(retire_valid_o[s]),
      .ev_tex_hit_o(tex_hit[s]),
      .ev_tex_miss_o(tex_miss[s]),
      .ev_desc_miss_o(tex_desc_miss[s]),
      .retire_warp_o(retire_warp_o[s*WarpW +: WarpW]),
      .retire_pc_o(retire_pc_o[s*64 +: 64]),
      .retire_mask_o(retire_mask_o[s*Lanes +: Lanes]),
      .retire_rd_we_o(retire_rd_we_o[s]),
      .retire_rd_fp_o(retire_rd_fp_o[s]),
      .retire_rd_o(retire_rd_o[s*5 +: 5]),
      .retire_rd_data_o(retire_rd_data_o[s*Lanes*Xlen +: Lanes*Xlen]),
      .retire_lsu_o(retire_lsu_o[s]),
      .retire_mem_seq_o(retire_mem_seq_o[s*4 +: 4])
    );
    // A registered stage each way between the SM and the crossbar: the SM's
    // memory arbitration mixes its port's ready into its valid in one block,
    // so the two sides meet only through flops (one cycle each way).
    // The SM index completes an LR/SC's thread identity (mem_amo_t).
    // amo.sm is the request's most significant byte (mem_amo_t leads
    // mem_req_t, sm leads mem_amo_t; checked below outside synthesis): Yosys
    // 0.23 cannot resolve a struct member written in a generate block.
    assign req_bits = {8'(s), req[ReqW-9:0]};
`ifndef SYNTHESIS
    kestrel_pkg::mem_req_t req_named;
    always_comb begin
      req_named = req;
      req_named.amo.sm = 8'(s);
      assert (req_bits == ReqW'(req_named)) else $error("kestrel_gpu: amo.sm is not the top byte of mem_req_t");
    end
`endif
    kestrel_skid_buf #(.Width(ReqW)) u_req_stage (
      .clk_i,
      .rst_ni,
      .in_valid_i(req_valid),
      .in_ready_o(req_ready),
      .in_data_i(req_bits),
      .out_valid_o(near_req_valid),
      .out_ready_i(near_req_ready),
      .out_data_o(near_req)
    );
    kestrel_skid_buf #(.Width(RspW)) u_rsp_stage (
      .clk_i,
      .rst_ni,
      .in_valid_i(near_rsp_valid),
      .in_ready_o(near_rsp_ready),
      .in_data_i(near_rsp),
      .out_valid_o(rsp_valid),
      .out_ready_i(rsp_ready),
      .out_data_o(rsp_bits)
    );
    assign rsp = rsp_bits;

    if (ConstCacheSets > 0) begin : gen_const
      kestrel_pkg::mem_req_t up_req, dn_req;
      kestrel_pkg::mem_rsp_t up_rsp, dn_rsp;
      logic unused_readonly;
      assign up_req = near_req;
      assign dn_rsp = mid_rsp;
      kestrel_sm_cache #(
        .Writable(1'b0),
        .Sets(ConstCacheSets),
        .Ways(ConstCacheWays),
        .HitDepth(2),
        .Outstanding(2 * MemOutstanding)
      ) u_const (
        .clk_i,
        .rst_ni,
        .inv_i(cache_inv),
        .snoop_valid_i(1'b0),  // read-only lines are never written
        .snoop_line_i(snoop_line),
        .up_req_valid_i(near_req_valid),
        .up_req_ready_o(near_req_ready),
        .up_req_i(up_req),
        .up_rsp_valid_o(near_rsp_valid),
        .up_rsp_ready_i(near_rsp_ready),
        .up_rsp_o(up_rsp),
        .dn_req_valid_o(mid_req_valid),
        .dn_req_ready_i(mid_req_ready),
        .dn_req_o(dn_req),
        .dn_rsp_valid_i(mid_rsp_valid),
        .dn_rsp_ready_o(mid_rsp_ready),
        .dn_rsp_i(dn_rsp),
        .dn_rsp_readonly_i(mid_rsp_readonly),
        .up_rsp_readonly_o(unused_readonly),
        .ev_hit_o(const_hit[s]),
        .ev_miss_o(const_miss[s]),
        .ev_evict_o(const_evict[s])
      );
      assign mid_req = dn_req;
      assign near_rsp = up_rsp;
    end else begin : gen_no_const
      logic unused_readonly;
      assign unused_readonly = mid_rsp_readonly;
      assign mid_req_valid = near_req_valid;
      assign near_req_ready = mid_req_ready;
      assign mid_req = near_req;
      assign near_rsp_valid = mid_rsp_valid;
      assign mid_rsp_ready = near_rsp_ready;
      assign near_rsp = mid_rsp;
      assign const_hit[s] = 1'b0;
      assign const_miss[s] = 1'b0;
      assign const_evict[s] = 1'b0;
    end

    if (L1Sets > 0) begin : gen_l1
      kestrel_pkg::mem_req_t up_req, dn_req;
      kestrel_pkg::mem_rsp_t up_rsp, dn_rsp;
      assign up_req = mid_req;
      assign dn_rsp = sm_rsp[s*RspW +: RspW];
      kestrel_sm_cache #(
        .Writable(1'b1),
        .Sets(L1Sets),
        .Ways(L1Ways),
        .HitDepth(2),
        .Outstanding(2 * MemOutstanding)
      ) u_l1 (
        .clk_i,
        .rst_ni,
        .inv_i(cache_inv),
        .snoop_valid_i(snoop_valid),
        .snoop_line_i(snoop_line),
        .up_req_valid_i(mid_req_valid),
        .up_req_ready_o(mid_req_ready),
        .up_req_i(up_req),
        .up_rsp_valid_o(mid_rsp_valid),
        .up_rsp_ready_i(mid_rsp_ready),
        .up_rsp_o(up_rsp),
        .dn_req_valid_o(sm_req_valid[s]),
        .dn_req_ready_i(sm_req_ready[s]),
        .dn_req_o(dn_req),
        .dn_rsp_valid_i(sm_rsp_valid[s]),
        .dn_rsp_ready_o(sm_rsp_ready[s]),
        .dn_rsp_i(dn_rsp),
        .dn_rsp_readonly_i(sm_rsp_readonly),
        .up_rsp_readonly_o(mid_rsp_readonly),
        .ev_hit_o(l1_hit[s]),
        .ev_miss_o(l1_miss[s]),
        .ev_evict_o(l1_evict[s])
      );
      assign sm_req[s*ReqW +: ReqW] = dn_req;
      assign mid_rsp = up_rsp;
    end else begin : gen_no_l1
      assign sm_req_valid[s] = mid_req_valid;
      assign mid_req_ready = sm_req_ready[s];
      assign sm_req[s*ReqW +: ReqW] = mid_req;
      assign mid_rsp_valid = sm_rsp_valid[s];
      assign sm_rsp_ready[s] = mid_rsp_ready;
      assign mid_rsp = sm_rsp[s*RspW +: RspW];
      assign mid_rsp_readonly = sm_rsp_readonly;
      assign l1_hit[s] = 1'b0;
      assign l1_miss[s] = 1'b0;
      assign l1_evict[s] = 1'b0;
    end
    if (ConstCacheSets == 0 && L1Sets == 0) begin : gen_no_caches
      logic unused_caches;
      assign unused_caches = ^{cache_inv, snoop_valid, snoop_line};
    end
    assign sm_fault[s*FaultW +: FaultW] = fault;
    assign sm_events[s*EventsW +: EventsW] = events;
  end

  // ---------------------------------------------------------------------------
  // Launch sequencing and block dispatch.
  // ---------------------------------------------------------------------------
  // The dispatcher learns of a fault one cycle late, from a flop: the SMs'
  // issue (and so the watchdog check) depends combinationally on blk_valid.
  // A block dispatched in that cycle is dropped by the abort like any other.
  logic timeout_q;
  logic fault_seen_q;
  logic mem_busy;

  kestrel_cta_dispatch #(.NumSms(NumSms)) u_dispatch (
    .clk_i,
    .rst_ni,
    .start_i(start),
    .abort_i(host_abort),
    .fault_i(fault_seen_q),
    .grid_i(launch.grid),
    .running_o(running),
    .sm_abort_o(sm_abort),
    .end_o(launch_end),
    .blk_valid_o(blk_valid),
    .blk_ready_i(blk_ready),
    .blk_idx_o(blk_idx),
    .blk_done_i(blk_done),
    .sm_busy_i(sm_busy),
    .mem_busy_i(mem_busy),
    .disp_valid_o(disp_valid_o),
    .disp_sm_o(disp_sm_o),
    .disp_linear_o(disp_linear_o)
  );
  assign disp_slots_o = blk_slots[disp_sm_o*Warps +: Warps];
  assign running_o = running;

  // ---------------------------------------------------------------------------
  // The launch's first fault: the lowest-numbered faulting SM, else the
  // watchdog (TIMEOUT carries the lowest SM issuing in the cycle the budget
  // ran out, or SM 0; the top does not know which thread that was, so block,
  // thread and PC read 0).
  // ---------------------------------------------------------------------------
  kestrel_pkg::fault_t merged_fault, timeout_fault;
  logic [SmW-1:0] fault_sm;
  logic fault_sm_valid;
  logic [NumSms-1:0] fault_onehot;
  logic [SmW-1:0] issue_sm;
  logic issue_sm_valid;
  logic [NumSms-1:0] issue_onehot;
  logic [NumSms-1:0] issuing;

  kestrel_lowest_set #(.Width(NumSms)) u_fault_sm (
    .bits_i(sm_fault_valid),
    .valid_o(fault_sm_valid),
    .index_o(fault_sm),
    .onehot_o(fault_onehot)
  );

  always_comb begin
    for (int unsigned s = 0; s < NumSms; s++) issuing[s] = sm_events[s*EventsW + EventsW - 1];
  end

  kestrel_lowest_set #(.Width(NumSms)) u_issue_sm (
    .bits_i(issuing),
    .valid_o(issue_sm_valid),
    .index_o(issue_sm),
    .onehot_o(issue_onehot)
  );

  always_comb begin
    timeout_fault = '0;
    timeout_fault.kind = kestrel_pkg::FaultTimeout;
    timeout_fault.sm = 8'(issue_sm);
    merged_fault = fault_sm_valid ? sm_fault[fault_sm*FaultW +: FaultW]
                                  : timeout_fault;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      timeout_q <= 1'b0;
      fault_seen_q <= 1'b0;
    end else if (start) begin
      timeout_q <= 1'b0;
      fault_seen_q <= 1'b0;
    end else begin
      if (over_budget) timeout_q <= 1'b1;
      if (fault_sm_valid || over_budget) fault_seen_q <= 1'b1;
    end
  end

  // The one-hot forms and the issuing flag are not needed (index only).
  logic unused_onehots;
  assign unused_onehots = ^{fault_onehot, issue_onehot, issue_sm_valid};

  // ---------------------------------------------------------------------------
  // Memory: crossbar, page table, external port.
  // ---------------------------------------------------------------------------
  kestrel_pkg::mem_kind_e chk_kind;
  logic [kestrel_pkg::AddrW-1:0] chk_addr;
  kestrel_pkg::fault_kind_e chk_fault;
  logic chk_readonly;
  logic map_valid, map_ready, map_busy;
  logic [31:0] map_addr, map_pages;
  logic [2:0] map_perms;
  logic mem_req_taken;
  logic xbar_req_valid, xbar_req_ready, xbar_rsp_valid, xbar_rsp_ready;
  kestrel_pkg::mem_req_t xbar_req;
  kestrel_pkg::mem_rsp_t xbar_rsp;
  logic l2_req_valid, l2_req_ready, l2_rsp_valid, l2_rsp_ready;
  kestrel_pkg::mem_req_t l2_req;
  kestrel_pkg::mem_rsp_t l2_rsp;

  kestrel_mem_xbar #(.NumSms(NumSms), .Outstanding(MemOutstanding)) u_xbar (
    .clk_i,
    .rst_ni,
    .sm_req_valid_i(sm_req_valid),
    .sm_req_ready_o(sm_req_ready),
    .sm_req_i(sm_req),
    .sm_rsp_valid_o(sm_rsp_valid),
    .sm_rsp_ready_i(sm_rsp_ready),
    .sm_rsp_o(sm_rsp),
    .sm_rsp_readonly_o(sm_rsp_readonly),
    .chk_kind_o(chk_kind),
    .chk_addr_o(chk_addr),
    .chk_fault_i(chk_fault),
    .chk_readonly_i(chk_readonly),
    .ext_req_valid_o(xbar_req_valid),
    .ext_req_ready_i(xbar_req_ready),
    .ext_req_o(xbar_req),
    .ext_rsp_valid_i(xbar_rsp_valid),
    .ext_rsp_ready_o(xbar_rsp_ready),
    .ext_rsp_i(xbar_rsp),
    .req_taken_o(mem_req_taken),
    .snoop_valid_o(snoop_valid),
    .snoop_line_o(snoop_line)
  );

  // Global and local atomics are performed here, after the page check and
  // before the DRAM port, and every thread's LR/SC reservation on global and
  // local memory lives here (docs/microarchitecture.md, "Atomics"); the
  // reservations are cleared at launch start.
  kestrel_mem_atomic #(
    .Outstanding(MemOutstanding),
    .NumSms(NumSms),
    .Warps(Warps),
    .Lanes(Lanes)
  ) u_atomic (
    .clk_i,
    .rst_ni,
    .clear_i(start),
    .busy_o(mem_busy),
    .in_req_valid_i(xbar_req_valid),
    .in_req_ready_o(xbar_req_ready),
    .in_req_i(xbar_req),
    .in_rsp_valid_o(xbar_rsp_valid),
    .in_rsp_ready_i(xbar_rsp_ready),
    .in_rsp_o(xbar_rsp),
    .ext_req_valid_o(l2_req_valid),
    .ext_req_ready_i(l2_req_ready),
    .ext_req_o(l2_req),
    .ext_rsp_valid_i(l2_rsp_valid),
    .ext_rsp_ready_o(l2_rsp_ready),
    .ext_rsp_i(l2_rsp)
  );

  // The L2, invalidated at every launch start so that the host's writes to
  // DRAM between launches are seen, and after every host write during one
  // (a concurrent copy: on a GPU the copy engine writes through the L2; here
  // it writes DRAM, so the L2 forgets its lines instead).  It is
  // write-through: DRAM is always current, and the host reads it directly.
  logic l2_hit, l2_miss, l2_merge, l2_evict, l2_write;
  if (L2Sets > 0) begin : gen_l2
    logic unused_inv_busy;
    kestrel_l2_cache #(
      .Sets(L2Sets),
      .Ways(L2Ways),
      .Mshrs(L2Mshrs),
      .QueueDepth(2 * MemOutstanding)
    ) u_l2 (
      .clk_i,
      .rst_ni,
      .inv_i(start || mem_changed_i),
      .inv_busy_o(unused_inv_busy),
      .in_req_valid_i(l2_req_valid),
      .in_req_ready_o(l2_req_ready),
      .in_req_i(l2_req),
      .in_rsp_valid_o(l2_rsp_valid),
      .in_rsp_ready_i(l2_rsp_ready),
      .in_rsp_o(l2_rsp),
      .ext_req_valid_o(mem_req_valid_o),
      .ext_req_ready_i(mem_req_ready_i),
      .ext_req_o(mem_req_o),
      .ext_rsp_valid_i(mem_rsp_valid_i),
      .ext_rsp_ready_o(mem_rsp_ready_o),
      .ext_rsp_i(mem_rsp_i),
      .ev_hit_o(l2_hit),
      .ev_miss_o(l2_miss),
      .ev_merge_o(l2_merge),
      .ev_evict_o(l2_evict),
      .ev_write_o(l2_write)
    );
  end else begin : gen_no_l2
    logic unused_changed;
    assign unused_changed = mem_changed_i;
    assign mem_req_valid_o = l2_req_valid;
    assign l2_req_ready = mem_req_ready_i;
    assign mem_req_o = l2_req;
    assign l2_rsp_valid = mem_rsp_valid_i;
    assign mem_rsp_ready_o = l2_rsp_ready;
    assign l2_rsp = mem_rsp_i;
    assign {l2_hit, l2_miss, l2_merge, l2_evict, l2_write} = '0;
  end

  // The SMs count their own requests (events_o.mem_request, the crossbar's
  // req_taken_o, page faults included); the memory side's counters count
  // what passes the page check.
  logic unused_taken;
  assign unused_taken = mem_req_taken;
  logic [32'(kestrel_pkg::MemCntCount)*64-1:0] mem_counters;
  kestrel_mem_counters #(.NumSms(NumSms)) u_mem_counters (
    .clk_i,
    .rst_ni,
    .clear_i(start),
    .enable_i(running),
    .req_taken_i(xbar_req_valid && xbar_req_ready),
    .req_kind_i(xbar_req.kind),
    .req_write_i(xbar_req.write),
    .req_atomic_i(xbar_req.amo.valid),
    .rsp_taken_i(xbar_rsp_valid && xbar_rsp_ready),
    .l2_hit_i(l2_hit),
    .l2_miss_i(l2_miss),
    .l2_merge_i(l2_merge),
    .l2_evict_i(l2_evict),
    .l2_write_i(l2_write),
    .dram_req_taken_i(mem_req_valid_o && mem_req_ready_i),
    .const_hit_i(const_hit),
    .const_miss_i(const_miss),
    .const_evict_i(const_evict),
    .l1_hit_i(l1_hit),
    .l1_miss_i(l1_miss),
    .l1_evict_i(l1_evict),
    .tex_hit_i(tex_hit),
    .tex_miss_i(tex_miss),
    .tex_desc_miss_i(tex_desc_miss),
    .counters_o(mem_counters)
  );

  kestrel_page_table #(.MemBytes(MemBytes)) u_pages (
    .clk_i,
    .rst_ni,
    .dram_kb_i,
    .map_valid_i(map_valid),
    .map_ready_o(map_ready),
    .map_addr_i(map_addr),
    .map_pages_i(map_pages),
    .map_perms_i(map_perms),
    .map_busy_o(map_busy),
    .chk_kind_i(chk_kind),
    .chk_addr_i(chk_addr),
    .chk_fault_o(chk_fault),
    .chk_readonly_o(chk_readonly)
  );

  // The SMs' caches forget every line at a launch's start, after a host
  // write during a launch and while a page-table command changes
  // permissions (a read taken in any of those cycles fills nothing).
  assign cache_inv = start || mem_changed_i || map_busy;

  // ---------------------------------------------------------------------------
  // Host registers and counters.
  // ---------------------------------------------------------------------------
  kestrel_host_regs #(
    .Xlen(Xlen),
    .Lanes(Lanes),
    .Warps(Warps),
    .NumSms(NumSms),
    .SharedBytes(SharedBytes),
    .MemBytes(MemBytes),
    .ClockKhz(ClockKhz),
    .SchedPolicy(SchedPolicy),
    .ICacheLines(ICacheLines),
    .FpuStages(FpuStages),
    .L2Kb(L2Sets * L2Ways * kestrel_pkg::LineBytes / 1024),
    .L2Ways(L2Sets > 0 ? L2Ways : 0),
    .TexUnit(TexUnit)
  ) u_regs (
    .clk_i,
    .rst_ni,
    .dram_kb_i,
    .req_valid_i(reg_req_valid_i),
    .req_ready_o(reg_req_ready_o),
    .req_i(reg_req_i),
    .rsp_valid_o(reg_rsp_valid_o),
    .rsp_ready_i(reg_rsp_ready_i),
    .rsp_rdata_o(reg_rsp_rdata_o),
    .launch_o(launch),
    .watchdog_o(watchdog),
    .start_o(start),
    .abort_o(host_abort),
    .running_i(running),
    .end_i(launch_end),
    .fault_valid_i(fault_sm_valid || over_budget || timeout_q),
    .fault_i(merged_fault),
    .counters_i(counters),
    .sm_counters_i(sm_counters),
    .mem_counters_i(mem_counters),
    .irq_o(irq_o),
    .map_valid_o(map_valid),
    .map_ready_i(map_ready),
    .map_addr_o(map_addr),
    .map_pages_o(map_pages),
    .map_perms_o(map_perms),
    .map_busy_i(map_busy)
  );

  kestrel_perf_counters #(.NumSms(NumSms)) u_counters (
    .clk_i,
    .rst_ni,
    .clear_i(start),
    .enable_i(running),
    .events_i(sm_events),
    .sm_busy_i(sm_busy),
    .budget_i(watchdog),
    .over_budget_o(over_budget),
    .counters_o(counters),
    .sm_counters_o(sm_counters)
  );
endmodule
