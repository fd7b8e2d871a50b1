// Lab 09's harness (README.md, "How this lab works"): replays address traces
// on the tree's kestrel_l2_cache at every parameter point of
// lab09_l2_sweep.sv at once, and prints the unit's own event counts for each
// trace and point.
//
//   lab09_replay [--latency CYCLES] TRACE...
//
// A trace is a text file of requests, one a line: `R ADDR` (a read) or
// `W ADDR` (a write of the whole line), ADDR a byte offset into device DRAM
// (hex with 0x, or decimal; the harness adds KESTREL_GLOBAL_BASE, which is
// aligned far beyond any set index); `#` starts a comment.  The L2 sees each
// request as the load/store unit would send it after coalescing: one line
// request (guide 5.3.2), here one per trace line.
//
// Around each instance: a requester that offers the next request in every
// cycle and takes every answer at once, and a DRAM that takes a request in
// every cycle and answers each after a fixed latency, in order (the L2's
// external side; docs/memory-system.md).  Before each trace every instance
// is reset: it starts empty.  The answers are checked (each request answered
// once, in order, without a fault); a point that stops answering is an error.
// One line per trace and point:
//   l2 trace=NAME sets=S ways=W mshrs=M reads=.. writes=.. hits=.. misses=..
//      merges=.. evictions=.. write_throughs=.. dram_reads=.. cycles=..
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Vlab09_l2_sweep.h"
#include "kestrel/abi_contract.h"
#include "kestrel_contract.hpp"
#include "verilated.h"

