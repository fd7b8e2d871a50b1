// Copies overlapping a running kernel (guide 3.2.5.5, "Overlap of Data
// Transfer and Kernel Execution"): a kernel in one stream marks that it has
// started and then spins until a flag in device memory is set.  The host
// watches the mark with device-to-host copies in a second stream and then sets
// the flag with a host-to-device copy in that stream.  Both copies must run
// while the kernel runs: a device that waits for the kernel before copying
// would let the kernel spin out its bounded wait, which this program reports
// as a failure (it never hangs).  Then events time a copy with no kernel
// running (the copy engine's time counts, docs/cuda-runtime.md).
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
      exit(EXIT_FAILURE);                                                                 \
    }                                                                                     \
  } while (0)

// state[0]: 1 once the kernel runs; state[1]: the flag the host sets;
// state[2]: the flag value the kernel saw; state[3]: 1 if it gave up waiting.
__global__ void waitForHost(volatile int* state, long long maxSpins) {
  state[0] = 1;
  long long spins = 0;
  while (state[1] == 0 && spins < maxSpins) ++spins;
  state[2] = state[1];
  state[3] = spins >= maxSpins ? 1 : 0;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("%s: asyncEngineCount %d, concurrentKernels %d, deviceOverlap %d\n", prop.name,
         prop.asyncEngineCount, prop.concurrentKernels, prop.deviceOverlap);
  if (prop.asyncEngineCount < 1 || prop.deviceOverlap != 1 || prop.concurrentKernels != 0) {
    fprintf(stderr, "this backend should report one copy engine and no concurrent kernels\n");
    return EXIT_FAILURE;
  }

  int* d_state = nullptr;
  CHECK(cudaMalloc(&d_state, 4 * sizeof(int)));
  CHECK(cudaMemset(d_state, 0, 4 * sizeof(int)));
  int* h_words = nullptr;  // [0]: the started mark as copied back, [1]: the flag to send
  CHECK(cudaMallocHost(&h_words, 2 * sizeof(int)));
  h_words[0] = 0;
  h_words[1] = 7;
  cudaStream_t kernelStream, copyStream;
  CHECK(cudaStreamCreate(&kernelStream));
  CHECK(cudaStreamCreate(&copyStream));

  // The spin bound is far beyond the time the host needs to answer: with
  // overlap the kernel ends within a few thousand cycles of the flag copy.
  waitForHost<<<1, 1, 0, kernelStream>>>(d_state, 1ll << 26);
  CHECK(cudaGetLastError());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  int polls = 0;
  while (h_words[0] == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      fprintf(stderr, "the kernel's start mark never arrived\n");
      return EXIT_FAILURE;
    }
    CHECK(cudaMemcpyAsync(&h_words[0], d_state, sizeof(int), cudaMemcpyDeviceToHost, copyStream));
    CHECK(cudaStreamSynchronize(copyStream));
    ++polls;
  }
  // The kernel has started; it cannot have ended, since nothing set the flag.
  const cudaError_t running = cudaStreamQuery(kernelStream);
  CHECK(cudaMemcpyAsync(d_state + 1, &h_words[1], sizeof(int), cudaMemcpyHostToDevice, copyStream));
  CHECK(cudaStreamSynchronize(kernelStream));
  int state[4];
  CHECK(cudaMemcpy(state, d_state, sizeof state, cudaMemcpyDeviceToHost));
  printf("start mark after %d poll(s); kernel %s while the host copied; it saw flag %d, gave up %d\n", polls,
         running == cudaErrorNotReady ? "running" : "not running", state[2], state[3]);
  if (running != cudaErrorNotReady || state[2] != 7 || state[3] != 0) {
    fprintf(stderr, "the copies did not overlap the kernel\n");
    return EXIT_FAILURE;
  }

  // Event timing covers copies: 1 MiB host to device with no kernel running
  // takes its modelled time on the host link.
  const size_t bytes = 1 << 20;
  char* h_big = nullptr;
  char* d_big = nullptr;
  CHECK(cudaMallocHost(&h_big, bytes));
  CHECK(cudaMalloc(&d_big, bytes));
  cudaEvent_t before, after;
  CHECK(cudaEventCreate(&before));
  CHECK(cudaEventCreate(&after));
  CHECK(cudaEventRecord(before, copyStream));
  CHECK(cudaMemcpyAsync(d_big, h_big, bytes, cudaMemcpyHostToDevice, copyStream));
  CHECK(cudaEventRecord(after, copyStream));
  CHECK(cudaEventSynchronize(after));
  float ms = 0.0f;
  CHECK(cudaEventElapsedTime(&ms, before, after));
  printf("1 MiB copy: %.4f ms of device time\n", ms);
  if (!(ms > 0.0f)) {
    fprintf(stderr, "a copy should take device time\n");
    return EXIT_FAILURE;
  }

  CHECK(cudaEventDestroy(before));
  CHECK(cudaEventDestroy(after));
  CHECK(cudaStreamDestroy(kernelStream));
  CHECK(cudaStreamDestroy(copyStream));
  CHECK(cudaFree(d_big));
  CHECK(cudaFreeHost(h_big));
  CHECK(cudaFree(d_state));
  CHECK(cudaFreeHost(h_words));
  printf("overlap: PASSED\n");
  return EXIT_SUCCESS;
}
