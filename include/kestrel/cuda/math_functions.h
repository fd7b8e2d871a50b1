/* CUDA's math function names (guide B.7 and appendix D) come with every .cu
 * file Kestrel compiles (kestrel_cuda.h); this header exists so that programs
 * written for nvcc that include it compile unchanged. */
#include "cuda_runtime.h"
