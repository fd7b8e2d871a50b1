// Float <-> bit pattern helpers for tests that need no model.
#pragma once

#include <cstdint>
#include <cstring>

namespace kestrel::model::test {

inline uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline float flt(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

}  // namespace kestrel::model::test
