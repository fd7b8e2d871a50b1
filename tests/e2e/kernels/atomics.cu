// Every atomic function of guide B.12, on global memory (threads of several
// blocks on several SMs) and on shared memory (the threads of one block),
// with per-thread operands the host recomputes: tests/e2e/test_atomics.cpp
// checks the final values, which do not depend on the order the threads
// took, and the old values each thread got back.  Plus contention: all
// threads on one word each get a distinct old value (guide 4.1).

// Cell indices of the arrays below; tests/e2e/test_atomics.cpp has the same.
enum IntCell { kAddI, kSubI, kExchI, kMinI, kMaxI, kCasI, kAndI, kOrI, kXorI, kIntCells };
enum UintCell { kAddU, kSubU, kExchU, kMinU, kMaxU, kIncU, kDecU, kDecAboveU, kCasU, kAndU, kOrU, kXorU, kUintCells };
enum UllCell { kAddUll, kExchUll, kMinUll, kMaxUll, kCasUll, kAndUll, kOrUll, kXorUll, kUllCells };
enum LlCell { kMinLl, kMaxLl, kLlCells };
enum FloatCell { kAddF, kExchF, kFloatCells };
enum OldRow { kOldExchI, kOldExchU, kOldExchF, kOldInc, kOldDec, kOldDecAbove, kOldRows };
constexpr unsigned int kWrapLimit = 10;  // atomicInc/atomicDec's val

struct Cells {
  int* ints;
  unsigned int* uints;
  unsigned long long* ulls;
  long long* lls;
  float* floats;
  double* doubles;          // one cell: atomicAdd(double)
  unsigned short* shorts;   // two halves of one word, both CAS-incremented
};

// Increments *address by one through an atomicCAS retry loop (the pattern
// guide B.12 builds every other atomic from).
template <typename T>
__device__ void cas_increment(T* address) {
  T old = *(volatile T*)address, assumed;
  do {
    assumed = old;
    old = atomicCAS(address, assumed, (T)(assumed + 1));
  } while (old != assumed);
}

// Thread t's operations; olds[row * n + t] records the old values the host
// checks as multisets.
__device__ void apply_all(Cells c, unsigned int t, unsigned int n, unsigned int* olds,
                          unsigned long long* exch_olds) {
  atomicAdd(&c.ints[kAddI], (int)(t % 7) - 3);
  atomicSub(&c.ints[kSubI], (int)(t % 5));
  olds[kOldExchI * n + t] = (unsigned int)atomicExch(&c.ints[kExchI], (int)t + 1);
  atomicMin(&c.ints[kMinI], (int)((t * 37) % 101) - 50);
  atomicMax(&c.ints[kMaxI], (int)((t * 37) % 101) - 50);
  cas_increment(&c.ints[kCasI]);
  atomicAnd(&c.ints[kAndI], ~(1 << (t % 31)));
  atomicOr(&c.ints[kOrI], 1 << (t % 31));
  atomicXor(&c.ints[kXorI], (int)(t * 2654435761u));

  atomicAdd(&c.uints[kAddU], t * 3u + 1u);
  atomicSub(&c.uints[kSubU], t);
  olds[kOldExchU * n + t] = atomicExch(&c.uints[kExchU], t + 100u);
  const unsigned int spread = (t % 2 ? 0x80000000u : 0u) + t * 7919u;  // both signs, were it signed
  atomicMin(&c.uints[kMinU], spread);
  atomicMax(&c.uints[kMaxU], spread);
  olds[kOldInc * n + t] = atomicInc(&c.uints[kIncU], kWrapLimit);
  olds[kOldDec * n + t] = atomicDec(&c.uints[kDecU], kWrapLimit);
  olds[kOldDecAbove * n + t] = atomicDec(&c.uints[kDecAboveU], kWrapLimit);
  cas_increment(&c.uints[kCasU]);
  atomicAnd(&c.uints[kAndU], ~(1u << (t % 32)));
  atomicOr(&c.uints[kOrU], 1u << (t % 32));
  atomicXor(&c.uints[kXorU], t * 40503u);

  const unsigned long long wide = ((unsigned long long)t << 33) | (t * 7u + 1u);
  atomicAdd(&c.ulls[kAddUll], wide);
  exch_olds[t] = atomicExch(&c.ulls[kExchUll], wide);
  const unsigned long long wide_spread = wide ^ (t % 2 ? 0xF0F0F0F0F0F0F0F0ull : 0x0F0F0F0F0F0F0F0Full);
  atomicMin(&c.ulls[kMinUll], wide_spread);
  atomicMax(&c.ulls[kMaxUll], wide_spread);
  cas_increment(&c.ulls[kCasUll]);
  atomicAnd(&c.ulls[kAndUll], ~(1ull << (t % 64)));
  atomicOr(&c.ulls[kOrUll], 1ull << (t % 64));
  atomicXor(&c.ulls[kXorUll], wide * 0x9E3779B97F4A7C15ull);

  const long long signed_wide = ((long long)t - 40) * 3000000000ll;
  atomicMin(&c.lls[kMinLl], signed_wide);
  atomicMax(&c.lls[kMaxLl], signed_wide);

  atomicAdd(&c.floats[kAddF], 0.5f * (float)(t % 4));  // sums of halves: exact in any order
  olds[kOldExchF * n + t] = __float_as_uint(atomicExch(&c.floats[kExchF], (float)t));
  atomicAdd(&c.doubles[0], 0.25 * (double)t);
  cas_increment(&c.shorts[t % 2]);
}

