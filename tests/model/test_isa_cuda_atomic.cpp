// Kestrel's CUDA atomics (custom-1, docs/isa.md section 2.2) on the model:
// compare-and-swap, atomicInc/atomicDec's wrap rule (guide B.12.1.6-7), float
// add, 64-bit CAS and the RV32 register-pair AMOs, lanes of one warp
// contending for one word (guide 4.1: every atomic is performed), shared and
// global memory, faults, illegal encodings, the shared-memory bank-pass
// counter and lock-step retire records.
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <utility>

#include "decode.hpp"
#include "harness.hpp"

namespace kestrel::model::test {
namespace {

constexpr unsigned kAdd = 0x00, kSwap = 0x01, kXor = 0x04, kOr = 0x08, kAnd = 0x0C, kMin = 0x10, kMax = 0x14,
                   kMinu = 0x18, kMaxu = 0x1C;
constexpr uint32_t kCanonicalNan = 0x7FC00000u;

// A 32-bit result as rd holds it: sign-extended on RV64.
uint64_t word_in_reg(unsigned xlen, uint32_t v) {
  return xlen == 64 ? static_cast<uint64_t>(int64_t{static_cast<int32_t>(v)}) : v;
}

// Loads the address of this lane's 4-byte slot at `base + 4 * lane` into `rd`.
void lane_slot(Assembler& a, Reg rd, Reg base, unsigned scale = 4) {
  a.csrr(rd, KESTREL_CSR_LANEID);
  a.li(t6, scale);
  a.mul(rd, rd, t6);
  a.add(rd, rd, base);
}

class CudaAtomics : public testing::TestWithParam<unsigned> {};

TEST_P(CudaAtomics, CasSwapsOnlyWhenTheWordEqualsTheCompareValue) {
  const unsigned xlen = GetParam();
  Assembler a(xlen);
  a.li(s2, 7);
  a.li(t1, 99);
  a.kx_amocas(4, s2, a0, t1);  // 7 == 7: memory 99, s2 = 7
  a.addi(t2, a0, 4);
  a.li(s3, 6);
  a.li(t1, 42);
  a.kx_amocas(4, s3, t2, t1);  // 5 != 6: memory stays 5, s3 = 5
  a.addi(t2, a0, 8);
  a.li(t1, 11);
  a.kx_amocas(4, zero, t2, t1);  // rd = x0 compares with zero
  a.addi(t2, a0, 12);
  a.li(s4, -1);
  a.li(t1, 1);
  a.kx_amocas(4, s4, t2, t1);  // 0xFFFFFFFF: old value comes back sign-extended
  a.kx_exit();
  TestGpu g(xlen);
  g.load(a);
  g.set_data<uint32_t>(0, 7);
  g.set_data<uint32_t>(4, 5);
  g.set_data<uint32_t>(8, 0);
  g.set_data<uint32_t>(12, 0xFFFFFFFFu);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.data<uint32_t>(0), 99u);
  EXPECT_EQ(g.x(s2), 7u);
  EXPECT_EQ(g.data<uint32_t>(4), 5u);
  EXPECT_EQ(g.x(s3), 5u);
  EXPECT_EQ(g.data<uint32_t>(8), 11u);
  EXPECT_EQ(g.data<uint32_t>(12), 1u);
  EXPECT_EQ(g.x(s4), word_in_reg(xlen, 0xFFFFFFFFu));
}

TEST(CudaAtomicsRv64, CasWordComparesTheLow32BitsOfRd) {
  Assembler a(64);
  a.li(s2, 0x100000005ll);
  a.li(t1, 8);
  a.kx_amocas(4, s2, a0, t1);
  a.kx_exit();
  TestGpu g(64);
  g.load(a);
  g.set_data<uint32_t>(0, 5);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.data<uint32_t>(0), 8u);
  EXPECT_EQ(g.x(s2), 5u);
}

