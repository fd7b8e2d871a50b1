// Kernel launches, kernel attributes and occupancy (guide 3.2.1, B.15, B.20),
// and the registration calls of clang's generated host code.  A launch is
// planned on the calling thread (runtime::plan_launch: the one check of its
// configuration and arguments, whose errors become CUDA's) and started on the
// device's worker.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api_common.hpp"
#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "managed_memory.hpp"

using namespace kestrel::cudart;

namespace {

const KernelFunction& kernel_of(const void* func) {
  require(func != nullptr, cudaErrorInvalidDeviceFunction);
  const KernelFunction* function = Runtime::get().registry().function(func);
  require(function != nullptr, cudaErrorInvalidDeviceFunction);
  require(function->binary->error.empty(), cudaErrorInvalidKernelImage);
  require(function->info != nullptr, cudaErrorInvalidDeviceFunction);
  return *function;
}

uint64_t static_shared_bytes(const KernelFunction& function) {
  return function.binary->image->static_shared_bytes();
}

// Resident blocks of `block_threads` threads on one SM: the model places a
// block where its warps and its shared memory fit (docs/isa.md section 6).
int blocks_per_sm(const kestrel_device_props& p, int block_threads, uint64_t shared_bytes) {
  if (block_threads <= 0 || static_cast<uint32_t>(block_threads) > p.max_threads_per_block) return 0;
  if (shared_bytes > p.shared_mem_per_block) return 0;
  const uint32_t warps = (static_cast<uint32_t>(block_threads) + p.warp_size - 1) / p.warp_size;
  uint64_t blocks = p.warps_per_sm / warps;
  if (shared_bytes > 0) blocks = std::min<uint64_t>(blocks, p.shared_mem_per_block / shared_bytes);
  return static_cast<int>(blocks);
}

// What cudaFuncSetAttribute set for a kernel (by its host stub), for every
// device: the most dynamic shared memory its launches may ask for (-1: what
// the SM has) and the carve-out preference, which only cudaFuncGetAttributes
// reports back.
struct FunctionSettings {
  int max_dynamic_shared = -1;
  int carveout = cudaSharedmemCarveoutDefault;
};
std::mutex g_settings_mutex;
std::map<const void*, FunctionSettings>& function_settings() {
  static std::map<const void*, FunctionSettings> settings;
  return settings;
}
FunctionSettings settings_of(const void* func) {
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  const auto it = function_settings().find(func);
  return it == function_settings().end() ? FunctionSettings{} : it->second;
}

// The words of the module's grid barrier (KESTREL_GRID_SYNC_SYMBOL,
// cooperative_groups.h), 0 when its code never calls grid_group::sync().
uint64_t grid_sync_slot(const kestrel::runtime::LoadedModule& module) {
  for (const kestrel::runtime::GlobalSymbol& global : module.image.globals) {
    if (global.name != KESTREL_GRID_SYNC_SYMBOL) continue;
    require(global.bytes == KESTREL_GRID_SYNC_WORDS * sizeof(uint32_t), cudaErrorInvalidKernelImage);
    return global.address;
  }
  return 0;
}

void start_kernel(DeviceState& device, const KernelFunction& kernel, const kestrel::runtime::LaunchPlan& plan,
                  bool cooperative);

// cudaLaunchKernel and cudaLaunchCooperativeKernel (guide 3.2.1, B.19; the
// Cooperative Groups appendix of later guides for the cooperative form).
void launch_kernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                   cudaStream_t stream, bool cooperative) {
  const KernelFunction& function = kernel_of(func);
  const Target target = resolve(stream);
  // More dynamic shared memory than cudaFuncSetAttribute allowed the kernel.
  const int max_dynamic = settings_of(func).max_dynamic_shared;
  require(max_dynamic < 0 || sharedMem <= static_cast<size_t>(max_dynamic), cudaErrorInvalidValue);
  // The one check of the launch; it also copies the arguments, which live
  // in the caller's frame only until this call returns.
  std::shared_ptr<const kestrel::runtime::LaunchPlan> plan;
  try {
    plan = std::make_shared<const kestrel::runtime::LaunchPlan>(
        kestrel::runtime::plan_launch(target.device->props(), *function.binary->image, *function.info,
                                      kestrel_dim3{gridDim.x, gridDim.y, gridDim.z},
                                      kestrel_dim3{blockDim.x, blockDim.y, blockDim.z}, sharedMem, args));
  } catch (const kestrel::Error& error) {
    // Programs seldom check a launch's error, and a configuration CUDA
    // GPUs take (a 512-thread block) can exceed a small Kestrel device:
    // say why on stderr, as for a wrong pointer.
    if (error.status() != KESTREL_ERROR_INVALID_CONFIG) throw;
    reject(cudaErrorInvalidConfiguration,
           std::string(cooperative ? "cudaLaunchCooperativeKernel: " : "cudaLaunchKernel: ") + error.what() +
               " (device " + std::to_string(target.device->ordinal()) + ": " + target.device->props().name +
               ")");
  }
  if (cooperative) {
    // A grid barrier needs every block resident at once: no more blocks
    // than the device holds together (the occupancy of B.20 on every SM).
    const kestrel_device_props& p = target.device->props();
    const uint64_t block_threads = uint64_t{blockDim.x} * blockDim.y * blockDim.z;
    const uint64_t resident = uint64_t(blocks_per_sm(p, static_cast<int>(block_threads),
                                                     static_shared_bytes(function) + sharedMem)) *
                              p.num_sms;
    require(uint64_t{gridDim.x} * gridDim.y * gridDim.z <= resident, cudaErrorCooperativeLaunchTooLarge);
  }
  // The launch starts the kernel; the worker runs it in slices, other
  // streams' copies between them, and finishes it when it ends.
  Operation launch;
  launch.stream = target.stream;
  const KernelFunction* kernel = &function;
  // The profiler window as it is when the launch is issued (the worker may
  // start it after a later cudaProfilerStop), for the statistics.
  const bool in_window = target.device->profiling();
  launch.run = [kernel, plan, cooperative, in_window](DeviceState& device) {
    device.context().set_profiler_window(in_window);
    // The device owns managed memory while the kernel may run (guide J.2.2.1).
    try {
      ManagedMemory::get().launch_started(device);
      start_kernel(device, *kernel, *plan, cooperative);
    } catch (...) {
      ManagedMemory::get().launch_ended(device);
      throw;
    }
  };
  launch.finish = [](DeviceState& device) {
    // The launch has ended: managed memory goes back to the host first, so
    // that a fault reported below leaves it readable.
    ManagedMemory::get().launch_ended(device);
    device.context().synchronize();
    device.add_cycles(device.context().last_launch().counters[KESTREL_CNT_CYCLES]);
  };
  // A launch the device's sticky error skips never starts nor ends.
  launch.skipped = [](DeviceState& device) { ManagedMemory::get().launch_ended(device); };
  ManagedMemory::get().launch_queued(target.device);
  target.device->submit(std::move(launch));
}

