// Reading and editing the textual LLVM IR (.ll) clang writes for one CUDA
// translation unit.  kestrel-cc needs only a few facts from it (which
// functions are kernels, which variables are __shared__ or __constant__,
// which symbols are only declared) and one edit (placing variables in
// sections), so it reads the text instead of linking against LLVM: clang and
// lld are the only LLVM pieces the toolchain depends on.
//
// The reader understands the global-variable, function and annotation lines
// of LLVM 14's IR (typed or opaque pointers).  It is not a general IR parser.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kestrel::cc {

// One `@name = ...` global variable line.
struct IrGlobal {
  std::string name;                     // without '@' and quotes
  std::size_t line = 0;                 // index into IrModule::lines
  bool is_declaration = false;          // external/extern_weak without initializer
  bool is_constant = false;             // `constant` rather than `global`
  bool externally_initialized = false;  // written by the host before kernels read it
  std::string type;                     // e.g. "[0 x float]"
  std::string initializer;              // empty for declarations
  std::size_t initializer_end = 0;      // column just past the initializer
  std::string section;                  // existing section, empty if none
};

struct IrModule {
  std::vector<std::string> lines;
  std::vector<IrGlobal> globals;
  std::set<std::string> defined_functions;
  std::set<std::string> declared_functions;
  // llvm.global.annotations in order: (annotated symbol, annotation text).
  std::vector<std::pair<std::string, std::string>> annotations;

  const IrGlobal* find_global(const std::string& name) const;
  // Symbols annotated `annotation`, in source order, without duplicates
  // (an explicit template instantiation annotates its kernel twice).
  std::vector<std::string> annotated(const std::string& annotation) const;
  // Every symbol this unit defines (functions and variables).
  std::set<std::string> defined_symbols() const;
  std::string text() const;
};

// Parses .ll text.  Throws kestrel::cc::CompileError on text it cannot read.
IrModule parse_ir(const std::string& text);

// Decodes an LLVM IR quoted string body (`\XX` hex escapes, `\\`).
std::string decode_ir_string(const std::string& quoted_body);

// The variables an unsized `extern __shared__ T name[];` declaration produces:
// clang only accepts extern __shared__ on arrays of unknown size (guide
// B.2.3), which the IR declares as a zero-length array.
std::vector<std::string> extern_shared_candidates(const IrModule& module);

struct SectionPlacement {
  std::size_t shared_variables = 0;    // __shared__ variables moved to .kestrel.shared
  std::size_t constant_variables = 0;  // __constant__ variables moved to .kestrel.const
  std::size_t managed_variables = 0;   // __managed__ variables moved to .kestrel.managed
  std::size_t texture_references = 0;  // texture<...> variables given a zero initializer
};

// Puts every defined variable with an `undef` initializer (clang's
// initializer for __shared__ variables in CUDA device mode) in section
// .kestrel.shared and every variable annotated "kestrel.const" (the SDK's
// __constant__) in section .kestrel.const and every one annotated
// "kestrel.managed" (__managed__) in .kestrel.managed, editing module.lines
// in place.  An `externally_initialized` variable with an `undef`
// initializer is a texture reference's device copy (clang's initializer for
// device_builtin_texture_type variables): it stays in ordinary data and its
// initializer becomes zeroinitializer (an unbound reference).
// Throws CompileError if such a variable already has another section.
SectionPlacement place_device_sections(IrModule& module);

}  // namespace kestrel::cc
