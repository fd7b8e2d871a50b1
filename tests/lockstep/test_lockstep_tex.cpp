// The Checker's contract for kx.tex (lockstep.hpp): the RTL retires a
// texture fetch as four records of its warp at the instruction's PC with its
// lane mask, f rd then f rd+1, rd+2, rd+3, other warps' records possibly in
// between; the first steps the model.  A second functional model stands in
// for the RTL and its retires are split that way; then one record at a time
// is spoiled: a value, the order, a missing record, a first record of the
// wrong register.  A faulting kx.tex retires nothing and meets the model's
// fault.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "harness.hpp"
#include "lockstep.hpp"

namespace kestrel::lockstep {
namespace {

using namespace model::rvasm;
using model::test::kData;
using model::test::TestGpu;

constexpr unsigned kLanes = 4;
constexpr uint32_t kDescriptor = 0x600;  // data offset of the texture's descriptor
constexpr uint32_t kTexels = 0x1000;

// Every thread fetches the 2D float texture at (lane + 0.25, lane / 2) into
// f4..f7 and stores them; lane `bad_lane` (if below kLanes) names a
// misaligned object.
Assembler tex_kernel(unsigned bad_lane) {
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.addi(s2, a0, kDescriptor);
  a.addi(t1, zero, static_cast<int32_t>(bad_lane));  // s2 += 4 in that lane, without diverging
  a.xor_(t1, t0, t1);
  a.sltiu(t1, t1, 1);
  a.slli(t1, t1, 2);
  a.add(s2, s2, t1);
  a.fcvt_s_w(f(28), t0);
  a.srli(t1, t0, 1);
  a.fcvt_s_w(f(29), t1);
  a.kx_tex(KESTREL_TEX_FORM_2D, f(4), s2, zero, f(28));
  a.slli(t1, t0, 4);
  a.add(t2, a0, t1);
  for (unsigned c = 0; c < 4; ++c) a.fsw(f(4 + c), t2, static_cast<int32_t>(0x100 + 4 * c));
  a.kx_exit();
  return a;
}

constexpr int kTexIndex = 10;  // the warp-instructions before the kx.tex

// Loads the kernel and the texture and starts one block of two warps,
// placed on SM 0 by the caller (the RTL's gpu directly, the model's through
// the checker).
void set_up(TestGpu& g, unsigned bad_lane) {
  g.load(tex_kernel(bad_lane));
  // A 4x4 float texture, linear filtering, clamp.
  std::array<uint32_t, 16> w{};
  auto set = [&](unsigned word, unsigned shift, uint32_t mask, uint32_t v) {
    w[word] |= (v & mask) << shift;
  };
#define SET(F, v) \
  set(KESTREL_TEX_DESC_##F##_WORD, KESTREL_TEX_DESC_##F##_SHIFT, KESTREL_TEX_DESC_##F##_MASK, v)
  SET(BASE_ADDR, static_cast<uint32_t>(kData) + kTexels);
  SET(WIDTH, 4);
  SET(HEIGHT, 4);
  SET(DEPTH, 1);
  SET(LAYERS, 1);
  SET(PITCH, 64);
  SET(SLICE_PITCH, 256);
  SET(SHAPE, KESTREL_TEX_SHAPE_2D);
  SET(CHANNEL_KIND, KESTREL_TEX_CHANNEL_FLOAT);
  SET(CHANNEL_SIZE, 2);
  SET(CHANNELS, 1);
  SET(ADDRESS_X, KESTREL_TEX_ADDRESS_CLAMP);
  SET(ADDRESS_Y, KESTREL_TEX_ADDRESS_CLAMP);
  SET(FILTER, KESTREL_TEX_FILTER_LINEAR);
#undef SET
  g.gpu().write_mem(kData + kDescriptor, w.data(), sizeof w);
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 4; ++x)
      g.set_data<float>(kTexels + 64 * y + 4 * x, 1.5f * x - 0.75f * y + 0.125f);
  g.gpu().start(g.desc({1, 1, 1}, {2 * kLanes, 1, 1}), model::Dispatch::kManual);
}

Checker checker_for(TestGpu& model) {
  Checker checker(model.gpu(), model.desc({1, 1, 1}, {2 * kLanes, 1, 1}));
  EXPECT_TRUE(checker.place_block(0, 0, {0, 1}));
  return checker;
}

// The retire records the RTL sends for a model retire: one, or four for a
// kx.tex (f rd, rd+1, rd+2, rd+3).
std::vector<RtlRetire> records_of(const model::Retire& m) {
  std::vector<RtlRetire> out;
  for (const model::RegWrite& w : m.writes) {
    if (out.empty() || out.back().rd != w.reg || out.back().rd_fp != w.fp) {
      RtlRetire r;
      r.sm = m.sm;
      r.warp_slot = m.warp_slot;
      r.pc = m.pc;
      r.mask = m.mask;
      r.rd_we = true;
      r.rd_fp = w.fp;
      r.rd = w.reg;
      r.rd_data.assign(kLanes, 0);
      out.push_back(r);
    }
    out.back().rd_data[w.lane] = w.value;
  }
  if (out.empty()) {
    RtlRetire r;
    r.sm = m.sm;
    r.warp_slot = m.warp_slot;
    r.pc = m.pc;
    r.mask = m.mask;
    r.rd_data.assign(kLanes, 0);
    out.push_back(r);
  }
  return out;
}

// The "RTL"'s records: warp 0 up to its kx.tex, whose four records come with
// warp 1's first two instructions between the second and the third; then
// the rest of warp 1 and of warp 0.
struct TexRun {
  TestGpu rtl{64, kLanes, 1, 2};
  TestGpu model{64, kLanes, 1, 2};
  std::vector<RtlRetire> records;
  size_t tex_first = 0;  // index of warp 0's kx.tex's first record

