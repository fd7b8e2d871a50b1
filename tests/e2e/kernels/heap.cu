// Device malloc and free (guide B.18; docs/isa.md section 10) on both XLENs:
// many threads allocating, writing, checking and freeing at once, a full
// heap giving NULL, freed blocks coming back, memcpy and memset on heap
// memory.  tests/cuda/programs/device_malloc.cu covers the CUDA API side.

// Each thread allocates blocks of 1 to 300 bytes, fills each (memset, then a
// memcpy of a stamp), waits for its block's other threads, checks its bytes
// and frees.  errors[0]: wrong bytes, [1]: failed allocations, [2]: pointers
// not 16-byte aligned.
__global__ void churn(int rounds, unsigned* errors) {
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  for (int round = 0; round < rounds; ++round) {
    const unsigned size = 1 + (id * 37 + round * 101) % 300;
    const unsigned char fill = static_cast<unsigned char>(id * 7 + round);
    const unsigned stamp[2] = {id, static_cast<unsigned>(round)};
    unsigned char* block = static_cast<unsigned char*>(malloc(size));
    if (block == nullptr) {
      atomicAdd(&errors[1], 1u);
    } else {
      if (reinterpret_cast<uintptr_t>(block) % 16 != 0) atomicAdd(&errors[2], 1u);
      memset(block, fill, size);
      if (size >= sizeof stamp) memcpy(block, stamp, sizeof stamp);
    }
    __syncthreads();
    if (block != nullptr) {
      unsigned wrong = 0;
      unsigned from = 0;
      if (size >= sizeof stamp) {
        unsigned seen[2];
        memcpy(seen, block, sizeof seen);
        wrong += (seen[0] != stamp[0]) + (seen[1] != stamp[1]);
        from = sizeof stamp;
      }
      for (unsigned i = from; i < size; ++i) wrong += block[i] != fill;
      if (wrong != 0) atomicAdd(&errors[0], wrong);
      free(block);
    }
    __syncthreads();
  }
}

// Every thread allocates `bytes` until malloc returns NULL, keeping the
// pointers (count[0] of them); free_all frees them.
__global__ void fill_heap(unsigned bytes, unsigned* count, void** keep, unsigned slots) {
  for (;;) {
    void* block = malloc(bytes);
    if (block == nullptr) return;
    const unsigned slot = atomicAdd(count, 1u);
    if (slot < slots) keep[slot] = block;
  }
}
__global__ void free_all(void** keep, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) free(keep[i]);
}

// free() of a pointer malloc did not return stops the launch.
__global__ void free_foreign(int* global) { free(global + 4); }

// calloc gives zeroed memory; realloc keeps the contents when it moves a
// block to a larger class and when it shrinks one in place.  ok[t] = 1 when
// thread t saw everything right.
__global__ void calloc_realloc(int* ok) {
  const int t = threadIdx.x;
  int* values = static_cast<int*>(calloc(10, sizeof(int)));
  bool good = values != nullptr;
  for (int i = 0; good && i < 10; ++i) good = values[i] == 0;
  if (good)
    for (int i = 0; i < 10; ++i) values[i] = t * 100 + i;
  int* grown = good ? static_cast<int*>(realloc(values, 1000 * sizeof(int))) : nullptr;
  good = good && grown != nullptr && grown != values;
  for (int i = 0; good && i < 10; ++i) good = grown[i] == t * 100 + i;
  int* shrunk = good ? static_cast<int*>(realloc(grown, 8 * sizeof(int))) : nullptr;
  good = good && shrunk == grown;
  for (int i = 0; good && i < 8; ++i) good = shrunk[i] == t * 100 + i;
  if (good) free(shrunk);
  ok[t] = good;
}
