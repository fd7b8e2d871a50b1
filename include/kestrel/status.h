/* Status codes returned at Kestrel's C boundary: 0 is success, errors are
 * negative.  kestrel_strerror() names each one. */
#ifndef KESTREL_STATUS_H
#define KESTREL_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kestrel_status {
  KESTREL_SUCCESS = 0,
  KESTREL_ERROR_INVALID_VALUE = -1,      /* a bad argument: null pointer, bad size, bad dims */
  KESTREL_ERROR_OUT_OF_MEMORY = -2,      /* device memory exhausted                         */
  KESTREL_ERROR_INVALID_HANDLE = -3,     /* unknown, freed or foreign handle/pointer        */
  KESTREL_ERROR_INVALID_MODULE = -4,     /* not a Kestrel device module, or corrupt          */
  KESTREL_ERROR_NOT_FOUND = -5,          /* no kernel or symbol of that name                */
  KESTREL_ERROR_INVALID_CONFIG = -6,     /* grid/block/shared memory beyond device limits   */
  KESTREL_ERROR_LAUNCH_FAULT = -7,       /* the kernel faulted: see kestrel_fault_info      */
  KESTREL_ERROR_NO_DEVICE = -8,          /* backend unknown or unavailable                  */
  KESTREL_ERROR_IO = -9,                 /* file or link I/O failed                          */
  KESTREL_ERROR_NOT_SUPPORTED = -10,     /* valid request this backend cannot do            */
  KESTREL_ERROR_TIMEOUT = -11            /* launch exceeded its watchdog budget             */
} kestrel_status;

const char* kestrel_strerror(kestrel_status status);

#ifdef __cplusplus
}
#endif

#endif /* KESTREL_STATUS_H */