  TexRun() {
    set_up(rtl, kLanes);
    rtl.gpu().place_block(0, 0, {0, 1});
    set_up(model, kLanes);
    for (int i = 0; i < kTexIndex; ++i)
      for (const RtlRetire& r : records_of(rtl.gpu().step(0, 0))) records.push_back(r);
    const std::vector<RtlRetire> tex = records_of(rtl.gpu().step(0, 0));
    EXPECT_EQ(tex.size(), 4u);
    tex_first = records.size();
    records.push_back(tex[0]);
    records.push_back(tex[1]);
    for (int i = 0; i < 2; ++i)
      for (const RtlRetire& r : records_of(rtl.gpu().step(0, 1))) records.push_back(r);
    records.push_back(tex[2]);
    records.push_back(tex[3]);
    while (rtl.gpu().state() == model::LaunchState::kRunning) {
      for (uint32_t slot : {1u, 0u}) {
        if (!rtl.gpu().warp_resident(0, slot)) continue;
        const model::Retire m = rtl.gpu().step(0, slot);
        if (m.issued)
          for (const RtlRetire& r : records_of(m)) records.push_back(r);
      }
    }
    EXPECT_EQ(rtl.gpu().state(), model::LaunchState::kDone);
  }

  // Feeds the records to a checker and finishes; the checker's error, empty when it passed.
  std::string check(uint64_t* compared = nullptr, uint64_t* extra = nullptr) {
    Checker checker = checker_for(model);
    bool ok = true;
    for (const RtlRetire& r : records) ok = ok && checker.retire(r);
    ok = ok && checker.finish();
    if (compared != nullptr) *compared = checker.compared();
    if (extra != nullptr) *extra = checker.barrier_records();
    EXPECT_EQ(ok, checker.ok());
    return checker.error();
  }
};

TEST(LockstepTex, FourRecordsWithOtherWarpsBetweenPass) {
  TexRun run;
  uint64_t compared = 0, extra = 0;
  EXPECT_EQ(run.check(&compared, &extra), "");
  EXPECT_EQ(extra, 6u);  // both warps' f rd+1..rd+3 records
  EXPECT_EQ(compared + extra, run.records.size());
  // The fetch wrote something worth comparing: f5..f7 of a one-channel float
  // texture are 0, 0 and 1.0f.
  const RtlRetire& w = run.records[run.tex_first + 5];
  EXPECT_EQ(w.rd, 7);
  EXPECT_EQ(w.rd_data[1], 0x3f800000u);
}

TEST(LockstepTex, AWrongComponentIsCaught) {
  TexRun run;
  run.records[run.tex_first + 4].rd_data[2] ^= 1;  // warp 0's f6, lane 2
  const std::string error = run.check();
  EXPECT_NE(error.find("lane 2 f6: rtl"), std::string::npos) << error;
  TexRun first;
  first.records[first.tex_first].rd_data[0] ^= 0x400000;  // f4, the first record
  EXPECT_NE(first.check().find("lane 0 f4: rtl"), std::string::npos);
}

TEST(LockstepTex, RecordsOutOfOrderAreCaught) {
  TexRun run;
  std::swap(run.records[run.tex_first + 1], run.records[run.tex_first + 4]);  // f6 before f5
  const std::string error = run.check();
  EXPECT_NE(error.find("expected f5 of the kx.tex"), std::string::npos) << error;
}

TEST(LockstepTex, AMissingRecordIsCaught) {
  // The instruction retired as one record: the warp's next instruction is not f5.
  TexRun one;
  one.records.erase(one.records.begin() + static_cast<long>(one.tex_first) + 1);
  one.records.erase(one.records.begin() + static_cast<long>(one.tex_first) + 3);
  one.records.erase(one.records.begin() + static_cast<long>(one.tex_first) + 3);
  std::string error = one.check();
  EXPECT_NE(error.find("expected f5 of the kx.tex"), std::string::npos) << error;
  // The launch ends with f7 owed.
  TexRun last;
  last.records.resize(last.tex_first + 5);  // up to f6
  error = last.check();
  EXPECT_NE(error.find("never retired f7 of its kx.tex"), std::string::npos) << error;
}

TEST(LockstepTex, TheFirstRecordIsFrd) {
  TexRun run;
  std::swap(run.records[run.tex_first], run.records[run.tex_first + 1]);  // f5 first
  const std::string error = run.check();
  EXPECT_NE(error.find("the first record of a kx.tex must write its f4"), std::string::npos) << error;
}

// Lane 2 names a misaligned object: the RTL retires nothing for the kx.tex
// and reports the fault, which the model's step meets.
TEST(LockstepTex, AFaultingFetchRetiresNothing) {
  TestGpu rtl{64, kLanes, 1, 2};
  TestGpu model{64, kLanes, 1, 2};
  set_up(rtl, 2);
  rtl.gpu().place_block(0, 0, {0, 1});
  set_up(model, 2);
  Checker checker = checker_for(model);
  for (int i = 0; i < kTexIndex; ++i)
    for (const RtlRetire& r : records_of(rtl.gpu().step(0, 0)))
      ASSERT_TRUE(checker.retire(r)) << checker.error();
  rtl.gpu().step(0, 0);
  ASSERT_EQ(rtl.gpu().state(), model::LaunchState::kFault);
  const model::Fault fault = rtl.gpu().fault();
  EXPECT_EQ(fault.kind, KESTREL_FAULT_MISALIGNED);
  EXPECT_EQ(fault.thread.x, 2u);
  EXPECT_TRUE(checker.fault(fault)) << checker.error();
  // A fault record that differs (another lane) is caught.
  TestGpu model2{64, kLanes, 1, 2};
  set_up(model2, 2);
  Checker other = checker_for(model2);
  TestGpu rtl2{64, kLanes, 1, 2};
  set_up(rtl2, 2);
  rtl2.gpu().place_block(0, 0, {0, 1});
  for (int i = 0; i < kTexIndex; ++i)
    for (const RtlRetire& r : records_of(rtl2.gpu().step(0, 0)))
      ASSERT_TRUE(other.retire(r)) << other.error();
  model::Fault wrong = fault;
  wrong.thread.x = 1;
  EXPECT_FALSE(other.fault(wrong));
  EXPECT_NE(other.error().find("fault differs"), std::string::npos) << other.error();
}

}  // namespace
}  // namespace kestrel::lockstep
