"""Checker of lab 02 (make check): results, divergence removed, predictions."""
import sys

from labcheck import Lab

lab = Lab("lab 02")
status, out, records = lab.run(sys.argv[1], itrace="trace.txt")
lab.check("branchy: 0 of 4096 elements wrong" in out, "branchy computes out",
          "branchy is given: did you change it or treat_even/treat_odd?")
lab.check("uniform: 0 of 4096 elements wrong" in out, "uniform computes the same out as branchy",
          "uniform's out differs (above): every element must get its own parity's treatment (step 4)")
branchy, uniform = lab.kernel(records, "branchy"), lab.kernel(records, "uniform")
lab.check(uniform["counters"]["diverged_issues"] == 0,
          f"uniform never diverges (diverged issues: {uniform['counters']['diverged_issues']},"
          f" lane utilization {uniform['derived']['lane_utilization']:.3f})",
          "some of uniform's warps still issue with a partial mask: make the branch's\n"
          "condition the same for all 32 lanes of a warp (step 4)")

# The first instruction of warp 0 of SM 0 in branchy with a partial mask.
first = next((mask for _, sm, warp, _, mask, _ in Lab.trace("trace.txt", branchy["launch"])
              if sm == 0 and warp == 0 and mask != 0xFFFFFFFF), None)
guess = lab.predictions(keys=("branchy_lane_utilization", "first_mask", "uniform_lane_utilization"))
lab.predicted(guess, "branchy_lane_utilization", branchy["derived"]["lane_utilization"], 0.02,
              hint="count, in trace.txt, a warp's instructions before the branch, on each side and after it,\n"
                   "and the lanes each runs with (README.md step 2)")
if "first_mask" in guess and first is not None:
    lab.check(int(guess["first_mask"]) == first,
              f"prediction first_mask = {int(guess['first_mask']):#010x} matches the trace: {first:#010x}",
              "which side's instructions have the lower PC? the min-PC rule runs that side first")
lab.predicted(guess, "uniform_lane_utilization", uniform["derived"]["lane_utilization"], 0.02,
              hint="with no divergence and whole warps, every instruction runs on all 32 lanes")
lab.finish()