uint32_t inc_reference(uint32_t old, uint32_t limit) { return old >= limit ? 0 : old + 1; }
uint32_t dec_reference(uint32_t old, uint32_t limit) { return (old == 0 || old > limit) ? limit : old - 1; }

TEST_P(CudaAtomics, IncAndDecFollowCudasWrapRule) {
  // Lane l works on its own words: inc at 4l, dec at 512 + 4l, limit at 256 + 4l.
  const unsigned xlen = GetParam();
  struct Case {
    uint32_t old, limit;
  };
  const Case cases[] = {{0, 5},
                        {4, 5},
                        {5, 5},
                        {6, 5},
                        {0, 0},
                        {7, 0},
                        {0xFFFFFFFFu, 0xFFFFFFFFu},
                        {0xFFFFFFFEu, 0xFFFFFFFFu},
                        {3, 0xFFFFFFFFu},
                        {0x80000000u, 0x7FFFFFFFu},
                        {0x7FFFFFFFu, 0x80000000u}};
  const uint32_t n = sizeof cases / sizeof cases[0];
  Assembler a(xlen);
  lane_slot(a, t0, a0);
  a.lw(t1, t0, 256);
  a.kx_amoinc_w(s2, t0, t1);
  a.addi(t2, t0, 512);
  a.kx_amodec_w(s3, t2, t1);
  a.kx_exit();
  TestGpu g(xlen);
  g.load(a);
  for (uint32_t l = 0; l < n; ++l) {
    g.set_data<uint32_t>(4 * l, cases[l].old);
    g.set_data<uint32_t>(512 + 4 * l, cases[l].old);
    g.set_data<uint32_t>(256 + 4 * l, cases[l].limit);
  }
  ASSERT_EQ(g.run({1, 1, 1}, {n, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < n; ++l) {
    EXPECT_EQ(g.data<uint32_t>(4 * l), inc_reference(cases[l].old, cases[l].limit)) << "inc case " << l;
    EXPECT_EQ(g.data<uint32_t>(512 + 4 * l), dec_reference(cases[l].old, cases[l].limit)) << "dec case " << l;
    EXPECT_EQ(g.x(s2, l), word_in_reg(xlen, cases[l].old)) << l;
    EXPECT_EQ(g.x(s3, l), word_in_reg(xlen, cases[l].old)) << l;
  }
}

TEST_P(CudaAtomics, FloatAddRoundsToNearestEvenWithCanonicalNaNs) {
  // Lane l: memory word at 4l, addend at 256 + 4l.  frm is set to round
  // towards zero first: the memory-side adder ignores it and sets no flags.
  const unsigned xlen = GetParam();
  const float tiny = std::ldexp(1.0f, -24), ulp = std::ldexp(1.0f, -23);
  const float inf = std::numeric_limits<float>::infinity(), max = std::numeric_limits<float>::max();
  struct Case {
    uint32_t memory, addend, result;
  };
  const Case cases[] = {
      {bits(1.5f), bits(2.25f), bits(3.75f)},
      {bits(1.0f), bits(tiny), bits(1.0f)},                  // a tie: to even (down)
      {bits(1.0f + ulp), bits(tiny), bits(1.0f + 2 * ulp)},  // a tie: to even (up)
      {bits(1.0f), bits(tiny * 1.5f), bits(1.0f + ulp)},     // above the tie (RTZ would give 1)
      {bits(max), bits(max), bits(inf)},                     // overflow to infinity, not max
      {bits(inf), bits(-inf), kCanonicalNan},                // invalid
      {0x7F800001u, bits(1.0f), kCanonicalNan},              // signalling NaN in memory
      {bits(2.0f), 0xFFC12345u, kCanonicalNan},              // NaN payloads are not kept
      {bits(-0.0f), bits(-0.0f), bits(-0.0f)},
      {bits(-0.0f), bits(0.0f), bits(0.0f)},
  };
  const uint32_t n = sizeof cases / sizeof cases[0];
  Assembler a(xlen);
  a.csrrwi(zero, 0x002, kRtz);  // frm
  lane_slot(a, t0, a0);
  a.flw(f(1), t0, 256);
  a.kx_amofadd_s(f(2), t0, f(1));
  a.csrr(s3, 0x001);  // fflags
  a.kx_exit();
  TestGpu g(xlen);
  g.load(a);
  for (uint32_t l = 0; l < n; ++l) {
    g.set_data<uint32_t>(4 * l, cases[l].memory);
    g.set_data<uint32_t>(256 + 4 * l, cases[l].addend);
  }
  ASSERT_EQ(g.run({1, 1, 1}, {n, 1, 1}), LaunchState::kDone);
  for (uint32_t l = 0; l < n; ++l) {
    EXPECT_EQ(g.data<uint32_t>(4 * l), cases[l].result) << "case " << l;
    EXPECT_EQ(g.fr(2, l), cases[l].memory) << "old value, case " << l;
    EXPECT_EQ(g.x(s3, l), 0u) << "fflags, case " << l;
  }
}

// Runs `body` for all 32 lanes of one warp with t0 = the address of one
// word, global (kData) or shared, and returns the GPU.
std::unique_ptr<TestGpu> contend(unsigned xlen, bool shared, uint32_t initial,
                                 const std::function<void(Assembler&)>& body) {
  Assembler a(xlen);
  if (shared) {
    a.li(t0, kShared);
    a.li(t1, static_cast<int32_t>(initial));
    a.sw(t1, t0, 0);
  } else {
    a.mv(t0, a0);
  }
  body(a);
  if (shared) {  // copy the shared word out for the checks
    a.lw(t1, t0, 0);
    a.sw(t1, a0, 0);
  }
  a.kx_exit();
  auto g = std::make_unique<TestGpu>(xlen);
  g->load(a);
  g->set_data<uint32_t>(0, initial);
  LaunchDesc d = g->desc({1, 1, 1}, {32, 1, 1});
  d.shared_static = 64;
  EXPECT_EQ(g->run(d), LaunchState::kDone);
  return g;
}

TEST_P(CudaAtomics, ContendingLanesEachGetTheirOwnOldValueInGlobalAndSharedMemory) {
  const unsigned xlen = GetParam();
  for (bool shared : {false, true}) {
    SCOPED_TRACE(shared ? "shared" : "global");
    auto inc = contend(xlen, shared, 0, [](Assembler& a) {
      a.li(t1, 1000);
      a.kx_amoinc_w(s2, t0, t1);
    });
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(inc->x(s2, l), l);
    EXPECT_EQ(inc->data<uint32_t>(0), 32u);

    // Every lane's CAS expects the value the lanes before it left: all succeed.
    auto cas = contend(xlen, shared, 0, [](Assembler& a) {
      a.csrr(s2, KESTREL_CSR_LANEID);
      a.addi(t1, s2, 1);
      a.kx_amocas(4, s2, t0, t1);
    });
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(cas->x(s2, l), l);
    EXPECT_EQ(cas->data<uint32_t>(0), 32u);

    // Only one lane's CAS from the same expected value succeeds.
    auto cas_once = contend(xlen, shared, 0, [](Assembler& a) {
      a.csrr(t1, KESTREL_CSR_LANEID);
      a.addi(t1, t1, 100);
      a.li(s2, 0);
      a.kx_amocas(4, s2, t0, t1);
    });
    EXPECT_EQ(cas_once->x(s2, 0), 0u);
    for (uint32_t l = 1; l < 32; ++l) EXPECT_EQ(cas_once->x(s2, l), 100u);
    EXPECT_EQ(cas_once->data<uint32_t>(0), 100u);

    auto dec = contend(xlen, shared, 3, [](Assembler& a) {
      a.li(t1, 9);
      a.kx_amodec_w(s2, t0, t1);
    });
    uint32_t expected = 3;
    for (uint32_t l = 0; l < 32; ++l) {
      EXPECT_EQ(dec->x(s2, l), expected) << l;
      expected = dec_reference(expected, 9);
    }

    auto fadd = contend(xlen, shared, bits(0.5f), [](Assembler& a) {
      a.li(t1, 1);
      a.fcvt_s_w(f(1), t1, kRne);
      a.kx_amofadd_s(f(2), t0, f(1));
    });
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(fadd->fr(2, l), bits(0.5f + static_cast<float>(l))) << l;
    EXPECT_EQ(fadd->data<uint32_t>(0), bits(32.5f));
  }
}

TEST(CudaAtomicsRv64, Cas64UsesWholeRegisters) {
  Assembler a(64);
  a.li(s2, 0x123456789ABCDEF0ll);
  a.li(t1, -2);
  a.kx_amocas(8, s2, a0, t1);  // equal: swapped
  a.addi(t2, a0, 8);
  a.li(s3, 0x100000001ll);
  a.kx_amocas(8, s3, t2, t1);  // differs in the high word: not swapped
  a.kx_exit();
  TestGpu g(64);
  g.load(a);
  g.set_data<uint64_t>(0, 0x123456789ABCDEF0ull);
  g.set_data<uint64_t>(8, 0x200000001ull);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.data<int64_t>(0), -2);
  EXPECT_EQ(g.x(s2), 0x123456789ABCDEF0ull);
  EXPECT_EQ(g.data<uint64_t>(8), 0x200000001ull);
  EXPECT_EQ(g.x(s3), 0x200000001ull);
}

// Loads the 64-bit constant `value` into the RV32 pair (lo, lo + 1).
void li_pair(Assembler& a, Reg lo, uint64_t value) {
  a.li(lo, static_cast<int32_t>(static_cast<uint32_t>(value)));
  a.li(static_cast<Reg>(lo + 1), static_cast<int32_t>(static_cast<uint32_t>(value >> 32)));
}

TEST(CudaAtomicsRv32, Cas64UsesEvenOddPairs) {
  Assembler a(32);
  li_pair(a, a2, 0x123456789ABCDEF0ull);  // compare in a2:a3, old value out
  li_pair(a, a4, 0xFFFFFFFFFFFFFFFEull);  // new value in a4:a5
  a.kx_amocas(8, a2, a0, a4);
  a.addi(t2, a0, 8);
  li_pair(a, s2, 0x0000000100000001ull);
  a.kx_amocas(8, s2, t2, a4);  // differs in the high word
  a.addi(t2, a0, 16);
  a.kx_amocas(8, zero, t2, a4);  // x0 pair: compares with 0 and writes neither x0 nor x1
  a.kx_exit();
  TestGpu g(32);
  g.load(a);
  g.set_data<uint64_t>(0, 0x123456789ABCDEF0ull);
  g.set_data<uint64_t>(8, 0x200000001ull);
  g.set_data<uint64_t>(16, 0);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.data<uint64_t>(0), 0xFFFFFFFFFFFFFFFEull);
  EXPECT_EQ(g.x(a2), 0x9ABCDEF0u);
  EXPECT_EQ(g.x(a3), 0x12345678u);
  EXPECT_EQ(g.data<uint64_t>(8), 0x200000001ull);
  EXPECT_EQ(g.x(s2), 1u);
  EXPECT_EQ(g.x(s3), 2u);
  EXPECT_EQ(g.data<uint64_t>(16), 0xFFFFFFFFFFFFFFFEull);
  EXPECT_EQ(g.x(ra), kExitStub) << "rd = x0 must not write x1";
}

