// Cooperative groups (cooperative_groups.h, cooperative_groups/reduce.h):
// thread_block, static and dynamic tiles with their shuffles, votes and
// reductions, coalesced groups in divergent code, and grid-wide
// synchronization through cudaLaunchCooperativeKernel, which refuses a grid
// whose blocks cannot all be resident.  Expected values are computed on the
// host from the definitions.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

constexpr int kBlockX = 16, kBlockY = 4, kBlocks = 2;  // 64 threads, 2 warps, per block
constexpr int kThreads = kBlockX * kBlockY;
constexpr int kFields = 20;

// One row of kFields results per thread.
__global__ void groups(int* out) {
  cg::thread_block block = cg::this_thread_block();
  const unsigned int rank = block.thread_rank();
  int* row = out + (blockIdx.x * kThreads + rank) * kFields;
  const dim3 index = block.thread_index(), group = block.group_index(), dims = block.dim_threads();
  row[0] = (int)rank;
  row[1] = (int)block.size() * 1000 + (int)block.num_threads();
  row[2] = (int)(index.x + 100 * index.y + 10000 * group.x);
  row[3] = (int)(dims.x * 100 + dims.y);

  cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
  const int value = (int)(rank * 7 % 13);  // 0..12, differs within a tile
  row[4] = (int)(tile8.thread_rank() + 100 * tile8.meta_group_rank() + 10000 * tile8.meta_group_size());
  row[5] = cg::reduce(tile8, value, cg::plus<int>());
  row[6] = cg::reduce(tile8, value, cg::less<int>()) * 100 + cg::reduce(tile8, value, cg::greater<int>());
  row[7] = (int)cg::reduce(tile8, (unsigned int)value + 1u, cg::bit_or<unsigned int>()) * 10000 +
           (int)cg::reduce(tile8, (unsigned int)value | 16u, cg::bit_and<unsigned int>()) * 100 +
           (int)cg::reduce(tile8, (unsigned int)value, cg::bit_xor<unsigned int>());
  row[8] = tile8.shfl(value, 3) * 10000 + tile8.shfl_down(value, 2) * 100 + tile8.shfl_up(value, 1);
  row[9] = tile8.shfl_xor(value, 5);
  row[10] = (int)tile8.ballot(value > 6) * 100 + tile8.any(value == 12) * 10 + tile8.all(value < 13);
  // A double moves as two words.
  const double wide = 0.5 + rank;
  row[11] = (int)(tile8.shfl(wide, 7) * 2.0);

  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  row[12] = cg::reduce(warp, value, cg::plus<int>());
  row[13] = (int)(warp.meta_group_rank() * 100 + warp.thread_rank());

  // Tiles with their size chosen at run time, and a tile of a tile.
  cg::thread_group tile4 = cg::tiled_partition(block, 4);
  row[14] = (int)(tile4.thread_rank() + 100 * tile4.size());
  tile4.sync();
  cg::thread_block_tile<4> quarter = cg::tiled_partition<4>(warp);
  row[15] = (int)(quarter.meta_group_rank() * 100 + quarter.thread_rank());
  cg::thread_group pair = cg::tiled_partition(tile8, 2);
  row[16] = (int)(pair.thread_rank() + 100 * pair.meta_group_rank());

  // Coalesced groups: the odd lanes of each warp, then the lanes below 5.
  row[17] = row[18] = row[19] = -1;
  const unsigned int lane = rank % 32;
  if (lane % 2 == 1) {
    cg::coalesced_group odd = cg::coalesced_threads();
    const int sum = cg::reduce(odd, (int)lane, cg::plus<int>());  // 1 + 3 + ... + 31 = 256
    row[17] = (int)(odd.size() * 1000 + odd.thread_rank() * 10) + (sum == 256);
    row[18] = odd.shfl((int)lane, 2) * 100 + odd.shfl_down((int)lane, 1);
    row[19] = (int)odd.ballot(lane > 24);
    odd.sync();
  } else if (lane < 5) {
    cg::coalesced_group low = cg::coalesced_threads();  // lanes 0, 2, 4
    row[17] = (int)(low.size() * 1000 + low.thread_rank() * 10) + (cg::reduce(low, 1, cg::plus<int>()) == 3);
    row[18] = low.shfl_up((int)lane, 1) * 100 + (int)low.thread_rank();
    row[19] = (int)low.ballot(lane == 2) + 100 * low.all(lane < 5);
  }
}

