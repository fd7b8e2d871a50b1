// kestrel_pkg: parameters, named configuration presets, ISA constants and the
// packed payload types every Kestrel RTL unit speaks.  The numbers mirror
// include/kestrel/abi.h and include/kestrel/host_regs.h (docs/isa.md is the
// prose contract); when they disagree that is a bug in both.
//
// Yosys 0.23 subset notes (checked by verif/rtl/rtl_synth.sh): modules never
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

  // Memory system geometry shared by every configuration: one line is the unit
  // of coalescing, of the global memory protocol and of the instruction cache.
  localparam int unsigned LineBytes = 64;
  localparam int unsigned LineBits = LineBytes * 8;
  localparam int unsigned LineOffW = $clog2(LineBytes);
  localparam int unsigned AddrW = 32;  // every device address fits in 32 bits
  localparam int unsigned PageShift = 12;
  localparam int unsigned MemTagW = 8;  // request tag the memory echoes back

  // Device address map (abi.h).
  localparam logic [31:0] NullGuardEnd = 32'h0001_0000;
  localparam logic [31:0] GlobalBase = 32'h1000_0000;
  localparam logic [31:0] LocalBase = 32'hF000_0000;
  localparam logic [31:0] LocalLimit = 32'hF100_0000;

  // Page permission bits (abi.h KESTREL_PAGE_*).
  localparam int unsigned PermRead = 0;
  localparam int unsigned PermWrite = 1;
  localparam int unsigned PermExec = 2;

  // Warp scheduler policies (kestrel_warp_sched).
  typedef enum logic [0:0] {
    SchedLooseRoundRobin = 1'b0,  // next ready warp after the last one issued
    SchedGreedyThenOldest = 1'b1  // keep the last warp while it is ready, else the oldest ready
  } sched_policy_e;

  // SIMT rules of docs/isa.md section 6.
  localparam int unsigned FairnessPeriod = 32;
  localparam int unsigned BarrierWatchdogLog2 = 24;

  // ---------------------------------------------------------------------------
  // Fault kinds (abi.h enum kestrel_fault_kind).
  // ---------------------------------------------------------------------------
  typedef enum logic [3:0] {
    FaultNone = 4'd0,
    FaultIllegalInstruction = 4'd1,
    FaultMisaligned = 4'd2,
    FaultIllegalAddress = 4'd3,
    FaultSharedBounds = 4'd4,
    FaultLocalBounds = 4'd5,
    FaultWriteProtect = 4'd6,
    FaultFetch = 4'd7,
    FaultBarrierDeadlock = 4'd8,
    FaultTrap = 4'd9,
    FaultAssert = 4'd10,
    FaultTimeout = 4'd11
  } fault_kind_e;

  // ---------------------------------------------------------------------------
  // Opcodes (RV base, custom-0 SIMT extension).
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
  localparam logic [6:0] OpSimt = 7'h0B;
  localparam logic [6:0] OpAtomic = 7'h2B;  // custom-1: CUDA atomics

  localparam logic [6:0] SimtExit = 7'h00;
  localparam logic [6:0] SimtBarSync = 7'h01;
  localparam logic [6:0] SimtBarCount = 7'h02;
  localparam logic [6:0] SimtBarAnd = 7'h03;
  localparam logic [6:0] SimtBarOr = 7'h04;
  localparam logic [6:0] SimtTrap = 7'h08;
  localparam logic [6:0] SimtNanosleep = 7'h09;
  localparam logic [6:0] SimtSyncwarp = 7'h04;   // funct3 1
  localparam logic [6:0] SimtFenceBlock = 7'h10;
  localparam logic [6:0] SimtFenceDevice = 7'h11;
  localparam logic [6:0] SimtFenceSystem = 7'h12;

  // CSR numbers.
  localparam logic [11:0] CsrCycle = 12'hC00;
  localparam logic [11:0] CsrTime = 12'hC01;
  localparam logic [11:0] CsrInstret = 12'hC02;
  localparam logic [11:0] CsrCycleH = 12'hC80;
  localparam logic [11:0] CsrTimeH = 12'hC81;
  localparam logic [11:0] CsrInstretH = 12'hC82;
  localparam logic [11:0] CsrTidX = 12'hCC0;
  localparam logic [11:0] CsrTidY = 12'hCC1;
  localparam logic [11:0] CsrTidZ = 12'hCC2;
  localparam logic [11:0] CsrCtaidX = 12'hCC3;
  localparam logic [11:0] CsrCtaidY = 12'hCC4;
  localparam logic [11:0] CsrCtaidZ = 12'hCC5;
  localparam logic [11:0] CsrNtidX = 12'hCC6;
  localparam logic [11:0] CsrNtidY = 12'hCC7;
  localparam logic [11:0] CsrNtidZ = 12'hCC8;
  localparam logic [11:0] CsrNctaidX = 12'hCC9;
  localparam logic [11:0] CsrNctaidY = 12'hCCA;
  localparam logic [11:0] CsrNctaidZ = 12'hCCB;
  localparam logic [11:0] CsrLaneId = 12'hCCC;
  localparam logic [11:0] CsrWarpId = 12'hCCD;
  localparam logic [11:0] CsrSmId = 12'hCCE;
  localparam logic [11:0] CsrWarpSize = 12'hCCF;
  localparam logic [11:0] CsrActiveMask = 12'hCD0;
  localparam logic [11:0] CsrSharedBase = 12'hCD1;
  localparam logic [11:0] CsrSharedSize = 12'hCD2;
  localparam logic [11:0] CsrDynShared = 12'hCD3;

  // ---------------------------------------------------------------------------
  // Integer ALU operations (kestrel_alu).  *W variants are selected by a
  // separate `word` bit so that one encoding covers RV32 and RV64.
  // ---------------------------------------------------------------------------
  typedef enum logic [3:0] {
    AluAdd = 4'd0,
    AluSub = 4'd1,
    AluSll = 4'd2,
    AluSlt = 4'd3,
    AluSltu = 4'd4,
    AluXor = 4'd5,
    AluSrl = 4'd6,
    AluSra = 4'd7,
    AluOr = 4'd8,
    AluAnd = 4'd9,
    AluPassB = 4'd10  // lui, csr reads: result is operand b
  } alu_op_e;

  // Branch conditions (funct3 of BRANCH), evaluated per lane.
  typedef enum logic [2:0] {
    BrEq = 3'd0,
    BrNe = 3'd1,
    BrLt = 3'd4,
    BrGe = 3'd5,
    BrLtu = 3'd6,
    BrGeu = 3'd7
  } branch_op_e;

  // M extension multiply and divide (funct3 of OP with funct7 = 1).
  typedef enum logic [1:0] {
    MulLow = 2'd0,
    MulHigh = 2'd1,      // signed x signed
    MulHighSU = 2'd2,    // signed x unsigned
    MulHighU = 2'd3      // unsigned x unsigned
  } mul_op_e;

  typedef enum logic [1:0] {
    DivSigned = 2'd0,
    DivUnsigned = 2'd1,
    RemSigned = 2'd2,
    RemUnsigned = 2'd3
  } div_op_e;

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
    ClassAtomic = 4'd14   // A-extension AMO or custom-1 atomic: the LSU, old value to rd
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

  // ---------------------------------------------------------------------------
  // Global memory protocol: one valid/ready request channel and one
  // valid/ready response channel, line sized, in-order per requester.  Every
  // request (read, write, fetch) gets exactly one response.  The GPU top checks
  // the page table on each request and answers a failed check with `fault`.
  // ---------------------------------------------------------------------------
  typedef enum logic [1:0] {
    MemRead = 2'd0,       // data read: page needs R
    MemWrite = 2'd1,      // data write: page needs W
    MemFetch = 2'd2,      // instruction fetch: page needs X
    MemLocal = 2'd3       // local-memory backing, read or write: no page check
  } mem_kind_e;

  // An atomic read-modify-write of one naturally aligned 4- or 8-byte word
  // (docs/isa.md section 2.2), performed at the memory side
  // (kestrel_mem_atomic): `be` marks the word, `wdata` holds the operand at
  // the word's place, the response's `rdata` the line before the operation.
  // `op` is the AMO funct5 (A's add/swap/xor/or/and/min/max/minu/maxu,
  // custom-1's CAS/inc/dec).  `cmp` is a CAS's compare value (bits 31:0 for
  // a word; most significant, so the older fields keep their bit positions).
  // kind is MemWrite (the page needs W) or MemLocal.
  // LR and SC (op AmoLr, AmoSc) name their thread: `sm` (filled in by the GPU
  // top), `warp` (the SM's warp slot) and `lane`; the memory side keeps one
  // reservation per thread.  An LR is a read (kind MemRead or MemLocal) whose
  // `be` marks the reserved word; an SC's `held` says the thread's latest
  // reservation is a memory-side one (an LR or SC on shared memory since
  // makes it 0: the SC fails), and its response carries 0 (success) or 1 at
  // the word's place.
  typedef struct packed {
    logic [7:0] sm;
    logic [7:0] warp;
    logic [7:0] lane;
    logic held;
    logic [63:0] cmp;
    logic valid;
    logic [4:0] op;
  } mem_amo_t;

  // AMO funct5 values (docs/isa.md sections 1 and 2.2).
  localparam logic [4:0] AmoAdd = 5'h00;
  localparam logic [4:0] AmoSwap = 5'h01;
  localparam logic [4:0] AmoLr = 5'h02;
  localparam logic [4:0] AmoSc = 5'h03;
  localparam logic [4:0] AmoXor = 5'h04;
  localparam logic [4:0] AmoCas = 5'h05;
  localparam logic [4:0] AmoInc = 5'h06;
  localparam logic [4:0] AmoDec = 5'h07;
  localparam logic [4:0] AmoOr = 5'h08;
  localparam logic [4:0] AmoFadd = 5'h09;
  localparam logic [4:0] AmoAnd = 5'h0C;
  localparam logic [4:0] AmoMin = 5'h10;
  localparam logic [4:0] AmoMax = 5'h14;
  localparam logic [4:0] AmoMinu = 5'h18;
  localparam logic [4:0] AmoMaxu = 5'h1C;

  typedef struct packed {
    mem_amo_t amo;               // most significant: the older fields keep their bit positions
    mem_kind_e kind;
    logic write;                 // MemLocal: read or write
    logic [AddrW-1:0] addr;      // line aligned
    logic [LineBytes-1:0] be;    // byte enables for writes
    logic [LineBits-1:0] wdata;
    logic [MemTagW-1:0] tag;
  } mem_req_t;

  typedef struct packed {
    logic [LineBits-1:0] rdata;
    fault_kind_e fault;          // FaultNone, FaultIllegalAddress, FaultWriteProtect or FaultFetch
    logic [MemTagW-1:0] tag;
  } mem_rsp_t;

  // ---------------------------------------------------------------------------
  // Host register bus (include/kestrel/host_regs.h offsets), 32-bit registers.
  // ---------------------------------------------------------------------------
  typedef struct packed {
    logic write;
    logic [11:0] addr;
    logic [31:0] wdata;
  } reg_req_t;

  // Block dimensions and indices: x up to 2^31, y/z up to 2^16 (CUDA limits);
  // thread indices inside a block fit 10 bits (at most 1024 threads).
  typedef struct packed {
    logic [31:0] x;
    logic [15:0] y;
    logic [15:0] z;
  } dim3_t;

  typedef struct packed {
    logic [9:0] x;
    logic [9:0] y;
    logic [9:0] z;
  } tid3_t;

  // Fault record as the SM reports it and the host registers expose it.
  typedef struct packed {
    fault_kind_e kind;
    logic [63:0] pc;
    logic [63:0] addr;
    dim3_t block;
    tid3_t thread;
    logic [7:0] sm;
    logic [7:0] warp;      // warp index within the block
    logic [31:0] info;     // trap code or assert line
  } fault_t;

  // Launch description held by the top's host registers, broadcast to SMs.
  typedef struct packed {
    logic [63:0] entry_pc;
    logic [63:0] exit_pc;
    logic [63:0] gp;
    logic [63:0] param;
    dim3_t grid;
    tid3_t block;                // blockDim (each component <= 1024)
    logic [31:0] shared_base;
    logic [31:0] shared_size;    // static + dynamic bytes of one block
    logic [31:0] shared_static;
    logic [31:0] stack_bytes;
    logic [31:0] local_backing;
  } launch_t;

  // Per-SM events counted by the top's performance counters each cycle.
  typedef struct packed {
    logic issued;            // one warp-instruction issued
    logic [6:0] threads;     // thread-instructions of that issue (popcount of the mask)
    logic load;
    logic store;
    logic barrier_release;
    logic diverged;          // the issued mask was partial
    logic stall_scoreboard;
    logic stall_memory;
    logic stall_barrier;
    logic stall_idle;
    logic block_done;
    logic mem_request;
    logic shared_access;     // a warp instruction that touched shared memory completed
    logic [6:0] shared_passes;  // the bank passes it took
    logic [6:0] atomics;     // thread-level atomics it performed
  } sm_events_t;

endpackage
/* verilator lint_on UNUSEDPARAM */
