// kestrel_tex_unit: the texture unit (issue 16; in the SM behind
// kestrel_sm_tex): one warp's texture fetch from the object's handle and the lanes'
// coordinates to the lanes' four 32-bit components, reading the descriptor
// and the texels through its own line-sized memory port.
//
// Per fetch: the 64-byte descriptor (docs/isa.md section 12, tex_desc_t;
// decoded by kestrel_tex_desc_decode) is
// looked up in a descriptor cache keyed by its address (DescEntries lines)
// and read from memory on a miss; its shape must be one the datapath covers
// (1D, 2D, 3D, 1D/2D layered, pitched 2D, linear memory; else
// TexStatusUnsupported) and match the fetch form (else TexStatusMismatch).
// Then every active lane in turn, lowest first, goes through
// kestrel_tex_address (its taps, weights and layer); each tap that is not
// on the border becomes a byte address (base_addr + slice * slice_pitch +
// y * pitch + x * texel_bytes, the slice being the layer or the z index)
// read through the texel cache (Sets x Ways
// lines; a miss reads the line and fills it, so lanes and taps on one line
// cost one memory read as long as it stays cached); the lane's texels go to
// kestrel_tex_filter, which works on one lane while the next is addressed.
// tex1Dfetch (form TexDimIndexed) reads linear memory: its one tap is the
// lane's index (the layer field, unsigned), point-sampled as 1D, at
// base_addr + index * texel_bytes; a lane whose index is not below the
// width reads nothing and returns 0 in all four components (guide B.8.1.1).
// The CUDA C Programming Guide v8.0's rules (3.2.11.1, appendix F) are those
// of the two datapath units, bit-exact with include/kestrel/texture_math.hpp.
//
// Timing (one fetch at a time; measured in tests/rtl/tex/test_tex_unit.cpp):
// 3 cycles from the request to the first lane on a descriptor hit (a miss
// adds the memory's latency and a cycle); a lane takes 3 + taps cycles
// while its taps hit (the address unit's cycle, one tap lookup a cycle
// with the previous tap's read beside it, the last read, the filter
// handoff; 1 tap point, 2 linear 1D layered, 4 linear 1D/2D, 8 linear 3D),
// a texel miss adding the memory's latency and a cycle; the filter takes 5
// cycles per lane beside that, so point fetches run at one lane per 5
// cycles; the last lane's filtering adds 5.  Border taps read nothing.
// One memory read is outstanding at a time.
//
// Handshakes: request and response valid/ready (AXI rules); the memory port
// is kestrel_pkg::mem_req_t / mem_rsp_t, reads only (kind MemRead, one
// outstanding, answered in order), like the LSU's toward the crossbar.  A
// faulting read ends the fetch with TexStatusFault and the read's fault kind
// and line address (a handle that is not a line's address: FaultMisaligned
// and the handle, nothing read); lanes not yet filtered read 0.
//
// The response's values are 0 for lanes outside the mask, unless the
// request merges (tex_fetch_req_t.merge): then they keep what the previous
// fetch left, so that the SM fetches a warp whose lanes name several objects
// in passes, one object each, and reads all lanes' values after the last.
// A fault or refusal names its lane (tex_fetch_rsp_t.fault_lane).
//
// flush_i invalidates both caches (the SM at a kernel boundary: texture
// reads within a kernel need not see its stores, guide 3.2.11.4); give it
// while idle.
`include "kestrel_assert.svh"

module kestrel_tex_unit #(
  parameter int unsigned Lanes = 32,
  parameter int unsigned Sets = 16,        // texel cache sets (power of two)
  parameter int unsigned Ways = 4,         // texel cache ways (power of two, 2 or more)
  parameter int unsigned DescEntries = 4,  // descriptor cache lines (power of two, 2 or more)
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1
) (
  input  logic                                        clk_i,
  input  logic                                        rst_ni,
  input  logic                                        flush_i,
  // request side: the warp's fetch, its lane mask and the lanes' coordinates
  // (tex_coord_t each, lane 0 lowest)
  input  logic                                        req_valid_i,
  output logic                                        req_ready_o,
  input  kestrel_tex_pkg::tex_fetch_req_t             req_i,
  input  logic [Lanes-1:0]                            req_mask_i,
  input  logic [Lanes*kestrel_tex_pkg::TexCoordBits-1:0] req_coord_i,
  // response side: the lanes' components (tex_filter_rsp_t each, lane 0
  // lowest; 0 for inactive lanes)
  output logic                                        rsp_valid_o,
  input  logic                                        rsp_ready_i,
  output kestrel_tex_pkg::tex_fetch_rsp_t             rsp_o,
  output logic [Lanes-1:0]                            rsp_mask_o,
  output logic [Lanes*128-1:0]                        rsp_value_o,
  // memory side (line reads)
  output logic                                        mem_req_valid_o,
  input  logic                                        mem_req_ready_i,
  output kestrel_pkg::mem_req_t                       mem_req_o,
  input  logic                                        mem_rsp_valid_i,
  output logic                                        mem_rsp_ready_o,
  input  kestrel_pkg::mem_rsp_t                       mem_rsp_i,
  // event pulses for the counters: a texel tap served by the cache, a
  // texel line read from memory, a descriptor line read from memory
  output logic                                        ev_tex_hit_o,
  output logic                                        ev_tex_miss_o,
  output logic                                        ev_desc_miss_o
);
  localparam int unsigned LineW = 32 - kestrel_pkg::LineOffW;
  localparam int unsigned CoordBits = kestrel_tex_pkg::TexCoordBits;
  localparam int unsigned IndexBits = kestrel_tex_pkg::TexIndexBits;
  localparam int unsigned AxisBits = kestrel_tex_pkg::TexAxisTapsBits;
  localparam int unsigned TexelBits = kestrel_tex_pkg::TexTexelBits;
  localparam int unsigned Taps = kestrel_tex_pkg::TexTaps;
  `KESTREL_STATIC_ASSERT(lanes_fit, Lanes >= 1 && Lanes <= 256)
  `KESTREL_STATIC_ASSERT(line_64, kestrel_pkg::LineBytes == 64)

  typedef enum logic [3:0] {
    StIdle,
    StDescLookup,  // descriptor cache lookup
    StDescRead,    // descriptor cache data out: decode
    StDescMiss,    // descriptor line request
    StDescWait,    // descriptor line response: decode and fill
    StLane,        // next active lane into the address unit (or drain)
    StAddr,        // the address unit's response arrives: tap 0's lookup
    StTap,         // tap lookup in the texel cache
    StTapRead,     // texel cache data out, and the next tap's lookup
    StTapMiss,     // texel line request
    StTapWait,     // texel line response: fill
    StFilter,      // the lane's texels into the filter
    StDrain,       // the last lane's filtering
    StRespond
  } state_e;

  state_e state_q, state_d;

  // --- the fetch taken ------------------------------------------------------------
  kestrel_tex_pkg::tex_fetch_req_t    fetch_q;
  logic [Lanes-1:0]                   mask_q;
  logic [Lanes-1:0]                   pending_q, pending_d;  // lanes not yet addressed
  logic [Lanes*CoordBits-1:0]         coord_q;
  logic                               take;

  assign req_ready_o = state_q == StIdle;
  assign take = req_valid_i && req_ready_o;

  // --- the descriptor ---------------------------------------------------------------
  // Decoded from the descriptor cache's data or the memory's response in the
  // cycle it arrives; held for the fetch.
  kestrel_pkg::tex_desc_t             desc_line;
  logic [kestrel_pkg::LineBits-1:0]   desc_cache_rdata;
  logic                               desc_hit;
  logic                               desc_decode;  // the descriptor arrives this cycle

  always_comb begin
    desc_line = (state_q == StDescWait) ? mem_rsp_i.rdata : desc_cache_rdata;
  end

  kestrel_tex_pkg::tex_addr_desc_t    addr_desc, addr_desc_q;
  kestrel_tex_pkg::tex_format_t       fmt, fmt_q;
  logic [127:0]                       border, border_q;
  logic [31:0]                        base_q, pitch_q, slice_pitch_q;
  logic [31:0]                        width_q;  // texels of linear memory (tex1Dfetch)
  logic [2:0]                         texel_shift, texel_shift_q;  // log2 of texel bytes
  kestrel_tex_pkg::tex_status_e       desc_status;

  kestrel_tex_desc_decode u_decode (
    .desc_i       (desc_line),
    .form_i       (fetch_q.form),
    .addr_desc_o  (addr_desc),
    .fmt_o        (fmt),
    .border_o     (border),
    .texel_shift_o(texel_shift),
    .status_o     (desc_status)
  );

  // --- lanes ----------------------------------------------------------------------------
  // The lowest pending lane, and its coordinates (constant-slice mux).
  logic [LaneW-1:0]                   next_lane;
  logic                               any_pending;
  kestrel_tex_pkg::tex_coord_t        next_coord;
  logic [LaneW-1:0]                   lane_q;          // the lane being addressed
  logic [31:0]                        index_q;         // ... its tex1Dfetch index
  logic                               indexed;         // the fetch is tex1Dfetch
  logic [LaneW-1:0]                   filter_lane_q;   // the lane in the filter

  always_comb begin
    next_lane = '0;
    any_pending = 1'b0;
    for (int l = Lanes - 1; l >= 0; l--) begin
      if (pending_q[l]) begin
        next_lane = LaneW'(l);
        any_pending = 1'b1;
      end
    end
    next_coord = '0;
    for (int l = 0; l < Lanes; l++) begin
      if (next_lane == LaneW'(l)) next_coord = coord_q[CoordBits*l +: CoordBits];
    end
  end

  // --- address unit ---------------------------------------------------------------
  kestrel_tex_pkg::tex_addr_req_t     addr_req;
  kestrel_tex_pkg::tex_addr_rsp_t     addr_rsp;
  logic                               addr_req_valid, addr_req_ready;
  logic                               addr_rsp_valid, addr_rsp_ready;

  always_comb begin
    addr_req.desc = addr_desc_q;
    addr_req.coord = {next_coord.z, next_coord.y, next_coord.x};
    addr_req.layer = next_coord.layer;
  end
  assign addr_req_valid = state_q == StLane && any_pending;

  kestrel_tex_address u_address (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .req_valid_i(addr_req_valid),
    .req_ready_o(addr_req_ready),
    .req_i      (addr_req),
    .rsp_valid_o(addr_rsp_valid),
    .rsp_ready_i(addr_rsp_ready),
    .rsp_o      (addr_rsp)
  );

  // --- taps ---------------------------------------------------------------------------
  // The address unit's response is held (rsp_ready low) while the lane's taps
  // are read; tap n is texel (n & 1, (n >> 1) & 1, n >> 2) of the axes' pairs.
  logic [2:0]                         tap_q, tap_d;      // the tap looked up (or missed)
  logic [2:0]                         read_tap_q;        // the tap whose line the cache reads out
  logic                               read_last_q;       // ... and it is the lane's last
  logic                               lookup;            // tap_q is looked up this cycle
  logic [2:0]                         last_tap;
  logic [IndexBits-1:0]               tap_x, tap_y, tap_z;
  logic                               tap_border;
  logic [31:0]                        tap_slice, tap_addr;

  logic [AxisBits-1:0]                ax, ay, az;  // tex_axis_taps_t each

  assign indexed = fetch_q.form.dim == kestrel_tex_pkg::TexDimIndexed;

  always_comb begin
    ax = addr_rsp.axis[0 +: AxisBits];
    ay = addr_rsp.axis[AxisBits +: AxisBits];
    az = addr_rsp.axis[2*AxisBits +: AxisBits];
    // tex_axis_taps_t: {index1, border1, index0, border0, weight}, weight lowest.
    tap_x = tap_q[0] ? ax[AxisBits-1 -: IndexBits] : ax[kestrel_tex_pkg::TexWeightBits+1 +: IndexBits];
    tap_y = tap_q[1] ? ay[AxisBits-1 -: IndexBits] : ay[kestrel_tex_pkg::TexWeightBits+1 +: IndexBits];
    tap_z = tap_q[2] ? az[AxisBits-1 -: IndexBits] : az[kestrel_tex_pkg::TexWeightBits+1 +: IndexBits];
    tap_border = (tap_q[0] ? ax[AxisBits-1-IndexBits] : ax[kestrel_tex_pkg::TexWeightBits]) ||
                 (tap_q[1] ? ay[AxisBits-1-IndexBits] : ay[kestrel_tex_pkg::TexWeightBits]) ||
                 (tap_q[2] ? az[AxisBits-1-IndexBits] : az[kestrel_tex_pkg::TexWeightBits]);
    tap_slice = addr_desc_q.layered ? 32'(addr_rsp.layer) : 32'(tap_z);
    tap_addr = base_q + tap_slice * slice_pitch_q + 32'(tap_y) * pitch_q + (32'(tap_x) << texel_shift_q);
    // tex1Dfetch's one tap: the index, outside the memory from the width up.
    if (indexed) begin
      tap_border = index_q >= width_q;
      tap_addr = base_q + (index_q << texel_shift_q);
    end
    // Taps read: point 1, linear 2 (1D layered), 4 (1D, 2D) or 8 (3D).
    if (!addr_desc_q.linear) last_tap = 3'd0;
    else if (addr_desc_q.dim == kestrel_tex_pkg::TexDim3D) last_tap = 3'd7;
    else if (addr_desc_q.dim == kestrel_tex_pkg::TexDim1D && addr_desc_q.layered) last_tap = 3'd1;
    else last_tap = 3'd3;
  end

  // --- texel cache ------------------------------------------------------------------
  logic                               tex_hit;
  logic [kestrel_pkg::LineBits-1:0]   tex_cache_rdata;
  logic [LineW-1:0]                   tap_line_q;
  logic [5:0]                         tap_off_q;
  logic                               tex_fill, desc_fill;

  kestrel_tex_cache #(
    .Sets(Sets),
    .Ways(Ways)
  ) u_texels (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .flush_i      (flush_i),
    .lookup_i     (lookup && !tap_border),
    .lookup_line_i(tap_addr[31:kestrel_pkg::LineOffW]),
    .hit_o        (tex_hit),
    .rdata_o      (tex_cache_rdata),
    .fill_i       (tex_fill),
    .fill_line_i  (tap_line_q),
    .fill_data_i  (mem_rsp_i.rdata)
  );

  kestrel_tex_cache #(
    .Sets(1),
    .Ways(DescEntries)
  ) u_descs (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .flush_i      (flush_i),
    .lookup_i     (state_q == StDescLookup),
    .lookup_line_i(fetch_q.desc_addr[31:kestrel_pkg::LineOffW]),
    .hit_o        (desc_hit),
    .rdata_o      (desc_cache_rdata),
    .fill_i       (desc_fill),
    .fill_line_i  (fetch_q.desc_addr[31:kestrel_pkg::LineOffW]),
    .fill_data_i  (mem_rsp_i.rdata)
  );

  // The texel at the tap's offset of a line: the 16-byte quarter (a
  // constant-slice mux), shifted down to the texel.
  logic [kestrel_pkg::LineBits-1:0]   texel_line;
  logic [TexelBits-1:0]               texel_quarter, texel;

  always_comb begin
    texel_line = (state_q == StTapWait) ? mem_rsp_i.rdata : tex_cache_rdata;
    unique case (tap_off_q[5:4])
      2'd0:    texel_quarter = texel_line[0 +: TexelBits];
      2'd1:    texel_quarter = texel_line[TexelBits +: TexelBits];
      2'd2:    texel_quarter = texel_line[2*TexelBits +: TexelBits];
      default: texel_quarter = texel_line[3*TexelBits +: TexelBits];
    endcase
    // The bytes above the texel's are left as they come: the filter reads
    // only the format's channels.
    texel = texel_quarter >> {tap_off_q[3:0], 3'b000};
  end

  // --- the lane's filter request -------------------------------------------------------
  logic [Taps*TexelBits-1:0]          texels_q;
  logic [Taps-1:0]                    borders_q;
  logic                               tap_store;   // a texel arrives (cache or memory)
  logic [2:0]                         store_tap;   // ... for this tap

  kestrel_tex_pkg::tex_filter_req_t   filter_req;
  kestrel_tex_pkg::tex_filter_rsp_t   filter_rsp;
  logic                               filter_req_valid, filter_req_ready, filter_rsp_valid;
  logic                               filter_busy_q;

  always_comb begin
    filter_req.fmt = fmt_q;
    filter_req.border_color = border_q;
    filter_req.weight = addr_rsp.tap_weight;
    filter_req.border = borders_q;
    filter_req.texel = texels_q;
  end
  assign filter_req_valid = state_q == StFilter;
  assign addr_rsp_ready = filter_req_valid && filter_req_ready;

  kestrel_tex_filter u_filter (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .req_valid_i(filter_req_valid),
    .req_ready_o(filter_req_ready),
    .req_i      (filter_req),
    .rsp_valid_o(filter_rsp_valid),
    .rsp_ready_i(1'b1),
    .rsp_o      (filter_rsp)
  );

  // --- memory port -----------------------------------------------------------------------
  logic                               mem_fault;
  assign mem_fault = mem_rsp_i.fault != kestrel_pkg::FaultNone;
  assign mem_req_valid_o = state_q == StDescMiss || state_q == StTapMiss;
  assign mem_rsp_ready_o = state_q == StDescWait || state_q == StTapWait;

  always_comb begin
    mem_req_o = '0;
    mem_req_o.kind = kestrel_pkg::MemRead;
    mem_req_o.addr = (state_q == StDescMiss) ? {fetch_q.desc_addr[31:kestrel_pkg::LineOffW], 6'b0}
                                             : {tap_line_q, 6'b0};
  end

  assign desc_fill = state_q == StDescWait && mem_rsp_valid_i && !mem_fault;
  assign tex_fill = state_q == StTapWait && mem_rsp_valid_i && !mem_fault;
  assign desc_decode = (state_q == StDescRead) || desc_fill;

  // --- control ------------------------------------------------------------------------------
  kestrel_tex_pkg::tex_status_e       status_q, status_d;
  logic [3:0]                         fault_q, fault_d;
  logic [31:0]                        fault_addr_q, fault_addr_d;
  logic [LaneW-1:0]                   fault_lane_q, fault_lane_d;
  logic [LaneW-1:0]                   first_lane;  // the request's lowest lane

  always_comb begin
    first_lane = '0;
    for (int l = Lanes - 1; l >= 0; l--) begin
      if (req_mask_i[l]) first_lane = LaneW'(l);
    end
  end

  always_comb begin
    state_d = state_q;
    pending_d = pending_q;
    tap_d = tap_q;
    status_d = status_q;
    fault_d = fault_q;
    fault_addr_d = fault_addr_q;
    fault_lane_d = fault_lane_q;
    tap_store = 1'b0;
    store_tap = tap_q;
    lookup = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (take) begin
          pending_d = req_mask_i;
          status_d = kestrel_tex_pkg::TexStatusOk;
          fault_d = kestrel_pkg::FaultNone;
          fault_addr_d = '0;
          fault_lane_d = first_lane;  // the descriptor's faults and refusals
          // A fetch without active lanes reads nothing, not even the
          // descriptor; a handle that is not a line's address (a kernel's
          // garbage) faults as a misaligned access without a read.
          if (req_mask_i == '0) begin
            state_d = StRespond;
          end else if (req_i.desc_addr[kestrel_pkg::LineOffW-1:0] != '0) begin
            status_d = kestrel_tex_pkg::TexStatusFault;
            fault_d = kestrel_pkg::FaultMisaligned;
            fault_addr_d = req_i.desc_addr;
            state_d = StRespond;
          end else begin
            state_d = StDescLookup;
          end
        end
      end
      StDescLookup: state_d = desc_hit ? StDescRead : StDescMiss;
      StDescMiss: if (mem_req_ready_i) state_d = StDescWait;
      StDescRead: begin
        status_d = desc_status;
        // A refusal names the object.
        if (desc_status != kestrel_tex_pkg::TexStatusOk) fault_addr_d = fetch_q.desc_addr;
        state_d = (desc_status == kestrel_tex_pkg::TexStatusOk) ? StLane : StRespond;
      end
      StDescWait: begin
        if (mem_rsp_valid_i) begin
          if (mem_fault) begin
            status_d = kestrel_tex_pkg::TexStatusFault;
            fault_d = mem_rsp_i.fault;
            fault_addr_d = {fetch_q.desc_addr[31:kestrel_pkg::LineOffW], 6'b0};
            state_d = StRespond;
          end else begin
            status_d = desc_status;
            if (desc_status != kestrel_tex_pkg::TexStatusOk) fault_addr_d = fetch_q.desc_addr;
            state_d = (desc_status == kestrel_tex_pkg::TexStatusOk) ? StLane : StRespond;
          end
        end
      end
      StLane: begin
        if (!any_pending) begin
          state_d = StDrain;
        end else if (addr_req_ready) begin
          pending_d[next_lane] = 1'b0;
          tap_d = '0;
          state_d = StAddr;
        end
      end
      StAddr: lookup = addr_rsp_valid;  // tap 0's lookup as the taps arrive
      StTap: lookup = 1'b1;
      StTapRead: begin
        // The read tap's texel, and (unless it was the last) the next tap's
        // lookup in the same cycle: one tap per cycle while they hit.
        tap_store = 1'b1;
        store_tap = read_tap_q;
        if (read_last_q) state_d = StFilter;
        else lookup = 1'b1;
      end
      StTapMiss: if (mem_req_ready_i) state_d = StTapWait;
      StTapWait: begin
        if (mem_rsp_valid_i) begin
          if (mem_fault) begin
            status_d = kestrel_tex_pkg::TexStatusFault;
            fault_d = mem_rsp_i.fault;
            fault_addr_d = {tap_line_q, 6'b0};
            fault_lane_d = lane_q;
            state_d = StFilter;  // hands the address unit's response back; the lane is dropped below
          end else begin
            tap_store = 1'b1;
            tap_d = tap_q + 3'd1;
            state_d = (tap_q == last_tap) ? StFilter : StTap;
          end
        end
      end
      StFilter: begin
        if (filter_req_ready) state_d = (status_q == kestrel_tex_pkg::TexStatusFault) ? StDrain : StLane;
      end
      StDrain: if (!filter_busy_q || filter_rsp_valid) state_d = StRespond;
      StRespond: if (rsp_ready_i) state_d = StIdle;
      default: state_d = StIdle;
    endcase
    // A lookup: a border tap is done at once, a hit goes on to its read, a
    // miss to its line's request.
    if (lookup) begin
      if (tap_border) begin
        tap_d = tap_q + 3'd1;
        state_d = (tap_q == last_tap) ? StFilter : StTap;
      end else if (tex_hit) begin
        tap_d = tap_q + 3'd1;
        state_d = StTapRead;
      end else begin
        state_d = StTapMiss;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      pending_q <= '0;
      tap_q <= '0;
      status_q <= kestrel_tex_pkg::TexStatusOk;
      fault_q <= '0;
      fault_addr_q <= '0;
      fault_lane_q <= '0;
      filter_busy_q <= 1'b0;
    end else begin
      state_q <= state_d;
      pending_q <= pending_d;
      tap_q <= tap_d;
      status_q <= status_d;
      fault_q <= fault_d;
      fault_addr_q <= fault_addr_d;
      fault_lane_q <= fault_lane_d;
      // A faulting lane is handed over but its result dropped (see the values).
      if (filter_req_valid && filter_req_ready) filter_busy_q <= 1'b1;
      else if (filter_rsp_valid) filter_busy_q <= 1'b0;
    end
  end

  assign ev_tex_hit_o = lookup && !tap_border && tex_hit;
  assign ev_tex_miss_o = state_q == StTapMiss && mem_req_ready_i;
  assign ev_desc_miss_o = state_q == StDescMiss && mem_req_ready_i;

  // --- datapath registers ------------------------------------------------------------------
  // No reset: each is written before the fetch reads it (the fetch's fields
  // at the request, the descriptor's at its decode, the taps' as they are
  // read); the values are cleared at the request.
  logic [Lanes*128-1:0]               value_q;
  logic                               filter_drop_q;  // the lane in the filter faulted
  logic                               filter_zero_q;  // ... is a tex1Dfetch outside the memory

  always_ff @(posedge clk_i) begin
    if (take) begin
      fetch_q <= req_i;
      mask_q <= req_mask_i;
      coord_q <= req_coord_i;
    end
    if (desc_decode) begin
      addr_desc_q <= addr_desc;
      fmt_q <= fmt;
      border_q <= border;
      base_q <= desc_line.base_addr;
      pitch_q <= desc_line.pitch;
      slice_pitch_q <= desc_line.slice_pitch;
      width_q <= desc_line.width;
      texel_shift_q <= texel_shift;
    end
    if (state_q == StLane && any_pending && addr_req_ready) begin
      lane_q <= next_lane;
      index_q <= next_coord.layer;
    end
    if (state_q == StLane) begin
      borders_q <= '0;
      texels_q <= '0;
    end
    // The texel extracted in StTapRead uses the offset of its own lookup,
    // written at the edge that ends that lookup's cycle.
    if (lookup) begin
      tap_line_q <= tap_addr[31:kestrel_pkg::LineOffW];
      tap_off_q <= tap_addr[kestrel_pkg::LineOffW-1:0];
      read_tap_q <= tap_q;
      read_last_q <= tap_q == last_tap;
      if (tap_border) borders_q[tap_q] <= 1'b1;
    end
    if (tap_store) begin
      for (int n = 0; n < Taps; n++) begin
        if (store_tap == 3'(n)) texels_q[TexelBits*n +: TexelBits] <= texel;
      end
    end
    if (filter_req_valid && filter_req_ready) begin
      filter_lane_q <= lane_q;
      filter_drop_q <= status_q == kestrel_tex_pkg::TexStatusFault;
      filter_zero_q <= indexed && borders_q[0];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      value_q <= '0;
    end else if (take && !req_i.merge) begin
      value_q <= '0;
    end else if (filter_rsp_valid && !filter_drop_q) begin
      for (int l = 0; l < Lanes; l++) begin
        if (filter_lane_q == LaneW'(l)) value_q[128*l +: 128] <= filter_zero_q ? '0 : filter_rsp.value;
      end
    end
  end

  // merge acts at the request (value_q); the fetch keeps no use for it.
  logic unused_merge;
  assign unused_merge = fetch_q.merge;

  // One read is outstanding: the response needs no tag.
  logic [kestrel_pkg::MemTagW-1:0]    unused_rsp_tag;
  assign unused_rsp_tag = mem_rsp_i.tag;

  // --- response ------------------------------------------------------------------------------
  assign rsp_valid_o = state_q == StRespond;
  always_comb begin
    rsp_o.fault_lane = 8'(fault_lane_q);
    rsp_o.warp = fetch_q.warp;
    rsp_o.status = status_q;
    rsp_o.fault = fault_q;
    rsp_o.fault_addr = fault_addr_q;
  end
  assign rsp_mask_o = mask_q;
  assign rsp_value_o = value_q;

  `KESTREL_ASSERT_KNOWN(req_valid_known, req_valid_i)
  `KESTREL_ASSERT_HANDSHAKE(rsp, rsp_valid_o, rsp_ready_i, {rsp_o, rsp_mask_o, rsp_value_o})
  `KESTREL_ASSERT_HANDSHAKE(mem_req, mem_req_valid_o, mem_req_ready_i, mem_req_o)
  `KESTREL_ASSERT_KNOWN(mem_rsp_valid_known, mem_rsp_valid_i)
  // One read outstanding: a response comes only while one is awaited.
  `KESTREL_ASSERT_NEVER(mem_rsp_unexpected, mem_rsp_valid_i && !mem_rsp_ready_o)
  // A texel lies in one line: arrays and texture memory are aligned to their
  // texel size (docs/isa.md section 12), so its offset is a multiple of it.
  `KESTREL_ASSERT_NEVER(texel_misaligned,
                        lookup && !tap_border &&
                        (tap_addr[3:0] & ~(4'hF << texel_shift_q)) != 4'h0)
  `KESTREL_ASSERT_NEVER(flush_busy, flush_i && state_q != StIdle)
endmodule
