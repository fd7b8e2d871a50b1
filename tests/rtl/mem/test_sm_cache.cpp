// Bench of an SM's caches (kestrel_sm_cache): the constant cache (Writable =
// 0) at 4 sets x 2 ways and 2 sets direct mapped, and the L1 data cache
// (Writable = 1) at 4 sets x 2 ways.  Around the unit: an SM side that offers
// requests and takes answers at random, and a memory side that answers in
// request order after a random latency, saying per line whether its page is
// read-only, faulting some lines; for the L1, other SMs' writes that the
// crossbar announces (snoops), which change memory in that cycle.  Every
// answer is checked in order (tag, fault, data against a flat memory: a
// stale line would be caught), and every decision against a reference cache
// that sees the same events at the same cycles: a plain read of a held line
// is a hit and never reaches memory; a read of the cache's kind of page
// answered without a fault fills its line unless it is held by then, or a
// write to it (this SM's or snooped) or an invalidation came while it was in
// flight; the victim is the lowest invalid way, else the set's turn; a
// write drops its line unless a fill takes that place in the same cycle.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "Vconst_cache_s2w1.h"
#include "Vconst_cache_s4w2.h"
#include "Vl1_cache_s4w2.h"
#include "flat_memory.hpp"
#include "kestrel/abi.h"
#include "rtl_test.hpp"
#include "wide_bits.hpp"

namespace {

using kestrel::rtlbench::FlatMemory;
using kestrel::rtlbench::Line;
using kestrel::rtlbench::MemReq;
using kestrel::rtlbench::MemRsp;

constexpr uint32_t kBase = KESTREL_GLOBAL_BASE;

bool plain_read(const MemReq& r) { return r.kind == kestrel::contract::kMemRead && !r.amo; }

class RefCache {
 public:
  RefCache(unsigned sets, unsigned ways) : sets_(sets), ways_(ways), lines_(sets * ways), turn_(sets, 0) {}
  bool holds(uint32_t line) const {
    for (unsigned w = 0; w < ways_; ++w)
      if (way(line % sets_, w).valid && way(line % sets_, w).line == line) return true;
    return false;
  }
  // The way a fill of `line` takes, from the lines as they were at the start
  // of the cycle, and whether it evicts a valid line.
  std::pair<unsigned, bool> victim(uint32_t line) const {
    const unsigned set = line % sets_;
    for (unsigned w = 0; w < ways_; ++w)
      if (!way(set, w).valid) return {w, false};
    return {turn_[set], true};
  }
  void install(uint32_t line, std::pair<unsigned, bool> v) {
    const unsigned set = line % sets_;
    way(set, v.first) = {true, line};
    if (v.second) turn_[set] = (turn_[set] + 1) % ways_;
  }
  void drop(uint32_t line) {
    for (unsigned w = 0; w < ways_; ++w)
      if (way(line % sets_, w).line == line) way(line % sets_, w).valid = false;
  }
  void invalidate() {
    for (auto& l : lines_) l.valid = false;
  }

 private:
  struct Way {
    bool valid = false;
    uint32_t line = 0;
  };
  Way& way(unsigned set, unsigned w) { return lines_[set * ways_ + w]; }
  const Way& way(unsigned set, unsigned w) const { return lines_[set * ways_ + w]; }
  unsigned sets_, ways_;
  std::vector<Way> lines_;
  std::vector<unsigned> turn_;
};

template <typename Model>
class Harness {
 public:
  Harness(unsigned set_count, unsigned way_count, bool is_writable, uint32_t seed)
      : sets(set_count), ways(way_count), writable(is_writable), rng_(seed), ref_(set_count, way_count) {
    bench_.reset();
    auto& d = bench_.dut();
    d.inv_i = 0;
    d.snoop_valid_i = 0;
    d.up_req_valid_i = 0;
    d.dn_rsp_valid_i = 0;
  }