uint64_t amo64_reference(unsigned op, uint64_t old, uint64_t v) {
  switch (op) {
    case kAdd:
      return old + v;
    case kSwap:
      return v;
    case kXor:
      return old ^ v;
    case kOr:
      return old | v;
    case kAnd:
      return old & v;
    case kMin:
      return static_cast<int64_t>(old) < static_cast<int64_t>(v) ? old : v;
    case kMax:
      return static_cast<int64_t>(old) > static_cast<int64_t>(v) ? old : v;
    case kMinu:
      return old < v ? old : v;
    default:
      return old > v ? old : v;
  }
}

TEST(CudaAtomicsRv32, PairAmosCover64BitArithmetic) {
  const uint64_t memories[] = {0x80000000FFFFFFFFull, 0x00000001FFFFFFFFull, 5, 0xFFFFFFFFFFFFFFFFull};
  const uint64_t operands[] = {0x0000000100000001ull, 0x7FFFFFFF00000000ull, 0xFFFFFFFFFFFFFFFBull, 1};
  for (unsigned op : {kAdd, kSwap, kXor, kOr, kAnd, kMin, kMax, kMinu, kMaxu}) {
    for (size_t i = 0; i < 4; ++i) {
      Assembler a(32);
      li_pair(a, a4, operands[i]);
      a.kx_amo(op, 8, a2, a0, a4);
      a.kx_exit();
      TestGpu g(32);
      g.load(a);
      g.set_data<uint64_t>(0, memories[i]);
      ASSERT_EQ(g.run(), LaunchState::kDone);
      EXPECT_EQ(g.data<uint64_t>(0), amo64_reference(op, memories[i], operands[i]))
          << "funct5 " << op << " case " << i;
      EXPECT_EQ(g.x(a2) | (g.x(a3) << 32), memories[i]) << "funct5 " << op << " case " << i;
    }
  }
}

