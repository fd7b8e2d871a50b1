// The rtlsim backend: one harness class that owns a Verilated kestrel_gpu (of
// the preset the BackendConfig asks for) and its VerilatedContext, drives the
// host register port, and answers the external memory port from a C++ DRAM
// model of configurable latency and bandwidth.  Host DRAM accesses
// (write_mem/read_mem) go to the model directly, between clock cycles, so a
// copy made between two advance() calls overlaps the running kernel as a
// board's copy engine would (docs/host-interface.md).
#include "kestrel/rtlsim/rtlsim_transport.hpp"

#include <verilated.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "Vgpu_default.h"
#include "Vgpu_rv32.h"
#include "Vgpu_small.h"
#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"

namespace kestrel::rtlsim {
namespace {

constexpr uint64_t kPageTableCapacity = 256ull << 20;  // kestrel_gpu MemBytes
constexpr uint32_t kSharedBytesPerSm = 64 * 1024;      // kestrel_gpu SharedBytes
constexpr uint32_t kLineBytes = 64;
constexpr uint32_t kLocalWindow = KESTREL_LOCAL_LIMIT - KESTREL_LOCAL_BASE;

// kestrel_pkg::mem_req_t and mem_rsp_t field positions (LSB first).
constexpr unsigned kReqTag = 0, kReqWdata = 8, kReqBe = 520, kReqAddr = 584, kReqWrite = 616, kReqKind = 617;
constexpr unsigned kRspTag = 0, kRspFault = 8, kRspRdata = 12;

uint64_t get_bits(const uint32_t* words, unsigned lsb, unsigned width) {
  uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = lsb + i;
    value |= uint64_t{(words[bit / 32] >> (bit % 32)) & 1u} << i;
  }
  return value;
}

// Writes `count` bytes into the bit field that starts at bit `lsb`.
void put_bytes(uint32_t* words, unsigned lsb, const uint8_t* bytes, unsigned count) {
  for (unsigned b = 0; b < count; ++b) {
    for (unsigned i = 0; i < 8; ++i) {
      const unsigned bit = lsb + 8 * b + i;
      const uint32_t mask = 1u << (bit % 32);
      if ((bytes[b] >> i) & 1u) {
        words[bit / 32] |= mask;
      } else {
        words[bit / 32] &= ~mask;
      }
    }
  }
}

uint64_t env_number(const char* name, uint64_t fallback, uint64_t min_value) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 0);
  if (*end != '\0' || value < min_value) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, std::string("rtlsim: ") + name + "='" + text +
                                                 "' is not a number >= " + std::to_string(min_value));
  }
  return value;
}

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

struct Timing {
  uint64_t latency;
  uint64_t interval;
  uint64_t max_cycles;
};

template <typename Model>
class RtlsimTransport final : public Transport {
 public:
  RtlsimTransport(const BackendConfig& config, const Timing& timing)
      : config_(config),
        timing_(timing),
        context_(std::make_unique<VerilatedContext>()),
        dram_(config.mem_bytes, 0) {
    context_->randReset(0);
    model_ = std::make_unique<Model>(context_.get(), "kestrel_gpu");
    model_->dram_kb_i = static_cast<uint32_t>(config.mem_bytes / 1024);
    model_->reg_req_valid_i = 0;
    model_->reg_rsp_ready_i = 1;
    model_->mem_req_ready_i = 0;
    model_->mem_rsp_valid_i = 0;
    model_->clk_i = 0;
    model_->rst_ni = 0;
    model_->eval();
    model_->rst_ni = 1;
    model_->eval();
    // The page table's clearing pass runs after reset; register requests wait
    // for it (req_ready), so nothing else is needed here.
  }
  ~RtlsimTransport() override { model_->final(); }
  RtlsimTransport(const RtlsimTransport&) = delete;
  RtlsimTransport& operator=(const RtlsimTransport&) = delete;

  std::string name() const override { return "rtlsim"; }

