// GPU lock-step of global atomics raced by several SMs, without RTL:
//
// * AtomicChains alone: it accepts interleavings of atomics (and stores,
//   failed CASes, unobserved swaps) that some order explains, and rejects a
//   lost update, a duplicated or invented old value, a wrong result and a
//   final value no order reaches, and words it cannot follow;
// * the Checker against a second functional model standing in for the RTL,
//   which performs the atomics of two SMs in one order and reports their
//   retires in another (what kestrel_mem_atomic and the SMs' retire order
//   do): plain lock-step reports the false mismatch, following the RTL's old
//   values passes and leaves the same DRAM, and a wrong old value in one
//   retire record is still caught.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "atomic_chains.hpp"
#include "harness.hpp"
#include "lockstep.hpp"
#include "retire_records.hpp"

namespace kestrel::lockstep {
namespace {

using model::GlobalAccess;

constexpr uint64_t kWord = 0x10001000;

GlobalAccess atomic(uint64_t old, uint64_t value, bool observed = true, uint64_t addr = kWord) {
  GlobalAccess a;
  a.kind = GlobalAccess::kAtomic;
  a.addr = addr;
  a.bytes = 4;
  a.observed = observed;
  a.writes = true;
  a.prior = old;
  a.old = old;
  a.value = value;
  return a;
}
GlobalAccess failed_cas(uint64_t old) {
  GlobalAccess a = atomic(old, old);
  a.writes = false;
  return a;
}
GlobalAccess blind_swap(uint64_t value) {
  GlobalAccess a = atomic(0, value, false);
  a.order_free = true;
  return a;
}
GlobalAccess store(uint64_t value, unsigned bytes = 4, uint64_t addr = kWord) {
  GlobalAccess a;
  a.kind = GlobalAccess::kStore;
  a.addr = addr;
  a.bytes = static_cast<uint8_t>(bytes);
  a.order_free = true;
  a.writes = true;
  a.value = value;
  return a;
}

// Checks `accesses` (the first one's `prior` is the word's first value)
// against the RTL's final value; returns the error text, empty when accepted.
std::string verdict(const std::vector<GlobalAccess>& accesses, uint64_t final_value) {
  AtomicChains chains;
  chains.add(accesses);
  if (chains.check([&](uint64_t, unsigned) { return final_value; })) return "";
  EXPECT_FALSE(chains.error().empty());
  return chains.error();
}

TEST(AtomicChains, AcceptsAnyInterleavingOfIncrements) {
  // Four atomicAdd(+1) of two SMs, reported out of the order they happened.
  std::vector<GlobalAccess> a = {atomic(2, 3), atomic(0, 1), atomic(3, 4), atomic(1, 2)};
  a[0].prior = 0;  // the model's memory before the first one it stepped
  EXPECT_EQ(verdict(a, 4), "");
}

TEST(AtomicChains, RejectsALostUpdate) {
  std::vector<GlobalAccess> a = {atomic(0, 1), atomic(0, 1), atomic(1, 2)};
  const std::string error = verdict(a, 2);
  EXPECT_NE(error.find("lost update"), std::string::npos) << error;
}

TEST(AtomicChains, RejectsADuplicatedOldValue) {
  std::vector<GlobalAccess> a = {atomic(0, 1), atomic(1, 2), atomic(1, 2), atomic(2, 3)};
  EXPECT_NE(verdict(a, 3), "");
  EXPECT_NE(verdict(a, 2), "");
}

TEST(AtomicChains, RejectsAWrongResult) {
  // The RTL added 2 where the operation adds 1: its next atomic read 3, which
  // nothing the model computes leaves in the word.
  std::vector<GlobalAccess> a = {atomic(0, 1), atomic(3, 4)};
  EXPECT_NE(verdict(a, 4), "");
  // ... or its final value is not where the atomics lead.
  std::vector<GlobalAccess> b = {atomic(0, 1), atomic(1, 2)};
  EXPECT_NE(verdict(b, 3), "");
  EXPECT_EQ(verdict(b, 2), "");
}

TEST(AtomicChains, RejectsAnInventedOldValue) {
  std::vector<GlobalAccess> a = {atomic(0, 1), atomic(1, 2), atomic(7, 8), atomic(8, 7)};
  const std::string error = verdict(a, 2);  // a closed cycle 7 -> 8 -> 7 the word never entered
  EXPECT_NE(error.find("cannot follow the others"), std::string::npos) << error;
}

TEST(AtomicChains, StoresJumpToTheirValue) {
  // Guide B.5: atomicInc by every block, then the last block stores 0.
  std::vector<GlobalAccess> a = {atomic(1, 2), atomic(0, 1), atomic(2, 3), store(0)};
  a[0].prior = 0;
  EXPECT_EQ(verdict(a, 0), "");
  EXPECT_EQ(verdict(a, 3), "");  // the store may have come first (the word held 0)
  EXPECT_NE(verdict(a, 2), "");  // 2 was read and left by an atomic, and no store wrote it
  // A store of a value no atomic reads afterwards cannot sit in the middle.
  std::vector<GlobalAccess> b = {atomic(0, 1), atomic(1, 2), store(9)};
  EXPECT_EQ(verdict(b, 9), "");
  EXPECT_NE(verdict(b, 2), "");
}

TEST(AtomicChains, SpinLockWithFailedCasAndBlindRelease) {
  // CAS(0 -> 1) acquires, failed CASes see 1, atomicExch(0) with the result
  // discarded releases.
  std::vector<GlobalAccess> a = {atomic(0, 1), failed_cas(1), failed_cas(1), blind_swap(0),
                                 atomic(0, 1), failed_cas(1), blind_swap(0)};
  EXPECT_EQ(verdict(a, 0), "");
  // Two acquisitions that both saw the lock free with one release between
  // them: mutual exclusion broken.
  std::vector<GlobalAccess> b = {atomic(0, 1), atomic(0, 1), blind_swap(0)};
  EXPECT_NE(verdict(b, 0), "");
  // A failed CAS that saw a value the lock never held.
  std::vector<GlobalAccess> c = {atomic(0, 1), failed_cas(5), blind_swap(0)};
  EXPECT_NE(verdict(c, 0), "");
}

TEST(AtomicChains, WordsWithoutRtlValuesAreNotFollowed) {
  // Only atomics with discarded results: the model computes the word alone
  // (exact DRAM comparison), the chains do not look at it.
  AtomicChains chains;
  chains.add(atomic(0, 1, false));
  chains.add(atomic(1, 2, false));
  EXPECT_TRUE(chains.check([](uint64_t, unsigned) { return 99; }));
  EXPECT_TRUE(chains.followed_words().empty());
}

TEST(AtomicChains, SaysWhatItCannotFollow) {
  // An order-dependent atomic with a discarded result among observed ones.
  std::vector<GlobalAccess> a = {atomic(0, 1), atomic(1, 2, false), atomic(2, 3)};
  std::string error = verdict(a, 3);
  EXPECT_NE(error.find("cannot follow"), std::string::npos) << error;
  EXPECT_NE(error.find("rd = x0"), std::string::npos) << error;
  // A store to part of the word.
  std::vector<GlobalAccess> b = {atomic(0, 1), store(5, 1, kWord + 1)};
  error = verdict(b, 0x501);
  EXPECT_NE(error.find("writes part of it"), std::string::npos) << error;
  // A store that covers the word is a jump to its bytes of the value.
  std::vector<GlobalAccess> c = {atomic(0, 1), store(0x0000000700000000ull, 8, kWord - 4)};
  EXPECT_EQ(verdict(c, 7), "");
}

// ---- the Checker against a second model standing in for the RTL -------------

using namespace model::rvasm;
using model::test::kData;
using model::test::TestGpu;

// Every thread adds 1 to the counter at a0 and stores the old value at
// out[global thread index] (a0 + 64 + 4 * index).
constexpr int kToAtomic = 8;  // warp-instructions up to and with the atomic
constexpr int kAfter = 2;     // the store and the exit
model::rvasm::Assembler race_kernel() {
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.csrr(t1, KESTREL_CSR_CTAID_X);
  a.slli(t1, t1, 2);
  a.add(t0, t0, t1);
  a.slli(t0, t0, 2);
  a.add(t2, a0, t0);
  a.addi(t1, zero, 1);
  a.amo(0x00, 4, s2, a0, t1);  // amoadd.w s2, t1, (a0)
  a.sw(s2, t2, 64);
  a.kx_exit();
  return a;
}

struct Race {
  // The "RTL": SM 1's warp performs its atomic first; the records reach the
  // checker with SM 0's first (SM 0's response came back earlier).
  TestGpu rtl{64, 4, 2, 1};
  TestGpu model{64, 4, 2, 1};
  std::vector<RtlRetire> records;

