// Kernels of the SystemC platform tests: real work whose cycle count rtlsim
// must reproduce, and a fault the platform must report like every backend.
__global__ void saxpy_int(const int* x, int* y, int a, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Thread 5 of block 1 stores to `bad` (the host passes an address no page
// maps; as a number, so that the compiler cannot fold the store away).
__global__ void store_to_bad(int* out, unsigned long long bad) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  int* target = (blockIdx.x == 1 && threadIdx.x == 5) ? reinterpret_cast<int*>(bad) : out + i;
  *target = i;
}
