// kestrel_sm_exec: stage 1 of the SM pipeline, the execute stage.
//
// Takes the instruction in stage 1 (its decode, mask, PC) with the operands
// the register files read for it at issue, and computes per lane: the ALU
// result (also the LSU address), branch and jump targets, CSR values, the
// barrier operand test, the rounding mode of F instructions (rm = 7 takes
// the thread's frm; frm 5..7 makes the instruction illegal), the store data
// and local-memory bases for the LSU, and the warp-synchronous instructions:
// votes, shuffles, match and reduce find their complete membermask classes
// (kestrel_warp_conv) among the issuing lanes and those parked at the same
// PC, and go through kestrel_warp_xbar; kx.nanosleep's longest request.
// Faults found here (kx.bar.sync with a non-zero id, a lane outside its own
// membermask, a reserved rounding mode) are reported at the lowest such lane.
//
// Latency: combinational, except the multiplier lanes (operands registered
// here, product one cycle later: read in stage 3) and the divider lanes
// (start here, done_o some cycles later; one warp-instruction at a time).
// No handshake: stage 1 holds an instruction for one cycle (valid_i).
`include "kestrel_assert.svh"

module kestrel_sm_exec #(
  parameter int unsigned Xlen = 64,
  parameter int unsigned Lanes = 32,
  parameter int unsigned Warps = 8,
  // SM clock (kHz): kx.nanosleep converts nanoseconds to cycles with it.
  parameter int unsigned ClockKhz = 100_000,
  localparam int unsigned WarpW = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned RowW = Lanes * Xlen,
  localparam int unsigned TidW = 30,
  localparam int unsigned SleepW = 48
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic [7:0]               sm_id_i,
  input  kestrel_pkg::launch_t     launch_i,
  input  logic [63:0]              cycle_i,
  // the instruction in stage 1
  input  logic                     valid_i,
  input  logic [WarpW-1:0]         warp_i,
  input  logic [Lanes-1:0]         mask_i,
  input  kestrel_pkg::sm_issue_t   pkt_i,       // pc, decode, fetch fault, F fields
  input  logic [Lanes*64-1:0]      instret_i,   // per lane, read at issue
  // operands (register files, read at issue)
  input  logic [RowW-1:0]          rs1_i,
  input  logic [RowW-1:0]          rs2_i,
  input  logic [RowW-1:0]          rs3_i,
  input  logic [Lanes*32-1:0]      frs2_i,
  // the warp's state (its slice of the per-warp and per-lane registers)
  input  logic [Lanes*TidW-1:0]    tid_i,
  input  logic [63:0]              bidx_i,      // its block's index
  input  logic [WarpW-1:0]         widx_i,      // warp index within the block
  input  logic [Lanes-1:0]         exited_i,
  input  logic [Lanes-1:0]         held_i,
  input  logic [Lanes-1:0]         swait_i,
  input  logic [Lanes*32-1:0]      lpc_i,
  input  logic [Lanes*5-1:0]       fflags_i,
  input  logic [Lanes*3-1:0]       frm_i,
  // results
  output logic [RowW-1:0]          alu_o,       // also the LSU address
  output logic [RowW-1:0]          result_o,    // written back in stage 3
  output logic [Lanes*32-1:0]      target_o,    // next lane PCs of a branch or jump
  output logic [2*Xlen-1:0]        lead_ops_o,  // rs2 and rs1 of the lowest lane (spin detection)
  output logic [Lanes-1:0]         nonzero_o,   // rs1 != 0 (barrier operand)
  output logic [LaneW-1:0]         low_o,       // lowest lane of the mask
  output logic                     barfault_o,
  output logic [LaneW-1:0]         barfault_lane_o,
  // warp-synchronous instructions
  output logic                     coll_o,      // a vote, shuffle, match or reduce
  output logic                     sleep_o,     // kx.nanosleep
  output logic [SleepW-1:0]        sleep_amount_o,
  output logic [Lanes-1:0]         ready_o,     // lanes of complete membermask classes
  output logic                     wsfault_o,
  output logic [LaneW-1:0]         wsfault_lane_o,
  // F
  output logic [Lanes*3-1:0]       rm_o,
  output logic                     rmfault_o,
  output logic [LaneW-1:0]         rmfault_lane_o,
  // multiplier (product one cycle on) and divider
  output logic [RowW-1:0]          mul_result_o,
  output logic                     div_start_o,
  output logic [Lanes-1:0]         div_done_o,
  output logic [RowW-1:0]          div_result_o,
  // LSU request operands
  output kestrel_pkg::mem_size_e   mem_size_o,
  output logic [RowW-1:0]          lsu_wdata_o,
  output logic [Lanes*32-1:0]      lsu_wdata_hi_o,
  output logic [Lanes*32-1:0]      lsu_cmp_hi_o,
  output logic [31:0]              lsu_local_base_o
);
  // Votes, shuffles, match and reduce: wait for their membermask, retire the
  // complete classes (kx.syncwarp and kx.nanosleep are ClassWarp too).
  function automatic logic is_collective(input kestrel_pkg::exec_class_e c, input logic [2:0] f3, input logic [6:0] f7);
    is_collective = (c == kestrel_pkg::ClassWarp) && f3 != kestrel_pkg::SimtF3Control
                    && !(f3 == kestrel_pkg::SimtF3Vote && f7 == kestrel_pkg::SimtSyncwarp);
  endfunction

  logic s1_coll;
  logic [RowW-1:0] xbar_result;
  logic [Lanes*32-1:0] lsu_wdata_hi, lsu_cmp_hi;
  logic [31:0] lsu_local_base;

  // Operands, ALU, branches, CSRs.
  logic [RowW-1:0] s1_a, s1_b, s1_alu, s1_result;
  logic [Lanes-1:0] s1_taken, s1_nonzero;
  logic [Lanes*32-1:0] s1_target;
  logic [TidW*Lanes-1:0] s1_tid;
  logic [63:0] s1_bidx;
  logic [LaneW-1:0] s1_low;
  logic [Lanes-1:0] unused_s1_low_onehot;
  logic unused_s1_low_valid;
  logic s1_barfault;
  logic [LaneW-1:0] s1_barfault_lane;

  kestrel_lowest_set #(.Width(Lanes)) u_s1_low (
    .bits_i(mask_i), .valid_o(unused_s1_low_valid), .index_o(s1_low), .onehot_o(unused_s1_low_onehot)
  );

  // funct3 fields to the units' enums (Yosys 0.23 has no casts to package types).
  kestrel_pkg::branch_op_e s1_branch_op;
  kestrel_pkg::mul_op_e s1_mul_op;
  kestrel_pkg::div_op_e s1_div_op;
  kestrel_pkg::mem_size_e s1_mem_size;
  always_comb begin
    unique case (pkt_i.dec.funct3)
      3'd0: s1_branch_op = kestrel_pkg::BrEq;
      3'd1: s1_branch_op = kestrel_pkg::BrNe;
      3'd4: s1_branch_op = kestrel_pkg::BrLt;
      3'd5: s1_branch_op = kestrel_pkg::BrGe;
      3'd6: s1_branch_op = kestrel_pkg::BrLtu;
      default: s1_branch_op = kestrel_pkg::BrGeu;
    endcase
    unique case (pkt_i.dec.funct3[1:0])
      2'd0: begin
        s1_mul_op = kestrel_pkg::MulLow;
        s1_div_op = kestrel_pkg::DivSigned;
        s1_mem_size = kestrel_pkg::SizeByte;
      end
      2'd1: begin
        s1_mul_op = kestrel_pkg::MulHigh;
        s1_div_op = kestrel_pkg::DivUnsigned;
        s1_mem_size = kestrel_pkg::SizeHalf;
      end
      2'd2: begin
        s1_mul_op = kestrel_pkg::MulHighSU;
        s1_div_op = kestrel_pkg::RemSigned;
        s1_mem_size = kestrel_pkg::SizeWord;
      end
      default: begin
        s1_mul_op = kestrel_pkg::MulHighU;
        s1_div_op = kestrel_pkg::RemUnsigned;
        s1_mem_size = kestrel_pkg::SizeDouble;
      end
    endcase
  end

  for (genvar l = 0; l < Lanes; l++) begin : gen_lane_alu
    kestrel_alu #(.Xlen(Xlen)) u_alu (
      .op_i       (pkt_i.dec.alu_op),
      .word_i     (pkt_i.dec.word),
      .a_i        (s1_a[l*Xlen +: Xlen]),
      .b_i        (s1_b[l*Xlen +: Xlen]),
      .result_o   (s1_alu[l*Xlen +: Xlen]),
      .branch_op_i(s1_branch_op),
      .taken_o    (s1_taken[l])
    );
  end

  // CSR values: one warp-wide value, and the per-lane ones (thread index,
  // lane id, instret) picked per lane below.
  assign s1_tid = tid_i;
  assign s1_bidx = bidx_i;
  logic [63:0] csr_uniform;
  logic [WarpW-1:0] s1_widx;
  always_comb begin
    s1_widx = widx_i;
    unique case (pkt_i.dec.csr)
      kestrel_pkg::CsrCycle, kestrel_pkg::CsrTime: csr_uniform = cycle_i;
      kestrel_pkg::CsrCycleH, kestrel_pkg::CsrTimeH: csr_uniform = {32'd0, cycle_i[63:32]};
      kestrel_pkg::CsrCtaidX: csr_uniform = 64'(s1_bidx[63:32]);
      kestrel_pkg::CsrCtaidY: csr_uniform = 64'(s1_bidx[31:16]);
      kestrel_pkg::CsrCtaidZ: csr_uniform = 64'(s1_bidx[15:0]);
      kestrel_pkg::CsrNtidX: csr_uniform = 64'(launch_i.block.x);
      kestrel_pkg::CsrNtidY: csr_uniform = 64'(launch_i.block.y);
      kestrel_pkg::CsrNtidZ: csr_uniform = 64'(launch_i.block.z);
      kestrel_pkg::CsrNctaidX: csr_uniform = 64'(launch_i.grid.x);
      kestrel_pkg::CsrNctaidY: csr_uniform = 64'(launch_i.grid.y);
      kestrel_pkg::CsrNctaidZ: csr_uniform = 64'(launch_i.grid.z);
      kestrel_pkg::CsrWarpId: csr_uniform = 64'(s1_widx);
      kestrel_pkg::CsrSmId: csr_uniform = 64'(sm_id_i);
      kestrel_pkg::CsrWarpSize: csr_uniform = 64'(Lanes);
      kestrel_pkg::CsrActiveMask: csr_uniform = 64'(mask_i);
      kestrel_pkg::CsrSharedBase: csr_uniform = 64'(launch_i.shared_base);
      kestrel_pkg::CsrSharedSize: csr_uniform = 64'(launch_i.shared_size);
      default: csr_uniform = 64'(launch_i.shared_base) + 64'(launch_i.shared_static);  // CsrDynShared
    endcase
  end

  logic [RowW-1:0] s1_csr;
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      // RV32 keeps v's low half (the CSR is 64-bit wide in the case below).
      /* verilator lint_off UNUSEDSIGNAL */
      logic [63:0] v;
      /* verilator lint_on UNUSEDSIGNAL */
      logic [63:0] instret;
      logic [TidW-1:0] tid;
      tid = s1_tid[l*TidW +: TidW];
      instret = instret_i[l*64 +: 64];
      unique case (pkt_i.dec.csr)
        kestrel_pkg::CsrInstret: v = instret;
        kestrel_pkg::CsrInstretH: v = {32'd0, instret[63:32]};
        kestrel_pkg::CsrTidX: v = 64'(tid[29:20]);
        kestrel_pkg::CsrTidY: v = 64'(tid[19:10]);
        kestrel_pkg::CsrTidZ: v = 64'(tid[9:0]);
        kestrel_pkg::CsrLaneId: v = 64'(l);
        kestrel_fpu_pkg::CsrFflags: v = 64'(fflags_i[l*5 +: 5]);
        kestrel_fpu_pkg::CsrFrm: v = 64'(frm_i[l*3 +: 3]);
        kestrel_fpu_pkg::CsrFcsr:
          v = 64'({frm_i[l*3 +: 3], fflags_i[l*5 +: 5]});
        default: v = csr_uniform;
      endcase
      s1_csr[l*Xlen +: Xlen] = v[Xlen-1:0];
    end
  end

  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      s1_a[l*Xlen +: Xlen] = pkt_i.dec.src_a_pc ? Xlen'(pkt_i.pc) : rs1_i[l*Xlen +: Xlen];
      s1_b[l*Xlen +: Xlen] = pkt_i.dec.src_b_imm ? pkt_i.dec.imm[Xlen-1:0] : rs2_i[l*Xlen +: Xlen];
    end
  end

  always_comb begin
    s1_barfault = 1'b0;
    s1_barfault_lane = '0;
    for (int l = Lanes - 1; l >= 0; l--) begin
      logic [Xlen-1:0] rs1v, link;
      rs1v = rs1_i[l*Xlen +: Xlen];
      s1_nonzero[l] = (rs1v != '0);
      link = Xlen'(pkt_i.pc) + Xlen'(4);
      // Lane PCs are 32 bits: every device address is (docs/isa.md section 4).
      unique case (pkt_i.dec.cls)
        kestrel_pkg::ClassJal: s1_target[l*32 +: 32] = pkt_i.pc + pkt_i.dec.imm[31:0];
        kestrel_pkg::ClassJalr: s1_target[l*32 +: 32] = (rs1v[31:0] + pkt_i.dec.imm[31:0]) & ~32'd1;
        default: s1_target[l*32 +: 32] = s1_taken[l] ? pkt_i.pc + pkt_i.dec.imm[31:0] : pkt_i.pc + 32'd4;
      endcase
      unique case (pkt_i.dec.cls)
        kestrel_pkg::ClassJal, kestrel_pkg::ClassJalr: s1_result[l*Xlen +: Xlen] = link;
        kestrel_pkg::ClassCsr: s1_result[l*Xlen +: Xlen] = s1_csr[l*Xlen +: Xlen];
        // kx.syncwarp carries its membermasks to stage 3.
        kestrel_pkg::ClassWarp: s1_result[l*Xlen +: Xlen] = s1_coll ? xbar_result[l*Xlen +: Xlen]
                                                                     : rs2_i[l*Xlen +: Xlen];
        default: s1_result[l*Xlen +: Xlen] = s1_alu[l*Xlen +: Xlen];
      endcase
      if (mask_i[l] && rs1v != '0 && pkt_i.dec.cls == kestrel_pkg::ClassBarrier
          && pkt_i.dec.funct7 == kestrel_pkg::SimtBarSync) begin
        s1_barfault = 1'b1;
        s1_barfault_lane = LaneW'(l);
      end
    end
  end

  // Warp-synchronous instructions (docs/isa.md section 6.1).
  // Each lane's membermask (rs3 for shuffles, else rs2; bits of lanes this
  // warp lacks dropped).  An issuing lane outside its own mask is an illegal
  // instruction (lowest such lane).  The lanes parked at this PC earlier join
  // the issuing ones; the complete classes (s1_ready) execute.
  logic s1_sync, s1_sleep;
  logic [Lanes*Lanes-1:0] s1_masks, s1_members;
  logic [Lanes-1:0] s1_live, s1_parked, s1_here, s1_ready;
  logic s1_wsfault;
  logic [LaneW-1:0] s1_wsfault_lane;
  always_comb begin
    logic [RowW-1:0] row;
    s1_coll = valid_i && !pkt_i.ffault && is_collective(pkt_i.dec.cls, pkt_i.dec.funct3, pkt_i.dec.funct7);
    s1_sync = valid_i && !pkt_i.ffault && pkt_i.dec.cls == kestrel_pkg::ClassWarp
              && pkt_i.dec.funct3 == kestrel_pkg::SimtF3Vote
              && pkt_i.dec.funct7 == kestrel_pkg::SimtSyncwarp;
    s1_sleep = valid_i && !pkt_i.ffault && pkt_i.dec.cls == kestrel_pkg::ClassWarp
               && pkt_i.dec.funct3 == kestrel_pkg::SimtF3Control;
    row = (pkt_i.dec.funct3 == kestrel_pkg::SimtF3Shuffle) ? rs3_i : rs2_i;
    s1_live = ~exited_i;
    s1_wsfault = 1'b0;
    s1_wsfault_lane = '0;
    for (int l = Lanes - 1; l >= 0; l--) begin
      s1_masks[l*Lanes +: Lanes] = row[l*Xlen +: Lanes];
      s1_members[l*Lanes +: Lanes] = row[l*Xlen +: Lanes] & s1_live;
      s1_parked[l] = held_i[l] && !swait_i[l]
                     && lpc_i[32'(l)*32 +: 32] == pkt_i.pc;
      if ((s1_coll || s1_sync) && mask_i[l] && !row[l*Xlen + l]) begin
        s1_wsfault = 1'b1;
        s1_wsfault_lane = LaneW'(l);
      end
    end
    s1_here = mask_i | s1_parked;
  end

  kestrel_warp_conv #(.Lanes(Lanes)) u_conv_s1 (
    .here_i (s1_here),
    .masks_i(s1_masks),
    .live_i (s1_live),
    .ready_o(s1_ready)
  );

  kestrel_warp_xbar #(.Xlen(Xlen), .Lanes(Lanes)) u_warp_xbar (
    .funct3_i (pkt_i.dec.funct3[1:0]),
    .funct7_i (pkt_i.dec.funct7[3:0]),
    .active_i (s1_ready),
    .members_i(s1_members),
    .value_i  (rs1_i),
    .control_i(rs2_i),
    .result_o (xbar_result)
  );

  // kx.nanosleep: the longest request of the issuing lanes (at most
  // KESTREL_NANOSLEEP_MAX_NS) in units of ns * kHz.
  localparam logic [31:0] NanosleepMaxNs = 32'd1_000_000;
  logic [SleepW-1:0] s1_sleep_amount;
  always_comb begin
    logic [31:0] ns, longest;
    longest = '0;
    for (int unsigned l = 0; l < Lanes; l++) begin
      ns = rs1_i[l*Xlen +: 32];
      if (ns > NanosleepMaxNs) ns = NanosleepMaxNs;
      if (mask_i[l] && ns > longest) longest = ns;
    end
    s1_sleep_amount = SleepW'(longest) * SleepW'(ClockKhz);
  end

  // F: rounding modes resolved per thread (rm = 7 takes the thread's frm);
  // an active thread whose frm holds 5..7 makes the instruction illegal, at
  // the lowest such lane, as the model's per-lane check does.
  logic [Lanes*3-1:0] s1_rm;
  logic s1_rmfault;
  logic [LaneW-1:0] s1_rmfault_lane;
  always_comb begin
    s1_rmfault = 1'b0;
    s1_rmfault_lane = '0;
    for (int l = Lanes - 1; l >= 0; l--) begin
      logic [2:0] rm;
      rm = pkt_i.fp.rm;
      if (rm == 3'd7) rm = frm_i[32'(l)*3 +: 3];
      s1_rm[l*3 +: 3] = rm;
      if (pkt_i.fpx && mask_i[l] && rm > 3'd4) begin
        s1_rmfault = 1'b1;
        s1_rmfault_lane = LaneW'(l);
      end
    end
  end

  // Multiplier lanes: stage 1 registers operands, stage 2 the product, the
  // result is read in stage 3.  The pipe never stalls, so they always run.
  logic [RowW-1:0] mul_result;
  for (genvar l = 0; l < Lanes; l++) begin : gen_lane_mul
    kestrel_mul #(.Xlen(Xlen)) u_mul (
      .clk_i,
      .en_i    (1'b1),
      .op_i    (s1_mul_op),
      .word_i  (pkt_i.dec.word),
      .a_i     (rs1_i[l*Xlen +: Xlen]),
      .b_i     (rs2_i[l*Xlen +: Xlen]),
      .result_o(mul_result[l*Xlen +: Xlen])
    );
  end

  // Divider lanes: one warp-instruction at a time.
  logic div_start;
  logic [Lanes-1:0] div_done;
  logic [RowW-1:0] div_result;
  assign div_start = valid_i && pkt_i.dec.cls == kestrel_pkg::ClassDiv;
  for (genvar l = 0; l < Lanes; l++) begin : gen_lane_div
    logic unused_busy;
    kestrel_div #(.Xlen(Xlen)) u_div (
      .clk_i, .rst_ni,
      .start_i (div_start),
      .op_i    (s1_div_op),
      .word_i  (pkt_i.dec.word),
      .a_i     (rs1_i[l*Xlen +: Xlen]),
      .b_i     (rs2_i[l*Xlen +: Xlen]),
      .busy_o  (unused_busy),
      .done_o  (div_done[l]),
      .result_o(div_result[l*Xlen +: Xlen])
    );
  end

  // fsw stores f rs2 (the low 32 bits of each lane's data are stored); kx.amofadd.s
  // takes it as its operand (both flagged fp store).
  logic [RowW-1:0] lsu_wdata;
  always_comb begin
    lsu_wdata = rs2_i;
    if (pkt_i.fp.store) begin
      for (int unsigned l = 0; l < Lanes; l++) lsu_wdata[l*Xlen +: Xlen] = Xlen'(frs2_i[l*32 +: 32]);
    end
  end
  // A register pair's high words, read in the cycle after the request.
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) begin
      lsu_wdata_hi[l*32 +: 32] = rs2_i[l*Xlen +: 32];
      lsu_cmp_hi[l*32 +: 32] = rs3_i[l*Xlen +: 32];
    end
  end
  always_comb begin
    // Warp slot (sm * Warps + warp) backs its threads' local windows at
    // local_backing + slot * Lanes * stack_bytes, the lanes interleaved
    // inside it (docs/isa.md section 4; the LSU adds the lane's part).
    lsu_local_base = launch_i.local_backing
                   + (32'(sm_id_i) * 32'(Warps) + 32'(warp_i)) * 32'(Lanes) * launch_i.stack_bytes;
  end

  // Lint sink: the launch, decode and F fields other units use.
  logic unused_fields;
  assign unused_fields = ^{launch_i, pkt_i};

  assign alu_o = s1_alu;
  assign result_o = s1_result;
  assign target_o = s1_target;
  assign lead_ops_o = {rs2_i[32'(s1_low)*Xlen +: Xlen], rs1_i[32'(s1_low)*Xlen +: Xlen]};
  assign nonzero_o = s1_nonzero;
  assign low_o = s1_low;
  assign barfault_o = s1_barfault;
  assign barfault_lane_o = s1_barfault_lane;
  assign coll_o = s1_coll;
  assign sleep_o = s1_sleep;
  assign sleep_amount_o = s1_sleep_amount;
  assign ready_o = s1_ready;
  assign wsfault_o = s1_wsfault;
  assign wsfault_lane_o = s1_wsfault_lane;
  assign rm_o = s1_rm;
  assign rmfault_o = s1_rmfault;
  assign rmfault_lane_o = s1_rmfault_lane;
  assign mul_result_o = mul_result;
  assign div_start_o = div_start;
  assign div_done_o = div_done;
  assign div_result_o = div_result;
  assign mem_size_o = s1_mem_size;
  assign lsu_wdata_o = lsu_wdata;
  assign lsu_wdata_hi_o = lsu_wdata_hi;
  assign lsu_cmp_hi_o = lsu_cmp_hi;
  assign lsu_local_base_o = lsu_local_base;

  // Stage 1 holds at most one kind of warp-synchronous instruction; its
  // faults name a lane of the mask.
  `KESTREL_ASSERT_KNOWN(valid_known, valid_i)
  `KESTREL_ASSERT_ONEHOT0(warp_kind_onehot, {s1_coll, s1_sync, s1_sleep})
  `KESTREL_ASSERT(wsfault_lane_active, s1_wsfault |-> mask_i[s1_wsfault_lane])
  `KESTREL_ASSERT(barfault_lane_active, s1_barfault |-> mask_i[s1_barfault_lane])
  `KESTREL_ASSERT(ready_here, (s1_ready & ~s1_here) == '0)
endmodule
