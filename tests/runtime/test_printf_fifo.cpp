// The host side of device printf (runtime/printf_fifo.cpp): records as the
// SDK writes them, uncommitted and malformed records, random bytes, and the
// formatter's CUDA rules (missing arguments, '*' width, no '*' precision,
// null strings, ILP32 longs).
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kestrel/abi.h"
#include "printf_fifo.hpp"

namespace kestrel::runtime {
namespace {

// Appends a record laid out as kestrel_printf.h writes it.
void append_record(std::vector<uint8_t>& fifo, const std::string& format, const std::vector<PrintfArg>& args,
                   uint32_t flags = 0, bool committed = true) {
  const uint32_t count = static_cast<uint32_t>(args.size());
  const uint32_t kinds_bytes = (count + 7) & ~7u;
  std::vector<uint8_t> record(KESTREL_PRINTF_RECORD_HEADER_BYTES + kinds_bytes + 8 * count, 0);
  for (uint32_t i = 0; i < count; ++i) {
    record[KESTREL_PRINTF_RECORD_HEADER_BYTES + i] = static_cast<uint8_t>(args[i].kind);
    std::memcpy(&record[KESTREL_PRINTF_RECORD_HEADER_BYTES + kinds_bytes + 8 * i], &args[i].value, 8);
  }
  record.insert(record.end(), format.begin(), format.end());
  record.push_back(0);
  for (const PrintfArg& arg : args) {
    if (!arg.has_text) continue;
    record.insert(record.end(), arg.text.begin(), arg.text.end());
    record.push_back(0);
  }
  record.resize((record.size() + 7) & ~size_t{7}, 0);
  const uint32_t words[4] = {static_cast<uint32_t>(record.size()), committed ? KESTREL_PRINTF_COMMIT : 0u,
                             count | (flags << 16), static_cast<uint32_t>(format.size() + 1)};
  std::memcpy(record.data(), words, sizeof words);
  fifo.insert(fifo.end(), record.begin(), record.end());
}

PrintfArg integer(int64_t v) {
  return PrintfArg{KESTREL_PRINTF_ARG_INTEGER, static_cast<uint64_t>(v), false, {}};
}
PrintfArg real(double v) {
  PrintfArg arg{KESTREL_PRINTF_ARG_DOUBLE, 0, false, {}};
  std::memcpy(&arg.value, &v, sizeof v);
  return arg;
}
PrintfArg text(const std::string& s) { return PrintfArg{KESTREL_PRINTF_ARG_STRING, 0x10001000, true, s}; }

TEST(PrintfFifo, ParsesCommittedRecordsAndSkipsUncommittedOnes) {
  std::vector<uint8_t> fifo;
  append_record(fifo, "a %d %s\n", {integer(-5), text("xy")});
  append_record(fifo, "lost %d\n", {integer(1)}, 0, false);
  append_record(fifo, "assert\n", {}, KESTREL_PRINTF_FLAG_ASSERT);
  const PrintfParse parse = parse_printf_records(fifo.data(), fifo.size());
  ASSERT_EQ(parse.records.size(), 2u);
  EXPECT_EQ(parse.incomplete, 1u);
  EXPECT_FALSE(parse.truncated);
  EXPECT_EQ(parse.parsed_bytes, fifo.size());
  EXPECT_EQ(format_printf(parse.records[0].format, parse.records[0].args, 64), "a -5 xy\n");
  EXPECT_EQ(parse.records[1].flags, KESTREL_PRINTF_FLAG_ASSERT);
}

TEST(PrintfFifo, MalformedRecordsStopTheParse) {
  std::vector<uint8_t> good;
  append_record(good, "ok\n", {});
  auto parse_with = [&](auto mutate) {
    std::vector<uint8_t> fifo = good;
    append_record(fifo, "bad %d\n", {integer(3)});
    mutate(fifo.data() + good.size());
    return parse_printf_records(fifo.data(), fifo.size());
  };
  auto put32 = [](uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); };
  for (auto mutate : std::vector<std::function<void(uint8_t*)>>{
           [&](uint8_t* r) { put32(r, 0); },                                // size 0: writer died at once
           [&](uint8_t* r) { put32(r, 12); },                               // smaller than a header
           [&](uint8_t* r) { put32(r, 1u << 30); },                         // past the end
           [&](uint8_t* r) { put32(r + 8, 33); },                           // more than 32 arguments
           [&](uint8_t* r) { put32(r + 12, 4096); },                        // format past the record
           [&](uint8_t* r) { r[KESTREL_PRINTF_RECORD_HEADER_BYTES] = 9; },  // unknown kind
       }) {
    const PrintfParse parse = parse_with(mutate);
    EXPECT_TRUE(parse.truncated);
    EXPECT_EQ(parse.parsed_bytes, good.size());  // where the bad record starts
    ASSERT_EQ(parse.records.size(), 1u);
    EXPECT_EQ(parse.records[0].format, "ok\n");
  }
}

TEST(PrintfFifo, RandomBytesNeverCrash) {
  std::mt19937 random(1);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> fifo;
    append_record(fifo, "%s %d %f %c %p\n", {text("t"), integer(1), real(2), integer('c'), integer(0)});
    for (int flips = 0; flips < 4; ++flips)
      fifo[random() % fifo.size()] ^= static_cast<uint8_t>(1u << (random() % 8));
    const PrintfParse parse = parse_printf_records(fifo.data(), fifo.size());
    for (const PrintfRecord& record : parse.records) format_printf(record.format, record.args, 64);
  }
}

TEST(PrintfFormat, CudaRules) {
  EXPECT_EQ(format_printf("missing %d %d\n", {integer(1)}, 64), "missing 1 %d\n");
  EXPECT_EQ(format_printf("[%*d] [%-*d]", {integer(5), integer(42), integer(-4), integer(7)}, 64),
            "[   42] [7   ]");
  EXPECT_EQ(format_printf("[%.*f] %d", {integer(2), real(1.5)}, 64), "[%.*f] 2");
  EXPECT_EQ(format_printf("%s|%.3s", {integer(0), integer(0)}, 64), "(null)|");
  EXPECT_EQ(format_printf("%p %p", {integer(0), integer(0x10002000)}, 64), "(nil) 0x10002000");
  EXPECT_EQ(format_printf("100%% %n%q %", {integer(1)}, 64), "100% %q %");
  EXPECT_EQ(format_printf("%ld %lx %lld", {integer(-1), integer(-1), integer(-1)}, 32), "-1 ffffffff -1");
  EXPECT_EQ(format_printf("%ld %lx", {integer(-1), integer(-1)}, 64), "-1 ffffffffffffffff");
  EXPECT_EQ(format_printf("%hd %hhu %c", {integer(70000), integer(300), integer('A' + 256)}, 64),
            "4464 44 A");
  EXPECT_EQ(format_printf("%5.2f|%-8e|%G", {real(3.14159), real(-2.0), real(1e-10)}, 64),
            " 3.14|-2.000000e+00|1E-10");
  EXPECT_EQ(format_printf("%s", {integer(12)}, 64), "(not a string)");
  // Fields from the device are bounded: no gigabyte of padding.
  EXPECT_EQ(format_printf("%*d", {integer(0x7FFFFFFF), integer(1)}, 64).size(), 4096u);
  EXPECT_EQ(format_printf("%99999999999999999999d", {integer(1)}, 64).size(), 4096u);
  EXPECT_EQ(format_printf("%.99999999999f", {real(1.0)}, 64).size(), 4098u);
}

}  // namespace
}  // namespace kestrel::runtime
