// kestrel_mem_xbar: the global memory path from NumSms SM ports to the one
// external DRAM port, with the page check in between.
//
// Requests: a round-robin arbiter (kestrel_rr_arb) picks one SM with a
// pending request; its request is checked by the page table (check port,
// combinational) and either forwarded to the external port unchanged (the
// SM's own tag rides along) or, if the check fails, never leaves the GPU.
// Either way an order entry {SM, read-only page, fault kind, tag} is pushed
// into a FIFO.
// Responses: the external memory answers in request order (the protocol of
// kestrel_pkg), so the FIFO head says whom the next response belongs to; a
// head that failed its check is answered locally with its fault kind and zero
// data, in its turn.  This keeps every SM's responses in its request order
// with faults included, without rewriting tags.
//
// Throughput: one request and one response per cycle.  At most Outstanding
// requests are in flight; the request side stalls when the FIFO is full.
// Handshakes are valid/ready on all four sides; the external request is the
// arbiter's choice, combinational from the SM requests (a steering choice: an
// SM keeps its request valid until it is taken, and the pointer only moves on
// a taken grant, so the external payload is stable while it waits).
`include "kestrel_assert.svh"

module kestrel_mem_xbar #(
  parameter int unsigned NumSms = 2,
  parameter int unsigned Outstanding = 16,
  localparam int unsigned SmW = (NumSms > 1) ? $clog2(NumSms) : 1,
  // $bits(mem_req_t) and $bits(mem_rsp_t), spelled out: Yosys 0.23 does not
  // take $bits of a package type in a parameter list
  localparam int unsigned ReqW = 95 + 2 + 1 + kestrel_pkg::AddrW + kestrel_pkg::LineBytes
                                 + kestrel_pkg::LineBits + kestrel_pkg::MemTagW,
  localparam int unsigned RspW = kestrel_pkg::LineBits + 4 + kestrel_pkg::MemTagW
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // SM side, one port per SM (flat vectors, SM s at [s*W +: W]; Yosys 0.23
  // takes neither unpacked array ports nor arrays of packed structs)
  input  logic [NumSms-1:0]             sm_req_valid_i,
  output logic [NumSms-1:0]             sm_req_ready_o,
  input  logic [NumSms*ReqW-1:0]        sm_req_i,
  output logic [NumSms-1:0]             sm_rsp_valid_o,
  input  logic [NumSms-1:0]             sm_rsp_ready_i,
  output logic [NumSms*RspW-1:0]        sm_rsp_o,
  output logic                          sm_rsp_readonly_o,  // with sm_rsp_o: the line's page is read-only
  // page check (kestrel_page_table)
  output kestrel_pkg::mem_kind_e        chk_kind_o,
  output logic [kestrel_pkg::AddrW-1:0] chk_addr_o,
  input  kestrel_pkg::fault_kind_e      chk_fault_i,
  input  logic                          chk_readonly_i,
  // external DRAM port
  output logic                          ext_req_valid_o,
  input  logic                          ext_req_ready_i,
  output kestrel_pkg::mem_req_t         ext_req_o,
  input  logic                          ext_rsp_valid_i,
  output logic                          ext_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t         ext_rsp_i,
  // requests taken (for the memory-request counter), one cycle each
  output logic                          req_taken_o,
  // a write or atomic leaves for memory: its line, for the SMs' L1 data
  // caches to drop (kestrel_sm_cache)
  output logic                          snoop_valid_o,
  output logic [kestrel_pkg::AddrW-kestrel_pkg::LineOffW-1:0] snoop_line_o
);
  typedef struct packed {
    logic [SmW-1:0] sm;
    logic readonly;
    logic [3:0] fault;  // kestrel_pkg::fault_kind_e bits (Yosys 0.23: no package enums in local structs)
    logic [kestrel_pkg::MemTagW-1:0] tag;
  } order_t;
  localparam int unsigned OrderW = SmW + 1 + 4 + kestrel_pkg::MemTagW;

  logic arb_valid;
  logic [SmW-1:0] arb_idx;
  logic [NumSms-1:0] arb_grant;
  kestrel_pkg::mem_req_t chosen;
  logic checked_ok;
  logic take;
  logic order_ready, order_valid;
  order_t order_in, order_head;
  logic pop;
  logic head_local;
  kestrel_pkg::mem_rsp_t rsp;

  kestrel_rr_arb #(.N(NumSms)) u_arb (
    .clk_i,
    .rst_ni,
    .req_i(sm_req_valid_i),
    .advance_i(take),
    .valid_o(arb_valid),
    .index_o(arb_idx),
    .grant_o(arb_grant)
  );

  // The check port is driven apart from the block that reads its answer, so
  // that simulators see no loop through the page table.
  assign chosen = sm_req_i[arb_idx*ReqW +: ReqW];
  assign chk_kind_o = chosen.kind;
  assign chk_addr_o = chosen.addr;

  always_comb begin
    checked_ok = (chk_fault_i == kestrel_pkg::FaultNone);
    // A request leaves the SM when the order FIFO has room and, if it passed
    // its check, the external port takes it too.
    ext_req_valid_o = arb_valid && checked_ok && order_ready;
    ext_req_o = chosen;
    take = arb_valid && order_ready && (!checked_ok || ext_req_ready_i);
    sm_req_ready_o = take ? arb_grant : '0;
    order_in.sm = arb_idx;
    order_in.readonly = chk_readonly_i;
    order_in.fault = chk_fault_i;
    order_in.tag = chosen.tag;
  end

  kestrel_fifo #(.Width(OrderW), .Depth(Outstanding)) u_order (
    .clk_i,
    .rst_ni,
    .flush_i(1'b0),
    .in_valid_i(take),
    .in_ready_o(order_ready),
    .in_data_i(order_in),
    .out_valid_o(order_valid),
    .out_ready_i(pop),
    .out_data_o(order_head),
    .count_o(order_count)
  );
  // The occupancy is not needed: in_ready_o already says whether there is room.
  logic [$clog2(Outstanding):0] order_count;
  logic unused_count;
  assign unused_count = ^order_count;

  // The check only produces these three kinds (kestrel_page_table).
  kestrel_pkg::fault_kind_e head_fault;
  always_comb begin
    unique case (order_head.fault)
      4'(kestrel_pkg::FaultWriteProtect): head_fault = kestrel_pkg::FaultWriteProtect;
      4'(kestrel_pkg::FaultFetch): head_fault = kestrel_pkg::FaultFetch;
      default: head_fault = kestrel_pkg::FaultIllegalAddress;
    endcase
  end

  always_comb begin
    head_local = order_head.fault != 4'(kestrel_pkg::FaultNone);
    sm_rsp_valid_o = '0;
    rsp = ext_rsp_i;
    if (head_local) begin
      rsp.rdata = '0;
      rsp.fault = head_fault;
      rsp.tag = order_head.tag;
    end
    // Every SM sees the same payload; only the owner's valid is raised.
    sm_rsp_o = {NumSms{rsp}};
    sm_rsp_readonly_o = order_head.readonly && !head_local;
    if (order_valid && (head_local || ext_rsp_valid_i)) sm_rsp_valid_o[order_head.sm] = 1'b1;
    ext_rsp_ready_o = order_valid && !head_local && sm_rsp_ready_i[order_head.sm];
    pop = order_valid && sm_rsp_ready_i[order_head.sm] && (head_local || ext_rsp_valid_i);
    req_taken_o = take;
    snoop_valid_o = ext_req_valid_o && ext_req_ready_i && (chosen.kind == kestrel_pkg::MemWrite || chosen.amo.valid);
    snoop_line_o = chosen.addr[kestrel_pkg::AddrW-1:kestrel_pkg::LineOffW];
  end

`ifndef SYNTHESIS
  // A response from outside with nothing outstanding, or for another tag, is
  // a memory model that broke the in-order rule.  Checked at the clock edge:
  // between edges the inputs may not have settled yet.
  always_ff @(posedge clk_i) begin
    if (ext_rsp_valid_i && ext_rsp_ready_o) begin
      assert (order_head.tag == ext_rsp_i.tag)
      else $error("kestrel_mem_xbar: external response tag %0d, expected %0d", ext_rsp_i.tag, order_head.tag);
    end
  end
`endif
  // A response goes to one SM at a time.  (The request to memory is not held
  // to the valid/ready rule: the arbiter decides again each cycle, so a
  // waiting request may give way to another SM's; the memory side takes what
  // is offered when it is ready.  The SM-side requests keep the rule.)
  `KESTREL_ASSERT_KNOWN(ext_req_valid_known, ext_req_valid_o)
  `KESTREL_ASSERT_ONEHOT0(sm_rsp_onehot, sm_rsp_valid_o)
  `KESTREL_ASSERT_KNOWN(sm_req_valid_known, sm_req_valid_i)
  `KESTREL_ASSERT_KNOWN(ext_rsp_valid_known, ext_rsp_valid_i)
endmodule
