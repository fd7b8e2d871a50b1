"""Checker of lab 04 (make check): three right sums, each the way it should
be computed, and the predictions."""
import sys

from labcheck import Lab

BLOCKS, WARPS = 4096 // 256, 4096 // 32
lab = Lab("lab 04")
status, out, records = lab.run(sys.argv[1])
for name, step in (("reduce_atomic", "it is given: did you change it?"), ("reduce_shared", "step 3"),
                   ("reduce_shuffle", "step 4")):
    line = out.split(f"{name}: sum", 1)[1].split("\n", 1)[0] if f"{name}: sum" in out else ""
    lab.check(line.endswith("right"),
              f"{name} computes the sum", f"{name}'s sum is wrong (above): {step}")
atomic, shared, shuffle = (lab.kernel(records, name) for name in ("reduce_atomic", "reduce_shared", "reduce_shuffle"))
sc, wc = shared["counters"], shuffle["counters"]
lab.check(sc["shared_accesses"] > 0 and 0 < sc["atomics"] <= BLOCKS,
          f"reduce_shared reduces in shared memory ({sc['shared_accesses']} shared accesses) with one atomic "
          f"per block ({sc['atomics']} atomics, {BLOCKS} blocks)",
          "reduce_shared must add the block's values in shared memory and let one thread per block\n"
          "add the result to *sum (step 3)")
lab.check(wc["shared_accesses"] == 0 and 0 < wc["atomics"] <= WARPS,
          f"reduce_shuffle reduces in registers ({wc['shared_accesses']} shared accesses) with one atomic "
          f"per warp ({wc['atomics']} atomics, {WARPS} warps)",
          "reduce_shuffle must add a warp's values with __shfl_down_sync, no shared memory, and let\n"
          "lane 0 of each warp add the result to *sum (step 4)")

guess = lab.predictions(keys=("atomic_atomics", "shared_atomics", "shuffle_atomics", "shared_barriers",
                              "fewest_cycles"))
lab.predicted(guess, "atomic_atomics", atomic["counters"]["atomics"], hint="how many threads call atomicAdd?")
lab.predicted(guess, "shared_atomics", sc["atomics"], hint="how many threads of each block call atomicAdd?")
lab.predicted(guess, "shuffle_atomics", wc["atomics"], hint="how many lanes of each warp call atomicAdd?")
lab.predicted(guess, "shared_barriers", sc["barriers"],
              hint="count the __syncthreads() each block passes: one after the load, one per halving")
cycles = [run["counters"]["cycles"] for run in (atomic, shared, shuffle)]
lab.predicted(guess, "fewest_cycles", cycles.index(min(cycles)) + 1,
              hint=f"cycles on the model: {cycles[0]}, {cycles[1]}, {cycles[2]}; what is a model cycle?")
lab.finish()
