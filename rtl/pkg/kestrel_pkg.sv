// kestrel_pkg: parameters, named configuration presets, ISA constants and the
// packed payload types every Kestrel RTL unit speaks.  What software sees too
// (include/kestrel/abi.h, host_regs.h, the C++ benches) comes from one
// description, tools/contract/contract.toml, through the generated
// kestrel_contract.svh included below; docs/isa.md is the prose contract.
//
// Yosys 0.23 subset notes (checked by rtl/scripts/rtl_synth.sh): modules never
// `import` this package, they qualify names (kestrel_pkg::foo); functions
// assign to their name instead of `return`; multi-dimensional packed arrays are
// written as arrays of a typedef'd element.
// A package offers constants and types that no single unit uses all of, so
// unused-parameter lint is off inside it (and only inside it).
/* verilator lint_off UNUSEDPARAM */
package kestrel_pkg;

  // ---------------------------------------------------------------------------
  // Configuration presets.  A configuration is five integers; every top-level
  // module takes them as parameters, and these presets are the named values
  // the build, the benches and docs/microarchitecture.md refer to.
  // ---------------------------------------------------------------------------
  typedef enum logic [1:0] {
    PresetSmall   = 2'd0,  // RV32, 4 lanes, 4 warps, 1 SM: small FPGAs, teaching
    PresetDefault = 2'd1,  // RV64, 32 lanes, 8 warps, 2 SMs
    PresetLarge   = 2'd2   // RV64, 32 lanes, 16 warps, 4 SMs
  } preset_e;

  function automatic int unsigned preset_xlen(input preset_e p);
    preset_xlen = (p == PresetSmall) ? 32 : 64;
  endfunction
  function automatic int unsigned preset_lanes(input preset_e p);
    preset_lanes = (p == PresetSmall) ? 4 : 32;
  endfunction
  function automatic int unsigned preset_warps(input preset_e p);
    preset_warps = (p == PresetSmall) ? 4 : (p == PresetLarge) ? 16 : 8;
  endfunction
  function automatic int unsigned preset_sms(input preset_e p);
    preset_sms = (p == PresetSmall) ? 1 : (p == PresetLarge) ? 4 : 2;
  endfunction

  localparam int unsigned DefaultXlen = 64;
  localparam int unsigned DefaultLanes = 32;
  localparam int unsigned DefaultWarps = 8;
  localparam int unsigned DefaultSms = 2;

  // ---------------------------------------------------------------------------
  // The hardware/software contract: memory geometry, the device address map,
  // page permissions, fault kinds, the op encodings the benches drive, AMO
  // funct5 values, the host register map and the structs that cross the
  // RTL/C++ boundary (mem_req_t, mem_rsp_t, reg_req_t, fault_t, launch_t).
  // Generated from tools/contract/contract.toml, as are include/kestrel/
  // abi_contract.h, host_regs.h and the C++ layouts (docs/contract.md).
  // ---------------------------------------------------------------------------
