#!/usr/bin/env python3
"""The statistics path end to end: kestrel-demo on the functional model with
KESTREL_STATS writes a launch record (with its per-SM part), kestrel-stats
turns it into a table, a per-SM table and a well-formed SVG chart, and
refuses a file that is not statistics.  The model has no DRAM model, so its
record's "dram" is null; with a fourth argument `rtlsim`, a small run on the
cycle-accurate backend with the ddr3 DRAM preset must carry the DRAM figures,
its line requests equal to the memory side's requests to DRAM (the L2's
misses and write-throughs), and the memory side's figures, which
`kestrel-stats --memory` tabulates (docs/memory-system.md); that table is
also checked without the RTL, on records given a memory window by hand.

    check_kestrel_stats.py <kestrel-demo> <kestrel-stats> <scratch dir> [rtlsim]
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
assert record["dram"] is None, record["dram"]

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

# Per SM: a line per SM summing to the launch's counters, their bars in the chart.
assert len(record["per_sm"]) == 2, record["per_sm"]
assert sum(sm["blocks"] for sm in record["per_sm"]) == 12, record["per_sm"]
assert sum(sm["warp_instrs"] for sm in record["per_sm"]) == record["counters"]["warp_instrs"], record
per_sm = subprocess.run([sys.executable, tool, "--per-sm", stats, "--svg", chart], check=True, capture_output=True,
                        text=True).stdout
assert "2 of 2 SMs, imbalance" in per_sm, per_sm
for sm in record["per_sm"]:
    assert f"{sm['warp_instrs']:>12} {sm['ipc']:>6.3f}" in per_sm, (sm, per_sm)
issue_bars = [rect for rect in ElementTree.parse(chart).getroot().iter(ns + "rect") if rect.get("class") == "issue"]
assert len(issue_bars) == 3, len(issue_bars)  # the launch and its two SMs
old = os.path.join(scratch, "no_per_sm.jsonl")
with open(old, "w", encoding="utf-8") as f:
    f.write(json.dumps(dict(record, per_sm=None)) + "\n")
absent = subprocess.run([sys.executable, tool, "--per-sm", old], check=True, capture_output=True, text=True).stdout
assert "no per-SM counters" in absent, absent

by_kernel = subprocess.run([sys.executable, tool, "--by-kernel", stats], check=True, capture_output=True,
                           text=True).stdout
assert "vector_add(" in by_kernel, by_kernel

bad = os.path.join(scratch, "not_stats.jsonl")
with open(bad, "w", encoding="utf-8") as f:
    f.write('{"hello": 1}\n')
refused = subprocess.run([sys.executable, tool, bad], capture_output=True, text=True)
assert refused.returncode != 0 and "not a Kestrel launch record" in refused.stderr, refused

# --memory on records with a memory window (made from the model's record, which
# has none): the constant caches' and the L1s' hits count as line reads per
# load (90 + 30 + 40 per 40 loads) but not in the latency's requests; their
# hit rates are 30 of 40 and 40 of 80.
windowed = os.path.join(scratch, "memory_window.jsonl")
memory_object = {"reads": 90, "writes": 8, "fetches": 2, "atomics": 0, "inflight_cycles": 2500, "l2_hits": 60,
                 "l2_misses": 30, "l2_merges": 2, "l2_evictions": 0, "l2_writes": 8, "dram_requests": 38,
                 "const_hits": 30, "const_misses": 10, "const_evictions": 1, "l1_hits": 40, "l1_misses": 40,
                 "l1_evictions": 2}
second = dict(record, launch=2, memory=dict(memory_object, const_hits=10, l1_hits=20))
with open(windowed, "w", encoding="utf-8") as f:
    for r in (dict(record, memory=memory_object), second):
        f.write(json.dumps(dict(r, counters=dict(r["counters"], loads=40))) + "\n")
table = subprocess.run([sys.executable, tool, "--memory", windowed], check=True, capture_output=True,
                       text=True).stdout
assert "const hits" in table and "L1 hits" in table, table
assert f"{'4.00':>8} {'25.0':>8} {'65.2%':>8} {38:>8} {'75.0%':>10} {'50.0%':>8}" in table, table
assert f"{'3.00':>8} {'25.0':>8} {'65.2%':>8} {38:>8} {'50.0%':>10} {'33.3%':>8}" in table, table
summed = subprocess.run([sys.executable, tool, "--by-kernel", "--memory", windowed], check=True,
                        capture_output=True, text=True).stdout
# 280 line reads per 80 loads; 40 of 60 constant lookups and 60 of 140 L1 lookups hit.
assert f"{'3.50':>8} {'25.0':>8} {'65.2%':>8} {76:>8} {'66.7%':>10} {'42.9%':>8}" in summed, summed
# Records from before the SMs' caches' counters: from before both, none
# counted; from between the constant caches and the L1s, no L1 hits.
for kept, expected in (((), f"{'2.25':>8} {'25.0':>8} {'65.2%':>8} {38:>8} {'0.0%':>10} {'0.0%':>8}"),
                       (("const_",), f"{'3.00':>8} {'25.0':>8} {'65.2%':>8} {38:>8} {'75.0%':>10} {'0.0%':>8}")):
    older = os.path.join(scratch, "memory_without_sm_caches.jsonl")
    with open(older, "w", encoding="utf-8") as f:
        old_memory = {name: value for name, value in memory_object.items()
                      if not name.startswith(("const_", "l1_")) or name.startswith(kept)}
        f.write(json.dumps(dict(record, memory=old_memory, counters=dict(record["counters"], loads=40))) + "\n")
    table = subprocess.run([sys.executable, tool, "--memory", older], check=True, capture_output=True,
                           text=True).stdout
    assert expected in table, (kept, table)
if sys.argv[4:] == ["rtlsim"]:
    rtl_stats = os.path.join(scratch, "demo_rtlsim_stats.jsonl")
    env = dict(os.environ, KESTREL_BACKEND="rtlsim", KESTREL_STATS=rtl_stats, KESTREL_CONFIG="rtlsim.dram=ddr3")
    shown = subprocess.run([demo, "--n", "256"], env=env, check=True, capture_output=True, text=True).stdout
    assert "row-buffer hit rate" in shown, shown
    with open(rtl_stats, encoding="utf-8") as f:
        dram_record = json.loads(f.readline())
    dram = dram_record["dram"]
    memory = dram_record["memory"]
    # The DRAM port sees the L2's misses and write-throughs.
    assert dram["reads"] + dram["writes"] == memory["dram_requests"], dram_record
    assert memory["dram_requests"] <= dram_record["counters"]["mem_requests"], dram_record
    assert memory["reads"] > 0 and memory["writes"] > 0 and memory["fetches"] > 0, memory
    assert memory["l2_hits"] + memory["l2_misses"] + memory["l2_merges"] == memory["reads"] + memory["fetches"], memory
    assert dram["reads"] == memory["l2_misses"] and dram["writes"] == memory["l2_writes"], (dram, memory)
    assert memory["average_latency"] > 0 and 0 <= memory["l2_hit_rate"] <= 1, memory
    assert "L2 read hit rate" in shown and "average request latency" in shown, shown
    # The constant caches: their misses are among the reads, their hits are not
    # (docs/memory-system.md); every warp reads the kernel's parameters, which
    # lie on a read-only page.
    assert memory["const_misses"] <= memory["reads"], memory
    assert memory["const_hits"] + memory["const_misses"] > 0, memory
    const_lookups = memory["const_hits"] + memory["const_misses"]
    assert memory["const_hit_rate"] == memory["const_hits"] / const_lookups, memory
    assert "constant cache hit rate" in shown, shown
    assert f"({memory['const_hits']} hits, {memory['const_misses']} misses" in shown, shown
    # The L1 data caches likewise, for reads of writable global pages (the
    # vector add's input arrays); the two caches keep disjoint kinds of page.
    assert memory["const_misses"] + memory["l1_misses"] <= memory["reads"], memory
    assert memory["l1_hits"] + memory["l1_misses"] > 0, memory
    l1_lookups = memory["l1_hits"] + memory["l1_misses"]
    assert memory["l1_hit_rate"] == memory["l1_hits"] / l1_lookups, memory
    assert "L1 data cache hit rate" in shown, shown
    assert f"({memory['l1_hits']} hits, {memory['l1_misses']} misses" in shown, shown
    assert dram["peak_bytes_per_cycle"] == 16.0, dram
    assert dram["bytes_read"] == 64 * dram["reads"] and dram["writes"] > 0, dram
    assert 0 < dram["bandwidth_utilization"] <= 1, dram
    assert dram["average_read_latency"] >= 24, dram
    table = subprocess.run([sys.executable, tool, "--dram", rtl_stats], check=True, capture_output=True,
                           text=True).stdout
    assert f"{dram['reads']:>10} {dram['writes']:>8}" in table, table
    assert f"{100 * dram['bandwidth_utilization']:>7.1f}%" in table, (dram, table)
    assert f"{dram['average_read_latency']:>8.1f}" in table, (dram, table)
    absent = subprocess.run([sys.executable, tool, "--dram", stats], check=True, capture_output=True,
                            text=True).stdout
    assert "no DRAM model" in absent, absent
    table = subprocess.run([sys.executable, tool, "--memory", rtl_stats], check=True, capture_output=True,
                           text=True).stdout
    assert f"{memory['reads']:>8} {memory['writes']:>8} {memory['fetches']:>7}" in table, (memory, table)
    assert f"{memory['average_latency']:>8.1f}" in table, (memory, table)
    assert f"{100 * memory['l2_hit_rate']:>7.1f}%" in table, (memory, table)
    assert f"{100 * memory['const_hit_rate']:>9.1f}% {100 * memory['l1_hit_rate']:>7.1f}%" in table, (memory, table)
    absent = subprocess.run([sys.executable, tool, "--memory", stats], check=True, capture_output=True,
                            text=True).stdout
    assert "no memory-side counters" in absent, absent
    print(f"rtlsim ddr3: {dram['reads']} reads, {dram['writes']} writes, "
          f"{100 * dram['bandwidth_utilization']:.1f} % of peak, row hits {100 * dram['row_hit_rate']:.1f} %")

print("kestrel-stats: table, per-kernel and per-SM tables and SVG chart from a kestrel-demo run; bad input refused")
