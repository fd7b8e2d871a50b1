// The module loader's parser on good fixtures and on bad input crafted by
// mutating a good module (docs/isa.md section 8).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <stdexcept>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "kestrel/runtime/module_image.hpp"
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
  EXPECT_GE(image.shared_start, image.bytes.size() + KESTREL_SHARED_GUARD);

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
  poke<uint16_t>(bytes, 16, ET_REL);
  EXPECT_NE(parse_error(bytes, xlen()).find("ET_DYN"), std::string::npos);

  // A PIE relabelled ET_EXEC: RV64 has no static form; on RV32 its dynamic
  // section and relocation table do not belong in one.
  bytes = good;
  poke<uint16_t>(bytes, 16, ET_EXEC);
  EXPECT_NE(parse_error(bytes, xlen()).find(xlen() == 64 ? "RV64" : "ET_EXEC"), std::string::npos);

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

  const uint64_t entry = xlen() == 64 ? sizeof(Elf64_Rela) : sizeof(Elf32_Rela);
  auto set_offset = [&](std::vector<uint8_t>& module, uint64_t index, uint64_t value) {
    if (xlen() == 64) {
      poke<uint64_t>(module, rela.offset + index * entry, value);
    } else {
      poke<uint32_t>(module, rela.offset + index * entry, static_cast<uint32_t>(value));
    }
  };
  const uint64_t first_target = peek<uint32_t>(good, rela.offset);  // low half suffices: below 4 GiB

  bytes = good;  // two relocations of one word would add the base twice
  set_offset(bytes, 1, first_target);
  EXPECT_NE(parse_error(bytes, xlen()).find("overlapping"), std::string::npos);

  bytes = good;  // the first descriptor's entry pointer loses its relocation to another word
  set_offset(bytes, 0, find_section(good, ".data").addr);
  EXPECT_NE(parse_error(bytes, xlen()).find("no relocation covers"), std::string::npos);
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

// --- RV32 modules in the static form: ET_EXEC with kept relocations ---

std::vector<uint8_t> static_fixture() { return testing::read_file(KESTREL_TEST_STATIC_FIXTURE32); }

// One ELF32 relocation of the (trusted) fixture: where its entry lies in the
// file and what it holds.
struct KeptRelocation {
  uint64_t entry_at = 0;
  uint32_t offset = 0, symbol = 0, type = 0;
};

std::vector<KeptRelocation> kept_relocations(const std::vector<uint8_t>& elf, const std::string& section) {
  const testing::SectionView rela = find_section(elf, section);
  std::vector<KeptRelocation> out;
  for (uint64_t at = rela.offset; at < rela.offset + rela.size; at += sizeof(Elf32_Rela)) {
    const uint32_t info = peek<uint32_t>(elf, at + 4);
    out.push_back({at, peek<uint32_t>(elf, at), ELF32_R_SYM(info), ELF32_R_TYPE(info)});
  }
  return out;
}

// The first relocation of `type` in `section` at `offset` (any offset when 0).
KeptRelocation find_relocation(const std::vector<uint8_t>& elf, const std::string& section, uint32_t type,
                               uint32_t offset = 0) {
  for (const KeptRelocation& r : kept_relocations(elf, section))
    if (r.type == type && (offset == 0 || r.offset == offset)) return r;
  throw std::runtime_error("fixture has no such relocation in " + section);
}

void set_type(std::vector<uint8_t>& elf, const KeptRelocation& r, uint32_t type) {
  poke<uint32_t>(elf, r.entry_at + 4, ELF32_R_INFO(r.symbol, type));
}
void set_symbol(std::vector<uint8_t>& elf, const KeptRelocation& r, uint32_t symbol) {
  poke<uint32_t>(elf, r.entry_at + 4, ELF32_R_INFO(symbol, r.type));
}

// File offset of the .symtab entry of `name`.
uint64_t symbol_entry(const std::vector<uint8_t>& elf, const std::string& name) {
  const testing::SectionView symtab = find_section(elf, ".symtab");
  const testing::SectionView strtab = find_section(elf, ".strtab");
  for (uint64_t at = symtab.offset; at < symtab.offset + symtab.size; at += sizeof(Elf32_Sym))
    if (name == reinterpret_cast<const char*>(elf.data() + strtab.offset + peek<uint32_t>(elf, at)))
      return at;
  throw std::runtime_error("fixture has no symbol " + name);
}
uint32_t symbol_value(const std::vector<uint8_t>& elf, const std::string& name) {
  return peek<uint32_t>(elf, symbol_entry(elf, name) + 4);
}

