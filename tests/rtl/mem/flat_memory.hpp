// A line-addressed memory for the memory-side benches (the L2 and the SM
// caches): untouched lines hold deterministic bytes of their address.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>

namespace kestrel::rtlbench {

using Line = std::array<uint8_t, 64>;

// Deterministic initial contents of the line at `addr`.
inline Line initial_line(uint32_t addr) {
  Line line;
  uint32_t x = addr * 2654435761u + 12345u;
  for (auto& byte : line) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    byte = static_cast<uint8_t>(x);
  }
  return line;
}

class FlatMemory {
 public:
  Line& at(uint32_t addr) {
    auto it = lines_.find(addr);
    if (it == lines_.end()) it = lines_.emplace(addr, initial_line(addr)).first;
    return it->second;
  }
  // Writes the bytes `be` selects.
  void write(uint32_t addr, uint64_t be, const uint8_t* wdata) {
    Line& line = at(addr);
    for (unsigned i = 0; i < 64; ++i)
      if ((be >> i) & 1u) line[i] = wdata[i];
  }

 private:
  std::unordered_map<uint32_t, Line> lines_;
};

}  // namespace kestrel::rtlbench
