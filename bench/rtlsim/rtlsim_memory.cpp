// Memory-system microbenchmarks on the Verilated GPU (issue 15's
// "Benchmarks"): one SM of 8 warps x 32 lanes (RV64, the "bench1" model)
// behind the rtlsim harness's DRAM model (docs/memory-system.md).
//
// 1. Pointer chase: one thread follows a chain of pointers, one per 64-byte
//    line, in a random order; cycles per hop at DRAM latency 20, 100 and 300
//    (the ddr3 preset's bus and rows, its latency overridden), one chain per
//    level of the hierarchy: 4096 lines (256 KiB) visited once each, which
//    every cache misses (DRAM); 1024 lines (64 KiB) of a writable page
//    followed round and round, which the 16 KiB L1 misses every time (each
//    of its 4-way sets cycles through some 16 lines, replaced in turn) and
//    the 128 KiB L2 holds after the first round (an L2 hit); 32 lines (2 KiB)
//    of a writable page (an L1 hit after the first round) and of a read-only
//    page (a constant-cache hit).  The cached rows run the chain twice, with
//    one round and with four more, and report the difference per extra
//    hop, so the first round's misses cancel out.
// 2. Coalescing: one warp loads word lane * stride for strides 1..32; the
//    line requests per warp access (KESTREL_CNT_MEM_REQUESTS) and the reads
//    answered by the SM's caches or the memory side must equal the number
//    of distinct 64-byte lines the 32 addresses touch (guide 5.3.2); after
//    the first repetition each is answered by the SM's constant cache (the
//    array is on a read-only page) or the L2, and none by DRAM.
// 3. Shared-memory banks: one warp loads shared word lane * stride; the
//    passes per access (KESTREL_CNT_SHARED_PASSES over
//    KESTREL_CNT_SHARED_ACCESSES) must equal the largest number of distinct
//    words one of the 32 banks must deliver (guide G.3.3 and G.5.3; docs/isa.md
//    2.3).
//
// Speeds are figures, never asserted.  The program exits non-zero when a
// kernel's result is wrong, a launch faults, or a request or pass count
// differs from the rule it is compared with.  Sections 2 and 3 run each
// pattern twice, with few and with many repetitions, and report the
// difference per extra repetition, so the launch's own code fetches,
// parameter loads and result stores cancel out.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench_launch.hpp"
#include "kestrel/abi.h"
#include "kestrel/model/rv_assembler.hpp"

