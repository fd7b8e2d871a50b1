#!/usr/bin/env python3
"""Lab 09's sweep (README.md): builds the harness (the Kestrel tree's
kestrel_l2_cache at every point of harness/lab09_l2_sweep.sv, Verilated with
-Wall into build/), writes the traces (traces.py) and replays them.

    sweep.py --source KESTREL_SOURCE table        every trace on every point: a table
    sweep.py --source KESTREL_SOURCE plot OUT.svg hit rate against working set, per point

The harness is rebuilt only when the RTL or the harness changed (about 30 s
of Verilator and C++).  Python 3 standard library only."""
import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import escape

import traces

HERE = Path(__file__).resolve().parent
BUILD = HERE / "build"
HARNESS = BUILD / "obj" / "lab09_replay"
# DRAM latencies (cycles): the sweep's, and the MSHR step's (README.md, step 6).
LATENCY, LATENCY_MSHR = 20, 100
MSHR_TRACES = ["stride4", "stride64"]


def sources(source):
    rtl = Path(source) / "rtl"
    return [rtl / "pkg/kestrel_pkg.sv", rtl / "prim/kestrel_fifo.sv", rtl / "prim/kestrel_ram_1r1w.sv",
            rtl / "mem/kestrel_l2_cache.sv", HERE / "harness/lab09_l2_sweep.sv", HERE / "harness/lab09_replay.cpp"]


def up_to_date(source):
    """The harness exists and is newer than every file it is built from."""
    if not HARNESS.exists():
        return False
    built = HARNESS.stat().st_mtime
    files = sources(source) + [Path(source) / "rtl/include/kestrel_contract.svh",
                               Path(source) / "rtl/include/kestrel_contract.hpp"]
    return all(path.stat().st_mtime < built for path in files)


def build(source):
    """Verilates the harness: (exit status, output, Verilator's warning and error lines).  127: no Verilator."""
    verilator = shutil.which(os.environ.get("VERILATOR", "verilator"))
    if verilator is None:
        return 127, "no verilator (the Debian package)", []
    source = Path(source).resolve()
    objdir = HARNESS.parent
    shutil.rmtree(objdir, ignore_errors=True)
    objdir.mkdir(parents=True)
    include = source / "rtl/include"
    command = [verilator, "--cc", "--exe", "--build", "-j", "2", "-Wall", "--assert", f"-I{include}",
               "--top-module", "lab09_l2_sweep", "-Mdir", str(objdir), "-o", HARNESS.name,
               "-CFLAGS", f"-std=c++17 -Wall -Wextra -Werror -I{include} -I{source / 'include'}",
               # The model's per-cycle code at -O1 (as fast here as Verilator's default -Os, for
               # two thirds of the compile time), its constructors and Verilator's runtime at -O0.
               "-MAKEFLAGS", "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O0",
               *map(str, sources(source))]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return 124, "Verilator ran for over 600 s", []
    out = done.stdout + done.stderr
    messages = [line for line in out.splitlines() if line.startswith(("%Warning", "%Error")) or "error:" in line]
    if done.returncode == 0 and not HARNESS.exists():
        return 1, out + "\nno harness was built", messages
    return done.returncode, out, messages


def write_traces():
    directory = BUILD / "traces"
    traces.write(directory)
    return {name: directory / f"{name}.trace" for name in traces.TRACES}


def replay(paths, latency):
    """Runs the harness: (exit status, output, results), results[(trace, sets, ways, mshrs)] = counts."""
    try:
        done = subprocess.run([str(HARNESS), "--latency", str(latency), *map(str, paths)], capture_output=True,
                              text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return 124, "the harness ran for over 300 s", {}
    results = {}
    for line in done.stdout.splitlines():
        if line.startswith("l2 "):
            fields = dict(field.split("=", 1) for field in line.split()[1:])
            counts = {key: int(value) for key, value in fields.items() if key != "trace"}
            results[(fields["trace"], counts["sets"], counts["ways"], counts["mshrs"])] = counts
    return done.returncode, done.stdout + done.stderr, results


def label(sets, ways, mshrs):
    """A point's name in predictions.txt and the tables: sets x ways, MSHRs."""
    return f"{sets}x{ways}m{mshrs}"


def kib(sets, ways):
    return sets * ways * traces.LINE // 1024


def hit_rate(counts):
    """Reads that found their line present or on its way (hits + merges) over all reads."""
    return (counts["hits"] + counts["merges"]) / counts["reads"] if counts["reads"] else 0.0


def points(results):
    """The sweep's points, smallest first, as the harness listed them."""
    seen = []
    for _, sets, ways, mshrs in results:
        if (sets, ways, mshrs) not in seen:
            seen.append((sets, ways, mshrs))
    return seen


def table(results, latency):
    lines = [f"DRAM latency {latency} cycles; hit rate = (hits + merges) / reads",
             f"{'trace':12} {'point':10} {'KiB':>4} {'reads':>6} {'writes':>6} {'hits':>6} {'merges':>6} "
             f"{'misses':>6} {'evicts':>6} {'hit rate':>8} {'cycles':>8}"]
    for (name, sets, ways, mshrs), c in results.items():
        lines.append(f"{name:12} {label(sets, ways, mshrs):10} {kib(sets, ways):4} {c['reads']:6} {c['writes']:6} "
                     f"{c['hits']:6} {c['merges']:6} {c['misses']:6} {c['evictions']:6} {hit_rate(c):8.3f} "
                     f"{c['cycles']:8}")
    return "\n".join(lines)


COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf",
           "#bcbd22"]