TEST(CudaAtomicsRv32, PairAmoWithX0OperandReadsZero) {
  Assembler a(32);
  a.li(ra, 77);  // x1 would be the high word if x0 were an ordinary pair
  a.kx_amo(kSwap, 8, a2, a0, zero);
  a.kx_exit();
  TestGpu g(32);
  g.load(a);
  g.set_data<uint64_t>(0, 0x1111111122222222ull);
  ASSERT_EQ(g.run(), LaunchState::kDone);
  EXPECT_EQ(g.data<uint64_t>(0), 0u);
  EXPECT_EQ(g.x(a3), 0x11111111u);
}

TEST(CudaAtomicsRv32, PairAmoContendedByAWarp) {
  // 32 lanes add 2^32 + lane to one doubleword: each sees the sum before it.
  Assembler a(32);
  a.csrr(a4, KESTREL_CSR_LANEID);
  a.li(a5, 1);
  a.kx_amo(kAdd, 8, a2, a0, a4);
  a.kx_exit();
  TestGpu g(32);
  g.load(a);
  g.set_data<uint64_t>(0, 0xFFFFFFF0ull);
  ASSERT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);
  uint64_t expected = 0xFFFFFFF0ull;
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(g.x(a2, l) | (g.x(a3, l) << 32), expected) << l;
    expected += (1ull << 32) + l;
  }
  EXPECT_EQ(g.data<uint64_t>(0), expected);
}

