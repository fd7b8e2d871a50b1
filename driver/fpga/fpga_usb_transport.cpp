// The fpga backend: a Kestrel board over USB.  The board's FT2232H carries
// the host link (docs/host-protocol.md) on its channel B, run as a UART;
// this file finds the chip with libusb-1.0 (by VID:PID and serial,
// KESTREL_FPGA), configures the channel with FTDI's vendor requests (reset,
// baud rate divisor, 8N1, no flow control, latency timer, purge), and moves
// bytes over its bulk endpoints for the protocol engine (link_engine.cpp),
// which frames, checks, times out and resends.  No board, no permission, a
// busy interface or a bitstream that does not answer with Kestrel's ID
// register each end in a kestrel::Error that says which.
#include <libusb.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fpga_transport.hpp"
#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"
#include "link_engine.hpp"

namespace kestrel::fpga {
namespace {

// FT2232H channel B: interface 1, bulk OUT 0x02, bulk IN 0x84; its vendor
// requests name the channel as index 2 (channel A is 1).
constexpr int kInterface = 1;
constexpr unsigned char kEpOut = 0x02;
constexpr unsigned char kEpIn = 0x84;
constexpr uint16_t kChannel = 2;
constexpr unsigned kPacket = 512;  // high-speed bulk packet; each IN packet opens with 2 modem status bytes
constexpr unsigned kControlTimeoutMs = 1000;
// FTDI SIO vendor requests (bmRequestType 0x40).
constexpr uint8_t kSioReset = 0x00;
constexpr uint8_t kSioSetFlowCtrl = 0x02;
constexpr uint8_t kSioSetBaudRate = 0x03;
constexpr uint8_t kSioSetData = 0x04;
constexpr uint8_t kSioSetLatencyTimer = 0x09;
constexpr uint8_t kSioSetBitmode = 0x0B;
constexpr uint16_t kResetSio = 0, kPurgeRx = 1, kPurgeTx = 2;

std::string usb_error(int code) { return libusb_error_name(code); }

std::string vid_pid(const DeviceSpec& spec) {
  char text[64];
  std::snprintf(text, sizeof text, "%04x:%04x", spec.vid, spec.pid);
  return std::string(text) + (spec.serial.empty() ? "" : " with serial '" + spec.serial + "'");
}

class UsbPipe final : public BytePipe {
 public:
  UsbPipe(const DeviceSpec& spec, uint32_t baud) {
    if (const int rc = libusb_init(&context_); rc != 0) {
      context_ = nullptr;
      throw Error(KESTREL_ERROR_NO_DEVICE, "fpga: no Kestrel board found: libusb cannot start (" +
                                               usb_error(rc) + "; is /dev/bus/usb there?)");
    }
    try {
      open(spec);
      configure(baud);
    } catch (...) {
      close();
      throw;
    }
  }
  ~UsbPipe() override { close(); }
  UsbPipe(const UsbPipe&) = delete;
  UsbPipe& operator=(const UsbPipe&) = delete;

  void send(const uint8_t* data, size_t bytes) override {
    size_t done = 0;
    while (done < bytes) {
      int sent = 0;
      const int rc = libusb_bulk_transfer(handle_, kEpOut, const_cast<uint8_t*>(data + done),
                                          static_cast<int>(bytes - done), &sent, kControlTimeoutMs);
      if (rc != 0 && rc != LIBUSB_ERROR_TIMEOUT)
        throw Error(KESTREL_ERROR_IO, "fpga: USB write failed (" + usb_error(rc) + "): board unplugged?");
      if (sent == 0 && rc == LIBUSB_ERROR_TIMEOUT)
        throw Error(KESTREL_ERROR_IO, "fpga: USB write timed out: the FT2232H takes no data");
      done += static_cast<size_t>(sent);
    }
  }

  // Time in microseconds.
  uint64_t receive(std::vector<uint8_t>& out, uint64_t timeout) override {
    const auto start = std::chrono::steady_clock::now();
    uint8_t buffer[16 * kPacket];
    const unsigned ms = static_cast<unsigned>(timeout / 1000 + 1);
    int got = 0;
    const int rc = libusb_bulk_transfer(handle_, kEpIn, buffer, sizeof buffer, &got, ms);
    if (rc != 0 && rc != LIBUSB_ERROR_TIMEOUT && rc != LIBUSB_ERROR_OVERFLOW)
      throw Error(KESTREL_ERROR_IO, "fpga: USB read failed (" + usb_error(rc) + "): board unplugged?");
    // Every packet of the transfer starts with the chip's two modem status bytes.
    for (int at = 0; at < got; at += kPacket) {
      const int end = at + static_cast<int>(kPacket) < got ? at + static_cast<int>(kPacket) : got;
      if (end - at > 2) out.insert(out.end(), buffer + at + 2, buffer + end);
    }
    const auto waited =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start)
            .count();
    return static_cast<uint64_t>(waited) + 1;
  }

