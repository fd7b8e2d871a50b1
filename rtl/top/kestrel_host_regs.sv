// kestrel_host_regs: the host register map of include/kestrel/host_regs.h
// (docs/host-interface.md section 1): identification and configuration,
// the launch descriptor, CONTROL/STATUS, the fault record, the page-table
// MAP_* registers and the performance counters.
//
// Handshake: requests are valid/ready (kestrel_pkg::reg_req_t); a read is
// answered by one valid/ready response carrying the 32-bit value, a write by
// none.  A request is not taken while a read response waits or while the page
// table is applying a MAP_PERMS write, so the host sees register effects in
// request order.  Reads take one cycle.
//
// Behaviour matches the functional model's transport (verif/model/
// model_transport.cpp): descriptor writes while RUNNING are ignored, START
// while RUNNING is ignored, ABORT of a running launch drains it and leaves
// STATUS at IDLE (as does ABORT of a finished one), the fault record reads as
// zero unless STATUS is FAULT, reserved registers read 0 and ignore writes.
module kestrel_host_regs #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned NumSms = 2,
  parameter int unsigned SharedBytes = 64 * 1024,
  parameter int unsigned MemBytes = 256 * 1024 * 1024,  // page-table capacity
  parameter int unsigned ClockKhz = 100_000,
  parameter logic [31:0] Version = 32'h0000_0001,
  localparam int unsigned MaxThreads = (Warps * Lanes < 1024) ? Warps * Lanes : 1024
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
  output logic                        irq_o,        // one cycle at the end of a launch
  // page table side
  output logic                        map_valid_o,
  input  logic                        map_ready_i,
  output logic [31:0]                 map_addr_o,
  output logic [31:0]                 map_pages_o,
  output logic [2:0]                  map_perms_o,
  input  logic                        map_busy_i
);
  localparam logic [11:0] DescFirst = 12'h040;  // KESTREL_REG_ENTRY_LO
  localparam int unsigned DescRegs = 20;        // ENTRY_LO .. WATCHDOG
  localparam logic [11:0] DescLast = DescFirst + 12'(4 * (DescRegs - 1));
  localparam logic [11:0] CountersFirst = 12'h200;
  localparam logic [11:0] CountersEnd = 12'h280;

  localparam logic [1:0] StatusIdle = 2'd0;
  localparam logic [1:0] StatusRunning = 2'd1;
  localparam logic [1:0] StatusDone = 2'd2;
  localparam logic [1:0] StatusFault = 2'd3;

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
  assign start_cmd = wr && req_i.addr == 12'h0A0 && !req_i.wdata[1] && req_i.wdata[0] && !running_i;
  assign abort_cmd = wr && req_i.addr == 12'h0A0 && req_i.wdata[1];

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
      if (wr && req_i.addr == 12'h100) map_addr_q <= req_i.wdata;
      if (wr && req_i.addr == 12'h104) map_pages_q <= req_i.wdata;
      if (wr && req_i.addr == 12'h108) begin
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
  logic [63:0] counter_word;
  logic fault_visible;

  always_comb begin
    counter_word = counters_i[req_i.addr[6:3]*64 +: 64];
    fault_visible = (status_q == StatusFault);
    rdata = '0;
    if (desc_hit) begin
      rdata = desc_q[desc_idx];
    end else if (req_i.addr >= CountersFirst && req_i.addr < CountersEnd) begin
      rdata = req_i.addr[2] ? counter_word[63:32] : counter_word[31:0];
    end else begin
      unique case (req_i.addr)
        12'h000: rdata = 32'h4C54_534B;  // "KSTL"
        12'h004: rdata = Version;
        12'h008: rdata = {8'(NumSms), 8'(Warps), 8'(Lanes), 8'(Xlen)};
        12'h00C: rdata = {16'(MaxThreads), 16'(SharedBytes / 256)};
        12'h010: rdata = kestrel_pkg::GlobalBase;
        12'h014: rdata = (dram_kb_i < 32'(MemBytes / 1024)) ? dram_kb_i : 32'(MemBytes / 1024);
        12'h018: rdata = 32'(ClockKhz);
        12'h0A4: rdata = {30'd0, status_q};
        12'h0C0: rdata = fault_visible ? {28'd0, fault_q.kind} : '0;
        12'h0C4: rdata = fault_visible ? fault_q.pc[31:0] : '0;
        12'h0C8: rdata = fault_visible ? fault_q.pc[63:32] : '0;
        12'h0CC: rdata = fault_visible ? fault_q.addr[31:0] : '0;
        12'h0D0: rdata = fault_visible ? fault_q.addr[63:32] : '0;
        12'h0D4: rdata = fault_visible ? fault_q.block.x : '0;
        12'h0D8: rdata = fault_visible ? {16'd0, fault_q.block.y} : '0;
        12'h0DC: rdata = fault_visible ? {16'd0, fault_q.block.z} : '0;
        12'h0E0: rdata = fault_visible ? {22'd0, fault_q.thread.x} : '0;
        12'h0E4: rdata = fault_visible ? {22'd0, fault_q.thread.y} : '0;
        12'h0E8: rdata = fault_visible ? {22'd0, fault_q.thread.z} : '0;
        12'h0EC: rdata = fault_visible ? {24'd0, fault_q.sm} : '0;
        12'h0F0: rdata = fault_visible ? {24'd0, fault_q.warp} : '0;
        12'h0F4: rdata = fault_visible ? fault_q.info : '0;
        12'h100: rdata = map_addr_q;
        12'h104: rdata = map_pages_q;
        12'h108: rdata = map_perms_q;
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
endmodule
