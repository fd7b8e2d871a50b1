/* See cuda_runtime.h. */
#include "kestrel_cuda.h"
