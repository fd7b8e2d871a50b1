// Addresses stored in device data: a jump table, a table of __device__
// function pointers (guide E.2.9.4 allows taking their address in device
// code), a __device__ pointer initialized with another variable's address and
// a table of string pointers.  The linker writes them for base 0; the loader
// moves each (R_RISCV_RELATIVE on RV64, R_RISCV_32 on RV32: docs/isa.md
// section 5), so every result depends on that.

__device__ int add(int a, int b) { return a + b; }
__device__ int subtract(int a, int b) { return a - b; }
__device__ int multiply(int a, int b) { return a * b; }
__device__ int maximum(int a, int b) { return a > b ? a : b; }

__device__ int (*const operations[4])(int, int) = {add, subtract, multiply, maximum};
__device__ int weights[4] = {3, 5, 7, 11};
__device__ int* heaviest = &weights[3];
__device__ const char* const digit_names[3] = {"zero", "one", "two"};

// A dense switch, which clang turns into a table of code addresses.
__device__ __noinline__ int pick(int code, int v) {
  switch (code) {
    case 0: return v + 1;
    case 1: return v * 3;
    case 2: return v - 7;
    case 3: return v ^ 0x55;
    case 4: return v << 2;
    case 5: return -v;
    case 6: return v / 2;
    case 7: return v % 5;
    default: return 1000;
  }
}

// out[i] = pick(i % 9, i) + operations[i % 4](i, 3) + *heaviest + the first
// letter of digit_names[i % 3].
__global__ void tables(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = pick(i % 9, i) + operations[i % 4](i, 3) + *heaviest + digit_names[i % 3][0];
}
