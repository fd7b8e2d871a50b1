// Device malloc and free (guide B.18): the heap's size is set before the first
// launch of a module that uses it and is fixed afterwards (B.18.1); many threads allocate,
// write, check and free at once; a full heap gives NULL and freed blocks come
// back; memory allocated in one launch is used and freed in later ones
// (B.18.3.3), with its pointer passed through the host; a double free stops
// the launch, and after cudaDeviceReset the heap can be sized again.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#define EXPECT_EQ(actual, expected)                                                                        \
  do {                                                                                                     \
    cudaError_t a_ = (actual);                                                                             \
    if (a_ != (expected)) {                                                                                \
      fprintf(stderr, "%s:%d: %s is %s, expected %s\n", __FILE__, __LINE__, #actual, cudaGetErrorName(a_), \
              cudaGetErrorName(expected));                                                                 \
      exit(EXIT_FAILURE);                                                                                  \
    }                                                                                                      \
  } while (0)
#define CHECK(condition)                                                            \
  do {                                                                              \
    if (!(condition)) {                                                             \
      fprintf(stderr, "%s:%d: %s does not hold\n", __FILE__, __LINE__, #condition); \
      exit(EXIT_FAILURE);                                                           \
    }                                                                               \
  } while (0)

// Each thread allocates `rounds` blocks of sizes 1 to 300 bytes, fills each
// with its own pattern (memset, then a memcpy of a local record), yields to
// the other threads with a barrier, checks its bytes and frees.  errors[0]
// counts wrong bytes, errors[1] failed allocations, errors[2] misaligned
// pointers.
__global__ void churn(int rounds, unsigned* errors) {
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  for (int round = 0; round < rounds; ++round) {
    const unsigned size = 1 + (id * 37 + round * 101) % 300;
    unsigned char* block = static_cast<unsigned char*>(malloc(size));
    if (block == nullptr) {
      atomicAdd(&errors[1], 1u);
    } else {
      if (reinterpret_cast<unsigned long>(block) % 16 != 0) atomicAdd(&errors[2], 1u);
      const unsigned char fill = static_cast<unsigned char>(id * 7 + round);
      memset(block, fill, size);
      const unsigned stamp[2] = {id, static_cast<unsigned>(round)};
      if (size >= sizeof stamp) memcpy(block, stamp, sizeof stamp);
    }
    __syncthreads();
    if (block != nullptr) {
      const unsigned char fill = static_cast<unsigned char>(id * 7 + round);
      unsigned wrong = 0;
      unsigned first = 0;
      if (size >= 8) {
        unsigned stamp[2];
        memcpy(stamp, block, sizeof stamp);
        wrong += stamp[0] != id || stamp[1] != static_cast<unsigned>(round);
        first = 8;
      }
      for (unsigned i = first; i < size; ++i) wrong += block[i] != fill;
      if (wrong != 0) atomicAdd(&errors[0], wrong);
      free(block);
    }
    __syncthreads();
  }
}

// Every thread allocates `bytes` until malloc gives NULL; count[0] counts the
// blocks it got.  Then every block is freed.
__global__ void fill_heap(size_t bytes, unsigned* count, void** keep, unsigned keep_slots) {
  for (;;) {
    void* block = malloc(bytes);
    if (block == nullptr) break;
    const unsigned slot = atomicAdd(count, 1u);
    if (slot < keep_slots) keep[slot] = block;
  }
}
__global__ void free_all(void** keep, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) free(keep[i]);
}

// Allocation persisting between launches (guide B.18.3.3): one block per
// thread block, its pointer stored for the host.
__global__ void allocate_per_block(int** pointers, int n) {
  if (threadIdx.x == 0) pointers[blockIdx.x] = static_cast<int*>(malloc(n * sizeof(int)));
  __syncthreads();
  int* data = pointers[blockIdx.x];
  if (data == nullptr) return;
  for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = static_cast<int>(blockIdx.x) * 1000 + i;
}
// A later launch reads a heap block whose pointer came back through the host.
__global__ void sum_block(const int* data, int n, int* sum) {
  atomicAdd(sum, data[threadIdx.x < n ? threadIdx.x : 0] * (threadIdx.x < n));
}
__global__ void free_per_block(int** pointers) {
  if (threadIdx.x == 0) free(pointers[blockIdx.x]);
}
// The pointer escapes to global memory, so the compiler cannot drop the
// allocation as unused.
__global__ void double_free(void** slot) {
  void* block = malloc(64);
  *slot = block;
  free(block);
  free(*static_cast<void* volatile*>(slot));
}

