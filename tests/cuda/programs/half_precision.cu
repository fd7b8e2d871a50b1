// cuda_fp16.h: __half and __half2 conversions, arithmetic, comparisons and
// shuffles, computed on the device and on the host and checked bit for bit
// against tables of edge cases (subnormals, infinities, NaN, ties, overflow,
// each rounding mode).  The expected bits come from an exact rational
// reference (Python fractions), not from this header.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

struct FloatCase {
  unsigned int bits;
  unsigned short rn, rz, rd, ru;
};
// float bits -> __float2half_rn, _rz, _rd, _ru
static const FloatCase kFloatCases[] = {
    {0x00000000u, 0x0000, 0x0000, 0x0000, 0x0000},  // +0
    {0x80000000u, 0x8000, 0x8000, 0x8000, 0x8000},  // -0
    {0x3F800000u, 0x3C00, 0x3C00, 0x3C00, 0x3C00},  // 1
    {0xC0000000u, 0xC000, 0xC000, 0xC000, 0xC000},  // -2
    {0x477FE000u, 0x7BFF, 0x7BFF, 0x7BFF, 0x7BFF},  // 65504, the largest half
    {0x477FEFFFu, 0x7BFF, 0x7BFF, 0x7BFF, 0x7C00},  // just below the overflow tie
    {0x477FF000u, 0x7C00, 0x7BFF, 0x7BFF, 0x7C00},  // 65520: the tie rounds to infinity
    {0x477FF001u, 0x7C00, 0x7BFF, 0x7BFF, 0x7C00},
    {0x7F800000u, 0x7C00, 0x7C00, 0x7C00, 0x7C00},  // +inf
    {0xFF800000u, 0xFC00, 0xFC00, 0xFC00, 0xFC00},  // -inf
    {0x7FC00000u, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF},  // NaN: the canonical half NaN
    {0xFFC00001u, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF},
    {0x7F800001u, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF},  // signalling NaN
    {0x33800000u, 0x0001, 0x0001, 0x0001, 0x0001},  // 2^-24, the smallest subnormal
    {0x33000000u, 0x0000, 0x0000, 0x0000, 0x0001},  // 2^-25: tie to even (zero)
    {0x33000001u, 0x0001, 0x0000, 0x0000, 0x0001},
    {0x33C00000u, 0x0002, 0x0001, 0x0001, 0x0002},  // 3 * 2^-25: tie to even (2)
    {0x387FC000u, 0x03FF, 0x03FF, 0x03FF, 0x03FF},  // the largest subnormal
    {0x38800000u, 0x0400, 0x0400, 0x0400, 0x0400},  // 2^-14, the smallest normal
    {0x3F801000u, 0x3C00, 0x3C00, 0x3C00, 0x3C01},  // 1 + 2^-11: tie to even
    {0x3F803000u, 0x3C02, 0x3C01, 0x3C01, 0x3C02},  // 1 + 3 * 2^-11: tie to even
    {0x3F801001u, 0x3C01, 0x3C00, 0x3C00, 0x3C01},
    {0x00000001u, 0x0000, 0x0000, 0x0000, 0x0001},  // a float subnormal
    {0x80000001u, 0x8000, 0x8000, 0x8001, 0x8000},
    {0x3DCCCCCDu, 0x2E66, 0x2E66, 0x2E66, 0x2E67},  // 0.1
    {0x3EAAAAABu, 0x3555, 0x3555, 0x3555, 0x3556},  // 1/3
    {0xBF801001u, 0xBC01, 0xBC00, 0xBC01, 0xBC00},
    {0x30800000u, 0x0000, 0x0000, 0x0000, 0x0001},  // 2^-30
    {0xB0800000u, 0x8000, 0x8000, 0x8001, 0x8000},
    {0x387FE000u, 0x0400, 0x03FF, 0x03FF, 0x0400},  // rounds up into the normals
    {0x7F7FFFFFu, 0x7C00, 0x7BFF, 0x7BFF, 0x7C00},  // the largest float
    {0x4B800001u, 0x7C00, 0x7BFF, 0x7BFF, 0x7C00},
};
constexpr int kFloatCount = sizeof kFloatCases / sizeof kFloatCases[0];