// Scans and partitions in one warp: one row of 6 results per lane.
constexpr int kPartitionFields = 6;
__global__ void scans_and_partitions(int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
  const int lane = (int)warp.thread_rank();
  int* row = out + lane * kPartitionFields;
  row[0] = cg::inclusive_scan(tile8, lane + 1) * 1000 + cg::exclusive_scan(tile8, lane + 1);
  row[1] = cg::inclusive_scan(tile8, lane * 7 % 13, cg::greater<int>());
  cg::coalesced_group same = cg::labeled_partition(warp, lane % 3);
  row[2] = (int)(same.size() * 100 + same.thread_rank());
  cg::coalesced_group side = cg::binary_partition(warp, lane < 10);
  row[3] = (int)(side.size() * 100 + side.thread_rank());
  row[4] = cg::reduce(side, lane, cg::plus<int>());
  row[5] = -1;
  if (lane % 2 == 1) row[5] = cg::exclusive_scan(cg::coalesced_threads(), 2);
}

// Tiles of several warps: 192 threads per block, so the second 128-thread
// tile has only two warps.  One row of kLargeFields results per thread.
constexpr int kLargeThreads = 192, kLargeFields = 5;
__global__ void large_tiles(int* out) {
  __shared__ cg::block_tile_memory<kLargeThreads> scratch;
  __shared__ int values[kLargeThreads];
  cg::thread_block cta = cg::this_thread_block(scratch);
  cg::thread_block_tile<64> tile64 = cg::tiled_partition<64>(cta);
  auto tile128 = cg::tiled_partition<128>(cta);
  const int rank = (int)cta.thread_rank(), start = rank / 64 * 64;
  const int partner = start + (rank - start + 32) % 64;  // in the tile's other warp
  int* row = out + (blockIdx.x * kLargeThreads + rank) * kLargeFields;
  row[0] = cg::reduce(tile64, rank, cg::plus<int>());
  row[1] = cg::reduce(tile128, 1, cg::plus<int>()) * 1000 +
           (int)(tile128.meta_group_rank() * 100 + tile128.meta_group_size());
  values[rank] = rank * 3 + (int)blockIdx.x;
  tile64.sync();
  row[2] = values[partner];
  row[3] = -1;
  if (tile64.meta_group_rank() == 1) {  // one tile synchronizes on its own
    values[rank] = -rank;
    tile64.sync();
    row[3] = values[partner];
  }
  row[4] = cg::reduce(tile128, rank, cg::greater<int>());
}

// Each of `rounds` rounds: every block writes its slot after a delay that
// grows with its index, the grid synchronizes, every block checks every
// other block's slot, the grid synchronizes again before the slots are
// rewritten.  Without a working barrier the early blocks read stale slots.
__global__ void exchange(unsigned int* slots, unsigned int* errors, int rounds, int* valid) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  if (grid.thread_rank() == 0) *valid = grid.is_valid() ? 1 : 0;
  const unsigned int blocks = (unsigned int)grid.num_blocks();
  for (int round = 1; round <= rounds; ++round) {
    if (block.thread_rank() == 0) {
      __nanosleep(2000u * blockIdx.x);
      slots[blockIdx.x] = (unsigned int)round * 1000u + blockIdx.x;
    }
    grid.sync();
    for (unsigned int b = block.thread_rank(); b < blocks; b += block.size())
      if (slots[b] != (unsigned int)round * 1000u + b) atomicAdd(errors, 1u);
    grid.sync();
  }
}

// this_grid().is_valid() outside a cooperative launch.
__global__ void validity(int* valid) {
  if (threadIdx.x == 0) *valid = cg::this_grid().is_valid() ? 1 : 0;
}

static int failures = 0;
static void expect(const char* what, long long got, long long want) {
  if (got == want) return;
  if (++failures <= 20) fprintf(stderr, "%s: got %lld, expected %lld\n", what, got, want);
}

#define CHECK(call)                                                 \
  do {                                                              \
    cudaError_t err_ = (call);                                      \
    if (err_ != cudaSuccess) {                                      \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_)); \
      return EXIT_FAILURE;                                          \
    }                                                               \
  } while (0)

