// kestrel_popcount: number of set bits of a Width-bit vector, combinational
// (an adder tree after synthesis).
module kestrel_popcount #(
  parameter int unsigned Width = 32
) (
  input  logic [Width-1:0]         bits_i,
  output logic [$clog2(Width+1)-1:0] count_o
);
  always_comb begin
    count_o = '0;
    for (int unsigned i = 0; i < Width; i++) begin
      count_o = count_o + ($clog2(Width+1))'(bits_i[i]);
    end
  end
endmodule
