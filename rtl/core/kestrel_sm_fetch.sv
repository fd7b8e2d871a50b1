// kestrel_sm_fetch: the SM's instruction supply and its memory port.
//
// Each warp has a line buffer holding the 64-byte line of its group's PC;
// a warp whose group wants a line it does not hold asks the fetch engine,
// which serves one warp at a time (lowest warp first) from a direct-mapped
// I-cache of ICacheLines lines, or on a miss from memory (the line is then
// written into the I-cache unless the response faulted).  A line-buffer
// word is read combinationally for the issue stage, with the fetch fault of
// the warp's PC (misaligned, or a line that came back faulting).
//
// Latency: a hit fills the line buffer two cycles after the request is seen
// (I-cache read, fill); a miss takes the memory round trip plus one cycle.
// Throughput: one line per fill, one warp at a time.
//
// The memory port is shared with the LSU and the texture unit: a request
// shown stays until taken (mem_lock); a free port goes to the LSU, then the
// texture unit, then the fetch engine.  Responses carry the requester in tag
// bits 1:0 (1: fetch, 2: texture unit, 0: LSU).  All four ports are
// valid/ready with AXI's rules.
//
// start_i invalidates the I-cache (a new launch), flush_i (start or abort)
// the line buffers; a fetch in flight still completes.
`include "kestrel_assert.svh"

module kestrel_sm_fetch #(
  parameter int unsigned Warps = 8,
  // Instruction cache lines (64 bytes each, direct mapped), a power of two.
  parameter int unsigned ICacheLines = 16,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic                    start_i,
  input  logic                    flush_i,
  // per warp: the group's PC and whether it needs its line
  input  logic [Warps-1:0]        want_i,       // warp active with a selected group
  input  logic [Warps*32-1:0]     pc_i,
  input  logic                    inval_i,      // a warp starts: its line buffer is stale
  input  logic [WarpW-1:0]        inval_warp_i,
  output logic [Warps-1:0]        hit_o,        // the line buffer holds the PC's line
  output logic [Warps-1:0]        fault_o,      // fetching the PC faults
  output logic [Warps*32-1:0]     word_o,       // the instruction at the PC (valid with hit_o)
  output logic [Warps-1:0]        fetch_want_o, // warps waiting for their line
  output logic                    busy_o,       // a fetch is in progress
  // LSU side of the memory port
  input  logic                    lsu_req_valid_i,
  output logic                    lsu_req_ready_o,
  input  kestrel_pkg::mem_req_t   lsu_req_i,
  output logic                    lsu_rsp_valid_o,
  input  logic                    lsu_rsp_ready_i,
  // texture unit side (reads)
  input  logic                    tex_req_valid_i,
  output logic                    tex_req_ready_o,
  input  kestrel_pkg::mem_req_t   tex_req_i,
  output logic                    tex_rsp_valid_o,
  input  logic                    tex_rsp_ready_i,
  // memory port
  output logic                    mem_req_valid_o,
  input  logic                    mem_req_ready_i,
  output kestrel_pkg::mem_req_t   mem_req_o,
  input  logic                    mem_rsp_valid_i,
  output logic                    mem_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t   mem_rsp_i
);
  localparam int unsigned LineBits = kestrel_pkg::LineBits;
  localparam int unsigned OffW = kestrel_pkg::LineOffW;
  localparam int unsigned TagW = 32 - OffW;
  localparam int unsigned IcIdxW = (ICacheLines > 1) ? $clog2(ICacheLines) : 1;
  // Memory tags: bits 1:0 say who asked.
  localparam logic [kestrel_pkg::MemTagW-1:0] TagLsu = '0;
  localparam logic [kestrel_pkg::MemTagW-1:0] TagFetch = kestrel_pkg::MemTagW'(1);
  localparam logic [kestrel_pkg::MemTagW-1:0] TagTex = kestrel_pkg::MemTagW'(2);

  // Line buffers.
  logic [Warps-1:0] lb_valid_q, lb_valid_d, lb_fault_q, lb_fault_d;
  logic [Warps*TagW-1:0] lb_tag_q, lb_tag_d;
  logic [Warps*LineBits-1:0] lb_data_q, lb_data_d;

  for (genvar g = 0; g < Warps; g++) begin : gen_warp_word
    logic [31:0] pc;
    assign pc = pc_i[g*32 +: 32];
    assign hit_o[g] = lb_valid_q[g] && lb_tag_q[g*TagW +: TagW] == pc[31:OffW];
    assign fault_o[g] = (pc[1:0] != 2'b00) || (hit_o[g] && lb_fault_q[g]);
    assign word_o[g*32 +: 32] = lb_data_q[g*LineBits + 32*32'(pc[OffW-1:2]) +: 32];
  end

  // Fetch engine and I-cache.
  typedef enum logic [1:0] {FetchIdle, FetchFill, FetchReq, FetchWait} fetch_state_e;
  fetch_state_e fst_q, fst_d;
  logic [WarpW-1:0] fwarp_q, fwarp_d;
  logic [TagW-1:0] fline_q, fline_d;
  logic [ICacheLines-1:0] ic_valid_q, ic_valid_d;
  logic [ICacheLines*TagW-1:0] ic_tag_q, ic_tag_d;
  // Unreset RAM (block RAM): only lines marked valid are read.
  logic [LineBits-1:0] ic_data [ICacheLines];
  logic [LineBits-1:0] ic_rdata_q;
  logic ic_write;
  logic [IcIdxW-1:0] ic_widx;

  logic fetch_any;
  logic [WarpW-1:0] fetch_pick;
  logic [TagW-1:0] fetch_line;
  logic [IcIdxW-1:0] fetch_idx;
  logic fetch_hit;
  logic fetch_mem_valid, fetch_mem_ready, fetch_rsp_valid;

  always_comb begin
    for (int unsigned w = 0; w < Warps; w++) begin
      fetch_want_o[w] = want_i[w] && !hit_o[w] && pc_i[w*32 +: 2] == 2'b00;
    end
    fetch_any = |fetch_want_o;
    fetch_pick = '0;
    for (int w = Warps - 1; w >= 0; w--) if (fetch_want_o[w]) fetch_pick = WarpW'(w);
    fetch_line = pc_i[32'(fetch_pick)*32 + OffW +: TagW];
    fetch_idx = fetch_line[IcIdxW-1:0];
    fetch_hit = ic_valid_q[fetch_idx] && ic_tag_q[32'(fetch_idx)*TagW +: TagW] == fetch_line;
    fetch_mem_valid = (fst_q == FetchReq);
  end

  always_ff @(posedge clk_i) begin
    if (ic_write) ic_data[ic_widx] <= mem_rsp_i.rdata;
    if (fst_q == FetchIdle) ic_rdata_q <= ic_data[fetch_idx];
  end

  always_comb begin
    lb_valid_d = lb_valid_q;
    lb_fault_d = lb_fault_q;
    lb_tag_d = lb_tag_q;
    lb_data_d = lb_data_q;
    fst_d = fst_q;
    fwarp_d = fwarp_q;
    fline_d = fline_q;
    ic_valid_d = ic_valid_q;
    ic_tag_d = ic_tag_q;
    ic_write = 1'b0;
    ic_widx = fline_q[IcIdxW-1:0];
    unique case (fst_q)
      FetchIdle: begin
        if (fetch_any) begin
          fwarp_d = fetch_pick;
          fline_d = fetch_line;
          fst_d = fetch_hit ? FetchFill : FetchReq;
        end
      end
      FetchFill: begin
        lb_valid_d[fwarp_q] = 1'b1;
        lb_fault_d[fwarp_q] = 1'b0;
        lb_tag_d[32'(fwarp_q)*TagW +: TagW] = fline_q;
        lb_data_d[32'(fwarp_q)*LineBits +: LineBits] = ic_rdata_q;
        fst_d = FetchIdle;
      end
      FetchReq: if (fetch_mem_ready) fst_d = FetchWait;
      default: begin  // FetchWait
        if (fetch_rsp_valid) begin
          lb_valid_d[fwarp_q] = 1'b1;
          lb_tag_d[32'(fwarp_q)*TagW +: TagW] = fline_q;
          lb_data_d[32'(fwarp_q)*LineBits +: LineBits] = mem_rsp_i.rdata;
          lb_fault_d[fwarp_q] = (mem_rsp_i.fault != kestrel_pkg::FaultNone);
          if (mem_rsp_i.fault == kestrel_pkg::FaultNone) begin
            ic_write = 1'b1;
            ic_valid_d[fline_q[IcIdxW-1:0]] = 1'b1;
            ic_tag_d[32'(fline_q[IcIdxW-1:0])*TagW +: TagW] = fline_q;
          end
          fst_d = FetchIdle;
        end
      end
    endcase
    // A warp that starts drops whatever its line buffer held.
    if (inval_i) lb_valid_d[inval_warp_i] = 1'b0;
  end

  // Memory port: LSU, texture unit and fetch share it; a request shown stays
  // until taken.
  typedef enum logic [1:0] {OwnLsu, OwnTex, OwnFetch} owner_e;
  logic mem_lock_q;
  owner_e mem_owner_q, owner;
  always_comb begin
    if (mem_lock_q) owner = mem_owner_q;
    else if (lsu_req_valid_i) owner = OwnLsu;
    else if (tex_req_valid_i) owner = OwnTex;
    else owner = OwnFetch;
    unique case (owner)
      OwnFetch: begin
        mem_req_valid_o = fetch_mem_valid;
        mem_req_o = '0;
        mem_req_o.kind = kestrel_pkg::MemFetch;
        mem_req_o.addr = {fline_q, {OffW{1'b0}}};
        mem_req_o.tag = TagFetch;
      end
      OwnTex: begin
        mem_req_valid_o = tex_req_valid_i;
        mem_req_o = tex_req_i;
        mem_req_o.tag = TagTex;
      end
      default: begin
        mem_req_valid_o = lsu_req_valid_i;
        mem_req_o = lsu_req_i;
        mem_req_o.tag = TagLsu;
      end
    endcase
    lsu_req_ready_o = owner == OwnLsu && mem_req_ready_i;
    tex_req_ready_o = owner == OwnTex && mem_req_ready_i;
    fetch_mem_ready = owner == OwnFetch && mem_req_ready_i;
    fetch_rsp_valid = mem_rsp_valid_i && mem_rsp_i.tag[1:0] == TagFetch[1:0];
    tex_rsp_valid_o = mem_rsp_valid_i && mem_rsp_i.tag[1:0] == TagTex[1:0];
    lsu_rsp_valid_o = mem_rsp_valid_i && mem_rsp_i.tag[1:0] == TagLsu[1:0];
    unique case (mem_rsp_i.tag[1:0])
      TagFetch[1:0]: mem_rsp_ready_o = fst_q == FetchWait;
      TagTex[1:0]:   mem_rsp_ready_o = tex_rsp_ready_i;
      default:       mem_rsp_ready_o = lsu_rsp_ready_i;
    endcase
  end
  assign busy_o = fst_q != FetchIdle;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lb_valid_q <= '0;
      lb_fault_q <= '0;
      fst_q <= FetchIdle;
      ic_valid_q <= '0;
      mem_lock_q <= 1'b0;
      mem_owner_q <= OwnLsu;
    end else begin
      // A flush drops the line buffers (and on start the I-cache); a fetch
      // in flight finishes.
      lb_valid_q <= flush_i ? '0 : lb_valid_d;
      if (!flush_i) lb_fault_q <= lb_fault_d;
      if (start_i) ic_valid_q <= '0;
      else if (!flush_i) ic_valid_q <= ic_valid_d;
      fst_q <= fst_d;
      mem_lock_q <= mem_req_valid_o && !mem_req_ready_i;
      mem_owner_q <= owner;
    end
  end

  // Tags, line data and the fetch registers: read only where a valid bit or
  // the fetch state says they were written.
  always_ff @(posedge clk_i) begin
    lb_tag_q <= lb_tag_d;
    lb_data_q <= lb_data_d;
    ic_tag_q <= ic_tag_d;
    fwarp_q <= fwarp_d;
    fline_q <= fline_d;
  end

  // A request shown stays, unchanged, until it is taken (both requesters and
  // the merged port); responses are known.
  `KESTREL_ASSERT_HANDSHAKE(mem_req, mem_req_valid_o, mem_req_ready_i, mem_req_o)
  `KESTREL_ASSERT_HANDSHAKE(lsu_req, lsu_req_valid_i, lsu_req_ready_o, lsu_req_i)
  `KESTREL_ASSERT_HANDSHAKE(tex_req, tex_req_valid_i, tex_req_ready_o, tex_req_i)
  // No requester uses tag 3.
  `KESTREL_ASSERT_NEVER(rsp_tag_unknown, mem_rsp_valid_i && mem_rsp_i.tag[1:0] == 2'd3)
  `KESTREL_ASSERT_KNOWN(mem_rsp_valid_known, mem_rsp_valid_i)
  // A fetch response only ever answers the fetch engine's one request.
  `KESTREL_ASSERT(fetch_rsp_expected, fetch_rsp_valid |-> fst_q == FetchWait)
endmodule
