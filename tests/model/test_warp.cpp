// Warp-synchronous instructions (docs/isa.md sections 2 and 6.1): votes,
// shuffles, match, reduce and kx.syncwarp with full, partial and divergent
// membermasks, masks naming exited threads, the convergence wait, deadlocks,
// and kx.nanosleep letting other warps issue.
#include <algorithm>
#include <functional>

#include "harness.hpp"

namespace kestrel::model::test {
namespace {

constexpr uint32_t kRow = 32 * 8;  // one 64-bit value per lane

// Every kernel starts the same way: t0 = laneid, s11 = this lane's output
// slot (a0 + lane * XLEN/8), s10 = all lanes.
void prologue(Assembler& a, unsigned xlen = 64) {
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.slli(s11, t0, xlen == 64 ? 3 : 2);
  a.add(s11, s11, a0);
  a.li(s10, -1);
}

// Stores `reg` to row `row` of the output (rows of 32 XLEN-wide values).
void put(Assembler& a, Reg reg, uint32_t row, unsigned xlen = 64) {
  const int32_t offset = static_cast<int32_t>(row * 32 * (xlen / 8));
  if (xlen == 64) {
    a.sd(reg, s11, offset);
  } else {
    a.sw(reg, s11, offset);
  }
}

uint64_t out(const TestGpu& g, uint32_t row, uint32_t lane) {
  return g.data<uint64_t>(row * kRow + lane * 8);
}

uint64_t sext(uint32_t v) { return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v))); }

TEST(Vote, FullWarpAllAnyUniBallot) {
  Assembler b(64);
  prologue(b);
  b.andi(t1, t0, 3);
  b.sltiu(t1, t1, 1);
  b.kx_vote_ballot(s2, t1, s10);
  b.kx_vote_all(s3, t1, s10);
  b.kx_vote_any(s4, t1, s10);
  b.kx_vote_uni(s5, t1, s10);
  b.li(t2, 1);
  b.kx_vote_all(s6, t2, s10);
  b.kx_vote_uni(s7, t2, s10);
  b.kx_vote_any(s8, zero, s10);
  const Reg results[] = {s2, s3, s4, s5, s6, s7, s8};
  for (uint32_t i = 0; i < std::size(results); ++i) put(b, results[i], i);
  b.kx_exit();
  TestGpu g;
  g.load(b);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(out(g, 0, l), 0x11111111u);
    EXPECT_EQ(out(g, 1, l), 0u);
    EXPECT_EQ(out(g, 2, l), 1u);
    EXPECT_EQ(out(g, 3, l), 0u);
    EXPECT_EQ(out(g, 4, l), 1u);
    EXPECT_EQ(out(g, 5, l), 1u);
    EXPECT_EQ(out(g, 6, l), 0u);
  }
}

TEST(Vote, BallotOfLane31IsSignExtendedOnRv64) {
  Assembler a(64);
  prologue(a);
  a.sltiu(t1, t0, 31);
  a.xori(t1, t1, 1);  // only lane 31
  a.kx_vote_ballot(s2, t1, s10);
  put(a, s2, 0);
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  EXPECT_EQ(out(g, 0, 0), 0xFFFFFFFF80000000ull);
}

// Even and odd lanes take different paths and vote with their own halves
// of the warp as membermask: each class sees only its members.
TEST(Vote, DivergentPathsWithDisjointMasks) {
  Assembler a(64);
  prologue(a);
  a.andi(t1, t0, 1);
  a.sltiu(t2, t0, 8);  // predicate: lane < 8
  a.bne(t1, zero, "odd");
  a.li(t3, 0x55555555);
  a.kx_vote_ballot(s2, t2, t3);
  a.kx_vote_all(s3, t2, t3);
  a.j("join");
  a.bind("odd");
  a.li(t3, 0xAAAAAAAA);
  a.kx_vote_ballot(s2, t2, t3);
  a.kx_vote_any(s3, t2, t3);
  a.bind("join");
  put(a, s2, 0);
  put(a, s3, 1);
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(out(g, 0, l), l % 2 == 0 ? 0x55u : 0xAAu) << l;
    EXPECT_EQ(out(g, 1, l), l % 2 == 0 ? 0u : 1u) << l;
  }
}

