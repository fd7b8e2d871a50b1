// f register file bench: random masked writes and reads on all three ports
// against a C++ array; unwritten registers (f0 included) read 0 before the
// first write and again after the warp is relaunched; read data is held while
// the read enable is low; a read sees the state before a same-cycle write.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>

#include "Vfp_regfile4.h"
#include "fpu_test_support.hpp"

namespace {

constexpr unsigned kLanes = 4, kWarps = 4;

struct RefRegs {
  std::array<std::array<std::array<uint32_t, kLanes>, 32>, kWarps> value{};
  std::array<std::array<std::array<bool, kLanes>, 32>, kWarps> written{};
  uint32_t read(unsigned w, unsigned r, unsigned lane) const {
    return written[w][r][lane] ? value[w][r][lane] : 0;
  }
};

TEST(FpRegfile, MatchesReferenceWithZeroStart) {
  kestrel::fpubench::UnitBench<Vfp_regfile4> bench;
  bench.reset();
  std::mt19937_64 rng(43);
  RefRegs ref;
  std::array<std::array<uint32_t, kLanes>, 3> held{};
  int reads_checked = 0, held_checked = 0, nonzero_reads = 0;
  for (int cycle = 0; cycle < 30000; ++cycle) {
    const bool we = rng() % 2;
    // Few registers, so that reads often hit written ones and relaunched ones.
    const unsigned ww = rng() % kWarps, rd = rng() % 8, mask = rng() % 16;
    std::array<uint32_t, kLanes> data{};
    for (unsigned l = 0; l < kLanes; ++l) {
      data[l] = uint32_t(rng());
      bench->wdata_i[l] = data[l];
    }
    bench->we_i = we;
    bench->wwarp_i = ww;
    bench->rd_i = rd;
    bench->wmask_i = mask;
    const bool ren = rng() % 4 != 0;
    const unsigned rw = rng() % kWarps;
    const std::array<unsigned, 3> rs{unsigned(rng() % 8), unsigned(rng() % 8), unsigned(rng() % 8)};
    bench->ren_i = ren;
    bench->rwarp_i = rw;
    bench->rs1_i = rs[0];
    bench->rs2_i = rs[1];
    bench->rs3_i = rs[2];
    const bool launch = rng() % 500 == 0;
    const unsigned lw = rng() % kWarps;
    bench->launch_i = launch;
    bench->launch_warp_i = lw;
    const RefRegs before = ref;
    bench.tick();
    for (unsigned l = 0; l < kLanes; ++l) {
      const std::array<uint32_t, 3> got{bench->rs1_data_o[l], bench->rs2_data_o[l], bench->rs3_data_o[l]};
      for (unsigned p = 0; p < 3; ++p) {
        if (ren) {
          const uint32_t want = before.read(rw, rs[p], l);
          ASSERT_EQ(got[p], want) << "cycle " << cycle << " port " << p << " warp " << rw << " f" << rs[p]
                                  << " lane " << l;
          nonzero_reads += want != 0;
          held[p][l] = got[p];
        } else {
          // Held unless a relaunch cleared the register the port last read.
          if (!launch) {
            ASSERT_EQ(got[p], held[p][l]) << "cycle " << cycle << " port " << p << " not held";
            ++held_checked;
          }
          held[p][l] = got[p];
        }
      }
    }
    reads_checked += ren;
    if (we)
      for (unsigned l = 0; l < kLanes; ++l)
        if (mask >> l & 1) {
          ref.value[ww][rd][l] = data[l];
          ref.written[ww][rd][l] = true;
        }
    if (launch)
      for (auto& reg : ref.written[lw]) reg.fill(false);
  }
  EXPECT_GT(reads_checked, 20000);
  EXPECT_GT(held_checked, 1000);
  EXPECT_GT(nonzero_reads, 20000);
}

}  // namespace