  uint32_t read_reg(uint32_t offset) override {
    check_offset(offset);
    model_->reg_req_valid_i = 1;
    model_->reg_req_i = (uint64_t{offset & 0xFFF} << 32);
    wait_request_taken();
    for (uint64_t guard = 0; guard < kRegisterGuard; ++guard) {
      settle();
      const bool answered = model_->reg_rsp_valid_o;
      const uint32_t value = model_->reg_rsp_rdata_o;
      rise();
      if (answered) return value;
    }
    throw Error(KESTREL_ERROR_IO, "rtlsim: register " + hex(offset) + " read got no response");
  }

  void write_reg(uint32_t offset, uint32_t value) override {
    check_offset(offset);
    if (offset == KESTREL_REG_CONTROL && (value & KESTREL_CTRL_ABORT) == 0 && (value & KESTREL_CTRL_START)) {
      validate_launch();
      launch_cycles_ = 0;
    }
    model_->reg_req_valid_i = 1;
    model_->reg_req_i = (uint64_t{1} << 44) | (uint64_t{offset & 0xFFF} << 32) | value;
    wait_request_taken();
  }

  void write_mem(uint64_t addr, const void* src, size_t bytes) override {
    if (src == nullptr && bytes != 0)
      throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: write_mem from a null pointer");
    std::memcpy(dram_at(addr, bytes), src, bytes);
  }
  void read_mem(uint64_t addr, void* dst, size_t bytes) override {
    if (dst == nullptr && bytes != 0)
      throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: read_mem into a null pointer");
    std::memcpy(dst, dram_at(addr, bytes), bytes);
  }

  void wait_idle() override {
    while (model_->running_o) launch_cycle();
  }

  // Host DRAM accesses between two calls land between clock cycles, so a
  // copy can overlap the kernel (docs/host-interface.md).
  bool overlaps_copies() const override { return true; }

  bool advance(uint64_t cycles) override {
    for (uint64_t i = 0; i < cycles && model_->running_o; ++i) launch_cycle();
    return model_->running_o;
  }

 private:
  static constexpr uint64_t kRegisterGuard = 1u << 20;  // cycles a register access may wait

  // One cycle of the launch in progress, which may last KESTREL_RTLSIM_MAX_CYCLES
  // cycles from its START, however many wait_idle/advance calls it takes.
  void launch_cycle() {
    if (launch_cycles_++ >= timing_.max_cycles) {
      throw Error(KESTREL_ERROR_TIMEOUT, "rtlsim: the launch still runs after " +
                                             std::to_string(timing_.max_cycles) +
                                             " cycles (KESTREL_RTLSIM_MAX_CYCLES)");
    }
    cycle();
  }

  struct Pending {
    uint64_t ready_at;
    uint8_t tag;
    uint8_t fault;
    uint8_t rdata[kLineBytes];
  };

  static void check_offset(uint32_t offset) {
    if (offset % 4 != 0 || offset >= 0x1000) {
      throw Error(KESTREL_ERROR_INVALID_VALUE,
                  "rtlsim: register offset " + hex(offset) + " is not a word of the 4 KiB register map");
    }
  }

