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
//   * invoke(), which copies every parameter out of the buffer and calls the
//     kernel, so clang does the RISC-V argument passing.
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

template <unsigned... I>
struct IndexList {};
template <unsigned N, unsigned... I>
struct MakeIndexList : MakeIndexList<N - 1, N - 1, I...> {};
template <unsigned... I>
struct MakeIndexList<0, I...> {
  using type = IndexList<I...>;
};

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

  static constexpr unsigned offset(unsigned index) {
    unsigned end = 0;
    for (unsigned i = 0; i < index; ++i) end = align_up(end, alignments[i]) + sizes[i];
    return align_up(end, alignments[index]);
  }
  // offset(count) is where a parameter after the last would go; with the
  // sentinel's alignment of 1 that is the end of the last parameter.
  static constexpr unsigned buffer_bytes() { return offset(count); }
  static constexpr unsigned buffer_alignment() {
    unsigned alignment = 1;
    for (unsigned i = 0; i < count; ++i) alignment = alignments[i] > alignment ? alignments[i] : alignment;
    return alignment;
  }

  template <typename Indices>
  struct Table;
  template <unsigned... I>
  struct Table<IndexList<I...>> {
    static constexpr kestrel_param_desc params[count + 1] = {
        {offset(I), sizes[I], alignments[I],
         pointers[I] ? unsigned{KESTREL_PARAM_POINTER} : unsigned{KESTREL_PARAM_VALUE}}...,
        {0u, 0u, 0u, 0u}};

    __attribute__((device)) __inline__ __attribute__((always_inline)) static void invoke(void (*kernel)(P...),
                                                                                         const char* buffer) {
      (void)buffer;  // unused when the kernel has no parameters
      kernel(load_param<P>(buffer + offset(I))...);
    }
  };
  using Indices = typename MakeIndexList<sizeof...(P)>::type;

  static constexpr const kestrel_param_desc* param_table() {
    return count == 0 ? nullptr : Table<Indices>::params;
  }
  __attribute__((device)) __inline__ __attribute__((always_inline)) static void invoke(void (*kernel)(P...),
                                                                                       const char* buffer) {
    static_assert(buffer_bytes() <= 4096, "kernel parameters exceed 4096 bytes (guide B.1.4)");
    Table<Indices>::invoke(kernel, buffer);
  }
};

#if __cplusplus < 201703L
// Before C++17 a static constexpr member that is odr-used (param_table()
// takes the table's address) needs a definition outside its class.
template <typename... P>
template <unsigned... I>
constexpr kestrel_param_desc Kernel<void(P...)>::Table<IndexList<I...>>::params[count + 1];
#endif

}  // namespace kestrel_entry

#endif  // KESTREL_ENTRY_H
