// kx.tex in the SM (rtl/core/kestrel_sm_tex.sv): whole instructions, each
// lane naming its own object, run in passes through the texture unit and
// answered on the LSU's retire port, against the instruction's rules
// (docs/isa.md section 2.5) as the product's C++ states them: the
// descriptor's decision of include/kestrel/texture_unit.hpp (unit_status,
// image_of), the taps' lines in the unit's order (unit_taps) and the
// components of kestrel::texture::sample(), per lane, over the same device
// memory (tex_bench.hpp, shared with the unit's bench).
//
// Around the unit: the memory answers after a random latency under random
// back-pressure, the retire port takes beats under random back-pressure, and
// an LSU source injects random responses (single beats and two-beat pairs,
// valid held between them) at random times.  Every cycle the bench checks
// busy_o and req_ready_o, the port's handshake (a shown beat stays, every
// field stable, until taken), that the LSU's beats come out unchanged, in
// order and whole (a pair's two beats together, never inside a texture
// answer), and each answer: four beats (f rd .. rd+3, the warp, PC and mask,
// fp and load set, last on the fourth) with every active lane's components
// from its own object, or one fault beat (the lowest faulting lane over all
// passes: its kind, address and lane).  The unit's event pulses are checked
// per instruction against a model of its two caches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "Vsm_tex.h"
#include "kestrel/texture_math.hpp"
#include "kestrel/texture_unit.hpp"
#include "rtl_test.hpp"
#include "tex_bench.hpp"

namespace {

using namespace kestrel::texbench;
using kestrel::rtlbench::Bench;

// The bench model's parameters (tests/rtl/tex/CMakeLists.txt).
constexpr int kLanes = 8;
constexpr unsigned kWarps = 4;
constexpr unsigned kTexSets = 4, kTexWays = 2, kDescEntries = 2;
constexpr unsigned kForms = 6;  // KESTREL_TEX_FORM_*

// The LSU responses the bench injects have a PC with bit 31 set and their
// serial number below it; the bench's kx.tex PCs are below 2^31.  So every
// beat the port lets go names its source.
constexpr uint32_t kLsuPc = 0x80000000u;

// Objects that name nothing: no descriptor is written there.
constexpr uint32_t kUnmappedDescs = kDescBase + 0x04000000u;

// --- the reference: kx.tex per lane ----------------------------------------------

// One lane's kx.tex as docs/isa.md section 2.5 has it (and the functional
// model's Machine::exec_tex does it): the object's alignment, its
// descriptor's line, the unit's decision on the descriptor with this form,
// each tap's line in the unit's order, then the components.
struct LaneFetch {
  unsigned fault = kFaultNone;
  uint32_t fault_addr = 0;
  tx::Texels value{};
  std::vector<uint32_t> lines;  // the taps' lines looked up, through the faulting one
};

LaneFetch kx_tex_lane(const DeviceMemory& memory, uint32_t object, unsigned form, const Lane& lane) {
  LaneFetch r;
  if (object % 64 != 0) {
    r.fault = kFaultMisaligned;
    r.fault_addr = object;
    return r;
  }
  if (!memory.mapped(object)) {
    r.fault = kFaultIllegalAddress;
    r.fault_addr = object;  // the descriptor's line
    return r;
  }
  uint32_t words[16];
  for (uint32_t w = 0; w < 16; ++w) {
    words[w] = 0;
    for (uint32_t b = 0; b < 4; ++b)
      words[w] |= static_cast<uint32_t>(memory.byte(object + 4 * w + b)) << 8 * b;
  }
  if (tx::unit_status(words, form) != tx::UnitStatus::kFetch) {
    r.fault = kFaultTexture;
    r.fault_addr = object;
    return r;
  }
  const tx::Image image = tx::image_of(words);
  auto visit = [&](int x, int y, int z, int layer) {
    if (r.fault != kFaultNone) return;
    const uint32_t line = tx::unit_texel_address(image, x, y, z, layer) & ~63u;
    r.lines.push_back(line);
    if (!memory.mapped(line)) {
      r.fault = kFaultIllegalAddress;
      r.fault_addr = line;
    }
  };
  tx::unit_lane_taps(image, form, lane.x, lane.y, lane.z, lane.layer, visit);
  if (r.fault != kFaultNone) return r;
  auto read = [&](int x, int y, int z, int layer, uint8_t* out) {
    const uint32_t addr = tx::unit_texel_address(image, x, y, z, layer);
    for (uint32_t b = 0; b < image.texel_bytes; ++b) out[b] = memory.byte(addr + b);
  };
  r.value = tx::unit_lane_fetch(image, form, read, lane.x, lane.y, lane.z, lane.layer);
  return r;
}

// The unit's caches (kestrel_tex_cache): Sets x Ways lines, the set the
// line's low bits, a round-robin victim per set that a flush does not
// rewind; only a read that does not fault fills.
class CacheModel {
 public:
  CacheModel(unsigned sets, unsigned ways)
      : sets_(sets), ways_(ways), tag_(sets * ways), valid_(sets * ways), victim_(sets) {}

  bool lookup(uint32_t addr) const {
    const uint32_t line = addr >> 6, set = line % sets_;
    for (unsigned w = 0; w < ways_; ++w)
      if (valid_[set * ways_ + w] && tag_[set * ways_ + w] == line) return true;
    return false;
  }
  void fill(uint32_t addr) {
    const uint32_t line = addr >> 6, set = line % sets_;
    tag_[set * ways_ + victim_[set]] = line;
    valid_[set * ways_ + victim_[set]] = true;
    victim_[set] = (victim_[set] + 1) % ways_;
  }
  void flush() { std::fill(valid_.begin(), valid_.end(), false); }