// The even lanes reach the collective first (min PC) while the odd lanes run
// code at a higher PC and come back to it: the even lanes must wait for them
// (the implicit __syncwarp of CUDA's *_sync), so everyone sees the full warp.
TEST(Vote, WaitsForDivergedLanesOfTheMask) {
  Assembler a(64);
  prologue(a);
  a.andi(t1, t0, 1);
  a.li(s4, 0);
  a.bne(t1, zero, "odd_work");
  a.bind("collective");
  a.sltiu(t2, t0, 100);  // everyone's predicate is true
  a.kx_vote_ballot(s2, t2, s10);
  a.j("done");
  a.bind("odd_work");
  for (int i = 0; i < 5; ++i) a.addi(s4, s4, 1);
  a.j("collective");
  a.bind("done");
  put(a, s2, 0);
  put(a, s4, 1);
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(out(g, 0, l), 0xFFFFFFFFFFFFFFFFull) << l;
    EXPECT_EQ(out(g, 1, l), l % 2 ? 5u : 0u);
  }
}

// Lanes 16..31 exit at once; the others vote with a full mask: exited lanes
// neither block the vote nor count in it, and match.all returns the
// participants (as an H100 does, tests/cuda/reference/nvidia/partial_masks.cu).
TEST(Vote, MaskNamingExitedThreads) {
  Assembler a(64);
  prologue(a);
  a.li(t1, 16);
  a.bge(t0, t1, "leave");
  a.li(t2, 1);
  a.kx_vote_all(s2, t2, s10);
  a.kx_vote_ballot(s3, t2, s10);
  a.kx_match(KESTREL_F7_MATCH_ALL_W, s4, t2, s10);
  a.kx_reduce(KESTREL_F7_REDUCE_ADD, s5, t2, s10);
  put(a, s2, 0);
  put(a, s3, 1);
  put(a, s4, 2);
  put(a, s5, 3);
  a.bind("leave");
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 16; ++l) {
    EXPECT_EQ(out(g, 0, l), 1u);
    EXPECT_EQ(out(g, 1, l), 0xFFFFu);
    EXPECT_EQ(out(g, 2, l), 0xFFFFu);
    EXPECT_EQ(out(g, 3, l), 16u);
  }
}

// A lane whose exit completes the mask releases the lanes parked for it.
TEST(Vote, ExitOfTheLastMissingLaneReleasesTheParkedOnes) {
  Assembler a(64);
  prologue(a);
  a.li(t1, 31);
  a.beq(t0, t1, "late");
  a.bind("vote");
  a.li(t2, 1);
  a.kx_vote_ballot(s2, t2, s10);
  put(a, s2, 0);
  a.kx_exit();
  a.bind("late");  // lane 31: work at a higher PC, then exit without voting
  for (int i = 0; i < 3; ++i) a.nop();
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 31; ++l) EXPECT_EQ(out(g, 0, l), 0x7FFFFFFFu);
}

TEST(Vote, LaneOutsideItsOwnMaskIsIllegal) {
  Assembler a(64);
  prologue(a);
  a.li(t1, 0xFFFFFFFE);  // every mask lacks lane 0
  a.kx_vote_any(s2, t1, t1);
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kFault);
  EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_ILLEGAL_INSTRUCTION);
  EXPECT_EQ(g.gpu().fault().thread.x, 0u);
}

// Lanes 0..15 shuffle with a full mask while lanes 16..31 wait at a block
// barrier: neither can go on.
TEST(Vote, MaskWaitingOnABlockBarrierDeadlocks) {
  Assembler a(64);
  prologue(a);
  a.li(t1, 16);
  a.bge(t0, t1, "barrier");
  a.kx_vote_any(s2, t0, s10);
  a.kx_bar_sync();
  a.kx_exit();
  a.bind("barrier");
  a.kx_bar_sync();
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kFault);
  EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_BARRIER_DEADLOCK);
  EXPECT_EQ(g.gpu().fault().thread.x, 0u);
  EXPECT_EQ(g.gpu().fault().pc, kCode + 6 * 4) << "names the parked vote";
}