static int expected_field(int block, int rank, int field) {
  auto value_of = [](int r) { return r * 7 % 13; };
  const int tile = rank / 8 * 8, lane = rank % 32, tile_rank = rank % 8;
  switch (field) {
    case 0:
      return rank;
    case 1:
      return kThreads * 1000 + kThreads;
    case 2:
      return rank % kBlockX + 100 * (rank / kBlockX) + 10000 * block;
    case 3:
      return kBlockX * 100 + kBlockY;
    case 4:
      return tile_rank + 100 * (rank / 8) + 10000 * (kThreads / 8);
    case 5: {
      int sum = 0;
      for (int i = 0; i < 8; ++i) sum += value_of(tile + i);
      return sum;
    }
    case 6: {
      int low = 99, high = -1;
      for (int i = 0; i < 8; ++i)
        low = std::min(low, value_of(tile + i)), high = std::max(high, value_of(tile + i));
      return low * 100 + high;
    }
    case 7: {
      unsigned int o = 0, a = ~0u, x = 0;
      for (int i = 0; i < 8; ++i) {
        o |= (unsigned int)value_of(tile + i) + 1u;
        a &= (unsigned int)value_of(tile + i) | 16u;
        x ^= (unsigned int)value_of(tile + i);
      }
      return (int)(o * 10000 + a * 100 + x);
    }
    case 8: {
      const int down = tile_rank + 2 < 8 ? value_of(rank + 2) : value_of(rank);
      const int up = tile_rank >= 1 ? value_of(rank - 1) : value_of(rank);
      return value_of(tile + 3) * 10000 + down * 100 + up;
    }
    case 9:
      return value_of(tile + (tile_rank ^ 5));
    case 10: {
      int ballot = 0, any = 0, all = 1;
      for (int i = 0; i < 8; ++i) {
        ballot |= (value_of(tile + i) > 6) << i;
        any |= value_of(tile + i) == 12;
        all &= value_of(tile + i) < 13;
      }
      return ballot * 100 + any * 10 + all;
    }
    case 11:
      return (tile + 7) * 2 + 1;
    case 12: {
      int sum = 0;
      for (int i = 0; i < 32; ++i) sum += value_of(rank / 32 * 32 + i);
      return sum;
    }
    case 13:
      return rank / 32 * 100 + lane;
    case 14:
      return rank % 4 + 400;
    case 15:
      return lane / 4 * 100 + lane % 4;
    case 16:
      return tile_rank % 2 + 100 * (tile_rank / 2);
    case 17:
      if (lane % 2 == 1) return 16 * 1000 + lane / 2 * 10 + 1;
      if (lane < 5) return 3 * 1000 + lane / 2 * 10 + 1;
      return -1;
    case 18:
      if (lane % 2 == 1) return 5 * 100 + (lane < 31 ? lane + 2 : lane);
      if (lane < 5) return (lane >= 2 ? lane - 2 : lane) * 100 + lane / 2;
      return -1;
    case 19:
      if (lane % 2 == 1) return 0xF000;  // ranks 12 to 15: lanes 25, 27, 29, 31
      if (lane < 5) return 2 + 100;
      return -1;
  }
  return -1;
}

