// rtlsim backend smoke tests on the small preset (RV32, 4 lanes, 4 warps,
// 1 SM), each compared with the functional model behind the same Transport
// interface: identification registers, DRAM bounds, START validation, a
// hand-assembled kernel that writes every thread's global index, and a
// kernel that stores to an unmapped page (ILLEGAL_ADDRESS fault record);
// lock-step mode on both kernels and its report of an injected mismatch;
// on the default preset (two SMs), GPU lock-step of raced global atomics and
// its report of an injected wrong old value; FST
// tracing (a valid file, a window) or its refusal in a build without it.
#include <gtest/gtest.h>

// A build of the small preset alone (KESTREL_RTLSIM_SMALL_ONLY, the sanitizer
// job's) has no traced preset, hence no FST library and no trace test.
#if !KESTREL_RTLSIM_SMALL_ONLY
#include "fstapi.h"
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"
#include "kestrel/model/model_transport.hpp"
#include "kestrel/model/rv_assembler.hpp"
#include "kestrel/rtlsim/rtlsim_transport.hpp"

namespace {

using namespace kestrel::model::rvasm;

kestrel::BackendConfig small_config() {
  kestrel::BackendConfig c;
  c.xlen = 32;
  c.lanes_per_warp = 4;
  c.warps_per_sm = 4;
  c.num_sms = 1;
  c.mem_bytes = 1u << 20;
  return c;
}

constexpr uint32_t kCode = KESTREL_GLOBAL_BASE;
constexpr uint32_t kOut = KESTREL_GLOBAL_BASE + 0x4000;

// out[blockIdx.x * blockDim.x + threadIdx.x] = that index; a0 = out.
std::vector<uint32_t> index_kernel() {
  Assembler a(32);
  a.global_index_x(t0, t1);
  a.slli(t2, t0, 2);
  a.add(t2, a0, t2);
  a.sw(t0, t2, 0);
  a.kx_exit();
  return a.finish();
}

void launch(kestrel::Transport& t, const std::vector<uint32_t>& code, uint32_t param, uint32_t grid,
            uint32_t block) {
  t.write_mem(kCode, code.data(), code.size() * 4);
  t.write_reg(KESTREL_REG_MAP_ADDR, kCode);
  t.write_reg(KESTREL_REG_MAP_PAGES, 1);
  t.write_reg(KESTREL_REG_MAP_PERMS, KESTREL_PAGE_READ | KESTREL_PAGE_EXEC);
  t.write_reg(KESTREL_REG_MAP_ADDR, kOut);
  t.write_reg(KESTREL_REG_MAP_PAGES, 2);
  t.write_reg(KESTREL_REG_MAP_PERMS, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  t.write_reg(KESTREL_REG_ENTRY_LO, kCode);
  t.write_reg(KESTREL_REG_EXIT_LO, kCode + static_cast<uint32_t>(code.size() * 4 - 4));
  t.write_reg(KESTREL_REG_PARAM_LO, param);
  t.write_reg(KESTREL_REG_GRID_X, grid);
  t.write_reg(KESTREL_REG_GRID_Y, 1);
  t.write_reg(KESTREL_REG_GRID_Z, 1);
  t.write_reg(KESTREL_REG_BLOCK_X, block);
  t.write_reg(KESTREL_REG_BLOCK_Y, 1);
  t.write_reg(KESTREL_REG_BLOCK_Z, 1);
  t.write_reg(KESTREL_REG_STACK_BYTES, 256);
  t.write_reg(KESTREL_REG_LOCAL_BACKING, KESTREL_GLOBAL_BASE + 0x8000);
  t.write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  t.wait_idle();
}

uint64_t counter(kestrel::Transport& t, unsigned i) {
  return t.read_reg(KESTREL_REG_COUNTERS + 8 * i) |
         (uint64_t{t.read_reg(KESTREL_REG_COUNTERS + 8 * i + 4)} << 32);
}

uint64_t mem_counter(kestrel::Transport& t, unsigned i) {
  const uint32_t lo = KESTREL_REG_MEM_COUNTERS + 8 * i;
  return t.read_reg(lo) | (uint64_t{t.read_reg(lo + 4)} << 32);
}

uint64_t window(kestrel::Transport& t, uint32_t sm, unsigned j) {
  const uint32_t lo = KESTREL_REG_SM_COUNTERS + KESTREL_SM_COUNTERS_STRIDE * sm + 8 * j;
  return t.read_reg(lo) | (uint64_t{t.read_reg(lo + 4)} << 32);
}

TEST(Rtlsim, IdentifiesLikeTheModel) {
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(small_config());
  auto model = kestrel::model::make_model_transport(small_config());
  EXPECT_EQ(rtl->name(), "rtlsim");
  for (uint32_t reg : {KESTREL_REG_ID, KESTREL_REG_VERSION, KESTREL_REG_CONFIG0, KESTREL_REG_MEM_BASE,
                       KESTREL_REG_MEM_SIZE_KB, KESTREL_REG_STATUS}) {
    EXPECT_EQ(rtl->read_reg(reg), model->read_reg(reg)) << "register " << reg;
  }
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_CONFIG1), (64u * 1024 / 256) | (16u << 16));
  // CONFIG2: the SM parameters the GPU top passes down (kestrel_sm's
  // defaults here), as the model reports them.
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_CONFIG2), KESTREL_SCHED_LRR | (3u << 4) | (4u << 8));
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_CONFIG2), model->read_reg(KESTREL_REG_CONFIG2));
}