__global__ void b12_global(int* ints, unsigned int* uints, unsigned long long* ulls, long long* lls,
                           float* floats, double* doubles, unsigned short* shorts, unsigned int* olds,
                           unsigned long long* exch_olds) {
  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  apply_all(Cells{ints, uints, ulls, lls, floats, doubles, shorts}, t, gridDim.x * blockDim.x, olds, exch_olds);
}

// The same on shared copies of the cells, one block; copied in and out by
// thread 0.
__global__ void b12_shared(int* ints, unsigned int* uints, unsigned long long* ulls, long long* lls,
                           float* floats, double* doubles, unsigned short* shorts, unsigned int* olds,
                           unsigned long long* exch_olds) {
  __shared__ int s_ints[kIntCells];
  __shared__ unsigned int s_uints[kUintCells];
  __shared__ unsigned long long s_ulls[kUllCells];
  __shared__ long long s_lls[kLlCells];
  __shared__ float s_floats[kFloatCells];
  __shared__ double s_double;
  __shared__ unsigned short s_shorts[2];
  if (threadIdx.x == 0) {
    for (int i = 0; i < kIntCells; ++i) s_ints[i] = ints[i];
    for (int i = 0; i < kUintCells; ++i) s_uints[i] = uints[i];
    for (int i = 0; i < kUllCells; ++i) s_ulls[i] = ulls[i];
    for (int i = 0; i < kLlCells; ++i) s_lls[i] = lls[i];
    for (int i = 0; i < kFloatCells; ++i) s_floats[i] = floats[i];
    s_double = doubles[0];
    s_shorts[0] = shorts[0];
    s_shorts[1] = shorts[1];
  }
  __syncthreads();
  apply_all(Cells{s_ints, s_uints, s_ulls, s_lls, s_floats, &s_double, s_shorts}, threadIdx.x, blockDim.x, olds,
            exch_olds);
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 0; i < kIntCells; ++i) ints[i] = s_ints[i];
    for (int i = 0; i < kUintCells; ++i) uints[i] = s_uints[i];
    for (int i = 0; i < kUllCells; ++i) ulls[i] = s_ulls[i];
    for (int i = 0; i < kLlCells; ++i) lls[i] = s_lls[i];
    for (int i = 0; i < kFloatCells; ++i) floats[i] = s_floats[i];
    doubles[0] = s_double;
    shorts[0] = s_shorts[0];
    shorts[1] = s_shorts[1];
  }
}

// Contention: every thread adds to one word (global, or one shared word per
// block) and records the old value it got; `float_olds` does the same with
// atomicAdd(float) by 1.0f.  The old values of a block must be distinct.
__global__ void contended_global(unsigned int* counter, float* float_counter, unsigned int* olds,
                                 float* float_olds) {
  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  olds[t] = atomicAdd(counter, 1u);
  float_olds[t] = atomicAdd(float_counter, 1.0f);
}

__global__ void contended_shared(unsigned int* olds, float* float_olds, unsigned long long* wide_olds) {
  __shared__ unsigned int counter;
  __shared__ float float_counter;
  __shared__ unsigned long long wide_counter;
  if (threadIdx.x == 0) {
    counter = 0;
    float_counter = 0.0f;
    wide_counter = 0xFFFFFFF0ull;  // the low word carries into the high word
  }
  __syncthreads();
  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  olds[t] = atomicAdd(&counter, 1u);
  float_olds[t] = atomicAdd(&float_counter, 1.0f);
  wide_olds[t] = atomicAdd(&wide_counter, 1ull);
}

// Misuse the device must report: an atomic on a misaligned word, and one on
// read-only memory (a kernel parameter buffer is mapped R).
__global__ void misaligned_cas(unsigned int* data) {
  atomicCAS((unsigned int*)((char*)data + 2), 0u, 1u);
}
__global__ void misaligned_short_cas(unsigned short* data) {
  atomicCAS((unsigned short*)((char*)data + 1), (unsigned short)0, (unsigned short)1);
}
__constant__ unsigned int read_only_word = 5;
__global__ void atomic_on_constant() { atomicInc((unsigned int*)&read_only_word, 10u); }
