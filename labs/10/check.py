"""Checker of lab 10 (make check): builds formats.cu with the student's
texel_format.h, runs it on the functional model, then compares

1. every result of part 1 bit for bit with what an NVIDIA H100 returned for
   the same texels and coordinates (tests/cuda/reference/nvidia_texture/
   texture_formats.expected; where Kestrel's own fetches are known to differ
   from the H100, texture_formats.differences, Kestrel's result counts too);
2. part 2's sweeps with Kestrel's own texture fetches (the device SDK's
   software path on include/kestrel/texture_math.hpp);
3. the predictions with part 3's measured values.

    check.py --cc KESTREL_CC --source KESTREL_SOURCE"""
import argparse
import os
import struct
from pathlib import Path

from labcheck import Lab, run_command, tail

parser = argparse.ArgumentParser()
parser.add_argument("--cc", required=True)
parser.add_argument("--source", required=True)
args = parser.parse_args()
lab = Lab("lab 10")
GOLDEN_DIR = Path(args.source) / "tests" / "cuda" / "reference" / "nvidia_texture"
RESULTS = "results.txt"

# The handout's step for each kind of result.
HINTS = {
    "normalized point": "step 1 (normalized_point): the largest value reads 1.0; what does the most negative one read?",
    "normalized linear": "steps 2 and 3 (fixed16, filtered): widen each texel to 16-bit fixed point, then round the\n"
                         "weighted sum back to 16 bits (half up) before dividing",
    "normalized gather": "steps 2 and 3: tex2Dgather returns each texel as filtered() of one tap of weight 256,\n"
                         "so it goes through fixed16 too (an 8-bit 1 is not 1/127 here)",
    "element point": "step 4 (half_to_float): sign, exponent (bias 15 -> 127), mantissa (10 -> 23 bits);\n"
                     "exponent 0 is zero or subnormal, exponent 31 infinity or NaN",
}


