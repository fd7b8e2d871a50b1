#!/usr/bin/env python3
"""Lab 09's address traces (README.md, "The traces"): writes each as a text
file the harness replays, one request a line (`R ADDR` or `W ADDR`, ADDR a
byte offset into device DRAM).  Deterministic: the random traces use fixed
seeds.

    traces.py DIR            writes DIR/NAME.trace for every trace below
    traces.py --list         names them, with what each is

Python 3 standard library only."""
import random
import sys
from pathlib import Path

KIB = 1024
LINE = 64  # kestrel_pkg::LineBytes
# 16 KiB apart: the same set in every configuration of the sweep (at most
# 256 sets of 64-byte lines).
SAME_SET = 256 * LINE


def strided(stride, span):
    """Reads of one word every `stride` bytes over `span` bytes."""
    return [("R", offset) for offset in range(0, span, stride)]


def matrix(rows, cols, order):
    """A rows x cols matrix of 4-byte floats, row-major in memory, read
    element by element along its rows ("rows") or down its columns ("cols")."""
    if order == "rows":
        return [("R", (i * cols + j) * 4) for i in range(rows) for j in range(cols)]
    return [("R", (i * cols + j) * 4) for j in range(cols) for i in range(rows)]


def conflict(lines, rounds):
    """`lines` lines that all fall into one set, read in turn `rounds` times."""
    return [("R", k * SAME_SET) for _ in range(rounds) for k in range(lines)]


def hot_line(others):
    """One set: a hot line A read between each of `others` other lines
    (A B A C A D ...), twice over: which line does the replacement keep?"""
    sequence = []
    for _ in range(2):
        for k in range(1, others + 1):
            sequence += [("R", 0), ("R", k * SAME_SET)]
    return sequence


def write_hit(sets):
    """Does a write that hits make its line the most recently used?  In each
    of `sets` sets: read `ways` lines, write the first (a hit), read one
    more line (a miss that evicts one), then read the first again; for 2
    ways in the first half of the sets, for 4 in the second."""
    sequence = []
    for index in range(sets):
        ways = 2 if index < sets // 2 else 4
        lines = [index * LINE + k * SAME_SET for k in range(ways + 1)]
        sequence += [("R", addr) for addr in lines[:ways]]
        sequence += [("W", lines[0]), ("R", lines[ways]), ("R", lines[0])]
    return sequence


def copy(span):
    """A copy loop and what follows it: read each source word and write each
    destination line (write-through: does a write bring its line in?), read
    the destination back, then write the source over and read it again."""
    source, destination = 0, 1024 * KIB
    sequence = []
    for offset in range(0, span, LINE):
        sequence += [("R", source + offset + word) for word in range(0, LINE, 16)]
        sequence.append(("W", destination + offset))
    sequence += [("R", destination + offset) for offset in range(0, span, LINE)]
    sequence += [("W", source + offset) for offset in range(0, span, LINE)]
    sequence += [("R", source + offset) for offset in range(0, span, LINE)]
    return sequence


def uniform(working_set, count, seed):
    """`count` reads of random words, uniform over `working_set` bytes."""
    rng = random.Random(seed)
    return [("R", rng.randrange(working_set // 4) * 4) for _ in range(count)]


# Working sets of the random traces: 1 KiB to 256 KiB (the sweep's plot).
RANDOM_SETS = [1, 2, 4, 8, 16, 32, 64, 128, 256]

TRACES = {
    "stride4": ("reads of every word of 4 KiB (64 lines, 16 reads each)", strided(4, 4 * KIB)),
    "stride16": ("reads of every 4th word of 16 KiB (256 lines, 4 reads each)", strided(16, 16 * KIB)),
    "stride64": ("reads of one word per line of 16 KiB", strided(64, 16 * KIB)),
    "rows": ("a 64 x 64 float matrix (16 KiB) read along its rows", matrix(64, 64, "rows")),
    "cols": ("the same matrix read down its columns", matrix(64, 64, "cols")),
    "conflict": ("3 lines 16 KiB apart (one set everywhere) read in turn 20 times", conflict(3, 20)),
    "hot": ("a hot line between 6 others, all in one set, twice", hot_line(6)),
    "writehit": ("in 16 sets: 2 or 4 lines read, the first written, one more read, the first again",
                 write_hit(16)),
    "copy": ("copy 8 KiB, read the copy, write the source, read it", copy(8 * KIB)),
}
for size in RANDOM_SETS:
    TRACES[f"random{size}k"] = (f"8192 reads of random words of {size} KiB",
                                uniform(size * KIB, 8192, seed=size))


def write(directory):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name, (what, requests) in TRACES.items():
        with open(directory / f"{name}.trace", "w") as file:
            file.write(f"# {name}: {what}\n")
            file.writelines(f"{kind} 0x{addr:x}\n" for kind, addr in requests)


def read(path):
    """A trace file's requests as (write, addr) pairs."""
    requests = []
    with open(path) as file:
        for line in file:
            fields = line.split("#", 1)[0].split()
            if fields:
                requests.append((fields[0] == "W", int(fields[1], 0)))
    return requests


if __name__ == "__main__":
    if sys.argv[1:] == ["--list"]:
        for name, (what, requests) in TRACES.items():
            print(f"{name:12} {len(requests):6} requests  {what}")
    elif len(sys.argv) == 2:
        write(sys.argv[1])
    else:
        sys.exit(__doc__)
