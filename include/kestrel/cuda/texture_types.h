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

/* CUDA 12.0's layout.  The mipmap fields act on textures over mipmapped
 * arrays (docs/texture.md, "Mipmaps"); maxAnisotropy and
 * disableTrilinearOptimization are kept and reported back but have no
 * effect. */
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

/* A texture reference's type (guide 3.2.11.1.2): the `Type` argument of
 * texture<DataType, Type, ReadMode>, with CUDA's values. */
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC

/* A texture reference's mutable attributes (guide 3.2.11.1.2, with the
 * guide's fields in the guide's order).  normalized, filterMode and
 * addressMode are read when the reference is bound (cudaBindTexture*), so a
 * change takes effect at the next bind; so are the mipmap fields, which act
 * when it is bound to a mipmapped array (cudaBindTextureToMipmappedArray).
 * channelDesc is the declared texel type's (texture<T>'s constructor sets
 * it).  sRGB is read at the bind too (docs/texture.md, "sRGB");
 * maxAnisotropy is kept and ignored (docs/texture.md).  A texture
 * reference's device copy has the same 64 bytes and holds the bound
 * texture's descriptor instead (docs/texture.md, "Texture references"). */
struct textureReference {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
};

/* The device address of the object's descriptor (docs/isa.md, "Texture and
 * surface descriptors"); 0 is no object. */
typedef unsigned long long cudaTextureObject_t;

#endif /* KESTREL_TEXTURE_TYPES_H */
