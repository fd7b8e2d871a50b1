#include "atomic_chains.hpp"

#include <cstdio>
#include <numeric>
#include <unordered_map>

namespace kestrel::lockstep {
namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

uint64_t width_mask(unsigned bytes) { return bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1; }

bool overlaps(uint64_t a, unsigned a_bytes, uint64_t b, unsigned b_bytes) {
  return a < b + b_bytes && b < a + a_bytes;
}

// Union-find over node indices.
struct Sets {
  explicit Sets(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), size_t{0}); }
  size_t find(size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(size_t a, size_t b) { parent[find(a)] = find(b); }
  std::vector<size_t> parent;
};

}  // namespace

void AtomicChains::clear() {
  words_.clear();
  parts_.clear();
  observed_ = 0;
  error_.clear();
}

void AtomicChains::add(const std::vector<model::GlobalAccess>& accesses) {
  for (const model::GlobalAccess& a : accesses) add(a);
}

// The word an atomic, LR or SC works on, created at its first access; a word
// that overlaps another of a different address or size cannot be followed.
AtomicChains::Word* AtomicChains::word_for_atomic(const model::GlobalAccess& a) {
  auto it = words_.find(a.addr);
  if (it != words_.end()) {
    if (it->second.bytes != a.bytes) {
      it->second.unfollowable = "atomics of " + std::to_string(it->second.bytes) + " and " +
                                std::to_string(unsigned{a.bytes}) + " bytes on it";
    }
    return &it->second;
  }
  Word fresh;
  fresh.bytes = a.bytes;
  fresh.first = a.prior & width_mask(a.bytes);
  Word& word = words_.emplace(a.addr, fresh).first->second;
  // Neighbours that overlap (a .d over a tracked .w, or the reverse).
  for (auto n = words_.lower_bound(a.addr >= 8 ? a.addr - 7 : 0);
       n != words_.end() && n->first < a.addr + a.bytes; ++n) {
    if (n->first != a.addr && overlaps(n->first, n->second.bytes, a.addr, a.bytes)) {
      n->second.unfollowable = "overlapping atomics of different sizes";
      word.unfollowable = "overlapping atomics of different sizes";
    }
  }
  return &word;
}

void AtomicChains::add(const model::GlobalAccess& a) {
  if (a.kind == model::GlobalAccess::kLoad) return;  // only loads the Checker could not match (observe())
  if (a.kind == model::GlobalAccess::kStore) {
    // A store to a word atomics work on: a jump to the stored value, if it
    // covers the word.  Stores before a word's first atomic are part of the
    // value it starts from.
    for (auto n = words_.lower_bound(a.addr >= 8 ? a.addr - 7 : 0);
         n != words_.end() && n->first < a.addr + a.bytes; ++n) {
      Word& word = n->second;
      if (!overlaps(n->first, word.bytes, a.addr, a.bytes)) continue;
      if (a.addr <= n->first && n->first + word.bytes <= a.addr + a.bytes) {
        word.jumps.push_back((a.value >> (8 * (n->first - a.addr))) & width_mask(word.bytes));
      } else {
        word.unfollowable = "a store of " + std::to_string(unsigned{a.bytes}) + " bytes at " + hex(a.addr) +
                            " writes part of it";
      }
    }
    return;
  }
  Word& word = *word_for_atomic(a);
  const uint64_t mask = width_mask(word.bytes);
  const uint64_t old = a.old & mask, value = a.value & mask;
  switch (a.kind) {
    case model::GlobalAccess::kAtomic:
      if (a.observed) {
        word.edges.emplace_back(old, a.writes ? value : old);
      } else if (a.order_free && a.writes) {
        word.jumps.push_back(value);
      } else {
        ++word.blind;
      }
      break;
    case model::GlobalAccess::kLoadReserved:
      if (a.observed) word.edges.emplace_back(old, old);
      break;
    default:  // kStoreConditional
      if (!a.observed) {
        if (a.writes) ++word.blind;
      } else if (a.writes) {
        word.edges.emplace_back(old, value);
      }
      break;
  }
  if (a.observed) {
    word.observed = true;
    ++observed_;
  }
}

bool AtomicChains::observe(uint64_t addr, unsigned bytes, uint64_t value) {
  auto it = words_.find(addr);
  if (it != words_.end() && it->second.bytes == bytes && it->second.observed) {
    const uint64_t v = value & width_mask(bytes);
    it->second.edges.emplace_back(v, v);
    return true;
  }
  // A part of a wider followed word: RV32 reads a 64-bit word as two 32-bit
  // halves, a narrow CAS loop reads its byte or halfword.
  for (const unsigned word_bytes : {4u, 8u}) {
    if (bytes >= word_bytes) continue;
    const uint64_t base = addr & ~uint64_t{word_bytes - 1};
    auto w = words_.find(base);
    if (w != words_.end() && w->second.bytes == word_bytes && w->second.observed) {
      parts_.push_back(Part{base, unsigned(addr - base) * 8, bytes, value & width_mask(bytes)});
      return true;
    }
  }
  return false;
}

