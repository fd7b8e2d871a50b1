"""Checker of lab 06 (make check): the two-level warp scheduling policy in
the Kestrel tree the lab is in (README.md, steps 1-2).

    check.py --source KESTREL_SOURCE

1. the contract: SchedTwoLevel = 2 in [enums.sched_policy], its generated
   files up to date (include/kestrel/host_regs.h: KESTREL_SCHED_TWO_LEVEL);
2. the RTL: the tree's kestrel_warp_sched (with kestrel_rr_arb) Verilated
   with -Wall into bench/ (lab06_sched.sv: 8 warps under policies 0, 1 and 2
   side by side; lab06_bench.cpp: 20000 cycles of random ready, launch and
   issue inputs against a C++ reference of each policy's rules): about 30 s.
The IPC comparison on rtlsim (steps 3-4) needs an RTL build and is the
report's, not this checker's."""
import argparse
import re
import sys
from pathlib import Path

from labcheck import Lab, run_command as run, tail

parser = argparse.ArgumentParser()
parser.add_argument("--source", required=True)
args = parser.parse_args()
source = Path(args.source).resolve()
lab = Lab("lab 06")
here = Path(__file__).resolve().parent




# --- 1. the contract ----------------------------------------------------------
status, out = run([sys.executable, str(source / "tools/contract/gen_contract.py"), "--check"], 60)
lab.check(status == 0, "the contract's generated files agree with tools/contract/contract.toml",
          "run tools/contract/gen_contract.py after editing contract.toml (README.md step 1):\n" + tail(out, 8))
regs = (source / "include/kestrel/host_regs.h").read_text()
lab.check(re.search(r"KESTREL_SCHED_TWO_LEVEL\s*=\s*2\b", regs), "host_regs.h names policy 2 KESTREL_SCHED_TWO_LEVEL",
          "add { c = \"KESTREL_SCHED_TWO_LEVEL\", sv = \"SchedTwoLevel\", value = 2, ... } to contract.toml's\n"
          "[enums.sched_policy] and regenerate (README.md step 1)")

# --- 2. the RTL: kestrel_warp_sched under the three policies -----------------
objdir = here / "bench_obj"
rtl = source / "rtl"
sources = [rtl / "pkg/kestrel_pkg.sv", rtl / "prim/kestrel_rr_arb.sv", rtl / "core/kestrel_warp_sched.sv",
           here / "bench/lab06_sched.sv", here / "bench/lab06_bench.cpp"]
status, out, messages = lab.verilate("lab06_sched", sources, rtl / "include", objdir, "lab06_bench")
if lab.check(status == 0, "kestrel_warp_sched Verilates with Policy 0, 1 and 2 and -Wall, no warning",
             "Verilator (step 2): 'Policy 2 is not a kestrel_pkg::sched_policy_e this unit implements' means the\n"
             "policy check at the top of kestrel_warp_sched.sv does not know it yet; fix every warning:\n"
             + "\n".join(messages[:8] or [tail(out)])):
    status, out = run([str(objdir / "lab06_bench")], 60)
    sys.stdout.write("".join(f"  | {line}\n" for line in out.splitlines()))
    for policy, what in (("0 (lrr)", "loose round-robin is unchanged"), ("1 (gto)", "greedy-then-oldest is unchanged"),
                         ("2 (two-level)", "the two-level policy chooses what its rules say")):
        lab.check(re.search(rf"policy {re.escape(policy)}: \d+ choices, 0 wrong", out) is not None,
                  f"policy {policy}: {what} (20000 random cycles)",
                  "the cycles above show the inputs, the choice and the rule's choice (README.md, \"The policy\")")
lab.finish()
