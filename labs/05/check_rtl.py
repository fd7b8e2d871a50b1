"""Lab 05's optional RTL check (make check-rtl): the new instruction through
the whole SM pipeline, in lock-step with the functional model.

    check_rtl.py --build KESTREL_RTL_BUILD

KESTREL_RTL_BUILD is a build tree of the lab's Kestrel tree configured with
-DKESTREL_BUILD_RTL=ON. This rebuilds its SM bench (rtl_test_sm: the SM
Verilated in two configurations, RV64 4 lanes and RV32 8 lanes; about 15
minutes from nothing on two cores, the Verilator run at configure time
included, and again after each RTL change) and runs the student's lock-step
test SmLockstep.KxPopcAdd in both: every retired warp-instruction and the
memory compared with the model's (tests/rtl/sm/sm_harness.hpp)."""
import argparse
import re
import sys
from pathlib import Path

from labcheck import Lab, run_command as run, tail

parser = argparse.ArgumentParser()
parser.add_argument("--build", required=True)
args = parser.parse_args()
build = Path(args.build).resolve()
lab = Lab("lab 05 (rtl)")




cache = build / "CMakeCache.txt"
rtl_on = cache.exists() and re.search(r"^KESTREL_BUILD_RTL:BOOL=ON$", cache.read_text(), re.M)
if not lab.check(bool(rtl_on), f"{build} is a build tree with the RTL on",
                 "configure one: cmake -S ../.. -B ../../build-rtl -G Ninja -DKESTREL_BUILD_RTL=ON\n"
                 "and give make check-rtl KESTREL_RTL_BUILD=../../build-rtl"):
    lab.finish()
status, out = run(["cmake", "--build", str(build), "--target", "rtl_test_sm"], 3600)
if not lab.check(status == 0, "the SM bench rtl_test_sm builds", "the build failed (warnings are errors):\n" + tail(out)):
    lab.finish()
status, out = run([str(build / "tests/rtl/sm/rtl_test_sm"), "--gtest_filter=*SmLockstep*.KxPopcAdd"], 600)
# All of gtest's output on a failure (the first differing retire record or
# memory word is in it); the summary lines on a pass.
shown = out.splitlines() if status != 0 else [line for line in out.splitlines() if line.startswith("[  ")]
sys.stdout.write("".join(f"  | {line}\n" for line in shown))
ran = len(re.findall(r"^\[ RUN      \] .*KxPopcAdd", out, re.M))
passed = len(re.findall(r"^\[       OK \] .*KxPopcAdd", out, re.M))
lab.check(ran == 2, f"SmLockstep.KxPopcAdd exists and ran in both SM configurations ({ran} of 2)",
          "write the lock-step test TYPED_TEST(SmLockstep, KxPopcAdd) in tests/rtl/sm/test_sm.cpp (README.md,\n"
          "step 7): a program with kx.popc.add (Assembler::word) whose results it stores")
lab.check(status == 0 and passed == 2, f"the RTL and the model agree on every retired instruction ({passed} of 2 passed)",
          "the first retire record or memory word where the RTL and the model differ is above\n"
          "(KESTREL_SM_TRACE=1 prints every retire record)")
lab.finish()
