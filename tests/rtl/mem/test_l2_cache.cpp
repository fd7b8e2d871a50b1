// L2 cache bench (kestrel_l2_cache) in two configurations: 4 sets x 2 ways
// with 4 MSHRs, and 8 sets direct mapped with 1 MSHR.  Around the unit: an
// upstream driver that offers requests at random and takes responses at
// random, and a DRAM model that answers in request order after a random
// latency, with random back-pressure on its request port.  Every response is
// checked in order (tag, fault, and read data against a flat memory updated
// in the order requests were taken), and the unit's event counts against a
// reference cache with the same rule (true LRU, the lowest invalid way
// first, write-through allocating on a read miss or a whole-line write miss,
// atomics invalidate, a faulting fill or whole-line write allocates
// nothing).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>
#include <set>
#include <vector>

#include "Vl2_cache_s4w2m4.h"
#include "Vl2_cache_s8w1m1.h"
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

bool is_write(const MemReq& r) {
  return r.kind == kestrel::contract::kMemWrite || (r.kind == kestrel::contract::kMemLocal && r.write);
}

// The reference cache: which reads hit (or merge), miss and evict, taken in
// request order.  Timing decides only whether a hit finds its line's fill
// still in flight (a merge), so hits and merges are counted together.
struct Counts {
  unsigned hits_or_merges = 0, misses = 0, evictions = 0, writes = 0;
};
class RefCache {
 public:
  RefCache(unsigned sets, unsigned ways) : sets_(sets), ways_(ways), ways_of_(sets * ways) {
    for (unsigned i = 0; i < sets * ways; ++i) ways_of_[i].age = i % ways;
  }
  // `faulty`: DRAM faults this line (a read miss allocates, then drops it).
  void access(const MemReq& r, bool faulty) {
    const uint32_t line = r.addr / 64;
    const unsigned set = line % sets_;
    const uint32_t tag = line / sets_;
    int hit = -1;
    for (unsigned w = 0; w < ways_; ++w)
      if (way(set, w).valid && way(set, w).tag == tag) hit = static_cast<int>(w);
    if (r.amo) {
      if (hit >= 0) way(set, hit).valid = false;
      return;
    }
    if (is_write(r)) {
      ++counts.writes;
      if (hit >= 0) touch(set, hit);
      if (hit < 0 && r.be == ~uint64_t{0}) allocate(set, tag, faulty);
      return;
    }
    if (hit >= 0) {
      ++counts.hits_or_merges;
      touch(set, hit);
      return;
    }
    ++counts.misses;
    allocate(set, tag, faulty);
  }
  void invalidate_all() {
    for (auto& w : ways_of_) w.valid = false;
  }
  Counts counts;

 private:
  // A read miss's fill or a whole-line write takes the lowest invalid way,
  // else the least recently used one.
  void allocate(unsigned set, uint32_t tag, bool faulty) {
    unsigned victim = ways_;
    for (unsigned w = 0; w < ways_ && victim == ways_; ++w)
      if (!way(set, w).valid) victim = w;
    if (victim == ways_) {
      for (unsigned w = 0; w < ways_; ++w)
        if (way(set, w).age == ways_ - 1) victim = w;
      ++counts.evictions;
    }
    way(set, victim).valid = !faulty;
    way(set, victim).tag = tag;
    touch(set, victim);
  }
  struct Way {
    bool valid = false;
    uint32_t tag = 0;
    unsigned age = 0;
  };
  Way& way(unsigned set, unsigned w) { return ways_of_[set * ways_ + w]; }
  void touch(unsigned set, unsigned w) {
    const unsigned age = way(set, w).age;
    for (unsigned v = 0; v < ways_; ++v)
      if (way(set, v).age < age) ++way(set, v).age;
    way(set, w).age = 0;
  }
  unsigned sets_, ways_;
  std::vector<Way> ways_of_;
};

