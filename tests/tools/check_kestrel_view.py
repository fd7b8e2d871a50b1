#!/usr/bin/env python3
"""tools/kestrel-view on a small instruction trace written here: the page is
well-formed HTML with no script, one mark per warp-instruction with its text
in the tooltip, the per-slot table's figures, the lane-by-lane view of the
masks, --launch and binning; bad
input is refused with exit status 2 and a message.

    check_kestrel_view.py KESTREL_VIEW WORK_DIR"""
import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

TRACE = """\
# Kestrel instruction trace (docs/runtime.md): cycle sm warp pc                 mask      instruction                      writes
# launch 1: entry 0x10000040, grid 2x1x1, block 32x1x1
           1  0    0 0x0000000010000040 ffffffff  csrr t4, tid.x                   t4=[0x0 0x1 0x2 0x3]
           2  0    0 0x0000000010000044 ffffffff  bne a5, zero, 0x10000050         
           3  0    0 0x0000000010000048 55555555  addi a3, a3, 1                   a3=0x1
           4  0    0 0x0000000010000050 aaaaaaaa  addi a3, a3, 2                   a3=0x2
           5  0    0 0x0000000010000054 ffffffff  kx.exit                          
           1  1    0 0x0000000010000040 ffffffff  csrr t4, tid.x                   t4=[0x0 0x1 0x2 0x3]
           2  1    0 0x0000000010000044 0000ffff  kx.bar.sync zero                 w3.a0=0x1
# launch 2: entry 0x10000040, grid 1x1x1, block 8x1x1
          10  0    1 0x0000000010000040 000000ff  kx.exit                          
"""


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.titles, self.cells, self._in = {}, [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self._in = tag

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "title":
            self.titles.append(data)
        elif self._in == "td":
            self.cells.append(data)


def run(view, *args):
    return subprocess.run([sys.executable, view, *args], capture_output=True, text=True)


def main():
    view, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    trace, page = work / "trace.txt", work / "view.html"
    trace.write_text(TRACE)
    failures = []

    def expect(ok, what):
        print(f"{'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            failures.append(what)

    done = run(view, str(trace), "-o", str(page))
    expect(done.returncode == 0, f"a trace is drawn (exit {done.returncode}, {done.stderr.strip()})")
    parsed = Page()
    parsed.feed(page.read_text())
    # The lane-by-lane view: a rectangle per run of active lanes of each
    # instruction: launch 1's slot (0, 0) 1+1+16+16+1, slot (1, 0) 1+1,
    # launch 2's 1; beside the 8 marks of the warp views, 5 SVGs in all.
    expect(parsed.tags.get("svg", 0) == 5 and parsed.tags.get("rect", 0) == 8 + 38,
           f"the lane-by-lane view draws each mask's runs of lanes ({parsed.tags.get('rect', 0)} rects of 46)")

    done = run(view, str(trace), "-o", str(page), "--lane-rows", "0")
    parsed = Page()
    parsed.feed(page.read_text())
    expect(parsed.tags.get("script", 0) == 0, "the page has no script")
    expect(parsed.tags.get("svg", 0) == 2, "one SVG per launch")
    expect(parsed.tags.get("rect", 0) == 8, f"one mark per warp-instruction ({parsed.tags.get('rect', 0)} of 8)")
    expect(any("cycle 3: 0x10000048 mask 55555555 (16 lanes)  addi a3, a3, 1" == t for t in parsed.titles),
           "a mark's tooltip holds its cycle, PC, mask and instruction (without the writes)")
    expect(any("kx.bar.sync zero" in t and "w3" not in t for t in parsed.titles), "a barrier's release is not text")
    # SM 0 warp 0 of launch 1: 5 instructions, (32+32+16+16+32)/(5*32) = 0.8, 2 diverged
    expect(parsed.cells[:7] == ["0", "0", "5", "0.800", "2", "1", "5"], f"the table's first row {parsed.cells[:7]}")

    done = run(view, str(trace), "-o", str(page), "--launch", "2", "--lanes", "8", "--lane-rows", "0")
    parsed = Page()
    parsed.feed(page.read_text())
    expect(done.returncode == 0 and parsed.tags.get("svg", 0) == 1 and parsed.cells[3] == "1.000",
           "--launch 2 --lanes 8: one launch, 8 lanes all active")

    # Chrome trace-event JSON for Perfetto: a process per launch and SM, a
    # thread per warp slot, one slice per warp-instruction, launches in turn.
    trace_json = work / "warps.json"
    done = run(view, str(trace), "-o", str(trace_json), "--format", "perfetto")
    events = json.loads(trace_json.read_text())["traceEvents"] if done.returncode == 0 else []
    slices = [e for e in events if e["ph"] == "X"]
    names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e["ph"] == "M" and "name" in e["args"]}
    expect(len(slices) == 8 and all(e["dur"] == 1 for e in slices),
           f"perfetto: one slice per warp-instruction ({len(slices)} of 8)")
    third = [e for e in slices if e["args"]["pc"] == "0x10000048"]
    expect(third and third[0]["name"] == "addi" and third[0]["ts"] == 3 and third[0]["args"]["active lanes"] == 16,
           "perfetto: a slice's name, time and active lanes")
    expect(names.get((256 + 1, None)) == "launch 1 SM 1" and names.get((2 * 256, 1)) == "warp slot 1",
           "perfetto: processes per launch and SM, threads per warp slot")
    second = [e for e in slices if e["pid"] == 2 * 256]
    expect(second and second[0]["ts"] > 5, "perfetto: the second launch follows the first on the time axis")

    long_trace = work / "long.txt"
    lines = ["# launch 1: entry 0x0, grid 1x1x1, block 32x1x1"]
    lines += [f"{c:12d}  0    0 0x{0x40 + 4 * c:016x} {'ffffffff' if c % 2 else '0000ffff'}  addi a0, a0, 1"
              for c in range(1, 1001)]
    long_trace.write_text("\n".join(lines) + "\n")
    done = run(view, str(long_trace), "-o", str(page), "--columns", "100", "--lane-rows", "0")
    parsed = Page()
    parsed.feed(page.read_text())
    expect(done.returncode == 0 and parsed.tags.get("rect", 0) == 100 and
           any("cycles 1-10: 10 issues, lane utilization 0.75" == t for t in parsed.titles),
           "1000 cycles in 100 columns: bins of 10 cycles with their mean lane utilization")

    bad = work / "bad.txt"
    for text, message in (("not a trace\n", "not an instruction-trace line"),
                          ("", "no '# launch' line"),
                          ("           1  0    0 0x0000000000000040 ffffffff  kx.exit\n", "before the first")):
        bad.write_text(text)
        done = run(view, str(bad), "-o", str(page))
        expect(done.returncode == 2 and message in done.stderr, f"refused: {message!r} ({done.stderr.strip()})")
    done = run(view, str(trace), "-o", str(page), "--launch", "7")
    expect(done.returncode == 2 and "no launch 7" in done.stderr, "an unknown launch is refused")
    done = run(view, str(trace), "-o", str(page), "--lanes", "8")
    expect(done.returncode == 2 and "wider than --lanes 8" in done.stderr, "masks wider than --lanes are refused")
    done = run(view, str(work / "missing.txt"), "-o", str(page))
    expect(done.returncode == 2 and "cannot read" in done.stderr, "a missing file is refused")
    print(f"check_kestrel_view: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
