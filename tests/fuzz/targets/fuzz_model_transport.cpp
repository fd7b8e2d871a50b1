// libFuzzer target: the host-register/transport layer of the model backend
// (model/model_transport.cpp, model/host_registers.cpp) under any sequence of
// register writes and reads, DRAM writes and reads and launches, as a driver
// (or a corrupted one) could send them.  The input is a small program:
//
//   byte 0            geometry: bit 0 xlen (0: 64, 1: 32), bits 1-2 lanes
//                     (4, 8, 32, 32), bit 3 SMs (1, 2), bits 4-5 warps per
//                     SM (1..4)
//   then operations, each an opcode byte (low 3 bits) and its operands,
//   little-endian:
//     0  write_reg(u16 & 0x3fc, u32)        1  read_reg(u16 & 0x3fc)
//     2  write_reg(u32, u32): any offset     3  write_mem(DRAM + u32, n=u8, n bytes)
//     4  read_mem(DRAM + u32, u16 & 0xfff)   5  write_mem/read_mem(u64, u8): any address
//     6  CONTROL = START                     7  advance(u16 cycles)
//
// Launches are bounded: the harness only ever advances (never wait_idle),
// at most kMaxRounds in all per input, then aborts what still runs, so an
// arbitrary descriptor (huge grids, entry anywhere, code of random bytes)
// costs little.  Only kestrel::Error may come out of the transport; a
// crash, a sanitizer report, another exception or a hang is a finding.
#include <cstdint>
#include <cstring>
#include <vector>

#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"
#include "kestrel/model/model_transport.hpp"

namespace {

constexpr uint64_t kMemBytes = 1u << 20;
constexpr uint64_t kMaxCycles = 1u << 14;  // device cycles per input, all advances together

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint64_t take(unsigned bytes) {
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes && pos_ < size_; ++i) v |= uint64_t{data_[pos_++]} << (8 * i);
    return v;
  }
  std::vector<uint8_t> take_bytes(size_t n) {
    const size_t count = std::min(n, size_ - pos_);
    std::vector<uint8_t> out(data_ + pos_, data_ + pos_ + count);
    pos_ += count;
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

void run_one(kestrel::Transport& t, Input& in, uint64_t& cycles_left) {
  const unsigned op = static_cast<unsigned>(in.take(1)) & 7;
  switch (op) {
    case 0: {
      const uint32_t offset = static_cast<uint32_t>(in.take(2)) & 0x3fc;
      t.write_reg(offset, static_cast<uint32_t>(in.take(4)));
      break;
    }
    case 1:
      (void)t.read_reg(static_cast<uint32_t>(in.take(2)) & 0x3fc);
      break;
    case 2: {
      const uint32_t offset = static_cast<uint32_t>(in.take(4));
      t.write_reg(offset, static_cast<uint32_t>(in.take(4)));
      break;
    }
    case 3: {
      const uint64_t addr = KESTREL_GLOBAL_BASE + in.take(4) % (kMemBytes + 64);
      const std::vector<uint8_t> bytes = in.take_bytes(in.take(1));
      t.write_mem(addr, bytes.data(), bytes.size());
      break;
    }
    case 4: {
      const uint64_t addr = KESTREL_GLOBAL_BASE + in.take(4) % (kMemBytes + 64);
      std::vector<uint8_t> bytes(in.take(2) & 0xfff);
      t.read_mem(addr, bytes.data(), bytes.size());
      break;
    }
    case 5: {
      const uint64_t addr = in.take(8);
      std::vector<uint8_t> bytes(in.take(1));
      if (addr & 1)
        t.write_mem(addr, bytes.data(), bytes.size());
      else
        t.read_mem(addr, bytes.data(), bytes.size());
      break;
    }
    case 6:
      t.write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
      break;
    default: {
      const uint64_t cycles = std::min<uint64_t>(in.take(2), cycles_left);
      cycles_left -= cycles;
      if (cycles != 0) (void)t.advance(cycles);
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const unsigned geometry = static_cast<unsigned>(in.take(1));
  kestrel::BackendConfig config;
  config.xlen = (geometry & 1) ? 32 : 64;
  static constexpr unsigned kLanes[] = {4, 8, 32, 32};
  config.lanes_per_warp = kLanes[(geometry >> 1) & 3];
  config.num_sms = 1 + ((geometry >> 3) & 1);
  config.warps_per_sm = 1 + ((geometry >> 4) & 3);
  config.mem_bytes = kMemBytes;
  config.shared_bytes_per_sm = 16 * 1024;
  config.max_threads_per_block = config.warps_per_sm * config.lanes_per_warp;
  std::unique_ptr<kestrel::Transport> t = kestrel::model::make_model_transport(config);
  uint64_t cycles_left = kMaxCycles;
  while (!in.empty()) {
    try {
      run_one(*t, in, cycles_left);
    } catch (const kestrel::Error&) {
      // a refused request: what the transport promises for bad input
    }
  }
  if (t->read_reg(KESTREL_REG_STATUS) == KESTREL_STATUS_RUNNING)
    t->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_ABORT);
  return 0;
}
