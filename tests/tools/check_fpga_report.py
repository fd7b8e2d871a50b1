#!/usr/bin/env python3
"""fpga/scripts/report.py on made-up Yosys and nextpnr logs: a design that
fits and meets timing (status 0), one that fits and misses it (2), one that
does not fit (1, "DOES NOT FIT" with nextpnr's numbers, no bitstream), a
hierarchy's totals read instead of its first module's counts, and a missing
log (3).  Usage: check_fpga_report.py REPORT_PY WORKDIR"""
import json
import os
import subprocess
import sys

YOSYS_HIER = """
58.51. Printing statistics.

=== $paramod\\kestrel_alu ===

   Number of cells:                 10
     SB_LUT4                         7

=== design hierarchy ===

   kestrel_icebreaker_top            1
     $paramod\\kestrel_alu           2

   Number of cells:             103801
     SB_CARRY                    10650
     SB_DFFE                      9211
     SB_DFFR                       701
     SB_LUT4                     76187
     SB_MAC16                       56
     SB_RAM40_4K                    28
     SB_SPRAM256KA                   4
"""

PNR_HEAD = """Info: Device utilisation:
Info: \t         ICESTORM_LC: {lc:5d}/ 5280    {pct}%
Info: \t        ICESTORM_RAM:    28/   30     93%
Info: \t      ICESTORM_SPRAM:     4/    4    100%
Info: \t        ICESTORM_DSP:    56/    8    700%
"""


def run(script, work, name, pnr_text, pnr_json=None, yosys=YOSYS_HIER, make_bin=False):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    ylog = os.path.join(d, "yosys.log")
    plog = os.path.join(d, "nextpnr.log")
    pjson = os.path.join(d, "pnr.json")
    binf = os.path.join(d, "x.bin")
    if yosys is not None:
        with open(ylog, "w") as f:
            f.write(yosys)
    with open(plog, "w") as f:
        f.write(pnr_text)
    if os.path.exists(pjson):
        os.remove(pjson)
    if pnr_json is not None:
        with open(pjson, "w") as f:
            json.dump(pnr_json, f)
    if make_bin:
        with open(binf, "wb") as f:
            f.write(b"\0" * 100)
    out = os.path.join(d, "report.md")
    r = subprocess.run([sys.executable, script, "--yosys-log", ylog, "--pnr-log", plog, "--pnr-json", pjson,
                        "--bin", binf, "--out", out], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def expect(cond, what, text):
    if not cond:
        print(f"FAIL: {what}\n{text}")
        sys.exit(1)


def main():
    script, work = sys.argv[1], sys.argv[2]
    util = {"ICESTORM_LC": {"used": 3000, "available": 5280}, "ICESTORM_RAM": {"used": 20, "available": 30},
            "ICESTORM_DSP": {"used": 4, "available": 8}, "ICESTORM_SPRAM": {"used": 4, "available": 4}}
    fit = {"utilization": util, "fmax": {"clk": {"achieved": 31.5, "constraint": 24.0}}}
    rc, text = run(script, work, "fit", PNR_HEAD.format(lc=3000, pct=56), fit, make_bin=True)
    expect(rc == 0, "a fitting design meeting timing gives status 0", text)
    expect("31.50 MHz" in text and "met" in text and "Bitstream" in text, "Fmax and bitstream reported", text)
    expect("| LUT4 `SB_LUT4` | 76187 |" in text, "the hierarchy's totals, not its first module's", text)
    expect("DOES NOT FIT" not in text, "no false no-fit", text)

    slow = {"utilization": util, "fmax": {"clk": {"achieved": 18.0, "constraint": 24.0}}}
    rc, text = run(script, work, "slow", PNR_HEAD.format(lc=3000, pct=56), slow, make_bin=True)
    expect(rc == 2 and "FAILED" in text, "missed timing gives status 2", text)

    nofit = PNR_HEAD.format(lc=80312, pct=1521) + (
        "ERROR: Unable to place cell 'x_LC', no BELs remaining to implement cell type 'ICESTORM_LC'\n")
    rc, text = run(script, work, "nofit", nofit)
    expect(rc == 1, "a design that does not fit gives status 1", text)
    expect("DOES NOT FIT" in text and "ICESTORM_LC 80312/5280 (15.2x)" in text and "ICESTORM_DSP 56/8" in text,
           "the overflow is reported with nextpnr's numbers", text)
    expect("Bitstream" not in text and "Fmax" not in text, "no bitstream or Fmax claimed", text)

    rc, text = run(script, work, "missing", nofit, yosys=None)
    expect(rc == 3, "a missing log gives status 3", text)
    print("fpga report: 4 cases OK")


if __name__ == "__main__":
    main()
