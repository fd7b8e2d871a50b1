"""Checker of lab 05 (make check): the new instruction kx.popc.add in every
layer of the Kestrel tree the lab is in (README.md, steps 1-5).

    check.py --source KESTREL_SOURCE --build KESTREL_BUILD --cc KESTREL_CC

1. the specification: docs/isa.md's table and the contract (tools/contract),
   with its generated headers up to date;
2. the functional model, the SDK intrinsic and the kernel: the build tree's
   kestrel-cc and runtime rebuilt (only what changed), popc.cu built and run
   on the model with the instruction trace: its results against the host's,
   and kx.popc.add in the trace (the model decodes, executes and
   disassembles it); bench/illegal.cu: funct7 1 faults as an illegal
   instruction;
3. the RTL: the tree's kestrel_decoder and kestrel_alu, Verilated with -Wall
   into bench/ (lab05_exec.sv, lab05_bench.cpp) and run against a C++
   reference over edge cases and random operands (about 15 s)."""
import argparse
import re
import sys
from pathlib import Path

from labcheck import Lab, run_command as run, tail

parser = argparse.ArgumentParser()
parser.add_argument("--source", required=True)
parser.add_argument("--build", required=True)
parser.add_argument("--cc", required=True)
args = parser.parse_args()
source, build, cc = Path(args.source).resolve(), Path(args.build).resolve(), Path(args.cc).resolve()
lab = Lab("lab 05")
here = Path(__file__).resolve().parent




# --- 1. the specification ---------------------------------------------------
isa = (source / "docs/isa.md").read_text()
lab.check(re.search(r"^\|\s*6\s*\|\s*0x00\s*\|\s*`kx\.popc\.add rd, rs1, rs2`\s*\|.*popcount", isa, re.M | re.I),
          "docs/isa.md section 2.1 has kx.popc.add (funct3 6, funct7 0x00)",
          "add its row to the custom-0 table: | 6 | 0x00 | `kx.popc.add rd, rs1, rs2` | semantics |\n"
          "(README.md step 1)")
status, out = run([sys.executable, str(source / "tools/contract/gen_contract.py"), "--check"], 60)
lab.check(status == 0, "the contract's generated files agree with tools/contract/contract.toml",
          "run tools/contract/gen_contract.py after editing contract.toml (README.md step 1):\n" + tail(out, 8))
abi = (source / "include/kestrel/abi_contract.h").read_text()
lab.check(re.search(r"#define KESTREL_F3_POPC\s+0x6u", abi), "abi_contract.h defines KESTREL_F3_POPC as 6",
          "the funct3 constant goes in contract.toml's [constants.simt_funct3] as KESTREL_F3_POPC / SimtF3Popc\n"
          "(README.md step 1)")

# --- 2. the model, the intrinsic and the kernel -----------------------------
status, out = run(["cmake", "--build", str(build), "--target", "kestrel-cc", "kestrel_cudart"], 1800)
built = lab.check(status == 0, f"the build tree {build} rebuilds kestrel-cc and kestrel_cudart",
                  "the build failed (warnings are errors):\n" + tail(out))
program = here / "popc"
if program.exists():
    program.unlink()
if built:
    status, out = run([str(cc), "-O2", "-o", str(program), str(here / "popc.cu")], 300)
    built = lab.check(status == 0, "popc.cu builds with kestrel-cc",
                      "step 3 (the intrinsic __kx_popc_add in kestrel_cuda.h) or step 4 (the kernel):\n" + tail(out))
if built:
    trace = here / "trace.txt"
    status, out, records = lab.run(str(program), itrace=str(trace))
    lab.check(status == 0 and " 0 of 1000 elements wrong" in out, "popc_add computes popcount(x) + y on the model",
              "wrong elements (above): the model's execution (model/machine_exec.cpp, step 2) or the kernel (step 4)")
    record = (records.get("popc_add") or [{}])[-1]
    lab.check(bool(record) and not record.get("fault"), "kernel popc_add ran without a fault",
              f"{record.get('fault', 'no launch of popc_add in the statistics')}: an illegal instruction means the\n"
              "model's decoder (model/decode.cpp) does not know kx.popc.add yet (step 2)")
    executed = 0
    if trace.exists():
        with open(trace) as file:
            executed = sum(1 for line in file if not line.startswith("#") and " kx.popc.add " in line)
    lab.check(executed > 0, f"the instruction trace shows kx.popc.add ({executed} warp-instructions)",
              "the trace prints no kx.popc.add: does the kernel call __kx_popc_add (step 4), and does the\n"
              "disassembler (model/disasm.cpp) name it (step 2)? make trace writes trace.txt")

    illegal = here / "illegal"
    status, out = run([str(cc), "-O2", "-o", str(illegal), str(here / "bench/illegal.cu")], 300)
    if lab.check(status == 0, "bench/illegal.cu builds with kestrel-cc", tail(out)):
        status, out, records = lab.run(str(illegal), stats=str(here / "illegal.jsonl"))
        fault = str((records.get("popc_illegal") or [{}])[-1].get("fault"))
        lab.check("illegal" in fault.lower(), f"funct3 6 with funct7 1 stays illegal on the model (fault: {fault})",
                  "only funct7 0 is kx.popc.add: model/decode.cpp must leave every other funct7 kIllegal (step 2)")

# --- 3. the RTL: decoder and ALU --------------------------------------------
objdir = here / "bench_obj"
rtl = source / "rtl"
sources = [rtl / "pkg/kestrel_pkg.sv", rtl / "fpu/kestrel_fpu_pkg.sv", rtl / "core/kestrel_fp_decoder.sv",
           rtl / "core/kestrel_decoder.sv", rtl / "core/kestrel_alu.sv", here / "bench/lab05_exec.sv",
           here / "bench/lab05_bench.cpp"]
status, out, warnings = lab.verilate("lab05_exec", sources, rtl / "include", objdir, "lab05_bench")
if lab.check(status == 0, "the RTL decoder and ALU Verilate with -Wall, no warning",
             "Verilator (step 5): fix each warning in your RTL:\n" + "\n".join(warnings[:8] or [tail(out)])):
    status, out = run([str(objdir / "lab05_bench")], 60)
    sys.stdout.write("".join(f"  | {line}\n" for line in out.splitlines()))
    lab.check(status == 0 and " 0 wrong" in out,
              "the RTL decodes kx.popc.add as a 32-bit ALU operation and computes it (bench/lab05_bench.cpp)",
              "the cases above: kestrel_decoder.sv (class, operands, word) and kestrel_alu.sv (step 5)")
lab.finish()
