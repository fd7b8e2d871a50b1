// Source positions of device code from a module's DWARF (kestrel-cc -g),
// read with elfutils' libdw: the runtime names the file, line and function of
// a faulting PC (docs/reliability.md, "Where a fault happened").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kestrel::runtime {

struct SourceLocation {
  std::string file;          // as the line table names it (with its directory)
  unsigned line = 0;         // 0 when the line table has no row for the address
  std::string function;      // innermost function, inlined or not; may be empty
  std::string inlined_into;  // the function `function` was inlined into, if any
  std::string call_file;     // where inlined_into calls it (DW_AT_call_file/line)
  unsigned call_line = 0;
};

// Looks `address` (a link-time address of the module: PC - load base) up in
// the DWARF of `elf`, a whole device module.  nullopt when the module has no
// usable debug information for it; a corrupt one is the same as none, never
// an error (the fault being reported matters more).
std::optional<SourceLocation> find_source(const std::vector<uint8_t>& elf, uint64_t address);

// " at kernel.cu:42 (kernel)", or for an inlined call
// " at helpers.h:7 (scale, inlined into kernel at kernel.cu:42)": the text a
// fault message gains, empty when nothing is known.
std::string describe_source(const std::optional<SourceLocation>& location);

}  // namespace kestrel::runtime
