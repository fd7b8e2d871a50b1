// kestrel_host_bridge (4 cycles per bit, 8 KiB of memory, 8-word buffer)
// against the host's protocol engine (driver/fpga/link_engine.cpp), with a
// C++ register block and word memory behind it that stall at random:
// register and memory operations, requests split at the buffer's size,
// refused addresses and lengths, a damaged frame answered CRC_ERROR, a
// duplicate answered REPLAYED and not applied twice, SYNC, and correct
// results through a link that flips, drops and duplicates bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "Vhost_bridge4.h"
#include "kestrel/error.hpp"
#include "kestrel_contract.hpp"
#include "link_engine.hpp"
#include "rtl_test.hpp"
#include "uart_bits.hpp"

namespace {

using kestrel::rtlbench::Bench;
using kestrel::rtlbench::UartBits;
namespace fpga = kestrel::fpga;
namespace contract = kestrel::contract;

constexpr unsigned kDiv = 4;
constexpr uint32_t kMemBase = 0x10000000;
constexpr uint32_t kMemBytes = 8192;
constexpr unsigned kMaxWords = 8;

class BridgePipe final : public fpga::BytePipe {
 public:
  BridgePipe() : uart_(kDiv), mem_(kMemBytes / 4, 0) {
    b_.reset();
    b_->uart_rx_i = 1;
  }
  void send(const uint8_t* data, size_t bytes) override {
    uart_.send(std::vector<uint8_t>(data, data + bytes));
  }
  uint64_t receive(std::vector<uint8_t>& out, uint64_t timeout) override {
    uint64_t waited = 0;
    while (waited < timeout && uart_.received().empty()) {
      cycle();
      ++waited;
    }
    out.insert(out.end(), uart_.received().begin(), uart_.received().end());
    uart_.received().clear();
    return waited;
  }
  void idle(uint64_t time) override {
    for (uint64_t i = 0; i < time; ++i) cycle();
  }

  std::map<uint32_t, uint32_t> regs;
  std::map<uint32_t, unsigned> reg_writes;
  unsigned mem_writes = 0;
  uint32_t& word(uint32_t addr) { return mem_.at((addr - kMemBase) / 4); }

 private:
  void cycle() {
    b_->uart_rx_i = uart_.line();
    // The register port: ready at random, a read answered 0-3 cycles later.
    b_->reg_req_ready_i = rng_() % 3 != 0;
    b_->reg_rsp_valid_i = !reg_rsp_.empty() && reg_rsp_.front().first == 0;
    b_->reg_rsp_rdata_i = reg_rsp_.empty() ? 0 : reg_rsp_.front().second;
    // The memory port: the same.
    b_->mem_req_ready_i = rng_() % 3 != 0;
    b_->mem_rsp_valid_i = !mem_rsp_.empty() && mem_rsp_.front().first == 0;
    b_->mem_rsp_rdata_i = mem_rsp_.empty() ? 0 : mem_rsp_.front().second;
    b_.eval();
    if (b_->reg_rsp_valid_i && b_->reg_rsp_ready_o) reg_rsp_.pop_front();
    if (b_->mem_rsp_valid_i && b_->mem_rsp_ready_o) mem_rsp_.pop_front();
    for (auto& r : reg_rsp_) r.first -= r.first != 0;
    for (auto& r : mem_rsp_) r.first -= r.first != 0;
    if (b_->reg_req_valid_o && b_->reg_req_ready_i) {
      const contract::RegReq r = contract::RegReq::unpack(reinterpret_cast<const uint32_t*>(&b_->reg_req_o));
      if (r.write) {
        regs[r.addr] = r.wdata;
        ++reg_writes[r.addr];
      } else {
        reg_rsp_.push_back({static_cast<unsigned>(rng_() % 4), regs[r.addr]});
      }
    }
    if (b_->mem_req_valid_o && b_->mem_req_ready_i) {
      const uint32_t wdata = b_->mem_req_o[0];
      const uint32_t addr = b_->mem_req_o[1];
      const bool write = (b_->mem_req_o[2] & 1u) != 0;
      EXPECT_EQ(addr % 4, 0u);
      EXPECT_GE(addr, kMemBase);
      EXPECT_LT(addr, kMemBase + kMemBytes);
      if (write) {
        word(addr) = wdata;
        ++mem_writes;
      }
      mem_rsp_.push_back({static_cast<unsigned>(rng_() % 4), write ? 0u : word(addr)});
    }
    b_.tick();
    uart_.sample(b_->uart_tx_o != 0);
  }

