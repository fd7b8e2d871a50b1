// Kernels that fault on purpose, one per fault kind the device reports
// (docs/isa.md section 7).  Only the thread whose global index equals `who`
// misbehaves, so the host can check that the fault names that thread; the
// others finish normally.  Volatile accesses keep the compiler from reasoning
// the bad access away.

__device__ bool is_culprit(unsigned int who) { return blockIdx.x * blockDim.x + threadIdx.x == who; }

// ILLEGAL_ADDRESS: a store `bytes_past` beyond the end of an allocation of n ints.
__global__ void fault_out_of_bounds(int* data, int n, unsigned int bytes_past, unsigned int who) {
  if (is_culprit(who)) *reinterpret_cast<volatile int*>(reinterpret_cast<char*>(data + n) + bytes_past) = 1;
}

// MISALIGNED: a 4-byte load from data + byte_offset (not a multiple of 4).
__global__ void fault_misaligned(int* data, unsigned int byte_offset, unsigned int who) {
  if (is_culprit(who)) data[1] = *reinterpret_cast<volatile int*>(reinterpret_cast<char*>(data) + byte_offset);
}

// TRAP: __trap() (kx.trap with code 0).
__global__ void fault_trap(unsigned int who) {
  if (is_culprit(who)) __trap();
}

// ASSERT: assert() on the data (guide B.16).  data[i] must be non-negative.
__global__ void fault_assert(const int* data) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(data[i] >= 0);
}

// ILLEGAL_ADDRESS in the null guard: a load from a small integer address
// (unsigned int: every device address fits in 32 bits on both XLENs).
__global__ void fault_null_pointer(unsigned int address, int* out, unsigned int who) {
  if (is_culprit(who)) out[0] = *reinterpret_cast<volatile int*>(static_cast<uintptr_t>(address));
}

// ILLEGAL_INSTRUCTION: custom-0 with funct3 = 7 is not a Kestrel instruction.
__global__ void fault_illegal_instruction(unsigned int who) {
  if (is_culprit(who)) __asm__ volatile(".insn r 0x0b, 7, 0x7f, x0, x0, x0");
}

// SHARED_BOUNDS: a store to element `index` of a 16-int __shared__ array,
// past the block's shared memory when index is large.
__global__ void fault_shared_bounds(unsigned int index, int* out, unsigned int who) {
  __shared__ int small[16];
  small[threadIdx.x % 16] = static_cast<int>(threadIdx.x);
  __syncthreads();
  if (is_culprit(who)) reinterpret_cast<volatile int*>(small)[index] = 1;
  out[threadIdx.x] = small[threadIdx.x % 16];
}

// WRITE_PROTECT: a store into the module's __constant__ data, which the
// loader maps read-only.
__constant__ int protected_table[4] = {1, 2, 3, 4};
__global__ void fault_write_constant(unsigned int who) {
  if (is_culprit(who)) const_cast<volatile int*>(protected_table)[1] = 5;
}
