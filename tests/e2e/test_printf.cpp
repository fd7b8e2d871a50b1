// kernels/printf.cu on every backend and XLEN: device printf
// records formatted by the runtime at synchronization (guide B.17), FIFO
// overflow, CUDA's assert message (B.16).  The device's output function
// captures what the runtime would print.
#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_support.hpp"

namespace kestrel::e2e {
namespace {

struct Captured {
  std::string out, err;
  int calls = 0;
};

void capture(void* user, int stream, const char* text, size_t bytes) {
  Captured& c = *static_cast<Captured*>(user);
  (stream == 2 ? c.err : c.out).append(text, bytes);
  ++c.calls;
}

std::string host_format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string host_format(const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return text;
}

class PrintfTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    ASSERT_EQ(kestrel_device_set_output(device().handle(), capture, &captured_), KESTREL_SUCCESS);
  }
  Captured captured_;
};

TEST_P(PrintfTest, GuideHelloFromEveryThreadAtSynchronize) {
  KESTREL_NEEDS(Feature::kAmo, Feature::kFloat);
  Module module = load("printf");
  module.kernel("hello").launch(Dim3(1), Dim3(5), 0, 1.2345f);
  EXPECT_EQ(captured_.out, "") << "nothing is printed before the launch is retired";
  device().synchronize();
  std::string expected;
  for (int t = 0; t < 5; ++t) expected += host_format("Hello thread %d, f=%f\n", t, 1.2345f);
  EXPECT_EQ(captured_.out, expected);
  EXPECT_EQ(captured_.err, "");
}

TEST_P(PrintfTest, FormatSpecifiersMatchTheHostLibrary) {
  KESTREL_NEEDS(Feature::kAmo);
  Module module = load("printf");
  const char text[] = "device";
  DeviceBuffer<char> device_text(device(), sizeof text);
  device_text.upload(text, sizeof text);
  const int i = 4711;
  const long long big = -1234567890123LL;
  const double d = 6.02214076e23;
  module.kernel("formats").launch(Dim3(2), Dim3(32), 0, device_text, i, big, d);
  device().synchronize();
  // long is 32 bits on RV32 (ILP32): %ld of a (long) cast prints the low word there.
  const long long device_long = xlen() == 32 ? static_cast<int32_t>(big) : big;
  std::string expected;
  expected += host_format("int %d %i %5d|%-5d|%05d %+d\n", i, -i, i, i, i, i);
  expected +=
      host_format("unsigned %u %x %X %o %#x %#o\n", static_cast<unsigned>(i), 0xBEEFu, 0xBEEFu, 8u, 255u, 8u);
  const unsigned long long device_ulong =
      static_cast<unsigned long long>(device_long) & (xlen() == 32 ? 0xFFFFFFFFull : ~0ull);
  expected += host_format("long %lld %lld %llu %llx %hd %hhu\n", device_long, big,
                          static_cast<unsigned long long>(big), device_ulong, static_cast<short>(70000),
                          static_cast<unsigned char>(300));
  expected += "char Kes\n";
  expected += host_format("float %f %.3f %e %E %g %G %10.2f|\n", 3.14159f, 2.5f, 12345.678, 0.000123, d,
                          1e-10, -1.5f);
  expected += host_format("hex float %a %A\n", 1.0, -0.5);
  expected +=
      host_format("string [%s] [%10s] [%-6s] [%.3s] [%s]\n", "literal", "device", "ab", "truncated", "local");
  expected += host_format("star [%*d] [%-*d] ", 6, 42, 4, 7) + "[%.*f]\n";  // CUDA: no '*' precision
  expected += "percent 100% done, null string (null)\n";
  expected += "no arguments\n";
  expected += "missing 1 %d\n";
  expected += "pointer (nil)\n";
  EXPECT_EQ(captured_.out, expected);
}

TEST_P(PrintfTest, ArgumentsBeyondThirtyTwoAreIgnored) {
  KESTREL_NEEDS(Feature::kAmo);
  Module module = load("printf");
  module.kernel("too_many_arguments").launch(Dim3(1), Dim3(1), 0);
  device().synchronize();
  std::string expected;
  for (int k = 1; k <= 32; ++k) expected += std::to_string(k) + " ";
  EXPECT_EQ(captured_.out, expected + "%d\n");
}

TEST_P(PrintfTest, ReturnValues) {
  KESTREL_NEEDS(Feature::kAmo);
  Module module = load("printf");
  DeviceBuffer<int> out(device(), 3);
  module.kernel("return_values").launch(Dim3(1), Dim3(1), 0, out);
  device().synchronize();
  EXPECT_EQ(out.download(), (std::vector<int>{2, 0, -1}));
  EXPECT_EQ(captured_.out, "two 1 2\nnone\n");
}