 private:
  unsigned sets_, ways_;
  std::vector<uint32_t> tag_;
  std::vector<bool> valid_;
  std::vector<unsigned> victim_;
};

// --- instructions and answers ---------------------------------------------------

struct Instr {
  uint8_t warp = 0;
  uint32_t pc = 0;
  uint8_t mask = 0;
  unsigned form = 0;  // funct3
  unsigned rd = 0;
  uint32_t object[kLanes] = {};     // x rs1's low 32 bits
  uint32_t object_hi[kLanes] = {};  // ... and its high ones (ignored)
  uint32_t layer_hi[kLanes] = {};   // x rs2's high bits (ignored); the low ones are lane.layer
  Lane lane[kLanes];                // f rs3 .. rs3+2 and the layer
  bool flush_before = false;        // start_i (a launch) before it
};

// A beat of the retire port.
struct Beat {
  unsigned warp = 0, rd = 0, fault = 0, fault_lane = 0;
  uint32_t pc = 0;
  bool fp = false, load = false, last = false;
  uint8_t mask = 0;
  uint64_t fault_addr = 0;
  uint32_t data[2 * kLanes] = {};

  bool operator==(const Beat& o) const {
    return warp == o.warp && rd == o.rd && fault == o.fault && fault_lane == o.fault_lane && pc == o.pc &&
           fp == o.fp && load == o.load && last == o.last && mask == o.mask && fault_addr == o.fault_addr &&
           std::memcmp(data, o.data, sizeof data) == 0;
  }
  std::string str() const {
    char text[200];
    std::snprintf(
        text, sizeof text,
        "warp %u pc %08x rd %u fp %d load %d last %d mask %02x fault %u lane %u addr %016llx data0 %08x",
        warp, pc, rd, fp, load, last, mask, fault, fault_lane, static_cast<unsigned long long>(fault_addr),
        data[0]);
    return text;
  }
};

// What an instruction does, by the reference, and what it costs the caches.
struct Expected {
  bool fault = false;
  unsigned kind = kFaultNone, lane = 0;
  uint32_t addr = 0;
  tx::Texels value[kLanes] = {};
  unsigned passes = 0;
  unsigned desc_misses = 0, tex_hits = 0, tex_misses = 0;
  // Coverage: the reported fault came from a later pass than another
  // pass's fault (later_pass_wins), or an earlier pass's fault stood
  // against a later one's (earlier_pass_wins).
  bool later_pass_wins = false, earlier_pass_wins = false;
};

// The instruction by the reference: the lowest faulting lane's fault, or
// every active lane's components; and its passes' lookups in the unit's
// caches (`tex`, `desc`: updated), as events.
Expected predict(const DeviceMemory& memory, const Instr& in, CacheModel& tex_cache, CacheModel& desc_cache) {
  Expected e;
  LaneFetch lane[kLanes];
  for (int l = 0; l < kLanes; ++l)
    if ((in.mask >> l) & 1u) lane[l] = kx_tex_lane(memory, in.object[l], in.form, in.lane[l]);
  for (int l = 0; l < kLanes; ++l) {
    if (((in.mask >> l) & 1u) && lane[l].fault != kFaultNone) {
      e.fault = true;
      e.kind = lane[l].fault;
      e.addr = lane[l].fault_addr;
      e.lane = static_cast<unsigned>(l);
      break;
    }
    e.value[l] = lane[l].value;
  }
  // The passes: the lowest pending lane's object and every pending lane
  // naming it.  A descriptor is looked up unless the object is
  // misaligned; the lanes' taps unless it is refused, in lane order, up
  // to the first that faults.
  int report_pass = -1;
  for (unsigned pending = in.mask; pending != 0; ++e.passes) {
    const int first = __builtin_ctz(pending);
    const uint32_t object = in.object[first];
    unsigned pass = 0;
    for (int l = first; l < kLanes; ++l)
      if (((pending >> l) & 1u) && in.object[l] == object) pass |= 1u << l;
    pending &= ~pass;
    // The pass's fault: its lowest faulting lane's.
    for (int l = first; l < kLanes; ++l) {
      if (((pass >> l) & 1u) && lane[l].fault != kFaultNone) {
        if (static_cast<unsigned>(l) == e.lane)
          report_pass = static_cast<int>(e.passes);
        else if (report_pass < 0)
          e.later_pass_wins = true;
        else
          e.earlier_pass_wins = true;
        break;
      }
    }
    if (object % 64 != 0) continue;
    if (!desc_cache.lookup(object)) {
      ++e.desc_misses;
      if (memory.mapped(object)) desc_cache.fill(object);
    }
    if (!memory.mapped(object) || lane[first].fault == kFaultTexture) continue;
    for (int l = first; l < kLanes; ++l) {
      if (!((pass >> l) & 1u)) continue;
      for (uint32_t line : lane[l].lines) {
        if (tex_cache.lookup(line)) {
          ++e.tex_hits;
        } else {
          ++e.tex_misses;
          if (memory.mapped(line)) tex_cache.fill(line);
        }
      }
      if (lane[l].fault != kFaultNone) break;
    }
  }
  return e;
}

// --- the harness -------------------------------------------------------------------

class Harness {
 public:
  explicit Harness(uint64_t seed) : memory(seed), rng_(seed * 0x9E3779B97F4A7C15ull + 1), seed_(seed) {
    bench_.reset();
  }

  DeviceMemory memory;
  Pacing pacing;
  unsigned issue_percent = 40;     // chance a cycle that stage 1 hands the next instruction over when idle
  unsigned lsu_percent = 8;        // chance a cycle that the LSU starts a response when it shows none
  unsigned lsu_pair_percent = 40;  // ... of two beats

  // Statistics for coverage.
  unsigned answers = 0, fault_answers = 0, lsu_beats = 0, lsu_pairs = 0;
  unsigned lsu_beats_while_busy = 0;  // LSU beats let through while an instruction ran
  unsigned lsu_held_off = 0;  // cycles the LSU showed a beat, the port was ready and the answer had it
  unsigned later_pass_wins = 0, earlier_pass_wins = 0, multi_pass = 0, passes = 0;
  unsigned all_tex_hits = 0, all_tex_misses = 0, all_desc_misses = 0;
  unsigned forms_seen = 0;  // bit n: an instruction of form n answered
  // Faults reported: MISALIGNED, ILLEGAL_ADDRESS of a descriptor's line and
  // of a texel's, TEXTURE.
  unsigned misaligned = 0, desc_faults = 0, texel_faults = 0, texture_faults = 0;

