// Page table bench (256 KiB of DRAM = 64 pages, rows of 16): the clearing pass
// after reset, random MAP runs (some running past the end of DRAM) against a
// C++ permission array, the check rule of docs/isa.md section 4 for every
// request kind, and the busy/ready timing of one page per cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "Vpage_table256k.h"
#include "kestrel/abi.h"
#include "kestrel_contract.hpp"
#include "rtl_test.hpp"

namespace {

constexpr uint32_t kMemBytes = 256 * 1024;
constexpr uint32_t kPages = kMemBytes / KESTREL_PAGE_SIZE;
// kestrel_pkg::mem_kind_e, from the generated contract.
enum Kind : unsigned {
  kRead = kestrel::contract::kMemRead,
  kWrite = kestrel::contract::kMemWrite,
  kFetch = kestrel::contract::kMemFetch,
  kLocal = kestrel::contract::kMemLocal
};

using Bench = kestrel::rtlbench::Bench<Vpage_table256k>;

// docs/isa.md section 4 and the model's translate(), written from the spec.
unsigned expected_fault(const std::vector<uint8_t>& perms, Kind kind, uint32_t addr) {
  const bool in_dram = addr >= KESTREL_GLOBAL_BASE && addr - KESTREL_GLOBAL_BASE < kMemBytes;
  const uint8_t p = in_dram ? perms[(addr - KESTREL_GLOBAL_BASE) / KESTREL_PAGE_SIZE] : 0;
  switch (kind) {
    case kRead:
      return (p & KESTREL_PAGE_READ) ? KESTREL_FAULT_NONE : KESTREL_FAULT_ILLEGAL_ADDRESS;
    case kWrite:
      if (p & KESTREL_PAGE_WRITE) return KESTREL_FAULT_NONE;
      return p != 0 ? KESTREL_FAULT_WRITE_PROTECT : KESTREL_FAULT_ILLEGAL_ADDRESS;
    case kFetch:
      return (p & KESTREL_PAGE_EXEC) ? KESTREL_FAULT_NONE : KESTREL_FAULT_FETCH;
    default:
      return in_dram ? KESTREL_FAULT_NONE : KESTREL_FAULT_ILLEGAL_ADDRESS;
  }
}

unsigned check(Bench& b, Kind kind, uint32_t addr) {
  b->chk_kind_i = kind;
  b->chk_addr_i = addr;
  b.eval();
  return b->chk_fault_o;
}

// Returns the cycles the map took (busy cycles).
unsigned map(Bench& b, uint32_t addr, uint32_t pages, uint32_t perms) {
  EXPECT_TRUE(b->map_ready_o);
  b->map_valid_i = 1;
  b->map_addr_i = addr;
  b->map_pages_i = pages;
  b->map_perms_i = perms;
  b.tick();
  b->map_valid_i = 0;
  unsigned busy = 0;
  while (b->map_busy_o) {
    EXPECT_FALSE(b->map_ready_o);
    b.tick();
    if (++busy > 100000) break;
  }
  return busy;
}

void wait_clear(Bench& b) {
  unsigned cycles = 0;
  while (b->map_busy_o && cycles < 1000) {
    b.tick();
    ++cycles;
  }
  EXPECT_EQ(cycles, kPages / 16) << "clearing pass: one row of 16 pages per cycle";
}

TEST(PageTable, ResetUnmapsEveryPage) {
  Bench b;
  b->dram_kb_i = kMemBytes / 1024;
  b.reset();
  EXPECT_TRUE(b->map_busy_o);
  wait_clear(b);
  const std::vector<uint8_t> none(kPages, 0);
  for (uint32_t page = 0; page < kPages; ++page) {
    const uint32_t addr = KESTREL_GLOBAL_BASE + page * KESTREL_PAGE_SIZE + 0x40;
    for (Kind k : {kRead, kWrite, kFetch, kLocal})
      EXPECT_EQ(check(b, k, addr), expected_fault(none, k, addr));
  }
  EXPECT_EQ(check(b, kRead, 0x100), unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS}) << "null guard";
  EXPECT_EQ(check(b, kLocal, KESTREL_GLOBAL_BASE - 64), unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS});
  EXPECT_EQ(check(b, kLocal, KESTREL_GLOBAL_BASE + kMemBytes), unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS});
}

