// The fpga-sim backend: the Verilated board top (rtl/board/kestrel_board.sv:
// host bridge, kestrel_gpu of the board preset, board memory) behind the
// same protocol engine as the USB backend.  The byte pipe drives the board's
// uart_rx_i and samples its uart_tx_o bit by bit at the board's ClkHz /
// BaudRate cycles per bit, so everything up to the USB cable runs as on the
// board.
#include <verilated.h>

#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "Vboard_sim.h"
#include "fpga_transport.hpp"
#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"
#include "link_engine.hpp"

namespace kestrel::fpga {
namespace {

// kestrel_board's parameters of the Verilated model (driver/fpga/CMakeLists.txt).
constexpr unsigned kCyclesPerBit = KESTREL_FPGA_SIM_CLK_HZ / KESTREL_FPGA_SIM_BAUD;

// The board, clocked by the pipe: host bytes are shifted into uart_rx_i, the
// board's uart_tx_o is sampled into bytes.
class SimBoardPipe final : public BytePipe {
 public:
  SimBoardPipe() : context_(std::make_unique<VerilatedContext>()) {
    context_->randReset(0);
    board_ = std::make_unique<Vboard_sim>(context_.get(), "kestrel_board");
    board_->uart_rx_i = 1;
    board_->clk_i = 0;
    // A falling edge of rst_ni (signals start at 0), so that the reset values
    // that are not 0 (the UART's idle-high line, the CRC's seed) are applied.
    board_->rst_ni = 1;
    board_->eval();
    board_->rst_ni = 0;
    board_->eval();
    board_->rst_ni = 1;
    board_->eval();
  }
  ~SimBoardPipe() override {
    Verilated::threadContextp(context_.get());
    board_->final();
    board_.reset();
    Verilated::threadContextp(nullptr);
  }
  SimBoardPipe(const SimBoardPipe&) = delete;
  SimBoardPipe& operator=(const SimBoardPipe&) = delete;

  void send(const uint8_t* data, size_t bytes) override { outbox_.insert(outbox_.end(), data, data + bytes); }

  uint64_t receive(std::vector<uint8_t>& out, uint64_t timeout) override {
    uint64_t waited = 0;
    while (waited < timeout && inbox_.empty()) {
      cycle();
      ++waited;
    }
    out.insert(out.end(), inbox_.begin(), inbox_.end());
    inbox_.clear();
    return waited;
  }

  void idle(uint64_t time) override {
    for (uint64_t i = 0; i < time; ++i) cycle();
  }

  uint64_t cycles() const { return now_; }
  bool running() const { return board_->led_o != 0; }

 private:
  void cycle() {
    // Host to board: 10 bits a byte (start, data LSB first, stop).
    if (tx_bit_ == 10 && !outbox_.empty()) {
      tx_byte_ = outbox_.front();
      outbox_.pop_front();
      tx_bit_ = 0;
      tx_count_ = kCyclesPerBit;
    }
    if (tx_bit_ < 10) {
      board_->uart_rx_i = tx_bit_ == 0 ? 0 : tx_bit_ == 9 ? 1 : (tx_byte_ >> (tx_bit_ - 1)) & 1u;
      if (--tx_count_ == 0) {
        ++tx_bit_;
        tx_count_ = kCyclesPerBit;
      }
    } else {
      board_->uart_rx_i = 1;
    }
    board_->clk_i = 0;
    board_->eval();
    board_->clk_i = 1;
    board_->eval();
    context_->timeInc(1);
    ++now_;
    sample(board_->uart_tx_o != 0);
  }