TEST(CudaAtomicsDecode, EncodingsOutsideTheTableAreIllegal) {
  Assembler a(32);
  a.kx_amo(kAdd, 8, a1, a0, a4);             // odd rd pair
  a.kx_amo(kAdd, 8, a2, a0, a5);             // odd rs2 pair
  a.kx_amocas(8, a3, a0, a4);                // odd CAS pair
  a.kx_amo(0x06, 8, a2, a0, a4);             // inc has no 64-bit form
  a.kx_amo(0x0A, 4, a2, a0, a4);             // unassigned funct5
  a.kx_amo(kAdd, 4, a2, a0, a4);             // 32-bit add is amoadd.w, not custom-1
  a.r_type(0x2B, 0, 0x05 << 2, a2, a0, a4);  // funct3 0
  a.r_type(0x2B, 3, 0x09 << 2, a2, a0, a4);  // float add is 32-bit only
  const std::vector<uint32_t> words = a.finish();
  for (uint32_t w : words) {
    EXPECT_EQ(decode(w, 32).op, Op::kIllegal) << std::hex << w;
  }
  // On RV64 the pair forms do not exist (amo*.d covers them), odd registers are fine.
  Assembler b(64);
  b.kx_amo(kAdd, 8, a2, a0, a4);
  b.kx_amocas(8, a3, a0, a5);
  const std::vector<uint32_t> rv64 = b.finish();
  EXPECT_EQ(decode(rv64[0], 64).op, Op::kIllegal);
  EXPECT_EQ(decode(rv64[1], 64).op, Op::kKxCasD);
  // aq/rl are accepted.
  Assembler c(64);
  c.r_type(0x2B, 2, (0x05 << 2) | 3, a2, a0, a4);
  EXPECT_EQ(decode(c.finish()[0], 64).op, Op::kKxAmoW);
}

