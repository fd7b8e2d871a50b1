// kestrel_uart_rx: UART receiver, 8 data bits, no parity, one stop bit, LSB
// first, at ClkHz / BaudRate clock cycles per bit (at least 4).  The line
// passes a two-flop synchronizer; a start bit is confirmed at its middle and
// each bit sampled at its middle.  Output: one cycle of valid_o per byte
// (no backpressure: a UART cannot wait), frame_err_o instead when the stop
// bit is low (the byte is dropped: the link's CRC and resends recover).
// Latency: a byte is out in the middle of its stop bit.
`include "kestrel_assert.svh"

module kestrel_uart_rx #(
  parameter int unsigned ClkHz = 12_000_000,
  parameter int unsigned BaudRate = 3_000_000,
  localparam int unsigned Div = ClkHz / BaudRate,
  localparam int unsigned CntW = $clog2(Div + 1)
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  // serial line (idle high)
  input  logic       rx_i,
  // received bytes
  output logic       valid_o,
  output logic [7:0] data_o,
  output logic       frame_err_o
);
  `KESTREL_STATIC_ASSERT(div_at_least_4, Div >= 4)

  typedef enum logic [1:0] {
    RxIdle = 2'd0,
    RxStart = 2'd1,
    RxData = 2'd2,
    RxStop = 2'd3
  } rx_state_e;

  rx_state_e state_q, state_d;
  logic [1:0] sync_q;
  logic [CntW-1:0] cnt_q, cnt_d;
  logic [2:0] bit_q, bit_d;
  logic [7:0] shift_q, shift_d;
  logic valid_q, valid_d, err_q, err_d;
  logic rx;

  assign rx = sync_q[1];
  assign valid_o = valid_q;
  assign data_o = shift_q;
  assign frame_err_o = err_q;

  always_comb begin
    state_d = state_q;
    cnt_d = cnt_q;
    bit_d = bit_q;
    shift_d = shift_q;
    valid_d = 1'b0;
    err_d = 1'b0;
    unique case (state_q)
      RxIdle: begin
        if (!rx) begin
          state_d = RxStart;
          cnt_d = CntW'(Div / 2 - 1);
        end
      end
      RxStart: begin
        if (cnt_q != '0) begin
          cnt_d = cnt_q - 1'b1;
        end else if (!rx) begin
          state_d = RxData;
          cnt_d = CntW'(Div - 1);
          bit_d = 3'd0;
        end else begin
          state_d = RxIdle;  // a glitch, not a start bit
        end
      end
      RxData: begin
        if (cnt_q != '0) begin
          cnt_d = cnt_q - 1'b1;
        end else begin
          shift_d = {rx, shift_q[7:1]};
          cnt_d = CntW'(Div - 1);
          bit_d = bit_q + 1'b1;
          if (bit_q == 3'd7) state_d = RxStop;
        end
      end
      RxStop: begin
        if (cnt_q != '0) begin
          cnt_d = cnt_q - 1'b1;
        end else begin
          state_d = RxIdle;
          valid_d = rx;
          err_d = !rx;
        end
      end
      default: state_d = RxIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= RxIdle;
      sync_q <= 2'b11;
      cnt_q <= '0;
      bit_q <= '0;
      shift_q <= '0;
      valid_q <= 1'b0;
      err_q <= 1'b0;
    end else begin
      state_q <= state_d;
      sync_q <= {sync_q[0], rx_i};
      cnt_q <= cnt_d;
      bit_q <= bit_d;
      shift_q <= shift_d;
      valid_q <= valid_d;
      err_q <= err_d;
    end
  end

  `KESTREL_ASSERT_NEVER(valid_and_err, valid_q && err_q)
endmodule