int main() {
  size_t limit = 0;
  EXPECT_EQ(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize), cudaSuccess);
  CHECK(limit == 8u << 20);  // guide B.18.1: eight megabytes by default

  // Until the first launch of this program's module, whose code uses the
  // heap, the size is open (guide B.18.1: until a module using malloc loads).
  const size_t heap_bytes = 64 * 1024;
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap_bytes), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize), cudaSuccess);
  CHECK(limit == heap_bytes);

  // 1000 bytes and the block header take a 1 KiB block: the 64 KiB heap
  // holds exactly 64 of them; once freed, the same 64 come back.
  unsigned* counters = nullptr;
  void** keep = nullptr;
  const unsigned keep_slots = 256;
  EXPECT_EQ(cudaMalloc(&counters, 4 * sizeof(unsigned)), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&keep, keep_slots * sizeof(void*)), cudaSuccess);
  EXPECT_EQ(cudaMemset(counters, 0, sizeof(unsigned)), cudaSuccess);
  fill_heap<<<2, 32>>>(1000, counters, keep, keep_slots);
  unsigned first = 0;
  EXPECT_EQ(cudaMemcpy(&first, counters, sizeof first, cudaMemcpyDeviceToHost), cudaSuccess);
  free_all<<<(first + 63) / 64, 64>>>(keep, first);
  EXPECT_EQ(cudaMemset(counters, 0, sizeof(unsigned)), cudaSuccess);
  fill_heap<<<2, 32>>>(1000, counters, keep, keep_slots);
  unsigned second = 0;
  EXPECT_EQ(cudaMemcpy(&second, counters, sizeof second, cudaMemcpyDeviceToHost), cudaSuccess);
  printf("exhaustion: %u blocks of 1000 bytes in a 64 KiB heap, %u again after freeing them\n", first,
         second);
  CHECK(first == heap_bytes / 1024 && second == first);

  // The heap exists now: its size is fixed (guide B.18.1).
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize), cudaSuccess);
  CHECK(limit == heap_bytes);

  // A reset device has no heap: its size is open again, back at the default.
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize), cudaSuccess);
  CHECK(limit == 8u << 20);
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20), cudaSuccess);

  // Many threads of many warps allocate, write, check and free at once.
  EXPECT_EQ(cudaMalloc(&counters, 4 * sizeof(unsigned)), cudaSuccess);
  EXPECT_EQ(cudaMemset(counters, 0, 4 * sizeof(unsigned)), cudaSuccess);
  const int blocks = 4, threads = 128, rounds = 3;
  churn<<<blocks, threads>>>(rounds, counters);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  unsigned errors[3];
  EXPECT_EQ(cudaMemcpy(errors, counters, sizeof errors, cudaMemcpyDeviceToHost), cudaSuccess);
  printf("churn: %d threads x %d rounds, %u wrong bytes, %u failed mallocs, %u misaligned\n",
         blocks * threads, rounds, errors[0], errors[1], errors[2]);
  CHECK(errors[0] == 0 && errors[1] == 0 && errors[2] == 0);

  // Allocations persist between launches (guide B.18.3.3); a block's
  // pointer goes through the host to a later launch.
  int** pointers = nullptr;
  const int n = 100;
  EXPECT_EQ(cudaMalloc(&pointers, blocks * sizeof(int*)), cudaSuccess);
  allocate_per_block<<<blocks, 32>>>(pointers, n);
  int* host_pointers[blocks];
  EXPECT_EQ(cudaMemcpy(host_pointers, pointers, sizeof host_pointers, cudaMemcpyDeviceToHost), cudaSuccess);
  int* sum = nullptr;
  EXPECT_EQ(cudaMalloc(&sum, sizeof(int)), cudaSuccess);
  for (int b = 0; b < blocks; ++b) {
    CHECK(host_pointers[b] != nullptr);
    EXPECT_EQ(cudaMemset(sum, 0, sizeof(int)), cudaSuccess);
    sum_block<<<1, 128>>>(host_pointers[b], n, sum);
    int host_sum = 0;
    EXPECT_EQ(cudaMemcpy(&host_sum, sum, sizeof host_sum, cudaMemcpyDeviceToHost), cudaSuccess);
    CHECK(host_sum == b * 1000 * n + n * (n - 1) / 2);
  }
  // Heap memory is not the runtime's (guide B.18.2).
  EXPECT_EQ(cudaFree(host_pointers[0]), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  int first_value = -1;
  EXPECT_EQ(cudaMemcpy(&first_value, host_pointers[1], sizeof(int), cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  free_per_block<<<blocks, 32>>>(pointers);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  // Freeing a block twice stops the launch.
  void** slot = nullptr;
  EXPECT_EQ(cudaMalloc(&slot, sizeof(void*)), cudaSuccess);
  double_free<<<1, 1>>>(slot);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  printf("Test PASSED\n");
  return 0;
}