TEST(PageTable, RandomMapsMatchReference) {
  Bench b;
  b->dram_kb_i = kMemBytes / 1024;
  b.reset();
  wait_clear(b);
  std::vector<uint8_t> perms(kPages, 0);
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {
    // First page anywhere from a little below DRAM to a little past it.
    const int32_t first = static_cast<int32_t>(rng() % (kPages + 8)) - 4;
    const uint32_t pages = 1 + rng() % 24;
    const uint32_t p = rng() % 8;
    const uint32_t addr = KESTREL_GLOBAL_BASE + static_cast<uint32_t>(first) * KESTREL_PAGE_SIZE +
                          (rng() % 2 ? rng() % KESTREL_PAGE_SIZE : 0);  // offset bits are ignored
    const unsigned busy = map(b, addr, pages, p);
    unsigned written = 0;
    for (uint32_t i = 0; i < pages; ++i) {
      const int64_t page = int64_t{first} + i;
      if (page >= 0 && page < kPages) perms[page] = static_cast<uint8_t>(p);
      if (page < kPages) ++written;
    }
    // One cycle per page walked up to the end of DRAM (at least one).
    EXPECT_EQ(busy, std::max(1u, written)) << "round " << round;
    for (int probe = 0; probe < 40; ++probe) {
      const uint32_t a =
          KESTREL_GLOBAL_BASE - 2 * KESTREL_PAGE_SIZE + rng() % (kMemBytes + 4 * KESTREL_PAGE_SIZE);
      const Kind k = static_cast<Kind>(rng() % 4);
      ASSERT_EQ(check(b, k, a), expected_fault(perms, k, a))
          << "round " << round << " kind " << k << " addr 0x" << std::hex << a;
    }
  }
  for (uint32_t page = 0; page < kPages; ++page) {
    const uint32_t a = KESTREL_GLOBAL_BASE + page * KESTREL_PAGE_SIZE + KESTREL_PAGE_SIZE - 8;
    for (Kind k : {kRead, kWrite, kFetch}) ASSERT_EQ(check(b, k, a), expected_fault(perms, k, a)) << page;
  }
}

TEST(PageTable, ZeroPagesIsNoOp) {
  Bench b;
  b->dram_kb_i = kMemBytes / 1024;
  b.reset();
  wait_clear(b);
  map(b, KESTREL_GLOBAL_BASE, 2, KESTREL_PAGE_READ);
  EXPECT_EQ(map(b, KESTREL_GLOBAL_BASE, 0, 0), 0u);
  EXPECT_EQ(check(b, kRead, KESTREL_GLOBAL_BASE + KESTREL_PAGE_SIZE), unsigned{KESTREL_FAULT_NONE});
  map(b, KESTREL_GLOBAL_BASE + KESTREL_PAGE_SIZE, 1, 0);  // unmap the second page
  EXPECT_EQ(check(b, kRead, KESTREL_GLOBAL_BASE), unsigned{KESTREL_FAULT_NONE});
  EXPECT_EQ(check(b, kRead, KESTREL_GLOBAL_BASE + KESTREL_PAGE_SIZE),
            unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS});
  EXPECT_EQ(check(b, kWrite, KESTREL_GLOBAL_BASE), unsigned{KESTREL_FAULT_WRITE_PROTECT});
}

}  // namespace

namespace {

// A board with less DRAM than the table's capacity straps dram_kb_i lower:
// pages past it are outside DRAM for maps and checks alike.
TEST(PageTable, SmallerDramStrap) {
  Bench b;
  b->dram_kb_i = 128;
  b.reset();
  wait_clear(b);
  EXPECT_EQ(map(b, KESTREL_GLOBAL_BASE, kPages, KESTREL_PAGE_READ), 32u) << "the walk stops at the strap";
  EXPECT_EQ(check(b, kRead, KESTREL_GLOBAL_BASE + 128 * 1024 - 64), unsigned{KESTREL_FAULT_NONE});
  EXPECT_EQ(check(b, kRead, KESTREL_GLOBAL_BASE + 128 * 1024), unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS});
  EXPECT_EQ(check(b, kLocal, KESTREL_GLOBAL_BASE + 128 * 1024), unsigned{KESTREL_FAULT_ILLEGAL_ADDRESS});
  EXPECT_EQ(check(b, kLocal, KESTREL_GLOBAL_BASE + 4096), unsigned{KESTREL_FAULT_NONE});
}

}  // namespace
