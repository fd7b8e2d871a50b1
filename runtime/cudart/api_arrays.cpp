// CUDA arrays, 3D copies and pitched 2D/3D memory (guide 3.2.2, 3.2.11.1.1,
// 3.2.11.2).  An array is an image in device memory in the layout
// docs/cuda-runtime.md ("CUDA arrays") gives: rows of width texels a memory
// line apart, slices (3D depth, layers, cube faces) one after another.
// Copies move it row by row through the same device context operations as
// cudaMemcpy2D.  The argument checks and their error codes are CUDA's as an
// H100 answered them (tests/cuda/reference/nvidia_texture/array_api_errors.*).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api_common.hpp"
#include "cuda_arrays.hpp"
#include "managed_memory.hpp"

using namespace kestrel::cudart;

namespace {

std::mutex g_arrays_mutex;
std::map<const cudaArray*, std::unique_ptr<cudaArray>>& arrays() {
  static std::map<const cudaArray*, std::unique_ptr<cudaArray>> live;
  return live;
}

[[noreturn]] void refuse_size(const char* api, const std::string& what) {
  reject(cudaErrorInvalidValue, std::string(api) + ": " + what +
                                    " (guide appendix G.1's limits for compute capability 6.x; "
                                    "cudaDeviceProp::maxTexture* and maxSurface*)");
}

// Checks `extent` and `flags` as cudaMalloc3DArray takes them; `api` names the call.
void check_shape(const char* api, const cudaExtent& e, unsigned flags) {
  const unsigned known =
      cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap | cudaArrayTextureGather;
  require((flags & ~known) == 0, cudaErrorInvalidValue);
  require(e.width != 0, cudaErrorInvalidValue);
  const bool surface = (flags & cudaArraySurfaceLoadStore) != 0;
  const bool layered = (flags & cudaArrayLayered) != 0;
  if ((flags & cudaArrayTextureGather) != 0) {
    require(!layered && (flags & cudaArrayCubemap) == 0 && e.height != 0 && e.depth == 0,
            cudaErrorInvalidValue);
    if (e.width > kMaxGather2D || e.height > kMaxGather2D)
      refuse_size(api, "a gather array beyond 16384 x 16384");
  }
  if ((flags & cudaArrayCubemap) != 0) {
    // Square faces, six per cubemap (guide 3.2.11.1.5, 3.2.11.1.6).
    require(e.width == e.height, cudaErrorInvalidValue);
    require(layered ? e.depth != 0 && e.depth % 6 == 0 : e.depth == 6, cudaErrorInvalidValue);
    if (e.width > kMaxCubemap) refuse_size(api, "a cubemap wider than 16384");
    if (layered && e.depth > kMaxCubemapLayers) refuse_size(api, "a layered cubemap of more than 2046 faces");
    return;
  }
  if (layered) {
    require(e.depth != 0, cudaErrorInvalidValue);
    if (e.width > kMaxLayeredWidth || e.height > kMaxLayeredWidth || e.depth > kMaxLayers)
      refuse_size(api, "a layered array beyond 16384 x 16384 x 2048 layers");
    return;
  }
  if (e.height == 0) {
    require(e.depth == 0, cudaErrorInvalidValue);
    if (e.width > kMax1D) refuse_size(api, "a 1D array wider than 65536");
    return;
  }
  if (e.depth == 0) {
    if (e.width > kMax2DWidth || e.height > (surface ? kMaxSurface2DHeight : kMax2DHeight))
      refuse_size(api,
                  surface ? "a 2D surface array beyond 65536 x 32768" : "a 2D array beyond 65536 x 65535");
    return;
  }
  if (e.width > kMax3D || e.height > kMax3D || e.depth > (surface ? kMaxSurface3DDepth : kMax3D))
    refuse_size(api, surface ? "a 3D surface array beyond 4096 x 4096 x 2048"
                             : "a 3D array beyond 4096 x 4096 x 4096");
}

// Makes the array record and its device memory; `extent` and `desc` are checked.
std::unique_ptr<cudaArray> make_array(DeviceState& device, const cudaChannelFormatDesc* desc,
                                      cudaExtent extent, unsigned flags) {
  const size_t texel = texel_bytes_of(*desc);
  auto record = std::make_unique<cudaArray>();
  record->device = &device;
  record->desc = *desc;
  record->extent = extent;
  record->flags = flags;
  record->texel_bytes = texel;
  record->row_bytes = extent.width * texel;
  record->pitch = (record->row_bytes + kArrayRowAlignment - 1) / kArrayRowAlignment * kArrayRowAlignment;
  record->rows = std::max<size_t>(extent.height, 1);
  record->slices = std::max<size_t>(extent.depth, 1);
  record->slice_pitch = record->pitch * record->rows;
  // Within the limits this is at most 64 KiB x 16 B x 64 Ki rows: no overflow,
  // though far more than a device holds (cudaErrorMemoryAllocation).
  const size_t bytes = record->slice_pitch * record->slices;
  check(device.run_sync([&](DeviceState& d) { record->base = d.context().allocate(bytes); }));
  return record;
}

void allocate_array(const char* api, cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                    unsigned flags) {
  require(array != nullptr && desc != nullptr, cudaErrorInvalidValue);
  *array = nullptr;
  (void)texel_bytes_of(*desc);  // checks the format first, as cudaMalloc3DArray does
  check_shape(api, extent, flags);
  std::unique_ptr<cudaArray> record = make_array(current_device(), desc, extent, flags);
  std::lock_guard<std::mutex> lock(g_arrays_mutex);
  *array = record.get();
  arrays()[record.get()] = std::move(record);
}

void release_array(const cudaArray& record) {
  const uint64_t base = record.base;
  check(record.device->run_sync([base](DeviceState& d) { d.context().release(base); }));
}

// ---- Mipmapped arrays (guide 3.2.11.1) ----------------------------------------------

std::map<const cudaMipmappedArray*, std::unique_ptr<cudaMipmappedArray>>& mipmaps() {
  static std::map<const cudaMipmappedArray*, std::unique_ptr<cudaMipmappedArray>> live;
  return live;
}

// Level `level`'s extent of a mipmapped array of level-0 extent `e`: width,
// height and a 3D depth halve (rounding down, at least 1); an axis that is
// 0 (absent) stays 0, layers and cube faces stay (the H100's answers in
// texture_mipmap.expected: 20 x 9 x 5 has levels 10 x 4 x 2, 5 x 2 x 1, ...).
cudaExtent level_extent(const cudaExtent& e, unsigned flags, unsigned level) {
  auto halve = [level](size_t n) { return n == 0 ? 0 : std::max<size_t>(n >> level, 1); };
  const bool slices_are_depth = (flags & (cudaArrayLayered | cudaArrayCubemap)) == 0;
  return make_cudaExtent(halve(e.width), halve(e.height), slices_are_depth ? halve(e.depth) : e.depth);
}

// 1 + floor(log2) of the largest halving axis: the levels down to 1 x 1 x 1.
unsigned full_chain_levels(const cudaExtent& e, unsigned flags) {
  size_t largest = std::max(e.width, e.height);
  if ((flags & (cudaArrayLayered | cudaArrayCubemap)) == 0) largest = std::max(largest, e.depth);
  unsigned levels = 1;
  while (largest >>= 1) ++levels;
  return levels;
}

void allocate_mipmapped_array(cudaMipmappedArray_t* out, const cudaChannelFormatDesc* desc, cudaExtent extent,
                              unsigned requested_levels, unsigned flags) {
  const char* api = "cudaMallocMipmappedArray";
  require(out != nullptr && desc != nullptr, cudaErrorInvalidValue);
  *out = nullptr;
  (void)texel_bytes_of(*desc);  // checks the format first, as cudaMalloc3DArray does
  check_shape(api, extent, flags);
  // Gather arrays have one level (the flag is for 2D textures used with tex2Dgather).
  require((flags & cudaArrayTextureGather) == 0, cudaErrorInvalidValue);
  const bool plain = (flags & (cudaArrayLayered | cudaArrayCubemap)) == 0;
  if (plain && extent.height == 0 && extent.width > kMax1DMipmap)
    refuse_size(api, "a 1D mipmapped array wider than 32768");
  if (plain && extent.height != 0 && extent.depth == 0 &&
      (extent.width > kMax2DMipmap || extent.height > kMax2DMipmap))
    refuse_size(api, "a 2D mipmapped array beyond 32768 x 32768");
  // numLevels is clamped to [1, the full chain], as an H100 does (0 and 20
  // levels of 64 x 32 give 1 and 7).
  const unsigned levels = std::min(std::max(requested_levels, 1u), full_chain_levels(extent, flags));
  DeviceState& device = current_device();
  auto record = std::make_unique<cudaMipmappedArray>();
  record->device = &device;
  record->desc = *desc;
  record->extent = extent;
  record->flags = flags;
  std::vector<std::unique_ptr<cudaArray>> made;
  try {
    for (unsigned level = 0; level < levels; ++level) {
      made.push_back(make_array(device, desc, level_extent(extent, flags, level), flags));
      made.back()->mipmap = record.get();
      record->levels.push_back(made.back().get());
    }
  } catch (...) {
    for (const auto& array : made) release_array(*array);
    throw;
  }
  std::lock_guard<std::mutex> lock(g_arrays_mutex);
  for (auto& array : made) arrays()[array.get()] = std::move(array);
  *out = record.get();
  mipmaps()[record.get()] = std::move(record);
}

// ---- Copies ---------------------------------------------------------------------
// A copy is a list of contiguous pieces; each side is host, device or
// managed memory as a whole (an array is device memory).
struct Piece {
  uint64_t dst;
  uint64_t src;
  size_t bytes;
};

struct Sides {
  Side dst;
  Side src;
};

// The range [lowest, highest) of the pieces' `member` addresses.
std::pair<uint64_t, uint64_t> span_of(const std::vector<Piece>& pieces, uint64_t Piece::*member) {
  uint64_t low = UINT64_MAX, high = 0;
  for (const Piece& piece : pieces) {
    low = std::min(low, piece.*member);
    high = std::max(high, piece.*member + piece.bytes);
  }
  return {low, high};
}

// Runs the pieces on the target's stream, as cudaMemcpy2D runs its rows
// (api_memory.cpp): an asynchronous copy stages a pageable host source
// before it returns and waits for a copy into pageable host memory.
void run_pieces(const Target& target, Sides sides, std::vector<Piece> pieces, bool wait) {
  if (pieces.empty()) return;
  std::shared_ptr<std::vector<uint8_t>> staged;
  if (!wait && sides.dst == Side::host) {
    const auto [low, high] = span_of(pieces, &Piece::dst);
    if (sides.src == Side::host || !page_locked(pointer_to(low), high - low)) wait = true;
  }
  if (!wait && sides.src == Side::host) {
    const auto [low, high] = span_of(pieces, &Piece::src);
    if (!page_locked(pointer_to(low), high - low)) {
      staged = std::make_shared<std::vector<uint8_t>>();
      for (Piece& piece : pieces) {
        const auto* bytes = static_cast<const uint8_t*>(pointer_to(piece.src));
        const size_t at = staged->size();
        staged->insert(staged->end(), bytes, bytes + piece.bytes);
        piece.src = at;  // an offset into the staged bytes until they stop moving
      }
      for (Piece& piece : pieces) piece.src += address_of(staged->data());
    }
  }
  dispatch(target, wait, [sides, pieces = std::move(pieces), staged](DeviceState& device) {
    (void)staged;  // kept alive until the copy has run
    kestrel::runtime::DeviceContext& context = device.context();
    auto host_memory = [&](Side side, uint64_t address) -> void* {
      if (side == Side::host) return pointer_to(address);
      if (side == Side::managed) return ManagedMemory::get().host_copy(device, address);
      return nullptr;
    };
    uint64_t device_bytes = 0;
    for (const Piece& piece : pieces) {
      void* const to_host = host_memory(sides.dst, piece.dst);
      const void* const from_host = host_memory(sides.src, piece.src);
      if (to_host != nullptr && from_host != nullptr) {
        std::memmove(to_host, from_host, piece.bytes);
        continue;
      }
      device_bytes += piece.bytes;
      if (from_host != nullptr)
        context.copy_to_device(piece.dst, from_host, piece.bytes, true);
      else if (to_host != nullptr)
        context.copy_to_host(to_host, piece.src, piece.bytes, true);
      else
        context.copy_on_device(piece.dst, piece.src, piece.bytes, true);
    }
    if (device_bytes != 0) device.add_copy_cycles(device_bytes);
  });
}

// A box of `row_bytes` x `rows` x `slices` at a place of an array or of
// linear memory: where each of its rows starts.
struct Place {
  uint64_t start = 0;  // the box's first byte
  size_t pitch = 0;
  size_t slice_pitch = 0;
  uint64_t row(size_t y, size_t z) const { return start + z * slice_pitch + y * pitch; }
};

void check_kind(cudaMemcpyKind kind) {
  require(kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault, cudaErrorInvalidMemcpyDirection);
}

// An array side of a copy on `device`: the box at byte `x`, row `y`, slice `z`.
Place array_place(const char* api, const cudaArray& array, DeviceState& device, bool is_destination,
                  cudaMemcpyKind kind, size_t x, size_t y, size_t z, size_t row_bytes, size_t rows,
                  size_t slices) {
  // An array is device memory: a direction that says otherwise is CUDA's
  // cudaErrorInvalidMemcpyDirection.
  const bool host_by_kind = is_destination ? kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost
                                           : kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost;
  require(!host_by_kind, cudaErrorInvalidMemcpyDirection);
  if (array.device != &device)
    reject(cudaErrorInvalidValue, std::string(api) + ": the " + (is_destination ? "destination" : "source") +
                                      " array belongs to device " + std::to_string(array.device->ordinal()) +
                                      ", but the call runs on device " + std::to_string(device.ordinal()));
  require(x <= array.row_bytes && row_bytes <= array.row_bytes - x, cudaErrorInvalidValue);
  require(y <= array.rows && rows <= array.rows - y, cudaErrorInvalidValue);
  require(z <= array.slices && slices <= array.slices - z, cudaErrorInvalidValue);
  Place place;
  place.pitch = array.pitch;
  place.slice_pitch = array.slice_pitch;
  place.start = array.base + z * array.slice_pitch + y * array.pitch + x;
  return place;
}

// A linear side: `pointer` with `pitch` bytes per row and `slice_pitch` per slice.
// a * b + c, or cudaErrorInvalidValue where that does not fit a size_t: a
// program's sizes must not wrap a box round onto other memory.
size_t mul_add(size_t a, size_t b, size_t c) {
  size_t product = 0, sum = 0;
  require(!__builtin_mul_overflow(a, b, &product) && !__builtin_add_overflow(product, c, &sum),
          cudaErrorInvalidValue);
  return sum;
}

// The bytes a box of `slices` x `rows` rows of `row_bytes` spans.
size_t box_span(size_t row_bytes, size_t pitch, size_t rows, size_t slice_pitch, size_t slices) {
  return mul_add(slices - 1, slice_pitch, mul_add(rows - 1, pitch, row_bytes));
}

Place linear_place(const char* api, const char* role, DeviceState& device, const void* pointer, size_t pitch,
                   size_t slice_pitch, size_t row_bytes, size_t rows, size_t slices, cudaMemcpyKind kind,
                   bool device_by_kind, Side* side) {
  require(pointer != nullptr, cudaErrorInvalidValue);
  const size_t span = box_span(row_bytes, pitch, rows, slice_pitch, slices);
  *side = side_of(api, role, device, pointer, span, kind, device_by_kind);
  Place place;
  place.start = address_of(pointer);
  place.pitch = pitch;
  place.slice_pitch = slice_pitch;
  return place;
}

std::vector<Piece> box_pieces(const Place& dst, const Place& src, size_t row_bytes, size_t rows,
                              size_t slices) {
  std::vector<Piece> pieces;
  pieces.reserve(rows * slices);
  for (size_t z = 0; z < slices; ++z)
    for (size_t y = 0; y < rows; ++y) pieces.push_back(Piece{dst.row(y, z), src.row(y, z), row_bytes});
  return pieces;
}

// cudaMemcpy2DToArray and cudaMemcpy2DFromArray: `to_array` says which way.
// wOffset and width are bytes (CUDA takes any byte, not only whole texels).
void copy_2d_array(const char* api, bool to_array, cudaArray_const_t handle, size_t w_offset, size_t h_offset,
                   const void* linear, size_t linear_pitch, size_t width, size_t height, cudaMemcpyKind kind,
                   cudaStream_t stream, bool wait) {
  const cudaArray& array = live_array(handle);
  check_kind(kind);
  require(width <= linear_pitch, cudaErrorInvalidPitchValue);
  const Target target = resolve(stream);
  const Place at =
      array_place(api, array, *target.device, to_array, kind, w_offset, h_offset, 0, width, height, 1);
  if (width == 0 || height == 0) return;
  const bool linear_device = to_array ? kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDeviceToHost
                                      : kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyHostToDevice;
  Side linear_side = Side::host;
  const Place other = linear_place(api, to_array ? "source" : "destination", *target.device, linear,
                                   linear_pitch, 0, width, height, 1, kind, linear_device, &linear_side);
  if (to_array)
    run_pieces(target, {Side::device, linear_side}, box_pieces(at, other, width, height, 1), wait);
  else
    run_pieces(target, {linear_side, Side::device}, box_pieces(other, at, width, height, 1), wait);
}

// cudaMemcpyToArray and cudaMemcpyFromArray: `count` bytes from (wOffset,
// hOffset) on, row after row, as an H100 does (a copy reaching a row's end
// goes on at the start of the next row).
void copy_run_array(const char* api, bool to_array, cudaArray_const_t handle, size_t w_offset,
                    size_t h_offset, const void* linear, size_t count, cudaMemcpyKind kind) {
  const cudaArray& array = live_array(handle);
  check_kind(kind);
  const Target target = resolve(nullptr);
  const size_t total = array.row_bytes * array.rows * array.slices;
  require(w_offset <= array.row_bytes && h_offset < array.rows * array.slices, cudaErrorInvalidValue);
  const size_t first = h_offset * array.row_bytes + w_offset;
  require(count <= total - std::min(first, total), cudaErrorInvalidValue);
  // The direction check and the array's device, on an empty box.
  array_place(api, array, *target.device, to_array, kind, 0, 0, 0, 0, 0, 0);
  if (count == 0) return;
  const bool linear_device = to_array ? kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDeviceToHost
                                      : kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyHostToDevice;
  Side linear_side = Side::host;
  const Place other = linear_place(api, to_array ? "source" : "destination", *target.device, linear, count, 0,
                                   count, 1, 1, kind, linear_device, &linear_side);
  std::vector<Piece> pieces;
  size_t done = 0;
  for (size_t offset = first; done < count;) {
    const size_t row = offset / array.row_bytes, x = offset % array.row_bytes;
    const size_t bytes = std::min(count - done, array.row_bytes - x);
    // Rows of every slice in order: row r is row r % rows of slice r / rows.
    const uint64_t at =
        array.base + (row / array.rows) * array.slice_pitch + (row % array.rows) * array.pitch + x;
    if (to_array)
      pieces.push_back(Piece{at, other.start + done, bytes});
    else
      pieces.push_back(Piece{other.start + done, at, bytes});
    done += bytes;
    offset += bytes;
  }
  run_pieces(target, to_array ? Sides{Side::device, linear_side} : Sides{linear_side, Side::device},
             std::move(pieces), true);
}

void copy_3d(const char* api, const cudaMemcpy3DParms* p, cudaStream_t stream, bool wait) {
  require(p != nullptr, cudaErrorInvalidValue);
  // One source and one destination, each an array or a pointer.
  require((p->srcArray != nullptr) != (p->srcPtr.ptr != nullptr), cudaErrorInvalidValue);
  require((p->dstArray != nullptr) != (p->dstPtr.ptr != nullptr), cudaErrorInvalidValue);
  check_kind(p->kind);
  const cudaArray* src_array = p->srcArray != nullptr ? &live_array(p->srcArray) : nullptr;
  const cudaArray* dst_array = p->dstArray != nullptr ? &live_array(p->dstArray) : nullptr;
  // An array is device memory whatever the other side is: a direction that
  // says otherwise is refused before either side is looked at, as in CUDA.
  const bool from_host = p->kind == cudaMemcpyHostToDevice || p->kind == cudaMemcpyHostToHost;
  const bool to_host = p->kind == cudaMemcpyDeviceToHost || p->kind == cudaMemcpyHostToHost;
  require(!(src_array != nullptr && from_host) && !(dst_array != nullptr && to_host),
          cudaErrorInvalidMemcpyDirection);
  // The extent and an array's position count the array's elements, a
  // pointer's position bytes (guide 3.2.2; CUDA's cudaMemcpy3D).
  size_t element = 1;
  if (src_array != nullptr && dst_array != nullptr)
    require(src_array->texel_bytes == dst_array->texel_bytes, cudaErrorInvalidValue);
  if (src_array != nullptr) element = src_array->texel_bytes;
  if (dst_array != nullptr) element = dst_array->texel_bytes;
  const cudaExtent& e = p->extent;
  require(e.width <= SIZE_MAX / element, cudaErrorInvalidValue);
  const size_t row_bytes = e.width * element;
  const Target target = resolve(stream);
  DeviceState& device = *target.device;
  if (row_bytes == 0 || e.height == 0 || e.depth == 0) return;

  Sides sides{Side::device, Side::device};
  auto place_of = [&](const cudaArray* array, const cudaPitchedPtr& pointer, const cudaPos& pos,
                      bool destination) {
    if (array != nullptr) {
      require(pos.x <= SIZE_MAX / element, cudaErrorInvalidValue);
      return array_place(api, *array, device, destination, p->kind, pos.x * element, pos.y, pos.z, row_bytes,
                         e.height, e.depth);
    }
    require(row_bytes <= pointer.pitch && pos.x <= pointer.pitch - row_bytes, cudaErrorInvalidValue);
    require(e.depth == 1 || pointer.ysize >= e.height, cudaErrorInvalidValue);
    const size_t slice_pitch = mul_add(pointer.pitch, pointer.ysize, 0);
    const auto* base = static_cast<const uint8_t*>(pointer.ptr) +
                       mul_add(pos.z, slice_pitch, mul_add(pos.y, pointer.pitch, pos.x));
    const bool device_by_kind =
        destination ? p->kind == cudaMemcpyHostToDevice || p->kind == cudaMemcpyDeviceToDevice
                    : p->kind == cudaMemcpyDeviceToHost || p->kind == cudaMemcpyDeviceToDevice;
    return linear_place(api, destination ? "destination" : "source", device, base, pointer.pitch, slice_pitch,
                        row_bytes, e.height, e.depth, p->kind, device_by_kind,
                        destination ? &sides.dst : &sides.src);
  };
  const Place src = place_of(src_array, p->srcPtr, p->srcPos, false);
  const Place dst = place_of(dst_array, p->dstPtr, p->dstPos, true);
  run_pieces(target, sides, box_pieces(dst, src, row_bytes, e.height, e.depth), wait);
}

// cudaMemset2D/3D: `rows` x `slices` rows of `width` bytes.
void fill_box(const char* api, void* pointer, size_t pitch, size_t slice_pitch, int value, size_t width,
              size_t rows, size_t slices, cudaStream_t stream, bool wait) {
  require(width <= pitch, cudaErrorInvalidValue);
  const Target target = resolve(stream);
  if (width == 0 || rows == 0 || slices == 0) return;
  require_device_range(api, "destination", *target.device, pointer,
                       box_span(width, pitch, rows, slice_pitch, slices));
  const uint64_t start = address_of(pointer);
  const auto byte = static_cast<uint8_t>(static_cast<unsigned>(value) & 0xFFu);
  dispatch(target, wait, [=](DeviceState& device) {
    for (size_t z = 0; z < slices; ++z) {
      for (size_t y = 0; y < rows; ++y) {
        const uint64_t row = start + z * slice_pitch + y * pitch;
        if (void* host = ManagedMemory::get().host_copy(device, row))
          std::memset(host, byte, width);  // a managed allocation the host owns now
        else
          device.context().fill(row, byte, width, true);
      }
    }
    device.add_copy_cycles(uint64_t{width} * rows * slices);
  });
}

}  // namespace

