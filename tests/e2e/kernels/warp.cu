// Warp-level primitives: the guide's shuffle examples (B.14.5), a block scan
// built on shuffles, ballot-based stream compaction, votes, match and reduce
// under divergent and partial masks, 64-bit and float shuffles, and the bit
// intrinsics kernels use with them.  tests/e2e/test_warp.cpp checks every
// result against a CPU reference.

// Guide B.14.5.1: lane 0's value broadcast to the warp.
__global__ void broadcast(int arg, int* out) {
  int lane = threadIdx.x & 0x1f;
  int value = 0;
  if (lane == 0) value = arg;  // only lane 0 holds the value
  value = __shfl_sync(0xffffffff, value, 0);
  out[threadIdx.x] = value;
}

// Guide B.14.5.2: inclusive scan inside each 8-thread sub-partition.
__global__ void scan8(int* out) {
  int lane = threadIdx.x & 0x1f;
  int value = 31 - lane;
  for (int i = 1; i <= 4; i *= 2) {
    int n = __shfl_up_sync(0xffffffff, value, i, 8);  // lanes below i keep their value
    if ((lane & 7) >= i) value += n;
  }
  out[threadIdx.x] = value;
}

// Guide B.14.5.3: butterfly reduction, every lane ends with the total.
__global__ void warp_reduce(int* out) {
  int lane = threadIdx.x & 0x1f;
  int value = 31 - lane;
  for (int i = 16; i >= 1; i /= 2) value += __shfl_xor_sync(0xffffffff, value, i, 32);
  out[threadIdx.x] = value;
}

// Inclusive scan of a whole block: a shuffle scan per warp, the warp totals
// scanned by warp 0 through shared memory, then added back.
__device__ int warp_inclusive_scan(int value) {
  const int lane = threadIdx.x % warpSize;
  for (int offset = 1; offset < warpSize; offset *= 2) {
    int below = __shfl_up_sync(0xffffffff, value, offset);
    if (lane >= offset) value += below;
  }
  return value;
}

__global__ void block_scan(const int* in, int* out, int n) {
  __shared__ int warp_totals[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  int value = i < n ? in[i] : 0;
  value = warp_inclusive_scan(value);
  if (lane == warpSize - 1) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0) {
    const int warps = (blockDim.x + warpSize - 1) / warpSize;
    int total = lane < warps ? warp_totals[lane] : 0;
    total = warp_inclusive_scan(total);
    if (lane < warps) warp_totals[lane] = total;
  }
  __syncthreads();
  if (warp > 0) value += warp_totals[warp - 1];
  if (i < n) out[i] = value;
}

// Stable stream compaction of one block: each warp's ballot says which lanes
// keep their element, __popc of the lanes below gives the slot inside the
// warp, and the warps' counts are scanned in shared memory.
__global__ void compact(const int* in, int n, int threshold, int* out, int* count) {
  __shared__ int warp_counts[32];
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  const int value = threadIdx.x < n ? in[threadIdx.x] : 0;
  const bool keep = threadIdx.x < n && value > threshold;
  const unsigned kept = __ballot_sync(0xffffffff, keep);
  if (lane == 0) warp_counts[warp] = __popc(kept);
  __syncthreads();
  int base = 0;
  for (int w = 0; w < warp; ++w) base += warp_counts[w];
  const unsigned below = lane == 0 ? 0u : kept & (0xffffffffu >> (32 - lane));
  if (keep) out[base + __popc(below)] = value;
  if (threadIdx.x == blockDim.x - 1) *count = base + __popc(kept);
}

// Divergent masks.  out[8 * t + k], per thread t:
//  0: ballot of (value odd) among the lanes of my (lane % 3) class, taken in
//     three different branches with three disjoint masks;
//  1: __all_sync of my class;  2: __any_sync;  3: __uni_sync;
//  4: full-warp ballot after odd lanes ran a longer loop (they arrive late);
//  5: __activemask() inside an if on lane < 10;
//  6: legacy __ballot inside the same if;
//  7: full-mask ballot by threads of a block whose last warp is partial
//     (exited lanes count as false).
__global__ void divergent_votes(const int* values, int* out) {
  const unsigned lane = threadIdx.x % 32;
  const int v = values[threadIdx.x];
  int* mine = out + 8 * threadIdx.x;
  const unsigned class_masks[3] = {0x49249249u, 0x92492492u, 0x24924924u};  // lanes % 3 == 0, 1, 2
  const unsigned my_class = class_masks[lane % 3];
  unsigned ballot;
  int all, any, uni;
  if (lane % 3 == 0) {
    ballot = __ballot_sync(my_class, v & 1);
    all = __all_sync(my_class, v & 1);
    any = __any_sync(my_class, v & 1);
    uni = __uni_sync(my_class, v & 1);
  } else if (lane % 3 == 1) {
    ballot = __ballot_sync(my_class, v & 1);
    all = __all_sync(my_class, v & 1);
    any = __any_sync(my_class, v & 1);
    uni = __uni_sync(my_class, v & 1);
  } else {
    ballot = __ballot_sync(my_class, v & 1);
    all = __all_sync(my_class, v & 1);
    any = __any_sync(my_class, v & 1);
    uni = __uni_sync(my_class, v & 1);
  }
  mine[0] = (int)ballot;
  mine[1] = all;
  mine[2] = any;
  mine[3] = uni;

  int work = 0;
  for (int k = 0; k < (int)(lane & 1) * 10 + 1; ++k) work += k;
  mine[4] = (int)__ballot_sync(0xffffffff, work > 5);

  if (lane < 10) {
    mine[5] = (int)__activemask();
    mine[6] = (int)__ballot(v > 0);
  } else {
    mine[5] = mine[6] = -1;
  }
  mine[7] = (int)__ballot_sync(0xffffffff, v > 0);
}

