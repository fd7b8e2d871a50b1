// Load/store unit bench (4 lanes, RV64, 1 KiB shared memory): random loads
// and stores of every size, sign and window against a byte-array reference
// with a memory model of random latency and back-pressure; the number of
// line requests (coalescing); and directed faults, each reported for the
// lowest faulting lane with the kinds of docs/isa.md section 7.  Atomics:
// shared ones at the banks, global and local ones as one request per lane
// (every op, CAS with matching and failing compare values, kx.amofadd.s
// against the model's fadd; a shared float-add pass writes its banks back one
// at a time through the LSU's one adder)
// that the memory model performs as kestrel_mem_atomic does; the bank passes
// of every access against the functional model's rule (docs/isa.md 2.3);
// and the rate: shared accesses without bank conflicts at one warp
// instruction per cycle through the LSU's queue and front.
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

#include "Vlsu4.h"
#include "amo_ref.hpp"
#include "kestrel/abi.h"
#include "kestrel_contract.hpp"
#include "rtl_test.hpp"

namespace {

constexpr unsigned kLanes = 4, kXlen = 64, kLine = 64;
constexpr uint32_t kSharedBytes = 1024;
constexpr uint32_t kDramBytes = 64 * 1024;
constexpr uint32_t kSharedBase = 0x0800'0000;  // shared window (launch register)
constexpr uint32_t kSharedSize = 512;          // this block's shared bytes
constexpr uint32_t kSharedPhys = 256;          // the block's region in the SM RAM
constexpr uint32_t kStackBytes = 256;
constexpr uint32_t kLocalBacking = KESTREL_GLOBAL_BASE + 0x8000;  // the warp's kLanes * kStackBytes

namespace contract = kestrel::contract;

// mem_req_t as words of the Verilated port (the generated layout).
constexpr unsigned kReqWords = contract::mem_req::kWords;

// kestrel_pkg::mem_kind_e, from the generated contract.
enum Kind : unsigned {
  kRead = contract::kMemRead,
  kWrite = contract::kMemWrite,
  kFetch = contract::kMemFetch,
  kLocal = contract::kMemLocal
};

struct Access {
  bool store = false;
  bool amo = false;
  unsigned amo_op = 0;
  unsigned size_log2 = 0;
  bool is_unsigned = false;
  uint32_t mask = 0;
  std::array<uint64_t, kLanes> addr{};
  std::array<uint64_t, kLanes> data{};
  std::array<uint64_t, kLanes> cmp{};  // a CAS's compare values
};

struct Outcome {
  int fault = KESTREL_FAULT_NONE;
  unsigned fault_lane = 0;
  std::array<uint64_t, kLanes> data{};
  unsigned line_requests = 0;
  bool shared_access = false;  // the completion's counter events
  unsigned shared_passes = 0;
  unsigned atomics = 0;
  unsigned cycles = 0;  // from the request to the completion
};

// The memory side: DRAM bytes, page permissions and a pipeline of pending
// responses with random latency; it answers a failed page check with a fault.
class MemoryModel {
 public:
  MemoryModel()
      : dram(kDramBytes, 0), perms(kDramBytes / KESTREL_PAGE_SIZE, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE) {}

  std::vector<uint8_t> dram;
  std::vector<uint8_t> perms;
  std::mt19937 rng{7};
  unsigned requests = 0;
  unsigned atomics = 0;
  kestrel::rtlbench::LineReservations reservations;

  void drive(Vlsu4& dut) {
    dut.mem_req_ready_i = rng() % 4 != 0;
    const bool respond = !queue_.empty() && queue_.front().ready_at <= now_;
    dut.mem_rsp_valid_i = respond;
    if (respond) {
      const Pending& p = queue_.front();
      contract::MemRsp rsp;
      rsp.fault = uint8_t(p.fault);
      std::memcpy(rsp.rdata.data(), p.words.data(), kLine);
      std::array<uint32_t, contract::mem_rsp::kWords> packed{};
      rsp.pack(packed.data());
      for (unsigned w = 0; w < contract::mem_rsp::kWords; ++w) dut.mem_rsp_i[w] = packed[w];
    }
  }

  // Called after the edge with the values the DUT showed before it.
  void observe(bool req_fire, const std::array<uint32_t, kReqWords>& req, bool rsp_fire) {
    ++now_;
    if (rsp_fire) queue_.pop_front();
    if (!req_fire) return;
    ++requests;
    const contract::MemReq r = contract::MemReq::unpack(req.data());
    const unsigned kind = r.kind;
    const bool write = r.write;
    const uint32_t addr = r.addr;
    const uint64_t be = r.be;
    Pending p;
    p.ready_at = now_ + 1 + rng() % 6;
    const uint32_t off = addr - KESTREL_GLOBAL_BASE;
    if (addr % kLine != 0 || addr < KESTREL_GLOBAL_BASE || off >= kDramBytes) {
      p.fault = KESTREL_FAULT_ILLEGAL_ADDRESS;
    } else {
      const uint8_t pg = perms[off / KESTREL_PAGE_SIZE];
      if (kind == kRead && !(pg & KESTREL_PAGE_READ)) p.fault = KESTREL_FAULT_ILLEGAL_ADDRESS;
      if (kind == kWrite && !(pg & KESTREL_PAGE_WRITE))
        p.fault = pg ? KESTREL_FAULT_WRITE_PROTECT : KESTREL_FAULT_ILLEGAL_ADDRESS;
      const unsigned op = r.amo_op;
      uint8_t be8[8];
      for (unsigned b = 0; b < 8; ++b) be8[b] = uint8_t(be >> (8 * b));
      // LR/SC: reservations as kestrel_mem_atomic keeps them (thread = lane).
      const uint32_t thread = uint32_t{r.amo_warp} << 8 | r.amo_lane;
      if (p.fault == KESTREL_FAULT_NONE && r.amo_valid && op == kestrel::rtlbench::kAmoLr) {
        reservations.lr(thread, addr, be8);
        std::memcpy(p.words.data(), &dram[off], kLine);
      } else if (p.fault == KESTREL_FAULT_NONE && r.amo_valid && op == kestrel::rtlbench::kAmoSc) {
        const bool ok = reservations.sc(thread, r.amo_held, addr, be8);
        if (ok) {
          for (unsigned b = 0; b < kLine; ++b)
            if (be >> b & 1) dram[off + b] = r.wdata[b];
          reservations.write(addr, be8);
        }
        p.words.fill(0);
        const unsigned first = unsigned(__builtin_ctzll(be));
        p.words[first / 4] = uint32_t(ok ? 0 : 1) << (8 * (first % 4));
      } else if (p.fault == KESTREL_FAULT_NONE && r.amo_valid) {
        // An atomic: the old line back, the word updated (kestrel_mem_atomic).
        std::memcpy(p.words.data(), &dram[off], kLine);
        uint8_t be_bytes[8], wdata[kLine];
        for (unsigned b = 0; b < 8; ++b) be_bytes[b] = uint8_t(be >> (8 * b));
        for (unsigned b = 0; b < kLine; ++b) wdata[b] = r.wdata[b];
        if (kestrel::rtlbench::amo_on_line(op, be_bytes, wdata, &dram[off], r.amo_cmp))
          reservations.write(addr, be_bytes);
        ++atomics;
      } else if (p.fault == KESTREL_FAULT_NONE) {
        if (write) {
          for (unsigned b = 0; b < kLine; ++b)
            if (be >> b & 1) dram[off + b] = r.wdata[b];
          reservations.write(addr, be8);
        }
        std::memcpy(p.words.data(), &dram[off], kLine);
      }
    }
    queue_.push_back(p);
  }

