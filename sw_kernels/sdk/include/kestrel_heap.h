/* Device malloc() and free() (guide B.18, dynamic global memory allocation),
 * and calloc() and realloc() over the same heap.
 * Included by kestrel_cuda.h after the atomics, in the device pass only.
 *
 * The heap is one region of global memory per device, of
 * cudaLimitMallocHeapSize bytes (default 8 MiB), which the runtime allocates
 * and initializes at the first launch of a module that calls malloc or free
 * and keeps until the device is reset; its size cannot change after that
 * (guide B.18.1).  Before every launch of such a module the runtime writes the
 * heap's address into the module's __kestrel_heap (an inline variable, so it
 * exists only in modules whose code uses the heap).  Memory allocated in one
 * launch stays valid for later launches of any module and any thread may free
 * it (guide B.18).  calloc() and realloc() use the same heap.  Layout:
 * docs/isa.md section 10, KESTREL_HEAP_* in kestrel/abi.h.
 *
 * Allocation is lock-free, so it needs no forward-progress promise between
 * the threads of a warp: every block is a power of two of at least
 * KESTREL_HEAP_MIN_BLOCK bytes with a 16-byte header, taken from its size
 * class's free list (a stack popped and pushed with a 64-bit compare-and-swap
 * on a head that carries a change count, so a block popped and pushed back
 * meanwhile cannot fool it) or, when that is empty, cut from the untouched
 * end of the heap by compare-and-swap on its top.  free() pushes the block
 * on its class's list for the next malloc of that class; blocks are never
 * split or merged.  malloc returns NULL when neither has room (guide B.18),
 * and pointers are 16-byte aligned.  free(NULL) does nothing; freeing a
 * pointer malloc did not return, or freeing one twice, stops the launch
 * with a trap of code KESTREL_TRAP_HEAP, which the runtime's message names
 * (cudaErrorLaunchFailure). */
#ifndef KESTREL_HEAP_H
#define KESTREL_HEAP_H

#if KESTREL_DEVICE_PASS

/* The heap's address, written by the runtime before each launch of a module
 * that has this variable. */
extern "C" inline __device__ unsigned char* __kestrel_heap = nullptr;

/* Stops the launch with a TRAP fault of code KESTREL_TRAP_HEAP: a bad free(). */
static __device__ __forceinline__ __attribute__((noreturn)) void __kestrel_heap_trap() {
  __asm__ volatile(".insn r " KESTREL_INSN_SIMT(CONTROL, TRAP) ", x0, %0, x0" ::"r"(KESTREL_TRAP_HEAP)
                   : "memory");
  __builtin_unreachable();
}

/* A block's first word: KESTREL_HEAP_BLOCK_MAGIC | class << 1 | in use. */
static __device__ __forceinline__ unsigned int* __kestrel_heap_tag(unsigned char* block) {
  return reinterpret_cast<unsigned int*>(block);
}
/* A free block's second word: the offset of the next free block, 0 at the end. */
static __device__ __forceinline__ volatile unsigned int* __kestrel_heap_next(unsigned char* block) {
  return reinterpret_cast<volatile unsigned int*>(block + 4);
}
static __device__ __forceinline__ unsigned long long* __kestrel_heap_word(unsigned char* heap,
                                                                          unsigned int index) {
  return reinterpret_cast<unsigned long long*>(heap) + index;
}
/* An atomic read of a 64-bit word (two loads on RV32 could tear). */
static __device__ __forceinline__ unsigned long long __kestrel_heap_load(unsigned long long* word) {
  return atomicAdd(word, 0ull);
}

static __device__ __attribute__((noinline)) void* __kestrel_malloc(size_t size) {
  unsigned char* const heap = __kestrel_heap;
  if (heap == nullptr) __trap();
  const unsigned long long end = __kestrel_heap_load(__kestrel_heap_word(heap, KESTREL_HEAP_END_WORD));
  if (size > end) return nullptr;
  unsigned int cls = 0;
  while ((unsigned long long)KESTREL_HEAP_MIN_BLOCK << cls < size + KESTREL_HEAP_BLOCK_HEADER) ++cls;
  if (cls >= KESTREL_HEAP_CLASSES) return nullptr;
  const unsigned long long block_bytes = (unsigned long long)KESTREL_HEAP_MIN_BLOCK << cls;

  unsigned long long* const list = __kestrel_heap_word(heap, KESTREL_HEAP_LISTS_WORD + cls);
  unsigned long long head = __kestrel_heap_load(list);
  unsigned int offset = 0;
  while ((unsigned int)head != 0) {
    __threadfence(); /* the link is read after the head that names its block */
    const unsigned int next = *__kestrel_heap_next(heap + (unsigned int)head);
    const unsigned long long replacement = ((head >> 32) + 1) << 32 | next;
    const unsigned long long seen = atomicCAS(list, head, replacement);
    if (seen == head) {
      offset = (unsigned int)head;
      break;
    }
    head = seen;
  }
  if (offset == 0) {
    unsigned long long* const top_word = __kestrel_heap_word(heap, KESTREL_HEAP_TOP_WORD);
    unsigned long long top = __kestrel_heap_load(top_word);
    for (;;) {
      if (block_bytes > end - top) return nullptr;
      const unsigned long long seen = atomicCAS(top_word, top, top + block_bytes);
      if (seen == top) break;
      top = seen;
    }
    offset = (unsigned int)top;
  }
  unsigned char* const block = heap + offset;
  *__kestrel_heap_tag(block) = KESTREL_HEAP_BLOCK_MAGIC | cls << 1 | 1u;
  return block + KESTREL_HEAP_BLOCK_HEADER;
}

