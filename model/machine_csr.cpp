// CSRs (docs/isa.md; machine.hpp).
#include "machine.hpp"

namespace kestrel::model::interp {

template <class X>
bool Machine<X>::csr_exists(uint32_t csr) {
  switch (csr) {
    case kCsrFflags:
    case kCsrFrm:
    case kCsrFcsr:
    case kCsrCycle:
    case kCsrTime:
    case kCsrInstret:
      return true;
    case kCsrCycleH:
    case kCsrTimeH:
    case kCsrInstretH:
      return kXlen == 32;
    default:
      return csr >= KESTREL_CSR_TID_X && csr <= KESTREL_CSR_DYN_SHARED;
  }
}

template <class X>
uint64_t Machine<X>::csr_read(uint32_t sm_id, const Warp& w, const Block& b, uint32_t lane, uint32_t csr,
                              uint32_t mask) const {
  const uint32_t t = w.warp_in_block * lanes_ + lane;
  const uint64_t instret = w.instret[lane] + w.uniform_instret - 1;  // this instruction is already counted
  const uint64_t cycle = sms_[sm_id].cycles - 1;
  switch (csr) {
    case kCsrFflags:
      return w.fflags[lane];
    case kCsrFrm:
      return w.frm[lane];
    case kCsrFcsr:
      return (uint32_t{w.frm[lane]} << 5) | w.fflags[lane];
    case kCsrCycle:
    case kCsrTime:
      return cycle;
    case kCsrInstret:
      return instret;
    case kCsrCycleH:
    case kCsrTimeH:
      return cycle >> 32;
    case kCsrInstretH:
      return instret >> 32;
    case KESTREL_CSR_TID_X:
      return t % desc_.block.x;
    case KESTREL_CSR_TID_Y:
      return (t / desc_.block.x) % desc_.block.y;
    case KESTREL_CSR_TID_Z:
      return t / (desc_.block.x * desc_.block.y);
    case KESTREL_CSR_CTAID_X:
      return b.id.x;
    case KESTREL_CSR_CTAID_Y:
      return b.id.y;
    case KESTREL_CSR_CTAID_Z:
      return b.id.z;
    case KESTREL_CSR_NTID_X:
      return desc_.block.x;
    case KESTREL_CSR_NTID_Y:
      return desc_.block.y;
    case KESTREL_CSR_NTID_Z:
      return desc_.block.z;
    case KESTREL_CSR_NCTAID_X:
      return desc_.grid.x;
    case KESTREL_CSR_NCTAID_Y:
      return desc_.grid.y;
    case KESTREL_CSR_NCTAID_Z:
      return desc_.grid.z;
    case KESTREL_CSR_LANEID:
      return lane;
    case KESTREL_CSR_WARPID:
      return w.warp_in_block;
    case KESTREL_CSR_SMID:
      return sm_id;
    case KESTREL_CSR_WARPSIZE:
      return lanes_;
    case KESTREL_CSR_ACTIVEMASK:
      return mask;
    case KESTREL_CSR_SHARED_BASE:
      return desc_.shared_base;
    case KESTREL_CSR_SHARED_SIZE:
      return shared_size_;
    default:
      return uint64_t{desc_.shared_base} + desc_.shared_static;  // KESTREL_CSR_DYN_SHARED
  }
}

template <class X>
void Machine<X>::csr_write(Warp& w, uint32_t lane, uint32_t csr, uint64_t value) {
  switch (csr) {
    case kCsrFflags:
      w.fflags[lane] = value & 0x1F;
      break;
    case kCsrFrm:
      w.frm[lane] = value & 7;
      break;
    default:
      w.fflags[lane] = value & 0x1F;
      w.frm[lane] = (value >> 5) & 7;
      break;
  }
}

template <class X>
bool Machine<X>::exec_csr(uint32_t sm_id, Warp& w, Block& b, const Inst& in, uint64_t pc, uint32_t mask) {
  const uint32_t csr = static_cast<uint32_t>(in.imm);
  const bool immediate = in.op == Op::kCsrrwi || in.op == Op::kCsrrsi || in.op == Op::kCsrrci;
  const bool writes = in.op == Op::kCsrrw || in.op == Op::kCsrrwi || in.rs1 != 0;
  if (!csr_exists(csr) || (writes && !csr_writable(csr))) {
    raise(KESTREL_FAULT_ILLEGAL_INSTRUCTION, sm_id, w, static_cast<uint32_t>(__builtin_ctz(mask)), pc, 0,
          in.raw);
    return false;
  }
  X* d = xrow(w, in.rd);
  const X* s = xrow(w, in.rs1);
  for_each_lane(mask, [&](uint32_t l) {
    const uint64_t operand = immediate ? in.rs1 : static_cast<uint64_t>(s[l]);
    const uint64_t old = csr_read(sm_id, w, b, l, csr, mask);
    d[l] = static_cast<X>(old);
    if (!writes) return;
    switch (in.op) {
      case Op::kCsrrw:
      case Op::kCsrrwi:
        csr_write(w, l, csr, operand);
        break;
      case Op::kCsrrs:
      case Op::kCsrrsi:
        csr_write(w, l, csr, old | operand);
        break;
      default:
        csr_write(w, l, csr, old & ~operand);
        break;
    }
  });
  return true;
}

// The register widths make_engine builds.
template bool Machine<uint32_t>::csr_exists(uint32_t csr);
template uint64_t Machine<uint32_t>::csr_read(uint32_t sm_id, const Warp& w, const Block& b, uint32_t lane,
                                              uint32_t csr, uint32_t mask) const;
template void Machine<uint32_t>::csr_write(Warp& w, uint32_t lane, uint32_t csr, uint64_t value);
template bool Machine<uint32_t>::exec_csr(uint32_t sm_id, Warp& w, Block& b, const Inst& in, uint64_t pc,
                                          uint32_t mask);
template bool Machine<uint64_t>::csr_exists(uint32_t csr);
template uint64_t Machine<uint64_t>::csr_read(uint32_t sm_id, const Warp& w, const Block& b, uint32_t lane,
                                              uint32_t csr, uint32_t mask) const;
template void Machine<uint64_t>::csr_write(Warp& w, uint32_t lane, uint32_t csr, uint64_t value);
template bool Machine<uint64_t>::exec_csr(uint32_t sm_id, Warp& w, Block& b, const Inst& in, uint64_t pc,
                                          uint32_t mask);

}  // namespace kestrel::model::interp