  std::string summary() const {
    char text[400];
    std::snprintf(text, sizeof text,
                  "%u instructions in %llu cycles: %u passes, %u faults (%u misaligned, %u descriptor, %u "
                  "texel, %u TEXTURE; %u where a later pass's lane won, %u an earlier's); %u LSU beats (%u "
                  "pairs, %u while busy); %u texel hits, %u misses, %u descriptor misses",
                  answers, static_cast<unsigned long long>(cycle_), passes, fault_answers, misaligned,
                  desc_faults, texel_faults, texture_faults, later_pass_wins, earlier_pass_wins, lsu_beats,
                  lsu_pairs, lsu_beats_while_busy, all_tex_hits, all_tex_misses, all_desc_misses);
    return text;
  }

  unsigned desc_reads() const { return port_.desc_reads; }
  unsigned texel_reads() const { return port_.texel_reads; }

  // The textures, to describe a failing lane.
  std::vector<Texture> textures;

  void issue(const Instr& in) { queue_.push_back(in); }

  // What `in` would do now, the caches' model left as it is.
  Expected preview(const Instr& in) const {
    CacheModel tex = tex_cache_, desc = desc_cache_;
    return predict(memory, in, tex, desc);
  }

  // Runs every queued instruction to its answer, the LSU's responses
  // alongside; stops at the first failure.
  void run() {
    const uint64_t limit = cycle_ + 20000 + 20000ull * queue_.size();
    while (!queue_.empty() || in_flight_ || !lsu_.empty()) {
      step();
      if (testing::Test::HasFailure()) return;
      if (cycle_ > limit) {
        ADD_FAILURE() << "seed " << seed_ << ": no progress (cycle " << cycle_ << ")";
        return;
      }
    }
    // One more cycle: the last beat taken, the unit is idle again.
    step();
  }

 private:
  void step() {
    Vsm_tex& dut = bench_.dut();
    // What the last edge left.
    EXPECT_EQ(dut.busy_o != 0, in_flight_) << where();
    EXPECT_EQ(dut.req_ready_o != 0, !dut.busy_o) << where();

    // Stage 1: the next instruction (once idle), a launch's start before it
    // where asked; garbage operands otherwise.
    dut.start_i = 0;
    dut.req_valid_i = 0;
    bool handing = false;
    if (!in_flight_ && !queue_.empty() && rng_() % 100 < issue_percent) {
      if (queue_.front().flush_before && !flushed_) {
        dut.start_i = 1;
        flushed_ = true;
        tex_cache_.flush();
        desc_cache_.flush();
      } else {
        handing = true;
      }
    }
    drive_instr(dut, handing ? queue_.front() : random_instr_bits());
    dut.req_valid_i = handing;

    // The LSU: a response now and then (while instructions remain), held
    // until taken; a pair's second beat follows its first at once.
    if (lsu_.empty() && (!queue_.empty() || in_flight_) && rng_() % 100 < lsu_percent) {
      const bool pair = rng_() % 100 < lsu_pair_percent;
      Beat b = random_beat();
      b.pc = kLsuPc | lsu_serial_++;
      b.last = !pair;
      lsu_.push_back(b);
      if (pair) {
        b = random_beat();
        b.pc = kLsuPc | lsu_serial_++;
        b.last = true;
        lsu_.push_back(b);
        ++lsu_pairs;
      }
    }
    dut.lsu_rsp_valid_i = !lsu_.empty();
    drive_lsu(dut, lsu_.empty() ? random_beat() : lsu_.front());
    dut.rsp_ready_i = rng_() % 100 < pacing.rsp_ready_percent;
    port_.drive(dut, rng_, pacing, cycle_);
    bench_.eval();

    if (dut.req_valid_i) {
      EXPECT_TRUE(dut.req_ready_o) << where();
      take(queue_.front());
      queue_.pop_front();
      flushed_ = false;
    }
    check_port(dut);
    port_.sample(dut, rng_, pacing, cycle_);
    if (!in_flight_ || handing) {
      EXPECT_FALSE(dut.ev_tex_hit_o || dut.ev_tex_miss_o || dut.ev_desc_miss_o)
          << "an event while idle" << where();
    }
    tex_hits_ += dut.ev_tex_hit_o;
    tex_misses_ += dut.ev_tex_miss_o;
    desc_misses_ += dut.ev_desc_miss_o;
    bench_.tick();
    ++cycle_;
  }

  // The retire port, this cycle.
  void check_port(const Vsm_tex& dut) {
    const Beat shown = read_beat(dut);
    // AXI: a beat shown and not taken stays, unchanged.
    if (held_) {
      EXPECT_TRUE(dut.rsp_valid_o) << "a shown beat was withdrawn" << where();
      EXPECT_TRUE(shown == held_beat_)
          << "a shown beat changed: " << held_beat_.str() << " -> " << shown.str() << where();
    }
    held_ = dut.rsp_valid_o && !dut.rsp_ready_i;
    held_beat_ = shown;
    EXPECT_TRUE(!dut.lsu_rsp_ready_o || dut.rsp_ready_i)
        << "the LSU's beat taken without the port's ready" << where();
    const bool lsu_taken = dut.lsu_rsp_valid_i && dut.lsu_rsp_ready_o;
    if (in_flight_ && beat_ > 0) {
      EXPECT_FALSE(dut.lsu_rsp_ready_o) << "the LSU let in inside an answer" << where();
    }
    if (dut.lsu_rsp_valid_i && !dut.lsu_rsp_ready_o && dut.rsp_ready_i) ++lsu_held_off;
    if (!(dut.rsp_valid_o && dut.rsp_ready_i)) {
      EXPECT_FALSE(lsu_taken) << where();
      return;
    }
    if (lsu_taken) {
      // The LSU's beat, as it came and in its order.
      EXPECT_TRUE(shown == lsu_.front())
          << "LSU beat changed: " << lsu_.front().str() << " -> " << shown.str() << where();
      EXPECT_TRUE((shown.pc & kLsuPc) != 0 && shown.pc == (kLsuPc | lsu_next_)) << shown.str() << where();
      EXPECT_FALSE(in_flight_ && beat_ > 0) << "an LSU beat inside a texture answer" << where();
      ++lsu_next_;
      ++lsu_beats;
      if (in_flight_) ++lsu_beats_while_busy;
      lsu_mid_pair_ = !shown.last;
      lsu_.pop_front();
      return;
    }
    // The texture unit's beat.
    EXPECT_EQ(shown.pc & kLsuPc, 0u) << "an LSU beat let through without its ready: " << shown.str()
                                     << where();
    EXPECT_FALSE(lsu_mid_pair_) << "a texture beat between an LSU pair's beats" << where();
    if (!in_flight_) {
      ADD_FAILURE() << "a texture beat without an instruction: " << shown.str() << where();
      return;
    }
    check_answer_beat(shown);
    if (shown.last) finish();
    ++beat_;
  }