  Bench<Vhost_bridge4> b_;
  UartBits uart_;
  std::vector<uint32_t> mem_;
  std::deque<std::pair<unsigned, uint32_t>> reg_rsp_, mem_rsp_;
  std::mt19937 rng_{17};
};

fpga::LinkPolicy policy() {
  fpga::LinkPolicy p;
  p.timeout_per_byte = 2 * 10 * kDiv;
  p.timeout_base = 400;
  p.max_words = kMaxWords;
  return p;
}

// One raw request frame and the answer bodies it gets.
std::vector<std::vector<uint8_t>> roundtrip(BridgePipe& pipe, const std::vector<uint8_t>& frame) {
  pipe.send(frame.data(), frame.size());
  std::vector<uint8_t> raw;
  std::vector<std::vector<uint8_t>> answers;
  fpga::FrameDecoder decoder;
  for (int i = 0; i < 64; ++i) {
    std::vector<uint8_t> got;
    if (pipe.receive(got, 2000) >= 2000 && got.empty()) break;
    for (uint8_t byte : got) {
      if (decoder.push(byte)) {
        EXPECT_TRUE(decoder.ok());
        answers.push_back(decoder.body());
      }
    }
  }
  return answers;
}

TEST(HostBridge, RegistersAndMemoryThroughTheEngine) {
  BridgePipe pipe;
  fpga::LinkEngine link(pipe, policy(), "bench");
  link.write_reg(0x040, 0xDEADBEEF);
  link.write_reg(0xFFC, 0x12345678);
  EXPECT_EQ(pipe.regs[0x040], 0xDEADBEEFu);
  EXPECT_EQ(link.read_reg(0x040), 0xDEADBEEFu);
  EXPECT_EQ(link.read_reg(0xFFC), 0x12345678u);
  // 29 words: four requests of at most 8 words; then unaligned ends.
  std::vector<uint8_t> data(29 * 4);
  std::mt19937 rng(1);
  for (auto& v : data) v = static_cast<uint8_t>(rng());
  link.write_mem(kMemBase + 0x100, data.data(), data.size());
  for (size_t i = 0; i < 29; ++i) {
    uint32_t expect;
    std::memcpy(&expect, data.data() + 4 * i, 4);
    EXPECT_EQ(pipe.word(kMemBase + 0x100 + 4 * static_cast<uint32_t>(i)), expect);
  }
  std::vector<uint8_t> back(data.size());
  link.read_mem(kMemBase + 0x100, back.data(), back.size());
  EXPECT_EQ(back, data);
  const uint8_t odd[5] = {9, 8, 7, 6, 5};
  link.write_mem(kMemBase + 0x103, odd, sizeof odd);
  uint8_t around[12];
  link.read_mem(kMemBase + 0x100, around, sizeof around);
  EXPECT_EQ(around[2], data[2]);
  EXPECT_EQ(0, std::memcmp(around + 3, odd, 5));
  EXPECT_EQ(around[8], data[8]);
  EXPECT_EQ(link.stats().resends, 0u);
}

TEST(HostBridge, RefusesBadAddressesAndLengths) {
  BridgePipe pipe;
  fpga::LinkEngine link(pipe, policy(), "bench");
  uint32_t word = 0;
  EXPECT_THROW(link.read_mem(kMemBase + kMemBytes - 4, &word, 8), kestrel::Error);
  EXPECT_THROW(link.read_mem(kMemBase - 4, &word, 4), kestrel::Error);
  EXPECT_THROW(link.read_reg(0x1000), kestrel::Error);
  try {
    link.write_reg(0x1002, 1);
    FAIL();
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE);
  }
  // 9 words is past the 8-word buffer: BAD_LENGTH.
  std::vector<uint8_t> nine(36, 1);
  auto answers = roundtrip(pipe, fpga::encode_frame(fpga::request_body(7, fpga::kOpWriteMem, kMemBase, 9,
                                                                       nine.data(), nine.size())));
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0][2], fpga::kStatusBadLength);
  // A count that does not match the payload: BAD_LENGTH; an unknown op: BAD_OP.
  answers = roundtrip(
      pipe, fpga::encode_frame(fpga::request_body(8, fpga::kOpWriteMem, kMemBase, 2, nine.data(), 4)));
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0][2], fpga::kStatusBadLength);
  answers = roundtrip(pipe, fpga::encode_frame(fpga::request_body(9, 5, kMemBase, 1, nullptr, 0)));
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0][2], fpga::kStatusBadOp);
  EXPECT_EQ(pipe.mem_writes, 0u);
}