// The presets: matched by geometry and scheduler policy or picked by name;
// a request no preset matches is refused with the built ones listed and how
// to build another.
TEST(Rtlsim, ChoosesPresetsAndListsThemWhenNoneMatches) {
  const std::vector<std::string> names = kestrel::rtlsim::preset_names();
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(names[0], "default (rv64 2x8x32 lrr)");
  EXPECT_EQ(names[2], "small (rv32 1x4x4 lrr)");
  kestrel::BackendConfig gto = small_config();
  gto.sched_policy = KESTREL_SCHED_GTO;
  try {
    kestrel::rtlsim::make_rtlsim_transport(gto);
    FAIL() << "a GTO request opened an LRR preset";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE);
    const std::string text = e.what();
    EXPECT_NE(text.find("no RTL build for rv32 1x4x4 gto"), std::string::npos) << text;
    EXPECT_NE(text.find("small (rv32 1x4x4 lrr)"), std::string::npos) << text;
    EXPECT_NE(text.find("-DKESTREL_RTLSIM_PRESETS="), std::string::npos) << text;
  }
  kestrel::BackendConfig by_name;  // the default geometry, replaced by the preset's
  by_name.mem_bytes = 1u << 20;
  by_name.options["preset"] = "small";
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(by_name);
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_CONFIG0), 32u | (4u << 8) | (4u << 16) | (1u << 24));
  by_name.options["preset"] = "tiny";
  try {
    kestrel::rtlsim::make_rtlsim_transport(by_name);
    FAIL() << "an unknown preset name was accepted";
  } catch (const kestrel::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no preset named 'tiny'"), std::string::npos) << e.what();
  }
}

TEST(Rtlsim, BadAccessesThrow) {
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(small_config());
  uint32_t word = 0;
  EXPECT_THROW(rtl->read_reg(2), kestrel::Error);
  EXPECT_THROW(rtl->write_mem(KESTREL_GLOBAL_BASE - 4, &word, 4), kestrel::Error);
  EXPECT_THROW(rtl->read_mem(KESTREL_GLOBAL_BASE + (1u << 20) - 2, &word, 4), kestrel::Error);
  // An empty copy may come with a null pointer (an empty std::vector's data()):
  // accepted inside DRAM, refused outside, never passed on to memcpy (UBSan
  // caught that in the sanitizer build and fuzz_rtlsim_transport), as the
  // model does.
  EXPECT_NO_THROW(rtl->write_mem(KESTREL_GLOBAL_BASE + 64, nullptr, 0));
  EXPECT_NO_THROW(rtl->read_mem(KESTREL_GLOBAL_BASE + (1u << 20), nullptr, 0));
  EXPECT_THROW(rtl->write_mem(KESTREL_GLOBAL_BASE - 4, nullptr, 0), kestrel::Error);
  EXPECT_THROW(rtl->write_mem(KESTREL_GLOBAL_BASE, nullptr, 4), kestrel::Error);
  EXPECT_THROW(rtl->read_mem(KESTREL_GLOBAL_BASE, nullptr, 4), kestrel::Error);
  auto model = kestrel::model::make_model_transport(small_config());
  EXPECT_NO_THROW(model->write_mem(KESTREL_GLOBAL_BASE + 64, nullptr, 0));
  EXPECT_NO_THROW(model->read_mem(KESTREL_GLOBAL_BASE + (1u << 20), nullptr, 0));
  kestrel::BackendConfig odd = small_config();
  odd.lanes_per_warp = 8;
  EXPECT_THROW(kestrel::rtlsim::make_rtlsim_transport(odd), kestrel::Error);
  // A block of more threads than the SM holds is refused at START, as the model does.
  rtl->write_reg(KESTREL_REG_GRID_X, 1);
  rtl->write_reg(KESTREL_REG_GRID_Y, 1);
  rtl->write_reg(KESTREL_REG_GRID_Z, 1);
  rtl->write_reg(KESTREL_REG_BLOCK_X, 17);
  rtl->write_reg(KESTREL_REG_BLOCK_Y, 1);
  rtl->write_reg(KESTREL_REG_BLOCK_Z, 1);
  try {
    rtl->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
    FAIL() << "START accepted a 17-thread block on a 16-thread SM";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_CONFIG);
  }
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_IDLE);
}

// Backend options: an unknown name is refused with the names rtlsim knows, a
// malformed value with the option's name; an option wins over its
// environment variable.
TEST(Rtlsim, ChecksBackendOptions) {
  kestrel::BackendConfig config = small_config();
  config.options["lockstpe"] = "1";
  try {
    kestrel::rtlsim::make_rtlsim_transport(config);
    FAIL() << "an unknown backend option was accepted";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE);
    const std::string text = e.what();
    EXPECT_NE(text.find("'lockstpe'"), std::string::npos) << text;
    EXPECT_NE(text.find("lockstep"), std::string::npos) << text;
  }
  config = small_config();
  config.options["mem_latency"] = "soon";
  try {
    kestrel::rtlsim::make_rtlsim_transport(config);
    FAIL() << "a malformed option value was accepted";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE);
    EXPECT_NE(std::string(e.what()).find("option mem_latency"), std::string::npos) << e.what();
  }
  ASSERT_EQ(setenv("KESTREL_RTLSIM_MEM_LATENCY", "0", 1), 0);  // invalid (>= 1), but the option wins
  config = small_config();
  config.options["mem_latency"] = "5";
  EXPECT_NO_THROW(kestrel::rtlsim::make_rtlsim_transport(config));
  EXPECT_THROW(kestrel::rtlsim::make_rtlsim_transport(small_config()), kestrel::Error);
  unsetenv("KESTREL_RTLSIM_MEM_LATENCY");
}