TEST(CudaAtomicsDecode, AnIllegalEncodingFaultsWithTheWord) {
  Assembler a(32);
  a.kx_amo(kSwap, 8, a1, a0, a4);
  a.kx_exit();
  TestGpu g(32);
  g.load(a);
  ASSERT_EQ(g.run(), LaunchState::kFault);
  EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_ILLEGAL_INSTRUCTION);
  EXPECT_EQ(g.gpu().fault().info, a.finish()[0]);
}

struct FaultCase {
  const char* name;
  uint64_t address;  // of lanes 4 and above; lanes 0-3 use kData
  unsigned width;
  kestrel_fault_kind kind;
};

class CudaAtomicFaults : public testing::TestWithParam<unsigned> {};

TEST_P(CudaAtomicFaults, BadAddressesFaultAtTheLowestLaneAfterTheLanesBelowIt) {
  const unsigned xlen = GetParam();
  const FaultCase cases[] = {
      {"misaligned word", kData + 2, 4, KESTREL_FAULT_MISALIGNED},
      {"misaligned doubleword", kData + 4, 8, KESTREL_FAULT_MISALIGNED},
      {"read-only page", kReadOnly, 4, KESTREL_FAULT_WRITE_PROTECT},
      {"read-only page, 64-bit", kReadOnly + 8, 8, KESTREL_FAULT_WRITE_PROTECT},
      {"unmapped page", kUnmapped, 4, KESTREL_FAULT_ILLEGAL_ADDRESS},
      {"null guard", 64, 8, KESTREL_FAULT_ILLEGAL_ADDRESS},
      {"past the block's shared memory", kShared + 64, 4, KESTREL_FAULT_SHARED_BOUNDS},
  };
  for (const FaultCase& c : cases) {
    SCOPED_TRACE(c.name);
    for (unsigned form = 0; form < 3; ++form) {  // CAS, inc / 64-bit CAS, float add / pair add
      Assembler a(xlen);
      a.csrr(t0, KESTREL_CSR_LANEID);
      a.mv(t2, a0);
      a.li(t1, 4);
      a.blt(t0, t1, "go");
      a.li(t2, static_cast<int64_t>(c.address));
      a.bind("go");
      a.li(t1, 1);
      a.fcvt_s_w(f(1), t1, kRne);
      const uint32_t at = a.here();
      if (c.width == 4) {
        if (form == 0) a.kx_amocas(4, s2, t2, t1);
        if (form == 1) a.kx_amoinc_w(s2, t2, t1);
        if (form == 2) a.kx_amofadd_s(f(2), t2, f(1));
      } else {
        if (form == 0 || xlen == 64) {
          a.kx_amocas(8, a2, t2, a4);
        } else {
          a.kx_amo(kAdd, 8, a2, t2, a4);
        }
      }
      a.kx_exit();
      TestGpu g(xlen);
      g.load(a);
      LaunchDesc d = g.desc({1, 1, 1}, {8, 1, 1});
      d.shared_static = 64;
      ASSERT_EQ(g.run(d), LaunchState::kFault);
      const Fault& f = g.gpu().fault();
      EXPECT_EQ(f.kind, c.kind) << "form " << form;
      EXPECT_EQ(f.pc, kCode + at);
      EXPECT_EQ(f.addr, c.address);
      EXPECT_EQ(f.thread.x, 4u) << "the lowest faulting lane";
      // Lanes 0-3 performed theirs: a CAS of 0 -> 1 once, then three failures.
      if (c.width == 4 && form == 0) {
        EXPECT_EQ(g.data<uint32_t>(0), 1u);
      } else if (c.width == 4 && form == 1) {
        EXPECT_EQ(g.data<uint32_t>(0), 0u) << "inc wraps at limit 1: 1, 0, 1, 0";
      }
    }
  }
}

