// AtomicChains: proves that the global atomics a GPU-level lock-step run saw
// are linearizable, without knowing the order the RTL performed them in.
//
// The RTL performs global atomics at the memory side (kestrel_mem_atomic) in
// the order their requests arrive from all SMs; the functional model steps
// warps in retire order and so cannot reproduce that order.  In GPU lock-step
// the model takes each atomic's old value from the RTL's retire record
// (model::AtomicOracle) and reports every global atomic and store it performs
// (model::GlobalAccess).  For each word the RTL's atomics read, this class
// collects the transitions old -> new = op(old, operand) (the model computes
// `new` itself, so a wrong operation shows), and at the end of the launch
// checks that one order of them exists in which each atomic read what its
// predecessor left, starting from the word's value before the first atomic
// and ending at the RTL's final value in DRAM:
//
// * an observed atomic (its old value came from the RTL) is an edge
//   old -> new of a multigraph on values; a failed CAS or an LR an edge
//   old -> old (it saw `old` at some point); a successful SC an edge from the
//   value its LR read;
// * a store, or a swap whose result is discarded (rd = x0), writes a value
//   regardless of what was there: a jump to that value from anywhere;
// * such an order is a trail from the first value to the final value that
//   uses every edge once and jumps at the jumps: it exists exactly when the
//   degrees balance (with the jumps' sources, which the degrees determine)
//   and everything is connected (Euler's theorem for directed multigraphs).
//
// A lost update (two atomics read the same value), a duplicated or invented
// old value, a wrong operation or a final value no order explains breaks the
// balance or the connection.  What it cannot see: the order of one thread's
// accesses (the check is per word, not across words or program order), and
// the old values of atomics whose result is discarded (rd = x0), which the
// RTL does not report: a word with only such atomics is not followed (the
// model computes it alone, exactly, as before), and a word where an
// order-dependent one (add, CAS, inc, ...) mixes with observed atomics cannot
// be checked and is reported as such.  Words no atomic read are not followed
// at all.  A plain load the Checker could not match (it saw a raced word
// before the model stepped the atomic that wrote it) is an edge value ->
// value (observe()): the word must have held that value at some point,
// though not necessarily when the load read it; a narrower load of a part of
// a followed word (RV32 reads 64-bit values as two halves; clang's byte and
// halfword CAS loops read their byte before the LR) must see that part of one
// of the word's values.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kestrel/model/gpu.hpp"

namespace kestrel::lockstep {

class AtomicChains {
 public:
  // The global accesses of one model step, in the model's (retire) order.
  void add(const std::vector<model::GlobalAccess>& accesses);
  void add(const model::GlobalAccess& access);

  // End of a launch without fault: every followed word must chain from its
  // first value to `final_value(addr, bytes)`, the RTL's value in DRAM.
  // False on the first word that does not (see error()).
  bool check(const std::function<uint64_t(uint64_t addr, unsigned bytes)>& final_value);
  // A plain load saw `value` in a followed word (one an atomic with an RTL
  // value works on, same size): the word must have held it at some point of
  // the order, which check() then proves (an edge value -> value).  A
  // narrower load of a part of a followed word (a 4-byte half of a
  // doubleword, a byte or halfword of either) must see that part of one of
  // the word's values.  False when no followed word of that address and size
  // (or word around it) exists.
  bool observe(uint64_t addr, unsigned bytes, uint64_t value);

  // Words followed (at least one atomic read a value the RTL reported), with
  // their size: after a successful check the model takes the RTL's final
  // value of these.
  std::vector<std::pair<uint64_t, unsigned>> followed_words() const;
  uint64_t observed() const { return observed_; }  // atomics, LRs and SCs whose RTL values were used
  const std::string& error() const { return error_; }
  void clear();

 private:
  struct Word {
    unsigned bytes = 0;
    uint64_t first = 0;                                // the model's value before the first atomic
    std::vector<std::pair<uint64_t, uint64_t>> edges;  // observed transitions
    std::vector<uint64_t> jumps;                       // values written regardless of the old value
    bool observed = false;
    uint64_t blind = 0;  // order-dependent atomics whose old value the RTL did not report
    std::string unfollowable;
  };
  struct Part {      // a narrower load's view of a followed word
    uint64_t addr;   // the word
    unsigned shift;  // bit offset of the part in the word
    unsigned bytes;  // the load's width
    uint64_t value;
  };
  bool check_part(const Part& part, const Word& word, uint64_t final_value);
  bool check_word(uint64_t addr, const Word& word, uint64_t final_value);
  Word* word_for_atomic(const model::GlobalAccess& a);

  std::map<uint64_t, Word> words_;  // by address
  std::vector<Part> parts_;
  uint64_t observed_ = 0;
  std::string error_;
};

}  // namespace kestrel::lockstep
