// The model behind kestrel::Transport: the register map of host_regs.h, a
// launch driven only through registers, the fault record and counters.
#include <sys/resource.h>
#include <algorithm>

#include "harness.hpp"
#include "kestrel/error.hpp"
#include "kestrel/model/model_transport.hpp"

namespace kestrel::model::test {
namespace {

std::unique_ptr<Transport> make(unsigned xlen = 64) {
  BackendConfig c;
  c.xlen = xlen;
  c.num_sms = 3;
  c.warps_per_sm = 6;
  c.lanes_per_warp = 8;
  c.mem_bytes = 4u << 20;
  c.shared_bytes_per_sm = 32 * 1024;
  c.max_threads_per_block = 48;
  return make_model_transport(c);
}

void write64(Transport& t, uint32_t lo, uint64_t v) {
  t.write_reg(lo, static_cast<uint32_t>(v));
  t.write_reg(lo + 4, static_cast<uint32_t>(v >> 32));
}

uint64_t counter(Transport& t, kestrel_counter c) {
  return t.read_reg(KESTREL_REG_COUNTERS + 8 * c) |
         (uint64_t{t.read_reg(KESTREL_REG_COUNTERS + 8 * c + 4)} << 32);
}

uint64_t sm_counter(Transport& t, uint32_t sm, kestrel_sm_counter c) {
  const uint32_t lo = KESTREL_REG_SM_COUNTERS + KESTREL_SM_COUNTERS_STRIDE * sm + 8 * c;
  return t.read_reg(lo) | (uint64_t{t.read_reg(lo + 4)} << 32);
}

void map(Transport& t, uint64_t addr, uint32_t pages, uint32_t perms) {
  t.write_reg(KESTREL_REG_MAP_ADDR, static_cast<uint32_t>(addr));
  t.write_reg(KESTREL_REG_MAP_PAGES, pages);
  t.write_reg(KESTREL_REG_MAP_PERMS, perms);
}

void set_launch(Transport& t, uint32_t blocks, uint32_t threads) {
  write64(t, KESTREL_REG_ENTRY_LO, kCode);
  write64(t, KESTREL_REG_EXIT_LO, kExitStub);
  write64(t, KESTREL_REG_GP_LO, 0);
  write64(t, KESTREL_REG_PARAM_LO, kData);
  t.write_reg(KESTREL_REG_GRID_X, blocks);
  t.write_reg(KESTREL_REG_GRID_Y, 1);
  t.write_reg(KESTREL_REG_GRID_Z, 1);
  t.write_reg(KESTREL_REG_BLOCK_X, threads);
  t.write_reg(KESTREL_REG_BLOCK_Y, 1);
  t.write_reg(KESTREL_REG_BLOCK_Z, 1);
  t.write_reg(KESTREL_REG_SHARED_BASE, kShared);
  t.write_reg(KESTREL_REG_SHARED_STATIC, 0);
  t.write_reg(KESTREL_REG_SHARED_DYN, 0);
  t.write_reg(KESTREL_REG_STACK_BYTES, 1024);
  t.write_reg(KESTREL_REG_LOCAL_BACKING, static_cast<uint32_t>(KESTREL_GLOBAL_BASE + (1u << 20)));
  t.write_reg(KESTREL_REG_WATCHDOG, 0);
}

void load(Transport& t, const Assembler& a) {
  const std::vector<uint32_t> words = a.finish();
  t.write_mem(kCode, words.data(), words.size() * 4);
  const uint32_t exit_word = 0x0000000B;
  t.write_mem(kExitStub, &exit_word, 4);
  map(t, kCode, 16, KESTREL_PAGE_READ | KESTREL_PAGE_EXEC);
  map(t, kData, 16, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
}

TEST(ModelTransport, IdentificationAndConfiguration) {
  auto t = make();
  EXPECT_EQ(t->name(), "model");
  EXPECT_EQ(t->read_reg(KESTREL_REG_ID), KESTREL_ID_VALUE);
  EXPECT_EQ(t->read_reg(KESTREL_REG_CONFIG0), 64u | (8u << 8) | (6u << 16) | (3u << 24));
  EXPECT_EQ(t->read_reg(KESTREL_REG_CONFIG1), (32u * 1024 / 256) | (48u << 16));
  EXPECT_EQ(t->read_reg(KESTREL_REG_MEM_BASE), KESTREL_GLOBAL_BASE);
  EXPECT_EQ(t->read_reg(KESTREL_REG_MEM_SIZE_KB), 4096u);
  EXPECT_EQ(t->read_reg(KESTREL_REG_CLOCK_KHZ), 100000u);
  EXPECT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_IDLE);
  t->write_reg(KESTREL_REG_GRID_X, 77);
  EXPECT_EQ(t->read_reg(KESTREL_REG_GRID_X), 77u);
  EXPECT_EQ(make(32)->read_reg(KESTREL_REG_CONFIG0) & 0xFF, 32u);
}

TEST(ModelTransport, BadRequestsThrow) {
  auto t = make();
  uint32_t word = 0;
  EXPECT_THROW(t->read_reg(0x41), Error);
  EXPECT_THROW(t->write_reg(0x42, 1), Error);
  EXPECT_THROW(t->write_mem(0x1000, &word, 4), Error);
  EXPECT_THROW(t->read_mem(KESTREL_GLOBAL_BASE + (4u << 20), &word, 4), Error);
  EXPECT_THROW(t->write_mem(kData, nullptr, 4), Error);
  EXPECT_THROW(map(*t, kData + 2, 1, KESTREL_PAGE_READ), Error);
  try {
    make(48);
    FAIL() << "xlen 48 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE);
  }
  EXPECT_EQ(t->read_reg(0x1F0), 0u) << "reserved registers read as zero";
}

// The model backend takes no backend options: any is refused by name.
TEST(ModelTransport, RefusesBackendOptions) {
  BackendConfig c;
  c.mem_bytes = 4u << 20;
  c.options["lockstep"] = "1";
  try {
    make_model_transport(c);
    FAIL() << "a backend option was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE);
    EXPECT_NE(std::string(e.what()).find("'lockstep'"), std::string::npos) << e.what();
  }
}

TEST(ModelTransport, LaunchThroughRegisters) {
  // out[global] = global + 1, using the stack (local memory backed by DRAM).
  auto t = make();
  Assembler a(64);
  a.global_index_x(t0, t1);
  a.addi(sp, sp, -16);
  a.sd(t0, sp, 8);
  a.ld(t2, sp, 8);
  a.addi(t2, t2, 1);
  a.slli(t3, t0, 2);
  a.add(t3, t3, a0);
  a.sw(t2, t3, 0);
  a.ret();  // to the exit stub
  load(*t, a);
  set_launch(*t, 10, 20);
  t->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  EXPECT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_RUNNING);
  t->wait_idle();
  ASSERT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  for (uint32_t i = 0; i < 200; ++i) {
    uint32_t v = 0;
    t->read_mem(kData + 4 * i, &v, 4);
    EXPECT_EQ(v, i + 1);
  }
  EXPECT_EQ(counter(*t, KESTREL_CNT_BLOCKS), 10u);
  EXPECT_EQ(counter(*t, KESTREL_CNT_THREAD_INSTRS), 200u * 14);
  EXPECT_EQ(counter(*t, KESTREL_CNT_WARP_INSTRS), 10u * 3 * 14);
  EXPECT_EQ(counter(*t, KESTREL_CNT_LOADS), 30u);
  EXPECT_EQ(counter(*t, KESTREL_CNT_STORES), 60u);
  EXPECT_GT(counter(*t, KESTREL_CNT_MEM_REQUESTS), 0u);
  EXPECT_GT(counter(*t, KESTREL_CNT_CYCLES), 0u);
  // The stacks really live in DRAM at local_backing, warp slot 0 (SM 0,
  // warp 0) first, its 8 lanes interleaved in 8-byte granules (docs/isa.md
  // section 4): lane 0, which last ran thread 0 of a block on SM 0, keeps
  // its window's byte 1016 (sp - 16 + 8) at granule 127 * 8 lanes.
  uint64_t saved = 1;
  t->read_mem(KESTREL_GLOBAL_BASE + (1u << 20) + (1016 / 8) * 8 * 8, &saved, 8);
  EXPECT_EQ(saved % 20, 0u);
  // ... and lane 1's (thread 1 of a block) the next 8 bytes.
  t->read_mem(KESTREL_GLOBAL_BASE + (1u << 20) + (1016 / 8) * 8 * 8 + 8, &saved, 8);
  EXPECT_EQ(saved % 20, 1u);

