// C++ reference of an atomic read-modify-write on a memory line, for the
// benches of the LSU's shared-memory banks, the memory-side atomic unit and
// the SM harness's memory (docs/isa.md sections 1 and 2.2), with the
// functional model's arithmetic (model/amo.hpp: the benches that
// include this link kestrel::model and see model/).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>

#include "amo.hpp"
#include "kestrel_contract.hpp"

namespace kestrel::rtlbench {

// The functional model's arithmetic (model/amo.hpp), so that the
// benches and the model cannot disagree on what an atomic leaves.
using model::amo_result;
using model::amo_writes;

// LR and SC's funct5 (A extension; kestrel_pkg's AmoLr/AmoSc from the generated
// contract), which the reference memories treat apart.
enum LrScOp : unsigned { kAmoLr = contract::kAmoLr, kAmoSc = contract::kAmoSc };

// Performs one atomic on a 64-byte line: the word is the bytes `be` marks
// (4 or 8 of them, naturally aligned), the operand sits at the same place in
// `wdata`; `compare` is a CAS's compare value (its low half for a word).
// Returns whether the atomic wrote (false only for a failed CAS).
inline bool amo_on_line(unsigned op, const uint8_t be[8], const uint8_t* wdata, uint8_t* line,
                        uint64_t compare = 0) {
  unsigned first = 64, count = 0;
  for (unsigned b = 0; b < 64; ++b) {
    if ((be[b / 8] >> (b % 8)) & 1) {
      if (first == 64) first = b;
      ++count;
    }
  }
  if (first == 64) return false;
  if (count == 8) {
    uint64_t old, operand;
    std::memcpy(&old, line + first, 8);
    std::memcpy(&operand, wdata + first, 8);
    const uint64_t next = amo_result<uint64_t>(op, old, operand, compare);
    std::memcpy(line + first, &next, 8);
    return amo_writes<uint64_t>(op, old, compare);
  }
  {
    uint32_t old, operand;
    std::memcpy(&old, line + first, 4);
    std::memcpy(&operand, wdata + first, 4);
    const uint32_t next = amo_result<uint32_t>(op, old, operand, static_cast<uint32_t>(compare));
    std::memcpy(line + first, &next, 4);
    return amo_writes<uint32_t>(op, old, static_cast<uint32_t>(compare));
  }
}

// LR/SC reservations as kestrel_mem_atomic keeps them: one per thread, on the
// bytes (a naturally aligned word or doubleword) an LR's byte enables mark in
// a line; every write ends the reservations on bytes it writes; an SC
// succeeds only with `held` and its thread's reservation on exactly its bytes,
// and always ends that reservation (docs/isa.md section 1).
class LineReservations {
 public:
  static uint64_t mask_of(const uint8_t be[8]) {
    uint64_t m = 0;
    for (unsigned b = 0; b < 8; ++b) m |= uint64_t{be[b]} << (8 * b);
    return m;
  }
  void clear() { res_.clear(); }
  void lr(uint32_t thread, uint32_t line, const uint8_t be[8]) { res_[thread] = Entry{line, mask_of(be)}; }
  bool sc(uint32_t thread, bool held, uint32_t line, const uint8_t be[8]) {
    auto it = res_.find(thread);
    const bool ok = held && it != res_.end() && it->second.line == line && it->second.mask == mask_of(be);
    if (it != res_.end()) res_.erase(it);
    return ok;
  }
  void write(uint32_t line, const uint8_t be[8]) {
    const uint64_t m = mask_of(be);
    for (auto it = res_.begin(); it != res_.end();) {
      if (it->second.line == line && (it->second.mask & m) != 0)
        it = res_.erase(it);
      else
        ++it;
    }
  }

 private:
  struct Entry {
    uint32_t line;
    uint64_t mask;
  };
  std::map<uint32_t, Entry> res_;
};

}  // namespace kestrel::rtlbench