  void check_answer_beat(const Beat& b) {
    const Instr& in = current_;
    const Expected& e = expected_;
    std::string what = where() + " beat " + std::to_string(beat_) + ": " + b.str();
    EXPECT_EQ(b.warp, in.warp) << what;
    EXPECT_EQ(b.pc, in.pc) << what;
    EXPECT_EQ(b.mask, in.mask) << what;
    if (e.fault) {
      EXPECT_EQ(beat_, 0u) << what;
      EXPECT_TRUE(b.last) << what;
      EXPECT_FALSE(b.load) << what;
      EXPECT_EQ(b.fault, e.kind) << what;
      EXPECT_EQ(b.fault_addr, e.addr) << what;
      EXPECT_EQ(b.fault_lane, e.lane) << what;
      return;
    }
    EXPECT_EQ(b.fault, kFaultNone) << what;
    if (in.mask == 0) {  // no lane executes: one beat, nothing written
      EXPECT_TRUE(b.last) << what;
      EXPECT_FALSE(b.load) << what;
      return;
    }
    ASSERT_LT(beat_, 4u) << what;
    EXPECT_EQ(b.rd, in.rd + beat_) << what;
    EXPECT_TRUE(b.fp) << what;
    EXPECT_TRUE(b.load) << what;
    EXPECT_EQ(b.last, beat_ == 3) << what;
    for (int l = 0; l < kLanes; ++l) {
      if (!((in.mask >> l) & 1u)) continue;
      if (b.data[2 * l] != e.value[l].v[beat_]) {
        const Texture* t = find_texture(in.object[l]);
        ADD_FAILURE() << what << "\n lane " << l << " component " << beat_ << " got " << std::hex
                      << b.data[2 * l] << " want " << e.value[l].v[beat_] << std::dec << " object "
                      << std::hex << in.object[l] << std::dec
                      << (t ? "\n " + describe(*t, in.lane[l]) : std::string());
      }
    }
  }

  // The hand-over: what the instruction should do, by the reference, and
  // what its passes do to the caches.
  void take(const Instr& in) {
    current_ = in;
    expected_ = predict(memory, in, tex_cache_, desc_cache_);
    in_flight_ = true;
    beat_ = 0;
    tex_hits_ = tex_misses_ = desc_misses_ = 0;
    desc_reads_at_take_ = port_.desc_reads;
    texel_reads_at_take_ = port_.texel_reads;
  }

  void finish() {
    const Expected& e = expected_;
    EXPECT_EQ(desc_misses_, e.desc_misses) << "descriptor misses" << where();
    EXPECT_EQ(tex_misses_, e.tex_misses) << "texel misses" << where();
    EXPECT_EQ(tex_hits_, e.tex_hits) << "texel hits" << where();
    EXPECT_EQ(port_.desc_reads - desc_reads_at_take_, e.desc_misses) << where();
    EXPECT_EQ(port_.texel_reads - texel_reads_at_take_, e.tex_misses) << where();
    EXPECT_TRUE(port_.idle()) << where();
    ++answers;
    fault_answers += e.fault;
    forms_seen |= 1u << current_.form;
    misaligned += e.fault && e.kind == kFaultMisaligned;
    desc_faults += e.fault && e.kind == kFaultIllegalAddress && e.addr < kDescLimit;
    texel_faults += e.fault && e.kind == kFaultIllegalAddress && e.addr >= kDescLimit;
    texture_faults += e.fault && e.kind == kFaultTexture;
    later_pass_wins += e.later_pass_wins;
    earlier_pass_wins += e.earlier_pass_wins;
    multi_pass += e.passes > 1;
    passes += e.passes;
    all_tex_hits += tex_hits_;
    all_tex_misses += tex_misses_;
    all_desc_misses += desc_misses_;
    in_flight_ = false;
    ++instr_index_;
  }

  const Texture* find_texture(uint32_t object) const {
    for (const Texture& t : textures)
      if (t.desc_addr == object) return &t;
    return nullptr;
  }

  std::string where() const {
    return " (seed " + std::to_string(seed_) + ", instruction " + std::to_string(instr_index_) + ", cycle " +
           std::to_string(cycle_) + ")";
  }

  Instr random_instr_bits() {
    Instr in;
    in.warp = static_cast<uint8_t>(rng_() % kWarps);
    in.pc = static_cast<uint32_t>(rng_());
    in.mask = static_cast<uint8_t>(rng_());
    in.form = static_cast<unsigned>(rng_() % 8);
    in.rd = static_cast<unsigned>(rng_() % 32);
    for (int l = 0; l < kLanes; ++l) {
      in.object[l] = static_cast<uint32_t>(rng_());
      in.lane[l] = {tx::detail::bits_float(static_cast<uint32_t>(rng_())),
                    tx::detail::bits_float(static_cast<uint32_t>(rng_())),
                    tx::detail::bits_float(static_cast<uint32_t>(rng_())), static_cast<int32_t>(rng_())};
    }
    return in;
  }

  Beat random_beat() {
    Beat b;
    b.warp = static_cast<unsigned>(rng_() % kWarps);
    b.pc = static_cast<uint32_t>(rng_());
    b.rd = static_cast<unsigned>(rng_() % 32);
    b.fp = rng_() % 2;
    b.load = rng_() % 2;
    b.last = rng_() % 2;
    b.mask = static_cast<uint8_t>(rng_());
    b.fault = rng_() % 4 == 0 ? static_cast<unsigned>(rng_() % 13) : 0u;
    b.fault_lane = static_cast<unsigned>(rng_() % kLanes);
    b.fault_addr = rng_();
    for (uint32_t& w : b.data) w = static_cast<uint32_t>(rng_());
    return b;
  }

