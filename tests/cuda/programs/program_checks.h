// The checks the reference-API test programs share (texture_reference.cu,
// texture_reference_mipmap.cu, surface_reference.cu): a CUDA call that must
// succeed, a condition counted when it fails, and an error case that must
// return one CUDA error.  Each program includes this once and ends by
// reporting g_failures.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      printf("error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

static int g_failures = 0;

// A check of a condition the case depends on; a failure is counted and shown.
static void expect(bool ok, const char* what) {
  if (!ok) {
    printf("FAILED: %s\n", what);
    ++g_failures;
  }
}

// An error case: prints the error `got`, counts it unless it is `wanted`, and
// clears it so that the next call starts clean.
static void expect_error(cudaError_t got, cudaError_t wanted, const char* what) {
  printf("error case %s: %s\n", what, cudaGetErrorName(got));
  if (got != wanted) {
    printf("FAILED: %s: expected %s\n", what, cudaGetErrorName(wanted));
    ++g_failures;
  }
  cudaGetLastError();
}