// Starts `kernel` on the worker: resets the module's grid barrier, launches.
void start_kernel(DeviceState& device, const KernelFunction& kernel, const kestrel::runtime::LaunchPlan& plan,
                  bool cooperative) {
  const kestrel::runtime::LoadedModule& module = device.module_for(kernel.binary);
  // No launch is in flight when a launch runs, so the barrier is free to reset.
  if (const uint64_t slot = grid_sync_slot(module); slot != 0) {
    const uint32_t words[KESTREL_GRID_SYNC_WORDS] = {cooperative ? 1u : 0u, 0u, 0u, 0u};
    device.context().copy_to_device(module.base + slot, words, sizeof words);
  }
  device.context().launch(module, *kernel.info, plan);
}

struct LaunchConfiguration {
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
};
thread_local std::vector<LaunchConfiguration> t_configurations;

}  // namespace

extern "C" {

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, void* stream) {
  // Non-zero skips the launch (clang's <<<>>> lowering): a callback may not
  // launch, and nothing is left pushed on the worker thread.
  if (on_device_worker()) return static_cast<unsigned>(refuse_call_from_callback());
  t_configurations.push_back(
      LaunchConfiguration{gridDim, blockDim, sharedMem, static_cast<cudaStream_t>(stream)});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream) {
  return api([&] {
    require(!t_configurations.empty(), cudaErrorMissingConfiguration);
    const LaunchConfiguration configuration = t_configurations.back();
    t_configurations.pop_back();
    if (gridDim != nullptr) *gridDim = configuration.grid;
    if (blockDim != nullptr) *blockDim = configuration.block;
    if (sharedMem != nullptr) *sharedMem = configuration.shared;
    if (stream != nullptr) *static_cast<cudaStream_t*>(stream) = configuration.stream;
  });
}

cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                             cudaStream_t stream) {
  return api([&] { launch_kernel(func, gridDim, blockDim, args, sharedMem, stream, false); });
}

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                        size_t sharedMem, cudaStream_t stream) {
  return api([&] { launch_kernel(func, gridDim, blockDim, args, sharedMem, stream, true); });
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func) {
  return api([&] {
    require(attr != nullptr, cudaErrorInvalidValue);
    const KernelFunction& function = kernel_of(func);
    DeviceState& device = current_device();
    size_t stack = 0;
    cudaDeviceGetLimit(&stack, cudaLimitStackSize);
    std::memset(attr, 0, sizeof *attr);
    const kestrel_device_props& p = device.props();
    attr->sharedSizeBytes = static_shared_bytes(function);
    attr->localSizeBytes = stack;
    attr->maxThreadsPerBlock = static_cast<int>(p.max_threads_per_block);
    attr->numRegs = kRegistersPerThread;
    attr->ptxVersion = 70;
    attr->binaryVersion = 70;
    const FunctionSettings settings = settings_of(func);
    attr->maxDynamicSharedSizeBytes = settings.max_dynamic_shared >= 0
                                          ? settings.max_dynamic_shared
                                          : static_cast<int>(p.shared_mem_per_block - attr->sharedSizeBytes);
    attr->preferredShmemCarveout = settings.carveout;
  });
}

cudaError_t cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value) {
  return api([&] {
    const KernelFunction& function = kernel_of(func);
    switch (attr) {
      case cudaFuncAttributeMaxDynamicSharedMemorySize: {
        const kestrel_device_props& p = current_device().props();
        const uint64_t room = p.shared_mem_per_block - static_shared_bytes(function);
        require(value >= 0 && static_cast<uint64_t>(value) <= room, cudaErrorInvalidValue);
        std::lock_guard<std::mutex> lock(g_settings_mutex);
        function_settings()[func].max_dynamic_shared = value;
        return;
      }
      case cudaFuncAttributePreferredSharedMemoryCarveout: {
        require(value >= cudaSharedmemCarveoutDefault && value <= cudaSharedmemCarveoutMaxShared,
                cudaErrorInvalidValue);
        std::lock_guard<std::mutex> lock(g_settings_mutex);
        function_settings()[func].carveout = value;
        return;
      }
      case cudaFuncAttributeClusterDimMustBeSet:
      case cudaFuncAttributeRequiredClusterWidth:
      case cudaFuncAttributeRequiredClusterHeight:
      case cudaFuncAttributeRequiredClusterDepth:
      case cudaFuncAttributeNonPortableClusterSizeAllowed:
      case cudaFuncAttributeClusterSchedulingPolicyPreference:
        reject(cudaErrorNotSupported,
               "cudaFuncSetAttribute: thread block clusters need compute capability 9.0; Kestrel devices are "
               "7.0 "
               "(cudaDevAttrClusterLaunch is 0)");
      default:
        throw CudaError(cudaErrorInvalidValue);
    }
  });
}