  static void drive_instr(Vsm_tex& dut, const Instr& in) {
    dut.req_warp_i = in.warp;
    dut.req_pc_i = in.pc;
    dut.req_mask_i = in.mask;
    dut.req_form_i = in.form;
    dut.req_rd_i = in.rd;
    for (int l = 0; l < kLanes; ++l) {
      dut.req_obj_i[2 * l] = in.object[l];
      dut.req_obj_i[2 * l + 1] = in.object_hi[l];
      dut.req_layer_i[2 * l] = static_cast<uint32_t>(in.lane[l].layer);
      dut.req_layer_i[2 * l + 1] = in.layer_hi[l];
      dut.req_x_i[l] = tx::detail::float_bits(in.lane[l].x);
      dut.req_y_i[l] = tx::detail::float_bits(in.lane[l].y);
      dut.req_z_i[l] = tx::detail::float_bits(in.lane[l].z);
    }
  }

  static void drive_lsu(Vsm_tex& dut, const Beat& b) {
    dut.lsu_rsp_warp_i = b.warp;
    dut.lsu_rsp_pc_i = b.pc;
    dut.lsu_rsp_fp_i = b.fp;
    dut.lsu_rsp_rd_i = b.rd;
    dut.lsu_rsp_load_i = b.load;
    dut.lsu_rsp_last_i = b.last;
    dut.lsu_rsp_mask_i = b.mask;
    for (int w = 0; w < 2 * kLanes; ++w) dut.lsu_rsp_data_i[w] = b.data[w];
    dut.lsu_rsp_fault_i = b.fault;
    dut.lsu_rsp_fault_lane_i = b.fault_lane;
    dut.lsu_rsp_fault_addr_i = b.fault_addr;
  }

  static Beat read_beat(const Vsm_tex& dut) {
    Beat b;
    b.warp = dut.rsp_warp_o;
    b.pc = dut.rsp_pc_o;
    b.fp = dut.rsp_fp_o;
    b.rd = dut.rsp_rd_o;
    b.load = dut.rsp_load_o;
    b.last = dut.rsp_last_o;
    b.mask = dut.rsp_mask_o;
    for (int w = 0; w < 2 * kLanes; ++w) b.data[w] = dut.rsp_data_o[w];
    b.fault = dut.rsp_fault_o;
    b.fault_lane = dut.rsp_fault_lane_o;
    b.fault_addr = dut.rsp_fault_addr_o;
    return b;
  }

  Bench<Vsm_tex> bench_;
  std::mt19937_64 rng_;
  uint64_t seed_;
  LineMemory port_{memory};
  CacheModel tex_cache_{kTexSets, kTexWays}, desc_cache_{1, kDescEntries};
  std::deque<Instr> queue_;
  bool flushed_ = false;
  // The instruction in flight.
  bool in_flight_ = false;
  Instr current_;
  Expected expected_;
  unsigned beat_ = 0, instr_index_ = 0;
  unsigned tex_hits_ = 0, tex_misses_ = 0, desc_misses_ = 0;
  unsigned desc_reads_at_take_ = 0, texel_reads_at_take_ = 0;
  // The LSU source and the port.
  std::deque<Beat> lsu_;
  uint32_t lsu_serial_ = 0, lsu_next_ = 0;
  bool lsu_mid_pair_ = false;
  bool held_ = false;
  Beat held_beat_;
  uint64_t cycle_ = 0;
};

// --- objects -------------------------------------------------------------------------

unsigned form_of(const Texture& t) { return static_cast<unsigned>(tx::unit_detail::form_of_shape(t.shape)); }

// The textures of one run: fetchable ones by form, fully mapped or with
// their first rows (or slices) in unmapped memory below kTexelBase, and
// descriptors the unit refuses.
struct Objects {
  std::vector<Texture> mapped[kForms], holed[kForms], refused;

  Objects(Harness& h, std::mt19937_64& rng) {
    uint32_t desc = kDescBase;
    auto add = [&](const Texture& t) {
      write_descriptor(h.memory, t);
      h.textures.push_back(t);
    };
    auto enough = [](const std::vector<Texture>* by_form, size_t n) {
      for (unsigned f = 0; f < kForms; ++f)
        if (by_form[f].size() < n) return false;
      return true;
    };
    while (!enough(mapped, 3)) {
      const Texture t = random_texture(rng, desc += 0x1000u);
      mapped[form_of(t)].push_back(t);
      add(t);
    }
    while (!enough(holed, 2)) {
      Texture t = random_texture(rng, desc += 0x1000u);
      const uint64_t bytes =
          static_cast<uint64_t>(t.slice_pitch) * static_cast<uint64_t>(t.sampling.depth * t.sampling.layers);
      // A quarter to three quarters of its bytes below kTexelBase (a line
      // multiple: a texel still lies in one line).
      const uint64_t hole = bytes / 4 + (bytes / 2 > 0 ? rng() % (bytes / 2) : 0);
      t.base = kTexelBase - static_cast<uint32_t>((hole + 64) & ~63ull);
      holed[form_of(t)].push_back(t);
      add(t);
    }
    // Cubemaps, linear memory of no whole texel, sRGB 8-bit normalized
    // reads, mipmaps, surfaces.
    for (int kind = 0; kind < 7; ++kind) {
      Texture t = random_texture(rng, desc += 0x1000u);
      if (kind == 0) t.shape = kShapeCubemap;
      if (kind == 1) t.shape = kShapeCubemapLayered;
      if (kind == 2) {
        t.shape = kShapeLinear;
        t.sampling.width = 0;
      }
      if (kind == 3 || kind == 4) {
        t.sampling.srgb = true;
        t.sampling.kind = tx::ChannelKind::kUnsigned;
        t.sampling.bits_per_channel = 8;
        t.sampling.read_mode = tx::ReadMode::kNormalizedFloat;
        t.sampling.filter = kind == 3 ? tx::FilterMode::kPoint : tx::FilterMode::kLinear;
      }
      if (kind == 5) t.mip_levels = 1 + static_cast<unsigned>(rng() % 8);
      if (kind == 6) t.surface = true;
      refused.push_back(t);
      add(t);
    }
  }

