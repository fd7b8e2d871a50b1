// Bit-field access to Verilator's wide ports (arrays of 32-bit words, LSB
// first) and the benches' C++ form of memory requests and responses, packed
// and unpacked through the layouts generated from tools/contract/contract.toml
// (kestrel_contract.hpp): no bit position is written here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "kestrel_contract.hpp"

namespace kestrel::rtlbench {

using contract::get_bits;
using contract::put_bits;

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

// Through the generated layouts of mem_req_t and mem_rsp_t (tools/contract/).
inline void pack_req(uint32_t* words, unsigned lsb, const MemReq& r) {
  contract::MemReq c;
  c.tag = r.tag;
  std::copy(std::begin(r.wdata), std::end(r.wdata), c.wdata.begin());
  c.be = r.be;
  c.addr = r.addr;
  c.write = r.write;
  c.kind = static_cast<uint8_t>(r.kind);
  c.amo_op = static_cast<uint8_t>(r.amo_op);
  c.amo_valid = r.amo;
  c.amo_cmp = r.amo_cmp;
  c.amo_held = r.amo_held;
  c.amo_lane = static_cast<uint8_t>(r.amo_lane);
  c.amo_warp = static_cast<uint8_t>(r.amo_warp);
  c.amo_sm = static_cast<uint8_t>(r.amo_sm);
  c.pack(words, lsb);
}
inline MemReq unpack_req(const uint32_t* words, unsigned lsb) {
  const contract::MemReq c = contract::MemReq::unpack(words, lsb);
  MemReq r;
  r.tag = c.tag;
  std::copy(c.wdata.begin(), c.wdata.end(), std::begin(r.wdata));
  r.be = c.be;
  r.addr = c.addr;
  r.write = c.write;
  r.kind = c.kind;
  r.amo_op = c.amo_op;
  r.amo = c.amo_valid;
  r.amo_cmp = c.amo_cmp;
  r.amo_held = c.amo_held;
  r.amo_lane = c.amo_lane;
  r.amo_warp = c.amo_warp;
  r.amo_sm = c.amo_sm;
  return r;
}
inline void pack_rsp(uint32_t* words, unsigned lsb, const MemRsp& r) {
  contract::MemRsp c;
  std::copy(std::begin(r.rdata), std::end(r.rdata), c.rdata.begin());
  c.fault = static_cast<uint8_t>(r.fault);
  c.tag = r.tag;
  c.pack(words, lsb);
}
inline MemRsp unpack_rsp(const uint32_t* words, unsigned lsb) {
  const contract::MemRsp c = contract::MemRsp::unpack(words, lsb);
  MemRsp r;
  std::copy(c.rdata.begin(), c.rdata.end(), std::begin(r.rdata));
  r.fault = c.fault;
  r.tag = c.tag;
  return r;
}

}  // namespace kestrel::rtlbench
