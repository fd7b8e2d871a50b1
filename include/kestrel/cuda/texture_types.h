/* CUDA's texture object types (guide 3.2.11.1.1, appendix F): how a texture
 * object addresses, filters and returns its resource.  Kestrel creates,
 * validates and describes texture objects (cudaCreateTextureObject); kernels
 * fetch from them with the device SDK's software path (kestrel_texture.h:
 * no texture unit yet, docs/texture.md). */
#ifndef KESTREL_TEXTURE_TYPES_H
#define KESTREL_TEXTURE_TYPES_H
#ifndef __TEXTURE_TYPES_H__
#define __TEXTURE_TYPES_H__ /* CUDA's own include guard */
#endif

#include "driver_types.h"

enum cudaTextureAddressMode KESTREL_CUDA_ENUM_BASE {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode KESTREL_CUDA_ENUM_BASE { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode KESTREL_CUDA_ENUM_BASE {
  cudaReadModeElementType = 0,
  cudaReadModeNormalizedFloat = 1
};

/* CUDA 12.0's layout.  Mipmap fields, maxAnisotropy and
 * disableTrilinearOptimization are kept and reported back but have no
 * effect (Kestrel has no mipmapped arrays). */
struct cudaTextureDesc {
  enum cudaTextureAddressMode addressMode[3];
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};

/* The device address of the object's descriptor (docs/isa.md, "Texture and
 * surface descriptors"); 0 is no object. */
typedef unsigned long long cudaTextureObject_t;

#endif /* KESTREL_TEXTURE_TYPES_H */
