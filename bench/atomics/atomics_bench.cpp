// Atomic and shared-memory throughput from the performance counters, on every
// backend given (default: model, and rtlsim where it is built):
//   * contended vs uncontended global atomicAdd (tests/e2e/kernels/bank_conflicts.cu,
//     global_atomics: every thread on word 0, or each on its own word);
//   * a 256-bin histogram with shared-memory atomics vs one with global
//     atomics only (tests/e2e/kernels/atomic_apps.cu);
//   * a contended spin lock (atomic_apps.cu, spinlock_counter): every thread
//     of 4 blocks x 64 threads takes one lock in turn, warp-mates included
//     (docs/isa.md section 6, "Spinning"); cycles per critical section.
// Figures: cycles, atomics (counter 15), cycles per atomic, shared passes per
// access (14 / 13) and global line requests (12).  The model counts issue
// slots as cycles, so its cycle figures do not show memory contention; the
// RTL's do (docs/microarchitecture.md, "Atomics").
//
// Usage: atomics_bench [backend ...]
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kestrel/kestrel.hpp"

namespace {

using kestrel::DeviceBuffer;
using kestrel::Dim3;

void print_row(const char* what, const kestrel_counters& c) {
  const uint64_t cycles = c.value[KESTREL_CNT_CYCLES], atomics = c.value[KESTREL_CNT_ATOMICS];
  const uint64_t accesses = c.value[KESTREL_CNT_SHARED_ACCESSES];
  std::printf(
      "  %-34s %10llu cycles %8llu atomics %8.2f cycles/atomic %6.2f passes/shared access %8llu line "
      "requests\n",
      what, static_cast<unsigned long long>(cycles), static_cast<unsigned long long>(atomics),
      atomics ? static_cast<double>(cycles) / static_cast<double>(atomics) : 0.0,
      accesses ? static_cast<double>(c.value[KESTREL_CNT_SHARED_PASSES]) / static_cast<double>(accesses)
               : 0.0,
      static_cast<unsigned long long>(c.value[KESTREL_CNT_MEM_REQUESTS]));
}

int run(const std::string& backend) {
  kestrel::DeviceConfig config{};
  kestrel::Device device = kestrel::Device::open(backend, &config);
  const std::string dir = KESTREL_BENCH_MODULE_DIR;
  kestrel::Module banks = kestrel::Module::load(device, dir + "/bank_conflicts_rv64.kmod");
  kestrel::Module apps = kestrel::Module::load(device, dir + "/atomic_apps_rv64.kmod");
  std::printf("%s (rv64, %u lanes per warp):\n", backend.c_str(), device.props().warp_size);

  // Global atomics: 256 threads x 16 repetitions each.
  const uint32_t threads = 256;
  const int reps = 16;
  DeviceBuffer<uint32_t> words(device, threads), index(device, threads);
  for (bool contended : {false, true}) {
    std::vector<uint32_t> at(threads);
    for (uint32_t t = 0; t < threads; ++t) at[t] = contended ? 0 : t;
    index.upload(at);
    words.fill_bytes(0);
    banks.kernel("global_atomics").launch(Dim3(1), Dim3(threads), 0, words, index, reps);
    device.synchronize();
    print_row(contended ? "global atomicAdd, one word" : "global atomicAdd, a word per thread",
              device.counters());
    const std::vector<uint32_t> got = words.download();
    const uint32_t expect0 = contended ? threads * reps : reps;
    if (got[0] != expect0) {
      std::fprintf(stderr, "atomics_bench: wrong sum %u, expected %u\n", got[0], expect0);
      return 1;
    }
  }

  // Histograms of 16 Ki random bytes over 8 blocks of 256 threads.
  const uint32_t n = 16 * 1024;
  std::vector<uint8_t> data(n);
  std::mt19937 rng(9);
  for (auto& b : data) b = static_cast<uint8_t>(rng() % 64);  // 64 hot bins: contention
  DeviceBuffer<uint8_t> ddata(device, n);
  DeviceBuffer<uint32_t> bins(device, 256);
  ddata.upload(data);
  std::vector<uint32_t> expect(256, 0);
  for (uint8_t b : data) ++expect[b];
  for (const char* kernel : {"histogram_shared", "histogram_global"}) {
    bins.fill_bytes(0);
    apps.kernel(kernel).launch(Dim3(8), Dim3(256), 0, ddata, n, bins);
    device.synchronize();
    print_row(kernel, device.counters());
    if (bins.download() != expect) {
      std::fprintf(stderr, "atomics_bench: %s gave a wrong histogram\n", kernel);
      return 1;
    }
  }

  // The contended lock: 256 critical sections, one per thread.
  const uint32_t lock_blocks = 4, lock_threads = 64;
  DeviceBuffer<int32_t> lock(device, 1), counter(device, 1);
  lock.fill_bytes(0);
  counter.fill_bytes(0);
  apps.kernel("spinlock_counter").launch(Dim3(lock_blocks), Dim3(lock_threads), 0, lock, counter, 1);
  device.synchronize();
  const kestrel_counters c = device.counters();
  const uint64_t sections = lock_blocks * lock_threads;
  std::printf("  %-34s %10llu cycles %8llu sections %8.1f cycles/section %10llu warp-instructions\n",
              "spin lock, 4 blocks x 64 threads",
              static_cast<unsigned long long>(c.value[KESTREL_CNT_CYCLES]),
              static_cast<unsigned long long>(sections),
              static_cast<double>(c.value[KESTREL_CNT_CYCLES]) / static_cast<double>(sections),
              static_cast<unsigned long long>(c.value[KESTREL_CNT_WARP_INSTRS]));
  if (counter.download()[0] != static_cast<int32_t>(sections) || lock.download()[0] != 0) {
    std::fprintf(stderr, "atomics_bench: the spin lock's counter is %d, expected %llu\n",
                 counter.download()[0], static_cast<unsigned long long>(sections));
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> backends;
  for (int i = 1; i < argc; ++i) backends.emplace_back(argv[i]);
  if (backends.empty()) {
    std::string list = KESTREL_BENCH_BACKENDS;
    size_t start = 0;
    while (start <= list.size()) {
      const size_t comma = list.find(',', start);
      const std::string b =
          list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!b.empty()) backends.push_back(b);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  try {
    for (const std::string& b : backends)
      if (run(b) != 0) return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "atomics_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
