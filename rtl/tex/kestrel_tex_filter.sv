// kestrel_tex_filter: the texel side of one texture fetch (one lane): from
// up to eight raw texels, their weights and border flags (kestrel_tex_address)
// to the four components the fetch returns (texture_math.hpp point() and
// linear(); CUDA C Programming Guide v8.0, 3.2.11.1, appendix F.1 and F.2).
//
// Channel-serial: one kestrel_tex_channel computes a component per cycle, so
// the unit holds one datapath instead of four.  Latency 5 cycles: the
// request is registered at the clock edge that takes it, the next four edges
// compute channels 0..3, and the response is valid after the fifth (counted
// as for kestrel_tex_address, whose latency is 1) and held until taken; a
// new request is taken in the cycle the response is, so one fetch every 5
// cycles.  Valid/ready on both sides.
`include "kestrel_assert.svh"

module kestrel_tex_filter (
  input  logic                             clk_i,
  input  logic                             rst_ni,
  // request side
  input  logic                             req_valid_i,
  output logic                             req_ready_o,
  input  kestrel_tex_pkg::tex_filter_req_t req_i,
  // response side
  output logic                             rsp_valid_o,
  input  logic                             rsp_ready_i,
  output kestrel_tex_pkg::tex_filter_rsp_t rsp_o
);
  typedef enum logic [1:0] {
    StIdle,
    StBusy,
    StDone
  } state_e;

  state_e                           state_q, state_d;
  logic [1:0]                       channel_q, channel_d;
  kestrel_tex_pkg::tex_filter_req_t req_q;
  logic [127:0]                     value_q;  // component 0 lowest
  logic                             take;

  assign req_ready_o = state_q == StIdle || (state_q == StDone && rsp_ready_i);
  assign take = req_valid_i && req_ready_o;
  assign rsp_valid_o = state_q == StDone;
  assign rsp_o.value = value_q;

  always_comb begin
    state_d = state_q;
    channel_d = channel_q;
    unique case (state_q)
      StIdle: begin
        if (take) begin
          state_d = StBusy;
          channel_d = '0;
        end
      end
      StBusy: begin
        channel_d = channel_q + 2'd1;
        if (channel_q == 2'd3) state_d = StDone;
      end
      StDone: begin
        if (take) begin
          state_d = StBusy;
          channel_d = '0;
        end else if (rsp_ready_i) begin
          state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      channel_q <= '0;
    end else begin
      state_q <= state_d;
      channel_q <= channel_d;
    end
  end

  // --- the channel in work ---------------------------------------------------
  logic [kestrel_tex_pkg::TexTaps*32-1:0]     raw;  // tap 0 lowest
  logic [6:0]                                 raw_shift;
  logic [31:0]                                value;

  always_comb begin
    unique case (req_q.fmt.bits)
      kestrel_tex_pkg::TexBits8:  raw_shift = {2'b00, channel_q, 3'b000};
      kestrel_tex_pkg::TexBits16: raw_shift = {1'b0, channel_q, 4'b0000};
      default:                    raw_shift = {channel_q, 5'b00000};
    endcase
    for (int n = 0; n < kestrel_tex_pkg::TexTaps; n++) begin
      raw[32*n +: 32] = 32'(req_q.texel[kestrel_tex_pkg::TexTexelBits*n +: kestrel_tex_pkg::TexTexelBits] >> raw_shift);
    end
  end

  kestrel_tex_channel u_channel (
    .fmt_i         (req_q.fmt),
    .channel_i     (channel_q),
    .border_color_i(req_q.border_color[32*channel_q +: 32]),
    .weight_i      (req_q.weight),
    .border_i      (req_q.border),
    .raw_i         (raw),
    .value_o       (value)
  );

  // Datapath registers need no reset: the request is read only while busy,
  // the values only while the response is valid.
  always_ff @(posedge clk_i) begin
    if (take) req_q <= req_i;
    if (state_q == StBusy) value_q[32*channel_q +: 32] <= value;
  end

  `KESTREL_ASSERT_KNOWN(req_valid_known, req_valid_i)
  `KESTREL_ASSERT_HANDSHAKE(rsp, rsp_valid_o, rsp_ready_i, rsp_o)
endmodule
