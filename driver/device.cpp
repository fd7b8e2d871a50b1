// The host protocol over a Transport (docs/host-interface.md).
#include "kestrel/driver/device.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <utility>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"

namespace kestrel::driver {
namespace {

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

std::string triple(const std::array<uint32_t, 3>& v) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}

bool is_power_of_two(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Kinds whose record carries a meaningful data address.
bool fault_has_address(int32_t kind) {
  switch (kind) {
    case KESTREL_FAULT_MISALIGNED:
    case KESTREL_FAULT_ILLEGAL_ADDRESS:
    case KESTREL_FAULT_SHARED_BOUNDS:
    case KESTREL_FAULT_LOCAL_BOUNDS:
    case KESTREL_FAULT_WRITE_PROTECT:
    case KESTREL_FAULT_TEXTURE:
      return true;
    default:
      return false;
  }
}

}  // namespace

const char* fault_kind_text(int32_t kind) {
  switch (kind) {
    case KESTREL_FAULT_NONE:
      return "no fault";
    case KESTREL_FAULT_ILLEGAL_INSTRUCTION:
      return "illegal instruction";
    case KESTREL_FAULT_MISALIGNED:
      return "misaligned address";
    case KESTREL_FAULT_ILLEGAL_ADDRESS:
      return "illegal address";
    case KESTREL_FAULT_SHARED_BOUNDS:
      return "shared memory out of bounds";
    case KESTREL_FAULT_LOCAL_BOUNDS:
      return "local memory out of bounds";
    case KESTREL_FAULT_WRITE_PROTECT:
      return "write to read-only page";
    case KESTREL_FAULT_FETCH:
      return "instruction fetch fault";
    case KESTREL_FAULT_BARRIER_DEADLOCK:
      return "barrier deadlock";
    case KESTREL_FAULT_TRAP:
      return "trap";
    case KESTREL_FAULT_ASSERT:
      return "assertion failed";
    case KESTREL_FAULT_TIMEOUT:
      return "watchdog timeout";
    case KESTREL_FAULT_TEXTURE:
      return "texture fault";
    default:
      return nullptr;
  }
}

std::string describe_fault(const FaultRecord& fault) {
  const char* kind = fault_kind_text(fault.kind);
  std::string text = kind ? kind : "unknown fault kind " + std::to_string(fault.kind);
  if (fault_has_address(fault.kind)) text += " " + hex(fault.address);
  // The stack grows down from the top of the local window (docs/isa.md
  // section 5), so an overflow lands in the guard below the window.
  if (fault.kind == KESTREL_FAULT_LOCAL_BOUNDS && fault.address < KESTREL_LOCAL_BASE)
    text += " (below the stack: stack overflow)";
  if (fault.kind == KESTREL_FAULT_TRAP) {
    text += " (code " + std::to_string(fault.info) + ")";
    if (fault.info == KESTREL_TRAP_HEAP)
      text += ": device free() of a pointer malloc() did not return, or freed twice";
  }
  if (fault.kind == KESTREL_FAULT_ASSERT) text += " (line " + std::to_string(fault.info) + ")";
  if (fault.kind == KESTREL_FAULT_TEXTURE)
    text += " (kx.tex: an object the texture unit does not fetch, or a form other than its shape)";
  text += " at pc " + hex(fault.pc) + " in block " + triple(fault.block) + " thread " + triple(fault.thread);
  text += " (sm " + std::to_string(fault.sm) + ", warp " + std::to_string(fault.warp) + ")";
  return text;
}

Device::Device(std::unique_ptr<Transport> transport) : transport_(std::move(transport)) {
  if (!transport_) throw Error(KESTREL_ERROR_NO_DEVICE, "no transport given");
  const std::string who = "backend '" + transport_->name() + "': ";
  const uint32_t id = transport_->read_reg(KESTREL_REG_ID);
  if (id != KESTREL_ID_VALUE) {
    throw Error(KESTREL_ERROR_NO_DEVICE, who + "ID register reads " + hex(id) + ", not a Kestrel device (" +
                                             hex(KESTREL_ID_VALUE) + ")");
  }
  info_.version = transport_->read_reg(KESTREL_REG_VERSION);
  const uint32_t config0 = transport_->read_reg(KESTREL_REG_CONFIG0);
  const uint32_t config1 = transport_->read_reg(KESTREL_REG_CONFIG1);
  info_.xlen = config0 & 0xFFu;
  info_.lanes_per_warp = (config0 >> 8) & 0xFFu;
  info_.warps_per_sm = (config0 >> 16) & 0xFFu;
  info_.num_sms = (config0 >> 24) & 0xFFu;
  info_.shared_bytes_per_sm = (config1 & 0xFFFFu) * 256u;
  info_.max_threads_per_block = config1 >> 16;
  info_.mem_base = transport_->read_reg(KESTREL_REG_MEM_BASE);
  info_.mem_bytes = uint64_t{transport_->read_reg(KESTREL_REG_MEM_SIZE_KB)} * 1024u;
  info_.clock_khz = transport_->read_reg(KESTREL_REG_CLOCK_KHZ);
  const uint32_t config2 = transport_->read_reg(KESTREL_REG_CONFIG2);
  info_.sched_policy = config2 & 0xFu;
  info_.fpu_stages = (config2 >> 4) & 0xFu;
  info_.icache_lines = 1u << ((config2 >> 8) & 0xFu);
  const uint32_t config3 = transport_->read_reg(KESTREL_REG_CONFIG3);
  info_.l2_bytes = uint64_t{config3 & 0xFFFFu} * 1024;
  info_.l2_ways = (config3 >> 16) & 0xFFu;
  info_.mem_counters = ((config3 >> KESTREL_CONFIG3_MEM_WINDOW_BIT) & 1u) != 0;
  info_.texture_unit = ((config3 >> KESTREL_CONFIG3_TEX_UNIT_BIT) & 1u) != 0;

  auto reject = [&](const std::string& why) { throw Error(KESTREL_ERROR_NO_DEVICE, who + why); };
  if (info_.xlen != 32 && info_.xlen != 64) reject("CONFIG0 reports xlen " + std::to_string(info_.xlen));
  // The active mask is a 32-bit CSR, so a warp has at most 32 lanes.
  if (!is_power_of_two(info_.lanes_per_warp) || info_.lanes_per_warp > 32)
    reject("CONFIG0 reports " + std::to_string(info_.lanes_per_warp) + " lanes per warp");
  if (info_.warps_per_sm == 0) reject("CONFIG0 reports no warps per SM");
  if (info_.num_sms == 0) reject("CONFIG0 reports no SMs");
  if (info_.max_threads_per_block == 0) reject("CONFIG1 reports a maximum of 0 threads per block");
  if (info_.mem_base != KESTREL_GLOBAL_BASE)
    reject("MEM_BASE is " + hex(info_.mem_base) + ", expected " + hex(KESTREL_GLOBAL_BASE));
  if (info_.mem_bytes < KESTREL_PAGE_SIZE || info_.mem_bytes % KESTREL_PAGE_SIZE != 0)
    reject("MEM_SIZE_KB reports " + std::to_string(info_.mem_bytes) + " bytes, not a whole number of pages");
  if (info_.mem_base + info_.mem_bytes > KESTREL_GLOBAL_LIMIT)
    reject("DRAM of " + std::to_string(info_.mem_bytes) + " bytes runs past " + hex(KESTREL_GLOBAL_LIMIT));
}

void Device::check_dram_range(uint64_t addr, uint64_t bytes, const char* what) const {
  const uint64_t end = info_.mem_base + info_.mem_bytes;
  if (addr < info_.mem_base || addr > end || bytes > end - addr) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, std::string(what) + " [" + hex(addr) + ", +" +
                                                 std::to_string(bytes) + ") is outside device DRAM [" +
                                                 hex(info_.mem_base) + ", " + hex(end) + ")");
  }
}

