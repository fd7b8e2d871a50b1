"""Checker of lab 09 (make check): the student's model of the L2
(l2model.py, step 2) and predictions (predictions.txt, steps 3-6) against
the counters of the Kestrel tree's kestrel_l2_cache.

    check.py --source KESTREL_SOURCE

1. the harness: kestrel_l2_cache at nine parameter points
   (harness/lab09_l2_sweep.sv), Verilated with -Wall into build/ unless it is
   up to date (about 30 s; sweep.py);
2. every trace of traces.py replayed on every point (DRAM latency 20; the
   MSHR step's two traces also at 100);
3. the model: on every trace and point, its hits, misses, evictions and
   writes against the RTL's hit + merge, miss, evict and write events;
4. the predictions against the RTL's counts, exactly or within the
   tolerance predictions.txt states."""
import argparse
import sys
from pathlib import Path

import sweep
import traces
from labcheck import Lab, tail

parser = argparse.ArgumentParser()
parser.add_argument("--source", required=True)
args = parser.parse_args()
source = Path(args.source).resolve()
lab = Lab("lab 09")

# --- 1. the harness -----------------------------------------------------------
if sweep.up_to_date(source):
    print(f"  | the harness in {sweep.HARNESS.parent} is newer than the RTL it is built from: not rebuilt")
else:
    status, out, messages = sweep.build(source)
    if status == 127:
        lab.check(False, "Verilator is installed", "the harness needs verilator (the Debian package)")
        lab.finish()
    if not lab.check(status == 0 and not messages, "the tree's kestrel_l2_cache Verilates at nine points with -Wall, "
                     "no warning", "\n".join(messages[:8]) or tail(out)):
        lab.finish()

# --- 2. the replay ------------------------------------------------------------
paths = sweep.write_traces()
status, out, results = sweep.replay(paths.values(), sweep.LATENCY)
if not lab.check(status == 0 and results and len(results) == len(paths) * len(sweep.points(results)),
                 f"the harness replays {len(paths)} traces on {len(sweep.points(results))} points (DRAM latency {sweep.LATENCY})", tail(out)):
    lab.finish()
status, out, mshr_results = sweep.replay([paths[name] for name in sweep.MSHR_TRACES], sweep.LATENCY_MSHR)
if not lab.check(status == 0 and mshr_results, f"... and {', '.join(sweep.MSHR_TRACES)} at DRAM latency "
                 f"{sweep.LATENCY_MSHR}", tail(out)):
    lab.finish()
points = sweep.points(results)

# --- 3. the model ---------------------------------------------------------------
try:
    sys.path.insert(0, str(Path.cwd()))
    import l2model
    model_error = None
except Exception as error:  # the student's file: any error is a FAIL with its message
    model_error = f"l2model.py does not load: {type(error).__name__}: {error}"
    lab.check(False, "l2model.py loads", model_error)

FIELDS = [("hits", lambda c: c["hits"] + c["merges"], "hits + merges"), ("misses", lambda c: c["misses"], "misses"),
          ("evictions", lambda c: c["evictions"], "evictions"), ("writes", lambda c: c["write_throughs"], "writes")]


def compare(name, requests):
    """None if the model agrees with the RTL on every point, else what differs first."""
    for sets, ways, mshrs in points:
        rtl = results[(name, sets, ways, mshrs)]
        model = l2model.L2Model(sets, ways)
        for write, addr in requests:
            model.access(write, addr)
        for field, measured, what in FIELDS:
            if getattr(model, field) != measured(rtl):
                return (f"on {sweep.label(sets, ways, mshrs)} ({sets} sets x {ways} ways) your model counts "
                        f"{field} = {getattr(model, field)}, the RTL {what} = {measured(rtl)}")
    return None


for name, (what, _) in traces.TRACES.items():
    if model_error:
        # One message is enough for a model that does not load or exist yet.
        lab.check(False, f"model agrees with the RTL on every point: {name} (not run: {model_error})")
        continue
    try:
        difference = compare(name, traces.read(paths[name]))
    except NotImplementedError as error:
        model_error, difference = "l2model.py is the starter", f"the model stopped: {error}"
    except Exception as error:  # the student's code: any error is a FAIL with its message
        difference = f"the model stopped: {type(error).__name__}: {error}"
    lab.check(difference is None, f"model agrees with the RTL on every point: {name} ({what})",
              f"{difference}\n(build/traces/{name}.trace; `make sweep` shows the RTL's counts; README.md step 2)")


# --- 4. the predictions ---------------------------------------------------------
def rtl(name, point, mshr=False):
    sets, ways, mshrs = (int(part) for part in point.replace("x", " ").replace("m", " ").split())
    return (mshr_results if mshr else results)[(name, sets, ways, mshrs)]