// The unit, its DRAM and its requester; one call of cycle() is one clock.
template <typename Model>
class Harness {
 public:
  Harness(unsigned set_count, unsigned way_count, unsigned mshr_count, uint32_t seed)
      : sets(set_count), ways(way_count), mshrs(mshr_count), rng_(seed), ref_cache_(set_count, way_count) {
    bench_.reset();
    bench_->inv_i = 0;
    bench_->in_req_valid_i = 0;
    bench_->ext_rsp_valid_i = 0;
  }

  // The address of the line with index `n` in set `set`.
  uint32_t line_addr(unsigned set, unsigned n) const { return kBase + (n * sets + set) * 64; }

  // Knobs: the percentage of cycles each side is willing, DRAM's latency.
  unsigned offer_pct = 70, rsp_ready_pct = 70, ext_ready_pct = 70;
  unsigned min_latency = 1, max_latency = 12;
  std::set<uint32_t> faulty;  // lines DRAM answers with ILLEGAL_ADDRESS
  std::set<uint32_t> slow;    // lines DRAM answers after slow_latency cycles
  unsigned slow_latency = 100;

  void send(const MemReq& r) { to_send_.push_back(r); }
  MemReq read(uint32_t addr, unsigned kind = kestrel::contract::kMemRead) {
    MemReq r;
    r.kind = kind;
    r.addr = addr;
    r.tag = next_tag_++;
    return r;
  }
  MemReq write(uint32_t addr, uint64_t be, uint8_t fill_seed, bool local = false) {
    MemReq r;
    r.kind = local ? kestrel::contract::kMemLocal : kestrel::contract::kMemWrite;
    r.write = true;
    r.addr = addr;
    r.be = be;
    for (unsigned i = 0; i < 64; ++i) r.wdata[i] = static_cast<uint8_t>(fill_seed * 31 + i);
    r.tag = next_tag_++;
    return r;
  }
  // An atomic swap of the word at `offset` (the bench's DRAM performs it as
  // kestrel_mem_atomic would: the old line back, the operand written).
  MemReq swap(uint32_t addr, unsigned offset, uint32_t value) {
    MemReq r;
    r.kind = kestrel::contract::kMemWrite;
    r.write = true;
    r.addr = addr;
    r.amo = true;
    r.amo_op = kestrel::contract::kAmoSwap;
    r.be = uint64_t{0xF} << offset;
    std::memcpy(r.wdata + offset, &value, 4);
    r.tag = next_tag_++;
    return r;
  }

  // Runs until every request sent has been answered and DRAM is idle.
  void drain(unsigned limit = 100000) {
    for (unsigned i = 0; i < limit; ++i) {
      if (to_send_.empty() && !offering_ && expected_.empty() && dram_queue_.empty()) return;
      cycle();
    }
    ADD_FAILURE() << "no progress: " << expected_.size() << " responses outstanding";
  }
  // Sends one request, waits for its answer and returns it.
  MemRsp transact(const MemReq& r) {
    send(r);
    drain();
    if (getenv("L2DBG"))
      printf("addr %x: hits %u misses %u ev %u merges %u\n", r.addr, hits, misses, evictions, merges);
    return last_rsp_;
  }
  // A one-cycle invalidate pulse; returns the cycles inv_busy_o stayed high.
  unsigned invalidate() {
    pulse_inv_ = true;
    cycle();
    unsigned busy = 0;
    while (bench_->inv_busy_o && busy < 1000) {
      ++busy;
      cycle();
    }
    return busy;
  }
  // The host writes DRAM directly (between launches).
  void host_write(uint32_t addr, uint8_t value) {
    dram_.at(addr).fill(value);
    ref_mem_.at(addr).fill(value);
  }

