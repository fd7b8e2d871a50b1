// Register file bench: random writes with lane masks and reads on both ports
// against a C++ array, the start values of docs/isa.md section 5 (ra, sp, gp,
// a0 and zeros) before the first write and again after a warp relaunch, x0,
// and the held read data while the read enable is low.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>

#include "Vregfile4.h"
#include "rtl_test.hpp"

namespace {

constexpr unsigned kLanes = 4, kWarps = 4;
constexpr uint64_t kRa = 0x1000'0040, kSp = 0xF000'0400, kGp = 0x1000'8000, kA0 = 0x1234'0000;

struct RefRegs {
  std::array<std::array<std::array<uint64_t, kLanes>, 32>, kWarps> value{};
  std::array<std::array<std::array<bool, kLanes>, 32>, kWarps> written{};
  uint64_t read(unsigned w, unsigned r, unsigned lane) const {
    if (r == 0) return 0;
    if (written[w][r][lane]) return value[w][r][lane];
    switch (r) {
      case 1:
        return kRa;
      case 2:
        return kSp;
      case 3:
        return kGp;
      case 10:
        return kA0;
      default:
        return 0;
    }
  }
};

TEST(RtlRegfile, MatchesReferenceWithStartValues) {
  kestrel::rtlbench::Bench<Vregfile4> bench;
  bench.reset();
  bench->init_ra_i = kRa;
  bench->init_sp_i = kSp;
  bench->init_gp_i = kGp;
  bench->init_a0_i = kA0;
  std::mt19937_64 rng(41);
  RefRegs ref;
  int reads_checked = 0;
  for (int cycle = 0; cycle < 30000; ++cycle) {
    const bool we = rng() % 2;
    const unsigned ww = rng() % kWarps, rd = rng() % 12, mask = rng() % 16;
    std::array<uint64_t, kLanes> data{};
    for (unsigned l = 0; l < kLanes; ++l) {
      data[l] = rng();
      bench->wdata_i[2 * l] = uint32_t(data[l]);
      bench->wdata_i[2 * l + 1] = uint32_t(data[l] >> 32);
    }
    bench->we_i = we;
    bench->wwarp_i = ww;
    bench->rd_i = rd;
    bench->wmask_i = mask;
    const bool ren = rng() % 4 != 0;
    const unsigned rw = rng() % kWarps, rs1 = rng() % 12, rs2 = rng() % 12, rs3 = rng() % 12;
    bench->ren_i = ren;
    bench->rwarp_i = rw;
    bench->rs1_i = rs1;
    bench->rs2_i = rs2;
    bench->rs3_i = rs3;
    const bool launch = rng() % 500 == 0;
    const unsigned lw = rng() % kWarps;
    bench->launch_i = launch;
    bench->launch_warp_i = lw;
    // Reads see the state before this cycle's write (read-before-write RAM).
    const RefRegs before = ref;
    bench.tick();
    if (ren) {
      ++reads_checked;
      for (unsigned l = 0; l < kLanes; ++l) {
        const uint64_t a = uint64_t(bench->rs1_data_o[2 * l]) | uint64_t(bench->rs1_data_o[2 * l + 1]) << 32;
        const uint64_t b = uint64_t(bench->rs2_data_o[2 * l]) | uint64_t(bench->rs2_data_o[2 * l + 1]) << 32;
        ASSERT_EQ(a, before.read(rw, rs1, l))
            << "cycle " << cycle << " warp " << rw << " x" << rs1 << " lane " << l;
        ASSERT_EQ(b, before.read(rw, rs2, l))
            << "cycle " << cycle << " warp " << rw << " x" << rs2 << " lane " << l;
        const uint64_t c = uint64_t(bench->rs3_data_o[2 * l]) | uint64_t(bench->rs3_data_o[2 * l + 1]) << 32;
        ASSERT_EQ(c, before.read(rw, rs3, l))
            << "cycle " << cycle << " warp " << rw << " x" << rs3 << " lane " << l;
      }
    }
    if (we && rd != 0)
      for (unsigned l = 0; l < kLanes; ++l)
        if (mask >> l & 1) {
          ref.value[ww][rd][l] = data[l];
          ref.written[ww][rd][l] = true;
        }
    if (launch)
      for (auto& reg : ref.written[lw]) reg.fill(false);
  }
  EXPECT_GT(reads_checked, 20000);
}

}  // namespace
