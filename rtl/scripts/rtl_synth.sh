#!/usr/bin/env bash
# Synthesizes a Kestrel RTL top with Debian's Yosys 0.23 and prints the cell
# counts.  Usage: rtl_synth.sh [--hierarchy] [--coarse] [--noshare] TOP [param=value ...]
# By default the design is flattened and the counts are those of the flat
# netlist.  --hierarchy synthesizes every module of the hierarchy once per
# parameter set without flattening (a unit instantiated four times is mapped
# once), which takes a fraction of the time for the SM; the counts are the
# hierarchy's totals (stat -top), a few percent above the flat netlist's
# because nothing is optimized across unit boundaries.
# Fails on any Yosys error, and on warnings that signal a Yosys 0.23 parse
# gap (an implicitly declared identifier, a wire without driver) or a latch.
set -euo pipefail
rtl_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
flatten="-flatten"
mode="flattened"
stop=""
share=""
while [ "${1:-}" = "--hierarchy" ] || [ "${1:-}" = "--coarse" ] || [ "${1:-}" = "--noshare" ]; do
  if [ "$1" = "--hierarchy" ]; then
    flatten=""
    mode="hierarchy"
  elif [ "$1" = "--noshare" ]; then
    # Without the SAT-based resource sharing pass, which on a unit with many
    # mutually exclusive arithmetic cells (the texture filter's channel) runs
    # for over ten minutes; it could only merge datapaths that are exclusive.
    share=" -noshare"
    mode="$mode, no sharing"
  else
    # Elaboration, processes (latches are reported here), FSM and memory
    # inference and the coarse-grain optimizations; no mapping to gates, the
    # step that takes most of a large design's time.
    stop=" -run begin:fine"
    mode="$mode, coarse"
  fi
  shift
done
top="$1"
shift
chparams=""
for kv in "$@"; do chparams+=" -set ${kv%%=*} ${kv#*=}"; done
files=("$rtl_dir/pkg/kestrel_pkg.sv" "$rtl_dir/fpu/kestrel_fpu_pkg.sv" "$rtl_dir/board/kestrel_board_pkg.sv"
  "$rtl_dir/tex/kestrel_tex_pkg.sv")
for d in prim fpu core mem top board tex; do
  for f in "$rtl_dir/$d"/*.sv; do
    [ -e "$f" ] && [ "$f" != "$rtl_dir/fpu/kestrel_fpu_pkg.sv" ] && [ "$f" != "$rtl_dir/board/kestrel_board_pkg.sv" ] &&
      [ "$f" != "$rtl_dir/tex/kestrel_tex_pkg.sv" ] && files+=("$f")
  done
done
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
script="read_verilog -defer -sv -DSYNTHESIS -I$rtl_dir/include ${files[*]}; "
if [ -n "$chparams" ]; then script+="chparam$chparams $top; "; fi
script+="synth -top $top $flatten$share$stop; stat -top $top"
if ! yosys -p "$script" >"$log" 2>&1; then
  grep -E "ERROR|rror:" "$log" | head -20
  echo "synth: $top FAILED"
  exit 1
fi
if grep -E "implicitly declared|has no driver|^Latch inferred|\$(dlatch|_DLATCH)" "$log"; then
  echo "synth: $top has warnings that indicate a mis-parse or latch"
  exit 1
fi
# The last statistics block is the flattened top after synthesis, or, for a
# hierarchy, its totals after "design hierarchy".  (Found by line number:
# accumulating the block in awk is quadratic in the log, which is over 10 MB
# for the SM.)
last_stats="$(grep -n "Printing statistics" "$log" | tail -1 | cut -d: -f1)"
if [ -z "$flatten" ] && grep -q "=== design hierarchy ===" "$log"; then
  last_stats="$(grep -n "=== design hierarchy ===" "$log" | tail -1 | cut -d: -f1)"
fi
tail -n +"${last_stats:-1}" "$log" |
  grep -E "Number of cells|\\\$_|Number of wires" | head -40
echo "synth: $top OK (${*:-default parameters}; $mode)"