  uint8_t* dram_at(uint64_t addr, size_t bytes) {
    if (addr < KESTREL_GLOBAL_BASE || addr - KESTREL_GLOBAL_BASE > dram_.size() ||
        bytes > dram_.size() - (addr - KESTREL_GLOBAL_BASE)) {
      throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: DRAM access " + hex(addr) + " + " +
                                                   std::to_string(bytes) + " is outside device DRAM");
    }
    return dram_.data() + (addr - KESTREL_GLOBAL_BASE);
  }

  // Holds the request until the register port takes it.
  void wait_request_taken() {
    for (uint64_t guard = 0; guard < kRegisterGuard; ++guard) {
      settle();
      const bool taken = model_->reg_req_ready_o;
      rise();
      if (taken) {
        model_->reg_req_valid_i = 0;
        return;
      }
    }
    model_->reg_req_valid_i = 0;
    throw Error(KESTREL_ERROR_IO, "rtlsim: the register port did not take a request");
  }

  // The checks the functional model makes at START (verif/model/machine.cpp),
  // so that both backends refuse the same launches the same way.
  void validate_launch() {
    if (model_->running_o) throw Error(KESTREL_ERROR_INVALID_CONFIG, "rtlsim: a launch is running");
    auto refuse = [](const std::string& why) { throw Error(KESTREL_ERROR_INVALID_CONFIG, "rtlsim: " + why); };
    const uint64_t gx = read_reg(KESTREL_REG_GRID_X), gy = read_reg(KESTREL_REG_GRID_Y),
                   gz = read_reg(KESTREL_REG_GRID_Z);
    const uint64_t bx = read_reg(KESTREL_REG_BLOCK_X), by = read_reg(KESTREL_REG_BLOCK_Y),
                   bz = read_reg(KESTREL_REG_BLOCK_Z);
    if (gx == 0 || gy == 0 || gz == 0) refuse("grid dimensions must be non-zero");
    if (gy > 0xFFFF || gz > 0xFFFF) refuse("grid y and z must be below 65536");
    const uint64_t threads = bx * by * bz;
    if (threads == 0) refuse("block dimensions must be non-zero");
    const uint64_t max_threads = read_reg(KESTREL_REG_CONFIG1) >> 16;
    if (threads > max_threads) refuse("block has more threads than the device maximum");
    const uint64_t warps = (threads + config_.lanes_per_warp - 1) / config_.lanes_per_warp;
    if (warps > config_.warps_per_sm) refuse("block needs more warps than an SM has");
    const uint64_t shared = uint64_t{read_reg(KESTREL_REG_SHARED_STATIC)} + read_reg(KESTREL_REG_SHARED_DYN);
    if (shared > kSharedBytesPerSm) refuse("block needs more shared memory than an SM has");
    const uint64_t shared_base = read_reg(KESTREL_REG_SHARED_BASE);
    if (shared_base != 0 && shared_base + kSharedBytesPerSm > (1ull << 32)) {
      refuse("shared window does not fit in 32 bits");
    }
    if (read_reg(KESTREL_REG_STACK_BYTES) > kLocalWindow) refuse("stack_bytes exceeds the local window");
  }

  // One clock cycle: settle() drives the memory model's side of the port and
  // evaluates the low half with the caller's inputs, so that handshakes can be
  // sampled; rise() takes the memory handshakes and clocks the rising edge.
  void cycle() {
    settle();
    rise();
  }

  void settle() {
    model_->clk_i = 0;
    drive_memory();
    model_->eval();
  }

  void rise() {
    sample_memory();
    model_->clk_i = 1;
    model_->eval();
    context_->timeInc(1);
    ++now_;
  }

  void drive_memory() {
    const bool room = queue_.size() < kMaxQueued;
    model_->mem_req_ready_i = room && now_ >= next_accept_;
    const bool respond = !queue_.empty() && queue_.front().ready_at <= now_;
    model_->mem_rsp_valid_i = respond;
    if (respond) {
      const Pending& p = queue_.front();
      uint32_t* words = model_->mem_rsp_i.data();
      std::memset(words, 0, sizeof(uint32_t) * ((kRspRdata + 8 * kLineBytes + 31) / 32));
      words[0] = p.tag | (uint32_t{p.fault} << kRspFault);
      put_bytes(words, kRspRdata, p.rdata, kLineBytes);
    }
  }

  void sample_memory() {
    if (model_->mem_rsp_valid_i && model_->mem_rsp_ready_o) queue_.pop_front();
    if (model_->mem_req_valid_o && model_->mem_req_ready_i) {
      const uint32_t* words = model_->mem_req_o.data();
      const uint32_t addr = static_cast<uint32_t>(get_bits(words, kReqAddr, 32));
      const unsigned kind = static_cast<unsigned>(get_bits(words, kReqKind, 2));
      const bool write = kind == 1 || (kind == 3 && get_bits(words, kReqWrite, 1) != 0);
      Pending p{};
      p.ready_at = now_ + timing_.latency;
      p.tag = static_cast<uint8_t>(get_bits(words, kReqTag, 8));
      // The page check keeps requests inside DRAM; a request outside it means
      // the RTL let one through, which the response reports as a fault.
      const uint64_t offset = uint64_t{addr} - KESTREL_GLOBAL_BASE;
      if (addr < KESTREL_GLOBAL_BASE || offset + kLineBytes > dram_.size() || addr % kLineBytes != 0) {
        p.fault = KESTREL_FAULT_ILLEGAL_ADDRESS;
      } else if (write) {
        const uint64_t be = get_bits(words, kReqBe, 64);
        for (unsigned i = 0; i < kLineBytes; ++i) {
          if ((be >> i) & 1u) dram_[offset + i] = static_cast<uint8_t>(get_bits(words, kReqWdata + 8 * i, 8));
        }
      } else {
        // Data is taken when the request is accepted: the memory is in order,
        // so this is what a read behind every earlier write sees.
        std::memcpy(p.rdata, dram_.data() + offset, kLineBytes);
      }
      queue_.push_back(p);
      next_accept_ = now_ + timing_.interval;
    }
  }

  static constexpr size_t kMaxQueued = 64;

  BackendConfig config_;
  Timing timing_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Model> model_;
  std::vector<uint8_t> dram_;
  std::deque<Pending> queue_;
  uint64_t now_ = 0;
  uint64_t launch_cycles_ = 0;  // cycles simulated for the launch in progress
  uint64_t next_accept_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_rtlsim_transport(const BackendConfig& config) {
  if (!config.trace_path.empty()) {
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "rtlsim: waveform tracing (trace_path) is not built into this backend yet");
  }
  if (config.mem_bytes == 0 || config.mem_bytes % KESTREL_PAGE_SIZE != 0 ||
      config.mem_bytes > kPageTableCapacity) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: DRAM must be whole 4 KiB pages up to 256 MiB, not " +
                                                 std::to_string(config.mem_bytes) + " bytes");
  }
  if (config.shared_bytes_per_sm != kSharedBytesPerSm) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: the RTL has 64 KiB of shared memory per SM, not " +
                                                 std::to_string(config.shared_bytes_per_sm));
  }
  Timing timing;
  timing.latency = env_number("KESTREL_RTLSIM_MEM_LATENCY", 20, 1);
  timing.interval = env_number("KESTREL_RTLSIM_MEM_INTERVAL", 1, 1);
  timing.max_cycles = env_number("KESTREL_RTLSIM_MAX_CYCLES", 50'000'000, 1);
  const auto geometry = [&](unsigned xlen, unsigned lanes, unsigned warps, unsigned sms) {
    return config.xlen == xlen && config.lanes_per_warp == lanes && config.warps_per_sm == warps &&
           config.num_sms == sms;
  };
  if (geometry(64, 32, 8, 2)) return std::make_unique<RtlsimTransport<Vgpu_default>>(config, timing);
  if (geometry(32, 32, 8, 2)) return std::make_unique<RtlsimTransport<Vgpu_rv32>>(config, timing);
  if (geometry(32, 4, 4, 1)) return std::make_unique<RtlsimTransport<Vgpu_small>>(config, timing);
  throw Error(KESTREL_ERROR_INVALID_VALUE, "rtlsim: no RTL build for xlen " + std::to_string(config.xlen) +
                                               ", " + std::to_string(config.lanes_per_warp) + " lanes, " +
                                               std::to_string(config.warps_per_sm) + " warps, " +
                                               std::to_string(config.num_sms) +
                                               " SMs (built: RV64/32/8/2, RV32/32/8/2, RV32/4/4/1)");
}

}  // namespace kestrel::rtlsim