// The DRAM model behind the port (docs/memory-system.md): a preset and its
// overrides from the options, bad timings refused; every line request the
// GPU counts reaches the model (no fault: the RTL's mem_requests, fetches
// included, equal the model's reads and writes), each with one row-buffer
// outcome; a slower DRAM takes more cycles for the same kernel, whose result
// does not change.
TEST(Rtlsim, DramModelTimesTheMemoryPortAndCountsIt) {
  const std::vector<uint32_t> code = index_kernel();
  constexpr uint32_t kGrid = 6, kBlock = 8;
  uint64_t cycles[2] = {0, 0};
  const char* presets[2] = {"ideal", "ddr3"};
  for (int i = 0; i < 2; ++i) {
    kestrel::BackendConfig config = small_config();
    config.options["dram"] = presets[i];
    auto rtl = kestrel::rtlsim::make_rtlsim_transport(config);
    kestrel::DramCounters before;
    ASSERT_TRUE(rtl->dram_counters(before));
    launch(*rtl, code, kOut, kGrid, kBlock);
    ASSERT_EQ(rtl->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE) << presets[i];
    std::vector<uint32_t> got(kGrid * kBlock);
    rtl->read_mem(kOut, got.data(), got.size() * 4);
    for (uint32_t t = 0; t < kGrid * kBlock; ++t) ASSERT_EQ(got[t], t) << presets[i] << " thread " << t;
    kestrel::DramCounters after;
    ASSERT_TRUE(rtl->dram_counters(after));
    const uint64_t requests = after.reads + after.writes - before.reads - before.writes;
    // What reaches the DRAM port: the L2's misses and write-throughs, no
    // more than the SMs asked for.
    EXPECT_EQ(requests, mem_counter(*rtl, KESTREL_MEM_CNT_DRAM_REQUESTS)) << presets[i];
    EXPECT_LE(requests, counter(*rtl, KESTREL_CNT_MEM_REQUESTS)) << presets[i];
    EXPECT_GE(after.writes - before.writes, 3u) << presets[i] << ": 48 words are three lines at least";
    EXPECT_EQ(after.row_hits + after.row_misses + after.row_conflicts, after.reads + after.writes);
    EXPECT_EQ(after.bus_bytes, 64 * (after.reads + after.writes));
    cycles[i] = counter(*rtl, KESTREL_CNT_CYCLES);
    if (i == 1) {
      EXPECT_GT(after.row_misses, 0u) << "ddr3 has rows";
      EXPECT_DOUBLE_EQ(after.peak_bytes_per_cycle, 16.0);
    }
  }
  EXPECT_GT(cycles[1], cycles[0]) << "ddr3 (latency 24, 16 bytes per cycle) is slower than ideal";

  auto model = kestrel::model::make_model_transport(small_config());
  kestrel::DramCounters none;
  EXPECT_FALSE(model->dram_counters(none)) << "the functional model has no DRAM timing";

  const std::pair<const char*, const char*> bad[] = {
      {"dram", "gddr9"}, {"dram_banks", "3"}, {"dram_row_bytes", "100"}, {"dram_activate", "4"}};
  for (const auto& [option, value] : bad) {
    kestrel::BackendConfig config = small_config();
    config.options[option] = value;
    try {
      kestrel::rtlsim::make_rtlsim_transport(config);
      ADD_FAILURE() << option << "=" << value << " was accepted";
    } catch (const kestrel::Error& e) {
      EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE) << option;
    }
  }
  kestrel::BackendConfig config = small_config();
  config.options["dram"] = "ddr3";
  config.options["dram_banks"] = "4";
  config.options["mem_latency"] = "40";
  EXPECT_NO_THROW(kestrel::rtlsim::make_rtlsim_transport(config)) << "overrides over a preset";
}