def plot(results, output):
    """Hit rate against the random traces' working set (log scale), one line per point."""
    width, height, left, right, top, bottom = 760, 440, 60, 190, 40, 50
    sizes = traces.RANDOM_SETS
    x_of = {size: left + (width - left - right) * i / (len(sizes) - 1) for i, size in enumerate(sizes)}

    def y_of(rate):
        return top + (height - top - bottom) * (1 - rate)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{left}" y="22" font-size="14">kestrel_l2_cache: hit rate of random reads against the '
             f'working set (DRAM latency {LATENCY})</text>']
    for tick in range(0, 11, 2):
        y = y_of(tick / 10)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{tick / 10:.1f}</text>')
    for size, x in x_of.items():
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - bottom}" stroke="#eee"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle">{size}</text>')
    parts.append(f'<text x="{(left + width - right) / 2:.1f}" y="{height - 12}" text-anchor="middle">'
                 'working set (KiB, log scale)</text>')
    parts.append(f'<text x="16" y="{(top + height - bottom) / 2:.1f}" text-anchor="middle" '
                 f'transform="rotate(-90 16 {(top + height - bottom) / 2:.1f})">hit rate (hits + merges) / reads</text>')
    for number, (sets, ways, mshrs) in enumerate(points(results)):
        colour = COLOURS[number % len(COLOURS)]
        xy = [(x_of[size], y_of(hit_rate(results[(f"random{size}k", sets, ways, mshrs)])))
              for size in sizes if (f"random{size}k", sets, ways, mshrs) in results]
        if not xy:
            continue
        dash = ' stroke-dasharray="5 3"' if number % 2 else ""
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="'
                     + " ".join(f"{x:.1f},{y:.1f}" for x, y in xy) + '"/>')
        parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>' for x, y in xy]
        y = top + 10 + 18 * number
        name = escape(f"{label(sets, ways, mshrs)} ({kib(sets, ways)} KiB)")
        parts.append(f'<line x1="{width - right + 12}" y1="{y}" x2="{width - right + 36}" y2="{y}" '
                     f'stroke="{colour}" stroke-width="2"{dash}/>')
        parts.append(f'<text x="{width - right + 42}" y="{y + 4}">{name}</text>')
    parts.append("</svg>")
    Path(output).write_text("\n".join(parts) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", required=True)
    parser.add_argument("what", choices=["table", "plot"])
    parser.add_argument("output", nargs="?")
    args = parser.parse_args()
    if args.what == "plot" and not args.output:
        parser.error("plot needs an output file")
    if not up_to_date(args.source):
        print("sweep: building the harness (Verilator, about 30 s)", file=sys.stderr)
        status, out, messages = build(args.source)
        if status != 0:
            print("\n".join(messages[:10]) or out[-3000:], file=sys.stderr)
            return 1
    paths = write_traces()
    status, out, results = replay(paths.values(), LATENCY)
    if status != 0:
        print(out[-3000:], file=sys.stderr)
        return 1
    if args.what == "plot":
        plot(results, args.output)
        print(f"sweep: {args.output}: hit rate against working set for {len(points(results))} points")
        return 0
    print(table(results, LATENCY))
    status, out, mshr_results = replay([paths[name] for name in MSHR_TRACES], LATENCY_MSHR)
    if status != 0:
        print(out[-3000:], file=sys.stderr)
        return 1
    print()
    print(table(mshr_results, LATENCY_MSHR))
    return 0


if __name__ == "__main__":
    sys.exit(main())
