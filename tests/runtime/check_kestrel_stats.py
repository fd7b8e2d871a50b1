#!/usr/bin/env python3
"""The statistics path end to end: kestrel-demo on the functional model with
KESTREL_STATS writes a launch record, kestrel-stats turns it into a table and
a well-formed SVG chart, and refuses a file that is not statistics.

    check_kestrel_stats.py <kestrel-demo> <kestrel-stats> <scratch dir>
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

demo, tool, scratch = sys.argv[1:4]
os.makedirs(scratch, exist_ok=True)
stats = os.path.join(scratch, "demo_stats.jsonl")
chart = os.path.join(scratch, "demo_stats.svg")
env = dict(os.environ, KESTREL_BACKEND="model", KESTREL_STATS=stats)
subprocess.run([demo, "--n", "3000"], env=env, check=True, stdout=subprocess.DEVNULL)
with open(stats, encoding="utf-8") as f:
    records = [json.loads(line) for line in f]
assert len(records) == 1, records
record = records[0]
assert record["kernel"].startswith("vector_add("), record["kernel"]
assert record["grid"] == [12, 1, 1] and record["block"] == [256, 1, 1], record
assert record["counters"]["blocks"] == 12, record["counters"]

table = subprocess.run([sys.executable, tool, stats, "--svg", chart], check=True, capture_output=True,
                       text=True).stdout
assert "vector_add(" in table and "12x1x1/256x1x1" in table, table
ipc_per_sm = record["derived"]["ipc_per_sm"]
assert f"{ipc_per_sm:.3f}" in table, (ipc_per_sm, table)
svg = ElementTree.parse(chart).getroot()
ns = "{http://www.w3.org/2000/svg}"
assert svg.tag == ns + "svg", svg.tag
classes = {rect.get("class") for rect in svg.iter(ns + "rect")}
assert {"issue", "ipc"} <= classes, classes

by_kernel = subprocess.run([sys.executable, tool, "--by-kernel", stats], check=True, capture_output=True,
                           text=True).stdout
assert "vector_add(" in by_kernel, by_kernel

bad = os.path.join(scratch, "not_stats.jsonl")
with open(bad, "w", encoding="utf-8") as f:
    f.write('{"hello": 1}\n')
refused = subprocess.run([sys.executable, tool, bad], capture_output=True, text=True)
assert refused.returncode != 0 and "not a Kestrel launch record" in refused.stderr, refused
print("kestrel-stats: table, per-kernel table and SVG chart from a kestrel-demo run; bad input refused")
