/* <cooperative_groups.h> for Kestrel: CUDA's cooperative groups (CUDA C
 * Programming Guide, "Cooperative Groups" appendix of CUDA 9 and later; the
 * v8.0 guide's B.6 (__syncthreads), B.13 (votes) and B.14 (shuffles) are
 * what they are built from).  Namespace cooperative_groups, usually
 * `namespace cg = cooperative_groups;`.
 *
 *   thread_block         this_thread_block(): the block; sync() is __syncthreads
 *   thread_block_tile<N> tiled_partition<N>(g): N = 1, 2, ..., 32 consecutive
 *                        threads of a warp; sync, shuffles, votes, match
 *   thread_group         tiled_partition(g, n): the same tiles with a size
 *                        chosen at run time (sync, ranks)
 *   coalesced_group      coalesced_threads(): the threads of the warp active
 *                        here; shuffles and votes by rank within the group
 *   grid_group           this_grid(): every thread of a cooperative launch
 *                        (cudaLaunchCooperativeKernel); sync() is a grid barrier
 *
 * Tiles and coalesced groups are warp-synchronous: their collectives are the
 * *_sync instructions of kestrel_warp.h with the group's lanes as membermask
 * (docs/isa.md section 6.1).  A tile never spans warps, so N may not exceed
 * the device's warpSize (32 unless configured smaller: checked at run time).
 * The grid barrier is software over global memory, described in docs/isa.md
 * section 11 and docs/cuda-runtime.md ("Cooperative launches").
 * cooperative_groups/reduce.h adds cg::reduce and its operators. */
#ifndef KESTREL_COOPERATIVE_GROUPS_H
#define KESTREL_COOPERATIVE_GROUPS_H
#define _COOPERATIVE_GROUPS_H_ /* NVIDIA's include guard, which some programs test */

#if !defined(__CUDA__)
#error "cooperative_groups.h is for CUDA sources compiled by kestrel-cc"
#endif

#include <assert.h>