void Device::map_pages(uint64_t addr, uint32_t pages, uint32_t perms) {
  if (addr % KESTREL_PAGE_SIZE != 0)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "page mapping at unaligned address " + hex(addr));
  if ((perms & ~uint32_t{KESTREL_PAGE_READ | KESTREL_PAGE_WRITE | KESTREL_PAGE_EXEC}) != 0)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "unknown page permission bits " + hex(perms));
  if (pages == 0) return;
  check_dram_range(addr, uint64_t{pages} * KESTREL_PAGE_SIZE, "page mapping");
  transport_->write_reg(KESTREL_REG_MAP_ADDR, static_cast<uint32_t>(addr));
  transport_->write_reg(KESTREL_REG_MAP_PAGES, pages);
  transport_->write_reg(KESTREL_REG_MAP_PERMS, perms);
}

void Device::write_mem(uint64_t addr, const void* src, size_t bytes) {
  if (bytes == 0) return;
  check_dram_range(addr, bytes, "write");
  transport_->write_mem(addr, src, bytes);
}

void Device::read_mem(uint64_t addr, void* dst, size_t bytes) {
  if (bytes == 0) return;
  check_dram_range(addr, bytes, "read");
  transport_->read_mem(addr, dst, bytes);
}

uint64_t Device::read_reg64(uint32_t lo_offset) {
  const uint64_t lo = transport_->read_reg(lo_offset);
  const uint64_t hi = transport_->read_reg(lo_offset + 4);
  return hi << 32 | lo;
}

void Device::write_reg64(uint32_t lo_offset, uint64_t value) {
  transport_->write_reg(lo_offset, static_cast<uint32_t>(value));
  transport_->write_reg(lo_offset + 4, static_cast<uint32_t>(value >> 32));
}

