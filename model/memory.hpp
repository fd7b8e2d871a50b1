// Device DRAM, its 4 KiB page table and the pre-decoded instruction pages.
// DRAM is one flat host array, so a global access is a subtraction, a
// page-permission byte lookup and a host pointer: no maps on the hot path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "decode.hpp"
#include "kestrel/abi.h"

namespace kestrel::model {

constexpr uint32_t kInstsPerPage = KESTREL_PAGE_SIZE / 4;

struct DecodedPage {
  Inst insts[kInstsPerPage];
};

class DeviceMemory {
 public:
  // `external`: not null for DRAM the caller owns (Config::dram).
  DeviceMemory(uint64_t bytes, unsigned xlen, uint8_t* external = nullptr);

  uint64_t size() const { return bytes_; }
  uint8_t* dram() { return dram_.get(); }

  // True if [addr, addr + bytes) lies inside DRAM (device addresses).
  bool contains(uint64_t addr, uint64_t bytes) const {
    return addr >= KESTREL_GLOBAL_BASE && addr - KESTREL_GLOBAL_BASE <= bytes_ &&
           bytes <= bytes_ - (addr - KESTREL_GLOBAL_BASE);
  }

  // Host access, bypassing the permissions; throws kestrel::Error outside DRAM.
  void write(uint64_t addr, const void* src, size_t bytes);
  void read(uint64_t addr, void* dst, size_t bytes) const;
  void map(uint64_t addr, uint64_t pages, uint32_t perms);
  uint32_t perms(uint64_t addr) const;

  // Page permission byte of a DRAM offset (offset < size()).
  uint8_t page_perms_at(uint32_t offset) const { return perms_[offset >> KESTREL_PAGE_SHIFT]; }

  // A store to a page that has decoded instructions drops them (code written
  // by a kernel, which only a R+W+X mapping allows).
  void note_store(uint32_t offset) {
    if (decoded_[offset >> KESTREL_PAGE_SHIFT]) decoded_[offset >> KESTREL_PAGE_SHIFT].reset();
  }

  // The decoded instruction at pc, or nullptr when pc may not be fetched
  // (outside DRAM, misaligned, page not executable).
  const Inst* fetch(uint64_t pc) {
    const uint64_t offset = pc - KESTREL_GLOBAL_BASE;
    if (offset >= bytes_ || (pc & 3) != 0) return nullptr;
    const uint64_t page = offset >> KESTREL_PAGE_SHIFT;
    DecodedPage* decoded = decoded_[page].get();
    if (decoded == nullptr) {
      decoded = decode_page(page);
      if (decoded == nullptr) return nullptr;
    }
    return &decoded->insts[(offset & (KESTREL_PAGE_SIZE - 1)) >> 2];
  }

  // Decoded instructions of every page go: DRAM others write may hold new
  // code (Config::dram).
  void drop_all_decoded() { drop_decoded(0, decoded_.size()); }

 private:
  DecodedPage* decode_page(uint64_t page);
  void drop_decoded(uint64_t first_page, uint64_t pages);

  struct FreeDeleter {
    bool owned = true;
    void operator()(uint8_t* p) const;
  };
  uint64_t bytes_;
  unsigned xlen_;
  std::unique_ptr<uint8_t[], FreeDeleter> dram_;
  std::vector<uint8_t> perms_;
  std::vector<std::unique_ptr<DecodedPage>> decoded_;
};

}  // namespace kestrel::model
