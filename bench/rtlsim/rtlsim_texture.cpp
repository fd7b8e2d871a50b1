// Texture-unit figures on the Verilated GPU (issue 16's "Benchmarks and
// figures"): one SM of 8 warps x 32 lanes (RV64, the "bench1" model), each
// SM's texture unit at its defaults (16 x 4 texel lines, 4 descriptors),
// the ddr3 DRAM model at latency 20.
//
// The texture: 128 x 128 texels of uchar4 read as normalized floats with
// bilinear filtering, normalized coordinates, clamp (a 2D CUDA array, rows
// 512 bytes apart: 16 texels a line).
//
// 1. Warm bilinear fetches: 256 threads each fetch the same point N times
//    (neighbouring texels across a warp, as an image kernel's threads);
//    run with N = 2 and N = 10, the difference per extra fetch gives the
//    unit's throughput with every descriptor and texel cached: thread
//    fetches and texel taps (4 per bilinear fetch) per cycle.
// 2. Resize: a 2x bilinear upscale to 256 x 256 (one thread per output
//    pixel, grid-stride): cycles per pixel, and the texel cache's hit rate
//    over the launch (tex_hits over tex_hits + tex_misses).
//
// Each result is checked against the same fetch in C++
// (kestrel::texture::sample, texture_math.hpp, which the unit matches bit
// for bit); the program exits non-zero when one differs or a launch faults.
// Speeds are figures, never asserted.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bench_launch.hpp"
#include "kestrel/abi.h"
#include "kestrel/abi_contract.h"
#include "kestrel/model/rv_assembler.hpp"
#include "kestrel/texture_math.hpp"
#include "kestrel_contract.hpp"

