// Memory-side atomic unit bench (kestrel_mem_atomic, 4 requests outstanding):
// random reads, writes and atomics of every op (4 and 8 bytes, global and
// local kinds; CAS with a compare value that matches about half the time;
// kx.amofadd.s against the model's fadd) with random valid/ready on both
// sides and an in-order external memory of random latency.  Checks against a
// reference that applies every request in the order the unit takes it: each
// response comes back in order with its tag; reads return the line as it
// was; an atomic returns the line before it and leaves amo_on_line's word
// (the C++ reference of kestrel_amo_alu) in memory; atomics never reach the
// external port (a read of the line goes there instead, and the held line's
// write-back); the final memory matches once the unit is no longer busy.
// LR/SC of 4 threads (2 SMs x 2 warps, lane 3) on a few words join the random
// traffic, checked against LineReservations (amo_ref.hpp); directed LR/SC
// sequences check each rule by hand.  Directed streams check the held line: a
// run of atomics on one line costs one read and one write, two cycles each
// after the first, ends after HoldLimit of them, and anything else (another
// line, a plain access, an LR/SC, an idle cycle) writes it back first, in a
// posted write that the next request (a read of another line too) follows
// at once.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include "Vmem_atomic4.h"
#include "amo_ref.hpp"
#include "kestrel/abi.h"
#include "rtl_test.hpp"
#include "wide_bits.hpp"