namespace {

using namespace kestrel::model::rvasm;
using kestrel::bench::kArrays;
using kestrel::bench::kLanes;
using kestrel::bench::kLayout;
using kestrel::bench::kWarps;
using kestrel::bench::kXlen;

constexpr uint32_t kLineBytes = 64;
constexpr uint32_t kBankCount = kLanes;  // docs/isa.md 2.3: one bank of 32-bit words per lane
constexpr uint32_t kMaxStride = 32;      // words
// A launch's results (the chase's pointer and cycles, the sweeps' sums) go to
// their own pages after the arrays.
constexpr uint64_t kResults = kArrays + 0x80000;
// The shared window of the bank sweep, clear of every other range by more
// than the guards of 64 KiB on each side (docs/isa.md section 4).
constexpr uint64_t kSharedBase = KESTREL_GLOBAL_BASE + 0xC00000;
constexpr uint32_t kSharedBytes = kLanes * kMaxStride * 4;

using Options = std::map<std::string, std::string>;

struct DramDelta {
  kestrel::DramCounters before, after;
  uint64_t reads() const { return after.reads - before.reads; }
  double row_hit_rate() const {
    const uint64_t requests = after.reads + after.writes - before.reads - before.writes;
    return requests == 0 ? 0 : static_cast<double>(after.row_hits - before.row_hits) / requests;
  }
  double read_latency() const {
    return reads() == 0
               ? 0
               : static_cast<double>(after.read_latency_cycles - before.read_latency_cycles) / reads();
  }
};

uint64_t read_result(kestrel::Transport& gpu, uint64_t addr) {
  uint64_t value = 0;
  gpu.read_mem(addr, &value, sizeof value);
  return value;
}

// ---------------------------------------------------------------- pointer chase

// Parameters: the chain's first line, where to store the result, the hops.
// The thread times its own loop with the cycle CSR, so the launch's start and
// end are not in the figure; a warp issues nothing after a load until the load
// completes, so every hop is a full round trip.  The loop's code shares the
// prologue's line and is fetched before the first cycle read.
Assembler chase_kernel() {
  Assembler a(kXlen);
  a.ld(s2, a0, 0);   // the pointer
  a.ld(s3, a0, 8);   // the result
  a.ld(s4, a0, 16);  // hops left
  a.csrr(t0, KESTREL_CSR_CYCLE);
  a.bind("hop");
  a.ld(s2, s2, 0);
  a.addi(s4, s4, -1);
  a.bne(s4, zero, "hop");
  a.csrr(t1, KESTREL_CSR_CYCLE);
  a.sub(t1, t1, t0);
  a.sd(s2, s3, 0);
  a.sd(t1, s3, 8);
  a.kx_exit();
  return a;
}

// A single cycle through `lines` lines from `base` in a random order (the
// Fisher-Yates shuffle on a fixed seed): the chain's next-pointer is the
// first doubleword of each line.  Returns the order, starting at line 0.
std::vector<uint32_t> write_chain(kestrel::Transport& gpu, uint64_t base, uint32_t lines, uint32_t seed) {
  std::vector<uint32_t> order(lines);
  for (uint32_t i = 0; i < lines; ++i) order[i] = i;
  std::mt19937 rng(seed);
  for (uint32_t i = lines - 1; i > 1; --i) std::swap(order[i], order[1 + rng() % i]);
  std::vector<uint64_t> image(uint64_t{lines} * kLineBytes / 8, 0);
  for (uint32_t i = 0; i < lines; ++i) {
    const uint32_t next = order[(i + 1) % lines];
    image[uint64_t{order[i]} * kLineBytes / 8] = base + uint64_t{next} * kLineBytes;
  }
  gpu.write_mem(base, image.data(), image.size() * 8);
  return order;
}

struct Chain {
  const char* label;
  uint32_t lines;
  bool writable;    // the chain's pages: writable (L1) or read-only (constant cache)
  bool difference;  // time the extra rounds only (a level that holds the chain)
};

struct ChaseFigures {
  double cycles_per_hop = 0, dram_read_latency = 0, row_hit_rate = 0;
  uint64_t l1_hits = 0, const_hits = 0, l2_hits = 0, l2_lookups = 0, cycles = 0;
  bool correct = false;
};

ChaseFigures chase(const Options& dram, const Chain& chain, uint32_t hops) {
  const auto harness = kestrel::bench::make_bench1(dram);
  kestrel::Transport& gpu = *harness;
  const uint64_t chain_bytes = uint64_t{chain.lines} * kLineBytes;
  kestrel::bench::map(gpu, kArrays,
                      static_cast<uint32_t>((chain_bytes + KESTREL_PAGE_SIZE - 1) / KESTREL_PAGE_SIZE),
                      chain.writable ? KESTREL_PAGE_READ | KESTREL_PAGE_WRITE : KESTREL_PAGE_READ);
  kestrel::bench::map(gpu, kResults, 1, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  const std::vector<uint32_t> order = write_chain(gpu, kArrays, chain.lines, 15);
  DramDelta d;
  gpu.dram_counters(d.before);
  kestrel::bench::run_launch(gpu, kLayout, chase_kernel().finish(), {kArrays, kResults, hops}, 1, 1,
                             "rtlsim_memory");
  gpu.dram_counters(d.after);
  ChaseFigures r;
  const uint64_t expected = kArrays + uint64_t{order[hops % chain.lines]} * kLineBytes;
  r.correct = read_result(gpu, kResults) == expected;
  r.cycles = read_result(gpu, kResults + 8);
  r.cycles_per_hop = static_cast<double>(r.cycles) / hops;
  r.dram_read_latency = d.read_latency();
  r.row_hit_rate = d.row_hit_rate();
  r.l1_hits = kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_L1_HITS);
  r.const_hits = kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_CONST_HITS);
  r.l2_hits = kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_L2_HITS);
  r.l2_lookups = r.l2_hits + kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_L2_MISSES) +
                 kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_L2_MERGES);
  return r;
}

