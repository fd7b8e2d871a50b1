// kestrel_tex_desc_decode: a texture descriptor line (docs/isa.md section
// 12, kestrel_pkg::tex_desc_t) to the fields kestrel_tex_unit's datapath
// takes: kestrel_tex_address's descriptor, kestrel_tex_filter's format and
// border colour, log2 of the texel's bytes, and whether the unit can fetch
// it with the instruction's form (tex_status_e: TexStatusOk, Unsupported,
// Mismatch).  Shapes map to dimensions as kestrel_texture.h's read_view
// does; linear memory is tex1Dfetch's (TexDimIndexed: its filter mode,
// coordinate normalization and address modes unused, any nonzero width) and
// goes to the address unit as 1D.  sRGB reads of 8-bit unsigned channels
// as normalized floats are refused (the datapath has no sRGB conversion;
// docs/texture.md, "sRGB"); for every other format the flag changes
// nothing, as on the H100.  Of the
// descriptor, the mipmap fields (a mipmapped texture is refused by its
// mip_levels), the seamless cubemap flag and the padding are not read;
// base_addr, pitch and slice_pitch are the unit's to take.  Combinational.
module kestrel_tex_desc_decode (
  input  kestrel_pkg::tex_desc_t         desc_i,
  input  kestrel_tex_pkg::tex_form_t     form_i,     // the fetch's form
  output kestrel_tex_pkg::tex_addr_desc_t addr_desc_o,
  output kestrel_tex_pkg::tex_format_t   fmt_o,
  output logic [127:0]                   border_o,   // binary32 bits, component 0 lowest
  output logic [2:0]                     texel_shift_o,  // log2 of the texel's bytes
  output kestrel_tex_pkg::tex_status_e   status_o
);
  localparam int unsigned ExtentBits = kestrel_tex_pkg::TexExtentBits;

  logic                               shape_ok, format_ok, extent_ok;
  kestrel_tex_pkg::tex_dim_e          dim;
  logic                               layered;
  logic                               linear_memory;

  always_comb begin
    // Shape to dimension and layering, as kestrel_texture.h's read_view.
    shape_ok = 1'b1;
    dim = kestrel_tex_pkg::TexDim2D;
    layered = 1'b0;
    unique case (desc_i.shape)
      kestrel_pkg::TexShape1d:        dim = kestrel_tex_pkg::TexDim1D;
      kestrel_pkg::TexShape2d:        dim = kestrel_tex_pkg::TexDim2D;
      kestrel_pkg::TexShape3d:        dim = kestrel_tex_pkg::TexDim3D;
      kestrel_pkg::TexShape1dLayered: begin
        dim = kestrel_tex_pkg::TexDim1D;
        layered = 1'b1;
      end
      kestrel_pkg::TexShape2dLayered: begin
        dim = kestrel_tex_pkg::TexDim2D;
        layered = 1'b1;
      end
      kestrel_pkg::TexShapePitch2d:   dim = kestrel_tex_pkg::TexDim2D;
      kestrel_pkg::TexShapeLinear:    dim = kestrel_tex_pkg::TexDimIndexed;
      default:                        shape_ok = 1'b0;  // cubemaps
    endcase
    linear_memory = dim == kestrel_tex_pkg::TexDimIndexed;

    fmt_o.kind = kestrel_tex_pkg::TexKindSigned;
    fmt_o.bits = kestrel_tex_pkg::TexBits8;
    fmt_o.channels = kestrel_tex_pkg::TexChannels1;
    fmt_o.normalized_float = desc_i.read_normalized;
    fmt_o.linear = desc_i.filter == kestrel_pkg::TexFilterLinear && !linear_memory;
    format_ok = 1'b1;
    unique case (desc_i.channel_kind)
      kestrel_pkg::TexChannelSigned:   fmt_o.kind = kestrel_tex_pkg::TexKindSigned;
      kestrel_pkg::TexChannelUnsigned: fmt_o.kind = kestrel_tex_pkg::TexKindUnsigned;
      kestrel_pkg::TexChannelFloat:    fmt_o.kind = kestrel_tex_pkg::TexKindFloat;
      default:                         format_ok = 1'b0;
    endcase
    unique case (desc_i.channel_size)
      2'd0:    fmt_o.bits = kestrel_tex_pkg::TexBits8;
      2'd1:    fmt_o.bits = kestrel_tex_pkg::TexBits16;
      2'd2:    fmt_o.bits = kestrel_tex_pkg::TexBits32;
      default: format_ok = 1'b0;
    endcase
    texel_shift_o = {1'b0, desc_i.channel_size};
    unique case (desc_i.channels)
      3'd1:    fmt_o.channels = kestrel_tex_pkg::TexChannels1;
      3'd2: begin
        fmt_o.channels = kestrel_tex_pkg::TexChannels2;
        texel_shift_o = texel_shift_o + 3'd1;
      end
      3'd4: begin
        fmt_o.channels = kestrel_tex_pkg::TexChannels4;
        texel_shift_o = texel_shift_o + 3'd2;
      end
      default: format_ok = 1'b0;
    endcase
    // What the runtime refuses (docs/texture.md), refused here too rather
    // than filtered into an answer no reference defines: float channels of
    // 8 bits, normalized reads of floats or 32-bit integers, linear
    // filtering of integers read as integers.
    if (desc_i.channel_kind == kestrel_pkg::TexChannelFloat && desc_i.channel_size == 2'd0) format_ok = 1'b0;
    if (desc_i.read_normalized &&
        (desc_i.channel_kind == kestrel_pkg::TexChannelFloat || desc_i.channel_size == 2'd2)) format_ok = 1'b0;
    if (fmt_o.linear && desc_i.channel_kind != kestrel_pkg::TexChannelFloat && !desc_i.read_normalized)
      format_ok = 1'b0;
    // sRGB converts only 8-bit unsigned channels read as normalized floats.
    if (desc_i.srgb && desc_i.channel_kind == kestrel_pkg::TexChannelUnsigned && desc_i.channel_size == 2'd0 &&
        desc_i.read_normalized)
      format_ok = 1'b0;
    // The datapath's extents: 1 .. 2^17 per axis, 1 .. 2^16 - 1 layers; an
    // index reaches any width.
    extent_ok = desc_i.width != '0 && (desc_i.width <= 32'h2_0000 || linear_memory) &&
                desc_i.height != '0 && desc_i.height <= 32'h2_0000 &&
                desc_i.depth != '0 && desc_i.depth <= 32'h2_0000 &&
                desc_i.layers != '0 && desc_i.layers <= 32'hFFFF;

    addr_desc_o.dim = linear_memory ? kestrel_tex_pkg::TexDim1D : dim;
    addr_desc_o.layered = layered;
    addr_desc_o.normalized = desc_i.normalized_coords;
    addr_desc_o.linear = fmt_o.linear;
    addr_desc_o.mode = {desc_i.address_z, desc_i.address_y, desc_i.address_x};
    addr_desc_o.extent = {desc_i.depth[ExtentBits-1:0], desc_i.height[ExtentBits-1:0],
                        desc_i.width[ExtentBits-1:0]};
    addr_desc_o.layers = desc_i.layers[kestrel_tex_pkg::TexLayerBits-1:0];
    border_o = {desc_i.border_a, desc_i.border_b, desc_i.border_g, desc_i.border_r};

    if (!shape_ok || !format_ok || !extent_ok || desc_i.surface || desc_i.mip_levels != '0) begin
      status_o = kestrel_tex_pkg::TexStatusUnsupported;
    end else if (form_i.dim != dim || form_i.layered != layered) begin
      status_o = kestrel_tex_pkg::TexStatusMismatch;
    end else begin
      status_o = kestrel_tex_pkg::TexStatusOk;
    end
  end

  // unit_fetch is the runtime's summary of this decode for the device SDK.
  logic [128+2+1+1+1+96-1:0] unused_desc;
  assign unused_desc = {desc_i.max_lod_clamp, desc_i.min_lod_clamp, desc_i.lod_bias, desc_i.levels_addr,
                        desc_i.pad, desc_i.unit_fetch, desc_i.mip_filter, desc_i.seamless_cubemap,
                        desc_i.base_addr, desc_i.pitch, desc_i.slice_pitch};
endmodule
