#!/usr/bin/env python3
"""Proves lab 05's checker honest (labs/README.md, "The checkers are honest").
Lab 05 changes the Kestrel tree itself (ISA document, contract, model, SDK,
RTL), so this works on a scratch copy of the whole source tree with its own
build tree: `make -C labs/05 check` must FAIL on the starter tree and PASS
once labs/05/solution/tree.patch is applied and solution/popc.cu copied in.

    check_lab05.py SOURCE_DIR WORK_DIR GENERATOR C_COMPILER CXX_COMPILER [LAUNCHER]

It configures and builds kestrel-cc and kestrel_cudart from nothing (RTL
off) and then once more after the patch: minutes on two cores (CTest label
long)."""
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


def make_check(tree, build):
    return run(["make", "-s", "-C", str(tree / "labs/05"), "check", f"KESTREL_BUILD={build}"])


def main():
    source, work = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    generator, c_compiler, cxx_compiler = sys.argv[3:6]
    launcher = sys.argv[6] if len(sys.argv) > 6 else ""
    if work.exists():
        shutil.rmtree(work)
    tree, build = work / "src", work / "build"
    tree.mkdir(parents=True)
    copy_tree(source, tree)

    configure = ["cmake", "-S", str(tree), "-B", str(build), "-G", generator, "-DKESTREL_BUILD_RTL=OFF",
                 f"-DCMAKE_C_COMPILER={c_compiler}", f"-DCMAKE_CXX_COMPILER={cxx_compiler}"]
    if launcher:
        configure += [f"-DCMAKE_C_COMPILER_LAUNCHER={launcher}", f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher}"]
    status, out = run(configure, 600)
    if status != 0:
        print(f"check_lab05: the scratch tree does not configure:\n{out}")
        return 1

    status, out = make_check(tree, build)
    print(f"--- starter ({status}) ---\n{out}")
    if status == 0 or "lab 05: FAILED" not in out:
        print("check_lab05: lab 05's checker did not fail on the starter tree with its verdict")
        return 1

    solution = source / "labs/05/solution"
    status, out = run(["patch", "-p1", "--batch", "--forward", "-d", str(tree), "-i", str(solution / "tree.patch")],
                      60)
    if status != 0:
        print(f"check_lab05: solution/tree.patch does not apply to the tree:\n{out}")
        return 1
    shutil.copy(solution / "popc.cu", tree / "labs/05/popc.cu")
    status, out = make_check(tree, build)
    print(f"--- solution ({status}) ---\n{out}")
    if status != 0 or "lab 05: PASSED" not in out:
        print("check_lab05: lab 05's checker did not pass on the solution")
        return 1
    print("check_lab05: lab 05: fails on the starter tree, passes with solution/tree.patch")
    shutil.rmtree(work)  # a whole build tree: not left behind
    return 0


if __name__ == "__main__":
    sys.exit(main())
