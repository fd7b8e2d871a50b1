// libFuzzer target: the module loader on an arbitrary byte buffer, exactly as
// kestrel_module_load_data() takes it (runtime/module_image.cpp and
// module_elf.cpp parse and check it, runtime/device_context.cpp places and
// relocates it), on an RV64 and an RV32 model device.  A module either loads
// (and unloads) or is refused with KESTREL_ERROR_INVALID_MODULE (or
// OUT_OF_MEMORY for one bigger than the device); anything else, a crash, a
// sanitizer report or a hang, is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "kestrel/kestrel.h"

namespace {

kestrel_device_t* open_device(uint32_t xlen) {
  kestrel_device_config config{};
  config.xlen = xlen;
  config.num_sms = 1;
  config.warps_per_sm = 2;
  config.mem_bytes = 16u << 20;
  kestrel_device_t* device = nullptr;
  if (kestrel_device_open("model", &config, &device) != KESTREL_SUCCESS) {
    std::fprintf(stderr, "fuzz_module_image: cannot open an RV%u model device: %s\n", xlen,
                 kestrel_device_last_error(nullptr));
    std::abort();
  }
  return device;
}

void load(kestrel_device_t* device, const uint8_t* data, size_t size) {
  kestrel_module_t* module = nullptr;
  const kestrel_status status = kestrel_module_load_data(device, data, size, &module);
  if (status == KESTREL_SUCCESS) {
    if (kestrel_module_unload(module) != KESTREL_SUCCESS) {
      std::fprintf(stderr, "unload failed: %s\n", kestrel_device_last_error(device));
      std::abort();
    }
    return;
  }
  if (module != nullptr ||
      (status != KESTREL_ERROR_INVALID_MODULE && status != KESTREL_ERROR_OUT_OF_MEMORY)) {
    std::fprintf(stderr, "unexpected status %d (%s): %s\n", status, kestrel_strerror(status),
                 kestrel_device_last_error(device));
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static kestrel_device_t* const rv64 = open_device(64);
  static kestrel_device_t* const rv32 = open_device(32);
  static const uint8_t empty = 0;
  if (size == 0) data = &empty;  // the API refuses a NULL image, not an empty one
  load(rv64, data, size);
  load(rv32, data, size);
  return 0;
}
