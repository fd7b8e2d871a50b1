/* Kestrel C API: devices, device memory, modules, kernels, launches.
 * Every function returns a kestrel_status (0 success, negative error) and
 * checks its arguments; none crashes on bad input.  Lifetimes come in pairs:
 * device_open/device_close, malloc/free, module_load/module_unload.  Kernels
 * are borrowed from their module and die with it.  The C++ layer is
 * kestrel/kestrel.hpp. */
#ifndef KESTREL_KESTREL_H
#define KESTREL_KESTREL_H

#include <stddef.h>
#include <stdint.h>

#include "kestrel/abi.h"
#include "kestrel/host_regs.h"
#include "kestrel/module_format.h"
#include "kestrel/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kestrel_device kestrel_device_t;
typedef struct kestrel_module kestrel_module_t;
typedef struct kestrel_kernel kestrel_kernel_t;
typedef uint64_t kestrel_devptr_t; /* a device address; 0 is never valid */

typedef struct kestrel_dim3 {
  uint32_t x, y, z;
} kestrel_dim3;

/* Requested backend configuration; a NULL config means the defaults of
 * kestrel::BackendConfig (xlen 64, 2 SMs, 8 warps/SM, 32 lanes, 256 MiB) as
 * the environment's KESTREL_CONFIG / KESTREL_CONFIG_FILE change them
 * (docs/configuration.md), and so does a zero field (or a NULL trace_path) of
 * a given config. */
typedef struct kestrel_device_config {
  uint32_t xlen;
  uint32_t num_sms;
  uint32_t warps_per_sm;
  uint32_t lanes_per_warp;
  uint64_t mem_bytes;
  const char* trace_path; /* NULL for none */
  /* NULL, or settings in KESTREL_CONFIG's syntax ("scheduler=gto,rtlsim.mem_latency=100";
   * docs/configuration.md), applied over the environment's and under the fields above */
  const char* settings;
} kestrel_device_config;

typedef struct kestrel_device_props {
  char name[64];    /* backend and configuration, e.g. "kestrel-model rv64 2x8x32" */
  char backend[16]; /* "model", "rtlsim", "systemc", "fpga" */
  uint32_t xlen;
  uint32_t num_sms;
  uint32_t warps_per_sm;
  uint32_t warp_size;
  uint32_t max_threads_per_block;
  uint32_t max_block_dim[3];
  uint32_t max_grid_dim[3];
  uint32_t shared_mem_per_block;
  uint32_t max_param_bytes; /* 4096 */
  uint32_t clock_khz;
  uint64_t global_mem_bytes;
  uint32_t copy_engines; /* 1: *_concurrent copies overlap a running kernel; 0: they wait */
  uint32_t sched_policy; /* enum kestrel_sched_policy: the SMs' warp scheduler (CONFIG2) */
  uint32_t fpu_stages;   /* FMA pipeline depth of an SM (CONFIG2) */
  uint32_t icache_lines; /* instruction cache lines (64 bytes) per SM (CONFIG2) */
  uint64_t l2_bytes;     /* the shared L2's capacity, 0 without one (CONFIG3) */
  uint32_t l2_ways;      /* its associativity */
} kestrel_device_props;

typedef struct kestrel_fault_info {
  int32_t kind; /* enum kestrel_fault_kind */
  uint64_t pc;
  uint64_t address;
  kestrel_dim3 block;
  kestrel_dim3 thread;
  uint32_t sm;
  uint32_t warp;
  uint32_t info;     /* trap code or assert line */
  char message[512]; /* human-readable, e.g. "illegal address 0x... at pc ... block (1,0,0) thread (5,0,0)" */
} kestrel_fault_info;

typedef struct kestrel_counters {
  uint64_t value[KESTREL_CNT_COUNT]; /* indexed by enum kestrel_counter */
} kestrel_counters;

/* backend: "model", "rtlsim", "systemc", "fpga", or NULL/"" for $KESTREL_BACKEND, else the default. */
kestrel_status kestrel_device_open(const char* backend, const kestrel_device_config* config,
                                   kestrel_device_t** device);
kestrel_status kestrel_device_close(kestrel_device_t* device);
kestrel_status kestrel_device_get_props(kestrel_device_t* device, kestrel_device_props* props);
/* The message of the last error on this device (thread-compatible, not thread-safe).
 * With a NULL device: the last error of a call that had no usable device
 * (kestrel_device_open, or a call given an invalid device handle) on this thread.
 * The text stays valid until the next failing call on the same device/thread. */
const char* kestrel_device_last_error(kestrel_device_t* device);

