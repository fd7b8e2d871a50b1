// The functional model as a Kestrel backend: a kestrel::Transport exposing the
// register map of include/kestrel/host_regs.h.  The driver's open_transport()
// calls this factory for the "model" backend.
#pragma once

#include <memory>

#include "kestrel/model/gpu.hpp"
#include "kestrel/transport.hpp"

namespace kestrel::model {

// Builds a model with the requested configuration.  Throws
// kestrel::Error(KESTREL_ERROR_INVALID_VALUE) for a configuration the model
// cannot build (xlen other than 32/64, lanes not a power of two up to 32,
// ...) and for any backend option (the model takes none).
std::unique_ptr<kestrel::Transport> make_model_transport(const kestrel::BackendConfig& config);

// The same on DRAM the caller owns: `dram`, config.mem_bytes bytes, zeroed
// (Config::dram), e.g. a virtual platform's memory through DMI
// (platform/systemc).
std::unique_ptr<kestrel::Transport> make_model_transport(const kestrel::BackendConfig& config, uint8_t* dram);

// The model configuration of a backend geometry (what the model backend
// builds; a model run beside another backend starts from it too).
Config model_config(const kestrel::BackendConfig& config);

}  // namespace kestrel::model
