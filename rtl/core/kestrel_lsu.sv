// kestrel_lsu: the SM's load/store unit.  Takes one warp memory instruction
// at a time (valid/ready), checks every active lane's address, coalesces the
// lanes into line-sized requests and answers with one writeback (loads) or
// completion (stores) per instruction, or with the fault of the lowest
// faulting lane.
//
// Per lane, in docs/isa.md order (the functional model's order too):
// alignment (MISALIGNED), bits 63..32 on RV64 (ILLEGAL_ADDRESS), the shared
// window (SHARED_BOUNDS past the block's size), the local window
// (LOCAL_BOUNDS past stack_bytes), else global memory, whose page check the
// memory side answers per line (ILLEGAL_ADDRESS, WRITE_PROTECT).
//
// Coalescing: each cycle the lowest pending lane picks a line; every pending
// lane with the same target and line joins it.  Shared memory (SM-local RAM,
// one line per cycle, synchronous read) is served here; global and local
// lines become requests on the memory port, up to OutstandingLines in
// flight, answered in order.  Requests are issued in lowest-lane order, so
// the first failing response belongs to the lowest lane that can fail the
// page check; lanes above a lane that failed its own checks are never sent.
// Overlapping stores of one instruction: the highest lane's bytes win.
module kestrel_lsu #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  parameter int unsigned SharedBytes = 64 * 1024,
  parameter int unsigned OutstandingLines = 4,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        flush_i,
  // launch constants
  input  logic [31:0]                 shared_base_i,
  input  logic [31:0]                 shared_window_i,   // window length: 0 when the launch has none
  input  logic [31:0]                 shared_size_i,
  input  logic [31:0]                 stack_bytes_i,
  // instruction side
  input  logic                        req_valid_i,
  output logic                        req_ready_o,
  input  logic [WarpW-1:0]            req_warp_i,
  input  logic [4:0]                  req_rd_i,
  input  logic                        req_store_i,
  input  kestrel_pkg::mem_size_e      req_size_i,
  input  logic                        req_unsigned_i,
  input  logic [Lanes-1:0]            req_mask_i,
  input  logic [Lanes*Xlen-1:0]       req_addr_i,
  input  logic [Lanes*Xlen-1:0]       req_wdata_i,
  input  logic [31:0]                 req_shared_phys_i, // block's region in the SM shared RAM
  input  logic [Lanes*32-1:0]         req_local_base_i,  // each lane's local backing in DRAM
  // completion side
  output logic                        rsp_valid_o,
  input  logic                        rsp_ready_i,
  output logic [WarpW-1:0]            rsp_warp_o,
  output logic [4:0]                  rsp_rd_o,
  output logic                        rsp_load_o,
  output logic [Lanes-1:0]            rsp_mask_o,
  output logic [Lanes*Xlen-1:0]       rsp_data_o,
  output kestrel_pkg::fault_kind_e    rsp_fault_o,
  output logic [LaneW-1:0]            rsp_fault_lane_o,
  output logic [Xlen-1:0]             rsp_fault_addr_o,
  // global memory side
  output logic                        mem_req_valid_o,
  input  logic                        mem_req_ready_i,
  output kestrel_pkg::mem_req_t       mem_req_o,
  input  logic                        mem_rsp_valid_i,
  output logic                        mem_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t       mem_rsp_i
);
  localparam int unsigned LineBytes = kestrel_pkg::LineBytes;
  localparam int unsigned LineBits = kestrel_pkg::LineBits;
  localparam int unsigned OffW = kestrel_pkg::LineOffW;
  localparam int unsigned SharedLines = SharedBytes / LineBytes;
  localparam int unsigned SharedIdxW = $clog2(SharedLines);

  typedef enum logic [1:0] {TargetShared, TargetLocal, TargetGlobal} target_e;

  // ---- instruction registers ------------------------------------------------
  logic busy_q, done_q;
  logic [WarpW-1:0] warp_q;
  logic [4:0] rd_q;
  logic store_q, unsigned_q;
  kestrel_pkg::mem_size_e size_q;
  logic [Lanes-1:0] mask_q;
  logic [Lanes*Xlen-1:0] addr_q, wdata_q, data_q;
  logic [31:0] shared_phys_q;
  logic [Lanes*32-1:0] local_base_q;
  logic [Lanes-1:0] pending_q;
  kestrel_pkg::fault_kind_e page_fault_q;
  logic [LaneW-1:0] page_fault_lane_q;

  // ---- per-lane classification (from the registered instruction) -----------
  logic [Lanes-1:0] lane_fault;
  kestrel_pkg::fault_kind_e lane_kind [Lanes];
  target_e lane_target [Lanes];
  logic [31:0] lane_phys [Lanes];
  logic [3:0] size_bytes;

  always_comb begin
    unique case (size_q)
      kestrel_pkg::SizeByte:   size_bytes = 4'd1;
      kestrel_pkg::SizeHalf:   size_bytes = 4'd2;
      kestrel_pkg::SizeWord:   size_bytes = 4'd4;
      default:                 size_bytes = 4'd8;
    endcase
    for (int unsigned l = 0; l < Lanes; l++) begin
      logic [Xlen-1:0] a;
      logic [31:0] a32, shared_off, local_off;
      a = addr_q[l*Xlen +: Xlen];
      a32 = a[31:0];
      shared_off = a32 - shared_base_i;
      local_off = a32 - kestrel_pkg::LocalBase;
      lane_kind[l] = kestrel_pkg::FaultNone;
      lane_target[l] = TargetGlobal;
      lane_phys[l] = a32;
      if ((a32[3:0] & (size_bytes - 4'd1)) != 4'd0) begin
        lane_kind[l] = kestrel_pkg::FaultMisaligned;
      end else if (Xlen > 32 && (a >> 32) != '0) begin
        lane_kind[l] = kestrel_pkg::FaultIllegalAddress;
      end else if (shared_off < shared_window_i) begin
        lane_target[l] = TargetShared;
        lane_phys[l] = shared_phys_q + shared_off;
        if (shared_off + 32'(size_bytes) > shared_size_i) lane_kind[l] = kestrel_pkg::FaultSharedBounds;
      end else if (a32 >= kestrel_pkg::LocalBase && a32 < kestrel_pkg::LocalLimit) begin
        lane_target[l] = TargetLocal;
        lane_phys[l] = local_base_q[l*32 +: 32] + local_off;
        if (local_off + 32'(size_bytes) > stack_bytes_i) lane_kind[l] = kestrel_pkg::FaultLocalBounds;
      end
      lane_fault[l] = mask_q[l] && (lane_kind[l] != kestrel_pkg::FaultNone);
    end
  end

  // Lowest lane that failed its own checks; lanes from it upward are never
  // sent (a lower lane may still fail the page check and win).
  logic class_fault;
  logic [LaneW-1:0] class_lane;
  logic [Lanes-1:0] class_onehot, below_class;
  kestrel_lowest_set #(.Width(Lanes)) u_class_lane (
    .bits_i  (lane_fault),
    .valid_o (class_fault),
    .index_o (class_lane),
    .onehot_o(class_onehot)
  );
  assign below_class = class_fault ? (class_onehot - 1'b1) : '1;

  // The lanes still to serve: never a lane at or above the first failing one.
  logic [Lanes-1:0] pending_eff;
  assign pending_eff = pending_q & below_class;

  // ---- line selection ---------------------------------------------------------
  logic lead_valid;
  logic [LaneW-1:0] lead;
  logic [Lanes-1:0] lead_onehot, group;
  logic [31:0] line_addr;
  target_e lead_target;
  kestrel_lowest_set #(.Width(Lanes)) u_lead (
    .bits_i  (pending_eff),
    .valid_o (lead_valid),
    .index_o (lead),
    .onehot_o(lead_onehot)
  );

  logic [LineBytes-1:0] line_be;
  logic [LineBits-1:0] line_wdata;
  always_comb begin
    lead_target = lane_target[lead];
    line_addr = {lane_phys[lead][31:OffW], {OffW{1'b0}}};
    for (int unsigned l = 0; l < Lanes; l++) begin
      group[l] = pending_eff[l] && lane_target[l] == lead_target
                 && lane_phys[l][31:OffW] == line_addr[31:OffW];
    end
    if (lead_onehot == '0) group = '0;  // no pending lane: nothing selected
    // Store bytes, built per line byte: byte j takes the highest lane of the
    // group whose access covers it (ascending order, later lanes win).  An
    // aligned access never leaves its 8-byte word, so only the lane's word
    // index and byte offset inside the word are compared.
    line_be = '0;
    line_wdata = '0;
    for (int unsigned j = 0; j < LineBytes; j++) begin
      for (int unsigned l = 0; l < Lanes; l++) begin
        logic [2:0] byte_in_word;
        byte_in_word = 3'(j) - lane_phys[l][2:0];
        if (group[l] && lane_phys[l][OffW-1:3] == (OffW-3)'(j / 8) && 3'(j) >= lane_phys[l][2:0]
            && 4'(byte_in_word) < size_bytes) begin
          line_be[j] = 1'b1;
          line_wdata[j*8 +: 8] = wdata_q[l*Xlen + 32'(byte_in_word)*8 +: 8];
        end
      end
    end
  end

  // ---- shared memory: one line per cycle, synchronous read ------------------
  // Unreset RAM (block RAM); contents are undefined at block start by the ISA.
  logic [LineBits-1:0] shared_ram [SharedLines];
  logic [LineBits-1:0] shared_rdata_q;
  logic shared_rd_q;
  logic [Lanes-1:0] shared_group_q;
  logic [SharedIdxW-1:0] shared_idx;
  logic shared_go, mem_go;
  assign shared_idx = line_addr[OffW +: SharedIdxW];

  // ---- outstanding global/local lines -----------------------------------------
  logic outq_push_ready, outq_valid;
  logic [Lanes-1:0] outq_mask;
  logic [$clog2(OutstandingLines):0] outq_count;
  logic issuing;

  assign issuing = busy_q && !done_q && lead_valid && page_fault_q == kestrel_pkg::FaultNone;
  assign shared_go = issuing && lead_target == TargetShared;
  assign mem_go = issuing && lead_target != TargetShared && outq_push_ready;

  assign mem_req_valid_o = mem_go;
  always_comb begin
    mem_req_o.kind = (lead_target == TargetLocal) ? kestrel_pkg::MemLocal
                   : store_q ? kestrel_pkg::MemWrite : kestrel_pkg::MemRead;
    mem_req_o.write = store_q;
    mem_req_o.addr = line_addr;
    mem_req_o.be = store_q ? line_be : '0;
    mem_req_o.wdata = line_wdata;
    mem_req_o.tag = '0;
  end

  kestrel_fifo #(.Width(Lanes), .Depth(OutstandingLines)) u_outstanding (
    .clk_i, .rst_ni, .flush_i,
    .in_valid_i (mem_go && mem_req_ready_i),
    .in_ready_o (outq_push_ready),
    .in_data_i  (group),
    .out_valid_o(outq_valid),
    .out_ready_i(mem_rsp_valid_i),
    .out_data_o (outq_mask),
    .count_o    (outq_count)
  );
  assign mem_rsp_ready_o = outq_valid;
  // The SM routes responses by tag before they reach the LSU.
  logic [kestrel_pkg::MemTagW-1:0] unused_rsp_tag;
  assign unused_rsp_tag = mem_rsp_i.tag;

  // ---- load data extraction ---------------------------------------------------
  // Load data: the lane's aligned 8-byte word of the line, then its bytes.
  function automatic logic [Xlen-1:0] extract(input logic [LineBits-1:0] line, input logic [OffW-1:0] off,
                                              input kestrel_pkg::mem_size_e size, input logic is_unsigned);
    logic [63:0] dword, raw;
    dword = line[32'(off[OffW-1:3]) * 64 +: 64];
    raw = dword >> (32'(off[2:0]) * 8);
    unique case (size)
      kestrel_pkg::SizeByte: extract = is_unsigned ? Xlen'(raw[7:0]) : Xlen'({{56{raw[7]}}, raw[7:0]});
      kestrel_pkg::SizeHalf: extract = is_unsigned ? Xlen'(raw[15:0]) : Xlen'({{48{raw[15]}}, raw[15:0]});
      kestrel_pkg::SizeWord: extract = is_unsigned ? Xlen'(raw[31:0]) : Xlen'({{32{raw[31]}}, raw[31:0]});
      default:               extract = Xlen'(raw);
    endcase
  endfunction

  logic [Lanes*Xlen-1:0] data_d;
  logic rsp_take;
  always_comb begin
    data_d = data_q;
    rsp_take = mem_rsp_valid_i && outq_valid;
    for (int unsigned l = 0; l < Lanes; l++) begin
      if (shared_rd_q && shared_group_q[l])
        data_d[l*Xlen +: Xlen] = extract(shared_rdata_q, lane_phys[l][OffW-1:0], size_q, unsigned_q);
      if (rsp_take && outq_mask[l])
        data_d[l*Xlen +: Xlen] = extract(mem_rsp_i.rdata, lane_phys[l][OffW-1:0], size_q, unsigned_q);
    end
  end

  // First failing response in request order = lowest lane that failed paging.
  logic [LaneW-1:0] rsp_lead;
  logic unused_rsp_lead_valid;
  logic [Lanes-1:0] unused_rsp_lead_onehot;
  kestrel_lowest_set #(.Width(Lanes)) u_rsp_lead (
    .bits_i  (outq_mask),
    .valid_o (unused_rsp_lead_valid),
    .index_o (rsp_lead),
    .onehot_o(unused_rsp_lead_onehot)
  );

  // ---- control ------------------------------------------------------------------
  logic finished;
  assign req_ready_o = !busy_q;
  assign finished = busy_q && !done_q && (pending_eff == '0 || page_fault_q != kestrel_pkg::FaultNone)
                    && outq_count == '0 && !shared_rd_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      done_q <= 1'b0;
      pending_q <= '0;
      page_fault_q <= kestrel_pkg::FaultNone;
      page_fault_lane_q <= '0;
      shared_rd_q <= 1'b0;
    end else if (flush_i) begin
      busy_q <= 1'b0;
      done_q <= 1'b0;
      pending_q <= '0;
      page_fault_q <= kestrel_pkg::FaultNone;
      shared_rd_q <= 1'b0;
    end else begin
      shared_rd_q <= shared_go && !store_q;
      if (req_valid_i && req_ready_o) begin
        busy_q <= 1'b1;
        done_q <= 1'b0;
        pending_q <= req_mask_i;  // trimmed below the first failing lane next cycle
        page_fault_q <= kestrel_pkg::FaultNone;
      end else if (busy_q) begin
        if (shared_go || (mem_go && mem_req_ready_i)) pending_q <= pending_eff & ~group;
        else pending_q <= pending_eff;
        if (rsp_take && mem_rsp_i.fault != kestrel_pkg::FaultNone && page_fault_q == kestrel_pkg::FaultNone) begin
          page_fault_q <= mem_rsp_i.fault;
          page_fault_lane_q <= rsp_lead;
        end
        if (finished) done_q <= 1'b1;
        if (done_q && rsp_ready_i) begin
          busy_q <= 1'b0;
          done_q <= 1'b0;
        end
      end
    end
  end

  // Instruction and data registers: loaded on acceptance, no reset needed.
  always_ff @(posedge clk_i) begin
    if (req_valid_i && req_ready_o) begin
      warp_q <= req_warp_i;
      rd_q <= req_rd_i;
      store_q <= req_store_i;
      unsigned_q <= req_unsigned_i;
      size_q <= req_size_i;
      mask_q <= req_mask_i;
      addr_q <= req_addr_i;
      wdata_q <= req_wdata_i;
      shared_phys_q <= req_shared_phys_i;
      local_base_q <= req_local_base_i;
      data_q <= '0;
    end else begin
      data_q <= data_d;
    end
    shared_group_q <= group;
    if (shared_go) begin
      if (store_q) begin
        for (int unsigned b = 0; b < LineBytes; b++) begin
          if (line_be[b]) shared_ram[shared_idx][b*8 +: 8] <= line_wdata[b*8 +: 8];
        end
      end else begin
        shared_rdata_q <= shared_ram[shared_idx];
      end
    end
  end

  // ---- completion -----------------------------------------------------------------
  always_comb begin
    rsp_valid_o = done_q;
    rsp_warp_o = warp_q;
    rsp_rd_o = rd_q;
    rsp_load_o = !store_q;
    rsp_mask_o = mask_q;
    rsp_data_o = data_q;
    rsp_fault_o = kestrel_pkg::FaultNone;
    rsp_fault_lane_o = '0;
    if (page_fault_q != kestrel_pkg::FaultNone) begin
      rsp_fault_o = page_fault_q;
      rsp_fault_lane_o = page_fault_lane_q;
    end else if (class_fault) begin
      rsp_fault_o = lane_kind[class_lane];
      rsp_fault_lane_o = class_lane;
    end
    rsp_fault_addr_o = addr_q[rsp_fault_lane_o*Xlen +: Xlen];
  end
endmodule
