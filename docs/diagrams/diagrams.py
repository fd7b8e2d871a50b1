#!/usr/bin/env python3
"""Draws the diagrams of docs/ as plain SVG: the software stack, the SM's units
and stages, the memory path and the host interface.  This file is their
source: edit the tables below, then run

    python3 docs/diagrams/diagrams.py            # rewrites docs/*.svg
    python3 docs/diagrams/diagrams.py --check    # fails if a committed SVG differs

The SVG is what GitHub's web view renders: no script, no external font or
image, generic font families only.  Python 3 standard library only."""
import argparse
import sys
from pathlib import Path
from xml.sax.saxutils import escape

DOCS = Path(__file__).resolve().parent.parent

# Fill colours by kind of box.
COLOURS = {
    "sw": "#dbe9f6",      # software on the host
    "tool": "#e8f4d9",    # tools
    "hw": "#fde9cf",      # RTL / hardware
    "model": "#efe0f7",   # the functional model
    "mem": "#f9dcdc",     # memory
    "reg": "#fff7c8",     # registers
    "note": "#ffffff",
}


class Svg:
    def __init__(self, width, height, title):
        self.width, self.height = width, height
        self.items = [f'<title>{escape(title)}</title>',
                      f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
                      '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                      'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
                      'fill="#333333"/></marker></defs>']

    def text(self, x, y, text, size=13, weight="normal", anchor="middle", colour="#111111", mono=False):
        family = "monospace" if mono else "sans-serif"
        self.items.append(f'<text x="{x}" y="{y}" font-family="{family}" font-size="{size}" '
                          f'font-weight="{weight}" text-anchor="{anchor}" fill="{colour}">{escape(text)}</text>')

    def box(self, x, y, w, h, title, lines=(), kind="sw", dashed=False):
        """A box with a bold title and smaller lines (file names in monospace: lines starting with '@')."""
        dash = ' stroke-dasharray="5,3"' if dashed else ""
        self.items.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" ry="6" '
                          f'fill="{COLOURS[kind]}" stroke="#444444" stroke-width="1.2"{dash}/>')
        total = 18 + 15 * len(lines)
        top = y + (h - total) / 2 + 14
        self.text(x + w / 2, top, title, 14, "bold")
        for n, line in enumerate(lines):
            mono = line.startswith("@")
            self.text(x + w / 2, top + 18 + 15 * n, line[1:] if mono else line, 11.5, mono=mono,
                      colour="#333333")

    def arrow(self, points, label="", both=False, label_at=None, dashed=False):
        path = " ".join(f"{x},{y}" for x, y in points)
        start = ' marker-start="url(#arrow)"' if both else ""
        dash = ' stroke-dasharray="5,3"' if dashed else ""
        self.items.append(f'<polyline points="{path}" fill="none" stroke="#333333" stroke-width="1.4" '
                          f'marker-end="url(#arrow)"{start}{dash}/>')
        if label:
            (x0, y0), (x1, y1) = points[0], points[1]
            lx, ly = label_at if label_at else ((x0 + x1) / 2 + 6, (y0 + y1) / 2 + 4)
            self.text(lx, ly, label, 11, anchor="start", colour="#222222")

    def render(self):
        body = "\n".join(self.items)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}">\n{body}\n</svg>\n')


def legend(svg, x, y, kinds):
    for n, (kind, name) in enumerate(kinds):
        svg.items.append(f'<rect x="{x + 150 * n}" y="{y}" width="14" height="14" fill="{COLOURS[kind]}" '
                         f'stroke="#444444"/>')
        svg.text(x + 150 * n + 20, y + 12, name, 12, anchor="start")


