// A bit-level UART for the board benches: a serializer that drives a line
// and a deserializer that samples one, at `div` cycles per bit, 8N1, LSB
// first (the C++ side of kestrel_uart_rx/_tx).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace kestrel::rtlbench {

class UartBits {
 public:
  explicit UartBits(unsigned div) : div_(div) {}

  void send(const std::vector<uint8_t>& bytes) { out_.insert(out_.end(), bytes.begin(), bytes.end()); }
  // A byte whose stop bit is low (a framing error at the receiver).
  void send_broken(uint8_t byte) {
    out_.push_back(byte);
    broken_.push_back(out_.size() - 1 + sent_);
  }
  bool sending() const { return bit_ < 10 || !out_.empty(); }

  // The line level for the coming cycle.
  bool line() {
    if (bit_ == 10 && !out_.empty()) {
      byte_ = out_.front();
      out_.pop_front();
      broken_now_ = !broken_.empty() && broken_.front() == sent_;
      if (broken_now_) broken_.pop_front();
      ++sent_;
      bit_ = 0;
      count_ = div_;
    }
    if (bit_ == 10) return true;
    const bool level = bit_ == 0 ? false : bit_ == 9 ? !broken_now_ : ((byte_ >> (bit_ - 1)) & 1u) != 0;
    if (--count_ == 0) {
      ++bit_;
      count_ = div_;
    }
    return level;
  }

  // Samples the other side's line once a cycle; bytes land in received().
  void sample(bool level) {
    if (rx_bit_ < 0) {
      if (!level) {
        rx_bit_ = 0;
        rx_count_ = div_ / 2;
      }
      return;
    }
    if (--rx_count_ != 0) return;
    rx_count_ = div_;
    if (rx_bit_ == 0) {
      if (level) {
        rx_bit_ = -1;
        return;
      }
      rx_byte_ = 0;
    } else if (rx_bit_ <= 8) {
      rx_byte_ = static_cast<uint8_t>(rx_byte_ | (level ? 1u : 0u) << (rx_bit_ - 1));
    } else {
      if (level)
        received_.push_back(rx_byte_);
      else
        ++framing_errors_;
      rx_bit_ = -1;
      return;
    }
    ++rx_bit_;
  }
  std::vector<uint8_t>& received() { return received_; }
  unsigned framing_errors() const { return framing_errors_; }

 private:
  unsigned div_;
  std::deque<uint8_t> out_;
  std::deque<uint64_t> broken_;
  uint64_t sent_ = 0;
  bool broken_now_ = false;
  unsigned bit_ = 10;
  unsigned count_ = 0;
  uint8_t byte_ = 0;
  int rx_bit_ = -1;
  unsigned rx_count_ = 0;
  uint8_t rx_byte_ = 0;
  std::vector<uint8_t> received_;
  unsigned framing_errors_ = 0;
};

}  // namespace kestrel::rtlbench
