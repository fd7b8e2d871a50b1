// The board backends: `fpga` (a Kestrel board over USB, the FT2232H's UART
// channel through libusb-1.0) and `fpga-sim` (the Verilated board top,
// rtl/board/kestrel_board.sv, with its UART at a simulation bit rate).  Both
// speak docs/host-protocol.md through one protocol engine (link_engine.hpp)
// and are a kestrel::Transport to the driver.
//
// Backend options (BackendConfig::options; each, when not given there, from
// its environment variable; any other name is refused):
//   faults   KESTREL_FPGA_FAULTS   "<p>[:<seed>]": flip, drop or
//            duplicate each byte of the link, both ways, with probability p
//            (a seeded generator: runs repeat); the protocol must still give
//            correct results (fpga-sim; on a board it tests the host side)
//   stats    KESTREL_FPGA_STATS=1  print the link's counters (resends,
//            timeouts, damaged and replayed answers) to stderr at close
//   device   KESTREL_FPGA          (fpga only) which board:
//            "<vid>:<pid>[:<serial>]" in hex, or "serial=<s>"; default the
//            FT2232H's 0403:6010, the first one found
//   baud     KESTREL_FPGA_BAUD     (fpga only) the UART's bit rate, default
//            3000000 (the bitstream's BaudRate)
// The geometry of BackendConfig is ignored: a board has the one its
// bitstream was built with, and reports it in its CONFIG registers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "kestrel/transport.hpp"
#include "link_engine.hpp"

namespace kestrel::fpga {

// The link counters of every board link closed in this process, summed (a
// test reads them after closing a device).
LinkStats closed_link_stats();
void record_closed_link(const LinkStats& stats);

// The option's text from the config, else the environment; empty if neither.
std::string option_text(const BackendConfig& config, const char* option, const char* env);
// Refuses options other than `known` (a comma-separated list).
void check_options(const BackendConfig& config, const std::string& backend, const std::string& known);

// What the board backends share: the four operations of
// docs/host-interface.md over the backend's link engine, with the checks of
// a register offset and a DRAM range (32-bit board addresses) before a
// request goes out.  A backend provides the engine (it owns the pipe the
// engine talks through), waiting and its own start-up.
class LinkTransport : public Transport {
 public:
  std::string name() const override { return backend_; }
  uint32_t read_reg(uint32_t offset) override;
  void write_reg(uint32_t offset, uint32_t value) override;
  void write_mem(uint64_t addr, const void* src, size_t bytes) override;
  void read_mem(uint64_t addr, void* dst, size_t bytes) override;

 protected:
  explicit LinkTransport(std::string backend) : backend_(std::move(backend)) {}
  virtual LinkEngine& link() = 0;

 private:
  void check_offset(uint32_t offset) const;
  void check_range(uint64_t addr, size_t bytes) const;
  std::string backend_;
};

std::unique_ptr<Transport> make_fpga_transport(const BackendConfig& config);
std::unique_ptr<Transport> make_fpga_sim_transport(const BackendConfig& config);

// The FT2232H's baud-rate divisor for `baud` (its 3 MHz base clock divided
// by n + frac/8, the fractions the chip offers), as the value and index of
// the SET_BAUD_RATE control request; `actual` receives the rate it gives.
// Throws kestrel::Error(KESTREL_ERROR_INVALID_VALUE) for a rate the chip
// cannot make within 3 %.
struct BaudDivisor {
  uint16_t value;
  uint16_t index;
  uint32_t actual;
};
BaudDivisor ftdi_baud_divisor(uint32_t baud);

// "<vid>:<pid>[:<serial>]" or "serial=<s>" (KESTREL_FPGA).
struct DeviceSpec {
  uint16_t vid = 0x0403;
  uint16_t pid = 0x6010;
  std::string serial;  // empty: any
};
DeviceSpec parse_device_spec(const std::string& text);

}  // namespace kestrel::fpga