/* The in-use block of a pointer malloc returned, with its tag in *tag;
 * anything else traps. */
static __device__ __forceinline__ unsigned char* __kestrel_heap_block(unsigned char* heap, void* pointer,
                                                                      unsigned int* tag) {
  unsigned char* const block = static_cast<unsigned char*>(pointer) - KESTREL_HEAP_BLOCK_HEADER;
  const unsigned long long end = __kestrel_heap_load(__kestrel_heap_word(heap, KESTREL_HEAP_END_WORD));
  if (block < heap + KESTREL_HEAP_HEADER_BYTES || block >= heap + end ||
      (reinterpret_cast<uintptr_t>(block) & (KESTREL_HEAP_BLOCK_HEADER - 1)) != 0)
    __kestrel_heap_trap(); /* not a pointer malloc returned */
  *tag = *__kestrel_heap_tag(block);
  if ((*tag & ~0xFFu) != KESTREL_HEAP_BLOCK_MAGIC || (*tag & 1u) == 0 ||
      (*tag >> 1 & 0x7Fu) >= KESTREL_HEAP_CLASSES)
    __kestrel_heap_trap(); /* not a pointer malloc returned, or already freed */
  return block;
}

static __device__ __attribute__((noinline)) void __kestrel_free(void* pointer) {
  if (pointer == nullptr) return;
  unsigned char* const heap = __kestrel_heap;
  if (heap == nullptr) __trap();
  unsigned int tag = 0;
  unsigned char* const block = __kestrel_heap_block(heap, pointer, &tag);
  /* Clearing the in-use bit with a CAS makes a second free of the block trap
   * even when two threads free it at once. */
  if (atomicCAS(__kestrel_heap_tag(block), tag, tag & ~1u) != tag) __kestrel_heap_trap();
  const unsigned int cls = tag >> 1 & 0x7Fu;
  const unsigned int offset = (unsigned int)(block - heap);
  unsigned long long* const list = __kestrel_heap_word(heap, KESTREL_HEAP_LISTS_WORD + cls);
  unsigned long long head = __kestrel_heap_load(list);
  for (;;) {
    *__kestrel_heap_next(block) = (unsigned int)head;
    __threadfence(); /* the link is visible before the block is */
    const unsigned long long seen = atomicCAS(list, head, ((head >> 32) + 1) << 32 | offset);
    if (seen == head) return;
    head = seen;
  }
}

/* calloc and realloc over the same heap, so that no C library allocator (which
 * would need a heap of its own) is linked. */
static __device__ __attribute__((noinline)) void* __kestrel_calloc(size_t count, size_t size) {
  if (size != 0 && count > (size_t)-1 / size) return nullptr;
  void* const pointer = __kestrel_malloc(count * size);
  if (pointer != nullptr) memset(pointer, 0, count * size);
  return pointer;
}
static __device__ __attribute__((noinline)) void* __kestrel_realloc(void* pointer, size_t size) {
  if (pointer == nullptr) return __kestrel_malloc(size);
  if (size == 0) {
    __kestrel_free(pointer);
    return nullptr;
  }
  unsigned char* const heap = __kestrel_heap;
  if (heap == nullptr) __trap();
  unsigned int tag = 0;
  __kestrel_heap_block(heap, pointer, &tag);
  const size_t usable = ((size_t)KESTREL_HEAP_MIN_BLOCK << (tag >> 1 & 0x7Fu)) - KESTREL_HEAP_BLOCK_HEADER;
  if (size <= usable) return pointer;
  void* const moved = __kestrel_malloc(size);
  if (moved == nullptr) return nullptr; /* the old block stays, as C's realloc leaves it */
  memcpy(moved, pointer, size < usable ? size : usable);
  __kestrel_free(pointer);
  return moved;
}

/* The C library's names, as CUDA device code calls them. */
extern "C" inline __host__ __device__ void* malloc(size_t size) noexcept { return __kestrel_malloc(size); }
extern "C" inline __host__ __device__ void free(void* pointer) noexcept { __kestrel_free(pointer); }
extern "C" inline __host__ __device__ void* calloc(size_t count, size_t size) noexcept {
  return __kestrel_calloc(count, size);
}
extern "C" inline __host__ __device__ void* realloc(void* pointer, size_t size) noexcept {
  return __kestrel_realloc(pointer, size);
}

#endif /* KESTREL_DEVICE_PASS */

#endif /* KESTREL_HEAP_H */
