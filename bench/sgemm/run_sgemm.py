#!/usr/bin/env python3
"""The SGEMM benchmark of the memory system (docs/memory-system.md): runs
bench/sgemm's program for each kernel and size on a backend with
KESTREL_STATS and prints, per run, the launch's cycles, IPC per SM and the
FMA share of the issue slots: N^3 / 32 warp-FMAs (each thread's k loop, which
the program's host check proves ran) over cycles x SMs.  Figures only.

    run_sgemm.py <sgemm program> [backend] [sizes...]
"""
import json
import os
import subprocess
import sys
import tempfile

program = sys.argv[1]
backend = sys.argv[2] if len(sys.argv) > 2 else "rtlsim"
sizes = [int(s) for s in sys.argv[3:]] or [128, 256]
print(f"sgemm on {backend}: IPC per SM and FMA share of issue slots (target IPC per SM >= 0.6)")
print(f"{'kernel':<9} {'N':>4} {'cycles':>11} {'IPC/SM':>7} {'FMA share':>9} {'mem stall':>9}")
with tempfile.TemporaryDirectory() as scratch:
    for kernel in ("shared", "register"):
        for n in sizes:
            stats = os.path.join(scratch, f"{kernel}_{n}.jsonl")
            env = dict(os.environ, KESTREL_BACKEND=backend, KESTREL_STATS=stats)
            subprocess.run([program, kernel, str(n)], env=env, check=True, stdout=subprocess.DEVNULL)
            with open(stats, encoding="utf-8") as f:
                record = [json.loads(line) for line in f][-1]
            cycles = record["counters"]["cycles"]
            sms = record["device"]["sms"]
            fma_share = n ** 3 / 32 / (cycles * sms)
            print(f"{kernel:<9} {n:>4} {cycles:>11} {record['derived']['ipc_per_sm']:>7.3f} {fma_share:>9.3f} "
                  f"{record['derived']['stall_shares']['memory']:>9.3f}")