 private:
  struct Pending {
    uint64_t ready_at = 0;
    int fault = KESTREL_FAULT_NONE;
    std::array<uint32_t, kLine / 4> words{};
  };
  std::deque<Pending> queue_;
  uint64_t now_ = 0;
};

class RtlLsu : public ::testing::Test {
 protected:
  void SetUp() override {
    bench.reset();
    bench->flush_i = 0;
    bench->slot_start_i = 0;
    bench->shared_base_i = kSharedBase;
    bench->shared_window_i = kSharedBytes;
    bench->shared_size_i = kSharedSize;
    bench->stack_bytes_i = kStackBytes;
    bench->req_shared_phys_i = kSharedPhys;
    bench->req_local_base_i = kLocalBacking;
    bench->rsp_ready_i = 1;
  }

  Outcome run(const Access& a) {
    auto& d = bench.dut();
    d.req_valid_i = 1;
    d.req_warp_i = 2;
    d.req_rd_i = 7;
    d.req_store_i = a.store;
    d.req_amo_i = a.amo;
    d.req_amo_op_i = a.amo_op;
    d.req_size_i = a.size_log2;
    d.req_unsigned_i = a.is_unsigned;
    d.req_mask_i = a.mask;
    for (unsigned l = 0; l < kLanes; ++l) {
      d.req_addr_i[2 * l] = uint32_t(a.addr[l]);
      d.req_addr_i[2 * l + 1] = uint32_t(a.addr[l] >> 32);
      d.req_wdata_i[2 * l] = uint32_t(a.data[l]);
      d.req_wdata_i[2 * l + 1] = uint32_t(a.data[l] >> 32);
      d.req_cmp_i[2 * l] = uint32_t(a.cmp[l]);
      d.req_cmp_i[2 * l + 1] = uint32_t(a.cmp[l] >> 32);
    }
    const unsigned requests_before = memory.requests;
    Outcome out;
    bool accepted = false;
    for (int cycle = 0; cycle < 2000; ++cycle) {
      memory.drive(d);
      bench.eval();
      const bool req_fire = d.mem_req_valid_o && d.mem_req_ready_i;
      const bool rsp_fire = d.mem_rsp_valid_i && d.mem_rsp_ready_o;
      std::array<uint32_t, kReqWords> req{};
      for (unsigned w = 0; w < kReqWords; ++w) req[w] = d.mem_req_o[w];
      const bool done = d.rsp_valid_o;
      if (done) {
        EXPECT_EQ(unsigned(d.rsp_warp_o), 2u);
        EXPECT_EQ(unsigned(d.rsp_rd_o), 7u);
        EXPECT_EQ(bool(d.rsp_load_o), !a.store);  // an atomic returns data like a load
        out.fault = d.rsp_fault_o;
        out.fault_lane = d.rsp_fault_lane_o;
        for (unsigned l = 0; l < kLanes; ++l)
          out.data[l] = uint64_t(d.rsp_data_o[2 * l]) | uint64_t(d.rsp_data_o[2 * l + 1]) << 32;
        out.shared_access = d.ev_shared_access_o;
        out.shared_passes = d.ev_shared_passes_o;
        out.atomics = d.ev_atomics_o;
      }
      if (d.req_ready_o && d.req_valid_i) accepted = true;
      bench.tick();
      memory.observe(req_fire, req, rsp_fire);
      if (accepted) d.req_valid_i = 0;
      if (done) {
        out.cycles = unsigned(cycle);
        out.line_requests = memory.requests - requests_before;
        return out;
      }
    }
    ADD_FAILURE() << "LSU never completed";
    return out;
  }