TEST_P(PrintfTest, FullFifoDropsRecordsAndSaysSo) {
  // Its two blocks on two SMs race for the FIFO: GPU-level lock-step follows
  // the RTL's order of the head's atomic adds (docs/microarchitecture.md).
  KESTREL_NEEDS(Feature::kAmo);
  Module module = load("printf");
  device().set_limit(KESTREL_LIMIT_PRINTF_FIFO_BYTES, 4096);
  uint64_t fifo_bytes = 0;
  ASSERT_EQ(kestrel_device_get_limit(device().handle(), KESTREL_LIMIT_PRINTF_FIFO_BYTES, &fifo_bytes),
            KESTREL_SUCCESS);
  EXPECT_EQ(fifo_bytes, 4096u);
  module.kernel("flood").launch(Dim3(2), Dim3(32), 0, 4);  // 256 records of 56+ bytes: more than 4 KiB
  device().synchronize();
  std::istringstream lines(captured_.out);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    EXPECT_EQ(line.rfind("block ", 0), 0u) << line;
  }
  EXPECT_GT(count, 0);
  EXPECT_LT(count, 256);
  EXPECT_NE(captured_.err.find("dropped"), std::string::npos) << captured_.err;
  // Nothing faulted and every record that fit was printed: the space the
  // dropped records reserved at the FIFO's end is not lost output (it was
  // reported as "output of the faulted launch is incomplete").
  EXPECT_EQ(captured_.err.find("fault"), std::string::npos) << captured_.err;
  EXPECT_EQ(captured_.err.find("incomplete"), std::string::npos) << captured_.err;

  // A larger FIFO holds them all; the next launch starts empty.
  device().set_limit(KESTREL_LIMIT_PRINTF_FIFO_BYTES, 1 << 20);
  captured_ = Captured{};
  module.kernel("flood").launch(Dim3(2), Dim3(32), 0, 4);
  device().synchronize();
  std::istringstream all(captured_.out);
  count = 0;
  while (std::getline(all, line)) ++count;
  EXPECT_EQ(count, 256);
  EXPECT_EQ(captured_.err, "");
  EXPECT_THROW(device().set_limit(KESTREL_LIMIT_PRINTF_FIFO_BYTES, 100), Error);
}

TEST_P(PrintfTest, FullFifoWithSpaceLeftAtItsEndIsNoFault) {
  // flood's records are 80 bytes; 4136 bytes hold 51 of them and 40 bytes
  // that the first dropped record reserved but never wrote.  That is no
  // lost output and nothing faulted (it was reported as "device printf
  // output of the faulted launch is incomplete").
  KESTREL_NEEDS(Feature::kAmo);
  Module module = load("printf");
  device().set_limit(KESTREL_LIMIT_PRINTF_FIFO_BYTES, 4136);
  module.kernel("flood").launch(Dim3(2), Dim3(32), 0, 4);
  device().synchronize();
  std::istringstream lines(captured_.out);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) ++count;
  EXPECT_EQ(count, 51);
  EXPECT_NE(captured_.err.find("205 device printf record(s) did not fit"), std::string::npos)
      << captured_.err;
  EXPECT_EQ(captured_.err.find("fault"), std::string::npos) << captured_.err;
  EXPECT_EQ(captured_.err.find("incomplete"), std::string::npos) << captured_.err;
}

// The line of the assert() in printf.cu.
unsigned assert_line() {
  std::ifstream source(KESTREL_E2E_KERNEL_SOURCE_DIR "/printf.cu");
  std::string line;
  for (unsigned number = 1; std::getline(source, line); ++number)
    if (line.find("assert(threadIdx.x < limit);") != std::string::npos) return number;
  return 0;
}

TEST_P(PrintfTest, AssertMessageFollowsEarlierOutput) {
  KESTREL_NEEDS(Feature::kAmo);
  Module module = load("printf");
  module.kernel("print_then_assert").launch(Dim3(1), Dim3(32), 0, 20);
  EXPECT_THROW(device().synchronize(), Error);
  EXPECT_EQ(device().fault().kind, KESTREL_FAULT_ASSERT);
  EXPECT_EQ(device().fault().thread.x, 20u);
  std::string expected_before;
  for (int t = 0; t < 32; ++t) expected_before += "before assert " + std::to_string(t) + "\n";
  EXPECT_EQ(captured_.out, expected_before);
  // CUDA prints assert messages on stderr.
  std::istringstream messages(captured_.err);
  std::string line;
  unsigned thread = 20;
  const std::string where =
      ":" + std::to_string(assert_line()) + ": void print_then_assert(int): block: [0,0,0], thread: [";
  while (std::getline(messages, line)) {
    const size_t at = line.find(where);
    ASSERT_NE(at, std::string::npos) << line;
    EXPECT_EQ(line.substr(0, at).substr(line.substr(0, at).size() - 9), "printf.cu");
    EXPECT_EQ(line.substr(at + where.size()),
              std::to_string(thread) + ",0,0] Assertion `threadIdx.x < limit` failed.");
    ++thread;
  }
  EXPECT_EQ(thread, 32u) << "one message per failing thread";

  // The device works afterwards and prints again.
  captured_ = Captured{};
  module.kernel("hello").launch(Dim3(1), Dim3(1), 0, 2.0f);
  device().synchronize();
  EXPECT_EQ(captured_.out, "Hello thread 0, f=2.000000\n");
}

INSTANTIATE_TEST_SUITE_P(Backends, PrintfTest, testing::ValuesIn(all_targets()), target_name);

}  // namespace
}  // namespace kestrel::e2e
