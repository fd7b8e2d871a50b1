// Lab 05's checker runs this on the model: custom-0 funct3 6 with funct7 1
// is not kx.popc.add and must stay an illegal instruction (docs/isa.md
// section 2.1, docs/reliability.md): the launch must end with that fault.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void popc_illegal(unsigned* out) {
  unsigned result;
  __asm__ volatile(".insn r 0x0b, 6, 1, %0, %1, %2" : "=r"(result) : "r"(threadIdx.x), "r"(1u));
  out[threadIdx.x] = result;
}

int main() {
  unsigned* out = nullptr;
  cudaMalloc(&out, 32 * sizeof(unsigned));
  popc_illegal<<<1, 32>>>(out);
  const cudaError_t error = cudaDeviceSynchronize();
  printf("popc_illegal: %s\n", cudaGetErrorString(error));
  return error == cudaSuccess ? 1 : 0;
}