  kestrel::rtlbench::Bench<Vlsu4> bench;
  MemoryModel memory;
};

// Reference for fault-free accesses: byte arrays for DRAM and shared memory.
// Where a lane's local byte lives: the warp's lanes interleave granule by
// granule from kLocalBacking (docs/isa.md section 4).
uint64_t local_backing(uint32_t local_offset, unsigned lane) {
  constexpr uint32_t kGranule = KESTREL_LOCAL_INTERLEAVE_BYTES;
  return kLocalBacking + uint64_t{local_offset / kGranule} * kGranule * kLanes + lane * kGranule +
         local_offset % kGranule;
}

struct Reference {
  std::vector<uint8_t>* dram;
  std::vector<uint8_t> shared = std::vector<uint8_t>(kSharedBytes, 0);
  uint8_t* byte(uint64_t addr, unsigned lane) {
    const uint32_t a = uint32_t(addr);
    if (a - kSharedBase < kSharedBytes) return &shared[kSharedPhys + (a - kSharedBase)];
    if (a >= KESTREL_LOCAL_BASE && a < KESTREL_LOCAL_LIMIT)
      return &(*dram)[local_backing(a - KESTREL_LOCAL_BASE, lane) - KESTREL_GLOBAL_BASE];
    return &(*dram)[a - KESTREL_GLOBAL_BASE];
  }
  // Line identity for the coalescing count: (window, physical line).
  uint64_t line_of(uint64_t addr, unsigned lane) {
    const uint32_t a = uint32_t(addr);
    if (a - kSharedBase < kSharedBytes) return ~0ull;  // shared lines are not memory requests
    if (a >= KESTREL_LOCAL_BASE && a < KESTREL_LOCAL_LIMIT)
      return local_backing(a - KESTREL_LOCAL_BASE, lane) / kLine;
    return a / kLine;
  }
};

// The functional model's bank-pass rule (docs/isa.md section 2.3): per bank
// the distinct 32-bit words it must deliver, each atomic lane a pass of its
// own; the access takes the largest count.
unsigned expected_passes(const Access& a) {
  std::array<std::vector<uint32_t>, kLanes> words;
  std::array<unsigned, kLanes> serial{};
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!(a.mask >> l & 1)) continue;
    const uint32_t off = uint32_t(a.addr[l]) - kSharedBase;
    if (off >= kSharedBytes) continue;
    const unsigned bytes = 1u << a.size_log2;
    for (uint32_t w = off / 4; w <= (off + bytes - 1) / 4; ++w) {
      const unsigned bank = w % kLanes;
      if (a.amo) {
        ++serial[bank];
      } else if (std::find(words[bank].begin(), words[bank].end(), w) == words[bank].end()) {
        words[bank].push_back(w);
      }
    }
  }
  unsigned passes = 0;
  for (unsigned b = 0; b < kLanes; ++b) passes = std::max({passes, unsigned(words[b].size()), serial[b]});
  return passes;
}

uint64_t random_address(std::mt19937_64& rng, unsigned size, unsigned lane) {
  const unsigned align = 1u << size;
  uint64_t a = 0;
  switch (rng() % 3) {
    case 0:
      a = KESTREL_GLOBAL_BASE + 0x100 + rng() % 256;
      break;  // a few global lines: coalescing
    case 1:
      a = kSharedBase + rng() % kSharedSize;
      break;
    default:
      a = KESTREL_LOCAL_BASE + rng() % kStackBytes;
      break;
  }
  (void)lane;
  return a & ~uint64_t(align - 1);
}

TEST_F(RtlLsu, RandomAccessesMatchReference) {
  // The reference keeps its own DRAM bytes: an atomic must not be applied to
  // memory the RTL already updated.
  std::vector<uint8_t> ref_dram = memory.dram;
  Reference ref{&ref_dram};
  std::mt19937_64 rng(51);
  const unsigned amo_ops[] = {contract::kAmoAdd,  contract::kAmoSwap, contract::kAmoXor, contract::kAmoOr,
                              contract::kAmoAnd,  contract::kAmoMin,  contract::kAmoMax, contract::kAmoMinu,
                              contract::kAmoMaxu, contract::kAmoCas,  contract::kAmoInc, contract::kAmoDec,
                              contract::kAmoFadd};
  unsigned atomics_seen = 0, cas_swapped = 0, cas_failed = 0, fadds = 0;
  for (int i = 0; i < 3000; ++i) {
    Access a;
    a.amo = rng() % 4 == 0;
    a.store = !a.amo && rng() % 2;
    a.size_log2 = a.amo ? 2 + unsigned(rng() % 2) : unsigned(rng() % 4);
    a.amo_op = amo_ops[rng() % (a.size_log2 == 3 ? 10 : 13)];
    a.is_unsigned = !a.store && !a.amo && a.size_log2 < 3 && rng() % 2;
    a.mask = unsigned(rng() % 16);
    for (unsigned l = 0; l < kLanes; ++l) {
      a.addr[l] = random_address(rng, a.size_log2, l);
      a.data[l] = rng();
      a.cmp[l] = rng();
    }
    if (a.amo && a.amo_op == contract::kAmoCas) {
      // CAS: most lanes compare with their word as it is now (a lower lane
      // on the same word may change it first); the upper half of a word's
      // compare value is ignored.
      for (unsigned l = 0; l < kLanes; ++l) {
        if (rng() % 4 == 0) continue;
        uint64_t now = 0;
        std::memcpy(&now, ref.byte(a.addr[l], l), 1u << a.size_log2);
        a.cmp[l] = a.size_log2 == 3 ? now : (now | (a.cmp[l] & ~0xFFFFFFFFull));
      }
    }
    std::set<uint64_t> lines;
    unsigned memory_lanes = 0;
    for (unsigned l = 0; l < kLanes; ++l)
      if (a.mask >> l & 1) {
        const uint64_t line = ref.line_of(a.addr[l], l);
        if (line != ~0ull) {
          lines.insert(line);
          ++memory_lanes;
        }
      }
    const Outcome out = run(a);
    ASSERT_EQ(out.fault, KESTREL_FAULT_NONE) << "access " << i;
    // Atomics go one lane per request; other accesses one request per line.
    ASSERT_EQ(out.line_requests, a.amo ? memory_lanes : lines.size()) << "access " << i;
    const unsigned passes = expected_passes(a);
    ASSERT_EQ(out.shared_passes, passes) << "access " << i;
    ASSERT_EQ(out.shared_access, passes != 0) << "access " << i;
    ASSERT_EQ(out.atomics, a.amo ? unsigned(__builtin_popcount(a.mask)) : 0u) << "access " << i;
    const unsigned bytes = 1u << a.size_log2;
    if (a.amo) {
      // Lane order, each lane seeing the previous lane's result.
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!(a.mask >> l & 1)) continue;
        uint8_t* p = ref.byte(a.addr[l], l);
        uint64_t expect;
        if (bytes == 8) {
          uint64_t old;
          std::memcpy(&old, p, 8);
          const uint64_t next = kestrel::rtlbench::amo_result<uint64_t>(a.amo_op, old, a.data[l], a.cmp[l]);
          std::memcpy(p, &next, 8);
          expect = old;
          if (a.amo_op == contract::kAmoCas) ++(old == a.cmp[l] ? cas_swapped : cas_failed);
        } else {
          uint32_t old;
          std::memcpy(&old, p, 4);
          const uint32_t next =
              kestrel::rtlbench::amo_result<uint32_t>(a.amo_op, old, uint32_t(a.data[l]), uint32_t(a.cmp[l]));
          std::memcpy(p, &next, 4);
          if (a.amo_op == contract::kAmoCas) ++(old == uint32_t(a.cmp[l]) ? cas_swapped : cas_failed);
          if (a.amo_op == contract::kAmoFadd) ++fadds;
          expect = uint64_t(int64_t(int32_t(old)));
        }
        ++atomics_seen;
        ASSERT_EQ(out.data[l], expect) << "atomic " << i << " lane " << l << std::hex << " op " << a.amo_op
                                       << " addr " << a.addr[l] << " mask " << a.mask << " size " << bytes;
      }
    } else if (a.store) {
      for (unsigned l = 0; l < kLanes; ++l)
        if (a.mask >> l & 1)
          for (unsigned b = 0; b < bytes; ++b) ref.byte(a.addr[l] + b, l)[0] = uint8_t(a.data[l] >> (8 * b));
    } else {
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!(a.mask >> l & 1)) continue;
        uint64_t v = 0;
        for (unsigned b = 0; b < bytes; ++b) v |= uint64_t(ref.byte(a.addr[l] + b, l)[0]) << (8 * b);
        if (!a.is_unsigned && bytes < 8 && (v >> (8 * bytes - 1) & 1)) v |= ~0ull << (8 * bytes);
        ASSERT_EQ(out.data[l], v) << "access " << i << " lane " << l << std::hex << " addr " << a.addr[l];
      }
    }
  }
  // DRAM written through the memory port matches the reference bytes.
  EXPECT_EQ(memory.dram, *ref.dram);
  EXPECT_GT(atomics_seen, 1000u);
  EXPECT_GT(cas_swapped, 40u);
  EXPECT_GT(cas_failed, 10u);
  EXPECT_GT(fadds, 50u);
  EXPECT_GT(memory.atomics, 100u);
}