namespace {

// kestrel_pkg's mem_kind_e and AMO funct5 values, generated from
// tools/contract/contract.toml.
using kestrel::contract::kAmoAdd;
using kestrel::contract::kAmoAnd;
using kestrel::contract::kAmoCas;
using kestrel::contract::kAmoDec;
using kestrel::contract::kAmoFadd;
using kestrel::contract::kAmoInc;
using kestrel::contract::kAmoLr;
using kestrel::contract::kAmoMax;
using kestrel::contract::kAmoMaxu;
using kestrel::contract::kAmoMin;
using kestrel::contract::kAmoMinu;
using kestrel::contract::kAmoOr;
using kestrel::contract::kAmoSc;
using kestrel::contract::kAmoSwap;
using kestrel::contract::kAmoXor;
using kestrel::contract::kMemLocal;
using kestrel::contract::kMemRead;
using kestrel::contract::kMemWrite;

using kestrel::rtlbench::MemReq;
using kestrel::rtlbench::MemRsp;
using Line = std::array<uint8_t, 64>;
constexpr uint32_t kLines = 8;  // few lines: atomics and plain accesses collide
using Bench = kestrel::rtlbench::Bench<Vmem_atomic4>;

// `lines` is the reference memory as it will be when the request is taken
// (the previous request has been taken): a CAS compares with its word's
// current value half the time.
MemReq random_request(std::mt19937& rng, uint8_t tag, const std::vector<Line>& lines) {
  static const unsigned ops[] = {kAmoAdd,  kAmoSwap, kAmoXor, kAmoOr,  kAmoAnd, kAmoMin, kAmoMax,
                                 kAmoMinu, kAmoMaxu, kAmoCas, kAmoInc, kAmoDec, kAmoFadd};
  MemReq r;
  r.tag = tag;
  r.addr = KESTREL_GLOBAL_BASE + (rng() % kLines) * 64;
  for (auto& byte : r.wdata) byte = static_cast<uint8_t>(rng() % 4 == 0 ? 0xFF : rng() % 8);
  const unsigned pick = rng() % 6;
  if (pick >= 4) {  // LR or SC of one of 4 threads on one of eight words
    r.amo = true;
    r.amo_op = pick == 4 ? kAmoLr : kAmoSc;
    r.addr = KESTREL_GLOBAL_BASE + (rng() % 2) * 64 * kLines / 2;
    const bool dword = rng() % 4 == 0;
    r.be = (dword ? 0xFFull : 0xFull) << (8 * (rng() % 2));
    r.amo_sm = rng() % 2;
    r.amo_warp = rng() % 2;
    r.amo_lane = 3;
    r.amo_held = rng() % 8 != 0;
    r.kind = pick == 4 ? (rng() % 4 == 0 ? kMemLocal : kMemRead) : (rng() % 4 == 0 ? kMemLocal : kMemWrite);
    r.write = pick == 5;
  } else if (pick <= 1) {  // an atomic: one aligned word or doubleword
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
    r.kind = rng() % 4 == 0 ? kMemLocal : kMemWrite;
    r.write = true;
  } else {
    r.kind = pick == 2 ? kMemRead : kMemWrite;
    r.write = r.kind == kMemWrite;
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
  unsigned lrs = 0, scs = 0, sc_ok = 0, ext_reads = 0, ext_writes = 0, plain_writes = 0;
  kestrel::rtlbench::LineReservations res;
  constexpr unsigned kRequests = 3000;
  // Runs until every request is answered and the held line is written back.
  for (uint64_t now = 0; answered < kRequests || b->busy_o || !ext_queue.empty(); ++now) {
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
      uint8_t be[8];
      for (unsigned i = 0; i < 8; ++i) be[i] = static_cast<uint8_t>(current.be >> (8 * i));
      const uint32_t thread = (current.amo_sm * 2 + current.amo_warp) * 4 + current.amo_lane;
      if (current.amo && current.amo_op == kAmoLr) {
        res.lr(thread, current.addr, be);
        ++lrs;
      } else if (current.amo && current.amo_op == kAmoSc) {
        const bool ok = res.sc(thread, current.amo_held, current.addr, be);
        if (ok) {
          for (unsigned i = 0; i < 64; ++i)
            if ((current.be >> i) & 1u) line[i] = current.wdata[i];
          res.write(current.addr, be);
          ++sc_ok;
        }
        e.data.fill(0);
        e.data[static_cast<unsigned>(__builtin_ctzll(current.be))] = ok ? 0 : 1;
        ++scs;
      } else if (current.amo) {
        const bool wrote =
            kestrel::rtlbench::amo_on_line(current.amo_op, be, current.wdata, line.data(), current.amo_cmp);
        if (current.amo_op == kAmoCas) ++cas;
        ++atomics;
        if (!wrote) ++failed_cas;
        if (wrote) res.write(current.addr, be);
      } else {
        ++plain;
        if (current.write) {
          ++plain_writes;
          for (unsigned i = 0; i < 64; ++i)
            if ((current.be >> i) & 1u) line[i] = current.wdata[i];
          res.write(current.addr, be);
        }
      }
      expected.push_back(e);
      pending = false;
      ++issued;
    }
    if (b->ext_req_valid_o && b->ext_req_ready_i) {
      const MemReq q = kestrel::rtlbench::unpack_req(b->ext_req_o.data(), 0);
      EXPECT_FALSE(q.amo) << "an atomic reached the external port";
      Line& line = dram[(q.addr - KESTREL_GLOBAL_BASE) / 64];
      const bool writes = q.kind == kMemWrite || (q.kind == kMemLocal && q.write);
      ++(writes ? ext_writes : ext_reads);
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
  EXPECT_GT(sc_ok, 15u);
  EXPECT_GT(scs - sc_ok, 25u);
  // Reads: the plain ones, LRs and one per hold (a hold serves at least one
  // atomic); writes: the plain ones, successful SCs and at most one per hold.
  const unsigned holds = ext_reads - (plain - plain_writes) - lrs;
  EXPECT_GE(ext_reads, plain - plain_writes + lrs + 1);
  EXPECT_LT(holds, atomics) << "no atomic ever found its line held";
  EXPECT_GE(ext_writes, plain_writes + sc_ok);
  EXPECT_LE(ext_writes, plain_writes + sc_ok + holds);
  EXPECT_EQ(ext_requests, ext_reads + ext_writes);
  EXPECT_FALSE(b->busy_o);
  EXPECT_EQ(dram, ref);
}

// A stream of requests offered back to back (valid held high, the next one in
// the cycle after a taken one) to an in-order external memory of fixed
// latency; records each response's word at the request's offset, the
// external requests, and the cycle the unit went idle.  Requests of
// successive runs meet the same memory and unit.
struct Stream {
  Bench b;
  std::array<uint8_t, 4 * 64> mem{};
  struct Ext {
    bool write;
    uint32_t addr;
    uint64_t be;
    uint64_t cycle;
  };
  std::vector<Ext> ext;
  // Per request, the 8 response bytes at its lowest enabled byte (a read: 0).
  std::vector<uint64_t> old_values;
  uint64_t idle_cycle = 0;  // first cycle with busy_o low after the last response
  static constexpr unsigned kLatency = 20;

  Stream() {
    b.reset();
    b->clear_i = 0;
  }
  void run(const std::vector<MemReq>& reqs, unsigned gap_after = ~0u) {
    struct Pending {
      MemRsp rsp;
      uint64_t ready_at;
    };
    std::deque<Pending> queue;
    size_t next = 0, answered = 0;
    unsigned gap_cycles = 0;
    old_values.assign(reqs.size(), 0);
    idle_cycle = 0;
    b->in_rsp_ready_i = 1;
    b->ext_req_ready_i = 1;
    for (uint64_t now = 0; now < 20000; ++now) {
      // Two idle cycles after request gap_after is taken (when asked; the
      // unit spends the first answering it), else back to back.
      const bool gap = gap_after != ~0u && next == gap_after + 1 && gap_cycles < 2;
      if (gap) ++gap_cycles;
      b->in_req_valid_i = next < reqs.size() && !gap;
      if (next < reqs.size()) kestrel::rtlbench::pack_req(b->in_req_i.data(), 0, reqs[next]);
      const bool respond = !queue.empty() && queue.front().ready_at <= now;
      b->ext_rsp_valid_i = respond;
      if (respond) kestrel::rtlbench::pack_rsp(b->ext_rsp_i.data(), 0, queue.front().rsp);
      b.eval();
      if (b->in_req_valid_i && b->in_req_ready_o) ++next;
      if (b->ext_req_valid_o) {
        const MemReq q = kestrel::rtlbench::unpack_req(b->ext_req_o.data(), 0);
        EXPECT_FALSE(q.amo);
        uint8_t* line = &mem[(q.addr - KESTREL_GLOBAL_BASE) % mem.size()];
        const bool write = q.kind == kMemWrite || (q.kind == kMemLocal && q.write);
        if (write)
          for (unsigned i = 0; i < 64; ++i)
            if ((q.be >> i) & 1u) line[i] = q.wdata[i];
        Pending p;
        std::memcpy(p.rsp.rdata, line, 64);
        p.rsp.tag = q.tag;
        p.ready_at = now + kLatency;
        queue.push_back(p);
        ext.push_back({write, q.addr, q.be, now});
      }
      if (respond && b->ext_rsp_ready_o) queue.pop_front();
      if (b->in_rsp_valid_o) {
        const MemRsp r = kestrel::rtlbench::unpack_rsp(b->in_rsp_o.data(), 0);
        EXPECT_LT(answered, reqs.size());
        if (answered < reqs.size()) {
          const MemReq& q = reqs[answered];
          std::memcpy(&old_values[answered], r.rdata + (q.be != 0 ? __builtin_ctzll(q.be) : 0), 8);
        }
        ++answered;
      }
      b.tick();
      if (answered == reqs.size() && !b->busy_o && idle_cycle == 0) idle_cycle = now + 1;
      if (answered == reqs.size() && !b->busy_o && queue.empty()) {
        // Nothing offered on either side while the caller ticks the unit itself.
        b->in_req_valid_i = 0;
        b->ext_rsp_valid_i = 0;
        return;
      }
    }
    ADD_FAILURE() << "stream did not finish: " << answered << " of " << reqs.size() << " answered";
  }
  // Runs one request; returns the 4 bytes of its response at its offset.
  uint32_t one(const MemReq& r) {
    run({r});
    return static_cast<uint32_t>(old_values[0]);
  }
  static MemReq lrsc(bool sc, unsigned sm, unsigned warp, unsigned lane, unsigned off, bool dword,
                     uint64_t value = 0, bool local = false) {
    MemReq r;
    r.amo = true;
    r.amo_op = sc ? kAmoSc : kAmoLr;
    r.amo_sm = sm;
    r.amo_warp = warp;
    r.amo_lane = lane;
    r.amo_held = true;
    r.addr = KESTREL_GLOBAL_BASE;
    r.be = (dword ? 0xFFull : 0xFull) << off;
    std::memcpy(r.wdata + off, &value, dword ? 8 : 4);
    r.kind = local ? kMemLocal : (sc ? kMemWrite : kMemRead);
    r.write = sc;
    return r;
  }
  static MemReq store(unsigned off, uint8_t value) {
    MemReq r;
    r.addr = KESTREL_GLOBAL_BASE;
    r.kind = kMemWrite;
    r.write = true;
    r.be = 1ull << off;
    r.wdata[off] = value;
    return r;
  }
  static MemReq add(unsigned line, unsigned off, uint32_t value) {
    MemReq r;
    r.amo = true;
    r.amo_op = kAmoAdd;
    r.kind = kMemWrite;
    r.write = true;
    r.addr = KESTREL_GLOBAL_BASE + line * 64;
    r.be = 0xFull << off;
    std::memcpy(r.wdata + off, &value, 4);
    return r;
  }
  uint32_t word(unsigned line, unsigned off) const {
    uint32_t v;
    std::memcpy(&v, &mem[line * 64 + off], 4);
    return v;
  }
  unsigned count(bool write) const {
    unsigned n = 0;
    for (const Ext& e : ext) n += e.write == write;
    return n;
  }
};

TEST(MemAtomic, LrScRules) {
  Stream d;
  using D = Stream;
  d.mem[8] = 0x5A;
  // LR returns the word; SC on it succeeds (0) and writes.
  EXPECT_EQ(d.one(D::lrsc(false, 1, 1, 3, 8, false)), 0x5Au);
  EXPECT_EQ(d.one(D::lrsc(true, 1, 1, 3, 8, false, 0x1234)), 0u);
  EXPECT_EQ(d.mem[8], 0x34);
  // The SC dropped the reservation: a second SC fails and writes nothing.
  EXPECT_EQ(d.one(D::lrsc(true, 1, 1, 3, 8, false, 0x7777)), 1u);
  EXPECT_EQ(d.mem[8], 0x34);
  // A one-byte store (another SM's, say) to the word ends the reservation.
  d.one(D::lrsc(false, 0, 0, 0, 8, false));
  d.one(D::store(11, 0xEE));
  EXPECT_EQ(d.one(D::lrsc(true, 0, 0, 0, 8, false, 1)), 1u);
  // A store next to the word does not.
  d.one(D::lrsc(false, 0, 0, 0, 8, false));
  d.one(D::store(12, 0xEE));
  EXPECT_EQ(d.one(D::lrsc(true, 0, 0, 0, 8, false, 2)), 0u);
  // Two threads reserve one word: the first SC wins and ends the other's.
  d.one(D::lrsc(false, 0, 1, 2, 8, false));
  d.one(D::lrsc(false, 1, 0, 2, 8, false));
  EXPECT_EQ(d.one(D::lrsc(true, 1, 0, 2, 8, false, 3)), 0u);
  EXPECT_EQ(d.one(D::lrsc(true, 0, 1, 2, 8, false, 4)), 1u);
  // Another size or word than the LR's fails.
  d.one(D::lrsc(false, 0, 0, 1, 8, false));
  EXPECT_EQ(d.one(D::lrsc(true, 0, 0, 1, 8, true, 5)), 1u);
  d.one(D::lrsc(false, 0, 0, 1, 8, false));
  EXPECT_EQ(d.one(D::lrsc(true, 0, 0, 1, 12, false, 5)), 1u);
  // An SC without `held` fails even on a live reservation.
  d.one(D::lrsc(false, 0, 0, 1, 16, true));
  MemReq unheld = D::lrsc(true, 0, 0, 1, 16, true, 6);
  unheld.amo_held = false;
  EXPECT_EQ(d.one(unheld), 1u);
  // A doubleword reservation ends on a store to its high word; local kinds.
  d.one(D::lrsc(false, 0, 1, 0, 16, true, 0, true));
  d.one(D::store(23, 1));
  EXPECT_EQ(d.one(D::lrsc(true, 0, 1, 0, 16, true, 7, true)), 1u);
  d.one(D::lrsc(false, 0, 1, 0, 16, true, 0, true));
  EXPECT_EQ(d.one(D::lrsc(true, 0, 1, 0, 16, true, 0x0102030405060708ull, true)), 0u);
  EXPECT_EQ(d.mem[16], 0x08);
  EXPECT_EQ(d.mem[23], 0x01);
  // Launch start ends every reservation.
  d.one(D::lrsc(false, 1, 1, 1, 0, false));
  d.b->clear_i = 1;
  d.b.tick();
  d.b->clear_i = 0;
  EXPECT_EQ(d.one(D::lrsc(true, 1, 1, 1, 0, false, 9)), 1u);
  // A thread outside the configuration never succeeds.
  d.one(D::lrsc(false, 2, 0, 0, 0, false));
  EXPECT_EQ(d.one(D::lrsc(true, 2, 0, 0, 0, false, 9)), 1u);
}

TEST(MemAtomic, AtomicsOnOneLineShareOneReadAndOneWrite) {
  // 32 lanes' atomicAdd on one word, then 8 on other words of the line: each
  // gets its own old value (guide chapter 4), from one read and one write.
  Stream s;
  std::vector<MemReq> reqs;
  for (unsigned i = 0; i < 32; ++i) reqs.push_back(Stream::add(1, 8, i + 1));
  for (unsigned i = 0; i < 8; ++i) reqs.push_back(Stream::add(1, 16 + 4 * i, 100 + i));
  s.run(reqs);
  uint32_t sum = 0;
  for (unsigned i = 0; i < 32; ++i) {
    EXPECT_EQ(static_cast<uint32_t>(s.old_values[i]), sum) << "lane " << i;
    sum += i + 1;
  }
  EXPECT_EQ(s.word(1, 8), sum);
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(s.word(1, 16 + 4 * i), 100 + i);
  ASSERT_EQ(s.ext.size(), 2u) << "one read, one write-back";
  EXPECT_FALSE(s.ext[0].write);
  EXPECT_TRUE(s.ext[1].write);
  EXPECT_EQ(s.ext[1].be, 0xFFFFFFFF0F00ull) << "the write-back writes the bytes the atomics wrote";
  // The read's latency, then two cycles per atomic, then the write-back.
  std::printf("40 atomics on one line: read at %llu, write-back at %llu, idle at %llu\n",
              static_cast<unsigned long long>(s.ext[0].cycle),
              static_cast<unsigned long long>(s.ext[1].cycle), static_cast<unsigned long long>(s.idle_cycle));
  EXPECT_LE(s.ext[1].cycle, s.ext[0].cycle + Stream::kLatency + 2 * 40 + 4);
  EXPECT_LE(s.idle_cycle, s.ext[1].cycle + Stream::kLatency + 2);
}

TEST(MemAtomic, HoldEndsAtItsLimit) {
  // HoldLimit (64) atomics performed on the held copy, then a new read.
  Stream s;
  std::vector<MemReq> reqs(100, Stream::add(0, 0, 1));
  s.run(reqs);
  for (unsigned i = 0; i < 100; ++i) EXPECT_EQ(static_cast<uint32_t>(s.old_values[i]), i);
  EXPECT_EQ(s.word(0, 0), 100u);
  ASSERT_EQ(s.ext.size(), 4u);
  EXPECT_EQ(s.count(false), 2u);
  EXPECT_EQ(s.count(true), 2u);
}

TEST(MemAtomic, AnythingElseWritesTheHeldLineBackFirst) {
  // Another line's atomic, a plain load of the line, a store to it, an LR of
  // it: each finds the atomics before it in memory.
  std::vector<MemReq> other(1, Stream::add(2, 0, 5));
  MemReq load;
  load.kind = kMemRead;
  load.addr = KESTREL_GLOBAL_BASE + 64;
  MemReq store = load;
  store.kind = kMemWrite;
  store.write = true;
  store.be = 0xF0;
  for (unsigned i = 4; i < 8; ++i) store.wdata[i] = 0x11;
  MemReq lr = load;
  lr.amo = true;
  lr.amo_op = kAmoLr;
  lr.be = 0xF;
  for (const MemReq& then : {other[0], load, store, lr}) {
    Stream s;
    s.run({Stream::add(1, 0, 7), Stream::add(1, 0, 7), then, Stream::add(1, 0, 1)});
    EXPECT_EQ(static_cast<uint32_t>(s.old_values[1]), 7u);
    if (then.addr == load.addr && then.kind == kMemRead) {
      EXPECT_EQ(static_cast<uint32_t>(s.old_values[2]), 14u) << "a read after the atomics sees them";
    }
    EXPECT_EQ(static_cast<uint32_t>(s.old_values[3]), 14u);
    EXPECT_EQ(s.word(1, 0), 15u);
    // read, write-back, the other request (an atomic: its read and
    // write-back), read, write-back.
    ASSERT_EQ(s.ext.size(), then.amo && then.amo_op != kAmoLr ? 6u : 5u);
    EXPECT_TRUE(s.ext[1].write);
    EXPECT_EQ(s.ext[1].addr, KESTREL_GLOBAL_BASE + 64u);
    EXPECT_LT(s.ext[1].cycle, s.ext[2].cycle);
    EXPECT_LE(s.ext[2].cycle, s.ext[1].cycle + 3) << "the write-back is posted";
  }
  // A cycle without a request ends the hold too.
  Stream s;
  s.run({Stream::add(1, 0, 7), Stream::add(1, 0, 7), Stream::add(1, 0, 1)}, 1);
  EXPECT_EQ(s.count(false), 2u);
  EXPECT_EQ(s.count(true), 2u);
  EXPECT_EQ(s.word(1, 0), 15u);
}

TEST(MemAtomic, FailedCasOnlyHoldsACleanLine) {
  // A CAS that fails writes nothing: its hold ends without a write.
  Stream s;
  s.mem[0] = 3;
  MemReq cas = Stream::add(0, 0, 9);
  cas.amo_op = kAmoCas;
  cas.amo_cmp = 4;
  s.run({cas, cas});
  EXPECT_EQ(static_cast<uint32_t>(s.old_values[0]), 3u);
  EXPECT_EQ(static_cast<uint32_t>(s.old_values[1]), 3u);
  EXPECT_EQ(s.count(false), 1u);
  EXPECT_EQ(s.count(true), 0u);
  EXPECT_EQ(s.word(0, 0), 3u);
}

}  // namespace
