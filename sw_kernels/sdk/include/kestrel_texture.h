/* Texture and surface object functions for kernels (CUDA C Programming Guide
 * v8.0, B.8 texture functions and B.9 surface functions), included by
 * kestrel_cuda.h.
 *
 * tex1Dfetch, tex1D, tex2D, tex3D, tex1DLayered and tex2DLayered go through
 * the SM's texture unit (kx.tex, docs/isa.md section 2.5) when the object's
 * descriptor has its unit_fetch flag, which the runtime sets for what the
 * unit fetches (sample_form, fetch_linear, unit_fetch below).  Everything
 * else is a software path: each fetch a loop of ordinary loads and integer
 * arithmetic in the calling thread (mipmapped textures, sRGB reads of 8-bit
 * unsigned channels, cubemaps, tex2Dgather, the Lod and Grad forms,
 * surfaces).  The object's handle is the device address of its 64-byte
 * descriptor (tex_desc_t, tools/contract/contract.toml; the field positions
 * come from the generated KESTREL_TEX_DESC_* macros of
 * kestrel/abi_contract.h), and the arithmetic is kestrel/texture_math.hpp, the
 * same definition the functional model uses and the texture unit's RTL is
 * bit-exact with, so a kernel's fetch is bit-identical either way, to the
 * model's and to the H100 goldens it was fitted to.  The software path has
 * no texture cache: every fetch reads its texels from memory.
 *
 * Present: tex1Dfetch, tex1D, tex2D, tex3D, tex1DLayered, tex2DLayered,
 * texCubemap, texCubemapLayered and tex2Dgather, each returning T or
 * writing *T (the level-of-detail forms tex*Lod and tex*Grad of mipmapped
 * texture objects return T), for T a char/short/int (signed or unsigned) or
 * float scalar or its 1-, 2- or 4-component vector;
 * surf1D/2D/3D/1DLayered/2DLayered/Cubemap/CubemapLayered read and write
 * with byte-addressed x and the boundary modes of B.9; the same texture
 * fetches, the Lod and Grad forms and tex2Dgather over a texture reference
 * (B.8.2: texture<T, Type, ReadMode>, whose device copy is its bound
 * descriptor, cuda_texture_types.h; mipmapped when bound with
 * cudaBindTextureToMipmappedArray); the surface functions over a surface
 * reference (B.9.2: surface<void, Type>, whose device copy is its bound
 * array's surface descriptor, cuda_surface_types.h); sRGB conversion
 * (cudaTextureDesc::sRGB, the H100's rule in texture_math.hpp). */
#ifndef KESTREL_TEXTURE_H
#define KESTREL_TEXTURE_H

#include "kestrel/cuda/cuda_surface_types.h"
#include "kestrel/cuda/cuda_texture_types.h"
#include "kestrel/cuda/surface_types.h"
#include "kestrel/cuda/texture_types.h"
#include "kestrel/texture_math.hpp"
#include "kestrel/texture_unit.hpp"

/* The address a surface access outside its array loads from in
 * cudaBoundaryModeTrap: the top word of the null guard, which always faults
 * ILLEGAL_ADDRESS (docs/isa.md section 5), so the launch ends with
 * cudaErrorIllegalAddress as on an H100; the fault record's address tells a
 * surface trap from a stray null pointer. */
#define KESTREL_SURFACE_TRAP_ADDRESS (KESTREL_NULL_GUARD_END - 4u)

/* The address a fetch from an unbound texture reference loads from: the
 * word below the surface trap's, in the null guard, so the launch ends with
 * cudaErrorIllegalAddress and the fault record's address names the cause
 * (docs/texture.md, "Texture references"). */
#define KESTREL_TEXREF_UNBOUND_ADDRESS (KESTREL_NULL_GUARD_END - 8u)

/* The address an access through an unbound surface reference loads from:
 * the word below, for the same reason (docs/texture.md, "Surface
 * references"). */
#define KESTREL_SURFREF_UNBOUND_ADDRESS (KESTREL_NULL_GUARD_END - 12u)

namespace kestrel_texture_detail {

/* One descriptor field, read with one load (the handle is a device address). */
#define KESTREL_TEX_FIELD(handle, field)                                                \
  ((((const volatile uint32_t*)(uintptr_t)(handle))[KESTREL_TEX_DESC_##field##_WORD] >> \
    KESTREL_TEX_DESC_##field##_SHIFT) &                                                 \
   KESTREL_TEX_DESC_##field##_MASK)

/* The descriptor's words as loads from the object, one per field read (the
 * handle is a device address). */
struct DescriptorWords {
  unsigned long long handle;
  __device__ uint32_t operator[](unsigned word) const {
    return ((const volatile uint32_t*)(uintptr_t)handle)[word];
  }
};

/* What a fetch needs of the descriptor: the core's descriptor and where the
 * texels lie (kestrel::texture::image_of, which the functional model's
 * kx.tex reads descriptors with too).  Texel (x, y, z or layer) is at
 * base + slice * slice_pitch + y * pitch + x * texel_bytes. */
typedef kestrel::texture::Image View;

static __device__ __forceinline__ View read_view(unsigned long long handle) {
  return kestrel::texture::image_of(DescriptorWords{handle});
}

/* Copies `bytes` (1, 2, 4, 8 or 16) from `address` with loads of the widest
 * naturally aligned size the texel allows (arrays and texture memory are
 * aligned to their texel size, so no load is misaligned). */
static __device__ __forceinline__ void load_bytes(uintptr_t address, uint32_t bytes, uint8_t* out) {
  if (bytes == 1) {
    out[0] = *(const uint8_t*)address;
  } else if (bytes == 2) {
    const uint16_t h = *(const uint16_t*)address;
    __builtin_memcpy(out, &h, 2);
  } else {
    for (uint32_t i = 0; i < bytes; i += 4) {
      const uint32_t w = *(const uint32_t*)(address + i);
      __builtin_memcpy(out + i, &w, 4);
    }
  }
}

static __device__ __forceinline__ void store_bytes(uintptr_t address, uint32_t bytes, const uint8_t* in) {
  if (bytes == 1) {
    *(uint8_t*)address = in[0];
  } else if (bytes == 2) {
    uint16_t h;
    __builtin_memcpy(&h, in, 2);
    *(uint16_t*)address = h;
  } else {
    for (uint32_t i = 0; i < bytes; i += 4) {
      uint32_t w;
      __builtin_memcpy(&w, in + i, 4);
      *(uint32_t*)(address + i) = w;
    }
  }
}

/* The core's texel reader over a descriptor: one of z (3D slice) and layer
 * (layer or cube face) is 0, so their sum is the slice. */
struct TexelReader {
  const View* view;
  __device__ void operator()(int x, int y, int z, int layer, uint8_t* out) const {
    const uintptr_t address = view->base + (uintptr_t)(uint32_t)(z + layer) * view->slice_pitch +
                              (uintptr_t)(uint32_t)y * view->pitch +
                              (uintptr_t)(uint32_t)x * view->texel_bytes;
    load_bytes(address, view->texel_bytes, out);
  }
};

/* A result component as T's scalar: float bits as float, integers truncated
 * to T (the core gives them sign-extended). */
template <class S>
struct Scalar {
  static __device__ __forceinline__ S from(uint32_t bits) { return (S)bits; }
};
template <>
struct Scalar<float> {
  static __device__ __forceinline__ float from(uint32_t bits) { return __builtin_bit_cast(float, bits); }
};

/* The return types B.8 allows: T, T1, T2, T4 of the 8-, 16- and 32-bit
 * integers and float.  Any other T has no Result and fails to compile. */
template <class T>
struct Result;
#define KESTREL_TEX_RESULTS(S, V)                                                             \
  template <>                                                                                 \
  struct Result<S> {                                                                          \
    static __device__ __forceinline__ S from(const kestrel::texture::Texels& r) {             \
      return Scalar<S>::from(r.v[0]);                                                         \
    }                                                                                         \
  };                                                                                          \
  template <>                                                                                 \
  struct Result<V##1> {                                                                       \
    static __device__ __forceinline__ V##1 from(const kestrel::texture::Texels& r) {          \
      return V##1 {Scalar<S>::from(r.v[0])};                                                  \
    }                                                                                         \
  };                                                                                          \
  template <>                                                                                 \
  struct Result<V##2> {                                                                       \
    static __device__ __forceinline__ V##2 from(const kestrel::texture::Texels& r) {          \
      return V##2 {Scalar<S>::from(r.v[0]), Scalar<S>::from(r.v[1])};                         \
    }                                                                                         \
  };                                                                                          \
  template <>                                                                                 \
  struct Result<V##4> {                                                                       \
    static __device__ __forceinline__ V##4 from(const kestrel::texture::Texels& r) {          \
      return V##4 {Scalar<S>::from(r.v[0]), Scalar<S>::from(r.v[1]), Scalar<S>::from(r.v[2]), \
                   Scalar<S>::from(r.v[3])};                                                  \
    }                                                                                         \
  };