TEST(StaticModuleImageTest, ParsesLikeThePositionIndependentFixture) {
  const std::vector<uint8_t> pie_bytes = fixture_module(32), static_bytes = static_fixture();
  const ModuleImage pie = parse_module(pie_bytes.data(), pie_bytes.size(), 32);
  const ModuleImage image = parse_module(static_bytes.data(), static_bytes.size(), 32);
  EXPECT_EQ(image.xlen, 32u);
  ASSERT_EQ(image.kernels.size(), pie.kernels.size());
  for (size_t i = 0; i < pie.kernels.size(); ++i) {
    EXPECT_EQ(image.kernels[i].name, pie.kernels[i].name);
    EXPECT_EQ(image.kernels[i].entry, pie.kernels[i].entry);
    EXPECT_EQ(image.kernels[i].param_bytes, pie.kernels[i].param_bytes);
    EXPECT_EQ(image.kernels[i].params.size(), pie.kernels[i].params.size());
  }
  EXPECT_EQ(image.exit_pc, 0u);
  EXPECT_EQ(image.static_shared_bytes(), 256u);
  EXPECT_GE(image.shared_start, image.bytes.size() + KESTREL_SHARED_GUARD);
  ASSERT_GE(image.page_runs.size(), 3u);
  EXPECT_EQ(image.page_runs[0].perms, uint32_t{KESTREL_PAGE_READ | KESTREL_PAGE_EXEC});
}

// The hardware faults every access in the 64 KiB below the shared window
// (docs/isa.md section 4), so no image byte may lie there.
TEST(StaticModuleImageTest, RejectsASharedWindowWithoutItsGuard) {
  std::vector<uint8_t> bytes = static_fixture();
  const uint32_t size =
      symbol_value(bytes, "__kestrel_shared_end") - symbol_value(bytes, "__kestrel_shared_start");
  const uint32_t start =
      symbol_value(bytes, "__kestrel_shared_start") - KESTREL_SHARED_GUARD + KESTREL_PAGE_SIZE;
  poke<uint32_t>(bytes, symbol_entry(bytes, "__kestrel_shared_start") + 4, start);
  poke<uint32_t>(bytes, symbol_entry(bytes, "__kestrel_shared_end") + 4, start + size);
  EXPECT_NE(parse_error(bytes, 32).find("shared window"), std::string::npos) << parse_error(bytes, 32);
}

TEST(StaticModuleImageTest, RelocatesExactlyTheWordsHoldingModuleAddresses) {
  const std::vector<uint8_t> bytes = static_fixture();
  const ModuleImage image = parse_module(bytes.data(), bytes.size(), 32);
  const uint32_t code = symbol_value(bytes, "absolute_addresses");
  const uint32_t words = symbol_value(bytes, "address_words");
  const uint32_t counter = symbol_value(bytes, "counter");
  // The 4 descriptors' 3 pointers, `lui a0, %hi(counter)` and the word
  // holding &counter.  Not: the LO12 immediates, the luis of the weak and the
  // absolute symbol, the call, the words holding those two, the label
  // difference.
  std::vector<uint64_t> expected = {code, words};
  const uint64_t descriptors = find_section(bytes, ".kestrel.kernels").addr;
  for (uint64_t d = 0; d < 4; ++d)
    for (uint64_t field = 0; field < 3; ++field) expected.push_back(descriptors + d * 28 + 16 + field * 4);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(image.relocations, expected);

  // Loading at base B adds B to each of those little-endian words: the lui's
  // U-immediate gains B >> 12 and, with the unchanged addi, forms counter + B.
  const uint32_t base = 0x10023000;
  const uint32_t lui = peek<uint32_t>(image.bytes, code) + base;
  const uint32_t addi = peek<uint32_t>(image.bytes, code + 4);
  EXPECT_EQ(lui & 0xFFF, peek<uint32_t>(image.bytes, code) & 0xFFF);  // rd and opcode kept
  const uint32_t formed = (lui & 0xFFFFF000u) + static_cast<uint32_t>(static_cast<int32_t>(addi) >> 20);
  EXPECT_EQ(formed, counter + base);
  EXPECT_EQ(peek<uint32_t>(image.bytes, words), counter);
  EXPECT_EQ(peek<uint32_t>(image.bytes, words + 4), 0x12345000u);  // absolute: never moves
  EXPECT_EQ(peek<uint32_t>(image.bytes, words + 8), 0u);           // undefined weak: stays null
}

