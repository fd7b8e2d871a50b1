/* CUDA's built-in vector types (guide B.3.1) and dim3 (B.3.2) for Kestrel
 * device code.  Alignments follow the guide's Table 3, which device code must
 * respect: a float4 is 16-byte aligned on the device even though the host's
 * base type only needs 4.  Included by kestrel_cuda.h. */
#ifndef KESTREL_VECTOR_TYPES_H
#define KESTREL_VECTOR_TYPES_H

/* Each type is an aggregate so that `int2 v = {1, 2};` works, and comes with
 * make_<type>() (guide B.3.1).  The 1-component form is never over-aligned; the
 * 3-component form keeps its element alignment (Table 3). */
#define KESTREL_VECTOR_1(name, T)                                                      \
  struct name##1 {                                                                    \
    T x;                                                                              \
  };                                                                                  \
  __host__ __device__ constexpr inline name##1 make_##name##1(T x) { return name##1{x}; }
#define KESTREL_VECTOR_2(name, T, A)                                                   \
  struct __attribute__((aligned(A))) name##2 {                                        \
    T x, y;                                                                           \
  };                                                                                  \
  __host__ __device__ constexpr inline name##2 make_##name##2(T x, T y) { return name##2{x, y}; }
#define KESTREL_VECTOR_3(name, T, A)                                                   \
  struct __attribute__((aligned(A))) name##3 {                                        \
    T x, y, z;                                                                        \
  };                                                                                  \
  __host__ __device__ constexpr inline name##3 make_##name##3(T x, T y, T z) { return name##3{x, y, z}; }
#define KESTREL_VECTOR_4(name, T, A)                                                   \
  struct __attribute__((aligned(A))) name##4 {                                        \
    T x, y, z, w;                                                                     \
  };                                                                                  \
  __host__ __device__ constexpr inline name##4 make_##name##4(T x, T y, T z, T w) {  \
    return name##4{x, y, z, w};                                                       \
  }
#define KESTREL_VECTOR_FAMILY(name, T, A2, A3, A4) \
  KESTREL_VECTOR_1(name, T)                        \
  KESTREL_VECTOR_2(name, T, A2)                    \
  KESTREL_VECTOR_3(name, T, A3)                    \
  KESTREL_VECTOR_4(name, T, A4)

KESTREL_VECTOR_FAMILY(char, signed char, 2, 1, 4)
KESTREL_VECTOR_FAMILY(uchar, unsigned char, 2, 1, 4)
KESTREL_VECTOR_FAMILY(short, short, 4, 2, 8)
KESTREL_VECTOR_FAMILY(ushort, unsigned short, 4, 2, 8)
KESTREL_VECTOR_FAMILY(int, int, 8, 4, 16)
KESTREL_VECTOR_FAMILY(uint, unsigned int, 8, 4, 16)
/* long is 8 bytes on RV64 (LP64F) and 4 on RV32 (ILP32F): Table 3's two rows. */
#if __SIZEOF_LONG__ == __SIZEOF_INT__
KESTREL_VECTOR_FAMILY(long, long, 8, 4, 16)
KESTREL_VECTOR_FAMILY(ulong, unsigned long, 8, 4, 16)
#else
KESTREL_VECTOR_FAMILY(long, long, 16, 8, 16)
KESTREL_VECTOR_FAMILY(ulong, unsigned long, 16, 8, 16)
#endif
KESTREL_VECTOR_FAMILY(longlong, long long, 16, 8, 16)
KESTREL_VECTOR_FAMILY(ulonglong, unsigned long long, 16, 8, 16)
KESTREL_VECTOR_FAMILY(float, float, 8, 4, 16)
KESTREL_VECTOR_FAMILY(double, double, 16, 8, 16)

#undef KESTREL_VECTOR_FAMILY
#undef KESTREL_VECTOR_4
#undef KESTREL_VECTOR_3
#undef KESTREL_VECTOR_2
#undef KESTREL_VECTOR_1

/* dim3: a uint3 whose unspecified components are 1 (guide B.3.2). */
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

#endif /* KESTREL_VECTOR_TYPES_H */
