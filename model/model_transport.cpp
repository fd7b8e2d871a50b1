// The register map of host_regs.h in front of a Gpu.  The launch runs inside
// wait_idle() or in slices in advance(), so STATUS reads RUNNING between START
// and the end of the launch.
#include "kestrel/model/model_transport.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"
#include "kestrel/model/gpu.hpp"
#include "kestrel/model/host_registers.hpp"
#include "kestrel/model/itrace.hpp"

namespace kestrel::model {
namespace {

// 0.2: the per-SM counter window (KESTREL_SM_COUNTERS_VERSION)
constexpr uint32_t kVersion = (0u << 16) | KESTREL_SM_COUNTERS_VERSION;
// kestrel_sm's defaults (FpuStages, ICacheLines = 16).
constexpr uint32_t kReportedFpuStages = 3;
constexpr uint32_t kReportedICacheLinesLog2 = 4;

// The model backend's one option (BackendConfig::options): itrace=file,
// the instruction trace (kestrel/model/itrace.hpp).
void check_options(const BackendConfig& c) {
  for (const auto& [name, value] : c.options) {
    if (name == "itrace") continue;
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "model: unknown backend option '" + name + "' (the model backend knows: itrace)");
  }
}

uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

Config with_dram(Config config, uint8_t* dram) {
  config.dram = dram;
  return config;
}

class ModelTransport final : public Transport {
 public:
  ModelTransport(const BackendConfig& config, uint8_t* dram) : gpu_(with_dram(model_config(config), dram)) {
    if (const auto it = config.options.find("itrace"); it != config.options.end() && !it->second.empty()) {
      trace_ = std::make_unique<InstructionTrace>(it->second, config.xlen);
      gpu_.set_retire_observer([this](const Retire& r, uint64_t cycle) {
        uint32_t word = 0;
        gpu_.read_mem(r.pc, &word, sizeof word);
        trace_->retire(cycle, r.sm, r.warp_slot, r.pc, r.mask, word, r.writes);
      });
    }
  }

  std::string name() const override { return "model"; }

  uint32_t read_reg(uint32_t offset) override {
    check_offset(offset);
    const Config& c = gpu_.config();
    switch (offset) {
      case KESTREL_REG_ID:
        return KESTREL_ID_VALUE;
      case KESTREL_REG_VERSION:
        return kVersion;
      case KESTREL_REG_CONFIG0:
        return c.xlen | (c.lanes_per_warp << 8) | (c.warps_per_sm << 16) | (c.num_sms << 24);
      case KESTREL_REG_CONFIG1:
        return (c.shared_bytes_per_sm / 256) | (c.max_threads_per_block << 16);
      case KESTREL_REG_MEM_BASE:
        return KESTREL_GLOBAL_BASE;
      case KESTREL_REG_MEM_SIZE_KB:
        return static_cast<uint32_t>(c.mem_bytes / 1024);
      case KESTREL_REG_CLOCK_KHZ:
        return c.clock_khz;
      case KESTREL_REG_CONFIG2:
        // The policy the model follows; the FPU depth and I-cache size of the
        // SM it stands for (it models neither).
        return c.sched_policy | (kReportedFpuStages << 4) | (kReportedICacheLinesLog2 << 8);
      case KESTREL_REG_CONFIG3:
        // No L2 or memory counter window; the model runs kx.tex.
        return 1u << KESTREL_CONFIG3_TEX_UNIT_BIT;
      case KESTREL_REG_CONTROL:
        return 0;
      case KESTREL_REG_STATUS:
        return status();
      default:
        break;
    }
    if (uint32_t value = 0; regs_.read(offset, value)) return value;
    if (offset >= KESTREL_REG_FAULT_KIND && offset <= KESTREL_REG_FAULT_INFO) return fault_reg(offset);
    if (offset >= KESTREL_REG_COUNTERS && offset < KESTREL_REG_COUNTERS + 8 * KESTREL_CNT_COUNT) {
      const uint32_t index = (offset - KESTREL_REG_COUNTERS) / 8;
      const uint64_t value = started_ ? gpu_.counters()[index] : 0;
      return (offset & 4) ? hi(value) : lo(value);
    }
    if (offset >= KESTREL_REG_SM_COUNTERS) {
      // The per-SM window: SM s's counter j at base + stride * s + 8 * j,
      // for the SMs the window holds; other slots read 0, as on the RTL.
      const uint32_t sm = (offset - KESTREL_REG_SM_COUNTERS) / KESTREL_SM_COUNTERS_STRIDE;
      const uint32_t index = (offset - KESTREL_REG_SM_COUNTERS) % KESTREL_SM_COUNTERS_STRIDE / 8;
      if (!started_ || sm >= c.num_sms || sm >= KESTREL_SM_COUNTERS_MAX_SMS || index >= KESTREL_SM_CNT_COUNT)
        return 0;
      const uint64_t value = gpu_.sm_counters(sm)[index];
      return (offset & 4) ? hi(value) : lo(value);
    }
    return 0;  // reserved registers read as zero, as on the hardware
  }

