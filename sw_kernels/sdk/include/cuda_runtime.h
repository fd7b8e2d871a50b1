/* CUDA sources that include <cuda_runtime.h> (or <cuda.h>) get the Kestrel
 * device SDK, which kestrel-cc already force-includes. */
#include "kestrel_cuda.h"
