// kestrel_board_mem (4 KiB) against a C++ byte array: random GPU line reads
// and writes with byte enables and host word reads and writes, both ports at
// once with random response backpressure; every answer in order, with its
// tag; a line outside the memory answered IllegalAddress and not written.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include "Vboard_mem4k.h"
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

TEST(BoardMem, BothPortsAgainstAReference) {
  Bench<Vboard_mem4k> b;
  b.reset();
  std::mt19937 rng(11);
  std::vector<uint8_t> ref(kBytes, 0);
  // The RAM is unreset: give it known contents through the host port first.
  std::deque<MemRsp> gpu_expect;
  std::deque<uint32_t> host_expect;
  MemReq gpu;
  bool gpu_valid = false;
  uint32_t host_addr = 0, host_wdata = 0;
  bool host_valid = false, host_write = false;
  uint8_t tag = 0;
  unsigned gpu_done = 0, host_done = 0, faults = 0;
  uint32_t fill = 0;
  for (int cycle = 0; cycle < 40000; ++cycle) {
    const bool filling = fill < kBytes;
    if (!gpu_valid && !filling && rng() % 2 == 0) {
      gpu = MemReq{};
      const bool outside = rng() % 16 == 0;
      gpu.addr = outside ? kBase + kBytes + 64 * (rng() % 4) : kBase + 64 * (rng() % (kBytes / 64));
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
      const MemRsp& want = gpu_expect.front();
      EXPECT_EQ(got.tag, want.tag);
      EXPECT_EQ(got.fault, want.fault);
      if (want.fault == 0) {
        EXPECT_EQ(0, std::memcmp(got.rdata, want.rdata, 64)) << "cycle " << cycle;
      }
      gpu_expect.pop_front();
      ++gpu_done;
    }
    if (b->host_rsp_valid_o && b->host_rsp_ready_i) {
      ASSERT_FALSE(host_expect.empty());
      EXPECT_EQ(b->host_rsp_rdata_o, host_expect.front());
      host_expect.pop_front();
      ++host_done;
    }
    // Both answers come from one register: at most one request outstanding.
    EXPECT_LE(gpu_expect.size() + host_expect.size(), 1u);
    if (gpu_valid && b->gpu_req_ready_o) {
      MemRsp want;
      want.tag = gpu.tag;
      const uint32_t off = gpu.addr - kBase;
      if (off >= kBytes) {
        want.fault = KESTREL_FAULT_ILLEGAL_ADDRESS;
        ++faults;
      } else {
        std::memcpy(want.rdata, ref.data() + off, 64);  // read-first
        const bool write = gpu.kind == contract::kMemWrite || (gpu.kind == contract::kMemLocal && gpu.write);
        for (unsigned i = 0; write && i < 64; ++i)
          if ((gpu.be >> i) & 1u) ref[off + i] = gpu.wdata[i];
      }
      gpu_expect.push_back(want);
      gpu_valid = false;
    } else if (host_valid && b->host_req_ready_o) {
      const uint32_t off = host_addr - kBase;
      uint32_t old;
      std::memcpy(&old, ref.data() + off, 4);
      host_expect.push_back(old);
      if (host_write) std::memcpy(ref.data() + off, &host_wdata, 4);
      host_valid = false;
    }
    EXPECT_FALSE(b->host_req_ready_o && b->gpu_req_valid_i) << "the GPU goes first";
    b.tick();
  }
  EXPECT_GT(gpu_done, 2000u);
  EXPECT_GT(host_done, 2000u);
  EXPECT_GT(faults, 50u);
}

}  // namespace