int main() {
  // Groups inside a block.
  int* d_out;
  const size_t out_bytes = kBlocks * kThreads * kFields * sizeof(int);
  CHECK(cudaMalloc(&d_out, out_bytes));
  groups<<<kBlocks, dim3(kBlockX, kBlockY)>>>(d_out);
  CHECK(cudaGetLastError());
  std::vector<int> out(kBlocks * kThreads * kFields);
  CHECK(cudaMemcpy(out.data(), d_out, out_bytes, cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b)
    for (int r = 0; r < kThreads; ++r)
      for (int f = 0; f < kFields; ++f) {
        char what[64];
        snprintf(what, sizeof what, "block %d thread %d field %d", b, r, f);
        expect(what, out[(b * kThreads + r) * kFields + f], expected_field(b, r, f));
      }

  // Scans and partitions.
  int* d_part;
  CHECK(cudaMalloc(&d_part, 32 * kPartitionFields * sizeof(int)));
  scans_and_partitions<<<1, 32>>>(d_part);
  CHECK(cudaGetLastError());
  std::vector<int> part(32 * kPartitionFields);
  CHECK(cudaMemcpy(part.data(), d_part, part.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int lane = 0; lane < 32; ++lane) {
    const int tile = lane / 8 * 8;
    int inclusive = 0, running_max = -1;
    for (int i = tile; i <= lane; ++i) inclusive += i + 1, running_max = std::max(running_max, i * 7 % 13);
    const int label_size = lane % 3 == 2 ? 10 : 11;
    const int side_size = lane < 10 ? 10 : 22, side_rank = lane < 10 ? lane : lane - 10;
    const int side_sum = lane < 10 ? 45 : 496 - 45;
    const int want[kPartitionFields] = {inclusive * 1000 + inclusive - (lane + 1),
                                        running_max,
                                        label_size * 100 + lane / 3,
                                        side_size * 100 + side_rank,
                                        side_sum,
                                        lane % 2 == 1 ? 2 * (lane / 2) : -1};
    for (int f = 0; f < kPartitionFields; ++f) {
      char what[64];
      snprintf(what, sizeof what, "scans/partitions lane %d field %d", lane, f);
      expect(what, part[lane * kPartitionFields + f], want[f]);
    }
  }
  CHECK(cudaFree(d_part));

  // Tiles of several warps.
  int* d_large;
  const size_t large_bytes = 2 * kLargeThreads * kLargeFields * sizeof(int);
  CHECK(cudaMalloc(&d_large, large_bytes));
  large_tiles<<<2, kLargeThreads>>>(d_large);
  CHECK(cudaGetLastError());
  std::vector<int> large(2 * kLargeThreads * kLargeFields);
  CHECK(cudaMemcpy(large.data(), d_large, large_bytes, cudaMemcpyDeviceToHost));
  for (int b = 0; b < 2; ++b)
    for (int rank = 0; rank < kLargeThreads; ++rank) {
      const int start = rank / 64 * 64, partner = start + (rank - start + 32) % 64;
      const int start128 = rank / 128 * 128, live128 = std::min(128, kLargeThreads - start128);
      const int want[kLargeFields] = {64 * start + 2016, live128 * 1000 + rank / 128 * 100 + 2,
                                      partner * 3 + b, start == 64 ? -partner : -1, start128 + live128 - 1};
      for (int f = 0; f < kLargeFields; ++f) {
        char what[64];
        snprintf(what, sizeof what, "large tiles block %d thread %d field %d", b, rank, f);
        expect(what, large[(b * kLargeThreads + rank) * kLargeFields + f], want[f]);
      }
    }
  CHECK(cudaFree(d_large));

  // The largest cooperative grid: every block resident at once.
  int device = 0, sms = 0, per_sm = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int threads = 64;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, exchange, threads, 0));
  const int blocks = sms * per_sm;
  unsigned int *d_slots, *d_errors;
  int* d_valid;
  CHECK(cudaMalloc(&d_slots, blocks * sizeof(unsigned int)));
  CHECK(cudaMalloc(&d_errors, sizeof(unsigned int)));
  CHECK(cudaMalloc(&d_valid, sizeof(int)));
  CHECK(cudaMemset(d_slots, 0, blocks * sizeof(unsigned int)));
  CHECK(cudaMemset(d_errors, 0, sizeof(unsigned int)));
  int rounds = 3;
  void* args[] = {&d_slots, &d_errors, &rounds, &d_valid};
  CHECK(cudaLaunchCooperativeKernel((void*)exchange, blocks, threads, args, 0, 0));
  unsigned int errors = 0;
  int valid = 0;
  CHECK(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&valid, d_valid, sizeof valid, cudaMemcpyDeviceToHost));
  expect("grid exchange errors", errors, 0);
  expect("grid.is_valid() in a cooperative launch", valid, 1);
  // The template form, a second time (the barrier starts afresh).
  CHECK(cudaLaunchCooperativeKernel(exchange, dim3(blocks / 2), dim3(threads), args));
  CHECK(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
  expect("grid exchange errors (second launch)", errors, 0);

  // One block more than fits is refused, and the error is not sticky.
  expect("too large a cooperative grid",
         cudaLaunchCooperativeKernel((void*)exchange, blocks + 1, threads, args, 0, 0),
         cudaErrorCooperativeLaunchTooLarge);
  expect("cudaGetLastError after the refusal", cudaGetLastError(), cudaErrorCooperativeLaunchTooLarge);
  // Dynamic shared memory counts: with what is left of an SM's shared memory
  // after the module's static variables, one block per SM.
  int shared_per_block = 0;
  CHECK(cudaDeviceGetAttribute(&shared_per_block, cudaDevAttrMaxSharedMemoryPerBlock, device));
  cudaFuncAttributes attributes;
  CHECK(cudaFuncGetAttributes(&attributes, exchange));
  const size_t dynamic_shared = (size_t)shared_per_block - attributes.sharedSizeBytes;
  expect("a cooperative grid too large for its shared memory",
         cudaLaunchCooperativeKernel((void*)exchange, sms + 1, threads, args, dynamic_shared, 0),
         cudaErrorCooperativeLaunchTooLarge);
  cudaGetLastError();
  CHECK(cudaLaunchCooperativeKernel((void*)exchange, sms, threads, args, dynamic_shared, 0));
  CHECK(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
  expect("grid exchange errors (one block per SM)", errors, 0);
  validity<<<1, 32>>>(d_valid);
  CHECK(cudaMemcpy(&valid, d_valid, sizeof valid, cudaMemcpyDeviceToHost));
  expect("grid.is_valid() in an ordinary launch", valid, 0);
  // grid.sync() outside a cooperative launch stops the kernel with an
  // assertion instead of hanging; it is the last launch, the error is sticky.
  exchange<<<2, threads>>>(d_slots, d_errors, 1, d_valid);
  expect("grid.sync() in an ordinary launch", cudaDeviceSynchronize(), cudaErrorAssert);
  if (failures != 0) {
    printf("cooperative_groups: %d mismatches\n", failures);
    return EXIT_FAILURE;
  }
  printf("cooperative_groups: groups in %d blocks, grid sync over %d blocks: PASSED\n", kBlocks, blocks);
  return 0;
}