def stack():
    """The software stack, from a CUDA source to a backend."""
    s = Svg(900, 760, "Kestrel software stack")
    s.text(450, 30, "Kestrel: the software stack (docs/tour.md)", 18, "bold")
    s.box(300, 50, 300, 56, "CUDA program", ["@app.cu: __global__ kernels + host main()"], "note")
    s.box(300, 140, 300, 76, "kestrel-cc", ["@tools/kestrel-cc/", "device: clang → RISC-V, ld.lld;",
                                             "host: clang++, links cudart"], "tool")
    s.arrow([(450, 106), (450, 140)])
    s.box(120, 250, 300, 76, "host program", ["host code, stubs that register", "the module and each kernel"], "sw")
    s.box(480, 250, 300, 76, "device module (.kmod)", ["ELF: code, trampolines,", "@.kestrel.kernels descriptors"],
          "tool")
    s.arrow([(400, 216), (270, 250)])
    s.arrow([(500, 216), (630, 250)])
    s.arrow([(480, 288), (420, 288)], "embedded", label_at=(424, 280))
    s.box(120, 360, 660, 56, "CUDA runtime: libkestrel_cudart",
          ["@runtime/cudart/  cudaMalloc, cudaMemcpy, cudaLaunchKernel, streams, events"], "sw")
    s.arrow([(270, 326), (270, 360)])
    s.box(120, 446, 660, 70, "Kestrel runtime: C API and C++ layer",
          ["@runtime/  DeviceContext: memory pages, module loader, parameter buffer,",
           "launch records → KESTREL_STATS, KESTREL_ITRACE, progress"], "sw")
    s.arrow([(450, 416), (450, 446)])
    s.box(120, 546, 660, 56, "driver: kestrel::Device",
          ["@driver/  host registers (include/kestrel/host_regs.h), write_mem/read_mem, Transport"], "sw")
    s.arrow([(450, 516), (450, 546)])
    s.box(60, 640, 230, 76, "model", ["@model/  functional model:", "fast, no pipeline"], "model")
    s.box(335, 640, 230, 76, "rtlsim", ["@driver/rtlsim/ + rtl/", "Verilated RTL, cycle-exact"], "hw")
    s.box(610, 640, 230, 76, "fpga", ["USB framing", "(docs/host-interface.md §3)"], "hw", dashed=True)
    for x in (175, 450, 725):
        s.arrow([(x, 602), (x, 640)])
    s.box(690, 140, 190, 76, "tools", ["@tools/kestrel-stats", "@verif/ lock-step plug-in", "(taps rtlsim)"], "tool")
    s.text(450, 745, "KESTREL_BACKEND / KESTREL_CONFIG pick the backend and geometry (docs/configuration.md)", 12)
    return s


def sm():
    """The SM's blocks and pipeline stages (docs/microarchitecture.md, "SM pipeline")."""
    s = Svg(1100, 640, "Kestrel SM units and stages")
    s.text(550, 30, "One SM (rtl/core/kestrel_sm*.sv): units and stages", 18, "bold")
    stages = [
        ("group", ["min-PC rule", "@kestrel_group_sel"], "hw"),
        ("fetch", ["line buffer/warp,", "I-cache", "@kestrel_sm_fetch"], "hw"),
        ("issue", ["decoder/warp,", "scoreboard,", "warp scheduler,", "register read", "@kestrel_sm_issue"], "hw"),
        ("stage 1", ["ALU, branch, CSR,", "warp crossbar,", "LSU/div hand-over", "@kestrel_sm_exec"], "hw"),
        ("stage 2", ["multiplier", "@kestrel_sm_pipe"], "hw"),
        ("stage 3", ["register write,", "exits, barrier", "arrivals, faults"], "hw"),
        ("retire", ["one slot/cycle:", "retire record,", "scoreboard clear", "@kestrel_sm_retire"], "hw"),
    ]
    x, w, gap, y, h = 30, 128, 21, 170, 130
    for n, (title, lines, kind) in enumerate(stages):
        s.box(x + n * (w + gap), y, w, h, title, lines, kind)
        if n:
            s.arrow([(x + n * (w + gap) - gap, y + h / 2), (x + n * (w + gap), y + h / 2)])
    s.text(550, 155, "one warp-instruction issues per cycle at most; fixed 3-stage shift after issue", 12)
    # warp management above
    s.box(30, 60, 300, 70, "dispatch", ["blocks in: warp slots, shared region,", "thread-index walk",
                                        "@kestrel_sm_dispatch"], "hw")
    s.box(360, 60, 360, 70, "warp control", ["lane PCs, groups, exits, barrier and",
                                             "syncwarp waits, sleep", "@kestrel_sm_warp_ctrl"], "hw")
    s.box(750, 60, 320, 70, "barrier + faults", ["@kestrel_barrier, kestrel_sm_faults",
                                                 "deadlock and fault records"], "hw")
    s.arrow([(330, 95), (360, 95)])
    s.arrow([(450, 130), (94, 170)])
    # units below the pipe
    below = [
        (30, "LSU", ["coalescing into line requests,", "shared memory: 32 banks,", "passes, atomics, LR/SC",
                     "@kestrel_lsu"], "mem"),
        (290, "divider", ["XLEN+1 cycles per lane", "@kestrel_div"], "hw"),
        (550, "FP lanes + SFU", ["FMA pipeline, divsqrt,", "special functions", "@kestrel_fp_exec"], "hw"),
        (810, "events", ["16 counter events per cycle", "to the GPU's counters", "@kestrel_sm_events"], "reg"),
    ]
    for bx, title, lines, kind in below:
        s.box(bx, 380, 230 if bx != 810 else 250, 100, title, lines, kind)
    s.arrow([(523, 300), (145, 380)], "memory instructions", label_at=(200, 345))
    s.arrow([(523, 300), (405, 380)])
    s.arrow([(540, 300), (665, 380)])
    for bx in (200, 405, 665):
        s.items.append(f'<polyline points="{bx},480 {bx},505" fill="none" stroke="#333333" stroke-width="1.4" '
                       'stroke-dasharray="5,3"/>')
    s.arrow([(200, 505), (1085, 505), (1085, 235), (1052, 235)], "results: LSU, divider, FP", dashed=True,
            label_at=(430, 522))
    s.box(30, 540, 340, 60, "memory port", ["fetch and LSU, arbitrated in kestrel_sm_fetch;",
                                            "to the crossbar (memory.svg)"], "mem")
    s.arrow([(100, 480), (100, 540)], both=True)
    s.text(550, 625, "docs/microarchitecture.md, \"SM pipeline\" and \"SM units\"; the model has none of these "
           "stages (docs/functional-model.md)", 12)
    return s


