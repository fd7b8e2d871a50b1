"""Shared code of the labs' checkers (labs/README.md): runs a lab's program on
the functional model with the statistics file on, reads the student's
predictions and prints one PASS/FAIL line per check with a hint.

Python 3 standard library only."""
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

def tail(text, lines=15):
    """The last lines of a program's output, for a hint."""
    return "\n".join(text.strip().splitlines()[-lines:])


def run_command(command, timeout, **kwargs):
    """(exit status, output) of a command; a missing program or a timeout is a failure, not a crash."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
        return done.returncode, done.stdout + done.stderr
    except FileNotFoundError as error:
        return 127, str(error)
    except subprocess.TimeoutExpired:
        return 124, f"{command[0]} ran for over {timeout} s"


# The geometry every checker runs: the students' predictions assume it.
CONFIG = "backend=model,sms=2,warps=8,lanes=32,scheduler=lrr"


class Lab:
    def __init__(self, name):
        self.name = name
        self.failures = 0
        self.checks = 0

    def check(self, ok, what, hint=""):
        """One check: prints PASS or FAIL (with the hint) and counts it."""
        self.checks += 1
        if ok:
            print(f"  PASS  {what}")
        else:
            self.failures += 1
            print(f"  FAIL  {what}")
            if hint:
                for line in hint.splitlines():
                    print(f"        {line}")
        return ok

    def run(self, program, stats="stats.jsonl", itrace=None, backend="model", config=CONFIG, args=()):
        """Runs the program (with args) on the model; returns (exit status, stdout, records by kernel
        name).  With itrace, the instruction trace goes to that file (docs/runtime.md).  Lab 07 gives
        backend="rtlsim" and a config with the DRAM model's options (docs/memory-system.md)."""
        return self.run_all([dict(program=program, stats=stats, itrace=itrace, backend=backend, config=config,
                                  args=args)])[0]

    def run_all(self, runs):
        """Several runs at once, each a dict of run()'s arguments with its own stats file, as many at a
        time as there are CPUs (rtlsim takes seconds a run); their results in the order given, each
        program's output printed in that order."""
        with ThreadPoolExecutor(max_workers=min(len(runs), os.cpu_count() or 1)) as pool:
            outcomes = list(pool.map(lambda run: self._execute(**run), runs))
        results = []
        for run, outcome in zip(runs, outcomes):
            program, backend = run["program"], run.get("backend", "model")
            if outcome is None:
                self.check(False, f"{program} finishes", f"it ran for over 60 s on {backend}: an endless loop?")
                self.finish()
            sys.stdout.write("".join(f"  | {line}\n" for line in outcome.stdout.splitlines()))
            sys.stdout.write("".join(f"  | {line}\n" for line in outcome.stderr.splitlines()))
            records = {}
            stats = run.get("stats", "stats.jsonl")
            if os.path.exists(stats):
                with open(stats) as file:
                    for line in file:
                        if line.strip():
                            record = json.loads(line)
                            # kernel name without its parameters: "saxpy(int, ...)" -> "saxpy"
                            records.setdefault(record["kernel"].split("(")[0], []).append(record)
            results.append((outcome.returncode, outcome.stdout, records))
        return results

    @staticmethod
    def _execute(program, stats="stats.jsonl", itrace=None, backend="model", config=CONFIG, args=()):
        """One run of the program: its CompletedProcess, or None after 60 s."""
        env = dict(os.environ)
        for key in ("KESTREL_CONFIG_FILE", "KESTREL_ITRACE", "KESTREL_PROGRESS"):
            env.pop(key, None)
        # The rtlsim backend also takes its DRAM timing, lock-step and waveform options from the
        # environment: only the config counts here (docs/memory-system.md).
        for key in [key for key in env if key.startswith(("KESTREL_RTLSIM_", "KESTREL_LOCKSTEP", "KESTREL_TRACE"))]:
            env.pop(key)
        env.update(KESTREL_BACKEND=backend, KESTREL_CONFIG=config, KESTREL_STATS=stats)
        if itrace:
            env["KESTREL_ITRACE"] = itrace
        if os.path.exists(stats):
            os.remove(stats)
        try:
            return subprocess.run([program, *args], env=env, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return None

    def kernel(self, records, name):
        """The one launch of kernel `name`, or a FAIL and the end of the check."""
        if name not in records:
            self.check(False, f"kernel {name} ran", f"the statistics file has no launch of '{name}': "
                       "did you rename it, or did the program stop before launching it?")
            self.finish()
        record = records[name][-1]
        if record.get("fault"):
            self.check(False, f"kernel {name} ran without a fault",
                       f"it stopped with the fault {record['fault']}: the program's output above names the\n"
                       "thread and address (docs/reliability.md)")
            self.finish()
        return record

    def predictions(self, path="predictions.txt", keys=()):
        """`key = number` lines of the student's file; a missing or empty one is a FAIL."""
        values = {}
        try:
            with open(path) as file:
                for number, line in enumerate(file, 1):
                    line = line.split("#", 1)[0].strip()
                    if not line:
                        continue
                    key, _, value = line.partition("=")
                    key, value = key.strip(), value.strip()
                    if not value:
                        continue
                    try:
                        values[key] = float(int(value, 0)) if value.lower().startswith("0x") else float(value)
                    except ValueError:
                        self.check(False, f"{path}:{number}: '{key}' is a number", f"'{value}' is not a number")
        except FileNotFoundError:
            pass
        for key in keys:
            if key not in values:
                self.check(False, f"{path}: '{key}' predicted",
                           f"write your prediction as '{key} = <number>' in {path} (the handout says how)")
        return values

    def predicted(self, predictions, key, measured, tolerance=0.0, hint=""):
        """Compares a prediction with what the counters measured."""
        if key not in predictions:
            return False
        guess = predictions[key]
        ok = abs(guess - measured) <= tolerance + 1e-9
        within = f" (within {tolerance:g})" if tolerance else ""
        return self.check(ok, f"prediction {key} = {guess:g} matches the counters: {measured:g}{within}",
                          "" if ok else hint)

    @staticmethod
    def trace(path, launch):
        """The instruction lines of one launch of an instruction trace, as
        (cycle, sm, warp, pc, mask, text) tuples."""
        lines, current = [], 0
        with open(path) as file:
            for line in file:
                if line.startswith("# launch "):
                    current = int(line.split()[2].rstrip(":"))
                elif not line.startswith("#") and current == launch and line.strip():
                    cycle, sm, warp, pc, mask, text = line.split(None, 5)
                    lines.append((int(cycle), int(sm), int(warp), int(pc, 16), int(mask, 16), text.rstrip()))
        return lines

    def verilate(self, top, sources, include, objdir, program):
        """Builds a Verilator bench of the student's RTL with -Wall into objdir/program: (exit status,
        output, Verilator's warning and error lines).  Without Verilator the check fails and the
        checker ends."""
        verilator = shutil.which(os.environ.get("VERILATOR", "verilator"))
        if not self.check(verilator is not None, "Verilator is installed",
                          "the RTL part needs verilator (Debian package)"):
            self.finish()
        shutil.rmtree(objdir, ignore_errors=True)
        status, out = run_command([verilator, "--cc", "--exe", "--build", "-j", "2", "-Wall", f"-I{include}",
                                   "--top-module", top, "-Mdir", str(objdir), "-o", program, *map(str, sources)], 600)
        messages = [line for line in out.splitlines() if line.startswith(("%Warning", "%Error"))]
        return status, out, messages

    def finish(self):
        if self.failures:
            print(f"{self.name}: FAILED {self.failures} of {self.checks} checks")
            sys.exit(1)
        print(f"{self.name}: PASSED all {self.checks} checks")
        sys.exit(0)
