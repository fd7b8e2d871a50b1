// kestrel_board_pkg: constants and payload types of the board top
// (rtl/board/): the host link's frame format (docs/host-protocol.md) — flag
// and escape bytes, request ops, answer statuses, the CRC — the word
// request the host bridge sends to the board memory, and the board memory's
// kinds.
// Modules qualify these names (kestrel_board_pkg::Flag); none imports the
// package (Yosys 0.23 subset, as kestrel_pkg).
/* verilator lint_off UNUSEDPARAM */
package kestrel_board_pkg;

  // Framing (docs/host-protocol.md section 1).
  localparam logic [7:0] Flag = 8'h7E;    // starts and ends every frame
  localparam logic [7:0] Esc = 8'h7D;     // the next byte is XORed with EscXor
  localparam logic [7:0] EscXor = 8'h20;

  // Request ops (section 3).
  localparam logic [7:0] OpSync = 8'd0;
  localparam logic [7:0] OpReadReg = 8'd1;
  localparam logic [7:0] OpWriteReg = 8'd2;
  localparam logic [7:0] OpWriteMem = 8'd3;
  localparam logic [7:0] OpReadMem = 8'd4;
  localparam logic [7:0] OpAnswer = 8'h80;  // ORed into an answer's op
  localparam logic [7:0] OpNak = 8'hFF;     // the answer to a frame that failed its check

  // Answer statuses (bits 6:0 of the status byte; bit 7 REPLAYED).
  localparam logic [6:0] StatusOk = 7'd0;
  localparam logic [6:0] StatusCrcError = 7'd1;
  localparam logic [6:0] StatusBadOp = 7'd2;
  localparam logic [6:0] StatusBadLength = 7'd3;
  localparam logic [6:0] StatusBadAddress = 7'd4;

  // Request header bytes (seq, op, addr, count) and CRC bytes.
  localparam int unsigned HeaderBytes = 8;
  localparam int unsigned CrcBytes = 2;

  // CRC-16/CCITT-FALSE: one byte into the register (polynomial 0x1021, MSB
  // first, no reflection).  Run from 0xFFFF over a body and its CRC (MSB
  // first) it ends at 0.
  function automatic logic [15:0] crc16_byte(input logic [15:0] crc, input logic [7:0] data);
    logic [15:0] c;
    c = crc ^ {data, 8'h00};
    for (int i = 0; i < 8; i++) begin
      c = c[15] ? ((c << 1) ^ 16'h1021) : (c << 1);
    end
    crc16_byte = c;
  endfunction

  // A word access of the host bridge to the board memory (device address,
  // word aligned).  Every request gets one response, in order; a read's
  // carries the word.
  typedef struct packed {
    logic write;
    logic [31:0] addr;
    logic [31:0] wdata;
  } bmem_req_t;

  // The board memory (kestrel_board's MemKind): two ports on a block-RAM
  // line memory (kestrel_board_mem: one access per two cycles), or one
  // single-port RAM that the GPU and the bridge share through an arbiter
  // (kestrel_board_mem_1p: the iCE40 UP5K's SPRAM, one line per ten cycles).
  localparam int unsigned MemTwoPort = 0;
  localparam int unsigned MemSinglePort = 1;

endpackage
/* verilator lint_on UNUSEDPARAM */