// Bank passes of the guide's Figure 17/18 shapes at 4 lanes (4 banks).
TEST_F(RtlLsu, BankPassesOfConflictPatterns) {
  struct Pattern {
    const char* name;
    std::array<uint32_t, kLanes> word;
    unsigned size_log2;
    bool amo;
    unsigned passes;
  };
  const Pattern patterns[] = {
      {"stride 1", {0, 1, 2, 3}, 2, false, 1},
      {"stride 2", {0, 2, 4, 6}, 2, false, 2},
      {"stride 3", {0, 3, 6, 9}, 2, false, 1},
      {"stride 4 (= banks)", {0, 4, 8, 12}, 2, false, 4},
      {"broadcast", {5, 5, 5, 5}, 2, false, 1},
      {"permutation", {2, 0, 3, 1}, 2, false, 1},
      {"two lanes share a word", {1, 1, 5, 3}, 2, false, 2},
      {"bytes of one word", {0, 0, 0, 0}, 0, false, 1},
      {"doublewords stride 1", {0, 2, 4, 6}, 3, false, 2},
      {"doublewords broadcast", {6, 6, 6, 6}, 3, false, 1},
      {"atomics, distinct banks", {0, 1, 2, 3}, 2, true, 1},
      {"atomics, one word", {7, 7, 7, 7}, 2, true, 4},
      {"atomics, two words of a bank", {0, 4, 0, 1}, 2, true, 3},
      {"64-bit atomics, one word", {2, 2, 2, 2}, 3, true, 4},
  };
  for (const Pattern& p : patterns) {
    Access a;
    a.size_log2 = p.size_log2;
    a.amo = p.amo;
    a.amo_op = contract::kAmoAdd;
    a.mask = 0xF;
    for (unsigned l = 0; l < kLanes; ++l) {
      // byte patterns: lane l on byte l of the word
      a.addr[l] = kSharedBase + 4 * p.word[l] + (p.size_log2 == 0 ? l : 0);
      a.data[l] = 1;
    }
    ASSERT_EQ(expected_passes(a), p.passes) << p.name << ": the reference rule";
    const Outcome out = run(a);
    EXPECT_EQ(out.fault, KESTREL_FAULT_NONE) << p.name;
    EXPECT_EQ(out.shared_passes, p.passes) << p.name;
  }
}

// kx.amofadd.s on shared memory: one pass like any atomic on distinct banks,
// but the LSU's one adder writes the pass's banks back one per cycle, so the
// pass takes one cycle more per bank after the first than an amoadd's.
TEST_F(RtlLsu, SharedFloatAddWritesBanksOneAtATime) {
  Access a;
  a.size_log2 = 2;
  a.mask = 0xF;
  for (unsigned l = 0; l < kLanes; ++l) a.addr[l] = kSharedBase + 4 * l;
  a.store = true;  // word l = 2.0f * (l + 1)
  for (unsigned l = 0; l < kLanes; ++l) a.data[l] = 0x40000000u + (l == 0 ? 0 : 0x00800000u * l);
  const std::array<uint64_t, kLanes> stored = a.data;
  run(a);
  a.store = false;
  a.amo = true;
  a.amo_op = contract::kAmoAdd;  // amoadd of 0: the reference cycle count
  a.data.fill(0);
  const Outcome add = run(a);
  a.amo_op = contract::kAmoFadd;  // + 1.0f
  a.data.fill(0x3F800000u);
  const Outcome fadd = run(a);
  EXPECT_EQ(add.shared_passes, 1u);
  EXPECT_EQ(fadd.shared_passes, 1u);
  EXPECT_EQ(fadd.cycles, add.cycles + kLanes - 1);
  a.amo = false;
  const Outcome after = run(a);
  for (unsigned l = 0; l < kLanes; ++l) {
    float before = 0, now = 0;
    const uint32_t before_bits = uint32_t(stored[l]), now_bits = uint32_t(after.data[l]);
    std::memcpy(&before, &before_bits, 4);
    std::memcpy(&now, &now_bits, 4);
    EXPECT_EQ(uint32_t(fadd.data[l]), before_bits) << "lane " << l << " old value";
    EXPECT_EQ(now, before + 1.0f) << "lane " << l;
  }
}

