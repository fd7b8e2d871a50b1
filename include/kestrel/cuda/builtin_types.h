/* CUDA's <builtin_types.h>: the runtime's types (driver_types.h), the
 * texture and surface object types and the vector types (vector_types.h). */
#include "driver_types.h"
#include "surface_types.h"
#include "texture_types.h"
#include "vector_types.h"