namespace {

using namespace kestrel::model::rvasm;
using kestrel::bench::kArrays;
using kestrel::bench::kLanes;
using kestrel::bench::kWarps;
using kestrel::bench::kXlen;
namespace tx = kestrel::texture;

constexpr uint32_t kSide = 128;                 // source texels per row and column
constexpr uint32_t kPitch = kSide * 4;          // bytes per row
constexpr uint32_t kOutSide = 2 * kSide;        // the resize's output
constexpr uint64_t kTexels = kArrays;           // the array's texel (0, 0)
constexpr uint64_t kDesc = kArrays + 0x20000;   // its descriptor (a page start)
constexpr uint64_t kOut = kArrays + 0x40000;    // results: one float (component x) per thread or pixel
constexpr uint32_t kThreads = kLanes * kWarps;  // one block filling the SM

uint32_t bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

std::vector<uint8_t> texels() {
  std::vector<uint8_t> t(kPitch * kSide);
  for (uint32_t y = 0; y < kSide; ++y)
    for (uint32_t x = 0; x < kSide; ++x)
      for (uint32_t c = 0; c < 4; ++c)
        t[y * kPitch + 4 * x + c] = static_cast<uint8_t>(x * 7 + y * 13 + c * 61);
  return t;
}

tx::Descriptor sampling() {
  tx::Descriptor d{};
  d.dimension = tx::Dimension::k2D;
  d.width = d.height = kSide;
  d.depth = d.layers = 1;
  for (tx::AddressMode& m : d.address) m = tx::AddressMode::kClamp;
  d.kind = tx::ChannelKind::kUnsigned;
  d.bits_per_channel = 8;
  d.channels = 4;
  d.read_mode = tx::ReadMode::kNormalizedFloat;
  d.normalized_coordinates = true;
  d.filter = tx::FilterMode::kLinear;
  return d;
}

// The descriptor line of the texture (docs/isa.md section 12).
std::vector<uint32_t> descriptor() {
  kestrel::contract::TexDesc d;
  d.base_addr = static_cast<uint32_t>(kTexels);
  d.width = d.height = kSide;
  d.depth = d.layers = 1;
  d.pitch = kPitch;
  d.slice_pitch = kPitch * kSide;
  d.shape = KESTREL_TEX_SHAPE_2D;
  d.channel_kind = KESTREL_TEX_CHANNEL_UNSIGNED;
  d.channel_size = 0;
  d.channels = 4;
  d.address_x = d.address_y = d.address_z = KESTREL_TEX_ADDRESS_CLAMP;
  d.filter = true;  // linear
  d.read_normalized = true;
  d.normalized_coords = true;
  d.unit_fetch = true;
  std::vector<uint32_t> words(kestrel::contract::tex_desc::kWords);
  d.pack(words.data());
  return words;
}

// What the unit must return for component x at (u, v).
uint32_t expected(const std::vector<uint8_t>& t, float u, float v) {
  const tx::Descriptor d = sampling();
  struct Reader {
    const std::vector<uint8_t>* t;
    void operator()(int x, int y, int, int, uint8_t* out) const {
      std::memcpy(out, t->data() + static_cast<size_t>(y) * kPitch + 4 * static_cast<size_t>(x), 4);
    }
  };
  Reader read{&t};
  return tx::sample(d, read, u, v, 0.0f, 0, 256).v[0];
}

// Section 1: thread i fetches at ((i % 32) + 0.5, (i / 32) + 0.25) texels,
// normalized, `fetches` times; stores component x of the last.
Assembler warm_kernel(uint32_t fetches) {
  Assembler a(kXlen);
  a.global_index_x(t0, t2);
  a.ld(s2, a0, 0);  // the object
  a.ld(s3, a0, 8);  // out
  a.andi(t3, t0, 31);
  a.fcvt_s_w(f(8), t3, kRne);
  a.srli(t3, t0, 5);
  a.fcvt_s_w(f(9), t3, kRne);
  a.li(t3, bits(0.5f));
  a.fmv_w_x(f(11), t3);
  a.fadd(f(8), f(8), f(11), kRne);
  a.li(t3, bits(0.25f));
  a.fmv_w_x(f(11), t3);
  a.fadd(f(9), f(9), f(11), kRne);
  a.li(t3, bits(1.0f / kSide));
  a.fmv_w_x(f(11), t3);
  a.fmul(f(8), f(8), f(11), kRne);
  a.fmul(f(9), f(9), f(11), kRne);
  a.fmv_w_x(f(10), zero);
  a.li(s4, fetches);
  a.bind("loop");
  a.kx_tex(KESTREL_TEX_FORM_2D, f(0), s2, zero, f(8));
  a.addi(s4, s4, -1);
  a.bne(s4, zero, "loop");
  a.slli(t3, t0, 2);
  a.add(t3, s3, t3);
  a.fsw(f(0), t3, 0);
  a.kx_exit();
  return a;
}

// Section 2: output pixel p = (p % 256, p / 256) at ((x + 0.5) / 256,
// (y + 0.5) / 256), grid-stride over the 65,536 pixels.
Assembler resize_kernel() {
  Assembler a(kXlen);
  a.global_index_x(t0, t1, t2);
  a.ld(s2, a0, 0);
  a.ld(s3, a0, 8);
  a.li(s5, kOutSide * kOutSide);
  a.li(t3, bits(0.5f));
  a.fmv_w_x(f(12), t3);
  a.li(t3, bits(1.0f / kOutSide));
  a.fmv_w_x(f(13), t3);
  a.fmv_w_x(f(10), zero);
  a.bind("loop");
  a.andi(t3, t0, kOutSide - 1);
  a.fcvt_s_w(f(8), t3, kRne);
  a.srli(t3, t0, 8);
  a.fcvt_s_w(f(9), t3, kRne);
  a.fadd(f(8), f(8), f(12), kRne);
  a.fadd(f(9), f(9), f(12), kRne);
  a.fmul(f(8), f(8), f(13), kRne);
  a.fmul(f(9), f(9), f(13), kRne);
  a.kx_tex(KESTREL_TEX_FORM_2D, f(0), s2, zero, f(8));
  a.slli(t3, t0, 2);
  a.add(t3, s3, t3);
  a.fsw(f(0), t3, 0);
  a.add(t0, t0, t1);
  a.bltu(t0, s5, "loop");
  a.kx_exit();
  return a;
}

struct Run {
  uint64_t cycles = 0, hits = 0, misses = 0, desc_misses = 0;
  std::vector<uint32_t> out;
};

Run run(const Assembler& kernel, uint32_t outputs) {
  const auto harness = kestrel::bench::make_bench1({{"dram", "ddr3"}, {"mem_latency", "20"}});
  kestrel::Transport& gpu = *harness;
  const std::vector<uint8_t> t = texels();
  kestrel::bench::map(gpu, kTexels, 0x20000 / KESTREL_PAGE_SIZE, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  kestrel::bench::map(gpu, kDesc, 1, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  kestrel::bench::map(gpu, kOut, 0x40000 / KESTREL_PAGE_SIZE, KESTREL_PAGE_READ | KESTREL_PAGE_WRITE);
  gpu.write_mem(kTexels, t.data(), t.size());
  const std::vector<uint32_t> desc = descriptor();
  gpu.write_mem(kDesc, desc.data(), desc.size() * 4);
  kestrel::bench::run_launch(gpu, kestrel::bench::kLayout, Assembler(kernel).finish(), {kDesc, kOut}, 1,
                             kThreads, "rtlsim_texture");
  Run r;
  r.cycles = kestrel::bench::counter(gpu, KESTREL_CNT_CYCLES);
  r.hits = kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_TEX_HITS);
  r.misses = kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_TEX_MISSES);
  r.desc_misses = kestrel::bench::mem_counter(gpu, KESTREL_MEM_CNT_TEX_DESC_MISSES);
  r.out.resize(outputs);
  gpu.read_mem(kOut, r.out.data(), outputs * 4);
  return r;
}

bool check(const Run& r, const std::vector<float>& u, const std::vector<float>& v, const char* what) {
  const std::vector<uint8_t> t = texels();
  for (size_t i = 0; i < r.out.size(); ++i) {
    const uint32_t want = expected(t, u[i], v[i]);
    if (r.out[i] != want) {
      std::fprintf(stderr, "rtlsim_texture: %s: output %zu is 0x%08x, the reference 0x%08x\n", what, i,
                   r.out[i], want);
      return false;
    }
  }
  return true;
}

}  // namespace