namespace cooperative_groups {
namespace details {

/* The grid barrier's words (KESTREL_GRID_SYNC_*): the runtime writes
 * {1 for a cooperative launch, else 0; 0; 0; 0} before every launch of a
 * module that has this variable, so it is defined (inline) only in modules
 * whose code calls grid_group::sync(). */
extern "C" inline __device__ unsigned int __kestrel_grid_sync[KESTREL_GRID_SYNC_WORDS] = {};

static __device__ __forceinline__ unsigned int block_rank_of_thread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
static __device__ __forceinline__ unsigned int block_threads() {
  return blockDim.x * blockDim.y * blockDim.z;
}
static __device__ __forceinline__ unsigned long long grid_blocks() {
  return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
}
static __device__ __forceinline__ unsigned long long grid_block_rank() {
  return blockIdx.x +
         (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
}
static __device__ __forceinline__ unsigned int lanes_below(unsigned int lane) {
  return lane == 0 ? 0u : 0xFFFFFFFFu >> (32u - lane);
}
/* The lane of the `rank`-th set bit of `mask` (rank < popcount(mask)). */
static __device__ __forceinline__ unsigned int lane_of_rank(unsigned int mask, unsigned int rank) {
  for (unsigned int i = 0; i < rank; ++i) mask &= mask - 1;
  return (unsigned int)__builtin_ctz(mask);
}
/* Bit i of the result is the bit of `bits` at the lane of rank i in `mask`. */
static __device__ __forceinline__ unsigned int compact_bits(unsigned int bits, unsigned int mask) {
  unsigned int result = 0, rank = 0;
  for (; mask != 0; mask &= mask - 1, ++rank)
    if (bits & (mask & (0u - mask))) result |= 1u << rank;
  return result;
}

/* Shuffles any trivially copyable T, one 32-bit word at a time. */
template <typename T, typename Shuffle>
static __device__ __forceinline__ T shuffle_words(T value, Shuffle shuffle) {
  constexpr unsigned int kWords = (sizeof(T) + 3) / 4;
  unsigned int words[kWords] = {};
  __builtin_memcpy(words, &value, sizeof(T));
  for (unsigned int i = 0; i < kWords; ++i) words[i] = shuffle(words[i]);
  __builtin_memcpy(&value, words, sizeof(T));
  return value;
}

/* Stops the launch with an ASSERT fault naming the misuse, which CUDA
 * leaves undefined (a hang or garbage). */
#define KESTREL_CG_REQUIRE(condition, message) \
  do {                                         \
    if (!(condition)) {                        \
      assert(!message);                        \
      __trap();                                \
    }                                          \
  } while (0)

/* The barrier of a cooperative launch.  Thread 0 of each block, after the
 * block's own barrier: reads the generation, adds itself to the count (an
 * AMO, device scope); the last of the grid's blocks resets the count and
 * advances the generation; the others wait for the generation to change.
 * Device fences (kx.fence.device, guide B.5) before the arrival and after
 * the wait make every write of the grid before sync() visible to every
 * thread of the grid after it. */
static __device__ __noinline__ void grid_sync() {
  unsigned int* const words = __kestrel_grid_sync;
  const bool leader = block_rank_of_thread() == 0;
  // One message per block: the others wait at the barrier when the launch stops.
  if (leader)
    KESTREL_CG_REQUIRE(*(volatile unsigned int*)&words[KESTREL_GRID_SYNC_FLAG_WORD] != 0,
                       "grid_group::sync() needs a cooperative launch (cudaLaunchCooperativeKernel)");
  __syncthreads();
  if (leader) {
    const unsigned long long blocks = grid_blocks();
    __threadfence();
    const unsigned int generation = atomicAdd(&words[KESTREL_GRID_SYNC_GENERATION_WORD], 0u);
    const unsigned int arrived = atomicAdd(&words[KESTREL_GRID_SYNC_COUNT_WORD], 1u);
    if (arrived + 1ull == blocks) {
      atomicExch(&words[KESTREL_GRID_SYNC_COUNT_WORD], 0u);
      __threadfence();
      atomicAdd(&words[KESTREL_GRID_SYNC_GENERATION_WORD], 1u);
    } else {
      // Back off from 32 ns to 1 us between reads: few issue slots while blocks are unbalanced.
      for (unsigned int pause = 32; atomicAdd(&words[KESTREL_GRID_SYNC_GENERATION_WORD], 0u) == generation;
           pause = pause < 1024 ? 2 * pause : pause)
        __nanosleep(pause);
    }
    __threadfence();
  }
  __syncthreads();
}

enum group_kind { kind_grid, kind_block, kind_tile, kind_coalesced, kind_multi_warp_tile };

/* Tiles of more than one warp (64 to 1024 threads) synchronize through
 * shared memory: per tile (by its size, 64 << level, and its first warp) an
 * arrival count and a generation, and per warp a slot for reductions.  One
 * per kernel module. */
struct tile_scratch {
  unsigned int count[5][32];
  unsigned int generation[5][32];
  alignas(16) unsigned char slot[32][16];
};
static __device__ __noinline__ tile_scratch* block_tile_scratch() {
  __shared__ tile_scratch scratch;
  return &scratch;
}

/* The barrier of the `warps` warps from `first_warp`: each warp meets at
 * __syncwarp, its lane 0 arrives on the tile's count (a shared-memory AMO)
 * and, unless it is the last, waits for the generation to change; block
 * fences order the tile's shared and global accesses across it. */
static __device__ __noinline__ void tile_barrier(unsigned int level, unsigned int first_warp,
                                                 unsigned int warps) {
  tile_scratch* const scratch = block_tile_scratch();
  __syncwarp();
  if (__kestrel_lane_id() == 0) {
    __threadfence_block();
    unsigned int* const count = &scratch->count[level][first_warp];
    unsigned int* const generation = &scratch->generation[level][first_warp];
    const unsigned int seen = atomicAdd(generation, 0u);
    if (atomicAdd(count, 1u) + 1 == warps) {
      atomicExch(count, 0u);
      __threadfence_block();
      atomicAdd(generation, 1u);
    } else {
      while (atomicAdd(generation, 0u) == seen) __nanosleep(32);
    }
    __threadfence_block();
  }
  __syncwarp();
}

/* The warps of the multi-warp tile of `tile_size` threads holding the
 * calling thread, from the block's thread count, and the tile size's level. */
struct tile_warps {
  unsigned int first, count, level;
};
static __device__ __forceinline__ tile_warps warps_of_tile(unsigned int tile_size) {
  const unsigned int rank = block_rank_of_thread(), start = rank - rank % tile_size;
  const unsigned int live = block_threads() - start < tile_size ? block_threads() - start : tile_size;
  const unsigned int lanes = (unsigned int)warpSize;
  return tile_warps{start / lanes, (live + lanes - 1) / lanes, (unsigned int)__builtin_ctz(tile_size) - 6u};
}

}  // namespace details

/* ---- thread_group: any group, its kind and size known at run time ---------- */
class thread_group {
 public:
  __device__ void sync() const {
    switch (kind_) {
      case details::kind_grid:
        details::grid_sync();
        break;
      case details::kind_block:
        __syncthreads();
        break;
      case details::kind_multi_warp_tile: {
        const details::tile_warps warps = details::warps_of_tile((unsigned int)size_);
        details::tile_barrier(warps.level, warps.first, warps.count);
        break;
      }
      default:
        __syncwarp(mask_);
        break;
    }
  }
  __device__ unsigned long long size() const { return size_; }
  __device__ unsigned long long num_threads() const { return size_; }
  __device__ unsigned long long thread_rank() const { return rank_; }
  __device__ bool is_valid() const { return size_ != 0; }
  /* Kestrel: which of its parent's partitions this group is, and how many
   * there are (thread_block_tile's meta_group_rank/size). */
  __device__ unsigned long long meta_group_rank() const { return meta_rank_; }
  __device__ unsigned long long meta_group_size() const { return meta_size_; }
  /* Kestrel: the lanes of this warp in the group (tiles and coalesced
   * groups; 0 for blocks and grids), for labeled/binary_partition. */
  __device__ unsigned int __kestrel_lanes() const { return mask_; }