  void cycle() {
    auto& d = bench_.dut();
    if (!offering_ && !to_send_.empty() && pct(offer_pct)) {
      current_ = to_send_.front();
      to_send_.pop_front();
      offering_ = true;
    }
    d.in_req_valid_i = offering_;
    kestrel::rtlbench::pack_req(d.in_req_i.data(), 0, current_);
    const bool rsp_ready = pct(rsp_ready_pct);
    d.in_rsp_ready_i = rsp_ready;
    d.ext_req_ready_i = pct(ext_ready_pct);
    d.inv_i = pulse_inv_;
    // DRAM presents its oldest request's answer once its latency is over
    // (and holds it: nothing changes DRAM while it waits).
    const bool ext_rsp = !dram_queue_.empty() && dram_queue_.front().ready_at <= now_;
    d.ext_rsp_valid_i = ext_rsp;
    MemRsp dram_rsp;
    if (ext_rsp) {
      const MemReq& q = dram_queue_.front().req;
      dram_rsp.tag = q.tag;
      if (faulty.count(q.addr)) {
        dram_rsp.fault = KESTREL_FAULT_ILLEGAL_ADDRESS;
      } else {
        std::memcpy(dram_rsp.rdata, dram_.at(q.addr).data(), 64);
      }
      kestrel::rtlbench::pack_rsp(d.ext_rsp_i.data(), 0, dram_rsp);
    }
    bench_.eval();

    if (offering_ && d.in_req_ready_o) {
      take(current_);
      offering_ = false;
    }
    if (pulse_inv_) {
      // Requests taken up to this cycle count as before the invalidate.
      ref_cache_.invalidate_all();
      pulse_inv_ = false;
    }
    if (d.ext_req_valid_o && d.ext_req_ready_i) {
      const MemReq r = kestrel::rtlbench::unpack_req(d.ext_req_o.data(), 0);
      const unsigned latency =
          slow.count(r.addr) ? slow_latency : min_latency + rng_() % (max_latency - min_latency + 1);
      dram_queue_.push_back({r, now_ + latency});
      if (!r.amo && !is_write(r)) {
        ++dram_reads;
        ++fills_in_flight_;
        max_fills_in_flight = std::max(max_fills_in_flight, fills_in_flight_);
      }
    }
    if (ext_rsp && d.ext_rsp_ready_o) {
      const MemReq q = dram_queue_.front().req;
      if (!faulty.count(q.addr) && (is_write(q) || q.amo)) dram_.write(q.addr, q.be, q.wdata);
      if (!q.amo && !is_write(q)) --fills_in_flight_;
      dram_queue_.pop_front();
    }
    if (d.in_rsp_valid_o && rsp_ready) {
      const MemRsp r = kestrel::rtlbench::unpack_rsp(d.in_rsp_o.data(), 0);
      if (expected_.empty()) {
        ADD_FAILURE() << "a response without a request";
      } else {
        const Expect e = expected_.front();
        expected_.pop_front();
        EXPECT_EQ(r.tag, e.tag) << "out of order";
        EXPECT_EQ(r.fault, e.fault) << "tag " << unsigned{e.tag};
        if (e.check_data && e.fault == KESTREL_FAULT_NONE) {
          EXPECT_EQ(std::memcmp(r.rdata, e.data.data(), 64), 0) << "read data, tag " << unsigned{e.tag};
        }
      }
      last_rsp_ = r;
      ++answered;
    }
    bench_.tick();
    ++now_;
    hits += d.ev_hit_o;
    misses += d.ev_miss_o;
    merges += d.ev_merge_o;
    evictions += d.ev_evict_o;
    writes += d.ev_write_o;
  }

  // The unit's counts against the reference cache's.
  void expect_counts() {
    const Counts& c = ref_cache_.counts;
    EXPECT_EQ(misses, c.misses);
    EXPECT_EQ(hits + merges, c.hits_or_merges);
    EXPECT_EQ(evictions, c.evictions);
    EXPECT_EQ(writes, c.writes);
    EXPECT_EQ(dram_reads, misses) << "a read went to DRAM without a miss";
  }

  uint64_t now() const { return now_; }
  Line dram_line(uint32_t addr) { return dram_.at(addr); }
  Line ref_line(uint32_t addr) { return ref_mem_.at(addr); }
  std::mt19937& rng() { return rng_; }
  // Responses checked against the flat memory unless cleared (a read that
  // must see the cached copy rather than the host's write).
  bool check_data = true;

  const unsigned sets, ways, mshrs;
  unsigned hits = 0, misses = 0, merges = 0, evictions = 0, writes = 0;
  unsigned dram_reads = 0, max_fills_in_flight = 0, answered = 0;

