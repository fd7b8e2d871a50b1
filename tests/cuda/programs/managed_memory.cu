// Managed memory (guide J.2) as NVIDIA's introductory tutorial uses it:
// cudaMallocManaged, host initialisation, a kernel, cudaDeviceSynchronize,
// a host check; then kernels back to back, copies and fills on managed
// memory, the hints, the refusals, and the rule of devices before compute
// capability 6.x (J.2.2.1): a host access between a launch and the next
// synchronization faults (checked in a child process).
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

int main() {
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
