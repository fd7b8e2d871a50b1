// Every fault kind of docs/isa.md section 7, with the PC, address, block,
// thread, SM and warp it records (the lowest faulting lane).
#include <functional>
#include <string>

#include "harness.hpp"

namespace kestrel::model::test {
namespace {

struct Expected {
  kestrel_fault_kind kind;
  uint64_t pc_offset;
  uint64_t addr;
  uint32_t thread_x;
};

// Runs `body` in threads of a 2-block grid of 16-thread blocks; only block 1's
// thread 13 (lane 5 of warp 1) and above execute the faulting part.
Fault run_faulting(unsigned xlen, const std::function<void(Assembler&)>& body, uint64_t* body_pc,
                   LaunchDesc* tweak = nullptr) {
  Assembler a(xlen);
  a.csrr(t0, KESTREL_CSR_CTAID_X);
  a.beq(t0, zero, "done");
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(t1, 13);
  a.blt(t0, t1, "done");
  *body_pc = a.here();
  body(a);
  a.bind("done");
  a.kx_exit();
  TestGpu g(xlen, 8, 2, 4);
  g.load(a);
  LaunchDesc d = g.desc({2, 1, 1}, {16, 1, 1});
  d.shared_static = 32;
  if (tweak) {
    d.stack_bytes = tweak->stack_bytes;
    d.cycle_budget = tweak->cycle_budget;
  }
  EXPECT_EQ(g.run(d), LaunchState::kFault);
  return g.gpu().fault();
}

void expect_fault(const Fault& f, kestrel_fault_kind kind, uint64_t pc, uint64_t addr) {
  EXPECT_EQ(f.kind, kind);
  EXPECT_EQ(f.pc, pc);
  EXPECT_EQ(f.addr, addr);
  EXPECT_EQ(f.block.x, 1u);
  EXPECT_EQ(f.thread.x, 13u);
  EXPECT_EQ(f.warp, 1u);
  EXPECT_EQ(f.sm, 1u);  // block 1 runs on SM 1
}

class Faults : public ::testing::TestWithParam<unsigned> {};

TEST_P(Faults, Misaligned) {
  uint64_t at = 0;
  const Fault f = run_faulting(
      GetParam(), [](Assembler& a) { a.lw(t2, a0, 2); }, &at);
  expect_fault(f, KESTREL_FAULT_MISALIGNED, kCode + at, kData + 2);
}

TEST_P(Faults, MisalignedAmoAndStore) {
  uint64_t at = 0;
  Fault f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.addi(t2, a0, 6);
        a.amo(0, 4, t3, t2, t1);
      },
      &at);
  expect_fault(f, KESTREL_FAULT_MISALIGNED, kCode + at + 4, kData + 6);
  f = run_faulting(
      GetParam(), [](Assembler& a) { a.sh(t1, a0, 1); }, &at);
  expect_fault(f, KESTREL_FAULT_MISALIGNED, kCode + at, kData + 1);
}

TEST_P(Faults, NullGuardAndUnmappedAndOutsideEverything) {
  uint64_t at = 0;
  Fault f = run_faulting(
      GetParam(), [](Assembler& a) { a.lw(t2, zero, 16); }, &at);
  expect_fault(f, KESTREL_FAULT_ILLEGAL_ADDRESS, kCode + at, 16);
  f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.li(t2, static_cast<int64_t>(kUnmapped));
        a.sw(t1, t2, 0);
      },
      &at);
  EXPECT_EQ(f.kind, KESTREL_FAULT_ILLEGAL_ADDRESS);
  EXPECT_EQ(f.addr, kUnmapped);
  f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.li(t2, 0xE0000000ll);
        a.lb(t3, t2, 0);
      },
      &at);
  EXPECT_EQ(f.kind, KESTREL_FAULT_ILLEGAL_ADDRESS);
  EXPECT_EQ(f.addr, 0xE0000000u);
}

TEST(Faults64, HighAddressBitsAreIllegal) {
  uint64_t at = 0;
  const Fault f = run_faulting(
      64,
      [](Assembler& a) {
        a.li(t2, 1);
        a.slli(t2, t2, 32);
        a.add(t2, t2, a0);  // a valid address plus bit 32
        a.ld(t3, t2, 0);
      },
      &at);
  expect_fault(f, KESTREL_FAULT_ILLEGAL_ADDRESS, kCode + at + 12, (1ull << 32) + kData);
}

