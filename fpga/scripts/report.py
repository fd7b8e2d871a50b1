#!/usr/bin/env python3
"""Utilization and timing report of an iCE40 build (fpga/Makefile).

Reads Yosys' log (the synth_ice40 cell counts), nextpnr-ice40's log (its
"Device utilisation" block, printed before placement, so present even when
the design does not fit) and nextpnr's JSON report (--report; written only
when place and route finished: the achieved Fmax against the constraint).
Writes a Markdown report and prints it.  Exit status: 0 when nextpnr placed
and routed the design and met the clock constraint, 1 when it did not fit,
2 when it fit but missed timing, 3 when a log is missing or unreadable.

Usage: report.py --yosys-log Y --pnr-log P [--pnr-json J] [--bin B] --out R.md
                 [--title T] [--preset TEXT] [--seconds-synth S] [--seconds-pnr S]
"""
import argparse
import json
import os
import re
import sys

# Yosys cell types of interest after synth_ice40 and what they are.
YOSYS_CELLS = [
    ("SB_LUT4", "LUT4"),
    ("SB_CARRY", "carry"),
    ("SB_DFF*", "flip-flops (all SB_DFF variants)"),
    ("SB_RAM40_4K", "EBR (4 Kbit block RAM)"),
    ("SB_SPRAM256KA", "SPRAM (256 Kbit)"),
    ("SB_MAC16", "DSP (16x16 MAC)"),
]
# nextpnr's utilisation names and what they are.
PNR_NAMES = [
    ("ICESTORM_LC", "logic cells (LUT4 + FF)"),
    ("ICESTORM_RAM", "EBR"),
    ("ICESTORM_SPRAM", "SPRAM"),
    ("ICESTORM_DSP", "DSP"),
    ("ICESTORM_PLL", "PLL"),
    ("SB_IO", "I/O"),
    ("SB_GB", "global buffers"),
]


def yosys_counts(path):
    """The cell counts of the last statistics (a hierarchy's totals)."""
    with open(path, errors="replace") as f:
        text = f.read()
    # A hierarchy's totals follow its per-module statistics.
    start = text.rfind("=== design hierarchy ===")
    if start < 0:
        start = text.rfind("Printing statistics")
    if start < 0:
        return None
    block = text[start:]
    counts = {}
    for m in re.finditer(r"^\s+(\S+)\s+(\d+)\s*$", block, re.M):
        name, n = m.group(1), int(m.group(2))
        if name.startswith("SB_DFF"):
            counts["SB_DFF*"] = counts.get("SB_DFF*", 0) + n
        elif name not in counts:
            counts[name] = n
    return counts


def pnr_log(path):
    """(utilisation {name: (used, available)}, first error line or None)."""
    util = {}
    error = None
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"Info:\s+(\w+):\s+(\d+)/\s*(\d+)", line)
            if m:
                util[m.group(1)] = (int(m.group(2)), int(m.group(3)))
            if error is None and line.startswith("ERROR:"):
                error = line.strip()
    return util, error


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--yosys-log", required=True)
    ap.add_argument("--pnr-log", required=True)
    ap.add_argument("--pnr-json")
    ap.add_argument("--bin")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="Kestrel iCE40 build")
    ap.add_argument("--preset", default="")
    ap.add_argument("--seconds-synth")
    ap.add_argument("--seconds-pnr")
    a = ap.parse_args()

    for p in (a.yosys_log, a.pnr_log):
        if not os.path.exists(p):
            print(f"report.py: {p} is missing", file=sys.stderr)
            return 3
    ycounts = yosys_counts(a.yosys_log)
    util, error = pnr_log(a.pnr_log)
    report = None
    if a.pnr_json and os.path.exists(a.pnr_json):
        try:
            with open(a.pnr_json) as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            print(f"report.py: cannot read {a.pnr_json}: {e}", file=sys.stderr)
            return 3
    if report is not None:
        util = {k: (v["used"], v["available"]) for k, v in report.get("utilization", {}).items()}

    lines = [f"# {a.title}", ""]
    if a.preset:
        lines += [f"Preset: `{a.preset}`", ""]
    lines += ["## Yosys (synth_ice40 -dsp -spram)", "", "| cell | count |", "|---|---|"]
    if ycounts is None:
        lines.append("| (no statistics in the Yosys log) | |")
    else:
        for key, what in YOSYS_CELLS:
            lines.append(f"| {what} `{key}` | {ycounts.get(key, 0)} |")
    lines += ["", "## nextpnr-ice40", "", "| resource | used | available | % |", "|---|---|---|---|"]
    over = []
    for key, what in PNR_NAMES:
        if key in util:
            used, avail = util[key]
            pct = 100.0 * used / avail if avail else 0.0
            lines.append(f"| {what} `{key}` | {used} | {avail} | {pct:.0f} |")
            if used > avail:
                over.append(f"{key} {used}/{avail} ({used / avail:.1f}x)")
    if not util:
        lines.append("| (nextpnr printed no utilisation) | | | |")
    lines.append("")
    status = 0
    fits = report is not None and not over
    if report is not None:
        for clk, f in report.get("fmax", {}).items():
            ok = f["achieved"] >= f["constraint"]
            lines.append(f"Fmax `{clk}`: **{f['achieved']:.2f} MHz** "
                         f"(constraint {f['constraint']:.2f} MHz: {'met' if ok else 'FAILED'})")
            if not ok:
                status = 2
        lines.append("")
    if a.bin and os.path.exists(a.bin):
        lines.append(f"Bitstream: `{a.bin}` ({os.path.getsize(a.bin)} bytes)")
    if over or not fits:
        status = 1
        why = "; ".join(over) if over else (error or "nextpnr did not finish")
        lines.append(f"**DOES NOT FIT**: {why}. No bitstream.")
        if error and over:
            lines.append(f"nextpnr: `{error}`")
    times = []
    if a.seconds_synth:
        times.append(f"synthesis {a.seconds_synth} s")
    if a.seconds_pnr:
        times.append(f"place and route {a.seconds_pnr} s")
    if times:
        lines += ["", "Wall time: " + ", ".join(times) + "."]
    text = "\n".join(lines) + "\n"
    with open(a.out, "w") as f:
        f.write(text)
    print(text, end="")
    return status


if __name__ == "__main__":
    sys.exit(main())
