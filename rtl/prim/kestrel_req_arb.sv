// kestrel_req_arb: N requesters share one in-order request/response port
// (a single-port memory, say).  Requests are ReqW-bit payloads, responses
// RspW-bit payloads; the shared port must answer its requests in the order
// it took them, each at least one cycle after it took it.
// * Arbitration: a parked round robin.  One requester holds the grant
//   (grant_q); its request, when valid, is the port's.  The grant moves only
//   after a request is taken, or while the granted requester has none, and
//   then to the next requester after it (in index order, wrapping) that has
//   one, so a requester that keeps its valid high is served within N
//   requests of the port: no starvation.  Since the grant is a flop, no
//   req_ready_o depends on any req_valid_i: a requester whose valid depends
//   on its ready (kestrel_gpu's memory port does) makes no combinational
//   loop.  The grant cannot move while a request is offered and not taken,
//   so the port sees valid held and the payload stable (the AXI rule; a
//   memory may start a multi-beat access on valid).  Moving the grant to an
//   idle requester's new request costs one cycle.
// * Ordering: the index of every request taken goes into a FIFO of
//   Outstanding entries (a power of two); the port's next response goes to
//   the requester at the FIFO's head, so every requester gets its responses
//   in its own request order.  A full FIFO holds requests back.
// Throughput: one request and one response per cycle.  Valid/ready on every
// side: mem_req_valid_o does not depend on mem_req_ready_i, rsp_valid_o not
// on rsp_ready_i.  A response waiting for a requester that is not ready holds
// back the responses behind it (they are in order).
`include "kestrel_assert.svh"

module kestrel_req_arb #(
  parameter int unsigned N = 2,
  parameter int unsigned ReqW = 32,
  parameter int unsigned RspW = 32,
  parameter int unsigned Outstanding = 2,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // requester side: requester i's request is req_i[i*ReqW +: ReqW]; the
  // response payload is shared, rsp_valid_o says whose it is
  input  logic [N-1:0]        req_valid_i,
  output logic [N-1:0]        req_ready_o,
  input  logic [N*ReqW-1:0]   req_i,
  output logic [N-1:0]        rsp_valid_o,
  input  logic [N-1:0]        rsp_ready_i,
  output logic [RspW-1:0]     rsp_o,
  // shared port side
  output logic                mem_req_valid_o,
  input  logic                mem_req_ready_i,
  output logic [ReqW-1:0]     mem_req_o,
  input  logic                mem_rsp_valid_i,
  output logic                mem_rsp_ready_o,
  input  logic [RspW-1:0]     mem_rsp_i
);
  `KESTREL_STATIC_ASSERT(outstanding_pow2, Outstanding >= 1 && (Outstanding & (Outstanding - 1)) == 0)

  logic [IdxW-1:0] grant_q, grant_d;
  logic mem_req_fire;
  // Order of the requests taken (requester indices), oldest first.
  logic order_ready, order_valid, order_pop;
  logic [IdxW-1:0] order_head;
  logic [$clog2(Outstanding):0] order_count;

  always_comb begin
    mem_req_valid_o = req_valid_i[grant_q] && order_ready;
    // A mux of constant slices: Verilator 5.006 compiles a variable slice of
    // a wide vector whose width is not a multiple of 32 into a read one word
    // past the vector's end (AddressSanitizer's stack-buffer-overflow in the
    // sanitizer build's board model).
    mem_req_o = '0;
    for (int unsigned i = 0; i < N; i++) begin
      if (32'(grant_q) == i) mem_req_o = req_i[i*ReqW +: ReqW];
    end
    mem_req_fire = mem_req_valid_o && mem_req_ready_i;
    req_ready_o = (mem_req_ready_i && order_ready) ? (N'(1) << grant_q) : '0;
  end

  // The next grant: the first other requester with a request, counting on
  // from the granted one, once the granted one's request is taken or while
  // it has none; else the grant stays.
  logic [IdxW-1:0] next;
  logic next_found;
  int unsigned other;
  always_comb begin
    next = grant_q;
    next_found = 1'b0;
    other = 0;
    for (int unsigned k = 1; k < N; k++) begin
      other = 32'(grant_q) + k;
      if (other >= N) other = other - N;
      if (!next_found && req_valid_i[other]) begin
        next = IdxW'(other);
        next_found = 1'b1;
      end
    end
    grant_d = (mem_req_fire || !req_valid_i[grant_q]) ? next : grant_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) grant_q <= '0;
    else grant_q <= grant_d;
  end

  kestrel_fifo #(.Width(IdxW), .Depth(Outstanding)) u_order (
    .clk_i,
    .rst_ni,
    .flush_i(1'b0),
    .in_valid_i(mem_req_fire),
    .in_ready_o(order_ready),
    .in_data_i(grant_q),
    .out_valid_o(order_valid),
    .out_ready_i(order_pop),
    .out_data_o(order_head),
    .count_o(order_count)
  );

  // Responses: to the requester at the head of the order.
  always_comb begin
    rsp_valid_o = (mem_rsp_valid_i && order_valid) ? (N'(1) << order_head) : '0;
    rsp_o = mem_rsp_i;
    mem_rsp_ready_o = order_valid && rsp_ready_i[order_head];
    order_pop = mem_rsp_valid_i && mem_rsp_ready_o;
  end

  logic unused_count;
  assign unused_count = ^order_count;

  `KESTREL_ASSERT(grant_in_range, 32'(grant_q) < N)
  // The port answers only what it took.
  `KESTREL_ASSERT(response_was_requested, mem_rsp_valid_i |-> order_valid)
  `KESTREL_ASSERT_ONEHOT0(one_response, rsp_valid_o)
  `KESTREL_ASSERT_HANDSHAKE(mem_req, mem_req_valid_o, mem_req_ready_i, mem_req_o)
endmodule