 private:
  struct Expect {
    uint8_t tag;
    unsigned fault;
    bool check_data;
    Line data;
  };
  struct InFlight {
    MemReq req;
    uint64_t ready_at;
  };
  bool pct(unsigned p) { return rng_() % 100 < p; }

  // A request is taken: what it must be answered with, in order.
  void take(const MemReq& r) {
    const bool fault = faulty.count(r.addr) != 0;
    Expect e;
    e.tag = r.tag;
    e.fault = fault ? KESTREL_FAULT_ILLEGAL_ADDRESS : KESTREL_FAULT_NONE;
    e.check_data = check_data && (r.amo || !is_write(r));
    e.data = ref_mem_.at(r.addr);
    if (!fault && (r.amo || is_write(r))) ref_mem_.write(r.addr, r.be, r.wdata);
    expected_.push_back(e);
    ref_cache_.access(r, fault);
  }

  kestrel::rtlbench::Bench<Model> bench_;
  std::mt19937 rng_;
  RefCache ref_cache_;
  FlatMemory dram_, ref_mem_;
  std::deque<MemReq> to_send_;
  std::deque<Expect> expected_;
  std::deque<InFlight> dram_queue_;
  MemReq current_;
  MemRsp last_rsp_;
  bool offering_ = false, pulse_inv_ = false;
  uint8_t next_tag_ = 0;
  uint64_t now_ = 0;
  unsigned fills_in_flight_ = 0;
};

struct Assoc {  // 4 sets x 2 ways, 4 MSHRs
  using Model = Vl2_cache_s4w2m4;
  static constexpr unsigned kSets = 4, kWays = 2, kMshrs = 4;
};
struct Direct {  // 8 sets direct mapped, 1 MSHR
  using Model = Vl2_cache_s8w1m1;
  static constexpr unsigned kSets = 8, kWays = 1, kMshrs = 1;
};

template <typename Config>
class L2Cache : public ::testing::Test {
 protected:
  Harness<typename Config::Model> harness{Config::kSets, Config::kWays, Config::kMshrs, 7};
};
using Configs = ::testing::Types<Assoc, Direct>;
TYPED_TEST_SUITE(L2Cache, Configs);

// A read misses and fills; a partial write to the line hits and goes to
// DRAM; the next read hits and sees the written bytes.  A partial write to a
// line not present goes to DRAM without allocating: the read after it
// misses.  A whole-line write to a line not present allocates it with its
// own bytes: the reads after it hit, with no DRAM read.
TYPED_TEST(L2Cache, ReadAfterWrite) {
  auto& h = this->harness;
  const uint32_t a = h.line_addr(1, 0), b = h.line_addr(2, 0), c = h.line_addr(3, 0);
  h.transact(h.read(a));
  h.transact(h.write(a, 0x00FF00FF00FF00FFull, 3));
  h.transact(h.read(a));
  h.transact(h.write(b, 0x7FFFFFFFFFFFFFFFull, 4));
  h.transact(h.read(b));
  h.transact(h.read(b));
  EXPECT_EQ(h.misses, 2u);
  EXPECT_EQ(h.hits, 2u);
  h.transact(h.write(c, ~0ull, 5));
  h.transact(h.read(c));
  h.transact(h.read(c, kestrel::contract::kMemLocal));
  EXPECT_EQ(h.misses, 2u) << "a whole-line write allocates";
  EXPECT_EQ(h.hits, 4u);
  EXPECT_EQ(h.dram_reads, 2u);
  EXPECT_EQ(h.writes, 3u);
  h.expect_counts();
}

