// Floating point (machine.hpp).
#include "machine.hpp"

namespace kestrel::model::interp {

// Resolves the rounding mode of each lane; an invalid mode (reserved static
// values are rejected by the decoder, frm may hold 5..7) is illegal.
template <class X>
template <class Fn>
bool Machine<X>::fp_lanes(uint32_t sm_id, Warp& w, const Inst& in, uint64_t pc, uint32_t mask, Fn&& fn) {
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    const unsigned rm = in.rm == kDynamicRm ? w.frm[l] : in.rm;
    if (rm > fp::kRmm) {
      raise(KESTREL_FAULT_ILLEGAL_INSTRUCTION, sm_id, w, l, pc, 0, in.raw);
      return false;
    }
    uint32_t flags = 0;
    fn(l, rm, flags);
    w.fflags[l] |= static_cast<uint8_t>(flags);
  }
  return true;
}

template <class X>
bool Machine<X>::exec_fp(uint32_t sm_id, Warp& w, const Inst& in, uint64_t pc, uint32_t mask) {
  uint32_t* fd = frow(w, in.rd);
  const uint32_t* a = frow(w, in.rs1);
  const uint32_t* b = frow(w, in.rs2);
  const uint32_t* c = frow(w, in.rs3);
  X* xd = xrow(w, in.rd);
  const X* xs = xrow(w, in.rs1);
  auto sext32 = [](uint32_t v) { return static_cast<X>(static_cast<SX>(static_cast<int32_t>(v))); };
  switch (in.op) {
    case Op::kSfu:  // no rounding mode, no fflags
      for_each_lane(mask, [&](uint32_t l) { fd[l] = sfu::evaluate(in.aux, a[l]); });
      return true;
    case Op::kFadd:
      return fp_lanes(sm_id, w, in, pc, mask,
                      [&](uint32_t l, unsigned rm, uint32_t& f) { fd[l] = fp::add(a[l], b[l], rm, f); });
    case Op::kFsub:
      return fp_lanes(sm_id, w, in, pc, mask,
                      [&](uint32_t l, unsigned rm, uint32_t& f) { fd[l] = fp::sub(a[l], b[l], rm, f); });
    case Op::kFmul:
      return fp_lanes(sm_id, w, in, pc, mask,
                      [&](uint32_t l, unsigned rm, uint32_t& f) { fd[l] = fp::mul(a[l], b[l], rm, f); });
    case Op::kFdiv:
      return fp_lanes(sm_id, w, in, pc, mask,
                      [&](uint32_t l, unsigned rm, uint32_t& f) { fd[l] = fp::div(a[l], b[l], rm, f); });
    case Op::kFsqrt:
      return fp_lanes(sm_id, w, in, pc, mask,
                      [&](uint32_t l, unsigned rm, uint32_t& f) { fd[l] = fp::sqrt(a[l], rm, f); });
    case Op::kFmadd:
    case Op::kFmsub:
    case Op::kFnmsub:
    case Op::kFnmadd: {
      const bool negate_product = in.op == Op::kFnmsub || in.op == Op::kFnmadd;
      const bool negate_addend = in.op == Op::kFmsub || in.op == Op::kFnmadd;
      return fp_lanes(sm_id, w, in, pc, mask, [&](uint32_t l, unsigned rm, uint32_t& f) {
        fd[l] = fp::fma(a[l], b[l], c[l], negate_product, negate_addend, rm, f);
      });
    }
    case Op::kFcvtWS:
    case Op::kFcvtWuS:
    case Op::kFcvtLS:
    case Op::kFcvtLuS: {
      const unsigned bits = (in.op == Op::kFcvtLS || in.op == Op::kFcvtLuS) ? 64 : 32;
      const bool is_signed = in.op == Op::kFcvtWS || in.op == Op::kFcvtLS;
      return fp_lanes(sm_id, w, in, pc, mask, [&](uint32_t l, unsigned rm, uint32_t& f) {
        xd[l] = static_cast<X>(fp::to_int(a[l], bits, is_signed, rm, f));
      });
    }
    case Op::kFcvtSW:
    case Op::kFcvtSWu:
    case Op::kFcvtSL:
    case Op::kFcvtSLu: {
      return fp_lanes(sm_id, w, in, pc, mask, [&](uint32_t l, unsigned rm, uint32_t& f) {
        const uint64_t v = static_cast<uint64_t>(xs[l]);
        uint64_t value = v;
        bool is_signed = true;
        switch (in.op) {
          case Op::kFcvtSW:
            value = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
            break;
          case Op::kFcvtSWu:
            value = v & 0xFFFFFFFFu;
            is_signed = false;
            break;
          case Op::kFcvtSLu:
            is_signed = false;
            break;
          default:
            break;
        }
        fd[l] = fp::from_int(value, is_signed, rm, f);
      });
    }
    default:
      break;
  }
  // Operations without rounding.
  for_each_lane(mask, [&](uint32_t l) {
    uint32_t flags = 0;
    switch (in.op) {
      case Op::kFsgnj:
        fd[l] = (a[l] & 0x7FFFFFFFu) | (b[l] & 0x80000000u);
        break;
      case Op::kFsgnjn:
        fd[l] = (a[l] & 0x7FFFFFFFu) | (~b[l] & 0x80000000u);
        break;
      case Op::kFsgnjx:
        fd[l] = a[l] ^ (b[l] & 0x80000000u);
        break;
      case Op::kFmin:
        fd[l] = fp::min(a[l], b[l], flags);
        break;
      case Op::kFmax:
        fd[l] = fp::max(a[l], b[l], flags);
        break;
      case Op::kFeq:
        xd[l] = fp::eq(a[l], b[l], flags);
        break;
      case Op::kFlt:
        xd[l] = fp::lt(a[l], b[l], flags);
        break;
      case Op::kFle:
        xd[l] = fp::le(a[l], b[l], flags);
        break;
      case Op::kFclass:
        xd[l] = fp::classify(a[l]);
        break;
      case Op::kFmvXW:
        xd[l] = sext32(a[l]);
        break;
      default:
        fd[l] = static_cast<uint32_t>(xs[l]);
        break;  // kFmvWX
    }
    w.fflags[l] |= static_cast<uint8_t>(flags);
  });
  return true;
}

// The register widths make_engine builds.
template bool Machine<uint32_t>::exec_fp(uint32_t sm_id, Warp& w, const Inst& in, uint64_t pc, uint32_t mask);
template bool Machine<uint64_t>::exec_fp(uint32_t sm_id, Warp& w, const Inst& in, uint64_t pc, uint32_t mask);

}  // namespace kestrel::model::interp
