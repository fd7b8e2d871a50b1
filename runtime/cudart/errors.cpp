// cudaGetErrorName / cudaGetErrorString (guide 3.2.9).
#include "cuda_runtime_api.h"

namespace {

struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};

#define KESTREL_ERROR_TEXT(code, text) \
  { code, #code, text }
constexpr ErrorText kErrors[] = {
    KESTREL_ERROR_TEXT(cudaSuccess, "no error"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidValue, "invalid argument"),
    KESTREL_ERROR_TEXT(cudaErrorMemoryAllocation, "out of memory"),
    KESTREL_ERROR_TEXT(cudaErrorInitializationError, "initialization error"),
    KESTREL_ERROR_TEXT(cudaErrorCudartUnloading, "driver shutting down"),
    KESTREL_ERROR_TEXT(cudaErrorProfilerDisabled, "profiler disabled while using external profiling tool"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidPitchValue, "invalid pitch argument"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidSymbol, "invalid device symbol"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidHostPointer, "invalid host pointer"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidTexture, "invalid texture reference"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    KESTREL_ERROR_TEXT(cudaErrorSynchronizationError, "incorrect use of __syncthreads()"),
    KESTREL_ERROR_TEXT(cudaErrorNotYetImplemented, "feature not yet implemented"),
    KESTREL_ERROR_TEXT(cudaErrorInsufficientDriver,
                       "CUDA driver version is insufficient for CUDA runtime version"),
    KESTREL_ERROR_TEXT(cudaErrorMissingConfiguration, "__global__ function call is not configured"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidDeviceFunction, "invalid device function"),
    KESTREL_ERROR_TEXT(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidDevice, "invalid device ordinal"),
    KESTREL_ERROR_TEXT(cudaErrorStartupFailure, "device kernel image is invalid"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidKernelImage, "device kernel image is invalid"),
    KESTREL_ERROR_TEXT(cudaErrorDeviceUninitialized, "invalid device context"),
    KESTREL_ERROR_TEXT(cudaErrorNoKernelImageForDevice,
                       "no kernel image is available for execution on the device"),
    KESTREL_ERROR_TEXT(cudaErrorUnsupportedLimit, "limit is not supported on this architecture"),
    KESTREL_ERROR_TEXT(cudaErrorFileNotFound, "file not found"),
    KESTREL_ERROR_TEXT(cudaErrorOperatingSystem, "OS call failed or operation not supported on this OS"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    KESTREL_ERROR_TEXT(cudaErrorIllegalState, "the operation cannot be performed in the present state"),
    KESTREL_ERROR_TEXT(cudaErrorSymbolNotFound, "named symbol not found"),
    KESTREL_ERROR_TEXT(cudaErrorNotReady, "device not ready"),
    KESTREL_ERROR_TEXT(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    KESTREL_ERROR_TEXT(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
    KESTREL_ERROR_TEXT(cudaErrorLaunchTimeout, "the launch timed out and was terminated"),
    KESTREL_ERROR_TEXT(cudaErrorAssert, "device-side assert triggered"),
    KESTREL_ERROR_TEXT(cudaErrorHostMemoryAlreadyRegistered,
                       "part or all of the requested memory range is already mapped"),
    KESTREL_ERROR_TEXT(cudaErrorHostMemoryNotRegistered,
                       "pointer does not correspond to a registered memory region"),
    KESTREL_ERROR_TEXT(cudaErrorIllegalInstruction, "an illegal instruction was encountered"),
    KESTREL_ERROR_TEXT(cudaErrorMisalignedAddress, "misaligned address"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidAddressSpace,
                       "operation not supported on global/shared address space"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidPc, "invalid program counter"),
    KESTREL_ERROR_TEXT(cudaErrorLaunchFailure, "unspecified launch failure"),
    KESTREL_ERROR_TEXT(cudaErrorNotPermitted, "operation not permitted"),
    KESTREL_ERROR_TEXT(cudaErrorNotSupported, "operation not supported"),
    KESTREL_ERROR_TEXT(cudaErrorUnknown, "unknown error"),
};
#undef KESTREL_ERROR_TEXT

const ErrorText* find(cudaError_t error) {
  for (const ErrorText& entry : kErrors)
    if (entry.code == error) return &entry;
  return nullptr;
}

}  // namespace

extern "C" {

const char* cudaGetErrorName(cudaError_t error) {
  const ErrorText* entry = find(error);
  return entry != nullptr ? entry->name : "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  const ErrorText* entry = find(error);
  return entry != nullptr ? entry->text : "unrecognized error code";
}

}  // extern "C"
