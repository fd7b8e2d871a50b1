// Managed memory (guide J.2): cudaMallocManaged, cudaMemPrefetchAsync and
// cudaMemAdvise, and the ownership rules of managed_memory.hpp.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "api_common.hpp"
#include "managed_memory.hpp"

namespace kestrel::cudart {

ManagedMemory& ManagedMemory::get() {
  static ManagedMemory instance;
  return instance;
}

void ManagedMemory::add(DeviceState* device, uint64_t base, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t size = bytes;
  bytes = (bytes + page - 1) / page * page;
  std::lock_guard<std::mutex> lock(mutex_);
  // The device handed out this range, so whatever an earlier allocation
  // there left mapped is gone (cudaFree and reset unmap their regions).
  Region region{device, size, bytes, MAP_FAILED, MAP_FAILED, -1, false};
  auto fail = [&](const std::string& why) {
    unmap(region);
    reject(cudaErrorMemoryAllocation, "cudaMallocManaged: " + why);
  };
  region.fd = memfd_create("kestrel-managed", MFD_CLOEXEC);
  if (region.fd < 0) fail(std::string("memfd_create failed: ") + std::strerror(errno));
  if (ftruncate(region.fd, static_cast<off_t>(bytes)) != 0)
    fail(std::string("no host memory for ") + std::to_string(bytes) + " bytes: " + std::strerror(errno));
  region.runtime = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, region.fd, 0);
  if (region.runtime == MAP_FAILED) fail(std::string("mmap failed: ") + std::strerror(errno));
  void* const wanted = pointer_to(base);
  region.user = mmap(wanted, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, region.fd, 0);
  if (region.user != wanted) {
    if (region.user != MAP_FAILED) munmap(region.user, bytes);  // a kernel that took the address as a hint
    region.user = MAP_FAILED;
    fail(
        "the host addresses " + hex_address(wanted) + " + " + std::to_string(bytes) +
        " bytes, where the device placed the allocation, are in use by the process; managed memory needs the "
        "same address on both sides");
  }
  // The host owns a new allocation; while a launch is queued its view is closed.
  const auto owner = owners_.find(device);
  if (owner != owners_.end() && owner->second.queued > 0) mprotect(region.user, bytes, PROT_NONE);
  regions_[base] = region;
}

void ManagedMemory::add_variable(DeviceState& device, uint64_t base, size_t bytes, void* shadow) {
  std::lock_guard<std::mutex> lock(mutex_);
  regions_[base] = Region{&device, bytes, bytes, MAP_FAILED, shadow, -1, true};
  const auto owner = owners_.find(&device);
  if (owner != owners_.end() && owner->second.device_owns)
    device.context().copy_to_device(base, shadow, bytes);
}

void ManagedMemory::unmap(Region& region) {
  if (region.variable) return;  // the program's own variable
  if (region.user != MAP_FAILED) munmap(region.user, region.bytes);
  if (region.runtime != MAP_FAILED) munmap(region.runtime, region.bytes);
  if (region.fd >= 0) close(region.fd);
  region.user = region.runtime = MAP_FAILED;
  region.fd = -1;
}

bool ManagedMemory::remove(uint64_t base) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = regions_.find(base);
  if (it == regions_.end() || it->second.variable) return false;
  unmap(it->second);
  regions_.erase(it);
  return true;
}

void ManagedMemory::forget(const DeviceState* device) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = regions_.begin(); it != regions_.end();) {
    if (it->second.device == device) {
      unmap(it->second);
      it = regions_.erase(it);
    } else {
      ++it;
    }
  }
  owners_.erase(device);
}

bool ManagedMemory::holds(const DeviceState* device, uint64_t address, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = regions_.upper_bound(address);
  if (it == regions_.begin()) return false;
  --it;
  return it->second.device == device && address - it->first < it->second.size &&
         bytes <= it->second.size - (address - it->first);
}

void ManagedMemory::protect_locked(const DeviceState* device, int protection) {
  for (auto& [base, region] : regions_)
    if (region.device == device && !region.variable) mprotect(region.user, region.bytes, protection);
}

void ManagedMemory::launch_queued(const DeviceState* device) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (owners_[device].queued++ == 0) protect_locked(device, PROT_NONE);
}

