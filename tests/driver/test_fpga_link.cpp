// The board link's host side without a board (driver/fpga/): the protocol
// engine against a C++ loopback bridge that follows docs/host-protocol.md
// (framing, CRC, resends on loss and damage, duplicate suppression, giving
// up), the FT2232H's baud divisor, the device and fault specs, and the fpga
// backend failing cleanly where no board is connected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fpga_transport.hpp"
#include "kestrel/error.hpp"
#include "kestrel/transport.hpp"
#include "link_engine.hpp"

namespace {

namespace fpga = kestrel::fpga;

// The bridge in C++: answers each frame at once; `lose_answers` answers are
// computed (and writes applied) but not sent back; `silent` answers nothing.
class LoopbackBoard final : public fpga::BytePipe {
 public:
  void send(const uint8_t* data, size_t bytes) override {
    for (size_t i = 0; i < bytes; ++i)
      if (decoder_.push(data[i])) handle();
  }
  uint64_t receive(std::vector<uint8_t>& out, uint64_t timeout) override {
    if (outbox_.empty()) return timeout;
    out.insert(out.end(), outbox_.begin(), outbox_.end());
    outbox_.clear();
    return 1;
  }
  void idle(uint64_t) override {}

  std::map<uint32_t, uint32_t> regs;
  std::map<uint32_t, unsigned> reg_writes;
  std::vector<uint8_t> mem = std::vector<uint8_t>(4096, 0);
  unsigned lose_answers = 0;
  bool silent = false;
  unsigned frames = 0;

 private:
  void answer(std::vector<uint8_t> body) {
    if (silent) return;
    if (lose_answers != 0) {
      --lose_answers;
      return;
    }
    const std::vector<uint8_t> f = fpga::encode_frame(body);
    outbox_.insert(outbox_.end(), f.begin(), f.end());
  }
  void handle() {
    ++frames;
    const std::vector<uint8_t>& b = decoder_.body();
    if (!decoder_.ok() || b.size() < fpga::kHeaderBytes) {
      answer({b.empty() ? uint8_t{0} : b[0], fpga::kOpNak, fpga::kStatusCrcError});
      return;
    }
    const uint8_t seq = b[0], op = b[1];
    const uint32_t addr = b[2] | b[3] << 8 | b[4] << 16 | static_cast<uint32_t>(b[5]) << 24;
    const unsigned count = b[6] | b[7] << 8;
    const bool dup = has_last_ && seq == last_seq_ && op == last_op_;
    has_last_ = op != fpga::kOpSync;
    last_seq_ = seq;
    last_op_ = op;
    std::vector<uint8_t> a = {seq, static_cast<uint8_t>(op | fpga::kOpAnswer),
                              static_cast<uint8_t>(dup && op != fpga::kOpSync ? fpga::kStatusReplayed : 0)};
    const uint32_t off = addr - 0x10000000u;
    const bool mem_ok = addr % 4 == 0 && addr >= 0x10000000u && off + 4 * count <= mem.size();
    switch (op) {
      case fpga::kOpSync:
        break;
      case fpga::kOpReadReg:
        for (int i = 0; i < 4; ++i) a.push_back(static_cast<uint8_t>(regs[addr] >> (8 * i)));
        break;
      case fpga::kOpWriteReg:
        if (!dup) {
          regs[addr] = b[8] | b[9] << 8 | b[10] << 16 | static_cast<uint32_t>(b[11]) << 24;
          ++reg_writes[addr];
        }
        break;
      case fpga::kOpWriteMem:
        if (!mem_ok) {
          a[2] |= fpga::kStatusBadAddress;
        } else if (!dup) {
          std::memcpy(mem.data() + off, b.data() + 8, 4 * count);
        }
        break;
      case fpga::kOpReadMem:
        if (!mem_ok)
          a[2] |= fpga::kStatusBadAddress;
        else
          a.insert(a.end(), mem.begin() + off, mem.begin() + off + 4 * count);
        break;
      default:
        a[2] |= fpga::kStatusBadOp;
    }
    answer(a);
  }

