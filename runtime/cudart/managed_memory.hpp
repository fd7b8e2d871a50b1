// Managed memory (cudaMallocManaged, guide J.2) with the rules of devices
// before compute capability 6.x (J.2.2.1): the GPU has exclusive access to
// every managed allocation of a device while a kernel of that device may
// run, the host between a synchronization and the next launch.
//
// An allocation is device memory (a cudaMalloc region, so kernels and the
// device-pointer checks see it as such) plus host memory at the same
// address: a memfd mapped twice, once at the device address for the program
// (the *user view*) and once anywhere for the runtime (the *runtime view*,
// never protected).  Which copy holds the data is the device's *owner*:
//   * the host, from the allocation until a launch starts and again from
//     the end of each launch: copies and fills touch the runtime view;
//   * the device, from a launch's start (the runtime view is copied to the
//     device then) to its end (copied back): copies touch device memory.
// Launches, their ends and every copy run on the device's worker, in order,
// so the owner changes only between them.  From the launch call until the
// last launch queued has ended the user view is PROT_NONE, so a host access
// in between faults (SIGSEGV) as it does on those devices.
// A __managed__ variable is a region too, whose runtime view is the
// program's host shadow of the variable and which has no user view: the
// program reads and writes the shadow itself, unprotected.
// docs/cuda-runtime.md, "Managed memory".
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace kestrel::cudart {

class DeviceState;

class ManagedMemory {
 public:
  static ManagedMemory& get();

  // Maps the host views of the device allocation [base, base + bytes) of
  // `device` (page aligned, zero filled); throws CudaError
  // (cudaErrorMemoryAllocation, with a message) when the host address range
  // is taken.
  void add(DeviceState* device, uint64_t base, size_t bytes);
  // Worker, as a module is placed on `device`: its __managed__ variable at
  // device address [base, base + bytes) has the host copy `shadow` (the
  // program's own variable, never unmapped nor protected).  The host copy
  // holds the data; if the device owns managed memory now, it is copied over.
  void add_variable(DeviceState& device, uint64_t base, size_t bytes, void* shadow);
  // cudaFree of a managed allocation; false if `base` is none.
  bool remove(uint64_t base);
  // cudaDeviceReset: every allocation of `device` is gone.
  void forget(const DeviceState* device);
  // The managed allocation of `device` holding [address, address + bytes).
  bool holds(const DeviceState* device, uint64_t address, size_t bytes);

  // Host thread, at a launch call on `device`: the device may own the
  // memory from now on, so the user views become inaccessible.
  void launch_queued(const DeviceState* device);
  // Worker, as a launch starts: the device takes ownership (copying the
  // runtime views to it if the host owned them).
  void launch_started(DeviceState& device);
  // Worker, when a launch has ended (fault or not) or was never started:
  // the host takes ownership (copying device memory back if the device
  // owned it); the user views open again when no launch is left queued.
  void launch_ended(DeviceState& device);

  // Worker, for a copy or fill: the host memory standing for device address
  // `address` of a managed allocation while the host owns it, else nullptr
  // (not managed, or the device owns it: use device memory).
  void* host_copy(const DeviceState& device, uint64_t address);

 private:
  struct Region {
    DeviceState* device;
    size_t size;    // as allocated: what the device region holds
    size_t bytes;   // whole pages: what is mapped
    void* user;     // at the device address
    void* runtime;  // the runtime's own view (a variable's host shadow)
    int fd;
    bool variable;  // a __managed__ variable: nothing mapped, nothing to unmap
  };
  struct Ownership {
    int queued = 0;            // launches called and not ended
    bool device_owns = false;  // see above
  };
  void unmap(Region& region);
  void protect_locked(const DeviceState* device, int protection);

  std::mutex mutex_;
  std::map<uint64_t, Region> regions_;  // by device address
  std::map<const DeviceState*, Ownership> owners_;
};

}  // namespace kestrel::cudart