 protected:
  __device__ thread_group(details::group_kind kind, unsigned long long size, unsigned long long rank,
                          unsigned int mask, unsigned long long meta_rank, unsigned long long meta_size)
      : kind_(kind), mask_(mask), size_(size), rank_(rank), meta_rank_(meta_rank), meta_size_(meta_size) {}
  /* The lanes of this warp in the group (tiles and coalesced groups). */
  __device__ unsigned int lane_mask() const { return mask_; }
  __device__ details::group_kind kind() const { return kind_; }

  friend __device__ thread_group tiled_partition(const thread_group& parent, unsigned int tile_size);

 private:
  details::group_kind kind_;
  unsigned int mask_;
  unsigned long long size_;
  unsigned long long rank_;
  unsigned long long meta_rank_;
  unsigned long long meta_size_;
};

/* ---- thread_block: this_thread_block() ---------------------------------------- */
class thread_block : public thread_group {
 public:
  static __device__ void sync() { __syncthreads(); }
  static __device__ unsigned int size() { return details::block_threads(); }
  static __device__ unsigned int num_threads() { return details::block_threads(); }
  static __device__ unsigned int thread_rank() { return details::block_rank_of_thread(); }
  static __device__ dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static __device__ dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static __device__ dim3 dim_threads() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  static __device__ dim3 group_dim() { return dim_threads(); }

