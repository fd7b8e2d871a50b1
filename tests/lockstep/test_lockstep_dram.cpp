// The end-of-launch DRAM comparison (lockstep::dram_difference): only the
// pages a launch could have written are compared, the ones the hardware wrote
// and the ones the model could write, so that a launch does not cost a read
// of all of DRAM on both sides.  A model with four pages stands in for both.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kestrel/abi.h"
#include "lockstep.hpp"

namespace kestrel::lockstep {
namespace {

constexpr unsigned kPages = 4;

class DramDifference : public testing::Test {
 protected:
  DramDifference() : model_(config()), hardware_(kPages * KESTREL_PAGE_SIZE), written_(kPages) {}

  static model::Config config() {
    model::Config c;
    c.num_sms = 1;
    c.lanes_per_warp = 4;
    c.warps_per_sm = 2;
    c.mem_bytes = kPages * KESTREL_PAGE_SIZE;
    return c;
  }
  static uint64_t address(unsigned page, unsigned offset) {
    return KESTREL_GLOBAL_BASE + uint64_t{page} * KESTREL_PAGE_SIZE + offset;
  }
  std::string difference(bool with_pages = true) {
    return dram_difference(model_, hardware_.data(), hardware_.size(),
                           with_pages ? written_.data() : nullptr);
  }

  model::Gpu model_;
  std::vector<uint8_t> hardware_;
  std::vector<uint8_t> written_;
};

TEST_F(DramDifference, EqualDramHasNone) {
  model_.map_pages(address(1, 0), 1, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  written_[2] = 1;
  EXPECT_EQ(difference(), "");
}

TEST_F(DramDifference, AWriteOfTheHardwareToAPageTheModelCannotWriteIsCaught) {
  // A read-only page that the RTL wrote all the same (a page-table bug).
  model_.map_pages(address(2, 0), 1, KESTREL_PAGE_READ);
  hardware_[2 * KESTREL_PAGE_SIZE + 0x123] = 0x5A;
  written_[2] = 1;
  char expected[96];
  std::snprintf(expected, sizeof expected, "device DRAM differs at 0x%llx: rtl 0x5a model 0x0",
                static_cast<unsigned long long>(address(2, 0x123)));
  EXPECT_EQ(difference(), expected);
}

TEST_F(DramDifference, AStoreTheHardwareLostOnAWritablePageIsCaught) {
  // The model stored to a writable page; the hardware wrote nothing there.
  model_.map_pages(address(1, 0), 1, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  const uint32_t value = 0xCAFEF00D;
  model_.write_mem(address(1, 0x40), &value, sizeof value);
  EXPECT_NE(difference().find("differs at"), std::string::npos);
}

TEST_F(DramDifference, PagesNeitherSideCouldWriteAreNotRead) {
  // Host copies reach both sides; a difference on a page no launch could
  // write is not the launch's, and that page is not compared.
  hardware_[3 * KESTREL_PAGE_SIZE] = 1;
  EXPECT_EQ(difference(), "");
  // Without the hardware's written pages every page is compared.
  EXPECT_NE(difference(false).find("differs at"), std::string::npos);
}

}  // namespace
}  // namespace kestrel::lockstep
