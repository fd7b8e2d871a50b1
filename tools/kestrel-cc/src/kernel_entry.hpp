// The generated half of every translation unit: for each kernel, an entry
// trampoline and a descriptor in .kestrel.kernels (docs/isa.md section 5).
//
// The wrapper source includes the user's file, then defines a __device__
// alias of each kernel (__attribute__((alias("<mangled name>")))): a
// function of the kernel's own parameter types, spelled from its demangled
// name.  CUDA forbids naming a __global__ function from device code; the
// alias is an ordinary __device__ function at the kernel's address with the
// same RISC-V calling convention, so the trampoline can call it.  Being a
// definition, the alias also works when a parameter type has internal
// linkage (anonymous namespace), where a mere declaration would be rejected.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace kestrel::cc {

struct KernelSignature {
  std::string symbol;         // e.g. _Z1kPi1Sd, or vadd for an extern "C" kernel
  std::string demangled;      // k(int*, S, double)
  std::string function_type;  // C++ for the kernel's type: "void(int*, S, double)"
};

// Demangles `symbol` (abi::__cxa_demangle) and spells the kernel's type from
// its parameter list.  `(anonymous namespace)::` is dropped from parameter
// types: the wrapper is in the same translation unit, where those names are
// visible unqualified.  An extern "C" kernel's symbol is its plain name, which
// cannot be overloaded, so its type is decltype(name).  libstdc++'s
// demangler gives up on a name of more than about 1,020 parameters (its
// printer's recursion limit), which a kernel within CUDA's 4096 parameter
// bytes can have; `fallback` (kestrel-cc passes llvm-cxxfilt) demangles
// those, returning "" when it cannot either.
using Demangler = std::function<std::string(const std::string& symbol)>;
KernelSignature describe_kernel(const std::string& symbol, const Demangler& fallback = {});

// The kernel's name without its parameter list ("k" for "k(int*, float)"),
// for messages about a kernel whose full name would be too long to show.
std::string function_name(const std::string& demangled);

// The parameter list of a demangled function name: the text inside its last
// top-level parentheses ("void f<int>(int*, char)" -> "int*, char").
std::string parameter_list(const std::string& demangled);

std::string strip_anonymous_namespace(const std::string& text);

struct EntryKernel {
  KernelSignature signature;
  unsigned index = 0;  // unique in the module: __kestrel_entry_<index>
};

// The wrapper translation unit for `source_path` (absolute); `entry_header`
// is the absolute path of sw_kernels/sdk/kestrel_entry.h.  Each kernel's
// generated lines are attributed to "<kestrel-cc entry for kernel 'NAME'>" so
// that a diagnostic in them names the kernel instead of a temporary file.
std::string generate_entry_source(const std::string& source_path, const std::string& entry_header,
                                  const std::vector<EntryKernel>& kernels);

}  // namespace kestrel::cc