 private:
  __device__ thread_block()
      : thread_group(details::kind_block, details::block_threads(), details::block_rank_of_thread(), 0u,
                     details::grid_block_rank(), details::grid_blocks()) {}
  friend __device__ thread_block this_thread_block();
};

__device__ inline thread_block this_thread_block() { return thread_block(); }

/* CUDA's scratch for tiles larger than a warp, which a kernel declares
 * __shared__ and passes to this_thread_block(scratch).  Kestrel keeps that
 * state in its own shared variable (details::tile_scratch), so this is an
 * empty marker and the overload below ignores it. */
template <unsigned int MaxBlockSize = 1024>
struct block_tile_memory {
  static_assert(MaxBlockSize >= 1 && MaxBlockSize <= 1024, "block_tile_memory: at most 1024 threads");
};
template <unsigned int MaxBlockSize>
__device__ inline thread_block this_thread_block(block_tile_memory<MaxBlockSize>& scratch) {
  (void)scratch;
  return this_thread_block();
}

/* ---- grid_group: this_grid() ---------------------------------------------------
 * Valid in a kernel started by cudaLaunchCooperativeKernel; sync() anywhere
 * else stops the launch with an ASSERT fault naming the reason. */
class grid_group : public thread_group {
 public:
  __device__ bool is_valid() const {
    return *(volatile unsigned int*)&details::__kestrel_grid_sync[KESTREL_GRID_SYNC_FLAG_WORD] != 0;
  }
  __device__ void sync() const { details::grid_sync(); }
  static __device__ unsigned long long size() { return details::grid_blocks() * details::block_threads(); }
  static __device__ unsigned long long num_threads() { return size(); }
  static __device__ unsigned long long thread_rank() {
    return details::grid_block_rank() * details::block_threads() + details::block_rank_of_thread();
  }
  static __device__ unsigned long long num_blocks() { return details::grid_blocks(); }
  static __device__ unsigned long long block_rank() { return details::grid_block_rank(); }
  static __device__ dim3 group_dim() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  static __device__ dim3 dim_blocks() { return group_dim(); }
  static __device__ dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }

 private:
  __device__ grid_group() : thread_group(details::kind_grid, size(), thread_rank(), 0u, 0, 1) {}
  friend __device__ grid_group this_grid();
};

__device__ inline grid_group this_grid() { return grid_group(); }

/* ---- Warp-level groups: the collectives, by rank within the group ------------ */
namespace details {

/* Shared by thread_block_tile and coalesced_group.  Tiles of a power-of-two
 * size use the hardware's segmented shuffles (width = the tile size); a
 * coalesced group maps ranks to lanes through its mask. */
template <typename Group>
class warp_collectives {
 public:
  __device__ void sync() const { __syncwarp(self().lane_mask()); }
  __device__ int any(int predicate) const { return __any_sync(self().lane_mask(), predicate); }
  __device__ int all(int predicate) const { return __all_sync(self().lane_mask(), predicate); }
  /* Bit i: the predicate of the thread of rank i. */
  __device__ unsigned int ballot(int predicate) const {
    return self().compact(__ballot_sync(self().lane_mask(), predicate));
  }
  template <typename T>
  __device__ unsigned int match_any(T value) const {
    return self().compact(__match_any_sync(self().lane_mask(), value));
  }
  template <typename T>
  __device__ unsigned int match_all(T value, int& predicate) const {
    return self().compact(__match_all_sync(self().lane_mask(), value, &predicate));
  }

 private:
  __device__ const Group& self() const { return static_cast<const Group&>(*this); }
};

}  // namespace details

/* ---- Tiles: a warp's (N <= 32) and several warps' (64 <= N <= 1024) ---------- */
namespace details {

template <unsigned int Size>
class warp_tile : public thread_group, public warp_collectives<warp_tile<Size>> {
  static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                "thread_block_tile<N>: N must be a power of two from 1 to 32");
  friend class details::warp_collectives<warp_tile<Size>>;

 public:
  using details::warp_collectives<warp_tile<Size>>::any;
  using details::warp_collectives<warp_tile<Size>>::all;
  using details::warp_collectives<warp_tile<Size>>::ballot;
  using details::warp_collectives<warp_tile<Size>>::match_any;
  using details::warp_collectives<warp_tile<Size>>::match_all;
  static constexpr unsigned int num_threads_value = Size;

  __device__ void sync() const { __syncwarp(lane_mask()); }
  static constexpr __device__ unsigned int size() { return Size; }
  static constexpr __device__ unsigned int num_threads() { return Size; }
  __device__ unsigned int thread_rank() const { return (unsigned int)thread_group::thread_rank(); }
  __device__ unsigned int meta_group_rank() const { return (unsigned int)thread_group::meta_group_rank(); }
  __device__ unsigned int meta_group_size() const { return (unsigned int)thread_group::meta_group_size(); }