// A part of a word that a load saw: one value of the word's chain (first,
// read, written or final) must have it.  Weaker than a full-width
// observation: where in the order it was seen is not checked.
bool AtomicChains::check_part(const Part& part, const Word& word, uint64_t final_value) {
  auto has = [&](uint64_t v) { return ((v >> part.shift) & width_mask(part.bytes)) == part.value; };
  if (has(word.first) || has(final_value)) return true;
  for (const auto& [from, to] : word.edges) {
    if (has(from) || has(to)) return true;
  }
  for (uint64_t j : word.jumps) {
    if (has(j)) return true;
  }
  const std::string part_name = part.bytes == 4 && word.bytes == 8
                                    ? std::string(part.shift != 0 ? "high" : "low") + " half"
                                    : "bytes " + std::to_string(part.shift / 8) + ".." +
                                          std::to_string(part.shift / 8 + part.bytes - 1);
  error_ = "global atomics on " + hex(part.addr) + " (" + std::to_string(word.bytes) + " bytes): a " +
           std::to_string(part.bytes) + "-byte load of its " + part_name + " saw " + hex(part.value) +
           ", which no value of the word's atomics has there";
  return false;
}

bool AtomicChains::check_word(uint64_t addr, const Word& word, uint64_t final_value) {
  const std::string where = "global atomics on " + hex(addr) + " (" + std::to_string(word.bytes) +
                            " bytes, " + std::to_string(word.edges.size()) +
                            " with RTL values, first value " + hex(word.first) + ", RTL final value " +
                            hex(final_value) + "): ";
  if (!word.unfollowable.empty()) {
    error_ = where + "lock-step cannot follow them: " + word.unfollowable;
    return false;
  }
  if (word.blind != 0) {
    error_ = where + "lock-step cannot follow them: " + std::to_string(word.blind) +
             " atomics whose result depends on the old value discard it (rd = x0), so the RTL does not "
             "report what they read";
    return false;
  }
  // Nodes: the values; one extra node X through which every jump passes.
  std::unordered_map<uint64_t, size_t> index;
  std::vector<uint64_t> values;
  auto node = [&](uint64_t v) {
    auto [it, added] = index.emplace(v, values.size());
    if (added) values.push_back(v);
    return it->second;
  };
  const size_t first = node(word.first), last = node(final_value);
  for (const auto& [from, to] : word.edges) {
    node(from);
    node(to);
  }
  for (uint64_t j : word.jumps) node(j);
  const size_t n = values.size();
  const size_t x = n;
  // ends(v) = starts(v) + in(v) - out(v): how many trails end at v, where a
  // trail starts at the first value and at every jump's value.
  std::vector<int64_t> ends(n, 0);
  ends[first] += 1;
  for (uint64_t j : word.jumps) ends[index[j]] += 1;
  for (const auto& [from, to] : word.edges) {
    ends[index[to]] += 1;
    ends[index[from]] -= 1;
  }
  Sets sets(n + 1);
  for (const auto& [from, to] : word.edges) sets.join(index[from], index[to]);
  for (uint64_t j : word.jumps) sets.join(x, index[j]);
  // The trail ends at the final value; every other end is where a jump left.
  ends[last] -= 1;
  for (size_t v = 0; v < n; ++v) {
    if (ends[v] < 0) {
      error_ = where + "no order of them is possible: the value " + hex(values[v]) + " is read " +
               std::to_string(-ends[v]) +
               " more time(s) than anything leaves it in the word (a lost update, a wrong old value or "
               "a wrong result)";
      return false;
    }
    if (ends[v] > 0) sets.join(v, x);
  }
  // Everything an order has to visit must hang together with the start.
  const size_t root = sets.find(first);
  auto stray = [&](size_t v) { return sets.find(v) != root; };
  if (word.edges.empty() && word.jumps.empty()) {
    if (first != last) {
      error_ = where + "nothing changed the word, but its value did";
      return false;
    }
    return true;
  }
  if (stray(last) || (!word.jumps.empty() && stray(x))) {
    error_ = where + "no order of them leads from the first value to the final value";
    return false;
  }
  for (const auto& [from, to] : word.edges) {
    if (stray(index[from])) {
      error_ = where + "no order of them is possible: the access that read " + hex(from) +
               " cannot follow the others (a wrong old value or a wrong result)";
      return false;
    }
  }
  return true;
}

bool AtomicChains::check(const std::function<uint64_t(uint64_t addr, unsigned bytes)>& final_value) {
  if (!error_.empty()) return false;
  for (const auto& [addr, word] : words_) {
    if (!word.observed) continue;  // the model computed it alone: DRAM comparison
    if (!check_word(addr, word, final_value(addr, word.bytes) & width_mask(word.bytes))) return false;
  }
  for (const Part& part : parts_) {
    const Word& word = words_.at(part.addr);
    if (!check_part(part, word, final_value(part.addr, word.bytes) & width_mask(word.bytes))) return false;
  }
  return true;
}

std::vector<std::pair<uint64_t, unsigned>> AtomicChains::followed_words() const {
  std::vector<std::pair<uint64_t, unsigned>> out;
  for (const auto& [addr, word] : words_) {
    if (word.observed) out.emplace_back(addr, word.bytes);
  }
  return out;
}

}  // namespace kestrel::lockstep
