// Kernels through the normal runtime on the simulated board (backend
// fpga-sim: the Verilated rtl/board/kestrel_board.sv behind the board
// link's protocol engine, its UART at 8 cycles per bit): a vector add and a
// block reduction, on a clean link and on one that flips, drops and
// duplicates bytes, each checked against the CPU; the link counters show
// the faults were seen and recovered from.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "fpga_transport.hpp"
#include "kestrel/abi.h"
#include "kestrel/host_regs.h"
#include "kestrel/kestrel.hpp"
#include "kestrel/transport.hpp"

namespace {

namespace fpga = kestrel::fpga;

std::string module_path(const std::string& name) {
  return std::string(KESTREL_E2E_MODULE_DIR) + "/" + name + "_rv32.kmod";
}

std::vector<int> random_ints(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> v(n);
  for (auto& x : v) x = static_cast<int>(rng() % 2001) - 1000;
  return v;
}

// Opens the simulated board with `settings` (KESTREL_CONFIG syntax), runs
// both kernels and checks them; returns the link counters of the run.
fpga::LinkStats run_kernels(const char* settings) {
  const fpga::LinkStats before = fpga::closed_link_stats();
  {
    kestrel::DeviceConfig config{};
    config.settings = settings;
    kestrel::Device device = kestrel::Device::open("fpga-sim", &config);
    const kestrel_device_props props = device.props();
    EXPECT_EQ(props.xlen, 32u);
    EXPECT_EQ(props.warp_size, 4u);
    EXPECT_EQ(props.clock_khz, 24000u);

    // Vector add: 3 x 192 ints over the link.
    const int n = 192;
    const std::vector<int> a = random_ints(n, 1), b = random_ints(n, 2);
    kestrel::Module saxpy = kestrel::Module::load(device, module_path("saxpy"));
    kestrel::DeviceBuffer<int> da(device, n), db(device, n), dc(device, n);
    da.upload(a);
    db.upload(b);
    saxpy.kernel("vector_add_int").launch(kestrel::Dim3((n + 15) / 16), kestrel::Dim3(16), 0, da, db, dc, n);
    device.synchronize();
    const std::vector<int> c = dc.download();
    for (int i = 0; i < n; ++i) EXPECT_EQ(c[i], a[i] + b[i]) << "element " << i;

    // Block sums in dynamic shared memory with barriers: 4 blocks of 16.
    const int blocks = 4, threads = 16;
    const std::vector<int> in = random_ints(blocks * threads, 3);
    kestrel::Module reduction = kestrel::Module::load(device, module_path("reduction"));
    kestrel::DeviceBuffer<int> din(device, in.size()), sums(device, blocks);
    kestrel::DeviceBuffer<float> means(device, blocks);
    din.upload(in);
    reduction.kernel("reduce_dynamic")
        .launch(kestrel::Dim3(blocks), kestrel::Dim3(threads), threads * sizeof(int) + sizeof(float), din,
                sums, means);
    device.synchronize();
    const std::vector<int> s = sums.download();
    for (int blk = 0; blk < blocks; ++blk) {
      int expected = 0;
      for (int t = 0; t < threads; ++t) expected += in[blk * threads + t];
      EXPECT_EQ(s[blk], expected) << "block " << blk;
    }
  }
  fpga::LinkStats after = fpga::closed_link_stats();
  fpga::LinkStats run;
  run.requests = after.requests - before.requests;
  run.frames_sent = after.frames_sent - before.frames_sent;
  run.resends = after.resends - before.resends;
  run.timeouts = after.timeouts - before.timeouts;
  run.crc_naks = after.crc_naks - before.crc_naks;
  run.replayed = after.replayed - before.replayed;
  run.bad_frames = after.bad_frames - before.bad_frames;
  run.stale_answers = after.stale_answers - before.stale_answers;
  run.bytes_sent = after.bytes_sent - before.bytes_sent;
  run.bytes_received = after.bytes_received - before.bytes_received;
  std::printf("link: %s\n", run.to_string().c_str());
  return run;
}

TEST(FpgaSim, KernelsOnACleanLink) {
  const fpga::LinkStats s = run_kernels(nullptr);
  EXPECT_GT(s.requests, 100u);
  EXPECT_EQ(s.resends, 0u);
  EXPECT_EQ(s.bad_frames, 0u);
}

TEST(FpgaSim, KernelsThroughFlippedDroppedAndDuplicatedBytes) {
  // About one byte in 1000 damaged, both ways: a few tens of faults a run,
  // while a 270-byte frame still gets through three times in four.
  const fpga::LinkStats s = run_kernels("fpga-sim.faults=0.001:11");
  EXPECT_GT(s.resends, 0u);
  EXPECT_GT(s.timeouts + s.crc_naks, 0u);
}

// The link alone, cheap enough for every test run: ID, a register and 256
// bytes of board memory both ways through 0.3 % of bytes damaged.
TEST(FpgaSim, LinkSmokeThroughFaults) {
  kestrel::BackendConfig config;
  config.options["faults"] = "0.003:5";
  std::unique_ptr<kestrel::Transport> board = kestrel::open_transport("fpga-sim", config);
  EXPECT_EQ(board->name(), "fpga-sim");
  EXPECT_EQ(board->read_reg(KESTREL_REG_ID), KESTREL_ID_VALUE);
  EXPECT_EQ(board->read_reg(KESTREL_REG_MEM_SIZE_KB), 512u);
  board->write_reg(KESTREL_REG_GRID_X, 77);
  EXPECT_EQ(board->read_reg(KESTREL_REG_GRID_X), 77u);
  std::vector<uint8_t> data(256), back(256);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 31 + 7);
  board->write_mem(KESTREL_GLOBAL_BASE + 0x1003, data.data(), data.size());
  board->read_mem(KESTREL_GLOBAL_BASE + 0x1003, back.data(), back.size());
  EXPECT_EQ(back, data);
  EXPECT_THROW(board->read_mem(KESTREL_GLOBAL_BASE + (512u << 10), back.data(), 4), kestrel::Error);
  const fpga::LinkStats before = fpga::closed_link_stats();
  board.reset();
  const fpga::LinkStats after = fpga::closed_link_stats();
  EXPECT_GT(after.resends, before.resends);
}

TEST(FpgaSim, RefusesUnknownOptionsAndBadFaultSpecs) {
  kestrel::DeviceConfig config{};
  config.settings = "fpga-sim.nonsense=1";
  EXPECT_THROW(kestrel::Device::open("fpga-sim", &config), kestrel::Error);
  config.settings = "fpga-sim.faults=lots";
  EXPECT_THROW(kestrel::Device::open("fpga-sim", &config), kestrel::Error);
}

}  // namespace