  // Mostly one of the first two (so that descriptors and texels are found
  // in the caches too), else any.
  const Texture& pick(std::mt19937_64& rng, const std::vector<Texture>& v) const {
    if (rng() % 3 != 0) return v[rng() % 2];
    return v[rng() % v.size()];
  }
};

uint8_t random_mask(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
    case 1:
    case 2:
      return 0xFF;
    case 3:
      return static_cast<uint8_t>(1u << (rng() % kLanes));
    default: {
      const uint8_t m = static_cast<uint8_t>(rng());
      return m != 0 ? m : 0x10;
    }
  }
}

// An instruction whose active lanes name 1 to 3 objects.  With faults, an
// object is a fetchable texture of the form (mapped or not), a refused or
// other-form texture, a misaligned handle or one with no descriptor.  The
// form changes now and then (`form`: the last one).
Instr random_instr(std::mt19937_64& rng, const Objects& o, bool faults, unsigned& form) {
  if (rng() % 4 == 0) form = static_cast<unsigned>(rng() % kForms);
  Instr in;
  in.warp = static_cast<uint8_t>(rng() % kWarps);
  in.pc = static_cast<uint32_t>(rng()) & 0x7FFFFFFCu;
  in.mask = random_mask(rng);
  in.form = form;
  in.rd = static_cast<unsigned>(rng() % 29);  // f28 at most
  in.flush_before = rng() % 40 == 0;
  const unsigned count = 1 + static_cast<unsigned>(rng() % 3);
  uint32_t objects[3];
  Lane lanes[3][kLanes];
  for (unsigned j = 0; j < count; ++j) {
    const Texture* coords = &o.pick(rng, o.mapped[in.form]);
    unsigned kind = faults ? static_cast<unsigned>(rng() % 20) : 0u;
    if (kind < 7) {  // fetchable and mapped
      objects[j] = coords->desc_addr;
    } else if (kind < 12) {  // fetchable, its first texels unmapped; lanes apart, some faulting
      coords = &o.pick(rng, o.holed[in.form]);
      objects[j] = coords->desc_addr;
      for (Lane& l : lanes[j]) random_lanes(rng, *coords, &l, 1);
      continue;
    } else if (kind < 14) {
      objects[j] = o.pick(rng, o.refused).desc_addr;
    } else if (kind < 16) {  // another form's texture
      objects[j] = o.pick(rng, o.mapped[(in.form + 1 + rng() % (kForms - 1)) % kForms]).desc_addr;
    } else if (kind < 18) {  // misaligned
      objects[j] = coords->desc_addr + 4u * (1 + static_cast<uint32_t>(rng() % 15));
    } else {  // no descriptor there
      objects[j] = kUnmappedDescs + 64u * static_cast<uint32_t>(rng() % 4096);
    }
    random_lanes(rng, *coords, lanes[j], kLanes);
  }
  for (int l = 0; l < kLanes; ++l) {
    const unsigned j = static_cast<unsigned>(rng() % count);
    if ((in.mask >> l) & 1u) {
      in.object[l] = objects[j];
      in.lane[l] = lanes[j][l];
    } else {  // an inactive lane's operands are anything
      in.object[l] = rng() % 2 ? objects[j] + 4u : static_cast<uint32_t>(rng());
      in.lane[l] = {tx::detail::bits_float(static_cast<uint32_t>(rng())), -1e30f, NAN,
                    static_cast<int32_t>(rng())};
    }
    in.object_hi[l] = static_cast<uint32_t>(rng());
    in.layer_hi[l] = static_cast<uint32_t>(rng());
  }
  return in;
}

Pacing random_pacing(std::mt19937_64& rng) {
  Pacing p;
  p.min_latency = 1 + static_cast<unsigned>(rng() % 3);
  p.max_latency = p.min_latency + static_cast<unsigned>(rng() % 20);
  p.mem_ready_percent = 40 + static_cast<unsigned>(rng() % 61);
  p.rsp_ready_percent = 30 + static_cast<unsigned>(rng() % 71);
  return p;
}

// --- tests -----------------------------------------------------------------------------

// Seeds of the random tests: 1..5, or KESTREL_SM_TEX_SEEDS=n for 1..n (a soak).
std::vector<uint64_t> seeds() {
  const char* env = std::getenv("KESTREL_SM_TEX_SEEDS");
  const uint64_t n = env ? std::strtoull(env, nullptr, 10) : 5;
  std::vector<uint64_t> v;
  for (uint64_t s = 1; s <= n; ++s) v.push_back(s);
  return v;
}

class SmTexRandom : public testing::TestWithParam<uint64_t> {};

// Instructions whose lanes name 1 to 3 fetchable textures: every lane's
// four components from its own object.
TEST_P(SmTexRandom, FetchesMatchTheReference) {
  const uint64_t seed = GetParam();
  std::mt19937_64 rng(seed);
  Harness h(seed);
  const Objects o(h, rng);
  h.pacing = random_pacing(rng);
  unsigned form = 0;
  for (int n = 0; n < 250; ++n) h.issue(random_instr(rng, o, false, form));
  h.run();
  std::printf("[ stats    ] seed %llu: %s\n", static_cast<unsigned long long>(seed), h.summary().c_str());
  EXPECT_EQ(h.answers, 250u);
  EXPECT_EQ(h.fault_answers, 0u);
  EXPECT_GT(h.multi_pass, 60u) << "instructions of several passes";
  EXPECT_GT(h.all_tex_hits, h.all_tex_misses) << "the caches work";
  EXPECT_EQ(h.forms_seen, 0x3Fu) << "all six forms";
  EXPECT_GT(h.lsu_beats_while_busy, 0u);
  EXPECT_GT(h.lsu_pairs, 0u);
}

