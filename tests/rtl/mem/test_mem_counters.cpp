// Memory-system counter bench (kestrel_mem_counters): random request and
// response handshakes, L2 events and DRAM requests against a C++ reference
// of the window's eleven counters (enum kestrel_mem_counter), START clearing
// them, freezing while the launch does not run, and the in-flight sum that
// gives the mean latency (Little's law) checked against per-request
// latencies measured in the bench.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <deque>
#include <random>

#include "Vmem_counters.h"
#include "kestrel/host_regs.h"
#include "kestrel_contract.hpp"
#include "rtl_test.hpp"
#include "wide_bits.hpp"

namespace {

using Bench = kestrel::rtlbench::Bench<Vmem_counters>;
using Counts = std::array<uint64_t, KESTREL_MEM_CNT_COUNT>;

uint64_t counter(Bench& b, unsigned i) {
  return kestrel::rtlbench::get_bits(b->counters_o.data(), 64 * i, 64);
}

void idle(Bench& b) {
  b->req_taken_i = 0;
  b->rsp_taken_i = 0;
  b->l2_hit_i = b->l2_miss_i = b->l2_merge_i = b->l2_evict_i = b->l2_write_i = 0;
  b->dram_req_taken_i = 0;
  b->const_hit_i = b->const_miss_i = b->const_evict_i = 0;
  b->l1_hit_i = b->l1_miss_i = b->l1_evict_i = 0;
  b->tex_hit_i = b->tex_miss_i = b->tex_desc_miss_i = 0;
}

void expect_counts(Bench& b, const Counts& ref) {
  for (unsigned i = 0; i < KESTREL_MEM_CNT_COUNT; ++i) EXPECT_EQ(counter(b, i), ref[i]) << "counter " << i;
}

// Which counter a request taken with these fields adds to.
unsigned kind_counter(unsigned kind, bool write, bool atomic) {
  using namespace kestrel::contract;
  if (atomic) return KESTREL_MEM_CNT_ATOMICS;
  if (kind == kMemFetch) return KESTREL_MEM_CNT_FETCHES;
  if (kind == kMemWrite || (kind == kMemLocal && write)) return KESTREL_MEM_CNT_WRITES;
  return KESTREL_MEM_CNT_READS;
}

TEST(MemCounters, CountsRequestsByKindAndEvents) {
  Bench b;
  idle(b);
  b.reset();
  std::mt19937 rng(7);
  for (int round = 0; round < 3; ++round) {
    b->clear_i = 1;
    b->enable_i = 0;
    b.tick();
    b->clear_i = 0;
    Counts ref{};
    expect_counts(b, ref);
    unsigned inflight = 0;
    for (int cycle = 0; cycle < 4000; ++cycle) {
      const bool enable = rng() % 8 != 0;
      b->enable_i = enable;
      // The sum adds the requests in flight at the start of the cycle.
      if (enable) ref[KESTREL_MEM_CNT_INFLIGHT_CYCLES] += inflight;
      const bool req = rng() % 2 == 0;
      const bool rsp = inflight > 0 && rng() % 2 == 0;
      const unsigned kind = rng() % 4;
      const bool write = rng() % 2 == 0;
      const bool atomic = rng() % 5 == 0;
      b->req_taken_i = req;
      b->req_kind_i = kind;
      b->req_write_i = write;
      b->req_atomic_i = atomic;
      b->rsp_taken_i = rsp;
      const std::array<bool, 6> events = {rng() % 3 == 0, rng() % 3 == 0, rng() % 5 == 0,
                                          rng() % 5 == 0, rng() % 4 == 0, rng() % 2 == 0};
      b->l2_hit_i = events[0];
      b->l2_miss_i = events[1];
      b->l2_merge_i = events[2];
      b->l2_evict_i = events[3];
      b->l2_write_i = events[4];
      b->dram_req_taken_i = events[5];
      // The two SMs' constant and L1 caches and texture units: a pulse per SM, summed.
      const unsigned const_hits = rng() % 4, const_misses = rng() % 4, const_evicts = rng() % 4;
      const unsigned l1_hits = rng() % 4, l1_misses = rng() % 4, l1_evicts = rng() % 4;
      b->const_hit_i = const_hits;
      b->const_miss_i = const_misses;
      b->const_evict_i = const_evicts;
      b->l1_hit_i = l1_hits;
      b->l1_miss_i = l1_misses;
      b->l1_evict_i = l1_evicts;
      const unsigned tex_hits = rng() % 4, tex_misses = rng() % 4, tex_desc_misses = rng() % 4;
      b->tex_hit_i = tex_hits;
      b->tex_miss_i = tex_misses;
      b->tex_desc_miss_i = tex_desc_misses;
      if (enable) {
        ref[KESTREL_MEM_CNT_TEX_HITS] += __builtin_popcount(tex_hits);
        ref[KESTREL_MEM_CNT_TEX_MISSES] += __builtin_popcount(tex_misses);
        ref[KESTREL_MEM_CNT_TEX_DESC_MISSES] += __builtin_popcount(tex_desc_misses);
        ref[KESTREL_MEM_CNT_L1_HITS] += __builtin_popcount(l1_hits);
        ref[KESTREL_MEM_CNT_L1_MISSES] += __builtin_popcount(l1_misses);
        ref[KESTREL_MEM_CNT_L1_EVICTIONS] += __builtin_popcount(l1_evicts);
        ref[KESTREL_MEM_CNT_CONST_HITS] += __builtin_popcount(const_hits);
        ref[KESTREL_MEM_CNT_CONST_MISSES] += __builtin_popcount(const_misses);
        ref[KESTREL_MEM_CNT_CONST_EVICTIONS] += __builtin_popcount(const_evicts);
        if (req) ++ref[kind_counter(kind, write, atomic)];
        ref[KESTREL_MEM_CNT_L2_HITS] += events[0];
        ref[KESTREL_MEM_CNT_L2_MISSES] += events[1];
        ref[KESTREL_MEM_CNT_L2_MERGES] += events[2];
        ref[KESTREL_MEM_CNT_L2_EVICTIONS] += events[3];
        ref[KESTREL_MEM_CNT_L2_WRITES] += events[4];
        ref[KESTREL_MEM_CNT_DRAM_REQUESTS] += events[5];
      }
      inflight += static_cast<unsigned>(req) - static_cast<unsigned>(rsp);
      b.tick();
    }
    expect_counts(b, ref);
    // Frozen while the launch does not run, whatever happens.
    idle(b);
    b->enable_i = 0;
    b->req_taken_i = 1;
    b->l2_hit_i = 1;
    for (int i = 0; i < 10; ++i) b.tick();
    inflight += 10;
    idle(b);
    expect_counts(b, ref);
    // Drain what is in flight (not counted: disabled) for the next round.
    b->rsp_taken_i = 1;
    for (unsigned i = 0; i < inflight; ++i) b.tick();
    b->rsp_taken_i = 0;
  }
}

// Requests with known latencies: the in-flight sum divided by the requests
// is their mean latency, as the runtime's average_latency assumes.
TEST(MemCounters, InflightSumIsTheLatencySum) {
  Bench b;
  idle(b);
  b.reset();
  b->clear_i = 1;
  b.tick();
  b->clear_i = 0;
  b->enable_i = 1;
  std::mt19937 rng(3);
  std::deque<int> issued_at;  // answered in order
  uint64_t latency_sum = 0, requests = 0;
  for (int cycle = 0; cycle < 5000 || !issued_at.empty(); ++cycle) {
    const bool req = cycle < 5000 && rng() % 3 == 0;
    // In order, each at least 5 cycles after it was taken.
    const bool rsp = !issued_at.empty() && cycle - issued_at.front() >= 5 && rng() % 2 == 0;
    b->req_taken_i = req;
    b->req_kind_i = kestrel::contract::kMemRead;
    b->req_atomic_i = 0;
    b->rsp_taken_i = rsp;
    if (rsp) {
      latency_sum += static_cast<uint64_t>(cycle - issued_at.front());
      issued_at.pop_front();
    }
    if (req) {
      issued_at.push_back(cycle);
      ++requests;
    }
    b.tick();
  }
  idle(b);
  b.tick();
  EXPECT_EQ(counter(b, KESTREL_MEM_CNT_READS), requests);
  EXPECT_EQ(counter(b, KESTREL_MEM_CNT_INFLIGHT_CYCLES), latency_sum);
  EXPECT_GT(latency_sum, 5 * requests);
}

}  // namespace
