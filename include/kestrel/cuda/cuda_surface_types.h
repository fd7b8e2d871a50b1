/* CUDA's <cuda_surface_types.h>: the surface reference type surface<T, Type>
 * of the guide's surface reference API (CUDA C Programming Guide v8.0,
 * 3.2.11.2.2, B.9.2), declared as surface<void, Type>.
 *
 * As a texture reference (cuda_texture_types.h): a file-scope variable that
 * both passes of a .cu see.  clang treats a variable of a class marked
 * device_builtin_surface_type as a device variable: the host pass keeps a
 * host copy and registers it with __cudaRegisterSurface (its name and
 * Type); the device pass gives it 64 bytes of zero device storage.
 * cudaBindSurfaceToArray writes the array's surface descriptor (tex_desc_t,
 * the surface objects' format) into that storage, and the device surface
 * functions (kestrel_texture.h) read it at the variable's address, as a
 * surface object's handle.  docs/texture.md, "Surface references". */
#ifndef KESTREL_CUDA_SURFACE_TYPES_H
#define KESTREL_CUDA_SURFACE_TYPES_H
#ifndef __CUDA_SURFACE_TYPES_H__
#define __CUDA_SURFACE_TYPES_H__ /* CUDA's own include guard */
#endif

#include "channel_descriptor.h"
#include "surface_types.h"

#ifdef __cplusplus

/* The device copy holds a 64-byte descriptor (KESTREL_TEX_DESC_BYTES). */
static_assert(sizeof(struct surfaceReference) == 64, "a surface reference's device copy is one descriptor");

/* Only clang's CUDA passes know the attribute; in a host C++ file surface<>
 * is a plain struct (a reference declared there has no device copy). */
#if defined(__CUDA__) && defined(__clang__)
#define KESTREL_SURFACE_TYPE __attribute__((device_builtin_surface_type))
#else
#define KESTREL_SURFACE_TYPE
#endif

/* The channel format of T, recorded in channelDesc as in CUDA; the guide's
 * surface functions take surface<void, Type> (untyped: each access moves
 * sizeof of its own T), whose format has no channels. */
template <class T, int surfaceType = cudaSurfaceType1D>
struct KESTREL_SURFACE_TYPE surface : public surfaceReference {
  surface() : surface(cudaCreateChannelDesc<T>()) {}
  explicit surface(struct cudaChannelFormatDesc desc) {
    channelDesc = desc;
    for (int& word : kestrelReserved) word = 0;
  }
};
#undef KESTREL_SURFACE_TYPE

#endif /* __cplusplus */
#endif /* KESTREL_CUDA_SURFACE_TYPES_H */