def smallest_kib(name, target):
    """The capacity of the smallest point whose hit rate on the trace reaches the target."""
    meeting = [sweep.kib(sets, ways) for sets, ways, mshrs in points
               if sweep.hit_rate(results[(name, sets, ways, mshrs)]) >= target]
    return min(meeting) if meeting else 0


SET_HINT = ("which set does each line fall in (line = addr / 64, set = line % sets), and how many lines does\n"
            "each set get? README.md, \"Sets, ways and lines\"")
PREDICTIONS = [
    # key, measured, tolerance, hint
    ("conflict_misses_64x1m4", rtl("conflict", "64x1m4")["misses"], 0,
     "3 lines 16 KiB apart: which sets? one way each (step 3)"),
    ("conflict_misses_64x2m4", rtl("conflict", "64x2m4")["misses"], 0,
     "3 lines in turn through 2 ways of true LRU: which line is the least recently used when each arrives? (step 3)"),
    ("conflict_misses_64x4m4", rtl("conflict", "64x4m4")["misses"], 0, "3 lines, 4 ways (step 3)"),
    ("rows_misses_16x1m4", rtl("rows", "16x1m4")["misses"], 0,
     "a row is 64 floats, 256 bytes: how many lines does the walk along the rows touch, and is any touched twice\n"
     "after it left? (step 4)"),
    ("cols_misses_16x4m4", rtl("cols", "16x4m4")["misses"], 0, "a column's 64 elements: " + SET_HINT),
    ("cols_misses_64x4m4", rtl("cols", "64x4m4")["misses"], 0,
     "a column's 64 lines fall in how many of the 64 sets, how many per set? and the next 15 columns? " + SET_HINT),
    ("smallest_kib_cols", smallest_kib("cols", 0.9), 0,
     "the smallest of the nine points whose hit rate on cols is at least 0.9 (step 4): is it capacity or sets?"),
    ("random64k_hit_rate_256x4m4", sweep.hit_rate(rtl("random64k", "256x4m4")), 0.02,
     "64 KiB of random words in a 64 KiB cache: after the compulsory misses (how many distinct lines does\n"
     "8192 reads of 1024 lines touch?), does anything miss? (step 5)"),
    ("random64k_hit_rate_64x4m4", sweep.hit_rate(rtl("random64k", "64x4m4")), 0.03,
     "a random read finds its line in the cache with the chance capacity / working set, once warm (step 5)"),
    ("smallest_kib_random32k", smallest_kib("random32k", 0.9), 0,
     "the smallest of the nine points whose hit rate on random32k is at least 0.9 (step 5)"),
    ("copy_misses_256x8m8", rtl("copy", "256x8m8")["misses"], 0,
     "which reads miss: the source's lines once, and the destination's? does a write bring its line in? (step 5)"),
    ("copy_misses_64x1m4", rtl("copy", "64x1m4")["misses"], 0,
     "the source (8 KiB) in a 4 KiB cache; the destination 1 MiB above it: which sets? (step 5)"),
    ("stride4_merges_256x8m8", rtl("stride4", "256x8m8", mshr=True)["merges"], 0,
     "16 reads of each line, one a cycle, and a fill that takes 100 cycles (step 6)"),
    ("stride64_cycles_64x4m1", rtl("stride64", "64x4m1", mshr=True)["cycles"],
     0.1 * rtl("stride64", "64x4m1", mshr=True)["cycles"],
     "256 misses, one fill at a time, each about the DRAM latency (step 6)"),
    ("stride64_cycles_64x4m4", rtl("stride64", "64x4m4", mshr=True)["cycles"],
     0.1 * rtl("stride64", "64x4m4", mshr=True)["cycles"], "Little's law: fills in flight / latency (step 6)"),
    ("stride64_cycles_256x8m8", rtl("stride64", "256x8m8", mshr=True)["cycles"],
     0.1 * rtl("stride64", "256x8m8", mshr=True)["cycles"], "Little's law with 8 MSHRs (step 6)"),
    ("stride4_cycles_256x8m8", rtl("stride4", "256x8m8", mshr=True)["cycles"],
     0.1 * rtl("stride4", "256x8m8", mshr=True)["cycles"],
     "8 MSHRs, but each line's 16 requests wait in the in-order response queue (32 entries) until its fill\n"
     "returns: how many lines can be in flight? (step 6)"),
]
guess = lab.predictions(keys=[key for key, *_ in PREDICTIONS])
for key, measured, tolerance, hint in PREDICTIONS:
    lab.predicted(guess, key, measured, tolerance, hint)
lab.finish()
