// Bit-field access to Verilator's wide ports (arrays of 32-bit words, LSB
// first) so that benches can pack and unpack kestrel_pkg structs by bit
// position.
#pragma once

#include <cstdint>

namespace kestrel::rtlbench {

inline void put_bits(uint32_t* words, unsigned lsb, unsigned width, uint64_t value) {
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = lsb + i;
    const uint32_t mask = 1u << (bit % 32);
    if ((value >> i) & 1u) {
      words[bit / 32] |= mask;
    } else {
      words[bit / 32] &= ~mask;
    }
  }
}

inline uint64_t get_bits(const uint32_t* words, unsigned lsb, unsigned width) {
  uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = lsb + i;
    value |= uint64_t{(words[bit / 32] >> (bit % 32)) & 1u} << i;
  }
  return value;
}

// Field positions of kestrel_pkg::mem_req_t (714 bits) and mem_rsp_t (524 bits).
struct MemReqLayout {
  static constexpr unsigned kTag = 0, kWdata = 8, kBe = 520, kAddr = 584, kWrite = 616, kKind = 617,
                            kAmoOp = 619, kAmoValid = 624, kAmoCmp = 625, kAmoHeld = 689, kAmoLane = 690,
                            kAmoWarp = 698, kAmoSm = 706;
  static constexpr unsigned kBits = 714;
};
struct MemRspLayout {
  static constexpr unsigned kTag = 0, kFault = 8, kRdata = 12;
  static constexpr unsigned kBits = 524;
};

// A line-sized memory request or response in C++ form.
struct MemReq {
  unsigned kind = 0;  // kestrel_pkg::mem_kind_e
  bool write = false;
  uint32_t addr = 0;
  uint64_t be = 0;
  uint8_t wdata[64] = {};
  uint8_t tag = 0;
  bool amo = false;  // an atomic (mem_amo_t): op is its funct5
  unsigned amo_op = 0;
  uint64_t amo_cmp = 0;   // a CAS's compare value
  bool amo_held = false;  // LR/SC: the thread and an SC's `held`
  unsigned amo_lane = 0, amo_warp = 0, amo_sm = 0;
};
struct MemRsp {
  uint8_t rdata[64] = {};
  unsigned fault = 0;
  uint8_t tag = 0;
};

inline void pack_req(uint32_t* words, unsigned lsb, const MemReq& r) {
  put_bits(words, lsb + MemReqLayout::kTag, 8, r.tag);
  for (unsigned b = 0; b < 64; ++b) put_bits(words, lsb + MemReqLayout::kWdata + 8 * b, 8, r.wdata[b]);
  put_bits(words, lsb + MemReqLayout::kBe, 64, r.be);
  put_bits(words, lsb + MemReqLayout::kAddr, 32, r.addr);
  put_bits(words, lsb + MemReqLayout::kWrite, 1, r.write);
  put_bits(words, lsb + MemReqLayout::kKind, 2, r.kind);
  put_bits(words, lsb + MemReqLayout::kAmoOp, 5, r.amo_op);
  put_bits(words, lsb + MemReqLayout::kAmoValid, 1, r.amo);
  put_bits(words, lsb + MemReqLayout::kAmoCmp, 64, r.amo_cmp);
  put_bits(words, lsb + MemReqLayout::kAmoHeld, 1, r.amo_held);
  put_bits(words, lsb + MemReqLayout::kAmoLane, 8, r.amo_lane);
  put_bits(words, lsb + MemReqLayout::kAmoWarp, 8, r.amo_warp);
  put_bits(words, lsb + MemReqLayout::kAmoSm, 8, r.amo_sm);
}
inline MemReq unpack_req(const uint32_t* words, unsigned lsb) {
  MemReq r;
  r.tag = static_cast<uint8_t>(get_bits(words, lsb + MemReqLayout::kTag, 8));
  for (unsigned b = 0; b < 64; ++b)
    r.wdata[b] = static_cast<uint8_t>(get_bits(words, lsb + MemReqLayout::kWdata + 8 * b, 8));
  r.be = get_bits(words, lsb + MemReqLayout::kBe, 64);
  r.addr = static_cast<uint32_t>(get_bits(words, lsb + MemReqLayout::kAddr, 32));
  r.write = get_bits(words, lsb + MemReqLayout::kWrite, 1) != 0;
  r.kind = static_cast<unsigned>(get_bits(words, lsb + MemReqLayout::kKind, 2));
  r.amo_op = static_cast<unsigned>(get_bits(words, lsb + MemReqLayout::kAmoOp, 5));
  r.amo = get_bits(words, lsb + MemReqLayout::kAmoValid, 1) != 0;
  r.amo_cmp = get_bits(words, lsb + MemReqLayout::kAmoCmp, 64);
  r.amo_held = get_bits(words, lsb + MemReqLayout::kAmoHeld, 1) != 0;
  r.amo_lane = static_cast<unsigned>(get_bits(words, lsb + MemReqLayout::kAmoLane, 8));
  r.amo_warp = static_cast<unsigned>(get_bits(words, lsb + MemReqLayout::kAmoWarp, 8));
  r.amo_sm = static_cast<unsigned>(get_bits(words, lsb + MemReqLayout::kAmoSm, 8));
  return r;
}
inline void pack_rsp(uint32_t* words, unsigned lsb, const MemRsp& r) {
  put_bits(words, lsb + MemRspLayout::kTag, 8, r.tag);
  put_bits(words, lsb + MemRspLayout::kFault, 4, r.fault);
  for (unsigned b = 0; b < 64; ++b) put_bits(words, lsb + MemRspLayout::kRdata + 8 * b, 8, r.rdata[b]);
}
inline MemRsp unpack_rsp(const uint32_t* words, unsigned lsb) {
  MemRsp r;
  r.tag = static_cast<uint8_t>(get_bits(words, lsb + MemRspLayout::kTag, 8));
  r.fault = static_cast<unsigned>(get_bits(words, lsb + MemRspLayout::kFault, 4));
  for (unsigned b = 0; b < 64; ++b)
    r.rdata[b] = static_cast<uint8_t>(get_bits(words, lsb + MemRspLayout::kRdata + 8 * b, 8));
  return r;
}

}  // namespace kestrel::rtlbench
