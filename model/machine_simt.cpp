// Warp-synchronous instructions and collectives (docs/isa.md section 6.1;
// machine.hpp).
#include "machine.hpp"

namespace kestrel::model::interp {

// Lanes at the collective's PC whose membermask class has converged: every
// non-exited lane of the mask is at this PC holding the same mask.  `arriving`
// are the lanes issuing now; lanes parked here earlier join them.  A lane
// outside its own mask is an illegal instruction (CUDA leaves it undefined).
template <class X>
bool Machine<X>::converged_lanes(uint32_t sm_id, Warp& w, const Inst& in, uint32_t gi, uint64_t pc,
                                 uint32_t arriving, uint32_t& ready) {
  const X* masks = mask_row(w, in);
  for (uint32_t m = arriving; m != 0; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    if (((static_cast<uint32_t>(masks[l]) >> l) & 1) == 0) {
      raise(KESTREL_FAULT_ILLEGAL_INSTRUCTION, sm_id, w, l, pc, 0, in.raw);
      return false;
    }
  }
  const uint32_t here = arriving | (w.groups[gi].mask & w.held & ~w.syncwarp_waiting);
  ready = 0;
  for (uint32_t pending = here; pending != 0;) {
    const uint32_t first = static_cast<uint32_t>(__builtin_ctz(pending));
    const uint32_t member_mask = static_cast<uint32_t>(masks[first]) & lane_bits_;
    uint32_t same = 0;
    for_each_lane(pending, [&](uint32_t l) {
      if ((static_cast<uint32_t>(masks[l]) & lane_bits_) == member_mask) same |= 1u << l;
    });
    pending &= ~same;
    if ((member_mask & w.live & ~same) == 0) ready |= same;
  }
  return true;
}

// Releases every class of kx.syncwarp waiters whose mask's non-exited lanes
// all wait at a kx.syncwarp (any one) with the same mask.
template <class X>
void Machine<X>::release_syncwarps(Warp& w, Block& b) {
  uint32_t released = 0;
  for (uint32_t pending = w.syncwarp_waiting; pending != 0;) {
    const uint32_t member_mask = w.sync_mask[static_cast<uint32_t>(__builtin_ctz(pending))];
    uint32_t same = 0;
    for_each_lane(pending, [&](uint32_t l) {
      if (w.sync_mask[l] == member_mask) same |= 1u << l;
    });
    pending &= ~same;
    if ((member_mask & w.live & ~same) == 0) released |= same;
  }
  unhold(w, b, released);
}

// A thread's exit may complete a membermask: parked lanes try again (they
// re-park at once if their mask still waits), syncwarp waiters are rechecked.
template <class X>
void Machine<X>::recheck_after_exit(Warp& w, Block& b) {
  unhold(w, b, w.held & ~w.syncwarp_waiting);
  release_syncwarps(w, b);
}

// Executes a converged collective for `lanes`: each lane's participants are
// the non-exited lanes of its membermask, all of which are among `lanes`.
template <class X>
void Machine<X>::exec_collective(Warp& w, const Inst& in, uint32_t lanes) {
  const X* s1 = xrow(w, in.rs1);
  const X* masks = mask_row(w, in);
  X result[32];
  switch (in.op) {
    case Op::kVote: {
      uint32_t true_lanes = 0;
      for_each_lane(lanes, [&](uint32_t l) { true_lanes |= static_cast<uint32_t>(s1[l] != 0) << l; });
      for_each_lane(lanes, [&](uint32_t l) {
        const uint32_t members = static_cast<uint32_t>(masks[l]) & w.live;
        const uint32_t ballot = true_lanes & members;
        switch (in.aux) {
          case KESTREL_F7_VOTE_ALL:
            result[l] = ballot == members;
            break;
          case KESTREL_F7_VOTE_ANY:
            result[l] = ballot != 0;
            break;
          case KESTREL_F7_VOTE_UNI:
            result[l] = ballot == 0 || ballot == members;
            break;
          default:
            result[l] = sext_word(ballot);
            break;
        }
      });
      break;
    }
    case Op::kShuffle: {
      const X* control = xrow(w, in.rs2);
      for_each_lane(lanes, [&](uint32_t l) {
        result[l] = s1[shuffle_source(in.aux, l, static_cast<uint32_t>(control[l]))];
      });
      break;
    }
    case Op::kMatch: {
      const bool word = in.aux == KESTREL_F7_MATCH_ANY_W || in.aux == KESTREL_F7_MATCH_ALL_W;
      const bool all = in.aux == KESTREL_F7_MATCH_ALL_W || in.aux == KESTREL_F7_MATCH_ALL;
      auto key = [&](uint32_t l) { return word ? X{static_cast<uint32_t>(s1[l])} : s1[l]; };
      for_each_lane(lanes, [&](uint32_t l) {
        const uint32_t members = static_cast<uint32_t>(masks[l]) & w.live;
        uint32_t equal = 0;
        for_each_lane(members, [&](uint32_t k) { equal |= static_cast<uint32_t>(key(k) == key(l)) << k; });
        if (all) {
          result[l] = equal == members ? sext_word(members) : X{0};
        } else {
          result[l] = sext_word(equal);
        }
      });
      break;
    }
    default: {  // kReduce
      for_each_lane(lanes, [&](uint32_t l) {
        const uint32_t members = static_cast<uint32_t>(masks[l]) & w.live;
        const uint32_t first = static_cast<uint32_t>(__builtin_ctz(members));
        uint32_t acc = static_cast<uint32_t>(s1[first]);
        for_each_lane(members & (members - 1),
                      [&](uint32_t k) { acc = reduce_step(in.aux, acc, static_cast<uint32_t>(s1[k])); });
        result[l] = sext_word(acc);
      });
      break;
    }
  }
  X* d = xrow(w, in.rd);
  for_each_lane(lanes, [&](uint32_t l) { d[l] = result[l]; });
}

template <class X>
uint32_t Machine<X>::reduce_step(uint8_t op, uint32_t a, uint32_t b) {
  switch (op) {
    case KESTREL_F7_REDUCE_ADD:
      return a + b;
    case KESTREL_F7_REDUCE_MIN:
      return static_cast<int32_t>(b) < static_cast<int32_t>(a) ? b : a;
    case KESTREL_F7_REDUCE_MAX:
      return static_cast<int32_t>(b) > static_cast<int32_t>(a) ? b : a;
    case KESTREL_F7_REDUCE_MINU:
      return b < a ? b : a;
    case KESTREL_F7_REDUCE_MAXU:
      return b > a ? b : a;
    case KESTREL_F7_REDUCE_AND:
      return a & b;
    case KESTREL_F7_REDUCE_OR:
      return a | b;
    default:
      return a ^ b;  // KESTREL_F7_REDUCE_XOR
  }
}

// The lane a shuffle reads for `lane` (PTX shfl.sync's rule): control bits
// 4..0 are the lane, delta or xor mask, bits 12..8 the segment mask
// (32 - width); a source outside the lane's segment, or beyond the warp,
// leaves the lane its own value.
template <class X>
uint32_t Machine<X>::shuffle_source(uint8_t mode, uint32_t lane, uint32_t control) const {
  const int32_t b = static_cast<int32_t>(control & KESTREL_SHFL_LANE_MASK);
  const int32_t segment = static_cast<int32_t>((control >> KESTREL_SHFL_SEG_SHIFT) & 0x1F);
  const int32_t clamp = mode == KESTREL_SHFL_UP ? 0 : 0x1F;
  const int32_t self = static_cast<int32_t>(lane);
  const int32_t max_lane = (self & segment) | (clamp & ~segment);
  const int32_t min_lane = self & segment;
  int32_t source;
  bool in_range;
  switch (mode) {
    case KESTREL_SHFL_UP:
      source = self - b;
      in_range = source >= max_lane;
      break;
    case KESTREL_SHFL_DOWN:
      source = self + b;
      in_range = source <= max_lane;
      break;
    case KESTREL_SHFL_XOR:
      source = self ^ b;
      in_range = source <= max_lane;
      break;
    default:  // KESTREL_SHFL_IDX
      source = min_lane | (b & ~segment);
      in_range = source <= max_lane;
      break;
  }
  if (!in_range || source < 0 || source >= static_cast<int32_t>(lanes_)) return lane;
  return static_cast<uint32_t>(source);
}

// The register widths make_engine builds.
template bool Machine<uint32_t>::converged_lanes(uint32_t sm_id, Warp& w, const Inst& in, uint32_t gi,
                                                 uint64_t pc, uint32_t arriving, uint32_t& ready);
template void Machine<uint32_t>::release_syncwarps(Warp& w, Block& b);
template void Machine<uint32_t>::recheck_after_exit(Warp& w, Block& b);
template void Machine<uint32_t>::exec_collective(Warp& w, const Inst& in, uint32_t lanes);
template uint32_t Machine<uint32_t>::reduce_step(uint8_t op, uint32_t a, uint32_t b);
template uint32_t Machine<uint32_t>::shuffle_source(uint8_t mode, uint32_t lane, uint32_t control) const;
template bool Machine<uint64_t>::converged_lanes(uint32_t sm_id, Warp& w, const Inst& in, uint32_t gi,
                                                 uint64_t pc, uint32_t arriving, uint32_t& ready);
template void Machine<uint64_t>::release_syncwarps(Warp& w, Block& b);
template void Machine<uint64_t>::recheck_after_exit(Warp& w, Block& b);
template void Machine<uint64_t>::exec_collective(Warp& w, const Inst& in, uint32_t lanes);
template uint32_t Machine<uint64_t>::reduce_step(uint8_t op, uint32_t a, uint32_t b);
template uint32_t Machine<uint64_t>::shuffle_source(uint8_t mode, uint32_t lane, uint32_t control) const;

}  // namespace kestrel::model::interp