// Objects that fault mixed with fetchable ones across lanes and passes:
// the lowest faulting lane's fault, whatever pass it comes in.
TEST_P(SmTexRandom, FaultsAreTheLowestLanes) {
  const uint64_t seed = GetParam();
  std::mt19937_64 rng(seed + 1000);
  Harness h(seed + 1000);
  const Objects o(h, rng);
  h.pacing = random_pacing(rng);
  unsigned form = 0;
  for (int n = 0; n < 300; ++n) {
    Instr in = random_instr(rng, o, true, form);
    // One in four drawn again until a later pass's lower lane must win
    // (rare by chance: the first pass must fault above its lowest lane).
    for (int tries = 0; n % 4 == 0 && tries < 100; ++tries) {
      CacheModel tex{kTexSets, kTexWays}, desc{1, kDescEntries};
      if (predict(h.memory, in, tex, desc).later_pass_wins) break;
      in = random_instr(rng, o, true, form);
    }
    h.issue(in);
  }
  h.run();
  std::printf("[ stats    ] seed %llu: %s\n", static_cast<unsigned long long>(seed), h.summary().c_str());
  EXPECT_EQ(h.answers, 300u);
  EXPECT_GT(h.fault_answers, 100u);
  EXPECT_LT(h.fault_answers, 270u) << "some instructions fetch";
  EXPECT_GT(h.later_pass_wins, 20u) << "a later pass's lower lane replaced an earlier pass's fault";
  EXPECT_GT(h.earlier_pass_wins, 20u) << "an earlier pass's lower lane stood against a later one's";
  EXPECT_EQ(h.forms_seen, 0x3Fu) << "all six forms";
  EXPECT_GT(h.misaligned, 5u);
  EXPECT_GT(h.desc_faults, 5u);
  EXPECT_GT(h.texel_faults, 5u);
  EXPECT_GT(h.texture_faults, 5u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, SmTexRandom, testing::ValuesIn(seeds()));

// A fixture of hand-made objects.
class SmTex : public testing::Test {
 protected:
  SmTex() : h(7), rng(7) {
    // A 2D texture of float4 texels, 16 x 64, rows 256 bytes apart, point
    // sampled with clamped texel coordinates; rows 0..31 lie below
    // kTexelBase (unmapped), rows 32..63 above.
    holed = float4_2d_texture(rng, kDescBase + 0x1000u, 16, 64, tx::FilterMode::kPoint);
    holed.base = kTexelBase - 32 * 256;
    write_descriptor(h.memory, holed);
    mapped = holed;
    mapped.desc_addr = kDescBase + 0x2000u;
    mapped.base = kTexelBase + 0x100000u;
    mapped.sampling.filter = tx::FilterMode::kLinear;
    write_descriptor(h.memory, mapped);
    cubemap = random_texture(rng, kDescBase + 0x3000u);
    cubemap.shape = kShapeCubemap;
    write_descriptor(h.memory, cubemap);
    volume = random_texture(rng, kDescBase + 0x4000u);
    volume.shape = kShape3D;
    volume.sampling.dimension = tx::Dimension::k3D;
    volume.sampling.layered = false;
    volume.sampling.layers = 1;
    write_descriptor(h.memory, volume);
    h.textures = {holed, mapped, cubemap, volume};
    h.pacing = {1, 12, 70, 60};
  }

  // A 2D instruction of all lanes at texel (x, y) of `holed`'s layout.
  Instr instr(uint32_t object, uint8_t mask = 0xFF) {
    Instr in;
    in.warp = 2;
    in.pc = 0x10002340u;
    in.mask = mask;
    in.form = KESTREL_TEX_FORM_2D;
    in.rd = 12;
    for (int l = 0; l < kLanes; ++l) {
      in.object[l] = object;
      in.lane[l] = {0.5f + static_cast<float>(l), 40.5f, 0, 0};
    }
    return in;
  }

  // Runs one instruction alone; its expected fault checked against `kind`,
  // `addr` and `lane` first (the reference agreeing with the rule as stated).
  void expect_fault(const Instr& in, unsigned kind, uint32_t addr, unsigned lane) {
    CacheModel tex{kTexSets, kTexWays}, desc{1, kDescEntries};  // the fault does not depend on them
    const Expected e = predict(h.memory, in, tex, desc);
    ASSERT_TRUE(e.fault);
    EXPECT_EQ(e.kind, kind);
    EXPECT_EQ(e.addr, addr);
    EXPECT_EQ(e.lane, lane);
    const unsigned before = h.fault_answers;
    h.issue(in);
    h.run();
    EXPECT_EQ(h.fault_answers, before + 1);
  }

  Harness h;
  std::mt19937_64 rng;
  Texture holed, mapped, cubemap, volume;
};

// Each fault alone, the whole mask naming one object.
TEST_F(SmTex, EachFaultAlone) {
  // A handle that is not a line's address: MISALIGNED, the handle, the lowest lane.
  expect_fault(instr(mapped.desc_addr + 8, 0xF4), kFaultMisaligned, mapped.desc_addr + 8, 2);
  // No descriptor there: ILLEGAL_ADDRESS, the descriptor's line.
  expect_fault(instr(kUnmappedDescs + 0x40, 0xFE), kFaultIllegalAddress, kUnmappedDescs + 0x40, 1);
  // Descriptors the unit refuses: TEXTURE, the object.
  Texture refused = mapped;
  for (int kind = 0; kind < 4; ++kind) {
    refused.desc_addr = kDescBase + 0x10000u + 0x1000u * static_cast<uint32_t>(kind);
    refused.shape = kShape2D;
    refused.mip_levels = 0;
    refused.sampling = mapped.sampling;
    if (kind == 0) refused.shape = kShapeCubemap;
    if (kind == 1) refused.mip_levels = 4;
    if (kind == 2) {  // sRGB 8-bit unsigned read as normalized floats
      refused.sampling.srgb = true;
      refused.sampling.kind = tx::ChannelKind::kUnsigned;
      refused.sampling.bits_per_channel = 8;
      refused.sampling.read_mode = tx::ReadMode::kNormalizedFloat;
    }
    if (kind == 3) {  // linear memory of no whole texel
      refused.shape = kShapeLinear;
      refused.sampling.width = 0;
    }
    write_descriptor(h.memory, refused);
    expect_fault(instr(refused.desc_addr, 0x80), kFaultTexture, refused.desc_addr, 7);
  }
  // A form other than the shape's: tex3D on a 2D texture, tex2D on a 3D one.
  Instr in = instr(mapped.desc_addr, 0x0C);
  in.form = KESTREL_TEX_FORM_3D;
  expect_fault(in, kFaultTexture, mapped.desc_addr, 2);
  in = instr(volume.desc_addr, 0x30);
  expect_fault(in, kFaultTexture, volume.desc_addr, 4);
  // Unmapped texels: the line of lane 1's texel (row 3, texels 0..3), lane
  // 0 being inactive.
  in = instr(holed.desc_addr, 0xFE);
  for (int l = 0; l < kLanes; ++l) in.lane[l].y = 3.5f;
  expect_fault(in, kFaultIllegalAddress, holed.base + 3 * 256, 1);
  // ... of lane 6, the lanes below it reading mapped rows.
  in = instr(holed.desc_addr, 0xFF);
  in.lane[6].y = 12.0f;
  in.lane[7].y = 1.0f;
  expect_fault(in, kFaultIllegalAddress, holed.base + 12 * 256 + 64, 6);
  EXPECT_EQ(h.answers, 10u);
  EXPECT_EQ(h.fault_answers, 10u);
}

// The fault reported is the lowest lane's over every pass, whichever pass
// finds it.
TEST_F(SmTex, LowestLaneAcrossPasses) {
  // Pass 1 (lanes 0, 5: holed) faults at lane 5, pass 2 (lane 2: a
  // cubemap) at lane 2: lane 2's TEXTURE.
  Instr in = instr(mapped.desc_addr);
  in.object[0] = in.object[5] = holed.desc_addr;
  in.lane[5].y = 7.5f;  // row 7: unmapped
  in.object[2] = cubemap.desc_addr;
  expect_fault(in, kFaultTexture, cubemap.desc_addr, 2);
  // Pass 1 faults at lane 2 (row 30), pass 2 (lane 5: misaligned) and pass
  // 3 (lane 6: no descriptor) later: lane 2's stands.
  in = instr(holed.desc_addr);
  in.lane[2].y = 30.5f;
  in.lane[2].x = 9.5f;  // texels 8..11 of row 30
  in.object[5] = mapped.desc_addr + 4;
  in.object[6] = kUnmappedDescs;
  expect_fault(in, kFaultIllegalAddress, holed.base + 30 * 256 + 128, 2);
  // Pass 1 (lanes 1, 7: holed) faults at lane 7, pass 2 (lanes 3, 4, 6:
  // mapped) fetches, pass 3 (lane 5: another object of the same layout)
  // faults at lane 5: lane 5's.
  in = instr(mapped.desc_addr, 0xFA);
  in.object[1] = in.object[7] = holed.desc_addr;
  in.lane[7].y = 0.0f;
  Texture holed2 = holed;
  holed2.desc_addr = kDescBase + 0x5000u;
  write_descriptor(h.memory, holed2);
  in.object[5] = holed2.desc_addr;
  in.lane[5] = {2.5f, 31.5f, 0, 0};
  expect_fault(in, kFaultIllegalAddress, holed.base + 31 * 256, 5);
  // A form mismatch in pass 2 at lane 1 below pass 1's texel fault at lane 4.
  in = instr(holed.desc_addr, 0x13);  // lanes 0, 1, 4
  in.lane[4].y = -5.0f;               // clamped to row 0
  in.object[1] = volume.desc_addr;
  expect_fault(in, kFaultTexture, volume.desc_addr, 1);
  EXPECT_EQ(h.answers, 4u);
}

// A fetch repeated after a launch's start: the first reads the descriptor
// and the lines, the second finds them all (one descriptor hit, no miss).
TEST_F(SmTex, RepeatedFetchHits) {
  Instr in = instr(mapped.desc_addr);
  for (int l = 0; l < kLanes; ++l) in.lane[l] = {2.0f + 0.3f * static_cast<float>(l), 40.0f, 0, 0};
  in.flush_before = true;
  h.issue(in);
  h.run();
  const unsigned desc_reads = h.desc_reads(), texel_reads = h.texel_reads();
  EXPECT_EQ(desc_reads, 1u);
  EXPECT_GE(texel_reads, 2u);  // rows 39 and 40, one or two lines each
  EXPECT_LE(texel_reads, 4u);
  in.flush_before = false;
  const Expected e = h.preview(in);  // the caches' model after the first: every tap hits
  EXPECT_EQ(e.desc_misses, 0u);
  EXPECT_EQ(e.tex_misses, 0u);
  EXPECT_EQ(e.tex_hits, 4u * kLanes);
  h.issue(in);
  h.run();  // checks the events against the same model
  EXPECT_EQ(h.desc_reads(), desc_reads);
  EXPECT_EQ(h.texel_reads(), texel_reads);
  EXPECT_EQ(h.answers, 2u);
}

// No lane executes: one beat, nothing loaded, no fault, nothing read.
TEST_F(SmTex, EmptyMask) {
  Instr in = instr(kUnmappedDescs + 1, 0);
  h.issue(in);
  h.run();
  EXPECT_EQ(h.answers, 1u);
  EXPECT_EQ(h.desc_reads() + h.texel_reads(), 0u);
}

// Busy LSU traffic: many responses and pairs, a slow port; the answers
// still get through, whole, between the LSU's responses.
TEST_F(SmTex, LsuTrafficPassesThrough) {
  h.lsu_percent = 45;
  h.lsu_pair_percent = 50;
  h.pacing.rsp_ready_percent = 45;
  h.issue_percent = 90;
  for (int n = 0; n < 30; ++n) {
    Instr in = instr(n % 3 == 0 ? holed.desc_addr : mapped.desc_addr, static_cast<uint8_t>(rng() | 1u));
    for (int l = 0; l < kLanes; ++l) in.lane[l].y = static_cast<float>(rng() % 70) - 2.0f;
    h.issue(in);
  }
  h.run();
  EXPECT_EQ(h.answers, 30u);
  EXPECT_GT(h.fault_answers, 0u);
  EXPECT_GT(h.lsu_beats, 100u);
  EXPECT_GT(h.lsu_pairs, 20u);
  EXPECT_GT(h.lsu_beats_while_busy, 20u);
  EXPECT_GT(h.lsu_held_off, 0u) << "an answer kept the port against a waiting LSU beat";
}

}  // namespace