TEST(StaticModuleImageTest, RejectsRelocationKindsTheLoaderCannotApply) {
  const std::vector<uint8_t> good = static_fixture();
  const KeptRelocation hi20 = find_relocation(good, ".rela.text", R_RISCV_HI20);
  const std::vector<std::pair<uint32_t, std::string>> kinds = {
      {R_RISCV_GOT_HI20, "R_RISCV_GOT_HI20"},     {R_RISCV_TLS_GD_HI20, "R_RISCV_TLS_GD_HI20"},
      {R_RISCV_TPREL_HI20, "R_RISCV_TPREL_HI20"}, {R_RISCV_64, "R_RISCV_64"},
      {R_RISCV_RELATIVE, "R_RISCV_RELATIVE"},     {R_RISCV_RVC_LUI, "R_RISCV_RVC_LUI"},
      {R_RISCV_GPREL_I, "R_RISCV_GPREL_I"},       {R_RISCV_IRELATIVE, "R_RISCV_IRELATIVE"},
      {R_RISCV_SET32, "R_RISCV_SET32"},           {200, "relocation type (200)"}};
  for (const auto& [type, name] : kinds) {
    std::vector<uint8_t> bytes = good;
    set_type(bytes, hi20, type);
    const std::string message = parse_error(bytes, 32);
    EXPECT_NE(message.find(name), std::string::npos) << message;
    EXPECT_NE(message.find("may only keep"), std::string::npos) << message;
  }
}

TEST(StaticModuleImageTest, RejectsHi20AwayFromALuiAndRelocationsOutsideTheirSection) {
  const std::vector<uint8_t> good = static_fixture();
  const KeptRelocation hi20 = find_relocation(good, ".rela.text", R_RISCV_HI20);
  std::vector<uint8_t> bytes = good;
  poke<uint32_t>(bytes, hi20.entry_at, hi20.offset + 4);  // onto the addi
  EXPECT_NE(parse_error(bytes, 32).find("lui"), std::string::npos);

  bytes = good;  // a data relocation patching past the end of .data
  const KeptRelocation word = find_relocation(good, ".rela.data", R_RISCV_32);
  poke<uint32_t>(bytes, word.entry_at, 0x100000);
  EXPECT_NE(parse_error(bytes, 32).find("patches outside"), std::string::npos);

  bytes = good;  // into the zero-filled part of the data segment: no contents to patch
  const testing::SectionView data = find_section(good, ".data");
  poke<uint32_t>(bytes, word.entry_at, static_cast<uint32_t>(data.addr + data.size + 0x100));
  EXPECT_NE(parse_error(bytes, 32).find("patches outside"), std::string::npos);
}

TEST(StaticModuleImageTest, RejectsPcRelativeReferencesToFixedAddresses) {
  const std::vector<uint8_t> good = static_fixture();
  const KeptRelocation call = find_relocation(good, ".rela.text", R_RISCV_CALL);
  const uint32_t code = symbol_value(good, "absolute_addresses");
  // The luis at code + 12 and code + 20 name the weak and the absolute symbol.
  for (const uint32_t lui_at : {code + 12, code + 20}) {
    const KeptRelocation fixed = find_relocation(good, ".rela.text", R_RISCV_HI20, lui_at);
    std::vector<uint8_t> bytes = good;
    set_symbol(bytes, call, fixed.symbol);
    EXPECT_NE(parse_error(bytes, 32).find("PC-relative to the fixed address"), std::string::npos);
  }
}

TEST(StaticModuleImageTest, RejectsBadSymbols) {
  const std::vector<uint8_t> good = static_fixture();
  const KeptRelocation word = find_relocation(good, ".rela.data", R_RISCV_32);
  std::vector<uint8_t> bytes = good;
  set_symbol(bytes, word, 0xFFFFFF);
  EXPECT_NE(parse_error(bytes, 32).find("past the end"), std::string::npos);

  bytes = good;  // the weak reference made a strong one: an undefined symbol
  const uint64_t hook = symbol_entry(good, "optional_hook");
  poke<uint8_t>(bytes, hook + 12, ELF32_ST_INFO(STB_GLOBAL, STT_NOTYPE));
  EXPECT_NE(parse_error(bytes, 32).find("undefined symbol 'optional_hook'"), std::string::npos);

  bytes = good;  // counter moved far beyond the module
  const uint64_t counter = symbol_entry(good, "counter");
  poke<uint32_t>(bytes, counter + 4, 0x40000000);
  EXPECT_NE(parse_error(bytes, 32).find("outside the module"), std::string::npos);

  bytes = good;  // counter defined in a section that is not loaded
  poke<uint16_t>(bytes, counter + 14, 0xFFF0);
  EXPECT_NE(parse_error(bytes, 32).find("special section"), std::string::npos);
}

