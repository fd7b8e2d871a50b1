// The CUDA layer's errors: the one mapping of runtime errors and thrown
// exceptions to cudaError_t (cuda_error.hpp), the thread's last error, and
// cudaGetErrorName / cudaGetErrorString (guide 3.2.9).
#include <cstdio>
#include <new>

#include "cuda_error.hpp"
#include "cudart_state.hpp"
#include "kestrel/error.hpp"

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
    KESTREL_ERROR_TEXT(cudaErrorInvalidTextureBinding, "texture is not bound to a pointer"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidChannelDescriptor, "invalid channel descriptor"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    KESTREL_ERROR_TEXT(cudaErrorSynchronizationError, "incorrect use of __syncthreads()"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidFilterSetting, "linear filtering not supported for non-float type"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidNormSetting,
                       "read as normalized float not supported for 32-bit non float type"),
    KESTREL_ERROR_TEXT(cudaErrorNotYetImplemented, "feature not yet implemented"),
    KESTREL_ERROR_TEXT(cudaErrorInsufficientDriver,
                       "CUDA driver version is insufficient for CUDA runtime version"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidSurface, "invalid surface reference"),
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
    KESTREL_ERROR_TEXT(cudaErrorPeerAccessUnsupported,
                       "peer access is not supported between these two devices"),
    KESTREL_ERROR_TEXT(cudaErrorFileNotFound, "file not found"),
    KESTREL_ERROR_TEXT(cudaErrorOperatingSystem, "OS call failed or operation not supported on this OS"),
    KESTREL_ERROR_TEXT(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    KESTREL_ERROR_TEXT(cudaErrorIllegalState, "the operation cannot be performed in the present state"),
    KESTREL_ERROR_TEXT(cudaErrorSymbolNotFound, "named symbol not found"),
    KESTREL_ERROR_TEXT(cudaErrorNotReady, "device not ready"),
    KESTREL_ERROR_TEXT(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    KESTREL_ERROR_TEXT(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
    KESTREL_ERROR_TEXT(cudaErrorLaunchTimeout, "the launch timed out and was terminated"),
    KESTREL_ERROR_TEXT(cudaErrorPeerAccessAlreadyEnabled,
                       "peer access is already enabled to the context currently in use"),
    KESTREL_ERROR_TEXT(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
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
    KESTREL_ERROR_TEXT(cudaErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch"),
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

namespace kestrel::cudart {

// ---- Error mapping (docs/isa.md section 7) --------------------------------------

cudaError_t cuda_error_from_status(kestrel_status status) {
  switch (status) {
    case KESTREL_SUCCESS:
      return cudaSuccess;
    case KESTREL_ERROR_INVALID_VALUE:
      return cudaErrorInvalidValue;
    case KESTREL_ERROR_OUT_OF_MEMORY:
      return cudaErrorMemoryAllocation;
    case KESTREL_ERROR_INVALID_HANDLE:
      return cudaErrorInvalidResourceHandle;
    case KESTREL_ERROR_INVALID_MODULE:
      return cudaErrorInvalidKernelImage;
    case KESTREL_ERROR_NOT_FOUND:
      return cudaErrorInvalidDeviceFunction;
    case KESTREL_ERROR_INVALID_CONFIG:
      return cudaErrorInvalidConfiguration;
    case KESTREL_ERROR_LAUNCH_FAULT:
      return cudaErrorLaunchFailure;
    case KESTREL_ERROR_NO_DEVICE:
      return cudaErrorNoDevice;
    case KESTREL_ERROR_IO:
      return cudaErrorOperatingSystem;
    case KESTREL_ERROR_NOT_SUPPORTED:
      return cudaErrorNotSupported;
    case KESTREL_ERROR_TIMEOUT:
      return cudaErrorLaunchTimeout;
  }
  return cudaErrorUnknown;
}

cudaError_t cuda_error_from_fault(int32_t kind) {
  switch (kind) {
    case KESTREL_FAULT_ILLEGAL_INSTRUCTION:
      return cudaErrorIllegalInstruction;
    case KESTREL_FAULT_MISALIGNED:
      return cudaErrorMisalignedAddress;
    case KESTREL_FAULT_ILLEGAL_ADDRESS:
    case KESTREL_FAULT_SHARED_BOUNDS:
    case KESTREL_FAULT_LOCAL_BOUNDS:
    case KESTREL_FAULT_WRITE_PROTECT:
      return cudaErrorIllegalAddress;
    case KESTREL_FAULT_FETCH:
      return cudaErrorInvalidPc;
    case KESTREL_FAULT_ASSERT:
      return cudaErrorAssert;
    case KESTREL_FAULT_TIMEOUT:
      return cudaErrorLaunchTimeout;
    case KESTREL_FAULT_TEXTURE:
      // kx.tex on an object the texture unit does not fetch or with a form
      // other than its shape (tex2D of a 3D object).  An NVIDIA GPU raises
      // nothing there: the guide leaves such fetches undefined (3.2.11.1.2,
      // a format that does not match the reference's), and the 7xx launch
      // errors all name something else (an address, an instruction, a PC).
      // The code that names the cause is the runtime API's "not a valid
      // texture", cudaErrorInvalidTexture; like every Kestrel launch fault
      // it is the device's sticky error until cudaDeviceReset.
      return cudaErrorInvalidTexture;
    case KESTREL_FAULT_BARRIER_DEADLOCK:
    case KESTREL_FAULT_TRAP:
    default:
      return cudaErrorLaunchFailure;
  }
}

// ---- Exceptions to CUDA errors ----------------------------------------------------

cudaError_t current_cuda_error(DeviceState* device) {
  try {
    throw;
  } catch (const CudaError& error) {
    return error.error();
  } catch (const Error& error) {
    const kestrel_status status = error.status();
    if (device != nullptr && (status == KESTREL_ERROR_LAUNCH_FAULT || status == KESTREL_ERROR_TIMEOUT))
      return device->fault(status);
    return cuda_error_from_status(status);
  } catch (const std::bad_alloc&) {
    return cudaErrorMemoryAllocation;
  } catch (...) {
    // A backend's own exception, as the C API reports it (KESTREL_ERROR_IO).
    return cudaErrorOperatingSystem;
  }
}

cudaError_t& last_error() {
  thread_local cudaError_t error = cudaSuccess;
  return error;
}

bool& on_device_worker() {
  thread_local bool worker = false;
  return worker;
}

cudaError_t refuse_call_from_callback() {
  std::fprintf(stderr,
               "kestrel: a stream callback or host function called the CUDA runtime, which CUDA does not "
               "permit (guide 3.2.5.5.6); the call returns cudaErrorNotPermitted\n");
  last_error() = cudaErrorNotPermitted;
  return cudaErrorNotPermitted;
}

}  // namespace kestrel::cudart

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