// One warp-instruction touching shared memory: `access` emits it with t0 =
// the shared window base and t1 = the lane id.  Returns {accesses, passes}.
std::pair<uint64_t, uint64_t> bank_passes(unsigned xlen, unsigned lanes,
                                          const std::function<void(Assembler&)>& access) {
  Assembler a(xlen);
  a.li(t0, kShared);
  a.csrr(t1, KESTREL_CSR_LANEID);
  access(a);
  a.kx_exit();
  TestGpu g(xlen, lanes);
  g.load(a);
  LaunchDesc d = g.desc({1, 1, 1}, {lanes, 1, 1});
  d.shared_static = 8192;
  EXPECT_EQ(g.run(d), LaunchState::kDone);
  const Counters& c = g.gpu().counters();
  return {c[KESTREL_CNT_SHARED_ACCESSES], c[KESTREL_CNT_SHARED_PASSES]};
}

// t2 = t0 + t1 * stride_bytes.
void strided(Assembler& a, int32_t stride_bytes) {
  a.li(t2, stride_bytes);
  a.mul(t2, t2, t1);
  a.add(t2, t2, t0);
}

TEST_P(CudaAtomics, SharedBankPassesFollowTheGuidesFigures) {
  const unsigned xlen = GetParam();
  using P = std::pair<uint64_t, uint64_t>;
  auto load_stride = [](int32_t words) {
    return [words](Assembler& a) {
      strided(a, 4 * words);
      a.lw(s2, t2, 0);
    };
  };
  EXPECT_EQ(bank_passes(xlen, 32, load_stride(1)), P(1, 1)) << "stride 1 (Figure 17 left)";
  EXPECT_EQ(bank_passes(xlen, 32, load_stride(2)), P(1, 2)) << "stride 2 (Figure 17 middle)";
  EXPECT_EQ(bank_passes(xlen, 32, load_stride(3)), P(1, 1)) << "stride 3 (Figure 17 right)";
  EXPECT_EQ(bank_passes(xlen, 32, load_stride(32)), P(1, 32)) << "every lane in bank 0";
  EXPECT_EQ(bank_passes(xlen, 32, load_stride(0)), P(1, 1)) << "broadcast (Figure 18)";
  EXPECT_EQ(bank_passes(xlen, 32,
                        [](Assembler& a) {  // bytes: four lanes per word
                          a.add(t2, t0, t1);
                          a.lbu(s2, t2, 0);
                        }),
            P(1, 1));
  EXPECT_EQ(bank_passes(xlen, 32,
                        [](Assembler& a) {  // lanes 0-15 read word l, lanes 16-31 word 32 + l
                          a.andi(t3, t1, 15);
                          a.srli(t4, t1, 4);
                          a.slli(t4, t4, 5);
                          a.add(t3, t3, t4);
                          a.slli(t3, t3, 2);
                          a.add(t2, t0, t3);
                          a.lw(s2, t2, 0);
                        }),
            P(1, 2));
  EXPECT_EQ(bank_passes(xlen, 32,
                        [](Assembler& a) {  // stores to one word: one lane wins, one pass
                          a.sw(t1, t0, 0);
                        }),
            P(1, 1));
  EXPECT_EQ(bank_passes(xlen, 32,
                        [](Assembler& a) {
                          strided(a, 8);
                          a.sw(t1, t2, 0);
                        }),
            P(1, 2));
  // 64-bit accesses use two banks per lane: 64 words over 32 banks.
  EXPECT_EQ(bank_passes(xlen, 32,
                        [](Assembler& a) {
                          strided(a, 8);
                          a.kx_amocas(8, a2, t2, a4);
                        }),
            P(1, 2));
  // Atomics: each lane's read-modify-write is its own pass, even on one word.
  EXPECT_EQ(bank_passes(xlen, 32,
                        [](Assembler& a) {
                          a.li(t3, 100);
                          a.kx_amoinc_w(s2, t0, t3);
                        }),
            P(1, 32));
  EXPECT_EQ(bank_passes(xlen, 32,
                        [](Assembler& a) {
                          strided(a, 4);
                          a.amo(kAdd, 4, s2, t2, t1);
                        }),
            P(1, 1));
  // Banks = lanes per warp.
  EXPECT_EQ(bank_passes(xlen, 8, load_stride(8)), P(1, 8));
  EXPECT_EQ(bank_passes(xlen, 8, load_stride(3)), P(1, 1));
  EXPECT_EQ(bank_passes(xlen, 4, load_stride(2)), P(1, 2));
  // Global memory is not shared memory.
  EXPECT_EQ(bank_passes(xlen, 32, [](Assembler& a) { a.lw(s2, a0, 0); }), P(0, 0));
}

