#!/usr/bin/env python3
"""Writes the seed inputs of fuzz_model_transport and fuzz_rtlsim_transport
(the input formats are in targets/fuzz_model_transport.cpp and
targets/fuzz_rtlsim_transport.cpp: the same operations after a first byte of
geometry or backend options): small programs of register and DRAM
operations that map pages, load a few instructions, fill a launch descriptor
and START it, then advance the launch and read STATUS, the fault registers and
the counters.  Run from tests/fuzz: python3 make_transport_seeds.py"""
import pathlib
import struct

GLOBAL_BASE = 0x10000000
CODE, EXIT, DATA, SHARED = 0x0000, 0x1000, 0x2000, 0x80000  # offsets into DRAM
REG = dict(ENTRY_LO=0x40, EXIT_LO=0x48, GP_LO=0x50, PARAM_LO=0x58, GRID_X=0x60, GRID_Y=0x64,
           GRID_Z=0x68, BLOCK_X=0x6C, BLOCK_Y=0x70, BLOCK_Z=0x74, SHARED_BASE=0x78,
           SHARED_STATIC=0x7C, SHARED_DYN=0x80, STACK_BYTES=0x84, LOCAL_BACKING=0x88,
           WATCHDOG=0x8C, STATUS=0xA4, FAULT_KIND=0xC0, FAULT_PC_LO=0xC4, MAP_ADDR=0x100,
           MAP_PAGES=0x104, MAP_PERMS=0x108, COUNTERS=0x200)


def wreg(offset, value):
    return bytes([0]) + struct.pack("<HI", offset, value & 0xFFFFFFFF)


def rreg(offset):
    return bytes([1]) + struct.pack("<H", offset)


def wmem(offset, data):
    return bytes([3]) + struct.pack("<IB", offset, len(data)) + data


def rmem(offset, n):
    return bytes([4]) + struct.pack("<IH", offset, n)


def map_pages(offset, pages, perms):
    return wreg(REG["MAP_ADDR"], GLOBAL_BASE + offset) + wreg(REG["MAP_PAGES"], pages) + \
        wreg(REG["MAP_PERMS"], perms)


def launch(code, grid=1, block=32, shared=0, watchdog=1):
    words = b"".join(struct.pack("<I", w) for w in code)
    out = wmem(CODE, words) + wmem(EXIT, struct.pack("<I", 0x0000000B))  # kx.exit stub
    out += map_pages(CODE, 2, 0x5) + map_pages(DATA, 4, 0x3)
    for name, value in (("ENTRY_LO", GLOBAL_BASE + CODE), ("EXIT_LO", GLOBAL_BASE + EXIT),
                        ("PARAM_LO", GLOBAL_BASE + DATA), ("GRID_X", grid), ("GRID_Y", 1),
                        ("GRID_Z", 1), ("BLOCK_X", block), ("BLOCK_Y", 1), ("BLOCK_Z", 1),
                        ("SHARED_BASE", GLOBAL_BASE + SHARED), ("SHARED_STATIC", shared),
                        ("STACK_BYTES", 256), ("LOCAL_BACKING", GLOBAL_BASE + 0x40000),
                        ("WATCHDOG", watchdog)):
        out += wreg(REG[name], value)
    out += bytes([6])                                    # START
    out += bytes([7]) + struct.pack("<H", 2000) + rreg(REG["STATUS"])
    out += b"".join(rreg(REG["FAULT_KIND"] + 4 * i) for i in range(14))
    out += rreg(REG["COUNTERS"]) + rreg(REG["COUNTERS"] + 4) + rmem(DATA, 64)
    return out


# a0 = param pointer; store tid-independent value, return to the exit stub
STORE = [0x02A00293, 0x00552023, 0x00008067]            # li t0,42; sw t0,0(a0); ret
LOOP = [0x0000006F]                                     # j . (a hang: bounded by the harness)
FAULT = [0x00002283, 0x00008067]                        # lw t0,0(zero): a fault
SHARED_STORE = [0x100802B7, 0x0002A023, 0x00008067]           # lui t0,0x10080; sw zero,0(t0); ret

seeds = {
    "store_rv64": bytes([0x06]) + launch(STORE),
    "store_rv32_lanes8": bytes([0x01 | 0x02 | 0x10]) + launch(STORE, grid=3, block=16),
    "loop_two_sms": bytes([0x06 | 0x08 | 0x30]) + launch(LOOP, grid=4, block=32),
    "fault_rv32": bytes([0x01 | 0x06]) + launch(FAULT),
    "shared": bytes([0x06]) + launch(SHARED_STORE, shared=64),
    "registers": bytes([0x00]) + b"".join(rreg(o) for o in range(0, 0x120, 4)) +
                 bytes([2]) + struct.pack("<II", 0x43, 1) +              # unaligned offset
                 bytes([5]) + struct.pack("<QB", 0xFFFFFFFFFFFFFFF1, 32),  # address wraps
}

# rtlsim: the small preset (RV32, 4 lanes, 4 warps: blocks of up to 16
# threads); first byte bit 5: 1 MiB of DRAM, bits 0-2 the memory latency.
RTL_MIB = 0x20
rtlsim_seeds = {
    "store": bytes([RTL_MIB | 2]) + launch(STORE, block=16),
    "store_grid3_interval2": bytes([RTL_MIB | 0x08]) + launch(STORE, grid=3, block=8),
    "loop_backstop": bytes([RTL_MIB | 0x40]) + launch(LOOP, grid=4, block=16),
    "fault": bytes([RTL_MIB | 1]) + launch(FAULT, block=4),
    "shared": bytes([RTL_MIB]) + launch(SHARED_STORE, block=16, shared=64),
    "registers": bytes([RTL_MIB]) + b"".join(rreg(o) for o in range(0, 0x1000, 4)) +
                 bytes([2]) + struct.pack("<II", 0x43, 1) +              # unaligned offset
                 bytes([2]) + struct.pack("<II", 0x1000, 1) +            # past the register map
                 bytes([5]) + struct.pack("<QB", 0xFFFFFFFFFFFFFFF1, 32),  # address wraps
    "small_dram": bytes([0]) + launch(STORE, block=16),                   # 256 KiB: SHARED outside
}
here = pathlib.Path(__file__).resolve().parent / "corpus"
for folder, table in (("model_transport", seeds), ("rtlsim_transport", rtlsim_seeds)):
    out = here / folder
    out.mkdir(parents=True, exist_ok=True)
    for name, data in table.items():
        (out / name).write_bytes(data)
