// kestrel_mem_atomic: the memory-side atomic unit, between the memory
// crossbar (after the page check) and the external DRAM port.  Ordinary
// requests and their responses pass straight through.  A request with `amo`
// set (kestrel_pkg::mem_amo_t: one naturally aligned 4- or 8-byte word,
// marked by `be`, operand in `wdata`, a CAS's compare value in `amo.cmp`) is
// performed here as a read-modify-write of its line: the unit waits until
// every earlier request has been answered, reads the line, computes the new
// word (kestrel_amo_alu, or kestrel_amo_fadd for kx.amofadd.s), writes it
// back with the word's byte enables (a CAS whose comparison failed writes
// nothing), and answers the atomic with the line as it was before (the old
// value), with the request's tag.  No other request passes while an atomic is
// in progress, so every atomic of every SM is performed whole, in the order
// the crossbar took them (docs/isa.md section 2.2).
//
// Throughput: pass-through one request and one response per cycle; an atomic
// takes the memory's read and write latencies plus three cycles (a failed
// CAS: the read latency plus two).  Handshakes are valid/ready on all four
// sides; the external payload of a pass-through
// request is the input's (stable while it waits, by the input's rule).
module kestrel_mem_atomic #(
  parameter int unsigned Outstanding = 16
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // crossbar side
  input  logic                   in_req_valid_i,
  output logic                   in_req_ready_o,
  input  kestrel_pkg::mem_req_t  in_req_i,
  output logic                   in_rsp_valid_o,
  input  logic                   in_rsp_ready_i,
  output kestrel_pkg::mem_rsp_t  in_rsp_o,
  // external DRAM port
  output logic                   ext_req_valid_o,
  input  logic                   ext_req_ready_i,
  output kestrel_pkg::mem_req_t  ext_req_o,
  input  logic                   ext_rsp_valid_i,
  output logic                   ext_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t  ext_rsp_i
);
  localparam int unsigned LineBytes = kestrel_pkg::LineBytes;
  localparam int unsigned OffW = kestrel_pkg::LineOffW;
  localparam int unsigned CountW = $clog2(Outstanding + 1) + 1;

  typedef enum logic [2:0] {Pass, Drain, Read, ReadWait, Write, WriteWait, Answer} state_e;
  state_e state_q, state_d;

  kestrel_pkg::mem_req_t amo_q;
  logic [kestrel_pkg::LineBits-1:0] line_q;
  kestrel_pkg::fault_kind_e fault_q;
  logic [CountW-1:0] pending_q, pending_d;  // pass-through requests not yet answered

  // The atomic's word: the lowest enabled byte gives its offset, the number
  // of enabled bytes its size.
  logic [OffW-1:0] off;
  logic dword;
  logic [63:0] old_v, operand, alu_v, new_v, old_dw, op_dw;
  logic [31:0] fadd_v;
  logic write_v;
  always_comb begin
    off = '0;
    for (int b = LineBytes - 1; b >= 0; b--) begin
      if (amo_q.be[b]) off = OffW'(b);
    end
    dword = !off[2] && amo_q.be[{off[OffW-1:3], 3'b100}];
    old_dw = line_q[32'(off[OffW-1:3]) * 64 +: 64];
    op_dw = amo_q.wdata[32'(off[OffW-1:3]) * 64 +: 64];
    old_v = off[2] ? {32'd0, old_dw[63:32]} : old_dw;
    operand = off[2] ? {32'd0, op_dw[63:32]} : op_dw;
  end

  // Aligned words: the two low offset bits are always 0.
  logic [1:0] unused_off;
  assign unused_off = off[1:0];

  kestrel_amo_alu u_alu (
    .op_i     (amo_q.amo.op),
    .dword_i  (dword),
    .old_i    (old_v),
    .operand_i(operand),
    .compare_i(amo_q.amo.cmp),
    .new_o    (alu_v),
    .write_o  (write_v)
  );
  // kx.amofadd.s: the unit's one single-precision adder.
  kestrel_amo_fadd u_fadd (
    .old_i   (old_v[31:0]),
    .addend_i(operand[31:0]),
    .sum_o   (fadd_v)
  );
  assign new_v = (amo_q.amo.op == kestrel_pkg::AmoFadd) ? {32'd0, fadd_v} : alu_v;

  always_comb begin
    state_d = state_q;
    pending_d = pending_q;
    in_req_ready_o = 1'b0;
    ext_req_valid_o = 1'b0;
    ext_req_o = in_req_i;
    ext_rsp_ready_o = 1'b0;
    in_rsp_valid_o = 1'b0;
    in_rsp_o = ext_rsp_i;
    unique case (state_q)
      Pass, Drain: begin
        // Responses of ordinary requests go straight back.
        in_rsp_valid_o = ext_rsp_valid_i;
        ext_rsp_ready_o = in_rsp_ready_i;
        if (ext_rsp_valid_i && in_rsp_ready_i) pending_d = pending_d - 1'b1;
        if (state_q == Pass) begin
          if (in_req_i.amo.valid) begin
            in_req_ready_o = 1'b1;  // taken into amo_q
            if (in_req_valid_i) state_d = Drain;
          end else begin
            ext_req_valid_o = in_req_valid_i;
            in_req_ready_o = ext_req_ready_i;
            if (in_req_valid_i && ext_req_ready_i) pending_d = pending_d + 1'b1;
          end
        end else if (pending_q == '0) begin
          state_d = Read;
        end
      end
      Read: begin
        ext_req_valid_o = 1'b1;
        ext_req_o = amo_q;
        ext_req_o.amo = '0;
        ext_req_o.kind = (amo_q.kind == kestrel_pkg::MemLocal) ? kestrel_pkg::MemLocal : kestrel_pkg::MemRead;
        ext_req_o.write = 1'b0;
        ext_req_o.be = '0;
        if (ext_req_ready_i) state_d = ReadWait;
      end
      ReadWait: begin
        ext_rsp_ready_o = 1'b1;
        if (ext_rsp_valid_i) state_d = (ext_rsp_i.fault == kestrel_pkg::FaultNone) ? Write : Answer;
      end
      Write: begin
        ext_req_valid_o = 1'b1;
        ext_req_o = amo_q;
        ext_req_o.amo = '0;
        ext_req_o.kind = (amo_q.kind == kestrel_pkg::MemLocal) ? kestrel_pkg::MemLocal : kestrel_pkg::MemWrite;
        ext_req_o.write = 1'b1;
        ext_req_o.wdata = '0;
        ext_req_o.wdata[32'(off[OffW-1:3]) * 64 +: 64] = off[2] ? {new_v[31:0], 32'd0} : new_v;
        if (ext_req_ready_i) state_d = WriteWait;
        // A CAS whose comparison failed writes nothing.
        if (!write_v) begin
          ext_req_valid_o = 1'b0;
          state_d = Answer;
        end
      end
      WriteWait: begin
        ext_rsp_ready_o = 1'b1;
        if (ext_rsp_valid_i) state_d = Answer;
      end
      default: begin  // Answer
        in_rsp_valid_o = 1'b1;
        in_rsp_o.rdata = line_q;
        in_rsp_o.fault = fault_q;
        in_rsp_o.tag = amo_q.tag;
        if (in_rsp_ready_i) state_d = Pass;
      end
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= Pass;
      pending_q <= '0;
      fault_q <= kestrel_pkg::FaultNone;
    end else begin
      state_q <= state_d;
      pending_q <= pending_d;
      if (state_q == ReadWait && ext_rsp_valid_i) fault_q <= ext_rsp_i.fault;
    end
  end

  // The atomic and its line: datapath registers, loaded when used, no reset.
  always_ff @(posedge clk_i) begin
    if (state_q == Pass && in_req_valid_i && in_req_i.amo.valid) amo_q <= in_req_i;
    if (state_q == ReadWait && ext_rsp_valid_i) line_q <= ext_rsp_i.rdata;
  end
endmodule
