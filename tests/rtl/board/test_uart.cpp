// kestrel_uart_tx and kestrel_uart_rx at 8 cycles per bit against a C++
// UART (uart_bits.hpp): every byte value, back to back and with gaps; a low
// stop bit is a framing error, not a byte.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "Vuart_rx8.h"
#include "Vuart_tx8.h"
#include "rtl_test.hpp"
#include "uart_bits.hpp"

namespace {

using kestrel::rtlbench::Bench;
using kestrel::rtlbench::UartBits;
constexpr unsigned kDiv = 8;

TEST(UartTx, SendsEveryByteAtTenBitTimesEach) {
  Bench<Vuart_tx8> b;
  b.reset();
  UartBits host(kDiv);
  std::vector<uint8_t> sent;
  for (unsigned v = 0; v < 256; ++v) sent.push_back(static_cast<uint8_t>(v));
  size_t next = 0;
  uint64_t cycles = 0;
  std::mt19937 rng(5);
  while (host.received().size() < sent.size() && cycles < 256 * 12 * kDiv) {
    // Back to back for the first half, random gaps after (a raised valid
    // stays until the byte is taken).
    if (!b->valid_i) b->valid_i = next < sent.size() && (next < 128 || rng() % 4 == 0);
    b->data_i = next < sent.size() ? sent[next] : 0;
    b.eval();
    const bool taken = b->valid_i && b->ready_o;
    b.tick();
    if (taken) {
      ++next;
      b->valid_i = 0;
    }
    host.sample(b->tx_o != 0);
    ++cycles;
  }
  EXPECT_EQ(host.received(), sent);
  EXPECT_EQ(host.framing_errors(), 0u);
}

TEST(UartTx, ReadyOnlyWhenIdle) {
  Bench<Vuart_tx8> b;
  b.reset();
  b->valid_i = 1;
  b->data_i = 0xA5;
  b.eval();
  ASSERT_TRUE(b->ready_o);
  b.tick();
  b->valid_i = 0;
  unsigned busy = 0;
  for (int i = 0; i < 200; ++i) {
    b.eval();
    if (!b->ready_o) ++busy;
    b.tick();
  }
  EXPECT_EQ(busy, 10 * kDiv);  // start, 8 data bits, stop
}

TEST(UartRx, ReceivesEveryByteAndFlagsABadStopBit) {
  Bench<Vuart_rx8> b;
  b.reset();
  UartBits host(kDiv);
  std::vector<uint8_t> sent;
  for (unsigned v = 0; v < 256; ++v) sent.push_back(static_cast<uint8_t>(v * 37 + 11));
  host.send(std::vector<uint8_t>(sent.begin(), sent.begin() + 100));
  host.send_broken(0x55);
  host.send(std::vector<uint8_t>(sent.begin() + 100, sent.end()));
  std::vector<uint8_t> got;
  unsigned errors = 0;
  for (uint64_t c = 0; c < 300 * 10 * kDiv; ++c) {
    b->rx_i = host.line();
    b.tick();
    if (b->valid_o) got.push_back(b->data_o);
    if (b->frame_err_o) ++errors;
  }
  EXPECT_EQ(got, sent);
  EXPECT_EQ(errors, 1u);
}

TEST(UartRx, IgnoresAGlitchShorterThanHalfABit) {
  Bench<Vuart_rx8> b;
  b.reset();
  unsigned bytes = 0;
  for (int c = 0; c < 100; ++c) {
    b->rx_i = !(c >= 10 && c < 12);
    b.tick();
    bytes += b->valid_o + b->frame_err_o;
  }
  EXPECT_EQ(bytes, 0u);
}

}  // namespace