  // The per-SM window (VERSION 2): each SM's part of the counters, summing
  // to them; the model has no stalls; the busiest SM's issue slots are the
  // launch's cycles; the slots of SMs the device lacks read 0.
  EXPECT_EQ(t->read_reg(KESTREL_REG_VERSION), uint32_t{KESTREL_SM_COUNTERS_VERSION});
  uint64_t blocks = 0, warp_instrs = 0, thread_instrs = 0, busiest = 0;
  for (uint32_t sm = 0; sm < 3; ++sm) {
    EXPECT_GT(sm_counter(*t, sm, KESTREL_SM_CNT_BLOCKS), 0u) << "SM " << sm;
    blocks += sm_counter(*t, sm, KESTREL_SM_CNT_BLOCKS);
    warp_instrs += sm_counter(*t, sm, KESTREL_SM_CNT_WARP_INSTRS);
    thread_instrs += sm_counter(*t, sm, KESTREL_SM_CNT_THREAD_INSTRS);
    EXPECT_EQ(sm_counter(*t, sm, KESTREL_SM_CNT_WARP_INSTRS),
              sm_counter(*t, sm, KESTREL_SM_CNT_BLOCKS) * 3 * 14);
    busiest = std::max(busiest, sm_counter(*t, sm, KESTREL_SM_CNT_ACTIVE_CYCLES));
    for (auto stall : {KESTREL_SM_CNT_STALL_SCOREBOARD, KESTREL_SM_CNT_STALL_MEMORY,
                       KESTREL_SM_CNT_STALL_BARRIER, KESTREL_SM_CNT_STALL_IDLE})
      EXPECT_EQ(sm_counter(*t, sm, stall), 0u);
  }
  EXPECT_EQ(blocks, 10u);
  EXPECT_EQ(warp_instrs, counter(*t, KESTREL_CNT_WARP_INSTRS));
  EXPECT_EQ(thread_instrs, counter(*t, KESTREL_CNT_THREAD_INSTRS));
  EXPECT_EQ(busiest, counter(*t, KESTREL_CNT_CYCLES));
  for (uint32_t j = 0; j < KESTREL_SM_CNT_COUNT; ++j)
    EXPECT_EQ(sm_counter(*t, 3, static_cast<kestrel_sm_counter>(j)), 0u) << "no SM 3";
  EXPECT_EQ(t->read_reg(0xFFC), 0u);
}

// advance() runs the launch in slices; the result and every counter are the
// ones a single wait_idle() gives, and a host write between two slices is
// seen by the kernel (the copy engine).
TEST(ModelTransport, AdvanceInSlicesMatchesOneRun) {
  auto program = [] {
    // out[global] = global + 1 + out[200] (a word the host may change mid-launch).
    Assembler a(64);
    a.global_index_x(t0, t1);
    a.lw(t2, a0, 800);
    a.add(t2, t2, t0);
    a.addi(t2, t2, 1);
    a.slli(t3, t0, 2);
    a.add(t3, t3, a0);
    a.sw(t2, t3, 0);
    a.ret();
    return a;
  };
  auto whole = make();
  load(*whole, program());
  set_launch(*whole, 10, 20);
  whole->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  whole->wait_idle();
  ASSERT_EQ(whole->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);

  auto sliced = make();
  EXPECT_TRUE(sliced->overlaps_copies());
  load(*sliced, program());
  set_launch(*sliced, 10, 20);
  sliced->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  int slices = 0;
  while (sliced->advance(16)) ++slices;
  EXPECT_GE(slices, 3);
  ASSERT_EQ(sliced->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  for (int c = 0; c < KESTREL_CNT_COUNT; ++c)
    EXPECT_EQ(counter(*sliced, static_cast<kestrel_counter>(c)),
              counter(*whole, static_cast<kestrel_counter>(c)))
        << c;
  for (uint32_t i = 0; i < 200; ++i) {
    uint32_t a = 0, b = 0;
    whole->read_mem(kData + 4 * i, &a, 4);
    sliced->read_mem(kData + 4 * i, &b, 4);
    EXPECT_EQ(a, i + 1);
    EXPECT_EQ(b, a);
  }

  // A host write after the first slice reaches the blocks that run later.
  auto copied = make();
  load(*copied, program());
  set_launch(*copied, 10, 20);
  copied->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  ASSERT_TRUE(copied->advance(16));
  const uint32_t offset = 1000;
  copied->write_mem(kData + 800, &offset, 4);
  while (copied->advance(16)) {
  }
  uint32_t last = 0;
  copied->read_mem(kData + 4 * 199, &last, 4);
  EXPECT_EQ(last, 199u + 1 + offset);
}

TEST(ModelTransport, FaultRecordAndRestart) {
  auto t = make();
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(t1, 9);
  a.bne(t0, t1, "ok");
  a.sw(t0, zero, 0x40);  // null guard
  a.bind("ok");
  a.kx_exit();
  load(*t, a);
  set_launch(*t, 4, 16);
  t->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  t->wait_idle();
  ASSERT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_FAULT);
  EXPECT_EQ(t->read_reg(KESTREL_REG_FAULT_KIND), KESTREL_FAULT_ILLEGAL_ADDRESS);
  EXPECT_EQ(t->read_reg(KESTREL_REG_FAULT_PC_LO), static_cast<uint32_t>(kCode + 12));
  EXPECT_EQ(t->read_reg(KESTREL_REG_FAULT_PC_HI), 0u);
  EXPECT_EQ(t->read_reg(KESTREL_REG_FAULT_ADDR_LO), 0x40u);
  EXPECT_EQ(t->read_reg(KESTREL_REG_FAULT_THREAD_X), 9u);
  EXPECT_EQ(t->read_reg(KESTREL_REG_FAULT_WARP), 1u);
  EXPECT_EQ(t->read_reg(KESTREL_REG_FAULT_BLOCK_X), 0u) << "block 0's warp 1 faults first";
  EXPECT_EQ(t->read_reg(KESTREL_REG_FAULT_SM), 0u);

  // Fix the program; START clears the record and the counters.
  Assembler b(64);
  b.kx_exit();
  load(*t, b);
  t->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  EXPECT_EQ(t->read_reg(KESTREL_REG_FAULT_KIND), 0u);
  t->wait_idle();
  EXPECT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  EXPECT_EQ(counter(*t, KESTREL_CNT_WARP_INSTRS), 4u * 2);
}

TEST(ModelTransport, WatchdogRegisterBudgetsCycles) {
  auto t = make();
  Assembler a(64);
  a.bind("forever");
  a.j("forever");
  load(*t, a);
  set_launch(*t, 1, 8);
  t->write_reg(KESTREL_REG_WATCHDOG, 1);  // 2^20 cycles
  t->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  t->wait_idle();
  ASSERT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_FAULT);
  EXPECT_EQ(t->read_reg(KESTREL_REG_FAULT_KIND), KESTREL_FAULT_TIMEOUT);
  EXPECT_EQ(counter(*t, KESTREL_CNT_CYCLES), 1u << 20);
}

