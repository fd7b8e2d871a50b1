// The launch-descriptor and page-map registers (host_registers.hpp).
#include "kestrel/model/host_registers.hpp"

namespace kestrel::model {

bool HostRegisters::write(uint32_t offset, uint32_t value) {
  if (is_descriptor(offset)) {
    desc_[(offset - kDescFirst) / 4] = value;
    return true;
  }
  switch (offset) {
    case KESTREL_REG_MAP_ADDR:
      map_addr_ = value;
      return true;
    case KESTREL_REG_MAP_PAGES:
      map_pages_ = value;
      return true;
    case KESTREL_REG_MAP_PERMS:
      map_perms_ = value;
      return true;
    default:
      return false;
  }
}

bool HostRegisters::read(uint32_t offset, uint32_t& value) const {
  if (is_descriptor(offset)) {
    value = desc(offset);
    return true;
  }
  switch (offset) {
    case KESTREL_REG_MAP_ADDR:
      value = map_addr_;
      return true;
    case KESTREL_REG_MAP_PAGES:
      value = map_pages_;
      return true;
    case KESTREL_REG_MAP_PERMS:
      value = map_perms_;
      return true;
    default:
      return false;
  }
}

LaunchDesc HostRegisters::launch() const {
  LaunchDesc d;
  d.entry_pc = desc64(KESTREL_REG_ENTRY_LO);
  d.exit_pc = desc64(KESTREL_REG_EXIT_LO);
  d.gp = desc64(KESTREL_REG_GP_LO);
  d.param_addr = desc64(KESTREL_REG_PARAM_LO);
  d.grid = Dim3{desc(KESTREL_REG_GRID_X), desc(KESTREL_REG_GRID_Y), desc(KESTREL_REG_GRID_Z)};
  d.block = Dim3{desc(KESTREL_REG_BLOCK_X), desc(KESTREL_REG_BLOCK_Y), desc(KESTREL_REG_BLOCK_Z)};
  d.shared_base = desc(KESTREL_REG_SHARED_BASE);
  d.shared_static = desc(KESTREL_REG_SHARED_STATIC);
  d.shared_dyn = desc(KESTREL_REG_SHARED_DYN);
  d.stack_bytes = desc(KESTREL_REG_STACK_BYTES);
  d.local_backing = desc(KESTREL_REG_LOCAL_BACKING);
  d.cycle_budget = uint64_t{watchdog()} << 20;
  return d;
}

}  // namespace kestrel::model