// half bits -> float bits (exact)
struct HalfCase {
  unsigned short half;
  unsigned int bits;
};
static const HalfCase kHalfCases[] = {
    {0x0000, 0x00000000u}, {0x8000, 0x80000000u}, {0x0001, 0x33800000u}, {0x8001, 0xB3800000u},
    {0x03FF, 0x387FC000u}, {0x0400, 0x38800000u}, {0x3C00, 0x3F800000u}, {0x3555, 0x3EAAA000u},
    {0x7BFF, 0x477FE000u}, {0x7C00, 0x7F800000u}, {0xFC00, 0xFF800000u}, {0x7E00, 0x7FC00000u},
};
constexpr int kHalfCount = sizeof kHalfCases / sizeof kHalfCases[0];

// Everything else, one result per slot, in the order compute_others writes them.
static const unsigned int kOtherExpected[] = {
    0x3C01,      // __double2half(1 + 2^-11 + 2^-52): one rounding (via float it would tie to 0x3C00)
    0x6800,      // __int2half_rn(2049): tie to even
    0x6802,      // __int2half_rn(2051)
    0x7BFF,      // __int2half_rn(65519)
    0x7C00,      // __int2half_rn(65520)
    0xFC00,      // __int2half_rn(-65520)
    0xFC00,      // __int2half_rn(INT_MIN)
    0x7C00,      // __ull2half_rn(2^64 - 1)
    0x7BFF,      // __ll2half_rz(2^40)
    0x6801,      // __uint2half_ru(2049)
    2,           // __half2int_rn(2.5)
    4,           // __half2int_rn(3.5)
    0xFFFFFFFE,  // __half2int_rd(-1.5)
    0xFFFFFFFF,  // __half2int_ru(-1.5)
    0xFFFFFFFF,  // __half2int_rz(-1.5)
    0x7FFFFFFF,  // __half2int_rz(+inf): saturates
    0,           // __half2int_rn(NaN)
    0x7FFF,      // __half2short_rz(65504): saturates
    0,           // __half2uint_rz(-1)
    65504,       // __half2ushort_rz(65504)
    0x3C01,      // __hadd(1, 2^-10)
    0x3C00,      // __hadd(1, 2^-11): tie to even
    0x7C00,      // __hmul(65504, 2): overflow
    0x0010,      // __hfma(1 + 2^-10, 1 + 2^-10, -(1 + 2^-9)) = 2^-20 exactly (unfused: 0)
    0x3555,      // __hdiv(1, 3)
    0x8000,      // __hsub(-0, +0)
    0x3C00,      // __hadd_sat(1, 1)
    0x0000,      // __hmul_sat(-1, 1)
    1,           // __heq(+0, -0)
    0,           // __heq(NaN, NaN)
    1,           // __hequ(NaN, 1)
    1,           // __hne(1, 2)
    0,           // __hne(NaN, 1)
    1,           // __hlt(-inf, -65504)
    0x3C00,      // __hmax(NaN, 1)
    0x0000,      // __hmax(-0, +0)
    0x7FFF,      // __hmax_nan(NaN, 1)
    0x3E00,      // hsqrt(2.25)
    0x40003C00,  // __hadd2((0.5, 1.5), (0.5, 0.5)) as .x | .y << 16
    0x00003C00,  // __hlt2((1, 2), (2, 1))
    0x5000BC00,  // __hfma2((-1, 4), (1, 8), (0, 0))
    1,           // operator== on __half2
    0x4000,      // operator+ (1 + 1)
    0x3C00,      // ++(0)
    0x0000FFFF,  // __hlt2_mask((1, 2), (2, 1))
};
constexpr int kOtherCount = sizeof kOtherExpected / sizeof kOtherExpected[0];

__host__ __device__ static unsigned int pack(__half2 h) {
  return __half_as_ushort(h.x) | (unsigned int)__half_as_ushort(h.y) << 16;
}