  Race() {
    for (TestGpu* g : {&rtl, &model}) {
      g->load(race_kernel());
      g->set_data<uint32_t>(0, 0);
      g->gpu().start(g->desc({2, 1, 1}, {4, 1, 1}), model::Dispatch::kManual);
      g->gpu().place_block(0, 0, {0});
      g->gpu().place_block(1, 1, {0});
    }
    std::vector<RtlRetire> sm0, sm1;
    for (int i = 0; i < kToAtomic; ++i) sm1.push_back(record_of(rtl.gpu().step(1, 0), 4));  // reads 0..3
    for (int i = 0; i < kToAtomic; ++i) sm0.push_back(record_of(rtl.gpu().step(0, 0), 4));  // reads 4..7
    records = sm0;
    records.insert(records.end(), sm1.begin(), sm1.end());
    for (uint32_t sm : {0u, 1u}) {
      for (int i = 0; i < kAfter; ++i) records.push_back(record_of(rtl.gpu().step(sm, 0), 4));
    }
    EXPECT_EQ(rtl.gpu().state(), model::LaunchState::kDone);
  }

  uint64_t rtl_word(uint64_t addr, unsigned bytes) {
    uint64_t v = 0;
    rtl.gpu().read_mem(addr, &v, bytes);
    return v;
  }
};

TEST(GpuLockstepAtomics, PlainLockstepSeesAFalseMismatch) {
  Race race;
  Checker checker(race.model.gpu(), race.model.desc({2, 1, 1}, {4, 1, 1}));
  bool ok = true;
  for (const RtlRetire& r : race.records) ok = ok && checker.retire(r);
  EXPECT_FALSE(ok);
  EXPECT_NE(checker.error().find("rtl 0x4 model 0x0"), std::string::npos) << checker.error();
}

TEST(GpuLockstepAtomics, FollowingTheRtlPassesAndLeavesTheSameDram) {
  Race race;
  Checker checker(race.model.gpu(), race.model.desc({2, 1, 1}, {4, 1, 1}), true);
  for (const RtlRetire& r : race.records) ASSERT_TRUE(checker.retire(r)) << checker.error();
  ASSERT_TRUE(checker.finish()) << checker.error();
  ASSERT_TRUE(checker.finish_atomics([&](uint64_t a, unsigned b) { return race.rtl_word(a, b); }, false))
      << checker.error();
  EXPECT_EQ(checker.atomic_chains().observed(), 8u);
  std::vector<uint8_t> rtl_mem(256), model_mem(256);
  race.rtl.gpu().read_mem(kData, rtl_mem.data(), rtl_mem.size());
  race.model.gpu().read_mem(kData, model_mem.data(), model_mem.size());
  EXPECT_EQ(rtl_mem, model_mem);
  EXPECT_EQ(race.rtl_word(kData, 4), 8u);
}

TEST(GpuLockstepAtomics, AWrongOldValueIsStillCaught) {
  for (unsigned lane : {0u, 3u}) {
    Race race;
    // SM 1's atomic: one lane read a wrong value, which it stores (so the
    // retire records agree with the model; only the chain can tell).
    race.records[2 * kToAtomic - 1].rd_data[lane] ^= 1;
    Checker checker(race.model.gpu(), race.model.desc({2, 1, 1}, {4, 1, 1}), true);
    bool ok = true;
    for (const RtlRetire& r : race.records) ok = ok && checker.retire(r);
    ok = ok && checker.finish();
    ok = ok && checker.finish_atomics([&](uint64_t a, unsigned b) { return race.rtl_word(a, b); }, false);
    EXPECT_FALSE(ok) << "lane " << lane;
    EXPECT_NE(checker.error().find("no order of them"), std::string::npos) << checker.error();
    if (lane == 0) std::printf("caught: %s\n", checker.error().c_str());
  }
}

// ---- a plain load of the raced word ------------------------------------------

// Block 0 adds 1 per thread to the counter at a0; block 1 reads it with a
// plain load (a spin's read of a flag); both store what they got at
// out[global thread index].
constexpr int kToAccess = 9;  // warp-instructions up to and with the atomic or the load
model::rvasm::Assembler reader_kernel() {
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.csrr(t1, KESTREL_CSR_CTAID_X);
  a.slli(t1, t1, 2);
  a.add(t0, t0, t1);
  a.slli(t0, t0, 2);
  a.add(t2, a0, t0);
  a.bne(t1, zero, "reader");
  a.addi(t1, zero, 1);
  a.amo(0x00, 4, s2, a0, t1);  // amoadd.w s2, t1, (a0)
  a.j("done");
  a.bind("reader");
  a.addi(t1, zero, 0);
  a.lw(s2, a0, 0);
  a.bind("done");
  a.sw(s2, t2, 64);
  a.kx_exit();
  return a;
}

struct ReaderRace {
  // The "RTL": SM 0's atomic is performed before SM 1's load, which sees 4;
  // the load's record reaches the checker first.
  TestGpu rtl{64, 4, 2, 1};
  TestGpu model{64, 4, 2, 1};
  std::vector<RtlRetire> records;

