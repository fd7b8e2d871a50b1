/* <cuda_profiler_api.h> for Kestrel: cudaProfilerStart/Stop mark the part of
 * a program a profiler should look at (NVIDIA's samples call them around
 * their timed loops; nsys records only between them with
 * --capture-range=cudaProfilerApi).  Kestrel keeps, per device (CUDA: per
 * context), whether the window is open, so that its statistics can count the
 * launches issued inside it; docs/cuda-runtime.md, "Profiler window". */
#ifndef KESTREL_CUDA_PROFILER_API_H
#define KESTREL_CUDA_PROFILER_API_H

#include "cuda_runtime_api.h"

#pragma GCC visibility push(default)
#ifdef __cplusplus
extern "C" {
#endif

/* Opens (Start) or closes (Stop) the profiling window of the current device.
 * Either may be called again in the state it sets, with no effect, as in
 * CUDA.  Both open the device if needed and return its sticky error, if any. */
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
/* Kestrel: *active = 1 while the current device's window is open (after
 * cudaProfilerStart, until cudaProfilerStop or cudaDeviceReset), else 0. */
cudaError_t kestrelProfilerActive(int* active);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop

#endif /* KESTREL_CUDA_PROFILER_API_H */
