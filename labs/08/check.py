"""Checker of lab 08 (make check): reruns the flow (unitflow.py: Yosys
synth_ice40, and nextpnr-ice40 for the combinational units) on every unit
configuration whose figures the student recorded in predictions.txt, side by
side on the machine's CPUs, and compares: the measured figures (steps 1-4)
within a few percent, the predictions (a configuration worked out before
running it) within the tolerances the file states.  A configuration with
nothing recorded is not run: its keys FAIL at once.

    check.py"""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import unitflow
from labcheck import Lab

lab = Lab("lab 08")

# The figures' names in predictions.txt.
NAMES = dict(lut="LUT4", carry="carry", ff="flip-flops", ebr="EBR", fmax="Fmax (MHz)")
# Recorded measurements: the checker reruns the same tools with the same seed
# and should find the same numbers; the margin covers another build of the
# same tool versions.
MEASURED_COUNT, MEASURED_FMAX = 0.02, 0.05

# Each configuration: (key prefix, unit, parameters, [(figure, kind, tolerance, hint)]).  kind
# "measured" is a figure the student reads off `make synth`; "predicted" one
# worked out before running it (step 2 and the README's rules); "derived" is
# computed from another configuration's measurement.
MIN_HINT = ("how many comparators does a tree over N leaves have (kestrel_min_find: N - 1 nodes), and what\n"
            "does each cost in carries and LUT4s (your N = 4 and 8 figures)? The critical path crosses one\n"
            "comparator per level: log2(N) levels; fit period = a + b * log2(N) to N = 4 and 8 (step 2)")
CONFIGS = [
    ("alu32", "alu", {"Xlen": 32}, [("lut", "measured"), ("carry", "measured"), ("fmax", "measured")]),
    ("alu64", "alu", {"Xlen": 64}, [("lut", "measured"), ("carry", "measured"), ("fmax", "measured")]),
    ("min4", "min_find", {"N": 4}, [("lut", "measured"), ("carry", "measured"), ("fmax", "measured")]),
    ("min8", "min_find", {"N": 8}, [("lut", "measured"), ("carry", "measured"), ("fmax", "measured")]),
    ("min16", "min_find", {"N": 16}, [("lut", "predicted", 0.10, MIN_HINT), ("carry", "predicted", 0.02, MIN_HINT),
                                      ("fmax", "predicted", 0.15, MIN_HINT)]),
    ("lrr8", "warp_sched", {"Warps": 8, "Policy": 0}, [("ff", "measured")]),
    ("gto4", "warp_sched", {"Warps": 4, "Policy": 1}, [("ff", "measured")]),
    ("gto8", "warp_sched", {"Warps": 8, "Policy": 1}, [("ff", "measured")]),
    ("gto16", "warp_sched", {"Warps": 16, "Policy": 1},
     [("ff", "predicted", 0, "count the state kestrel_warp_sched keeps under gto: the age matrix older_q (which of\n"
                             "its Warps x Warps bits can never change?), last_q and last_valid_q; is the\n"
                             "round-robin pointer still read (step 3)?")]),
    ("ram64x64", "ram", {"Width": 64, "Depth": 64}, [("ebr", "measured")]),
    ("ram64x256", "ram", {"Width": 64, "Depth": 256},
     [("ebr", "predicted", 0, "an SB_RAM40_4K is 4 Kbit as 256 x 16, 512 x 8, 1024 x 4 or 2048 x 2 (step 4): which\n"
                              "shape holds 256 words, and how many side by side make 64 bits?")]),
    ("ram64x512", "ram", {"Width": 64, "Depth": 512},
     [("ebr", "predicted", 0, "the deepest shape that holds 512 words is 512 x 8 (step 4): how many make 64 bits?")]),
    ("ram128x64", "ram", {"Width": 128, "Depth": 64},
     [("ebr", "predicted", 0, "64 words fit one EBR's depth in any shape; the width decides (step 4)")]),
]

missing = unitflow.tools_missing()
if not lab.check(not missing, "yosys and nextpnr-ice40 are installed",
                 f"missing: {', '.join(missing)}; install the Debian packages yosys and nextpnr-ice40\n"
                 "(tools/bootstrap.sh installs both)"):
    lab.finish()

keys = [f"{prefix}_{figure[0]}" for prefix, _, _, figures in CONFIGS for figure in figures]
keys.append("regfile_ebr")
guess = lab.predictions(keys=keys)

# Run only what was recorded: the starter's empty file runs nothing.
wanted = [config for config in CONFIGS if any(f"{config[0]}_{figure[0]}" in guess for figure in config[3])]
if "regfile_ebr" in guess and not any(config[0] == "ram64x64" for config in wanted):
    wanted.append(next(config for config in CONFIGS if config[0] == "ram64x64"))
# The ones with nextpnr first: they take longest.
wanted.sort(key=lambda config: ("harness" not in unitflow.UNITS[config[1]], -sum(config[2].values())))


def measure(config):
    prefix, unit, params, _ = config
    try:
        return unitflow.measure(unit, params), None
    except unitflow.FlowError as error:
        return None, str(error)


with ThreadPoolExecutor(max_workers=max(1, min(len(wanted), os.cpu_count() or 1))) as pool:
    results = dict(zip((config[0] for config in wanted), pool.map(measure, wanted)))

def synth_command(unit, params):
    return f"make synth UNIT={unit} PARAMS=\"{' '.join(f'{key}={value}' for key, value in params.items())}\""


for prefix, unit, params, figures in CONFIGS:
    if prefix not in results:
        print(f"  | {unitflow.label(unit, params)}: nothing recorded, not run ({synth_command(unit, params)})")
        continue
    measured, error = results[prefix]
    what = unitflow.label(unit, params)
    if not lab.check(measured is not None, f"the flow runs on {what}", error or ""):
        continue
    print(f"  | {unitflow.describe(unit, params, measured)}")
    for figure in figures:
        name, kind = figure[0], figure[1]
        key, value = f"{prefix}_{name}", measured[name]
        if kind == "measured":
            tolerance = (MEASURED_FMAX if name == "fmax" else MEASURED_COUNT) * value
            lab.predicted(guess, key, value, tolerance,
                          f"record {what}'s {NAMES[name]} as `{synth_command(unit, params)}` prints it (README.md,\n"
                          "\"The flow\"); a figure far off may be another row's")
        else:
            lab.predicted(guess, key, value, figure[2] * value, figure[3])

# The register file's block RAM: kestrel_regfile keeps three copies of its
# storage (rs1, rs2, rs3 read ports), each Warps*32 rows of Lanes*Xlen bits;
# the board preset's (2 warps x 2 lanes, RV32) rows are 64 x 64, the RAM
# measured as ram64x64.
if "ram64x64" in results and results["ram64x64"][0] is not None:
    lab.predicted(guess, "regfile_ebr", 3 * results["ram64x64"][0]["ebr"], 0,
                  "kestrel_regfile's storage: how many copies, of how many rows and bits\n"
                  "(rtl/core/kestrel_regfile.sv, its header; the board preset in docs/fpga.md)? Each copy is a RAM\n"
                  "like ram64x64 (step 4)")
lab.finish()