TEST_P(Faults, SharedBounds) {
  uint64_t at = 0;
  Fault f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.csrr(t2, KESTREL_CSR_SHARED_BASE);
        a.sw(t1, t2, 28);
        a.sw(t1, t2, 32);
      },
      &at);
  expect_fault(f, KESTREL_FAULT_SHARED_BOUNDS, kCode + at + 8, kShared + 32u);
}

// s[threadIdx.x - 1] at thread 0, or an index far past the block's shared
// memory, must not reach global memory (docs/isa.md section 4): a guard of
// KESTREL_SHARED_GUARD bytes on each side of the window faults too.
TEST_P(Faults, SharedGuardsOnBothSidesOfTheWindow) {
  const uint32_t window = Config{}.shared_bytes_per_sm;
  const struct {
    int64_t offset;  // from the shared window base
    kestrel_fault_kind kind;
  } cases[] = {
      {-4, KESTREL_FAULT_SHARED_BOUNDS},
      {-int64_t{KESTREL_SHARED_GUARD}, KESTREL_FAULT_SHARED_BOUNDS},
      {window + KESTREL_SHARED_GUARD - 4, KESTREL_FAULT_SHARED_BOUNDS},
      {window + KESTREL_SHARED_GUARD, KESTREL_FAULT_NONE},  // past the guard: global memory, unmapped here
  };
  for (const auto& c : cases) {
    uint64_t at = 0;
    const Fault f = run_faulting(
        GetParam(),
        [&](Assembler& a) {
          a.li(t2, int64_t{kShared} + c.offset);
          a.sw(t1, t2, 0);
        },
        &at);
    const uint64_t addr = uint64_t(int64_t{kShared} + c.offset);
    if (c.kind == KESTREL_FAULT_NONE) {
      EXPECT_EQ(f.kind, KESTREL_FAULT_ILLEGAL_ADDRESS) << c.offset;
    } else {
      EXPECT_EQ(f.kind, c.kind) << c.offset;
    }
    EXPECT_EQ(f.addr, addr) << c.offset;
  }
}

// A stack overflow runs below the local window into its guard.
TEST_P(Faults, StackOverflowBelowTheLocalWindow) {
  uint64_t at = 0;
  Fault f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.li(t2, KESTREL_LOCAL_BASE);
        a.sw(t1, t2, -4);  // the offset wraps: 0xFFFFFFFC + 4 bytes
      },
      &at);
  EXPECT_EQ(f.kind, KESTREL_FAULT_LOCAL_BOUNDS);
  EXPECT_EQ(f.addr, KESTREL_LOCAL_BASE - 4u);
  f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.li(t2, KESTREL_LOCAL_GUARD_BASE);
        a.sw(t1, t2, -4);
      },
      &at);
  EXPECT_EQ(f.kind, KESTREL_FAULT_ILLEGAL_ADDRESS);
  EXPECT_EQ(f.addr, KESTREL_LOCAL_GUARD_BASE - 4u);
}

TEST_P(Faults, LocalBoundsAndStackWorks) {
  uint64_t at = 0;
  LaunchDesc tweak;
  tweak.stack_bytes = 256;
  // Push and pop on the stack, then run off its top.
  Fault f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.addi(sp, sp, -16);
        a.sw(t0, sp, 0);
        a.lw(t2, sp, 0);
        a.addi(sp, sp, 16);
        a.sw(t2, sp, 0);  // sp = window top: out of bounds
      },
      &at, &tweak);
  expect_fault(f, KESTREL_FAULT_LOCAL_BOUNDS, kCode + at + 16, KESTREL_LOCAL_BASE + 256u);
}

TEST_P(Faults, WriteProtect) {
  uint64_t at = 0;
  Fault f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.li(t2, static_cast<int64_t>(kReadOnly));
        a.lw(t3, t2, 0);  // reading is fine
        a.sw(t3, t2, 8);
      },
      &at);
  EXPECT_EQ(f.kind, KESTREL_FAULT_WRITE_PROTECT);
  EXPECT_EQ(f.addr, kReadOnly + 8);
  EXPECT_EQ(f.thread.x, 13u);
  f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.li(t2, static_cast<int64_t>(kCode));
        a.sw(t3, t2, 0);
      },
      &at);
  EXPECT_EQ(f.kind, KESTREL_FAULT_WRITE_PROTECT) << "code pages are R+X";
}

