/* <cooperative_groups/scan.h> for Kestrel: cg::inclusive_scan and
 * cg::exclusive_scan over a thread_block_tile or a coalesced_group, with
 * cg::plus (the default) or any operator of cooperative_groups/reduce.h.
 * Rank i gets op over ranks 0..i (inclusive) or 0..i-1 (exclusive; rank 0
 * gets a value-initialized T, 0 for arithmetic types). */
#ifndef KESTREL_COOPERATIVE_GROUPS_SCAN_H
#define KESTREL_COOPERATIVE_GROUPS_SCAN_H

#include <cooperative_groups/reduce.h>

namespace cooperative_groups {

/* Hillis and Steele: log2(size) shfl_up steps; shfl_up from below rank 0
 * returns the caller's own value, which the rank test leaves out. */
template <typename Group, typename T, typename Op>
__device__ typename details::remove_cvref<T>::type inclusive_scan(const Group& group, T&& value, Op&& op) {
  using Value = typename details::remove_cvref<T>::type;
  static_assert(details::is_tile<Group>::size <= 32,
                "cg::inclusive_scan/exclusive_scan: tiles of at most 32 threads");
  Value result = value;
  const unsigned int size = group.num_threads(), rank = group.thread_rank();
  for (unsigned int offset = 1; offset < size; offset *= 2) {
    const Value lower = group.shfl_up(result, offset);
    if (rank >= offset) result = op(lower, result);
  }
  return result;
}
template <typename Group, typename T>
__device__ typename details::remove_cvref<T>::type inclusive_scan(const Group& group, T&& value) {
  using Value = typename details::remove_cvref<T>::type;
  return inclusive_scan(group, static_cast<Value>(value), plus<Value>());
}

template <typename Group, typename T, typename Op>
__device__ typename details::remove_cvref<T>::type exclusive_scan(const Group& group, T&& value, Op&& op) {
  using Value = typename details::remove_cvref<T>::type;
  const Value inclusive = inclusive_scan(group, static_cast<Value>(value), op);
  const Value lower = group.shfl_up(inclusive, 1);
  return group.thread_rank() == 0 ? Value{} : lower;
}
template <typename Group, typename T>
__device__ typename details::remove_cvref<T>::type exclusive_scan(const Group& group, T&& value) {
  using Value = typename details::remove_cvref<T>::type;
  return exclusive_scan(group, static_cast<Value>(value), plus<Value>());
}

}  // namespace cooperative_groups

#endif /* KESTREL_COOPERATIVE_GROUPS_SCAN_H */
