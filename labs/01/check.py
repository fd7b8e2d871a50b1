"""Checker of lab 01 (make check): the result, then the predictions."""
import sys

from labcheck import Lab

lab = Lab("lab 01")
status, out, records = lab.run(sys.argv[1])
lab.check(status == 0 and " 0 of 1000 elements wrong" in out, "saxpy computes y = a*x + y",
          "the program found wrong elements (above): step 1 of the handout")
run = lab.kernel(records, "saxpy")
counters, derived = run["counters"], run["derived"]
guess = lab.predictions(keys=("blocks", "stores", "lane_utilization", "ipc_per_sm"))
lab.predicted(guess, "blocks", counters["blocks"], hint="blocks = ceil(n / blockDim.x)")
lab.predicted(guess, "stores", counters["stores"],
              hint="a store instruction counts once per warp that issues it, whatever its mask:\n"
                   "how many warps hold at least one i < n?")
lab.predicted(guess, "lane_utilization", derived["lane_utilization"], 0.01,
              hint="count the instructions of a full warp and of the last warp in the trace\n"
                   "(make trace; README.md step 4), and the active lanes of each")
lab.predicted(guess, "ipc_per_sm", derived["ipc_per_sm"], 0.01,
              hint="the model has no pipeline: what is one of its cycles? (docs/functional-model.md)")
lab.finish()