TEST_P(Faults, FetchFromDataAndMisalignedPc) {
  uint64_t at = 0;
  Fault f = run_faulting(
      GetParam(), [](Assembler& a) { a.jalr(zero, a0, 0); }, &at);
  expect_fault(f, KESTREL_FAULT_FETCH, kData, kData);
  f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.auipc(t2, 0);
        a.jalr(zero, t2, 10);
      },
      &at);
  expect_fault(f, KESTREL_FAULT_FETCH, kCode + at + 10, kCode + at + 10);
}

TEST_P(Faults, IllegalInstructionReportsItsWord) {
  uint64_t at = 0;
  const Fault f = run_faulting(
      GetParam(), [](Assembler& a) { a.word(0xFFFFFFFF); }, &at);
  expect_fault(f, KESTREL_FAULT_ILLEGAL_INSTRUCTION, kCode + at, 0);
  EXPECT_EQ(f.info, 0xFFFFFFFFu);
}

TEST_P(Faults, Trap) {
  uint64_t at = 0;
  const Fault f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.li(t2, 7);
        a.kx_trap(t2);
      },
      &at);
  expect_fault(f, KESTREL_FAULT_TRAP, kCode + at + 4, 0);
  EXPECT_EQ(f.info, 7u);
}

TEST_P(Faults, Timeout) {
  uint64_t at = 0;
  LaunchDesc tweak;
  tweak.cycle_budget = 5000;
  const Fault f = run_faulting(
      GetParam(),
      [](Assembler& a) {
        a.bind("forever");
        a.j("forever");
      },
      &at, &tweak);
  EXPECT_EQ(f.kind, KESTREL_FAULT_TIMEOUT);
  EXPECT_EQ(f.pc, kCode + at);
}

TEST_P(Faults, BarrierDeadlock) {
  // Thread 13 and up wait at a barrier; the others spin forever.
  Assembler a(GetParam());
  a.csrr(t0, KESTREL_CSR_TID_X);
  a.li(t1, 13);
  a.blt(t0, t1, "spin");
  const uint32_t barrier_pc = a.here();
  a.kx_bar_sync();
  a.kx_exit();
  a.bind("spin");
  a.j("spin");
  TestGpu g(GetParam(), 8, 1, 4);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {16, 1, 1}), LaunchState::kFault);
  const Fault& f = g.gpu().fault();
  EXPECT_EQ(f.kind, KESTREL_FAULT_BARRIER_DEADLOCK);
  EXPECT_EQ(f.pc, kCode + barrier_pc);
  EXPECT_EQ(f.thread.x, 13u);
  EXPECT_EQ(f.warp, 1u);
}

TEST_P(Faults, LowestFaultingLaneIsReported) {
  // Lanes 2 and 6 of one warp both fault; lane 2 is reported.
  Assembler a(GetParam());
  a.csrr(t0, KESTREL_CSR_LANEID);
  a.andi(t1, t0, 3);
  a.li(t2, 2);
  a.bne(t1, t2, "ok");
  a.lw(t3, zero, 0);
  a.bind("ok");
  a.kx_exit();
  TestGpu g(GetParam(), 8, 1, 1);
  g.load(a);
  ASSERT_EQ(g.run({1, 1, 1}, {8, 1, 1}), LaunchState::kFault);
  EXPECT_EQ(g.gpu().fault().thread.x, 2u);
  EXPECT_EQ(g.gpu().fault().kind, KESTREL_FAULT_ILLEGAL_ADDRESS);
}

TEST(FaultsLaunch, ImpossibleConfigurationsFailCleanly) {
  TestGpu g(64, 8, 1, 4);
  Assembler a(64);
  a.kx_exit();
  g.load(a);
  EXPECT_THROW(g.run({1, 1, 1}, {33, 1, 1}), Error);  // 5 warps > 4 per SM
  EXPECT_THROW(g.run({0, 1, 1}, {1, 1, 1}), Error);
  EXPECT_THROW(g.run({1, 1, 1}, {0, 1, 1}), Error);
  LaunchDesc d = g.desc({1, 1, 1}, {1, 1, 1});
  d.shared_dyn = 1u << 20;
  EXPECT_THROW(g.run(d), Error);
  d = g.desc({1, 1, 1}, {1, 1, 1});
  d.stack_bytes = 1u << 25;
  EXPECT_THROW(g.run(d), Error);
  EXPECT_EQ(g.run({1, 1, 1}, {32, 1, 1}), LaunchState::kDone);  // and the model still works
}

