#!/usr/bin/env python3
"""kestrel-view's page in a real browser (CTest label `long`): headless
Chromium loads the page of check_kestrel_view.py's trace with no console
error, its DOM holds the marks, and a screenshot shows the marks' colours
(every lane active, half the lanes).

    check_view_browser.py KESTREL_VIEW CHROMIUM WORK_DIR"""
import struct
import subprocess
import shutil
import sys
import zlib
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_kestrel_view import TRACE  # noqa: E402

# kestrel-view's colours for every lane active and for half of them (colour(1.0), colour(0.5)).
FULL, HALF = (0x2e, 0x7d, 0x32), (0xdb, 0x64, 0x2c)


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace:
        raise ValueError(f"PNG kind not handled: depth {depth}, colour type {colour_type}")
    channels = 3 if colour_type == 2 else 4
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def main():
    view, chromium, work = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    # `make test-long` installs the browser after configuring; find it now.
    found = shutil.which(chromium) or shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        print(f"FAIL: no headless browser ('{chromium}'): tools/bootstrap.sh --browser installs Debian's chromium "
              "(make test-long runs it)")
        return 1
    chromium = found
    work.mkdir(parents=True, exist_ok=True)
    (work / "trace.txt").write_text(TRACE)
    page, shot = work / "view.html", work / "shot.png"
    subprocess.run([sys.executable, view, str(work / "trace.txt"), "-o", str(page)], check=True)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--user-data-dir={work / 'profile'}"]
    url = page.resolve().as_uri()
    failures = []
    done = subprocess.run([chromium, *flags, "--enable-logging=stderr", "--v=0", "--window-size=1000,700",
                           f"--screenshot={shot}", url], capture_output=True, text=True, timeout=120)
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    if done.returncode != 0 or not shot.exists():
        failures.append(f"chromium's screenshot failed (exit {done.returncode}): {done.stderr[-500:]}")
    if console:
        failures.append("console messages: " + " | ".join(console))
    dom = subprocess.run([chromium, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    # check_kestrel_view.py's count: 8 marks and 38 runs of lanes in 5 SVGs
    if dom.count("<rect") != 46 or dom.count("<svg") != 5:
        failures.append(f"the DOM has {dom.count('<rect')} rects and {dom.count('<svg')} SVGs, expected 46 and 5")
    if shot.exists():
        width, height, rows = png_pixels(shot)
        colours = {}
        for row in rows:
            for pixel in row:
                colours[pixel] = colours.get(pixel, 0) + 1
        wanted = {"every lane": FULL, "half the lanes": HALF}
        for name, rgb in wanted.items():
            # the marks (and the legend's swatch): a few hundred pixels at least
            if colours.get(rgb, 0) < 100:
                failures.append(f"the screenshot ({width}x{height}) has {colours.get(rgb, 0)} pixels of the "
                                f"'{name}' colour #{bytes(rgb).hex()}")
    for failure in failures:
        print("FAIL", failure)
    print(f"check_view_browser: {'passed' if not failures else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