KESTREL_TEX_RESULTS(signed char, char)
KESTREL_TEX_RESULTS(unsigned char, uchar)
KESTREL_TEX_RESULTS(short, short)
KESTREL_TEX_RESULTS(unsigned short, ushort)
KESTREL_TEX_RESULTS(int, int)
KESTREL_TEX_RESULTS(unsigned int, uint)
KESTREL_TEX_RESULTS(float, float)
#undef KESTREL_TEX_RESULTS
/* Plain char (a distinct type from signed char in C++). */
template <>
struct Result<char> {
  static __device__ __forceinline__ char from(const kestrel::texture::Texels& r) { return (char)r.v[0]; }
};

/* A fetch from one image: a texture that is not mipmapped, or one level's
 * descriptor of a mipmapped texture (`level_weight`: sample()'s).  Not
 * inlined: the fetch functions inlined into a kernel hold no descriptor,
 * so a kernel that fetches in several ways (texture_mipmap.cu's switch over
 * 12 functions) holds one fetch's frames at a time, and a linear fetch
 * between two levels fits the default 1 KiB stack beside the deepest frame
 * of filtering. */
static __device__ __noinline__ kestrel::texture::Texels sample_image(unsigned long long handle, float x,
                                                                     float y, float z, int layer,
                                                                     int level_weight) {
  const View view = read_view(handle);
  TexelReader read{&view};
  return kestrel::texture::sample(view.texture, read, x, y, z, layer, level_weight);
}

/* --- Mipmapped textures (guide 3.2.11.1, B.8.1.3-B.8.1.20) --------------------
 * A mipmapped texture's descriptor has mip_levels (1..17) and levels_addr,
 * where one descriptor per level lies (level 0 first, 64 bytes apart), each
 * an ordinary image descriptor; its own image fields are level 0's. */
static __device__ __forceinline__ kestrel::texture::Mipmap read_mipmap(unsigned long long handle) {
  kestrel::texture::Mipmap m;
  m.levels = (int)KESTREL_TEX_FIELD(handle, MIP_LEVELS);
  m.filter = KESTREL_TEX_FIELD(handle, MIP_FILTER) ? kestrel::texture::FilterMode::kLinear
                                                   : kestrel::texture::FilterMode::kPoint;
  m.bias = __builtin_bit_cast(float, (uint32_t)KESTREL_TEX_FIELD(handle, LOD_BIAS));
  m.min_clamp = __builtin_bit_cast(float, (uint32_t)KESTREL_TEX_FIELD(handle, MIN_LOD_CLAMP));
  m.max_clamp = __builtin_bit_cast(float, (uint32_t)KESTREL_TEX_FIELD(handle, MAX_LOD_CLAMP));
  return m;
}

/* The stack.  A filtered fetch's deepest frame (kestrel::texture::detail::
 * linear) leaves little of the default 1 KiB per thread, so a LOD fetch does
 * not nest one level's fetch inside the mipmap logic: the helpers below are
 * calls of their own whose frames are gone before a level is fetched, and
 * sample_at_lod (inlined into the kernel) holds only the pick and the lower
 * level's result while it fetches the upper level. */

/* Which levels a fetch at `lod` (lod_fixed's units) reads, as descriptor
 * addresses (upper = lower when one level is read). */
struct Levels {
  unsigned long long lower;
  unsigned long long upper;
  int weight;                      // of the upper level: 0 when one level is read
  int lower_weight, upper_weight;  // the level weights of their fetches (kestrel::texture::level_weight)
};

static __device__ __noinline__ Levels pick_levels(unsigned long long handle, int lod) {
  const View view = read_view(handle);
  const kestrel::texture::LevelPick p = kestrel::texture::pick_levels(view.texture, read_mipmap(handle), lod);
  const unsigned long long levels = KESTREL_TEX_FIELD(handle, LEVELS_ADDR);
  return Levels{levels + (unsigned long long)p.lower * KESTREL_TEX_DESC_BYTES,
                levels + (unsigned long long)p.upper * KESTREL_TEX_DESC_BYTES, p.weight,
                kestrel::texture::level_weight(view.texture, p, false),
                kestrel::texture::level_weight(view.texture, p, true)};
}

static __device__ __noinline__ kestrel::texture::Texels blend_levels(unsigned long long handle,
                                                                     const kestrel::texture::Texels& lower,
                                                                     const kestrel::texture::Texels& upper,
                                                                     int weight) {
  const View view = read_view(handle);
  return kestrel::texture::blend_levels(view.texture, lower, upper, weight);
}

static __device__ __noinline__ int lod_fixed(unsigned long long handle, float lod) {
  return kestrel::texture::lod_fixed(read_mipmap(handle), lod);
}