/* Per-device limits, as cudaDeviceSetLimit.  Each applies to later launches. */
typedef enum kestrel_limit {
  KESTREL_LIMIT_STACK_BYTES = 0,      /* per-thread local memory/stack; default 1024, multiple of 16 */
  KESTREL_LIMIT_WATCHDOG_MCYCLES = 1, /* launch watchdog in units of 2^20 cycles; default 16, 0 = none */
  KESTREL_LIMIT_PRINTF_FIFO_BYTES =
      2,                        /* device printf buffer (cudaLimitPrintfFifoSize); default 1 MiB, >= 4096 */
  KESTREL_LIMIT_HEAP_BYTES = 3, /* device malloc heap (cudaLimitMallocHeapSize); default 8 MiB; fixed once
                                   a launch has used the heap, until the device is closed */
  KESTREL_LIMIT_MAX_ENUM = 0x7FFFFFFF /* makes every int a valid value, so bad input is an error, not UB */
} kestrel_limit;
kestrel_status kestrel_device_set_limit(kestrel_device_t* device, kestrel_limit limit, uint64_t value);
kestrel_status kestrel_device_get_limit(kestrel_device_t* device, kestrel_limit limit, uint64_t* value);

/* Device printf output (guide B.17): kernels append records to a FIFO in
 * device memory; at the end of each launch (when kestrel_synchronize or any
 * call that waits for the launch retires it) the runtime formats them and
 * hands the text to the device's output function, one call per run of
 * records for the same stream: 1 for printf, 2 for the message of a failed
 * assert().  fn NULL (the default) writes to stdout/stderr and flushes. */
typedef void (*kestrel_output_fn)(void* user, int stream, const char* text, size_t bytes);
kestrel_status kestrel_device_set_output(kestrel_device_t* device, kestrel_output_fn fn, void* user);

/* Allocations are rounded up to whole pages (two never share a page) and mapped
 * read/write; copies are checked against the requested size.  0 bytes is
 * KESTREL_ERROR_INVALID_VALUE.  kestrel_free(device, 0) does nothing, as
 * cudaFree(NULL); freeing anything but a live allocation's start is
 * KESTREL_ERROR_INVALID_HANDLE. */
kestrel_status kestrel_malloc(kestrel_device_t* device, size_t bytes, kestrel_devptr_t* ptr);
kestrel_status kestrel_free(kestrel_device_t* device, kestrel_devptr_t ptr);
kestrel_status kestrel_memcpy_htod(kestrel_device_t* device, kestrel_devptr_t dst, const void* src,
                                   size_t bytes);
kestrel_status kestrel_memcpy_dtoh(kestrel_device_t* device, void* dst, kestrel_devptr_t src, size_t bytes);
kestrel_status kestrel_memcpy_dtod(kestrel_device_t* device, kestrel_devptr_t dst, kestrel_devptr_t src,
                                   size_t bytes);
kestrel_status kestrel_memset(kestrel_device_t* device, kestrel_devptr_t dst, int value, size_t bytes);
/* The copy engine (CUDA guide 3.2.5.5): the same copies and fill, with the
 * same checks, that do not wait for the launch in flight.  The kernel keeps
 * running: on the simulated backends the copy lands between two slices of
 * the simulation (kestrel_launch_advance), so a kernel sees data copied while
 * it runs.  Races with the kernel on the same bytes are the caller's, as on
 * CUDA.  With props.copy_engines 0 they wait for the launch as the plain
 * copies do. */
kestrel_status kestrel_memcpy_htod_concurrent(kestrel_device_t* device, kestrel_devptr_t dst, const void* src,
                                              size_t bytes);
kestrel_status kestrel_memcpy_dtoh_concurrent(kestrel_device_t* device, void* dst, kestrel_devptr_t src,
                                              size_t bytes);
kestrel_status kestrel_memcpy_dtod_concurrent(kestrel_device_t* device, kestrel_devptr_t dst,
                                              kestrel_devptr_t src, size_t bytes);
kestrel_status kestrel_memset_concurrent(kestrel_device_t* device, kestrel_devptr_t dst, int value,
                                         size_t bytes);
/* Device memory still free for kestrel_malloc and the device's total, in
 * bytes (as cudaMemGetInfo).  Waits for nothing. */
kestrel_status kestrel_mem_get_info(kestrel_device_t* device, size_t* free_bytes, size_t* total_bytes);

kestrel_status kestrel_module_load(kestrel_device_t* device, const char* path, kestrel_module_t** module);
kestrel_status kestrel_module_load_data(kestrel_device_t* device, const void* image, size_t bytes,
                                        kestrel_module_t** module);
