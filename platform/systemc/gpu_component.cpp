#include "kestrel/systemc/gpu_component.hpp"

#include <cmath>
#include <cstring>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"
#include "kestrel/model/model_transport.hpp"
#include "kestrel/systemc/error_extension.hpp"

namespace kestrel::systemc {
namespace {

constexpr unsigned kLineBytes = 64;          // kestrel_pkg's line: the memory port's width
constexpr uint64_t kRegisterBytes = 0x1000;  // the register file

void fail(tlm::tlm_generic_payload& trans, kestrel_status status, const std::string& message) {
  trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
  ErrorExtension* why = nullptr;
  trans.get_extension(why);
  if (why != nullptr) {
    why->status = status;
    why->message = message;
  }
}

// The TLM error a register access earns by its form, or TLM_OK_RESPONSE.
tlm::tlm_response_status register_form(const tlm::tlm_generic_payload& trans) {
  const uint64_t offset = trans.get_address();
  if (!trans.is_read() && !trans.is_write()) return tlm::TLM_COMMAND_ERROR_RESPONSE;
  if (offset % 4 != 0 || offset >= kRegisterBytes) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  if (trans.get_data_length() != 4 || trans.get_data_ptr() == nullptr || trans.get_streaming_width() < 4)
    return tlm::TLM_BURST_ERROR_RESPONSE;
  if (const unsigned char* enables = trans.get_byte_enable_ptr(); enables != nullptr) {
    const unsigned length = trans.get_byte_enable_length();
    for (unsigned i = 0; i < 4; ++i)
      if (length == 0 || enables[i % length] != TLM_BYTE_ENABLED) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  }
  return tlm::TLM_OK_RESPONSE;
}

}  // namespace

// ---- GpuComponent ------------------------------------------------------------

GpuComponent::GpuComponent(sc_core::sc_module_name name, const BackendConfig& config, const GpuTiming& timing)
    : sc_core::sc_module(name),
      registers("registers"),
      memory("memory"),
      irq("irq"),
      config_(config),
      timing_(timing) {
  if (timing_.clock_period == sc_core::SC_ZERO_TIME || timing_.quantum_cycles == 0) {
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "systemc: the GPU needs a clock period and a quantum above zero");
  }
  registers.register_b_transport(this, &GpuComponent::b_transport);
  memory.register_invalidate_direct_mem_ptr(this, &GpuComponent::invalidate);
  SC_THREAD(run);
}

GpuComponent::~GpuComponent() = default;

void GpuComponent::reset() {
  restart();
  failure_status_ = KESTREL_SUCCESS;
  failure_.clear();
}

void GpuComponent::run() {
  for (;;) {
    if (!failure_.empty() || !running()) {
      wait(launched_);
      continue;
    }
    const uint64_t before = cycles();
    quantum_start_ = before;
    uint64_t spent = timing_.quantum_cycles;
    try {
      device().advance(timing_.quantum_cycles);
      const uint64_t after = cycles();
      if (after >= before) spent = after - before;
    } catch (const Error& e) {
      failure_status_ = e.status();
      failure_ = e.what();
    }
    // A launch that ended inside the quantum has ended for the platform
    // only when simulated time gets there: until then STATUS reads RUNNING.
    ending_ = !failure_.empty() || !running();
    wait(timing_.clock_period * static_cast<double>(spent));
    quantum_start_ = cycles();  // simulated time has caught up with the GPU
    ending_ = false;
    if (!failure_.empty() || !running()) irq.write(true);
  }
}

void GpuComponent::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const tlm::tlm_response_status form = register_form(trans);
  if (form != tlm::TLM_OK_RESPONSE) {
    trans.set_response_status(form);
    return;
  }
  if (!failure_.empty()) {
    fail(trans, failure_status_, failure_);
    return;
  }
  const auto reg = static_cast<uint32_t>(trans.get_address());
  uint64_t before = 0;
  try {
    Transport& gpu = device();
    before = cycles();
    uint32_t value = 0;
    if (trans.is_read()) {
      value = ending_ && reg == KESTREL_REG_STATUS ? KESTREL_STATUS_RUNNING : gpu.read_reg(reg);
      std::memcpy(trans.get_data_ptr(), &value, 4);
    } else {
      std::memcpy(&value, trans.get_data_ptr(), 4);
      const bool start = reg == KESTREL_REG_CONTROL && (value & KESTREL_CTRL_START) != 0 &&
                         (value & KESTREL_CTRL_ABORT) == 0;
      gpu.write_reg(reg, value);
      if (start) {
        irq.write(false);
        launched_.notify(sc_core::SC_ZERO_TIME);
      }
    }
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  } catch (const Error& e) {
    fail(trans, e.status(), e.what());
  }
  const uint64_t after = cycles();
  if (after > before) delay += timing_.clock_period * static_cast<double>(after - before);
}

// ---- GpuRtl --------------------------------------------------------------------

GpuRtl::GpuRtl(sc_core::sc_module_name name, const BackendConfig& config, const GpuTiming& timing)
    : GpuComponent(name, config, timing), engine_(rtlsim::make_rtlsim_engine(config_, *this)) {}

void GpuRtl::restart() {
  engine_.reset();
  engine_ = rtlsim::make_rtlsim_engine(config_, *this);
  dmi_valid_ = false;
}

void GpuRtl::set_dmi(bool on) {
  timing_.dmi = on;
  dmi_valid_ = dmi_valid_ && on;
}

void GpuRtl::revoke(uint64_t start, uint64_t end) {
  if (dmi_valid_ && start <= dmi_.get_end_address() && end >= dmi_.get_start_address()) dmi_valid_ = false;
}

