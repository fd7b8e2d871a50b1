// kestrel_rr_arb: round-robin arbiter over N requesters, combinational grant.
// The grant goes to the first requester at or after the pointer; the pointer
// moves past the winner when `advance_i` is high (the grant was taken), so
// every persistent requester is served within N grants.
`include "kestrel_assert.svh"

module kestrel_rr_arb #(
  parameter int unsigned N = 8,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic [N-1:0]    req_i,
  input  logic            advance_i,
  output logic            valid_o,
  output logic [IdxW-1:0] index_o,
  output logic [N-1:0]    grant_o
);
  logic [IdxW-1:0] ptr_q;
  logic [2*N-1:0] doubled;
  logic [2*N-1:0] masked;

  always_comb begin
    // Requests at or after the pointer come first: look for the lowest set
    // bit in {req, req} starting at ptr.
    doubled = {req_i, req_i};
    masked = doubled & ({(2*N){1'b1}} << ptr_q);
    index_o = '0;
    for (int i = 2 * N - 1; i >= 0; i--) begin
      if (masked[i]) index_o = IdxW'(i % N);
    end
    valid_o = |req_i;
    grant_o = valid_o ? (N'(1) << index_o) : '0;
  end

  // One grant at most, only to a requester, and valid exactly when granting.
  `KESTREL_ASSERT_ONEHOT0(grant_onehot, grant_o)
  `KESTREL_ASSERT(grant_requested, (grant_o & ~req_i) == '0)
  `KESTREL_ASSERT(valid_is_grant, valid_o == (grant_o != '0))

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) ptr_q <= '0;
    else if (advance_i && valid_o) ptr_q <= (index_o == IdxW'(N - 1)) ? '0 : index_o + 1'b1;
  end
endmodule