// LR/SC (docs/isa.md section 1) on shared memory (reservations in the LSU)
// and global memory (this bench's memory keeps them as kestrel_mem_atomic):
// LR and SC take load and store passes and count no atomics; an SC without
// a reservation fails and writes nothing; lanes on one word: the lowest
// holding lane wins; another lane's store ends a reservation; another word
// or size fails; a shared LR moves a thread's reservation off global memory.
TEST_F(RtlLsu, LoadReservedStoreConditional) {
  auto access = [](bool store, bool amo, unsigned op, unsigned size_log2, uint32_t mask,
                   std::array<uint64_t, kLanes> addr, std::array<uint64_t, kLanes> data = {}) {
    Access a;
    a.store = store;
    a.amo = amo;
    a.amo_op = op;
    a.size_log2 = size_log2;
    a.mask = mask;
    a.addr = addr;
    a.data = data;
    return a;
  };
  const std::array<uint64_t, kLanes> own = {kSharedBase, kSharedBase + 4, kSharedBase + 8, kSharedBase + 12};
  const std::array<uint64_t, kLanes> one = {kSharedBase, kSharedBase, kSharedBase, kSharedBase};
  const std::array<uint64_t, kLanes> vals = {100, 101, 102, 103}, news = {200, 201, 202, 203};
  const std::array<uint64_t, kLanes> ok = {0, 0, 0, 0}, fail = {1, 1, 1, 1};
  run(access(true, false, 0, 2, 0xF, own, vals));
  Outcome o = run(access(false, true, contract::kAmoLr, 2, 0xF, own));  // LR
  EXPECT_EQ(o.data, vals);
  EXPECT_EQ(o.shared_passes, 1u);
  EXPECT_EQ(o.atomics, 0u);
  o = run(access(false, true, contract::kAmoSc, 2, 0xF, own, news));  // SC: all succeed
  EXPECT_EQ(o.data, ok);
  EXPECT_EQ(o.shared_passes, 1u);
  EXPECT_EQ(o.atomics, 0u);
  o = run(access(false, true, contract::kAmoSc, 2, 0xF, own, vals));  // no reservation left: all fail
  EXPECT_EQ(o.data, fail);
  EXPECT_EQ(run(access(false, false, 0, 2, 0xF, own)).data, news);
  // Every lane on one word: a broadcast LR pass; in the SC lane 0 wins.
  o = run(access(false, true, contract::kAmoLr, 2, 0xF, one));
  EXPECT_EQ(o.shared_passes, 1u);
  o = run(access(false, true, contract::kAmoSc, 2, 0xF, one, vals));
  EXPECT_EQ(o.data, (std::array<uint64_t, kLanes>{0, 1, 1, 1}));
  EXPECT_EQ(o.shared_passes, 1u);
  // Lanes 1..3 only, lane 0's SC without an LR: lane 1 wins, lane 0 fails.
  run(access(false, true, contract::kAmoLr, 2, 0xE, one));
  o = run(access(false, true, contract::kAmoSc, 2, 0xF, one, news));
  EXPECT_EQ(o.data, (std::array<uint64_t, kLanes>{1, 0, 1, 1}));
  EXPECT_EQ(run(access(false, false, 0, 2, 0x1, own)).data[0], 201u);
  // Lane 1 stores to lane 0's word (a byte): lane 0's SC fails, the rest succeed.
  run(access(false, true, contract::kAmoLr, 2, 0xF, own));
  run(access(true, false, 0, 0, 0x2, {0, kSharedBase + 3, 0, 0}, {0, 0x77, 0, 0}));
  o = run(access(false, true, contract::kAmoSc, 2, 0xF, own, vals));
  EXPECT_EQ(o.data, (std::array<uint64_t, kLanes>{1, 0, 0, 0}));
  // Another word or another size than the LR's fails.
  run(access(false, true, contract::kAmoLr, 2, 0xF, own));
  o = run(access(false, true, contract::kAmoSc, 2, 0xF,
                 {kSharedBase + 16, kSharedBase + 20, kSharedBase + 24, kSharedBase + 28}));
  EXPECT_EQ(o.data, fail);
  run(access(false, true, contract::kAmoLr, 2, 0xF,
             {kSharedBase, kSharedBase + 8, kSharedBase + 16, kSharedBase + 24}));
  o = run(access(false, true, contract::kAmoSc, 3, 0xF,
                 {kSharedBase, kSharedBase + 8, kSharedBase + 16, kSharedBase + 24}));
  EXPECT_EQ(o.data, fail);
  // Doublewords: LR.d then SC.d succeeds; a store to the high word ends it.
  const std::array<uint64_t, kLanes> dwords = {kSharedBase + 32, kSharedBase + 40, kSharedBase + 48,
                                               kSharedBase + 56};
  run(access(false, true, contract::kAmoLr, 3, 0xF, dwords));
  run(access(true, false, 0, 2, 0x4, {0, 0, kSharedBase + 44, 0}, {0, 0, 5, 0}));
  o = run(access(false, true, contract::kAmoSc, 3, 0xF, dwords, {1ull << 40, 2, 3, 4}));
  EXPECT_EQ(o.data, (std::array<uint64_t, kLanes>{0, 1, 0, 0}));
  EXPECT_EQ(run(access(false, false, 0, 3, 0x1, dwords)).data[0], 1ull << 40);
  // Global memory: one request per lane; the lanes' SCs succeed.
  const uint64_t g = KESTREL_GLOBAL_BASE + 0x200;
  const std::array<uint64_t, kLanes> gwords = {g, g + 4, g + 8, g + 12};
  o = run(access(false, true, contract::kAmoLr, 2, 0xF, gwords));
  EXPECT_EQ(o.line_requests, 4u);
  o = run(access(false, true, contract::kAmoSc, 2, 0xF, gwords, news));
  EXPECT_EQ(o.data, ok);
  EXPECT_EQ(o.atomics, 0u);
  EXPECT_EQ(memory.dram[0x200 + 4], 201);
  // A global LR, then a shared LR: the global SC fails (held = 0).
  run(access(false, true, contract::kAmoLr, 2, 0xF, gwords));
  run(access(false, true, contract::kAmoLr, 2, 0xF, own));
  o = run(access(false, true, contract::kAmoSc, 2, 0xF, gwords, vals));
  EXPECT_EQ(o.data, fail);
  EXPECT_EQ(memory.dram[0x200 + 4], 201);
  // A global LR ends the shared reservation: the shared SC fails.
  run(access(false, true, contract::kAmoLr, 2, 0xF, own));
  run(access(false, true, contract::kAmoLr, 2, 0xF, gwords));
  EXPECT_EQ(run(access(false, true, contract::kAmoSc, 2, 0xF, own, vals)).data, fail);
  // Flush (launch start) ends shared reservations.
  run(access(false, true, contract::kAmoLr, 2, 0xF, own));
  bench->flush_i = 1;
  bench.tick();
  bench->flush_i = 0;
  EXPECT_EQ(run(access(false, true, contract::kAmoSc, 2, 0xF, own, vals)).data, fail);
  // A new block in another warp slot leaves this slot's reservations; one in
  // this slot (warp 2, the bench's) ends them, shared and global alike.
  auto start_slots = [&](uint32_t slots) {
    bench->slot_start_i = slots;
    bench.tick();
    bench->slot_start_i = 0;
  };
  run(access(false, true, contract::kAmoLr, 2, 0x3, own));
  run(access(false, true, contract::kAmoLr, 2, 0xC, gwords));
  start_slots(0xB);
  o = run(access(false, true, contract::kAmoSc, 2, 0x3, own, news));
  EXPECT_EQ(o.data[0] | o.data[1], 0u) << "the shared SCs succeed";
  o = run(access(false, true, contract::kAmoSc, 2, 0xC, gwords, news));
  EXPECT_EQ(o.data[2] | o.data[3], 0u) << "the global SCs succeed";
  run(access(false, true, contract::kAmoLr, 2, 0x3, own));
  run(access(false, true, contract::kAmoLr, 2, 0xC, gwords));
  start_slots(0x4);
  o = run(access(false, true, contract::kAmoSc, 2, 0x3, own, vals));
  EXPECT_EQ(o.data[0] & o.data[1], 1u) << "the shared SCs fail";
  o = run(access(false, true, contract::kAmoSc, 2, 0xC, gwords, vals));
  EXPECT_EQ(o.data[2] & o.data[3], 1u) << "the global SCs fail";
  EXPECT_EQ(memory.dram[0x200 + 8], 202) << "an unheld global SC writes nothing";
}