  fpga::FrameDecoder decoder_;
  std::vector<uint8_t> outbox_;
  bool has_last_ = false;
  uint8_t last_seq_ = 0, last_op_ = 0;
};

fpga::LinkPolicy quick() {
  fpga::LinkPolicy p;
  p.timeout_base = 10;
  p.timeout_per_byte = 0;
  return p;
}

TEST(FpgaLink, CrcAndFraming) {
  const uint8_t text[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  EXPECT_EQ(fpga::crc16(text, sizeof text), 0x29B1);
  const std::vector<uint8_t> body = {0x7E, 0x01, 0x7D, 0x20, 0x5E};
  const std::vector<uint8_t> frame = fpga::encode_frame(body);
  EXPECT_EQ(frame.front(), fpga::kFlag);
  EXPECT_EQ(frame.back(), fpga::kFlag);
  EXPECT_EQ(std::count(frame.begin() + 1, frame.end() - 1, fpga::kFlag), 0);
  EXPECT_EQ(frame[1], fpga::kEsc);
  EXPECT_EQ(frame[2], 0x5E);
  // Junk before the first flag, an empty frame, then the frame: one body.
  fpga::FrameDecoder d;
  std::vector<std::vector<uint8_t>> got;
  std::vector<uint8_t> raw = {0x33, 0x7D, fpga::kFlag, fpga::kFlag};
  raw.insert(raw.end(), frame.begin(), frame.end());
  for (uint8_t b : raw)
    if (d.push(b)) got.push_back(d.ok() ? d.body() : std::vector<uint8_t>{});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], body);
  // One flipped bit fails the CRC.
  std::vector<uint8_t> bad = frame;
  bad[3] ^= 0x40;
  bool ended = false;
  for (uint8_t b : bad) ended = d.push(b) || ended;
  EXPECT_TRUE(ended);
  EXPECT_FALSE(d.ok());
}

TEST(FpgaLink, OperationsOverACleanLink) {
  LoopbackBoard board;
  fpga::LinkEngine link(board, quick(), "test");
  link.write_reg(0x40, 0x11223344);
  EXPECT_EQ(link.read_reg(0x40), 0x11223344u);
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  link.write_mem(0x10000001, data.data(), data.size());  // unaligned both ends, 4 requests
  std::vector<uint8_t> back(data.size());
  link.read_mem(0x10000001, back.data(), back.size());
  EXPECT_EQ(back, data);
  EXPECT_EQ(board.mem[0], 0);
  EXPECT_EQ(link.stats().resends, 0u);
  uint32_t word = 0;
  try {
    link.read_mem(0x10001000, &word, 4);
    FAIL();
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE);
  }
}

TEST(FpgaLink, LostAnswerIsResentAndTheWriteAppliedOnce) {
  LoopbackBoard board;
  fpga::LinkEngine link(board, quick(), "test");
  board.lose_answers = 2;
  link.write_reg(0xA0, 1);
  EXPECT_EQ(board.reg_writes[0xA0], 1u);
  EXPECT_EQ(link.stats().timeouts, 2u);
  EXPECT_EQ(link.stats().resends, 2u);
  EXPECT_EQ(link.stats().replayed, 1u);
  // The next request is new: applied.
  link.write_reg(0xA0, 1);
  EXPECT_EQ(board.reg_writes[0xA0], 2u);
}

TEST(FpgaLink, GivesUpAfterMaxRetriesWithAClearError) {
  LoopbackBoard board;
  fpga::LinkEngine link(board, quick(), "test");
  board.silent = true;
  board.frames = 0;
  try {
    link.read_reg(0);
    FAIL();
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_IO);
    EXPECT_NE(std::string(e.what()).find("board not responding"), std::string::npos) << e.what();
  }
  EXPECT_EQ(board.frames, quick().max_retries + 1);
}

TEST(FpgaLink, CorrectResultsThroughFlipsDropsAndDuplicates) {
  LoopbackBoard board;
  fpga::FaultyPipe faulty(board, 0.002, 99);
  fpga::LinkEngine link(faulty, quick(), "test");
  std::mt19937 rng(4);
  std::vector<uint8_t> model(4096, 0);
  for (int round = 0; round < 200; ++round) {
    const size_t n = 1 + rng() % 300;
    const size_t at = rng() % (4096 - n);
    std::vector<uint8_t> data(n);
    for (auto& v : data) v = static_cast<uint8_t>(rng());
    link.write_mem(0x10000000u + static_cast<uint32_t>(at), data.data(), n);
    std::memcpy(model.data() + at, data.data(), n);
    link.write_reg(0x100, static_cast<uint32_t>(round));
  }
  EXPECT_EQ(board.mem, model);
  EXPECT_EQ(board.reg_writes[0x100], 200u);
  const fpga::LinkStats& s = link.stats();
  EXPECT_GT(faulty.faults(), 50u);
  EXPECT_GT(s.resends, 0u);
  EXPECT_GT(s.crc_naks, 0u);
  EXPECT_GT(s.timeouts, 0u);
  EXPECT_GT(s.replayed, 0u);
}

