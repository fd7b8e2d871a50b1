#!/usr/bin/env python3
"""Lab 03, step 5: draws the bank passes of strides.cu's strided read, one
bar per stride, from its statistics file (one launch per stride, in order).
Each launch's shared accesses are the 32 conflict-free stores that fill the
array (one pass each) and the strided read, so the read took
shared_passes - (shared_accesses - 1) passes.

    plot_strides.py strides.jsonl -o strides.svg"""
import argparse
import json
import sys
from xml.sax.saxutils import escape


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("stats")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    passes = []
    try:
        with open(args.stats) as file:
            for line in file:
                if line.strip():
                    counters = json.loads(line)["counters"]
                    passes.append(counters["shared_passes"] - (counters["shared_accesses"] - 1))
    except (OSError, ValueError, KeyError) as error:
        print(f"plot_strides: {args.stats} is not strides.cu's statistics: {error}", file=sys.stderr)
        return 2
    if not passes:
        print(f"plot_strides: {args.stats} has no launch", file=sys.stderr)
        return 2
    width, height, left, bottom, bar = 760, 360, 50, 300, 20
    top = max(passes)
    scale = (bottom - 40) / top
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="{width / 2}" y="22" font-family="sans-serif" font-size="15" font-weight="bold" '
           f'text-anchor="middle">Bank passes of one warp\'s read at word lane x stride (32 banks)</text>']
    for value in sorted({0, top // 2, top}):
        y = bottom - value * scale
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + len(passes) * bar + 10}" y2="{y:.1f}" '
                   f'stroke="#dddddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" font-family="sans-serif" font-size="11" '
                   f'text-anchor="end">{value}</text>')
    for n, value in enumerate(passes):
        x, h = left + 6 + n * bar, value * scale
        out.append(f'<rect x="{x}" y="{bottom - h:.1f}" width="{bar - 4}" height="{h:.1f}" fill="#4c7fbf">'
                   f'<title>{escape(f"stride {n + 1}: {value} passes")}</title></rect>')
        out.append(f'<text x="{x + (bar - 4) / 2}" y="{bottom - h - 4:.1f}" font-family="sans-serif" '
                   f'font-size="10" text-anchor="middle">{value}</text>')
        out.append(f'<text x="{x + (bar - 4) / 2}" y="{bottom + 14}" font-family="sans-serif" font-size="10" '
                   f'text-anchor="middle">{n + 1}</text>')
    out.append(f'<text x="{width / 2}" y="{bottom + 38}" font-family="sans-serif" font-size="12" '
               f'text-anchor="middle">stride (words)</text>')
    out.append("</svg>\n")
    with open(args.output, "w") as file:
        file.write("\n".join(out))
    print("plot_strides: passes per stride " + " ".join(map(str, passes)) + f" -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
