// The runtime soak (docs/reliability.md, "Stress"): several host threads,
// each on its own stream, launch kernels and copy their results back, and
// every result is checked; between their rounds the device is hit by what
// goes wrong in a long run: a faulting kernel on one stream mid-round (the
// error is sticky for every thread until cudaDeviceReset, guide 3.2.12), a
// device reset, and memory exhaustion (cudaMalloc until
// cudaErrorMemoryAllocation while the others run, then free and go on).
//
// Bounded by time: KESTREL_SOAK_SECONDS (2 by default, so that `make test`
// and the sanitizer build run it briefly; long.cuda.soak in `make test-long`
// runs it for minutes), and at least kMinRounds rounds so that every
// disturbance happens.  Part of kestrel_cuda_api_tests (each test its own
// process); in the sanitizer build ASan and LSan watch the whole run.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuda_runtime.h"
#include "misuse_kernels.h"

namespace {

constexpr int kThreads = 4;
// At least this many rounds (KESTREL_SOAK_MIN_ROUNDS): each disturbance twice.
constexpr int kMinRounds = 8;
// Each launch is 8 blocks of up to 128 threads (fewer where the device's
// blocks are smaller: rtlsim's small preset), one element a thread.
constexpr int kBlocksPerLaunch = 8;
constexpr int kLaunchesPerBatch = 3;

int min_rounds() {
  const char* text = std::getenv("KESTREL_SOAK_MIN_ROUNDS");
  if (text == nullptr || *text == '\0') return kMinRounds;
  const int value = std::atoi(text);
  if (value < 4) {
    ADD_FAILURE() << "KESTREL_SOAK_MIN_ROUNDS='" << text
                  << "' is not a number of rounds >= 4 (one of each kind)";
    return kMinRounds;
  }
  return value;
}

double soak_seconds() {
  const char* text = std::getenv("KESTREL_SOAK_SECONDS");
  if (text == nullptr || *text == '\0') return 2.0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || value < 0) {
    ADD_FAILURE() << "KESTREL_SOAK_SECONDS='" << text << "' is not a number of seconds";
    return 2.0;
  }
  return value;
}

