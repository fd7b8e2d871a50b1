// The ELF layer of the device-module reader (module_image.cpp): libelf's
// set-up, bounds-checked little-endian reads of section contents and of the
// loaded image, and the rules for the relocations an RV32 static module
// keeps.  Headers, sections, symbols and relocations are read with elfutils'
// libelf (gelf_*).  Private to the kestrel::module_image library, the
// runtime and kestrel-cc (its stack-need analysis reads linked modules).
#pragma once

#include <elf.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "kestrel/error.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the module parser assumes a little-endian host");

namespace kestrel::runtime::elf {

// Bounds for things a legitimate module never approaches; they keep a hostile
// header from making the loader allocate or loop without limit.
inline constexpr uint64_t kMaxImageBytes = 256ull << 20;
inline constexpr uint32_t kMaxParamBytes = 4096;  // guide B.1.4
// A kernel within CUDA's 4096 parameter bytes can have 4096 one-byte
// parameters, whose mangled name runs to about 16 KiB.
inline constexpr size_t kMaxNameBytes = 64 * 1024;

// Sets libelf's version once per process (thread-safe); false when the
// library cannot work with this header's version.
bool libelf_ready();

[[noreturn]] inline void invalid(const std::string& why) {
  throw Error(KESTREL_ERROR_INVALID_MODULE, "invalid module: " + why);
}

inline std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

// "R_RISCV_HI20 (26)": the name where messages need one, else the number.
std::string relocation_name(uint32_t type);

inline bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// True when [offset, offset + length) lies inside [0, limit).
inline bool range_within(uint64_t offset, uint64_t length, uint64_t limit) {
  return offset <= limit && length <= limit - offset;
}

// A read-only byte span with checked little-endian loads: section contents
// and the loaded image (kernel descriptors, names), which are Kestrel's own
// formats rather than ELF structures.
class Bytes {
 public:
  Bytes(const uint8_t* data, uint64_t size) : data_(data), size_(size) {}
  uint64_t size() const { return size_; }
  const uint8_t* data() const { return data_; }

  uint64_t load(uint64_t offset, unsigned width, const char* what) const {
    if (!range_within(offset, width, size_))
      invalid(std::string(what) + " at " + hex(offset) + " is past the end");
    uint64_t value = 0;
    std::memcpy(&value, data_ + offset, width);  // little endian on both sides
    return value;
  }
  uint32_t u32(uint64_t offset, const char* what) const {
    return static_cast<uint32_t>(load(offset, 4, what));
  }
  uint16_t u16(uint64_t offset, const char* what) const {
    return static_cast<uint16_t>(load(offset, 2, what));
  }
  uint8_t u8(uint64_t offset, const char* what) const { return static_cast<uint8_t>(load(offset, 1, what)); }

  // NUL-terminated string starting at offset; it must end inside the span.
  std::string string(uint64_t offset, const char* what) const {
    if (offset >= size_) invalid(std::string(what) + " starts past the end");
    const uint64_t room = std::min<uint64_t>(size_ - offset, kMaxNameBytes + 1);
    const void* nul = std::memchr(data_ + offset, 0, room);
    if (nul == nullptr) invalid(std::string(what) + " at " + hex(offset) + " is not NUL-terminated");
    return std::string(reinterpret_cast<const char*>(data_ + offset));
  }

 private:
  const uint8_t* data_;
  uint64_t size_;
};

// What a kept relocation needs when the image moves from 0 to a base B,
// a multiple of the page size.
enum class KeptEffect {
  none,         // markers (NONE, RELAX, ALIGN) and low 12 bits, which B leaves alone
  pc_relative,  // unchanged if the target moves with the code
  upper20,      // HI20: lui's U-immediate gains B >> 12 if the target moves
  add,          // the field gains B if the symbol moves (R_RISCV_32, ADDn)
  subtract,     // the field loses B if the symbol moves (SUBn)
};
struct KeptType {
  KeptEffect effect;
  unsigned width;  // bytes the relocation patches
};

// The kept relocations an RV32 static module (ET_EXEC, --emit-relocs) may
// hold, and what each needs when the image moves; nullopt for every other
// type (GOT, TLS, absolute 64-bit, ...), which the loader refuses.  The one
// statement of these rules: the loader applies them and kestrel-cc checks
// its output with the loader's parser.
std::optional<KeptType> kept_type(uint32_t type);

}  // namespace kestrel::runtime::elf