TEST(Rtlsim, IndexKernelMatchesModel) {
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(small_config());
  auto model = kestrel::model::make_model_transport(small_config());
  const std::vector<uint32_t> code = index_kernel();
  constexpr uint32_t kGrid = 5, kBlock = 7;
  for (kestrel::Transport* t : {rtl.get(), model.get()}) {
    launch(*t, code, kOut, kGrid, kBlock);
    ASSERT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE) << t->name();
  }
  std::vector<uint32_t> got(kGrid * kBlock), want(kGrid * kBlock);
  rtl->read_mem(kOut, got.data(), got.size() * 4);
  model->read_mem(kOut, want.data(), want.size() * 4);
  for (uint32_t i = 0; i < kGrid * kBlock; ++i) EXPECT_EQ(got[i], i) << "thread " << i;
  EXPECT_EQ(got, want);
  for (unsigned c :
       {KESTREL_CNT_WARP_INSTRS, KESTREL_CNT_THREAD_INSTRS, KESTREL_CNT_STORES, KESTREL_CNT_BLOCKS}) {
    EXPECT_EQ(counter(*rtl, c), counter(*model, c)) << "counter " << c;
  }
  EXPECT_GT(counter(*rtl, KESTREL_CNT_CYCLES), counter(*rtl, KESTREL_CNT_WARP_INSTRS));

  // The per-SM window of the one SM: the global counters' values, the
  // model's for the instructions and blocks; busy for part of the launch.
  const std::pair<kestrel_sm_counter, kestrel_counter> parts[] = {
      {KESTREL_SM_CNT_WARP_INSTRS, KESTREL_CNT_WARP_INSTRS},
      {KESTREL_SM_CNT_THREAD_INSTRS, KESTREL_CNT_THREAD_INSTRS},
      {KESTREL_SM_CNT_STALL_SCOREBOARD, KESTREL_CNT_STALL_SCOREBOARD},
      {KESTREL_SM_CNT_STALL_MEMORY, KESTREL_CNT_STALL_MEMORY},
      {KESTREL_SM_CNT_STALL_BARRIER, KESTREL_CNT_STALL_BARRIER},
      {KESTREL_SM_CNT_STALL_IDLE, KESTREL_CNT_STALL_IDLE},
      {KESTREL_SM_CNT_BLOCKS, KESTREL_CNT_BLOCKS}};
  for (const auto& [sm_counter, global] : parts) {
    EXPECT_EQ(window(*rtl, 0, sm_counter), counter(*rtl, global)) << "per-SM counter " << sm_counter;
  }
  for (kestrel_sm_counter c :
       {KESTREL_SM_CNT_WARP_INSTRS, KESTREL_SM_CNT_THREAD_INSTRS, KESTREL_SM_CNT_BLOCKS})
    EXPECT_EQ(window(*rtl, 0, c), window(*model, 0, c)) << "per-SM counter " << c;
  EXPECT_GE(window(*rtl, 0, KESTREL_SM_CNT_ACTIVE_CYCLES), counter(*rtl, KESTREL_CNT_WARP_INSTRS));
  EXPECT_LE(window(*rtl, 0, KESTREL_SM_CNT_ACTIVE_CYCLES), counter(*rtl, KESTREL_CNT_CYCLES));
  EXPECT_EQ(window(*rtl, 1, KESTREL_SM_CNT_BLOCKS), 0u) << "no SM 1";
}

// out[i] = in[i] + 1 with in at a0 and out 1 KiB above it.
std::vector<uint32_t> increment_kernel() {
  Assembler a(32);
  a.global_index_x(t0, t1);
  a.slli(t2, t0, 2);
  a.add(t2, a0, t2);
  a.lw(t3, t2, 0);
  a.addi(t3, t3, 1);
  a.sw(t3, t2, 1024);
  a.kx_exit();
  return a.finish();
}

// The L2 (docs/memory-system.md, "The L2 cache") between launches: the host
// writes DRAM directly, so the second launch must read the new input, not
// the lines the first left in the L2 (invalidated at START).  The memory
// counter window counts the requests by kind and the L2's hits and misses;
// the model, without timing, has no window (CONFIG3 reads 0).
TEST(Rtlsim, L2SeesHostWritesBetweenLaunchesAndIsCounted) {
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(small_config());
  auto model = kestrel::model::make_model_transport(small_config());
  const uint32_t config3 = rtl->read_reg(KESTREL_REG_CONFIG3);
  EXPECT_TRUE(config3 >> KESTREL_CONFIG3_MEM_WINDOW_BIT & 1u);
  EXPECT_EQ(config3 & 0xFFFFu, 128u) << "the presets' L2: 256 sets x 8 ways x 64 bytes";
  EXPECT_EQ(config3 >> 16 & 0xFFu, 8u);
  EXPECT_TRUE(config3 >> KESTREL_CONFIG3_TEX_UNIT_BIT & 1u) << "the SMs have texture units";
  EXPECT_EQ(model->read_reg(KESTREL_REG_CONFIG3), 1u << KESTREL_CONFIG3_TEX_UNIT_BIT)
      << "the model runs kx.tex, with no L2 or counter window";

  const std::vector<uint32_t> code = increment_kernel();
  constexpr uint32_t kGrid = 4, kBlock = 16, kThreads = kGrid * kBlock;
  for (uint32_t round = 0; round < 2; ++round) {
    std::vector<uint32_t> in(kThreads);
    for (uint32_t i = 0; i < kThreads; ++i) in[i] = i * (3 + 2 * round) + round * 1000;
    for (kestrel::Transport* t : {rtl.get(), model.get()}) {
      t->write_mem(kOut, in.data(), in.size() * 4);
      launch(*t, code, kOut, kGrid, kBlock);
      ASSERT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE) << t->name();
      std::vector<uint32_t> out(kThreads);
      t->read_mem(kOut + 1024, out.data(), out.size() * 4);
      for (uint32_t i = 0; i < kThreads; ++i) ASSERT_EQ(out[i], in[i] + 1) << t->name() << " round " << round;
    }
    // 16 warps of 4 lanes each load 16 bytes: one line each, four lines in
    // all; the SM's L1 answers some (a line's first read fills it), the
    // rest reach the L2: at most four L2 fills and the rest hits or merges.
    const uint64_t reads = mem_counter(*rtl, KESTREL_MEM_CNT_READS);
    const uint64_t l1_hits = mem_counter(*rtl, KESTREL_MEM_CNT_L1_HITS);
    EXPECT_EQ(reads + l1_hits, 16u);
    EXPECT_EQ(reads, mem_counter(*rtl, KESTREL_MEM_CNT_L1_MISSES)) << "every read is of a writable page";
    EXPECT_GE(reads, 4u) << "a launch starts with empty L1s";
    EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_WRITES), 16u);
    EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_ATOMICS), 0u);
    EXPECT_GE(mem_counter(*rtl, KESTREL_MEM_CNT_FETCHES), 1u);
    const uint64_t hits = mem_counter(*rtl, KESTREL_MEM_CNT_L2_HITS);
    const uint64_t misses = mem_counter(*rtl, KESTREL_MEM_CNT_L2_MISSES);
    const uint64_t merges = mem_counter(*rtl, KESTREL_MEM_CNT_L2_MERGES);
    const uint64_t fetches = mem_counter(*rtl, KESTREL_MEM_CNT_FETCHES);
    EXPECT_EQ(hits + misses + merges, reads + fetches)
        << "every read and fetch that leaves the SM looks up the L2";
    EXPECT_GE(misses, 4u + 1u) << "a launch starts with an empty L2: the data and the code miss";
    EXPECT_LE(misses, 4u + fetches);
    EXPECT_GT(hits + merges, 0u);
    EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_L2_WRITES), 16u) << "write-through";
    EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_L2_EVICTIONS), 0u);
    EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_DRAM_REQUESTS), misses + 16u);
    EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_CONST_HITS) + mem_counter(*rtl, KESTREL_MEM_CNT_CONST_MISSES),
              0u)
        << "no read-only data: the code page is fetched, not read";
    EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_L1_EVICTIONS), 0u);
    EXPECT_EQ(reads + l1_hits + mem_counter(*rtl, KESTREL_MEM_CNT_WRITES) + fetches,
              counter(*rtl, KESTREL_CNT_MEM_REQUESTS))
        << "no page faults: every SM request reaches the memory side or hits the L1";
    // Each request spends at least the DRAM model's latency or an L2 hit's
    // few cycles in the memory side.
    const uint64_t inflight = mem_counter(*rtl, KESTREL_MEM_CNT_INFLIGHT_CYCLES);
    const uint64_t memory_side = reads + mem_counter(*rtl, KESTREL_MEM_CNT_WRITES) + fetches;
    EXPECT_GE(inflight, 4u * memory_side);
    EXPECT_LT(inflight, counter(*rtl, KESTREL_CNT_CYCLES) * memory_side);
  }
}

