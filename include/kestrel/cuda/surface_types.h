/* CUDA's surface object types (guide 3.2.11.2, B.9).  Kestrel creates and
 * describes surface objects; kernels read and write them with ordinary loads
 * and stores through the device SDK (kestrel_texture.h, docs/texture.md). */
#ifndef KESTREL_SURFACE_TYPES_H
#define KESTREL_SURFACE_TYPES_H
#ifndef __SURFACE_TYPES_H__
#define __SURFACE_TYPES_H__ /* CUDA's own include guard */
#endif

#include "driver_types.h"

/* What a surface access outside the array does (B.9). */
enum cudaSurfaceBoundaryMode KESTREL_CUDA_ENUM_BASE {
  cudaBoundaryModeZero = 0,
  cudaBoundaryModeClamp = 1,
  cudaBoundaryModeTrap = 2
};

/* The device address of the object's descriptor, as cudaTextureObject_t. */
typedef unsigned long long cudaSurfaceObject_t;

#endif /* KESTREL_SURFACE_TYPES_H */