  template <typename T>
  __device__ T shfl(T var, int src_rank) const {
    const unsigned int mask = lane_mask();
    return details::shuffle_words(var, [=](unsigned int w) { return __shfl_sync(mask, w, src_rank, Size); });
  }
  template <typename T>
  __device__ T shfl_down(T var, unsigned int delta) const {
    const unsigned int mask = lane_mask();
    return details::shuffle_words(var,
                                  [=](unsigned int w) { return __shfl_down_sync(mask, w, delta, Size); });
  }
  template <typename T>
  __device__ T shfl_up(T var, unsigned int delta) const {
    const unsigned int mask = lane_mask();
    return details::shuffle_words(var, [=](unsigned int w) { return __shfl_up_sync(mask, w, delta, Size); });
  }
  template <typename T>
  __device__ T shfl_xor(T var, unsigned int lane_mask_value) const {
    const unsigned int mask = lane_mask();
    return details::shuffle_words(
        var, [=](unsigned int w) { return __shfl_xor_sync(mask, w, (int)lane_mask_value, Size); });
  }

  /* From a parent group's rank and size (tiled_partition). */
  __device__ warp_tile(unsigned long long parent_rank, unsigned long long parent_size)
      : thread_group(details::kind_tile, Size, parent_rank % Size, tile_lanes(parent_rank),
                     parent_rank / Size, (parent_size + Size - 1) / Size) {}

 protected:
  __device__ unsigned int lane_mask() const { return thread_group::lane_mask(); }
  /* The tile's ranks are its lanes, from the first. */
  __device__ unsigned int compact(unsigned int lanes) const {
    return (lanes >> (__kestrel_lane_id() & ~(Size - 1) & 31u)) &
           (Size == 32 ? 0xFFFFFFFFu : (1u << Size) - 1);
  }

 private:
  static __device__ unsigned int tile_lanes(unsigned long long parent_rank) {
    KESTREL_CG_REQUIRE(Size <= (unsigned int)warpSize,
                       "thread_block_tile<N>: N exceeds the device's warpSize");
    (void)parent_rank;
    const unsigned int first = __kestrel_lane_id() & ~(Size - 1);
    return Size == 32 ? 0xFFFFFFFFu : ((1u << Size) - 1) << first;
  }
};

/* A tile of 64 to 1024 threads: whole warps of one block.  Creating one is
 * collective over the block (as in CUDA): every thread of the block calls
 * tiled_partition, which resets the tile's barrier and waits at
 * __syncthreads.  sync() and cg::reduce work across its warps through
 * shared memory (tile_scratch); the shuffles and votes are a warp's. */
template <unsigned int Size>
class multi_warp_tile : public thread_group {
  static_assert(Size > 32 && Size <= 1024 && (Size & (Size - 1)) == 0,
                "thread_block_tile<N>: N must be a power of two from 1 to 1024");

 public:
  static constexpr unsigned int num_threads_value = Size;
  __device__ void sync() const {
    const tile_warps warps = warps_of_tile(Size);
    tile_barrier(warps.level, warps.first, warps.count);
  }
  static constexpr __device__ unsigned int size() { return Size; }
  static constexpr __device__ unsigned int num_threads() { return Size; }
  __device__ unsigned int thread_rank() const { return (unsigned int)thread_group::thread_rank(); }
  __device__ unsigned int meta_group_rank() const { return (unsigned int)thread_group::meta_group_rank(); }
  __device__ unsigned int meta_group_size() const { return (unsigned int)thread_group::meta_group_size(); }

  /* cg::reduce: each warp combines its lanes (butterfly), lane 0 leaves the
   * warp's value in its slot, and after the tile's barrier every thread
   * combines the slots in warp order. */
  template <typename T, typename Op>
  __device__ T __kestrel_reduce(T value, Op& op) const {
    static_assert(sizeof(T) <= 16, "cg::reduce over a multi-warp tile: values of at most 16 bytes");
    for (unsigned int offset = (unsigned int)warpSize / 2; offset > 0; offset /= 2)
      value = op(value, shuffle_words(value, [=](unsigned int w) {
                   return __shfl_xor_sync(0xFFFFFFFFu, w, (int)offset);
                 }));
    tile_scratch* const scratch = block_tile_scratch();
    const tile_warps warps = warps_of_tile(Size);
    if (__kestrel_lane_id() == 0) __builtin_memcpy(scratch->slot[__kestrel_warp_id()], &value, sizeof(T));
    tile_barrier(warps.level, warps.first, warps.count);
    T result;
    __builtin_memcpy(&result, scratch->slot[warps.first], sizeof(T));
    for (unsigned int w = 1; w < warps.count; ++w) {
      T other;
      __builtin_memcpy(&other, scratch->slot[warps.first + w], sizeof(T));
      result = op(result, other);
    }
    tile_barrier(warps.level, warps.first, warps.count);  // the slots are free again
    return result;
  }