// The SMs' constant caches (docs/memory-system.md, "The constant cache"): a
// table on a read-only page, read by every warp, comes from memory once per
// launch and from the cache after that; a writable page's line is never
// kept; and the host's write to the table between launches is seen, because
// START empties the caches.  The results match the model's.
TEST(Rtlsim, ConstantCacheKeepsReadOnlyLinesUntilTheHostWrites) {
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(small_config());
  auto model = kestrel::model::make_model_transport(small_config());
  constexpr uint32_t kTable = kOut + 0x2000;  // its own page, after launch()'s two
  // out[i] = table[i % 4] + in[i], in at out + 1 KiB on a writable page.
  Assembler a(32);
  a.global_index_x(t0, t1);
  a.andi(t1, t0, 3);
  a.slli(t1, t1, 2);
  a.li(t2, kTable);
  a.add(t2, t2, t1);
  a.lw(t3, t2, 0);
  a.slli(t4, t0, 2);
  a.add(t4, a0, t4);
  a.lw(t5, t4, 1024);
  a.add(t3, t3, t5);
  a.sw(t3, t4, 0);
  a.kx_exit();
  const std::vector<uint32_t> code = a.finish();
  constexpr uint32_t kGrid = 4, kBlock = 16, kThreads = kGrid * kBlock;
  for (kestrel::Transport* t : {rtl.get(), model.get()}) {
    t->write_reg(KESTREL_REG_MAP_ADDR, kTable);
    t->write_reg(KESTREL_REG_MAP_PAGES, 1);
    t->write_reg(KESTREL_REG_MAP_PERMS, KESTREL_PAGE_READ);
  }
  for (uint32_t round = 0; round < 2; ++round) {
    const uint32_t table[4] = {10 + round * 100, 20 + round * 100, 30 + round * 100, 40 + round * 100};
    std::vector<uint32_t> in(kThreads);
    for (uint32_t i = 0; i < kThreads; ++i) in[i] = i * 7;
    for (kestrel::Transport* t : {rtl.get(), model.get()}) {
      t->write_mem(kTable, table, sizeof table);
      t->write_mem(kOut + 1024, in.data(), in.size() * 4);
      launch(*t, code, kOut, kGrid, kBlock);
      ASSERT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE) << t->name();
      std::vector<uint32_t> out(kThreads);
      t->read_mem(kOut, out.data(), out.size() * 4);
      for (uint32_t i = 0; i < kThreads; ++i)
        ASSERT_EQ(out[i], table[i % 4] + in[i]) << t->name() << " round " << round << " thread " << i;
    }
    // 16 warps read the table's one line: the first read (and any sent
    // while it was on its way) misses the constant cache, the rest hit and
    // never reach the crossbar.  The writable input's 16 line reads (four
    // lines) go to the L1 data cache instead: never to the constant cache.
    const uint64_t hits = mem_counter(*rtl, KESTREL_MEM_CNT_CONST_HITS);
    const uint64_t misses = mem_counter(*rtl, KESTREL_MEM_CNT_CONST_MISSES);
    const uint64_t l1_hits = mem_counter(*rtl, KESTREL_MEM_CNT_L1_HITS);
    const uint64_t l1_misses = mem_counter(*rtl, KESTREL_MEM_CNT_L1_MISSES);
    EXPECT_EQ(hits + misses, 16u) << "round " << round;
    EXPECT_GE(misses, 1u) << "START emptied the cache";
    EXPECT_GE(hits, 8u) << "round " << round;
    EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_CONST_EVICTIONS), 0u);
    EXPECT_EQ(l1_hits + l1_misses, 16u) << "the input's reads";
    EXPECT_GE(l1_misses, 4u);
    EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_READS), l1_misses + misses) << "what the two caches missed";
    EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_READS) + mem_counter(*rtl, KESTREL_MEM_CNT_WRITES) +
                  mem_counter(*rtl, KESTREL_MEM_CNT_FETCHES) + hits + l1_hits,
              counter(*rtl, KESTREL_CNT_MEM_REQUESTS))
        << "every SM request reaches the memory side or hits";
  }
}