TEST_F(RtlLsu, FullWarpOfWordsIsOneLine) {
  Access a;
  a.size_log2 = 2;
  a.mask = 0xF;
  for (unsigned l = 0; l < kLanes; ++l) a.addr[l] = KESTREL_GLOBAL_BASE + 0x40 + 4 * l;
  EXPECT_EQ(run(a).line_requests, 1u);
  for (unsigned l = 0; l < kLanes; ++l) a.addr[l] = KESTREL_GLOBAL_BASE + 0x40 * (l + 1);
  EXPECT_EQ(run(a).line_requests, 4u);
}

struct FaultCase {
  const char* name;
  std::array<uint64_t, kLanes> addr;
  bool store;
  int kind;
  unsigned lane;
};

TEST_F(RtlLsu, FaultsReportTheLowestLane) {
  memory.perms[1] = 0;                  // page at GLOBAL_BASE + 4 KiB unmapped
  memory.perms[2] = KESTREL_PAGE_READ;  // page at + 8 KiB read-only
  const uint64_t ok = KESTREL_GLOBAL_BASE + 0x40;
  const FaultCase cases[] = {
      {"misaligned", {ok, ok + 2, ok, ok}, false, KESTREL_FAULT_MISALIGNED, 1},
      {"bits above 31", {ok, ok, 0x1'0000'0000ull + ok, ok}, false, KESTREL_FAULT_ILLEGAL_ADDRESS, 2},
      {"null guard", {ok, ok, ok, 0x100}, false, KESTREL_FAULT_ILLEGAL_ADDRESS, 3},
      {"shared bounds", {ok, kSharedBase + kSharedSize, ok, ok}, false, KESTREL_FAULT_SHARED_BOUNDS, 1},
      {"local bounds", {KESTREL_LOCAL_BASE + kStackBytes, ok, ok, ok}, true, KESTREL_FAULT_LOCAL_BOUNDS, 0},
      // The guards around the windows (the offsets below a window wrap).
      {"just below shared", {ok, ok, kSharedBase - 4, ok}, true, KESTREL_FAULT_SHARED_BOUNDS, 2},
      {"shared guard below",
       {ok, kSharedBase - KESTREL_SHARED_GUARD, ok, ok},
       false,
       KESTREL_FAULT_SHARED_BOUNDS,
       1},
      {"shared guard above",
       {ok, ok, ok, kSharedBase + kSharedBytes + KESTREL_SHARED_GUARD - 4},
       false,
       KESTREL_FAULT_SHARED_BOUNDS,
       3},
      {"below the shared guard",
       {kSharedBase - KESTREL_SHARED_GUARD - 4, ok, ok, ok},
       false,
       KESTREL_FAULT_ILLEGAL_ADDRESS,
       0},
      {"stack overflow", {ok, KESTREL_LOCAL_BASE - 4, ok, ok}, true, KESTREL_FAULT_LOCAL_BOUNDS, 1},
      {"below the local guard",
       {ok, ok, KESTREL_LOCAL_GUARD_BASE - 4, ok},
       true,
       KESTREL_FAULT_ILLEGAL_ADDRESS,
       2},
      {"unmapped page", {ok, ok, KESTREL_GLOBAL_BASE + 0x1000, ok}, false, KESTREL_FAULT_ILLEGAL_ADDRESS, 2},
      {"write protect", {ok, KESTREL_GLOBAL_BASE + 0x2000, ok, ok}, true, KESTREL_FAULT_WRITE_PROTECT, 1},
      {"read-only page loads", {ok, KESTREL_GLOBAL_BASE + 0x2000, ok, ok}, false, KESTREL_FAULT_NONE, 0},
      // A page fault on a lower lane beats an own-check fault on a higher one.
      {"page before misaligned",
       {ok, KESTREL_GLOBAL_BASE + 0x1008, ok + 1, ok},
       false,
       KESTREL_FAULT_ILLEGAL_ADDRESS,
       1},
      {"misaligned before page",
       {ok, ok + 1, KESTREL_GLOBAL_BASE + 0x1000, ok},
       false,
       KESTREL_FAULT_MISALIGNED,
       1},
      {"beyond DRAM",
       {ok, ok, ok, KESTREL_GLOBAL_BASE + kDramBytes},
       false,
       KESTREL_FAULT_ILLEGAL_ADDRESS,
       3},
  };
  for (const FaultCase& c : cases) {
    Access a;
    a.store = c.store;
    a.size_log2 = 2;
    a.mask = 0xF;
    a.addr = c.addr;
    const Outcome out = run(a);
    EXPECT_EQ(out.fault, c.kind) << c.name;
    if (c.kind != KESTREL_FAULT_NONE) {
      EXPECT_EQ(out.fault_lane, c.lane) << c.name;
    }
  }
}

