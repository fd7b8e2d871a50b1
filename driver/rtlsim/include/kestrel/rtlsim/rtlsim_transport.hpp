// The Verilated Kestrel GPU (rtl/top/kestrel_gpu.sv) as a Kestrel backend:
// a kestrel::Transport whose registers are the RTL's host register port and
// whose DRAM is a C++ memory model on the GPU's external memory port.  The
// driver's open_transport() calls this factory for the "rtlsim" backend.
//
// Environment (a BackendConfig field, where there is one, wins):
//   KESTREL_RTLSIM_MEM_LATENCY   cycles from a request to its response (default 20)
//   KESTREL_RTLSIM_MEM_INTERVAL  cycles between two accepted requests, i.e. the
//                                bandwidth is one 64-byte line per interval (default 1)
//   KESTREL_RTLSIM_MAX_CYCLES    cycles a launch may run (wait_idle/advance) before it gives up
//                                with KESTREL_ERROR_TIMEOUT (default 50 000 000)
//   KESTREL_LOCKSTEP=1           lock-step: the functional model runs beside the
//                                RTL and checks every block dispatch, retired
//                                warp-instruction (PC, mask, x/f write), the
//                                fault record and device DRAM after each
//                                launch (BackendConfig::lockstep).  A mismatch
//                                aborts the launch; wait_idle() throws
//                                kestrel::Error(KESTREL_ERROR_IO) with the diff,
//                                which is also printed to stderr.
//   KESTREL_LOCKSTEP_INJECT=n    test hook: the n-th register write the RTL
//                                retires reaches the checker with a flipped
//                                bit, which lock-step must report.
//   KESTREL_TRACE=file.fst       FST waveform of the run (BackendConfig::trace_path);
//                                only in a build configured with
//                                -DKESTREL_RTLSIM_TRACE=ON, else
//                                KESTREL_ERROR_NOT_SUPPORTED.
//   KESTREL_TRACE_WINDOW=a:b     trace only cycles a <= c < b, counted from the
//                                backend's reset (BackendConfig::trace_window);
//                                either side may be empty.
#pragma once

#include <memory>

#include "kestrel/transport.hpp"

namespace kestrel::rtlsim {

// Builds the Verilated GPU of the preset matching `config` (xlen, lanes,
// warps per SM, SMs): RV64/32/8/2 (default), RV32/32/8/2 and RV32/4/4/1.
// Throws kestrel::Error(KESTREL_ERROR_INVALID_VALUE) for another geometry, a
// DRAM size that is not whole pages up to 256 MiB, shared memory other than
// 64 KiB per SM or a malformed environment variable, and
// KESTREL_ERROR_NOT_SUPPORTED for a trace request in a build without tracing.
std::unique_ptr<kestrel::Transport> make_rtlsim_transport(const kestrel::BackendConfig& config);

// Whether this build writes FST waveforms (-DKESTREL_RTLSIM_TRACE=ON).
bool trace_built();

}  // namespace kestrel::rtlsim
