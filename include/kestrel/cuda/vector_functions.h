/* make_int2(), make_float4() and the other make_<type>() functions (guide
 * B.3.1) come with vector_types.h; this header exists so that programs
 * written for nvcc that include it compile unchanged. */
#include "vector_types.h"
