/* CUDA's <channel_descriptor.h>: cudaCreateChannelDesc<T>(), the channel
 * descriptor of a texel type (guide 3.2.11.1.1), for the scalar and vector
 * types of guide B.3.1.  A type without one gives {0, 0, 0, 0,
 * cudaChannelFormatKindNone}, which cudaMallocArray refuses.  As in CUDA,
 * long and ulong have descriptors only where they are 32 bits wide. */
#ifndef KESTREL_CHANNEL_DESCRIPTOR_H
#define KESTREL_CHANNEL_DESCRIPTOR_H
#ifndef __CHANNEL_DESCRIPTOR_H__
#define __CHANNEL_DESCRIPTOR_H__ /* CUDA's own include guard */
#endif

#include "cuda_runtime_api.h"

#ifdef __cplusplus

template <class T>
static inline cudaChannelFormatDesc cudaCreateChannelDesc(void) {
  return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}

/* 16-bit floats (__half), which have no vector type of their own here. */
static inline cudaChannelFormatDesc cudaCreateChannelDescHalf(void) {
  return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
}
static inline cudaChannelFormatDesc cudaCreateChannelDescHalf1(void) {
  return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
}
static inline cudaChannelFormatDesc cudaCreateChannelDescHalf2(void) {
  return cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat);
}
static inline cudaChannelFormatDesc cudaCreateChannelDescHalf4(void) {
  return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindFloat);
}

/* One scalar type and its 1-, 2- and 4-component vectors (3-component
 * texels do not exist: guide 3.2.11.1.1). */
#define KESTREL_CHANNEL_DESC(T, kind)                           \
  template <>                                                   \
  inline cudaChannelFormatDesc cudaCreateChannelDesc<T>(void) { \
    const int e = (int)sizeof(T) * 8;                           \
    return cudaCreateChannelDesc(e, 0, 0, 0, kind);             \
  }
#define KESTREL_CHANNEL_DESC_VECTORS(S, T, kind)                   \
  template <>                                                      \
  inline cudaChannelFormatDesc cudaCreateChannelDesc<S##1>(void) { \
    const int e = (int)sizeof(T) * 8;                              \
    return cudaCreateChannelDesc(e, 0, 0, 0, kind);                \
  }                                                                \
  template <>                                                      \
  inline cudaChannelFormatDesc cudaCreateChannelDesc<S##2>(void) { \
    const int e = (int)sizeof(T) * 8;                              \
    return cudaCreateChannelDesc(e, e, 0, 0, kind);                \
  }                                                                \
  template <>                                                      \
  inline cudaChannelFormatDesc cudaCreateChannelDesc<S##4>(void) { \
    const int e = (int)sizeof(T) * 8;                              \
    return cudaCreateChannelDesc(e, e, e, e, kind);                \
  }

/* Plain char is signed or unsigned as the compiler's char is. */
KESTREL_CHANNEL_DESC(char, ((char)-1 < 0 ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned))
KESTREL_CHANNEL_DESC(signed char, cudaChannelFormatKindSigned)
KESTREL_CHANNEL_DESC(unsigned char, cudaChannelFormatKindUnsigned)
KESTREL_CHANNEL_DESC(short, cudaChannelFormatKindSigned)
KESTREL_CHANNEL_DESC(unsigned short, cudaChannelFormatKindUnsigned)
KESTREL_CHANNEL_DESC(int, cudaChannelFormatKindSigned)
KESTREL_CHANNEL_DESC(unsigned int, cudaChannelFormatKindUnsigned)
KESTREL_CHANNEL_DESC(float, cudaChannelFormatKindFloat)
KESTREL_CHANNEL_DESC_VECTORS(char, signed char, cudaChannelFormatKindSigned)
KESTREL_CHANNEL_DESC_VECTORS(uchar, unsigned char, cudaChannelFormatKindUnsigned)
KESTREL_CHANNEL_DESC_VECTORS(short, short, cudaChannelFormatKindSigned)
KESTREL_CHANNEL_DESC_VECTORS(ushort, unsigned short, cudaChannelFormatKindUnsigned)
KESTREL_CHANNEL_DESC_VECTORS(int, int, cudaChannelFormatKindSigned)
KESTREL_CHANNEL_DESC_VECTORS(uint, unsigned int, cudaChannelFormatKindUnsigned)
KESTREL_CHANNEL_DESC_VECTORS(float, float, cudaChannelFormatKindFloat)
#if __SIZEOF_LONG__ == 4
KESTREL_CHANNEL_DESC(long, cudaChannelFormatKindSigned)
KESTREL_CHANNEL_DESC(unsigned long, cudaChannelFormatKindUnsigned)
KESTREL_CHANNEL_DESC_VECTORS(long, long, cudaChannelFormatKindSigned)
KESTREL_CHANNEL_DESC_VECTORS(ulong, unsigned long, cudaChannelFormatKindUnsigned)
#endif

#undef KESTREL_CHANNEL_DESC_VECTORS
#undef KESTREL_CHANNEL_DESC

#endif /* __cplusplus */
#endif /* KESTREL_CHANNEL_DESCRIPTOR_H */
