// kestrel_tex_address: the addressing of one texture fetch (one lane):
// from the coordinates and the descriptor to the taps of each axis, the
// per-tap weights of linear filtering and the layer (texture_math.hpp
// sample() up to the texel reads; CUDA C Programming Guide v8.0, 3.2.11.1
// and appendix F).  1D, 2D and 3D textures, layered or not, normalized or
// unnormalized coordinates, wrap/clamp/mirror/border, point or linear.
// Cubemaps are absent (docs/isa.md section 12).
//
// Latency 1 cycle, throughput one fetch per cycle: the arithmetic is
// combinational (three kestrel_tex_axis) into one output register, with a
// valid/ready handshake on both sides (req_ready_o = !rsp_valid_o ||
// rsp_ready_i).
`include "kestrel_assert.svh"

module kestrel_tex_address (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  // request side
  input  logic                           req_valid_i,
  output logic                           req_ready_o,
  input  kestrel_tex_pkg::tex_addr_req_t req_i,
  // response side
  output logic                           rsp_valid_o,
  input  logic                           rsp_ready_i,
  output kestrel_tex_pkg::tex_addr_rsp_t rsp_o
);

  localparam logic [kestrel_tex_pkg::TexWeightBits-1:0] WeightOne = 9'd256;  // kWeightOne
  `KESTREL_STATIC_ASSERT(weight_bits_9, kestrel_tex_pkg::TexWeightBits == 9)

  // --- per axis ----------------------------------------------------------------
  // A 1D texture is filtered as a 2D one of height 1 sampled at y = 0; a 1D
  // layered one along x alone; 1D and 2D have no z axis.
  logic [31:0]                                   coord [3];
  logic [kestrel_tex_pkg::TexExtentBits-1:0]     extent [3];
  logic [2:0]                    used;
  logic [kestrel_tex_pkg::TexAxisTapsBits-1:0]   taps [3], taps_used [3];  // tex_axis_taps_t each
  logic [kestrel_tex_pkg::TexWeightBits-1:0]     axis_weight [3];

  always_comb begin
    for (int a = 0; a < 3; a++) begin
      coord[a] = req_i.coord[32*a +: 32];
      extent[a] = req_i.desc.extent[kestrel_tex_pkg::TexExtentBits*a +: kestrel_tex_pkg::TexExtentBits];
    end
    used = 3'b011;
    if (req_i.desc.dim == kestrel_tex_pkg::TexDim1D) begin
      coord[1] = 32'd0;
      extent[1] = kestrel_tex_pkg::TexExtentBits'(1);
      if (req_i.desc.layered) used = 3'b001;
    end else if (req_i.desc.dim == kestrel_tex_pkg::TexDim3D) begin
      used = 3'b111;
    end
  end

  for (genvar a = 0; a < 3; a++) begin : gen_axis
    kestrel_tex_axis u_axis (
      .coord_i     (coord[a]),
      .normalized_i(req_i.desc.normalized),
      .linear_i    (req_i.desc.linear),
      .mode_i      (req_i.desc.mode[2*a +: 2]),
      .extent_i    (extent[a]),
      .taps_o      (taps[a])
    );
  end

  always_comb begin
    for (int a = 0; a < 3; a++) taps_used[a] = used[a] ? taps[a] : '0;
    // tex_axis_taps_t ends with the weight (its low bits).
    for (int a = 0; a < 3; a++) axis_weight[a] = taps_used[a][kestrel_tex_pkg::TexWeightBits-1:0];
  end

  // --- per-tap weights (texture_math.hpp slice_weights) ------------------------
  // Each z slice of weight wz is split along x (the upper column takes
  // ax x wz / 256 rounded half up), each column along y (the upper row takes
  // column x ay / 256, rounded half down in the lower column and half up in
  // the upper one).
  logic [kestrel_tex_pkg::TexTaps*kestrel_tex_pkg::TexWeightBits-1:0] tap_weight;  // tap 0 lowest
  logic [kestrel_tex_pkg::TexWeightBits-1:0]         slice [2];
  logic [kestrel_tex_pkg::TexWeightBits-1:0]              ax, ay, upper_column;
  logic [kestrel_tex_pkg::TexWeightBits-1:0]         column [2], upper_row [2];

  always_comb begin
    ax = axis_weight[0];
    ay = axis_weight[1];
    if (used[2]) begin
      slice[0] = WeightOne - axis_weight[2];
      slice[1] = axis_weight[2];
    end else begin
      slice[0] = WeightOne;
      slice[1] = '0;
    end
    tap_weight = '0;
    upper_column = '0;
    column[0] = '0;
    column[1] = '0;
    upper_row[0] = '0;
    upper_row[1] = '0;
    for (int k = 0; k < 2; k++) begin
      upper_column = kestrel_tex_pkg::TexWeightBits'((18'(ax) * 18'(slice[k]) + 18'd128) >> 8);
      column[0] = slice[k] - upper_column;
      column[1] = upper_column;
      upper_row[0] = kestrel_tex_pkg::TexWeightBits'((18'(column[0]) * 18'(ay) + 18'd127) >> 8);
      upper_row[1] = kestrel_tex_pkg::TexWeightBits'((18'(column[1]) * 18'(ay) + 18'd128) >> 8);
      for (int i = 0; i < 2; i++) begin
        tap_weight[9*(k*4+i) +: 9] = column[i] - upper_row[i];
        tap_weight[9*(k*4+2+i) +: 9] = upper_row[i];
      end
    end
    if (!req_i.desc.linear) begin
      tap_weight = '0;
      tap_weight[8:0] = WeightOne;
    end
  end

  // --- layer ---------------------------------------------------------------------
  // The layer index is unsigned: a negative one reads the last layer.
  logic [kestrel_tex_pkg::TexLayerBits-1:0] layer;
  always_comb begin
    layer = '0;
    if (req_i.desc.layered) begin
      layer = (req_i.layer < 32'(req_i.desc.layers) - 32'd1) ? req_i.layer[kestrel_tex_pkg::TexLayerBits-1:0]
                                                             : req_i.desc.layers - kestrel_tex_pkg::TexLayerBits'(1);
    end
  end

  // --- output register ---------------------------------------------------------
  kestrel_tex_pkg::tex_addr_rsp_t rsp_d, rsp_q;
  logic          valid_q;

  always_comb begin
    rsp_d.axis = {taps_used[2], taps_used[1], taps_used[0]};
    rsp_d.tap_weight = tap_weight;
    rsp_d.layer = layer;
  end

  assign req_ready_o = !valid_q || rsp_ready_i;
  assign rsp_valid_o = valid_q;
  assign rsp_o = rsp_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
    end else if (req_ready_o) begin
      valid_q <= req_valid_i;
    end
  end

  // The payload register needs no reset: it is only read while valid_q is set.
  always_ff @(posedge clk_i) begin
    if (req_valid_i && req_ready_o) rsp_q <= rsp_d;
  end

  `KESTREL_ASSERT_HANDSHAKE(rsp, rsp_valid_o, rsp_ready_i, rsp_o)
  `KESTREL_ASSERT_KNOWN(req_valid_known, req_valid_i)
  // A descriptor has extents of at least 1 (the runtime validates it).
  logic extent_zero;
  assign extent_zero = req_i.desc.extent[0 +: kestrel_tex_pkg::TexExtentBits] == '0 ||
                       req_i.desc.extent[kestrel_tex_pkg::TexExtentBits +: kestrel_tex_pkg::TexExtentBits] == '0 ||
                       req_i.desc.extent[2*kestrel_tex_pkg::TexExtentBits +: kestrel_tex_pkg::TexExtentBits] == '0;
  `KESTREL_ASSERT_NEVER(req_extent_zero, req_valid_i && extent_zero)
endmodule
