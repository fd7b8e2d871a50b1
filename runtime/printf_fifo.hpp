// Device printf on the host side: parsing the records kernels appended to the
// printf FIFO (layout in kestrel/abi.h, docs/isa.md section 9) and formatting
// them with the guide's specifiers (B.17.1).  Nothing in the FIFO is trusted:
// a record with a bad size ends the parse, an uncommitted one is skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kestrel::runtime {

struct PrintfArg {
  uint32_t kind = 0;   // KESTREL_PRINTF_ARG_*
  uint64_t value = 0;  // integer (extended to 64 bits), double bits or address
  bool has_text = false;
  std::string text;  // a string argument's characters, copied by the device
};

struct PrintfRecord {
  uint32_t flags = 0;  // KESTREL_PRINTF_FLAG_*
  std::string format;
  std::vector<PrintfArg> args;
};

struct PrintfParse {
  std::vector<PrintfRecord> records;  // committed records in FIFO order
  uint32_t incomplete = 0;            // reserved but not committed (the writer faulted)
  bool truncated = false;             // a malformed record stopped the parse
  size_t parsed_bytes = 0;            // where the parse stopped (`used` when it read everything)
};

// Parses `used` bytes of record space (the FIFO after its header).
PrintfParse parse_printf_records(const uint8_t* data, size_t used);

// Formats like C's printf with CUDA's rules: an argument missing for a
// conversion (beyond the 32 recorded, or not passed) leaves the conversion
// as written; %s of a null pointer is "(null)"; %n prints nothing.  `xlen`
// is the device's: %ld, %zu and %td take XLEN-wide values (ILP32 or LP64).
std::string format_printf(const std::string& format, const std::vector<PrintfArg>& args, unsigned xlen);

}  // namespace kestrel::runtime
