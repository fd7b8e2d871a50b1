// kestrel_fp_decoder bench: every F-extension and kx.sfu encoding class,
// random words biased towards the F opcodes and their valid funct7/rs2/rm
// fields, against the functional model's decoder (model/decode.cpp):
// legality, operation, unit, rounding-mode field, immediates, and which
// register of which file each field names.  RV64 and RV32.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <sstream>

#include "Vfp_decoder32.h"
#include "Vfp_decoder64.h"
#include "decode.hpp"
#include "fpu_test_support.hpp"

namespace {

using kestrel::model::Op;
using namespace kestrel::fpubench;  // LaneOp, Unit

// What the RTL decoder should say about a model operation.
struct Expect {
  bool fp = false, load = false, store = false;
  unsigned unit = kUnitLane, lane_op = 0, divsqrt_op = 0;
  bool rounds = false;
  bool rd_fp = true, rs1_fp = true, rs2 = true, rs3 = false, writes = true;
};

bool expectation(Op op, Expect& e) {
  e = Expect{};
  e.fp = true;
  auto lane = [&](unsigned lane_op, bool rounds) {
    e.lane_op = lane_op;
    e.rounds = rounds;
  };
  switch (op) {
    case Op::kFlw:
      e.load = true;
      e.rs1_fp = false;
      e.rs2 = false;
      break;
    case Op::kFsw:
      e.store = true;
      e.rs1_fp = false;
      e.writes = false;
      break;
    case Op::kFmadd:
      lane(kMadd, true);
      e.rs3 = true;
      break;
    case Op::kFmsub:
      lane(kMsub, true);
      e.rs3 = true;
      break;
    case Op::kFnmsub:
      lane(kNmsub, true);
      e.rs3 = true;
      break;
    case Op::kFnmadd:
      lane(kNmadd, true);
      e.rs3 = true;
      break;
    case Op::kFadd:
      lane(kAdd, true);
      break;
    case Op::kFsub:
      lane(kSub, true);
      break;
    case Op::kFmul:
      lane(kMul, true);
      break;
    case Op::kFdiv:
      e.unit = kUnitDivSqrt;
      e.divsqrt_op = 0;
      e.rounds = true;
      break;
    case Op::kFsqrt:
      e.unit = kUnitDivSqrt;
      e.divsqrt_op = 1;
      e.rounds = true;
      e.rs2 = false;
      break;
    case Op::kFsgnj:
      lane(kSgnj, false);
      break;
    case Op::kFsgnjn:
      lane(kSgnjn, false);
      break;
    case Op::kFsgnjx:
      lane(kSgnjx, false);
      break;
    case Op::kFmin:
      lane(kMin, false);
      break;
    case Op::kFmax:
      lane(kMax, false);
      break;
    case Op::kFeq:
      lane(kEq, false);
      e.rd_fp = false;
      break;
    case Op::kFlt:
      lane(kLt, false);
      e.rd_fp = false;
      break;
    case Op::kFle:
      lane(kLe, false);
      e.rd_fp = false;
      break;
    case Op::kFclass:
      lane(kClass, false);
      e.rd_fp = false;
      e.rs2 = false;
      break;
    case Op::kFmvXW:
      lane(kMvXW, false);
      e.rd_fp = false;
      e.rs2 = false;
      break;
    case Op::kFmvWX:
      lane(kMvWX, false);
      e.rs1_fp = false;
      e.rs2 = false;
      break;
    case Op::kFcvtWS:
      lane(kCvtWS, true);
      e.rd_fp = false;
      e.rs2 = false;
      break;
    case Op::kFcvtWuS:
      lane(kCvtWuS, true);
      e.rd_fp = false;
      e.rs2 = false;
      break;
    case Op::kFcvtLS:
      lane(kCvtLS, true);
      e.rd_fp = false;
      e.rs2 = false;
      break;
    case Op::kFcvtLuS:
      lane(kCvtLuS, true);
      e.rd_fp = false;
      e.rs2 = false;
      break;
    case Op::kFcvtSW:
      lane(kCvtSW, true);
      e.rs1_fp = false;
      e.rs2 = false;
      break;
    case Op::kFcvtSWu:
      lane(kCvtSWu, true);
      e.rs1_fp = false;
      e.rs2 = false;
      break;
    case Op::kFcvtSL:
      lane(kCvtSL, true);
      e.rs1_fp = false;
      e.rs2 = false;
      break;
    case Op::kFcvtSLu:
      lane(kCvtSLu, true);
      e.rs1_fp = false;
      e.rs2 = false;
      break;
    case Op::kSfu:
      e.unit = kUnitSfu;
      e.rs2 = false;
      break;
    default:
      e.fp = false;
      break;
  }
  return e.fp;
}

uint32_t random_word(std::mt19937_64& rng) {
  static constexpr uint32_t kOpcodes[] = {0x07, 0x27, 0x43, 0x47, 0x4B, 0x4F, 0x53, 0x53, 0x53, 0x0B, 0x0B};
  static constexpr uint32_t kOpFpFunct7[] = {0x00, 0x04, 0x08, 0x0C, 0x2C, 0x10,
                                             0x14, 0x50, 0x60, 0x68, 0x70, 0x78};
  uint32_t w = uint32_t(rng());
  if (rng() % 8 == 0) return w;  // anything at all: non-F words must not decode as F
  const uint32_t opcode = kOpcodes[rng() % std::size(kOpcodes)];
  w = (w & ~0x7Fu) | opcode;
  if (opcode == 0x53 && rng() % 4 != 0)
    w = (w & 0x01FFFFFFu) | (kOpFpFunct7[rng() % std::size(kOpFpFunct7)] << 25);
  if (opcode == 0x0B) {
    if (rng() % 4 != 0) w = (w & ~(7u << 12)) | (5u << 12);
    if (rng() % 4 != 0) w = (w & 0x01FFFFFFu) | (uint32_t(rng() % 7) << 25);
  }
  // rs2 small (the conversions' and the unary ops' selector), often zero.
  if (rng() % 2) w = (w & ~(0x1Fu << 20)) | (uint32_t(rng() % 5) << 20);
  return w;
}

template <class Model>
void run(unsigned xlen, unsigned count, uint64_t seed) {
  kestrel::fpubench::UnitBench<Model> bench;
  auto& d = bench.dut();
  std::mt19937_64 rng(seed);
  unsigned fp_words = 0, mismatches = 0;
  std::set<Op> seen;
  for (unsigned i = 0; i < count; ++i) {
    const uint32_t w = random_word(rng);
    d.instr_i = w;
    bench.eval();
    const kestrel::model::Inst in = kestrel::model::decode(w, xlen);
    Expect e;
    const bool fp = expectation(in.op, e);
    std::ostringstream diff;
    auto check = [&](const char* what, uint64_t got, uint64_t want) {
      if (got != want) diff << " " << what << " got " << got << " want " << want;
    };
    check("fp", d.fp_o, fp);
    if (fp) {
      ++fp_words;
      seen.insert(in.op);
      check("load", d.load_o, e.load);
      check("store", d.store_o, e.store);
      if (!e.load && !e.store) {
        check("unit", d.unit_o, e.unit);
        if (e.unit == kUnitLane) check("fpu_op", d.fpu_op_o, e.lane_op);
        if (e.unit == kUnitDivSqrt) check("divsqrt_op", d.divsqrt_op_o, e.divsqrt_op);
        if (e.unit == kUnitSfu) check("sfu_op", d.sfu_op_o, in.aux);
      }
      check("rm_used", d.rm_used_o, e.rounds);
      if (e.rounds) check("rm", d.rm_o, in.rm);
      if (e.load || e.store) check("imm", d.imm_o, uint64_t(int64_t(in.imm)));
      // The model's sink register stands for an x0 destination: no write.
      const bool writes = e.writes && !(!e.rd_fp && in.rd == kestrel::model::kSinkReg);
      check("rd_we", d.rd_we_o, writes);
      if (writes) {
        check("rd", d.rd_o, in.rd);
        check("rd_fp", d.rd_fp_o, e.rd_fp);
      }
      check("rs1_re", d.rs1_re_o, 1);
      check("rs1", d.rs1_o, in.rs1);
      check("rs1_fp", d.rs1_fp_o, e.rs1_fp);
      check("rs2_re", d.rs2_re_o, e.rs2);
      if (e.rs2) check("rs2", d.rs2_o, in.rs2);
      check("rs3_re", d.rs3_re_o, e.rs3);
      if (e.rs3) check("rs3", d.rs3_o, in.rs3);
    } else {
      check("rd_we", d.rd_we_o, 0);
      check("rs1_re", d.rs1_re_o, 0);
    }
    if (!diff.str().empty() && ++mismatches <= 20) {
      ADD_FAILURE() << "RV" << xlen << " word " << kestrel::fpubench::hex32(w) << " (model op "
                    << unsigned(in.op) << "):" << diff.str();
    }
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(fp_words, count / 10) << "too few legal F words generated";
  // Every F instruction and kx.sfu (RV32: without the four l/lu conversions).
  EXPECT_EQ(seen.size(), xlen == 64 ? 31u : 27u);
}

TEST(FpDecoder, MatchesModelRv64) { run<Vfp_decoder64>(64, 400000, 21); }
TEST(FpDecoder, MatchesModelRv32) { run<Vfp_decoder32>(32, 400000, 22); }

}  // namespace