TEST(StaticModuleImageTest, RejectsFieldsThatWouldNotMoveByExactlyTheBase) {
  const std::vector<uint8_t> good = static_fixture();
  const KeptRelocation sub = find_relocation(good, ".rela.data", R_RISCV_SUB32);
  std::vector<uint8_t> bytes = good;  // ADD32 + ADD32 of module labels: twice the base
  set_type(bytes, sub, R_RISCV_ADD32);
  EXPECT_NE(parse_error(bytes, 32).find("2 times the load address"), std::string::npos);

  bytes = good;  // ADD16 + SUB32: one field patched with two widths
  set_type(bytes, find_relocation(good, ".rela.data", R_RISCV_ADD32), R_RISCV_ADD16);
  EXPECT_NE(parse_error(bytes, 32).find("patches differently"), std::string::npos);

  bytes = good;  // ADD16 + SUB16 stay legal while they cancel; ADD16 alone would move 2 bytes
  set_type(bytes, sub, R_RISCV_SUB16);
  set_type(bytes, find_relocation(good, ".rela.data", R_RISCV_ADD32), R_RISCV_ADD16);
  EXPECT_NO_THROW(parse_module(bytes.data(), bytes.size(), 32));
  set_type(bytes, sub, R_RISCV_NONE);
  EXPECT_NE(parse_error(bytes, 32).find("2-byte field"), std::string::npos);

  bytes = good;  // a second lui relocation on the same instruction
  const uint32_t code = symbol_value(good, "absolute_addresses");
  const KeptRelocation weak_lui = find_relocation(good, ".rela.text", R_RISCV_HI20, code + 12);
  const KeptRelocation counter_lui = find_relocation(good, ".rela.text", R_RISCV_HI20, code);
  poke<uint32_t>(bytes, weak_lui.entry_at, code);
  set_symbol(bytes, weak_lui, counter_lui.symbol);
  EXPECT_NE(parse_error(bytes, 32).find("2 times the load address"), std::string::npos);

  bytes = good;  // two address words sharing bytes would each add the base to them
  const KeptRelocation first_word = find_relocation(good, ".rela.data", R_RISCV_32);
  const KeptRelocation absolute_word = kept_relocations(good, ".rela.data").at(1);
  poke<uint32_t>(bytes, absolute_word.entry_at, first_word.offset + 1);  // holds a small value
  set_symbol(bytes, absolute_word, first_word.symbol);
  EXPECT_NE(parse_error(bytes, 32).find("overlapping"), std::string::npos);
}

TEST(StaticModuleImageTest, RejectsDescriptorPointersWithoutRelocation) {
  const std::vector<uint8_t> good = static_fixture();
  for (size_t field = 0; field < 3; ++field) {
    std::vector<uint8_t> bytes = good;
    set_type(bytes, kept_relocations(good, ".rela.kestrel.kernels").at(field), R_RISCV_NONE);
    EXPECT_NE(parse_error(bytes, 32).find("no relocation covers"), std::string::npos) << field;
  }
}

// Rewrites the section header field at `field_offset` (within Elf32_Shdr) of
// the section named `name`.
void poke_section_header(std::vector<uint8_t>& elf, const std::string& name, uint64_t field_offset,
                         uint32_t value) {
  const uint32_t shoff = peek<uint32_t>(elf, 32);
  const uint16_t shnum = peek<uint16_t>(elf, 48), shstrndx = peek<uint16_t>(elf, 50);
  const uint32_t names = peek<uint32_t>(elf, shoff + shstrndx * sizeof(Elf32_Shdr) + 16);
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t at = shoff + i * sizeof(Elf32_Shdr);
    if (name == reinterpret_cast<const char*>(elf.data() + names + peek<uint32_t>(elf, at))) {
      poke<uint32_t>(elf, at + field_offset, value);
      return;
    }
  }
  throw std::runtime_error("fixture has no section " + name);
}