namespace kestrel::cudart {

int channels_of(const cudaChannelFormatDesc& desc) {
  return (desc.x != 0) + (desc.y != 0) + (desc.z != 0) + (desc.w != 0);
}

size_t texel_bytes_of(const cudaChannelFormatDesc& desc) {
  const int bits = desc.x;
  const int channels = channels_of(desc);
  const bool no_gaps =
      (desc.y == 0 || desc.x != 0) && (desc.z == 0 || desc.y != 0) && (desc.w == 0 || desc.z != 0);
  const bool same_size =
      (desc.y == 0 || desc.y == bits) && (desc.z == 0 || desc.z == bits) && (desc.w == 0 || desc.w == bits);
  const bool kind_ok = desc.f == cudaChannelFormatKindSigned || desc.f == cudaChannelFormatKindUnsigned ||
                       desc.f == cudaChannelFormatKindFloat;
  const bool size_ok =
      desc.f == cudaChannelFormatKindFloat ? bits == 16 || bits == 32 : bits == 8 || bits == 16 || bits == 32;
  require(no_gaps && same_size && kind_ok && size_ok && (channels == 1 || channels == 2 || channels == 4),
          cudaErrorInvalidChannelDescriptor);
  return static_cast<size_t>(channels) * static_cast<size_t>(bits) / 8;
}

void forget_arrays_of(const DeviceState* device) {
  std::lock_guard<std::mutex> lock(g_arrays_mutex);
  for (auto it = arrays().begin(); it != arrays().end();)
    it = it->second->device == device ? arrays().erase(it) : std::next(it);
  for (auto it = mipmaps().begin(); it != mipmaps().end();)
    it = it->second->device == device ? mipmaps().erase(it) : std::next(it);
}

cudaMipmappedArray& live_mipmapped_array(cudaMipmappedArray_const_t mipmap) {
  std::lock_guard<std::mutex> lock(g_arrays_mutex);
  const auto it = mipmaps().find(mipmap);
  require(mipmap != nullptr && it != mipmaps().end(), cudaErrorInvalidResourceHandle);
  return *it->second;
}

cudaArray& live_array(cudaArray_const_t array) {
  std::lock_guard<std::mutex> lock(g_arrays_mutex);
  const auto it = arrays().find(array);
  require(array != nullptr && it != arrays().end(), cudaErrorInvalidResourceHandle);
  return *it->second;
}

}  // namespace kestrel::cudart

