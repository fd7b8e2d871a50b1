// Memory-side atomic unit bench (kestrel_mem_atomic, 4 requests outstanding):
// random reads, writes and atomics of every op (4 and 8 bytes, global and
// local kinds; CAS with a compare value that matches about half the time;
// kx.amofadd.s against the model's fadd) with random valid/ready on both sides and an in-order external
// memory of random latency.  Checks against a reference that applies every
// request in the order the unit takes it: each response comes back in order
// with its tag; reads return the line as it was; an atomic returns the line
// before it and leaves amo_on_line's word (the C++ reference of
// kestrel_amo_alu) in memory; atomics never reach the external port (a read
// and a write of the line go there instead, only the read for a failed CAS);
// the final memory matches.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include "Vmem_atomic4.h"
#include "amo_ref.hpp"
#include "kestrel/abi.h"
#include "rtl_bench.hpp"
#include "wide_bits.hpp"

namespace {

using kestrel::rtlbench::MemReq;
using kestrel::rtlbench::MemRsp;
using Line = std::array<uint8_t, 64>;
constexpr uint32_t kLines = 8;  // few lines: atomics and plain accesses collide
using Bench = kestrel::rtlbench::Bench<Vmem_atomic4>;

// `lines` is the reference memory as it will be when the request is taken
// (the previous request has been taken): a CAS compares with its word's
// current value half the time.
MemReq random_request(std::mt19937& rng, uint8_t tag, const std::vector<Line>& lines) {
  static const unsigned ops[] = {0x00, 0x01, 0x04, 0x08, 0x0C, 0x10, 0x14,
                                 0x18, 0x1C, 0x05, 0x06, 0x07, 0x09};
  MemReq r;
  r.tag = tag;
  r.addr = KESTREL_GLOBAL_BASE + (rng() % kLines) * 64;
  for (auto& byte : r.wdata) byte = static_cast<uint8_t>(rng() % 4 == 0 ? 0xFF : rng() % 8);
  const unsigned pick = rng() % 3;
  if (pick == 0) {  // an atomic: one aligned word or doubleword
    r.amo = true;
    const bool dword = rng() % 2;
    r.amo_op = ops[rng() % (dword ? 10 : 13)];
    const unsigned off = dword ? 8 * (rng() % 8) : 4 * (rng() % 16);
    r.be = (dword ? 0xFFull : 0xFull) << off;
    r.amo_cmp = uint64_t{rng()} << 32 | rng();
    if (rng() % 2) {
      uint64_t now = 0;
      std::memcpy(&now, lines[(r.addr - KESTREL_GLOBAL_BASE) / 64].data() + off, dword ? 8 : 4);
      r.amo_cmp = now | (uint64_t{rng()} << 32 & (dword ? 0 : ~0ull));  // a word compares bits 31:0 only
    }
    r.kind = rng() % 4 == 0 ? 3 : 1;  // MemLocal or MemWrite
    r.write = true;
  } else {
    r.kind = pick == 1 ? 0 : 1;
    r.write = r.kind == 1;
    r.be = r.write ? (uint64_t{rng()} << 32 | rng()) : 0;
  }
  return r;
}

TEST(MemAtomic, RandomTrafficMatchesInOrderReference) {
  Bench b;
  b.reset();
  std::mt19937 rng(17);
  std::vector<Line> dram(kLines), ref;
  for (auto& line : dram)
    for (auto& byte : line) byte = static_cast<uint8_t>(rng());
  ref = dram;
  struct Expect {
    uint8_t tag;
    Line data;
    bool has_data;
  };
  std::deque<Expect> expected;
  struct InFlight {
    MemRsp rsp;
    uint64_t ready_at;
  };
  std::deque<InFlight> ext_queue;
  bool pending = false;
  MemReq current;
  uint8_t next_tag = 0;
  unsigned issued = 0, answered = 0, atomics = 0, ext_requests = 0, plain = 0, failed_cas = 0, cas = 0;
  constexpr unsigned kRequests = 3000;
  for (uint64_t now = 0; answered < kRequests; ++now) {
    ASSERT_LT(now, 400000u) << "no progress";
    if (!pending && issued < kRequests && rng() % 3 != 0) {
      current = random_request(rng, next_tag++, ref);
      pending = true;
    }
    b->in_req_valid_i = pending;
    kestrel::rtlbench::pack_req(b->in_req_i.data(), 0, current);
    b->in_rsp_ready_i = rng() % 4 != 0;
    b->ext_req_ready_i = rng() % 3 != 0;
    const bool ext_rsp = !ext_queue.empty() && ext_queue.front().ready_at <= now;
    b->ext_rsp_valid_i = ext_rsp;
    if (ext_rsp) kestrel::rtlbench::pack_rsp(b->ext_rsp_i.data(), 0, ext_queue.front().rsp);
    b.eval();
    if (pending && b->in_req_ready_o) {
      // Taken: the reference performs it now.
      Line& line = ref[(current.addr - KESTREL_GLOBAL_BASE) / 64];
      Expect e{current.tag, line, !current.write || current.amo};
      if (current.amo) {
        uint8_t be[8];
        for (unsigned i = 0; i < 8; ++i) be[i] = static_cast<uint8_t>(current.be >> (8 * i));
        const bool wrote =
            kestrel::rtlbench::amo_on_line(current.amo_op, be, current.wdata, line.data(), current.amo_cmp);
        ++atomics;
        if (current.amo_op == 0x05) ++cas;
        if (!wrote) ++failed_cas;
      } else {
        ++plain;
        if (current.write)
          for (unsigned i = 0; i < 64; ++i)
            if ((current.be >> i) & 1u) line[i] = current.wdata[i];
      }
      expected.push_back(e);
      pending = false;
      ++issued;
    }
    if (b->ext_req_valid_o && b->ext_req_ready_i) {
      const MemReq q = kestrel::rtlbench::unpack_req(b->ext_req_o.data(), 0);
      EXPECT_FALSE(q.amo) << "an atomic reached the external port";
      Line& line = dram[(q.addr - KESTREL_GLOBAL_BASE) / 64];
      const bool writes = q.kind == 1 || (q.kind == 3 && q.write);
      if (writes)
        for (unsigned i = 0; i < 64; ++i)
          if ((q.be >> i) & 1u) line[i] = q.wdata[i];
      InFlight f;
      f.rsp.tag = q.tag;
      std::memcpy(f.rsp.rdata, line.data(), 64);
      f.ready_at = now + 1 + rng() % 10;
      if (!ext_queue.empty()) f.ready_at = std::max(f.ready_at, ext_queue.back().ready_at);
      ext_queue.push_back(f);
      ++ext_requests;
    }
    if (ext_rsp && b->ext_rsp_ready_o) ext_queue.pop_front();
    if (b->in_rsp_valid_o && b->in_rsp_ready_i) {
      ASSERT_FALSE(expected.empty()) << "a response without a request";
      const Expect e = expected.front();
      expected.pop_front();
      const MemRsp r = kestrel::rtlbench::unpack_rsp(b->in_rsp_o.data(), 0);
      ASSERT_EQ(r.tag, e.tag) << "out of order";
      ASSERT_EQ(r.fault, unsigned{KESTREL_FAULT_NONE});
      if (e.has_data) {
        ASSERT_EQ(std::memcmp(r.rdata, e.data.data(), 64), 0) << "response " << answered;
      }
      ++answered;
    }
    b.tick();
  }
  EXPECT_GT(atomics, 800u);
  EXPECT_GT(failed_cas, 20u);
  EXPECT_GT(cas - failed_cas, 20u);
  EXPECT_EQ(ext_requests, plain + 2 * atomics - failed_cas)
      << "an atomic is one read and one write of its line, a failed CAS only the read";
  EXPECT_EQ(dram, ref);
}

}  // namespace
