/* CUDA's vector types and dim3 (guide B.3) for host and device code. */
#ifndef KESTREL_CUDA_VECTOR_TYPES_H
#define KESTREL_CUDA_VECTOR_TYPES_H
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__ /* CUDA's own include guard */
#endif
#if !defined(__CUDA__)
/* A plain C++ host file: the qualifiers mean nothing there. */
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#endif
#include "kestrel_vector_types.h"
#endif /* KESTREL_CUDA_VECTOR_TYPES_H */