TEST(FpgaLink, FaultSpec) {
  EXPECT_EQ(fpga::parse_fault_spec("", "x").rate, 0);
  const fpga::FaultSpec s = fpga::parse_fault_spec("0.01:7", "x");
  EXPECT_DOUBLE_EQ(s.rate, 0.01);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(fpga::parse_fault_spec("0.5", "x").seed, 1u);
  for (const char* bad : {"0.6", "x", "0.1:", "0.1:-1", "-0.1", "rate=0.1"})
    EXPECT_THROW(fpga::parse_fault_spec(bad, "x"), kestrel::Error) << bad;
}

TEST(FpgaUsb, BaudDivisorMatchesTheChip) {
  // Values as libftdi computes them for the FT2232H's 3 MHz clock.
  const fpga::BaudDivisor d3m = fpga::ftdi_baud_divisor(3000000);
  EXPECT_EQ(d3m.value, 0);
  EXPECT_EQ(d3m.actual, 3000000u);
  EXPECT_EQ(fpga::ftdi_baud_divisor(2000000).value, 1);
  EXPECT_EQ(fpga::ftdi_baud_divisor(1500000).value, 2);
  const fpga::BaudDivisor d115 = fpga::ftdi_baud_divisor(115200);
  EXPECT_EQ(d115.value, 0x1A);
  EXPECT_EQ(d115.index, 0);
  EXPECT_EQ(fpga::ftdi_baud_divisor(9600).value, 0x4138);
  // 1 MBd: divisor 3; 1.2 MBd: 2.5 = code 1 (1/2) in bits 15:14.
  EXPECT_EQ(fpga::ftdi_baud_divisor(1000000).value, 3);
  EXPECT_EQ(fpga::ftdi_baud_divisor(1200000).value, 2 | 1 << 14);
  // 1/8 is the chip's code 3: value bits 15:14 = 3, index bit 8 = 0.
  const fpga::BaudDivisor eighth = fpga::ftdi_baud_divisor(24000000 / 81);  // 10 + 1/8
  EXPECT_EQ(eighth.value, 10 | 3 << 14);
  EXPECT_EQ(eighth.index, 0);
  // 3/8 is code 4: bit 16 of the encoding, index bit 8.
  const fpga::BaudDivisor three_eighths = fpga::ftdi_baud_divisor(24000000 / 83);  // 10 + 3/8
  EXPECT_EQ(three_eighths.value, 10);
  EXPECT_EQ(three_eighths.index, 0x100);
  EXPECT_THROW(fpga::ftdi_baud_divisor(4000000), kestrel::Error);
  EXPECT_THROW(fpga::ftdi_baud_divisor(100), kestrel::Error);
  EXPECT_THROW(fpga::ftdi_baud_divisor(2500000), kestrel::Error);  // 2 or 3 MBd only: 20 % off
}

TEST(FpgaUsb, DeviceSpec) {
  fpga::DeviceSpec d = fpga::parse_device_spec("");
  EXPECT_EQ(d.vid, 0x0403);
  EXPECT_EQ(d.pid, 0x6010);
  EXPECT_TRUE(d.serial.empty());
  d = fpga::parse_device_spec("0403:6014:FT12345");
  EXPECT_EQ(d.pid, 0x6014);
  EXPECT_EQ(d.serial, "FT12345");
  d = fpga::parse_device_spec("serial=ICEBREAKER1");
  EXPECT_EQ(d.vid, 0x0403);
  EXPECT_EQ(d.serial, "ICEBREAKER1");
  for (const char* bad : {"0403", "xyz:6010", "0403:6010:", "serial=", "12345:1"})
    EXPECT_THROW(fpga::parse_device_spec(bad), kestrel::Error) << bad;
}

#ifdef KESTREL_HAVE_LIBUSB
TEST(FpgaUsb, NoBoardIsAClearError) {
  kestrel::BackendConfig config;
  config.options["device"] = "ffff:fffe";  // no such chip
  try {
    kestrel::open_transport("fpga", config);
    FAIL() << "a board opened";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_NO_DEVICE);
    const std::string what = e.what();
    EXPECT_NE(what.find("no Kestrel board found"), std::string::npos) << what;
    EXPECT_TRUE(what.find("ffff:fffe") != std::string::npos || what.find("libusb") != std::string::npos)
        << what;
  }
  config.options = {{"speed", "1"}};
  EXPECT_THROW(kestrel::open_transport("fpga", config), kestrel::Error);
  config.options = {{"baud", "4000000"}};
  EXPECT_THROW(kestrel::open_transport("fpga", config), kestrel::Error);
}
#endif

}  // namespace
