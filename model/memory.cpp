#include "memory.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "kestrel/error.hpp"

namespace kestrel::model {

void DeviceMemory::FreeDeleter::operator()(uint8_t* p) const {
  if (owned) std::free(p);
}

DeviceMemory::DeviceMemory(uint64_t bytes, unsigned xlen, uint8_t* external)
    : bytes_(bytes), xlen_(xlen), dram_(nullptr, FreeDeleter{external == nullptr}) {
  if (bytes == 0 || bytes % KESTREL_PAGE_SIZE != 0 ||
      bytes > uint64_t{KESTREL_GLOBAL_LIMIT} - KESTREL_GLOBAL_BASE) {
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                "model: DRAM size " + std::to_string(bytes) +
                    " must be a non-zero multiple of 4 KiB that fits below KESTREL_GLOBAL_LIMIT");
  }
  // calloc: large blocks come from the OS already zero and are touched lazily.
  dram_.reset(external != nullptr ? external : static_cast<uint8_t*>(std::calloc(bytes, 1)));
  if (!dram_) throw Error(KESTREL_ERROR_OUT_OF_MEMORY, "model: cannot allocate device DRAM");
  perms_.assign(bytes >> KESTREL_PAGE_SHIFT, 0);
  decoded_.resize(bytes >> KESTREL_PAGE_SHIFT);
}

void DeviceMemory::write(uint64_t addr, const void* src, size_t bytes) {
  if (!contains(addr, bytes)) throw Error(KESTREL_ERROR_INVALID_VALUE, "model: write outside device DRAM");
  if (bytes == 0) return;
  const uint64_t offset = addr - KESTREL_GLOBAL_BASE;
  std::memcpy(dram_.get() + offset, src, bytes);
  drop_decoded(offset >> KESTREL_PAGE_SHIFT,
               ((offset + bytes - 1) >> KESTREL_PAGE_SHIFT) - (offset >> KESTREL_PAGE_SHIFT) + 1);
}

void DeviceMemory::read(uint64_t addr, void* dst, size_t bytes) const {
  if (!contains(addr, bytes)) throw Error(KESTREL_ERROR_INVALID_VALUE, "model: read outside device DRAM");
  if (bytes == 0) return;
  std::memcpy(dst, dram_.get() + (addr - KESTREL_GLOBAL_BASE), bytes);
}

void DeviceMemory::map(uint64_t addr, uint64_t pages, uint32_t perms) {
  if (addr % KESTREL_PAGE_SIZE != 0)
    throw Error(KESTREL_ERROR_INVALID_VALUE, "model: map address not page aligned");
  if (pages > bytes_ / KESTREL_PAGE_SIZE || !contains(addr, pages * KESTREL_PAGE_SIZE)) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, "model: mapped range outside device DRAM");
  }
  if ((perms & ~(KESTREL_PAGE_READ | KESTREL_PAGE_WRITE | KESTREL_PAGE_EXEC)) != 0) {
    throw Error(KESTREL_ERROR_INVALID_VALUE, "model: unknown page permission bits");
  }
  const uint64_t first = (addr - KESTREL_GLOBAL_BASE) >> KESTREL_PAGE_SHIFT;
  for (uint64_t p = first; p < first + pages; ++p) perms_[p] = static_cast<uint8_t>(perms);
  drop_decoded(first, pages);  // a page that lost X must fault on its next fetch
}

uint32_t DeviceMemory::perms(uint64_t addr) const {
  if (!contains(addr, 1)) return 0;
  return perms_[(addr - KESTREL_GLOBAL_BASE) >> KESTREL_PAGE_SHIFT];
}

DecodedPage* DeviceMemory::decode_page(uint64_t page) {
  if ((perms_[page] & KESTREL_PAGE_EXEC) == 0) return nullptr;
  auto decoded = std::make_unique<DecodedPage>();
  const uint8_t* words = dram_.get() + (page << KESTREL_PAGE_SHIFT);
  for (uint32_t i = 0; i < kInstsPerPage; ++i) {
    uint32_t word;
    std::memcpy(&word, words + 4 * i, 4);
    decoded->insts[i] = decode(word, xlen_);
  }
  decoded_[page] = std::move(decoded);
  return decoded_[page].get();
}

void DeviceMemory::drop_decoded(uint64_t first_page, uint64_t pages) {
  for (uint64_t p = first_page; p < first_page + pages && p < decoded_.size(); ++p) decoded_[p].reset();
}

}  // namespace kestrel::model