/* The LOD (lod_fixed's units) that gradients dx and dy ask of a mipmapped
 * texture; the components come in registers, so that the kernel's frame
 * holds no arrays of them. */
static __device__ __noinline__ int gradient_lod_fixed(unsigned long long handle, float dxx, float dxy,
                                                      float dxz, float dyx, float dyy, float dyz) {
  const View view = read_view(handle);
  const float dx[3] = {dxx, dxy, dxz}, dy[3] = {dyx, dyy, dyz};
  return kestrel::texture::lod_fixed(read_mipmap(handle),
                                     kestrel::texture::gradient_lod(view.texture, dx, dy));
}

/* A fetch at LOD `lod` (lod_fixed's units) of a mipmapped texture. */
static __device__ __forceinline__ kestrel::texture::Texels sample_at_lod(unsigned long long handle, float x,
                                                                         float y, float z, int layer,
                                                                         int lod) {
  const Levels p = pick_levels(handle, lod);
  const kestrel::texture::Texels lower = sample_image(p.lower, x, y, z, layer, p.lower_weight);
  if (p.weight == 0) return lower;
  return blend_levels(handle, lower, sample_image(p.upper, x, y, z, layer, p.upper_weight), p.weight);
}

/* tex*Lod: a texture that is not mipmapped has its one level. */
static __device__ __forceinline__ kestrel::texture::Texels sample_lod(unsigned long long handle, float x,
                                                                      float y, float z, int layer,
                                                                      float lod) {
  if (KESTREL_TEX_FIELD(handle, MIP_LEVELS) == 0) return sample_image(handle, x, y, z, layer, 256);
  return sample_at_lod(handle, x, y, z, layer, lod_fixed(handle, lod));
}

/* tex*Grad: the LOD from the gradients (unused components 0). */
static __device__ __forceinline__ kestrel::texture::Texels sample_grad(unsigned long long handle, float x,
                                                                       float y, float z, int layer, float dxx,
                                                                       float dxy, float dxz, float dyx,
                                                                       float dyy, float dyz) {
  if (KESTREL_TEX_FIELD(handle, MIP_LEVELS) == 0) return sample_image(handle, x, y, z, layer, 256);
  return sample_at_lod(handle, x, y, z, layer, gradient_lod_fixed(handle, dxx, dxy, dxz, dyx, dyy, dyz));
}

/* A fetch without a LOD (tex2D, ...) of a mipmapped texture: LOD 0, with
 * its bias and clamps.  A call of its own, so that the plain fetches inlined
 * into a kernel hold none of the LOD logic's state. */
static __device__ __noinline__ kestrel::texture::Texels sample_mipmapped_at_zero(unsigned long long handle,
                                                                                 float x, float y, float z,
                                                                                 int layer) {
  return sample_at_lod(handle, x, y, z, layer, lod_fixed(handle, 0.0f));
}

/* A fetch in software without a LOD (texCubemap, texCubemapLayered). */
static __device__ __forceinline__ kestrel::texture::Texels sample(unsigned long long handle, float x, float y,
                                                                  float z, int layer) {
  if (KESTREL_TEX_FIELD(handle, MIP_LEVELS) == 0) return sample_image(handle, x, y, z, layer, 256);
  return sample_mipmapped_at_zero(handle, x, y, z, layer);
}

/* --- The texture unit (kx.tex, docs/isa.md section 2.5) ----------------------
 * The one place that issues kx.tex: the fetch of `Form` (KESTREL_TEX_FORM_*)
 * from the object `handle` (the instruction takes the low 32 bits) at
 * (x, y, z) of `layer`, the four components written to ft0..ft3 from the
 * coordinates in ft8..ft10.  The explicit register variables, the asm's
 * only operands of their groups, keep each group in consecutive registers
 * where the instruction names its first.  Components are 32-bit patterns:
 * a float's bits, or an integer (moved out of the f register unchanged). */
template <unsigned Form>
static __device__ __forceinline__ kestrel::texture::Texels unit_fetch(unsigned long long handle, float x,
                                                                      float y, float z, int layer) {
  register float c0 asm("ft8") = x;
  register float c1 asm("ft9") = y;
  register float c2 asm("ft10") = z;
  register float r0 asm("ft0");
  register float r1 asm("ft1");
  register float r2 asm("ft2");
  register float r3 asm("ft3");
  /* volatile: a fetch faults (TEXTURE, a freed texture's memory) even when
   * its result goes unused. */
  __asm__ volatile(".insn r4 0x5b, %[form], 0, %[rd], %[object], %[layer], %[coords]"
                   : [rd] "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
                   : [form] "i"(Form), [object] "r"((uintptr_t)handle), [layer] "r"(layer), [coords] "f"(c0),
                     "f"(c1), "f"(c2));
  return kestrel::texture::Texels{{__builtin_bit_cast(uint32_t, r0), __builtin_bit_cast(uint32_t, r1),
                                   __builtin_bit_cast(uint32_t, r2), __builtin_bit_cast(uint32_t, r3)}};
}

/* tex1D, tex2D, tex3D, tex1DLayered, tex2DLayered (objects and references)
 * with the call's form: through the texture unit when the descriptor's
 * unit_fetch flag says it fetches the object (the runtime sets it;
 * docs/isa.md section 12), else in software (mipmapped textures, sRGB reads
 * of 8-bit unsigned channels as normalized floats).  The flag shares word 7
 * with mip_levels: one load decides.  The unit checks the form against the
 * object's shape (tex2D of a 3D object faults TEXTURE); the software path
 * samples the object as its shape says. */
static_assert(KESTREL_TEX_DESC_UNIT_FETCH_WORD == KESTREL_TEX_DESC_MIP_LEVELS_WORD,
              "unit_fetch and mip_levels share a descriptor word");
/* The descriptor's word 7 (unit_fetch, mip_levels), and its unit_fetch flag. */
static __device__ __forceinline__ uint32_t flag_word(unsigned long long handle) {
  return ((const volatile uint32_t*)(uintptr_t)handle)[KESTREL_TEX_DESC_UNIT_FETCH_WORD];
}
static __device__ __forceinline__ bool unit_fetch_flag(uint32_t flags) {
  return ((flags >> KESTREL_TEX_DESC_UNIT_FETCH_SHIFT) & KESTREL_TEX_DESC_UNIT_FETCH_MASK) != 0;
}
template <unsigned Form>
static __device__ __forceinline__ kestrel::texture::Texels sample_form(unsigned long long handle, float x,
                                                                       float y, float z, int layer) {
  const uint32_t flags = flag_word(handle);
  if (unit_fetch_flag(flags)) return unit_fetch<Form>(handle, x, y, z, layer);
  if (((flags >> KESTREL_TEX_DESC_MIP_LEVELS_SHIFT) & KESTREL_TEX_DESC_MIP_LEVELS_MASK) == 0)
    return sample_image(handle, x, y, z, layer, 256);
  return sample_mipmapped_at_zero(handle, x, y, z, layer);
}