  __device__ multi_warp_tile(unsigned long long parent_rank, unsigned long long parent_size)
      : thread_group(kind_multi_warp_tile, Size, parent_rank % Size, 0u, parent_rank / Size,
                     (parent_size + Size - 1) / Size) {
    KESTREL_CG_REQUIRE(Size <= block_threads() || parent_size < Size,
                       "thread_block_tile<N>: N is larger than the block");
    if (parent_rank % Size == 0) {
      tile_scratch* const scratch = block_tile_scratch();
      const tile_warps warps = warps_of_tile(Size);
      scratch->count[warps.level][warps.first] = 0;
      scratch->generation[warps.level][warps.first] = 0;
    }
    __syncthreads();
  }
};

template <bool MultiWarp, unsigned int Size>
struct tile_base {
  using type = warp_tile<Size>;
};
template <unsigned int Size>
struct tile_base<true, Size> {
  using type = multi_warp_tile<Size>;
};

}  // namespace details

/* ---- thread_block_tile<N>: tiled_partition<N>(parent) ---------------------------
 * N up to 32: threads of rank k*N .. k*N+N-1 of the parent (a block or a
 * larger tile), in one warp (details::warp_tile).  size() is N even in a
 * block's last, partial tile, as in CUDA; its missing threads have exited
 * and take no part.  N from 64 to 1024: whole warps (details::multi_warp_tile). */
template <unsigned int Size, typename ParentT = void>
class thread_block_tile;

template <unsigned int Size>
class thread_block_tile<Size, void> : public details::tile_base<(Size > 32), Size>::type {
  using Base = typename details::tile_base<(Size > 32), Size>::type;

 public:
  __device__ thread_block_tile(unsigned long long parent_rank, unsigned long long parent_size)
      : Base(parent_rank, parent_size) {}
};

/* The typed form tiled_partition<N>(parent) returns; converts to thread_block_tile<N>. */
template <unsigned int Size, typename ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
 public:
  __device__ thread_block_tile(unsigned long long parent_rank, unsigned long long parent_size)
      : thread_block_tile<Size, void>(parent_rank, parent_size) {}
};

template <unsigned int Size, typename ParentT>
static __device__ __forceinline__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT& parent) {
  return thread_block_tile<Size, ParentT>(parent.thread_rank(), parent.num_threads());
}

/* tiled_partition(parent, n) with n chosen at run time: a power of two from 1
 * to 32 (the warp-sized tiles CUDA's dynamic partition offers); its size,
 * ranks and sync() are known to thread_group. */
__device__ inline thread_group tiled_partition(const thread_group& parent, unsigned int tile_size) {
  KESTREL_CG_REQUIRE(tile_size >= 1 && tile_size <= 32 && (tile_size & (tile_size - 1)) == 0 &&
                         tile_size <= (unsigned int)warpSize,
                     "tiled_partition(g, n): n must be a power of two from 1 to warpSize");
  KESTREL_CG_REQUIRE(parent.kind() == details::kind_block || parent.kind() == details::kind_tile,
                     "tiled_partition(g, n): g must be a thread block or a tile");
  const unsigned long long rank = parent.thread_rank();
  const unsigned int first = __kestrel_lane_id() & ~(tile_size - 1) & 31u;
  const unsigned int lanes = tile_size == 32 ? 0xFFFFFFFFu : ((1u << tile_size) - 1) << first;
  return thread_group(details::kind_tile, tile_size, rank % tile_size, lanes, rank / tile_size,
                      (parent.num_threads() + tile_size - 1) / tile_size);
}

/* ---- coalesced_group: coalesced_threads() ------------------------------------------
 * The threads of this warp that execute the call together (__activemask).
 * Ranks count the group's lanes from the lowest; shfl_down/up/xor whose
 * source rank is outside the group return the caller's own value. */
