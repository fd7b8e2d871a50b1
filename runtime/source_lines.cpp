#include "source_lines.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>

#include <cstdint>
#include <cstdlib>
#include <memory>

#include "module_elf.hpp"

namespace kestrel::runtime {
namespace {

struct ElfCloser {
  void operator()(Elf* elf) const { elf_end(elf); }
};
struct DwarfCloser {
  void operator()(Dwarf* dwarf) const { dwarf_end(dwarf); }
};
struct ScopesFree {
  void operator()(Dwarf_Die* scopes) const { std::free(scopes); }
};

// DW_AT_name, following DW_AT_abstract_origin and DW_AT_specification (an
// inlined instance and an out-of-line member carry their name there), else
// the linkage name.
std::string function_name(Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  const char* name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attribute));
  if (name == nullptr) name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attribute));
  return name == nullptr ? std::string() : std::string(name);
}

// The entry code kestrel-cc generates around each kernel
// (sw_kernels/sdk/kestrel_entry.h), into which the kernel is inlined; a
// message names the kernel, not this.
bool is_entry_code(Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  const char* name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attribute));
  const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attribute));
  const std::string prefix = "_ZN13kestrel_entry";
  return (name != nullptr && std::string(name).rfind("__kestrel_entry", 0) == 0) ||
         (linkage != nullptr && std::string(linkage).rfind(prefix, 0) == 0);
}

bool called_from_entry_code(const std::string& call_file) {
  const std::string header = "kestrel_entry.h";
  return call_file == header ||
         (call_file.size() > header.size() &&
          call_file.compare(call_file.size() - header.size() - 1, std::string::npos, "/" + header) == 0);
}

bool is_function(Dwarf_Die* die) {
  const int tag = dwarf_tag(die);
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

// Where an inlined call was made: DW_AT_call_file indexes the unit's file
// table, DW_AT_call_line is the line.
void call_site(Dwarf_Die* unit, Dwarf_Die* inlined, SourceLocation& location) {
  Dwarf_Attribute attribute;
  Dwarf_Word file = 0, line = 0;
  Dwarf_Files* files = nullptr;
  size_t file_count = 0;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attribute), &file) != 0 ||
      dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attribute), &line) != 0 || line == 0 ||
      line > UINT32_MAX || dwarf_getsrcfiles(unit, &files, &file_count) != 0 || file >= file_count)
    return;
  const char* name = dwarf_filesrc(files, file, nullptr, nullptr);
  if (name == nullptr) return;
  location.call_file = name;
  location.call_line = static_cast<unsigned>(line);
}

}  // namespace

std::optional<SourceLocation> find_source(const std::vector<uint8_t>& elf_bytes, uint64_t address) {
  if (elf_bytes.empty() || !elf::libelf_ready()) return std::nullopt;
  // libelf may convert a read-only image in place; it gets its own copy.
  std::vector<char> copy(elf_bytes.begin(), elf_bytes.end());
  const std::unique_ptr<Elf, ElfCloser> elf(elf_memory(copy.data(), copy.size()));
  if (!elf) return std::nullopt;
  const std::unique_ptr<Dwarf, DwarfCloser> dwarf(dwarf_begin_elf(elf.get(), DWARF_C_READ, nullptr));
  if (!dwarf) return std::nullopt;

  // Clang emits no .debug_aranges, so dwarf_addrdie would find nothing: walk
  // the compile units and ask each whether it covers the address.
  Dwarf_CU* unit_handle = nullptr;
  Dwarf_Die unit;
  uint8_t unit_type = 0;
  while (dwarf_get_units(dwarf.get(), unit_handle, &unit_handle, nullptr, &unit_type, &unit, nullptr) == 0) {
    if ((unit_type != DW_UT_compile && unit_type != DW_UT_partial) || dwarf_haspc(&unit, address) <= 0)
      continue;
    SourceLocation location;
    if (Dwarf_Line* line = dwarf_getsrc_die(&unit, address)) {
      int number = 0;
      const char* file = dwarf_linesrc(line, nullptr, nullptr);
      if (file != nullptr && dwarf_lineno(line, &number) == 0 && number > 0) {
        location.file = file;
        location.line = static_cast<unsigned>(number);
      }
    }
    // The innermost scope holding the address, inlined call or function.
    // dwarf_getscopes continues from an inlined call into its abstract
    // definition; the function it was inlined into is found among the
    // concrete scopes around the call's own DIE (dwarf_getscopes_die).
    Dwarf_Die* raw_scopes = nullptr;
    const int count = dwarf_getscopes(&unit, address, &raw_scopes);
    const std::unique_ptr<Dwarf_Die, ScopesFree> scopes(raw_scopes);
    Dwarf_Die* innermost = nullptr;
    for (int i = 0; i < count && innermost == nullptr; ++i)
      if (is_function(&raw_scopes[i])) innermost = &raw_scopes[i];
    if (innermost != nullptr) {
      location.function = function_name(innermost);
      if (dwarf_tag(innermost) == DW_TAG_inlined_subroutine) {
        call_site(&unit, innermost, location);
        // Called from the entry code: the kernel itself.  (Line tables
        // without -g name the entry code's functions plainly, "invoke".)
        if (called_from_entry_code(location.call_file)) {
          location.call_file.clear();
          location.call_line = 0;
          return location;
        }
        Dwarf_Die* raw_outer = nullptr;
        const int outer_count = dwarf_getscopes_die(innermost, &raw_outer);
        const std::unique_ptr<Dwarf_Die, ScopesFree> outer(raw_outer);
        for (int i = 1; i < outer_count; ++i) {
          if (!is_function(&raw_outer[i])) continue;
          if (!is_entry_code(&raw_outer[i])) location.inlined_into = function_name(&raw_outer[i]);
          break;
        }
      }
    }
    if (location.line == 0 && location.function.empty()) return std::nullopt;
    return location;
  }
  return std::nullopt;
}

std::string describe_source(const std::optional<SourceLocation>& location) {
  if (!location) return "";
  std::string text;
  if (location->line != 0) text = " at " + location->file + ":" + std::to_string(location->line);
  if (!location->function.empty()) {
    text += text.empty() ? " in " + location->function : " (" + location->function;
    if (!location->inlined_into.empty()) {
      text += ", inlined into " + location->inlined_into;
      if (location->call_line != 0)
        text += " at " + location->call_file + ":" + std::to_string(location->call_line);
    }
    if (location->line != 0) text += ")";
  }
  return text;
}

}  // namespace kestrel::runtime
