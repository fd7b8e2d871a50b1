// The retire record the RTL would send for a model retire of one register
// write (the checker tests' second model stands in for the RTL).
#pragma once

#include "lockstep.hpp"

namespace kestrel::lockstep {

inline RtlRetire record_of(const model::Retire& m, unsigned lanes) {
  RtlRetire r;
  r.sm = m.sm;
  r.warp_slot = m.warp_slot;
  r.pc = m.pc;
  r.mask = m.mask;
  r.rd_data.assign(lanes, 0);
  for (const model::RegWrite& w : m.writes) {
    r.rd_we = true;
    r.rd = w.reg;
    r.rd_fp = w.fp;
    r.rd_data[w.lane] = w.value;
  }
  return r;
}

}  // namespace kestrel::lockstep