// Without LOCAL_BACKING the model keeps each thread's local window itself.
// The descriptor may size it up to the whole window (16 MiB a thread, 128 MiB
// for a warp of 8 lanes): only the pages a kernel touches may cost host
// memory, and each block still starts with zeroed windows.  (Found by
// tests/fuzz, fuzz_model_transport: a launch of the largest stack zero-filled
// gigabytes per block and ran out of memory.)
TEST(ModelTransport, PrivateLocalWindowsCostOnlyTouchedPages) {
  auto t = make();
  Assembler a(64);
  a.global_index_x(t0, t1);
  a.lw(t2, sp, -4);  // the top word of the window: zero for every block
  a.add(t2, t2, t0);
  a.sw(t2, sp, -4);
  a.li(t4, 1 << 24);
  a.sub(t4, sp, t4);  // the window's first byte
  a.lw(t5, t4, 0);
  a.add(t5, t5, t2);
  a.sw(t5, t4, 0);
  a.lw(t5, t4, 0);
  a.lw(t6, sp, -4);
  a.add(t5, t5, t6);  // 2 * index when both windows started zeroed
  a.slli(t3, t0, 2);
  a.add(t3, t3, a0);
  a.sw(t5, t3, 0);
  a.ret();
  load(*t, a);
  set_launch(*t, 12, 16);
  t->write_reg(KESTREL_REG_STACK_BYTES, 1u << 24);
  t->write_reg(KESTREL_REG_LOCAL_BACKING, 0);
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  t->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  t->wait_idle();
  ASSERT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  for (uint32_t i = 0; i < 12 * 16; ++i) {
    uint32_t v = 0;
    t->read_mem(kData + 4 * i, &v, 4);
    EXPECT_EQ(v, 2 * i) << "thread " << i;
  }
  // ru_maxrss is in KiB: the launch's peak grows by far less than one warp's
  // 128 MiB of windows.
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 32 * 1024);
}

