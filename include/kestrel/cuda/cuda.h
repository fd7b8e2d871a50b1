/* The basics of CUDA's <cuda.h> that runtime-API programs include: the
 * version macro and the runtime API.  Kestrel has no driver API (cuInit,
 * cuModuleLoad); docs/cuda-runtime.md says why. */
#ifndef KESTREL_CUDA_DRIVER_H
#define KESTREL_CUDA_DRIVER_H
#define CUDA_VERSION 12000
#include "cuda_runtime.h"
#endif /* KESTREL_CUDA_DRIVER_H */
