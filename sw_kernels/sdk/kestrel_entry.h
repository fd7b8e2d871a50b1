// Support for the kernel entry trampolines and descriptors kestrel-cc
// generates (docs/isa.md section 5, include/kestrel/module_format.h).  Only
// the generated wrapper includes this header, after the user's source.
//
// For a kernel `void k(P0, P1, ...)` the wrapper declares a __device__ alias
// of it (same type, same mangled name) and instantiates
// kestrel_entry::Kernel<decltype(alias)>, which gives
//   * the CUDA parameter-buffer layout: parameter i at the first multiple of
//     alignof(Pi) at or after the end of parameter i-1 (guide B.1.4 and
//     docs/isa.md section 5), computed by the C++ compiler from the real types;
//   * the descriptor's parameter table;
//   * invoke(), which reads every parameter out of the buffer and calls the
//     kernel.  The call is marked always-inline (flatten), so from -O1 up the
//     kernel's body is inlined into its trampoline and reads its parameters
//     straight from the buffer: no RISC-V argument passing, no copy of the
//     parameters on the thread's stack (docs/isa.md section 5).  What can
//     still land on the stack is the kernel's own copy of a by-value
//     aggregate of more than 2*XLEN bits that it writes or indexes (the
//     psABI's caller copy) and spills of parameter values loaded early; the
//     runtime adds room for those to each thread's stack (docs/runtime.md).
//     At -O0 nothing is inlined and the parameters travel the calling
//     convention's way.
// kestrel-cc rejects a parameter buffer of more than 4096 bytes with its own
// message (CUDA's limit, guide E.2.9.3), reading buffer_bytes() from the
// descriptor, so nothing here limits the count.
#ifndef KESTREL_ENTRY_H
#define KESTREL_ENTRY_H

#include "kestrel/module_format.h"

namespace kestrel_entry {

template <typename T>
struct IsPointer {
  static constexpr bool value = false;
};
template <typename T>
struct IsPointer<T*> {
  static constexpr bool value = true;
};
template <typename T>
struct IsPointer<T* const> {
  static constexpr bool value = true;
};
template <typename T>
struct IsPointer<T* volatile> {
  static constexpr bool value = true;
};
template <typename T>
struct IsPointer<T* const volatile> {
  static constexpr bool value = true;
};

// IndexList<unsigned, 0, ..., N-1> from clang's builtin, which has no
// recursion depth limit (a recursive one stops at 1024 parameters).
template <typename T, T... I>
struct IndexList {};
template <unsigned N>
using MakeIndexList = __make_integer_seq<IndexList, unsigned, N>;

constexpr unsigned align_up(unsigned value, unsigned alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// The parameter buffer holds the bytes the host put there, which for a kernel
// parameter (trivially copyable, guide B.1.4) is the value.  Reading it as
// RawBytes<T> tells the compiler the slot is aligned for T (the runtime
// aligns the buffer to the descriptor's param_align and every slot is at a
// multiple of its alignment), so the copy is a few aligned loads; bit_cast
// then makes a T without needing T to be default constructible.
template <typename T>
struct RawBytes {
  alignas(T) char bytes[sizeof(T)];
};
template <typename T>
__attribute__((device)) __inline__ __attribute__((always_inline)) T load_param(const char* address) {
  const RawBytes<T> raw = *reinterpret_cast<const RawBytes<T>*>(address);
  return __builtin_bit_cast(T, raw);
}

// Parameter offsets in CUDA's layout: value[i] is where parameter i starts,
// value[n] the end of the last.  One pass over the parameters, so a kernel
// with thousands of them stays far from clang's constexpr step limit.
template <unsigned N>
struct Offsets {
  unsigned value[N + 1];
};
template <unsigned N>
constexpr Offsets<N> layout(const unsigned (&sizes)[N + 1], const unsigned (&alignments)[N + 1]) {
  Offsets<N> offsets{};
  unsigned end = 0;
  for (unsigned i = 0; i < N; ++i) {
    offsets.value[i] = align_up(end, alignments[i]);
    end = offsets.value[i] + sizes[i];
  }
  offsets.value[N] = end;
  return offsets;
}

// The descriptor's parameter table, built in one loop like the offsets (an
// initializer expanded over an index pack would give the table a symbol
// name as long as the index list).
template <unsigned N>
struct ParamTable {
  kestrel_param_desc entries[N + 1];
};
template <unsigned N>
constexpr ParamTable<N> describe(const Offsets<N>& offsets, const unsigned (&sizes)[N + 1],
                                 const unsigned (&alignments)[N + 1], const bool (&pointers)[N + 1]) {
  ParamTable<N> table{};
  for (unsigned i = 0; i < N; ++i) {
    table.entries[i] =
        kestrel_param_desc{offsets.value[i], sizes[i], alignments[i],
                           pointers[i] ? unsigned{KESTREL_PARAM_POINTER} : unsigned{KESTREL_PARAM_VALUE}};
  }
  return table;
}

template <unsigned V>
struct Constant {
  static constexpr unsigned value = V;
};

template <typename Signature>
struct Kernel;

template <typename... P>
struct Kernel<void(P...)> {
  static constexpr unsigned count = sizeof...(P);
  // One extra element keeps the arrays non-empty for kernels without
  // parameters; it is never described to the runtime.
  static constexpr unsigned sizes[count + 1] = {static_cast<unsigned>(sizeof(P))..., 0u};
  static constexpr unsigned alignments[count + 1] = {static_cast<unsigned>(alignof(P))..., 1u};
  static constexpr bool pointers[count + 1] = {IsPointer<P>::value..., false};

  static constexpr Offsets<count> offsets = layout<count>(sizes, alignments);
  static constexpr ParamTable<count> params = describe<count>(offsets, sizes, alignments, pointers);

  static constexpr unsigned buffer_bytes() { return offsets.value[count]; }
  static constexpr unsigned buffer_alignment() {
    unsigned alignment = 1;
    for (unsigned i = 0; i < count; ++i) alignment = alignments[i] > alignment ? alignments[i] : alignment;
    return alignment;
  }
  static constexpr const kestrel_param_desc* param_table() { return count == 0 ? nullptr : params.entries; }

  template <typename Indices>
  struct Call;
  template <unsigned... I>
  struct Call<IndexList<unsigned, I...>> {
    // flatten: the kernel call below is always inlined where inlining runs
    // (-O1 and up); the kernel stays a function of its own as well.
    // Constant<> keeps every offset a constant at -O0 too.
    __attribute__((device)) __inline__ __attribute__((always_inline, flatten)) static void invoke(
        void (*kernel)(P...), const char* buffer) {
      (void)buffer;  // unused when the kernel has no parameters
      kernel(load_param<P>(buffer + Constant<offsets.value[I]>::value)...);
    }
  };

  __attribute__((device)) __inline__ __attribute__((always_inline)) static void invoke(void (*kernel)(P...),
                                                                                       const char* buffer) {
    Call<MakeIndexList<sizeof...(P)>>::invoke(kernel, buffer);
  }
};

#if __cplusplus < 201703L
// Before C++17 a static constexpr member that is odr-used (param_table()
// takes the table's address) needs a definition outside its class.
template <typename... P>
constexpr Offsets<Kernel<void(P...)>::count> Kernel<void(P...)>::offsets;
template <typename... P>
constexpr ParamTable<Kernel<void(P...)>::count> Kernel<void(P...)>::params;
#endif

}  // namespace kestrel_entry

#endif  // KESTREL_ENTRY_H