bool run_chase() {
  const Chain chains[] = {{"256 KiB (4096 lines): DRAM", 4096, true, false},
                          {"64 KiB (1024 lines): L2 hit", 1024, true, true},
                          {"2 KiB writable: L1 hit", 32, true, true},
                          {"2 KiB read-only: constant hit", 32, false, true}};
  const unsigned latencies[] = {20, 100, 300};
  std::printf(
      "\n1. Pointer chase: one thread, dependent 8-byte loads, one pointer per 64-byte line in a random "
      "order.\n   DRAM: the ddr3 preset (16 B/cycle, 8 banks of 2 KiB rows, activate = precharge = 2) "
      "with its latency set.\n   The DRAM row visits 4096 lines once; the cached rows follow their chain "
      "one round and then five, and give the\n   extra rounds' cycles per hop; the hit counts are the "
      "long run's (its code and parameters too).\n");
  std::printf("%-8s %-32s %11s %14s %12s %9s %9s %9s %9s\n", "latency", "chain", "cycles/hop",
              "DRAM read lat", "beyond DRAM", "row hits", "L2 hits", "L1 hits", "const hits");
  bool ok = true;
  for (const unsigned latency : latencies) {
    for (const Chain& chain : chains) {
      const Options dram{{"dram", "ddr3"}, {"mem_latency", std::to_string(latency)}};
      const uint32_t first = chain.difference ? chain.lines : 512;
      const ChaseFigures r = chase(dram, chain, first);
      ChaseFigures shown = r;
      bool correct = r.correct;
      if (chain.difference) {
        const ChaseFigures longer = chase(dram, chain, first + 4 * chain.lines);
        correct = correct && longer.correct;
        shown = longer;
        shown.cycles_per_hop = static_cast<double>(longer.cycles - r.cycles) / (4.0 * chain.lines);
      }
      // What a DRAM hop costs beyond the DRAM model's own read latency: the
      // load/store unit, the caches' lookups, the crossbar, the atomic unit
      // and the loop's issue.
      char beyond[32] = "-";
      if (!chain.difference)
        std::snprintf(beyond, sizeof beyond, "%.1f", shown.cycles_per_hop - shown.dram_read_latency);
      std::printf("%-8u %-32s %11.1f %14.1f %12s %8.1f%% %9llu %9llu %9llu%s\n", latency, chain.label,
                  shown.cycles_per_hop, shown.dram_read_latency, beyond, 100.0 * shown.row_hit_rate,
                  static_cast<unsigned long long>(shown.l2_hits),
                  static_cast<unsigned long long>(shown.l1_hits),
                  static_cast<unsigned long long>(shown.const_hits), correct ? "" : "  WRONG POINTER");
      ok = ok && correct;
    }
  }
  return ok;
}

// ------------------------------------------------------ strided global loads

// Parameters: the array, the per-lane sums, repetitions, the stride in bytes.
// Lane l loads word l * stride `repetitions` times and stores the sum.  The
// repetitions and stride are parameters, so every launch runs the same code.
Assembler strided_kernel(bool shared) {
  Assembler a(kXlen);
  if (shared)
    a.csrr(s2, KESTREL_CSR_SHARED_BASE);
  else
    a.ld(s2, a0, 0);
  a.ld(s3, a0, 8);
  a.ld(s4, a0, 16);
  a.ld(s5, a0, 24);
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.mul(t1, t0, s5);
  a.add(t1, s2, t1);  // this lane's word
  if (shared) {
    // The word's value: 3 * lane + 1, written before the loads read it.
    a.slli(t2, t0, 1);
    a.add(t2, t2, t0);
    a.addi(t2, t2, 1);
    a.sw(t2, t1, 0);
  }
  a.li(s6, 0);
  a.bind("repeat");
  a.lw(t2, t1, 0);
  a.add(s6, s6, t2);
  a.addi(s4, s4, -1);
  a.bne(s4, zero, "repeat");
  a.slli(t0, t0, 3);
  a.add(t0, s3, t0);
  a.sd(s6, t0, 0);
  a.kx_exit();
  return a;
}

uint32_t global_word_value(uint32_t word) { return 7 * word + 3; }
uint32_t shared_word_value(uint32_t lane) { return 3 * lane + 1; }

