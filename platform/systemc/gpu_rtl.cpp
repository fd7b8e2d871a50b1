#include "kestrel/systemc/gpu_rtl.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "kestrel/host_regs.h"
#include "kestrel/systemc/error_extension.hpp"

namespace kestrel::systemc {
namespace {

constexpr unsigned kLineBytes = 64;          // kestrel_pkg's line: the memory port's width
constexpr uint64_t kRegisterBytes = 0x1000;  // the register file

}  // namespace

GpuRtl::GpuRtl(sc_core::sc_module_name name, const BackendConfig& config, const GpuTiming& timing)
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
  registers.register_b_transport(this, &GpuRtl::b_transport);
  memory.register_invalidate_direct_mem_ptr(this, &GpuRtl::invalidate);
  engine_ = rtlsim::make_rtlsim_engine(config_, *this);
  SC_THREAD(run);
}

GpuRtl::~GpuRtl() = default;

void GpuRtl::reset() {
  engine_.reset();
  engine_ = rtlsim::make_rtlsim_engine(config_, *this);
  failure_status_ = KESTREL_SUCCESS;
  failure_.clear();
  dmi_valid_ = false;
}

uint64_t GpuRtl::to_cycles(const sc_core::sc_time& time) const {
  return static_cast<uint64_t>(std::ceil(time / timing_.clock_period));
}

void GpuRtl::run() {
  for (;;) {
    if (!failure_.empty() || !engine_->running()) {
      wait(launched_);
      continue;
    }
    const uint64_t before = engine_->cycles();
    try {
      engine_->advance(timing_.quantum_cycles);
    } catch (const Error& e) {
      failure_status_ = e.status();
      failure_ = e.what();
    }
    wait(timing_.clock_period * static_cast<double>(engine_->cycles() - before));
    if (!failure_.empty() || !engine_->running()) irq.write(true);
  }
}

void GpuRtl::fail(tlm::tlm_generic_payload& trans, kestrel_status status, const std::string& message) {
  trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
  ErrorExtension* why = nullptr;
  trans.get_extension(why);
  if (why != nullptr) {
    why->status = status;
    why->message = message;
  }
}

void GpuRtl::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t offset = trans.get_address();
  const unsigned char* enables = trans.get_byte_enable_ptr();
  if (!trans.is_read() && !trans.is_write()) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  if (offset % 4 != 0 || offset >= kRegisterBytes) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (trans.get_data_length() != 4 || trans.get_data_ptr() == nullptr || trans.get_streaming_width() < 4) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (enables != nullptr) {
    for (unsigned i = 0; i < 4; ++i) {
      if (trans.get_byte_enable_length() == 0 ||
          enables[i % trans.get_byte_enable_length()] != TLM_BYTE_ENABLED) {
        trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
      }
    }
  }
  if (!failure_.empty()) {
    fail(trans, failure_status_, failure_);
    return;
  }
  const auto reg = static_cast<uint32_t>(offset);
  const uint64_t before = engine_->cycles();
  try {
    uint32_t value = 0;
    if (trans.is_read()) {
      value = engine_->read_reg(reg);
      std::memcpy(trans.get_data_ptr(), &value, 4);
    } else {
      std::memcpy(&value, trans.get_data_ptr(), 4);
      const bool start = reg == KESTREL_REG_CONTROL && (value & KESTREL_CTRL_START) != 0 &&
                         (value & KESTREL_CTRL_ABORT) == 0;
      engine_->write_reg(reg, value);
      if (start) {
        irq.write(false);
        launched_.notify(sc_core::SC_ZERO_TIME);
      }
    }
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  } catch (const Error& e) {
    fail(trans, e.status(), e.what());
  }
  delay += timing_.clock_period * static_cast<double>(engine_->cycles() - before);
}

void GpuRtl::invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
  if (dmi_valid_ && start <= dmi_.get_end_address() && end >= dmi_.get_start_address()) dmi_valid_ = false;
}

rtlsim::LineAccess GpuRtl::access(uint64_t addr, bool write, uint64_t byte_enables, const uint8_t* wdata,
                                  uint8_t* rdata) {
  rtlsim::LineAccess result;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const bool via_dmi = dmi_valid_ && addr >= dmi_.get_start_address() &&
                       addr + kLineBytes - 1 <= dmi_.get_end_address() &&
                       (write ? dmi_.is_write_allowed() : dmi_.is_read_allowed());
  if (via_dmi) {
    unsigned char* line = dmi_.get_dmi_ptr() + (addr - dmi_.get_start_address());
    if (write) {
      for (unsigned i = 0; i < kLineBytes; ++i)
        if ((byte_enables >> i) & 1u) line[i] = wdata[i];
      delay = dmi_.get_write_latency();
    } else {
      std::memcpy(rdata, line, kLineBytes);
      delay = dmi_.get_read_latency();
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
  result.cycles = to_cycles(delay);
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

}  // namespace kestrel::systemc