// A warp's spill and reload: whole-line local writes back to back, each read
// right behind its write (merging into the write's allocation while DRAM has
// not answered it); every read gets the written bytes and none reads DRAM.
// A whole-line write evicts like a fill.
TYPED_TEST(L2Cache, WholeLineWritesAllocate) {
  auto& h = this->harness;
  h.offer_pct = h.rsp_ready_pct = h.ext_ready_pct = 100;
  h.min_latency = h.max_latency = 30;
  for (unsigned n = 0; n < h.ways; ++n) {
    const uint32_t a = h.line_addr(2, n);
    h.send(h.write(a, ~0ull, static_cast<uint8_t>(n + 1), /*local=*/true));
    h.send(h.read(a, kestrel::contract::kMemLocal));
  }
  h.drain();
  EXPECT_EQ(h.dram_reads, 0u);
  EXPECT_EQ(h.misses, 0u);
  EXPECT_EQ(h.hits + h.merges, h.ways);
  EXPECT_GT(h.merges, 0u) << "a read behind its write finds the allocation pending";
  EXPECT_EQ(h.evictions, 0u);
  h.transact(h.write(h.line_addr(2, h.ways), ~0ull, 9));  // the set is full: evicts its oldest
  EXPECT_EQ(h.evictions, 1u);
  h.transact(h.read(h.line_addr(2, 0)));
  EXPECT_EQ(h.misses, 1u) << "the oldest line was evicted";
  h.expect_counts();
}

// A whole-line write that DRAM faults allocates nothing; a read merged behind
// it gets its fault, and the next read of the line goes to DRAM.
TYPED_TEST(L2Cache, FaultingWholeLineWriteAllocatesNothing) {
  auto& h = this->harness;
  h.offer_pct = h.rsp_ready_pct = h.ext_ready_pct = 100;
  h.min_latency = h.max_latency = 20;
  const uint32_t bad = h.line_addr(1, 1);
  h.faulty.insert(bad);
  h.send(h.write(bad, ~0ull, 3));
  h.send(h.read(bad));
  h.drain();
  EXPECT_EQ(h.merges, 1u);
  EXPECT_EQ(h.dram_reads, 0u);
  EXPECT_EQ(h.transact(h.read(bad)).fault, unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS});
  EXPECT_EQ(h.dram_reads, 1u);
}

// Throughput and latency with every port willing: a hit takes four cycles
// (taken with its tag read, lookup, data RAM read, answer), and hits stream
// at one per cycle (the cached lines spread over every set and way).
TYPED_TEST(L2Cache, HitsStreamOnePerCycle) {
  auto& h = this->harness;
  h.offer_pct = h.rsp_ready_pct = h.ext_ready_pct = 100;
  for (unsigned s = 0; s < h.sets; ++s)
    for (unsigned n = 0; n < h.ways; ++n) h.transact(h.read(h.line_addr(s, n)));
  uint64_t start = h.now();
  h.transact(h.read(h.line_addr(0, 0)));
  EXPECT_EQ(h.now() - start, 4u) << "cycles from taken to answered, one hit";
  start = h.now();
  constexpr unsigned kHits = 64;
  for (unsigned i = 0; i < kHits; ++i) h.send(h.read(h.line_addr(i % h.sets, (i / h.sets) % h.ways)));
  h.drain();
  EXPECT_EQ(h.now() - start, kHits + 3) << "cycles for a stream of hits";
  EXPECT_EQ(h.hits, kHits + 1);
}

// Filling a set beyond its ways evicts its least recently used line.
TYPED_TEST(L2Cache, EvictionBeyondWays) {
  auto& h = this->harness;
  const unsigned ways = h.ways;
  for (unsigned n = 0; n <= ways; ++n) h.transact(h.read(h.line_addr(3, n)));
  EXPECT_EQ(h.evictions, 1u);
  h.transact(h.read(h.line_addr(3, ways)));  // the newest: still there
  EXPECT_EQ(h.hits, 1u);
  h.transact(h.read(h.line_addr(3, 0)));  // the oldest: evicted
  EXPECT_EQ(h.misses, ways + 2);
  EXPECT_EQ(h.evictions, 2u);
  if (ways > 1) {
    // A hit makes its line the most recent: the next new line evicts another.
    h.transact(h.read(h.line_addr(3, 0)));
    h.transact(h.read(h.line_addr(3, 7)));
    h.transact(h.read(h.line_addr(3, 0)));
    EXPECT_EQ(h.hits, 3u);
  }
  h.expect_counts();
}