class coalesced_group : public thread_group, public details::warp_collectives<coalesced_group> {
  friend class details::warp_collectives<coalesced_group>;

 public:
  using details::warp_collectives<coalesced_group>::any;
  using details::warp_collectives<coalesced_group>::all;
  using details::warp_collectives<coalesced_group>::ballot;
  using details::warp_collectives<coalesced_group>::match_any;
  using details::warp_collectives<coalesced_group>::match_all;

  __device__ void sync() const { __syncwarp(lane_mask()); }
  __device__ unsigned int size() const { return (unsigned int)thread_group::size(); }
  __device__ unsigned int num_threads() const { return size(); }
  __device__ unsigned int thread_rank() const { return (unsigned int)thread_group::thread_rank(); }
  __device__ unsigned int meta_group_rank() const { return (unsigned int)thread_group::meta_group_rank(); }
  __device__ unsigned int meta_group_size() const { return (unsigned int)thread_group::meta_group_size(); }

  template <typename T>
  __device__ T shfl(T var, unsigned int src_rank) const {
    return from_rank(var, src_rank < size() ? src_rank : thread_rank());
  }
  template <typename T>
  __device__ T shfl_down(T var, unsigned int delta) const {
    const unsigned int source = thread_rank() + delta;
    return from_rank(var, source < size() ? source : thread_rank());
  }
  template <typename T>
  __device__ T shfl_up(T var, unsigned int delta) const {
    return from_rank(var, delta <= thread_rank() ? thread_rank() - delta : thread_rank());
  }
  template <typename T>
  __device__ T shfl_xor(T var, unsigned int lane_mask_value) const {
    const unsigned int source = thread_rank() ^ lane_mask_value;
    return from_rank(var, source < size() ? source : thread_rank());
  }

  __device__ explicit coalesced_group(unsigned int lanes)
      : thread_group(details::kind_coalesced, (unsigned int)__builtin_popcount(lanes),
                     (unsigned int)__builtin_popcount(lanes & details::lanes_below(__kestrel_lane_id())),
                     lanes, 0, 1) {}

 protected:
  __device__ unsigned int lane_mask() const { return thread_group::lane_mask(); }
  __device__ unsigned int compact(unsigned int lanes) const {
    return details::compact_bits(lanes, lane_mask());
  }

 private:
  template <typename T>
  __device__ T from_rank(T var, unsigned int rank) const {
    const unsigned int mask = lane_mask();
    const int lane = (int)details::lane_of_rank(mask, rank);
    return details::shuffle_words(var, [=](unsigned int w) { return __shfl_sync(mask, w, lane); });
  }
};

static __device__ __forceinline__ coalesced_group coalesced_threads() {
  return coalesced_group(__activemask());
}

/* labeled_partition(g, label) and binary_partition(g, predicate) (CUDA 11):
 * the threads of a tile or coalesced group with the same label (predicate),
 * as a coalesced_group ranked from the lowest lane. */
template <typename Group>
static __device__ __forceinline__ coalesced_group labeled_partition(const Group& group, int label) {
  return coalesced_group(__match_any_sync(group.__kestrel_lanes(), label));
}
template <typename Group>
static __device__ __forceinline__ coalesced_group labeled_partition(const Group& group, unsigned int label) {
  return coalesced_group(__match_any_sync(group.__kestrel_lanes(), label));
}
template <typename Group>
static __device__ __forceinline__ coalesced_group binary_partition(const Group& group, bool predicate) {
  const unsigned int lanes = group.__kestrel_lanes();
  const unsigned int taken = __ballot_sync(lanes, predicate);
  return coalesced_group(predicate ? taken : lanes & ~taken);
}

/* Generic forms taking the group as an argument. */
template <typename Group>
static __device__ __forceinline__ void sync(const Group& group) {
  group.sync();
}
template <typename Group>
static __device__ __forceinline__ unsigned long long thread_rank(const Group& group) {
  return group.thread_rank();
}
template <typename Group>
static __device__ __forceinline__ unsigned long long group_size(const Group& group) {
  return group.num_threads();
}

}  // namespace cooperative_groups

#endif /* KESTREL_COOPERATIVE_GROUPS_H */