void Device::launch(const LaunchRegs& regs) {
  if (state() == RunState::running)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "launch while the device is still running a kernel");
  write_reg64(KESTREL_REG_ENTRY_LO, regs.entry_pc);
  write_reg64(KESTREL_REG_EXIT_LO, regs.exit_pc);
  write_reg64(KESTREL_REG_GP_LO, regs.gp);
  write_reg64(KESTREL_REG_PARAM_LO, regs.param_addr);
  transport_->write_reg(KESTREL_REG_GRID_X, regs.grid[0]);
  transport_->write_reg(KESTREL_REG_GRID_Y, regs.grid[1]);
  transport_->write_reg(KESTREL_REG_GRID_Z, regs.grid[2]);
  transport_->write_reg(KESTREL_REG_BLOCK_X, regs.block[0]);
  transport_->write_reg(KESTREL_REG_BLOCK_Y, regs.block[1]);
  transport_->write_reg(KESTREL_REG_BLOCK_Z, regs.block[2]);
  transport_->write_reg(KESTREL_REG_SHARED_BASE, regs.shared_base);
  transport_->write_reg(KESTREL_REG_SHARED_STATIC, regs.shared_static);
  transport_->write_reg(KESTREL_REG_SHARED_DYN, regs.shared_dyn);
  transport_->write_reg(KESTREL_REG_STACK_BYTES, regs.stack_bytes);
  transport_->write_reg(KESTREL_REG_LOCAL_BACKING, regs.local_backing);
  transport_->write_reg(KESTREL_REG_WATCHDOG, regs.watchdog);
  transport_->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_START);
}

RunState Device::state() {
  const uint32_t status = transport_->read_reg(KESTREL_REG_STATUS);
  switch (status) {
    case KESTREL_STATUS_IDLE:
      return RunState::idle;
    case KESTREL_STATUS_RUNNING:
      return RunState::running;
    case KESTREL_STATUS_DONE:
      return RunState::done;
    case KESTREL_STATUS_FAULT:
      return RunState::fault;
    default:
      throw Error(KESTREL_ERROR_IO,
                  "backend '" + transport_->name() + "': STATUS reads unknown value " + hex(status));
  }
}

RunState Device::wait() {
  transport_->wait_idle();
  const RunState now = state();
  if (now == RunState::running)
    throw Error(KESTREL_ERROR_IO, "backend '" + transport_->name() + "': still running after wait_idle");
  return now;
}

bool Device::advance(uint64_t cycles) { return transport_->advance(cycles) && state() == RunState::running; }

void Device::abort() { transport_->write_reg(KESTREL_REG_CONTROL, KESTREL_CTRL_ABORT); }

FaultRecord Device::read_fault() {
  FaultRecord fault;
  fault.kind = static_cast<int32_t>(transport_->read_reg(KESTREL_REG_FAULT_KIND));
  fault.pc = read_reg64(KESTREL_REG_FAULT_PC_LO);
  fault.address = read_reg64(KESTREL_REG_FAULT_ADDR_LO);
  fault.block = {transport_->read_reg(KESTREL_REG_FAULT_BLOCK_X),
                 transport_->read_reg(KESTREL_REG_FAULT_BLOCK_Y),
                 transport_->read_reg(KESTREL_REG_FAULT_BLOCK_Z)};
  fault.thread = {transport_->read_reg(KESTREL_REG_FAULT_THREAD_X),
                  transport_->read_reg(KESTREL_REG_FAULT_THREAD_Y),
                  transport_->read_reg(KESTREL_REG_FAULT_THREAD_Z)};
  fault.sm = transport_->read_reg(KESTREL_REG_FAULT_SM);
  fault.warp = transport_->read_reg(KESTREL_REG_FAULT_WARP);
  fault.info = transport_->read_reg(KESTREL_REG_FAULT_INFO);
  return fault;
}

CounterValues Device::read_counters() {
  CounterValues values{};
  for (uint32_t i = 0; i < values.size(); ++i) values[i] = read_reg64(KESTREL_REG_COUNTERS + 8 * i);
  return values;
}

unsigned Device::sm_counter_sms() const {
  if (info_.version < KESTREL_SM_COUNTERS_VERSION) return 0;
  return std::min<unsigned>(info_.num_sms, KESTREL_SM_COUNTERS_MAX_SMS);
}

std::optional<MemCounterValues> Device::read_mem_counters() {
  if (!info_.mem_counters) return std::nullopt;
  MemCounterValues values{};
  for (uint32_t i = 0; i < KESTREL_MEM_CNT_COUNT; ++i)
    values[i] = read_reg64(KESTREL_REG_MEM_COUNTERS + 8 * i);
  return values;
}

std::vector<SmCounterValues> Device::read_sm_counters() {
  std::vector<SmCounterValues> values(sm_counter_sms());
  for (uint32_t s = 0; s < values.size(); ++s) {
    for (uint32_t j = 0; j < KESTREL_SM_CNT_COUNT; ++j)
      values[s][j] = read_reg64(KESTREL_REG_SM_COUNTERS + KESTREL_SM_COUNTERS_STRIDE * s + 8 * j);
  }
  return values;
}

}  // namespace kestrel::driver
