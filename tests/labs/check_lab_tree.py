#!/usr/bin/env python3
"""Proves the checker of a lab that changes the Kestrel tree itself honest
(labs 05 and 06; labs/README.md, "The checkers are honest"). It works on a
scratch copy of the whole source tree: `make -C labs/NN check` must FAIL on
the starter tree and PASS once labs/NN/solution/tree.patch is applied and
the solution's other files are copied into labs/NN.

    check_lab_tree.py LAB SOURCE_DIR WORK_DIR
                      [--generator G --c-compiler CC --cxx-compiler CXX [--launcher L] [--quick-build]]

With a generator and compilers it also configures a build tree for the copy
(RTL and sanitizers off) and passes it to make check as KESTREL_BUILD: lab
05's checker builds kestrel-cc and kestrel_cudart in it from nothing on the
starter, then again after the patch (incrementally: the files the patch
touches and those that include them). By default that build tree has the
project's default flags (RelWithDebInfo, one object per source: what a
student builds). --quick-build configures it for compile speed instead:
-O0 without debug information and a unity build (CMAKE_UNITY_BUILD), about
a third of the compile time; warnings stay errors. Lab 06 needs no build
tree (its checker Verilates one unit).

A starter must fail for the right reason: for a lab listed in
STARTER_MUST_PASS the starter run must also pass those checks (lab 05: the
scratch tree builds and popc.cu compiles), so a scratch build that breaks
(a unity batch that does not compile, say) cannot pass for an honest
failure. Prints the time of each step."""
import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

# Checks the checker must PASS on the starter tree: its failure has to come
# from the missing answer, not from a tree that does not build.
STARTER_MUST_PASS = {
    "05": ("rebuilds kestrel-cc and kestrel_cudart", "popc.cu builds with kestrel-cc"),
}

# The scratch build tree's flags under --quick-build. -O0 and no -g: the
# checker runs two small kernels on the model, and debug information adds
# about a fifth to the compile time. A unity build parses each header once per
# batch of sources instead of once per source.
QUICK_BUILD = ["-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_C_FLAGS_DEBUG=-O0", "-DCMAKE_CXX_FLAGS_DEBUG=-O0",
               "-DCMAKE_UNITY_BUILD=ON"]


def run(command, timeout=1800, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
    return done.returncode, done.stdout + done.stderr


class Clock:
    """Seconds each step took, printed as it ends: the test's budget in make test is tight."""

    def __init__(self):
        self.start = self.last = time.monotonic()

    def lap(self, step):
        now = time.monotonic()
        print(f"check_lab_tree: {step}: {now - self.last:.1f} s")
        self.last = now

    def total(self):
        return time.monotonic() - self.start


def copy_tree(source, target):
    """The source tree's files as git sees them (tracked and untracked, not ignored): no build trees."""
    status, out = run(["git", "-C", str(source), "ls-files", "-z", "--cached", "--others", "--exclude-standard"], 60)
    if status != 0:
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(".git", "build*"), dirs_exist_ok=True)
        return
    for name in out.split("\0"):
        path = source / name
        if name and path.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / name)


def make_check(tree, lab, build):
    command = ["make", "-s", "-C", str(tree / "labs" / lab), "check"]
    return run(command + ([f"KESTREL_BUILD={build}"] if build else []))


def configure(tree, build, args):
    command = ["cmake", "-S", str(tree), "-B", str(build), "-G", args.generator, "-DKESTREL_BUILD_RTL=OFF",
               "-DKESTREL_SANITIZE=OFF", f"-DCMAKE_C_COMPILER={args.c_compiler}",
               f"-DCMAKE_CXX_COMPILER={args.cxx_compiler}"]
    if args.launcher:
        command += [f"-DCMAKE_C_COMPILER_LAUNCHER={args.launcher}", f"-DCMAKE_CXX_COMPILER_LAUNCHER={args.launcher}"]
    if args.quick_build:
        command += QUICK_BUILD
    status, out = run(command, 600)
    if status != 0:
        print(f"check_lab_tree: the scratch tree does not configure:\n{out}")
    return status == 0


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lab", help="the lab's number: 05 or 06")
    parser.add_argument("source", type=Path, help="the Kestrel source tree to copy")
    parser.add_argument("work", type=Path, help="scratch folder for the copy (emptied first)")
    parser.add_argument("--generator", help="configure a build tree for the copy with this CMake generator")
    parser.add_argument("--c-compiler")
    parser.add_argument("--cxx-compiler")
    parser.add_argument("--launcher", default="", help="compiler launcher (ccache), may be empty")
    parser.add_argument("--quick-build", action="store_true", help="-O0, no -g, unity build")
    args = parser.parse_args()
    if args.generator and not (args.c_compiler and args.cxx_compiler):
        parser.error("--generator needs --c-compiler and --cxx-compiler")
    if args.quick_build and not args.generator:
        parser.error("--quick-build needs a build tree (--generator)")
    return args


def main():
    args = parse_arguments()
    lab, source, work = args.lab, args.source.resolve(), args.work.resolve()
    clock = Clock()
    if work.exists():
        shutil.rmtree(work)
    tree, build = work / "src", (work / "build" if args.generator else None)
    tree.mkdir(parents=True)
    copy_tree(source, tree)
    clock.lap("copy of the source tree")
    if build and not configure(tree, build, args):
        return 1
    if build:
        clock.lap("configure" + (" (quick build)" if args.quick_build else ""))
    verdict = f"lab {lab}: "

    status, out = make_check(tree, lab, build)
    print(f"--- starter ({status}) ---\n{out}")
    clock.lap("make check on the starter tree")
    if status == 0 or verdict + "FAILED" not in out:
        print(f"check_lab_tree: lab {lab}'s checker did not fail on the starter tree with its verdict")
        return 1
    passed = [line for line in out.splitlines() if line.lstrip().startswith("PASS ")]
    for check in STARTER_MUST_PASS.get(lab, ()):
        if not any(check in line for line in passed):
            print(f"check_lab_tree: on the starter tree lab {lab}'s check '{check}' did not pass: the starter\n"
                  "must fail for the missing answer, not for a scratch tree that does not build")
            return 1

    solution = source / "labs" / lab / "solution"
    status, out = run(["patch", "-p1", "--batch", "--forward", "-d", str(tree), "-i", str(solution / "tree.patch")],
                      60)
    if status != 0:
        print(f"check_lab_tree: lab {lab}'s solution/tree.patch does not apply to the tree:\n{out}")
        return 1
    for path in solution.iterdir():
        if path.name != "tree.patch":
            shutil.copy(path, tree / "labs" / lab / path.name)
    status, out = make_check(tree, lab, build)
    print(f"--- solution ({status}) ---\n{out}")
    clock.lap("make check on the solved tree")
    if status != 0 or verdict + "PASSED" not in out:
        print(f"check_lab_tree: lab {lab}'s checker did not pass on the solution")
        return 1
    print(f"check_lab_tree: lab {lab}: fails on the starter tree, passes with solution/tree.patch "
          f"({clock.total():.1f} s)")
    shutil.rmtree(work)  # a whole copy of the tree (and a build tree): not left behind
    return 0


if __name__ == "__main__":
    sys.exit(main())