TEST(HostBridge, DamagedFrameIsAnsweredCrcErrorAndNotApplied) {
  BridgePipe pipe;
  const uint8_t value[4] = {1, 0, 0, 0};
  std::vector<uint8_t> frame =
      fpga::encode_frame(fpga::request_body(3, fpga::kOpWriteReg, 0x0A0, 1, value, 4));
  frame[5] ^= 0x01;
  const auto answers = roundtrip(pipe, frame);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0][1], fpga::kOpNak);
  EXPECT_EQ(answers[0][2], fpga::kStatusCrcError);
  EXPECT_EQ(pipe.reg_writes[0x0A0], 0u);
}

TEST(HostBridge, DuplicateIsReplayedNotAppliedAndSyncForgetsIt) {
  BridgePipe pipe;
  const uint8_t start[4] = {1, 0, 0, 0};
  const std::vector<uint8_t> write =
      fpga::encode_frame(fpga::request_body(5, fpga::kOpWriteReg, 0x0A0, 1, start, 4));
  auto a = roundtrip(pipe, write);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0][2], fpga::kStatusOk);
  a = roundtrip(pipe, write);  // the host resends: its answer was lost
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0][0], 5);
  EXPECT_EQ(a[0][2], fpga::kStatusOk | fpga::kStatusReplayed);
  EXPECT_EQ(pipe.reg_writes[0x0A0], 1u);
  // The same for memory: a kernel's result written since is not overwritten.
  const uint8_t words[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<uint8_t> mem =
      fpga::encode_frame(fpga::request_body(6, fpga::kOpWriteMem, kMemBase, 2, words, 8));
  roundtrip(pipe, mem);
  pipe.word(kMemBase) = 0xC0FFEE;
  a = roundtrip(pipe, mem);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0][2], fpga::kStatusOk | fpga::kStatusReplayed);
  EXPECT_EQ(pipe.word(kMemBase), 0xC0FFEEu);
  EXPECT_EQ(pipe.mem_writes, 2u);
  // After SYNC, seq 6 is a new request.
  a = roundtrip(pipe, fpga::encode_frame(fpga::request_body(0, fpga::kOpSync, 0, 0, nullptr, 0)));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0][1], fpga::kOpSync | fpga::kOpAnswer);
  a = roundtrip(pipe, mem);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0][2], fpga::kStatusOk);
  EXPECT_EQ(pipe.word(kMemBase), 0x04030201u);
}

TEST(HostBridge, CorrectResultsThroughAFaultyLink) {
  BridgePipe pipe;
  fpga::FaultyPipe faulty(pipe, 0.01, 42);
  fpga::LinkEngine link(faulty, policy(), "bench");
  std::mt19937 rng(2);
  std::vector<uint32_t> model(kMemBytes / 4, 0);
  for (int round = 0; round < 40; ++round) {
    const uint32_t words = 1 + rng() % 20;
    const uint32_t first = rng() % (kMemBytes / 4 - words);
    std::vector<uint32_t> data(words);
    for (auto& v : data) v = static_cast<uint32_t>(rng());
    link.write_mem(kMemBase + 4 * first, data.data(), 4 * words);
    std::copy(data.begin(), data.end(), model.begin() + first);
    link.write_reg(0x40 + 4 * (round % 8), static_cast<uint32_t>(round));
    EXPECT_EQ(link.read_reg(0x40 + 4 * (round % 8)), static_cast<uint32_t>(round));
    std::vector<uint32_t> back(words);
    link.read_mem(kMemBase + 4 * first, back.data(), 4 * words);
    EXPECT_EQ(back, data);
  }
  for (uint32_t i = 0; i < kMemBytes / 4; ++i) ASSERT_EQ(pipe.word(kMemBase + 4 * i), model[i]) << i;
  for (int r = 0; r < 8; ++r)
    EXPECT_EQ(pipe.reg_writes[0x40 + 4 * r], 5u) << "each register written once a round";
  const fpga::LinkStats& s = link.stats();
  EXPECT_GT(faulty.faults(), 0u);
  EXPECT_GT(s.resends, 0u);
  EXPECT_GT(s.timeouts + s.crc_naks, 0u);
  std::printf("faults %llu: %s\n", static_cast<unsigned long long>(faulty.faults()), s.to_string().c_str());
}

}  // namespace
