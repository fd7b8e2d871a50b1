// Kernels of kernels/faults.cu (and a stack overflow from
// recursion.cu) fault on purpose.  Each test checks the fault's kind and the
// block and thread it names (docs/isa.md section 7), then that the same
// device still runs a correct kernel: a fault ends the launch, not the device.
#include <fstream>
#include <string>
#include <vector>

#include "e2e_support.hpp"

namespace kestrel::e2e {
namespace {

// Thread 37 of a launch of 2 blocks of 32 is thread (5,0,0) of block (1,0,0).
constexpr unsigned kCulprit = 37;
constexpr unsigned kBlockSize = 32;

class FaultTest : public DeviceTest {
 protected:
  // Synchronizes, expecting a launch fault of `kind` in the culprit thread.
  kestrel_fault_info expect_fault(kestrel_fault_kind kind, unsigned culprit = kCulprit) {
    try {
      device().synchronize();
      ADD_FAILURE() << "the launch did not fault";
      return {};
    } catch (const Error& error) {
      EXPECT_EQ(error.status(), KESTREL_ERROR_LAUNCH_FAULT) << error.what();
    }
    const kestrel_fault_info fault = device().fault();
    EXPECT_EQ(fault.kind, kind) << kestrel_fault_kind_name(fault.kind) << ": " << fault.message;
    EXPECT_EQ(fault.block.x, culprit / kBlockSize) << fault.message;
    EXPECT_EQ(fault.thread.x, culprit % kBlockSize) << fault.message;
    EXPECT_EQ(fault.block.y, 0u);
    EXPECT_EQ(fault.thread.y, 0u);
    EXPECT_NE(fault.pc, 0u);
    return fault;
  }

  // After the fault: a fresh module on the same device computes correctly.
  // An integer kernel, so that every backend (the RTL without its FPU too)
  // can show it.
  void expect_device_still_works() {
    Module module = load("saxpy");
    const int n = 100;
    std::vector<int> a(n), b(n, 1000);
    for (int i = 0; i < n; ++i) a[i] = 3 * i;
    DeviceBuffer<int> da(device(), n), db(device(), n), dc(device(), n);
    da.upload(a);
    db.upload(b);
    module.kernel("vector_add_int").launch(Dim3(4), Dim3(32), 0, da, db, dc, n);
    device().synchronize();
    const std::vector<int> c = dc.download();
    for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], 3 * i + 1000) << "element " << i;
  }
};

TEST_P(FaultTest, OutOfBoundsGlobalStore) {
  Module module = load("faults");
  DeviceBuffer<int> data(device(), 64);
  // 16 MiB past a one-page allocation: no other allocation of this test is there.
  module.kernel("fault_out_of_bounds").launch(Dim3(2), Dim3(kBlockSize), 0, data, 64, 16u << 20, kCulprit);
  const kestrel_fault_info fault = expect_fault(KESTREL_FAULT_ILLEGAL_ADDRESS);
  EXPECT_EQ(fault.address, data.ptr() + 64 * sizeof(int) + (16u << 20));
  expect_device_still_works();
}

TEST_P(FaultTest, MisalignedLoad) {
  Module module = load("faults");
  DeviceBuffer<int> data(device(), 64);
  module.kernel("fault_misaligned").launch(Dim3(2), Dim3(kBlockSize), 0, data, 2u, kCulprit);
  const kestrel_fault_info fault = expect_fault(KESTREL_FAULT_MISALIGNED);
  EXPECT_EQ(fault.address, data.ptr() + 2);
  expect_device_still_works();
}

TEST_P(FaultTest, Trap) {
  Module module = load("faults");
  module.kernel("fault_trap").launch(Dim3(2), Dim3(kBlockSize), 0, kCulprit);
  const kestrel_fault_info fault = expect_fault(KESTREL_FAULT_TRAP);
  EXPECT_EQ(fault.info, KESTREL_TRAP_USER);
  expect_device_still_works();
}