/* tex1Dfetch: texel x of linear memory, 0 outside it (B.8.1.1, B.8.2.1):
 * through the texture unit (the 1D fetch form, x in rs2's place, no
 * coordinates) when the runtime set the object's unit_fetch flag, else in
 * software (sRGB reads of 8-bit unsigned channels as normalized floats,
 * linear memory of no whole texel, a device without texture units). */
static __device__ __forceinline__ kestrel::texture::Texels fetch_linear_in_software(unsigned long long handle,
                                                                                    int x) {
  const View view = read_view(handle);
  TexelReader read{&view};
  return kestrel::texture::fetch_linear(view.texture, read, (uint32_t)view.texture.width, x);
}
static __device__ __forceinline__ kestrel::texture::Texels fetch_linear(unsigned long long handle, int x) {
  if (unit_fetch_flag(flag_word(handle)))
    return unit_fetch<KESTREL_TEX_FORM_1D_FETCH>(handle, 0.0f, 0.0f, 0.0f, x);
  return fetch_linear_in_software(handle, x);
}

/* --- Texture references (B.8.2) ----------------------------------------------
 * A texture reference's device copy is the descriptor of what it is bound
 * to, so its address is a handle like a texture object's.  cudaUnbindTexture
 * and the module's load leave it zero; no bound texture has base address 0
 * (the null guard), so base 0 means unbound, and the fetch faults
 * ILLEGAL_ADDRESS at KESTREL_TEXREF_UNBOUND_ADDRESS instead of reading
 * through a meaningless descriptor. */
static __device__ __forceinline__ unsigned long long bound_texref(const textureReference& texref) {
  const unsigned long long handle = (unsigned long long)(uintptr_t)&texref;
  if (KESTREL_TEX_FIELD(handle, BASE_ADDR) == 0) {
    (void)*(const volatile uint32_t*)(uintptr_t)KESTREL_TEXREF_UNBOUND_ADDRESS;
    /* Never reached (the load faults); see surface_place. */
    __kestrel_thread_exit();
  }
  return handle;
}

/* The type a texture<T, Type, mode> fetch returns (B.8.2.2): T, or for
 * cudaReadModeNormalizedFloat the float vector of T's width.  Normalized
 * reads exist for 8- and 16-bit integers only; any other T has no type. */
template <class T>
struct NormalizedFloat;
#define KESTREL_TEXREF_NORMALIZED(S, V) \
  template <>                           \
  struct NormalizedFloat<S> {           \
    typedef float type;                 \
  };                                    \
  template <>                           \
  struct NormalizedFloat<V##1> {        \
    typedef float1 type;                \
  };                                    \
  template <>                           \
  struct NormalizedFloat<V##2> {        \
    typedef float2 type;                \
  };                                    \
  template <>                           \
  struct NormalizedFloat<V##4> {        \
    typedef float4 type;                \
  };
KESTREL_TEXREF_NORMALIZED(signed char, char)
KESTREL_TEXREF_NORMALIZED(unsigned char, uchar)
KESTREL_TEXREF_NORMALIZED(short, short)
KESTREL_TEXREF_NORMALIZED(unsigned short, ushort)
#undef KESTREL_TEXREF_NORMALIZED
template <>
struct NormalizedFloat<char> {
  typedef float type;
};

template <class T, enum cudaTextureReadMode mode>
struct TexrefResult {
  typedef T type;
};
template <class T>
struct TexrefResult<T, cudaReadModeNormalizedFloat> {
  typedef typename NormalizedFloat<T>::type type;
};

/* What tex2Dgather over a texture<T, 2D, mode> returns (B.8.2.21): the
 * 4-component vector of T's base type, or float4 for
 * cudaReadModeNormalizedFloat (of the types that have a normalized read). */
template <class T>
struct GatherOf;
#define KESTREL_TEXREF_GATHER(S, V) \
  template <>                       \
  struct GatherOf<S> {              \
    typedef V##4 type;              \
  };                                \
  template <>                       \
  struct GatherOf<V##1> {           \
    typedef V##4 type;              \
  };                                \
  template <>                       \
  struct GatherOf<V##2> {           \
    typedef V##4 type;              \
  };                                \
  template <>                       \
  struct GatherOf<V##4> {           \
    typedef V##4 type;              \
  };
KESTREL_TEXREF_GATHER(signed char, char)
KESTREL_TEXREF_GATHER(unsigned char, uchar)
KESTREL_TEXREF_GATHER(short, short)
KESTREL_TEXREF_GATHER(unsigned short, ushort)
KESTREL_TEXREF_GATHER(int, int)
KESTREL_TEXREF_GATHER(unsigned int, uint)
KESTREL_TEXREF_GATHER(float, float)
#undef KESTREL_TEXREF_GATHER
template <>
struct GatherOf<char> {
  typedef char4 type;
};

template <class T, enum cudaTextureReadMode mode>
struct TexrefGather {
  typedef typename GatherOf<T>::type type;
};
template <class T>
struct TexrefGather<T, cudaReadModeNormalizedFloat> {
  /* Only T with a normalized read (NormalizedFloat) gathers as floats. */
  typedef typename NormalizedFloat<T>::type normalized_element;
  typedef float4 type;
};

/* tex2Dgather (B.8.1.21, B.8.2.21): component comp of the four texels of a
 * bilinear fetch.  A component beyond the texel's channels: CUDA leaves it
 * undefined; Kestrel returns the texel's last channel instead of reading
 * past it. */
static __device__ __forceinline__ kestrel::texture::Texels gather(unsigned long long handle, float x, float y,
                                                                  int comp) {
  const View view = read_view(handle);
  TexelReader read{&view};
  const int channel = comp < 0 ? 0 : comp >= view.texture.channels ? view.texture.channels - 1 : comp;
  return kestrel::texture::gather(view.texture, read, x, y, channel);
}

/* --- Surfaces (B.9) ---------------------------------------------------------
 * x is in bytes.  Outside the array, cudaBoundaryModeZero reads 0 and drops
 * writes, cudaBoundaryModeClamp moves x to [0, width bytes - sizeof(T)] and
 * the other coordinates to [0, size - 1] (surface_ops), and
 * cudaBoundaryModeTrap ends the launch with cudaErrorIllegalAddress.  An x
 * that is not a multiple of T's natural alignment faults MISALIGNED
 * (cudaErrorMisalignedAddress), as any misaligned Kestrel load or store. */
