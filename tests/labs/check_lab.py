#!/usr/bin/env python3
"""Proves a lab's checker honest (labs/README.md, "Grading"): in a scratch copy
of labs/common and the lab, `make check` must FAIL on the starter files and
PASS once the lab's solution/ files are copied over them.

    check_lab.py [--source] [--no-plot] LABS_DIR LAB BUILD_DIR WORK_DIR [TARGET EXPECTED]

With TARGET, `make TARGET` (a lab's extra step) must then succeed in the
solved copy and print EXPECTED.  --source gives `make check` the Kestrel
tree LABS_DIR is in as KESTREL_SOURCE (lab 08 measures its RTL); --no-plot
leaves out `make plot` (a lab with no program to plot)."""
import shutil
import subprocess
import sys
from pathlib import Path


def make_check(lab_dir, build_dir, extra=()):
    done = subprocess.run(["make", "-s", "-C", str(lab_dir), "check", f"KESTREL_BUILD={build_dir}", *extra],
                          capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def main():
    options = [arg for arg in sys.argv[1:] if arg in ("--source", "--no-plot")]
    argv = [sys.argv[0]] + [arg for arg in sys.argv[1:] if arg not in options]
    labs, lab, build, work = Path(argv[1]), argv[2], Path(argv[3]).resolve(), Path(argv[4])
    extra = [f"KESTREL_SOURCE={labs.resolve().parent}"] if "--source" in options else []
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    shutil.copytree(labs / "common", work / "common")
    shutil.copytree(labs / lab, work / lab, ignore=shutil.ignore_patterns("solution"))
    verdict = f"lab {lab}: "

    status, out = make_check(work / lab, build, extra)
    print(f"--- starter ({status}) ---\n{out}")
    if status == 0 or verdict + "FAILED" not in out:
        print(f"check_lab: lab {lab}'s checker did not fail on the starter with its verdict")
        return 1

    solution = labs / lab / "solution"
    for path in solution.iterdir():
        shutil.copy(path, work / lab / path.name)
    status, out = make_check(work / lab, build, extra)
    print(f"--- solution ({status}) ---\n{out}")
    if status != 0 or verdict + "PASSED" not in out:
        print(f"check_lab: lab {lab}'s checker did not pass on the solution")
        return 1
    if "--no-plot" in options:
        print(f"check_lab: lab {lab}: fails on the starter, passes on the solution")
        return 0
    # The solution's counters as a chart (make plot, tools/kestrel-stats).
    done = subprocess.run(["make", "-s", "-C", str(work / lab), "plot", f"KESTREL_SOURCE={labs.resolve().parent}"],
                          capture_output=True, text=True, timeout=60)
    chart = work / lab / "stats.svg"
    if done.returncode != 0 or not chart.exists() or "<svg" not in chart.read_text():
        print(f"check_lab: make plot drew no chart: {done.stdout}{done.stderr}")
        return 1
    if len(argv) > 6:
        target, expected = argv[5], argv[6]
        done = subprocess.run(["make", "-s", "-C", str(work / lab), target, f"KESTREL_BUILD={build}"],
                              capture_output=True, text=True, timeout=300)
        print(f"--- make {target} ({done.returncode}) ---\n{done.stdout}{done.stderr}")
        if done.returncode != 0 or expected not in done.stdout:
            print(f"check_lab: make {target} did not print {expected!r}")
            return 1
    print(f"check_lab: lab {lab}: fails on the starter, passes on the solution; make plot draws its counters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
