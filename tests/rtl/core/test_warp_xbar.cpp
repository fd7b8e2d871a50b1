// Bench: kestrel_warp_xbar (the SM's lane crossbar: votes, shuffles, match,
// reduce) and kestrel_warp_conv (membermask convergence) against C++
// references written from docs/isa.md sections 2.1 and 6.1.  Random lane
// values hit the corners (rtl_test.hpp), the participants are random
// partitions of random live sets into classes, shuffles take random lanes,
// deltas, xor masks and every width, with junk in the ignored control bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "Vwarp_conv8.h"
#include "Vwarp_xbar32.h"
#include "Vwarp_xbar8.h"
#include "rtl_test.hpp"

namespace kestrel::rtlbench {
namespace {

// Bit fields of Verilated ports: plain integers up to 64 bits, VlWide above.
template <class P>
void put(P& port, unsigned bit, unsigned width, uint64_t value) {
  for (unsigned i = 0; i < width; ++i) {
    const uint64_t b = (value >> i) & 1;
    const unsigned at = bit + i;
    if constexpr (std::is_integral_v<P>) {
      port = static_cast<P>((port & ~(P{1} << at)) | (static_cast<P>(b) << at));
    } else {
      port[at / 32] = (port[at / 32] & ~(1u << (at % 32))) | (static_cast<uint32_t>(b) << (at % 32));
    }
  }
}
template <class P>
uint64_t get(const P& port, unsigned bit, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) {
    const unsigned at = bit + i;
    uint64_t b;
    if constexpr (std::is_integral_v<P>) {
      b = (static_cast<uint64_t>(port) >> at) & 1;
    } else {
      b = (port[at / 32] >> (at % 32)) & 1;
    }
    v |= b << i;
  }
  return v;
}

struct XbarCase {
  unsigned funct3 = 1;  // 1 vote, 2 shuffle, 3 match/reduce
  unsigned funct7 = 0;  // low 4 bits
  uint32_t active = 0;
  std::vector<uint32_t> members;
  std::vector<uint64_t> value, control;
};

uint64_t sext32(uint32_t v, unsigned xlen) {
  const uint64_t x = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
  return xlen == 64 ? x : (x & 0xFFFFFFFFu);
}

// The shuffle source of docs/isa.md section 2.1.
unsigned shuffle_source(unsigned mode, unsigned lane, uint64_t control, unsigned lanes) {
  const int b = static_cast<int>(control & 31);
  const int s = static_cast<int>((control >> 8) & 31);
  const int clamp = mode == 1 ? 0 : 31;
  const int l = static_cast<int>(lane);
  const int max = (l & s) | (clamp & ~s);
  const int min = l & s;
  int j;
  bool valid;
  switch (mode) {
    case 1:
      j = l - b;
      valid = j >= max;
      break;
    case 2:
      j = l + b;
      valid = j <= max;
      break;
    case 3:
      j = l ^ b;
      valid = j <= max;
      break;
    default:
      j = min | (b & ~s);
      valid = j <= max;
      break;
  }
  return valid && j >= 0 && j < static_cast<int>(lanes) ? static_cast<unsigned>(j) : lane;
}

std::vector<uint64_t> reference(const XbarCase& c, unsigned lanes, unsigned xlen) {
  std::vector<uint64_t> out(lanes, 0);
  const uint64_t xmask = xlen == 64 ? ~0ull : 0xFFFFFFFFull;
  for (unsigned l = 0; l < lanes; ++l) {
    if (((c.active >> l) & 1) == 0) continue;
    const uint32_t m = c.members[l];
    uint32_t ballot = 0;
    for (unsigned k = 0; k < lanes; ++k) {
      if ((m >> k) & 1 && (c.value[k] & xmask) != 0) ballot |= 1u << k;
    }
    uint64_t r = 0;
    if (c.funct3 == 1) {
      switch (c.funct7 & 3) {
        case 0:
          r = ballot == m;
          break;
        case 1:
          r = ballot != 0;
          break;
        case 2:
          r = ballot == 0 || ballot == m;
          break;
        default:
          r = sext32(ballot, xlen);
          break;
      }
    } else if (c.funct3 == 2) {
      r = c.value[shuffle_source(c.funct7 & 3, l, c.control[l], lanes)] & xmask;
    } else if ((c.funct7 & 8) == 0) {
      const bool full = (c.funct7 & 2) != 0;
      auto key = [&](unsigned k) { return full ? (c.value[k] & xmask) : (c.value[k] & 0xFFFFFFFFu); };
      uint32_t same = 0;
      for (unsigned k = 0; k < lanes; ++k) {
        if ((m >> k) & 1 && key(k) == key(l)) same |= 1u << k;
      }
      if (c.funct7 & 1) {
        r = same == m ? sext32(m, xlen) : 0;
      } else {
        r = sext32(same, xlen);
      }
    } else {
      bool first = true;
      uint32_t acc = 0;
      for (unsigned k = 0; k < lanes; ++k) {
        if (((m >> k) & 1) == 0) continue;
        const uint32_t v = static_cast<uint32_t>(c.value[k]);
        if (first) {
          acc = v;
          first = false;
          continue;
        }
        switch (c.funct7 & 7) {
          case 0:
            acc += v;
            break;
          case 1:
            acc = static_cast<int32_t>(v) < static_cast<int32_t>(acc) ? v : acc;
            break;
          case 2:
            acc = static_cast<int32_t>(v) > static_cast<int32_t>(acc) ? v : acc;
            break;
          case 3:
            acc = v < acc ? v : acc;
            break;
          case 4:
            acc = v > acc ? v : acc;
            break;
          case 5:
            acc &= v;
            break;
          case 6:
            acc |= v;
            break;
          default:
            acc ^= v;
            break;
        }
      }
      r = sext32(acc, xlen);
    }
    out[l] = r;
  }
  return out;
}

// A random instruction: lanes partitioned into classes (each lane's
// participants are its class), some classes complete (active).
XbarCase random_case(std::mt19937_64& rng, unsigned lanes, unsigned xlen) {
  XbarCase c;
  const unsigned kind = rng() % 4;
  if (kind == 0) {
    c.funct3 = 1;
    c.funct7 = rng() % 4;
  } else if (kind == 1) {
    c.funct3 = 2;
    c.funct7 = rng() % 4;
  } else if (kind == 2) {
    c.funct3 = 3;
    c.funct7 = rng() % 4;
  } else {
    c.funct3 = 3;
    c.funct7 = 8 + rng() % 8;
  }
  const uint32_t all = lanes == 32 ? ~0u : (1u << lanes) - 1;
  const uint32_t live = (rng() % 4 == 0) ? static_cast<uint32_t>(rng()) & all : all;
  const unsigned nclasses = 1 + rng() % 4;
  std::vector<uint32_t> cls(nclasses, 0);
  for (unsigned l = 0; l < lanes; ++l) {
    if ((live >> l) & 1) cls[rng() % nclasses] |= 1u << l;
  }
  c.members.assign(lanes, 0);
  c.value.assign(lanes, 0);
  c.control.assign(lanes, 0);
  for (uint32_t k : cls) {
    const bool complete = rng() % 4 != 0;
    for (unsigned l = 0; l < lanes; ++l) {
      if ((k >> l) & 1) {
        c.members[l] = k;
        if (complete) c.active |= 1u << l;
      }
    }
  }
  const bool few_values = rng() % 2 == 0;  // repeated keys for match
  for (unsigned l = 0; l < lanes; ++l) {
    if (((live >> l) & 1) == 0) c.members[l] = static_cast<uint32_t>(rng()) & all;  // never looked at
    c.value[l] = few_values ? (rng() % 3) * 0x100000001ull : corner_operand(rng, xlen);
    if (xlen == 32) c.value[l] &= 0xFFFFFFFFu;
    const unsigned width = 1u << (rng() % 6);
    c.control[l] = (rng() & ~0x1F1Full) | (rng() % 32) | (((32 - width) & 31) << 8);
    if (xlen == 32) c.control[l] &= 0xFFFFFFFFu;
  }
  return c;
}

template <class V>
void check_xbar(unsigned lanes, unsigned xlen, unsigned cases, uint64_t seed) {
  Bench<V> bench;
  std::mt19937_64 rng(seed);
  for (unsigned n = 0; n < cases; ++n) {
    const XbarCase c = random_case(rng, lanes, xlen);
    bench->funct3_i = c.funct3;
    bench->funct7_i = c.funct7;
    bench->active_i = c.active;
    for (unsigned l = 0; l < lanes; ++l) {
      put(bench->members_i, l * lanes, lanes, c.members[l]);
      put(bench->value_i, l * xlen, xlen, c.value[l]);
      put(bench->control_i, l * xlen, xlen, c.control[l]);
    }
    bench.eval();
    const std::vector<uint64_t> want = reference(c, lanes, xlen);
    for (unsigned l = 0; l < lanes; ++l) {
      const uint64_t got = get(bench->result_o, l * xlen, xlen);
      ASSERT_EQ(got, want[l]) << "case " << n << " funct3 " << c.funct3 << " funct7 " << c.funct7 << " lane "
                              << l << " active 0x" << std::hex << c.active << " members 0x" << c.members[l];
    }
  }
}

TEST(WarpXbar, RandomOps8LanesRv64) { check_xbar<Vwarp_xbar8>(8, 64, 20000, 1); }
TEST(WarpXbar, RandomOps32LanesRv32) { check_xbar<Vwarp_xbar32>(32, 32, 5000, 2); }

TEST(WarpXbar, ShuffleCornersOfTheSegmentRule) {
  // Every lane, delta and width of each mode on 32 lanes.
  Bench<Vwarp_xbar32> bench;
  XbarCase c;
  c.funct3 = 2;
  c.active = ~0u;
  c.members.assign(32, ~0u);
  c.value.resize(32);
  c.control.resize(32);
  for (unsigned l = 0; l < 32; ++l) c.value[l] = 0x1000u + l;
  for (unsigned mode = 0; mode < 4; ++mode) {
    for (unsigned width = 1; width <= 32; width *= 2) {
      for (unsigned b = 0; b < 32; ++b) {
        c.funct7 = mode;
        for (unsigned l = 0; l < 32; ++l) c.control[l] = b | (((32 - width) & 31) << 8);
        bench->funct3_i = 2;
        bench->funct7_i = mode;
        bench->active_i = c.active;
        for (unsigned l = 0; l < 32; ++l) {
          put(bench->members_i, l * 32, 32, c.members[l]);
          put(bench->value_i, l * 32, 32, c.value[l]);
          put(bench->control_i, l * 32, 32, c.control[l]);
        }
        bench.eval();
        const std::vector<uint64_t> want = reference(c, 32, 32);
        for (unsigned l = 0; l < 32; ++l) {
          ASSERT_EQ(get(bench->result_o, l * 32, 32), want[l])
              << "mode " << mode << " width " << width << " b " << b << " lane " << l;
        }
      }
    }
  }
}

// kestrel_warp_conv: complete classes among the lanes present.
uint32_t conv_reference(uint32_t here, const std::vector<uint32_t>& masks, uint32_t live, unsigned lanes) {
  uint32_t ready = 0;
  for (uint32_t pending = here; pending != 0;) {
    const unsigned first = static_cast<unsigned>(__builtin_ctz(pending));
    uint32_t same = 0;
    for (unsigned l = 0; l < lanes; ++l) {
      if ((pending >> l) & 1 && masks[l] == masks[first]) same |= 1u << l;
    }
    pending &= ~same;
    if ((masks[first] & live & ~same) == 0) ready |= same;
  }
  return ready;
}

TEST(WarpConv, RandomClasses8Lanes) {
  Bench<Vwarp_conv8> bench;
  std::mt19937_64 rng(3);
  constexpr unsigned kLanes = 8;
  for (unsigned n = 0; n < 50000; ++n) {
    const uint32_t candidates[4] = {static_cast<uint32_t>(rng() & 0xFF), static_cast<uint32_t>(rng() & 0xFF),
                                    0xFF, static_cast<uint32_t>(rng() & 0xFF)};
    std::vector<uint32_t> masks(kLanes);
    for (unsigned l = 0; l < kLanes; ++l) masks[l] = candidates[rng() % 4];
    const uint32_t here = static_cast<uint32_t>(rng() & 0xFF);
    const uint32_t live = (rng() % 2 ? 0xFFu : static_cast<uint32_t>(rng() & 0xFF)) | here;
    bench->here_i = here;
    bench->live_i = live;
    for (unsigned l = 0; l < kLanes; ++l) put(bench->masks_i, l * kLanes, kLanes, masks[l]);
    bench.eval();
    ASSERT_EQ(bench->ready_o, conv_reference(here, masks, live, kLanes))
        << "case " << n << " here 0x" << std::hex << here << " live 0x" << live;
  }
}

}  // namespace
}  // namespace kestrel::rtlbench
