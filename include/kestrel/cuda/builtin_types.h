/* CUDA's <builtin_types.h>: the runtime's types (driver_types.h) and the
 * vector types (vector_types.h).  Kestrel has no textures or surfaces, so
 * their type headers are not part of it. */
#include "driver_types.h"
#include "vector_types.h"
