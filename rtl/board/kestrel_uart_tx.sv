// kestrel_uart_tx: UART transmitter, 8 data bits, no parity, one stop bit,
// LSB first, at ClkHz / BaudRate clock cycles per bit (at least 4).  Takes a
// byte (valid/ready) when idle and shifts out start bit, data and stop bit:
// one byte per 10 bit times.  tx_o is a flop (idle high).
`include "kestrel_assert.svh"

module kestrel_uart_tx #(
  parameter int unsigned ClkHz = 12_000_000,
  parameter int unsigned BaudRate = 3_000_000,
  localparam int unsigned Div = ClkHz / BaudRate,
  localparam int unsigned CntW = $clog2(Div + 1)
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  // bytes to send
  input  logic       valid_i,
  output logic       ready_o,
  input  logic [7:0] data_i,
  // serial line (idle high)
  output logic       tx_o
);
  `KESTREL_STATIC_ASSERT(div_at_least_4, Div >= 4)

  logic busy_q, busy_d;
  logic [9:0] shift_q, shift_d;  // stop, data[7:0], start: LSB goes out first
  logic [3:0] bits_q, bits_d;    // bits left after the one on the line
  logic [CntW-1:0] cnt_q, cnt_d;
  logic tx_q, tx_d;

  assign ready_o = !busy_q;
  assign tx_o = tx_q;

  always_comb begin
    busy_d = busy_q;
    shift_d = shift_q;
    bits_d = bits_q;
    cnt_d = cnt_q;
    tx_d = tx_q;
    if (!busy_q) begin
      tx_d = 1'b1;
      if (valid_i) begin
        busy_d = 1'b1;
        shift_d = {1'b1, data_i, 1'b0};
        tx_d = 1'b0;  // the start bit
        bits_d = 4'd9;
        cnt_d = CntW'(Div - 1);
      end
    end else if (cnt_q != '0) begin
      cnt_d = cnt_q - 1'b1;
    end else if (bits_q != '0) begin
      shift_d = {1'b1, shift_q[9:1]};
      tx_d = shift_q[1];
      bits_d = bits_q - 1'b1;
      cnt_d = CntW'(Div - 1);
    end else begin
      busy_d = 1'b0;  // the stop bit has lasted its bit time
      tx_d = 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      shift_q <= '1;
      bits_q <= '0;
      cnt_q <= '0;
      tx_q <= 1'b1;
    end else begin
      busy_q <= busy_d;
      shift_q <= shift_d;
      bits_q <= bits_d;
      cnt_q <= cnt_d;
      tx_q <= tx_d;
    end
  end

  `KESTREL_ASSERT_HANDSHAKE(in, valid_i, ready_o, data_i)
endmodule