kestrel_status kestrel_module_unload(kestrel_module_t* module);
/* name: the mangled name, or the plain function name when exactly one kernel has it. */
kestrel_status kestrel_module_get_kernel(kestrel_module_t* module, const char* name,
                                         kestrel_kernel_t** kernel);
/* Address and size of a __device__/__constant__ variable by (mangled or plain) name. */
kestrel_status kestrel_module_get_global(kestrel_module_t* module, const char* name, kestrel_devptr_t* ptr,
                                         size_t* bytes);

kestrel_status kestrel_kernel_num_params(kestrel_kernel_t* kernel, uint32_t* count);
/* Layout of parameter `index` in the device parameter buffer (module_format.h). */
kestrel_status kestrel_kernel_get_param(kestrel_kernel_t* kernel, uint32_t index,
                                        struct kestrel_param_desc* param);
/* The kernel's mangled name; the text lives as long as the module. */
kestrel_status kestrel_kernel_get_name(kestrel_kernel_t* kernel, const char** name);

/* CUDA-style launch: args[i] points to the host value of parameter i (a pointer
 * parameter's host value is a kestrel_devptr_t or a 64-bit device pointer).
 * Returns once the launch is queued; faults are reported by kestrel_synchronize.
 * Launches run one after another, in order (CUDA's default stream).  A launch
 * made while an earlier launch's fault is still unreported is refused with
 * KESTREL_ERROR_LAUNCH_FAULT. */
kestrel_status kestrel_launch(kestrel_kernel_t* kernel, kestrel_dim3 grid, kestrel_dim3 block,
                              uint32_t dynamic_shared_bytes, void** args);
/* Runs the launch in flight for up to about `cycles` device cycles (0: a
 * default slice of 4096) and sets *running to 1 while it still runs, 0 once
 * no launch runs.  A launch that ended here is retired: its printf output is
 * written and its fault, if any, is reported by kestrel_synchronize, which
 * then does not wait.  Between calls, the *_concurrent copies overlap the
 * kernel.  A backend that cannot stop mid-launch (props.copy_engines 0) runs
 * it to its end. */
kestrel_status kestrel_launch_advance(kestrel_device_t* device, uint64_t cycles, int* running);
/* Waits for all launches.  KESTREL_ERROR_LAUNCH_FAULT if one faulted (details
 * in kestrel_get_fault); the device stays usable afterwards. */
kestrel_status kestrel_synchronize(kestrel_device_t* device);
/* kind KESTREL_FAULT_NONE when the latest launch did not fault (cleared by each launch). */
kestrel_status kestrel_get_fault(kestrel_device_t* device, kestrel_fault_info* fault);
/* Counters of the latest launch (waits for it to end). */
kestrel_status kestrel_get_counters(kestrel_device_t* device, kestrel_counters* counters);
/* Statistics of the latest launch (waits for it to end): what ran, its
 * counters, and figures derived from them (docs/runtime.md, "Statistics").
 * Shares are fractions of SM-cycles (stalls) or of warp-instructions
 * (diverged); a figure whose denominator is 0 is 0.  KESTREL_STATS=file (or
 * the stats setting of KESTREL_CONFIG) writes the same for every launch as
 * JSON Lines.  KESTREL_ERROR_NOT_FOUND before the device's first launch. */
typedef struct kestrel_launch_stats {
  uint64_t sequence; /* the device's launches so far, this one included */
  char kernel[256];  /* demangled name, truncated to fit */
  kestrel_dim3 grid;
  kestrel_dim3 block;
  uint32_t dynamic_shared_bytes;
  int32_t fault_kind; /* KESTREL_FAULT_NONE when it ran to completion */
  kestrel_counters counters;
  double host_seconds; /* wall time of the launch on the host (a simulation's run time) */
  double ipc;          /* warp-instructions per cycle, all SMs */
  double ipc_per_sm;
  double lane_utilization; /* thread-instructions / (warp-instructions x warp size) */
  double diverged_share;   /* warp-instructions issued with a partial mask */
  double stall_scoreboard_share, stall_memory_share, stall_barrier_share, stall_idle_share;
  double bank_passes_per_shared_access; /* 1 without bank conflicts */
  double cycles_per_host_second;        /* simulated cycles per second of host time */
} kestrel_launch_stats;
kestrel_status kestrel_get_launch_stats(kestrel_device_t* device, kestrel_launch_stats* stats);
/* One SM's part of the latest launch (the per-SM counter window,
 * docs/host-interface.md): its counters, indexed by enum kestrel_sm_counter,
 * and figures derived from them. */
