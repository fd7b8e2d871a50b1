// The launch-descriptor and page-map registers of host_regs.h as every
// simulated backend keeps them: the model's transport (model_transport.cpp)
// and the Verilated RTL's (driver/rtlsim), which mirrors what the host writes
// so that a tap observer (docs/host-interface.md, "Taps") sees the launch the
// RTL runs.  One decoder, so that both read the registers the same way.
#pragma once

#include <array>
#include <cstdint>

#include "kestrel/host_regs.h"
#include "kestrel/model/gpu.hpp"

namespace kestrel::model {

class HostRegisters {
 public:
  // Whether `offset` is one of the launch descriptor registers
  // (KESTREL_REG_ENTRY_LO .. KESTREL_REG_WATCHDOG).
  static bool is_descriptor(uint32_t offset) { return offset >= kDescFirst && offset <= kDescLast; }

  // Keeps a write to a descriptor or page-map register and returns true;
  // returns false (and keeps nothing) for any other offset.  A write to
  // KESTREL_REG_MAP_PERMS completes a mapping request (map_request()).
  // The caller decides whether descriptor writes count while a launch runs
  // (the hardware ignores them).
  bool write(uint32_t offset, uint32_t value);
  // The value of a descriptor or page-map register; false for another offset.
  bool read(uint32_t offset, uint32_t& value) const;

  // The launch the descriptor registers describe; the instruction budget is
  // KESTREL_REG_WATCHDOG in units of 2^20 warp-instructions.
  LaunchDesc launch() const;
  uint32_t watchdog() const { return desc(KESTREL_REG_WATCHDOG); }

  // The page-map registers: [addr, addr + pages pages) gets perms.
  struct MapRequest {
    uint64_t addr;
    uint32_t pages;
    uint32_t perms;
  };
  MapRequest map_request() const { return MapRequest{map_addr_, map_pages_, map_perms_}; }

 private:
  static constexpr uint32_t kDescFirst = KESTREL_REG_ENTRY_LO;
  static constexpr uint32_t kDescLast = KESTREL_REG_WATCHDOG;

  uint32_t desc(uint32_t offset) const { return desc_[(offset - kDescFirst) / 4]; }
  uint64_t desc64(uint32_t lo) const { return desc(lo) | (uint64_t{desc(lo + 4)} << 32); }

  std::array<uint32_t, (kDescLast - kDescFirst) / 4 + 1> desc_{};
  uint32_t map_addr_ = 0;
  uint32_t map_pages_ = 0;
  uint32_t map_perms_ = 0;
};

}  // namespace kestrel::model
