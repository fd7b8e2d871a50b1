// Kernels of the SystemC platform tests: real work whose cycle count rtlsim
// must reproduce, and a fault the platform must report like every backend.
__global__ void saxpy_int(const int* x, int* y, int a, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// state[0] = 1 once running, then spins until the host sets state[1] (or
// max_spins pass); state[2] = the flag seen, state[3] = 1 when it gave up.
__global__ void wait_for_host(volatile int* state, long long max_spins) {
  state[0] = 1;
  long long spins = 0;
  while (state[1] == 0 && spins < max_spins) ++spins;
  state[2] = state[1];
  state[3] = spins >= max_spins ? 1 : 0;
}

// Thread 5 of block 1 stores to `bad` (the host passes an address no page
// maps; as a number, so that the compiler cannot fold the store away).
__global__ void store_to_bad(int* out, unsigned long long bad) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  int* target = (blockIdx.x == 1 && threadIdx.x == 5) ? reinterpret_cast<int*>(bad) : out + i;
  *target = i;
}
