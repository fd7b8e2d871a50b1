#!/usr/bin/env python3
"""Proves the checker of a lab that changes the Kestrel tree itself honest
(labs 05 and 06; labs/README.md, "The checkers are honest"). It works on a
scratch copy of the whole source tree: `make -C labs/NN check` must FAIL on
the starter tree and PASS once labs/NN/solution/tree.patch is applied and
the solution's other files are copied into labs/NN.

    check_lab_tree.py LAB SOURCE_DIR WORK_DIR [GENERATOR C_COMPILER CXX_COMPILER [LAUNCHER]]

With a generator and compilers it also configures a build tree for the copy
(RTL off) and passes it to make check as KESTREL_BUILD: lab 05 builds
kestrel-cc and kestrel_cudart from nothing, then again after the patch
(minutes on two cores). Lab 06 needs no build tree (its checker Verilates
one unit: about a minute for both runs). Both carry the CTest label long."""
import shutil
import subprocess
import sys
from pathlib import Path


def run(command, timeout=1800, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
    return done.returncode, done.stdout + done.stderr


def copy_tree(source, target):
    """The source tree's files as git sees them (tracked and untracked, not ignored): no build trees."""
    status, out = run(["git", "-C", str(source), "ls-files", "-z", "--cached", "--others", "--exclude-standard"], 60)
    if status != 0:
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(".git", "build*"))
        return
    for name in out.split("\0"):
        path = source / name
        if name and path.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / name)


def make_check(tree, lab, build):
    command = ["make", "-s", "-C", str(tree / "labs" / lab), "check"]
    return run(command + ([f"KESTREL_BUILD={build}"] if build else []))


def main():
    lab, source, work = sys.argv[1], Path(sys.argv[2]).resolve(), Path(sys.argv[3]).resolve()
    if work.exists():
        shutil.rmtree(work)
    tree, build = work / "src", work / "build"
    tree.mkdir(parents=True)
    copy_tree(source, tree)
    if len(sys.argv) > 4 and not configure(tree, build, sys.argv[4:]):
        return 1
    if len(sys.argv) <= 4:
        build = None
    verdict = f"lab {lab}: "

    status, out = make_check(tree, lab, build)
    print(f"--- starter ({status}) ---\n{out}")
    if status == 0 or verdict + "FAILED" not in out:
        print(f"check_lab_tree: lab {lab}'s checker did not fail on the starter tree with its verdict")
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
    if status != 0 or verdict + "PASSED" not in out:
        print(f"check_lab_tree: lab {lab}'s checker did not pass on the solution")
        return 1
    print(f"check_lab_tree: lab {lab}: fails on the starter tree, passes with solution/tree.patch")
    shutil.rmtree(work)  # a whole copy of the tree (and a build tree): not left behind
    return 0


def configure(tree, build, options):
    generator, c_compiler, cxx_compiler = options[:3]
    launcher = options[3] if len(options) > 3 else ""
    command = ["cmake", "-S", str(tree), "-B", str(build), "-G", generator, "-DKESTREL_BUILD_RTL=OFF",
               f"-DCMAKE_C_COMPILER={c_compiler}", f"-DCMAKE_CXX_COMPILER={cxx_compiler}"]
    if launcher:
        command += [f"-DCMAKE_C_COMPILER_LAUNCHER={launcher}", f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher}"]
    status, out = run(command, 600)
    if status != 0:
        print(f"check_lab_tree: the scratch tree does not configure:\n{out}")
    return status == 0


if __name__ == "__main__":
    sys.exit(main())
