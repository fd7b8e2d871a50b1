// The Verilated Kestrel GPU (rtl/top/kestrel_gpu.sv) as a Kestrel backend:
// a kestrel::Transport whose registers are the RTL's host register port and
// whose DRAM is a C++ memory model on the GPU's external memory port.  The
// driver's open_transport() calls this factory for the "rtlsim" backend.
//
// Environment:
//   KESTREL_RTLSIM_MEM_LATENCY   cycles from a request to its response (default 20)
//   KESTREL_RTLSIM_MEM_INTERVAL  cycles between two accepted requests, i.e. the
//                                bandwidth is one 64-byte line per interval (default 1)
//   KESTREL_RTLSIM_MAX_CYCLES    cycles a launch may run (wait_idle/advance) before it gives up
//                                with KESTREL_ERROR_TIMEOUT (default 50 000 000)
#pragma once

#include <memory>

#include "kestrel/transport.hpp"

namespace kestrel::rtlsim {

// Builds the Verilated GPU of the preset matching `config` (xlen, lanes,
// warps per SM, SMs): RV64/32/8/2 (default), RV32/32/8/2 and RV32/4/4/1.
// Throws kestrel::Error(KESTREL_ERROR_INVALID_VALUE) for another geometry, a
// DRAM size that is not whole pages up to 256 MiB, shared memory other than
// 64 KiB per SM, or a trace request (FST tracing is not built yet).
std::unique_ptr<kestrel::Transport> make_rtlsim_transport(const kestrel::BackendConfig& config);

}  // namespace kestrel::rtlsim