cudaError_t cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache cacheConfig) {
  return api([&] {
    kernel_of(func);
    require(cacheConfig >= cudaFuncCachePreferNone && cacheConfig <= cudaFuncCachePreferEqual,
            cudaErrorInvalidValue);
  });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize) {
  return api([&] {
    require(numBlocks != nullptr && blockSize > 0, cudaErrorInvalidValue);
    const KernelFunction& function = kernel_of(func);
    DeviceState& device = current_device();
    *numBlocks = blocks_per_sm(device.props(), blockSize, static_shared_bytes(function) + dynamicSMemSize);
  });
}

cudaError_t cudaOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, const void* func,
                                               size_t dynamicSMemSize, int blockSizeLimit) {
  return api([&] {
    require(minGridSize != nullptr && blockSize != nullptr && blockSizeLimit >= 0, cudaErrorInvalidValue);
    const KernelFunction& function = kernel_of(func);
    DeviceState& device = current_device();
    const kestrel_device_props& p = device.props();
    int limit = static_cast<int>(p.max_threads_per_block);
    if (blockSizeLimit > 0) limit = std::min(limit, blockSizeLimit);
    const uint64_t shared = static_shared_bytes(function) + dynamicSMemSize;
    int best_size = 0, best_blocks = 0, best_threads = 0;
    // Largest block first: on a tie in resident threads the larger block wins, as in CUDA.
    // Candidates: the limit itself, then every whole number of warps below it.
    const int warp = static_cast<int>(p.warp_size);
    for (int size = limit; size > 0; size = size % warp != 0 ? size - size % warp : size - warp) {
      const int blocks = blocks_per_sm(p, size, shared);
      if (blocks * size > best_threads) {
        best_threads = blocks * size;
        best_blocks = blocks;
        best_size = size;
      }
    }
    *blockSize = best_size;
    *minGridSize = best_blocks * static_cast<int>(p.num_sms);
  });
}

// ---- Registration (called by clang's generated host code) ------------------------------------------

void** __cudaRegisterFatBinary(void* fatCubin) {
  return reinterpret_cast<void**>(Runtime::get().registry().add_binary(fatCubin));
}

void __cudaRegisterFatBinaryEnd(void** fatCubinHandle) { (void)fatCubinHandle; }

void __cudaUnregisterFatBinary(void** fatCubinHandle) {
  // Modules stay loaded until their devices close when the process ends;
  // clang calls this from an atexit handler, after which nothing launches.
  (void)fatCubinHandle;
}

int __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                           const char* deviceName, int thread_limit, uint3* tid, uint3* bid, dim3* bDim,
                           dim3* gDim, int* wSize) {
  (void)deviceName, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
  Runtime::get().registry().add_function(reinterpret_cast<FatBinary*>(fatCubinHandle), hostFun, deviceFun);
  return 0;
}

void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress, const char* deviceName,
                       int ext, size_t size, int constant, int global) {
  (void)deviceName, (void)ext, (void)global;
  Runtime::get().registry().add_variable(reinterpret_cast<FatBinary*>(fatCubinHandle), hostVar, deviceAddress,
                                         size, constant != 0);
}

// clang passes the device name twice (as deviceAddress and deviceName), the
// reference's Type and whether its ReadMode is cudaReadModeNormalizedFloat.
void __cudaRegisterTexture(void** fatCubinHandle, const struct textureReference* hostVar,
                           const void** deviceAddress, const char* deviceName, int dim, int norm, int ext) {
  (void)deviceAddress, (void)ext;
  Runtime::get().registry().add_texture(reinterpret_cast<FatBinary*>(fatCubinHandle), hostVar, deviceName,
                                        dim, norm != 0);
}

// As __cudaRegisterTexture, without a read mode: the surface<T, Type>'s Type.
void __cudaRegisterSurface(void** fatCubinHandle, const struct surfaceReference* hostVar,
                           const void** deviceAddress, const char* deviceName, int dim, int ext) {
  (void)deviceAddress, (void)ext;
  Runtime::get().registry().add_surface(reinterpret_cast<FatBinary*>(fatCubinHandle), hostVar, deviceName,
                                        dim);
}

}  // extern "C"
