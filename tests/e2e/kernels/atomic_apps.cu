// Programs built on atomics and fences, checked by tests/e2e/test_atomics.cpp:
// histograms (shared-memory bins merged into global ones, and global bins
// only), parallel counters, lock-free stack pushes with CAS, an intra-warp
// spin lock (it relies on the forward-progress rule of docs/isa.md section
// 6), the guide's B.5 "last block sums the partial sums" kernel, and 8- and
// 16-bit atomics that become LR/SC loops.

constexpr int kBins = 256;

// Each block counts into its own shared bins, then adds them to the global
// ones: most atomics stay at the shared-memory banks (guide B.12).
__global__ void histogram_shared(const unsigned char* data, unsigned int n, unsigned int* bins) {
  __shared__ unsigned int local[kBins];
  for (int i = threadIdx.x; i < kBins; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < kBins; i += blockDim.x)
    if (local[i] != 0) atomicAdd(&bins[i], local[i]);
}

// Every element is one atomic on global memory.
__global__ void histogram_global(const unsigned char* data, unsigned int n, unsigned int* bins) {
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i]], 1u);
}

// Several counters over one input: how many are even, the sum, the extremes,
// the first index of the largest value (a 64-bit max of value:~index keys)
// and a bitmap of the values seen modulo 64.
struct Stats {
  unsigned int even;
  int sum;
  int min;
  int max;
  unsigned long long argmax_key;
  unsigned long long seen_mod_64;
};
__global__ void parallel_counters(const int* values, unsigned int n, Stats* stats) {
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int v = values[i];
    if ((v & 1) == 0) atomicAdd(&stats->even, 1u);
    atomicAdd(&stats->sum, v);
    atomicMin(&stats->min, v);
    atomicMax(&stats->max, v);
    const unsigned long long key = ((unsigned long long)(unsigned int)(v + 0x40000000) << 32) | (0xFFFFFFFFu - i);
    atomicMax(&stats->argmax_key, key);
    atomicOr(&stats->seen_mod_64, 1ull << ((unsigned int)v % 64u));
  }
}

// Lock-free stack of node indices: each thread pushes its node.  `next[me]`
// is written before the CAS publishes it; the fence orders the two for the
// threads that pop later (guide B.5).
constexpr unsigned int kEmpty = 0xFFFFFFFFu;
__global__ void stack_push(unsigned int* head, unsigned int* next) {
  const unsigned int me = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int old = *(volatile unsigned int*)head, seen;
  do {
    next[me] = old;
    __threadfence();
    seen = old;
    old = atomicCAS(head, seen, me);
  } while (old != seen);
}

// The same with a 64-bit head: a push count (ABA tag) in the high word, the
// index in the low word, so a 64-bit CAS (a register-pair CAS on RV32).
__global__ void stack_push_tagged(unsigned long long* head, unsigned int* next) {
  const unsigned int me = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long old = *(volatile unsigned long long*)head, seen;
  do {
    next[me] = (unsigned int)old;
    __threadfence();
    seen = old;
    old = atomicCAS(head, seen, (((seen >> 32) + 1) << 32) | me);
  } while (old != seen);
}

// Every thread of the block, warp-mates included, takes one lock in turn and
// does a plain read-modify-write of the counter inside it.  A lane that wins
// the lock runs at a higher PC than the lanes spinning at its loop, so it only
// gets to release the lock through the scheduler's fairness step.
__global__ void spinlock_counter(int* lock, volatile int* counter, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();  // the critical section's accesses stay after the acquire
    *counter = *counter + 1;
    __threadfence();  // ... and before the release
    atomicExch(lock, 0);
  }
}

