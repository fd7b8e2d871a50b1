// Integer ALU, multiplier and divider benches: every operation of RV64IM and
// RV32IM on directed corner cases and random operands, against a C++
// reference written from the RISC-V unprivileged spec (chapters 2, 5 and 7).
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>

#include "Valu32.h"
#include "Valu64.h"
#include "Vdiv32.h"
#include "Vdiv64.h"
#include "Vmul32.h"
#include "Vmul64.h"
#include "kestrel_contract.hpp"
#include "rtl_test.hpp"

namespace {

using kestrel::rtlbench::Bench;
using kestrel::rtlbench::corner_operand;

namespace contract = kestrel::contract;

// kestrel_pkg::alu_op_e, branch_op_e, mul_op_e, div_op_e: the encodings are
// generated from tools/contract/contract.toml (kestrel_contract.hpp).
enum AluOp : int {
  kAdd = contract::kAluAdd,
  kSub = contract::kAluSub,
  kSll = contract::kAluSll,
  kSlt = contract::kAluSlt,
  kSltu = contract::kAluSltu,
  kXor = contract::kAluXor,
  kSrl = contract::kAluSrl,
  kSra = contract::kAluSra,
  kOr = contract::kAluOr,
  kAnd = contract::kAluAnd,
  kPassB = contract::kAluPassB
};
enum BranchOp : int {
  kBeq = contract::kBrEq,
  kBne = contract::kBrNe,
  kBlt = contract::kBrLt,
  kBge = contract::kBrGe,
  kBltu = contract::kBrLtu,
  kBgeu = contract::kBrGeu
};
enum MulOp : int {
  kMul = contract::kMulLow,
  kMulh = contract::kMulHigh,
  kMulhsu = contract::kMulHighSU,
  kMulhu = contract::kMulHighU
};
enum DivOp : int {
  kDiv = contract::kDivSigned,
  kDivu = contract::kDivUnsigned,
  kRem = contract::kRemSigned,
  kRemu = contract::kRemUnsigned
};
// A random operation of each unit: its encodings as the contract lists them.
template <typename Op, std::size_t N>
int pick_op(std::mt19937_64& rng, const std::array<Op, N>& ops) {
  return int(ops[rng() % N]);
}

// 128-bit products for the MULH references (a GCC/Clang extension).
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

uint64_t mask_of(unsigned xlen) { return xlen == 64 ? ~0ull : 0xFFFFFFFFull; }
int64_t as_signed(uint64_t v, unsigned xlen) {
  return xlen == 64 ? int64_t(v) : int64_t(int32_t(uint32_t(v)));
}
uint64_t sext32(uint64_t v) { return uint64_t(int64_t(int32_t(uint32_t(v)))); }

uint64_t ref_alu(int op, bool word, uint64_t a, uint64_t b, unsigned xlen) {
  const uint64_t m = mask_of(xlen);
  if (word && xlen == 64) {
    const uint32_t a32 = uint32_t(a), b32 = uint32_t(b);
    const unsigned sh = b32 & 31;
    switch (op) {
      case kAdd:
        return sext32(a32 + b32);
      case kSub:
        return sext32(a32 - b32);
      case kSll:
        return sext32(a32 << sh);
      case kSrl:
        return sext32(a32 >> sh);
      case kSra:
        return sext32(uint32_t(int32_t(a32) >> sh));
      default:
        break;  // other ops have no W form; the unit returns the full result's low word
    }
    return sext32(uint32_t(ref_alu(op, false, a, b, xlen)));
  }
  const unsigned sh = unsigned(b & (xlen - 1));
  switch (op) {
    case kAdd:
      return (a + b) & m;
    case kSub:
      return (a - b) & m;
    case kSll:
      return (a << sh) & m;
    case kSlt:
      return as_signed(a, xlen) < as_signed(b, xlen);
    case kSltu:
      return a < b;
    case kXor:
      return a ^ b;
    case kSrl:
      return a >> sh;
    case kSra:
      return uint64_t(as_signed(a, xlen) >> sh) & m;
    case kOr:
      return a | b;
    case kAnd:
      return a & b;
    case kPassB:
      return b;
  }
  return 0;
}

bool ref_branch(int op, uint64_t a, uint64_t b, unsigned xlen) {
  switch (op) {
    case kBeq:
      return a == b;
    case kBne:
      return a != b;
    case kBlt:
      return as_signed(a, xlen) < as_signed(b, xlen);
    case kBge:
      return as_signed(a, xlen) >= as_signed(b, xlen);
    case kBltu:
      return a < b;
    case kBgeu:
      return a >= b;
  }
  return false;
}

uint64_t ref_mul(int op, bool word, uint64_t a, uint64_t b, unsigned xlen) {
  const uint64_t m = mask_of(xlen);
  if (word && xlen == 64) return sext32(uint32_t(a) * uint32_t(b));
  if (xlen == 32) {
    const int64_t sa = int32_t(uint32_t(a)), sb = int32_t(uint32_t(b));
    const uint64_t ua = uint32_t(a), ub = uint32_t(b);
    switch (op) {
      case kMul:
        return (ua * ub) & m;
      case kMulh:
        return uint64_t(sa * sb) >> 32 & m;
      case kMulhsu:
        return uint64_t(sa * int64_t(ub)) >> 32 & m;
      case kMulhu:
        return (ua * ub) >> 32;
    }
  }
  const i128 sa = int64_t(a), sb = int64_t(b);
  const u128 ua = a, ub = b;
  switch (op) {
    case kMul:
      return uint64_t(ua * ub);
    case kMulh:
      return uint64_t(u128(sa * sb) >> 64);
    case kMulhsu:
      return uint64_t(u128(sa * i128(ub)) >> 64);
    case kMulhu:
      return uint64_t((ua * ub) >> 64);
  }
  return 0;
}

uint64_t ref_div(int op, bool word, uint64_t a, uint64_t b, unsigned xlen) {
  if (word && xlen == 64) {
    const uint32_t r = uint32_t(ref_div(op, false, a & 0xFFFFFFFF, b & 0xFFFFFFFF, 32));
    return sext32(r);
  }
  const uint64_t m = mask_of(xlen);
  const int64_t sa = as_signed(a, xlen), sb = as_signed(b, xlen);
  const int64_t smin = xlen == 64 ? INT64_MIN : INT32_MIN;
  switch (op) {
    case kDiv:
      if (b == 0) return m;
      if (sa == smin && sb == -1) return a;
      return uint64_t(sa / sb) & m;
    case kDivu:
      return b == 0 ? m : a / b;
    case kRem:
      if (b == 0) return a;
      if (sa == smin && sb == -1) return 0;
      return uint64_t(sa % sb) & m;
    case kRemu:
      return b == 0 ? a : a % b;
  }
  return 0;
}

template <typename Model>
void check_alu(unsigned xlen, unsigned seed) {
  Bench<Model> bench;
  std::mt19937_64 rng(seed);
  const int branch_ops[] = {kBeq, kBne, kBlt, kBge, kBltu, kBgeu};
  for (int i = 0; i < 20000; ++i) {
    const int op = pick_op(rng, contract::kAluOpAll);
    const bool word = xlen == 64 && (rng() % 4 == 0);
    const int br = branch_ops[rng() % 6];
    const uint64_t a = corner_operand(rng, xlen), b = corner_operand(rng, xlen);
    bench->op_i = op;
    bench->word_i = word;
    bench->a_i = a;
    bench->b_i = b;
    bench->branch_op_i = br;
    bench.eval();
    ASSERT_EQ(uint64_t(bench->result_o), ref_alu(op, word, a, b, xlen))
        << "op " << op << " word " << word << " a " << std::hex << a << " b " << b;
    ASSERT_EQ(bool(bench->taken_o), ref_branch(br, a, b, xlen))
        << "branch " << br << std::hex << " a " << a << " b " << b;
  }
}

template <typename Model>
void check_mul(unsigned xlen, unsigned seed) {
  // Issue one operation per cycle and compare two cycles later, so the bench
  // also checks that the pipeline keeps back-to-back operations apart.
  Bench<Model> bench;
  std::mt19937_64 rng(seed);
  constexpr int kLatency = 2;
  struct Op {
    int op;
    bool word;
    uint64_t a, b;
  };
  std::vector<Op> issued;
  bench->en_i = 1;
  for (int i = 0; i < 20000; ++i) {
    const Op op{pick_op(rng, contract::kMulOpAll), xlen == 64 && rng() % 4 == 0, corner_operand(rng, xlen),
                corner_operand(rng, xlen)};
    bench->op_i = op.op;
    bench->word_i = op.word;
    bench->a_i = op.a;
    bench->b_i = op.b;
    bench.tick();
    issued.push_back(op);
    if (issued.size() >= kLatency) {
      const Op& done = issued[issued.size() - kLatency];
      ASSERT_EQ(uint64_t(bench->result_o), ref_mul(done.op, done.word, done.a, done.b, xlen))
          << "mul op " << done.op << " word " << done.word << std::hex << " a " << done.a << " b " << done.b;
    }
  }
  // A stalled pipeline holds its result.
  const uint64_t held = bench->result_o;
  bench->en_i = 0;
  bench->a_i = 12345;
  bench.tick();
  bench.tick();
  EXPECT_EQ(uint64_t(bench->result_o), held);
}

template <typename Model>
void check_div(unsigned xlen, unsigned seed) {
  Bench<Model> bench;
  bench.reset();
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 3000; ++i) {
    const int op = pick_op(rng, contract::kDivOpAll);
    const bool word = xlen == 64 && rng() % 4 == 0;
    const uint64_t a = corner_operand(rng, xlen), b = corner_operand(rng, xlen);
    ASSERT_FALSE(bench->busy_o);
    bench->start_i = 1;
    bench->op_i = op;
    bench->word_i = word;
    bench->a_i = a;
    bench->b_i = b;
    bench.tick();
    bench->start_i = 0;
    bench->a_i = 0;  // operands are only needed at the start
    unsigned cycles = 1;
    while (!bench->done_o) {
      ASSERT_LT(cycles, xlen + 4u) << "divider never finished";
      bench.tick();
      ++cycles;
    }
    EXPECT_EQ(cycles, xlen + 1u);
    ASSERT_EQ(uint64_t(bench->result_o), ref_div(op, word, a, b, xlen))
        << "div op " << op << " word " << word << std::hex << " a " << a << " b " << b;
  }
}

TEST(RtlAlu, Rv64MatchesReference) { check_alu<Valu64>(64, 1); }
TEST(RtlAlu, Rv32MatchesReference) { check_alu<Valu32>(32, 2); }
TEST(RtlMul, Rv64PipelinedMatchesReference) { check_mul<Vmul64>(64, 3); }
TEST(RtlMul, Rv32PipelinedMatchesReference) { check_mul<Vmul32>(32, 4); }
TEST(RtlDiv, Rv64IterativeMatchesReference) { check_div<Vdiv64>(64, 5); }
TEST(RtlDiv, Rv32IterativeMatchesReference) { check_div<Vdiv32>(32, 6); }

}  // namespace
