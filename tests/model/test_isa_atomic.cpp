// A extension: AMOs of every kind (.w, and .d on RV64), lanes of one warp
// instruction in lane order, LR/SC reservations, on global and shared memory.
#include "harness.hpp"

namespace kestrel::model::test {
namespace {

constexpr unsigned kAdd = 0x00, kSwap = 0x01, kXor = 0x04, kOr = 0x08, kAnd = 0x0C, kMin = 0x10, kMax = 0x14,
                   kMinu = 0x18, kMaxu = 0x1C;

TEST(Atomics, LanesOfOneInstructionGoInLaneOrder) {
  // Every lane adds (lane + 1) to one word: lane l sees the sum of lanes < l.
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.addi(t1, t0, 1);
  a.amo(kAdd, 4, s2, a0, t1);
  a.kx_exit();
  TestGpu g(64);
  g.load(a);
  g.set_data<uint32_t>(0, 1000);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  uint32_t expected = 1000;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(g.x(s2, lane), expected) << lane;
    expected += lane + 1;
  }
  EXPECT_EQ(g.data<uint32_t>(0), expected);
}

TEST(Atomics, EveryWordOperation) {
  struct Case {
    unsigned funct5;
    uint32_t memory, operand, result;
  };
  const Case cases[] = {
      {kSwap, 5, 9, 9},
      {kAdd, 0xFFFFFFFF, 2, 1},
      {kXor, 0xF0F0, 0xFF00, 0x0FF0},
      {kOr, 0xF0, 0x0F, 0xFF},
      {kAnd, 0xF0, 0x3C, 0x30},
      {kMin, 0xFFFFFFFE, 1, 0xFFFFFFFE},  // -2 < 1 signed
      {kMax, 0xFFFFFFFE, 1, 1},
      {kMinu, 0xFFFFFFFE, 1, 1},
      {kMaxu, 0xFFFFFFFE, 1, 0xFFFFFFFE},
  };
  for (unsigned xlen : {32u, 64u}) {
    for (const Case& c : cases) {
      Assembler a(xlen);
      a.li(t1, static_cast<int32_t>(c.operand));
      a.amo(c.funct5, 4, s2, a0, t1);
      a.kx_exit();
      TestGpu g(xlen);
      g.load(a);
      g.set_data<uint32_t>(0, c.memory);
      ASSERT_EQ(g.run(), LaunchState::kDone);
      EXPECT_EQ(g.data<uint32_t>(0), c.result) << "funct5 " << c.funct5;
      // rd gets the old value, sign-extended from 32 bits on RV64
      const uint64_t old =
          xlen == 64 ? static_cast<uint64_t>(int64_t{static_cast<int32_t>(c.memory)}) : c.memory;
      EXPECT_EQ(g.x(s2), old);
    }
  }
}

TEST(Atomics, DoublewordOperationsOnRv64) {
  Assembler a(64);
  a.li(t1, -5);
  a.amo(kMin, 8, s2, a0, t1);  // min(3, -5) = -5
  a.addi(t2, a0, 8);
  a.li(t1, 1);
  a.amo(kMaxu, 8, s3, t2, t1);  // maxu(2^63, 1)
  a.addi(t3, a0, 16);
  a.li(t1, 0x100000000ll);
  a.amo(kAdd, 8, s4, t3, t1);
  a.kx_exit();
  TestGpu g(64);
  g.load(a);
  g.set_data<int64_t>(0, 3);
  g.set_data<uint64_t>(8, 1ull << 63);
  g.set_data<uint64_t>(16, 0xFFFFFFFFull);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.data<int64_t>(0), -5);
  EXPECT_EQ(g.x(s2), 3u);
  EXPECT_EQ(g.data<uint64_t>(8), 1ull << 63);
  EXPECT_EQ(g.x(s3), 1ull << 63);
  EXPECT_EQ(g.data<uint64_t>(16), 0x1FFFFFFFFull);
}

TEST(Atomics, LoadReservedStoreConditional) {
  Assembler a(64);
  a.lr(4, s2, a0);  // reserve word 0
  a.li(t1, 11);
  a.sc(4, s3, a0, t1);  // succeeds: 0
  a.sc(4, s4, a0, t1);  // reservation used up: 1
  a.lr(4, s5, a0);
  a.li(t1, 22);
  a.sw(t1, a0, 0);  // a store to the address breaks the reservation
  a.li(t1, 33);
  a.sc(4, s6, a0, t1);  // fails
  a.addi(t2, a0, 8);
  a.lr(8, s7, t2);
  a.li(t1, 44);
  a.sc(8, s8, t2, t1);  // doubleword pair succeeds
  a.lr(4, s9, a0);
  a.addi(t3, a0, 4);
  a.sc(4, s10, t3, t1);  // another address: fails
  a.kx_exit();
  TestGpu g(64);
  g.load(a);
  g.set_data<uint32_t>(0, 7);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.x(s2), 7u);
  EXPECT_EQ(g.x(s3), 0u);
  EXPECT_EQ(g.x(s4), 1u);
  EXPECT_EQ(g.x(s5), 11u);
  EXPECT_EQ(g.x(s6), 1u);
  EXPECT_EQ(g.data<uint32_t>(0), 22u);
  EXPECT_EQ(g.x(s8), 0u);
  EXPECT_EQ(g.data<uint64_t>(8), 44u);
  EXPECT_EQ(g.x(s10), 1u);
  EXPECT_EQ(g.data<uint32_t>(4), 0u);
}

TEST(Atomics, StoreByAnotherLaneBreaksReservation) {
  // All lanes reserve word 0; then all try SC in lane order: lane 0 succeeds
  // and its store ends every other lane's reservation.
  Assembler a(64);
  a.lr(4, s2, a0);
  a.csrr(t1, KESTREL_CSR_LANEID);
  a.sc(4, s3, a0, t1);
  a.kx_exit();
  TestGpu g(64, 8);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {8, 1, 1}), LaunchState::kDone);
  EXPECT_EQ(g.x(s3, 0), 0u);
  for (uint32_t lane = 1; lane < 8; ++lane) EXPECT_EQ(g.x(s3, lane), 1u) << lane;
  EXPECT_EQ(g.data<uint32_t>(0), 0u);
}

TEST(Atomics, SharedMemoryAtomicsArePerBlock) {
  // Each block's threads add 1 to shared word 0, then thread 0 stores the sum
  // to out[block]: blocks never see each other's shared memory.
  Assembler a(64);
  a.li(t0, kShared);
  a.li(t1, 1);
  a.amo(kAdd, 4, zero, t0, t1);
  a.kx_bar_sync();
  a.csrr(t2, KESTREL_CSR_TID_X);
  a.bne(t2, zero, "done");
  a.lw(t3, t0, 0);
  a.csrr(t4, KESTREL_CSR_CTAID_X);
  a.slli(t4, t4, 2);
  a.add(t4, t4, a0);
  a.sw(t3, t4, 0);
  a.bind("done");
  a.kx_exit();
  TestGpu g(64, 8, 2, 4);
  g.load(a);
  LaunchDesc d = g.desc({6, 1, 1}, {20, 1, 1});
  d.shared_static = 16;
  ASSERT_EQ(g.run(d), LaunchState::kDone);
  for (uint32_t b = 0; b < 6; ++b) EXPECT_EQ(g.data<uint32_t>(4 * b), 20u) << b;
}

}  // namespace
}  // namespace kestrel::model::test