static __device__ __forceinline__ bool surface_place(unsigned long long handle, int x, int y, int z,
                                                     int layer, uint32_t bytes, cudaSurfaceBoundaryMode mode,
                                                     uintptr_t* address) {
  const uint32_t width_bytes =
      KESTREL_TEX_FIELD(handle, WIDTH) *
      (KESTREL_TEX_FIELD(handle, CHANNELS) << KESTREL_TEX_FIELD(handle, CHANNEL_SIZE));
  const int height = (int)KESTREL_TEX_FIELD(handle, HEIGHT), depth = (int)KESTREL_TEX_FIELD(handle, DEPTH);
  const int layers = (int)KESTREL_TEX_FIELD(handle, LAYERS);
  const int last_x = (int)width_bytes - (int)bytes;
  const bool inside =
      x >= 0 && x <= last_x && y >= 0 && y < height && z >= 0 && z < depth && layer >= 0 && layer < layers;
  if (!inside) {
    if (mode == cudaBoundaryModeZero) return false;
    if (mode == cudaBoundaryModeClamp) {
      x = x < 0 ? 0 : x > last_x ? last_x : x;
      y = y < 0 ? 0 : y >= height ? height - 1 : y;
      z = z < 0 ? 0 : z >= depth ? depth - 1 : z;
      layer = layer < 0 ? 0 : layer >= layers ? layers - 1 : layer;
    } else {
      (void)*(const volatile uint32_t*)(uintptr_t)KESTREL_SURFACE_TRAP_ADDRESS;
      /* Never reached (the load faults); not __builtin_unreachable, which
       * would let the compiler drop the whole branch, load included. */
      __kestrel_thread_exit();
    }
  }
  *address = KESTREL_TEX_FIELD(handle, BASE_ADDR) +
             (uintptr_t)(uint32_t)(z + layer) * KESTREL_TEX_FIELD(handle, SLICE_PITCH) +
             (uintptr_t)(uint32_t)y * KESTREL_TEX_FIELD(handle, PITCH) + (uintptr_t)(uint32_t)x;
  return true;
}

template <class T>
static __device__ __forceinline__ T surface_read(unsigned long long handle, int x, int y, int z, int layer,
                                                 cudaSurfaceBoundaryMode mode) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "surface reads are of 1, 2, 4, 8 or 16 bytes");
  uint8_t bytes[sizeof(T)] = {};
  uintptr_t address;
  if (surface_place(handle, x, y, z, layer, sizeof(T), mode, &address)) load_bytes(address, sizeof(T), bytes);
  T value;
  __builtin_memcpy(&value, bytes, sizeof(T));
  return value;
}

template <class T>
static __device__ __forceinline__ void surface_write(const T& value, unsigned long long handle, int x, int y,
                                                     int z, int layer, cudaSurfaceBoundaryMode mode) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "surface writes are of 1, 2, 4, 8 or 16 bytes");
  uint8_t bytes[sizeof(T)];
  __builtin_memcpy(bytes, &value, sizeof(T));
  uintptr_t address;
  if (surface_place(handle, x, y, z, layer, sizeof(T), mode, &address))
    store_bytes(address, sizeof(T), bytes);
}

}  // namespace kestrel_texture_detail

/* ---- Texture object functions (guide B.8.1) ---------------------------------- */

/* tex1Dfetch: texel x of linear memory, 0 outside it (B.8.1.1). */
template <class T>
static __device__ __forceinline__ T tex1Dfetch(cudaTextureObject_t texObj, int x) {
  return kestrel_texture_detail::Result<T>::from(kestrel_texture_detail::fetch_linear(texObj, x));
}
template <class T>
static __device__ __forceinline__ T tex1D(cudaTextureObject_t texObj, float x) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_form<KESTREL_TEX_FORM_1D>(texObj, x, 0.0f, 0.0f, 0));
}
template <class T>
static __device__ __forceinline__ T tex2D(cudaTextureObject_t texObj, float x, float y) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_form<KESTREL_TEX_FORM_2D>(texObj, x, y, 0.0f, 0));
}
template <class T>
static __device__ __forceinline__ T tex3D(cudaTextureObject_t texObj, float x, float y, float z) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_form<KESTREL_TEX_FORM_3D>(texObj, x, y, z, 0));
}
template <class T>
static __device__ __forceinline__ T tex1DLayered(cudaTextureObject_t texObj, float x, int layer) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_form<KESTREL_TEX_FORM_1D_LAYERED>(texObj, x, 0.0f, 0.0f, layer));
}
template <class T>
static __device__ __forceinline__ T tex2DLayered(cudaTextureObject_t texObj, float x, float y, int layer) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_form<KESTREL_TEX_FORM_2D_LAYERED>(texObj, x, y, 0.0f, layer));
}
template <class T>
static __device__ __forceinline__ T texCubemap(cudaTextureObject_t texObj, float x, float y, float z) {
  return kestrel_texture_detail::Result<T>::from(kestrel_texture_detail::sample(texObj, x, y, z, 0));
}
/* texCubemapLayered (B.8.1.19): cubemap `layer` of a layered cubemap. */
template <class T>
static __device__ __forceinline__ T texCubemapLayered(cudaTextureObject_t texObj, float x, float y, float z,
                                                      int layer) {
  return kestrel_texture_detail::Result<T>::from(kestrel_texture_detail::sample(texObj, x, y, z, layer));
}

/* Level of detail (B.8.1.3, 6, 9, 12, 15, 18, 20): the fetch at `level`
 * (plus the texture's mipmapLevelBias, within its clamps). */
template <class T>
static __device__ __forceinline__ T tex1DLod(cudaTextureObject_t texObj, float x, float level) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_lod(texObj, x, 0.0f, 0.0f, 0, level));
}
template <class T>
static __device__ __forceinline__ T tex2DLod(cudaTextureObject_t texObj, float x, float y, float level) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_lod(texObj, x, y, 0.0f, 0, level));
}
template <class T>
static __device__ __forceinline__ T tex3DLod(cudaTextureObject_t texObj, float x, float y, float z,
                                             float level) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_lod(texObj, x, y, z, 0, level));
}
template <class T>
static __device__ __forceinline__ T tex1DLayeredLod(cudaTextureObject_t texObj, float x, int layer,
                                                    float level) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_lod(texObj, x, 0.0f, 0.0f, layer, level));
}
template <class T>
static __device__ __forceinline__ T tex2DLayeredLod(cudaTextureObject_t texObj, float x, float y, int layer,
                                                    float level) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_lod(texObj, x, y, 0.0f, layer, level));
}
template <class T>
static __device__ __forceinline__ T texCubemapLod(cudaTextureObject_t texObj, float x, float y, float z,
                                                  float level) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_lod(texObj, x, y, z, 0, level));
}
template <class T>
static __device__ __forceinline__ T texCubemapLayeredLod(cudaTextureObject_t texObj, float x, float y,
                                                         float z, int layer, float level) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_lod(texObj, x, y, z, layer, level));
}

/* Gradients (B.8.1.4, 7, 10, 13, 16): the LOD from dx and dy, the
 * coordinates' derivatives (kestrel::texture::gradient_lod). */