// Write-through: DRAM holds every write as soon as it is answered, hit or
// miss (the host reads DRAM directly after a kernel).
TYPED_TEST(L2Cache, WriteThroughReachesDram) {
  auto& h = this->harness;
  const uint32_t a = h.line_addr(0, 1), b = h.line_addr(0, 5);
  h.transact(h.read(a));
  h.transact(h.write(a, 0xF0F0ull, 9));
  EXPECT_EQ(h.dram_line(a), h.ref_line(a));
  h.transact(h.write(b, 0xFFFF000000000000ull, 10, /*local=*/true));
  EXPECT_EQ(h.dram_line(b), h.ref_line(b));
  h.transact(h.read(a));
  EXPECT_EQ(h.writes, 2u);
  h.expect_counts();
}

// Writes of random byte enables (none, one, a few, all) into cached lines
// merge exactly their bytes into the line.
TYPED_TEST(L2Cache, PartialLineWrites) {
  auto& h = this->harness;
  for (unsigned i = 0; i < 40; ++i) {
    const uint32_t a = h.line_addr(i % h.sets, (i / h.sets) % 2);
    uint64_t be = 0;
    switch (i % 4) {
      case 0:
        be = 0;
        break;
      case 1:
        be = uint64_t{1} << (h.rng()() % 64);
        break;
      case 2:
        be = (uint64_t{h.rng()()} << 32) | h.rng()();
        break;
      default:
        be = ~0ull;
    }
    h.transact(h.read(a));
    h.transact(h.write(a, be, static_cast<uint8_t>(i)));
    h.transact(h.read(a));
  }
  h.expect_counts();
}

// Reads of a line whose fill is in flight merge into its MSHR: one DRAM read
// for all of them, each answered in order with the line.
TYPED_TEST(L2Cache, MshrMerge) {
  auto& h = this->harness;
  h.offer_pct = h.rsp_ready_pct = h.ext_ready_pct = 100;
  h.min_latency = h.max_latency = 40;
  const uint32_t a = h.line_addr(2, 3), b = h.line_addr(1, 3);
  h.send(h.read(a));
  h.send(h.read(a, kestrel::contract::kMemFetch));
  h.send(h.read(a));
  h.send(h.read(b));
  h.send(h.read(b));
  h.drain();
  EXPECT_EQ(h.dram_reads, 2u);
  EXPECT_EQ(h.misses, 2u);
  EXPECT_EQ(h.merges, 3u);
  EXPECT_EQ(h.hits, 0u);
  h.expect_counts();
}

// Misses to distinct lines overlap up to the MSHR count, never beyond.
TYPED_TEST(L2Cache, MshrsFull) {
  auto& h = this->harness;
  h.offer_pct = h.rsp_ready_pct = h.ext_ready_pct = 100;
  h.min_latency = h.max_latency = 30;
  for (unsigned i = 0; i < h.mshrs + 3; ++i) h.send(h.read(h.line_addr(i % h.sets, i / h.sets)));
  h.drain();
  EXPECT_EQ(h.max_fills_in_flight, h.mshrs);
  EXPECT_EQ(h.dram_reads, h.mshrs + 3);
  h.expect_counts();
}

// Invalidate: a cached line keeps its old copy after the host writes DRAM
// behind the cache's back; after the invalidate (done in bounded cycles) the
// next read misses and sees the host's data.
TYPED_TEST(L2Cache, InvalidateSeesHostWrites) {
  auto& h = this->harness;
  const uint32_t a = h.line_addr(1, 2);
  h.transact(h.read(a));
  const Line old_line = h.ref_line(a);
  h.host_write(a, 0x5A);
  h.check_data = false;
  const MemRsp cached = h.transact(h.read(a));
  h.check_data = true;
  EXPECT_EQ(std::memcmp(cached.rdata, old_line.data(), 64), 0) << "the hit gives the cached copy";
  EXPECT_EQ(h.hits, 1u);
  EXPECT_LE(h.invalidate(), 2u);
  const MemRsp fresh = h.transact(h.read(a));
  EXPECT_EQ(fresh.rdata[17], 0x5A);
  EXPECT_EQ(h.misses, 2u);
  EXPECT_EQ(h.evictions, 0u);
  // Requests arriving during the invalidate wait and are answered after it.
  h.send(h.read(a));
  h.send(h.read(h.line_addr(0, 0)));
  h.invalidate();
  h.drain();
  h.transact(h.read(a));
  h.expect_counts();
}