// The rule each sweep is compared with, from the 32 addresses of a warp access.
uint32_t distinct_lines(uint64_t base, uint32_t stride_words) {
  std::set<uint64_t> lines;
  for (uint32_t lane = 0; lane < kLanes; ++lane)
    lines.insert((base + uint64_t{lane} * stride_words * 4) / kLineBytes);
  return static_cast<uint32_t>(lines.size());
}

uint32_t bank_passes(uint64_t base, uint32_t stride_words) {
  std::map<uint32_t, std::set<uint64_t>> words_of_bank;
  for (uint32_t lane = 0; lane < kLanes; ++lane) {
    const uint64_t word = (base + uint64_t{lane} * stride_words * 4) / 4;
    words_of_bank[static_cast<uint32_t>(word % kBankCount)].insert(word);
  }
  size_t passes = 0;
  for (const auto& bank : words_of_bank) passes = std::max(passes, bank.second.size());
  return static_cast<uint32_t>(passes);
}

struct LaunchCounts {
  uint64_t cycles, mem_requests, shared_accesses, shared_passes, dram_reads, side_reads, l2_hits,
      sm_cache_hits;
  bool correct;
};

LaunchCounts strided_launch(kestrel::Transport& gpu, bool shared, uint32_t stride, uint64_t repetitions) {
  DramDelta d;
  gpu.dram_counters(d.before);
  kestrel::bench::run_launch(gpu, kLayout, strided_kernel(shared).finish(),
                             {kArrays, kResults, repetitions, uint64_t{stride} * 4}, 1, kLanes,
                             "rtlsim_memory");
  gpu.dram_counters(d.after);
  LaunchCounts c;
  c.cycles = kestrel::bench::counter(gpu, KESTREL_CNT_CYCLES);
  c.mem_requests = kestrel::bench::counter(gpu, KESTREL_CNT_MEM_REQUESTS);
  c.shared_accesses = kestrel::bench::counter(gpu, KESTREL_CNT_SHARED_ACCESSES);
  c.shared_passes = kestrel::bench::counter(gpu, KESTREL_CNT_SHARED_PASSES);
  c.dram_reads = d.reads();
  c.side_reads = kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_READS);
  c.l2_hits = kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_L2_HITS);
  c.sm_cache_hits = kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_CONST_HITS) +
                    kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_L1_HITS);
  std::vector<uint64_t> sums(kLanes);
  gpu.read_mem(kResults, sums.data(), sums.size() * 8);
  c.correct = true;
  for (uint32_t lane = 0; lane < kLanes; ++lane) {
    const uint32_t value = shared ? shared_word_value(lane) : global_word_value(lane * stride);
    c.correct = c.correct && sums[lane] == repetitions * value;
  }
  return c;
}

constexpr uint64_t kFewRepetitions = 4, kManyRepetitions = 68;