  ReaderRace() {
    for (TestGpu* g : {&rtl, &model}) {
      g->load(reader_kernel());
      g->set_data<uint32_t>(0, 0);
      g->gpu().start(g->desc({2, 1, 1}, {4, 1, 1}), model::Dispatch::kManual);
      g->gpu().place_block(0, 0, {0});
      g->gpu().place_block(1, 1, {0});
    }
    std::vector<RtlRetire> sm0;
    for (int i = 0; i < kToAccess; ++i) sm0.push_back(record_of(rtl.gpu().step(0, 0), 4));
    for (int i = 0; i < kToAccess; ++i) records.push_back(record_of(rtl.gpu().step(1, 0), 4));
    records.insert(records.end(), sm0.begin(), sm0.end());
    while (rtl.gpu().state() == model::LaunchState::kRunning) {
      for (uint32_t sm : {0u, 1u}) {
        if (rtl.gpu().warp_resident(sm, 0)) {
          const model::Retire r = rtl.gpu().step(sm, 0);
          if (r.issued) records.push_back(record_of(r, 4));
        }
      }
    }
  }
  bool check(bool follow, std::string* error) {
    Checker checker(model.gpu(), model.desc({2, 1, 1}, {4, 1, 1}), follow);
    bool ok = true;
    for (const RtlRetire& r : records) ok = ok && checker.retire(r);
    ok = ok && checker.finish();
    ok = ok && checker.finish_atomics(
                   [&](uint64_t a, unsigned b) {
                     uint64_t v = 0;
                     rtl.gpu().read_mem(a, &v, b);
                     return v;
                   },
                   false);
    *error = checker.error();
    return ok;
  }
};

TEST(GpuLockstepAtomics, APlainLoadOfTheRacedWordTakesTheRtlValue) {
  std::string error;
  ReaderRace plain;
  EXPECT_FALSE(plain.check(false, &error));
  EXPECT_NE(error.find("rtl 0x4 model 0x0"), std::string::npos) << error;
  ReaderRace followed;
  EXPECT_TRUE(followed.check(true, &error)) << error;
  std::vector<uint8_t> rtl_mem(128), model_mem(128);
  followed.rtl.gpu().read_mem(kData, rtl_mem.data(), rtl_mem.size());
  followed.model.gpu().read_mem(kData, model_mem.data(), model_mem.size());
  EXPECT_EQ(rtl_mem, model_mem);
}

TEST(GpuLockstepAtomics, APlainLoadOfAValueTheWordNeverHeldIsCaught) {
  std::string error;
  ReaderRace race;
  race.records[kToAccess - 1].rd_data[2] = 9;  // the load's lane 2
  EXPECT_FALSE(race.check(true, &error));
  EXPECT_NE(error.find("the access that read 0x9"), std::string::npos) << error;
  // A wrong extension of a word is a mismatch at once.
  ReaderRace sign;
  sign.records[kToAccess - 1].rd_data[2] = 0xFFFFFFFF00000004ull;
  EXPECT_FALSE(sign.check(true, &error));
  EXPECT_NE(error.find("rtl 0xffffffff00000004"), std::string::npos) << error;
}

TEST(AtomicChains, LoadsObserveOnlyFollowedWords) {
  AtomicChains chains;
  chains.add(atomic(0, 1));
  EXPECT_TRUE(chains.observe(kWord, 4, 1));
  EXPECT_FALSE(chains.observe(kWord + 4, 4, 0));  // no atomic there
  EXPECT_FALSE(chains.observe(kWord, 8, 1));      // another size
  EXPECT_TRUE(chains.check([](uint64_t, unsigned) { return 1; }));
  EXPECT_TRUE(chains.observe(kWord, 4, 5));  // 5: never in the word
  EXPECT_FALSE(chains.check([](uint64_t, unsigned) { return 1; }));
}

// RV32 reads a raced 64-bit word as two 32-bit loads: each half must be that
// half of one of the doubleword's values.
TEST(AtomicChains, HalfLoadsOfADoublewordSeeItsValues) {
  const uint64_t v1 = 0x0000000100000013ull, v2 = 0x0000000200000014ull;
  auto dword_atomic = [](uint64_t old, uint64_t value) {
    GlobalAccess a = atomic(old, value);
    a.bytes = 8;
    return a;
  };
  auto final_v2 = [&](uint64_t, unsigned) { return v2; };
  AtomicChains chains;
  chains.add(dword_atomic(0, v1));
  chains.add(dword_atomic(v1, v2));
  EXPECT_TRUE(chains.observe(kWord, 4, 0x13));     // low half of v1
  EXPECT_TRUE(chains.observe(kWord + 4, 4, 0x2));  // high half of v2
  EXPECT_FALSE(chains.observe(kWord + 8, 4, 0));   // beyond the doubleword
  EXPECT_TRUE(chains.check(final_v2));
  EXPECT_TRUE(chains.observe(kWord + 4, 4, 0x13));  // 0x13 was never the high half
  EXPECT_FALSE(chains.check(final_v2));
  EXPECT_NE(chains.error().find("high half saw 0x13"), std::string::npos) << chains.error();
}

// clang's byte and halfword CAS loops read their byte before the LR: a
// narrower load of a followed word must see that part of one of its values.
TEST(AtomicChains, ByteAndHalfLoadsOfAWordSeeItsValues) {
  const uint64_t v1 = 0x11223344, v2 = 0x55667788;
  auto final_v2 = [&](uint64_t, unsigned) { return v2; };
  AtomicChains chains;
  chains.add(atomic(0, v1));
  chains.add(atomic(v1, v2));
  EXPECT_TRUE(chains.observe(kWord + 1, 1, 0x33));    // byte 1 of v1
  EXPECT_TRUE(chains.observe(kWord + 2, 2, 0x5566));  // high halfword of v2
  EXPECT_FALSE(chains.observe(kWord + 4, 1, 0));      // beyond the word
  EXPECT_TRUE(chains.check(final_v2));
  EXPECT_TRUE(chains.observe(kWord + 3, 1, 0x44));  // 0x44 was never byte 3
  EXPECT_FALSE(chains.check(final_v2));
  EXPECT_NE(chains.error().find("1-byte load of its bytes 3..3 saw 0x44"), std::string::npos)
      << chains.error();
}

}  // namespace
}  // namespace kestrel::lockstep