TEST_P(CudaAtomics, AtomicCounterCountsEveryLanesReadModifyWrite) {
  const unsigned xlen = GetParam();
  Assembler a(xlen);
  a.li(t1, 1);
  a.amo(kAdd, 4, s2, a0, t1);  // 20 lanes
  a.kx_amoinc_w(s2, a0, t1);   // 20 lanes
  a.lr(4, s3, a0);             // LR and SC are not read-modify-writes
  a.sc(4, s3, a0, t1);
  a.kx_exit();
  TestGpu g(xlen);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {20, 1, 1}), LaunchState::kDone);
  EXPECT_EQ(g.gpu().counters()[KESTREL_CNT_ATOMICS], 40u);
}

INSTANTIATE_TEST_SUITE_P(Xlen, CudaAtomics, testing::Values(64u, 32u));
INSTANTIATE_TEST_SUITE_P(Xlen, CudaAtomicFaults, testing::Values(64u, 32u));

TEST(CudaAtomicsLockStep, PairResultsRetireBothRegisters) {
  Assembler a(32);
  li_pair(a, a4, 0x0000000700000009ull);  // 2 instructions
  a.kx_amo(kSwap, 8, a2, a0, a4);
  a.kx_exit();
  TestGpu g(32, 4);
  g.load(a);
  g.set_data<uint64_t>(0, 0xAAAAAAAA55555555ull);
  g.gpu().start(g.desc({1, 1, 1}, {1, 1, 1}), Dispatch::kManual);
  g.gpu().place_block(0, 0, {0});
  g.gpu().step(0, 0);
  g.gpu().step(0, 0);
  const Retire r = g.gpu().step(0, 0);
  ASSERT_EQ(r.writes.size(), 2u);
  EXPECT_EQ(r.writes[0].reg, a2);
  EXPECT_EQ(r.writes[0].value, 0x55555555u);
  EXPECT_EQ(r.writes[1].reg, a3);
  EXPECT_EQ(r.writes[1].value, 0xAAAAAAAAu);
}

}  // namespace
}  // namespace kestrel::model::test
