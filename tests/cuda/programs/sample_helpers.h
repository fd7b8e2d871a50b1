// How NVIDIA's helper_cuda.h decides what to offer (written anew for Kestrel's
// tests, not NVIDIA's code): each part exists only where one of CUDA's own
// include guards says its runtime header was included first, and the device
// choice skips devices in cudaComputeModeProhibited.  A program using these
// compiles only if Kestrel's headers define the guards and names CUDA's do.
#pragma once

#include <cstdio>
#include <cstdlib>

#ifdef __DRIVER_TYPES_H__
template <typename Result>
void sample_check(Result result, const char* call, const char* file, int line) {
  if (result) {
    fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, static_cast<int>(result),
            cudaGetErrorName(result), call);
    exit(EXIT_FAILURE);
  }
}
#define SAMPLE_CHECK(call) sample_check((call), #call, __FILE__, __LINE__)
#endif

#if defined(__CUDA_RUNTIME_H__) && defined(__CUDA_RUNTIME_API_H__) && CUDART_VERSION >= 11000
// The usable device with the most SMs x clock.
inline int sample_find_device() {
  int count = 0, best = -1;
  long long best_score = -1;
  SAMPLE_CHECK(cudaGetDeviceCount(&count));
  for (int dev = 0; dev < count; ++dev) {
    int mode = -1, sms = 0, clock = 0;
    SAMPLE_CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev));
    SAMPLE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    SAMPLE_CHECK(cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, dev));
    if (mode == cudaComputeModeProhibited) continue;
    if (static_cast<long long>(sms) * clock > best_score) {
      best = dev;
      best_score = static_cast<long long>(sms) * clock;
    }
  }
  if (best < 0) exit(EXIT_FAILURE);
  SAMPLE_CHECK(cudaSetDevice(best));
  return best;
}
#endif
