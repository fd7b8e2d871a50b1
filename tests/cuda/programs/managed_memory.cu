// Managed memory (guide J.2) as NVIDIA's introductory tutorial uses it:
// cudaMallocManaged, host initialisation, a kernel, cudaDeviceSynchronize,
// a host check; then kernels back to back, copies and fills on managed
// memory, the hints, the refusals, and the rule of devices before compute
// capability 6.x (J.2.2.1): a host access between a launch and the next
// synchronization faults (checked in a child process); __managed__ variables.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

__global__ void add(int n, const float* x, float* y) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x, stride = blockDim.x * gridDim.x;
  for (int i = index; i < n; i += stride) y[i] = x[i] + y[i];
}

__device__ float g_factor;

__global__ void scale_by_symbol(int n, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= g_factor;
}

__global__ void write_null(float value) { *static_cast<volatile float*>(nullptr) = value; }

__global__ void scale(int n, float factor, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= factor;
}

// __managed__ variables (guide J.2.2.3): one variable for host and device
// code, its initializer visible to the host before any CUDA call.
__device__ __managed__ int g_hits = 3;
__managed__ float g_sum[4];

__global__ void bump_managed(int by) {
  if (threadIdx.x == 0) g_hits += by;
  if (threadIdx.x < 4) g_sum[threadIdx.x] = g_sum[threadIdx.x] * 2.0f + 1.0f;
}

__global__ void store_through(int* p, int value) {
  if (threadIdx.x == 0) *p = value;
}

static int failures = 0;
// The exit status of a child process whose access to managed memory faulted.
static constexpr int kFaulted = 42;
static void expect(const char* what, bool ok) {
  if (ok) return;
  ++failures;
  fprintf(stderr, "FAILED: %s\n", what);
}

#define CHECK(call)                                                 \
  do {                                                              \
    cudaError_t err_ = (call);                                      \
    if (err_ != cudaSuccess) {                                      \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_)); \
      return EXIT_FAILURE;                                          \
    }                                                               \
  } while (0)

static std::atomic<bool> g_release{false};
static void CUDART_CB hold_stream(void*) {
  while (!g_release.load()) usleep(1000);
}

// The __managed__ variables through every way a program reaches them.
static int check_managed_variables() {
  for (int i = 0; i < 4; ++i) g_sum[i] = static_cast<float>(i);
  g_hits = 10;
  bump_managed<<<1, 32>>>(5);
  CHECK(cudaDeviceSynchronize());
  expect("a kernel sees the host's writes to __managed__ variables and the host its",
         g_hits == 15 && g_sum[0] == 1.0f && g_sum[3] == 7.0f);
  // Back to back: the second launch sees the first one's result.
  bump_managed<<<1, 32>>>(1);
  bump_managed<<<1, 32>>>(2);
  CHECK(cudaDeviceSynchronize());
  expect("__managed__ variables across two launches", g_hits == 18 && g_sum[1] == 15.0f);
  // Symbol copies reach the host copy while the host owns it.
  int value = 0;
  CHECK(cudaMemcpyFromSymbol(&value, g_hits, sizeof value));
  expect("cudaMemcpyFromSymbol of a __managed__ variable", value == 18);
  value = 40;
  CHECK(cudaMemcpyToSymbol(g_hits, &value, sizeof value));
  expect("cudaMemcpyToSymbol of a __managed__ variable", g_hits == 40);
  // Its device address, passed to a kernel.
  int* address = nullptr;
  CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&address), g_hits));
  store_through<<<1, 1>>>(address, 41);
  CHECK(cudaDeviceSynchronize());
  expect("a kernel writing a __managed__ variable through its address", g_hits == 41);
  return 0;
}