  unsigned offer_pct = 80, rsp_ready_pct = 80, dn_ready_pct = 80;
  unsigned min_latency = 1, max_latency = 10;
  std::set<uint32_t> readonly;  // line addresses on read-only pages
  // The lines this cache keeps: read-only pages' (constant cache) or the
  // others' (L1).
  bool kept_kind(uint32_t addr) const { return (readonly.count(addr) != 0) != writable; }
  // Another SM's write the crossbar takes in the next cycle (L1 only).
  void snoop_write(uint32_t addr, uint8_t value) { snoops_.push_back({addr, value}); }
  std::set<uint32_t> faulty;  // line addresses memory answers with ILLEGAL_ADDRESS

  uint32_t line_addr(unsigned set, unsigned n) const { return kBase + (n * sets + set) * 64; }
  MemReq read(uint32_t addr, unsigned kind = kestrel::contract::kMemRead) {
    MemReq r;
    r.kind = kind;
    r.addr = addr;
    r.tag = next_tag_++;
    return r;
  }
  MemReq write(uint32_t addr, uint8_t seed) {
    MemReq r;
    r.kind = kestrel::contract::kMemWrite;
    r.write = true;
    r.addr = addr;
    r.be = ~0ull;
    for (unsigned i = 0; i < 64; ++i) r.wdata[i] = static_cast<uint8_t>(seed * 7 + i);
    r.tag = next_tag_++;
    return r;
  }
  void send(const MemReq& r) { to_send_.push_back(r); }
  void drain(unsigned limit = 100000) {
    for (unsigned i = 0; i < limit; ++i) {
      if (to_send_.empty() && !offering_ && expected_.empty() && memory_queue_.empty()) return;
      cycle();
    }
    ADD_FAILURE() << "no progress: " << expected_.size() << " answers outstanding";
  }
  // The host writes memory (a read-only page too) and, like a launch start,
  // invalidates: later reads must see the new bytes.
  // The write lands in the cycle of the invalidation, after that cycle's
  // requests were taken (a read taken then may still see the old bytes).
  void host_write_and_invalidate(uint32_t addr, uint8_t value) {
    host_write_ = Snoop{addr, value};
    pulse_inv_ = true;
    cycle();
  }
  // Cycles from offering `r` (alone, everything ready) to its answer.
  unsigned latency_of(const MemReq& r) {
    const unsigned saved[3] = {offer_pct, rsp_ready_pct, dn_ready_pct};
    offer_pct = rsp_ready_pct = dn_ready_pct = 100;
    const uint64_t before = answered;
    send(r);
    const uint64_t start = now_;
    while (answered == before && now_ - start < 1000) cycle();
    offer_pct = saved[0];
    rsp_ready_pct = saved[1];
    dn_ready_pct = saved[2];
    return static_cast<unsigned>(now_ - start);
  }