int main() {
  std::printf(
      "rtlsim_texture: kx.tex on the Verilated kestrel_gpu, 1 SM x %u warps x %u lanes, RV%u; a %ux%u "
      "uchar4 texture, bilinear, normalized coordinates; ddr3 at latency 20\n",
      kWarps, kLanes, kXlen, kSide, kSide);
  bool ok = true;
  // 1. warm bilinear fetches
  std::vector<float> u(kThreads), v(kThreads);
  for (uint32_t i = 0; i < kThreads; ++i) {
    u[i] = (static_cast<float>(i % 32) + 0.5f) * (1.0f / kSide);
    v[i] = (static_cast<float>(i / 32) + 0.25f) * (1.0f / kSide);
  }
  const Run few = run(warm_kernel(2), kThreads);
  const Run many = run(warm_kernel(10), kThreads);
  ok = check(few, u, v, "warm, 2 fetches") && check(many, u, v, "warm, 10 fetches") && ok;
  const double cycles = static_cast<double>(many.cycles - few.cycles);
  const double fetches = 8.0 * kThreads;
  const double taps = static_cast<double>(many.hits + many.misses - few.hits - few.misses);
  std::printf(
      "warm bilinear: %.0f cycles per extra warp-wide round (%u warps), %.3f thread fetches/cycle, "
      "%.3f texel taps/cycle; texel lines read %llu / %llu, descriptor lines %llu / %llu (2 / 10 "
      "fetches)\n",
      cycles / 8, kWarps, fetches / cycles, taps / cycles, static_cast<unsigned long long>(few.misses),
      static_cast<unsigned long long>(many.misses), static_cast<unsigned long long>(few.desc_misses),
      static_cast<unsigned long long>(many.desc_misses));
  // 2. resize
  const uint32_t pixels = kOutSide * kOutSide;
  std::vector<float> ru(pixels), rv(pixels);
  for (uint32_t p = 0; p < pixels; ++p) {
    ru[p] = (static_cast<float>(p % kOutSide) + 0.5f) * (1.0f / kOutSide);
    rv[p] = (static_cast<float>(p / kOutSide) + 0.5f) * (1.0f / kOutSide);
  }
  const Run resize = run(resize_kernel(), pixels);
  ok = check(resize, ru, rv, "resize") && ok;
  const double lookups = static_cast<double>(resize.hits + resize.misses);
  std::printf(
      "resize %ux%u -> %ux%u: %llu cycles, %.2f cycles/pixel, %.3f texel taps/cycle, texel cache hit "
      "rate %.1f%% (%llu hits, %llu lines read), %llu descriptor lines\n",
      kSide, kSide, kOutSide, kOutSide, static_cast<unsigned long long>(resize.cycles),
      static_cast<double>(resize.cycles) / pixels, lookups / static_cast<double>(resize.cycles),
      lookups == 0 ? 0.0 : 100.0 * static_cast<double>(resize.hits) / lookups,
      static_cast<unsigned long long>(resize.hits), static_cast<unsigned long long>(resize.misses),
      static_cast<unsigned long long>(resize.desc_misses));
  return ok ? 0 : 1;
}
