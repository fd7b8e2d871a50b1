#!/usr/bin/env python3
"""Runs the commands of docs/tour.md as written: every fenced block that
follows a `<!-- tour: run -->` line, in order, in one bash shell started in
the repository root with `set -euo pipefail`, KESTREL_BUILD naming the build
tree.  (So the tour keeps the first lines of a pipe with `sed -n 1,Np`, not
`head`: a writer that outlives head gets SIGPIPE, and pipefail fails the
block when a loaded machine lets head exit first.)  Fails if a command fails, if the page has no such block, or if the
output lacks what the tour's text promises (expected below).

    run_tour.py SOURCE_DIR BUILD_DIR"""
import os
import re
import subprocess
import sys

MARKER = "<!-- tour: run -->"
# Lines the tour's prose promises, checked in its commands' output.
EXPECTED = [
    "__kestrel_entry_0",                            # step 2: the trampoline
    ".kestrel.kernels",                             # step 3: the descriptors' section
    "KKRN",                                         # step 3: the descriptor's magic
    "tour: 0 of 64 elements wrong",                 # step 4: the program's result
    "# launch 1: entry",                            # step 5: the decoded descriptor
    "55555555",                                     # step 8: the even lanes' mask
    "aaaaaaaa",                                     # step 8: the odd lanes'
    "kx.bar.sync",                                  # step 9
    "amoadd.w",                                     # step 10
    "'shared_accesses': 4, 'shared_passes': 8",     # step 11: the 2-way conflict
    "'atomics': 64",                                # step 11
    "kestrel-view: 1 launch(es), 108 warp-instructions",  # step 11: the warp view
]


def blocks(text):
    """The fenced blocks right after a marker line."""
    lines, found, i = text.splitlines(), [], 0
    while i < len(lines):
        if lines[i].strip() == MARKER:
            i += 1
            if i >= len(lines) or not lines[i].startswith("```"):
                raise SystemExit(f"run_tour: line {i}: '{MARKER}' is not followed by a fenced block")
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            found.append("\n".join(body))
        i += 1
    return found


def main():
    source, build = sys.argv[1], os.path.abspath(sys.argv[2])
    with open(os.path.join(source, "docs", "tour.md")) as file:
        found = blocks(file.read())
    if not found:
        print("run_tour: docs/tour.md has no block to run")
        return 1
    script = "set -euo pipefail\n" + "\n".join(
        f"echo '--- tour block {n}'\n{body}" for n, body in enumerate(found, 1))
    env = dict(os.environ, KESTREL_BUILD=build)
    env.pop("KESTREL_CONFIG", None)
    env.pop("KESTREL_CONFIG_FILE", None)
    done = subprocess.run(["bash", "-c", script], cwd=source, env=env, capture_output=True, text=True,
                          timeout=240)
    print(done.stdout)
    print(done.stderr, file=sys.stderr)
    if done.returncode != 0:
        print(f"run_tour: the tour's commands failed (exit status {done.returncode})")
        return 1
    missing = [text for text in EXPECTED if text not in done.stdout]
    if missing:
        print("run_tour: the output lacks what the tour says it shows: " + ", ".join(map(repr, missing)))
        return 1
    print(f"run_tour: {len(found)} blocks ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