  void cycle() {
    auto& d = bench_.dut();
    std::optional<uint32_t> own_write;
    if (!offering_ && !to_send_.empty() && pct(offer_pct)) {
      current_ = to_send_.front();
      to_send_.pop_front();
      offering_ = true;
    }
    d.up_req_valid_i = offering_;
    kestrel::rtlbench::pack_req(d.up_req_i.data(), 0, current_);
    const bool rsp_ready = pct(rsp_ready_pct);
    d.up_rsp_ready_i = rsp_ready;
    d.dn_req_ready_i = pct(dn_ready_pct);
    d.inv_i = pulse_inv_;
    bool snoop = false;
    Snoop snooped;
    if (!snoops_.empty()) {
      snoop = true;
      snooped = snoops_.front();
      snoops_.pop_front();
    }
    d.snoop_valid_i = snoop;
    d.snoop_line_i = snoop ? (snooped.addr >> 6) : 0;
    const bool dn_rsp = !memory_queue_.empty() && memory_queue_.front().ready_at <= now_;
    d.dn_rsp_valid_i = dn_rsp;
    d.dn_rsp_readonly_i = 0;
    if (dn_rsp) {
      const MemReq& q = memory_queue_.front().req;
      MemRsp rsp;
      rsp.tag = q.tag;
      if (faulty.count(q.addr)) {
        rsp.fault = KESTREL_FAULT_ILLEGAL_ADDRESS;
      } else {
        std::memcpy(rsp.rdata, memory_queue_.front().data.data(), 64);
        d.dn_rsp_readonly_i = readonly.count(q.addr) != 0;
      }
      kestrel::rtlbench::pack_rsp(d.dn_rsp_i.data(), 0, rsp);
    }
    bench_.eval();

    // Decisions of this cycle, in the unit's order: a request taken looks at
    // the lines as they were; an answer's fill and an invalidation land at
    // the edge.
    const bool offered = offering_;
    const bool offered_hit = offered && plain_read(current_) && ref_.holds(current_.addr / 64);
    const uint32_t offered_addr = current_.addr;
    if (offering_ && d.up_req_ready_o) {
      const bool hit = plain_read(current_) && ref_.holds(current_.addr / 64);
      EXPECT_EQ(d.ev_hit_o != 0, hit) << "hit decision, tag " << unsigned{current_.tag};
      ref_hits += hit;
      Expect e;
      e.tag = current_.tag;
      e.fault = (!hit && faulty.count(current_.addr)) ? KESTREL_FAULT_ILLEGAL_ADDRESS : KESTREL_FAULT_NONE;
      e.data = expected_memory_.at(current_.addr);
      e.check_data = !current_.write;
      if (current_.write && !faulty.count(current_.addr))
        std::memcpy(expected_memory_.at(current_.addr).data(), current_.wdata, 64);
      expected_.push_back(e);
      order_.push_back({current_, hit, plain_read(current_) && !hit && !pulse_inv_});
      if (writable && (current_.kind == kestrel::contract::kMemWrite || current_.amo))
        own_write = current_.addr;
      offering_ = false;
    } else {
      EXPECT_EQ(d.ev_hit_o, 0u);
    }
    if (d.dn_req_valid_o && d.dn_req_ready_i) {
      const MemReq r = kestrel::rtlbench::unpack_req(d.dn_req_o.data(), 0);
      // Memory performs a request when it takes it (in order): a write
      // lands, a read's answer is fixed.
      if (r.write && !faulty.count(r.addr)) std::memcpy(memory_.at(r.addr).data(), r.wdata, 64);
      memory_queue_.push_back(
          {r, now_ + min_latency + rng_() % (max_latency - min_latency + 1), memory_.at(r.addr)});
      if (plain_read(r) && kept_kind(r.addr)) {
        ++kept_reads_sent;
        faulty_reads_sent += faulty.count(r.addr) != 0;
      }
    }
    bool evicted = false, filled_ro = false;
    bool fill_now = false;
    uint32_t fill_line = 0;
    std::pair<unsigned, bool> fill_way{0, false};
    if (dn_rsp && d.dn_rsp_ready_o) memory_queue_.pop_front();
    if (d.up_rsp_valid_o && rsp_ready) {
      const MemRsp r = kestrel::rtlbench::unpack_rsp(d.up_rsp_o.data(), 0);
      if (expected_.empty() || order_.empty()) {
        ADD_FAILURE() << "an answer without a request";
      } else {
        const Expect e = expected_.front();
        const Order o = order_.front();
        expected_.pop_front();
        order_.pop_front();
        EXPECT_EQ(r.tag, e.tag) << "out of order";
        EXPECT_EQ(r.fault, e.fault) << "tag " << unsigned{e.tag};
        if (e.check_data && e.fault == KESTREL_FAULT_NONE) {
          EXPECT_EQ(std::memcmp(r.rdata, e.data.data(), 64), 0) << "data, tag " << unsigned{e.tag};
        }
        const uint32_t l = o.req.addr / 64;
        const bool written_now =
            (snoop && snooped.addr == o.req.addr) || (own_write && *own_write == o.req.addr);
        if (!o.hit && plain_read(o.req) && kept_kind(o.req.addr) && !faulty.count(o.req.addr)) {
          filled_ro = true;
          // A request offered this cycle for the line that is not a hit
          // (it may still wait to go on) keeps the line out this cycle.
          const bool waiting = offered && !offered_hit && offered_addr == o.req.addr;
          if (o.may_fill && !written_now && !pulse_inv_ && !ref_.holds(l) && !waiting) {
            fill_now = true;
            fill_line = l;
            fill_way = ref_.victim(l);
            evicted = fill_way.second;
          }
        }
      }
      ++answered;
    }
    EXPECT_EQ(d.ev_miss_o != 0, filled_ro) << "miss event at cycle " << now_;
    EXPECT_EQ(d.ev_evict_o != 0, evicted) << "eviction event at cycle " << now_;
    ref_misses += filled_ro;
    ref_evictions += evicted;
    hits += d.ev_hit_o;
    misses += d.ev_miss_o;
    evictions += d.ev_evict_o;
    // At the edge: writes drop their lines and cancel fills in flight, the
    // fill takes its way, an invalidation drops everything.
    for (uint32_t written : {snoop ? snooped.addr : 0u, own_write ? *own_write : 0u}) {
      if (written == 0) continue;
      ref_.drop(written / 64);
      for (auto& o : order_)
        if (o.req.addr == written) o.may_fill = false;
    }
    if (snoop) {
      // The other SM's write lands in memory now: reads taken from the next
      // cycle on must see it.
      memory_.at(snooped.addr).fill(snooped.value);
      expected_memory_.at(snooped.addr).fill(snooped.value);
    }
    if (fill_now) ref_.install(fill_line, fill_way);
    if (host_write_) {
      memory_.at(host_write_->addr).fill(host_write_->value);
      expected_memory_.at(host_write_->addr).fill(host_write_->value);
      host_write_.reset();
    }
    if (pulse_inv_) {
      ref_.invalidate();
      for (auto& o : order_) o.may_fill = false;
      pulse_inv_ = false;
    }
    bench_.tick();
    ++now_;
  }

