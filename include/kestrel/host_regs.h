/* Kestrel host interface: the control/status register map every backend
 * (functional model, Verilated RTL, FPGA over USB) implements.  Registers are
 * 32 bits wide, addressed in bytes; 64-bit quantities are LO/HI pairs.
 * docs/host-interface.md is the prose version. */
#ifndef KESTREL_HOST_REGS_H
#define KESTREL_HOST_REGS_H

/* identification and configuration (read-only) */
#define KESTREL_REG_ID            0x000u /* reads KESTREL_ID_VALUE                   */
#define KESTREL_REG_VERSION       0x004u /* major<<16 | minor                         */
#define KESTREL_REG_CONFIG0       0x008u /* xlen[7:0] lanes[15:8] warps/SM[23:16] SMs[31:24] */
#define KESTREL_REG_CONFIG1       0x00Cu /* shared bytes per SM / 256 [15:0], max threads/block [31:16] */
#define KESTREL_REG_MEM_BASE      0x010u /* device DRAM base (KESTREL_GLOBAL_BASE)    */
#define KESTREL_REG_MEM_SIZE_KB   0x014u /* device DRAM size in KiB                   */
#define KESTREL_REG_CLOCK_KHZ     0x018u /* core clock                                */
#define KESTREL_ID_VALUE          0x4C54534Bu /* "KSTL" */

/* launch descriptor (read/write while idle) */
#define KESTREL_REG_ENTRY_LO      0x040u
#define KESTREL_REG_ENTRY_HI      0x044u
#define KESTREL_REG_EXIT_LO       0x048u
#define KESTREL_REG_EXIT_HI       0x04Cu
#define KESTREL_REG_GP_LO         0x050u
#define KESTREL_REG_GP_HI         0x054u
#define KESTREL_REG_PARAM_LO      0x058u
#define KESTREL_REG_PARAM_HI      0x05Cu
#define KESTREL_REG_GRID_X        0x060u
#define KESTREL_REG_GRID_Y        0x064u
#define KESTREL_REG_GRID_Z        0x068u
#define KESTREL_REG_BLOCK_X       0x06Cu
#define KESTREL_REG_BLOCK_Y       0x070u
#define KESTREL_REG_BLOCK_Z       0x074u
#define KESTREL_REG_SHARED_BASE   0x078u /* shared window base (32-bit address)       */
#define KESTREL_REG_SHARED_STATIC 0x07Cu /* static __shared__ bytes                   */
#define KESTREL_REG_SHARED_DYN    0x080u /* dynamic shared bytes of this launch       */
#define KESTREL_REG_STACK_BYTES   0x084u /* per-thread local/stack bytes              */
#define KESTREL_REG_LOCAL_BACKING 0x088u /* DRAM address of the local-memory backing  */
#define KESTREL_REG_WATCHDOG      0x08Cu /* instruction budget per launch in 2^20 units, 0 = none */

/* control and status */
#define KESTREL_REG_CONTROL       0x0A0u /* write: 1 start, 2 abort                   */
#define KESTREL_REG_STATUS        0x0A4u /* KESTREL_STATUS_*                          */
#define KESTREL_CTRL_START        0x1u
#define KESTREL_CTRL_ABORT        0x2u
#define KESTREL_STATUS_IDLE       0x0u
#define KESTREL_STATUS_RUNNING    0x1u
#define KESTREL_STATUS_DONE       0x2u
#define KESTREL_STATUS_FAULT      0x3u

/* fault record (valid when STATUS == FAULT; cleared by the next START) */
#define KESTREL_REG_FAULT_KIND    0x0C0u /* enum kestrel_fault_kind                   */
#define KESTREL_REG_FAULT_PC_LO   0x0C4u
#define KESTREL_REG_FAULT_PC_HI   0x0C8u
#define KESTREL_REG_FAULT_ADDR_LO 0x0CCu
#define KESTREL_REG_FAULT_ADDR_HI 0x0D0u
#define KESTREL_REG_FAULT_BLOCK_X 0x0D4u
#define KESTREL_REG_FAULT_BLOCK_Y 0x0D8u
#define KESTREL_REG_FAULT_BLOCK_Z 0x0DCu
#define KESTREL_REG_FAULT_THREAD_X 0x0E0u
#define KESTREL_REG_FAULT_THREAD_Y 0x0E4u
#define KESTREL_REG_FAULT_THREAD_Z 0x0E8u
#define KESTREL_REG_FAULT_SM      0x0ECu
#define KESTREL_REG_FAULT_WARP    0x0F0u /* warp index within the block               */
#define KESTREL_REG_FAULT_INFO    0x0F4u /* trap code, or assert line                 */

/* page table: write ADDR and COUNT, then PERMS; the write to PERMS applies it */
#define KESTREL_REG_MAP_ADDR      0x100u /* first page's address (page aligned)       */
#define KESTREL_REG_MAP_PAGES     0x104u /* number of pages                           */
#define KESTREL_REG_MAP_PERMS     0x108u /* KESTREL_PAGE_* bits; 0 unmaps             */

/* performance counters: 64-bit, LO at base + 8*i, HI at base + 8*i + 4;
 * reset by START, frozen when the launch ends */
#define KESTREL_REG_COUNTERS      0x200u
enum kestrel_counter {
  KESTREL_CNT_CYCLES = 0,          /* core clock cycles (model: issue slots)     */
  KESTREL_CNT_WARP_INSTRS = 1,     /* warp-instructions issued                   */
  KESTREL_CNT_THREAD_INSTRS = 2,   /* thread-instructions executed               */
  KESTREL_CNT_LOADS = 3,           /* warp-level loads                           */
  KESTREL_CNT_STORES = 4,          /* warp-level stores                          */
  KESTREL_CNT_BARRIERS = 5,        /* barrier releases                           */
  KESTREL_CNT_DIVERGED_ISSUES = 6, /* issues with a partial thread mask          */
  KESTREL_CNT_STALL_SCOREBOARD = 7,
  KESTREL_CNT_STALL_MEMORY = 8,
  KESTREL_CNT_STALL_BARRIER = 9,
  KESTREL_CNT_STALL_IDLE = 10,     /* no warp ready                              */
  KESTREL_CNT_BLOCKS = 11,         /* blocks completed                           */
  KESTREL_CNT_MEM_REQUESTS = 12,   /* line requests to global memory             */
  KESTREL_CNT_SHARED_ACCESSES = 13, /* warp-level accesses to shared memory        */
  KESTREL_CNT_SHARED_PASSES = 14,  /* bank passes they took (= accesses: no conflict) */
  KESTREL_CNT_ATOMICS = 15,        /* thread-level atomic read-modify-writes     */
  KESTREL_CNT_COUNT = 16
};

#endif /* KESTREL_HOST_REGS_H */
