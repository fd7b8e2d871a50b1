/* The device image kestrel-cc embeds in each host object of a whole CUDA
 * program.  clang's CUDA host code (-fcuda-include-gpubinary) places the file
 * as it is in section .nv_fatbin and hands the runtime a pointer to it
 * through __cudaRegisterFatBinary, without its size: this header carries the
 * size, so the runtime never reads past the image.  Written by
 * tools/kestrel-cc (program.cpp), read by runtime/cudart. */
#ifndef KESTREL_CUDA_FATBIN_H
#define KESTREL_CUDA_FATBIN_H

#include <stdint.h>

#define KESTREL_FATBIN_MAGIC 0x5441464Bu /* "KFAT" little-endian */
#define KESTREL_FATBIN_VERSION 1u
/* clang's wrapper record {magic, version, data, unused}; the magic is
 * NVIDIA's fat binary wrapper magic, which clang writes for every target. */
#define KESTREL_CLANG_FATBIN_WRAPPER_MAGIC 0x466243B1u
#define KESTREL_FATBIN_MAX_MODULE_BYTES (512ull << 20)

struct kestrel_fatbin_header {
  uint32_t magic;        /* KESTREL_FATBIN_MAGIC                        */
  uint32_t version;      /* KESTREL_FATBIN_VERSION                      */
  uint32_t header_bytes; /* sizeof(struct kestrel_fatbin_header)        */
  uint32_t xlen;         /* 64: the module's device configuration       */
  uint64_t module_bytes; /* the device module (.kmod ELF) that follows  */
};

struct kestrel_clang_fatbin_wrapper {
  uint32_t magic; /* KESTREL_CLANG_FATBIN_WRAPPER_MAGIC */
  uint32_t version;
  const void* data; /* struct kestrel_fatbin_header, then the module */
  const void* unused;
};

#endif /* KESTREL_CUDA_FATBIN_H */
