// kestrel_fpu_pkg: operations and payload types of the Kestrel floating-point
// units (docs/fpu.md): the pipelined lane (kestrel_fpu_lane), the iterative
// divide/square-root unit (kestrel_fpu_divsqrt) and the special-function unit
// (kestrel_sfu).  Kept apart from kestrel_pkg so that the FP units build and
// lint on their own; the SM qualifies these names (kestrel_fpu_pkg::foo) like
// kestrel_pkg's.
//
// Values travel as IEEE-754 binary32 bit patterns.  Integer operands and
// results are 64 bits wide in every configuration: an Xlen=32 unit reads the
// low half and sign-extends what it writes, so the types do not depend on Xlen.
/* verilator lint_off UNUSEDPARAM */
package kestrel_fpu_pkg;

  // Rounding modes as the instruction's rm field and frm hold them.  The
  // units see resolved modes only: the SM replaces rm = 7 (dynamic) by the
  // thread's frm and faults on 5, 6 and on frm values above 4 before issue.
  typedef enum logic [2:0] {
    RoundNearestEven = 3'd0,  // RNE
    RoundTowardZero = 3'd1,   // RTZ
    RoundDown = 3'd2,         // RDN
    RoundUp = 3'd3,           // RUP
    RoundNearestMax = 3'd4    // RMM: ties away from zero
  } round_mode_e;

  // fflags bit positions (RISC-V fcsr.fflags).
  localparam int unsigned FlagNX = 0;  // inexact
  localparam int unsigned FlagUF = 1;  // underflow
  localparam int unsigned FlagOF = 2;  // overflow
  localparam int unsigned FlagDZ = 3;  // divide by zero
  localparam int unsigned FlagNV = 4;  // invalid

  localparam logic [31:0] CanonicalNan = 32'h7FC0_0000;

  // The F extension's CSRs, per thread (docs/isa.md section 3).
  localparam logic [11:0] CsrFflags = 12'h001;
  localparam logic [11:0] CsrFrm = 12'h002;
  localparam logic [11:0] CsrFcsr = 12'h003;

  // Operations of kestrel_fpu_lane: every F-extension instruction except
  // fdiv/fsqrt (kestrel_fpu_divsqrt), loads and stores (the LSU).
  typedef enum logic [4:0] {
    FpuAdd = 5'd0,      // fadd.s      a + b
    FpuSub = 5'd1,      // fsub.s      a - b
    FpuMul = 5'd2,      // fmul.s      a * b
    FpuMadd = 5'd3,     // fmadd.s     a * b + c
    FpuMsub = 5'd4,     // fmsub.s     a * b - c
    FpuNmsub = 5'd5,    // fnmsub.s  -(a * b) + c
    FpuNmadd = 5'd6,    // fnmadd.s  -(a * b) - c
    FpuMin = 5'd7,      // fmin.s
    FpuMax = 5'd8,      // fmax.s
    FpuSgnj = 5'd9,     // fsgnj.s
    FpuSgnjn = 5'd10,   // fsgnjn.s
    FpuSgnjx = 5'd11,   // fsgnjx.s
    FpuEq = 5'd12,      // feq.s       x result
    FpuLt = 5'd13,      // flt.s       x result
    FpuLe = 5'd14,      // fle.s       x result
    FpuClass = 5'd15,   // fclass.s    x result
    FpuMvXW = 5'd16,    // fmv.x.w     x result
    FpuMvWX = 5'd17,    // fmv.w.x     x operand
    FpuCvtWS = 5'd18,   // fcvt.w.s    x result
    FpuCvtWuS = 5'd19,  // fcvt.wu.s   x result
    FpuCvtLS = 5'd20,   // fcvt.l.s    x result, RV64 only
    FpuCvtLuS = 5'd21,  // fcvt.lu.s   x result, RV64 only
    FpuCvtSW = 5'd22,   // fcvt.s.w    x operand
    FpuCvtSWu = 5'd23,  // fcvt.s.wu   x operand
    FpuCvtSL = 5'd24,   // fcvt.s.l    x operand, RV64 only
    FpuCvtSLu = 5'd25   // fcvt.s.lu   x operand, RV64 only
  } fpu_op_e;

  typedef struct packed {
    fpu_op_e op;
    round_mode_e rm;
    logic [31:0] a;        // rs1 (f)
    logic [31:0] b;        // rs2 (f)
    logic [31:0] c;        // rs3 (f), fused multiply-add forms only
    logic [63:0] x;        // rs1 (x) of fmv.w.x and fcvt.s.*
  } fpu_req_t;

  typedef struct packed {
    logic [63:0] result;   // f result in [31:0] ([63:32] zero); x result sign-extended
    logic [4:0] flags;     // fflags raised by this operation (to be OR-ed into the thread's)
  } fpu_rsp_t;

  // kestrel_fpu_divsqrt.
  typedef enum logic [0:0] {
    DivSqrtDiv = 1'b0,  // fdiv.s  a / b
    DivSqrtSqrt = 1'b1  // fsqrt.s sqrt(a)
  } divsqrt_op_e;

  typedef struct packed {
    divsqrt_op_e op;
    round_mode_e rm;
    logic [31:0] a;
    logic [31:0] b;
  } divsqrt_req_t;

  // Units of kestrel_fp_exec, the SM's FP execute cluster.
  typedef enum logic [1:0] {
    FpUnitLane = 2'd0,     // kestrel_fpu_lane: pipelined, one warp per cycle
    FpUnitDivSqrt = 2'd1,  // kestrel_fpu_divsqrt: iterative, one warp at a time
    FpUnitSfu = 2'd2       // kestrel_sfu: SfuLanes per cycle, a warp in turns
  } fp_unit_e;

  // kestrel_sfu: the funct7 of the kx.sfu instructions (custom-0, funct3 5;
  // docs/isa.md section 2, include/kestrel/abi.h KESTREL_F7_SFU_*).
  typedef enum logic [2:0] {
    SfuRcp = 3'd0,    // 1/x
    SfuRsqrt = 3'd1,  // 1/sqrt(x)
    SfuEx2 = 3'd2,    // 2^x
    SfuLg2 = 3'd3,    // log2(x)
    SfuSin = 3'd4,    // sin(x), x in radians
    SfuCos = 3'd5     // cos(x), x in radians
  } sfu_op_e;

  typedef struct packed {
    sfu_op_e op;
    logic [31:0] a;
  } sfu_req_t;

endpackage
/* verilator lint_on UNUSEDPARAM */