// CUDA semantics of the four shuffles with `width`, written from the CUDA
// programming guide's description (not the PTX formula the model uses).
uint32_t cuda_source(unsigned mode, uint32_t lane, uint32_t arg, uint32_t width) {
  const uint32_t segment_start = lane / width * width;
  switch (mode) {
    case KESTREL_SHFL_IDX:
      return segment_start + arg % width;
    case KESTREL_SHFL_UP:
      return lane % width >= arg ? lane - arg : lane;
    case KESTREL_SHFL_DOWN:
      return lane % width + arg < width ? lane + arg : lane;
    default: {
      const uint32_t source = lane ^ arg;
      return source / width > lane / width ? lane : source;  // later groups give the own value
    }
  }
}

struct ShuffleCase {
  unsigned mode;
  uint32_t arg;
  uint32_t width;
};

class Shuffle : public ::testing::TestWithParam<ShuffleCase> {};

TEST_P(Shuffle, MatchesCudaSemantics) {
  const ShuffleCase c = GetParam();
  Assembler a(64);
  prologue(a);
  a.slli(t1, t0, 8);
  a.addi(t1, t1, 7);  // value = lane * 256 + 7
  a.li(t2, static_cast<int64_t>(c.arg | ((32 - c.width) & 31) << KESTREL_SHFL_SEG_SHIFT));
  a.kx_shfl(c.mode, s2, t1, t2, s10);
  put(a, s2, 0);
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(out(g, 0, l), cuda_source(c.mode, l, c.arg, c.width) * 256 + 7) << "lane " << l;
}

const ShuffleCase kShuffleCases[] = {
    {KESTREL_SHFL_IDX, 0, 32},  {KESTREL_SHFL_IDX, 5, 32},   {KESTREL_SHFL_IDX, 13, 8},
    {KESTREL_SHFL_IDX, 3, 16},  {KESTREL_SHFL_IDX, 31, 2},   {KESTREL_SHFL_UP, 1, 32},
    {KESTREL_SHFL_UP, 4, 8},    {KESTREL_SHFL_UP, 31, 32},   {KESTREL_SHFL_DOWN, 1, 32},
    {KESTREL_SHFL_DOWN, 2, 4},  {KESTREL_SHFL_DOWN, 16, 16}, {KESTREL_SHFL_XOR, 1, 32},
    {KESTREL_SHFL_XOR, 16, 32}, {KESTREL_SHFL_XOR, 16, 16},  {KESTREL_SHFL_XOR, 7, 4}};

std::string shuffle_case_name(const ::testing::TestParamInfo<ShuffleCase>& info) {
  static const char* const kModeNames[] = {"Idx", "Up", "Down", "Xor"};
  return std::string(kModeNames[info.param.mode]) + std::to_string(info.param.arg) + "Width" +
         std::to_string(info.param.width);
}

INSTANTIATE_TEST_SUITE_P(Modes, Shuffle, ::testing::ValuesIn(kShuffleCases), shuffle_case_name);

// A shuffle moves all XLEN bits of the register.
TEST(ShuffleValues, MovesWholeRegister) {
  Assembler a(64);
  prologue(a);
  a.li(t1, 0x123456789ABCDEF0ll);
  a.add(t1, t1, t0);
  a.li(t2, 1);
  a.kx_shfl(KESTREL_SHFL_DOWN, s2, t1, t2, s10);
  put(a, s2, 0);
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  EXPECT_EQ(out(g, 0, 3), 0x123456789ABCDEF4ull);
  EXPECT_EQ(out(g, 0, 31), 0x123456789ABCDEF0ull + 31);
}

