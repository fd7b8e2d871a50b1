/* <cooperative_groups/reduce.h> for Kestrel: cg::reduce over a
 * thread_block_tile or a coalesced_group, and the operators CUDA names for it
 * (cg::plus, less, greater, bit_and, bit_or, bit_xor).  Every thread of the
 * group gets the result. */
#ifndef KESTREL_COOPERATIVE_GROUPS_REDUCE_H
#define KESTREL_COOPERATIVE_GROUPS_REDUCE_H

#include <cooperative_groups.h>

namespace cooperative_groups {

template <typename T>
struct plus {
  __device__ T operator()(const T& a, const T& b) const { return a + b; }
};
/* less and greater select the smaller and the larger operand: reduce with
 * them gives the group's minimum and maximum. */
template <typename T>
struct less {
  __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <typename T>
struct greater {
  __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <typename T>
struct bit_and {
  __device__ T operator()(const T& a, const T& b) const { return a & b; }
};
template <typename T>
struct bit_or {
  __device__ T operator()(const T& a, const T& b) const { return a | b; }
};
template <typename T>
struct bit_xor {
  __device__ T operator()(const T& a, const T& b) const { return a ^ b; }
};

namespace details {
template <typename Group>
struct is_tile {
  static constexpr bool value = false;
  static constexpr unsigned int size = 0;
};
template <unsigned int Size, typename ParentT>
struct is_tile<thread_block_tile<Size, ParentT>> {
  static constexpr bool value = true;
  static constexpr unsigned int size = Size;
};
template <typename T>
struct remove_cvref {
  using type = T;
};
template <typename T>
struct remove_cvref<T&> : remove_cvref<T> {};
template <typename T>
struct remove_cvref<T&&> : remove_cvref<T> {};
template <typename T>
struct remove_cvref<const T> : remove_cvref<T> {};
}  // namespace details

/* A tile of N <= 32 threads combines in log2(N) butterfly steps (shfl_xor),
 * after which every thread holds the result; a larger tile combines each
 * warp's result through shared memory; a coalesced group of any size
 * combines in a shfl_down tree towards rank 0, which then broadcasts. */
template <typename Group, typename T, typename Op>
__device__ typename details::remove_cvref<T>::type reduce(const Group& group, T&& value, Op&& op) {
  using Value = typename details::remove_cvref<T>::type;
  Value result = value;
  if constexpr (details::is_tile<Group>::size > 32) {
    return group.__kestrel_reduce(result, op);
  } else if constexpr (details::is_tile<Group>::value) {
    for (unsigned int offset = Group::num_threads() / 2; offset > 0; offset /= 2)
      result = op(result, group.shfl_xor(result, offset));
    return result;
  } else {
    const unsigned int size = group.num_threads(), rank = group.thread_rank();
    for (unsigned int offset = 1; offset < size; offset *= 2) {
      const Value other = group.shfl_down(result, offset);
      if (rank + offset < size) result = op(result, other);
    }
    return group.shfl(result, 0);
  }
}

}  // namespace cooperative_groups

#endif /* KESTREL_COOPERATIVE_GROUPS_REDUCE_H */