// Local memory interleaves a warp's lanes in 8-byte granules (docs/isa.md
// section 4, guide 5.3.2): four lanes spilling a word at one stack offset
// write one line, not four, and the backing holds lane l's word at l * 8 in
// the granule, on rtlsim as on the model.
TEST(Rtlsim, LocalMemoryInterleavesTheWarpsLanes) {
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(small_config());
  auto model = kestrel::model::make_model_transport(small_config());
  Assembler a(32);
  a.global_index_x(t0, t1);
  a.addi(sp, sp, -16);
  a.sw(t0, sp, 8);
  a.lw(t2, sp, 8);
  a.addi(t2, t2, 100);
  a.slli(t3, t0, 2);
  a.add(t3, a0, t3);
  a.sw(t2, t3, 0);
  a.kx_exit();
  const std::vector<uint32_t> code = a.finish();
  constexpr uint32_t kLanes = 4, kStackBytes = 256, kBacking = KESTREL_GLOBAL_BASE + 0x8000;
  constexpr uint32_t kSpillOffset = kStackBytes - 16 + 8;
  for (kestrel::Transport* t : {rtl.get(), model.get()}) {
    launch(*t, code, kOut, 1, kLanes);
    ASSERT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE) << t->name();
    for (uint32_t lane = 0; lane < kLanes; ++lane) {
      uint32_t out = 0, spilled = ~0u;
      t->read_mem(kOut + 4 * lane, &out, 4);
      EXPECT_EQ(out, lane + 100) << t->name();
      t->read_mem(kBacking + kSpillOffset / 8 * 8 * kLanes + lane * 8 + kSpillOffset % 8, &spilled, 4);
      EXPECT_EQ(spilled, lane) << t->name() << ": lane " << lane << "'s spill in its granule";
    }
  }
  EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_WRITES), 2u) << "the spill's line and the output's";
  EXPECT_EQ(mem_counter(*rtl, KESTREL_MEM_CNT_READS), 1u) << "the reload's line";
}

TEST(Rtlsim, UnmappedStoreFaultsLikeModel) {
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(small_config());
  auto model = kestrel::model::make_model_transport(small_config());
  const std::vector<uint32_t> code = index_kernel();
  const uint32_t unmapped = KESTREL_GLOBAL_BASE + 0x20000;
  for (kestrel::Transport* t : {rtl.get(), model.get()}) {
    launch(*t, code, unmapped, 2, 4);
    ASSERT_EQ(t->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_FAULT) << t->name();
  }
  for (uint32_t reg = KESTREL_REG_FAULT_KIND; reg <= KESTREL_REG_FAULT_INFO; reg += 4) {
    if (reg == KESTREL_REG_FAULT_SM) continue;
    EXPECT_EQ(rtl->read_reg(reg), model->read_reg(reg)) << "fault register " << reg;
  }
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_FAULT_KIND), unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS});
}

TEST(Rtlsim, LockstepChecksKernelsAndFaults) {
  kestrel::BackendConfig config = small_config();
  config.options["lockstep"] = "1";
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(config);
  const std::vector<uint32_t> code = index_kernel();
  launch(*rtl, code, kOut, 5, 7);
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  // A fault record is compared too (and the device stays usable).
  launch(*rtl, code, KESTREL_GLOBAL_BASE + 0x20000, 2, 4);
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_FAULT);
  launch(*rtl, code, kOut, 3, 4);
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
}

// A fault injected into the checker's input (one flipped bit in the 5th
// register write) must stop the launch with a readable diff.
TEST(Rtlsim, LockstepReportsAMismatch) {
  kestrel::BackendConfig config = small_config();
  config.options["lockstep"] = "1";
  ASSERT_EQ(setenv("KESTREL_LOCKSTEP_INJECT", "5", 1), 0);
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(config);
  unsetenv("KESTREL_LOCKSTEP_INJECT");
  const std::vector<uint32_t> code = index_kernel();
  try {
    launch(*rtl, code, kOut, 5, 7);
    FAIL() << "lock-step did not report the injected mismatch";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_IO);
    const std::string text = e.what();
    EXPECT_NE(text.find("lock-step mismatch"), std::string::npos) << text;
    EXPECT_NE(text.find("rtl 0x"), std::string::npos) << text;
    EXPECT_NE(text.find("model 0x"), std::string::npos) << text;
  }
  // The launch was aborted; the next one runs (and is checked) normally.
  EXPECT_NE(rtl->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_RUNNING);
  launch(*rtl, code, kOut, 5, 7);
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  std::vector<uint32_t> got(35);
  rtl->read_mem(kOut, got.data(), got.size() * 4);
  for (uint32_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], i);
}