// The number of the first line of faults.cu that holds `text`, 0 if none.
unsigned source_line(const std::string& text) {
  std::ifstream source(KESTREL_E2E_KERNEL_SOURCE_DIR "/faults.cu");
  std::string line;
  for (unsigned number = 1; std::getline(source, line); ++number)
    if (line.find(text) != std::string::npos) return number;
  return 0;
}

// The line of the assert() in faults.cu, which the fault reports (a2).
unsigned assert_line() { return source_line("assert(data[i] >= 0);"); }

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// With debug information (module faults_debug: kestrel-cc -g for RV64,
// -lineinfo for RV32) the message names the file and line of the faulting
// instruction and its function, and for a function inlined into the kernel,
// where the kernel calls it; without (module faults) it ends at the module
// offset.
TEST_P(FaultTest, MessageNamesTheSourceLineWithDebugInformation) {
  const std::string file = KESTREL_E2E_KERNEL_SOURCE_DIR "/faults.cu";
  const unsigned store_line = source_line("(data + n) + bytes_past) = 1;");
  const unsigned trap_line = source_line("if (is_culprit(who)) __trap();");
  ASSERT_NE(store_line, 0u);
  ASSERT_NE(trap_line, 0u);
  for (const char* name : {"faults_debug", "faults"}) {
    Module module = load(name);
    DeviceBuffer<int> data(device(), 64);
    module.kernel("fault_out_of_bounds").launch(Dim3(2), Dim3(kBlockSize), 0, data, 64, 16u << 20, kCulprit);
    const std::string message = expect_fault(KESTREL_FAULT_ILLEGAL_ADDRESS).message;
    if (std::string(name) == "faults_debug") {
      EXPECT_TRUE(
          ends_with(message, " at " + file + ":" + std::to_string(store_line) + " (fault_out_of_bounds)"))
          << message;
    } else {
      EXPECT_TRUE(ends_with(message, ")") && message.find(" (module offset 0x") != std::string::npos &&
                  message.find(" at ", message.find(" (module offset 0x")) == std::string::npos)
          << message;
    }
  }
  // __trap() is the SDK's, inlined into the kernel.
  Module module = load("faults_debug");
  module.kernel("fault_trap").launch(Dim3(2), Dim3(kBlockSize), 0, kCulprit);
  const std::string message = expect_fault(KESTREL_FAULT_TRAP).message;
  EXPECT_NE(message.find("kestrel_cuda.h:"), std::string::npos) << message;
  EXPECT_TRUE(ends_with(
      message, " (__trap, inlined into fault_trap at " + file + ":" + std::to_string(trap_line) + ")"))
      << message;
  expect_device_still_works();
}

TEST_P(FaultTest, FailedAssert) {
  KESTREL_NEEDS(Feature::kAmo);  // assert's record: the printf FIFO's amoadd.w
  Module module = load("faults");
  std::vector<int> values(2 * kBlockSize, 1);
  values[kCulprit] = -1;
  DeviceBuffer<int> data(device(), values.size());
  data.upload(values);
  module.kernel("fault_assert").launch(Dim3(2), Dim3(kBlockSize), 0, data);
  const kestrel_fault_info fault = expect_fault(KESTREL_FAULT_ASSERT);
  ASSERT_NE(assert_line(), 0u);
  EXPECT_EQ(fault.info, assert_line());
  expect_device_still_works();
}

TEST_P(FaultTest, NullPointerLoad) {
  Module module = load("faults");
  DeviceBuffer<int> out(device(), 1);
  // An integer parameter the compiler cannot see is null-ish; the guard page catches it.
  module.kernel("fault_null_pointer").launch(Dim3(2), Dim3(kBlockSize), 0, 0x100u, out, kCulprit);
  const kestrel_fault_info fault = expect_fault(KESTREL_FAULT_ILLEGAL_ADDRESS);
  EXPECT_EQ(fault.address, 0x100u);
  expect_device_still_works();
}

