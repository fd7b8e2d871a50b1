// kestrel_host_bridge: the board end of the host link (docs/host-protocol.md).
// Receives request frames over the UART (kestrel_uart_rx, kestrel_frame_rx),
// checks their CRC, length, op and address, carries them out on kestrel_gpu's
// host register port and on the board memory's word port, and answers each
// with a frame (kestrel_frame_tx, kestrel_uart_tx).
//
// One request at a time: RECV -> (register or memory access) -> ANSWER ->
// RECV.  Bytes that arrive while the bridge is not in RECV are dropped (the
// host has one request outstanding, so they can only be a resend, which the
// host repeats).  A WRITE_MEM payload waits in a MaxWords-word buffer (a
// synchronous-read RAM, block RAM on an FPGA) until the frame's CRC has
// passed; READ_MEM answers stream from memory a word at a time.
//
// Duplicates: the bridge keeps the seq and op of the last request that
// passed its checks; the same seq and op again is answered with REPLAYED
// set, a write not carried out again (its answer, a status, depends only on
// the request), a read carried out again (reads have no side effects).  SYNC
// clears the record.
//
// Handshakes: the register port and the memory port are valid/ready, one
// request outstanding on each at a time.
`include "kestrel_assert.svh"

module kestrel_host_bridge #(
  parameter int unsigned ClkHz = 12_000_000,
  parameter int unsigned BaudRate = 3_000_000,
  // board memory: MemBytes from kestrel_pkg::GlobalBase
  parameter int unsigned MemBytes = 64 * 1024,
  // the most words a memory request may carry (the payload buffer)
  parameter int unsigned MaxWords = 64,
  localparam int unsigned BufW = $clog2(MaxWords)
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // the UART
  input  logic                          uart_rx_i,
  output logic                          uart_tx_o,
  // kestrel_gpu's host register port
  output logic                          reg_req_valid_o,
  input  logic                          reg_req_ready_i,
  output kestrel_pkg::reg_req_t         reg_req_o,
  input  logic                          reg_rsp_valid_i,
  output logic                          reg_rsp_ready_o,
  input  logic [31:0]                   reg_rsp_rdata_i,
  // the board memory's word port
  output logic                          mem_req_valid_o,
  input  logic                          mem_req_ready_i,
  output kestrel_board_pkg::bmem_req_t  mem_req_o,
  input  logic                          mem_rsp_valid_i,
  output logic                          mem_rsp_ready_o,
  input  logic [31:0]                   mem_rsp_rdata_i
);
  `KESTREL_STATIC_ASSERT(max_words_pow2, MaxWords >= 2 && (1 << BufW) == MaxWords && MaxWords <= 16384)

  typedef enum logic [3:0] {
    BrRecv = 4'd0,
    BrRegReq = 4'd1,
    BrRegRsp = 4'd2,
    BrMemWrRead = 4'd3,  // the buffer's word is read
    BrMemWrReq = 4'd4,
    BrMemWrRsp = 4'd5,
    BrAnsHead = 4'd6,    // seq, op, status
    BrAnsReg = 4'd7,     // READ_REG's value
    BrAnsMemReq = 4'd8,  // READ_MEM: a word is read
    BrAnsMemRsp = 4'd9,
    BrAnsMem = 4'd10     // and sent
  } br_state_e;

  // ---------------------------------------------------------------------------
  // The link: UART and framing.
  // ---------------------------------------------------------------------------
  logic rx_valid, rx_err;
  logic [7:0] rx_data;
  logic fr_valid, fr_end, fr_ok;
  logic [7:0] fr_data;
  logic [15:0] fr_index, fr_len;
  logic ft_valid, ft_ready, ft_last;
  logic [7:0] ft_data;
  logic tx_valid, tx_ready;
  logic [7:0] tx_data;

  kestrel_uart_rx #(.ClkHz(ClkHz), .BaudRate(BaudRate)) u_uart_rx (
    .clk_i,
    .rst_ni,
    .rx_i(uart_rx_i),
    .valid_o(rx_valid),
    .data_o(rx_data),
    .frame_err_o(rx_err)
  );

  kestrel_frame_rx u_frame_rx (
    .clk_i,
    .rst_ni,
    .in_valid_i(rx_valid),
    .in_data_i(rx_data),
    .data_valid_o(fr_valid),
    .data_o(fr_data),
    .index_o(fr_index),
    .end_valid_o(fr_end),
    .end_len_o(fr_len),
    .end_ok_o(fr_ok)
  );

  kestrel_frame_tx u_frame_tx (
    .clk_i,
    .rst_ni,
    .in_valid_i(ft_valid),
    .in_ready_o(ft_ready),
    .in_data_i(ft_data),
    .in_last_i(ft_last),
    .out_valid_o(tx_valid),
    .out_ready_i(tx_ready),
    .out_data_o(tx_data)
  );

  kestrel_uart_tx #(.ClkHz(ClkHz), .BaudRate(BaudRate)) u_uart_tx (
    .clk_i,
    .rst_ni,
    .valid_i(tx_valid),
    .ready_o(tx_ready),
    .data_i(tx_data),
    .tx_o(uart_tx_o)
  );

  // A framing error drops the byte: the frame fails its CRC or length.
  logic unused_rx_err;
  assign unused_rx_err = rx_err;

  // ---------------------------------------------------------------------------
  // State.
  // ---------------------------------------------------------------------------
  br_state_e state_q, state_d;
  logic in_frame_q, in_frame_d;      // RECV saw this frame's first byte
  logic [7:0] seq_q, seq_d, op_q, op_d;
  logic [31:0] addr_q, addr_d;
  logic [15:0] count_q, count_d;
  logic [31:0] word_q, word_d;       // payload word being assembled, then the answer's word
  logic [31:0] value_q, value_d;     // WRITE_REG's value
  logic [6:0] status_q, status_d;
  logic replay_q, replay_d, nak_q, nak_d;
  logic last_valid_q, last_valid_d;  // the duplicate record
  logic [7:0] last_seq_q, last_seq_d, last_op_q, last_op_d;
  logic [15:0] idx_q, idx_d;         // word index of a memory request
  logic [1:0] byte_q, byte_d;        // byte of the answer's header or word
  logic [31:0] rdata_q, rdata_d;     // READ_REG's value

  // The payload buffer: synchronous write in RECV, synchronous read at idx_q
  // (unreset: block RAM).
  logic [31:0] buf_q [MaxWords];
  logic [31:0] buf_rdata_q;
  logic buf_we;
  logic [BufW-1:0] buf_waddr;
  logic [31:0] buf_wdata;

  always_ff @(posedge clk_i) begin
    if (buf_we) buf_q[buf_waddr] <= buf_wdata;
    buf_rdata_q <= buf_q[idx_q[BufW-1:0]];
  end

  // ---------------------------------------------------------------------------
  // Request checks at the end of a frame (docs/host-protocol.md section 3).
  // ---------------------------------------------------------------------------
  logic [6:0] check_status;
  logic [17:0] payload_bytes;
  logic [33:0] mem_end;
  logic is_reg_op, is_mem_op, is_write, duplicate;

  always_comb begin
    is_reg_op = op_q == kestrel_board_pkg::OpReadReg || op_q == kestrel_board_pkg::OpWriteReg;
    is_mem_op = op_q == kestrel_board_pkg::OpReadMem || op_q == kestrel_board_pkg::OpWriteMem;
    is_write = op_q == kestrel_board_pkg::OpWriteReg || op_q == kestrel_board_pkg::OpWriteMem;
    payload_bytes = '0;
    if (op_q == kestrel_board_pkg::OpWriteReg) payload_bytes = 18'd4;
    if (op_q == kestrel_board_pkg::OpWriteMem) payload_bytes = {count_q, 2'b00};
    mem_end = 34'(addr_q) + 34'({count_q, 2'b00});
    check_status = kestrel_board_pkg::StatusOk;
    if (op_q > kestrel_board_pkg::OpReadMem) begin
      check_status = kestrel_board_pkg::StatusBadOp;
    end else if (18'(fr_len) != 18'(kestrel_board_pkg::HeaderBytes + kestrel_board_pkg::CrcBytes) + payload_bytes
                 || (op_q == kestrel_board_pkg::OpSync && count_q != '0)
                 || (is_reg_op && count_q != 16'd1)
                 || (is_mem_op && (count_q == '0 || 32'(count_q) > MaxWords))) begin
      check_status = kestrel_board_pkg::StatusBadLength;
    end else if ((is_reg_op && (addr_q[1:0] != '0 || addr_q >= 32'h1000))
                 || (is_mem_op && (addr_q[1:0] != '0 || addr_q < kestrel_pkg::GlobalBase
                                   || mem_end > 34'(kestrel_pkg::GlobalBase) + 34'(MemBytes)))) begin
      check_status = kestrel_board_pkg::StatusBadAddress;
    end
    duplicate = last_valid_q && seq_q == last_seq_q && op_q == last_op_q;
  end

  // ---------------------------------------------------------------------------
  // Port outputs: functions of the state alone (no path from a ready or
  // valid input to an output).
  // ---------------------------------------------------------------------------
  always_comb begin
    reg_req_valid_o = state_q == BrRegReq;
    reg_req_o.write = op_q == kestrel_board_pkg::OpWriteReg;
    reg_req_o.addr = addr_q[11:0];
    reg_req_o.wdata = value_q;
    reg_rsp_ready_o = state_q == BrRegRsp;
    mem_req_valid_o = state_q == BrMemWrReq || state_q == BrAnsMemReq;
    mem_req_o.write = state_q == BrMemWrReq;
    mem_req_o.addr = addr_q + {14'd0, idx_q, 2'b00};
    mem_req_o.wdata = (state_q == BrMemWrReq) ? buf_rdata_q : '0;
    mem_rsp_ready_o = state_q == BrMemWrRsp || state_q == BrAnsMemRsp;
    ft_valid = state_q == BrAnsHead || state_q == BrAnsReg || state_q == BrAnsMem;
    ft_data = '0;
    ft_last = 1'b0;
    unique case (state_q)
      BrAnsHead: begin
        unique case (byte_q)
          2'd0: ft_data = seq_q;
          2'd1: ft_data = nak_q ? kestrel_board_pkg::OpNak : (op_q | kestrel_board_pkg::OpAnswer);
          default: ft_data = {replay_q, status_q};
        endcase
        ft_last = byte_q == 2'd2 && (nak_q || status_q != kestrel_board_pkg::StatusOk
                                     || (op_q != kestrel_board_pkg::OpReadReg
                                         && op_q != kestrel_board_pkg::OpReadMem));
      end
      BrAnsReg: begin
        ft_data = rdata_q[8*byte_q +: 8];
        ft_last = byte_q == 2'd3;
      end
      BrAnsMem: begin
        ft_data = word_q[8*byte_q +: 8];
        ft_last = byte_q == 2'd3 && idx_q + 1'b1 == count_q;
      end
      default: ;
    endcase
  end

  // ---------------------------------------------------------------------------
  // The request sequencer.
  // ---------------------------------------------------------------------------
  always_comb begin
    state_d = state_q;
    in_frame_d = in_frame_q;
    seq_d = seq_q;
    op_d = op_q;
    addr_d = addr_q;
    count_d = count_q;
    word_d = word_q;
    value_d = value_q;
    status_d = status_q;
    replay_d = replay_q;
    nak_d = nak_q;
    last_valid_d = last_valid_q;
    last_seq_d = last_seq_q;
    last_op_d = last_op_q;
    idx_d = idx_q;
    byte_d = byte_q;
    rdata_d = rdata_q;
    buf_we = 1'b0;
    buf_waddr = '0;
    buf_wdata = word_q;
    unique case (state_q)
      BrRecv: begin
        if (fr_valid && (in_frame_q || fr_index == '0)) begin
          in_frame_d = 1'b1;
          unique case (fr_index)
            16'd0: seq_d = fr_data;
            16'd1: op_d = fr_data;
            16'd2: addr_d[7:0] = fr_data;
            16'd3: addr_d[15:8] = fr_data;
            16'd4: addr_d[23:16] = fr_data;
            16'd5: addr_d[31:24] = fr_data;
            16'd6: count_d[7:0] = fr_data;
            16'd7: count_d[15:8] = fr_data;
            default: begin
              // payload byte (index - 8) of word (index - 8) / 4
              word_d[8*fr_index[1:0] +: 8] = fr_data;
              if (fr_index[1:0] == 2'd3) begin
                buf_wdata = word_d;
                buf_waddr = BufW'((fr_index - 16'd8) >> 2);
                buf_we = ((fr_index - 16'd8) >> 2) < 16'(MaxWords);
                if (fr_index == 16'd11) value_d = word_d;
              end
            end
          endcase
        end
        if (fr_end && in_frame_q) begin
          in_frame_d = 1'b0;
          idx_d = '0;
          byte_d = '0;
          state_d = BrAnsHead;
          if (!fr_ok || fr_len < 16'(kestrel_board_pkg::HeaderBytes + kestrel_board_pkg::CrcBytes)) begin
            nak_d = 1'b1;
            replay_d = 1'b0;
            status_d = kestrel_board_pkg::StatusCrcError;
          end else begin
            nak_d = 1'b0;
            status_d = check_status;
            replay_d = duplicate && op_q != kestrel_board_pkg::OpSync;
            last_valid_d = op_q != kestrel_board_pkg::OpSync;
            last_seq_d = seq_q;
            last_op_d = op_q;
            if (check_status == kestrel_board_pkg::StatusOk) begin
              if (op_q == kestrel_board_pkg::OpReadReg) begin
                state_d = BrRegReq;
              end else if (is_write && !duplicate) begin
                state_d = (op_q == kestrel_board_pkg::OpWriteReg) ? BrRegReq : BrMemWrRead;
              end
            end
          end
        end
      end
      BrRegReq: begin
        if (reg_req_ready_i) state_d = (op_q == kestrel_board_pkg::OpWriteReg) ? BrAnsHead : BrRegRsp;
      end
      BrRegRsp: begin
        if (reg_rsp_valid_i) begin
          rdata_d = reg_rsp_rdata_i;
          state_d = BrAnsHead;
        end
      end
      BrMemWrRead: state_d = BrMemWrReq;
      BrMemWrReq: begin
        if (mem_req_ready_i) state_d = BrMemWrRsp;
      end
      BrMemWrRsp: begin
        if (mem_rsp_valid_i) begin
          idx_d = idx_q + 1'b1;
          state_d = (idx_q + 1'b1 == count_q) ? BrAnsHead : BrMemWrRead;
          if (idx_q + 1'b1 == count_q) idx_d = '0;
        end
      end
      BrAnsHead: begin
        if (ft_ready) begin
          byte_d = byte_q + 1'b1;
          if (byte_q == 2'd2) begin
            byte_d = '0;
            if (ft_last) state_d = BrRecv;
            else state_d = (op_q == kestrel_board_pkg::OpReadReg) ? BrAnsReg : BrAnsMemReq;
          end
        end
      end
      BrAnsReg: begin
        if (ft_ready) begin
          byte_d = byte_q + 1'b1;
          if (ft_last) state_d = BrRecv;
        end
      end
      BrAnsMemReq: begin
        if (mem_req_ready_i) state_d = BrAnsMemRsp;
      end
      BrAnsMemRsp: begin
        if (mem_rsp_valid_i) begin
          word_d = mem_rsp_rdata_i;
          state_d = BrAnsMem;
        end
      end
      BrAnsMem: begin
        if (ft_ready) begin
          byte_d = byte_q + 1'b1;
          if (byte_q == 2'd3) begin
            idx_d = idx_q + 1'b1;
            state_d = ft_last ? BrRecv : BrAnsMemReq;
          end
        end
      end
      default: state_d = BrRecv;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= BrRecv;
      in_frame_q <= 1'b0;
      seq_q <= '0;
      op_q <= '0;
      addr_q <= '0;
      count_q <= '0;
      word_q <= '0;
      value_q <= '0;
      status_q <= '0;
      replay_q <= 1'b0;
      nak_q <= 1'b0;
      last_valid_q <= 1'b0;
      last_seq_q <= '0;
      last_op_q <= '0;
      idx_q <= '0;
      byte_q <= '0;
      rdata_q <= '0;
    end else begin
      state_q <= state_d;
      in_frame_q <= in_frame_d;
      seq_q <= seq_d;
      op_q <= op_d;
      addr_q <= addr_d;
      count_q <= count_d;
      word_q <= word_d;
      value_q <= value_d;
      status_q <= status_d;
      replay_q <= replay_d;
      nak_q <= nak_d;
      last_valid_q <= last_valid_d;
      last_seq_q <= last_seq_d;
      last_op_q <= last_op_d;
      idx_q <= idx_d;
      byte_q <= byte_d;
      rdata_q <= rdata_d;
    end
  end

  `KESTREL_ASSERT_HANDSHAKE(reg_req, reg_req_valid_o, reg_req_ready_i, reg_req_o)
  `KESTREL_ASSERT_HANDSHAKE(mem_req, mem_req_valid_o, mem_req_ready_i, mem_req_o)
  `KESTREL_ASSERT_KNOWN(reg_rsp_valid_known, reg_rsp_valid_i)
  `KESTREL_ASSERT_KNOWN(mem_rsp_valid_known, mem_rsp_valid_i)
endmodule
