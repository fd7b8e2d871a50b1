// kestrel_page_table: one permission entry (KESTREL_PAGE_R/W/X) per 4 KiB page
// of device DRAM, and the page check of every global memory request.
//
// Map side: a command (first page address, page count, permissions) is taken
// with a valid/ready handshake and applied by a small FSM that writes one
// entry per cycle; `map_busy_o` is high until the last entry is written, so a
// check made after that sees the new permissions.  Pages outside DRAM are
// skipped (the host side refuses such ranges before they get here).  After
// reset a clearing pass unmaps every page (Pages / RowPages cycles, busy).
//
// Check side: combinational.  The request kind selects the rule of docs/isa.md
// section 4 (the functional model's translate()): outside DRAM or unmapped is
// ILLEGAL_ADDRESS, a load needs R (else ILLEGAL_ADDRESS), a store needs W
// (WRITE_PROTECT on a mapped page without it), a fetch needs X (FETCH
// otherwise), and local-memory backing is only range checked.
`include "kestrel_assert.svh"

module kestrel_page_table #(
  // Capacity: the most DRAM the table can describe.  The DRAM really present
  // (dram_kb_i, a strap of the board or harness) may be smaller.
  parameter int unsigned MemBytes = 256 * 1024 * 1024,
  localparam int unsigned Pages = MemBytes >> kestrel_pkg::PageShift,
  // Entries are stored RowPages to a RAM row so that the clearing pass after
  // reset takes Pages / RowPages cycles (4 096 at 256 MiB) instead of Pages.
  localparam int unsigned RowPages = (Pages >= 16) ? 16 : Pages,
  localparam int unsigned Rows = Pages / RowPages,
  localparam int unsigned RowW = (Rows > 1) ? $clog2(Rows) : 1,
  localparam int unsigned ColW = (RowPages > 1) ? $clog2(RowPages) : 1
) (
  input  logic                            clk_i,
  input  logic                            rst_ni,
  input  logic [31:0]                     dram_kb_i,     // DRAM present, KiB (<= MemBytes / 1024)
  // map command side
  input  logic                            map_valid_i,
  output logic                            map_ready_o,
  input  logic [31:0]                     map_addr_i,    // page aligned; bits 11:0 ignored
  input  logic [31:0]                     map_pages_i,
  input  logic [2:0]                      map_perms_i,
  output logic                            map_busy_o,
  // check side
  input  kestrel_pkg::mem_kind_e          chk_kind_i,
  input  logic [kestrel_pkg::AddrW-1:0]   chk_addr_i,
  output kestrel_pkg::fault_kind_e        chk_fault_o,
  output logic                            chk_readonly_o  // mapped readable, not writable
);
  localparam logic [32:0] DramBase = 33'(kestrel_pkg::GlobalBase);
  localparam logic [32:0] CapacityEnd = DramBase + 33'(MemBytes);
  logic [32:0] dram_end;
  always_comb begin
    dram_end = DramBase + {dram_kb_i[22:0], 10'd0};
    if (dram_end > CapacityEnd || dram_kb_i[31:23] != '0) dram_end = CapacityEnd;
  end
  localparam logic [32:0] PageBytes = 33'(1) << kestrel_pkg::PageShift;

  // Unreset RAM (block/distributed RAM on an FPGA), zeroed by the MapClear pass.
  logic [RowPages*3-1:0] perms_q [Rows];

  typedef enum logic [1:0] {
    MapClear = 2'd0,
    MapIdle = 2'd1,
    MapWrite = 2'd2
  } map_state_e;

  map_state_e state_q, state_d;
  logic [32:0] page_q, page_d;      // MapWrite: address of the next page to write
  logic [31:0] left_q, left_d;      // MapWrite: pages still to write
  logic [RowW-1:0] clear_q, clear_d;  // MapClear: next row to zero
  logic [2:0] wperms_q, wperms_d;
  logic we;
  logic [RowW-1:0] wrow;
  logic [RowPages*3-1:0] wdata;
  logic [31:0] wpage;

  assign map_ready_o = (state_q == MapIdle);
  assign map_busy_o = (state_q != MapIdle);
  `KESTREL_ASSERT_KNOWN(map_valid_known, map_valid_i)

  always_comb begin
    state_d = state_q;
    page_d = page_q;
    left_d = left_q;
    clear_d = clear_q;
    wperms_d = wperms_q;
    we = 1'b0;
    wpage = 32'((page_q - DramBase) >> kestrel_pkg::PageShift);
    wrow = RowW'(wpage / RowPages);
    wdata = perms_q[wrow];
    wdata[(wpage % RowPages)*3 +: 3] = wperms_q;
    unique case (state_q)
      MapClear: begin
        we = 1'b1;
        wrow = clear_q;
        wdata = '0;
        clear_d = clear_q + 1'b1;
        if (32'(clear_q) == Rows - 1) state_d = MapIdle;
      end
      MapIdle: begin
        if (map_valid_i && map_pages_i != '0) begin
          state_d = MapWrite;
          page_d = {1'b0, map_addr_i[31:kestrel_pkg::PageShift], {kestrel_pkg::PageShift{1'b0}}};
          left_d = map_pages_i;
          wperms_d = map_perms_i;
        end
      end
      MapWrite: begin
        we = (page_q >= DramBase) && (page_q < dram_end);
        page_d = page_q + PageBytes;
        left_d = left_q - 1'b1;
        // Stop at the last page, or once the run has left DRAM for good.
        if (left_d == '0 || page_d >= dram_end) state_d = MapIdle;
      end
      default: state_d = MapIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= MapClear;
      page_q <= '0;
      left_q <= '0;
      clear_q <= '0;
      wperms_q <= '0;
    end else begin
      state_q <= state_d;
      page_q <= page_d;
      left_q <= left_d;
      clear_q <= clear_d;
      wperms_q <= wperms_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (we) perms_q[wrow] <= wdata;
  end

  // ---------------------------------------------------------------------------
  // Check.
  // ---------------------------------------------------------------------------
  logic chk_in_dram;
  logic [2:0] chk_perms;
  logic [31:0] chk_page;
  logic [RowPages*3-1:0] chk_row;

  always_comb begin
    chk_in_dram = ({1'b0, chk_addr_i} >= DramBase) && ({1'b0, chk_addr_i} < dram_end);
    chk_page = (chk_addr_i - kestrel_pkg::GlobalBase) >> kestrel_pkg::PageShift;
    chk_row = perms_q[RowW'(chk_page / RowPages)];
    chk_perms = chk_in_dram ? chk_row[ColW'(chk_page % RowPages)*3 +: 3] : 3'b000;
    chk_readonly_o = chk_perms[kestrel_pkg::PermRead] && !chk_perms[kestrel_pkg::PermWrite];
    chk_fault_o = kestrel_pkg::FaultNone;
    unique case (chk_kind_i)
      kestrel_pkg::MemRead: begin
        if (!chk_perms[kestrel_pkg::PermRead]) chk_fault_o = kestrel_pkg::FaultIllegalAddress;
      end
      kestrel_pkg::MemWrite: begin
        if (!chk_perms[kestrel_pkg::PermWrite]) begin
          chk_fault_o = (chk_perms != 3'b000) ? kestrel_pkg::FaultWriteProtect
                                              : kestrel_pkg::FaultIllegalAddress;
        end
      end
      kestrel_pkg::MemFetch: begin
        if (!chk_perms[kestrel_pkg::PermExec]) chk_fault_o = kestrel_pkg::FaultFetch;
      end
      default: begin  // MemLocal: the backing must lie in DRAM, no permissions
        if (!chk_in_dram) chk_fault_o = kestrel_pkg::FaultIllegalAddress;
      end
    endcase
  end

  // Bits 11:0 of the map address are the offset inside the first page.
  logic unused_map_offset;
  assign unused_map_offset = ^map_addr_i[kestrel_pkg::PageShift-1:0];
endmodule