  void idle(uint64_t time) override { std::this_thread::sleep_for(std::chrono::microseconds(time)); }

  std::string where() const { return where_; }

 private:
  void open(const DeviceSpec& spec) {
    libusb_device** list = nullptr;
    const ssize_t count = libusb_get_device_list(context_, &list);
    if (count < 0)
      throw Error(KESTREL_ERROR_NO_DEVICE, "fpga: no Kestrel board found: cannot list USB devices (" +
                                               usb_error(static_cast<int>(count)) + ")");
    std::string refused;  // a matching device we could not open, and why
    for (ssize_t i = 0; i < count && handle_ == nullptr; ++i) {
      libusb_device_descriptor d{};
      if (libusb_get_device_descriptor(list[i], &d) != 0 || d.idVendor != spec.vid || d.idProduct != spec.pid)
        continue;
      char where[64];
      std::snprintf(where, sizeof where, "bus %u device %u", libusb_get_bus_number(list[i]),
                    libusb_get_device_address(list[i]));
      libusb_device_handle* h = nullptr;
      if (const int rc = libusb_open(list[i], &h); rc != 0) {
        refused = std::string(where) + ": " +
                  (rc == LIBUSB_ERROR_ACCESS ? "permission denied (a udev rule for the board gives your user "
                                               "access: docs/fpga.md)"
                                             : usb_error(rc));
        continue;
      }
      if (!spec.serial.empty()) {
        unsigned char serial[128] = {};
        const int n = d.iSerialNumber == 0
                          ? -1
                          : libusb_get_string_descriptor_ascii(h, d.iSerialNumber, serial, sizeof serial - 1);
        if (n < 0 || spec.serial != reinterpret_cast<const char*>(serial)) {
          libusb_close(h);
          continue;
        }
      }
      handle_ = h;
      where_ = where;
    }
    libusb_free_device_list(list, 1);
    if (handle_ == nullptr) {
      throw Error(
          KESTREL_ERROR_NO_DEVICE,
          "fpga: no Kestrel board found: " +
              (refused.empty() ? "no USB device " + vid_pid(spec) +
                                     " is connected (plug the board in; KESTREL_FPGA=<vid>:<pid>[:<serial>] "
                                     "names another)"
                               : "the USB device " + vid_pid(spec) + " at " + refused));
    }
    libusb_set_auto_detach_kernel_driver(handle_, 1);  // ftdi_sio holds the channel as a tty
    if (const int rc = libusb_claim_interface(handle_, kInterface); rc != 0) {
      throw Error(KESTREL_ERROR_NO_DEVICE, "fpga: the board at " + where_ +
                                               " is busy: cannot claim channel B (" + usb_error(rc) +
                                               "; is another program using it?)");
    }
    claimed_ = true;
  }

  void control(uint8_t request, uint16_t value, uint16_t index, const char* what) {
    const int rc =
        libusb_control_transfer(handle_, 0x40, request, value, index, nullptr, 0, kControlTimeoutMs);
    if (rc < 0)
      throw Error(KESTREL_ERROR_IO, std::string("fpga: configuring the FT2232H failed at ") + what + " (" +
                                        usb_error(rc) + ")");
  }

  void configure(uint32_t baud) {
    const BaudDivisor d = ftdi_baud_divisor(baud);
    control(kSioReset, kResetSio, kChannel, "reset");
    control(kSioSetBitmode, 0x0000, kChannel, "UART mode");
    control(kSioSetBaudRate, d.value, static_cast<uint16_t>(d.index | kChannel), "baud rate");
    control(kSioSetData, 0x0008, kChannel, "8N1");  // 8 data bits, no parity, 1 stop bit
    control(kSioSetFlowCtrl, 0x0000, kChannel, "flow control");
    control(kSioSetLatencyTimer, 1, kChannel, "latency timer");  // 1 ms: answers come back promptly
    control(kSioReset, kPurgeRx, kChannel, "purge");
    control(kSioReset, kPurgeTx, kChannel, "purge");
  }