__host__ __device__ static void compute_others(unsigned int* out) {
  int n = 0;
  out[n++] = __half_as_ushort(__double2half(1.0 + 0x1p-11 + 0x1p-52));
  out[n++] = __half_as_ushort(__int2half_rn(2049));
  out[n++] = __half_as_ushort(__int2half_rn(2051));
  out[n++] = __half_as_ushort(__int2half_rn(65519));
  out[n++] = __half_as_ushort(__int2half_rn(65520));
  out[n++] = __half_as_ushort(__int2half_rn(-65520));
  out[n++] = __half_as_ushort(__int2half_rn(-2147483647 - 1));
  out[n++] = __half_as_ushort(__ull2half_rn(~0ull));
  out[n++] = __half_as_ushort(__ll2half_rz(1ll << 40));
  out[n++] = __half_as_ushort(__uint2half_ru(2049u));
  out[n++] = (unsigned int)__half2int_rn(__float2half(2.5f));
  out[n++] = (unsigned int)__half2int_rn(__float2half(3.5f));
  out[n++] = (unsigned int)__half2int_rd(__float2half(-1.5f));
  out[n++] = (unsigned int)__half2int_ru(__float2half(-1.5f));
  out[n++] = (unsigned int)__half2int_rz(__float2half(-1.5f));
  out[n++] = (unsigned int)__half2int_rz(CUDART_INF_FP16);
  out[n++] = (unsigned int)__half2int_rn(CUDART_NAN_FP16);
  out[n++] = (unsigned int)__half2short_rz(CUDART_MAX_NORMAL_FP16);
  out[n++] = __half2uint_rz(__float2half(-1.0f));
  out[n++] = __half2ushort_rz(CUDART_MAX_NORMAL_FP16);
  const __half one = CUDART_ONE_FP16, two = __float2half(2.0f);
  out[n++] = __half_as_ushort(__hadd(one, __ushort_as_half(0x1400)));
  out[n++] = __half_as_ushort(__hadd(one, __ushort_as_half(0x1000)));
  out[n++] = __half_as_ushort(__hmul(CUDART_MAX_NORMAL_FP16, two));
  out[n++] =
      __half_as_ushort(__hfma(__ushort_as_half(0x3C01), __ushort_as_half(0x3C01), __ushort_as_half(0xBC02)));
  out[n++] = __half_as_ushort(__hdiv(one, __float2half(3.0f)));
  out[n++] = __half_as_ushort(__hsub(CUDART_NEG_ZERO_FP16, CUDART_ZERO_FP16));
  out[n++] = __half_as_ushort(__hadd_sat(one, one));
  out[n++] = __half_as_ushort(__hmul_sat(__hneg(one), one));
  out[n++] = __heq(CUDART_ZERO_FP16, CUDART_NEG_ZERO_FP16);
  out[n++] = __heq(CUDART_NAN_FP16, CUDART_NAN_FP16);
  out[n++] = __hequ(CUDART_NAN_FP16, one);
  out[n++] = __hne(one, two);
  out[n++] = __hne(CUDART_NAN_FP16, one);
  out[n++] = __hlt(__hneg(CUDART_INF_FP16), __hneg(CUDART_MAX_NORMAL_FP16));
  out[n++] = __half_as_ushort(__hmax(CUDART_NAN_FP16, one));
  out[n++] = __half_as_ushort(__hmax(CUDART_NEG_ZERO_FP16, CUDART_ZERO_FP16));
  out[n++] = __half_as_ushort(__hmax_nan(CUDART_NAN_FP16, one));
  out[n++] = __half_as_ushort(hsqrt(__float2half(2.25f)));
  out[n++] = pack(__hadd2(__floats2half2_rn(0.5f, 1.5f), __float2half2_rn(0.5f)));
  out[n++] = pack(__hlt2(__halves2half2(one, two), __halves2half2(two, one)));
  out[n++] =
      pack(__hfma2(__floats2half2_rn(-1.0f, 4.0f), __floats2half2_rn(1.0f, 8.0f), __float2half2_rn(0.0f)));
  out[n++] = __floats2half2_rn(1.0f, 2.0f) == __halves2half2(one, two);
  out[n++] = __half_as_ushort(one + one);
  __half counter = CUDART_ZERO_FP16;
  out[n++] = __half_as_ushort(++counter);
  out[n++] = __hlt2_mask(__halves2half2(one, two), __halves2half2(two, one));
}

