// kestrel_host_regs: the host register map of include/kestrel/host_regs.h
// (docs/host-interface.md section 1): identification and configuration,
// the launch descriptor, CONTROL/STATUS, the fault record, the page-table
// MAP_* registers, the performance counters, the per-SM counter window and
// the memory-system counter window (its presence and the L2's geometry in
// CONFIG3).
//
// Handshake: requests are valid/ready (kestrel_pkg::reg_req_t); a read is
// answered by one valid/ready response carrying the 32-bit value, a write by
// none.  A request is not taken while a read response waits or while the page
// table is applying a MAP_PERMS write, so the host sees register effects in
// request order.  Reads take one cycle.
//
// Behaviour matches the functional model's transport (model/
// model_transport.cpp): descriptor writes while RUNNING are ignored, START
// while RUNNING is ignored, ABORT of a running launch drains it and leaves
// STATUS at IDLE (as does ABORT of a finished one), the fault record reads as
// zero unless STATUS is FAULT, reserved registers read 0 and ignore writes.
`include "kestrel_assert.svh"

module kestrel_host_regs #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned NumSms = 2,
  parameter int unsigned SharedBytes = 64 * 1024,
  parameter int unsigned MemBytes = 256 * 1024 * 1024,  // page-table capacity
  parameter int unsigned ClockKhz = 100_000,
  parameter logic [31:0] Version = 32'h0000_0002,  // 0.2: the per-SM counter window
  // SM parameters reported in CONFIG2
  parameter int unsigned SchedPolicy = 0,
  parameter int unsigned ICacheLines = 16,
  parameter int unsigned FpuStages = 3,
  // the L2 reported in CONFIG3 (0 KiB: none)
  parameter int unsigned L2Kb = 0,
  parameter int unsigned L2Ways = 0,
  parameter int unsigned TexUnit = 1,   // CONFIG3 bit 30: the SMs have texture units
  localparam int unsigned MemCounters = 32'(kestrel_pkg::MemCntCount),
  localparam int unsigned MaxThreads = (Warps * Lanes < 1024) ? Warps * Lanes : 1024,
  // SMs with a slot in the per-SM window (kestrel_perf_counters' CntSms)
  localparam int unsigned MaxSms = 32'(kestrel_pkg::SmCountersMaxSms),
  localparam int unsigned CntSms = (NumSms < MaxSms) ? NumSms : MaxSms
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic [31:0]                 dram_kb_i,    // DRAM present (MEM_SIZE_KB)
  // host register port
  input  logic                        req_valid_i,
  output logic                        req_ready_o,
  input  kestrel_pkg::reg_req_t       req_i,
  output logic                        rsp_valid_o,
  input  logic                        rsp_ready_i,
  output logic [31:0]                 rsp_rdata_o,
  // launch side
  output kestrel_pkg::launch_t        launch_o,
  output logic [31:0]                 watchdog_o,
  output logic                        start_o,      // one cycle: START accepted
  output logic                        abort_o,      // one cycle: ABORT of a running launch
  input  logic                        running_i,    // the launch sequencer is not idle
  input  logic                        end_i,        // one cycle: the launch ended
  input  logic                        fault_valid_i,
  input  kestrel_pkg::fault_t         fault_i,      // the launch's first fault
  input  logic [16*64-1:0]            counters_i,
  input  logic [CntSms*8*64-1:0]      sm_counters_i, // SM s's counter j at [(8s + j)*64 +: 64]
  input  logic [MemCounters*64-1:0]   mem_counters_i, // counter i at [i*64 +: 64]
  output logic                        irq_o,        // one cycle at the end of a launch
  // page table side
  output logic                        map_valid_o,
  input  logic                        map_ready_i,
  output logic [31:0]                 map_addr_o,
  output logic [31:0]                 map_pages_o,
  output logic [2:0]                  map_perms_o,
  input  logic                        map_busy_i
);
  // The register map is kestrel_pkg's (generated from tools/contract/contract.toml,
  // as include/kestrel/host_regs.h is).  The descriptor is ENTRY_LO .. WATCHDOG,
  // word i of desc_q at ENTRY_LO + 4 i.
  localparam logic [11:0] DescFirst = kestrel_pkg::RegEntryLo;
  localparam logic [11:0] DescLast = kestrel_pkg::RegWatchdog;
  localparam int unsigned DescRegs = 32'(DescLast) / 4 - 32'(DescFirst) / 4 + 1;
  localparam logic [11:0] CountersFirst = kestrel_pkg::RegCounters;
  localparam logic [11:0] CountersEnd = CountersFirst + 12'(8 * kestrel_pkg::CntCount);
  // The per-SM window: SM s at SmFirst + 64 s, so addr[11:6] - 16 is the SM
  // and addr[5:3] its counter (kestrel_pkg::SmCountersStride is 64).
  localparam logic [11:0] SmFirst = kestrel_pkg::RegSmCounters;
  localparam logic [11:0] SmEnd = SmFirst + 12'(64 * CntSms);
  localparam logic [11:0] MemFirst = kestrel_pkg::RegMemCounters;
  localparam logic [11:0] MemEnd = MemFirst + 12'(8 * MemCounters);
  // The window is 0x300-0x3FF (mem_sel below): at most 32 counters.
  `KESTREL_STATIC_ASSERT(mem_window_fits, MemCounters <= 32)

  localparam logic [1:0] StatusIdle = kestrel_pkg::StatusIdle;
  localparam logic [1:0] StatusRunning = kestrel_pkg::StatusRunning;
  localparam logic [1:0] StatusDone = kestrel_pkg::StatusDone;
  localparam logic [1:0] StatusFault = kestrel_pkg::StatusFault;

  // Descriptor words, index (offset - 0x040) / 4.
  logic [31:0] desc_q [DescRegs];
  logic [31:0] map_addr_q, map_pages_q, map_perms_q;
  logic map_pending_q;
  logic [1:0] status_q, status_d;
  logic aborted_q, aborted_d;
  kestrel_pkg::fault_t fault_q;
  logic fault_held_q;
  logic rsp_valid_q;
  logic [31:0] rsp_q, rdata;
  logic take, wr, rd;
  logic [4:0] desc_idx;
  logic desc_hit;
  logic start_cmd, abort_cmd;

  assign req_ready_o = (!rsp_valid_q || rsp_ready_i) && !map_pending_q && !map_busy_i;
  assign take = req_valid_i && req_ready_o;
  assign wr = take && req_i.write;
  assign rd = take && !req_i.write;
  assign desc_hit = (req_i.addr >= DescFirst) && (req_i.addr <= DescLast);
  assign desc_idx = 5'((req_i.addr - DescFirst) >> 2);
  assign start_cmd = wr && req_i.addr == kestrel_pkg::RegControl && !req_i.wdata[kestrel_pkg::CtrlAbortBit] &&
                     req_i.wdata[kestrel_pkg::CtrlStartBit] && !running_i;
  assign abort_cmd = wr && req_i.addr == kestrel_pkg::RegControl && req_i.wdata[kestrel_pkg::CtrlAbortBit];

  // ---------------------------------------------------------------------------
  // Launch descriptor as the SMs see it.
  // ---------------------------------------------------------------------------
  always_comb begin
    launch_o.entry_pc = {desc_q[1], desc_q[0]};
    launch_o.exit_pc = {desc_q[3], desc_q[2]};
    launch_o.gp = {desc_q[5], desc_q[4]};
    launch_o.param = {desc_q[7], desc_q[6]};
    launch_o.grid.x = desc_q[8];
    launch_o.grid.y = desc_q[9][15:0];
    launch_o.grid.z = desc_q[10][15:0];
    launch_o.block.x = desc_q[11][9:0];
    launch_o.block.y = desc_q[12][9:0];
    launch_o.block.z = desc_q[13][9:0];
    launch_o.shared_base = desc_q[14];
    launch_o.shared_static = desc_q[15];
    launch_o.shared_size = desc_q[15] + desc_q[16];
    launch_o.stack_bytes = desc_q[17];
    launch_o.local_backing = desc_q[18];
    watchdog_o = desc_q[19];
  end

  // Descriptor words, one flop group each (Verilator 5.006 cannot loop a
  // delayed assignment over an unpacked array).
  for (genvar i = 0; i < DescRegs; i++) begin : gen_desc
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) desc_q[i] <= '0;
      else if (wr && desc_hit && desc_idx == 5'(i) && !running_i) desc_q[i] <= req_i.wdata;
    end
  end

  // ---------------------------------------------------------------------------
  // Status.
  // ---------------------------------------------------------------------------
  always_comb begin
    status_d = status_q;
    aborted_d = aborted_q;
    abort_o = 1'b0;
    if (start_cmd) begin
      status_d = StatusRunning;
      aborted_d = 1'b0;
    end else if (abort_cmd) begin
      aborted_d = 1'b1;
      abort_o = running_i;
      if (!running_i) status_d = StatusIdle;
    end
    if (end_i) begin
      if (aborted_q || aborted_d) status_d = StatusIdle;
      else if (fault_held_q || fault_valid_i) status_d = StatusFault;
      else status_d = StatusDone;
    end
  end

  assign start_o = start_cmd;
  assign irq_o = end_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      status_q <= StatusIdle;
      aborted_q <= 1'b0;
      fault_q <= '0;
      fault_held_q <= 1'b0;
    end else begin
      status_q <= status_d;
      aborted_q <= aborted_d;
      if (start_cmd) begin
        fault_q <= '0;
        fault_held_q <= 1'b0;
      end else if (fault_valid_i && !fault_held_q && running_i) begin
        fault_q <= fault_i;
        fault_held_q <= 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------------------
  // Page-table commands: MAP_PERMS applies MAP_ADDR/MAP_PAGES.
  // ---------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      map_addr_q <= '0;
      map_pages_q <= '0;
      map_perms_q <= '0;
      map_pending_q <= 1'b0;
    end else begin
      if (map_valid_o && map_ready_i) map_pending_q <= 1'b0;
      if (wr && req_i.addr == kestrel_pkg::RegMapAddr) map_addr_q <= req_i.wdata;
      if (wr && req_i.addr == kestrel_pkg::RegMapPages) map_pages_q <= req_i.wdata;
      if (wr && req_i.addr == kestrel_pkg::RegMapPerms) begin
        map_perms_q <= req_i.wdata;
        map_pending_q <= 1'b1;
      end
    end
  end

  assign map_valid_o = map_pending_q;
  assign map_addr_o = map_addr_q;
  assign map_pages_o = map_pages_q;
  assign map_perms_o = map_perms_q[2:0];

  // ---------------------------------------------------------------------------
  // Reads.
  // ---------------------------------------------------------------------------
  logic [63:0] counter_word, sm_counter_word, mem_counter_word;
  logic [4:0] mem_sel;  // the window holds up to 32 counters (0x300-0x3FF)
  logic [5:0] sm_sel;
  logic fault_visible;

  always_comb begin
    counter_word = counters_i[req_i.addr[6:3]*64 +: 64];
    sm_sel = req_i.addr[11:6] - 6'(SmFirst >> 6);
    sm_counter_word = '0;
    for (int unsigned s = 0; s < CntSms; s++) begin
      if (32'(sm_sel) == s) sm_counter_word = sm_counters_i[(s*8 + 32'(req_i.addr[5:3]))*64 +: 64];
    end
    mem_sel = 5'((req_i.addr - MemFirst) >> 3);
    mem_counter_word = '0;
    for (int unsigned c = 0; c < MemCounters; c++) begin
      if (32'(mem_sel) == c) mem_counter_word = mem_counters_i[c*64 +: 64];
    end
    fault_visible = (status_q == StatusFault);
    rdata = '0;
    if (desc_hit) begin
      rdata = desc_q[desc_idx];
    end else if (req_i.addr >= CountersFirst && req_i.addr < CountersEnd) begin
      rdata = req_i.addr[2] ? counter_word[63:32] : counter_word[31:0];
    end else if (req_i.addr >= SmFirst && req_i.addr < SmEnd) begin
      rdata = req_i.addr[2] ? sm_counter_word[63:32] : sm_counter_word[31:0];
    end else if (req_i.addr >= MemFirst && req_i.addr < MemEnd) begin
      rdata = req_i.addr[2] ? mem_counter_word[63:32] : mem_counter_word[31:0];
    end else begin
      unique case (req_i.addr)
        kestrel_pkg::RegId: rdata = kestrel_pkg::IdValue;
        kestrel_pkg::RegVersion: rdata = Version;
        kestrel_pkg::RegConfig0: rdata = {8'(NumSms), 8'(Warps), 8'(Lanes), 8'(Xlen)};
        kestrel_pkg::RegConfig1: rdata = {16'(MaxThreads), 16'(SharedBytes / 256)};
        kestrel_pkg::RegMemBase: rdata = kestrel_pkg::GlobalBase;
        kestrel_pkg::RegMemSizeKb: rdata = (dram_kb_i < 32'(MemBytes / 1024)) ? dram_kb_i : 32'(MemBytes / 1024);
        kestrel_pkg::RegClockKhz: rdata = 32'(ClockKhz);
        kestrel_pkg::RegConfig2: rdata = {20'd0, 4'($clog2(ICacheLines)), 4'(FpuStages), 4'(SchedPolicy)};
        kestrel_pkg::RegConfig3: rdata = (32'd1 << kestrel_pkg::Config3MemWindowBit)
                                         | (32'(TexUnit != 0) << kestrel_pkg::Config3TexUnitBit)
                                         | {8'd0, 8'(L2Ways), 16'(L2Kb)};
        kestrel_pkg::RegStatus: rdata = {30'd0, status_q};
        kestrel_pkg::RegFaultKind: rdata = fault_visible ? {28'd0, fault_q.kind} : '0;
        kestrel_pkg::RegFaultPcLo: rdata = fault_visible ? fault_q.pc[31:0] : '0;
        kestrel_pkg::RegFaultPcHi: rdata = fault_visible ? fault_q.pc[63:32] : '0;
        kestrel_pkg::RegFaultAddrLo: rdata = fault_visible ? fault_q.addr[31:0] : '0;
        kestrel_pkg::RegFaultAddrHi: rdata = fault_visible ? fault_q.addr[63:32] : '0;
        kestrel_pkg::RegFaultBlockX: rdata = fault_visible ? fault_q.block.x : '0;
        kestrel_pkg::RegFaultBlockY: rdata = fault_visible ? {16'd0, fault_q.block.y} : '0;
        kestrel_pkg::RegFaultBlockZ: rdata = fault_visible ? {16'd0, fault_q.block.z} : '0;
        kestrel_pkg::RegFaultThreadX: rdata = fault_visible ? {22'd0, fault_q.thread.x} : '0;
        kestrel_pkg::RegFaultThreadY: rdata = fault_visible ? {22'd0, fault_q.thread.y} : '0;
        kestrel_pkg::RegFaultThreadZ: rdata = fault_visible ? {22'd0, fault_q.thread.z} : '0;
        kestrel_pkg::RegFaultSm: rdata = fault_visible ? {24'd0, fault_q.sm} : '0;
        kestrel_pkg::RegFaultWarp: rdata = fault_visible ? {24'd0, fault_q.warp} : '0;
        kestrel_pkg::RegFaultInfo: rdata = fault_visible ? fault_q.info : '0;
        kestrel_pkg::RegMapAddr: rdata = map_addr_q;
        kestrel_pkg::RegMapPages: rdata = map_pages_q;
        kestrel_pkg::RegMapPerms: rdata = map_perms_q;
        default: rdata = '0;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_valid_q <= 1'b0;
      rsp_q <= '0;
    end else begin
      if (rsp_valid_q && rsp_ready_i) rsp_valid_q <= 1'b0;
      if (rd) begin
        rsp_valid_q <= 1'b1;
        rsp_q <= rdata;
      end
    end
  end

  assign rsp_valid_o = rsp_valid_q;
  assign rsp_rdata_o = rsp_q;

  // Both outputs hold until taken; the host's request is known.
  `KESTREL_ASSERT_HANDSHAKE(rsp, rsp_valid_o, rsp_ready_i, rsp_rdata_o)
  `KESTREL_ASSERT_HANDSHAKE(map, map_valid_o, map_ready_i, {map_addr_o, map_pages_o, map_perms_o})
  `KESTREL_ASSERT_KNOWN(req_valid_known, req_valid_i)
endmodule