  void close() {
    if (handle_ != nullptr) {
      if (claimed_) libusb_release_interface(handle_, kInterface);
      libusb_close(handle_);
      handle_ = nullptr;
    }
    if (context_ != nullptr) {
      libusb_exit(context_);
      context_ = nullptr;
    }
  }

  libusb_context* context_ = nullptr;
  libusb_device_handle* handle_ = nullptr;
  bool claimed_ = false;
  std::string where_;
};

uint32_t parse_baud(const std::string& text) {
  if (text.empty()) return 3000000;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text.c_str(), &end, 10);
  if (*end != '\0' || value == 0 || value > 3000000)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "fpga: baud='" + text + "' is not a bit rate up to 3000000");
  return static_cast<uint32_t>(value);
}

class FpgaTransport final : public LinkTransport {
 public:
  explicit FpgaTransport(const BackendConfig& config)
      : LinkTransport("fpga"), stats_(option_text(config, "stats", "KESTREL_FPGA_STATS")) {
    if (stats_ != "" && stats_ != "0" && stats_ != "1")
      throw Error(KESTREL_ERROR_INVALID_VALUE, "fpga: stats='" + stats_ + "' is not 0 or 1");
    const DeviceSpec spec = parse_device_spec(option_text(config, "device", "KESTREL_FPGA"));
    const uint32_t baud = parse_baud(option_text(config, "baud", "KESTREL_FPGA_BAUD"));
    const FaultSpec faults =
        parse_fault_spec(option_text(config, "faults", "KESTREL_FPGA_FAULTS"), "fpga: faults");
    usb_ = std::make_unique<UsbPipe>(spec, baud);
    BytePipe* pipe = usb_.get();
    if (faults.rate > 0) {
      faulty_ = std::make_unique<FaultyPipe>(*usb_, faults.rate, faults.seed);
      pipe = faulty_.get();
    }
    LinkPolicy policy;
    // Microseconds: both ways at 10 bits a byte, plus USB and the latency timer.
    policy.timeout_per_byte = 2 * 10 * 1000000ull / baud + 1;
    policy.timeout_base = 20000;
    try {
      engine_ = std::make_unique<LinkEngine>(*pipe, policy, "fpga");
    } catch (const Error& e) {
      throw Error(KESTREL_ERROR_NO_DEVICE, "fpga: the FT2232H at " + usb_->where() +
                                               " does not answer the Kestrel link: is the Kestrel bitstream "
                                               "loaded (make fpga-prog, docs/fpga.md)? (" +
                                               e.what() + ")");
    }
    const uint32_t id = engine_->read_reg(KESTREL_REG_ID);
    if (id != KESTREL_ID_VALUE) {
      char text[160];
      std::snprintf(text, sizeof text,
                    "fpga: the board at %s answers ID 0x%08x, not Kestrel's 0x%08x: another bitstream?",
                    usb_->where().c_str(), id, KESTREL_ID_VALUE);
      throw Error(KESTREL_ERROR_NO_DEVICE, text);
    }
  }
  ~FpgaTransport() override {
    if (engine_) {
      record_closed_link(engine_->stats());
      if (stats_ == "1")
        std::fprintf(stderr, "kestrel: fpga link: %s\n", engine_->stats().to_string().c_str());
    }
  }

  // Polls STATUS, 100 us between polls at first, backing off to 10 ms
  // (docs/host-interface.md).
  void wait_idle() override {
    uint64_t pause = 100;
    while (engine_->read_reg(KESTREL_REG_STATUS) == KESTREL_STATUS_RUNNING) {
      engine_->pipe().idle(pause);
      pause = pause * 2 > 10000 ? 10000 : pause * 2;
    }
  }

 private:
  LinkEngine& link() override { return *engine_; }

  std::string stats_;
  std::unique_ptr<UsbPipe> usb_;
  std::unique_ptr<FaultyPipe> faulty_;
  std::unique_ptr<LinkEngine> engine_;
};

}  // namespace

std::unique_ptr<Transport> make_fpga_transport(const BackendConfig& config) {
  check_options(config, "fpga", "device, baud, faults, stats");
  return std::make_unique<FpgaTransport>(config);
}

}  // namespace kestrel::fpga
