// Opens a runtime device over a Transport the caller made: the seam through
// which tests drive the runtime with a fake backend, and through which a later
// backend (TLM, a remote board) can be tried before open_transport knows it.
#pragma once

#include <memory>

#include "kestrel/kestrel.h"
#include "kestrel/transport.hpp"

namespace kestrel::runtime {

// As kestrel_device_open, with the backend given as an object.  Takes
// ownership of `transport` whatever the outcome.
kestrel_status open_device(std::unique_ptr<Transport> transport, kestrel_device_t** device);

}  // namespace kestrel::runtime
