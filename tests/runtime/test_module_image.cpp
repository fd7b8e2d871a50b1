// The module loader's parser on good fixtures and on bad input crafted by
// mutating a good module (docs/isa.md section 8).
#include <gtest/gtest.h>

#include <random>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "module_image.hpp"
#include "test_support.hpp"

namespace kestrel::runtime {
namespace {

using testing::find_section;
using testing::fixture_module;
using testing::peek;
using testing::poke;

// Parses and returns the error message; fails the test when parsing succeeds.
std::string parse_error(const std::vector<uint8_t>& bytes, unsigned xlen) {
  try {
    parse_module(bytes.data(), bytes.size(), xlen);
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_MODULE) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "module was accepted";
  return "";
}

const KernelInfo* find_kernel(const ModuleImage& image, const std::string& name) {
  for (const KernelInfo& k : image.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

class ModuleImageTest : public ::testing::TestWithParam<unsigned> {
 protected:
  unsigned xlen() const { return GetParam(); }
  unsigned word() const { return GetParam() / 8; }
  uint64_t desc_bytes() const { return 16 + 3 * word(); }
};

TEST_P(ModuleImageTest, ParsesKernelsSymbolsAndPages) {
  const std::vector<uint8_t> bytes = fixture_module(xlen());
  const ModuleImage image = parse_module(bytes.data(), bytes.size(), xlen());
  EXPECT_EQ(image.xlen, xlen());
  ASSERT_EQ(image.kernels.size(), 4u);

  const KernelInfo* fill = find_kernel(image, "_Z10fill_indexPiii");
  ASSERT_NE(fill, nullptr);
  EXPECT_EQ(fill->entry, 4u);  // right after __kestrel_exit at 0
  ASSERT_EQ(fill->params.size(), 3u);
  EXPECT_EQ(fill->param_bytes, word() + 8);
  EXPECT_EQ(fill->params[0].kind, uint32_t{KESTREL_PARAM_POINTER});
  EXPECT_EQ(fill->params[0].size, word());
  EXPECT_EQ(fill->params[1].offset, word());
  EXPECT_EQ(fill->params[2].offset, word() + 4);

  const KernelInfo* mixed = find_kernel(image, "_Z5mixedcdPis");
  ASSERT_NE(mixed, nullptr);
  EXPECT_EQ(mixed->params.size(), 4u);
  EXPECT_EQ(mixed->params[1].align, 8u);

  EXPECT_EQ(image.exit_pc, 0u);
  EXPECT_NE(image.gp, 0u);
  EXPECT_EQ(image.static_shared_bytes(), 256u);
  EXPECT_EQ(image.shared_start % KESTREL_PAGE_SIZE, 0u);
  EXPECT_GE(image.shared_start, image.bytes.size());

  // Text R+X, read-only data R, data R+W, as the fixture's linker script lays them out.
  ASSERT_GE(image.page_runs.size(), 3u);
  EXPECT_EQ(image.page_runs[0].first_page, 0u);
  EXPECT_EQ(image.page_runs[0].perms, uint32_t{KESTREL_PAGE_READ | KESTREL_PAGE_EXEC});
  EXPECT_EQ(image.page_runs[1].perms, uint32_t{KESTREL_PAGE_READ});
  EXPECT_EQ(image.page_runs.back().perms, uint32_t{KESTREL_PAGE_READ | KESTREL_PAGE_WRITE});

  // Globals: test::table and counter, not the __shared__ tile.
  bool has_counter = false, has_table = false;
  for (const GlobalSymbol& g : image.globals) {
    has_counter |= g.name == "counter" && g.bytes == 4;
    has_table |= g.name == "_ZN4test5tableE" && g.bytes == 16;
    EXPECT_NE(g.name, "tile");
  }
  EXPECT_TRUE(has_counter);
  EXPECT_TRUE(has_table);
}

TEST_P(ModuleImageTest, RelocationsHoldLinkTimeAddresses) {
  const std::vector<uint8_t> bytes = fixture_module(xlen());
  const ModuleImage image = parse_module(bytes.data(), bytes.size(), xlen());
  // 4 descriptors x 3 pointers.
  EXPECT_EQ(image.relocations.size(), 12u);
  const testing::SectionView kernels = find_section(bytes, ".kestrel.kernels");
  const uint64_t entry_field = kernels.addr + 16;
  uint64_t entry = 0;
  std::memcpy(&entry, image.bytes.data() + entry_field, word());
  EXPECT_EQ(entry, 4u);
}

TEST_P(ModuleImageTest, RejectsWrongClassForTheDevice) {
  const std::vector<uint8_t> bytes = fixture_module(xlen());
  const unsigned other = xlen() == 64 ? 32 : 64;
  EXPECT_NE(parse_error(bytes, other).find("ELF class"), std::string::npos);
}

TEST_P(ModuleImageTest, RejectsNonElfAndEmpty) {
  const std::string text = "this is not an ELF file at all, just some text";
  EXPECT_NE(parse_error(std::vector<uint8_t>(text.begin(), text.end()), xlen()).find("not an ELF"),
            std::string::npos);
  EXPECT_THROW(parse_module(nullptr, 0, xlen()), Error);
  std::vector<uint8_t> bytes = fixture_module(xlen());
  bytes[EI_CLASS] = 7;
  EXPECT_NE(parse_error(bytes, xlen()).find("class"), std::string::npos);
}

TEST_P(ModuleImageTest, RejectsEveryTruncation) {
  const std::vector<uint8_t> bytes = fixture_module(xlen());
  // Section headers sit at the end, so every proper prefix is invalid.
  for (size_t length = 0; length < bytes.size(); length += (length < 256 ? 1 : 61)) {
    const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length));
    SCOPED_TRACE("length " + std::to_string(length));
    parse_error(prefix, xlen());
  }
}

TEST_P(ModuleImageTest, RejectsWrongMachineTypeAndFlags) {
  const std::vector<uint8_t> good = fixture_module(xlen());
  std::vector<uint8_t> bytes = good;
  poke<uint16_t>(bytes, 18, EM_X86_64);
  EXPECT_NE(parse_error(bytes, xlen()).find("EM_RISCV"), std::string::npos);

  bytes = good;
  poke<uint16_t>(bytes, 16, ET_EXEC);
  EXPECT_NE(parse_error(bytes, xlen()).find("ET_DYN"), std::string::npos);

  const uint64_t flags_at = 24 + 3 * word();
  bytes = good;
  poke<uint32_t>(bytes, flags_at, peek<uint32_t>(good, flags_at) | EF_RISCV_RVC);
  EXPECT_NE(parse_error(bytes, xlen()).find("compressed"), std::string::npos);

  bytes = good;
  poke<uint32_t>(
      bytes, flags_at,
      (peek<uint32_t>(good, flags_at) & ~uint32_t{EF_RISCV_FLOAT_ABI}) | EF_RISCV_FLOAT_ABI_DOUBLE);
  EXPECT_NE(parse_error(bytes, xlen()).find("float ABI"), std::string::npos);

  bytes = good;
  poke<uint32_t>(bytes, flags_at, peek<uint32_t>(good, flags_at) & ~uint32_t{EF_RISCV_FLOAT_ABI});
  EXPECT_NE(parse_error(bytes, xlen()).find("float ABI"), std::string::npos);
}

TEST_P(ModuleImageTest, RejectsSegmentsOutsideTheFile) {
  std::vector<uint8_t> bytes = fixture_module(xlen());
  const uint64_t phoff = peek<uint64_t>(bytes, 24 + word()) & (xlen() == 64 ? ~0ull : 0xFFFFFFFFull);
  // First program header is the text PT_LOAD; push its file offset past the end.
  const uint64_t offset_field = phoff + (xlen() == 64 ? 8 : 4);
  if (xlen() == 64) {
    poke<uint64_t>(bytes, offset_field, bytes.size());
  } else {
    poke<uint32_t>(bytes, offset_field, static_cast<uint32_t>(bytes.size()));
  }
  EXPECT_NE(parse_error(bytes, xlen()).find("outside the file"), std::string::npos);
}

TEST_P(ModuleImageTest, RejectsCorruptedDescriptors) {
  const std::vector<uint8_t> good = fixture_module(xlen());
  const testing::SectionView kernels = find_section(good, ".kestrel.kernels");
  std::vector<uint8_t> bytes = good;
  poke<uint32_t>(bytes, kernels.offset, 0xDEADBEEF);
  EXPECT_NE(parse_error(bytes, xlen()).find("magic"), std::string::npos);

  bytes = good;
  poke<uint32_t>(bytes, kernels.offset + 8, 8192);  // param_bytes beyond 4096
  EXPECT_NE(parse_error(bytes, xlen()).find("4096"), std::string::npos);

  bytes = good;
  poke<uint32_t>(bytes, kernels.offset + 4, 0x40000000);  // absurd num_params
  parse_error(bytes, xlen());

  bytes = good;
  poke<uint32_t>(bytes, kernels.offset + 12, 3);  // alignment not a power of two
  EXPECT_NE(parse_error(bytes, xlen()).find("alignment"), std::string::npos);

  // Two descriptors for one kernel.
  bytes = good;
  std::memcpy(bytes.data() + kernels.offset + desc_bytes(), good.data() + kernels.offset, desc_bytes());
  parse_error(bytes, xlen());
}

TEST_P(ModuleImageTest, RejectsBadParameterDescriptors) {
  const std::vector<uint8_t> good = fixture_module(xlen());
  const testing::SectionView rodata = find_section(good, ".rodata");
  // params_fill_index follows the four names; find it by its known content.
  const std::vector<uint32_t> first = {0, word(), word(), 1, word(), 4, 4, 0};
  uint64_t at = 0;
  for (uint64_t o = rodata.offset; o + 32 <= rodata.offset + rodata.size; o += 4) {
    if (std::memcmp(good.data() + o, first.data(), 32) == 0) {
      at = o;
      break;
    }
  }
  ASSERT_NE(at, 0u);
  std::vector<uint8_t> bytes = good;
  poke<uint32_t>(bytes, at + 12, 7);  // kind
  EXPECT_NE(parse_error(bytes, xlen()).find("unknown kind"), std::string::npos);

  bytes = good;
  poke<uint32_t>(bytes, at + 16 + 4, 64);  // parameter 1 size runs past param_bytes
  EXPECT_NE(parse_error(bytes, xlen()).find("past param_bytes"), std::string::npos);

  bytes = good;
  poke<uint32_t>(bytes, at + 16, 0);  // parameter 1 overlaps parameter 0
  EXPECT_NE(parse_error(bytes, xlen()).find("overlaps"), std::string::npos);

  bytes = good;
  poke<uint32_t>(bytes, at + 4, 2);  // a 2-byte pointer
  EXPECT_NE(parse_error(bytes, xlen()).find("pointer"), std::string::npos);
}

TEST_P(ModuleImageTest, RejectsBadRelocations) {
  const std::vector<uint8_t> good = fixture_module(xlen());
  const testing::SectionView rela = find_section(good, ".rela.dyn");
  const uint64_t info_at = rela.offset + word();
  std::vector<uint8_t> bytes = good;
  if (xlen() == 64) {
    poke<uint64_t>(bytes, info_at, R_RISCV_64);
  } else {
    poke<uint32_t>(bytes, info_at, R_RISCV_32);
  }
  EXPECT_NE(parse_error(bytes, xlen()).find("R_RISCV_RELATIVE"), std::string::npos);

  bytes = good;  // patch target outside every segment
  if (xlen() == 64) {
    poke<uint64_t>(bytes, rela.offset, 0x7000000);
  } else {
    poke<uint32_t>(bytes, rela.offset, 0x7000000);
  }
  EXPECT_NE(parse_error(bytes, xlen()).find("outside every segment"), std::string::npos);

  bytes = good;  // the name pointer of descriptor 0 (its relocation's addend) points far away
  const uint64_t addend_at = rela.offset + 3 * word() + 2 * word();
  if (xlen() == 64) {
    poke<uint64_t>(bytes, addend_at, 0x100000);
  } else {
    poke<uint32_t>(bytes, addend_at, 0x100000);
  }
  EXPECT_NE(parse_error(bytes, xlen()).find("outside the image"), std::string::npos);
}

TEST_P(ModuleImageTest, RandomCorruptionNeverCrashes) {
  const std::vector<uint8_t> good = fixture_module(xlen());
  std::mt19937 random(1234 + xlen());
  int rejected = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bytes = good;
    const int flips = 1 + static_cast<int>(random() % 8);
    for (int i = 0; i < flips; ++i)
      bytes[random() % bytes.size()] ^= static_cast<uint8_t>(1u << (random() % 8));
    try {
      parse_module(bytes.data(), bytes.size(), xlen());
    } catch (const Error& e) {
      ASSERT_EQ(e.status(), KESTREL_ERROR_INVALID_MODULE) << e.what();
      ++rejected;
    }
  }
  // Flips in padding or unused symbol bytes are harmless; many others are not.
  EXPECT_GT(rejected, 100);
}

INSTANTIATE_TEST_SUITE_P(Xlen, ModuleImageTest, ::testing::Values(64u, 32u),
                         [](const ::testing::TestParamInfo<unsigned>& param) {
                           return "RV" + std::to_string(param.param);
                         });

}  // namespace
}  // namespace kestrel::runtime