TEST_P(FaultTest, IllegalInstruction) {
  Module module = load("faults");
  module.kernel("fault_illegal_instruction").launch(Dim3(2), Dim3(kBlockSize), 0, kCulprit);
  expect_fault(KESTREL_FAULT_ILLEGAL_INSTRUCTION);
  expect_device_still_works();
}

TEST_P(FaultTest, SharedOutOfBounds) {
  Module module = load("faults");
  DeviceBuffer<int> out(device(), kBlockSize);
  module.kernel("fault_shared_bounds").launch(Dim3(2), Dim3(kBlockSize), 0, 100u, out, kCulprit);
  expect_fault(KESTREL_FAULT_SHARED_BOUNDS);
  expect_device_still_works();
}

// s[threadIdx.x - 1] at a block's first thread, and indices far past the
// block's shared memory, fault as CUDA does instead of reading the module's
// globals or another allocation (issue: shared accesses outside the window).
TEST_P(FaultTest, SharedIndexBelowOrFarPastTheArray) {
  Module module = load("shared_guard");
  DeviceBuffer<int> out(device(), 2 * kBlockSize);
  const int shared_per_block = static_cast<int>(device().props().shared_mem_per_block);
  // tile[-1]; the bottom of the guard below; 4,000 bytes past the largest
  // block's shared memory.
  for (const int index : {-1, -16 * 1024, shared_per_block / 4 + 1000}) {
    module.kernel("fault_shared_neighbour").launch(Dim3(2), Dim3(kBlockSize), 0, index, out, kCulprit);
    const kestrel_fault_info fault = expect_fault(KESTREL_FAULT_SHARED_BOUNDS);
    EXPECT_NE(std::string(fault.message).find("shared memory out of bounds"), std::string::npos)
        << "index " << index << ": " << fault.message;
  }
  expect_device_still_works();
}

TEST_P(FaultTest, StoreToConstantMemory) {
  Module module = load("faults");
  module.kernel("fault_write_constant").launch(Dim3(2), Dim3(kBlockSize), 0, kCulprit);
  expect_fault(KESTREL_FAULT_WRITE_PROTECT);
  expect_device_still_works();
}

TEST_P(FaultTest, StackOverflowFromDeepRecursion) {
  Module module = load("recursion");
  DeviceBuffer<int> out(device(), kBlockSize);
  module.kernel("stack_depth").launch(Dim3(1), Dim3(kBlockSize), 0, 3, out);
  device().synchronize();
  for (int v : out.download()) EXPECT_EQ(v, 4 + 3 * 6);  // frame[3] at the bottom, frame[5] = 6 on the way up
  module.kernel("stack_depth").launch(Dim3(1), Dim3(kBlockSize), 0, 1000, out);
  try {
    device().synchronize();
    ADD_FAILURE() << "1000 frames of 64+ bytes did not overflow the 1 KiB stack";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), KESTREL_ERROR_LAUNCH_FAULT);
    const kestrel_fault_info fault = device().fault();
    // The stack grows down out of the local window into the guard below it
    // (docs/isa.md sections 4 and 5): LOCAL_BOUNDS, named a stack overflow.
    EXPECT_EQ(fault.kind, KESTREL_FAULT_LOCAL_BOUNDS) << fault.message;
    EXPECT_NE(std::string(fault.message).find("stack overflow"), std::string::npos) << fault.message;
    EXPECT_LT(fault.address, uint64_t{KESTREL_LOCAL_BASE}) << fault.message;
    EXPECT_GE(fault.address, uint64_t{KESTREL_LOCAL_BASE} - 256) << fault.message;
  }
  expect_device_still_works();
}

INSTANTIATE_TEST_SUITE_P(AllTargets, FaultTest, testing::ValuesIn(all_targets()), target_name);

}  // namespace
}  // namespace kestrel::e2e
