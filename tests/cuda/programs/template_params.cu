// Template kernels and every kind of parameter cudaLaunchKernel must lay out
// from the module's descriptors alone (it receives only void** args): structs
// by value, floats, doubles, 64-bit integers, chars and shorts, and more than
// eight parameters (guide B.1.4, B.3).
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

struct Particle {
  float x, y;
  double mass;
  char tag;
};

template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void manyParams(double* out, char c, short s, int i, long long ll, float f, double d, Particle p,
                           unsigned char uc, float4 v, uint64_t u64, int last) {
  out[0] = c;
  out[1] = s;
  out[2] = i;
  out[3] = static_cast<double>(ll);
  out[4] = f;
  out[5] = d;
  out[6] = p.x + p.y + p.mass + p.tag;
  out[7] = uc;
  out[8] = v.x + v.y + v.z + v.w;
  out[9] = static_cast<double>(u64 >> 32);
  out[10] = last;
}

// A __grid_constant__ parameter: const, and its address may be taken.
__global__ void gridConstant(const __grid_constant__ Particle p, double* out) {
  const Particle* address = &p;
  out[threadIdx.x] = address->mass + address->tag + threadIdx.x;
}

template <typename T>
bool run_axpy(T a) {
  const int n = 1000;
  T hx[n], hy[n];
  for (int i = 0; i < n; ++i) hx[i] = static_cast<T>(i), hy[i] = static_cast<T>(2 * i);
  T *dx, *dy;
  cudaMalloc(&dx, sizeof hx);
  cudaMalloc(&dy, sizeof hy);
  cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice);
  axpy<T><<<(n + 127) / 128, 128>>>(a, dx, dy, n);
  cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  for (int i = 0; i < n; ++i)
    if (hy[i] != a * static_cast<T>(i) + static_cast<T>(2 * i)) return false;
  return cudaGetLastError() == cudaSuccess;
}

int main() {
  // A range-for over a braced list: nvcc's cuda_runtime.h provides
  // <initializer_list>, so CUDA programs use it without including it.
  for (int scale : {3, -2}) {
    if (!run_axpy<int>(scale)) {
      fprintf(stderr, "template axpy<int> failed for %d\n", scale);
      return EXIT_FAILURE;
    }
  }
  if (!run_axpy<float>(0.5f) || !run_axpy<double>(-1.25) || !run_axpy<long long>(1LL << 33)) {
    fprintf(stderr, "template axpy failed\n");
    return EXIT_FAILURE;
  }
  double* d_out;
  cudaMalloc(&d_out, 11 * sizeof(double));
  const Particle p{1.5f, 2.5f, 1000.25, 3};
  manyParams<<<1, 1>>>(d_out, -7, -300, 123456, -(1LL << 40), 0.25f, 3.0e100, p, 250, make_float4(1, 2, 3, 4),
                       0xABCDEF0012345678ull, 42);
  double h_out[11];
  if (cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost) != cudaSuccess) return EXIT_FAILURE;
  const double expected[11] = {-7,
                               -300,
                               123456,
                               -1099511627776.0,
                               0.25,
                               3.0e100,
                               1.5 + 2.5 + 1000.25 + 3,
                               250,
                               10,
                               static_cast<double>(0xABCDEF00u),
                               42};
  for (int i = 0; i < 11; ++i)
    if (h_out[i] != expected[i]) {
      fprintf(stderr, "parameter %d arrived as %g, expected %g\n", i, h_out[i], expected[i]);
      return EXIT_FAILURE;
    }
  gridConstant<<<1, 4>>>(p, d_out);
  if (cudaMemcpy(h_out, d_out, 4 * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess) return EXIT_FAILURE;
  if (h_out[0] != 1003.25 || h_out[3] != 1006.25) {
    fprintf(stderr, "__grid_constant__ parameter arrived as %g, expected 1003.25\n", h_out[0]);
    return EXIT_FAILURE;
  }
  // The same launch through cudaLaunchKernel directly.
  int n = 4;
  int hx[4] = {1, 2, 3, 4}, hy[4] = {0, 0, 0, 0};
  int *dx, *dy, a = 10;
  cudaMalloc(&dx, sizeof hx);
  cudaMalloc(&dy, sizeof hy);
  cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice);
  void* args[] = {&a, &dx, &dy, &n};
  if (cudaLaunchKernel(reinterpret_cast<const void*>(&axpy<int>), dim3(1), dim3(4), args, 0, nullptr) !=
      cudaSuccess)
    return EXIT_FAILURE;
  cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost);
  if (hy[3] != 40) return EXIT_FAILURE;
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(d_out);
  printf("template kernels and parameters: PASSED\n");
  return EXIT_SUCCESS;
}