__global__ void convert(const FloatCase* floats, int float_count, const HalfCase* halves, int half_count,
                        unsigned short* rounded, unsigned int* widened, unsigned int* others) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < float_count) {
    const float f = __uint_as_float(floats[i].bits);
    rounded[4 * i + 0] = __half_as_ushort(__float2half_rn(f));
    rounded[4 * i + 1] = __half_as_ushort(__float2half_rz(f));
    rounded[4 * i + 2] = __half_as_ushort(__float2half_rd(f));
    rounded[4 * i + 3] = __half_as_ushort(__float2half_ru(f));
  }
  if (i < half_count) widened[i] = __float_as_uint(__half2float(__ushort_as_half(halves[i].half)));
  if (i == 0) compute_others(others);
}

// Shuffles move a __half and a __half2 intact: each lane sums the halves of
// the warp with a butterfly, and reads its neighbour's pair.
__global__ void shuffle(unsigned int* out) {
  const unsigned int lane = threadIdx.x;
  __half value = __int2half_rn((int)lane);
  for (int offset = 16; offset > 0; offset /= 2)
    value = __hadd(value, __shfl_xor_sync(0xFFFFFFFFu, value, offset));
  const __half2 pair = __halves2half2(__int2half_rn((int)lane), __int2half_rn(-(int)lane));
  const __half2 next = __shfl_down_sync(0xFFFFFFFFu, pair, 1);
  const __half2 first = __shfl_sync(0xFFFFFFFFu, pair, 0);
  const __half previous = __shfl_up_sync(0xFFFFFFFFu, pair.x, 1);
  out[4 * lane + 0] = __half_as_ushort(value);
  out[4 * lane + 1] = pack(next);
  out[4 * lane + 2] = pack(first);
  out[4 * lane + 3] = __half_as_ushort(previous);
}

// atomicAdd on a __half and a __half2 from every thread of two blocks.
__global__ void accumulate(__half* sum, __half2* pair) {
  atomicAdd(sum, __float2half(1.0f));
  atomicAdd(pair, __floats2half2_rn(0.5f, -2.0f));
}

static int failures = 0;
static void expect(const char* what, int index, unsigned int got, unsigned int want) {
  if (got == want) return;
  if (++failures <= 20) fprintf(stderr, "%s[%d]: got 0x%X, expected 0x%X\n", what, index, got, want);
}

#define CHECK(call)                                                 \
  do {                                                              \
    cudaError_t err_ = (call);                                      \
    if (err_ != cudaSuccess) {                                      \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_)); \
      return EXIT_FAILURE;                                          \
    }                                                               \
  } while (0)

