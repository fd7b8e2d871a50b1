// A spin lock taken by the threads of one warp.  On a GPU that runs a warp
// in lock step this livelocks: the lanes spinning at the lower PC would run
// forever while the lane holding the lock waits at a higher PC.  Kestrel's
// scheduling rule (docs/isa.md section 6) runs every other PC group once in
// every FairnessPeriod issues, so the holder makes progress, as CUDA
// guarantees on compute capability 7.0 (guide 4.1).
// The lock uses the A extension through GCC/Clang __atomic builtins
// (amoswap.w.aq to take it, a release store to give it back).

__device__ void acquire(int* lock) {
  while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE) != 0) {
  }
}

__device__ void release(int* lock) { __atomic_store_n(lock, 0, __ATOMIC_RELEASE); }

// Each thread adds 1 to *counter `iterations` times under the lock, with a
// plain (non-atomic) read-modify-write that the lock alone makes safe.
__global__ void spinlock_counter(int* lock, int* counter, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    acquire(lock);
    volatile int* shared_counter = counter;
    *shared_counter = *shared_counter + 1;
    release(lock);
  }
}

// The same count with an atomic add (amoadd.w): the reference.
__global__ void atomic_counter(int* counter, int iterations) {
  for (int i = 0; i < iterations; ++i) __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}