def memory():
    """The memory path: SM to DRAM, and shared memory inside the SM."""
    s = Svg(1180, 520, "Kestrel memory path")
    s.text(590, 30, "The memory path (rtl/top/kestrel_gpu.sv, rtl/mem/)", 18, "bold")
    for n in range(2):
        y = 70 + n * 170
        s.box(30, y, 250, 140, f"SM {n if n == 0 else 'N-1'}", ["fetch: I-cache, line buffers",
                                                               "LSU: 4 loads/stores per warp,",
                                                               "≤ 32 lines in flight", "shared memory: 32 banks",
                                                               "(shared atomics at the banks)"], "hw")
        s.box(320, y + 45, 120, 50, "skid buffer", ["each way"], "hw")
        s.arrow([(280, y + 70), (320, y + 70)], both=True)
        s.arrow([(440, y + 70), (490, y + 70 if n == 0 else y + 40)], both=True)
    s.text(155, 228, "⋮", 20)
    s.box(490, 90, 170, 220, "kestrel_mem_xbar", ["round-robin", "over the SMs,", "page check,", "order FIFO",
                                                   "(32 in flight)"], "mem")
    s.box(490, 350, 170, 80, "kestrel_page_table", ["3 bits per 4 KiB page", "R, W, X"], "reg")
    s.arrow([(575, 350), (575, 310)], "check", label_at=(582, 336))
    s.box(683, 120, 177, 160, "kestrel_mem_atomic", ["global atomics:", "read line, AMO ALU,", "hold the line,",
                                                      "LR/SC reservations"], "mem")
    s.arrow([(660, 200), (683, 200)], both=True)
    s.box(880, 110, 160, 180, "kestrel_l2_cache", ["128 KiB, 8 ways,", "32 fills in flight,", "write-through,",
                                                    "in order; emptied", "at START and by", "mem_changed_i"], "mem")
    s.arrow([(860, 200), (880, 200)], both=True)
    s.box(1060, 140, 100, 120, "DRAM", ["in-order", "responses,", "tag echo"], "mem")
    s.arrow([(1040, 200), (1060, 200)], both=True)
    s.box(760, 350, 400, 80, "host write_mem / read_mem", ["straight to DRAM; a write during a launch",
                                                           "raises mem_changed_i (harness, board, SystemC bus)"],
          "sw")
    s.arrow([(1110, 350), (1110, 260)])
    s.arrow([(960, 350), (960, 290)], "mem_changed_i", label_at=(968, 336))
    s.text(590, 470, "Address windows per thread (docs/isa.md §4): global memory in DRAM (paged), the shared window "
           "(the SM's banks), the local window", 12)
    s.text(590, 490, "(stack, backed in DRAM by LOCAL_BACKING, a warp's lanes interleaved in 8-byte granules). "
           "Faults: a failed page check answers with the fault kind.", 12)
    return s


