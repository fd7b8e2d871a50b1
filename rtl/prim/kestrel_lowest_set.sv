// kestrel_lowest_set: index and one-hot of the lowest set bit of a vector
// (a trailing-zero count), combinational.  `valid_o` is low for an all-zero
// input, and the index then reads 0.
module kestrel_lowest_set #(
  parameter int unsigned Width = 32,
  localparam int unsigned IdxW = (Width > 1) ? $clog2(Width) : 1
) (
  input  logic [Width-1:0] bits_i,
  output logic             valid_o,
  output logic [IdxW-1:0]  index_o,
  output logic [Width-1:0] onehot_o
);
  always_comb begin
    index_o = '0;
    // Scanning from the top leaves the lowest set bit's index last.
    for (int i = Width - 1; i >= 0; i--) begin
      if (bits_i[i]) index_o = IdxW'(i);
    end
    valid_o = |bits_i;
    onehot_o = bits_i & (~bits_i + 1'b1);
  end
endmodule