// Match and reduce over each warp, and over the even lanes only.
// out[12 * t + k]: match_any, match_all (+ its predicate), match_any of a
// 64-bit key whose halves differ, reduce add/min/max (int), min/max
// (unsigned), and/or/xor, then an even-lanes reduce add.
__global__ void match_reduce(const int* keys, const int* values, int* out) {
  const int t = threadIdx.x;
  const int key = keys[t], value = values[t];
  int* mine = out + 12 * t;
  int pred = -1;
  mine[0] = (int)__match_any_sync(0xffffffff, key);
  mine[1] = (int)__match_all_sync(0xffffffff, key / 100, &pred);
  mine[2] = pred;
  const unsigned long long wide = ((unsigned long long)(unsigned)key << 32) | (unsigned)(t % 4);
  mine[3] = (int)__match_any_sync(0xffffffff, wide);
  mine[4] = __reduce_add_sync(0xffffffff, value);
  mine[5] = __reduce_min_sync(0xffffffff, value);
  mine[6] = __reduce_max_sync(0xffffffff, value);
  mine[7] = (int)__reduce_min_sync(0xffffffff, (unsigned)value);
  mine[8] = (int)__reduce_max_sync(0xffffffff, (unsigned)value);
  mine[9] =
      (int)(__reduce_and_sync(0xffffffff, (unsigned)value) ^ __reduce_or_sync(0xffffffff, (unsigned)value));
  mine[10] = (int)__reduce_xor_sync(0xffffffff, (unsigned)value);
  mine[11] = (t & 1) == 0 ? (int)__reduce_add_sync(0x55555555, (unsigned)value) : 0;
}

// Shuffles of every type; `width` 16 for the 64-bit ones.
__global__ void typed_shuffles(long long* wide, double* reals, float* floats, unsigned* words) {
  const int t = threadIdx.x;
  long long w = 0x0123456789ABLL * (t + 1) - 7;
  double d = 1.5 * t - 100.25;
  float f = 0.5f * t;
  unsigned u = 0xF0000000u + t;
  wide[t] = __shfl_down_sync(0xffffffff, w, 3, 16);
  reals[t] = __shfl_xor_sync(0xffffffff, d, 5, 16);
  floats[t] = __shfl_sync(0xffffffff, f, 31 - t);
  words[t] = __shfl_up_sync(0xffffffff, u, 2);
  unsigned long long uw = (unsigned long long)w;
  wide[32 + t] = (long long)__shfl_sync(0xffffffff, uw, t + 1, 8);
}

// Bit intrinsics (compiled code, see docs/programming-guide.md): each thread
// applies all of them to its inputs.
__global__ void bit_intrinsics(const unsigned* a, const unsigned* b, unsigned* out) {
  const int t = threadIdx.x;
  const unsigned x = a[t], y = b[t];
  const unsigned long long wx = ((unsigned long long)x << 32) | y,
                           wy = ((unsigned long long)y << 32) | (x ^ 0x5A5A);
  unsigned* mine = out + 20 * t;
  mine[0] = __popc(x);
  mine[1] = __popcll(wx);
  mine[2] = __clz((int)x);
  mine[3] = __clzll((long long)wy);
  mine[4] = __ffs((int)y);
  mine[5] = __ffsll((long long)wx);
  mine[6] = __brev(x);
  mine[7] = (unsigned)(__brevll(wx) >> 16);
  mine[8] = __byte_perm(x, y, y & 0x7777);
  mine[9] = __funnelshift_l(x, y, y);
  mine[10] = __funnelshift_lc(x, y, y & 63);
  mine[11] = __funnelshift_r(x, y, x);
  mine[12] = __funnelshift_rc(x, y, x & 63);
  mine[13] = (unsigned)__mul24((int)x, (int)y);
  mine[14] = __umul24(x, y);
  mine[15] = __umulhi(x, y);
  mine[16] = (unsigned)__mulhi((int)x, (int)y);
  mine[17] = (unsigned)(__umul64hi(wx, wy) >> 7);
  mine[18] = (unsigned)((unsigned long long)__mul64hi((long long)wx, (long long)wy) >> 3);
  mine[19] = __sad((int)x, (int)y, 5u) ^ __usad(x, y, 9u);
}

// clock64() never goes backwards within a thread, and work takes cycles.
__global__ void clock_monotonic(long long* out) {
  long long previous = clock64();
  long long first = previous;
  int backwards = 0;
  for (int i = 0; i < 50; ++i) {
    long long now = clock64();
    if (now < previous) ++backwards;
    previous = now;
  }
  out[3 * threadIdx.x] = backwards;
  out[3 * threadIdx.x + 1] = previous - first;
  out[3 * threadIdx.x + 2] = (long long)clock();
}

// Warp 0 sleeps while warp 1 counts; warp 0 then reads how far warp 1 got.
// 500 us: long enough for the 200 global-memory increments on every backend
// (on rtlsim each takes a load and a store of DRAM latency, ~10^4 cycles in
// all, against 5 * 10^4 cycles of sleep at 100 MHz).
__global__ void sleep_and_count(volatile int* counter, long long* slept, int* seen) {
  if (threadIdx.x / warpSize == 0) {
    long long before = clock64();
    __nanosleep(500000);
    slept[threadIdx.x] = clock64() - before;
    seen[threadIdx.x] = *counter;
  } else if (threadIdx.x % warpSize == 0) {
    for (int i = 0; i < 200; ++i) *counter = *counter + 1;
  }
}