`include "kestrel_contract.svh"

  localparam int unsigned LineOffW = $clog2(LineBytes);

  // SIMT rules of docs/isa.md section 6 (FairnessPeriod and SpinYieldIssues
  // come from the contract above).
  localparam int unsigned BarrierWatchdogLog2 = 24;

  // ---------------------------------------------------------------------------
  // RV base opcodes.  The custom opcodes (OpSimt, OpAtomic), the SIMT funct3/
  // funct7 values and the CSR numbers are ISA constants software shares: they
  // come from kestrel_contract.svh above (tools/contract/contract.toml).
  // ---------------------------------------------------------------------------
  localparam logic [6:0] OpLoad = 7'h03;
  localparam logic [6:0] OpMiscMem = 7'h0F;
  localparam logic [6:0] OpImm = 7'h13;
  localparam logic [6:0] OpAuipc = 7'h17;
  localparam logic [6:0] OpImm32 = 7'h1B;
  localparam logic [6:0] OpStore = 7'h23;
  localparam logic [6:0] OpAmo = 7'h2F;
  localparam logic [6:0] OpReg = 7'h33;
  localparam logic [6:0] OpLui = 7'h37;
  localparam logic [6:0] OpReg32 = 7'h3B;
  localparam logic [6:0] OpBranch = 7'h63;
  localparam logic [6:0] OpJalr = 7'h67;
  localparam logic [6:0] OpJal = 7'h6F;
  localparam logic [6:0] OpSystem = 7'h73;

  // Execution class of a decoded instruction: which unit runs it.
  typedef enum logic [3:0] {
    ClassAlu = 4'd0,      // integer ALU, lui, auipc, fences
    ClassMul = 4'd1,
    ClassDiv = 4'd2,
    ClassLoad = 4'd3,
    ClassStore = 4'd4,
    ClassBranch = 4'd5,
    ClassJal = 4'd6,
    ClassJalr = 4'd7,
    ClassCsr = 4'd8,
    ClassExit = 4'd9,
    ClassBarrier = 4'd10,
    ClassTrap = 4'd11,
    ClassIllegal = 4'd12,
    ClassWarp = 4'd13,    // warp-synchronous (custom-0 funct3 1..3) and kx.nanosleep
    ClassAtomic = 4'd14,  // A-extension AMO or custom-1 atomic: the LSU, old value to rd
    ClassTex = 4'd15      // kx.tex (custom-2): the texture unit, four f registers from fp.rd
  } exec_class_e;

  // Memory access size (funct3[1:0] of LOAD/STORE) and sign.
  typedef enum logic [1:0] {
    SizeByte = 2'd0,
    SizeHalf = 2'd1,
    SizeWord = 2'd2,
    SizeDouble = 2'd3
  } mem_size_e;

  // A decoded instruction (kestrel_decoder output).  64-bit immediate so the
  // struct is the same for both XLENs; RV32 units use the low half.
  typedef struct packed {
    exec_class_e cls;
    alu_op_e alu_op;
    logic word;           // RV64 *W operation: 32-bit result sign-extended
    logic src_a_pc;       // operand a is the PC (auipc, jal link)
    logic src_b_imm;      // operand b is the immediate
    logic [4:0] rd;
    logic [4:0] rs1;
    logic [4:0] rs2;
    logic rd_we;          // writes rd (rd != x0)
    logic rs1_re;         // reads rs1 (hazard check)
    logic rs2_re;         // reads rs2
    logic [63:0] imm;
    logic [2:0] funct3;   // branch condition, mul/div op, load/store size+sign, csr op
    logic [6:0] funct7;   // SIMT operation
    logic [11:0] csr;
    logic csr_writes;     // the CSR instruction would write its CSR
  } decoded_t;

  // ===========================================================================
  // SM stage packets: payloads between the units of kestrel_sm (rtl/core/
  // kestrel_sm_*.sv; docs/microarchitecture.md, "SM units").  Internal to the
  // SM, not part of the hardware/software contract.  Yosys 0.23 takes no
  // $bits of a type: widths come from $bits of a signal of the type.
  // ===========================================================================

  // F fields of a decoded instruction (kestrel_decoder fp_o).  f rd/rs*
  // name f registers; the x fields stay in decoded_t.
  typedef struct packed {
    logic load;          // the LSU writes f rd (flw, kx.amofadd.s)
    logic store;         // the LSU takes f rs2 (fsw, kx.amofadd.s)
    logic [1:0] unit;    // kestrel_fpu_pkg::fp_unit_e
    logic [4:0] fpu_op;  // kestrel_fpu_pkg::fpu_op_e
    logic divsqrt_op;    // kestrel_fpu_pkg::divsqrt_op_e
    logic [2:0] sfu_op;  // kestrel_fpu_pkg::sfu_op_e
    logic [2:0] rm;      // static rounding mode (7: the thread's frm)
    logic rd_we;         // writes f rd
    logic [4:0] rd;
    logic rs1_re;        // reads f rs1
    logic [4:0] rs1;
    logic [4:0] rs2;
    logic [4:0] rs3;
  } fp_dec_t;

  // Issue packet: the instruction kestrel_sm_issue hands to stage 1 (with its
  // warp and lane mask, which depend on the SM's parameters).
  typedef struct packed {
    logic [31:0] pc;
    logic [31:0] word;   // the instruction word (an illegal instruction's fault info)
    logic ffault;        // fetch fault: a pseudo-instruction that faults in stage 3
    decoded_t dec;
    logic fpx;           // goes to kestrel_fp_exec
    fp_dec_t fp;
  } sm_issue_t;

  // Write-back packet: the instruction in stages 2 and 3 (kestrel_sm_pipe to
  // kestrel_sm_retire, kestrel_sm_warp_ctrl and kestrel_sm_faults; its warp,
  // mask, result rows and fault lane travel beside it).
  typedef struct packed {
    logic [31:0] pc;
    logic [31:0] word;   // the instruction word (an illegal instruction's fault info)
    logic ffault;        // fetch-fault pseudo-instruction
    decoded_t dec;
    logic barfault;      // a stage-1 fault: kx.bar.sync id, warp-synchronous, rounding mode
    logic [63:0] code;   // trap code (rs1 of the fault lane)
    logic [63:0] line;   // the assert line (rs2 of the fault lane)
  } sm_wb_t;

  // Barrier kinds as stored per waiting lane (kestrel_sm_warp_ctrl) and
  // turned into results at release (kestrel_sm_retire).
  localparam logic [1:0] BarKindSync = 2'd0;
  localparam logic [1:0] BarKindCount = 2'd1;
  localparam logic [1:0] BarKindAnd = 2'd2;
  localparam logic [1:0] BarKindOr = 2'd3;

endpackage
/* verilator lint_on UNUSEDPARAM */
