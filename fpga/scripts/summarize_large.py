#!/usr/bin/env python3
"""Summarizes report_large.sh's Yosys logs: LUT, FF, DSP and block RAM of each
(family, preset), with LUTs and FFs per lane.  Usage: summarize_large.py DIR"""
import os
import re
import sys

LANES = {"w8l32": 32, "w16l16": 16}
TITLE = {"w8l32": "default: RV64, 8 warps x 32 lanes", "w16l16": "RV64, 16 warps x 16 lanes"}


def counts(path):
    with open(path, errors="replace") as f:
        text = f.read()
    start = text.rfind("=== design hierarchy ===")
    if start < 0:
        start = text.rfind("Printing statistics")
    if start < 0:
        return None
    c = {}
    for m in re.finditer(r"^\s+(\S+)\s+(\d+)\s*$", text[start:], re.M):
        c.setdefault(m.group(1), int(m.group(2)))
    return c


def classify(fam, c):
    def s(pred):
        return sum(n for k, n in c.items() if pred(k))
    if fam == "xilinx":
        lut = s(lambda k: re.fullmatch(r"LUT[1-6]", k) is not None)
        ff = s(lambda k: re.fullmatch(r"FD[RSCP]E(_1)?", k) is not None)
        dsp = s(lambda k: k.startswith("DSP48"))
        bram = c.get("RAMB36E2", 0) + c.get("RAMB18E2", 0) / 2
        lutram = s(lambda k: k.startswith("RAM") and not k.startswith("RAMB"))
        srl = s(lambda k: k.startswith("SRL"))
        extra = f"LUTRAM cells {lutram}, SRL {srl}"
        bram_s = f"{bram:g} RAMB36"
    else:
        lut = c.get("LUT4", 0)
        ff = c.get("TRELLIS_FF", 0)
        dsp = c.get("MULT18X18D", 0)
        bram = c.get("DP16KD", 0)
        extra = f"LUTRAM (TRELLIS_DPR16X4) {c.get('TRELLIS_DPR16X4', 0)}, CCU2C {c.get('CCU2C', 0)}"
        bram_s = f"{bram} DP16KD"
    return lut, ff, dsp, bram_s, extra


def main():
    d = sys.argv[1]
    rows = []
    for fam in ("xilinx", "ecp5"):
        for preset in ("w8l32", "w16l16"):
            log = os.path.join(d, f"{fam}_{preset}.log")
            done = log + ".done"
            if not os.path.exists(done):
                rows.append(f"| {fam} | {TITLE[preset]} | not run or not finished | | | | | | |")
                continue
            c = counts(log)
            if c is None:
                rows.append(f"| {fam} | {TITLE[preset]} | no statistics | | | | | | |")
                continue
            lut, ff, dsp, bram, extra = classify(fam, c)
            secs = open(done).read().strip()
            n = LANES[preset]
            rows.append(f"| {fam} | {TITLE[preset]} | {lut} | {ff} | {dsp} | {bram} | {lut / n:.0f} | {ff / n:.0f} | {secs} s; {extra} |")
    print("| family | preset | LUT | FF | DSP | block RAM | LUT/lane | FF/lane | notes |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
