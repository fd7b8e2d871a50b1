// The Checker's contract for loads and stores in flight (lockstep.hpp): a
// warp's later instructions may retire before its memory instructions, and
// every record carries how many of its warp's memory instructions precede it
// in program order.  A second functional model stands in for the RTL; its
// records, tagged that way, are reordered as the SM retires them: the
// instructions after a warp's loads retire first, another warp's records in
// between.  The checker must replay each warp in program order, and catch a
// record that claims the wrong place and a load that never completes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.hpp"
#include "lockstep.hpp"
#include "retire_records.hpp"

namespace kestrel::lockstep {
namespace {

using namespace model::rvasm;
using model::test::TestGpu;

constexpr unsigned kLanes = 4;

// Each thread loads two words of its own, computes beside them, adds them and
// stores the sum.
Assembler kernel() {
  Assembler a(64);
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.slli(t1, t0, 2);
  a.add(s0, a0, t1);
  a.lw(s1, s0, 0x100);  // memory instruction 0
  a.lw(s3, s0, 0x200);  // memory instruction 1
  a.addi(s2, t0, 3);    // independent: may retire ahead of both loads
  a.xori(s4, s2, 0x5A);
  a.add(s5, s1, s3);  // waits for the loads
  a.add(s5, s5, s4);
  a.sw(s5, s0, 0x300);  // memory instruction 2
  a.kx_exit();
  return a;
}

constexpr size_t kFirstLoad = 3;  // index of a warp's first load among its records

bool is_memory(TestGpu& g, uint64_t pc) {
  uint32_t word = 0;
  g.gpu().read_mem(pc, &word, 4);
  const uint32_t opcode = word & 0x7F;
  return opcode == 0x03 || opcode == 0x23;
}

void set_up(TestGpu& g) {
  g.load(kernel());
  for (uint32_t i = 0; i < 2 * kLanes; ++i) {
    g.set_data<uint32_t>(0x100 + 4 * i, 1000 + 7 * i);
    g.set_data<uint32_t>(0x200 + 4 * i, 50 * i + 3);
  }
  g.gpu().start(g.desc({1, 1, 1}, {2 * kLanes, 1, 1}), model::Dispatch::kManual);
}

// The "RTL": each warp's records in program order, tagged with their place
// among the warp's memory instructions.
struct OrderRun {
  TestGpu rtl{64, kLanes, 1, 2};
  TestGpu model{64, kLanes, 1, 2};
  std::vector<RtlRetire> warp[2];

  OrderRun() {
    set_up(rtl);
    rtl.gpu().place_block(0, 0, {0, 1});
    set_up(model);
    for (uint32_t slot : {0u, 1u}) {
      uint8_t seq = 0;
      for (;;) {
        const model::Retire m = rtl.gpu().step(0, slot);
        if (!m.issued) break;
        RtlRetire r = record_of(m, kLanes);
        r.mem_seq = seq;
        r.lsu = is_memory(rtl, m.pc);
        if (r.lsu) ++seq;
        warp[slot].push_back(r);
        if (!rtl.gpu().warp_resident(0, slot)) break;
      }
    }
    EXPECT_EQ(rtl.gpu().state(), model::LaunchState::kDone);
    EXPECT_TRUE(warp[0][kFirstLoad].lsu && warp[0][kFirstLoad + 1].lsu);
  }

  // The retire order of an SM with both loads in flight: warp 0's two
  // independent instructions first, then warp 1's records up to its loads,
  // then warp 0's loads and the rest, then warp 1's rest.
  std::vector<RtlRetire> retire_order() const {
    const std::vector<RtlRetire>& w0 = warp[0];
    std::vector<RtlRetire> out(w0.begin(), w0.begin() + kFirstLoad);
    out.push_back(w0[kFirstLoad + 2]);
    out.push_back(w0[kFirstLoad + 3]);
    out.insert(out.end(), warp[1].begin(), warp[1].begin() + kFirstLoad);
    out.push_back(w0[kFirstLoad]);
    out.push_back(w0[kFirstLoad + 1]);
    out.insert(out.end(), w0.begin() + kFirstLoad + 4, w0.end());
    out.insert(out.end(), warp[1].begin() + kFirstLoad, warp[1].end());
    return out;
  }

  std::string check(const std::vector<RtlRetire>& records, uint64_t* compared = nullptr) {
    Checker checker(model.gpu(), model.desc({1, 1, 1}, {2 * kLanes, 1, 1}));
    bool ok = checker.place_block(0, 0, {0, 1});
    for (const RtlRetire& r : records) ok = ok && checker.retire(r);
    ok = ok && checker.finish();
    if (compared != nullptr) *compared = checker.compared();
    EXPECT_EQ(ok, checker.ok());
    return checker.error();
  }
};

TEST(LockstepOrder, RecordsAheadOfTheirLoadsReplayInProgramOrder) {
  OrderRun run;
  const std::vector<RtlRetire> records = run.retire_order();
  ASSERT_EQ(records[kFirstLoad].mem_seq, 2u);  // the addi, issued after both loads
  uint64_t compared = 0;
  EXPECT_EQ(run.check(records, &compared), "");
  EXPECT_EQ(compared, records.size());
}

TEST(LockstepOrder, ARecordClaimingNoOlderLoadIsCaught) {
  OrderRun run;
  std::vector<RtlRetire> records = run.retire_order();
  records[kFirstLoad].mem_seq = 0;  // the addi, as if no load preceded it
  const std::string error = run.check(records);
  EXPECT_NE(error.find("pc differs"), std::string::npos) << error;
}

TEST(LockstepOrder, ALoadThatNeverCompletesIsCaught) {
  OrderRun run;
  std::vector<RtlRetire> records = run.retire_order();
  // Warp 0's second load never completes: its later records stay held.
  const uint64_t load_pc = run.warp[0][kFirstLoad + 1].pc;
  for (auto it = records.begin(); it != records.end(); ++it) {
    if (it->warp_slot == 0 && it->pc == load_pc) {
      records.erase(it);
      break;
    }
  }
  const std::string error = run.check(records);
  EXPECT_NE(error.find("only 1 (mod 16) completed"), std::string::npos) << error;
}

}  // namespace
}  // namespace kestrel::lockstep