TEST_F(RtlLsu, InactiveLanesAreNotChecked) {
  Access a;
  a.size_log2 = 3;
  a.mask = 0x2;
  a.addr = {1, KESTREL_GLOBAL_BASE + 8, 3, 0x100};
  EXPECT_EQ(run(a).fault, KESTREL_FAULT_NONE);
}

}  // namespace

// Instructions in flight (docs/microarchitecture.md, "LSU instruction slots"):
// instructions of four warps are handed in back to back, each a load of four
// lines or a shared load, with a store and a later load of the same word in
// between.  The LSU takes several before the first completes, they complete
// in the order it took them (the order memory and the banks performed them,
// which lock-step needs), every completion carries its own warp, PC, rd and
// data, and the load after the store sees the stored value.
TEST_F(RtlLsu, InstructionsOverlapAndCompleteWithTheirOwnData) {
  auto& d = bench.dut();
  for (unsigned i = 0; i < 4096; ++i) memory.dram[i] = uint8_t(i * 7 + 3);
  struct Issue {
    Access access;
    unsigned warp, rd;
    uint32_t pc;
  };
  std::vector<Issue> issues;
  auto global_load = [](unsigned base) {
    Access a;
    a.size_log2 = 3;
    a.mask = 0xF;
    for (unsigned l = 0; l < kLanes; ++l) a.addr[l] = KESTREL_GLOBAL_BASE + base + 0x40 * l + 8 * l;
    return a;
  };
  issues.push_back({global_load(0x000), 0, 5, 0x1000});
  issues.push_back({global_load(0x200), 1, 6, 0x1004});
  Access shared_load;
  shared_load.size_log2 = 2;
  shared_load.mask = 0xF;
  for (unsigned l = 0; l < kLanes; ++l) shared_load.addr[l] = kSharedBase + 4 * l;
  issues.push_back({shared_load, 2, 7, 0x1008});
  Access store;
  store.store = true;
  store.size_log2 = 3;
  store.mask = 0x1;
  store.addr[0] = KESTREL_GLOBAL_BASE + 0x400;
  store.data[0] = 0x1122'3344'5566'7788ull;
  issues.push_back({store, 3, 0, 0x100c});
  Access reload = store;
  reload.store = false;
  issues.push_back({reload, 0, 9, 0x1010});  // warp 0 again, after its first load completed

  std::vector<uint8_t> before = memory.dram;
  struct Done {
    unsigned warp, rd;
    uint32_t pc;
    std::array<uint64_t, kLanes> data;
  };
  std::vector<Done> done;
  size_t next = 0;
  unsigned accepted_before_first_completion = 0;
  bool free_front_while_busy = false;  // idle_o covers the slots, not only the front
  for (int cycle = 0; cycle < 2000 && done.size() < issues.size(); ++cycle) {
    memory.drive(d);
    // Warp 0's second instruction waits for its first, as the SM's issue does.
    const bool warp_busy = next < issues.size() && issues[next].warp == 0 && next > 0 &&
                           std::none_of(done.begin(), done.end(), [](const Done& x) { return x.warp == 0; });
    d.req_valid_i = next < issues.size() && !warp_busy;
    if (d.req_valid_i) {
      const Issue& is = issues[next];
      d.req_warp_i = is.warp;
      d.req_rd_i = is.rd;
      d.req_pc_i = is.pc;
      d.req_fp_i = 0;
      d.req_store_i = is.access.store;
      d.req_amo_i = 0;
      d.req_size_i = is.access.size_log2;
      d.req_unsigned_i = 0;
      d.req_mask_i = is.access.mask;
      for (unsigned l = 0; l < kLanes; ++l) {
        d.req_addr_i[2 * l] = uint32_t(is.access.addr[l]);
        d.req_addr_i[2 * l + 1] = uint32_t(is.access.addr[l] >> 32);
        d.req_wdata_i[2 * l] = uint32_t(is.access.data[l]);
        d.req_wdata_i[2 * l + 1] = uint32_t(is.access.data[l] >> 32);
      }
    }
    bench.eval();
    const bool req_fire = d.mem_req_valid_o && d.mem_req_ready_i;
    const bool rsp_fire = d.mem_rsp_valid_i && d.mem_rsp_ready_o;
    std::array<uint32_t, kReqWords> req{};
    for (unsigned w = 0; w < kReqWords; ++w) req[w] = d.mem_req_o[w];
    const bool accept = d.req_valid_i && d.req_ready_o;
    if (d.rsp_valid_o) {
      EXPECT_EQ(d.rsp_fault_o, KESTREL_FAULT_NONE);
      Done x{d.rsp_warp_o, d.rsp_rd_o, d.rsp_pc_o, {}};
      for (unsigned l = 0; l < kLanes; ++l)
        x.data[l] = uint64_t(d.rsp_data_o[2 * l]) | uint64_t(d.rsp_data_o[2 * l + 1]) << 32;
      done.push_back(x);
    }
    if (accept && done.empty()) ++accepted_before_first_completion;
    if (d.req_ready_o && !d.idle_o) free_front_while_busy = true;
    bench.tick();
    memory.observe(req_fire, req, rsp_fire);
    if (accept) ++next;
  }
  d.req_valid_i = 0;
  ASSERT_EQ(done.size(), issues.size());
  bench.eval();
  EXPECT_TRUE(d.idle_o) << "every slot has completed";
  EXPECT_TRUE(free_front_while_busy) << "the front took instructions while slots were in flight";
  EXPECT_GE(accepted_before_first_completion, 2u) << "the LSU overlaps instructions";
  for (const Issue& is : issues) {
    auto it = std::find_if(done.begin(), done.end(), [&](const Done& x) { return x.pc == is.pc; });
    ASSERT_NE(it, done.end()) << std::hex << is.pc;
    EXPECT_EQ(it->warp, is.warp);
    EXPECT_EQ(it->rd, is.rd);
    if (is.access.store || is.access.addr[0] - kSharedBase < kSharedBytes) continue;
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!(is.access.mask >> l & 1)) continue;
      const uint32_t off = uint32_t(is.access.addr[l]) - KESTREL_GLOBAL_BASE;
      uint64_t want = 0;
      const std::vector<uint8_t>& bytes = is.pc == 0x1010 ? memory.dram : before;
      std::memcpy(&want, &bytes[off], 8);
      EXPECT_EQ(it->data[l], want) << "pc " << std::hex << is.pc << " lane " << l;
    }
  }
  for (size_t i = 0; i < done.size(); ++i) EXPECT_EQ(done[i].pc, issues[i].pc) << "completion " << i;
  uint64_t stored = 0;
  std::memcpy(&stored, &memory.dram[0x400], 8);
  EXPECT_EQ(stored, store.data[0]);
}