// The checks at START that the model and the RTL backend share
// (model::launch_refusal): each refusal, and the limits themselves accepted.
TEST(FaultsLaunch, LaunchRefusalsNameTheirReason) {
  Config c;
  c.lanes_per_warp = 8;
  c.warps_per_sm = 4;
  c.shared_bytes_per_sm = 1024;
  c.max_threads_per_block = 32;
  auto refusal = [&](auto tweak) {
    LaunchDesc d;
    d.grid = Dim3{1, 1, 1};
    d.block = Dim3{32, 1, 1};
    tweak(d);
    const char* why = launch_refusal(d, c);
    return std::string(why ? why : "");
  };
  EXPECT_EQ(refusal([](LaunchDesc&) {}), "");
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.grid.z = 0; }), "grid dimensions must be non-zero");
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.grid.y = 0x10000; }), "grid y and z must be below 65536");
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.grid.y = 0xFFFF; }), "");
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.block.y = 0; }), "block dimensions must be non-zero");
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.block.x = 33; }), "block has more threads than the device maximum");
  c.max_threads_per_block = 64;
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.block.x = 33; }), "block needs more warps than an SM has");
  EXPECT_EQ(refusal([](LaunchDesc& d) {
              d.shared_static = 1000;
              d.shared_dyn = 25;
            }),
            "block needs more shared memory than an SM has");
  // The window of 1 KiB and a guard on each side must lie in 32 bits.
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.shared_base = 0xFFFFFC00u - KESTREL_SHARED_GUARD; }), "");
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.shared_base = 0xFFFFFC01u - KESTREL_SHARED_GUARD; }),
            "shared window and its guards do not fit in 32 bits");
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.shared_base = KESTREL_SHARED_GUARD; }), "");
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.shared_base = KESTREL_SHARED_GUARD - 1; }),
            "shared window and its guards do not fit in 32 bits");
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.stack_bytes = KESTREL_LOCAL_LIMIT - KESTREL_LOCAL_BASE; }), "");
  EXPECT_EQ(refusal([](LaunchDesc& d) { d.stack_bytes = KESTREL_LOCAL_LIMIT - KESTREL_LOCAL_BASE + 1; }),
            "stack_bytes exceeds the local window");
}

TEST(FaultsLaunch, BadModelConfigurationsAreRejected) {
  auto make = [](auto tweak) {
    Config c;
    c.mem_bytes = 1u << 20;
    tweak(c);
    Gpu g(c);
  };
  EXPECT_THROW(make([](Config& c) { c.xlen = 16; }), Error);
  EXPECT_THROW(make([](Config& c) { c.lanes_per_warp = 12; }), Error);
  EXPECT_THROW(make([](Config& c) { c.lanes_per_warp = 0; }), Error);
  EXPECT_THROW(make([](Config& c) { c.lanes_per_warp = 64; }), Error);
  EXPECT_THROW(make([](Config& c) { c.num_sms = 0; }), Error);
  EXPECT_THROW(make([](Config& c) { c.warps_per_sm = 300; }), Error);
  EXPECT_THROW(make([](Config& c) { c.mem_bytes = 1000; }), Error);
  EXPECT_THROW(make([](Config& c) { c.shared_bytes_per_sm = 100; }), Error);
  EXPECT_NO_THROW(make([](Config&) {}));
}

TEST(FaultsLaunch, HostMemoryAccessIsBoundsChecked) {
  TestGpu g(64);
  uint8_t buffer[16] = {};
  EXPECT_THROW(g.gpu().write_mem(0, buffer, 4), Error);
  EXPECT_THROW(g.gpu().read_mem(KESTREL_GLOBAL_BASE + (1u << 20) - 8, buffer, 16), Error);
  EXPECT_THROW(g.gpu().read_mem(~0ull - 4, buffer, 8), Error);
  EXPECT_THROW(g.gpu().map_pages(kData + 4, 1, KESTREL_PAGE_READ), Error);
  EXPECT_THROW(g.gpu().map_pages(kData, 1000, KESTREL_PAGE_READ), Error);
  EXPECT_THROW(g.gpu().map_pages(kData, 1, 0x80), Error);
  EXPECT_NO_THROW(g.gpu().read_mem(KESTREL_GLOBAL_BASE + (1u << 20) - 16, buffer, 16));
}

INSTANTIATE_TEST_SUITE_P(Xlen, Faults, ::testing::Values(32u, 64u),
                         [](const auto& param_info) { return "Rv" + std::to_string(param_info.param); });

}  // namespace
}  // namespace kestrel::model::test
