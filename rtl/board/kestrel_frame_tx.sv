// kestrel_frame_tx: the sending half of the host link's framing
// (docs/host-protocol.md sections 1-2).  Takes a frame's body bytes
// (valid/ready, last_i on the final one) and sends the opening flag, the
// escaped body, the escaped CRC-16 (MSB first) and the closing flag to the
// UART (valid/ready).  One output byte per handshake; an escaped byte takes
// two.  in_ready_o follows out_ready_i combinationally (not in_valid_i).
`include "kestrel_assert.svh"

module kestrel_frame_tx (
  input  logic       clk_i,
  input  logic       rst_ni,
  // body bytes
  input  logic       in_valid_i,
  output logic       in_ready_o,
  input  logic [7:0] in_data_i,
  input  logic       in_last_i,
  // raw bytes to the UART
  output logic       out_valid_o,
  input  logic       out_ready_i,
  output logic [7:0] out_data_o
);
  typedef enum logic [1:0] {
    TxIdle = 2'd0,   // the opening flag goes out when a body byte waits
    TxBody = 2'd1,
    TxCrc = 2'd2,    // crc_lo_q: the low byte is next
    TxClose = 2'd3
  } tx_state_e;

  tx_state_e state_q, state_d;
  logic [15:0] crc_q, crc_d;
  logic crc_lo_q, crc_lo_d;
  logic pend_q, pend_d;            // the second byte of an escape is next
  logic [7:0] pend_byte_q, pend_byte_d;
  logic pend_last_q, pend_last_d;  // it ends its part (body or CRC)

  logic [7:0] cur;    // the byte of the body or CRC up next
  logic cur_valid, cur_last, cur_special;

  always_comb begin
    cur = in_data_i;
    cur_valid = 1'b0;
    cur_last = 1'b0;
    if (state_q == TxBody) begin
      cur = in_data_i;
      cur_valid = in_valid_i;
      cur_last = in_last_i;
    end else if (state_q == TxCrc) begin
      cur = crc_lo_q ? crc_q[7:0] : crc_q[15:8];
      cur_valid = 1'b1;
      cur_last = crc_lo_q;
    end
  end
  assign cur_special = cur == kestrel_board_pkg::Flag || cur == kestrel_board_pkg::Esc;

  always_comb begin
    state_d = state_q;
    crc_d = crc_q;
    crc_lo_d = crc_lo_q;
    pend_d = pend_q;
    pend_byte_d = pend_byte_q;
    pend_last_d = pend_last_q;
    out_valid_o = 1'b0;
    out_data_o = kestrel_board_pkg::Flag;
    unique case (state_q)
      TxIdle: begin
        out_valid_o = in_valid_i;
        if (in_valid_i && out_ready_i) begin
          state_d = TxBody;
          crc_d = 16'hFFFF;
        end
      end
      TxBody, TxCrc: begin
        if (pend_q) begin
          out_valid_o = 1'b1;
          out_data_o = pend_byte_q;
          if (out_ready_i) begin
            pend_d = 1'b0;
            if (pend_last_q) begin
              if (state_q == TxBody) begin
                state_d = TxCrc;
                crc_lo_d = 1'b0;
              end else begin
                state_d = TxClose;
              end
            end else if (state_q == TxCrc) begin
              crc_lo_d = 1'b1;
            end
          end
        end else begin
          out_valid_o = cur_valid;
          out_data_o = cur_special ? kestrel_board_pkg::Esc : cur;
          if (cur_valid && out_ready_i) begin
            if (state_q == TxBody) crc_d = kestrel_board_pkg::crc16_byte(crc_q, cur);
            if (cur_special) begin
              pend_d = 1'b1;
              pend_byte_d = cur ^ kestrel_board_pkg::EscXor;
              pend_last_d = cur_last;
            end else if (cur_last) begin
              if (state_q == TxBody) begin
                state_d = TxCrc;
                crc_lo_d = 1'b0;
              end else begin
                state_d = TxClose;
              end
            end else if (state_q == TxCrc) begin
              crc_lo_d = 1'b1;
            end
          end
        end
      end
      TxClose: begin
        out_valid_o = 1'b1;
        if (out_ready_i) state_d = TxIdle;
      end
      default: state_d = TxIdle;
    endcase
  end

  // Ready for a body byte whenever one would go out now: not a function of
  // in_valid_i (no loop through a sender whose valid follows ready).
  assign in_ready_o = state_q == TxBody && !pend_q && out_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= TxIdle;
      crc_q <= 16'hFFFF;
      crc_lo_q <= 1'b0;
      pend_q <= 1'b0;
      pend_byte_q <= '0;
      pend_last_q <= 1'b0;
    end else begin
      state_q <= state_d;
      crc_q <= crc_d;
      crc_lo_q <= crc_lo_d;
      pend_q <= pend_d;
      pend_byte_q <= pend_byte_d;
      pend_last_q <= pend_last_d;
    end
  end

  `KESTREL_ASSERT_HANDSHAKE(in, in_valid_i, in_ready_o, {in_data_i, in_last_i})
  `KESTREL_ASSERT_HANDSHAKE(out, out_valid_o, out_ready_i, out_data_o)
endmodule