// Shared accesses without bank conflicts go through at one warp instruction
// per cycle (issue 15): offered the way the SM's issue stage offers them
// (stage 1 hands an instruction over in the cycle after req_full_o was low,
// and the LSU must then have room for it), 16 stores and 16 loads of
// distinct words are taken on 32 consecutive cycles and complete a few
// cycles after the last, in order, each load with what its store wrote.
// With a two-way conflict every access takes two passes, so the same stream
// takes twice the cycles (guide G.3.3: an n-way conflict is n requests).
TEST_F(RtlLsu, SharedAccessesOnePerCycleWithoutConflicts) {
  auto& d = bench.dut();
  struct Result {
    unsigned offered_cycles = 0;  // from the first offer to the last one
    unsigned total_cycles = 0;    // from the first offer to the last completion
    std::vector<uint32_t> pcs;
    std::vector<std::array<uint64_t, kLanes>> data;
  };
  auto run_stream = [&](unsigned stride_words) {
    std::vector<Access> stream;
    for (const bool store : {true, false}) {
      for (unsigned i = 0; i < 16; ++i) {
        Access a;
        a.store = store;
        a.size_log2 = 2;
        a.mask = 0xF;
        for (unsigned l = 0; l < kLanes; ++l) {
          // Word (i * kLanes + l) * stride: banks l * stride mod 4.
          a.addr[l] = kSharedBase + 4 * ((i * kLanes + l) * stride_words % (kSharedSize / 4));
          a.data[l] = 0x1000u * i + l + 1;
        }
        stream.push_back(a);
      }
    }
    Result r;
    size_t next = 0;
    bool offer = true;  // issued "last cycle"
    int first = -1, last_offer = -1;
    for (int cycle = 0; cycle < 1000 && r.pcs.size() < stream.size(); ++cycle) {
      memory.drive(d);
      d.req_valid_i = offer && next < stream.size();
      if (d.req_valid_i) {
        const Access& a = stream[next];
        d.req_warp_i = next % 4;
        d.req_rd_i = 5;
        d.req_pc_i = 0x2000 + 4 * uint32_t(next);
        d.req_fp_i = 0;
        d.req_store_i = a.store;
        d.req_amo_i = 0;
        d.req_pair_i = 0;
        d.req_size_i = a.size_log2;
        d.req_unsigned_i = 0;
        d.req_mask_i = a.mask;
        for (unsigned l = 0; l < kLanes; ++l) {
          d.req_addr_i[2 * l] = uint32_t(a.addr[l]);
          d.req_addr_i[2 * l + 1] = uint32_t(a.addr[l] >> 32);
          d.req_wdata_i[2 * l] = uint32_t(a.data[l]);
          d.req_wdata_i[2 * l + 1] = 0;
        }
      }
      bench.eval();
      if (d.req_valid_i) {
        EXPECT_TRUE(d.req_ready_o) << "an instruction offered after req_full_o was low finds room";
        if (first < 0) first = cycle;
        last_offer = cycle;
      }
      if (d.rsp_valid_o) {
        EXPECT_EQ(d.rsp_fault_o, KESTREL_FAULT_NONE);
        r.pcs.push_back(d.rsp_pc_o);
        std::array<uint64_t, kLanes> x{};
        for (unsigned l = 0; l < kLanes; ++l) x[l] = d.rsp_data_o[2 * l];
        r.data.push_back(x);
        r.total_cycles = unsigned(cycle - first);
      }
      const bool took = d.req_valid_i && d.req_ready_o;
      offer = !d.req_full_o;
      bench.tick();
      if (took) ++next;
    }
    d.req_valid_i = 0;
    r.offered_cycles = unsigned(last_offer - first + 1);
    EXPECT_EQ(r.pcs.size(), stream.size());
    for (size_t i = 0; i < r.pcs.size(); ++i) EXPECT_EQ(r.pcs[i], 0x2000 + 4 * i) << "completions in order";
    for (size_t i = 16; i < r.data.size(); ++i)
      for (unsigned l = 0; l < kLanes; ++l)
        EXPECT_EQ(r.data[i][l], stream[i - 16].data[l]) << i << " lane " << l;
    return r;
  };
  const Result free_run = run_stream(1);  // lanes on four banks: one pass each
  const Result conflict = run_stream(2);  // two lanes per bank: two passes each
  EXPECT_EQ(free_run.offered_cycles, 32u) << "one instruction offered and taken every cycle";
  EXPECT_LE(free_run.total_cycles, 32u + 5u);
  EXPECT_GE(conflict.total_cycles, 2 * 32u);
  EXPECT_LE(conflict.total_cycles, 2 * 32u + 5u);
  std::printf("32 shared accesses: %u cycles without conflicts, %u with two-way conflicts\n",
              free_run.total_cycles, conflict.total_cycles);
}