// Guide B.5: each block stores its partial sum, fences, and takes a ticket
// with atomicInc; the block that draws gridDim.x - 1 knows every other
// partial sum is in memory and adds them up.  `count` returns to 0 for the
// next launch.  Two changes for the test: the total goes to
// result[gridDim.x] (the guide overwrites result[0]) so the partial sums stay
// checkable, and `sms` records where each block ran.
__device__ unsigned int count = 0;
__global__ void sum(const float* array, unsigned int N, volatile float* result, unsigned int* sms) {
  __shared__ bool isLastBlockDone;
  __shared__ float partial[256];

  // calculatePartialSum: this block's slice, reduced in shared memory.
  float mine = 0.0f;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) mine += array[i];
  partial[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }

  if (threadIdx.x == 0) {
    result[blockIdx.x] = partial[0];
    sms[blockIdx.x] = __kestrel_sm_id();
    __threadfence();
    unsigned int value = atomicInc(&count, gridDim.x);
    isLastBlockDone = (value == (gridDim.x - 1));
  }
  __syncthreads();

  if (isLastBlockDone) {
    // calculateTotalSum: the last block's threads fold result[0 .. gridDim.x-1].
    float total = 0.0f;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += result[b];
    partial[threadIdx.x] = total;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride /= 2) {
      if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      result[gridDim.x] = partial[0];
      count = 0;
    }
  }
}

// 8- and 16-bit atomics, which the A extension lacks: clang turns each into
// an LR/SC loop on the aligned 32-bit word that holds it (masked: the other
// bytes of the word are kept), so every thread here runs lr.w/sc.w loops on
// a few contended words, in global and in shared memory.  Thread t adds 1 to
// the 16-bit counter t % 2 (global, old value to olds[t], and shared) and
// raises byte t % 4 to (t * 37) % 251 with an 8-bit compare-and-swap loop
// (global and shared); each block then adds its shared results into
// `block_sums` ({counter 0, counter 1, byte 0..3}).
__global__ void narrow_atomics(unsigned short* halves, unsigned char* bytes, unsigned short* olds,
                               unsigned int* block_sums) {
  __shared__ unsigned short shared_halves[2];
  __shared__ unsigned char shared_bytes[4];
  if (threadIdx.x < 2) shared_halves[threadIdx.x] = 0;
  if (threadIdx.x < 4) shared_bytes[threadIdx.x] = 0;
  __syncthreads();
  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  olds[t] = __atomic_fetch_add(&halves[t % 2], static_cast<unsigned short>(1), __ATOMIC_RELAXED);
  __atomic_fetch_add(&shared_halves[t % 2], static_cast<unsigned short>(1), __ATOMIC_RELAXED);
  const unsigned char want = static_cast<unsigned char>((t * 37) % 251);
  unsigned char* const words[2] = {&bytes[t % 4], &shared_bytes[t % 4]};
  for (unsigned char* word : words) {
    unsigned char seen = __atomic_load_n(word, __ATOMIC_RELAXED);
    while (seen < want &&
           !__atomic_compare_exchange_n(word, &seen, want, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
  }
  __syncthreads();
  if (threadIdx.x < 2)
    atomicAdd(&block_sums[threadIdx.x], static_cast<unsigned int>(shared_halves[threadIdx.x]));
  if (threadIdx.x < 4)
    atomicMax(&block_sums[2 + threadIdx.x], static_cast<unsigned int>(shared_bytes[threadIdx.x]));
}

// LR/SC reservations belong to threads (docs/isa.md section 1).  Every third
// block reserves a word and exits without an SC: even threads a shared word,
// odd threads their own global word.  The other blocks, many of which run in
// warp slots a reserving block has left (slots are reused in an order whose
// period is not a multiple of 3), try an SC on the same word without an LR
// of their own; each must fail (1), whatever the slot's previous thread
// reserved.
__global__ void sc_without_lr(int* global_words, int* results) {
  __shared__ int shared_word;
  int* const word = threadIdx.x % 2 == 0 ? &shared_word : &global_words[threadIdx.x];
  int r = 2;  // a reserving block's marker
  if (blockIdx.x % 3 == 0) {
    int seen;
    asm volatile("lr.w %0, (%1)" : "=r"(seen) : "r"(word) : "memory");
    (void)seen;
  } else {
    asm volatile("sc.w %0, %2, (%1)" : "=r"(r) : "r"(word), "r"(static_cast<int>(blockIdx.x)) : "memory");
  }
  results[blockIdx.x * blockDim.x + threadIdx.x] = r;
}
