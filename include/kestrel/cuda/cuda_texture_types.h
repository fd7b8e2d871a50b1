/* CUDA's <cuda_texture_types.h>: the texture reference type
 * texture<DataType, Type, ReadMode> of the guide's texture reference API
 * (CUDA C Programming Guide v8.0, 3.2.11.1.2).
 *
 * A texture reference is a file-scope variable that both passes of a .cu
 * see.  clang treats a variable of a class marked
 * device_builtin_texture_type as a device variable: the host pass keeps a
 * host copy (these fields, which host code changes) and registers it with
 * __cudaRegisterTexture (its name, Type and ReadMode); the device pass gives
 * it 64 bytes of uninitialized (zero) device storage.  cudaBindTexture* write
 * the bound texture's descriptor (tex_desc_t, the texture objects' format)
 * into that storage, and the device fetch functions (kestrel_texture.h) read
 * it at the variable's address, as a texture object's handle.
 * docs/texture.md, "Texture references". */
#ifndef KESTREL_CUDA_TEXTURE_TYPES_H
#define KESTREL_CUDA_TEXTURE_TYPES_H
#ifndef __CUDA_TEXTURE_TYPES_H__
#define __CUDA_TEXTURE_TYPES_H__ /* CUDA's own include guard */
#endif

#include "channel_descriptor.h"
#include "texture_types.h"

#ifdef __cplusplus

/* The device copy holds a 64-byte descriptor (KESTREL_TEX_DESC_BYTES). */
static_assert(sizeof(struct textureReference) == 64, "a texture reference's device copy is one descriptor");

/* Only clang's CUDA passes know the attribute; in a host C++ file texture<>
 * is a plain struct (a reference declared there has no device copy). */
#if defined(__CUDA__) && defined(__clang__)
#define KESTREL_TEXTURE_TYPE __attribute__((device_builtin_texture_type))
#else
#define KESTREL_TEXTURE_TYPE
#endif

template <class T, int texType = cudaTextureType1D, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct alignas(64) KESTREL_TEXTURE_TYPE texture : public textureReference {
  /* The guide's defaults: unnormalized coordinates, point filtering, clamp. */
  texture(int norm = 0, enum cudaTextureFilterMode fMode = cudaFilterModePoint,
          enum cudaTextureAddressMode aMode = cudaAddressModeClamp)
      : texture(norm, fMode, aMode, cudaCreateChannelDesc<T>()) {}
  texture(int norm, enum cudaTextureFilterMode fMode, enum cudaTextureAddressMode aMode,
          struct cudaChannelFormatDesc desc) {
    normalized = norm;
    filterMode = fMode;
    addressMode[0] = addressMode[1] = addressMode[2] = aMode;
    channelDesc = desc;
    sRGB = 0;
    maxAnisotropy = 0;
    mipmapFilterMode = cudaFilterModePoint;
    mipmapLevelBias = minMipmapLevelClamp = maxMipmapLevelClamp = 0.0f;
  }
};
#undef KESTREL_TEXTURE_TYPE

#endif /* __cplusplus */
#endif /* KESTREL_CUDA_TEXTURE_TYPES_H */