  const unsigned sets, ways;
  const bool writable;
  uint64_t answered = 0;
  unsigned hits = 0, misses = 0, evictions = 0;
  unsigned ref_hits = 0, ref_misses = 0, ref_evictions = 0, kept_reads_sent = 0, faulty_reads_sent = 0;
  std::mt19937& rng() { return rng_; }

 private:
  struct Expect {
    uint8_t tag;
    unsigned fault;
    bool check_data;
    Line data;
  };
  struct Order {
    MemReq req;
    bool hit;
    bool may_fill;  // no write or invalidation since it was taken
  };
  struct Snoop {
    uint32_t addr = 0;
    uint8_t value = 0;
  };
  struct InFlight {
    MemReq req;
    uint64_t ready_at;
    Line data;
  };
  bool pct(unsigned p) { return rng_() % 100 < p; }
  kestrel::rtlbench::Bench<Model> bench_;
  std::mt19937 rng_;
  RefCache ref_;
  // `memory_` is what memory holds; `expected_memory_` what an answer must
  // carry: updated when a request is taken, in request order.
  FlatMemory memory_, expected_memory_;
  std::deque<MemReq> to_send_;
  std::deque<Expect> expected_;
  std::deque<Order> order_;
  std::deque<InFlight> memory_queue_;
  MemReq current_;
  bool offering_ = false, pulse_inv_ = false;
  uint8_t next_tag_ = 0;
  uint64_t now_ = 0;
  std::deque<Snoop> snoops_;
  std::optional<Snoop> host_write_;
};

struct ConstAssoc {
  using Model = Vconst_cache_s4w2;
  static constexpr unsigned kSets = 4, kWays = 2;
  static constexpr bool kWritable = false;
};
struct ConstDirect {
  using Model = Vconst_cache_s2w1;
  static constexpr unsigned kSets = 2, kWays = 1;
  static constexpr bool kWritable = false;
};
struct L1Assoc {
  using Model = Vl1_cache_s4w2;
  static constexpr unsigned kSets = 4, kWays = 2;
  static constexpr bool kWritable = true;
};

template <typename Config>
class SmCache : public ::testing::Test {
 protected:
  Harness<typename Config::Model> harness{Config::kSets, Config::kWays, Config::kWritable, 11};
  // A line this cache keeps, and one it does not, in set `set`.
  uint32_t kept(unsigned set, unsigned n) {
    const uint32_t a = harness.line_addr(set, n);
    if (!Config::kWritable) harness.readonly.insert(a);
    return a;
  }
  uint32_t not_kept(unsigned set, unsigned n) {
    const uint32_t a = harness.line_addr(set, n);
    if (Config::kWritable) harness.readonly.insert(a);
    return a;
  }
};
using Configs = ::testing::Types<ConstAssoc, ConstDirect, L1Assoc>;
TYPED_TEST_SUITE(SmCache, Configs);

// A line of the cache's kind is read from memory once; later reads hit,
// answer one cycle after they are taken (two bench cycles from the offer to
// the answer), and never reach memory.  A line of the other kind is never
// kept.
TYPED_TEST(SmCache, KeepsLinesOfItsKindOnly) {
  auto& h = this->harness;
  h.min_latency = 4;  // a miss (5 cycles or more) never looks like a hit (2)
  const uint32_t mine = this->kept(1, 0), other = this->not_kept(1, 1);
  EXPECT_GE(h.latency_of(h.read(mine)), 3u);
  EXPECT_EQ(h.latency_of(h.read(mine)), 2u);
  EXPECT_EQ(h.latency_of(h.read(mine)), 2u);
  h.latency_of(h.read(other));
  EXPECT_GE(h.latency_of(h.read(other)), 3u) << "a line of the other kind was kept";
  h.drain();
  EXPECT_EQ(h.hits, 2u);
  EXPECT_EQ(h.misses, 1u);
  EXPECT_EQ(h.kept_reads_sent, 1u);
}

// Local-memory, fetch and LR requests pass through even for a held line,
// and a fault is answered as memory gave it (and fills nothing).
TYPED_TEST(SmCache, OtherRequestsPassThrough) {
  auto& h = this->harness;
  const uint32_t a = this->kept(0, 0), bad = this->kept(0, 2);
  h.faulty.insert(bad);
  h.send(h.read(a));
  h.drain();
  h.send(h.read(a, kestrel::contract::kMemLocal));
  h.send(h.read(a, kestrel::contract::kMemFetch));
  MemReq lr = h.read(a);
  lr.amo = true;
  lr.amo_op = kestrel::contract::kAmoLr;
  h.send(lr);
  h.send(h.read(bad));
  h.send(h.read(bad));
  h.drain();
  EXPECT_EQ(h.hits, 0u) << "only plain reads hit";
  EXPECT_EQ(h.kept_reads_sent, 3u);  // a's first read, bad twice
}

// After the host writes a line and the cache is invalidated (a launch's
// start), the next read goes to memory and sees the new bytes; a read in
// flight across the invalidation does not fill.
TYPED_TEST(SmCache, InvalidationDropsLinesAndFillsInFlight) {
  auto& h = this->harness;
  h.min_latency = 4;  // a miss (5 cycles or more) never looks like a hit (2)
  const uint32_t a = this->kept(1, 0);
  h.latency_of(h.read(a));
  EXPECT_EQ(h.latency_of(h.read(a)), 2u);
  h.host_write_and_invalidate(a, 0x5A);
  EXPECT_GE(h.latency_of(h.read(a)), 3u);
  EXPECT_EQ(h.latency_of(h.read(a)), 2u);
  h.min_latency = h.max_latency = 20;
  h.host_write_and_invalidate(a, 0x11);
  h.send(h.read(a));
  for (int i = 0; i < 5; ++i) h.cycle();
  h.host_write_and_invalidate(a, 0x22);
  h.drain();
  EXPECT_GE(h.latency_of(h.read(a)), 20u) << "a fill from before the invalidation was kept";
  h.drain();
}

// The L1 data cache's writes: this SM's write drops its line as it passes
// (the read after it goes to memory and sees the write), another SM's write
// that the crossbar announces drops it too, and a read in flight when
// either write comes fills nothing (its data may be older than the write).
TYPED_TEST(SmCache, WritesDropLinesAndFillsInFlight) {
  auto& h = this->harness;
  h.min_latency = 4;  // a miss (5 cycles or more) never looks like a hit (2)
  if (!h.writable) GTEST_SKIP() << "read-only lines are never written";
  const uint32_t a = this->kept(2, 0);
  h.latency_of(h.read(a));
  EXPECT_EQ(h.latency_of(h.read(a)), 2u);
  h.latency_of(h.write(a, 3));
  EXPECT_GE(h.latency_of(h.read(a)), 3u) << "this SM's write left the line";
  EXPECT_EQ(h.latency_of(h.read(a)), 2u);
  h.snoop_write(a, 0x77);
  h.cycle();
  EXPECT_GE(h.latency_of(h.read(a)), 3u) << "a snooped write left the line";
  // A read in flight (the line dropped first, so that it misses), then a
  // snooped write: its fill is dropped.
  h.min_latency = h.max_latency = 20;
  h.snoop_write(a, 0x70);
  h.cycle();
  const unsigned misses_before = h.misses;
  h.send(h.read(a));
  h.snoop_write(h.line_addr(2, 1), 1);  // another line: no effect
  for (int i = 0; i < 5; ++i) h.cycle();
  h.snoop_write(a, 0x78);
  h.drain();
  EXPECT_EQ(h.misses, misses_before + 1) << "the read was not in flight";
  EXPECT_GE(h.latency_of(h.read(a)), 20u) << "a fill older than a snooped write was kept";
  // A read in flight, then this SM's write of the line: no fill either.
  h.snoop_write(a, 0x71);
  h.cycle();
  h.send(h.read(a));
  h.send(h.write(a, 9));
  h.drain();
  EXPECT_GE(h.latency_of(h.read(a)), 20u) << "a fill older than this SM's write was kept";
  h.drain();
}

// Random traffic over a few sets: lines of both kinds, this SM's writes,
// atomics, faults, snooped writes (L1), random readiness and latency, an
// occasional invalidation; every answer and every event against the
// reference.
TYPED_TEST(SmCache, RandomTrafficMatchesTheReference) {
  auto& h = this->harness;
  std::vector<uint32_t> lines;
  for (unsigned n = 0; n < 6; ++n)
    for (unsigned s = 0; s < h.sets; ++s) lines.push_back(h.line_addr(s, n));
  for (size_t i = 0; i < lines.size(); ++i) {
    if ((i % 3 != 2) != h.writable) h.readonly.insert(lines[i]);
    if (i == 5) h.faulty.insert(lines[i]);
  }
  auto& rng = h.rng();
  for (unsigned round = 0; round < 60; ++round) {
    for (unsigned i = 0; i < 50; ++i) {
      const uint32_t a = lines[rng() % lines.size()];
      const unsigned kind = rng() % 10;
      if (kind < 6) {
        h.send(h.read(a));
      } else if (kind < 8 && !h.readonly.count(a)) {
        MemReq w = h.write(a, static_cast<uint8_t>(rng()));
        w.amo = kind == 7;  // an atomic swap of the whole line, as far as caching goes
        h.send(w);
      } else {
        h.send(h.read(a, kestrel::contract::kMemLocal));
      }
    }
    const unsigned steps = 20 + rng() % 200;
    for (unsigned i = 0; i < steps; ++i) {
      if (h.writable && rng() % 16 == 0) {
        const uint32_t a = lines[rng() % lines.size()];
        if (!h.readonly.count(a) && !h.faulty.count(a)) h.snoop_write(a, static_cast<uint8_t>(rng()));
      }
      h.cycle();
    }
    if (round % 8 == 7) h.host_write_and_invalidate(lines[rng() % lines.size()], static_cast<uint8_t>(round));
  }
  h.drain();
  EXPECT_EQ(h.hits, h.ref_hits);
  EXPECT_EQ(h.misses, h.ref_misses);
  EXPECT_EQ(h.evictions, h.ref_evictions);
  EXPECT_EQ(h.misses, h.kept_reads_sent - h.faulty_reads_sent)
      << "a read of the cache's kind went to memory without a miss, or a hit did";
  EXPECT_GT(h.hits, 200u);
  EXPECT_GT(h.evictions, 10u);
}

}  // namespace