int main() {
  // Before any CUDA call: the variable's initializer.
  expect("a __managed__ variable's initializer, before any CUDA call", g_hits == 3);
  if (check_managed_variables() != 0) return EXIT_FAILURE;
  const int n = 1 << 12;
  float *x = nullptr, *y = nullptr;
  CHECK(cudaMallocManaged(&x, n * sizeof(float)));
  CHECK(cudaMallocManaged(&y, n * sizeof(float)));
  for (int i = 0; i < n; ++i) {
    x[i] = 1.0f;
    y[i] = 2.0f;
  }
  int device = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaMemPrefetchAsync(x, n * sizeof(float), device));
  CHECK(cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, device));
  add<<<4, 128>>>(n, x, y);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float max_error = 0.0f;
  for (int i = 0; i < n; ++i) max_error = fmaxf(max_error, fabsf(y[i] - 3.0f));
  expect("x + y after cudaDeviceSynchronize", max_error == 0.0f);

  // Back to back: the second kernel sees the first one's results; the host
  // writes between synchronizations reach the next launch.
  add<<<4, 128>>>(n, x, y);
  scale<<<n / 128, 128>>>(n, 2.0f, y);
  CHECK(cudaDeviceSynchronize());
  expect("two kernels without a synchronization between them", y[0] == 8.0f && y[n - 1] == 8.0f);
  y[7] = 100.0f;
  scale<<<n / 128, 128>>>(n, 0.5f, y);
  CHECK(cudaStreamSynchronize(0));
  expect("a host write before a launch", y[7] == 50.0f && y[8] == 4.0f);

  // Copies and fills with managed memory on either side.
  float* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMemset(y, 0, n * sizeof(float)));
  expect("cudaMemset on managed memory", y[0] == 0.0f && y[n - 1] == 0.0f);
  CHECK(cudaMemcpy(d, x, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, d, n * sizeof(float), cudaMemcpyDefault));
  expect("managed -> device -> managed copies", y[0] == 1.0f && y[n - 1] == 1.0f);
  scale<<<n / 128, 128>>>(n, 3.0f, y);
  CHECK(cudaMemcpy(d, y, n * sizeof(float), cudaMemcpyDeviceToDevice));  // in order after the kernel
  float check[2];
  CHECK(cudaMemcpy(&check[0], d, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&check[1], y + n - 1, sizeof(float), cudaMemcpyDeviceToHost));
  expect("copies of managed memory see the kernel before them", check[0] == 3.0f && check[1] == 3.0f);

  // Symbol copies from and to managed memory.
  y[0] = 4.0f;
  CHECK(cudaMemcpyToSymbol(g_factor, y, sizeof(float)));
  scale_by_symbol<<<n / 128, 128>>>(n, y);
  CHECK(cudaMemcpyFromSymbol(x + 1, g_factor, sizeof(float)));  // after the kernel, in order
  expect("symbol copies with managed memory", y[0] == 16.0f && y[1] == 12.0f && x[1] == 4.0f);
  x[1] = 1.0f;
  for (int i = 0; i < n; ++i) y[i] = 3.0f;

  // Refusals.
  void* p = nullptr;
  expect("cudaMallocManaged of 0 bytes", cudaMallocManaged(&p, 0) == cudaErrorInvalidValue);
  expect("cudaMemAttachHost", cudaMallocManaged(&p, 64, cudaMemAttachHost) == cudaErrorNotSupported);
  expect("bad flags", cudaMallocManaged(&p, 64, 0x80) == cudaErrorInvalidValue);
  expect("prefetch of device memory", cudaMemPrefetchAsync(d, 64, device) == cudaErrorInvalidValue);
  expect("prefetch past the allocation",
         cudaMemPrefetchAsync(x, n * sizeof(float) + 1, device) == cudaErrorInvalidValue);
  expect("prefetch to no device", cudaMemPrefetchAsync(x, 64, 99) == cudaErrorInvalidDevice);
  expect("an unknown advice", cudaMemAdvise(x, 64, (cudaMemoryAdvise)42, device) == cudaErrorInvalidValue);
  expect("prefetch to the host", cudaMemPrefetchAsync(x, 64, cudaCpuDeviceId) == cudaSuccess);
  cudaGetLastError();

  // A host access while a launch is queued faults, as on pre-6.x devices:
  // the kernel waits behind a host function until the child has tried.
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  CHECK(cudaLaunchHostFunc(stream, hold_stream, nullptr));
  scale<<<n / 128, 128, 0, stream>>>(n, 2.0f, y);
  fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    // The child's own handler reports the fault by its exit status, also
    // under AddressSanitizer, whose handler would otherwise take SIGSEGV.
    struct sigaction on_fault {};
    on_fault.sa_handler = [](int) { _exit(kFaulted); };
    sigaction(SIGSEGV, &on_fault, nullptr);
    sigaction(SIGBUS, &on_fault, nullptr);
    volatile float value = x[0];  // managed memory, while the GPU may run: SIGSEGV
    (void)value;
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  expect("a host access between a launch and its synchronization faults",
         WIFEXITED(status) && WEXITSTATUS(status) == kFaulted);
  g_release = true;
  CHECK(cudaStreamSynchronize(stream));
  expect("the held kernel ran", y[0] == 6.0f && x[0] == 1.0f);
  CHECK(cudaStreamDestroy(stream));

  CHECK(cudaFree(d));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  // A new allocation after the frees (the device may reuse their addresses).
  CHECK(cudaMallocManaged(&x, 256));
  x[0] = 5.0f;
  scale<<<1, 1>>>(1, 2.0f, x);
  CHECK(cudaDeviceSynchronize());
  expect("an allocation at a reused address", x[0] == 10.0f);
  CHECK(cudaFree(x));

  // Last (the error is sticky): a kernel faults with another launch queued
  // behind it, which never starts; the host may read managed memory after
  // the synchronization that reports the fault.
  float* z = nullptr;
  CHECK(cudaMallocManaged(&z, sizeof(float)));
  z[0] = 1.0f;
  cudaStream_t held;
  CHECK(cudaStreamCreate(&held));
  g_release = false;
  CHECK(cudaLaunchHostFunc(held, hold_stream, nullptr));  // both launches are queued before either runs
  write_null<<<1, 1, 0, held>>>(2.0f);
  scale<<<1, 1, 0, held>>>(1, 2.0f, z);
  g_release = true;
  expect("the fault is reported", cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  expect("managed memory is readable after the fault", z[0] == 1.0f);
  if (failures != 0) {
    printf("managed_memory: %d checks failed\n", failures);
    return EXIT_FAILURE;
  }
  printf("managed_memory: PASSED\n");
  return 0;
}