// A copy that overlaps a running launch (advance()) leaves that launch
// unchecked; the model takes DRAM from the RTL and the next launch is
// checked again.
TEST(Rtlsim, LockstepSurvivesACopyDuringALaunch) {
  kestrel::BackendConfig config = small_config();
  config.options["lockstep"] = "1";
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(config);
  const std::vector<uint32_t> code = index_kernel();
  launch(*rtl, code, kOut, 1, 4);  // maps the pages
  const uint32_t marker = 0x5A5A5A5A;
  rtl->write_reg(KESTREL_REG_GRID_X, 6);
  rtl->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  ASSERT_TRUE(rtl->advance(10));
  rtl->write_mem(kOut + 0x1000, &marker, 4);
  rtl->wait_idle();
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  launch(*rtl, code, kOut, 5, 7);
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  uint32_t got = 0;
  rtl->read_mem(kOut + 0x1000, &got, 4);
  EXPECT_EQ(got, marker);
}

// The default preset's two SMs race for one counter: every thread of four
// blocks takes a ticket with amoadd.w and stores it at out[global index]
// (a0 = the counter, out at a0 + 64).
std::vector<uint32_t> ticket_kernel() {
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_CTAID_X);
  a.csrr(t1, KESTREL_CSR_NTID_X);
  a.mul(t0, t0, t1);
  a.csrr(t1, KESTREL_CSR_TID_X);
  a.add(t0, t0, t1);
  a.slli(t2, t0, 2);
  a.add(t2, a0, t2);
  a.addi(t1, zero, 1);
  a.amo(0x00, 4, s2, a0, t1);  // amoadd.w s2, t1, (a0)
  a.sw(s2, t2, 64);
  a.kx_exit();
  return a.finish();
}

kestrel::BackendConfig two_sm_config() {
  kestrel::BackendConfig c;
  c.mem_bytes = 1u << 20;  // the default preset otherwise: RV64, 32 lanes, 8 warps, 2 SMs
  c.options["lockstep"] = "1";
  return c;
}

// GPU lock-step follows the order in which the RTL performed the two SMs'
// atomics, and the tickets are a permutation.
TEST(Rtlsim, LockstepFollowsGlobalAtomicsOfTwoSms) {
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(two_sm_config());
  const uint32_t zero_word = 0;
  rtl->write_mem(kOut, &zero_word, 4);
  launch(*rtl, ticket_kernel(), kOut, 4, 32);
  EXPECT_EQ(rtl->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  uint32_t count = 0;
  rtl->read_mem(kOut, &count, 4);
  EXPECT_EQ(count, 128u);
  std::vector<uint32_t> tickets(128);
  rtl->read_mem(kOut + 64, tickets.data(), tickets.size() * 4);
  std::vector<bool> seen(128, false);
  for (uint32_t t : tickets) {
    ASSERT_LT(t, 128u);
    EXPECT_FALSE(seen[t]) << "ticket " << t << " twice";
    seen[t] = true;
  }
}

// The L1 data caches stay coherent across SMs (docs/memory-system.md, "The
// L1 data cache"): a block on one SM polls a flag with plain loads, which
// hit its L1 while the flag is 0, until a block on the other SM stores 1;
// the crossbar's snoop of that store drops the line from the poller's L1,
// so every poller sees it within a few polls.  Blocks of 256 threads fill an
// SM's 8 warp slots, so the two blocks run on the two SMs.  No lock-step:
// the kernel races on purpose (which poll sees the flag is timing).
TEST(Rtlsim, L1SeesAStoreOfTheOtherSm) {
  kestrel::BackendConfig config = two_sm_config();
  config.options["lockstep"] = "0";
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(config);
  constexpr uint32_t kBlock = 256, kMaxPolls = 200;
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_CTAID_X);
  a.bne(t0, zero, "poll");
  a.csrr(t1, KESTREL_CSR_TID_X);
  a.bne(t1, zero, "exit");
  a.li(t3, 400);  // let the pollers fill their L1 first
  a.bind("delay");
  a.addi(t3, t3, -1);
  a.bne(t3, zero, "delay");
  a.addi(t4, zero, 1);
  a.sw(t4, a0, 0);
  a.j("exit");
  a.bind("poll");
  a.li(t5, 0);
  a.li(t6, kMaxPolls);
  a.bind("loop");
  a.lw(t4, a0, 0);
  a.bne(t4, zero, "seen");
  a.addi(t5, t5, 1);
  a.blt(t5, t6, "loop");
  a.bind("seen");
  a.csrr(t1, KESTREL_CSR_TID_X);
  a.slli(t1, t1, 2);
  a.add(t1, a0, t1);
  a.sw(t5, t1, 64);
  a.bind("exit");
  a.kx_exit();
  const uint32_t zero_word = 0;
  rtl->write_mem(kOut, &zero_word, 4);
  launch(*rtl, a.finish(), kOut, 2, kBlock);
  ASSERT_EQ(rtl->read_reg(KESTREL_REG_STATUS), KESTREL_STATUS_DONE);
  std::vector<uint32_t> polls(kBlock);
  rtl->read_mem(kOut + 64, polls.data(), polls.size() * 4);
  for (uint32_t i = 0; i < kBlock; ++i)
    EXPECT_LT(polls[i], kMaxPolls) << "poller " << i << " never saw the flag";
  EXPECT_GT(*std::max_element(polls.begin(), polls.end()), 0u) << "the pollers started after the store";
  EXPECT_GT(mem_counter(*rtl, KESTREL_MEM_CNT_L1_HITS), 0u) << "polls of a held line hit the L1";
}

