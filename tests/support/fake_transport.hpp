// A Transport that implements the host protocol's registers, page table and
// DRAM in plain memory, with no core behind it: a launch ends as the test
// says (done, or a given fault record).  Tests keep a shared_ptr to the
// state to look at what the driver and runtime did.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"
#include "kestrel/transport.hpp"

namespace kestrel::testing {

struct FakeDeviceState {
  std::map<uint32_t, uint32_t> regs;
  std::vector<uint8_t> dram;
  std::map<uint64_t, uint32_t> page_perms;  // page address -> KESTREL_PAGE_* (absent: unmapped)
  int starts = 0;
  int aborts = 0;
  // A DRAM model's counters, when the fake has one (a test's run() moves them).
  std::optional<DramCounters> dram_counters;
  // Registers as they were at each START.
  std::vector<std::map<uint32_t, uint32_t>> launches;
  // Decides how the launch in progress ends; the default completes it.
  std::function<void(FakeDeviceState&)> run = [](FakeDeviceState& s) {
    s.regs[KESTREL_REG_STATUS] = KESTREL_STATUS_DONE;
  };

  uint64_t reg64(uint32_t lo) const { return uint64_t{reg(lo + 4)} << 32 | reg(lo); }
  uint32_t reg(uint32_t offset) const {
    auto it = regs.find(offset);
    return it == regs.end() ? 0 : it->second;
  }
  uint32_t perms_at(uint64_t addr) const {
    auto it = page_perms.find(addr & ~uint64_t{KESTREL_PAGE_SIZE - 1});
    return it == page_perms.end() ? 0 : it->second;
  }
  template <typename T>
  T load(uint64_t addr) const {
    T value;
    std::memcpy(&value, dram.data() + (addr - KESTREL_GLOBAL_BASE), sizeof value);
    return value;
  }
  // Makes the next launches end in a fault with this record.
  void fail_with(uint32_t kind, uint64_t pc, uint64_t address, uint32_t block_x, uint32_t thread_x) {
    run = [=](FakeDeviceState& s) {
      s.regs[KESTREL_REG_STATUS] = KESTREL_STATUS_FAULT;
      s.regs[KESTREL_REG_FAULT_KIND] = kind;
      s.regs[KESTREL_REG_FAULT_PC_LO] = static_cast<uint32_t>(pc);
      s.regs[KESTREL_REG_FAULT_PC_HI] = static_cast<uint32_t>(pc >> 32);
      s.regs[KESTREL_REG_FAULT_ADDR_LO] = static_cast<uint32_t>(address);
      s.regs[KESTREL_REG_FAULT_ADDR_HI] = static_cast<uint32_t>(address >> 32);
      s.regs[KESTREL_REG_FAULT_BLOCK_X] = block_x;
      s.regs[KESTREL_REG_FAULT_THREAD_X] = thread_x;
      s.regs[KESTREL_REG_FAULT_WARP] = thread_x / 32;
    };
  }
};

struct FakeConfig {
  unsigned xlen = 64;
  unsigned lanes = 32;
  unsigned warps_per_sm = 8;
  unsigned num_sms = 2;
  uint32_t shared_bytes = 48 * 1024;
  uint32_t max_threads = 1024;
  uint64_t mem_bytes = 16u << 20;
  uint32_t config3 = 0;  // the memory system (KESTREL_REG_CONFIG3): none
};

class FakeTransport : public Transport {
 public:
  explicit FakeTransport(const FakeConfig& config = {},
                         std::shared_ptr<FakeDeviceState> state = std::make_shared<FakeDeviceState>())
      : state_(std::move(state)) {
    auto& r = state_->regs;
    r[KESTREL_REG_ID] = KESTREL_ID_VALUE;
    r[KESTREL_REG_VERSION] = 1u << 16;
    r[KESTREL_REG_CONFIG0] =
        config.xlen | config.lanes << 8 | config.warps_per_sm << 16 | config.num_sms << 24;
    r[KESTREL_REG_CONFIG1] = (config.shared_bytes / 256) | config.max_threads << 16;
    r[KESTREL_REG_MEM_BASE] = KESTREL_GLOBAL_BASE;
    r[KESTREL_REG_MEM_SIZE_KB] = static_cast<uint32_t>(config.mem_bytes / 1024);
    r[KESTREL_REG_CLOCK_KHZ] = 100000;
    r[KESTREL_REG_CONFIG3] = config.config3;
    state_->dram.assign(config.mem_bytes, 0xA5);  // stale contents, as real DRAM has
  }