// A reusable barrier for kThreads workers and the conductor.
class Barrier {
 public:
  explicit Barrier(int parties) : parties_(parties) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const uint64_t generation = generation_;
    if (++arrived_ == parties_) {
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
      return;
    }
    changed_.wait(lock, [&] { return generation_ != generation; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  const int parties_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
};

// What a round does besides the workers' kernels.
enum class Disturbance { kNone, kFault, kExhaustion, kReset };

Disturbance disturbance_of(int round) {
  switch (round % 4) {
    case 1:
      return Disturbance::kFault;
    case 2:
      return Disturbance::kExhaustion;
    case 3:
      return Disturbance::kReset;
    default:
      return Disturbance::kNone;
  }
}

struct Tally {
  std::atomic<uint64_t> launches{0};
  std::atomic<uint64_t> checked{0};    // batches whose every element was checked
  std::atomic<uint64_t> sticky{0};     // operations refused for the injected fault
  std::atomic<uint64_t> exhausted{0};  // cudaMalloc calls refused for lack of memory
  std::atomic<uint64_t> exhaust_bytes{0};
};

// One worker's round: a stream and a buffer of its own, batches of launches
// until the conductor says stop, each batch's result copied back and checked.
// `faulting`: this worker injects the fault, a kernel that writes through a
// null pointer, after its first batch.  Returns an empty string or what was
// wrong.
// `allocated` counts the workers whose stream and buffer exist (the
// conductor exhausts memory only after that).
// `host` and `back`: the worker's host buffers, which outlive its rounds: once
// the device has faulted, copies already queued on the worker's stream may
// still run until cudaDeviceReset (which waits for the device to go idle),
// and the runtime reads and writes host memory when a copy runs, not when it
// is queued (docs/reliability.md, "Stress").
std::string worker_round(int id, int round, int block, bool faulting, const std::atomic<bool>& stop,
                         std::atomic<int>& allocated, std::vector<int>& host, std::vector<int>& back,
                         Tally& tally) {
  const int elements = block * kBlocksPerLaunch;
  cudaStream_t stream = nullptr;
  int* device = nullptr;
  const cudaError_t created = cudaStreamCreate(&stream);
  const cudaError_t got = cudaMalloc(&device, elements * sizeof(int));
  ++allocated;
  if (created != cudaSuccess) return std::string("cudaStreamCreate: ") + cudaGetErrorName(created);
  if (got != cudaSuccess) return std::string("cudaMalloc: ") + cudaGetErrorName(got);
  host.resize(elements);
  back.resize(elements);
  std::string failure;
  bool faulted = false;  // the device's sticky error is set
  for (int batch = 0; failure.empty() && !faulted && (batch < 2 || !stop.load()); ++batch) {
    for (int i = 0; i < elements; ++i) host[i] = (id << 24) ^ (round << 12) ^ (batch * 7 + i);
    cudaError_t e =
        cudaMemcpyAsync(device, host.data(), elements * sizeof(int), cudaMemcpyHostToDevice, stream);
    for (int k = 0; k < kLaunchesPerBatch && e == cudaSuccess; ++k) {
      e = launch_add_one(device, elements, dim3(kBlocksPerLaunch), dim3(block), 0, stream);
      tally.launches += e == cudaSuccess;
    }
    if (faulting && batch == 1 && e == cudaSuccess) {
      // Every worker has its stream and buffer first: the fault lands on
      // work in flight, not on a round's setup.
      while (allocated.load() < kThreads) std::this_thread::yield();
      int value = id;
      void* args[] = {&value};
      e = cudaLaunchKernel(null_writer_kernel(), dim3(1), dim3(1), args, 0, stream);
      if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
      if (e != cudaErrorIllegalAddress) {
        failure = std::string("the injected fault gave ") + cudaGetErrorName(e);
        break;
      }
    }
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(back.data(), device, elements * sizeof(int), cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e == cudaErrorIllegalAddress) {
      // Another worker's (or this one's) injected fault: sticky for all.
      faulted = true;
      ++tally.sticky;
      break;
    }
    if (e != cudaSuccess) {
      failure = std::string("batch ") + std::to_string(batch) + ": " + cudaGetErrorName(e) + ": " +
                cudaGetErrorString(e);
      break;
    }
    for (int i = 0; i < elements; ++i) {
      if (back[i] != host[i] + kLaunchesPerBatch) {
        failure = "batch " + std::to_string(batch) + " element " + std::to_string(i) + " is " +
                  std::to_string(back[i]) + ", not " + std::to_string(host[i] + kLaunchesPerBatch);
        break;
      }
    }
    ++tally.checked;
  }
  // Once the device has faulted, the allocation and the stream go with the
  // reset that follows: freeing them is refused with the sticky error (the
  // fault may also land between this worker's last check and here).
  if (!faulted) {
    for (const cudaError_t e : {cudaFree(device), cudaStreamDestroy(stream)}) {
      if (e == cudaErrorIllegalAddress) {
        ++tally.sticky;
      } else if (e != cudaSuccess && failure.empty()) {
        failure = std::string("releasing the round's buffer and stream: ") + cudaGetErrorName(e);
      }
    }
  }
  return failure;
}

// Memory exhaustion while the workers run: allocate until the runtime says
// cudaErrorMemoryAllocation, check that the error is not sticky (the next
// small allocation works), free everything.
std::string exhaust_memory(Tally& tally) {
  std::vector<void*> blocks;
  size_t chunk = size_t{16} << 20;
  size_t total = 0;
  std::string failure;
  while (chunk >= 4096) {
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, chunk);
    if (e == cudaSuccess) {
      blocks.push_back(p);
      total += chunk;
      continue;
    }
    if (e != cudaErrorMemoryAllocation) {
      failure = std::string("cudaMalloc while exhausting memory: ") + cudaGetErrorName(e);
      break;
    }
    if (p != nullptr) {
      failure = "a refused cudaMalloc left its pointer set";
      break;
    }
    ++tally.exhausted;
    chunk /= 2;
  }
  if (failure.empty() && tally.exhausted.load() == 0) failure = "memory never ran out";
  // The refusal is not sticky (guide 3.2.12: only launch faults are).
  (void)cudaGetLastError();
  for (void* p : blocks)
    if (cudaFree(p) != cudaSuccess && failure.empty()) failure = "cudaFree after exhaustion failed";
  tally.exhaust_bytes += total;
  void* again = nullptr;
  if (failure.empty() && cudaMalloc(&again, size_t{1} << 20) != cudaSuccess)
    failure = "cudaMalloc after freeing the exhausted memory failed";
  if (again != nullptr) (void)cudaFree(again);
  return failure;
}

TEST(Soak, ThreadsStreamsFaultsResetsAndExhaustion) {
  const double seconds = soak_seconds();
  const int least = min_rounds();
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // the context, before the threads
  cudaDeviceProp prop;
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  const int block = prop.maxThreadsPerBlock < 128 ? prop.maxThreadsPerBlock : 128;

  Tally tally;
  Barrier barrier(kThreads + 1);
  std::atomic<bool> stop{false};
  std::atomic<bool> finished{false};
  std::atomic<int> round{0};
  std::atomic<int> allocated{0};
  std::vector<std::string> failures(kThreads);
  std::vector<std::vector<int>> host_buffers(kThreads), back_buffers(kThreads);
  std::vector<std::thread> workers;
  for (int id = 0; id < kThreads; ++id) {
    workers.emplace_back([&, id] {
      // Each thread's current device is its own (guide 3.2.9.1).
      if (cudaSetDevice(0) != cudaSuccess) failures[id] = "cudaSetDevice failed";
      for (;;) {
        barrier.arrive_and_wait();  // round start
        if (finished.load()) return;
        const int r = round.load();
        const bool faulting = disturbance_of(r) == Disturbance::kFault && id == r % kThreads;
        if (failures[id].empty())
          failures[id] = worker_round(id, r, block, faulting, stop, allocated, host_buffers[id],
                                      back_buffers[id], tally);
        else
          ++allocated;
        barrier.arrive_and_wait();  // round end
      }
    });
  }

  std::string conductor_failure;
  size_t free_baseline = 0;
  int rounds = 0;
  for (; rounds < least || elapsed() < seconds; ++rounds) {
    round = rounds;
    stop = false;
    allocated = 0;
    barrier.arrive_and_wait();  // the workers start
    const Disturbance d = disturbance_of(rounds);
    while (allocated.load() < kThreads) std::this_thread::yield();
    if (d == Disturbance::kExhaustion && conductor_failure.empty()) conductor_failure = exhaust_memory(tally);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stop = true;
    barrier.arrive_and_wait();  // the workers are done
    bool failed = !conductor_failure.empty();
    for (const std::string& f : failures) failed = failed || !f.empty();
    if (failed) break;
    const cudaError_t synchronized = cudaDeviceSynchronize();
    // Reads (and clears) this thread's last error; a sticky error stays.
    const cudaError_t sticky = cudaGetLastError();
    if (d == Disturbance::kFault) {
      // The fault is sticky until the reset (guide 3.2.12).
      if (sticky != cudaErrorIllegalAddress || synchronized != cudaErrorIllegalAddress) {
        conductor_failure =
            std::string("after the injected fault the device says ") + cudaGetErrorName(sticky);
        break;
      }
    } else if (sticky != cudaSuccess &&
               !(d == Disturbance::kExhaustion && sticky == cudaErrorMemoryAllocation)) {
      conductor_failure =
          std::string("round ") + std::to_string(rounds) + " left " + cudaGetErrorName(sticky);
      break;
    }
    if (d == Disturbance::kNone) {
      // Device memory does not leak: after each undisturbed round (the
      // module loaded again after the last reset, every buffer freed) as
      // much is free as after the first.
      size_t free_now = 0, total = 0;
      if (cudaMemGetInfo(&free_now, &total) != cudaSuccess) {
        conductor_failure = "cudaMemGetInfo failed";
        break;
      }
      if (free_baseline == 0) free_baseline = free_now;
      if (free_now != free_baseline) {
        conductor_failure = "round " + std::to_string(rounds) + " ends with " + std::to_string(free_now) +
                            " bytes free, round 0 with " + std::to_string(free_baseline);
        break;
      }
    }
    if (d == Disturbance::kFault || d == Disturbance::kReset) {
      const cudaError_t reset = cudaDeviceReset();
      const cudaError_t after = cudaGetLastError();
      if (reset != cudaSuccess || after != cudaSuccess) {
        conductor_failure = std::string("cudaDeviceReset gave ") + cudaGetErrorName(reset) + ", then " +
                            cudaGetErrorName(after);
        break;
      }
    }
  }
  finished = true;
  barrier.arrive_and_wait();
  for (std::thread& t : workers) t.join();

  for (int id = 0; id < kThreads; ++id) EXPECT_EQ(failures[id], "") << "worker " << id;
  EXPECT_EQ(conductor_failure, "");
  EXPECT_GE(rounds, least);
  EXPECT_GT(tally.checked.load(), 0u);
  EXPECT_GT(tally.sticky.load(), 0u);
  EXPECT_GT(tally.exhausted.load(), 0u);
  std::printf(
      "soak: %d rounds in %.1f s, %d threads: %llu launches, %llu batches checked, %llu operations "
      "refused for an injected fault, %llu allocations refused for lack of memory (%llu MiB taken), "
      "%zu bytes free after each undisturbed round\n",
      rounds, elapsed(), kThreads, static_cast<unsigned long long>(tally.launches.load()),
      static_cast<unsigned long long>(tally.checked.load()),
      static_cast<unsigned long long>(tally.sticky.load()),
      static_cast<unsigned long long>(tally.exhausted.load()),
      static_cast<unsigned long long>(tally.exhaust_bytes.load() >> 20), free_baseline);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
}

}  // namespace