// Lanes 0..15 read lanes 16..31, which exited right after setting their
// value: an inactive source lane gives its register's (last) value.
TEST(ShuffleValues, InactiveSourceLaneGivesItsRegister) {
  Assembler a(64);
  prologue(a);
  a.addi(t1, t0, 100);
  a.li(t3, 16);
  a.bge(t0, t3, "leave");
  a.addi(t2, t0, 16);  // source lane = lane + 16
  a.li(t4, 0xFFFF);
  a.kx_shfl(KESTREL_SHFL_IDX, s2, t1, t2, t4);
  put(a, s2, 0);
  a.bind("leave");
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 16; ++l) EXPECT_EQ(out(g, 0, l), 116u + l);
}

// An 8-lane warp: width 8 covers the warp; sources past lane 7 do not exist
// and give the own value.
TEST(ShuffleValues, EightLaneWarp) {
  Assembler a(64);
  prologue(a);
  a.addi(t1, t0, 40);
  a.li(t2, 3 | (24 << KESTREL_SHFL_SEG_SHIFT));  // width 8
  a.kx_shfl(KESTREL_SHFL_DOWN, s2, t1, t2, s10);
  a.li(t2, 3);  // width 32 on an 8-lane warp
  a.kx_shfl(KESTREL_SHFL_DOWN, s3, t1, t2, s10);
  a.li(t5, 1);
  a.kx_vote_ballot(s4, t5, s10);
  put(a, s2, 0);
  put(a, s3, 1);
  put(a, s4, 2);
  a.kx_exit();
  TestGpu g(64, 8);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {8, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 8; ++l) {
    EXPECT_EQ(out(g, 0, l), 40u + (l + 3 < 8 ? l + 3 : l));
    EXPECT_EQ(out(g, 1, l), 40u + (l + 3 < 8 ? l + 3 : l));
    EXPECT_EQ(out(g, 2, l), 0xFFu);
  }
}

TEST(Match, AnyAndAllOnWordsAndWholeRegisters) {
  Assembler a(64);
  prologue(a);
  a.srli(t1, t0, 2);  // value = lane / 4, same low word for groups of 4
  a.slli(t2, t0, 40);
  a.or_(t2, t2, t1);  // differs in the high word for every lane
  a.kx_match(KESTREL_F7_MATCH_ANY_W, s2, t2, s10);
  a.kx_match(KESTREL_F7_MATCH_ANY, s3, t2, s10);
  a.kx_match(KESTREL_F7_MATCH_ALL_W, s4, t1, s10);
  a.li(t3, 9);
  a.kx_match(KESTREL_F7_MATCH_ALL, s5, t3, s10);
  put(a, s2, 0);
  put(a, s3, 1);
  put(a, s4, 2);
  put(a, s5, 3);
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(out(g, 0, l), sext(0xFu << (l / 4 * 4))) << l;
    EXPECT_EQ(out(g, 1, l), sext(1u << l));
    EXPECT_EQ(out(g, 2, l), 0u);
    EXPECT_EQ(out(g, 3, l), 0xFFFFFFFFFFFFFFFFull);
  }
}

TEST(Reduce, AllOperationsOverAPartialMask) {
  // Lanes 0..9 take part (the others branch past): values lane * 3 - 7.
  const unsigned ops[] = {KESTREL_F7_REDUCE_ADD,  KESTREL_F7_REDUCE_MIN,  KESTREL_F7_REDUCE_MAX,
                          KESTREL_F7_REDUCE_MINU, KESTREL_F7_REDUCE_MAXU, KESTREL_F7_REDUCE_AND,
                          KESTREL_F7_REDUCE_OR,   KESTREL_F7_REDUCE_XOR};
  Assembler a(64);
  prologue(a);
  a.li(t1, 10);
  a.bge(t0, t1, "skip");
  a.li(t2, 3);
  a.mul(t2, t2, t0);
  a.addi(t2, t2, -7);
  a.li(t3, 0x3FF);
  for (uint32_t i = 0; i < std::size(ops); ++i) {
    a.kx_reduce(ops[i], s2, t2, t3);
    put(a, s2, i);
  }
  a.bind("skip");
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  int32_t values[10];
  for (int l = 0; l < 10; ++l) values[l] = l * 3 - 7;
  int32_t sum = 0, smin = values[0], smax = values[0];
  uint32_t umin = ~0u, umax = 0, band = ~0u, bor = 0, bxor = 0;
  for (int32_t v : values) {
    const uint32_t u = static_cast<uint32_t>(v);
    sum += v;
    smin = std::min(smin, v);
    smax = std::max(smax, v);
    umin = std::min(umin, u);
    umax = std::max(umax, u);
    band &= u;
    bor |= u;
    bxor ^= u;
  }
  const uint32_t expected[] = {static_cast<uint32_t>(sum),
                               static_cast<uint32_t>(smin),
                               static_cast<uint32_t>(smax),
                               umin,
                               umax,
                               band,
                               bor,
                               bxor};
  for (uint32_t i = 0; i < std::size(ops); ++i)
    for (uint32_t l = 0; l < 10; ++l)
      EXPECT_EQ(out(g, i, l), sext(expected[i])) << "op " << i << " lane " << l;
}