  std::shared_ptr<FakeDeviceState> state() const { return state_; }
  std::string name() const override { return "fake"; }

  uint32_t read_reg(uint32_t offset) override { return state_->reg(offset); }

  void write_reg(uint32_t offset, uint32_t value) override {
    auto& s = *state_;
    if (offset == KESTREL_REG_CONTROL) {
      if (value == KESTREL_CTRL_START) {
        ++s.starts;
        s.regs[KESTREL_REG_STATUS] = KESTREL_STATUS_RUNNING;
        s.launches.push_back(s.regs);
        for (uint32_t i = 0; i < 2 * KESTREL_CNT_COUNT; ++i) s.regs[KESTREL_REG_COUNTERS + 4 * i] = 0;
      } else if (value == KESTREL_CTRL_ABORT) {
        ++s.aborts;
        if (s.regs[KESTREL_REG_STATUS] == KESTREL_STATUS_RUNNING)
          s.regs[KESTREL_REG_STATUS] = KESTREL_STATUS_DONE;
      }
      return;
    }
    s.regs[offset] = value;
    if (offset == KESTREL_REG_MAP_PERMS) {
      const uint64_t first = s.reg(KESTREL_REG_MAP_ADDR);
      for (uint32_t i = 0; i < s.reg(KESTREL_REG_MAP_PAGES); ++i) {
        const uint64_t page = first + uint64_t{i} * KESTREL_PAGE_SIZE;
        if (value == 0) {
          s.page_perms.erase(page);
        } else {
          s.page_perms[page] = value;
        }
      }
    }
  }

  void write_mem(uint64_t addr, const void* src, size_t bytes) override {
    std::memcpy(at(addr, bytes), src, bytes);
  }
  void read_mem(uint64_t addr, void* dst, size_t bytes) override { std::memcpy(dst, at(addr, bytes), bytes); }

  bool dram_counters(DramCounters& out) const override {
    if (!state_->dram_counters) return false;
    out = *state_->dram_counters;
    return true;
  }

  void wait_idle() override {
    auto& s = *state_;
    if (s.regs[KESTREL_REG_STATUS] != KESTREL_STATUS_RUNNING) return;
    s.run(s);
    // Counters a finished launch would have: a recognisable, non-zero set.
    s.regs[KESTREL_REG_COUNTERS + 8 * KESTREL_CNT_CYCLES] = 1000;
    s.regs[KESTREL_REG_COUNTERS + 8 * KESTREL_CNT_WARP_INSTRS] = 500;
    s.regs[KESTREL_REG_COUNTERS + 8 * KESTREL_CNT_THREAD_INSTRS] = 12000;
    s.regs[KESTREL_REG_COUNTERS + 8 * KESTREL_CNT_THREAD_INSTRS + 4] = 1;  // HI word: 2^32 + 12000
  }

 private:
  uint8_t* at(uint64_t addr, size_t bytes) {
    auto& dram = state_->dram;
    if (addr < KESTREL_GLOBAL_BASE || addr - KESTREL_GLOBAL_BASE > dram.size() ||
        bytes > dram.size() - (addr - KESTREL_GLOBAL_BASE))
      throw Error(KESTREL_ERROR_INVALID_VALUE, "fake transport: access outside DRAM");
    return dram.data() + (addr - KESTREL_GLOBAL_BASE);
  }

  std::shared_ptr<FakeDeviceState> state_;
};

}  // namespace kestrel::testing