// A wrong old value of one lane of a global atomic (injected into the
// checker's input) is caught by the chain check, although GPU lock-step takes
// the atomics' old values from the RTL.
TEST(Rtlsim, LockstepCatchesAWrongAtomicOldValue) {
  ASSERT_EQ(setenv("KESTREL_LOCKSTEP_INJECT_ATOMIC", "3", 1), 0);
  auto rtl = kestrel::rtlsim::make_rtlsim_transport(two_sm_config());
  unsetenv("KESTREL_LOCKSTEP_INJECT_ATOMIC");
  const uint32_t zero_word = 0;
  rtl->write_mem(kOut, &zero_word, 4);
  try {
    launch(*rtl, ticket_kernel(), kOut, 4, 32);
    FAIL() << "lock-step did not catch the wrong old value";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_IO);
    const std::string text = e.what();
    EXPECT_NE(text.find("global atomics on"), std::string::npos) << text;
    EXPECT_NE(text.find("no order of them"), std::string::npos) << text;
  }
}

#if !KESTREL_RTLSIM_SMALL_ONLY
// The signals of an FST file: "scope.name [msb:lsb]" as the file names them.
std::set<std::string> fst_signals(const std::string& path, uint64_t& start, uint64_t& end) {
  std::set<std::string> names;
  void* reader = fstReaderOpen(path.c_str());
  if (reader == nullptr) return names;
  std::vector<std::string> scopes;
  while (fstHier* h = fstReaderIterateHier(reader)) {
    if (h->htyp == FST_HT_SCOPE) {
      scopes.push_back((scopes.empty() ? "" : scopes.back() + ".") + h->u.scope.name);
    } else if (h->htyp == FST_HT_UPSCOPE && !scopes.empty()) {
      scopes.pop_back();
    } else if (h->htyp == FST_HT_VAR && !scopes.empty()) {
      names.insert(scopes.back() + "." + h->u.var.name);
    }
  }
  start = fstReaderGetStartTime(reader);
  end = fstReaderGetEndTime(reader);
  fstReaderClose(reader);
  return names;
}

// The signals tools/waves/kestrel_gpu.gtkw shows, spelled as the FST names
// them ("name[7:0]" there is "name [7:0]" here).
std::vector<std::string> gtkw_signals() {
  std::ifstream in(KESTREL_GTKW_FILE);
  std::vector<std::string> signals;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '[' || line[0] == '@' || line[0] == '-') continue;
    // The range is the last bracket with a colon; gen_sm[0] is a scope.
    const auto bracket = line.rfind('[');
    const bool range = bracket != std::string::npos && line.find(':', bracket) != std::string::npos;
    signals.push_back(range ? line.substr(0, bracket) + " " + line.substr(bracket) : line);
  }
  return signals;
}

// KESTREL_TRACE: every build has the traced preset `trace` (the small
// geometry), which a trace request picks; the FST holds the GPU's hierarchy
// (every signal of the GTKWave save file), the whole run or the cycle
// window asked for.
TEST(Rtlsim, TracesToFst) {
  ASSERT_TRUE(kestrel::rtlsim::trace_built());
  kestrel::BackendConfig config = small_config();
  const std::string dir = ::testing::TempDir();
  config.options["trace"] = dir + "kestrel_rtlsim_full.fst";
  const std::vector<uint32_t> code = index_kernel();
  {
    auto rtl = kestrel::rtlsim::make_rtlsim_transport(config);
    launch(*rtl, code, kOut, 5, 7);
  }
  kestrel::BackendConfig windowed = config;
  windowed.options["trace"] = dir + "kestrel_rtlsim_window.fst";
  windowed.options["trace_window"] = "100:200";
  {
    auto rtl = kestrel::rtlsim::make_rtlsim_transport(windowed);
    launch(*rtl, code, kOut, 5, 7);
  }
  uint64_t full_start = 0, full_end = 0, window_start = 0, window_end = 0;
  const std::set<std::string> signals = fst_signals(config.options["trace"], full_start, full_end);
  fst_signals(windowed.options["trace"], window_start, window_end);
  ASSERT_FALSE(signals.empty()) << "the FST reader could not open " << config.options["trace"];
  const std::vector<std::string> shown = gtkw_signals();
  EXPECT_GT(shown.size(), 40u);
  for (const std::string& signal : shown)
    EXPECT_TRUE(signals.count(signal)) << signal << " is not in the trace";
  // Two time steps per cycle: the window holds cycles 100 to 199.
  EXPECT_EQ(full_start, 0u);
  EXPECT_GT(full_end, 400u);
  EXPECT_EQ(window_start, 200u);
  EXPECT_EQ(window_end, 399u);
  std::remove(config.options["trace"].c_str());
  std::remove(windowed.options["trace"].c_str());
  config.options["trace_window"] = "20:10";
  EXPECT_THROW(kestrel::rtlsim::make_rtlsim_transport(config), kestrel::Error);
  // A preset Verilated without tracing refuses, naming the traced ones.
  kestrel::BackendConfig untraced = small_config();
  untraced.options["trace"] = dir + "kestrel_rtlsim_untraced.fst";
  untraced.options["preset"] = "small";
  try {
    kestrel::rtlsim::make_rtlsim_transport(untraced);
    FAIL() << "an untraced preset accepted a trace request";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(e.what()).find("trace (rv32 1x4x4 lrr, FST)"), std::string::npos) << e.what();
  }
}

#endif  // !KESTREL_RTLSIM_SMALL_ONLY

}  // namespace