TEST(StaticModuleImageTest, AcceptsOnlyTheStaticFormOfEtExec) {
  const std::vector<uint8_t> good = static_fixture();
  std::vector<uint8_t> bytes = good;  // a relocation table for no section is a dynamic one
  poke_section_header(bytes, ".rela.text", offsetof(Elf32_Shdr, sh_info), 0);
  EXPECT_NE(parse_error(bytes, 32).find("patches no section"), std::string::npos);

  bytes = good;  // a GOT, PLT or dynamic section holds addresses no kept relocation describes
  poke_section_header(bytes, ".data", offsetof(Elf32_Shdr, sh_type), SHT_DYNAMIC);
  EXPECT_NE(parse_error(bytes, 32).find("whose link-time addresses"), std::string::npos);

  bytes = good;  // linked without --emit-relocs
  for (const char* rela : {".rela.text", ".rela.data", ".rela.kestrel.kernels"})
    poke_section_header(bytes, rela, offsetof(Elf32_Shdr, sh_type), SHT_PROGBITS);
  EXPECT_NE(parse_error(bytes, 32).find("--emit-relocs"), std::string::npos);

  bytes = good;  // REL relocations are not what lld keeps
  poke_section_header(bytes, ".rela.data", offsetof(Elf32_Shdr, sh_type), SHT_REL);
  EXPECT_NE(parse_error(bytes, 32).find("REL section"), std::string::npos);

  bytes = good;  // linked above 0: its first page would not be the base
  // (the text segment moved past the data segment, which the fixture's
  // linker stretched over the shared window's guard and the window)
  const uint32_t phoff = peek<uint32_t>(good, 28);
  poke<uint32_t>(bytes, phoff + offsetof(Elf32_Phdr, p_vaddr), 0x80000);
  EXPECT_NE(parse_error(bytes, 32).find("base 0"), std::string::npos) << parse_error(bytes, 32);

  bytes = good;  // the class decides: an ELF32 file is never an RV64 module
  EXPECT_NE(parse_error(bytes, 64).find("ELF class"), std::string::npos);
}

// A section of type SHT_NULL has no contents whatever its sh_offset and
// sh_size say: the descriptor table read from one would be read from outside
// the file.  (Found by tests/fuzz, fuzz_module_image: UBSan's pointer
// overflow in read_kernels.)
TEST(StaticModuleImageTest, RejectsADescriptorTableWithoutContents) {
  std::vector<uint8_t> bytes = static_fixture();
  poke_section_header(bytes, ".kestrel.kernels", offsetof(Elf32_Shdr, sh_type), SHT_NULL);
  poke_section_header(bytes, ".kestrel.kernels", offsetof(Elf32_Shdr, sh_flags), 0);
  poke_section_header(bytes, ".kestrel.kernels", offsetof(Elf32_Shdr, sh_offset), 0xFFFF0000u);
  EXPECT_NE(parse_error(bytes, 32).find(".kestrel.kernels has no contents"), std::string::npos)
      << parse_error(bytes, 32);
}

// libelf hands over a compressed section (SHF_COMPRESSED) as a compression
// header and packed bytes; a table the loader reads must be refused by name,
// not read as entries (found by corrupting the flags: libelf's "invalid Elf
// handle" for the symbol table).
TEST(StaticModuleImageTest, RejectsACompressedTableItReads) {
  for (const char* name : {".symtab", ".strtab", ".rela.text", ".text"}) {
    std::vector<uint8_t> bytes = static_fixture();
    const uint32_t flags = std::string(name) == ".text"        ? SHF_ALLOC | SHF_EXECINSTR
                           : std::string(name) == ".rela.text" ? SHF_INFO_LINK
                                                               : 0;
    poke_section_header(bytes, name, offsetof(Elf32_Shdr, sh_flags), flags | SHF_COMPRESSED);
    const std::string message = parse_error(bytes, 32);
    EXPECT_NE(message.find("is compressed (SHF_COMPRESSED)"), std::string::npos) << name << ": " << message;
  }
}

TEST(StaticModuleImageTest, RandomCorruptionNeverCrashes) {
  const std::vector<uint8_t> good = static_fixture();
  std::mt19937 random(4321);
  int rejected = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bytes = good;
    const int flips = 1 + static_cast<int>(random() % 8);
    for (int i = 0; i < flips; ++i) {
      // Half the flips land in the relocation tables, the part under test.
      const testing::SectionView rela = find_section(good, random() % 2 ? ".rela.text" : ".rela.data");
      const uint64_t at = random() % 2 ? rela.offset + random() % rela.size : random() % bytes.size();
      bytes[at] ^= static_cast<uint8_t>(1u << (random() % 8));
    }
    try {
      parse_module(bytes.data(), bytes.size(), 32);
    } catch (const Error& e) {
      ASSERT_EQ(e.status(), KESTREL_ERROR_INVALID_MODULE) << e.what();
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 100);
}

INSTANTIATE_TEST_SUITE_P(Xlen, ModuleImageTest, ::testing::Values(64u, 32u),
                         [](const ::testing::TestParamInfo<unsigned>& param) {
                           return "RV" + std::to_string(param.param);
                         });

}  // namespace
}  // namespace kestrel::runtime
