// Lab 05's RTL bench (make check): decodes kx.popc.add and other
// instructions with the student's kestrel_decoder and computes them with the
// student's kestrel_alu (lab05_exec.sv), against a C++ reference.  Prints one
// line per failed case (at most 5) and "rtl bench: N cases, K wrong".
#include <cstdint>
#include <cstdio>
#include <random>

#include "Vlab05_exec.h"
#include "verilated.h"

namespace {

constexpr uint32_t kClassAlu = 0;
constexpr uint32_t kClassIllegal = 12;

uint32_t r_type(uint32_t opcode, uint32_t funct3, uint32_t funct7, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode;
}

// kx.popc.add rd, rs1, rs2 (docs/isa.md): rd = sext32(popcount(rs1[31:0]) + rs2[31:0]).
uint64_t popc_add(uint64_t a, uint64_t b) {
  const uint32_t sum =
      static_cast<uint32_t>(__builtin_popcount(static_cast<uint32_t>(a))) + static_cast<uint32_t>(b);
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(sum)));
}

}  // namespace

int main(int argc, char** argv) {
  Verilated::commandArgs(argc, argv);
  Vlab05_exec top;
  int cases = 0, wrong = 0;
  auto report = [&](const char* what, uint32_t instr, uint64_t a, uint64_t b, uint64_t got, uint64_t want) {
    ++wrong;
    if (wrong <= 5)
      std::printf("rtl bench: %s: instruction 0x%08x rs1=0x%016llx rs2=0x%016llx: got 0x%llx, want 0x%llx\n",
                  what, instr, static_cast<unsigned long long>(a), static_cast<unsigned long long>(b),
                  static_cast<unsigned long long>(got), static_cast<unsigned long long>(want));
  };
  auto run = [&](uint32_t instr, uint64_t a, uint64_t b) {
    top.instr_i = instr;
    top.rs1_i = a;
    top.rs2_i = b;
    top.eval();
    ++cases;
  };

  const uint32_t popc = r_type(0x0b, 6, 0, 10, 11, 12);  // kx.popc.add a0, a1, a2
  std::mt19937_64 rng(5);
  const uint64_t edges[] = {0,
                            1,
                            0xffffffffu,
                            0x80000000u,
                            0xffffffff80000000ull,
                            ~0ull,
                            0x5555555555555555ull,
                            0x00000000fffffffeull};
  for (int i = 0; i < 264; ++i) {
    const uint64_t a = i < 64 ? edges[i % 8] : rng();
    const uint64_t b = i < 64 ? edges[i / 8] : rng();
    run(popc, a, b);
    if (top.cls_o != kClassAlu || !top.rd_we_o || !top.rs1_re_o || !top.rs2_re_o) {
      report("kx.popc.add: decoded as class/rd_we/rs1_re/rs2_re != ALU/1/1/1", popc, a, b,
             top.cls_o << 3 | top.rd_we_o << 2 | top.rs1_re_o << 1 | top.rs2_re_o, kClassAlu << 3 | 7);
    } else if (top.result_o != popc_add(a, b)) {
      report("kx.popc.add: wrong result", popc, a, b, top.result_o, popc_add(a, b));
    }
  }
  // funct3 6 with another funct7 stays illegal.
  for (uint32_t funct7 : {1u, 0x20u, 0x7fu}) {
    const uint32_t other = r_type(0x0b, 6, funct7, 10, 11, 12);
    run(other, 1, 2);
    if (top.cls_o != kClassIllegal)
      report("custom-0 funct3 6 with funct7 != 0 must be illegal", other, 1, 2, top.cls_o, kClassIllegal);
  }
  // The instructions that were there keep working: add, addw, xori.
  for (int i = 0; i < 64; ++i) {
    const uint64_t a = rng(), b = rng();
    const uint32_t add = r_type(0x33, 0, 0, 10, 11, 12);
    run(add, a, b);
    if (top.cls_o != kClassAlu || top.result_o != a + b) report("add", add, a, b, top.result_o, a + b);
    const uint32_t addw = r_type(0x3b, 0, 0, 10, 11, 12);
    const uint64_t w =
        static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(a + b))));
    run(addw, a, b);
    if (top.cls_o != kClassAlu || top.result_o != w) report("addw", addw, a, b, top.result_o, w);
  }
  std::printf("rtl bench: %d cases, %d wrong\n", cases, wrong);
  return wrong ? 1 : 0;
}
