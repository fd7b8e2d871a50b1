// What the board backends share: options, the closed links' counters, and
// the FT2232H's baud divisor and device spec (pure logic, tested without a
// board).
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "fpga_transport.hpp"
#include "kestrel/error.hpp"

namespace kestrel::fpga {
namespace {

std::mutex stats_mutex;
LinkStats closed_stats;

}  // namespace

LinkStats closed_link_stats() {
  std::lock_guard<std::mutex> lock(stats_mutex);
  return closed_stats;
}

void record_closed_link(const LinkStats& s) {
  std::lock_guard<std::mutex> lock(stats_mutex);
  closed_stats.requests += s.requests;
  closed_stats.frames_sent += s.frames_sent;
  closed_stats.resends += s.resends;
  closed_stats.timeouts += s.timeouts;
  closed_stats.crc_naks += s.crc_naks;
  closed_stats.bad_frames += s.bad_frames;
  closed_stats.stale_answers += s.stale_answers;
  closed_stats.replayed += s.replayed;
  closed_stats.bytes_sent += s.bytes_sent;
  closed_stats.bytes_received += s.bytes_received;
}

std::string option_text(const BackendConfig& config, const char* option, const char* env) {
  if (auto it = config.options.find(option); it != config.options.end()) return it->second;
  const char* value = std::getenv(env);
  return value == nullptr ? std::string() : std::string(value);
}

void check_options(const BackendConfig& config, const std::string& backend, const std::string& known) {
  for (const auto& [name, value] : config.options) {
    (void)value;
    bool found = false;
    size_t at = 0;
    while (at <= known.size() && !found) {
      const size_t comma = known.find(',', at);
      std::string item = known.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      while (!item.empty() && item.front() == ' ') item.erase(item.begin());
      found = item == name;
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    if (!found) {
      throw Error(KESTREL_ERROR_INVALID_VALUE,
                  backend + ": unknown backend option '" + name + "' (" + backend + " knows: " + known + ")");
    }
  }
}

uint32_t LinkTransport::read_reg(uint32_t offset) {
  check_offset(offset);
  return link().read_reg(offset);
}

void LinkTransport::write_reg(uint32_t offset, uint32_t value) {
  check_offset(offset);
  link().write_reg(offset, value);
}

void LinkTransport::write_mem(uint64_t addr, const void* src, size_t bytes) {
  if (src == nullptr && bytes != 0)
    throw Error(KESTREL_ERROR_INVALID_VALUE, backend_ + ": write_mem from a null pointer");
  check_range(addr, bytes);
  link().write_mem(static_cast<uint32_t>(addr), src, bytes);
}

void LinkTransport::read_mem(uint64_t addr, void* dst, size_t bytes) {
  if (dst == nullptr && bytes != 0)
    throw Error(KESTREL_ERROR_INVALID_VALUE, backend_ + ": read_mem into a null pointer");
  check_range(addr, bytes);
  link().read_mem(static_cast<uint32_t>(addr), dst, bytes);
}

void LinkTransport::check_offset(uint32_t offset) const {
  if (offset % 4 != 0 || offset >= 0x1000) {
    char text[64];
    std::snprintf(text, sizeof text, "register offset 0x%x is not a word of the 4 KiB map", offset);
    throw Error(KESTREL_ERROR_INVALID_VALUE, backend_ + ": " + text);
  }
}

void LinkTransport::check_range(uint64_t addr, size_t bytes) const {
  if (addr > 0xFFFFFFFFull || bytes > 0x100000000ull - addr) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, backend_ + ": DRAM access " + std::to_string(addr) + " + " +
                                                 std::to_string(bytes) +
                                                 " is outside the 32-bit device address space");
  }
}

BaudDivisor ftdi_baud_divisor(uint32_t baud) {
  // The FT2232H's compatibility clock (48 MHz / 16 = 3 MHz, AN_120, as
  // libftdi's ftdi_to_clkbits): 3 MBd, 2 MBd and 1.5 MBd are the codes 0, 1
  // and 2; below, the divisor n + f/8 (n 14 bits) goes in value bits 13:0,
  // the fraction's code in value bits 15:14 and bit 16 of the encoding, which
  // the SET_BAUD_RATE request carries in index bit 8 (index bits 7:0 name
  // the channel: the caller ORs it in).
  if (baud < 183 || baud > 3000000)
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "fpga: baud rate " + std::to_string(baud) + " is outside the FT2232H's 183 Bd to 3 MBd");
  static const uint8_t kFracCode[8] = {0, 3, 2, 4, 1, 5, 6, 7};  // eighths -> the chip's code
  uint32_t encoded = 0;
  BaudDivisor d{};
  if (baud >= 3000000) {
    encoded = 0;
    d.actual = 3000000;
  } else if (baud >= 2000000) {
    encoded = 1;
    d.actual = 2000000;
  } else if (baud >= 1500000) {
    encoded = 2;
    d.actual = 1500000;
  } else {
    uint64_t eighths = (uint64_t{24000000} + baud / 2) / baud;  // 3 MHz / baud in 1/8 units
    if (eighths > 0x1FFFF) eighths = 0x1FFFF;
    encoded = static_cast<uint32_t>(eighths >> 3) | uint32_t{kFracCode[eighths & 7]} << 14;
    d.actual = static_cast<uint32_t>((uint64_t{24000000} + eighths / 2) / eighths);
  }
  d.value = static_cast<uint16_t>(encoded & 0xFFFF);
  d.index = static_cast<uint16_t>((encoded >> 16) << 8);
  const double error = (static_cast<double>(d.actual) - baud) / baud;
  if (error > 0.03 || error < -0.03) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, "fpga: the FT2232H cannot make " + std::to_string(baud) +
                                                 " Bd within 3 % (nearest " + std::to_string(d.actual) + ")");
  }
  return d;
}

DeviceSpec parse_device_spec(const std::string& text) {
  DeviceSpec spec;
  if (text.empty()) return spec;
  auto bad = [&]() {
    return Error(KESTREL_ERROR_INVALID_VALUE, "fpga: KESTREL_FPGA='" + text +
                                                  "' is not <vid>:<pid>[:<serial>] (hex, e.g. 0403:6010) or "
                                                  "serial=<serial>");
  };
  if (text.rfind("serial=", 0) == 0) {
    spec.serial = text.substr(7);
    if (spec.serial.empty()) throw bad();
    return spec;
  }
  const size_t c1 = text.find(':');
  if (c1 == std::string::npos) throw bad();
  const size_t c2 = text.find(':', c1 + 1);
  const std::string vid = text.substr(0, c1);
  const std::string pid = text.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1);
  auto hex16 = [&](const std::string& s) -> uint16_t {
    char* end = nullptr;
    const unsigned long v = std::strtoul(s.c_str(), &end, 16);
    if (s.empty() || s.size() > 4 || *end != '\0') throw bad();
    return static_cast<uint16_t>(v);
  };
  spec.vid = hex16(vid);
  spec.pid = hex16(pid);
  if (c2 != std::string::npos) {
    spec.serial = text.substr(c2 + 1);
    if (spec.serial.empty()) throw bad();
  }
  return spec;
}

}  // namespace kestrel::fpga