template <class T>
static __device__ __forceinline__ T tex1DGrad(cudaTextureObject_t texObj, float x, float dx, float dy) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_grad(texObj, x, 0.0f, 0.0f, 0, dx, 0.0f, 0.0f, dy, 0.0f, 0.0f));
}
template <class T>
static __device__ __forceinline__ T tex2DGrad(cudaTextureObject_t texObj, float x, float y, float2 dx,
                                              float2 dy) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_grad(texObj, x, y, 0.0f, 0, dx.x, dx.y, 0.0f, dy.x, dy.y, 0.0f));
}
template <class T>
static __device__ __forceinline__ T tex3DGrad(cudaTextureObject_t texObj, float x, float y, float z,
                                              float4 dx, float4 dy) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_grad(texObj, x, y, z, 0, dx.x, dx.y, dx.z, dy.x, dy.y, dy.z));
}
template <class T>
static __device__ __forceinline__ T tex1DLayeredGrad(cudaTextureObject_t texObj, float x, int layer, float dx,
                                                     float dy) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_grad(texObj, x, 0.0f, 0.0f, layer, dx, 0.0f, 0.0f, dy, 0.0f, 0.0f));
}
template <class T>
static __device__ __forceinline__ T tex2DLayeredGrad(cudaTextureObject_t texObj, float x, float y, int layer,
                                                     float2 dx, float2 dy) {
  return kestrel_texture_detail::Result<T>::from(
      kestrel_texture_detail::sample_grad(texObj, x, y, 0.0f, layer, dx.x, dx.y, 0.0f, dy.x, dy.y, 0.0f));
}

/* tex2Dgather (B.8.1.10): component comp of the four texels of a bilinear
 * fetch, as a 4-vector T. */
template <class T>
static __device__ __forceinline__ T tex2Dgather(cudaTextureObject_t texObj, float x, float y, int comp = 0) {
  return kestrel_texture_detail::Result<T>::from(kestrel_texture_detail::gather(texObj, x, y, comp));
}

/* The out-parameter forms. */
template <class T>
static __device__ __forceinline__ void tex1Dfetch(T* ptr, cudaTextureObject_t texObj, int x) {
  *ptr = tex1Dfetch<T>(texObj, x);
}
template <class T>
static __device__ __forceinline__ void tex1D(T* ptr, cudaTextureObject_t texObj, float x) {
  *ptr = tex1D<T>(texObj, x);
}
template <class T>
static __device__ __forceinline__ void tex2D(T* ptr, cudaTextureObject_t texObj, float x, float y) {
  *ptr = tex2D<T>(texObj, x, y);
}
template <class T>
static __device__ __forceinline__ void tex3D(T* ptr, cudaTextureObject_t texObj, float x, float y, float z) {
  *ptr = tex3D<T>(texObj, x, y, z);
}
template <class T>
static __device__ __forceinline__ void tex1DLayered(T* ptr, cudaTextureObject_t texObj, float x, int layer) {
  *ptr = tex1DLayered<T>(texObj, x, layer);
}
template <class T>
static __device__ __forceinline__ void tex2DLayered(T* ptr, cudaTextureObject_t texObj, float x, float y,
                                                    int layer) {
  *ptr = tex2DLayered<T>(texObj, x, y, layer);
}
template <class T>
static __device__ __forceinline__ void texCubemap(T* ptr, cudaTextureObject_t texObj, float x, float y,
                                                  float z) {
  *ptr = texCubemap<T>(texObj, x, y, z);
}
template <class T>
static __device__ __forceinline__ void tex2Dgather(T* ptr, cudaTextureObject_t texObj, float x, float y,
                                                   int comp = 0) {
  *ptr = tex2Dgather<T>(texObj, x, y, comp);
}

/* ---- Texture reference functions (guide B.8.2) ---------------------------------
 * The same fetches over a texture reference's descriptor: the reference is
 * taken by const reference (the guide's signatures take it by value; a
 * reference avoids copying its 64 bytes and reads the variable itself).  A
 * fetch from an unbound reference ends the launch with
 * cudaErrorIllegalAddress (bound_texref). */
#define KESTREL_TEXREF_RESULT(T, mode) typename kestrel_texture_detail::TexrefResult<T, mode>::type
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex1Dfetch(const texture<T, cudaTextureType1D, mode>& texRef, int x) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(fetch_linear(bound_texref(texRef), x));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex1D(const texture<T, cudaTextureType1D, mode>& texRef, float x) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_form<KESTREL_TEX_FORM_1D>(bound_texref(texRef), x, 0.0f, 0.0f, 0));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex2D(const texture<T, cudaTextureType2D, mode>& texRef, float x, float y) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_form<KESTREL_TEX_FORM_2D>(bound_texref(texRef), x, y, 0.0f, 0));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex3D(const texture<T, cudaTextureType3D, mode>& texRef, float x, float y, float z) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_form<KESTREL_TEX_FORM_3D>(bound_texref(texRef), x, y, z, 0));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex1DLayered(const texture<T, cudaTextureType1DLayered, mode>& texRef, float x, int layer) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_form<KESTREL_TEX_FORM_1D_LAYERED>(bound_texref(texRef), x, 0.0f, 0.0f, layer));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex2DLayered(const texture<T, cudaTextureType2DLayered, mode>& texRef, float x, float y, int layer) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_form<KESTREL_TEX_FORM_2D_LAYERED>(bound_texref(texRef), x, y, 0.0f, layer));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    texCubemap(const texture<T, cudaTextureTypeCubemap, mode>& texRef, float x, float y, float z) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(sample(bound_texref(texRef), x, y, z, 0));
}
/* texCubemapLayered (B.8.2.19): cubemap `layer` of a layered cubemap. */
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    texCubemapLayered(const texture<T, cudaTextureTypeCubemapLayered, mode>& texRef, float x, float y,
                      float z, int layer) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(sample(bound_texref(texRef), x, y, z, layer));
}