def host():
    """The host interface: who writes which registers, and the launch sequence."""
    s = Svg(1000, 600, "Kestrel host interface")
    s.text(500, 30, "The host interface (docs/host-interface.md; include/kestrel/host_regs.h)", 18, "bold")
    s.box(30, 60, 260, 60, "runtime", ["@runtime/device_context.cpp"], "sw")
    s.box(30, 150, 260, 60, "driver: kestrel::Device", ["@driver/device.cpp"], "sw")
    s.arrow([(160, 120), (160, 150)])
    s.box(30, 240, 260, 70, "Transport", ["write_reg / read_reg,", "write_mem / read_mem, wait_idle"], "sw")
    s.arrow([(160, 210), (160, 240)])
    for n, (title, lines, kind) in enumerate([
            ("model", ["@model/host_registers.cpp"], "model"),
            ("rtlsim", ["@rtl/top/kestrel_host_regs.sv"], "hw"),
            ("fpga", ["USB: 16-byte header + payload"], "hw")]):
        s.box(30, 350 + n * 75, 260, 60, title, lines, kind, dashed=kind == "hw" and n == 2)
    s.arrow([(160, 310), (160, 350)])
    regs = [
        ("0x000-0x01C", "ID, VERSION, CONFIG0-2, MEM, CLOCK", "read-only: what the device is"),
        ("0x040-0x08C", "launch descriptor", "ENTRY, EXIT, GP, PARAM, GRID, BLOCK, SHARED, STACK, WATCHDOG"),
        ("0x0A0-0x0A4", "CONTROL, STATUS", "START / ABORT; idle, running, done, fault"),
        ("0x0C0-0x0F4", "fault record", "kind, PC, block, thread, address (while FAULT)"),
        ("0x100-0x108", "page table", "MAP_ADDR, MAP_PAGES, MAP_PERMS"),
        ("0x200-0x27C", "performance counters", "16 x 64 bits: cycles, instructions, stalls, banks, atomics"),
        ("0x400-0xFFF", "per-SM counters", "8 x 64 bits per SM (48 SMs): active cycles, instructions, stalls, blocks"),
    ]
    s.text(640, 72, "register map (32-bit registers, 64-bit as LO/HI)", 14, "bold")
    for n, (offset, name, what) in enumerate(regs):
        y = 85 + n * 52
        s.items.append(f'<rect x="340" y="{y}" width="620" height="44" fill="{COLOURS["reg"]}" stroke="#444444"/>')
        s.text(352, y + 18, offset, 12, mono=True, anchor="start")
        s.text(460, y + 18, name, 13, "bold", anchor="start")
        s.text(460, y + 36, what, 11.5, anchor="start", colour="#333333")
    s.arrow([(290, 275), (340, 275)], both=True)
    steps = ["launch: 1. write_mem the parameter buffer   2. write the descriptor   3. CONTROL = START",
             "4. wait_idle, read STATUS: DONE → read the counters; FAULT → read the fault record"]
    for n, line in enumerate(steps):
        s.text(650, 470 + 20 * n, line, 12)
    s.text(650, 530, "Every backend decodes the same map (one class, kestrel::model::HostRegisters, for the", 12)
    s.text(650, 548, "simulated ones); the map is generated from tools/contract/contract.toml (docs/contract.md).", 12)
    return s


DIAGRAMS = {"stack.svg": stack, "sm.svg": sm, "memory.svg": memory, "host.svg": host}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed SVGs, write nothing")
    parser.add_argument("--out", type=Path, default=DOCS, help="the folder to write into (default docs/)")
    args = parser.parse_args()
    stale = []
    for name, draw in DIAGRAMS.items():
        text = draw().render()
        path = args.out / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print("diagrams: these SVGs differ from docs/diagrams/diagrams.py's output; run it and commit: "
              + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