// __syncwarp from two different PCs (an if/else, each side with its own
// kx.syncwarp) releases the whole warp, and orders memory: each lane reads
// the value its neighbour wrote before the warp barrier.
TEST(Syncwarp, DifferentPcsMeetAndOrderMemory) {
  Assembler a(64);
  prologue(a);
  a.addi(t1, t0, 1000);
  a.slli(t2, t0, 2);
  a.add(t2, t2, a0);
  a.sw(t1, t2, 1024);  // scratch[lane] = lane + 1000
  a.andi(t3, t0, 1);
  a.bne(t3, zero, "odd");
  for (int i = 0; i < 4; ++i) a.nop();
  a.kx_syncwarp(s10);
  a.j("after");
  a.bind("odd");
  a.kx_syncwarp(s10);
  a.bind("after");
  a.addi(t4, t0, 1);
  a.andi(t4, t4, 31);
  a.slli(t4, t4, 2);
  a.add(t4, t4, a0);
  a.lw(s2, t4, 1024);  // scratch[(lane + 1) % 32]
  put(a, s2, 0);
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out(g, 0, l), 1000u + (l + 1) % 32);
}

TEST(Syncwarp, ExitedLanesDoNotBlockAndPartialMasksAreIndependent) {
  Assembler a(64);
  prologue(a);
  a.li(t1, 24);
  a.bge(t0, t1, "leave");  // lanes 24..31 exit
  a.li(t2, 16);
  a.blt(t0, t2, "low");
  a.li(t3, static_cast<int64_t>(0xFFFF0000u));
  a.kx_syncwarp(t3);  // lanes 16..23 with exited 24..31
  a.li(s2, 2);
  put(a, s2, 0);
  a.kx_exit();
  a.bind("low");
  a.li(t3, 0xFFFF);
  a.kx_syncwarp(t3);
  a.li(s2, 1);
  put(a, s2, 0);
  a.bind("leave");
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 24; ++l) EXPECT_EQ(out(g, 0, l), l < 16 ? 1u : 2u);
}

TEST(Syncwarp, MissingLaneDeadlocksWithTheWatchdog) {
  // Lane 0 waits at kx.syncwarp for lane 1, which spins forever on a flag
  // nobody sets: the barrier watchdog ends the launch.
  Assembler a(64);
  prologue(a);
  a.bne(t0, zero, "spin");
  a.li(t1, 3);
  a.kx_syncwarp(t1);
  a.kx_exit();
  a.bind("spin");
  a.lw(t2, a0, 1024);
  a.beq(t2, zero, "spin");
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {2, 1, 1}), LaunchState::kFault);
  EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_BARRIER_DEADLOCK);
  EXPECT_EQ(g.gpu().fault().thread.x, 0u);
}

TEST(WarpRv32, ShuffleVoteAndReduce) {
  Assembler a(32);
  prologue(a, 32);
  a.addi(t1, t0, 1);
  a.li(t2, 1);
  a.kx_shfl(KESTREL_SHFL_XOR, s2, t1, t2, s10);
  a.kx_vote_ballot(s3, t1, s10);
  a.kx_reduce(KESTREL_F7_REDUCE_ADD, s4, t1, s10);
  put(a, s2, 0, 32);
  put(a, s3, 1, 32);
  put(a, s4, 2, 32);
  a.kx_exit();
  TestGpu g(32);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(g.data<uint32_t>(l * 4), (l ^ 1) + 1);
    EXPECT_EQ(g.data<uint32_t>(128 + l * 4), 0xFFFFFFFFu);
    EXPECT_EQ(g.data<uint32_t>(256 + l * 4), 32u * 33 / 2);
  }
}

