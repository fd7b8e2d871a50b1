// Memory crossbar bench (3 SMs, 4 requests outstanding): random reads and
// writes from every SM with random valid/ready on all sides, an in-order
// external memory of random latency, and a page check that fails some pages.
// Checks: each SM gets exactly one response per request, in its request
// order, with its tag; read data equals the reference memory; failed checks
// never reach the external port and come back with their fault kind; every
// SM is served (round-robin); the request counter pulses once per request.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include "Vmem_xbar3.h"
#include "kestrel/abi.h"
#include "rtl_test.hpp"
#include "wide_bits.hpp"

namespace {

using kestrel::rtlbench::MemReq;
namespace mem_req = kestrel::contract::mem_req;
using kestrel::rtlbench::MemRsp;
namespace mem_rsp = kestrel::contract::mem_rsp;

constexpr unsigned kSms = 3;
constexpr uint32_t kLines = 64;  // external memory: 64 lines from KESTREL_GLOBAL_BASE
using Bench = kestrel::rtlbench::Bench<Vmem_xbar3>;

// The bench's page rule: odd pages (in 1 KiB units, to mix them within the
// 4 KiB range used) fail reads with ILLEGAL_ADDRESS and writes with
// WRITE_PROTECT.
unsigned check_rule(unsigned kind, uint32_t addr) {
  if (((addr >> 10) & 1u) == 0) return KESTREL_FAULT_NONE;
  return kind == kestrel::contract::kMemWrite ? KESTREL_FAULT_WRITE_PROTECT : KESTREL_FAULT_ILLEGAL_ADDRESS;
}

// The page table's read-only answer (kestrel_page_table chk_readonly_o):
// whatever the kind, it travels with the response of a request that passed.
bool readonly_rule(uint32_t addr) { return ((addr >> 6) % 3) == 1; }

struct Expect {
  uint8_t tag;
  unsigned fault;
  std::array<uint8_t, 64> data;  // reads: the line at the time the request passed
  bool read;
  bool readonly;
};

TEST(MemXbar, RandomTrafficInOrderPerSm) {
  Bench b;
  b.reset();
  std::mt19937 rng(5);
  std::vector<std::array<uint8_t, 64>> dram(kLines);
  for (auto& line : dram)
    for (auto& byte : line) byte = static_cast<uint8_t>(rng());
  std::vector<std::array<uint8_t, 64>> ref = dram;

  std::array<std::deque<Expect>, kSms> expected;
  std::array<bool, kSms> pending{};
  std::array<MemReq, kSms> current{};
  std::array<uint8_t, kSms> next_tag{};
  std::array<unsigned, kSms> served{}, answered{};
  struct InFlight {
    MemReq req;
    uint64_t ready_at;
  };
  std::deque<InFlight> ext_queue;
  unsigned ext_requests = 0, local_faults = 0, taken_pulses = 0, issued = 0, readonly_answers = 0, snoops = 0;
  uint64_t now = 0;
  constexpr unsigned kPerSm = 400;

  while ((answered[0] + answered[1] + answered[2]) < kSms * kPerSm) {
    ASSERT_LT(now, 200000u) << "no progress";
    // SM request side: a new request is made only after the last was taken,
    // and stays stable until then.
    for (unsigned s = 0; s < kSms; ++s) {
      if (!pending[s] && served[s] < kPerSm && rng() % 3 != 0) {
        MemReq r;
        r.kind = rng() % 2 ? kestrel::contract::kMemWrite : kestrel::contract::kMemRead;
        r.write = r.kind == kestrel::contract::kMemWrite;
        r.addr = KESTREL_GLOBAL_BASE + (rng() % kLines) * 64;
        r.be = (uint64_t{rng()} << 32) | rng();
        for (auto& byte : r.wdata) byte = static_cast<uint8_t>(rng());
        r.tag = next_tag[s]++;
        current[s] = r;
        pending[s] = true;
      }
    }
    uint32_t valid = 0;
    for (unsigned s = 0; s < kSms; ++s) {
      if (pending[s]) valid |= 1u << s;
      kestrel::rtlbench::pack_req(b->sm_req_i.data(), s * mem_req::kBits, current[s]);
    }
    b->sm_req_valid_i = valid;
    uint32_t rsp_ready = 0;
    for (unsigned s = 0; s < kSms; ++s)
      if (rng() % 4 != 0) rsp_ready |= 1u << s;
    b->sm_rsp_ready_i = rsp_ready;
    b->ext_req_ready_i = rng() % 3 != 0;
    const bool ext_rsp = !ext_queue.empty() && ext_queue.front().ready_at <= now;
    b->ext_rsp_valid_i = ext_rsp;
    if (ext_rsp) {
      const MemReq& q = ext_queue.front().req;
      MemRsp r;
      r.tag = q.tag;
      r.fault = KESTREL_FAULT_NONE;
      std::memcpy(r.rdata, dram[(q.addr - KESTREL_GLOBAL_BASE) / 64].data(), 64);
      kestrel::rtlbench::pack_rsp(b->ext_rsp_i.data(), 0, r);
    }
    b.eval();
    // The page check answers combinationally from the chosen request.
    b->chk_fault_i = check_rule(b->chk_kind_o, b->chk_addr_o);
    b->chk_readonly_i = readonly_rule(b->chk_addr_o);
    b.eval();

    // Sample handshakes before the edge.
    const uint32_t req_ready = b->sm_req_ready_o;
    EXPECT_EQ(__builtin_popcount(req_ready), b->req_taken_o ? 1 : 0);
    if (b->req_taken_o) ++taken_pulses;
    for (unsigned s = 0; s < kSms; ++s) {
      if (!((req_ready >> s) & 1u)) continue;
      ASSERT_TRUE(pending[s]);
      const MemReq& r = current[s];
      Expect e;
      e.tag = r.tag;
      e.fault = check_rule(r.kind, r.addr);
      e.read = !r.write;
      e.readonly = readonly_rule(r.addr) && e.fault == KESTREL_FAULT_NONE;
      auto& line = ref[(r.addr - KESTREL_GLOBAL_BASE) / 64];
      std::memcpy(e.data.data(), line.data(), 64);
      if (e.fault == KESTREL_FAULT_NONE && r.write) {
        for (unsigned i = 0; i < 64; ++i)
          if ((r.be >> i) & 1u) line[i] = r.wdata[i];
      }
      if (e.fault != KESTREL_FAULT_NONE) ++local_faults;
      expected[s].push_back(e);
      pending[s] = false;
      ++served[s];
      ++issued;
    }
    // A write leaving for memory is announced to the SMs' L1 caches, in the
    // cycle it leaves; nothing else is.
    const bool leaves = b->ext_req_valid_o && b->ext_req_ready_i;
    const bool leaves_write = leaves && kestrel::rtlbench::unpack_req(b->ext_req_o.data(), 0).write;
    EXPECT_EQ(b->snoop_valid_o != 0, leaves_write);
    if (leaves_write) {
      EXPECT_EQ(b->snoop_line_o, kestrel::rtlbench::unpack_req(b->ext_req_o.data(), 0).addr >> 6);
      ++snoops;
    }
    if (b->ext_req_valid_o && b->ext_req_ready_i) {
      const MemReq r = kestrel::rtlbench::unpack_req(b->ext_req_o.data(), 0);
      EXPECT_EQ(check_rule(r.kind, r.addr), unsigned{KESTREL_FAULT_NONE}) << "a failed check left the GPU";
      ext_queue.push_back({r, now + 1 + rng() % 12});
      ++ext_requests;
    }
    if (ext_rsp && b->ext_rsp_ready_o) {
      const MemReq q = ext_queue.front().req;
      if (q.write) {
        auto& line = dram[(q.addr - KESTREL_GLOBAL_BASE) / 64];
        for (unsigned i = 0; i < 64; ++i)
          if ((q.be >> i) & 1u) line[i] = q.wdata[i];
      }
      ext_queue.pop_front();
    }
    const uint32_t rsp_valid = b->sm_rsp_valid_o;
    EXPECT_LE(__builtin_popcount(rsp_valid), 1);
    for (unsigned s = 0; s < kSms; ++s) {
      if (!((rsp_valid >> s) & 1u) || !((rsp_ready >> s) & 1u)) continue;
      ASSERT_FALSE(expected[s].empty()) << "response to SM " << s << " without a request";
      const Expect e = expected[s].front();
      expected[s].pop_front();
      const MemRsp r = kestrel::rtlbench::unpack_rsp(b->sm_rsp_o.data(), s * mem_rsp::kBits);
      ASSERT_EQ(r.tag, e.tag) << "SM " << s << " out of order";
      ASSERT_EQ(r.fault, e.fault) << "SM " << s;
      EXPECT_EQ(b->sm_rsp_readonly_o != 0, e.readonly)
          << "SM " << s << " read-only flag, tag " << unsigned{e.tag};
      readonly_answers += e.readonly;
      if (e.read && e.fault == KESTREL_FAULT_NONE) {
        ASSERT_EQ(std::memcmp(r.rdata, e.data.data(), 64), 0) << "SM " << s << " read data";
      }
      ++answered[s];
    }
    b.tick();
    ++now;
  }
  EXPECT_EQ(taken_pulses, issued);
  EXPECT_GT(local_faults, 200u);
  EXPECT_GT(readonly_answers, 100u);
  EXPECT_GT(snoops, 100u);
  EXPECT_EQ(ext_requests + local_faults, issued);
  EXPECT_EQ(dram, ref) << "external memory after all writes";
}

// Three SMs that request every cycle share the port equally.
TEST(MemXbar, RoundRobinUnderContention) {
  Bench b;
  b.reset();
  std::array<unsigned, kSms> grants{};
  std::deque<MemReq> ext_queue;
  for (unsigned s = 0; s < kSms; ++s) {
    MemReq r;
    r.kind = kestrel::contract::kMemRead;
    r.addr = KESTREL_GLOBAL_BASE;
    r.tag = static_cast<uint8_t>(s);
    kestrel::rtlbench::pack_req(b->sm_req_i.data(), s * mem_req::kBits, r);
  }
  b->sm_req_valid_i = 0x7;
  b->sm_rsp_ready_i = 0x7;
  b->ext_req_ready_i = 1;
  b->chk_fault_i = KESTREL_FAULT_NONE;
  b->chk_readonly_i = 0;
  int last = -1;
  for (int cycle = 0; cycle < 300; ++cycle) {
    b->ext_rsp_valid_i = !ext_queue.empty();
    if (!ext_queue.empty()) {
      MemRsp r;
      r.tag = ext_queue.front().tag;
      kestrel::rtlbench::pack_rsp(b->ext_rsp_i.data(), 0, r);
    }
    b.eval();
    const uint32_t ready = b->sm_req_ready_o;
    for (unsigned s = 0; s < kSms; ++s) {
      if ((ready >> s) & 1u) {
        ++grants[s];
        if (last >= 0) {
          EXPECT_EQ(s, (static_cast<unsigned>(last) + 1) % kSms) << "round-robin order";
        }
        last = static_cast<int>(s);
      }
    }
    if (b->ext_req_valid_o && b->ext_req_ready_i)
      ext_queue.push_back(kestrel::rtlbench::unpack_req(b->ext_req_o.data(), 0));
    if (b->ext_rsp_valid_i && b->ext_rsp_ready_o) ext_queue.pop_front();
    b.tick();
  }
  for (unsigned s = 0; s < kSms; ++s) EXPECT_GE(grants[s], 90u) << "SM " << s;
}

}  // namespace