int main() {
  // The host's functions: the same header compiled for x86-64.
  for (int i = 0; i < kFloatCount; ++i) {
    float f;
    std::memcpy(&f, &kFloatCases[i].bits, sizeof f);
    expect("host rn", i, __half_as_ushort(__float2half_rn(f)), kFloatCases[i].rn);
    expect("host rz", i, __half_as_ushort(__float2half_rz(f)), kFloatCases[i].rz);
    expect("host rd", i, __half_as_ushort(__float2half_rd(f)), kFloatCases[i].rd);
    expect("host ru", i, __half_as_ushort(__float2half_ru(f)), kFloatCases[i].ru);
    const __half h = f;  // the converting constructor rounds to nearest
    expect("host __half(float)", i, __half_as_ushort(h), kFloatCases[i].rn);
  }
  for (int i = 0; i < kHalfCount; ++i) {
    const float f = __half2float(__ushort_as_half(kHalfCases[i].half));
    unsigned int bits;
    std::memcpy(&bits, &f, sizeof bits);
    expect("host widen", i, bits, kHalfCases[i].bits);
  }
  unsigned int host_others[kOtherCount];
  compute_others(host_others);
  for (int i = 0; i < kOtherCount; ++i) expect("host other", i, host_others[i], kOtherExpected[i]);

  FloatCase* d_floats;
  HalfCase* d_halves;
  unsigned short* d_rounded;
  unsigned int *d_widened, *d_others, *d_shuffled;
  CHECK(cudaMalloc(&d_floats, sizeof kFloatCases));
  CHECK(cudaMalloc(&d_halves, sizeof kHalfCases));
  CHECK(cudaMalloc(&d_rounded, 4 * kFloatCount * sizeof(unsigned short)));
  CHECK(cudaMalloc(&d_widened, kHalfCount * sizeof(unsigned int)));
  CHECK(cudaMalloc(&d_others, kOtherCount * sizeof(unsigned int)));
  CHECK(cudaMalloc(&d_shuffled, 4 * 32 * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_floats, kFloatCases, sizeof kFloatCases, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_halves, kHalfCases, sizeof kHalfCases, cudaMemcpyHostToDevice));
  convert<<<1, 64>>>(d_floats, kFloatCount, d_halves, kHalfCount, d_rounded, d_widened, d_others);
  CHECK(cudaGetLastError());
  shuffle<<<1, 32>>>(d_shuffled);
  CHECK(cudaGetLastError());
  __half* d_sum;
  __half2* d_pair;
  CHECK(cudaMalloc(&d_sum, sizeof(__half)));
  CHECK(cudaMalloc(&d_pair, sizeof(__half2)));
  CHECK(cudaMemset(d_sum, 0, sizeof(__half)));
  CHECK(cudaMemset(d_pair, 0, sizeof(__half2)));
  accumulate<<<2, 96>>>(d_sum, d_pair);
  CHECK(cudaGetLastError());
  __half sum;
  __half2 pair;
  CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&pair, d_pair, sizeof pair, cudaMemcpyDeviceToHost));
  expect("atomicAdd(__half*)", 0, __half_as_ushort(sum), __half_as_ushort(__int2half_rn(192)));
  expect("atomicAdd(__half2*)", 0, pack(pair), pack(__floats2half2_rn(96.0f, -384.0f)));
  CHECK(cudaFree(d_sum));
  CHECK(cudaFree(d_pair));
  unsigned short rounded[4 * kFloatCount];
  unsigned int widened[kHalfCount], others[kOtherCount], shuffled[4 * 32];
  CHECK(cudaMemcpy(rounded, d_rounded, sizeof rounded, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(widened, d_widened, sizeof widened, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(others, d_others, sizeof others, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(shuffled, d_shuffled, sizeof shuffled, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kFloatCount; ++i) {
    expect("device rn", i, rounded[4 * i + 0], kFloatCases[i].rn);
    expect("device rz", i, rounded[4 * i + 1], kFloatCases[i].rz);
    expect("device rd", i, rounded[4 * i + 2], kFloatCases[i].rd);
    expect("device ru", i, rounded[4 * i + 3], kFloatCases[i].ru);
  }
  for (int i = 0; i < kHalfCount; ++i) expect("device widen", i, widened[i], kHalfCases[i].bits);
  for (int i = 0; i < kOtherCount; ++i) expect("device other", i, others[i], kOtherExpected[i]);
  for (unsigned int lane = 0; lane < 32; ++lane) {
    const unsigned int source = lane < 31 ? lane + 1 : lane;  // shfl_down keeps the last lane's own value
    expect("shuffle sum", (int)lane, shuffled[4 * lane + 0], __half_as_ushort(__int2half_rn(496)));
    expect("shuffle down", (int)lane, shuffled[4 * lane + 1],
           pack(__halves2half2(__int2half_rn((int)source), __int2half_rn(-(int)source))));
    expect("shuffle idx", (int)lane, shuffled[4 * lane + 2],
           pack(__halves2half2(__int2half_rn(0), __int2half_rn(0))));
    expect("shuffle up", (int)lane, shuffled[4 * lane + 3],
           __half_as_ushort(__int2half_rn(lane > 0 ? (int)lane - 1 : 0)));
  }
  cudaFree(d_floats);
  cudaFree(d_halves);
  cudaFree(d_rounded);
  cudaFree(d_widened);
  cudaFree(d_others);
  cudaFree(d_shuffled);
  if (failures != 0) {
    printf("half_precision: %d mismatches\n", failures);
    return EXIT_FAILURE;
  }
  printf("half_precision: %d float, %d half, %d other cases and 32 shuffling lanes: PASSED\n", kFloatCount,
         kHalfCount, kOtherCount);
  return 0;
}