// A grid of 2^17 x 2^15 blocks (CUDA allows x up to 2^31 - 1, y and z up to
// 65535): the block index and grid.x * grid.y take 64 bits.  (Found by
// tests/fuzz, fuzz_model_transport: the 32-bit product wrapped to 0 and the
// model divided by it at the first block, SIGFPE.)
TEST(ModelTransport, GridOfMoreThan2To32Blocks) {
  auto t = make();
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_CTAID_Z);
  a.csrr(t1, KESTREL_CSR_CTAID_Y);
  a.add(t0, t0, t1);
  a.addi(t0, t0, 7);
  a.sw(t0, a0, 0);  // 7 while the blocks of z = 0, y = 0 run
  a.ret();
  load(*t, a);
  set_launch(*t, 1u << 17, 8);
  t->write_reg(KESTREL_REG_GRID_Y, 1u << 15);
  t->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  EXPECT_TRUE(t->advance(1000));
  EXPECT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_RUNNING);
  uint32_t v = 0;
  t->read_mem(kData, &v, 4);
  EXPECT_EQ(v, 7u);
  t->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_ABORT);
  EXPECT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_IDLE);
}

TEST(ModelTransport, AbortAndUnmap) {
  auto t = make();
  Assembler a(64);
  a.kx_exit();
  load(*t, a);
  set_launch(*t, 1, 1);
  t->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  t->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_ABORT);
  EXPECT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_IDLE);
  t->wait_idle();
  map(*t, kCode, 16, 0);  // unmapping the code makes the next launch fault on fetch
  t->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  t->wait_idle();
  EXPECT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_FAULT);
  EXPECT_EQ(t->read_reg(KESTREL_REG_FAULT_KIND), KESTREL_FAULT_FETCH);
}

}  // namespace
}  // namespace kestrel::model::test
