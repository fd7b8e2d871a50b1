// A model with a fixed memory layout for hand-assembled test programs:
// code (R+X) at kCode, an exit stub, read/write data at kData (passed in a0),
// a read-only page, an unmapped page and a shared window.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "fp_bits.hpp"
#include "kestrel/error.hpp"
#include "kestrel/model/gpu.hpp"
#include "kestrel/model/rv_assembler.hpp"

namespace kestrel::model::test {

using namespace kestrel::model::rvasm;

constexpr uint64_t kCode = KESTREL_GLOBAL_BASE;
constexpr uint64_t kExitStub = kCode + 0xF000;
constexpr uint64_t kData = KESTREL_GLOBAL_BASE + 0x10000;
constexpr uint64_t kReadOnly = KESTREL_GLOBAL_BASE + 0x20000;
constexpr uint64_t kUnmapped = KESTREL_GLOBAL_BASE + 0x30000;
// The shared window, never mapped as global memory, with its guards
// (KESTREL_SHARED_GUARD on each side) clear of the pages above.
constexpr uint32_t kShared = KESTREL_GLOBAL_BASE + 0x80000;
constexpr uint32_t kDataPages = 16;

class TestGpu {
 public:
  explicit TestGpu(unsigned xlen = 64, unsigned lanes = 32, unsigned sms = 1, unsigned warps = 8,
                   unsigned sched_policy = KESTREL_SCHED_LRR) {
    Config c;
    c.sched_policy = sched_policy;
    c.xlen = xlen;
    c.lanes_per_warp = lanes;
    c.num_sms = sms;
    c.warps_per_sm = warps;
    c.mem_bytes = 1u << 20;
    c.barrier_watchdog = 1u << 16;  // keeps deadlock tests fast
    gpu_ = std::make_unique<Gpu>(c);
    gpu_->map_pages(kCode, 16, KESTREL_PAGE_READ | KESTREL_PAGE_EXEC);
    gpu_->map_pages(kData, kDataPages, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
    gpu_->map_pages(kReadOnly, 1, KESTREL_PAGE_READ);
    const uint32_t exit_word = 0x0000000B;  // kx.exit
    gpu_->write_mem(kExitStub, &exit_word, 4);
  }

  Gpu& gpu() { return *gpu_; }
  const Config& config() const { return gpu_->config(); }

  void load(const Assembler& a) {
    const std::vector<uint32_t> words = a.finish();
    gpu_->write_mem(kCode, words.data(), words.size() * 4);
  }

  LaunchDesc desc(Dim3 grid, Dim3 block) const {
    LaunchDesc d;
    d.entry_pc = kCode;
    d.exit_pc = kExitStub;
    d.gp = 0;
    d.param_addr = kData;
    d.grid = grid;
    d.block = block;
    d.shared_base = kShared;
    d.stack_bytes = 1024;
    return d;
  }

  LaunchState run(Dim3 grid = {1, 1, 1}, Dim3 block = {1, 1, 1}) { return run(desc(grid, block)); }
  LaunchState run(const LaunchDesc& d) {
    gpu_->start(d);
    gpu_->run();
    return gpu_->state();
  }

  // Registers of thread slot (sm, warp slot, lane) after the launch.
  uint64_t x(unsigned reg, uint32_t lane = 0, uint32_t slot = 0, uint32_t sm = 0) const {
    return gpu_->xreg(sm, slot, lane, reg);
  }
  uint32_t fr(unsigned reg, uint32_t lane = 0) const { return gpu_->freg(0, 0, lane, reg); }

  template <class T>
  T data(uint64_t offset) const {
    T v;
    gpu_->read_mem(kData + offset, &v, sizeof v);
    return v;
  }
  template <class T>
  void set_data(uint64_t offset, T v) {
    gpu_->write_mem(kData + offset, &v, sizeof v);
  }

 private:
  std::unique_ptr<Gpu> gpu_;
};

}  // namespace kestrel::model::test