/* Level of detail (B.8.2.3, 6, 9, 12, 15, 18, 20) over a reference bound to
 * a mipmapped array (cudaBindTextureToMipmappedArray), with the reference's
 * mipmapLevelBias and clamps as they were at the bind; bound to anything
 * else, its one level, as for objects.  The guide's listings declare the
 * layered forms over cudaTextureType1D/2D references and texCubemapLod and
 * texCubemapLayeredLod over cudaTextureType3D ones; a reference of those
 * types cannot be bound to a layered array or a cubemap, so these take the
 * layered and cubemap types, as CUDA's headers do. */
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex1DLod(const texture<T, cudaTextureType1D, mode>& texRef, float x, float level) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_lod(bound_texref(texRef), x, 0.0f, 0.0f, 0, level));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex2DLod(const texture<T, cudaTextureType2D, mode>& texRef, float x, float y, float level) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(sample_lod(bound_texref(texRef), x, y, 0.0f, 0, level));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex3DLod(const texture<T, cudaTextureType3D, mode>& texRef, float x, float y, float z, float level) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(sample_lod(bound_texref(texRef), x, y, z, 0, level));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex1DLayeredLod(const texture<T, cudaTextureType1DLayered, mode>& texRef, float x, int layer,
                    float level) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_lod(bound_texref(texRef), x, 0.0f, 0.0f, layer, level));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex2DLayeredLod(const texture<T, cudaTextureType2DLayered, mode>& texRef, float x, float y, int layer,
                    float level) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_lod(bound_texref(texRef), x, y, 0.0f, layer, level));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    texCubemapLod(const texture<T, cudaTextureTypeCubemap, mode>& texRef, float x, float y, float z,
                  float level) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(sample_lod(bound_texref(texRef), x, y, z, 0, level));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    texCubemapLayeredLod(const texture<T, cudaTextureTypeCubemapLayered, mode>& texRef, float x, float y,
                         float z, int layer, float level) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_lod(bound_texref(texRef), x, y, z, layer, level));
}

/* Gradients (B.8.2.4, 7, 10, 13, 16): the LOD from dx and dy, as for
 * objects.  The guide has no texCubemapGrad. */
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex1DGrad(const texture<T, cudaTextureType1D, mode>& texRef, float x, float dx, float dy) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_grad(bound_texref(texRef), x, 0.0f, 0.0f, 0, dx, 0.0f, 0.0f, dy, 0.0f, 0.0f));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex2DGrad(const texture<T, cudaTextureType2D, mode>& texRef, float x, float y, float2 dx, float2 dy) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_grad(bound_texref(texRef), x, y, 0.0f, 0, dx.x, dx.y, 0.0f, dy.x, dy.y, 0.0f));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex3DGrad(const texture<T, cudaTextureType3D, mode>& texRef, float x, float y, float z, float4 dx,
              float4 dy) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_grad(bound_texref(texRef), x, y, z, 0, dx.x, dx.y, dx.z, dy.x, dy.y, dy.z));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex1DLayeredGrad(const texture<T, cudaTextureType1DLayered, mode>& texRef, float x, int layer, float dx,
                     float dy) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_grad(bound_texref(texRef), x, 0.0f, 0.0f, layer, dx, 0.0f, 0.0f, dy, 0.0f, 0.0f));
}
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ KESTREL_TEXREF_RESULT(T, mode)
    tex2DLayeredGrad(const texture<T, cudaTextureType2DLayered, mode>& texRef, float x, float y, int layer,
                     float2 dx, float2 dy) {
  using namespace kestrel_texture_detail;
  return Result<KESTREL_TEXREF_RESULT(T, mode)>::from(
      sample_grad(bound_texref(texRef), x, y, 0.0f, layer, dx.x, dx.y, 0.0f, dy.x, dy.y, 0.0f));
}
#undef KESTREL_TEXREF_RESULT

/* tex2Dgather (B.8.2.21): a 4-vector of T's base type, float4 when read
 * as normalized floats. */
template <class T, enum cudaTextureReadMode mode>
static __device__ __forceinline__ typename kestrel_texture_detail::TexrefGather<T, mode>::type tex2Dgather(
    const texture<T, cudaTextureType2D, mode>& texRef, float x, float y, int comp = 0) {
  using namespace kestrel_texture_detail;
  return Result<typename TexrefGather<T, mode>::type>::from(gather(bound_texref(texRef), x, y, comp));
}

/* ---- Surface object functions (guide B.9.1) ------------------------------------ */