rtlsim::LineAccess GpuRtl::access(uint64_t addr, bool write, uint64_t byte_enables, const uint8_t* wdata,
                                  uint8_t* rdata) {
  rtlsim::LineAccess result;
  // The access leaves at the GPU's local time (temporal decoupling): a
  // target that times accesses by their start (a DRAM model) sees when.
  const sc_core::sc_time offset =
      timing_.clock_period * static_cast<double>(cycles() >= quantum_start_ ? cycles() - quantum_start_ : 0);
  sc_core::sc_time delay = offset;
  const bool via_dmi = dmi_valid_ && addr >= dmi_.get_start_address() &&
                       addr + kLineBytes - 1 <= dmi_.get_end_address() &&
                       (write ? dmi_.is_write_allowed() : dmi_.is_read_allowed());
  if (via_dmi) {
    unsigned char* line = dmi_.get_dmi_ptr() + (addr - dmi_.get_start_address());
    if (write) {
      for (unsigned i = 0; i < kLineBytes; ++i)
        if ((byte_enables >> i) & 1u) line[i] = wdata[i];
      delay = offset + dmi_.get_write_latency();
    } else {
      std::memcpy(rdata, line, kLineBytes);
      delay = offset + dmi_.get_read_latency();
    }
    ++dmi_lines_;
  } else {
    tlm::tlm_generic_payload trans;
    unsigned char data[kLineBytes];
    unsigned char enables[kLineBytes];
    if (write) {
      std::memcpy(data, wdata, kLineBytes);
      for (unsigned i = 0; i < kLineBytes; ++i)
        enables[i] = ((byte_enables >> i) & 1u) ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
      trans.set_byte_enable_ptr(enables);
      trans.set_byte_enable_length(kLineBytes);
    }
    trans.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    trans.set_address(addr);
    trans.set_data_ptr(data);
    trans.set_data_length(kLineBytes);
    trans.set_streaming_width(kLineBytes);
    trans.set_dmi_allowed(false);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    const sc_core::sc_time started = sc_core::sc_time_stamp();
    memory->b_transport(trans, delay);
    // A target that waits instead of annotating spends the same time.
    delay += sc_core::sc_time_stamp() - started;
    ++transported_;
    if (trans.is_response_error()) {
      // What rtlsim's DRAM answers for a line outside memory.
      result.fault = KESTREL_FAULT_ILLEGAL_ADDRESS;
    } else if (!write) {
      std::memcpy(rdata, data, kLineBytes);
    }
    if (timing_.dmi && trans.is_dmi_allowed() && !dmi_valid_) {
      trans.set_address(addr);
      dmi_ = tlm::tlm_dmi();
      dmi_valid_ = memory->get_direct_mem_ptr(trans, dmi_);
    }
  }
  result.cycles = static_cast<uint64_t>(std::ceil((delay - offset) / timing_.clock_period));
  return result;
}

bool GpuRtl::debug_access(uint64_t addr, void* data, size_t bytes, bool write) {
  auto* cursor = static_cast<unsigned char*>(data);
  while (bytes > 0) {
    const unsigned chunk = bytes > (1u << 30) ? (1u << 30) : static_cast<unsigned>(bytes);
    tlm::tlm_generic_payload trans;
    trans.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    trans.set_address(addr);
    trans.set_data_ptr(cursor);
    trans.set_data_length(chunk);
    trans.set_streaming_width(chunk);
    if (memory->transport_dbg(trans) != chunk) return false;
    addr += chunk;
    cursor += chunk;
    bytes -= chunk;
  }
  return true;
}

// ---- GpuModel ------------------------------------------------------------------

GpuModel::GpuModel(sc_core::sc_module_name name, const BackendConfig& config, const GpuTiming& timing)
    : GpuComponent(name, config, timing) {}

Transport& GpuModel::device() {
  if (model_) return *model_;
  tlm::tlm_generic_payload trans;
  tlm::tlm_dmi dmi;
  trans.set_command(tlm::TLM_READ_COMMAND);
  trans.set_address(KESTREL_GLOBAL_BASE);
  const uint64_t last = KESTREL_GLOBAL_BASE + config_.mem_bytes - 1;
  if (!memory->get_direct_mem_ptr(trans, dmi) || !dmi.is_read_write_allowed() ||
      dmi.get_start_address() > KESTREL_GLOBAL_BASE || dmi.get_end_address() < last) {
    throw Error(KESTREL_ERROR_NOT_SUPPORTED,
                "systemc: the fast GPU model needs a DMI pointer to all of device memory (read and write, " +
                    std::to_string(config_.mem_bytes >> 20) +
                    " MiB at KESTREL_GLOBAL_BASE); the memory did not "
                    "grant one (use the cycle-accurate GPU)");
  }
  dram_start_ = KESTREL_GLOBAL_BASE;
  dram_end_ = last;
  model_ = model::make_model_transport(config_,
                                       dmi.get_dmi_ptr() + (KESTREL_GLOBAL_BASE - dmi.get_start_address()));
  return *model_;
}

uint64_t GpuModel::cycles() {
  if (!model_) return 0;
  return model_->read_reg(KESTREL_REG_COUNTERS + 8 * KESTREL_CNT_CYCLES) |
         (uint64_t{model_->read_reg(KESTREL_REG_COUNTERS + 8 * KESTREL_CNT_CYCLES + 4)} << 32);
}

bool GpuModel::running() { return model_ && model_->read_reg(KESTREL_REG_STATUS) == KESTREL_STATUS_RUNNING; }

void GpuModel::revoke(uint64_t start, uint64_t end) {
  // The model's DRAM is the pointer: without it the model goes (reset()
  // clears memory, which revokes; a device opened afterwards gets a new one).
  if (model_ && start <= dram_end_ && end >= dram_start_) model_.reset();
}

}  // namespace kestrel::systemc
