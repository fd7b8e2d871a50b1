// Helpers shared by the runtime tests: fixture modules and ELF surgery for
// crafting bad modules out of good ones.
#pragma once

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace kestrel::testing {

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

inline std::vector<uint8_t> fixture_module(unsigned xlen) {
  return read_file(xlen == 64 ? KESTREL_TEST_FIXTURE64 : KESTREL_TEST_FIXTURE32);
}

// Minimal section lookup on the (trusted) fixture files, ELF32 or ELF64.
struct SectionView {
  uint64_t offset = 0, size = 0, addr = 0;
};

inline bool is_elf64(const std::vector<uint8_t>& elf) { return elf.at(EI_CLASS) == ELFCLASS64; }

inline SectionView find_section(const std::vector<uint8_t>& elf, const std::string& name) {
  auto field = [&](uint64_t at, unsigned width) {
    uint64_t v = 0;
    std::memcpy(&v, elf.data() + at, width);
    return v;
  };
  const bool wide = is_elf64(elf);
  const unsigned w = wide ? 8 : 4;
  const uint64_t shoff = field(24 + 2 * w, w);
  const uint64_t after = 24 + 3 * w;
  const uint64_t shentsize = field(after + 10, 2), shnum = field(after + 12, 2),
                 shstrndx = field(after + 14, 2);
  auto section = [&](uint64_t i) {
    const uint64_t at = shoff + i * shentsize;
    return std::make_pair(
        at, SectionView{field(at + 8 + 2 * w, w), field(at + 8 + 3 * w, w), field(at + 8 + w, w)});
  };
  const SectionView names = section(shstrndx).second;
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t name_offset = field(section(i).first, 4);
    if (name == reinterpret_cast<const char*>(elf.data() + names.offset + name_offset))
      return section(i).second;
  }
  throw std::runtime_error("fixture has no section " + name);
}

template <typename T>
void poke(std::vector<uint8_t>& bytes, uint64_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

template <typename T>
T peek(const std::vector<uint8_t>& bytes, uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

}  // namespace kestrel::testing
