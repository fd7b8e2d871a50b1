// libFuzzer target: the host end of the board link (driver/fpga/link_engine.cpp,
// docs/host-protocol.md), which is the transport layer of the fpga and
// fpga-sim backends, against a hostile or broken board: whatever bytes come
// back over the UART.  The input drives both sides:
//
//   operations of the engine, each an opcode byte (low 2 bits) and operands:
//     0  read_reg(u16)    1  write_reg(u16, u32)
//     2  write_mem(u32 addr, u16 bytes & 0x3ff)   3  read_mem(u32 addr, u16 bytes & 0x3ff)
//   and, each time the engine waits for bytes, a directive byte of the board:
//     low 2 bits 0: raw bytes, n = next byte, then n bytes of the input;
//                1: a well-formed answer to the request just sent, with the
//                   status, payload length, seq and op taken from the input
//                   (so that the engine's checks past the CRC are reached),
//                   bit 2 flips one of its bytes;
//                2: nothing arrives before the timeout;
//                3: a NAK (CRC_ERROR answer).
//
// The engine gives up after its resends, so every input ends; only
// kestrel::Error may come out of it.  A crash, a sanitizer report, another
// exception or a hang is a finding.
#include <cstdint>
#include <cstring>
#include <vector>

#include "kestrel/error.hpp"
#include "link_engine.hpp"

namespace {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint64_t take(unsigned bytes) {
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes && pos_ < size_; ++i) v |= uint64_t{data_[pos_++]} << (8 * i);
    return v;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// The board: answers from the fuzz input.
class HostileBoard final : public kestrel::fpga::BytePipe {
 public:
  explicit HostileBoard(Input& in) : in_(in) {}
  void send(const uint8_t* data, size_t bytes) override {
    for (size_t i = 0; i < bytes; ++i)
      if (decoder_.push(data[i]) && decoder_.ok() && decoder_.body().size() >= 2) last_ = decoder_.body();
  }
  uint64_t receive(std::vector<uint8_t>& out, uint64_t timeout) override {
    if (in_.empty()) return timeout;
    const unsigned directive = static_cast<unsigned>(in_.take(1));
    switch (directive & 3) {
      case 0: {
        const unsigned n = static_cast<unsigned>(in_.take(1));
        for (unsigned i = 0; i < n && !in_.empty(); ++i) out.push_back(static_cast<uint8_t>(in_.take(1)));
        return out.empty() ? timeout : 1;
      }
      case 1: {
        std::vector<uint8_t> body;
        const uint8_t seq = last_.empty() ? 0 : last_[0];
        const uint8_t op = last_.size() < 2 ? 0 : last_[1];
        body.push_back(static_cast<uint8_t>(seq + in_.take(1) % 2));
        body.push_back(static_cast<uint8_t>((op | kestrel::fpga::kOpAnswer) ^ (in_.take(1) % 2)));
        body.push_back(static_cast<uint8_t>(in_.take(1)));  // status, REPLAYED bit included
        const unsigned payload = static_cast<unsigned>(in_.take(2)) % 300;
        for (unsigned i = 0; i < payload; ++i) body.push_back(static_cast<uint8_t>(in_.take(1)));
        out = kestrel::fpga::encode_frame(body);
        if (directive & 4)
          out[static_cast<size_t>(in_.take(2)) % out.size()] ^= static_cast<uint8_t>(1u << (directive >> 5));
        return 1;
      }
      case 2:
        return timeout;
      default: {
        const std::vector<uint8_t> nak = {0, kestrel::fpga::kOpNak, kestrel::fpga::kStatusCrcError};
        out = kestrel::fpga::encode_frame(nak);
        return 1;
      }
    }
  }
  void idle(uint64_t) override {}

 private:
  Input& in_;
  kestrel::fpga::FrameDecoder decoder_;
  std::vector<uint8_t> last_;  // the last request body the engine sent
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  HostileBoard board(in);
  kestrel::fpga::LinkPolicy policy;
  policy.max_retries = 3;  // fewer resends: more of each input reaches later operations
  try {
    kestrel::fpga::LinkEngine engine(board, policy, "fuzz");
    std::vector<uint8_t> buffer(1024);
    for (unsigned step = 0; step < 64 && !in.empty(); ++step) {
      const unsigned op = static_cast<unsigned>(in.take(1)) & 3;
      try {
        switch (op) {
          case 0:
            (void)engine.read_reg(static_cast<uint32_t>(in.take(2)));
            break;
          case 1:
            engine.write_reg(static_cast<uint32_t>(in.take(2)), static_cast<uint32_t>(in.take(4)));
            break;
          case 2: {
            const uint32_t addr = static_cast<uint32_t>(in.take(4));
            const size_t bytes = static_cast<size_t>(in.take(2)) & 0x3ff;
            engine.write_mem(addr, buffer.data(), bytes);
            break;
          }
          default: {
            const uint32_t addr = static_cast<uint32_t>(in.take(4));
            const size_t bytes = static_cast<size_t>(in.take(2)) & 0x3ff;
            engine.read_mem(addr, buffer.data(), bytes);
            break;
          }
        }
      } catch (const kestrel::Error&) {
        // A refused or unanswered operation: the engine stays usable.
      }
    }
  } catch (const kestrel::Error&) {
    // The SYNC at construction went unanswered.
  }
  return 0;
}
