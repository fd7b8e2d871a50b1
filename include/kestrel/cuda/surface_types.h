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

/* A surface reference's type (guide 3.2.11.2.2): the `Type` argument of
 * surface<void, Type>, with CUDA's values (those of cudaTextureType*). */
#define cudaSurfaceType1D 0x01
#define cudaSurfaceType2D 0x02
#define cudaSurfaceType3D 0x03
#define cudaSurfaceTypeCubemap 0x0C
#define cudaSurfaceType1DLayered 0xF1
#define cudaSurfaceType2DLayered 0xF2
#define cudaSurfaceTypeCubemapLayered 0xFC

/* A surface reference (guide 3.2.11.2.2): the guide's one field, the
 * channel format of the declared type (surface<T, Type>'s constructor sets
 * it; cudaCreateChannelDesc<void>(), no channels, for the guide's
 * surface<void, Type>).  The rest is room: a surface reference's device copy
 * has these 64 bytes and holds the bound array's surface descriptor
 * (docs/texture.md, "Surface references"); host code has no use for them. */
struct surfaceReference {
  struct cudaChannelFormatDesc channelDesc;
  int kestrelReserved[11];
};

#endif /* KESTREL_SURFACE_TYPES_H */
