// kestrel_skid_buf: registered valid/ready stage that breaks the ready path.
// Full throughput (one transfer per cycle); `in_ready_o` is a flop, so the
// upstream never sees a combinational path from `out_ready_i`.
`include "kestrel_assert.svh"

module kestrel_skid_buf #(
  parameter int unsigned Width = 8
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o
);
  logic main_valid_q, skid_valid_q;
  logic [Width-1:0] main_q, skid_q;

  assign in_ready_o = !skid_valid_q;
  assign out_valid_o = main_valid_q;
  assign out_data_o = main_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      main_valid_q <= 1'b0;
      skid_valid_q <= 1'b0;
    end else begin
      if (!main_valid_q || out_ready_i) begin
        // The output register empties (or was empty): refill from the skid
        // entry first so order is kept, else from the input.
        main_valid_q <= skid_valid_q || in_valid_i;
        skid_valid_q <= 1'b0;
      end else if (in_valid_i && !skid_valid_q) begin
        skid_valid_q <= 1'b1;
      end
    end
  end

  // The output obeys the valid/ready rule by construction.
  `KESTREL_ASSERT_HANDSHAKE(out, out_valid_o, out_ready_i, out_data_o)

  // Data registers need no reset: they are only read while their valid is set.
  always_ff @(posedge clk_i) begin
    if (!main_valid_q || out_ready_i) begin
      main_q <= skid_valid_q ? skid_q : in_data_i;
    end else if (in_valid_i && !skid_valid_q) begin
      skid_q <= in_data_i;
    end
  end
endmodule
