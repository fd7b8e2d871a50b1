// kestrel_board_mem_1p (4 KiB: kestrel_req_arb in front of kestrel_spram_mem)
// against a C++ byte array: random GPU line reads and writes with byte
// enables (MemRead, MemWrite, MemLocal) and host word reads and writes, both
// ports at once with random response backpressure; the reference applies
// each request when its port's handshake fires (the RAM serves them in that
// order, one at a time); every answer in order, with its tag, never a fault;
// both ports served (round robin).
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include "Vboard_mem_1p4k.h"
#include "kestrel/abi.h"
#include "kestrel_contract.hpp"
#include "rtl_test.hpp"
#include "wide_bits.hpp"

namespace {

using kestrel::rtlbench::Bench;
using kestrel::rtlbench::MemReq;
using kestrel::rtlbench::MemRsp;
namespace contract = kestrel::contract;

constexpr uint32_t kBase = 0x10000000;
constexpr uint32_t kBytes = 4096;

TEST(BoardMem1p, BothPortsShareOneRamAgainstAReference) {
  Bench<Vboard_mem_1p4k> b;
  b.reset();
  std::mt19937 rng(11);
  std::vector<uint8_t> ref(kBytes, 0);
  // The RAM is unreset: give it known contents through the host port first.
  // Answers owed, oldest first; a write's answer carries no data to check.
  struct Owed {
    MemRsp rsp;
    uint32_t word;
    bool write;
  };
  std::deque<Owed> gpu_expect, host_expect;
  MemReq gpu;
  bool gpu_valid = false;
  uint32_t host_addr = 0, host_wdata = 0;
  bool host_valid = false, host_write = false;
  uint8_t tag = 0;
  unsigned gpu_done = 0, host_done = 0;
  uint32_t fill = 0;
  for (int cycle = 0; cycle < 50000; ++cycle) {
    const bool filling = fill < kBytes;
    if (!gpu_valid && !filling && rng() % 2 == 0) {
      gpu = MemReq{};
      gpu.addr = kBase + 64 * (rng() % (kBytes / 64));
      gpu.kind = rng() % 2 ? contract::kMemWrite : contract::kMemRead;
      if (rng() % 4 == 0) {
        gpu.kind = contract::kMemLocal;
        gpu.write = rng() % 2;
      }
      gpu.be = (uint64_t{rng()} << 32) | rng();
      for (auto& v : gpu.wdata) v = static_cast<uint8_t>(rng());
      gpu.tag = tag++;
      gpu_valid = true;
    }
    if (!host_valid && (filling || rng() % 3 == 0)) {
      host_write = filling || rng() % 2;
      host_addr = filling ? kBase + fill : kBase + 4 * (rng() % (kBytes / 4));
      host_wdata = static_cast<uint32_t>(rng());
      if (filling) fill += 4;
      host_valid = true;
    }
    b->gpu_req_valid_i = gpu_valid;
    kestrel::rtlbench::pack_req(b->gpu_req_i.data(), 0, gpu);
    b->host_req_valid_i = host_valid;
    b->host_req_i[0] = host_wdata;
    b->host_req_i[1] = host_addr;
    b->host_req_i[2] = host_write;
    b->gpu_rsp_ready_i = rng() % 4 != 0;
    b->host_rsp_ready_i = rng() % 4 != 0;
    b.eval();
    if (b->gpu_rsp_valid_o && b->gpu_rsp_ready_i) {
      const MemRsp got = kestrel::rtlbench::unpack_rsp(b->gpu_rsp_o.data(), 0);
      ASSERT_FALSE(gpu_expect.empty());
      const Owed& want = gpu_expect.front();
      EXPECT_EQ(got.tag, want.rsp.tag);
      EXPECT_EQ(got.fault, 0u);
      if (!want.write) {
        EXPECT_EQ(0, std::memcmp(got.rdata, want.rsp.rdata, 64)) << "cycle " << cycle;
      }
      gpu_expect.pop_front();
      ++gpu_done;
    }
    if (b->host_rsp_valid_o && b->host_rsp_ready_i) {
      ASSERT_FALSE(host_expect.empty());
      if (!host_expect.front().write) {
        EXPECT_EQ(b->host_rsp_rdata_o, host_expect.front().word) << "cycle " << cycle;
      }
      host_expect.pop_front();
      ++host_done;
    }
    // The RAM serves one request at a time; the arbiter's order FIFO holds 2.
    EXPECT_LE(gpu_expect.size() + host_expect.size(), 2u);
    const bool gpu_fire = gpu_valid && b->gpu_req_ready_o;
    const bool host_fire = host_valid && b->host_req_ready_o;
    EXPECT_FALSE(gpu_fire && host_fire) << "cycle " << cycle << ": one RAM port, one request a cycle";
    if (gpu_fire) {
      Owed want{};
      want.rsp.tag = gpu.tag;
      const uint32_t off = gpu.addr - kBase;
      std::memcpy(want.rsp.rdata, ref.data() + off, 64);
      want.write = gpu.kind == contract::kMemWrite || (gpu.kind == contract::kMemLocal && gpu.write);
      for (unsigned i = 0; want.write && i < 64; ++i)
        if ((gpu.be >> i) & 1u) ref[off + i] = gpu.wdata[i];
      gpu_expect.push_back(want);
      gpu_valid = false;
    }
    if (host_fire) {
      Owed want{};
      const uint32_t off = host_addr - kBase;
      std::memcpy(&want.word, ref.data() + off, 4);
      want.write = host_write;
      if (host_write) std::memcpy(ref.data() + off, &host_wdata, 4);
      host_expect.push_back(want);
      host_valid = false;
    }
    b.tick();
  }
  EXPECT_GT(gpu_done, 1000u);
  EXPECT_GT(host_done, 1000u);
}

}  // namespace
