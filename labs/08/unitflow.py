#!/usr/bin/env python3
"""Lab 08's flow for one Kestrel unit (README.md, "The flow"): Yosys 0.23
synth_ice40 maps the unit to iCE40 cells (LUT4, carry, flip-flops, block
RAM), and for the combinational units nextpnr-ice40 places and routes it
between the registers of harness/lab08_shell.sv on the iCEBreaker's UP5K and
reports the Fmax and the critical path.  The same flow as fpga/Makefile's
(docs/fpga.md), on one unit instead of the whole GPU: seconds, not minutes.

    unitflow.py UNIT [PARAM=VALUE ...]      e.g. unitflow.py alu Xlen=64
    unitflow.py --list

Prints one line of figures; the tools' logs and netlists go to
build/UNIT-PARAMS/ beside this file.  Python 3 standard library only."""
import collections
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The Kestrel tree whose RTL the lab measures (KESTREL_SOURCE: a lab folder
# copied out of the repository names it).
SOURCE = Path(os.environ.get("KESTREL_SOURCE", HERE / ".." / "..")).resolve()
RTL = SOURCE / "rtl"
HARNESS = HERE / "harness"
# The board's clock (fpga/Makefile, FREQ_MHZ) as nextpnr's target, and a fixed
# placement seed, so that a rerun places the same way.
FREQ_MHZ = 24
SEED = 1

# Each unit: its RTL files, the top Yosys synthesizes, the module whose cells
# are the unit's, and its parameters with their defaults.  The combinational
# units are synthesized inside a harness top (harness/) for nextpnr's timing;
# their counts are those of the unit's module alone (synthesized as a
# hierarchy, -noflatten).
UNITS = {
    "alu": dict(files=["pkg/kestrel_pkg.sv", "core/kestrel_alu.sv"], harness="lab08_alu_top",
                module="kestrel_alu", params={"Xlen": 64},
                what="one lane's integer ALU (rtl/core/kestrel_alu.sv)"),
    "min_find": dict(files=["prim/kestrel_min_find.sv"], harness="lab08_min_find_top",
                     module="kestrel_min_find", params={"N": 8},
                     what="the minimum of N valid 32-bit PCs, a comparator tree (rtl/prim/kestrel_min_find.sv)"),
    "warp_sched": dict(files=["pkg/kestrel_pkg.sv", "prim/kestrel_rr_arb.sv", "core/kestrel_warp_sched.sv"],
                       module="kestrel_warp_sched", params={"Warps": 8, "Policy": 0},
                       what="the warp scheduler, Policy 0 lrr or 1 gto (rtl/core/kestrel_warp_sched.sv)"),
    "ram": dict(files=["prim/kestrel_ram_1r1w.sv"], module="kestrel_ram_1r1w",
                params={"Width": 32, "Depth": 16},
                what="a RAM of Depth words of Width bits, one read and one write port (rtl/prim/kestrel_ram_1r1w.sv)"),
}


class FlowError(Exception):
    """A tool is missing or failed: the message says which and where its log is."""


def tools_missing():
    return [tool for tool in ("yosys", "nextpnr-ice40") if shutil.which(tool) is None]


def parse_params(unit, assignments):
    """The unit's parameters: its defaults, overridden by NAME=VALUE strings."""
    if unit not in UNITS:
        raise FlowError(f"unknown unit '{unit}': one of {', '.join(UNITS)}")
    params = dict(UNITS[unit]["params"])
    for assignment in assignments:
        name, _, value = assignment.partition("=")
        if name not in params or not value.isdigit():
            raise FlowError(f"{unit} takes {', '.join(f'{key}=<number>' for key in params)}, not '{assignment}'")
        params[name] = int(value)
    return params


def label(unit, params):
    return f"{unit} " + " ".join(f"{key}={value}" for key, value in params.items())


def run_tool(command, log, timeout=300):
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise FlowError(f"{command[0]} is not installed (Debian packages yosys, nextpnr-ice40; tools/bootstrap.sh)")
    except subprocess.TimeoutExpired:
        raise FlowError(f"{command[0]} ran for over {timeout} s (log: {log})")
    if done.returncode != 0:
        errors = [line for line in (done.stdout + done.stderr).splitlines() if "ERROR" in line or "rror:" in line]
        raise FlowError(f"{command[0]} failed (log: {log}):\n" + "\n".join(errors[:10]))
    return time.monotonic() - start


def cell_counts(cells):
    """LUT4, carry, flip-flop, block RAM and DSP counts from Yosys' cell types."""
    return dict(lut=cells.get("SB_LUT4", 0), carry=cells.get("SB_CARRY", 0),
                ff=sum(count for kind, count in cells.items() if kind.startswith("SB_DFF")),
                ebr=cells.get("SB_RAM40_4K", 0), dsp=cells.get("SB_MAC16", 0))


def critical_path(report):
    """Fmax and the critical path's make-up from nextpnr's JSON report."""
    fmax = next(iter(report["fmax"].values()))["achieved"]
    # The register-to-register path (the others run from or to the pins).
    path = next(path for path in report["critical_paths"]
                if path["from"].startswith("posedge") and path["to"].startswith("posedge"))
    steps = collections.Counter()
    delays = collections.Counter()
    for step in path["path"]:
        kind = step["type"]
        if kind == "logic":
            kind = "carry" if step["to"]["port"] == "COUT" else "lut"
            steps[kind] += 1
        delays[kind] += step["delay"]
    return dict(fmax=fmax, path_ns=sum(delays.values()), carry_steps=steps["carry"], lut_steps=steps["lut"],
                routing_ns=delays["routing"], logic_ns=delays["carry"] + delays["lut"])


def measure(unit, params, build=HERE / "build"):
    """Runs the flow on the unit with these parameters; returns its figures."""
    spec = UNITS[unit]
    work = Path(build) / (unit + "-" + "-".join(f"{key}{value}" for key, value in params.items()))
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    files = [str(RTL / name) for name in spec["files"]]
    top = spec.get("harness", spec["module"])
    if "harness" in spec:
        files += [str(HARNESS / "lab08_shell.sv"), str(HARNESS / f"{top}.sv")]
    chparam = " ".join(f"-set {key} {value}" for key, value in params.items())
    netlist, stats, log = work / "netlist.json", work / "stat.json", work / "yosys.log"
    # The harness is kept as a hierarchy so the unit's cells are counted on
    # their own; a unit synthesized as the top is flattened (the scheduler's
    # round-robin arbiter belongs to it).
    flatten = " -noflatten" if "harness" in spec else ""
    script = (f"read_verilog -defer -sv -DSYNTHESIS -I{RTL / 'include'} {' '.join(files)}; chparam {chparam} {top}; "
              f"synth_ice40 -dsp{flatten} -top {top} -json {netlist}; tee -q -o {stats} stat -json")
    seconds = run_tool(["yosys", "-q", "-l", str(log), "-p", script], log)
    modules = json.loads(stats.read_text())["modules"]
    # Yosys names a parameterized module $paramod\kestrel_alu\Xlen=... or
    # $paramod$<hash>\kestrel_min_find: the module's name is the second part.
    mine = [cells for name, cells in modules.items() if name.split("\\")[1 if name.startswith("$paramod") else -1]
            == spec["module"]]
    if len(mine) != 1:
        raise FlowError(f"yosys: no single module {spec['module']} in {stats}")
    figures = cell_counts(mine[0]["num_cells_by_type"])
    figures["yosys_s"] = seconds
    if "harness" in spec:
        pnr_log, report = work / "nextpnr.log", work / "nextpnr.json"
        # The default router (router1): nextpnr 0.4's router2 halves the
        # ALU's time but did not converge on min_find N=8 in 5 minutes.
        # --timing-allow-fail: a unit slower than the board's 24 MHz is a
        # figure to report, not an error.
        figures["nextpnr_s"] = run_tool(
            ["nextpnr-ice40", "--up5k", "--package", "sg48", "--json", str(netlist), "--freq", str(FREQ_MHZ),
             "--seed", str(SEED), "--pcf-allow-unconstrained", "--timing-allow-fail", "--report", str(report),
             "-l", str(pnr_log), "-q"], pnr_log)
        figures.update(critical_path(json.loads(report.read_text())))
    return figures


def describe(unit, params, figures):
    text = (f"{label(unit, params)}: LUT4 {figures['lut']}, carry {figures['carry']}, flip-flops {figures['ff']}, "
            f"EBR {figures['ebr']}")
    if "fmax" in figures:
        text += (f"; Fmax {figures['fmax']:.2f} MHz: critical path {figures['path_ns']:.1f} ns through "
                 f"{figures['lut_steps']} LUTs and {figures['carry_steps']} carries ({figures['logic_ns']:.1f} ns "
                 f"of logic, {figures['routing_ns']:.1f} ns of routing)")
    return text


def main(argv):
    if not argv or argv[0] in ("-h", "--help", "--list"):
        print(__doc__.strip())
        print("\nunits:")
        for unit, spec in UNITS.items():
            defaults = " ".join(f"{key}={value}" for key, value in spec["params"].items())
            print(f"  {unit:<11} {defaults:<20} {spec['what']}")
        return 0 if argv else 2
    missing = tools_missing()
    if missing:
        print(f"unitflow: {' and '.join(missing)} not found: install the Debian packages yosys and nextpnr-ice40 "
              "(tools/bootstrap.sh)", file=sys.stderr)
        return 2
    try:
        params = parse_params(argv[0], argv[1:])
        figures = measure(argv[0], params)
    except FlowError as error:
        print(f"unitflow: {error}", file=sys.stderr)
        return 1
    print(describe(argv[0], params, figures))
    times = f"yosys {figures['yosys_s']:.1f} s" + (f", nextpnr {figures['nextpnr_s']:.1f} s" if "nextpnr_s" in figures
                                                  else "")
    print(f"  ({times}; logs in build/)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
