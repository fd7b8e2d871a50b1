// Host register block bench (RV32, 4 lanes, 4 warps, 1 SM, 8 KiB shared,
// 1 MiB DRAM, 50 MHz): the identification and configuration registers, the
// launch descriptor and its launch_t image, START/ABORT and STATUS through a
// whole launch, the fault record (visible only while STATUS is FAULT,
// cleared by START), MAP_* commands and their ordering, counter reads (the
// per-SM window included), and the request/response handshake.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "Vhost_regs_small.h"
#include "kestrel/abi.h"
#include "kestrel/host_regs.h"
#include "rtl_test.hpp"
#include "wide_bits.hpp"

namespace {

using Bench = kestrel::rtlbench::Bench<Vhost_regs_small>;
namespace contract = kestrel::contract;
using kestrel::rtlbench::put_bits;

uint64_t reg_req(bool write, uint32_t addr, uint32_t wdata) {
  contract::RegReq r;
  r.write = write;
  r.addr = static_cast<uint16_t>(addr & 0xFFF);
  r.wdata = wdata;
  return r.to_bits();
}

class HostRegs : public ::testing::Test {
 protected:
  void SetUp() override {
    b->dram_kb_i = 1024;
    b.reset();
    b->map_ready_i = 1;
    b->map_busy_i = 0;
    b->rsp_ready_i = 1;
  }

  void write(uint32_t offset, uint32_t value) {
    b->req_valid_i = 1;
    b->req_i = reg_req(true, offset, value);
    b.eval();
    for (int guard = 0; !b->req_ready_o && guard < 100; ++guard) b.tick();
    ASSERT_TRUE(b->req_ready_o);
    last_start = b->start_o;
    last_abort = b->abort_o;
    b.tick();
    b->req_valid_i = 0;
    b.eval();
  }

  uint32_t read(uint32_t offset) {
    b->req_valid_i = 1;
    b->req_i = reg_req(false, offset, 0);
    b.eval();
    EXPECT_TRUE(b->req_ready_o);
    b.tick();
    b->req_valid_i = 0;
    b.eval();
    EXPECT_TRUE(b->rsp_valid_o);
    const uint32_t value = b->rsp_rdata_o;
    b.tick();  // response taken
    return value;
  }

  // One cycle of the launch side with the given end/fault inputs.
  void end_launch(bool fault) {
    b->fault_valid_i = fault;
    b.tick();
    b->end_i = 1;
    b->running_i = 0;
    b.tick();
    b->end_i = 0;
    b->fault_valid_i = 0;
    b.eval();
  }

