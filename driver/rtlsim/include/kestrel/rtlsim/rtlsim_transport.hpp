// The Verilated Kestrel GPU (rtl/top/kestrel_gpu.sv) as a Kestrel backend:
// a kestrel::Transport whose registers are the RTL's host register port and
// whose DRAM is a C++ memory model on the GPU's external memory port.  The
// driver's open_transport() calls this factory for the "rtlsim" backend.
//
// Backend options (BackendConfig::options; each, when not given there, from
// its environment variable; any other option name is refused):
//   dram             KESTREL_RTLSIM_DRAM          the DRAM model's timing preset:
//                                                 ideal (default), ddr3, hbm
//                                                 (docs/memory-system.md)
//   mem_latency      KESTREL_RTLSIM_MEM_LATENCY   cycles from a row hit's
//                                                 acceptance to its response
//                                                 (ideal: 20)
//   mem_interval     KESTREL_RTLSIM_MEM_INTERVAL  cycles between two accepted
//                                                 requests, i.e. the bandwidth is
//                                                 one 64-byte line per interval
//                                                 (ideal: 1)
//   dram_banks, dram_row_bytes, dram_activate, dram_precharge
//                    KESTREL_RTLSIM_DRAM_BANKS, ..._ROW_BYTES, ..._ACTIVATE,
//                    ..._PRECHARGE: the banks, row-buffer size and the extra
//                    cycles of a row miss and a row conflict, over the preset
//   max_cycles       KESTREL_RTLSIM_MAX_CYCLES    cycles a launch may run
//                                                 (wait_idle/advance) before the
//                                                 backend gives up with
//                                                 KESTREL_ERROR_TIMEOUT (default:
//                                                 none beyond a margin past the
//                                                 launch watchdog, WATCHDOG <<
//                                                 20 cycles, which ends a long
//                                                 launch with a TIMEOUT fault)
//   lockstep         KESTREL_LOCKSTEP=1           lock-step: the functional model
//                    runs beside the RTL and checks every block dispatch,
//                    retired warp-instruction (PC, mask, x/f write), the fault
//                    record and device DRAM after each launch.  A mismatch
//                    aborts the launch; wait_idle() throws
//                    kestrel::Error(KESTREL_ERROR_IO) with the diff, which is
//                    also printed to stderr.  The checker is verification's
//                    tap observer (kestrel/driver/sim_tap.hpp), the plug-in
//                    libkestrel-lockstep.so that the backend loads; without
//                    it the backend refuses with KESTREL_ERROR_NOT_SUPPORTED.
//   lockstep_inject  KESTREL_LOCKSTEP_INJECT=n    test hook: the n-th register
//                    write the RTL retires reaches the checker with a flipped
//                    bit, which lock-step must report.
//   lockstep_inject_atomic  KESTREL_LOCKSTEP_INJECT_ATOMIC=n  the same for the
//                    n-th atomic's old value, which the chain check must catch.
//   trace            KESTREL_TRACE=file.fst       FST waveform of the run, on a
//                    preset Verilated with tracing: `trace` (the small
//                    geometry) in every build, every preset with
//                    -DKESTREL_RTLSIM_TRACE=ON; another gets
//                    KESTREL_ERROR_NOT_SUPPORTED.
//   trace_window     KESTREL_TRACE_WINDOW=a:b     trace only cycles a <= c < b,
//                    counted from the backend's reset; either side may be empty.
//   itrace           KESTREL_ITRACE=file          the instruction trace: one line
//                    per retired warp-instruction, disassembled, with its
//                    writes (kestrel/model/itrace.hpp); any build.
//   preset           KESTREL_RTLSIM_PRESET=name   the preset by name; its
//                    geometry and policy replace the requested ones.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kestrel/transport.hpp"

namespace kestrel::rtlsim {

// Builds the Verilated GPU of the preset matching `config` (xlen, lanes,
// warps per SM, SMs, scheduler policy) or named by the `preset` option: the
// build's presets are default (RV64 2x8x32), rv32 (RV32 2x8x32) and small
// (RV32 1x4x4), all loose round-robin, and those of KESTREL_RTLSIM_PRESETS
// (docs/configuration.md).
// Throws kestrel::Error(KESTREL_ERROR_INVALID_VALUE) for another geometry, a
// DRAM size that is not whole pages up to 256 MiB, shared memory other than
// 64 KiB per SM, an unknown backend option or a malformed option value, and
// KESTREL_ERROR_NOT_SUPPORTED for a trace request in a build without tracing.
std::unique_ptr<kestrel::Transport> make_rtlsim_transport(const kestrel::BackendConfig& config);

// The presets of this build, each as "name (rv64 2x8x32 lrr)".
std::vector<std::string> preset_names();

// Whether a preset of this build writes FST waveforms (the `trace` preset).
bool trace_built();

}  // namespace kestrel::rtlsim