void ManagedMemory::launch_started(DeviceState& device) {
  std::lock_guard<std::mutex> lock(mutex_);
  Ownership& owner = owners_[&device];
  if (owner.device_owns) return;
  for (auto& [base, region] : regions_)
    if (region.device == &device) device.context().copy_to_device(base, region.runtime, region.size);
  owner.device_owns = true;
}

void ManagedMemory::launch_ended(DeviceState& device) {
  std::lock_guard<std::mutex> lock(mutex_);
  Ownership& owner = owners_[&device];
  if (owner.queued > 0) --owner.queued;
  if (owner.device_owns) {
    owner.device_owns = false;
    for (auto& [base, region] : regions_)
      if (region.device == &device) device.context().copy_to_host(region.runtime, base, region.size);
  }
  if (owner.queued == 0) protect_locked(&device, PROT_READ | PROT_WRITE);
}

void* ManagedMemory::host_copy(const DeviceState& device, uint64_t address) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = regions_.upper_bound(address);
  if (it == regions_.begin()) return nullptr;
  --it;
  const Region& region = it->second;
  if (region.device != &device || address - it->first >= region.size) return nullptr;
  const auto owner = owners_.find(&device);
  if (owner != owners_.end() && owner->second.device_owns) return nullptr;
  return static_cast<char*>(region.runtime) + (address - it->first);
}

}  // namespace kestrel::cudart

using namespace kestrel::cudart;

namespace {

// The managed allocation of the current device holding [pointer, pointer + count).
DeviceState& managed_range(const char* api, const void* pointer, size_t count) {
  DeviceState& device = current_device();
  require(pointer != nullptr && count > 0, cudaErrorInvalidValue);
  if (!ManagedMemory::get().holds(&device, address_of(pointer), count))
    reject(cudaErrorInvalidValue, std::string(api) + ": " + hex_address(pointer) + " + " +
                                      std::to_string(count) +
                                      " bytes is not inside one managed allocation of device " +
                                      std::to_string(device.ordinal()) + " (cudaMallocManaged)");
  return device;
}

}  // namespace

extern "C" {

cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  return api([&] {
    require(devPtr != nullptr && size > 0, cudaErrorInvalidValue);
    *devPtr = nullptr;
    if (flags == cudaMemAttachHost)
      reject(cudaErrorNotSupported,
             "cudaMallocManaged: cudaMemAttachHost is not supported (no cudaStreamAttachMemAsync); use "
             "cudaMemAttachGlobal");
    require(flags == cudaMemAttachGlobal, cudaErrorInvalidValue);
    DeviceState& device = current_device();
    kestrel_devptr_t address = 0;
    check(device.run_sync([&](DeviceState& d) { address = d.context().allocate(size); }));
    try {
      ManagedMemory::get().add(&device, address, size);
    } catch (...) {
      device.run_sync([address](DeviceState& d) { d.context().release(address); });
      throw;
    }
    {
      std::lock_guard<std::mutex> lock(device.mutex());
      device.allocations[address] = DeviceState::Allocation{size};
    }
    *devPtr = pointer_to(address);
  });
}

cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, int dstDevice, cudaStream_t stream) {
  return api([&] {
    managed_range("cudaMemPrefetchAsync", devPtr, count);
    require(dstDevice == cudaCpuDeviceId || (dstDevice >= 0 && dstDevice < Runtime::get().device_count()),
            cudaErrorInvalidDevice);
    resolve(stream);  // a bad stream is an error even for a hint
    // A hint: the data moves at launches and synchronizations anyway.
  });
}

cudaError_t cudaMemAdvise(const void* devPtr, size_t count, enum cudaMemoryAdvise advice, int device) {
  return api([&] {
    managed_range("cudaMemAdvise", devPtr, count);
    require(advice >= cudaMemAdviseSetReadMostly && advice <= cudaMemAdviseUnsetAccessedBy,
            cudaErrorInvalidValue);
    const bool needs_device = advice != cudaMemAdviseSetReadMostly && advice != cudaMemAdviseUnsetReadMostly;
    if (needs_device)
      require(device == cudaCpuDeviceId || (device >= 0 && device < Runtime::get().device_count()),
              cudaErrorInvalidDevice);
    // Accepted: placement hints change nothing in how the data moves here.
  });
}

}  // extern "C"