typedef struct kestrel_sm_stats {
  uint32_t sm;
  uint64_t value[KESTREL_SM_CNT_COUNT];
  double ipc;          /* its warp-instructions per cycle of the launch */
  double active_share; /* its active cycles / the launch's cycles */
  double lane_utilization;
  double stall_scoreboard_share, stall_memory_share, stall_barrier_share,
      stall_idle_share; /* of the launch's cycles */
} kestrel_sm_stats;
/* Per-SM statistics of the latest launch (waits for it to end): fills
 * sms[0 .. min(capacity, *count) - 1] and sets *count to the number of SMs
 * with figures: every SM, up to KESTREL_SM_COUNTERS_MAX_SMS (the first 48 of
 * a larger device); 0 when the device has no per-SM counters (hardware
 * before VERSION 2).  sms may be NULL when capacity is 0, to ask for the
 * count.  KESTREL_ERROR_NOT_FOUND before the device's first launch. */
kestrel_status kestrel_get_launch_sm_stats(kestrel_device_t* device, kestrel_sm_stats* sms, uint32_t capacity,
                                           uint32_t* count);
/* What the backend's DRAM model did during the latest launch
 * (docs/memory-system.md): the GPU's line requests at its external memory
 * port, the row-buffer outcomes and the latency reads saw.  A backend
 * without a DRAM model (the functional model, a board) gives modelled = 0
 * and zeros. */
typedef struct kestrel_dram_stats {
  uint32_t modelled;                            /* 1 when the figures below come from a DRAM model */
  uint64_t reads, writes;                       /* line requests served */
  uint64_t bytes_read, bytes_written;           /* whole lines read; written bytes enabled */
  uint64_t row_hits, row_misses, row_conflicts; /* per request */
  double row_hit_rate;                          /* row_hits / requests */
  double average_read_latency;                  /* cycles from acceptance to response */
  double bytes_per_cycle;                       /* lines moved x 64 / the launch's cycles */
  double peak_bytes_per_cycle;                  /* what the data bus can move */
  double bandwidth_utilization;                 /* bytes_per_cycle / peak_bytes_per_cycle */
} kestrel_dram_stats;
kestrel_status kestrel_get_launch_dram_stats(kestrel_device_t* device, kestrel_dram_stats* stats);
/* What the GPU's memory side saw during the latest launch (the memory
 * counter window, docs/memory-system.md "Memory-system counters"): the line
 * requests that passed the page check by kind, their mean latency through
 * the memory side (atomics, L2, DRAM), the L2's hits and misses, the SMs'
 * constant caches' hits and misses (read-only pages) and the SMs' L1 data
 * caches' hits and misses (writable global pages), and the SMs' texture
 * units' texel-cache hits and misses (kx.tex).  A device without the
 * window (the functional model, which has no timing) gives counted = 0 and
 * zeros. */
typedef struct kestrel_memory_stats {
  uint32_t counted;                      /* 1 when the figures below were counted */
  uint64_t value[KESTREL_MEM_CNT_COUNT]; /* indexed by enum kestrel_mem_counter */
  double average_latency;                /* cycles from the crossbar to the answer, per request */
  double l2_hit_rate;                    /* read hits / (hits + misses + merges); 0 without an L2 */
  double const_hit_rate;                 /* constant-cache hits / (hits + misses); 0 when neither */
  double l1_hit_rate;                    /* L1 data-cache hits / (hits + misses); 0 when neither */
  double lines_per_warp_load;            /* the LSU's line reads (reads + const_hits + l1_hits less the
                                            texture units' tex_misses + tex_desc_misses) / warp-level loads */
  double bytes_per_cycle;                /* lines to and from the memory side x 64 / cycles (no cache hits) */
  double tex_hit_rate; /* texel taps the texture caches answered / (hits + misses); 0 when neither */
} kestrel_memory_stats;
kestrel_status kestrel_get_launch_memory_stats(kestrel_device_t* device, kestrel_memory_stats* stats);
/* "cycles", "warp_instrs", ...; NULL for an index that names no counter. */
const char* kestrel_counter_name(int counter);
/* "active_cycles", "warp_instrs", ... (enum kestrel_sm_counter); NULL for an index that names none. */
const char* kestrel_sm_counter_name(int counter);
/* "reads", "l2_hits", ... (enum kestrel_mem_counter); NULL for an index that names none. */
const char* kestrel_mem_counter_name(int counter);
/* "illegal address", ...; NULL for an unknown kind. */
const char* kestrel_fault_kind_name(int kind);

#ifdef __cplusplus
}
#endif

#endif /* KESTREL_KESTREL_H */