// A fault from DRAM passes through to its request and allocates nothing: the
// next read of the line goes to DRAM again; reads merged into a faulting
// fill get its fault; the set keeps working.
TYPED_TEST(L2Cache, FaultPassThrough) {
  auto& h = this->harness;
  const uint32_t bad = h.line_addr(3, 1), good = h.line_addr(3, 0);
  h.faulty.insert(bad);
  h.transact(h.read(good));
  EXPECT_EQ(h.transact(h.read(bad)).fault, unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS});
  EXPECT_EQ(h.transact(h.read(bad)).fault, unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS});
  EXPECT_EQ(h.dram_reads, 3u);
  EXPECT_EQ(h.transact(h.write(bad, ~0ull, 1)).fault, unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS});
  h.expect_counts();
  // Merged reads behind a faulting fill.
  h.offer_pct = h.rsp_ready_pct = h.ext_ready_pct = 100;
  h.min_latency = h.max_latency = 20;
  // (From here a read may merge where the reference, which does not know
  // timing, sees a miss: counts are not compared.)
  const unsigned reads_before = h.dram_reads;
  h.send(h.read(bad));
  h.send(h.read(bad));
  h.drain();
  EXPECT_EQ(h.dram_reads, reads_before + 1);
  EXPECT_EQ(h.merges, 1u);
  // The set still caches good lines (the faulting way was freed).
  const unsigned hits = h.hits;
  h.transact(h.read(good));
  h.transact(h.read(good));
  EXPECT_GE(h.hits, hits + 1);
}

// A miss whose way (the least recently used) still has its fill in flight
// waits for that fill: a way has one fill at a time, so a read merged into
// the new fill is answered with the new fill's fault, not the old one's.
// Here the old fill is slow and faults, the new line is good.
TYPED_TEST(L2Cache, VictimWithFillInFlightWaits) {
  auto& h = this->harness;
  h.offer_pct = h.rsp_ready_pct = h.ext_ready_pct = 100;
  h.min_latency = h.max_latency = 5;
  const uint32_t old_line = h.line_addr(3, 1), new_line = h.line_addr(3, 3);
  h.faulty.insert(old_line);
  h.slow.insert(old_line);
  h.send(h.read(h.line_addr(0, 0)));  // a quick fill that frees its MSHR first
  h.send(h.read(old_line));
  h.send(h.read(h.line_addr(3, 2)));
  h.send(h.read(h.line_addr(1, 0)));  // now every MSHR of the 4 is busy
  h.send(h.read(new_line));           // its victim: old_line's way
  h.send(h.read(new_line));           // merges into new_line's fill
  h.drain();
  EXPECT_EQ(h.answered, 6u);
  h.expect_counts();
}

// An atomic invalidates its line and passes through to DRAM: it gets the old
// line, and the next read misses and sees the new word.
TYPED_TEST(L2Cache, AtomicsInvalidateAndPassThrough) {
  auto& h = this->harness;
  const uint32_t a = h.line_addr(2, 1);
  h.transact(h.read(a));
  h.transact(h.read(a));
  EXPECT_EQ(h.hits, 1u);
  h.transact(h.swap(a, 8, 0xDEADBEEF));
  const MemRsp after = h.transact(h.read(a));
  uint32_t word = 0;
  std::memcpy(&word, after.rdata + 8, 4);
  EXPECT_EQ(word, 0xDEADBEEFu);
  EXPECT_EQ(h.misses, 2u);
  // An atomic on a line not present changes nothing in the cache.
  h.transact(h.read(h.line_addr(0, 0)));
  h.transact(h.swap(h.line_addr(0, 1), 0, 7));
  h.transact(h.read(h.line_addr(0, 0)));
  EXPECT_EQ(h.hits, 2u);
  h.expect_counts();
}