// Lock-step: the group that arrives first parks without a retire record; the
// issue that completes the mask retires for every lane.
TEST(WarpLockStep, ParkedLanesRetireWithTheCompletingIssue) {
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);  // 0
  a.li(s10, -1);                   // 4
  a.bne(t0, zero, "late");         // 8
  a.bind("vote");
  a.kx_vote_ballot(s2, s10, s10);  // 12
  a.kx_exit();                     // 16
  a.bind("late");
  a.j("vote");  // 20
  TestGpu g(64, 4, 1, 1);
  g.load(a);
  g.gpu().start(g.desc({1, 1, 1}, {4, 1, 1}), Dispatch::kManual);
  g.gpu().place_block(0, 0, {0});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(g.gpu().step(0, 0).issued);
  // Lane 0 is at the vote (pc 12), lanes 1..3 at pc 20: lane 0 parks, the
  // jump issues instead.
  Retire r = g.gpu().step(0, 0);
  EXPECT_EQ(r.pc, kCode + 20);
  EXPECT_EQ(r.mask, 0xEu);
  r = g.gpu().step(0, 0);
  EXPECT_EQ(r.pc, kCode + 12);
  EXPECT_EQ(r.mask, 0xFu);
  ASSERT_EQ(r.writes.size(), 4u);
  EXPECT_EQ(r.writes[0].value, 0xFu);
}

TEST(Nanosleep, SleepingWarpLetsAnotherRunAndTheClockAdvances) {
  // Warp 0: reads the cycle counter, sleeps 20 us (2000 cycles at 100 MHz),
  // reads it again and then the counter warp 1 advanced meanwhile.
  // Warp 1: 100 increments of a shared counter in memory.
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_WARPID);
  a.bne(t0, zero, "worker");
  a.csrr(s2, 0xC00);
  a.li(t1, 20000);
  a.kx_nanosleep(t1);
  a.csrr(s3, 0xC00);
  a.lw(s4, a0, 64);
  a.sd(s2, a0, 0);
  a.sd(s3, a0, 8);
  a.sd(s4, a0, 16);
  a.kx_exit();
  a.bind("worker");
  a.li(t2, 100);
  a.bind("loop");
  a.lw(t3, a0, 64);
  a.addi(t3, t3, 1);
  a.sw(t3, a0, 64);
  a.addi(t2, t2, -1);
  a.bne(t2, zero, "loop");
  a.kx_exit();
  TestGpu g(64, 4);
  g.load(a);
  g.set_data<uint32_t>(64, 0);
  ASSERT_EQ(g.run({1, 1, 1}, {8, 1, 1}), LaunchState::kDone);  // two 4-lane warps
  const uint64_t before = g.data<uint64_t>(0), after = g.data<uint64_t>(8);
  EXPECT_GE(after - before, 2000u);
  EXPECT_EQ(g.data<uint32_t>(64), 100u);
  EXPECT_GE(g.data<uint64_t>(16), 100u) << "the worker ran while warp 0 slept";
}

TEST(Nanosleep, LoneSleeperStillWakesAndLongRequestsAreCapped) {
  Assembler a(64);
  a.csrr(s2, 0xC00);
  a.li(t1, 5000000);  // 5 ms: capped at 1 ms = 100000 cycles
  a.kx_nanosleep(t1);
  a.csrr(s3, 0xC00);
  a.sub(s3, s3, s2);
  a.sd(s3, a0, 0);
  a.kx_exit();
  TestGpu g;
  g.load(a);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_GE(g.data<uint64_t>(0), 100000u);
  EXPECT_LT(g.data<uint64_t>(0), 100010u);
}

}  // namespace
}  // namespace kestrel::model::test