  Bench b;
  bool last_start = false, last_abort = false;
};

TEST_F(HostRegs, IdentificationAndConfiguration) {
  EXPECT_EQ(read(KESTREL_REG_ID), KESTREL_ID_VALUE);
  EXPECT_EQ(read(KESTREL_REG_VERSION), uint32_t{KESTREL_SM_COUNTERS_VERSION}) << "0.2: the per-SM window";
  EXPECT_EQ(read(KESTREL_REG_CONFIG0), 32u | (4u << 8) | (4u << 16) | (1u << 24));
  EXPECT_EQ(read(KESTREL_REG_CONFIG1), (8192u / 256) | (16u << 16)) << "max threads = warps x lanes";
  EXPECT_EQ(read(KESTREL_REG_CONFIG2), KESTREL_SCHED_GTO | (2u << 4) | (5u << 8))
      << "policy GTO, 2 FPU stages, 2^5 I-cache lines";
  EXPECT_EQ(read(KESTREL_REG_CONFIG3),
            (1u << KESTREL_CONFIG3_MEM_WINDOW_BIT) | (1u << KESTREL_CONFIG3_TEX_UNIT_BIT) | (4u << 16) | 32u)
      << "the memory counter window, a 32 KiB 4-way L2";
  EXPECT_EQ(read(KESTREL_REG_MEM_BASE), KESTREL_GLOBAL_BASE);
  EXPECT_EQ(read(KESTREL_REG_MEM_SIZE_KB), 1024u);
  b->dram_kb_i = 512;  // a smaller DRAM strap
  EXPECT_EQ(read(KESTREL_REG_MEM_SIZE_KB), 512u);
  b->dram_kb_i = 4096;  // more than the page table covers
  EXPECT_EQ(read(KESTREL_REG_MEM_SIZE_KB), 1024u);
  b->dram_kb_i = 1024;
  EXPECT_EQ(read(KESTREL_REG_CLOCK_KHZ), 50000u);
  EXPECT_EQ(read(KESTREL_REG_STATUS), KESTREL_STATUS_IDLE);
  write(KESTREL_REG_ID, 0);  // read-only
  EXPECT_EQ(read(KESTREL_REG_ID), KESTREL_ID_VALUE);
  EXPECT_EQ(read(0x3FC), 0u) << "reserved";
  EXPECT_EQ(read(0x03C), 0u) << "reserved";
}

TEST_F(HostRegs, DescriptorReadsBackAndFormsLaunch) {
  std::mt19937 rng(2);
  uint32_t values[20];
  for (uint32_t i = 0; i < 20; ++i) {
    values[i] = rng();
    write(KESTREL_REG_ENTRY_LO + 4 * i, values[i]);
  }
  for (uint32_t i = 0; i < 20; ++i) EXPECT_EQ(read(KESTREL_REG_ENTRY_LO + 4 * i), values[i]) << i;
  // launch_t through its generated layout (tools/contract/contract.toml).
  const contract::Launch l = contract::Launch::unpack(b->launch_o.data());
  EXPECT_EQ(l.local_backing, values[18]) << "local_backing";
  EXPECT_EQ(l.stack_bytes, values[17]) << "stack_bytes";
  EXPECT_EQ(l.shared_static, values[15]) << "shared_static";
  EXPECT_EQ(l.shared_size, uint32_t(values[15] + values[16])) << "shared_size";
  EXPECT_EQ(l.shared_base, values[14]) << "shared_base";
  EXPECT_EQ(l.block_z, values[13] & 0x3FF) << "block.z";
  EXPECT_EQ(l.block_y, values[12] & 0x3FF) << "block.y";
  EXPECT_EQ(l.block_x, values[11] & 0x3FF) << "block.x";
  EXPECT_EQ(l.grid_z, values[10] & 0xFFFF) << "grid.z";
  EXPECT_EQ(l.grid_y, values[9] & 0xFFFF) << "grid.y";
  EXPECT_EQ(l.grid_x, values[8]) << "grid.x";
  EXPECT_EQ(l.param, values[6] | (uint64_t{values[7]} << 32)) << "param";
  EXPECT_EQ(l.gp, values[4] | (uint64_t{values[5]} << 32)) << "gp";
  EXPECT_EQ(l.exit_pc, values[2] | (uint64_t{values[3]} << 32)) << "exit";
  EXPECT_EQ(l.entry_pc, values[0] | (uint64_t{values[1]} << 32)) << "entry";
  EXPECT_EQ(b->watchdog_o, values[19]);
}

TEST_F(HostRegs, LaunchToDone) {
  write(KESTREL_REG_GRID_X, 3);
  write(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  EXPECT_TRUE(last_start);
  EXPECT_EQ(read(KESTREL_REG_STATUS), KESTREL_STATUS_RUNNING);
  b->running_i = 1;
  write(KESTREL_REG_GRID_X, 99);  // ignored while running
  write(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  EXPECT_FALSE(last_start) << "START while running is ignored";
  EXPECT_EQ(read(KESTREL_REG_GRID_X), 3u);
  end_launch(false);
  EXPECT_EQ(read(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  EXPECT_EQ(read(KESTREL_REG_FAULT_KIND), 0u);
}

TEST_F(HostRegs, FaultRecordVisibleUntilNextStart) {
  write(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  b->running_i = 1;
  // fault_t through its generated layout.
  uint32_t* f = b->fault_i.data();
  contract::Fault fault;
  fault.info = 77;
  fault.warp = 2;
  fault.sm = 1;
  fault.thread_z = 5;
  fault.thread_y = 6;
  fault.thread_x = 33;
  fault.block_z = 7;
  fault.block_y = 8;
  fault.block_x = 9;
  fault.addr = 0x1234'5678'1000'2000ull;
  fault.pc = 0xAAAA'BBBB'1000'0234ull;
  fault.kind = KESTREL_FAULT_ILLEGAL_ADDRESS;
  fault.pack(f);
  EXPECT_EQ(read(KESTREL_REG_FAULT_KIND), 0u) << "hidden while running";
  end_launch(true);
  // A second fault after the first is not recorded.
  contract::put(f, contract::fault::kind, KESTREL_FAULT_TRAP);
  b->fault_valid_i = 1;
  b.tick();
  b->fault_valid_i = 0;
  EXPECT_EQ(read(KESTREL_REG_STATUS), KESTREL_STATUS_FAULT);
  EXPECT_EQ(read(KESTREL_REG_FAULT_KIND), unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS});
  EXPECT_EQ(read(KESTREL_REG_FAULT_PC_LO), 0x1000'0234u);
  EXPECT_EQ(read(KESTREL_REG_FAULT_PC_HI), 0xAAAA'BBBBu);
  EXPECT_EQ(read(KESTREL_REG_FAULT_ADDR_LO), 0x1000'2000u);
  EXPECT_EQ(read(KESTREL_REG_FAULT_ADDR_HI), 0x1234'5678u);
  EXPECT_EQ(read(KESTREL_REG_FAULT_BLOCK_X), 9u);
  EXPECT_EQ(read(KESTREL_REG_FAULT_BLOCK_Y), 8u);
  EXPECT_EQ(read(KESTREL_REG_FAULT_BLOCK_Z), 7u);
  EXPECT_EQ(read(KESTREL_REG_FAULT_THREAD_X), 33u);
  EXPECT_EQ(read(KESTREL_REG_FAULT_THREAD_Y), 6u);
  EXPECT_EQ(read(KESTREL_REG_FAULT_THREAD_Z), 5u);
  EXPECT_EQ(read(KESTREL_REG_FAULT_SM), 1u);
  EXPECT_EQ(read(KESTREL_REG_FAULT_WARP), 2u);
  EXPECT_EQ(read(KESTREL_REG_FAULT_INFO), 77u);
  write(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  EXPECT_EQ(read(KESTREL_REG_STATUS), KESTREL_STATUS_RUNNING);
  b->running_i = 1;
  end_launch(false);
  EXPECT_EQ(read(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  EXPECT_EQ(read(KESTREL_REG_FAULT_KIND), 0u);
}

TEST_F(HostRegs, AbortDrainsToIdle) {
  write(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  b->running_i = 1;
  write(KESTREL_REG_CONTROL, KESTREL_CTRL_ABORT);
  EXPECT_TRUE(last_abort);
  EXPECT_EQ(read(KESTREL_REG_STATUS), KESTREL_STATUS_RUNNING) << "still draining";
  end_launch(false);
  EXPECT_EQ(read(KESTREL_REG_STATUS), KESTREL_STATUS_IDLE);
  // ABORT of a finished launch also reads IDLE, without an abort pulse.
  write(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  b->running_i = 1;
  end_launch(false);
  EXPECT_EQ(read(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  write(KESTREL_REG_CONTROL, KESTREL_CTRL_ABORT);
  EXPECT_FALSE(last_abort);
  EXPECT_EQ(read(KESTREL_REG_STATUS), KESTREL_STATUS_IDLE);
}

TEST_F(HostRegs, MapCommandAndOrdering) {
  write(KESTREL_REG_MAP_ADDR, 0x1000'3000);
  write(KESTREL_REG_MAP_PAGES, 5);
  EXPECT_FALSE(b->map_valid_o) << "only MAP_PERMS applies";
  b->map_ready_i = 0;  // the page table is busy with something else
  write(KESTREL_REG_MAP_PERMS, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  EXPECT_TRUE(b->map_valid_o);
  EXPECT_EQ(b->map_addr_o, 0x1000'3000u);
  EXPECT_EQ(b->map_pages_o, 5u);
  EXPECT_EQ(b->map_perms_o, 3u);
  // Requests wait while the command is pending and while the table is busy.
  b->req_valid_i = 1;
  b->req_i = reg_req(false, KESTREL_REG_ID, 0);
  b.eval();
  EXPECT_FALSE(b->req_ready_o);
  b->map_ready_i = 1;
  b.tick();
  EXPECT_FALSE(b->map_valid_o) << "command taken";
  b->map_busy_i = 1;
  b.eval();
  EXPECT_FALSE(b->req_ready_o);
  b->map_busy_i = 0;
  b->req_valid_i = 0;
  b.eval();
  EXPECT_EQ(read(KESTREL_REG_MAP_ADDR), 0x1000'3000u);
  EXPECT_EQ(read(KESTREL_REG_MAP_PAGES), 5u);
  EXPECT_EQ(read(KESTREL_REG_MAP_PERMS), 3u);
}

TEST_F(HostRegs, CountersReadAsLoHiPairs) {
  uint32_t* c = b->counters_i.data();
  for (unsigned i = 0; i < 16; ++i) put_bits(c, 64 * i, 64, 0x0101'0101'0000'0000ull * i + 1000 + i);
  for (unsigned i = 0; i < 16; ++i) {
    const uint64_t v = 0x0101'0101'0000'0000ull * i + 1000 + i;
    EXPECT_EQ(read(KESTREL_REG_COUNTERS + 8 * i), uint32_t(v)) << i;
    EXPECT_EQ(read(KESTREL_REG_COUNTERS + 8 * i + 4), uint32_t(v >> 32)) << i;
  }
}

TEST_F(HostRegs, PerSmCounterWindow) {
  // One SM: its eight counters at KESTREL_REG_SM_COUNTERS; the slots of SMs
  // the device does not have, and the rest of the window, read 0.
  uint32_t* c = b->sm_counters_i.data();
  auto value = [](unsigned j) { return 0x0202'0303'0000'0000ull * (j + 1) + 77 * j; };
  for (unsigned j = 0; j < KESTREL_SM_CNT_COUNT; ++j) put_bits(c, 64 * j, 64, value(j));
  for (unsigned j = 0; j < KESTREL_SM_CNT_COUNT; ++j) {
    EXPECT_EQ(read(KESTREL_REG_SM_COUNTERS + 8 * j), uint32_t(value(j))) << j;
    EXPECT_EQ(read(KESTREL_REG_SM_COUNTERS + 8 * j + 4), uint32_t(value(j) >> 32)) << j;
  }
  for (uint32_t offset = KESTREL_REG_SM_COUNTERS + KESTREL_SM_COUNTERS_STRIDE; offset < 0x1000;
       offset += 0x44)
    EXPECT_EQ(read(offset), 0u) << std::hex << offset;
  EXPECT_EQ(read(KESTREL_REG_SM_COUNTERS - 4), 0u);
  EXPECT_EQ(read(KESTREL_REG_COUNTERS + 8 * KESTREL_CNT_COUNT), 0u);
}

TEST_F(HostRegs, MemoryCounterWindow) {
  uint32_t* c = b->mem_counters_i.data();
  auto value = [](unsigned i) { return 0x0404'0505'0000'0000ull * (i + 1) + 31 * i; };
  for (unsigned i = 0; i < KESTREL_MEM_CNT_COUNT; ++i) put_bits(c, 64 * i, 64, value(i));
  for (unsigned i = 0; i < KESTREL_MEM_CNT_COUNT; ++i) {
    EXPECT_EQ(read(KESTREL_REG_MEM_COUNTERS + 8 * i), uint32_t(value(i))) << i;
    EXPECT_EQ(read(KESTREL_REG_MEM_COUNTERS + 8 * i + 4), uint32_t(value(i) >> 32)) << i;
  }
  // Around the window: reserved.
  EXPECT_EQ(read(KESTREL_REG_MEM_COUNTERS - 4), 0u);
  EXPECT_EQ(read(KESTREL_REG_MEM_COUNTERS + 8 * KESTREL_MEM_CNT_COUNT), 0u);
  EXPECT_EQ(read(KESTREL_REG_MEM_COUNTERS + 8 * KESTREL_MEM_CNT_COUNT + 4), 0u);
}

TEST_F(HostRegs, ResponseWaitsForReady) {
  b->rsp_ready_i = 0;
  b->req_valid_i = 1;
  b->req_i = reg_req(false, KESTREL_REG_ID, 0);
  b.tick();
  b->req_i = reg_req(false, KESTREL_REG_CONFIG0, 0);
  b.eval();
  EXPECT_TRUE(b->rsp_valid_o);
  EXPECT_FALSE(b->req_ready_o) << "a second read waits for the first response";
  for (int i = 0; i < 3; ++i) {
    b.tick();
    EXPECT_TRUE(b->rsp_valid_o);
    EXPECT_EQ(b->rsp_rdata_o, KESTREL_ID_VALUE);
  }
  b->rsp_ready_i = 1;
  b.eval();
  EXPECT_TRUE(b->req_ready_o);
  b.tick();
  b->req_valid_i = 0;
  EXPECT_TRUE(b->rsp_valid_o);
  EXPECT_EQ(b->rsp_rdata_o, 32u | (4u << 8) | (4u << 16) | (1u << 24));
}

}  // namespace