// Random traffic over a few lines per set (reads of every kind, writes with
// random byte enables, atomics, invalidates) with random handshakes and
// latency: every answer in order with its tag and the flat memory's data,
// the counts as the reference cache's, DRAM equal to the flat memory.
TYPED_TEST(L2Cache, RandomMix) {
  auto& h = this->harness;
  const unsigned lines_per_set = h.ways + 2;
  unsigned sent = 0;
  for (unsigned i = 0; i < 10000; ++i) {
    const uint32_t a = h.line_addr(h.rng()() % h.sets, h.rng()() % lines_per_set);
    const unsigned pick = h.rng()() % 40;
    if (pick < 24) {  // reads of every kind
      static constexpr unsigned kKinds[] = {kestrel::contract::kMemRead, kestrel::contract::kMemFetch,
                                            kestrel::contract::kMemLocal};
      h.send(h.read(a, kKinds[pick % 3]));
    } else if (pick < 38) {  // global and local writes, some of whole lines
      const uint64_t be = pick == 37 ? ~0ull : (uint64_t{h.rng()()} << 32) | h.rng()();
      h.send(h.write(a, be, static_cast<uint8_t>(i), pick % 2 == 0));
    } else {
      h.send(h.swap(a, 4 * (h.rng()() % 16), h.rng()()));
    }
    ++sent;
    if (i % 1000 == 999) {  // an invalidate between launches
      h.drain();
      h.invalidate();
    }
  }
  h.drain();
  EXPECT_EQ(h.answered, sent);
  h.expect_counts();
  std::printf(
      "%u requests: %u hits, %u merges, %u misses, %u evictions, %u write-throughs, %u fills in flight at "
      "most\n",
      sent, h.hits, h.merges, h.misses, h.evictions, h.writes, h.max_fills_in_flight);
  EXPECT_GT(h.hits, 400u);
  EXPECT_GT(h.merges, 0u);
  EXPECT_GT(h.evictions, 200u);
  EXPECT_EQ(h.max_fills_in_flight, h.mshrs);
  for (unsigned s = 0; s < h.sets; ++s)
    for (unsigned n = 0; n < lines_per_set; ++n)
      EXPECT_EQ(h.dram_line(h.line_addr(s, n)), h.ref_line(h.line_addr(s, n)));
}

// The same with faulting lines mixed in and invalidates that land while
// requests are in flight: answers and data only (timing decides how many
// reads find a faulting fill in flight).
TYPED_TEST(L2Cache, RandomMixWithFaults) {
  auto& h = this->harness;
  const unsigned lines_per_set = h.ways * 2 + 1;
  for (unsigned s = 0; s < h.sets; s += 2) h.faulty.insert(h.line_addr(s, 1));
  for (unsigned i = 0; i < 3000; ++i) {
    const uint32_t a = h.line_addr(h.rng()() % h.sets, h.rng()() % lines_per_set);
    const unsigned pick = h.rng()() % 10;
    if (pick < 6) {
      h.send(h.read(a));
    } else if (pick < 9) {
      const uint64_t be = i % 4 == 0 ? ~0ull : (uint64_t{h.rng()()} << 32) | h.rng()();
      h.send(h.write(a, be, static_cast<uint8_t>(i)));
    } else {
      h.send(h.swap(a, 0, h.rng()()));
    }
    // Traffic runs while more is queued; now and then an invalidate lands
    // in the middle of it.
    if (i % 8 == 7) {
      for (unsigned c = 0; c < 20; ++c) h.cycle();
    }
    if (i % 300 == 150) h.invalidate();
  }
  h.drain();
  EXPECT_GT(h.merges, 0u);
  for (unsigned s = 0; s < h.sets; ++s)
    for (unsigned n = 0; n < lines_per_set; ++n)
      EXPECT_EQ(h.dram_line(h.line_addr(s, n)), h.ref_line(h.line_addr(s, n)));
}

}  // namespace