  // Board to host: a start bit confirmed at its middle, then each bit at its
  // middle; a byte whose stop bit is low is dropped (the CRC catches it).
  void sample(bool line) {
    if (rx_bit_ < 0) {
      if (!line) {
        rx_bit_ = 0;
        rx_count_ = kCyclesPerBit / 2;
      }
      return;
    }
    if (--rx_count_ != 0) return;
    rx_count_ = kCyclesPerBit;
    if (rx_bit_ == 0) {
      if (line) {
        rx_bit_ = -1;  // a glitch
        return;
      }
      rx_byte_ = 0;
    } else if (rx_bit_ <= 8) {
      rx_byte_ = static_cast<uint8_t>(rx_byte_ | (line ? 1u : 0u) << (rx_bit_ - 1));
    } else {
      if (line) inbox_.push_back(rx_byte_);
      rx_bit_ = -1;
      return;
    }
    ++rx_bit_;
  }

  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Vboard_sim> board_;
  std::deque<uint8_t> outbox_;
  std::vector<uint8_t> inbox_;
  uint64_t now_ = 0;
  unsigned tx_bit_ = 10;  // 10: idle
  unsigned tx_count_ = 0;
  uint8_t tx_byte_ = 0;
  int rx_bit_ = -1;  // -1: idle
  unsigned rx_count_ = 0;
  uint8_t rx_byte_ = 0;
};

class FpgaSimTransport final : public LinkTransport {
 public:
  explicit FpgaSimTransport(const BackendConfig& config)
      : LinkTransport("fpga-sim"),
        board_(std::make_unique<SimBoardPipe>()),
        faults_(parse_fault_spec(option_text(config, "faults", "KESTREL_FPGA_FAULTS"), "fpga-sim: faults")),
        stats_(option_text(config, "stats", "KESTREL_FPGA_STATS")) {
    if (stats_ != "" && stats_ != "0" && stats_ != "1")
      throw Error(KESTREL_ERROR_INVALID_VALUE, "fpga-sim: stats='" + stats_ + "' is not 0 or 1");
    BytePipe* pipe = board_.get();
    if (faults_.rate > 0) {
      faulty_ = std::make_unique<FaultyPipe>(*board_, faults_.rate, faults_.seed);
      pipe = faulty_.get();
    }
    LinkPolicy policy;
    // Both ways at 10 bits a byte, and the bridge's own work (a 64-word
    // write: some 300 cycles).
    policy.timeout_per_byte = 2 * 10 * kCyclesPerBit;
    policy.timeout_base = 4000;
    engine_ = std::make_unique<LinkEngine>(*pipe, policy, "fpga-sim");
    const uint32_t id = engine_->read_reg(KESTREL_REG_ID);
    if (id != KESTREL_ID_VALUE) {
      char text[96];
      std::snprintf(text, sizeof text, "fpga-sim: the board answers ID 0x%08x, not Kestrel's 0x%08x", id,
                    KESTREL_ID_VALUE);
      throw Error(KESTREL_ERROR_NO_DEVICE, text);
    }
  }
  ~FpgaSimTransport() override {
    record_closed_link(engine_->stats());
    if (stats_ == "1") {
      std::fprintf(stderr, "kestrel: fpga-sim link after %llu cycles: %s; bytes faulted %llu\n",
                   static_cast<unsigned long long>(board_->cycles()), engine_->stats().to_string().c_str(),
                   static_cast<unsigned long long>(faulty_ ? faulty_->faults() : 0));
    }
  }

  // Polls STATUS as the board backend does, the board running between polls.
  void wait_idle() override {
    while (engine_->read_reg(KESTREL_REG_STATUS) == KESTREL_STATUS_RUNNING) board_->idle(kPollCycles);
  }

  uint64_t cycles() const { return board_->cycles(); }

 private:
  static constexpr uint64_t kPollCycles = 4096;
  LinkEngine& link() override { return *engine_; }

  std::unique_ptr<SimBoardPipe> board_;
  FaultSpec faults_;
  std::string stats_;
  std::unique_ptr<FaultyPipe> faulty_;
  std::unique_ptr<LinkEngine> engine_;
};

}  // namespace

std::unique_ptr<Transport> make_fpga_sim_transport(const BackendConfig& config) {
  check_options(config, "fpga-sim", "faults, stats");
  return std::make_unique<FpgaSimTransport>(config);
}

}  // namespace kestrel::fpga
