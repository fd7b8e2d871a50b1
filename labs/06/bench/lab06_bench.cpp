// Lab 06's RTL bench (make check): the tree's kestrel_warp_sched with 8
// warps under policies 0 (lrr), 1 (gto) and 2 (two-level, the lab's), on
// random ready, launch and issue sequences, each against a C++ reference of
// the rules in README.md.  Prints the first mismatches (at most 5 per
// policy) and "rtl bench: policy P: N choices, K wrong" for each.
#include <array>
#include <cstdint>
#include <cstdio>
#include <random>

#include "Vlab06_sched.h"
#include "verilated.h"

namespace {

constexpr unsigned kWarps = 8;
constexpr unsigned kGroup = 4;
constexpr unsigned kGroups = kWarps / kGroup;
const char* const kNames[3] = {"0 (lrr)", "1 (gto)", "2 (two-level)"};

struct Reference {
  unsigned policy = 0;
  bool last_valid = false;
  unsigned last = 0;
  std::array<unsigned, kWarps> age{};  // launch stamp: smaller is older
  unsigned stamp = 0;

  unsigned choose(unsigned ready) const {
    switch (policy) {
      case 0: {  // the first ready warp after the last issued one
        const unsigned start = last_valid ? (last + 1) % kWarps : 0;
        for (unsigned k = 0; k < kWarps; ++k)
          if (ready >> ((start + k) % kWarps) & 1) return (start + k) % kWarps;
        return 0;
      }
      case 1: {  // the last warp while it is ready, else the oldest ready one
        if (last_valid && (ready >> last & 1)) return last;
        unsigned best = 0, best_age = ~0u;
        for (unsigned w = 0; w < kWarps; ++w)
          if ((ready >> w & 1) && age[w] < best_age) {
            best_age = age[w];
            best = w;
          }
        return best;
      }
      default: {  // two-level: the last warp's group round-robin, else the next group's lowest ready warp
        const unsigned current = last_valid ? last / kGroup : 0;
        const unsigned first = last_valid ? last % kGroup + 1 : 0;
        for (unsigned k = 0; k < kGroup; ++k) {
          const unsigned w = current * kGroup + (first + k) % kGroup;
          if (ready >> w & 1) return w;
        }
        for (unsigned g = 1; g < kGroups; ++g)
          for (unsigned j = 0; j < kGroup; ++j) {
            const unsigned w = ((current + g) % kGroups) * kGroup + j;
            if (ready >> w & 1) return w;
          }
        return 0;
      }
    }
  }
  void issued(unsigned warp) {
    last = warp;
    last_valid = true;
  }
  void launched(unsigned mask) {
    for (unsigned w = 0; w < kWarps; ++w)
      if (mask >> w & 1) age[w] = stamp++;
  }
};

}  // namespace

int main(int argc, char** argv) {
  Verilated::commandArgs(argc, argv);
  Vlab06_sched top;
  std::array<Reference, 3> ref;
  std::array<int, 3> choices{}, wrong{};
  for (unsigned p = 0; p < 3; ++p) ref[p].policy = p;
  auto tick = [&] {
    top.clk_i = 0;
    top.eval();
    top.clk_i = 1;
    top.eval();
  };
  top.rst_ni = 0;
  top.ready_i = 0;
  top.launch_i = 0;
  top.issue_i = 0;
  tick();
  top.rst_ni = 1;
  top.launch_i = 0xff;  // launched together: the lower index is older
  tick();
  for (auto& r : ref) r.launched(0xff);
  std::mt19937 rng(6);
  for (int cycle = 0; cycle < 20000; ++cycle) {
    // Sparse ready masks (so groups run dry), full ones, and bursts.
    const unsigned kind = rng() % 4;
    const unsigned ready = kind == 0 ? 0xffu : kind == 1 ? (rng() & rng() & 0xffu) : rng() % 256;
    const unsigned launch = rng() % 50 == 0 ? 1u << (rng() % kWarps) : 0;
    const bool issue = ready != 0 && rng() % 4 != 0;
    top.ready_i = ready;
    top.launch_i = launch;
    top.issue_i = issue;
    top.clk_i = 0;
    top.eval();
    for (unsigned p = 0; p < 3; ++p) {
      const bool valid = top.valid_o >> p & 1;
      const unsigned got = top.warp_o >> (3 * p) & 7;
      if (ready == 0) {
        if (valid && ++wrong[p] <= 5)
          std::printf("rtl bench: policy %s: cycle %d: valid with no warp ready\n", kNames[p], cycle);
        continue;
      }
      const unsigned want = ref[p].choose(ready);
      ++choices[p];
      if ((!valid || got != want) && ++wrong[p] <= 5)
        std::printf(
            "rtl bench: policy %s: cycle %d: ready 0x%02x, last issued %s%u: chose warp %u%s, want %u\n",
            kNames[p], cycle, ready, ref[p].last_valid ? "" : "none, reset ", ref[p].last, got,
            valid ? "" : " (valid low)", want);
      // The reference follows the RTL's choice: each line above is a mismatch from the same state.
      if (issue) ref[p].issued(got);
    }
    top.clk_i = 1;
    top.eval();
    for (auto& r : ref) r.launched(launch);
  }
  int failed = 0;
  for (unsigned p = 0; p < 3; ++p) {
    std::printf("rtl bench: policy %s: %d choices, %d wrong\n", kNames[p], choices[p], wrong[p]);
    failed += wrong[p];
  }
  return failed ? 1 : 0;
}