def as_float(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def shown(bits):
    return f"{bits:08x} ({as_float(bits):.9g})"


def result_lines(path):
    """`name: tok tok ...` lines as name -> list of results, each a list of component bits."""
    lines = {}
    for line in Path(path).read_text().splitlines():
        if line.startswith(("#", "case ", "sweep ", "measured ")) or ":" not in line:
            continue
        name, _, rest = line.partition(":")
        try:
            lines[name] = [[int(c, 16) for c in token.split(",")] for token in rest.split()]
        except ValueError:  # "texture_formats: done", "error: ..."
            continue
    return lines


def kestrel_differences(path):
    """texture_formats.differences: name -> Kestrel's results where they differ from the H100's line."""
    known, minus = {}, None
    if path.exists():
        for line in path.read_text().splitlines():
            if line.startswith("-"):
                minus = line[1:]
            elif line.startswith("+") and minus is not None:
                name, _, rest = line[1:].partition(":")
                known[name] = [[int(c, 16) for c in token.split(",")] for token in rest.split()]
                minus = None
    return known


# ---- build and run ----------------------------------------------------------
if not lab.check(os.access(args.cc, os.X_OK), f"kestrel-cc is at {args.cc}",
                 "build Kestrel first (cmake --build build --target kestrel-cc kestrel_cudart) or give\n"
                 "make check KESTREL_BUILD=/path/to/build (labs/README.md, \"Prerequisites\")"):
    lab.finish()
status, out = run_command([args.cc, "-O2", "-o", "formats", "formats.cu"], 300)
if not lab.check(status == 0, "formats.cu compiles with your texel_format.h", tail(out, 25)):
    lab.finish()
if os.path.exists(RESULTS):
    os.remove(RESULTS)
status, out, _ = lab.run("./formats", args=[RESULTS])
if not lab.check(status == 0 and os.path.exists(RESULTS), "formats runs on the model and writes its results",
                 f"exit status {status}: the output above says why (a fault names the thread and address)"):
    lab.finish()
text = Path(RESULTS).read_text()
yours = result_lines(RESULTS)
cases = {}
for line in text.splitlines():
    if line.startswith("case "):
        key, _, what = line[5:].partition(": ")
        cases[key] = what

# ---- part 1: the H100's results ----------------------------------------------
expected_path = GOLDEN_DIR / "texture_formats.expected"
if not lab.check(expected_path.exists(), f"the H100's results are at {expected_path}",
                 "give make check KESTREL_SOURCE=/path/to/kestrel (the source tree this lab came from)"):
    lab.finish()
h100 = result_lines(expected_path)
known = kestrel_differences(GOLDEN_DIR / "texture_formats.differences")
groups = {}  # "s8 normalized linear" -> [line names]
for name in yours:
    fmt, _, mode = name.split(" ", 2)
    mode = " ".join(mode.split()[:2])  # "normalized gather comp 1" -> "normalized gather"
    groups.setdefault(f"{fmt} {mode}", []).append(name)
lab.check(len(groups) == 13, f"part 1 printed the 13 kinds of results ({len(groups)} found)",
          "formats.cu's part 1 is missing results: is it the lab's file?")
followed_kestrel = 0
for group, names in groups.items():
    total, first = 0, None
    for name in names:
        expected, mine = h100.get(name), yours[name]
        if expected is None or len(expected) != len(mine):
            first = first or f"the golden file has no line '{name}' of {len(mine)} results: is KESTREL_SOURCE right?"
            continue
        for r, (want, got) in enumerate(zip(expected, mine)):
            for c, (w, g) in enumerate(zip(want, got)):
                total += 1
                if g == w:
                    continue
                alternative = known.get(name)
                if alternative and alternative[r][c] == g:
                    followed_kestrel += 1
                    continue
                if first is None:
                    first = (f"first difference: '{name}' result {r}, component {c} {cases.get(f'{name}#{r}#{c}', '')}:\n"
                             f"the H100 returned {shown(w)}, yours {shown(g)}")
    mode = " ".join(group.split()[1:])
    lab.check(first is None, f"{group}: your {total} values match the H100 bit for bit",
              f"{first}\n{HINTS[mode]}" if first else "")
if followed_kestrel:
    print(f"  note: {followed_kestrel} of your s8 linear values equal Kestrel's where Kestrel itself differs from\n"
          "        the H100 by 2^-15 (texture_formats.differences; README.md, question 5): accepted")

# ---- part 2: every value against Kestrel's own fetches -------------------------
sweeps = [line for line in text.splitlines() if line.startswith("sweep ") and " first: " not in line]
lab.check(len(sweeps) == 9, "part 2 ran its 9 sweeps", "formats.cu's sweeps are missing: is it the lab's file?")
for line in sweeps:
    name, _, figures = line[len("sweep "):].partition(": ")
    differ = int(figures.split(", ")[1].split()[0])
    first = next((l.partition(" first: ")[2] for l in text.splitlines() if l.startswith(f"sweep {name} first: ")), "")
    mode = " ".join(name.split()[1:3])
    lab.check(differ == 0, f"sweep {name}: {figures} from Kestrel's own tex2D",
              f"first difference {first}\n{HINTS[mode]}" if differ else "")

# ---- part 3: the predictions -------------------------------------------------
measured = {}
for line in text.splitlines():
    if line.startswith("measured "):
        _, key, value = line.split()
        measured[key] = float(value)
TOLERANCES = {  # key: (tolerance, hint)
    "u8_mid_0_255": (1e-7, "step 5: follow 0 and 255 through fixed16 and filtered at weight 128 of 256"),
    "s8_mid_m128_127": (1e-7, "step 5: -128 and 127 through fixed16 (not clamped there) and filtered"),
    "u8_0_17_quarter_x65535": (0.01, "step 5: 17 x 257 at weight 64 of 256: which way does the rounding go?"),
    "u8_distinct_0_255": (0, "step 5: how many weights can one axis take (appendix F.2's 9-bit fixed point)?"),
    "half_nan_patterns": (0, "step 4: which exponent and mantissa bits make a NaN, and how many signs?"),
    "half_min_subnormal": (1e-12, "step 4: the smallest positive half: mantissa 1, exponent 0"),
}
guess = lab.predictions(keys=tuple(TOLERANCES))
for key, (tolerance, hint) in TOLERANCES.items():
    if key not in guess:
        continue
    if not lab.check(key in measured, f"part 3 measured {key}", "formats.cu's part 3 is missing"):
        continue
    ok = abs(guess[key] - measured[key]) <= tolerance + 1e-15
    within = f" (within {tolerance:g})" if tolerance else ""
    lab.check(ok, f"prediction {key} = {guess[key]:.9g} matches the measured {measured[key]:.9g}{within}",
              "" if ok else hint)
lab.finish()