namespace {

namespace contract = kestrel::contract;

struct Request {
  bool write = false;
  uint32_t addr = 0;
};

struct Trace {
  std::string name;
  std::vector<Request> requests;
};

// Reads a trace file; on a malformed line, says where and exits.
Trace read_trace(const std::string& path) {
  std::ifstream file(path);
  if (!file) {
    std::fprintf(stderr, "lab09_replay: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  Trace trace;
  const size_t slash = path.find_last_of('/');
  trace.name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  const size_t dot = trace.name.find('.');
  if (dot != std::string::npos) trace.name.resize(dot);
  std::string line;
  for (unsigned number = 1; std::getline(file, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string kind, addr;
    if (!(fields >> kind)) continue;
    char* end = nullptr;
    if ((kind != "R" && kind != "W") || !(fields >> addr) ||
        (std::strtoull(addr.c_str(), &end, 0), *end != '\0') ||
        std::strtoull(addr.c_str(), nullptr, 0) >= KESTREL_GLOBAL_BASE) {
      std::fprintf(stderr, "lab09_replay: %s:%u: expected 'R ADDR' or 'W ADDR' (ADDR below 0x%x): %s\n",
                   path.c_str(), number, KESTREL_GLOBAL_BASE, line.c_str());
      std::exit(2);
    }
    trace.requests.push_back({kind == "W", static_cast<uint32_t>(std::strtoull(addr.c_str(), nullptr, 0))});
  }
  return trace;
}

// One bit of a Verilated port that is a vector of Configs bits (at most 32:
// one integer).
template <typename Word>
bool bit(Word word, unsigned i) {
  return (word >> i) & 1u;
}
template <typename Word>
void set_bit(Word& word, unsigned i, bool value) {
  word = static_cast<Word>(value ? (word | (Word{1} << i)) : (word & ~(Word{1} << i)));
}
// 16-bit field i of a packed [Configs][16] output (two per 32-bit word).
template <typename Wide>
unsigned field16(const Wide& port, unsigned i) {
  return (port[i / 2] >> (16 * (i % 2))) & 0xFFFFu;
}

struct Counts {
  unsigned reads = 0, writes = 0, hits = 0, misses = 0, merges = 0, evictions = 0, write_throughs = 0,
           dram_reads = 0;
  uint64_t cycles = 0;
};

// The requester and DRAM of one instance.
struct Point {
  unsigned sets = 0, ways = 0, mshrs = 0;
  size_t next = 0;      // the next request to offer
  size_t answered = 0;  // requests answered
  bool faulted = false;
  struct InFlight {
    uint8_t tag;
    uint64_t ready_at;
  };
  std::deque<InFlight> dram;
  Counts counts;
};

constexpr uint64_t kCycleLimit = 50'000'000;

class Sweep {
 public:
  explicit Sweep(unsigned latency) : latency_(latency), context_(std::make_unique<VerilatedContext>()) {
    context_->randReset(0);
    top_ = std::make_unique<Vlab09_l2_sweep>(context_.get());
    top_->clk_i = 0;
    top_->rst_ni = 1;
    top_->eval();
    configs_ = top_->configs_o;
    points_.resize(configs_);
    for (unsigned i = 0; i < configs_; ++i) {
      points_[i].sets = field16(top_->sets_o, i);
      points_[i].ways = field16(top_->ways_o, i);
      points_[i].mshrs = field16(top_->mshrs_o, i);
    }
  }
  ~Sweep() { top_->final(); }
  Sweep(const Sweep&) = delete;
  Sweep& operator=(const Sweep&) = delete;

  // Replays the trace on every point; false if one stopped answering or
  // answered wrongly.
  bool replay(const Trace& trace) {
    reset();
    const size_t total = trace.requests.size();
    std::vector<size_t> packed(configs_, SIZE_MAX);  // the request index in each in_req_i
    uint64_t now = 0;
    for (;; ++now) {
      bool busy = false;
      for (const Point& p : points_) busy = busy || p.answered < total;
      if (!busy) break;
      if (now >= kCycleLimit) {
        std::fprintf(stderr, "lab09_replay: %s: no progress after %llu cycles\n", trace.name.c_str(),
                     static_cast<unsigned long long>(now));
        return false;
      }
      for (unsigned i = 0; i < configs_; ++i) {
        Point& p = points_[i];
        const bool offer = p.next < total;
        set_bit(top_->in_req_valid_i, i, offer);
        if (offer && packed[i] != p.next) {
          // Only the fields a trace sets (the rest stay 0 from the start:
          // packing all 714 bits in every cycle would dominate the run).
          const Request& r = trace.requests[p.next];
          uint32_t* words = top_->in_req_i.data();
          const unsigned base = i * contract::mem_req::kBits;
          contract::put(words, contract::mem_req::kind, r.write ? contract::kMemWrite : contract::kMemRead,
                        base);
          contract::put(words, contract::mem_req::write, r.write, base);
          contract::put(words, contract::mem_req::addr, KESTREL_GLOBAL_BASE + r.addr, base);
          contract::put(words, contract::mem_req::be, r.write ? ~uint64_t{0} : 0, base);
          contract::put(words, contract::mem_req::tag, static_cast<uint8_t>(p.next), base);
          packed[i] = p.next;
        }
        set_bit(top_->in_rsp_ready_i, i, true);
        set_bit(top_->ext_req_ready_i, i, true);
        const bool answer = !p.dram.empty() && p.dram.front().ready_at <= now;
        set_bit(top_->ext_rsp_valid_i, i, answer);
        if (answer)
          contract::put(top_->ext_rsp_i.data(), contract::mem_rsp::tag, p.dram.front().tag,
                        i * contract::mem_rsp::kBits);
      }
      top_->eval();
      for (unsigned i = 0; i < configs_; ++i) {
        Point& p = points_[i];
        if (bit(top_->in_req_valid_i, i) && bit(top_->in_req_ready_o, i)) {
          (trace.requests[p.next].write ? p.counts.writes : p.counts.reads) += 1;
          ++p.next;
        }
        if (bit(top_->ext_req_valid_o, i)) {
          const uint32_t* words = top_->ext_req_o.data();
          const unsigned base = i * contract::mem_req::kBits;
          p.dram.push_back(
              {static_cast<uint8_t>(contract::get(words, contract::mem_req::tag, base)), now + latency_});
          if (!contract::get(words, contract::mem_req::write, base)) ++p.counts.dram_reads;
        }
        if (bit(top_->ext_rsp_valid_i, i) && bit(top_->ext_rsp_ready_o, i)) p.dram.pop_front();
        if (bit(top_->in_rsp_valid_o, i)) {
          const uint32_t* words = top_->in_rsp_o.data();
          const unsigned base = i * contract::mem_rsp::kBits;
          const auto tag = static_cast<unsigned>(contract::get(words, contract::mem_rsp::tag, base));
          const auto fault = static_cast<unsigned>(contract::get(words, contract::mem_rsp::fault, base));
          if (p.answered >= total || tag != static_cast<uint8_t>(p.answered) || fault != 0) {
            std::fprintf(stderr, "lab09_replay: %s on %s: answer %zu has tag %u fault %u, expected tag %u\n",
                         trace.name.c_str(), label(p).c_str(), p.answered, tag, fault,
                         static_cast<unsigned>(static_cast<uint8_t>(p.answered)));
            return false;
          }
          if (++p.answered == total) p.counts.cycles = now + 1;
        }
      }
      tick();
      for (unsigned i = 0; i < configs_; ++i) {
        Counts& c = points_[i].counts;
        c.hits += bit(top_->ev_hit_o, i);
        c.misses += bit(top_->ev_miss_o, i);
        c.merges += bit(top_->ev_merge_o, i);
        c.evictions += bit(top_->ev_evict_o, i);
        c.write_throughs += bit(top_->ev_write_o, i);
      }
    }
    // The events are registered: one more cycle, with nothing offered, for
    // the last one.
    top_->in_req_valid_i = 0;
    top_->ext_rsp_valid_i = 0;
    tick();
    for (unsigned i = 0; i < configs_; ++i) {
      Counts& c = points_[i].counts;
      c.hits += bit(top_->ev_hit_o, i);
      c.misses += bit(top_->ev_miss_o, i);
      c.merges += bit(top_->ev_merge_o, i);
      c.evictions += bit(top_->ev_evict_o, i);
      c.write_throughs += bit(top_->ev_write_o, i);
    }
    for (const Point& p : points_) {
      const Counts& c = p.counts;
      std::printf(
          "l2 trace=%s sets=%u ways=%u mshrs=%u reads=%u writes=%u hits=%u misses=%u merges=%u evictions=%u "
          "write_throughs=%u dram_reads=%u cycles=%llu\n",
          trace.name.c_str(), p.sets, p.ways, p.mshrs, c.reads, c.writes, c.hits, c.misses, c.merges,
          c.evictions, c.write_throughs, c.dram_reads, static_cast<unsigned long long>(c.cycles));
    }
    return true;
  }

 private:
  static std::string label(const Point& p) {
    return std::to_string(p.sets) + "x" + std::to_string(p.ways) + " m" + std::to_string(p.mshrs);
  }

  // A falling edge of rst_ni (every instance empty, every MSHR free), then
  // the harness's own state.
  void reset() {
    top_->in_req_valid_i = 0;
    top_->ext_rsp_valid_i = 0;
    top_->clk_i = 0;
    top_->rst_ni = 1;
    top_->eval();
    top_->rst_ni = 0;
    top_->eval();
    top_->rst_ni = 1;
    top_->eval();
    for (Point& p : points_) {
      p.next = p.answered = 0;
      p.dram.clear();
      p.counts = Counts{};
    }
  }

  void tick() {
    top_->clk_i = 0;
    top_->eval();
    top_->clk_i = 1;
    top_->eval();
    context_->timeInc(1);
  }

  unsigned latency_;
  unsigned configs_ = 0;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Vlab09_l2_sweep> top_;
  std::vector<Point> points_;
};

}  // namespace

int main(int argc, char** argv) {
  unsigned latency = 100;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--latency") == 0 && i + 1 < argc) {
      latency = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 0));
    } else if (argv[i][0] == '+') {
      continue;  // Verilator's own +verilator+ options
    } else {
      paths.push_back(argv[i]);
    }
  }
  if (paths.empty() || latency == 0) {
    std::fprintf(stderr, "usage: lab09_replay [--latency CYCLES (at least 1)] TRACE...\n");
    return 2;
  }
  Verilated::commandArgs(argc, argv);
  Sweep sweep(latency);
  for (const std::string& path : paths) {
    if (!sweep.replay(read_trace(path))) return 1;
  }
  return 0;
}
