/* threadIdx, blockIdx, blockDim, gridDim and warpSize (guide B.4) come with
 * every .cu file Kestrel compiles (kestrel_cuda.h); this header exists so that
 * programs written for nvcc that include it compile unchanged. */
#include "cuda_runtime.h"
