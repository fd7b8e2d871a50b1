// kestrel_frame_rx: the receiving half of the host link's framing
// (docs/host-protocol.md sections 1-2).  Takes the UART's bytes, drops them
// until the first flag after reset, removes the escapes and hands on every
// body byte (the CRC bytes included) with its index in the frame; at the
// closing flag of a non-empty frame it reports the frame's length and
// whether it passed its CRC (the CRC register over body and CRC is 0 and no
// escape was pending).  Combinational from the input byte: every output is
// valid in the cycle of the byte that causes it; no backpressure.
`include "kestrel_assert.svh"

module kestrel_frame_rx (
  input  logic        clk_i,
  input  logic        rst_ni,
  // raw bytes from the UART
  input  logic        in_valid_i,
  input  logic [7:0]  in_data_i,
  // body bytes (unescaped), index saturating at 0xFFFF
  output logic        data_valid_o,
  output logic [7:0]  data_o,
  output logic [15:0] index_o,
  // the end of a non-empty frame
  output logic        end_valid_o,
  output logic [15:0] end_len_o,
  output logic        end_ok_o
);
  logic synced_q, esc_q;
  logic [15:0] crc_q, crc_d, len_q;
  logic is_flag, is_esc;
  logic [7:0] body;

  assign is_flag = in_data_i == kestrel_board_pkg::Flag;
  assign is_esc = in_data_i == kestrel_board_pkg::Esc;
  assign body = esc_q ? (in_data_i ^ kestrel_board_pkg::EscXor) : in_data_i;

  assign data_valid_o = in_valid_i && synced_q && !is_flag && !is_esc;
  assign data_o = body;
  assign index_o = len_q;
  assign end_valid_o = in_valid_i && synced_q && is_flag && len_q != '0;
  assign end_len_o = len_q;
  assign end_ok_o = crc_q == '0 && !esc_q;
  assign crc_d = kestrel_board_pkg::crc16_byte(crc_q, body);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      synced_q <= 1'b0;
      esc_q <= 1'b0;
      crc_q <= 16'hFFFF;
      len_q <= '0;
    end else if (in_valid_i) begin
      if (is_flag) begin
        synced_q <= 1'b1;
        esc_q <= 1'b0;
        crc_q <= 16'hFFFF;
        len_q <= '0;
      end else if (is_esc) begin
        esc_q <= 1'b1;
      end else begin
        esc_q <= 1'b0;
        crc_q <= crc_d;
        if (len_q != 16'hFFFF) len_q <= len_q + 1'b1;
      end
    end
  end

  `KESTREL_ASSERT_KNOWN(in_valid_known, in_valid_i)
  `KESTREL_ASSERT_NEVER(data_and_end, data_valid_o && end_valid_o)
endmodule
