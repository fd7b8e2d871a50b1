// kestrel_min_find: minimum of the entries whose `valid_i` bit is set, as a
// balanced tree of comparators (log2(N) levels), combinational.  Used by the
// thread-group selector to find the minimum PC of a warp.  `valid_o` is low
// when no entry is valid.
module kestrel_min_find #(
  parameter int unsigned N = 32,
  parameter int unsigned Width = 32
) (
  input  logic [N*Width-1:0] values_i,   // entry i at [i*Width +: Width]
  input  logic [N-1:0]       valid_i,
  output logic               valid_o,
  output logic [Width-1:0]   min_o
);
  // Level l of the tree holds Leaves >> l nodes; node storage is flattened.
  localparam int unsigned Leaves = 1 << $clog2(N);
  localparam int unsigned Nodes = 2 * Leaves - 1;
  localparam int LastInternal = Leaves - 2;

  logic [Width-1:0] node_val [Nodes];
  logic [Nodes-1:0] node_ok;

  always_comb begin
    for (int unsigned i = 0; i < Leaves; i++) begin
      if (i < N) begin
        node_val[Leaves - 1 + i] = values_i[i*Width +: Width];
        node_ok[Leaves - 1 + i] = valid_i[i];
      end else begin
        node_val[Leaves - 1 + i] = '0;
        node_ok[Leaves - 1 + i] = 1'b0;
      end
    end
    // Heap order: node k has children 2k+1 and 2k+2, so filling from the
    // last internal node down to the root sees every child before its parent.
    for (int k = LastInternal; k >= 0; k--) begin
      if (node_ok[2*k+1] && (!node_ok[2*k+2] || node_val[2*k+1] <= node_val[2*k+2])) begin
        node_val[k] = node_val[2*k+1];
      end else begin
        node_val[k] = node_val[2*k+2];
      end
      node_ok[k] = node_ok[2*k+1] || node_ok[2*k+2];
    end
    valid_o = node_ok[0];
    min_o = node_val[0];
  end
endmodule
