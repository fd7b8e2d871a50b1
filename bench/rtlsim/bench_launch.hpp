// What the rtlsim benches share: the "bench1" model (1 SM x 8 warps x 32
// lanes, RV64) behind a harness, where a launch's pieces live in its memory,
// driving one launch of a hand-assembled kernel through the host registers
// as the runtime would, and reading the global counters back.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Vgpu_bench1.h"
#include "kestrel/abi.h"
#include "kestrel/host_regs.h"
#include "kestrel/model/rv_assembler.hpp"
#include "kestrel/transport.hpp"
#include "rtlsim_harness.hpp"

namespace kestrel::bench {

inline uint64_t counter(Transport& t, unsigned i) {
  return t.read_reg(KESTREL_REG_COUNTERS + 8 * i) |
         (uint64_t{t.read_reg(KESTREL_REG_COUNTERS + 8 * i + 4)} << 32);
}

// The memory-system window's counter i (enum kestrel_mem_counter).
inline uint64_t mem_counter(Transport& t, unsigned i) {
  return t.read_reg(KESTREL_REG_MEM_COUNTERS + 8 * i) |
         (uint64_t{t.read_reg(KESTREL_REG_MEM_COUNTERS + 8 * i + 4)} << 32);
}

inline void map(Transport& t, uint64_t addr, uint32_t pages, uint32_t perms) {
  t.write_reg(KESTREL_REG_MAP_ADDR, static_cast<uint32_t>(addr));
  t.write_reg(KESTREL_REG_MAP_PAGES, pages);
  t.write_reg(KESTREL_REG_MAP_PERMS, perms);
}

// Where a launch's pieces live in device memory.
struct LaunchLayout {
  uint64_t code;       // the kernel's first instruction, 16 pages mapped R+X
  uint64_t exit_stub;  // a kx.exit the launch returns to, inside those pages
  uint64_t params;     // one page mapped R
  uint64_t local;      // the local-memory backing
};

// The bench1 model's geometry (bench/rtlsim/CMakeLists.txt) and the layout
// its benches use; a bench's arrays start at kArrays.
constexpr unsigned kXlen = 64, kLanes = 32, kWarps = 8;
constexpr LaunchLayout kLayout{KESTREL_GLOBAL_BASE, KESTREL_GLOBAL_BASE + 0xF000,
                               KESTREL_GLOBAL_BASE + 0x10000, KESTREL_GLOBAL_BASE + 0x800000};
constexpr uint64_t kArrays = KESTREL_GLOBAL_BASE + 0x100000;

using Bench1 = rtlsim::detail::Harness<Vgpu_bench1>;

// The bench1 GPU with 16 MiB of memory and these rtlsim backend options
// (lockstep, the DRAM's); a launch may run 500 million cycles.
inline std::unique_ptr<Bench1> make_bench1(const std::map<std::string, std::string>& backend_options) {
  BackendConfig config;
  config.xlen = kXlen;
  config.lanes_per_warp = kLanes;
  config.warps_per_sm = kWarps;
  config.num_sms = 1;
  config.mem_bytes = 16u << 20;
  config.options = backend_options;
  rtlsim::detail::Options options = rtlsim::detail::options_from(config);
  options.max_cycles = 500'000'000;
  return std::make_unique<Bench1>(config, options, nullptr);
}

// Writes the code, maps it and the parameter page, runs a 1D launch to its
// end and exits the bench with a message if it faults.
inline void run_launch(Transport& gpu, const LaunchLayout& at, const std::vector<uint32_t>& code,
                       const std::vector<uint64_t>& params, uint32_t blocks, uint32_t threads,
                       const char* bench) {
  gpu.write_mem(at.code, code.data(), code.size() * 4);
  const uint32_t exit_word = 0x0000000B;  // kx.exit
  gpu.write_mem(at.exit_stub, &exit_word, 4);
  map(gpu, at.code, 16, KESTREL_PAGE_READ | KESTREL_PAGE_EXEC);
  map(gpu, at.params, 1, KESTREL_PAGE_READ);
  gpu.write_mem(at.params, params.data(), params.size() * sizeof(uint64_t));
  gpu.write_reg(KESTREL_REG_ENTRY_LO, static_cast<uint32_t>(at.code));
  gpu.write_reg(KESTREL_REG_EXIT_LO, static_cast<uint32_t>(at.exit_stub));
  gpu.write_reg(KESTREL_REG_PARAM_LO, static_cast<uint32_t>(at.params));
  gpu.write_reg(KESTREL_REG_GRID_X, blocks);
  gpu.write_reg(KESTREL_REG_GRID_Y, 1);
  gpu.write_reg(KESTREL_REG_GRID_Z, 1);
  gpu.write_reg(KESTREL_REG_BLOCK_X, threads);
  gpu.write_reg(KESTREL_REG_BLOCK_Y, 1);
  gpu.write_reg(KESTREL_REG_BLOCK_Z, 1);
  gpu.write_reg(KESTREL_REG_STACK_BYTES, 1024);
  gpu.write_reg(KESTREL_REG_LOCAL_BACKING, static_cast<uint32_t>(at.local));
  gpu.write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
  gpu.wait_idle();
  if (gpu.read_reg(KESTREL_REG_STATUS) != KESTREL_STATUS_DONE) {
    std::fprintf(stderr, "%s: launch faulted (kind %u at pc 0x%x)\n", bench,
                 gpu.read_reg(KESTREL_REG_FAULT_KIND), gpu.read_reg(KESTREL_REG_FAULT_PC_LO));
    std::exit(1);
  }
}

}  // namespace kestrel::bench