bool run_coalescing() {
  const auto harness = kestrel::bench::make_bench1({{"dram", "ddr3"}});
  kestrel::Transport& gpu = *harness;
  const uint32_t words = kLanes * kMaxStride;
  kestrel::bench::map(gpu, kArrays, words * 4 / KESTREL_PAGE_SIZE, KESTREL_PAGE_READ);
  kestrel::bench::map(gpu, kResults, 1, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  std::vector<uint32_t> array(words);
  for (uint32_t i = 0; i < words; ++i) array[i] = global_word_value(i);
  gpu.write_mem(kArrays, array.data(), array.size() * 4);
  std::printf(
      "\n2. Coalescing (guide 5.3.2): one warp of 32 lanes, lane l loads 32-bit word l * stride of a "
      "line-aligned array;\n   per warp access (the difference of %llu and %llu repetitions), DRAM: the "
      "ddr3 preset (latency 24).\n",
      static_cast<unsigned long long>(kFewRepetitions), static_cast<unsigned long long>(kManyRepetitions));
  std::printf("%-7s %14s %15s %12s %12s %10s %12s %16s\n", "stride", "line requests", "distinct lines",
              "SM caches", "memory side", "L2 hits", "DRAM reads", "cycles/access");
  bool ok = true;
  const double extra = static_cast<double>(kManyRepetitions - kFewRepetitions);
  for (uint32_t stride = 1; stride <= kMaxStride; ++stride) {
    const LaunchCounts few = strided_launch(gpu, false, stride, kFewRepetitions);
    const LaunchCounts many = strided_launch(gpu, false, stride, kManyRepetitions);
    const double requests = static_cast<double>(many.mem_requests - few.mem_requests) / extra;
    const double side_reads = static_cast<double>(many.side_reads - few.side_reads) / extra;
    const double l2_hits = static_cast<double>(many.l2_hits - few.l2_hits) / extra;
    const double sm_cache_hits = static_cast<double>(many.sm_cache_hits - few.sm_cache_hits) / extra;
    const double dram_reads = static_cast<double>(many.dram_reads - few.dram_reads) / extra;
    const uint32_t expected = distinct_lines(kArrays, stride);
    // Every repeated line is in the SM's constant cache (the array is
    // read-only; 4 KiB, as large as the array) or the L2 by then: each line
    // request is answered by one of them, and no more DRAM reads.
    const bool match = requests == expected && sm_cache_hits + side_reads == expected &&
                       l2_hits == side_reads && dram_reads == 0;
    const bool correct = few.correct && many.correct;
    std::printf("%-7u %14.2f %15u %12.2f %12.2f %10.2f %12.2f %16.1f%s%s\n", stride, requests, expected,
                sm_cache_hits, side_reads, l2_hits, dram_reads,
                static_cast<double>(many.cycles - few.cycles) / extra, match ? "" : "  MISMATCH",
                correct ? "" : "  WRONG SUM");
    ok = ok && match && correct;
  }
  return ok;
}

// ------------------------------------------------------ shared-memory banks

bool run_banks() {
  const auto harness = kestrel::bench::make_bench1({{"dram", "ddr3"}});
  kestrel::Transport& gpu = *harness;
  kestrel::bench::map(gpu, kResults, 1, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  gpu.write_reg(KESTREL_REG_SHARED_BASE, static_cast<uint32_t>(kSharedBase));
  gpu.write_reg(KESTREL_REG_SHARED_STATIC, 0);
  gpu.write_reg(KESTREL_REG_SHARED_DYN, kSharedBytes);
  std::printf(
      "\n3. Shared-memory banks (guide G.3.3, G.5.3; docs/isa.md 2.3): one warp, lane l stores, then loads, "
      "shared word l * stride;\n   %u banks of 4 bytes; per load (the difference of %llu and %llu "
      "repetitions).\n",
      kBankCount, static_cast<unsigned long long>(kFewRepetitions),
      static_cast<unsigned long long>(kManyRepetitions));
  std::printf("%-7s %16s %16s %16s\n", "stride", "passes/access", "guide's rule", "cycles/access");
  bool ok = true;
  const double extra = static_cast<double>(kManyRepetitions - kFewRepetitions);
  for (uint32_t stride = 1; stride <= kMaxStride; ++stride) {
    const LaunchCounts few = strided_launch(gpu, true, stride, kFewRepetitions);
    const LaunchCounts many = strided_launch(gpu, true, stride, kManyRepetitions);
    const uint64_t accesses = many.shared_accesses - few.shared_accesses;
    const double passes = static_cast<double>(many.shared_passes - few.shared_passes) / accesses;
    const uint32_t expected = bank_passes(kSharedBase, stride);
    // Every access of a launch (the store too) has the same pattern, so each
    // launch's own ratio must match as well.
    const bool match = accesses == kManyRepetitions - kFewRepetitions && passes == expected &&
                       few.shared_passes == expected * few.shared_accesses &&
                       many.shared_passes == expected * many.shared_accesses;
    const bool correct = few.correct && many.correct;
    std::printf("%-7u %16.2f %16u %16.1f%s%s\n", stride, passes, expected,
                static_cast<double>(many.cycles - few.cycles) / extra, match ? "" : "  MISMATCH",
                correct ? "" : "  WRONG SUM");
    ok = ok && match && correct;
  }
  return ok;
}

}  // namespace

int main() {
  std::printf("rtlsim_memory: the Verilated kestrel_gpu, 1 SM x %u warps x %u lanes, RV%u\n", kWarps, kLanes,
              kXlen);
  const bool chase_ok = run_chase();
  const bool coalescing_ok = run_coalescing();
  const bool banks_ok = run_banks();
  if (!(chase_ok && coalescing_ok && banks_ok)) {
    std::fprintf(stderr, "rtlsim_memory: a kernel's result or a request/pass count is wrong (see above)\n");
    return 1;
  }
  return 0;
}