extern "C" {

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}

cudaError_t cudaMallocArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, size_t width,
                            size_t height, unsigned int flags) {
  return api([&] {
    // Layered arrays and cubemaps need a depth: cudaMalloc3DArray only.
    require((flags & (cudaArrayLayered | cudaArrayCubemap)) == 0, cudaErrorInvalidValue);
    allocate_array("cudaMallocArray", array, desc, make_cudaExtent(width, height, 0), flags);
  });
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc,
                              struct cudaExtent extent, unsigned int flags) {
  return api([&] { allocate_array("cudaMalloc3DArray", array, desc, extent, flags); });
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  return api([&] {
    if (array == nullptr) return;
    std::unique_ptr<cudaArray> record;
    {
      std::lock_guard<std::mutex> lock(g_arrays_mutex);
      const auto it = arrays().find(array);
      require(it != arrays().end(), cudaErrorInvalidResourceHandle);
      // A level belongs to its mipmapped array, which frees it
      // (cudaFreeMipmappedArray).  An H100 answers cudaSuccess here and
      // keeps the level usable; Kestrel says that nothing was freed.
      if (it->second->mipmap != nullptr)
        reject(cudaErrorInvalidValue,
               "cudaFreeArray: the array is a level of a mipmapped array; free that with "
               "cudaFreeMipmappedArray");
      record = std::move(it->second);
      arrays().erase(it);
    }
    // As cudaFree: the device finishes what it was doing with the memory first.
    release_array(*record);
  });
}

cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t* mipmappedArray,
                                     const struct cudaChannelFormatDesc* desc, struct cudaExtent extent,
                                     unsigned int numLevels, unsigned int flags) {
  return api([&] { allocate_mipmapped_array(mipmappedArray, desc, extent, numLevels, flags); });
}

cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t* levelArray, cudaMipmappedArray_const_t mipmappedArray,
                                       unsigned int level) {
  return api([&] {
    const cudaMipmappedArray& mipmap = live_mipmapped_array(mipmappedArray);
    require(levelArray != nullptr, cudaErrorInvalidValue);
    require(level < mipmap.levels.size(), cudaErrorInvalidValue);
    *levelArray = mipmap.levels[level];
  });
}

cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray) {
  return api([&] {
    if (mipmappedArray == nullptr) return;  // as cudaFreeArray(nullptr); an H100 says cudaSuccess
    std::unique_ptr<cudaMipmappedArray> record;
    std::vector<std::unique_ptr<cudaArray>> levels;
    {
      std::lock_guard<std::mutex> lock(g_arrays_mutex);
      const auto it = mipmaps().find(mipmappedArray);
      require(it != mipmaps().end(), cudaErrorInvalidResourceHandle);
      record = std::move(it->second);
      mipmaps().erase(it);
      for (cudaArray* level : record->levels) {
        const auto at = arrays().find(level);
        if (at == arrays().end()) continue;
        levels.push_back(std::move(at->second));
        arrays().erase(at);
      }
    }
    for (const auto& level : levels) release_array(*level);
  });
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc* desc, struct cudaExtent* extent,
                             unsigned int* flags, cudaArray_t array) {
  return api([&] {
    const cudaArray& record = live_array(array);
    if (desc != nullptr) *desc = record.desc;
    if (extent != nullptr) *extent = record.extent;
    if (flags != nullptr) *flags = record.flags;
  });
}

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc* desc, cudaArray_const_t array) {
  return api([&] {
    require(desc != nullptr, cudaErrorInvalidValue);
    *desc = live_array(array).desc;
  });
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind) {
  return api([&] {
    copy_2d_array("cudaMemcpy2DToArray", true, dst, wOffset, hOffset, src, spitch, width, height, kind,
                  nullptr, true);
  });
}

cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind) {
  return api([&] {
    copy_2d_array("cudaMemcpy2DFromArray", false, src, wOffset, hOffset, dst, dpitch, width, height, kind,
                  nullptr, true);
  });
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                     size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream) {
  return api([&] {
    copy_2d_array("cudaMemcpy2DToArrayAsync", true, dst, wOffset, hOffset, src, spitch, width, height, kind,
                  stream, false);
  });
}

cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
                                       cudaStream_t stream) {
  return api([&] {
    copy_2d_array("cudaMemcpy2DFromArrayAsync", false, src, wOffset, hOffset, dst, dpitch, width, height,
                  kind, stream, false);
  });
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                     cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                     size_t width, size_t height, enum cudaMemcpyKind kind) {
  return api([&] {
    const char* name = "cudaMemcpy2DArrayToArray";
    const cudaArray& to = live_array(dst);
    const cudaArray& from = live_array(src);
    check_kind(kind);
    const Target target = resolve(nullptr);
    const Place d =
        array_place(name, to, *target.device, true, kind, wOffsetDst, hOffsetDst, 0, width, height, 1);
    const Place s =
        array_place(name, from, *target.device, false, kind, wOffsetSrc, hOffsetSrc, 0, width, height, 1);
    if (width == 0 || height == 0) return;
    run_pieces(target, {Side::device, Side::device}, box_pieces(d, s, width, height, 1), true);
  });
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                              enum cudaMemcpyKind kind) {
  return api([&] { copy_run_array("cudaMemcpyToArray", true, dst, wOffset, hOffset, src, count, kind); });
}

cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t count, enum cudaMemcpyKind kind) {
  return api([&] { copy_run_array("cudaMemcpyFromArray", false, src, wOffset, hOffset, dst, count, kind); });
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms* p) {
  return api([&] { copy_3d("cudaMemcpy3D", p, nullptr, true); });
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms* p, cudaStream_t stream) {
  return api([&] { copy_3d("cudaMemcpy3DAsync", p, stream, false); });
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr* pitchedDevPtr, struct cudaExtent extent) {
  return api([&] {
    require(pitchedDevPtr != nullptr, cudaErrorInvalidValue);
    *pitchedDevPtr = make_cudaPitchedPtr(nullptr, 0, extent.width, extent.height);
    size_t pitch = 0;
    void* pointer = nullptr;
    const size_t rows = extent.height * extent.depth;
    require(extent.depth == 0 || rows / extent.depth == extent.height, cudaErrorMemoryAllocation);
    check(cudaMallocPitch(&pointer, &pitch, extent.width, rows));
    *pitchedDevPtr = make_cudaPitchedPtr(pointer, pitch, extent.width, extent.height);
  });
}

cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  return api([&] { fill_box("cudaMemset2D", devPtr, pitch, 0, value, width, height, 1, nullptr, true); });
}

cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
  return api(
      [&] { fill_box("cudaMemset2DAsync", devPtr, pitch, 0, value, width, height, 1, stream, false); });
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr p, int value, struct cudaExtent extent) {
  return api([&] {
    require(extent.depth <= 1 || p.ysize >= extent.height, cudaErrorInvalidValue);  // slices must not overlap
    fill_box("cudaMemset3D", p.ptr, p.pitch, mul_add(p.pitch, p.ysize, 0), value, extent.width, extent.height,
             extent.depth, nullptr, true);
  });
}

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr p, int value, struct cudaExtent extent,
                              cudaStream_t stream) {
  return api([&] {
    require(extent.depth <= 1 || p.ysize >= extent.height, cudaErrorInvalidValue);
    fill_box("cudaMemset3DAsync", p.ptr, p.pitch, mul_add(p.pitch, p.ysize, 0), value, extent.width,
             extent.height, extent.depth, stream, false);
  });
}

}  // extern "C"
