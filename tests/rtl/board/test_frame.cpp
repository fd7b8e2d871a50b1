// kestrel_frame_rx and kestrel_frame_tx against the host's framing
// (driver/fpga/link_engine.cpp): escaping, CRC, resynchronization at a flag.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "Vframe_rx.h"
#include "Vframe_tx.h"
#include "link_engine.hpp"
#include "rtl_test.hpp"

namespace {

using kestrel::rtlbench::Bench;
namespace fpga = kestrel::fpga;

struct RxFrame {
  std::vector<uint8_t> bytes;  // body and CRC, as data_o showed them
  uint16_t len = 0;
  bool ok = false;
};

std::vector<RxFrame> receive(const std::vector<uint8_t>& raw) {
  Bench<Vframe_rx> b;
  b.reset();
  std::vector<RxFrame> frames(1);
  for (uint8_t byte : raw) {
    b->in_valid_i = 1;
    b->in_data_i = byte;
    b.eval();
    if (b->data_valid_o) {
      EXPECT_EQ(b->index_o, frames.back().bytes.size());
      frames.back().bytes.push_back(b->data_o);
    }
    if (b->end_valid_o) {
      frames.back().len = b->end_len_o;
      frames.back().ok = b->end_ok_o;
      frames.emplace_back();
    }
    b.tick();
    b->in_valid_i = 0;
    b.tick();
  }
  frames.pop_back();
  return frames;
}

std::vector<uint8_t> random_body(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> body(n);
  for (auto& v : body) {
    // Flags and escapes often.
    const unsigned pick = rng() % 8;
    v = pick == 0 ? fpga::kFlag : pick == 1 ? fpga::kEsc : static_cast<uint8_t>(rng());
  }
  return body;
}

TEST(FrameRx, UnescapesAndChecksTheCrc) {
  std::mt19937 rng(3);
  std::vector<uint8_t> raw = {0x11, 0x22};  // noise before the first flag: dropped
  std::vector<std::vector<uint8_t>> bodies;
  for (int i = 0; i < 20; ++i) {
    bodies.push_back(random_body(rng, 1 + rng() % 40));
    const std::vector<uint8_t> f = fpga::encode_frame(bodies.back());
    raw.insert(raw.end(), f.begin(), f.end());
  }
  const std::vector<RxFrame> frames = receive(raw);
  ASSERT_EQ(frames.size(), bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    EXPECT_TRUE(frames[i].ok) << i;
    EXPECT_EQ(frames[i].len, bodies[i].size() + 2);
    EXPECT_TRUE(std::equal(bodies[i].begin(), bodies[i].end(), frames[i].bytes.begin()));
  }
}

TEST(FrameRx, ADamagedFrameFailsAndTheNextOneStillPasses) {
  std::vector<uint8_t> body = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  std::vector<uint8_t> damaged = fpga::encode_frame(body);
  damaged[4] ^= 0x08;
  std::vector<uint8_t> cut = fpga::encode_frame(body);
  cut.erase(cut.begin() + 3);  // a byte lost
  std::vector<uint8_t> raw = damaged;
  raw.insert(raw.end(), cut.begin(), cut.end());
  const std::vector<uint8_t> good = fpga::encode_frame(body);
  raw.insert(raw.end(), good.begin(), good.end());
  const std::vector<RxFrame> frames = receive(raw);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_FALSE(frames[0].ok);
  EXPECT_FALSE(frames[1].ok);
  EXPECT_TRUE(frames[2].ok);
}

TEST(FrameTx, MatchesTheHostsEncodingUnderBackpressure) {
  Bench<Vframe_tx> b;
  b.reset();
  std::mt19937 rng(9);
  for (int round = 0; round < 20; ++round) {
    const std::vector<uint8_t> body = random_body(rng, 1 + rng() % 30);
    const std::vector<uint8_t> expect = fpga::encode_frame(body);
    std::vector<uint8_t> out;
    size_t next = 0;
    for (int guard = 0; guard < 2000 && out.size() < expect.size(); ++guard) {
      b->in_valid_i = next < body.size();
      b->in_data_i = next < body.size() ? body[next] : 0;
      b->in_last_i = next + 1 == body.size();
      b->out_ready_i = rng() % 3 != 0;
      b.eval();
      if (b->in_valid_i && b->in_ready_o) ++next;
      if (b->out_valid_o && b->out_ready_i) out.push_back(b->out_data_o);
      b.tick();
    }
    EXPECT_EQ(out, expect) << "round " << round;
    EXPECT_EQ(next, body.size());
  }
}

TEST(Crc, CheckValueOfCcittFalse) {
  const uint8_t text[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  EXPECT_EQ(fpga::crc16(text, sizeof text), 0x29B1);
}

}  // namespace
