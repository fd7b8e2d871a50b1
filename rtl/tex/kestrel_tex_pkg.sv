// kestrel_tex_pkg: the types of the texture unit's datapath (issue 16): the
// descriptor fields the arithmetic needs, the address unit's request and
// response, and the filter unit's request and response.  The arithmetic is
// that of include/kestrel/texture_math.hpp (CUDA C Programming Guide v8.0,
// 3.2.11.1 and appendix F), which the benches in tests/rtl/tex/ compare
// against bit for bit.  Cubemaps are not covered yet (docs/isa.md section 12).
package kestrel_tex_pkg;
  // Extents 1 .. 2^17 (an H100's largest 1D/2D texture width is 131072).
  localparam int unsigned TexExtentBits = 18;
  localparam int unsigned TexIndexBits = 17;
  // Linear-filtering weights in units of 1/256 (guide F.2: 9-bit fixed point
  // with 8 fractional bits, so 0..256).
  localparam int unsigned TexWeightBits = 9;
  localparam int unsigned TexLayerBits = 16;
  // Up to eight taps (3D linear); tap n is texel (n & 1, (n >> 1) & 1, n >> 2)
  // of the axes' (i0, i1) pairs.
  localparam int unsigned TexTaps = 8;
  localparam int unsigned TexTexelBits = 128;  // 4 channels x 32 bits

  // TexDimIndexed is tex1Dfetch's: linear memory read by an integer index
  // (the lane's layer field), no coordinates; the lane still passes the
  // address unit as 1D, whose taps kestrel_tex_unit then ignores.
  typedef enum logic [1:0] {
    TexDim1D      = 2'd0,
    TexDim2D      = 2'd1,
    TexDim3D      = 2'd2,
    TexDimIndexed = 2'd3
  } tex_dim_e;

  typedef enum logic [1:0] {
    TexAddrWrap   = 2'd0,
    TexAddrClamp  = 2'd1,
    TexAddrMirror = 2'd2,
    TexAddrBorder = 2'd3
  } tex_addr_mode_e;

  typedef enum logic [1:0] {
    TexKindSigned   = 2'd0,
    TexKindUnsigned = 2'd1,
    TexKindFloat    = 2'd2
  } tex_kind_e;

  typedef enum logic [1:0] {
    TexBits8  = 2'd0,
    TexBits16 = 2'd1,
    TexBits32 = 2'd2
  } tex_bits_e;

  typedef enum logic [1:0] {
    TexChannels1 = 2'd0,
    TexChannels2 = 2'd1,
    TexChannels4 = 2'd2
  } tex_channels_e;

  // --- address unit ---------------------------------------------------------

  // The descriptor fields addressing needs (texture_math.hpp Descriptor).
  typedef struct packed {
    tex_dim_e                           dim;
    logic                               layered;     // 1D or 2D layered
    logic                               normalized;  // normalized coordinates
    logic                               linear;      // filter mode linear (else point)
    logic [5:0]                         mode;        // tex_addr_mode_e per axis, x in [1:0]
    logic [3*TexExtentBits-1:0]         extent;      // width, height, depth (each >= 1), x lowest
    logic [TexLayerBits-1:0]            layers;      // layer count of a layered texture (>= 1)
  } tex_addr_desc_t;

  typedef struct packed {
    tex_addr_desc_t  desc;
    logic [95:0]      coord;  // x, y, z as binary32 bits, x lowest
    logic [31:0]      layer;  // the layer index as the kernel gives it (unsigned)
  } tex_addr_req_t;

  // One axis: texel index0 with weight (256 - weight) and index1 with
  // `weight` (texture_math.hpp AxisTaps + resolve()).  Point sampling uses
  // index0 (the texel floor(u)) and gives weight 0.  An unused axis (z of
  // 1D/2D, y of 1D layered) is all zeros.
  typedef struct packed {
    logic [TexIndexBits-1:0]  index1;
    logic                     border1;  // index1 falls on the border colour
    logic [TexIndexBits-1:0]  index0;
    logic                     border0;
    logic [TexWeightBits-1:0] weight;
  } tex_axis_taps_t;

  // tex_axis_taps_t's width (Yosys 0.23 takes no arrays of structs inside
  // a struct, nor $bits of a package type here).  Arrays are flat vectors,
  // element 0 lowest: Yosys 0.23 parses no multi-dimensional packed arrays.
  localparam int unsigned TexAxisTapsBits = 2 * (TexIndexBits + 1) + TexWeightBits;

  typedef struct packed {
    logic [3*TexAxisTapsBits-1:0]          axis;  // tex_axis_taps_t per axis, x lowest
    // The per-tap weights of linear filtering (slice_weights), summing to
    // 256; point sampling gives tap 0 the whole weight.
    logic [TexTaps*TexWeightBits-1:0]      tap_weight;
    logic [TexLayerBits-1:0]               layer;  // the layer read (0 unless layered)
  } tex_addr_rsp_t;

  // --- filter unit ----------------------------------------------------------

  typedef struct packed {
    tex_kind_e     kind;
    tex_bits_e     bits;              // bits per channel (16 or 32 for floats)
    tex_channels_e channels;
    logic          normalized_float;  // read mode cudaReadModeNormalizedFloat
    logic          linear;            // filter mode linear (else point)
  } tex_format_t;

  typedef struct packed {
    tex_format_t                           fmt;
    logic [127:0]                          border_color;  // binary32 bits, component 0 lowest
    logic [TexTaps*TexWeightBits-1:0]      weight;        // per tap (linear), tap 0 lowest; point reads tap 0
    logic [TexTaps-1:0]                    border;        // the tap is on the border colour
    logic [TexTaps*TexTexelBits-1:0]       texel;         // raw texel bytes, little-endian, channel 0 lowest
  } tex_filter_req_t;

  // The four components as the fetch returns them (texture_math.hpp Texels).
  typedef struct packed {
    logic [127:0] value;  // component 0 (x) lowest
  } tex_filter_rsp_t;

  // --- the texture unit (kestrel_tex_unit): one warp's fetch ---------------

  // The fetch form the instruction names (tex1D, tex2D, tex3D,
  // tex1DLayered, tex2DLayered; tex1Dfetch as TexDimIndexed).  Filtering,
  // coordinate normalization, address modes and the format are the
  // descriptor's (cudaTextureDesc);
  // the form must match the descriptor's shape (TexStatusMismatch).
  typedef struct packed {
    tex_dim_e dim;
    logic     layered;
  } tex_form_t;

  // A warp's fetch request, less its per-lane parts: the lane mask and the
  // lanes' tex_coord_t travel beside it as flat vectors of Lanes elements
  // (a package struct cannot take the unit's Lanes parameter).
  typedef struct packed {
    logic        merge;      // keep the values of lanes outside the mask (a later pass of one
                             // instruction whose lanes name other objects); else they read 0
    logic [7:0]  warp;       // the SM's warp slot, echoed in the response
    logic [31:0] desc_addr;  // the texture object (its 64-byte descriptor line)
    tex_form_t   form;
  } tex_fetch_req_t;

  // One lane's coordinates: x, y, z as binary32 bits (x lowest; unused ones
  // ignored) and the layer index of a layered fetch (unsigned: a negative
  // one reads the last layer) or tex1Dfetch's texel index (unsigned: a
  // negative one is outside the memory).
  typedef struct packed {
    logic [31:0] layer;
    logic [31:0] z;
    logic [31:0] y;
    logic [31:0] x;
  } tex_coord_t;
  // The width of tex_coord_t for the units' flat per-lane vectors (Yosys
  // 0.23 takes no $bits of a package type there); units that include the
  // package without using it would see it unused.
  /* verilator lint_off UNUSEDPARAM */
  localparam int unsigned TexCoordBits = 128;
  /* verilator lint_on UNUSEDPARAM */

  typedef enum logic [1:0] {
    TexStatusOk          = 2'd0,  // every active lane's value is valid
    TexStatusUnsupported = 2'd1,  // the descriptor is one the unit lacks (cubemap, mipmapped, a
                                  // surface, sRGB) or out of its limits: all values 0
    TexStatusMismatch    = 2'd2,  // the fetch form differs from the descriptor's shape: all values 0
    TexStatusFault       = 2'd3   // a descriptor or texel line read faulted (fault, fault_addr)
  } tex_status_e;

  // A warp's fetch response, less its per-lane parts (the mask as taken and
  // the lanes' four 32-bit components, tex_filter_rsp_t each, beside it).
  typedef struct packed {
    logic [7:0]  fault_lane;  // the lane the fault or refusal is charged to: the lowest lane of the
                              // mask for the descriptor's, the fetching lane for a texel read's
    logic [7:0]  warp;
    tex_status_e status;
    logic [3:0]  fault;       // kestrel_pkg::fault_kind_e of the first faulting read (FaultNone else)
    logic [31:0] fault_addr;  // the line address that faulted; the handle for a misaligned one and a refusal
  } tex_fetch_rsp_t;
endpackage