template <class T>
static __device__ __forceinline__ T surf1Dread(cudaSurfaceObject_t surfObj, int x,
                                               cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  return kestrel_texture_detail::surface_read<T>(surfObj, x, 0, 0, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf1Dread(
    T* data, cudaSurfaceObject_t surfObj, int x,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surf1Dread<T>(surfObj, x, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf1Dwrite(
    T data, cudaSurfaceObject_t surfObj, int x, cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  kestrel_texture_detail::surface_write(data, surfObj, x, 0, 0, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ T surf2Dread(cudaSurfaceObject_t surfObj, int x, int y,
                                               cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  return kestrel_texture_detail::surface_read<T>(surfObj, x, y, 0, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf2Dread(
    T* data, cudaSurfaceObject_t surfObj, int x, int y,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surf2Dread<T>(surfObj, x, y, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf2Dwrite(
    T data, cudaSurfaceObject_t surfObj, int x, int y,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  kestrel_texture_detail::surface_write(data, surfObj, x, y, 0, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ T surf3Dread(cudaSurfaceObject_t surfObj, int x, int y, int z,
                                               cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  return kestrel_texture_detail::surface_read<T>(surfObj, x, y, z, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf3Dread(
    T* data, cudaSurfaceObject_t surfObj, int x, int y, int z,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surf3Dread<T>(surfObj, x, y, z, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf3Dwrite(
    T data, cudaSurfaceObject_t surfObj, int x, int y, int z,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  kestrel_texture_detail::surface_write(data, surfObj, x, y, z, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ T
surf1DLayeredread(cudaSurfaceObject_t surfObj, int x, int layer,
                  cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  return kestrel_texture_detail::surface_read<T>(surfObj, x, 0, 0, layer, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf1DLayeredread(
    T* data, cudaSurfaceObject_t surfObj, int x, int layer,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surf1DLayeredread<T>(surfObj, x, layer, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf1DLayeredwrite(
    T data, cudaSurfaceObject_t surfObj, int x, int layer,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  kestrel_texture_detail::surface_write(data, surfObj, x, 0, 0, layer, boundaryMode);
}
template <class T>
static __device__ __forceinline__ T
surf2DLayeredread(cudaSurfaceObject_t surfObj, int x, int y, int layer,
                  cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  return kestrel_texture_detail::surface_read<T>(surfObj, x, y, 0, layer, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf2DLayeredread(
    T* data, cudaSurfaceObject_t surfObj, int x, int y, int layer,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surf2DLayeredread<T>(surfObj, x, y, layer, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf2DLayeredwrite(
    T data, cudaSurfaceObject_t surfObj, int x, int y, int layer,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  kestrel_texture_detail::surface_write(data, surfObj, x, y, 0, layer, boundaryMode);
}

/* Cubemap surfaces (B.9.1.11-14; guide 3.2.11.2.3, 3.2.11.2.4): a cubemap
 * array read and written as a 2D layered surface, face (or layer x 6 +
 * face) in the place of the layer, so a face beyond the last is out of the
 * array as a layer is (zero, clamp to the last face, or trap). */
template <class T>
static __device__ __forceinline__ T
surfCubemapread(cudaSurfaceObject_t surfObj, int x, int y, int face,
                cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  return kestrel_texture_detail::surface_read<T>(surfObj, x, y, 0, face, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surfCubemapread(
    T* data, cudaSurfaceObject_t surfObj, int x, int y, int face,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surfCubemapread<T>(surfObj, x, y, face, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surfCubemapwrite(
    T data, cudaSurfaceObject_t surfObj, int x, int y, int face,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  kestrel_texture_detail::surface_write(data, surfObj, x, y, 0, face, boundaryMode);
}
template <class T>
static __device__ __forceinline__ T
surfCubemapLayeredread(cudaSurfaceObject_t surfObj, int x, int y, int layerFace,
                       cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  return kestrel_texture_detail::surface_read<T>(surfObj, x, y, 0, layerFace, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surfCubemapLayeredread(
    T* data, cudaSurfaceObject_t surfObj, int x, int y, int layerFace,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surfCubemapLayeredread<T>(surfObj, x, y, layerFace, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surfCubemapLayeredwrite(
    T data, cudaSurfaceObject_t surfObj, int x, int y, int layerFace,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  kestrel_texture_detail::surface_write(data, surfObj, x, y, 0, layerFace, boundaryMode);
}

/* ---- Surface reference functions (guide B.9.2) -----------------------------------
 * The surface object functions over a surface reference's descriptor, taken
 * by const reference as the texture reference functions take theirs.  An
 * access through a reference that is not bound (never bound, or bound on
 * another device) ends the launch with cudaErrorIllegalAddress, loading from
 * KESTREL_SURFREF_UNBOUND_ADDRESS: base address 0 is no bound array (the
 * null guard), as for texture references. */
namespace kestrel_texture_detail {
static __device__ __forceinline__ unsigned long long bound_surfref(const surfaceReference& surfref) {
  const unsigned long long handle = (unsigned long long)(uintptr_t)&surfref;
  if (KESTREL_TEX_FIELD(handle, BASE_ADDR) == 0) {
    (void)*(const volatile uint32_t*)(uintptr_t)KESTREL_SURFREF_UNBOUND_ADDRESS;
    /* Never reached (the load faults); see surface_place. */
    __kestrel_thread_exit();
  }
  return handle;
}
}  // namespace kestrel_texture_detail

template <class T>
static __device__ __forceinline__ T surf1Dread(const surface<void, cudaSurfaceType1D>& surfRef, int x,
                                               cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  return surface_read<T>(bound_surfref(surfRef), x, 0, 0, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf1Dread(
    T* data, const surface<void, cudaSurfaceType1D>& surfRef, int x,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surf1Dread<T>(surfRef, x, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf1Dwrite(
    T data, const surface<void, cudaSurfaceType1D>& surfRef, int x,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  surface_write(data, bound_surfref(surfRef), x, 0, 0, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ T surf2Dread(const surface<void, cudaSurfaceType2D>& surfRef, int x, int y,
                                               cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  return surface_read<T>(bound_surfref(surfRef), x, y, 0, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf2Dread(
    T* data, const surface<void, cudaSurfaceType2D>& surfRef, int x, int y,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surf2Dread<T>(surfRef, x, y, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf2Dwrite(
    T data, const surface<void, cudaSurfaceType2D>& surfRef, int x, int y,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  surface_write(data, bound_surfref(surfRef), x, y, 0, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ T surf3Dread(const surface<void, cudaSurfaceType3D>& surfRef, int x, int y,
                                               int z,
                                               cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  return surface_read<T>(bound_surfref(surfRef), x, y, z, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf3Dread(
    T* data, const surface<void, cudaSurfaceType3D>& surfRef, int x, int y, int z,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surf3Dread<T>(surfRef, x, y, z, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf3Dwrite(
    T data, const surface<void, cudaSurfaceType3D>& surfRef, int x, int y, int z,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  surface_write(data, bound_surfref(surfRef), x, y, z, 0, boundaryMode);
}
template <class T>
static __device__ __forceinline__ T
surf1DLayeredread(const surface<void, cudaSurfaceType1DLayered>& surfRef, int x, int layer,
                  cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  return surface_read<T>(bound_surfref(surfRef), x, 0, 0, layer, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf1DLayeredread(
    T* data, const surface<void, cudaSurfaceType1DLayered>& surfRef, int x, int layer,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surf1DLayeredread<T>(surfRef, x, layer, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf1DLayeredwrite(
    T data, const surface<void, cudaSurfaceType1DLayered>& surfRef, int x, int layer,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  surface_write(data, bound_surfref(surfRef), x, 0, 0, layer, boundaryMode);
}
template <class T>
static __device__ __forceinline__ T
surf2DLayeredread(const surface<void, cudaSurfaceType2DLayered>& surfRef, int x, int y, int layer,
                  cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  return surface_read<T>(bound_surfref(surfRef), x, y, 0, layer, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf2DLayeredread(
    T* data, const surface<void, cudaSurfaceType2DLayered>& surfRef, int x, int y, int layer,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surf2DLayeredread<T>(surfRef, x, y, layer, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surf2DLayeredwrite(
    T data, const surface<void, cudaSurfaceType2DLayered>& surfRef, int x, int y, int layer,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  surface_write(data, bound_surfref(surfRef), x, y, 0, layer, boundaryMode);
}

/* Cubemap surfaces through a reference (B.9.2.11-14), as the object forms. */
template <class T>
static __device__ __forceinline__ T
surfCubemapread(const surface<void, cudaSurfaceTypeCubemap>& surfRef, int x, int y, int face,
                cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  return surface_read<T>(bound_surfref(surfRef), x, y, 0, face, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surfCubemapread(
    T* data, const surface<void, cudaSurfaceTypeCubemap>& surfRef, int x, int y, int face,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surfCubemapread<T>(surfRef, x, y, face, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surfCubemapwrite(
    T data, const surface<void, cudaSurfaceTypeCubemap>& surfRef, int x, int y, int face,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  surface_write(data, bound_surfref(surfRef), x, y, 0, face, boundaryMode);
}
template <class T>
static __device__ __forceinline__ T
surfCubemapLayeredread(const surface<void, cudaSurfaceTypeCubemapLayered>& surfRef, int x, int y,
                       int layerFace, cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  return surface_read<T>(bound_surfref(surfRef), x, y, 0, layerFace, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surfCubemapLayeredread(
    T* data, const surface<void, cudaSurfaceTypeCubemapLayered>& surfRef, int x, int y, int layerFace,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  *data = surfCubemapLayeredread<T>(surfRef, x, y, layerFace, boundaryMode);
}
template <class T>
static __device__ __forceinline__ void surfCubemapLayeredwrite(
    T data, const surface<void, cudaSurfaceTypeCubemapLayered>& surfRef, int x, int y, int layerFace,
    cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap) {
  using namespace kestrel_texture_detail;
  surface_write(data, bound_surfref(surfRef), x, y, 0, layerFace, boundaryMode);
}

#undef KESTREL_TEX_FIELD
#endif /* KESTREL_TEXTURE_H */
