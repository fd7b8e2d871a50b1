#!/usr/bin/env bash
# Synthesizes one rtl/fpu top with Yosys 0.23 (generic `synth`, flattened) and
# prints its cell counts.  Usage: fpu_synth.sh TOP [param=value ...]
# Fails on a Yosys error and on warnings that mean a Yosys 0.23 parse gap (an
# implicitly declared identifier, a wire without driver) or a latch.
set -euo pipefail
fpu_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../fpu" && pwd)"
top="$1"
shift
chparams=""
for kv in "$@"; do chparams+=" -set ${kv%%=*} ${kv#*=}"; done
files=("$fpu_dir/kestrel_fpu_pkg.sv")
for f in "$fpu_dir"/*.sv; do [ "$f" != "$fpu_dir/kestrel_fpu_pkg.sv" ] && files+=("$f"); done
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
script="read_verilog -sv -DSYNTHESIS -I$fpu_dir/../include ${files[*]}; "
if [ -n "$chparams" ]; then script+="chparam$chparams $top; "; fi
script+="synth -top $top -flatten"
if ! yosys -p "$script" >"$log" 2>&1; then
  grep -E "ERROR|rror:" "$log" | head -20
  echo "synth: $top FAILED"
  exit 1
fi
if grep -E "implicitly declared|has no driver|^Latch inferred|\\\$(dlatch|_DLATCH)" "$log"; then
  echo "synth: $top has warnings that indicate a mis-parse or latch"
  exit 1
fi
# The last statistics block is the flattened top after synthesis.
# (Found by line number: accumulating the block in awk is quadratic in the
# log, which is over 10 MB for the SM.)
last_stats="$(grep -n "Printing statistics" "$log" | tail -1 | cut -d: -f1)"
tail -n +"${last_stats:-1}" "$log" |
  grep -E "Number of cells|\\\$_|Number of wires" | head -40
echo "synth: $top OK ($*)"