  void write_reg(uint32_t offset, uint32_t value) override {
    check_offset(offset);
    if (HostRegisters::is_descriptor(offset)) {
      if (gpu_.state() != LaunchState::kRunning) regs_.write(offset, value);
      return;
    }
    if (regs_.write(offset, value)) {
      if (offset == KESTREL_REG_MAP_PERMS) {
        const HostRegisters::MapRequest map = regs_.map_request();
        gpu_.map_pages(map.addr, map.pages, map.perms);
      }
      return;
    }
    if (offset == KESTREL_REG_CONTROL) {
      if (value & KESTREL_CTRL_ABORT) {
        gpu_.abort();
        aborted_ = true;
      } else if (value & KESTREL_CTRL_START) {
        start();
      }
    }
    // read-only and reserved registers ignore writes
  }

  void write_mem(uint64_t addr, const void* src, size_t bytes) override {
    if (src == nullptr && bytes != 0)
      throw Error(KESTREL_ERROR_INVALID_VALUE, "model: write_mem from a null pointer");
    gpu_.write_mem(addr, src, bytes);
  }
  void read_mem(uint64_t addr, void* dst, size_t bytes) override {
    if (dst == nullptr && bytes != 0)
      throw Error(KESTREL_ERROR_INVALID_VALUE, "model: read_mem into a null pointer");
    gpu_.read_mem(addr, dst, bytes);
  }

  void wait_idle() override { gpu_.run(); }

  // A scheduling round issues one warp slice per SM, about warp_slice cycles.
  bool overlaps_copies() const override { return true; }

  bool advance(uint64_t cycles) override {
    const uint64_t rounds = std::max<uint64_t>(1, cycles / gpu_.config().warp_slice);
    return gpu_.run_for(rounds);
  }

 private:
  static void check_offset(uint32_t offset) {
    if (offset % 4 != 0) {
      throw Error(KESTREL_ERROR_INVALID_VALUE,
                  "model: register offset " + std::to_string(offset) + " not word aligned");
    }
  }

  void start() {
    if (trace_) trace_->launch(regs_.launch());
    gpu_.start(regs_.launch());
    started_ = true;
    aborted_ = false;
  }

  uint32_t status() const {
    if (!started_ || aborted_) return KESTREL_STATUS_IDLE;
    switch (gpu_.state()) {
      case LaunchState::kRunning:
        return KESTREL_STATUS_RUNNING;
      case LaunchState::kDone:
        return KESTREL_STATUS_DONE;
      case LaunchState::kFault:
        return KESTREL_STATUS_FAULT;
      default:
        return KESTREL_STATUS_IDLE;
    }
  }

  uint32_t fault_reg(uint32_t offset) const {
    if (gpu_.state() != LaunchState::kFault) return 0;
    const Fault& f = gpu_.fault();
    switch (offset) {
      case KESTREL_REG_FAULT_KIND:
        return f.kind;
      case KESTREL_REG_FAULT_PC_LO:
        return lo(f.pc);
      case KESTREL_REG_FAULT_PC_HI:
        return hi(f.pc);
      case KESTREL_REG_FAULT_ADDR_LO:
        return lo(f.addr);
      case KESTREL_REG_FAULT_ADDR_HI:
        return hi(f.addr);
      case KESTREL_REG_FAULT_BLOCK_X:
        return f.block.x;
      case KESTREL_REG_FAULT_BLOCK_Y:
        return f.block.y;
      case KESTREL_REG_FAULT_BLOCK_Z:
        return f.block.z;
      case KESTREL_REG_FAULT_THREAD_X:
        return f.thread.x;
      case KESTREL_REG_FAULT_THREAD_Y:
        return f.thread.y;
      case KESTREL_REG_FAULT_THREAD_Z:
        return f.thread.z;
      case KESTREL_REG_FAULT_SM:
        return f.sm;
      case KESTREL_REG_FAULT_WARP:
        return f.warp;
      case KESTREL_REG_FAULT_INFO:
        return f.info;
      default:
        return 0;
    }
  }

  Gpu gpu_;
  std::unique_ptr<InstructionTrace> trace_;  // KESTREL_ITRACE, when asked for
  HostRegisters regs_;
  bool started_ = false;
  bool aborted_ = false;
};

}  // namespace

Config model_config(const BackendConfig& c) {
  Config m;
  m.xlen = c.xlen;
  m.num_sms = c.num_sms;
  m.warps_per_sm = c.warps_per_sm;
  m.lanes_per_warp = c.lanes_per_warp;
  m.mem_bytes = c.mem_bytes;
  m.shared_bytes_per_sm = c.shared_bytes_per_sm;
  m.max_threads_per_block = c.max_threads_per_block;
  m.sched_policy = c.sched_policy;
  return m;
}

std::unique_ptr<Transport> make_model_transport(const BackendConfig& config) {
  check_options(config);
  return std::make_unique<ModelTransport>(config, nullptr);
}

std::unique_ptr<Transport> make_model_transport(const BackendConfig& config, uint8_t* dram) {
  check_options(config);
  if (dram == nullptr) throw Error(KESTREL_ERROR_INVALID_VALUE, "model: no DRAM given");
  return std::make_unique<ModelTransport>(config, dram);
}

}  // namespace kestrel::model
